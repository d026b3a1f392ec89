"""GS-L5 (GS §4.2): Structure of an optimal minimax mechanism (adjacent rows).

GS Lemma 5: the structure of an optimal minimax mechanism's adjacent rows (FUZZ).

GS: for every monotone minimax loss there is an optimal α-DP mechanism x such that for all
adjacent rows i, i + 1 there are columns c₁ < c₂ ≤ c₁ + 2 with α·x[i][j] = x[i+1][j] for
j ≤ c₁ and x[i][j] = α·x[i+1][j] for j ≥ c₂ — at most one column is free. Their proof takes the
optimum that also minimises L₀(x) = Σ x[i][r]·|i − r|. We do the same: the certified minimax
value v* (:func:`mechlib.optimality.minimax.optimal_minimax_mechanism`), then HiGHS minimises L₀ subject to
the DP constraints and loss ≤ v* on S, and the vertex is rebuilt in rationals from its
signature. An instance counts when that exact x is α-DP, has minimax loss exactly v*, and has
the structure. This is an existence claim, so failing to exhibit such an x is UNKNOWN, never
REFUTED.

Every check part of this claim is here (``mechlib verify --only GS-L5``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.core.exact_linear import solve
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import is_dp
from mechlib.core.users import Loss, MinimaxUser
from mechlib.optimality.minimax import optimal_minimax_mechanism
from mechlib.optimality.optimal import (
    HIGHS,
    dp_lp_constraints,
    mechanism_from_pieces,
    row_sum_constraints,
    segment_pieces,
)
from mechlib.proofs.catalogue import FUZZ
from mechlib.proofs.fuzz import examples
from mechlib.proofs.registry import Outcome, Verdict, check, sampled


def free_columns(x: Mechanism, alpha: Fraction) -> list[int]:
    """For each adjacent pair of rows, how many columns lie strictly between the longest prefix
    with α·x[i] = x[i+1] and the longest suffix with x[i] = α·x[i+1] (GS Lemma 5 wants ≤ 1)."""
    out = []
    rows, m = x.rows, len(x.outputs)
    for i in range(len(rows) - 1):
        prefix = next((j for j in range(m) if alpha * rows[i][j] != rows[i + 1][j]), m)
        suffix = next((m - 1 - j for j in reversed(range(m)) if rows[i][j] != alpha * rows[i + 1][j]), m)
        out.append(max(0, m - prefix - suffix))
    return out


def structured_optimum(user: MinimaxUser, alpha: Fraction) -> tuple[Mechanism, Fraction] | None:
    """A structured exact minimax optimum: the certified one if it has the structure, else the
    L₀-least optimal vertex rebuilt exactly; None if that rebuild fails."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, vstack

    optimum = optimal_minimax_mechanism(user, alpha)
    value = optimum.value
    if max(free_columns(optimum.mechanism, alpha), default=0) <= 1:
        return optimum.mechanism, value  # the certified optimum is already structured
    size = user.n + 1
    s_rows = sorted(user.side_information)
    (rows, cols, vals), k = dp_lp_constraints(size, alpha)
    loss = np.zeros((len(s_rows), size * size))
    for t, i in enumerate(s_rows):
        loss[t, i * size : (i + 1) * size] = [float(v) for v in user.loss.matrix[i]]
    a_ub = vstack([coo_matrix((vals, (rows, cols)), shape=(k, size * size)), coo_matrix(loss)]).tocsr()
    bound = float(value) * (1 + 1e-12) + 1e-12
    c = np.array([abs(i - r) for i in range(size) for r in range(size)], dtype=float)
    b_ub = np.concatenate([np.zeros(k), np.full(len(s_rows), bound)])
    result = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=row_sum_constraints(size), b_eq=np.ones(size), **HIGHS)
    if result.status != 0:
        return None
    xf = result.x.reshape(size, size)
    active = [i for t, i in enumerate(s_rows) if loss[t] @ result.x >= bound - 1e-7 * max(1.0, bound)]
    pieces = segment_pieces(xf, alpha)
    system = [[sum((w for row, w in members if row == i), Fraction(0)) for _, members in pieces] for i in range(size)]
    rhs = [Fraction(1)] * size
    for i in active:
        system.append(
            [sum((w * user.loss.matrix[i][j] for row, w in members if row == i), Fraction(0)) for j, members in pieces]
        )
        rhs.append(value)
    x = mechanism_from_pieces(pieces, solve(system, rhs), size)
    return None if x is None else (x, value)


def _random_user(rng: random.Random) -> MinimaxUser:
    n = rng.randint(1, 4)
    profiles = []
    for _ in range(n + 1):
        steps = [rng.randint(0, 3) for _ in range(n)]
        profiles.append([sum(steps[:d]) for d in range(n + 1)])
    side = set(rng.sample(range(n + 1), rng.randint(2, n + 1)))  # |S| ≥ 2: |S| = 1 is trivial
    return MinimaxUser(side, Loss.from_function(n, lambda i, j: profiles[i][abs(j - i)]))


@check("GS-L5", kind=FUZZ)
def fuzz_adjacent_row_structure() -> Outcome:
    """Random monotone minimax users (n ≤ 4, random S) and α: an exactly optimal mechanism with
    at most one free column between every two adjacent rows is exhibited."""
    rng = random.Random(5)
    shown: list[dict[str, Any]] = []
    for _ in range(examples(25)):
        user = _random_user(rng)
        alpha = Fraction(rng.randint(1, 5), 6)
        found = structured_optimum(user, alpha)
        name = f"n={user.n}, S={sorted(user.side_information)}, α={alpha}"
        if found is None:
            return Outcome(
                Verdict.UNKNOWN, {"exhibited": len(shown)}, f"{name}: the L₀-least optimum was not rebuilt exactly"
            )
        x, value = found
        worst = max(
            sum((p * user.loss.matrix[i][r] for r, p in enumerate(x.rows[i])), Fraction(0))
            for i in user.side_information
        )
        free = free_columns(x, alpha)
        if not is_dp(x, alpha) or worst != value or max(free, default=0) > 1:
            return Outcome(
                Verdict.UNKNOWN, {"exhibited": len(shown)}, f"{name}: no structured optimum found (free columns {free})"
            )
        shown.append({"instance": name, "value": str(value)})
    scope = sampled(len(shown), n="n ≤ 4, random monotone S", alpha="k/6, k = 1..5")
    return Outcome(Verdict.PROVED, {"exhibited": len(shown), "first": shown[:3]}, scopes=(scope,))
