"""The claim registry: one entry per claim ID of CLAIMS.md, each with a check and a verdict.

A check returns an ``Outcome``: PROVED / REFUTED / UNKNOWN with exact evidence. A check that
raises, or a solver that answers unknown, yields UNKNOWN with the reason — never a pass.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


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


@dataclass(frozen=True)
class Claim:
    """A claim from a paper and the check that decides it.

    ``kind`` is SMT, SYM, EXACT or FUZZ (CLAIMS.md); ``expected`` is the verdict the paper
    predicts (REFUTED for impossibility examples encoded as counterexamples).
    """

    id: str
    paper: str
    location: str
    statement: str
    kind: str
    check: Callable[[], Outcome]
    expected: Verdict = Verdict.PROVED
    slow: bool = False


REGISTRY: dict[str, Claim] = {}


def claim(
    id: str,
    *,
    paper: str,
    location: str,
    statement: str,
    kind: str,
    expected: Verdict = Verdict.PROVED,
    slow: bool = False,
) -> Callable[[Callable[[], Outcome]], Callable[[], Outcome]]:
    """Register the decorated function as the check of claim ``id``."""

    def register(check: Callable[[], Outcome]) -> Callable[[], Outcome]:
        if id in REGISTRY:
            raise ValueError(f"claim {id!r} is registered twice")
        REGISTRY[id] = Claim(id, paper, location, statement, kind, check, expected, slow)
        return check

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
            "location": c.location,
            "statement": c.statement,
            "kind": c.kind,
            "verdict": self.outcome.verdict.value,
            "expected": c.expected.value,
            "as_expected": self.as_expected,
            "seconds": round(self.seconds, 4),
            "evidence": self.outcome.evidence,
            "reason": self.outcome.reason,
        }


def run_claim(claim: Claim) -> Result:
    """Run one check; an exception becomes UNKNOWN with the error as its reason."""
    start = time.perf_counter()
    try:
        outcome = claim.check()
        if not isinstance(outcome, Outcome):
            outcome = Outcome(Verdict.UNKNOWN, reason=f"check returned {type(outcome).__name__}, not an Outcome")
    except Exception as err:
        last = traceback.extract_tb(err.__traceback__)[-1]
        outcome = Outcome(
            Verdict.UNKNOWN, reason=f"check raised {type(err).__name__}: {err} ({last.filename}:{last.lineno})"
        )
    return Result(claim, outcome, time.perf_counter() - start)


def decide(failures: list[dict[str, Any]], evidence: dict[str, Any]) -> Outcome:
    """PROVED when no instance failed, else REFUTED with the failing instances as evidence."""
    if failures:
        return Outcome(Verdict.REFUTED, {**evidence, "failures": failures})
    return Outcome(Verdict.PROVED, evidence)
