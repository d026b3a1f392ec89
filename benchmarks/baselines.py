"""The naive baselines the benchmarks run beside mechlib: plain ``Fraction`` loops, flint's
general exact solve, HiGHS's bare float solve (which certifies nothing), a float DP check."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any


def naive_t(alpha: Fraction, n: int) -> list[list[Fraction]]:
    """T (GRS Example 2.2) entry by entry in Fractions."""
    return [
        [alpha ** abs(i - r) * (1 / (1 + alpha) if r in (0, n) else (1 - alpha) / (1 + alpha)) for r in range(n + 1)]
        for i in range(n + 1)
    ]


def naive_dp_level(rows: list[list[Fraction]]) -> Fraction:
    best = Fraction(1)
    for upper, lower in itertools.pairwise(rows):
        for u, v in zip(upper, lower):
            if u or v:
                best = min(best, min(u, v) / max(u, v))
    return best


def float_false_violations(alpha: Fraction, n: int) -> int:
    """How many (i, r) a float check wrongly flags for the exactly α-DP mechanism T."""
    a = float(alpha)
    rows = [[float(x) for x in row] for row in naive_t(alpha, n)]
    return sum(1 for upper, lower in itertools.pairwise(rows) for u, v in zip(upper, lower) if v < a * u or u < a * v)


def naive_optimal_remap(rows: list[list[Fraction]], prior: list[Fraction], loss: list[list[int]]) -> list[int]:
    n = len(rows) - 1
    guesses = []
    for r in range(len(rows[0])):
        costs = [sum(prior[i] * rows[i][r] * loss[i][j] for i in range(n + 1)) for j in range(n + 1)]
        guesses.append(min(range(n + 1), key=costs.__getitem__))
    return guesses


def flint_solve(t: Any, m: Any) -> Any:
    """T⁻¹M by flint's general exact solver (conversion from the matrices' Fractions included)."""
    import flint

    from mechlib.core.exact_linear import to_fmpq

    tm = flint.fmpq_mat([[to_fmpq(x) for x in row] for row in t.rows])
    mm = flint.fmpq_mat([[to_fmpq(x) for x in row] for row in m.rows])
    return tm.solve(mm)


def highs_only_bayes(user: Any, alpha: Fraction) -> Any:
    from mechlib.optimality.optimal import bayes_costs, solve_bayes_lp

    return solve_bayes_lp(bayes_costs(user), alpha)


def highs_only_dominance(x: Any) -> Any:
    from mechlib import dp_level
    from mechlib.optimality.derivability import TBasis
    from mechlib.optimality.dominance import _highs_dominance, tail_profile

    return _highs_dominance(TBasis(dp_level(x).alpha, x.n), tail_profile(x))
