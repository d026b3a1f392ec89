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
    objects: Iterable[str] = (),
    size: str = "n",
) -> Scope:
    """The scope of what a part actually ran, computed — never typed beside the check.

    ``n``: the sizes it checked (integers), or a string naming a symbolic domain ("every n ≥ 1")
    when it proved the statement with n a variable; ``alphas``: the α it used, or a string for a
    symbolic α; ``every_object``: at each n it covered everything the statement quantifies over
    (all mechanisms, all users …) rather than listed ones; ``examples``: a sample's size;
    ``complete``: the half ``covers`` names is a finite statement (a printed figure at its n and
    α) and every instance of it was checked — INSTANCES, but no weaker than the statement;
    ``objects``: the names of the instances checked (a figure, a graph, a prior …), shown after
    the sizes — for a part whose domain is not (only) a size n; ``size``: what the sizes count
    ("N" respondents in SY's information design).
    ALL-n needs a symbolic n and every object; BOUNDED every n from the least checked up to the
    largest, every object; SAMPLED a sample; INSTANCES otherwise."""
    from mechlib.core.exact import format_fraction

    named = _objects(objects)
    if not isinstance(n, str):
        n = list(n)  # read more than once below
    if isinstance(alphas, str):
        alpha_text = alphas
    else:
        values = list(dict.fromkeys(alphas))  # each once; numbers in order, then texts as first recorded
        numbers = sorted(a for a in values if not isinstance(a, str))
        shown = [format_fraction(a) if isinstance(a, Fraction) else str(a) for a in numbers]
        if len(shown) > _SHOWN_OBJECTS:
            shown = [f"{len(shown)} values from {shown[0]} to {shown[-1]}"]
        alpha_text = ", ".join([*shown, *(a for a in values if isinstance(a, str))])
    if examples is not None:
        return Scope(Strength.SAMPLED, _domain(n, named, size), alpha_text, method, examples, covers,
                     measured=True)  # fmt: skip
    if isinstance(n, str):
        strength = Strength.ALL_N if every_object else Strength.INSTANCES
        return Scope(strength, _domain(n, named, size), alpha_text, method, covers=covers, measured=True)
    sizes = sorted(set(n))
    contiguous = bool(sizes) and sizes == list(range(sizes[0], sizes[-1] + 1))
    if every_object and contiguous and len(sizes) > 1:
        every = f"{sizes[0]} ≤ {size} ≤ {sizes[-1]} (every {size})"
        return Scope(Strength.BOUNDED, _domain(every, named, size), alpha_text, method, covers=covers, measured=True)
    return Scope(Strength.INSTANCES, _domain(sizes, named, size), alpha_text, method, covers=covers, measured=True,
                 complete=complete and covers is not None)  # fmt: skip


def with_scope(outcome: Outcome, scope: Scope) -> Outcome:
    """The outcome with the scope of what its part ran."""
    return replace(outcome, scopes=(scope,))


def _domain(n: str | list[int], named: str, size: str) -> str:
    """The n text: a symbolic domain or the sizes checked, then the objects checked."""
    sizes = n if isinstance(n, str) else f"{size} ∈ {{" + ", ".join(map(str, sorted(set(n)))) + "}" if n else ""
    return ": ".join(part for part in (sizes, named) if part)


#: More distinct objects than this are summarised as a count and the first few names.
_SHOWN_OBJECTS = 8


def _objects(objects: Iterable[str]) -> str:
    """The objects checked, each once in the order first checked, with how often when more than once."""
    counts: dict[str, int] = {}
    for name in objects:
        counts[name] = counts.get(name, 0) + 1
    shown = [name if k == 1 else f"{name} ×{k}" for name, k in counts.items()]
    if len(shown) > _SHOWN_OBJECTS:
        return f"{len(shown)} kinds of instance: " + "; ".join(shown[:3]) + "; …"
    return "; ".join(shown)  # names may hold commas ("a random prior, T = 2")


@dataclass
class Record:
    """What a part ran, appended inside its loop as each instance is checked (so a part that stops
    early records less): the sizes n, the α and the objects (figures, graphs, priors …). The
    part's scope is computed from it (:meth:`scope`), never typed beside the check."""

    size: str = "n"  # what the sizes count ("N": respondents, in SY's information design)
    sizes: list[int] = field(default_factory=list)
    alphas: list[Any] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    count: int = 0  # instances recorded

    def ran(self, n: int | None = None, alpha: Any = None, what: str | None = None) -> None:
        """One instance checked: its size, its α (a Fraction, or a string for a symbolic or
        per-object α) and its name, each when it has one."""
        self.count += 1
        if n is not None:
            self.sizes.append(n)
        if alpha is not None:
            self.alphas.append(alpha)
        if what is not None:
            self.objects.append(what)

    @classmethod
    def one(cls, n: int | None = None, alpha: Any = None, what: str | None = None, size: str = "n") -> Record:
        """The record of a part that checked one instance (a printed figure, one example)."""
        record = cls(size)
        record.ran(n, alpha, what)
        return record

    def scope(self, method: str, *, every_object: bool = False, sampled: bool = False) -> Scope:
        """The scope of what was recorded; ``sampled``: the instances were drawn at random, and
        their number is the sample's size."""
        alphas: Iterable[Any] | str = self.alphas if self.alphas else "not recorded"
        return measured(method, n=self.sizes, alphas=alphas, every_object=every_object, objects=self.objects,
                        examples=self.count if sampled else None, size=self.size)  # fmt: skip

    def outcome(self, outcome: Outcome, method: str, *, every_object: bool = False, sampled: bool = False) -> Outcome:
        """``outcome`` with the scope of what was recorded; UNKNOWN if it would be PROVED on an
        empty record (a part that checked nothing shows nothing)."""
        if not self.count:
            if outcome.verdict != Verdict.PROVED:
                return outcome
            return Outcome(Verdict.UNKNOWN, outcome.evidence, "the part's record is empty: it checked no instance")
        return with_scope(outcome, self.scope(method, every_object=every_object, sampled=sampled))


@dataclass(frozen=True)
class Outcome:
    """A check's answer, with the evidence that lets someone else re-check it; ``scopes``: what it
    established (a part's scope, computed from what it ran — one per half it checks; a claim's
    combined outcome lists its parts' scopes in order)."""

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
    """Register the decorated function as the ``kind`` part of claim ``claim_id``. What it
    establishes is not declared here: the part returns the scope of what it ran (:class:`Record`,
    :func:`measured`)."""

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


def run_part(fn: Check) -> Outcome:
    """Run one check; an exception or a non-Outcome answer becomes UNKNOWN with the reason, and so
    does a PROVED answer without a measured scope — no record of what it ran, nothing shown."""
    try:
        outcome = fn()
    except Exception as err:
        last = traceback.extract_tb(err.__traceback__)[-1]
        return Outcome(
            Verdict.UNKNOWN, reason=f"check raised {type(err).__name__}: {err} ({last.filename}:{last.lineno})"
        )
    if not isinstance(outcome, Outcome):
        return Outcome(Verdict.UNKNOWN, reason=f"check returned {type(outcome).__name__}, not an Outcome")
    if outcome.verdict == Verdict.PROVED and not (outcome.scopes and all(s.measured for s in outcome.scopes)):
        reason = (
            "no record of what it ran: a PROVED part returns the scope computed from the instances it "
            "checked (registry.Record, registry.measured), never one typed beside the check"
        )
        return Outcome(Verdict.UNKNOWN, outcome.evidence, reason, outcome.scopes)
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
        outcome = combine([(kind, run_part(fn)) for kind, fn in claim.parts])
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
