"""SY-T4 (SY Theorem 4): UPRR dominance ⇒ higher value in every supermodular problem.

**EXACT part: τ = τ^g against every oblivious α-DP τ′, every supermodular problem, n ≤ 3.** For one
pair τ ⪰_UPRR τ′ the theorem is a statement about every compact action set A ⊆ ℝ and every continuous
supermodular payoff h, and it reduces to finitely many linear facts, each with an exact certificate:

* *Finitely many actions.* V(τ′, h) = Σ_s′ max_a E h is attained by a selection a′(s′). Dropping the
  actions a′ does not use leaves V(τ′, h) and can only lower V(τ, h); an action a′ gives two signals
  may be split into two adjacent copies (h stays supermodular, V(τ, h) does not change). So it is
  enough that for every *ordering* of τ′'s signals as actions 0 < 1 < … < k−1 and every supermodular
  h on Ω × {0..k−1}: V(τ, h) ≥ Σ_a E[h(ω, a); signal a of τ′].
* *A coupling certificate per ordering.* By LP duality (the supermodular cone's dual: D with zero
  margins and a nonnegative cumulative sum — every supermodular h has Σ D·h = Σ_{ω,a} C_D(ω, a)·Δh(ω, a)
  ≥ 0 with C_D the cumulative sum of D and Δh the mixed difference) that holds iff some z ≥ 0 that
  spreads each signal s of τ over the actions (Σ_a z(s, a) = P(s)) with the action law of τ′ makes
  D = Σ_s z(s, a)·μ_s(ω) − P′(ω, a) have a nonnegative cumulative sum — then V(τ, h) ≥ Σ z·E h ≥ the
  ordering's value. The certificate is z; it is checked exactly (z ≥ 0, both margins, every cumulative
  sum). z is first the paper's own (Proposition 6, the Fréchet representations: τ's signals laid on
  [0, 1] by their UPRR peaks, τ′'s actions in order, z the overlaps); if that fails, HiGHS finds one,
  rebuilt exactly. If none exists, HiGHS finds a supermodular h with V(τ, h) < V(τ′, h), which is
  confirmed exactly by the fuzz part's own test (:func:`theorem4_violation`): REFUTED.
* *Every oblivious α-DP τ′.* V(σ′, h) is convex in the mechanism σ′ (a sum of maxima of linear
  functions), so over the α-DP mechanisms with any number of signals it is largest at a vertex, and
  the vertices are those of the α-DP polytope at range N (at most n + 1 positive columns:
  :mod:`mechlib.proofs.shared.dp_polytope`), every ordering of their columns among them. Each vertex
  is first checked to be UPRR-dominated by τ^g (the theorem's hypothesis; SY Lemma 2 says all are):
  a vertex that is not leaves the family uncovered, UNKNOWN. UPRR compares σ(s|ω)/σ′(s′|ω), so this
  check does not depend on the prior.

Decided at every n ≤ 3, the three α of the bounded proofs and three priors μ₀ (uniform, binomial as
for i.i.d. respondents, and one rising in ω).

Every check part of this claim is here (``mechlib verify --only SY-T4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from mechlib.core.exact import format_fraction
from mechlib.core.exact_linear import first_accepted, from_fmpq, to_fmpq
from mechlib.core.mechanism import Mechanism
from mechlib.infodesign.alpha import Alpha
from mechlib.infodesign.decision import DecisionProblem, at_least
from mechlib.infodesign.info_structure import InformationStructure, geometric_structure
from mechlib.infodesign.uprr import uprr_dominates
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import jsonable
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, measured, with_scope
from mechlib.proofs.shared.dp_polytope import vertices
from mechlib.proofs.shared.remap_cells import ALPHAS, _Highs
from mechlib.proofs.shared.uprr import _structure, _with_negative_control, grs_appendix_b_case

#: The exact part runs at every n up to this (301 orderings of vertex columns at n = 3, per α).
LARGEST_N = 3
#: Exact rationals: ``flint.fmpq`` on the hot path (ten times faster than Fraction), Fraction elsewhere.
Rational = Any
Column = tuple[Rational, ...]


def theorem4_violation(case: Any) -> dict[str, Any] | None:
    """τ′ (oblivious DP) ⪯_UPRR τ^g and the payoff is worth at least as much under τ^g."""
    (a, mu0, sigma), u = case
    alpha = Alpha.of(a)
    tau, other = geometric_structure(mu0), _structure(sigma, mu0)
    if not uprr_dominates(tau, other, alpha).dominates:
        return {"problem": "not UPRR-ordered (SY-L2 would fail)"}
    problem = DecisionProblem.of(u)
    if not at_least(problem.value(tau, alpha), problem.value(other, alpha), alpha):
        return {"payoff": jsonable(u)}
    return None


@check("SY-T4", kind=FUZZ)
def fuzz_uprr_implies_value() -> Outcome:
    """Random τ′ (oblivious DP) ⪯_UPRR τ^g, random supermodular payoff: τ^g is worth at least τ′."""
    controls = {"GRS App. B": grs_appendix_b_case(), "SY §5.1's central-vs-extreme user": central_vs_extreme_case()}
    # random non-supermodular payoffs almost never meet a τ′ that τ^g dominates yet loses to
    # (none in 200 draws), so T4's controls are the two fixed ones
    return _with_negative_control("SY-T4", theorem4_violation, 40, controls, search=False)


def central_vs_extreme_case() -> Any:
    """SY §5.1: a user who acts on "central vs extreme" (not supermodular) prefers τ_b, which τ^g
    UPRR-dominates (α = 1/3, μ₀ uniform on ω = 0..2; τ_b's rows ∝ (1, α, 1), (α, 1, α))."""
    tau_b = Mechanism([["3/4", "1/4"], ["1/4", "3/4"], ["3/4", "1/4"]])
    central = [[Fraction(0), Fraction(1), Fraction(0)], [Fraction(1), Fraction(0), Fraction(1)]]
    return (Fraction(1, 3), [Fraction(1, 3)] * 3, tau_b), central


# -- the EXACT part -----------------------------------------------------------------------------


def priors(n: int) -> dict[str, tuple[Fraction, ...]]:
    """The priors μ₀ on Ω = {0..n} the exact part is decided at (a repeated one once)."""
    found = {"uniform": tuple([Fraction(1, n + 1)] * (n + 1))}
    others = {
        "binomial(n, 1/2)": tuple(Fraction(comb(n, w), 2**n) for w in range(n + 1)),
        "∝ ω + 1": tuple(Fraction(2 * (w + 1), (n + 1) * (n + 2)) for w in range(n + 1)),
    }
    found.update({name: mu0 for name, mu0 in others.items() if mu0 not in found.values()})
    return found


def orderings(n: int, alpha: Fraction) -> list[tuple[Column, ...]]:
    """Every vertex of the α-DP polytope at range N as its positive columns in order (a vertex's zero
    columns carry no signal); the polytope holds every permutation of a vertex's columns."""
    found = {
        tuple(c for c in zip(*x) if any(c))  # the columns σ′(· | ω) of x, zero ones dropped
        for x in vertices(n, alpha)
    }
    return sorted(found)


def _at(alpha: Alpha, p: Any) -> Fraction:
    value = alpha.value(p)
    if not isinstance(value, Fraction):
        raise ValueError(f"the exact part needs a rational α, got {alpha}")
    return value


def _joint(tau: InformationStructure, alpha: Alpha, signals: Sequence[int]) -> list[Column]:
    """P(signal s, ω) for the given signals of τ, in that order, exactly."""
    scale = _at(alpha, tau.scale)
    return [tuple(_at(alpha, v) / scale for v in tau.columns[s]) for s in signals]


def frechet_coupling(masses: Sequence[Rational], targets: Sequence[Rational]) -> list[list[Rational]]:
    """SY Proposition 6's coupling: signal s takes [Σ_{s₀<s} P(s₀), Σ_{s₀≤s} P(s₀)) of [0, 1] (signals
    in peak order), action a its interval of τ′'s action law; z(s, a) is their overlap."""

    def cuts(weights: Sequence[Rational]) -> list[Rational]:
        total = [weights[0] * 0]
        for w in weights:
            total.append(total[-1] + w)
        return total

    s_cut, a_cut = cuts(masses), cuts(targets)
    zero = s_cut[0]
    return [
        [max(zero, min(s_cut[s + 1], a_cut[a + 1]) - max(s_cut[s], a_cut[a])) for a in range(len(targets))]
        for s in range(len(masses))
    ]


def coupling_failure(z: Sequence[Sequence[Rational]], joint: Sequence[Column], target: Sequence[Column]) -> str | None:
    """The exact check of a coupling certificate, or where it fails: τ (joint columns P(s, ·)) and τ′
    (target columns P′(a, ·)) have the same law of ω, z ≥ 0 spreads each signal s of τ over the actions
    with τ′'s action law, and D(ω, a) = Σ_s z(s, a)·P(s, ω)/P(s) − P′(a, ω) — zero margins, then —
    has every cumulative sum Σ_{ω′≤ω, a′≤a} D ≥ 0."""
    k, states = len(target), len(joint[0])
    for w in range(states):
        if sum(column[w] for column in joint) != sum(column[w] for column in target):
            return f"τ and τ′ give ω = {w} different probabilities"
    if any(v < 0 for row in z for v in row):
        return "a negative weight"
    for s, column in enumerate(joint):
        if sum(z[s]) != sum(column):
            return f"signal {s} is not spread in full"
    for a in range(k):
        if sum(row[a] for row in z) != sum(target[a]):
            return f"action {a} does not get τ′'s probability"
    share = [[z[s][a] / sum(column) for a in range(k)] for s, column in enumerate(joint)]
    below = [0] * k  # cumulative over ω′ ≤ ω, per action
    for w in range(states):
        running = 0
        for a in range(k):
            below[a] += sum(share[s][a] * column[w] for s, column in enumerate(joint)) - target[a][w]
            running += below[a]
            if running < 0:
                return f"the cumulative sum at (ω, a) = ({w}, {a}) is {running}"
    return None


_INF = float("inf")


def _coupling_by_lp(joint: Sequence[Column], target: Sequence[Column]) -> list[list[Fraction]] | None:
    """A coupling certificate found by HiGHS (z ≥ 0, the two margins, every cumulative sum ≥ 0) and
    rebuilt exactly on its tight rows; None if there is none or it does not check."""
    m, k, states = len(joint), len(target), len(joint[0])
    mass = [sum(c, Fraction(0)) for c in joint]
    # cumulative posterior mass Σ_{ω′≤ω} P(s, ω′)/P(s), and τ′'s cumulative sums
    up_to = [[sum(c[: w + 1], Fraction(0)) / mass[s] for w in range(states)] for s, c in enumerate(joint)]
    wanted = [[sum((target[b][v] for b in range(a + 1) for v in range(w + 1)), Fraction(0)) for a in range(k)]
              for w in range(states)]  # fmt: skip
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for s in range(m):
        rows.append([Fraction(int(t == s)) for t in range(m) for _ in range(k)])
        rhs.append(mass[s])
    for a in range(k):
        rows.append([Fraction(int(b == a)) for _ in range(m) for b in range(k)])
        rhs.append(sum(target[a], Fraction(0)))
    equalities = len(rows)
    for w in range(states - 1):
        for a in range(k - 1):
            rows.append([up_to[s][w] if b <= a else Fraction(0) for s in range(m) for b in range(k)])
            rhs.append(wanted[w][a])
    a_matrix = np.array([[float(v) for v in r] for r in rows])
    b = np.array([float(v) for v in rhs])
    upper = np.r_[b[:equalities], np.full(len(rows) - equalities, _INF)]
    x = _Highs.solve(np.zeros(m * k), a_matrix, b, upper, (0.0, _INF))
    if x is None:
        return None
    tight = [r for r in range(len(rows)) if r < equalities or a_matrix[r] @ x <= b[r] + 1e-9]
    zeros = [i for i in range(m * k) if x[i] < 1e-10]
    system = [rows[r] for r in tight] + [[Fraction(int(i == j)) for j in range(m * k)] for i in zeros]
    values = [rhs[r] for r in tight] + [Fraction(0)] * len(zeros)

    def accept(flat: list[Fraction]) -> bool:
        return coupling_failure([flat[s * k : (s + 1) * k] for s in range(m)], joint, target) is None

    flat = first_accepted(system, values, [float(v) for v in x], accept)
    return None if flat is None else [flat[s * k : (s + 1) * k] for s in range(m)]


def _payoff_against(joint: Sequence[Column], target: Sequence[Column]) -> list[list[Fraction]] | None:
    """A supermodular payoff u[a][ω] (|u| ≤ 1) on which τ′ with its signals as the actions in order
    beats τ, found by HiGHS (min Σ_s v_s − Σ P′(a, ω)·u(a, ω), v_s ≥ E[u(a, ·); s] for every a, the
    mixed differences ≥ 0) and rationalized — a candidate only; None if the optimum is not below 0."""
    m, k, states = len(joint), len(target), len(joint[0])
    width = states * k + m  # u(a, ω) at a·states + ω, then v_s

    def u(a: int, w: int) -> int:
        return a * states + w

    rows = []
    for s in range(m):
        for a in range(k):
            row = np.zeros(width)
            row[states * k + s] = 1.0
            for w in range(states):
                row[u(a, w)] -= float(joint[s][w])
            rows.append(row)
    for a in range(k - 1):
        for w in range(states - 1):
            row = np.zeros(width)
            row[[u(a, w), u(a + 1, w + 1)]] = 1.0
            row[[u(a + 1, w), u(a, w + 1)]] = -1.0
            rows.append(row)
    cost = np.r_[[-float(target[a][w]) for a in range(k) for w in range(states)], np.ones(m)]
    x = _Highs.solve(cost, np.array(rows), np.zeros(len(rows)), np.full(len(rows), _INF), (-1.0, 1.0))
    if x is None or cost @ x > -1e-9:
        return None
    return [[Fraction(float(x[u(a, w)])).limit_denominator(10**6) for w in range(states)] for a in range(k)]


def _decide_ordering(
    alpha: Fraction, mu0: Sequence[Rational], joint: Sequence[Column], columns: Sequence[Column]
) -> tuple[str, Any]:
    """("paper" | "LP", z) with a checked coupling certificate for this ordering of τ′'s signals, or
    ("refuted", the confirmed counterexample), or ("unknown", why). The arguments are ``fmpq``."""
    target = [tuple(p * c for p, c in zip(mu0, column)) for column in columns]
    z = frechet_coupling([sum(c) for c in joint], [sum(t) for t in target])
    if coupling_failure(z, joint, target) is None:
        return "paper", z
    joint, target = _fractions(joint), _fractions(target)
    found = _coupling_by_lp(joint, target)
    if found is not None:
        return "LP", found
    payoff = _payoff_against(joint, target)
    if payoff is None or DecisionProblem.of(payoff).supermodularity_violation() is not None:
        return "unknown", "no coupling certificate, and no supermodular payoff that τ′ wins was confirmed"
    sigma = Mechanism([list(row) for row in zip(*_fractions(columns))])
    violation = theorem4_violation(((alpha, _fractions([tuple(mu0)])[0], sigma), payoff))
    if violation is None or "payoff" not in violation:
        return "unknown", f"no coupling certificate, and the payoff found does not refute it ({violation})"
    return "refuted", {"mechanism τ′": jsonable(sigma.rows), **jsonable(violation)}


def _fractions(columns: Sequence[Column]) -> list[tuple[Fraction, ...]]:
    return [tuple(from_fmpq(v) for v in column) for column in columns]


def _exact_method(names: Sequence[str]) -> str:
    return (
        "τ = τ^g against every oblivious α-DP τ′ (any signals: every vertex of the α-DP polytope, every "
        "ordering of its signals; the value is convex in τ′) and every supermodular problem (any compact "
        "action set: a coupling certificate per ordering, by LP duality, checked exactly); priors μ₀ "
        + ", ".join(names)
    )


@check("SY-T4", kind=EXACT)
def exact_uprr_implies_value() -> Outcome:
    """τ^g against every oblivious α-DP τ′ and every supermodular problem, n ≤ 3 (module docstring)."""
    evidence: dict[str, Any] = {}
    ran: list[tuple[int, Fraction]] = []
    names: set[str] = set()
    for a in ALPHAS:
        alpha = Alpha.of(a)
        for n in range(1, LARGEST_N + 1):
            start = time.perf_counter()
            name = f"n={n}, α={format_fraction(a)}"
            found = orderings(n, a)
            mus = priors(n)
            names.update(mus)
            tau_uniform = geometric_structure(mus["uniform"])
            peaks: dict[tuple[Column, ...], dict[int, int]] = {}
            for columns in found:  # the hypothesis, per set of columns (UPRR does not depend on μ₀)
                key = tuple(sorted(columns))
                if key not in peaks:
                    other = InformationStructure.from_oblivious([list(r) for r in zip(*key)], mus["uniform"])
                    verdict = uprr_dominates(tau_uniform, other, alpha)
                    if not verdict.dominates:
                        reason = f"{name}: τ^g does not UPRR-dominate the vertex with columns {jsonable(key)}"
                        return Outcome(Verdict.UNKNOWN, evidence, reason + ", so the family is not covered")
                    peaks[key] = verdict.peaks
            counts = {"paper": 0, "LP": 0}
            exact = [tuple(tuple(to_fmpq(v) for v in c) for c in columns) for columns in found]
            for prior, mu0 in mus.items():
                tau = geometric_structure(mu0)
                joints: dict[tuple[int, ...], list[Column]] = {}  # τ's joint columns, by order of its signals
                for columns, fast in zip(found, exact):
                    peak = peaks[tuple(sorted(columns))]
                    order = tuple(sorted(peak, key=lambda s: (peak[s], s)))
                    if order not in joints:
                        joints[order] = [tuple(to_fmpq(v) for v in c) for c in _joint(tau, alpha, order)]
                    how, what = _decide_ordering(a, [to_fmpq(p) for p in mu0], joints[order], fast)
                    if how in counts:
                        counts[how] += 1
                        continue
                    where = f"{name}, μ₀ {prior}"
                    if how == "refuted":
                        evidence[name] = {"prior": prior, "counterexample": what}
                        reason = f"{where}: τ′ beats τ^g in a supermodular problem (confirmed exactly)"
                        return Outcome(Verdict.REFUTED, evidence, reason)
                    evidence[name] = {"prior": prior, "τ′ columns": jsonable(columns)}
                    return Outcome(Verdict.UNKNOWN, evidence, f"{where}: {what}")
            evidence[name] = {
                "vertices": len(vertices(n, a)),
                "orderings of their positive columns": len(found),
                "column sets UPRR-dominated by τ^g (checked)": len(peaks),
                "priors": list(mus),
                "coupling certificates (checked): SY Proposition 6's": counts["paper"],
                "coupling certificates (checked): found by LP": counts["LP"],
                "seconds": round(time.perf_counter() - start, 2),
            }
            ran.append((n, a))
    scope = measured(_exact_method(sorted(names)), n=[n for n, _ in ran], alphas=[a for _, a in ran], every_object=True)
    return with_scope(Outcome(Verdict.PROVED, evidence), scope)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _alpha_squared_vertices(real: Any) -> Any:
    def found(n: int, alpha: Fraction) -> Any:
        return real(n, alpha * alpha)  # α²-DP mechanisms: more informative than τ^g allows

    return found


def _rr_taken_as_dominant() -> list[Any]:
    """τ^g replaced by randomized response on Ω, and every τ′ taken as UPRR-dominated by it (peak of
    signal s at s): the hypothesis assumed, the value comparison must then fail."""
    from mechlib.infodesign import info_structure, uprr
    from mechlib.proofs.falsifications import _uniform_rr_structure

    def dominated(tau: Any, _other: Any, alpha: Any) -> uprr.UPRRVerdict:
        return uprr.UPRRVerdict(True, {s: s for s in tau.support(alpha)})

    return [(info_structure.geometric_structure, _uniform_rr_structure), (uprr.uprr_dominates, dominated)]


register("SY-T4: τ′ over the α²-DP polytope's vertices", "wrong α", ("SY-T4",),
         module_constant("mechlib.proofs.sy.theorem_4", "orderings", _alpha_squared_vertices))  # fmt: skip
register("τ^g → randomized response on Ω, UPRR dominance taken for granted", "non-universal mechanism in place of T",
         ("SY-T4",), _rr_taken_as_dominant)  # fmt: skip
