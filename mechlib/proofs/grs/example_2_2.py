"""GRS-E2.2 (GRS Example 2.2, Figure 1): T is α-DP (exactly α); Figure 1(a),(b) (α=1/2, n=5)
entries exactly.

Every check part of this claim is here (``mechlib verify --only GRS-E2.2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp
import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric, truncated_geometric
from mechlib.core.privacy import dp_level
from mechlib.proofs.catalogue import SMT, Strength
from mechlib.proofs.registry import Outcome, Scope, Verdict, check, decide
from mechlib.proofs.shared.grs_instances import ALPHAS, _figure
from mechlib.proofs.shared.parametric import ALL_N
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

# GRS Figure 1(a) (columns −1..6, as printed) and 1(b), α = 1/2, n = 5.
FIGURE_1A = _figure(
    [
        "1/6 1/3 1/6 1/12 1/24 1/48 1/96 1/192",
        "1/12 1/6 1/3 1/6 1/12 1/24 1/48 1/96",
        "1/24 1/12 1/6 1/3 1/6 1/12 1/24 1/48",
        "1/48 1/24 1/12 1/6 1/3 1/6 1/12 1/24",
        "1/96 1/48 1/24 1/12 1/6 1/3 1/6 1/12",
        "1/192 1/96 1/48 1/24 1/12 1/6 1/3 1/6",
    ]
)


FIGURE_1B = _figure(
    [
        "2/3 1/6 1/12 1/24 1/48 1/48",
        "1/3 1/3 1/6 1/12 1/24 1/24",
        "1/6 1/6 1/3 1/6 1/12 1/12",
        "1/12 1/12 1/6 1/3 1/6 1/6",
        "1/24 1/24 1/12 1/6 1/3 1/3",
        "1/48 1/48 1/24 1/12 1/6 2/3",
    ]
)


@check(
    "GRS-E2.2",
    kind="EXACT",
    scope=Scope(
        Strength.ALL_N,
        "Figure 1's own instance (n = 5), entrywise — all that half states; T's level also for n ≤ 40",
        "1/2 (figure); 5 values (levels)",
        "exact rationals",
        covers="Figure 1(a), (b) entries exactly",
    ),
)
def check_truncated_geometric() -> Outcome:
    failures: list[dict[str, Any]] = []
    sizes = (1, 2, 5, 12, 40)
    for alpha in ALPHAS:
        for n in sizes:
            level = dp_level(truncated_geometric(alpha, n)).alpha
            if level != alpha:
                failures.append({"alpha": format_fraction(alpha), "n": n, "dp_level": format_fraction(level)})
    wide = geometric(Fraction(1, 2), 5, margin=2)  # columns −2..7; −1..6 are exact point masses
    printed = [list(row[1:-1]) for row in wide.rows]
    if printed != FIGURE_1A:
        failures.append({"figure": "1(a)", "computed": [[format_fraction(x) for x in r] for r in printed]})
    table = truncated_geometric(Fraction(1, 2), 5)
    if [list(r) for r in table.rows] != FIGURE_1B:
        failures.append({"figure": "1(b)", "computed": table.to_strings()})
    return decide(
        failures,
        {"alphas": [format_fraction(a) for a in ALPHAS], "n": list(sizes), "figures": ["1(a)", "1(b)"]},
    )


#: The local steps as data (so that a mutated identity goes through the same proof and fails):
#: |i+1−r| − |i−r| = ±STEP[1] between neighbouring rows of T; the corner of G′ after the row
#: operation is 1 − α^CORNER[1].
STEP = ("exponent step between neighbouring rows", 1)


def exponent_lemma(nonnegative: bool = True) -> tuple[Any, dict[str, Any]]:
    """Integers i, r (≥ 0, or any when not ``nonnegative``): r ≤ i ⇒ |i+1−r| = |i−r| + 1, and
    r ≥ i+1 ⇒ |i+1−r| = |i−r| − 1 (LIA)."""
    i, r = z3.Ints("i r")

    def dist(x: Any) -> Any:
        return z3.If(x >= 0, x, -x)

    query = smt_query("QF_LIA")
    query.add(*([i >= 0, r >= 0] if nonnegative else [z3.BoolVal(True)]))  # over ℤ: no hypothesis
    query.add(
        z3.Not(
            z3.And(
                z3.Implies(r <= i, dist(i + 1 - r) == dist(i - r) + 1),
                z3.Implies(r >= i + 1, dist(i + 1 - r) == dist(i - r) - 1),
            )
        )
    )
    return run(query)


def neighbouring_entries_are_alpha_dp(toward_row: bool) -> tuple[Any, dict[str, Any]]:
    """For 0 < α < 1, c > 0, P > 0: entries u, v of rows i, i+1 in one column, with v = α·u
    (r ≤ i, ``toward_row``) or u = α·v (r ≥ i+1), satisfy α·u ≤ v and α·v ≤ u (NRA)."""
    a, c, p = z3.Reals("alpha c P")
    step = a ** STEP[1]
    u, v = (c * p, c * step * p) if toward_row else (c * step * p, c * p)
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1, c > 0, p > 0)
    query.add(z3.Not(z3.And(a * u <= v, a * v <= u)))
    return run(query)


def column_factors_positive() -> tuple[Any, dict[str, Any]]:
    """Both column factors of T, 1/(1+α) (r ∈ {0, n}) and (1−α)/(1+α) (inside), are > 0 on (0, 1)."""
    a = z3.Real("alpha")
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1)
    query.add(z3.Or(1 / (1 + a) <= 0, (1 - a) / (1 + a) <= 0))
    return run(query)


def t_row_sums() -> dict[str, bool]:
    """Σ_r T[i][r] = 1 for symbolic n and i (interior rows, and rows 0 and n), as geometric sums."""
    a = sp.Symbol("alpha", positive=True)
    n, i, r = sp.symbols("n i r", integer=True, positive=True)

    def total(expression: Any, low: Any, high: Any) -> Any:
        found = sp.piecewise_fold(sp.summation(expression, (r, low, high)))
        return found.args[-1][0] if isinstance(found, sp.Piecewise) else found  # the α ≠ 1 branch

    inside = (1 - a) / (1 + a)
    interior = (a**i + a ** (n - i)) / (1 + a) + inside * (
        total(a ** (i - r), 1, i) + total(a ** (r - i), i + 1, n - 1)
    )
    first = (1 + a**n) / (1 + a) + inside * total(a**r, 1, n - 1)  # row 0 (row n is its mirror)
    return {
        "0 < i < n": sp.simplify(interior - 1) == 0,
        "i = 0 (and i = n by symmetry)": sp.simplify(first - 1) == 0,
    }


def grs_e2_2_every_n() -> Outcome:
    """GRS Example 2.2 for every n and symbolic α: T is stochastic and α-DP with level exactly α."""
    steps = {
        "integer lemma |i+1−r| − |i−r| = ±1": exponent_lemma(),
        "column factors > 0": column_factors_positive(),
        "pattern r ≤ i (v = α·u)": neighbouring_entries_are_alpha_dp(True),
        "pattern r ≥ i+1 (u = α·v)": neighbouring_entries_are_alpha_dp(False),
    }
    outcome = proved_if_unsat(steps)
    sums = t_row_sums()
    evidence = {
        **outcome.evidence,
        "row sums (sympy, symbolic n, i)": sums,
        "exactly α": "column 0 of rows 0 and 1: T[1][0] = α·T[0][0] with T[0][0] = 1/(1+α) > 0",
        "facts used": "α^(k+1) = α·α^k",
    }
    if outcome.verdict != Verdict.PROVED:
        return Outcome(outcome.verdict, evidence, outcome.reason, scopes=(SCOPE_E2_2,))
    failed = [k for k, ok in sums.items() if not ok]
    verdict = Verdict.PROVED if not failed else Verdict.REFUTED
    return Outcome(verdict, evidence, f"row sums fail: {failed}" if failed else None, scopes=(SCOPE_E2_2,))


SCOPE_E2_2 = Scope(
    Strength.ALL_N,
    ALL_N,
    "symbolic, 0 < α < 1",
    TWO_SOLVERS + "; local patterns + sympy sums",
    covers="T is stochastic and α-DP, exactly α",
)


@check("GRS-E2.2", kind=SMT, scope=SCOPE_E2_2)
def smt_every_n() -> Outcome:
    return grs_e2_2_every_n()
