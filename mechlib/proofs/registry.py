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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
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
    measured: bool = False  # computed from what the part ran (:func:`measured`), not written beside it
    complete: bool = False  # the half is a finite statement (a printed figure) and every instance was checked

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"strength": self.strength.value, "n": self.n, "alpha": self.alpha, "method": self.method}
        if self.covers is not None:
            doc["covers"] = self.covers
        doc["source"] = "measured" if self.measured else "declared"
        if self.complete:
            doc["complete"] = True
        return doc if self.examples is None else {**doc, "examples": self.examples}

    def describe(self) -> str:
        count = f"{self.examples} examples, " if self.examples is not None else ""
        return f"{self.strength.value}: {count}n {self.n}; α {self.alpha}; {self.method}"


def measured(
    method: str,
    *,
    n: Iterable[int] | str,
    alphas: Iterable[Any] | str,
    every_object: bool,
    covers: str | None = None,
    examples: int | None = None,
    complete: bool = False,
) -> Scope:
    """The scope of what a part actually ran, computed — never typed beside the check.

    ``n``: the sizes it checked (integers), or a string naming a symbolic domain ("every n ≥ 1")
    when it proved the statement with n a variable; ``alphas``: the α it used, or a string for a
    symbolic α; ``every_object``: at each n it covered everything the statement quantifies over
    (all mechanisms, all users …) rather than listed ones; ``examples``: a sample's size;
    ``complete``: the half ``covers`` names is a finite statement (a printed figure at its n and
    α) and every instance of it was checked — INSTANCES, but no weaker than the statement.
    ALL-n needs a symbolic n and every object; BOUNDED every n from the least checked up to the
    largest, every object; SAMPLED a sample; INSTANCES otherwise."""
    from mechlib.core.exact import format_fraction

    alpha_text = (
        alphas
        if isinstance(alphas, str)
        else ", ".join(format_fraction(a) if isinstance(a, Fraction) else str(a) for a in sorted(set(alphas)))
    )
    if examples is not None:
        return Scope(Strength.SAMPLED, n if isinstance(n, str) else _sizes(n), alpha_text, method, examples,
                     covers, measured=True)  # fmt: skip
    if isinstance(n, str):
        strength = Strength.ALL_N if every_object else Strength.INSTANCES
        return Scope(strength, n, alpha_text, method, covers=covers, measured=True)
    sizes = sorted(set(n))
    contiguous = bool(sizes) and sizes == list(range(sizes[0], sizes[-1] + 1))
    if every_object and contiguous and len(sizes) > 1:
        return Scope(Strength.BOUNDED, f"{sizes[0]} ≤ n ≤ {sizes[-1]} (every n)", alpha_text, method, covers=covers,
                     measured=True)  # fmt: skip
    return Scope(Strength.INSTANCES, _sizes(sizes), alpha_text, method, covers=covers, measured=True,
                 complete=complete and covers is not None)  # fmt: skip


def with_scope(outcome: Outcome, scope: Scope) -> Outcome:
    """The outcome with the scope of what its part ran."""
    return replace(outcome, scopes=(scope,))


def _sizes(n: Iterable[int]) -> str:
    sizes = sorted(set(n))
    return "n ∈ {" + ", ".join(map(str, sizes)) + "}"


def instances(n: str, alpha: str, method: str) -> Scope:
    return Scope(Strength.INSTANCES, n, alpha, method)


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
    #: A combined outcome's kind of the part each scope came from (a part may report one per half).
    scope_kinds: tuple[str, ...] = ()


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
        return claim_strength(self.scopes) if self.scopes else None

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
            "scope": self.scopes_by_part(),
            "expected": c.expected.value,
            "as_expected": self.as_expected,
            "seconds": round(self.seconds, 4),
            "evidence": self.outcome.evidence,
            "reason": self.outcome.reason,
        }


    def scopes_by_part(self) -> dict[str, Any]:
        """Each scope under its part's kind; a part's further scopes (one per half it checks) as
        "EXACT #2" and so on, so none is dropped."""
        kinds = self.outcome.scope_kinds or tuple(kind for kind, _ in self.claim.parts)
        shown: dict[str, Any] = {}
        for kind, s in zip(kinds, self.scopes):
            key, k = kind, 1
            while key in shown:
                k += 1
                key = f"{kind} #{k}"
            shown[key] = s.to_json()
        return shown


def claim_strength(scopes: Iterable[Scope]) -> Strength:
    """What the parts' scopes establish together: the strongest part that checks the whole
    statement, or — when parts check halves (``Scope.covers``) — the weakest half, each half at
    the strongest of its parts; whichever is stronger. A finite half checked entirely
    (``Scope.complete``) does not weaken it."""
    whole: list[Strength] = []
    halves: dict[str | None, Strength] = {}
    scopes = list(scopes)
    finite = {s.covers for s in scopes if s.complete}
    if finite and all(s.covers in finite for s in scopes if s.covers is not None):
        finite = set()  # every half is finite: the weakest of them is the claim's strength
    for s in scopes:
        if s.covers in finite:
            continue  # a finite half checked entirely does not weaken the claim
        if s.covers is None:
            whole.append(s.strength)
        else:
            best = halves.get(s.covers)
            halves[s.covers] = s.strength if best is None or RANK[s.strength] > RANK[best] else best
    candidates = [*whole, *([min(halves.values(), key=RANK.__getitem__)] if halves else [])]
    return max(candidates, key=RANK.__getitem__)


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
        declared = scope or DEFAULT_SCOPE[kind]
        if outcome.verdict == Verdict.PROVED and RANK[declared.strength] > RANK[Strength.INSTANCES]:
            reason = (
                f"the part declares {declared.strength.value} ({declared.describe()}) without a record of what it "
                "ran: a BOUNDED or ALL-n scope is computed from the run (registry.measured), never typed"
            )
            return Outcome(Verdict.UNKNOWN, outcome.evidence, reason, (declared,))
        return replace(outcome, scopes=(declared,))
    disagree = [s for s in outcome.scopes if s.measured and scope is not None and _disagrees(scope, s)]
    if disagree:
        reason = (
            f"the declared scope ({scope.describe() if scope else ''}) disagrees with what the part ran "
            f"({disagree[0].describe()}): a scope is computed from the record, never typed beside the check"
        )
        return Outcome(Verdict.UNKNOWN, outcome.evidence, reason, outcome.scopes)
    return outcome


def _disagrees(declared: Scope, ran: Scope) -> bool:
    """A declared scope claims more than the record shows, names other sizes or another half."""
    stronger = RANK[declared.strength] > RANK[ran.strength]
    return stronger or (declared.n != ran.n and declared.strength != Strength.SAMPLED) or declared.covers != ran.covers


def combine(parts: list[tuple[str, Outcome]]) -> Outcome:
    """REFUTED if any part refutes; UNKNOWN if any is unknown; else PROVED, or NO COUNTEREXAMPLE
    when every part only sampled. Evidence by kind; the parts' scopes in order."""
    verdicts = {o.verdict for _, o in parts}
    scopes = tuple(s for _, o in parts for s in o.scopes)
    if Verdict.REFUTED in verdicts:
        verdict = Verdict.REFUTED
    elif verdicts != {Verdict.PROVED}:
        verdict = Verdict.UNKNOWN
    elif scopes and claim_strength(scopes) == Strength.SAMPLED:
        verdict = Verdict.NO_COUNTEREXAMPLE  # every part sampled, or a half of the statement only is
    else:
        verdict = Verdict.PROVED
    reasons = [f"{kind}: {o.reason}" for kind, o in parts if o.reason]
    kinds = tuple(kind for kind, o in parts for _ in o.scopes)
    return Outcome(verdict, {kind: o.evidence for kind, o in parts}, "; ".join(reasons) or None, scopes, kinds)


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
