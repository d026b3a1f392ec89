"""Falsifying mutants: every claim check is shown to fail on a false claim.

A mutant changes the world a claim is checked in — T replaced by a mechanism that is not
universally optimal, a printed figure perturbed, an inequality of an encoding flipped, legal losses
replaced by illegal ones, another α — and runs the claim's own check path unchanged. A check that
still answers PROVED (or NO COUNTEREXAMPLE) on a false claim proves nothing, so each mutant must be
*killed*: the claim comes back REFUTED or UNKNOWN.

A mutant is a list of replacements ``(original object, replacement factory)``; applying it swaps the
original for the replacement in every loaded ``mechlib``/``proofs`` module that holds it (so a
check that imported a name, or a library function it calls, sees the mutated world alike), and
undoes it afterwards. Mutants are registered with :func:`register` — beside the claim they
falsify (``mechlib/proofs/<paper>/<claim>.py``) or, when they falsify several, in ``mechlib.proofs.falsifications``;
``mechlib verify --mutants`` runs them and reports the mutation score.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mechlib.engine import ENGINE_FAILURE
from mechlib.proofs.registry import REGISTRY, Result, run_claim

#: The kinds of falsification (every claim should be met by at least two mutants).
KINDS = (
    "non-universal mechanism in place of T",
    "noisier mechanism in place of T",
    "perturbed figure",
    "changed statement",
    "flipped inequality",
    "illegal loss",
    "wrong α",
    "rejected certificate",
    # the proofs' own structure (issue 32): a broken proof must not read PROVED
    "dropped case",
    "weakened case lemma",
    "dropped base case",
    "pattern not from the definition",
    "wrong paper value",
    "cell accepted without its certificate",
    "dominance check skipping a tail",
    "fuzz draw outside the hypothesis",
    "accepted without certificate",
    "incomplete check",
    # scopes measured (issue 32 item 2): a verdict without a record of what ran must not read PROVED
    "verdict without its record",
)


@dataclass(frozen=True)
class Attr:
    """One named attribute to swap (a method of a class, say), rather than every holder of a value."""

    owner: Any
    name: str


#: (original object, replacement): every module attribute bound to the original is rebound; or
#: (Attr(owner, name), replacement): that one attribute.
Swap = tuple[Any, Any]


@dataclass(frozen=True)
class Mutant:
    """A falsification of one or more claims: ``swap()`` returns the swaps to make."""

    name: str
    kind: str
    claims: tuple[str, ...]
    swap: Callable[[], list[Swap]]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"mutant {self.name!r}: kind {self.kind!r} is not one of {KINDS}")
        unknown = [c for c in self.claims if c not in REGISTRY]
        if unknown:
            raise ValueError(f"mutant {self.name!r}: unknown claims {unknown}")


MUTANTS: dict[str, Mutant] = {}


def module_constant(module: str, name: str, replacement: Callable[[Any], Any]) -> Callable[[], list[Swap]]:
    """A swap of the object bound to ``module.name`` (a printed figure, a constant of an encoding,
    a function) for ``replacement(original)``, wherever a loaded module holds it."""

    def swap() -> list[Swap]:
        import importlib

        original = getattr(importlib.import_module(module), name)
        return [(original, replacement(original))]

    return swap


def perturbed(matrix: Any, row: int = 1) -> Any:
    """The printed matrix with one row's first two entries moved by 1/36 (still stochastic)."""
    from fractions import Fraction

    from mechlib.core.mechanism import Mechanism

    rows = [list(r) for r in matrix.rows]
    rows[row][0] += Fraction(1, 36)
    rows[row][1] -= Fraction(1, 36)
    return Mechanism(rows)


def never_violated(*_args: Any, **_kwargs: Any) -> None:
    """A membership or DP test that never finds a violation (the inequality dropped)."""
    return None


def register(name: str, kind: str, claims: tuple[str, ...] | list[str], swap: Callable[[], list[Swap]]) -> None:
    if name in MUTANTS:
        raise ValueError(f"mutant {name!r} is registered twice")
    MUTANTS[name] = Mutant(name, kind, tuple(claims), swap)


#: Modules that keep the originals on purpose (to build replacements from them).
_KEEP = ("mechlib.proofs.mutants", "mechlib.proofs.falsifications")


def _holders(original: Any) -> Iterator[tuple[Any, str]]:
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith("mechlib") or module_name in _KEEP:
            continue
        for attribute, value in list(vars(module).items()):
            if value is original:
                yield module, attribute


@contextmanager
def applied(mutant: Mutant) -> Iterator[None]:
    """The mutated world: every module attribute bound to an original is rebound, then restored."""
    undo: list[tuple[Any, str, Any]] = []
    try:
        for original, replacement in mutant.swap():
            if isinstance(original, Attr):
                undo.append((original.owner, original.name, getattr(original.owner, original.name)))
                setattr(original.owner, original.name, replacement)
                continue
            holders = list(_holders(original))
            if not holders:
                raise RuntimeError(f"mutant {mutant.name!r}: {original!r} is held by no loaded module")
            for module, attribute in holders:
                undo.append((module, attribute, original))
                setattr(module, attribute, replacement)
        yield
    finally:
        for module, attribute, original in reversed(undo):
            setattr(module, attribute, original)


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    claim: str
    result: Result

    @property
    def killed(self) -> bool:
        """The claim no longer goes the paper's way: REFUTED or UNKNOWN for a claim that holds; for
        one the paper gets wrong (expected REFUTED), the mutant is a world where the printed
        statement holds, and the check must stop refuting it. A run the engine could not finish
        (its process died) is not an answer of the check, so it kills nothing."""
        failed = (self.result.outcome.reason or "").startswith(ENGINE_FAILURE)
        return not self.result.as_expected and not failed

    def to_json(self) -> dict[str, Any]:
        outcome = self.result.outcome
        return {
            "mutant": self.mutant.name,
            "kind": self.mutant.kind,
            "claim": self.claim,
            "verdict": outcome.verdict.value,
            "killed": self.killed,
            "reason": outcome.reason,
            "seconds": round(self.result.seconds, 3),
        }


def run_mutant(name: str, claim: str) -> MutantResult:
    """The claim's own checks, in the mutant's world."""
    mutant = MUTANTS[name]
    saved = os.environ.get("MECHLIB_COUNTEREXAMPLES")
    os.environ["MECHLIB_COUNTEREXAMPLES"] = ""  # a mutant's counterexamples are expected: not saved
    try:
        with applied(mutant):
            result = run_claim(REGISTRY[claim])
    finally:
        if saved is None:
            del os.environ["MECHLIB_COUNTEREXAMPLES"]
        else:
            os.environ["MECHLIB_COUNTEREXAMPLES"] = saved
    return MutantResult(mutant, claim, result)


def pairs(claims: list[str] | None = None) -> list[tuple[str, str]]:
    """(mutant, claim) for every registered mutant of the selected claims, in a stable order."""
    wanted = set(claims) if claims is not None else None
    return sorted((m.name, c) for m in MUTANTS.values() for c in m.claims if wanted is None or c in wanted)


def score(results: list[MutantResult]) -> dict[str, Any]:
    """The mutation score overall and per claim (killed / run), and the survivors."""
    per_claim: dict[str, list[int]] = {}
    for r in results:
        killed_run = per_claim.setdefault(r.claim, [0, 0])
        killed_run[0] += r.killed
        killed_run[1] += 1
    killed = sum(r.killed for r in results)
    return {
        "mutants": len({r.mutant.name for r in results}),
        "runs": len(results),
        "killed": killed,
        "score": f"{killed}/{len(results)}",
        "per_claim": {c: f"{k}/{n}" for c, (k, n) in sorted(per_claim.items())},
        "survivors": [f"{r.mutant.name} on {r.claim}" for r in results if not r.killed],
    }
