"""GRS-C (GRS Appendix C, Figure 6): D={0,1}, n=3, α=1/2: no mechanism remaps to both users' unique
optimal mechanisms.

Every check part of this claim is here (``mechlib verify --only GRS-C``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from mechlib.core.exact import format_fraction
from mechlib.optimality.smt import q
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, Verdict, check
from mechlib.proofs.shared.encodings import pair_mechanism
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

FIGURE_6 = {  # GRS Appendix C: rows are the databases by the set of rows equal to 1; outputs 1, 2
    "a": {
        (1, 0, 0): ("11/12", "1/12"),
        (0, 1, 0): ("2/3", "1/3"),
        (1, 0, 1): ("5/6", "1/6"),
        (0, 1, 1): ("1/3", "2/3"),
    },
    "b": {
        (1, 0, 0): ("2/3", "1/3"),
        (0, 1, 0): ("11/12", "1/12"),
        (1, 0, 1): ("1/3", "2/3"),
        (0, 1, 1): ("5/6", "1/6"),
    },
}


def remapped_to_both(first: str, second: str) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ a 1/2-DP mechanism on {0,1}³ (Hamming neighbours) remappable to Figure 6's ``first`` and
    ``second`` mechanisms (guesses 0..3; the figure puts its mass on 1 and 2)?"""
    from itertools import product

    databases = list(product((0, 1), repeat=3))
    edges = [(d, e) for d in databases for e in databases if d < e and sum(x != y for x, y in zip(d, e)) == 1]
    solver, z = pair_mechanism(databases, edges, 4, Fraction(1, 2))
    goal = []
    for d, probs in FIGURE_6[first].items():
        want = [Fraction(0), Fraction(probs[0]), Fraction(probs[1]), Fraction(0)]
        goal += [z3.Sum(z[d][g]) == q(want[g]) for g in range(4)]
    for d, probs in FIGURE_6[second].items():
        want = [Fraction(0), Fraction(probs[0]), Fraction(probs[1]), Fraction(0)]
        goal += [z3.Sum([z[d][g][h] for g in range(4)]) == q(want[h]) for h in range(4)]
    solver.add(z3.And(goal))
    return run(solver)


#: GRS App. C's users: loss |j − i|^(1−δ) and priors over the databases with ε "sufficiently
#: small"; checked at δ = 1/100 and ε = 1/1000.
FIGURE_6_DELTA = Fraction(1, 100)


FIGURE_6_EPSILON = Fraction(1, 1000)


def figure_6_prior(user: str) -> dict[tuple[int, int, int], Fraction]:
    """{1}: 1/4, {2}: 1/4, {1,3}: ε, {2,3}: 1/2 − ε for user a; {1,3} and {2,3} exchanged for b."""
    small, large = FIGURE_6_EPSILON, Fraction(1, 2) - FIGURE_6_EPSILON
    if user == "b":
        small, large = large, small
    return {(1, 0, 0): Fraction(1, 4), (0, 1, 0): Fraction(1, 4), (1, 0, 1): small, (0, 1, 1): large}


def loss_box(delta: Fraction, digits: int = 6) -> list[tuple[Fraction, Fraction]]:
    """Rational enclosures [lo, hi] of d^(1−δ) for d = 2, 3, each containment certified with arb."""
    import flint

    boxes = []
    for d in (2, 3):
        ball = flint.arb(d) ** (1 - flint.arb(delta.numerator) / delta.denominator)
        mid = Fraction(str(ball.mid().str(digits + 4, radius=False)))
        lo, hi = mid - Fraction(1, 10**digits), mid + Fraction(1, 10**digits)
        if not (flint.arb(lo.numerator) / lo.denominator < ball < flint.arb(hi.numerator) / hi.denominator):
            raise RuntimeError(f"the box around {d}^(1−δ) does not contain it")
        boxes.append((lo, hi))
    return boxes


def figure_6_unique_query(user: str, l2: Fraction, l3: Fraction) -> z3.Solver:
    """∃ a 1/2-DP direct mechanism on {0,1}³ with the user's loss ≤ Figure 6(user)'s and differing
    from it on an input of positive prior? (UNSAT: the figure is the unique optimum.)"""
    from itertools import product

    databases = list(product((0, 1), repeat=3))
    edges = [(d, e) for d in databases for e in databases if d < e and sum(x != y for x, y in zip(d, e)) == 1]
    solver = smt_query("QF_LRA")
    a = q(Fraction(1, 2))
    x = {d: [z3.Real(f"x{''.join(map(str, d))}_{j}") for j in range(4)] for d in databases}
    for d in databases:
        solver.add(z3.Sum(x[d]) == 1, *[v >= 0 for v in x[d]])
    for d, e in edges:
        for j in range(4):
            solver.add(a * x[d][j] <= x[e][j], a * x[e][j] <= x[d][j])
    loss = [Fraction(0), Fraction(1), l2, l3]
    prior = figure_6_prior(user)
    figure = {d: [Fraction(0), Fraction(p[0]), Fraction(p[1]), Fraction(0)] for d, p in FIGURE_6[user].items()}

    def expected(rows: Any) -> Any:
        return z3.Sum([q(p * loss[abs(j - sum(d))]) * rows[d][j] for d, p in prior.items() for j in range(4)])

    figure_loss = sum(
        (p * loss[abs(j - sum(d))] * figure[d][j] for d, p in prior.items() for j in range(4)), Fraction(0)
    )
    solver.add(expected(x) <= q(figure_loss))
    solver.add(z3.Or([x[d][j] != q(figure[d][j]) for d in prior for j in range(4)]))  # negated goal
    return solver


@check("GRS-C", kind=SMT)
def smt_no_non_oblivious_mechanism_serves_both() -> Outcome:
    """GRS App. C: Figure 6(a) and 6(b) are the unique optimal direct 1/2-DP mechanisms of their
    users (at δ = 1/100, ε = 1/1000: at the four corners of an arb-certified rational box around
    (2^(1−δ), 3^(1−δ)) — the costs are affine in the two loss values and "uniquely optimal" is a
    convex condition on the costs, so the corners cover the box); and no one mechanism on the
    databases can be remapped to both."""
    alpha, record = Fraction(1, 2), Record()
    both = "Figure 6(a) and 6(b) from one mechanism"
    parts = {both: remapped_to_both("a", "b")}
    record.ran(3, alpha, both)
    (lo2, hi2), (lo3, hi3) = loss_box(FIGURE_6_DELTA)
    for user in ("a", "b"):
        for l2 in (lo2, hi2):
            for l3 in (lo3, hi3):
                where = f"Figure 6({user}) unique optimum, l(2) = {format_fraction(l2)}, l(3) = {format_fraction(l3)}"
                parts[where] = run(figure_6_unique_query(user, l2, l3))
                record.ran(3, alpha, f"Figure 6({user}) the unique optimum at a corner of the loss box")
    method = (
        f"{TWO_SOLVERS}; databases {{0,1}}^n, Hamming neighbours; δ = {format_fraction(FIGURE_6_DELTA)}, "
        f"ε = {format_fraction(FIGURE_6_EPSILON)}"
    )
    outcome = record.outcome(proved_if_unsat(parts), method)
    for alone in ("a", "b"):  # controls: each alone is a DP mechanism on all databases
        answer, ev = remapped_to_both(alone, alone)
        if answer != z3.sat:
            return Outcome(Verdict.UNKNOWN, outcome.evidence, f"control: Figure 6({alone}) alone is not realizable")
        outcome.evidence[f"control: Figure 6({alone}) alone"] = ev
    return outcome


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("Figure 6(b) → Figure 6(a)", "perturbed figure", ("GRS-C",),
         module_constant(__name__, "FIGURE_6", lambda real: {"a": real["a"], "b": real["a"]}))  # fmt: skip


register("Figure 6(a) → Figure 6(b)", "perturbed figure", ("GRS-C",),
         module_constant(__name__, "FIGURE_6", lambda real: {"a": real["b"], "b": real["b"]}))  # fmt: skip


def _swapped_figure_6_prior(real: Any) -> Any:
    def prior(user: str) -> Any:
        return real("b" if user == "a" else "a")

    return prior


register("GRS App. C's two users exchanged", "changed statement", ("GRS-C",),
         module_constant(__name__, "figure_6_prior", _swapped_figure_6_prior))  # fmt: skip


register("GRS App. C's ε → 1/4 (the two users coincide)", "changed statement", ("GRS-C",),
         module_constant(__name__, "FIGURE_6_EPSILON", lambda _: Fraction(1, 4)))  # fmt: skip
