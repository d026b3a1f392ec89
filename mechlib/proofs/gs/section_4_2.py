"""GS-L5 (GS §4.2): Structure of an optimal minimax mechanism (adjacent rows).

GS Lemma 5: the structure of an optimal minimax mechanism's adjacent rows (EXACT for n ≤ 3, and FUZZ).

GS: for every monotone minimax loss there is an optimal α-DP mechanism x such that for all
adjacent rows i, i + 1 there are columns c₁ < c₂ ≤ c₁ + 2 with α·x[i][j] = x[i+1][j] for
j ≤ c₁ and x[i][j] = α·x[i+1][j] for j ≥ c₂ — at most one column is free. Their proof takes the
optimum that also minimises L₀(x) = Σ x[i][r]·|i − r|. We do the same: the certified minimax
value v* (:func:`mechlib.optimality.minimax.optimal_minimax_mechanism`), then HiGHS minimises L₀ subject to
the DP constraints and loss ≤ v* on S, and the vertex is rebuilt in rationals from its
signature. An instance counts when that exact x is α-DP, has minimax loss exactly v*, and has
the structure. This is an existence claim, so failing to exhibit such an x is UNKNOWN, never
REFUTED.

**EXACT part (every user at n ≤ 3).** A monotone loss is nondecreasing in |i − r| for every i, so
l(i, i − k) = l(i, i + k) and row i's loss is l(i, i) + Σ_k (l(i, i+k) − l(i, i+k−1))·τ_{i,k}(x), a
nonnegative combination of the error tails τ_{i,k}(x) = P_x(|r − i| ≥ k | i) of
:mod:`mechlib.proofs.shared.dp_polytope`; so is the minimax loss, for every S. Take any optimum x*
and, among the α-DP z with τ(z) ≤ τ(x*) (a compact set), one with the least Σ τ(z): it is optimal
too and *no* α-DP mechanism has tails ≤ its own and smaller somewhere, so (Motzkin) it is optimal for
some strictly positive tail weights — a full-support, strictly legal Bayesian user. Hence GS-L5 for
every monotone loss and every S follows from the stronger statement decided here: *every* mechanism
optimal for a full-support, strictly legal Bayesian user has the structure. The structure depends
only on which DP constraints are tight (the signature), so
:func:`~mechlib.proofs.shared.dp_polytope.decide_on_optimal` decides it over every co-optimal set of
vertices of the α-DP polytope, exactly, at every n ≤ 3 for three α. A mechanism of that stronger
statement without the structure does not refute the lemma (some other optimum may have it): UNKNOWN.

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
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import examples
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, Verdict, check
from mechlib.proofs.shared.dp_polytope import decide_on_optimal


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


def structure_violation(x: Mechanism, alpha: Fraction) -> dict[str, Any] | None:
    """Where x lacks GS Lemma 5's structure (a pair of adjacent rows with more than one free
    column), or None."""
    free = free_columns(x, alpha)
    return None if max(free, default=0) <= 1 else {"free columns": free}


def structured_optimum(user: MinimaxUser, alpha: Fraction) -> tuple[Mechanism, Fraction] | None:
    """A structured exact minimax optimum: the certified one if it has the structure, else the
    L₀-least optimal vertex rebuilt exactly; None if that rebuild fails."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, vstack

    optimum = optimal_minimax_mechanism(user, alpha)
    value = optimum.value
    if structure_violation(optimum.mechanism, alpha) is None:
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
    record = Record()
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
        lacking = structure_violation(x, alpha)
        if not is_dp(x, alpha) or worst != value or lacking is not None:
            return Outcome(
                Verdict.UNKNOWN, {"exhibited": len(shown)}, f"{name}: no structured optimum found ({lacking})"
            )
        shown.append({"instance": name, "value": str(value)})
        record.ran(user.n, alpha, "random monotone minimax user")
    outcome = Outcome(Verdict.PROVED, {"exhibited": len(shown), "first": shown[:3]})
    return record.outcome(outcome, "random.Random(5): users and α = k/6 drawn, exact rationals", sampled=True)


@check("GS-L5", kind=EXACT)
def exact_adjacent_row_structure() -> Outcome:
    """Every monotone minimax user (every loss, every S) at n ≤ 3, three α: every mechanism optimal for
    a full-support, strictly legal Bayesian user has the structure (see the module docstring)."""
    what = "every co-optimal set of vertices, so every monotone minimax loss and every S (a least-tail optimum)"
    outcome = decide_on_optimal(structure_violation, largest_set=None, what=what)
    if outcome.verdict != Verdict.REFUTED:
        return outcome
    reason = (
        f"{outcome.reason}: a mechanism optimal for a strict Bayesian user lacks the structure; the lemma "
        "only claims some optimum has it, so this decides nothing"
    )
    return Outcome(Verdict.UNKNOWN, outcome.evidence, reason)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _no_free_column(_real: Any) -> Any:
    def violation(x: Mechanism, alpha: Fraction) -> dict[str, Any] | None:
        free = free_columns(x, alpha)
        return None if max(free, default=0) == 0 else {"free columns": free}  # c₂ = c₁ + 1 only

    return violation


def _structure_at_alpha_squared(real: Any) -> Any:
    def violation(x: Mechanism, alpha: Fraction) -> dict[str, Any] | None:
        found: dict[str, Any] | None = real(x, alpha * alpha)
        return found

    return violation


register("GS-L5: no free column between adjacent rows (c₂ = c₁ + 1)", "changed statement", ("GS-L5",),
         module_constant("mechlib.proofs.gs.section_4_2", "structure_violation", _no_free_column))  # fmt: skip
register("GS-L5: the structure read at α²", "wrong α", ("GS-L5",),
         module_constant("mechlib.proofs.gs.section_4_2", "structure_violation",
                         _structure_at_alpha_squared))  # fmt: skip
