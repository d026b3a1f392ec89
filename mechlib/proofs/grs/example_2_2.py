"""GRS-E2.2 (GRS Example 2.2, Figure 1): T is α-DP (exactly α); Figure 1(a),(b) (α=1/2, n=5)
entries exactly.

Every check part of this claim is here (``mechlib verify --only GRS-E2.2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy as sp
import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric, truncated_geometric
from mechlib.core.privacy import dp_level
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, decide, measured
from mechlib.proofs.shared.definitions import ALL_N, SQUARE, I, N, R, agreement, t_entry
from mechlib.proofs.shared.grs_instances import ALPHAS, _figure
from mechlib.proofs.shared.obligations import ALPHA, Obligations, Region, mul, power_of_distance, prove_for_every_index
from mechlib.proofs.shared.obligations import outcome as obligations_outcome
from mechlib.proofs.smt import TWO_SOLVERS

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


@check("GRS-E2.2", kind="EXACT")
def check_truncated_geometric() -> Outcome:
    failures: list[dict[str, Any]] = []
    sizes = (1, 2, 5, 12, 40)
    for alpha in ALPHAS:
        for n in sizes:
            level = dp_level(truncated_geometric(alpha, n)).alpha
            if level != alpha:
                failures.append({"alpha": format_fraction(alpha), "n": n, "dp_level": format_fraction(level)})
    wide = geometric(FIGURE_ALPHA, FIGURE_N, margin=2)  # columns −2..7; −1..6 are exact point masses
    printed = [list(row[1:-1]) for row in wide.rows]
    if printed != FIGURE_1A:
        failures.append({"figure": "1(a)", "computed": [[format_fraction(x) for x in r] for r in printed]})
    table = truncated_geometric(FIGURE_ALPHA, FIGURE_N)
    if [list(r) for r in table.rows] != FIGURE_1B:
        failures.append({"figure": "1(b)", "computed": table.to_strings()})
    outcome = decide(
        failures,
        {"alphas": [format_fraction(a) for a in ALPHAS], "n": list(sizes), "figures": ["1(a)", "1(b)"]},
    )
    scope = measured("exact rationals: every printed entry", n=[FIGURE_N], alphas=[FIGURE_ALPHA], every_object=True,
                     covers="Figure 1(a), (b) entries exactly", complete=True)  # fmt: skip
    return replace(outcome, scopes=(scope,))


#: Figure 1's instance.
FIGURE_N, FIGURE_ALPHA = 5, Fraction(1, 2)


def t_is_exactly_alpha_dp() -> list[Obligations]:
    """GRS Example 2.2 for every n, derived from T's one definition (``definitions.t_entry``):
    α·T[i][r] ≤ T[i+1][r] and α·T[i+1][r] ≤ T[i][r] at every (n ≥ 1, 0 ≤ i < n, 0 ≤ r ≤ n),
    every entry > 0, and the level is attained — an equality obligation at the witness
    (rows 0, 1; column 0): T[1][0] = α·T[0][0] for every n ≥ 1."""
    neighbours = z3.And(N >= 1, I >= 0, I < N, R >= 0, R <= N)
    u, v = t_entry(I, R, N), t_entry(I + 1, R, N)
    witness = z3.And(N >= 1, WITNESS[0] == I, WITNESS[1] == R)
    positive = Region("every entry", True, lambda x: x["x"] > 0)
    attained = Region("the witness", True, lambda x: x["v"] == ALPHA * x["u"])
    return [
        prove_for_every_index("T is α-DP", neighbours, {"u": u, "v": v}, [Region("every entry", True, _alpha_dp)]),
        prove_for_every_index("T's entries are positive", SQUARE, {"x": t_entry(I, R, N)}, [positive]),
        prove_for_every_index("exactly α: the ratio is attained", witness, {"u": u, "v": v}, [attained]),
    ]


#: The witness of "exactly α": (row i, column r) with T[i+1][r] = α·T[i][r] for every n ≥ 1.
WITNESS = (0, 0)


def _alpha_dp(values: Any) -> Any:
    u, v = values["u"], values["v"]
    return z3.And(ALPHA * u <= v, ALPHA * v <= u)


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
    agree = agreement(("T",))
    sums = t_row_sums()
    outcome = obligations_outcome(
        t_is_exactly_alpha_dp(),
        {
            "the definition is the library's T (exact, every entry)": agree,
            "row sums (sympy, symbolic n, i)": sums,
            "exactly α: witness (rows i, i+1; column r)": {"i": WITNESS[0], "r": WITNESS[1]},
        },
    )
    mismatched = [k for k, ok in agree.items() if not ok]
    failed = [k for k, ok in sums.items() if not ok]
    if outcome.verdict == Verdict.PROVED and (failed or mismatched):  # a proof about another T proves nothing
        verdict = Verdict.UNKNOWN  # sympy not showing a sum is 1 is no counterexample
        outcome = Outcome(verdict, outcome.evidence, f"row sums fail: {failed}" if failed else
                          f"the definition is not the library's T: {mismatched}")  # fmt: skip
    scope = measured(
        TWO_SOLVERS + "; obligations derived from T's definition + sympy sums",
        n=ALL_N if outcome.verdict == Verdict.PROVED else [],
        alphas="symbolic, 0 < α < 1",
        every_object=True,
        covers="T is stochastic and α-DP, exactly α",
    )
    return replace(outcome, scopes=(scope,))


@check("GRS-E2.2", kind=SMT)
def smt_every_n() -> Outcome:
    return grs_e2_2_every_n()


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _dropping_the_last_case(real: Any) -> Any:
    return lambda cases: real(cases)[:-1]


register("T defined with α^(2|i−r|)", "pattern not from the definition", ("GRS-E2.2",),
         module_constant("mechlib.proofs.shared.definitions", "t_entry",
                         lambda real: lambda i, r, n, base="alpha": mul(real(i, r, n, base),
                                                                          power_of_distance(base, i - r))))  # fmt: skip
register("the case split of an ALL-n proof with its last case dropped", "dropped case",
         ("GRS-E2.2", "GRS-E2.1", "GS-L1", "GS-T2", "GS-L3"),
         module_constant("mechlib.proofs.shared.obligations", "CASE_FILTER", _dropping_the_last_case))  # fmt: skip
register("exactly α: the witness moved to column 1, where T[1][1] = T[0][1]/α", "wrong paper value",
         ("GRS-E2.2",), module_constant(__name__, "WITNESS", lambda real: (0, 1)))  # fmt: skip
