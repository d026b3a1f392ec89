"""The claim registry: every ID of CLAIMS.md (``proofs.catalogue``), each with its checks.

A claim has one or more *parts*, each a check of one kind (SMT, SYM, EXACT, FUZZ) returning an
``Outcome``: PROVED / REFUTED / UNKNOWN with exact evidence. A part that raises, or a solver that
answers unknown, is UNKNOWN with the reason — never a pass. The claim's verdict: REFUTED if any
part refutes it, PROVED if every implemented part proves it, UNKNOWN otherwise (including a claim
with no implemented part yet, which names the work that owns it).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from proofs.catalogue import CATALOGUE, ClaimInfo


class Verdict(StrEnum):
    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class Outcome:
    """A check's answer, with the evidence that lets someone else re-check it."""

    verdict: Verdict
    evidence: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None


Check = Callable[[], Outcome]


@dataclass(frozen=True)
class Claim:
    """A claim of CLAIMS.md and the checks that decide it (by kind)."""

    info: ClaimInfo
    parts: tuple[tuple[str, Check], ...] = ()
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
    claim_id: str, *, kind: str, expected: Verdict = Verdict.PROVED, slow: bool = False
) -> Callable[[Check], Check]:
    """Register the decorated function as the ``kind`` part of claim ``claim_id``."""

    def register(fn: Check) -> Check:
        if claim_id not in REGISTRY:
            raise ValueError(f"claim {claim_id!r} is not in CLAIMS.md's catalogue")
        claim = REGISTRY[claim_id]
        if kind in {k for k, _ in claim.parts}:
            raise ValueError(f"claim {claim_id!r} already has a {kind} part")
        REGISTRY[claim_id] = replace(
            claim, parts=(*claim.parts, (kind, fn)), expected=expected, slow=claim.slow or slow
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
        return self.outcome.verdict == self.claim.expected

    def to_json(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "paper": c.paper,
            "location": c.info.location,
            "statement": c.statement,
            "kind": "+".join(kind for kind, _ in c.parts) or "none",
            "pending": c.pending_kinds,
            "implemented": c.implemented,
            "verdict": self.outcome.verdict.value,
            "expected": c.expected.value,
            "as_expected": self.as_expected,
            "seconds": round(self.seconds, 4),
            "evidence": self.outcome.evidence,
            "reason": self.outcome.reason,
        }


def run_part(fn: Check) -> Outcome:
    """Run one check; an exception or a non-Outcome answer becomes UNKNOWN with the reason."""
    try:
        outcome = fn()
    except Exception as err:
        last = traceback.extract_tb(err.__traceback__)[-1]
        return Outcome(
            Verdict.UNKNOWN, reason=f"check raised {type(err).__name__}: {err} ({last.filename}:{last.lineno})"
        )
    if not isinstance(outcome, Outcome):
        return Outcome(Verdict.UNKNOWN, reason=f"check returned {type(outcome).__name__}, not an Outcome")
    return outcome


def combine(parts: list[tuple[str, Outcome]]) -> Outcome:
    """REFUTED if any part refutes, PROVED if all prove, else UNKNOWN; evidence by kind."""
    verdicts = {o.verdict for _, o in parts}
    verdict = (
        Verdict.REFUTED
        if Verdict.REFUTED in verdicts
        else Verdict.PROVED
        if verdicts == {Verdict.PROVED}
        else Verdict.UNKNOWN
    )
    reasons = [f"{kind}: {o.reason}" for kind, o in parts if o.reason]
    return Outcome(verdict, {kind: o.evidence for kind, o in parts}, "; ".join(reasons) or None)


def run_claim(claim: Claim) -> Result:
    """Run every part of a claim (in this process) and combine the verdicts."""
    start = time.perf_counter()
    if not claim.implemented:
        outcome = Outcome(Verdict.UNKNOWN, reason=f"not implemented yet (owned by {claim.info.owner})")
    else:
        outcome = combine([(kind, run_part(fn)) for kind, fn in claim.parts])
    return Result(claim, outcome, time.perf_counter() - start)


def decide(failures: list[dict[str, Any]], evidence: dict[str, Any]) -> Outcome:
    """PROVED when no instance failed, else REFUTED with the failing instances as evidence."""
    if failures:
        return Outcome(Verdict.REFUTED, {**evidence, "failures": failures})
    return Outcome(Verdict.PROVED, evidence)
