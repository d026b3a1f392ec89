"""The claim registry: every ID of CLAIMS.md (``mechlib.proofs.catalogue``), each with its checks.

A claim has one or more *parts*, each a check of one kind (SMT, SYM, EXACT, FUZZ) returning an
``Outcome``: PROVED / REFUTED / UNKNOWN with exact evidence and a :class:`Scope` — what the part
established (which n, which α, by what method) and its :class:`Strength`: ALL-n (a parametric
proof), BOUNDED (every n ≤ N), INSTANCES (listed instances) or SAMPLED (random examples). A part
that raises, or a solver that answers unknown, is UNKNOWN with the reason — never a pass.

The claim's verdict: REFUTED if any part refutes it; UNKNOWN if any part is unknown (or nothing is
implemented yet, naming the work that owns it); otherwise PROVED — unless every part only sampled,
which reads NO COUNTEREXAMPLE (CrossHair keeps CONFIRMED for exhaustive checks, likewise). The
claim's strength is its strongest whole-statement part's, or its weakest half's when parts check
different halves (``Scope.covers``); sampling parts add examples, not strength; a
shortfall against the catalogue (a missing kind, a lower strength than the claim should reach) is
reported beside the verdict, never hidden.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from mechlib.proofs.catalogue import CATALOGUE, RANK, ClaimInfo, Strength


class Verdict(StrEnum):
    PROVED = "PROVED"
    NO_COUNTEREXAMPLE = "NO COUNTEREXAMPLE"  # a claim whose every part only sampled
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class Scope:
    """What a part established: the range of n, of α, the method, and the resulting strength.
    ``examples``: the number of sampled examples (SAMPLED parts)."""

    strength: Strength
    n: str
    alpha: str
    method: str
    examples: int | None = None
    covers: str | None = None  # None: the whole statement; else the half this part checks

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"strength": self.strength.value, "n": self.n, "alpha": self.alpha, "method": self.method}
        if self.covers is not None:
            doc["covers"] = self.covers
        return doc if self.examples is None else {**doc, "examples": self.examples}

    def describe(self) -> str:
        count = f"{self.examples} examples, " if self.examples is not None else ""
        return f"{self.strength.value}: {count}n {self.n}; α {self.alpha}; {self.method}"


def instances(n: str, alpha: str, method: str) -> Scope:
    return Scope(Strength.INSTANCES, n, alpha, method)


def bounded(n_max: int, alpha: str, method: str, n_min: int = 1) -> Scope:
    return Scope(Strength.BOUNDED, f"{n_min} ≤ n ≤ {n_max} (every n)", alpha, method)


def sampled(
    examples: int, n: str = "as the strategy draws", alpha: str = "as drawn", method: str = "Hypothesis, seeded"
) -> Scope:
    return Scope(Strength.SAMPLED, n, alpha, method, examples)


#: What a part of each kind shows when its check states nothing more precise (conservative).
DEFAULT_SCOPE = {
    "SMT": Scope(Strength.INSTANCES, "the listed instances", "the listed values", "z3 + cvc5: UNSAT of the negation"),
    "SYM": Scope(Strength.INSTANCES, "the listed instances", "symbolic", "sympy / exact evaluation"),
    "EXACT": Scope(Strength.INSTANCES, "the listed instances", "the listed values", "exact rationals"),
    "FUZZ": sampled(0),
}


@dataclass(frozen=True)
class Outcome:
    """A check's answer, with the evidence that lets someone else re-check it; ``scopes``: what it
    established (a part's one scope — if empty, the scope registered with the check or its kind's
    default; a claim's combined outcome lists its parts' scopes in order)."""

    verdict: Verdict
    evidence: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    scopes: tuple[Scope, ...] = ()


Check = Callable[[], Outcome]


@dataclass(frozen=True)
class Claim:
    """A claim of CLAIMS.md and the checks that decide it (by kind)."""

    info: ClaimInfo
    parts: tuple[tuple[str, Check], ...] = ()
    scopes: tuple[Scope | None, ...] = ()  # the registered scope of each part (None: by kind)
    expected: Verdict = Verdict.PROVED
    slow: bool = False

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def paper(self) -> str:
        return self.info.paper

    @property
    def statement(self) -> str:
        return self.info.statement

    @property
    def implemented(self) -> bool:
        return bool(self.parts)

    @property
    def pending_kinds(self) -> list[str]:
        done = {kind for kind, _ in self.parts}
        return [k for k in self.info.kinds if k not in done]


REGISTRY: dict[str, Claim] = {cid: Claim(info) for cid, info in CATALOGUE.items()}


def check(
    claim_id: str, *, kind: str, expected: Verdict = Verdict.PROVED, slow: bool = False, scope: Scope | None = None
) -> Callable[[Check], Check]:
    """Register the decorated function as the ``kind`` part of claim ``claim_id``; ``scope`` says
    what it establishes when it passes (default: the conservative one for its kind)."""

    def register(fn: Check) -> Check:
        if claim_id not in REGISTRY:
            raise ValueError(f"claim {claim_id!r} is not in CLAIMS.md's catalogue")
        claim = REGISTRY[claim_id]
        if kind in {k for k, _ in claim.parts}:
            raise ValueError(f"claim {claim_id!r} already has a {kind} part")
        REGISTRY[claim_id] = replace(
            claim,
            parts=(*claim.parts, (kind, fn)),
            scopes=(*claim.scopes, scope),
            expected=expected,
            slow=claim.slow or slow,
        )
        return fn

    return register


@dataclass(frozen=True)
class Result:
    claim: Claim
    outcome: Outcome
    seconds: float

    @property
    def as_expected(self) -> bool:
        """The verdict goes the way the paper says: REFUTED where it predicts a refutation,
        PROVED or NO COUNTEREXAMPLE where it predicts the claim holds (the strength is judged
        separately, as a shortfall)."""
        holds = {Verdict.PROVED, Verdict.NO_COUNTEREXAMPLE}
        got, want = self.outcome.verdict, self.claim.expected
        return got == want or (want == Verdict.PROVED and got in holds)

    @property
    def strength(self) -> Strength | None:
        """What the claim as a whole reached (None unless every part passed): the strongest part
        that checks the whole statement, or the weakest of the parts that check halves of it
        (``Scope.covers``) — whichever is stronger; sampling parts add examples, not strength."""
        if self.outcome.verdict not in {Verdict.PROVED, Verdict.NO_COUNTEREXAMPLE}:
            return None
        proofs = [s for s in self.scopes if s.strength != Strength.SAMPLED]
        if not proofs:
            return Strength.SAMPLED if self.scopes else None
        halves = [s.strength for s in proofs if s.covers is not None]
        candidates = [s.strength for s in proofs if s.covers is None]
        if halves:
            candidates.append(min(halves, key=RANK.__getitem__))
        return max(candidates, key=RANK.__getitem__)

    @property
    def scopes(self) -> tuple[Scope, ...]:
        return self.outcome.scopes

    @property
    def shortfall(self) -> list[str]:
        """What the claim should reach and does not: missing check kinds, a lower strength."""
        c = self.claim
        missing = [f"{kind} check missing" for kind in c.pending_kinds] if c.implemented else []
        reached = self.strength
        if reached is not None and RANK[reached] < RANK[c.info.target]:
            missing.append(f"strength {reached.value}, should reach {c.info.target.value}")
        return missing

    def to_json(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "paper": c.paper,
            "location": c.info.location,
            "statement": c.statement,
            "kind": "+".join(kind for kind, _ in c.parts) or "none",
            "checks": {kind: f"{fn.__module__}:{fn.__qualname__}" for kind, fn in c.parts},
            "pending": c.pending_kinds,
            "implemented": c.implemented,
            "verdict": self.outcome.verdict.value,
            "strength": None if self.strength is None else self.strength.value,
            "target_strength": c.info.target.value,
            "shortfall": self.shortfall,
            "scope": {kind: s.to_json() for (kind, _), s in zip(c.parts, self.scopes)},
            "expected": c.expected.value,
            "as_expected": self.as_expected,
            "seconds": round(self.seconds, 4),
            "evidence": self.outcome.evidence,
            "reason": self.outcome.reason,
        }


def run_part(fn: Check, kind: str = "EXACT", scope: Scope | None = None) -> Outcome:
    """Run one check; an exception or a non-Outcome answer becomes UNKNOWN with the reason. The
    outcome's scope: the one it reports, else the registered one, else its kind's default."""
    try:
        outcome = fn()
    except Exception as err:
        last = traceback.extract_tb(err.__traceback__)[-1]
        return Outcome(
            Verdict.UNKNOWN, reason=f"check raised {type(err).__name__}: {err} ({last.filename}:{last.lineno})"
        )
    if not isinstance(outcome, Outcome):
        return Outcome(Verdict.UNKNOWN, reason=f"check returned {type(outcome).__name__}, not an Outcome")
    if not outcome.scopes:
        outcome = replace(outcome, scopes=(scope or DEFAULT_SCOPE[kind],))
    return outcome


def combine(parts: list[tuple[str, Outcome]]) -> Outcome:
    """REFUTED if any part refutes; UNKNOWN if any is unknown; else PROVED, or NO COUNTEREXAMPLE
    when every part only sampled. Evidence by kind; the parts' scopes in order."""
    verdicts = {o.verdict for _, o in parts}
    scopes = tuple(s for _, o in parts for s in o.scopes)
    if Verdict.REFUTED in verdicts:
        verdict = Verdict.REFUTED
    elif verdicts != {Verdict.PROVED}:
        verdict = Verdict.UNKNOWN
    elif scopes and all(s.strength == Strength.SAMPLED for s in scopes):
        verdict = Verdict.NO_COUNTEREXAMPLE
    else:
        verdict = Verdict.PROVED
    reasons = [f"{kind}: {o.reason}" for kind, o in parts if o.reason]
    return Outcome(verdict, {kind: o.evidence for kind, o in parts}, "; ".join(reasons) or None, scopes)


def run_claim(claim: Claim) -> Result:
    """Run every part of a claim (in this process) and combine the verdicts."""
    start = time.perf_counter()
    if not claim.implemented:
        outcome = Outcome(Verdict.UNKNOWN, reason=f"not implemented yet (owned by {claim.info.owner})")
    else:
        scopes = (*claim.scopes, *[None] * (len(claim.parts) - len(claim.scopes)))
        parts = zip(claim.parts, scopes, strict=True)
        outcome = combine([(kind, run_part(fn, kind, scope)) for (kind, fn), scope in parts])
    return Result(claim, outcome, time.perf_counter() - start)


def decide(failures: list[dict[str, Any]], evidence: dict[str, Any]) -> Outcome:
    """PROVED when no instance failed, else REFUTED with the failing instances as evidence."""
    if failures:
        return Outcome(Verdict.REFUTED, {**evidence, "failures": failures})
    return Outcome(Verdict.PROVED, evidence)


def outcome_of_task(result: Any) -> tuple[Outcome, float]:
    """(outcome, seconds) of an engine task that ran ``mechlib.verify:claim_outcome``: its answer,
    or UNKNOWN with the reason it has none (timed out, or an engine failure)."""
    if result.ok:
        outcome, seconds = result.value
        return outcome, seconds
    if result.timed_out:  # the per-claim wall clock is a safety net; the solvers' limits are resources
        reason = (
            f"machine too slow: the claim's wall-clock safety net ({result.reason}) fired before its checks "
            "finished; every solver call runs under a resource limit, so a faster or less loaded machine "
            "(or a larger --timeout) decides it the same way every time"
        )
        return Outcome(Verdict.UNKNOWN, reason=reason), result.seconds
    return Outcome(Verdict.UNKNOWN, reason=result.unknown_reason), result.seconds
