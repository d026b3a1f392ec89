"""Certified optima for minimax users (GS §2.4.3 and §2.5).

A minimax user (side information S, loss l) judges a mechanism z by max_{i ∈ S} Σ_j z_ij·l(i, j).
Both LPs are certified by weights λ ≥ 0 on S with Σλ = 1 (found by HiGHS, rebuilt exactly):

* optimal interaction (best randomized remap T of a deployed mechanism y):
  for every remap T, max_{i∈S} loss_i ≥ Σ_i λ_i loss_i ≥ L(λ) = Σ_r min_{r'} Σ_i λ_i y_ir l(i, r'),
  the optimal *deterministic* Bayes remap's value for prior λ. L(λ) = max loss of T* proves T*.
* optimal mechanism (GS §2.5 LP): for every α-DP x, max_{i∈S} loss_i(x) ≥ Σ_ij λ_i l_ij x_ij ≥ Σu
  whenever u is a Bayes dual certificate for costs λ_i·l_ij (``cone_nonnegative``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechlib.core.exact import ExactNumber, format_fraction, parse_probability
from mechlib.core.exact_linear import first_accepted, solve
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss
from mechlib.core.remap import Remap
from mechlib.core.stochastic import StochasticMatrix
from mechlib.core.users import MinimaxUser
from mechlib.errors import InputError
from mechlib.optimality.optimal import (
    HIGHS,
    CertificationError,
    cone_nonnegative,
    dp_lp_constraints,
    exact_segments,
    mechanism_from_pieces,
    row_sum_constraints,
    segment_pieces,
)

_ACTIVE = 1e-7  # reading which loss rows are tight in a float solution (never deciding)


@dataclass(frozen=True)
class MinimaxInteraction:
    """The best randomized remap of a deployed mechanism for a minimax user, certified by λ."""

    remap: Remap
    value: Fraction
    weights: tuple[Fraction, ...]  # λ_i for i = 0..n (zero outside S)


@dataclass(frozen=True)
class MinimaxOptimum:
    """An optimal α-DP mechanism for a minimax user, certified by (λ, u)."""

    mechanism: Mechanism
    value: Fraction
    weights: tuple[Fraction, ...]
    dual: tuple[Fraction, ...]
    alpha: Fraction


def _loss_rows(z: StochasticMatrix, user: MinimaxUser) -> list[Fraction]:
    """Σ_j z_ij·l(i, j) for every input i (outputs of z are guesses 0..n)."""
    return [
        sum((x * user.loss.matrix[i][r] for x, r in zip(row, z.outputs) if x), Fraction(0))
        for i, row in enumerate(z.rows)
    ]


def _check_weights(weights: Sequence[Fraction], user: MinimaxUser) -> str | None:
    if len(weights) != user.n + 1 or any(w < 0 for w in weights) or sum(weights) != 1:
        return "λ must be a probability vector on 0..n"
    if any(w for i, w in enumerate(weights) if i not in user.side_information):
        return "λ puts weight outside the side information S"
    return None


def interaction_lower_bound(mechanism: StochasticMatrix, user: MinimaxUser, weights: Sequence[Fraction]) -> Fraction:
    """L(λ) = Σ_r min_{r'} Σ_i λ_i·y_ir·l(i, r'): no remap of y does better than this."""
    n = user.n
    return sum(
        (
            min(
                sum((weights[i] * row[r] * user.loss.matrix[i][g] for i, row in enumerate(mechanism.rows)), Fraction(0))
                for g in range(n + 1)
            )
            for r in range(len(mechanism.outputs))
        ),
        Fraction(0),
    )


def check_interaction_certificate(
    mechanism: StochasticMatrix, user: MinimaxUser, remap: Remap, weights: Sequence[Fraction]
) -> str | None:
    """Re-check exactly; None if T* is a provably optimal remap, else what fails."""
    problem = _check_weights(weights, user)
    if problem:
        return problem
    value = expected_loss(mechanism, user, remap)
    bound = interaction_lower_bound(mechanism, user, weights)
    if bound != value:
        return f"L(λ) = {format_fraction(bound)} but the remap loses {format_fraction(value)}"
    return None


def optimal_interaction(mechanism: StochasticMatrix, user: MinimaxUser) -> MinimaxInteraction:
    """The best randomized remap of ``mechanism`` for a minimax user (GS §2.4.3), certified.

    Raises
    ------
    CertificationError
        If the HiGHS solution cannot be rebuilt into a certificate that checks.
    """
    import numpy as np
    from scipy.optimize import linprog

    if mechanism.inputs != tuple(range(user.n + 1)):
        raise InputError("the mechanism's inputs must be the user's counts 0..n")
    m, g = len(mechanism.outputs), user.n + 1
    s_rows = sorted(user.side_information)
    per_guess = [
        [[row[r] * user.loss.matrix[i][j] for j in range(g)] for r in range(m)] for i, row in enumerate(mechanism.rows)
    ]
    # variables T_rj (r·g + j), then d; minimise d
    a_ub = np.zeros((len(s_rows), m * g + 1))
    for k, i in enumerate(s_rows):
        for r in range(m):
            for j in range(g):
                a_ub[k, r * g + j] = float(per_guess[i][r][j])
        a_ub[k, -1] = -1.0
    a_eq = np.zeros((m, m * g + 1))
    for r in range(m):
        a_eq[r, r * g : (r + 1) * g] = 1.0
    c = np.zeros(m * g + 1)
    c[-1] = 1.0
    result = linprog(c, A_ub=a_ub, b_ub=np.zeros(len(s_rows)), A_eq=a_eq, b_eq=np.ones(m), bounds=(0, None), **HIGHS)
    if result.status != 0:
        raise CertificationError(f"HiGHS could not solve the interaction LP: {result.message}")
    tf, d = result.x[:-1].reshape(m, g), result.x[-1]
    support = [(r, j) for r in range(m) for j in range(g) if tf[r, j] > 1e-9]
    active = [i for k, i in enumerate(s_rows) if a_ub[k] @ result.x >= -_ACTIVE * max(1.0, abs(d))]
    # exact T on the support: row sums 1, active rows' losses equal d (last unknown)
    equations, rhs = [], []
    for r in range(m):
        equations.append([Fraction(int(rr == r)) for rr, _ in support] + [Fraction(0)])
        rhs.append(Fraction(1))
    for i in active:
        equations.append([per_guess[i][r][j] for r, j in support] + [Fraction(-1)])
        rhs.append(Fraction(0))
    values = solve(equations, rhs, [float(tf[r, j]) for r, j in support] + [float(d)])
    if values is None or any(v < 0 for v in values[:-1]):
        raise CertificationError("the interaction LP's vertex could not be rebuilt exactly")
    table = [[Fraction(0)] * g for _ in range(m)]
    for (r, j), v in zip(support, values):
        table[r][j] = v
    remap = Remap(table, inputs=mechanism.outputs)
    weights = _interaction_weights(
        per_guess,
        support,
        active,
        user,
        list(-result.ineqlin.marginals),
        s_rows,
        lambda w: check_interaction_certificate(mechanism, user, remap, w),
    )
    problem = check_interaction_certificate(mechanism, user, remap, weights)
    if problem is not None:
        raise CertificationError(f"the interaction certificate does not check: {problem}")
    return MinimaxInteraction(remap, expected_loss(mechanism, user, remap), tuple(weights))


def _interaction_weights(
    per_guess: list[list[list[Fraction]]],
    support: list[tuple[int, int]],
    active: list[int],
    user: MinimaxUser,
    hint: list[float],
    s_rows: list[int],
    check: Callable[[list[Fraction]], str | None],
) -> list[Fraction]:
    """λ on the active rows with Σλ = 1 and, for each output r, equal λ-costs on T*'s support."""
    hints = {i: h for i, h in zip(s_rows, hint)}
    equations, rhs = [[Fraction(1)] * len(active)], [Fraction(1)]
    by_output: dict[int, list[int]] = {}
    for r, j in support:
        by_output.setdefault(r, []).append(j)
    for r, guesses in by_output.items():
        for j in guesses[1:]:
            equations.append([per_guess[i][r][guesses[0]] - per_guess[i][r][j] for i in active])
            rhs.append(Fraction(0))

    def spread(lam: list[Fraction]) -> list[Fraction]:
        weights = [Fraction(0)] * (user.n + 1)
        for i, w in zip(active, lam):
            weights[i] = w
        return weights

    lam = first_accepted(equations, rhs, [hints[i] for i in active], lambda v: check(spread(v)) is None)
    if lam is None:
        raise CertificationError("no exact λ from complementary slackness passes the interaction check")
    return spread(lam)


# -- the optimal mechanism for a minimax user (GS §2.5) ----------------------------------------


def check_minimax_certificate(
    mechanism: Mechanism, user: MinimaxUser, alpha: Fraction, weights: Sequence[Fraction], dual: Sequence[Fraction]
) -> str | None:
    """Re-check exactly; None if ``mechanism`` is a provably optimal α-DP mechanism for the user."""
    from mechlib.core.privacy import is_dp

    problem = _check_weights(weights, user)
    if problem:
        return problem
    n = user.n
    if mechanism.outputs != tuple(range(n + 1)) or not is_dp(mechanism, alpha):
        return f"the mechanism is not a {format_fraction(alpha)}-DP mechanism on 0..{n}"
    value = max(_loss_rows(mechanism, user)[i] for i in user.side_information)
    if sum(dual) != value:
        return f"Σu = {format_fraction(sum(dual, Fraction(0)))} but the worst loss is {format_fraction(value)}"
    for j in range(n + 1):
        w = [weights[i] * user.loss.matrix[i][j] - dual[i] for i in range(n + 1)]
        if not cone_nonnegative(w, alpha):
            return f"column {j} of λ·l − u is negative somewhere on the α-DP cone"
    return None


def optimal_minimax_mechanism(user: MinimaxUser, alpha: object) -> MinimaxOptimum:
    """The exactly certified optimal α-DP mechanism for a minimax user (GS §2.5's LP)."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, vstack

    a = parse_probability(alpha)
    if not 0 < a < 1:
        raise InputError(f"alpha={format_fraction(a)}", hint="expected 0 < α < 1")
    size = user.n + 1
    s_rows = sorted(user.side_information)
    (rows, cols, vals), k = dp_lp_constraints(size, a)
    dp_rows = coo_matrix((vals, (rows, cols)), shape=(k, size * size + 1))
    loss = np.zeros((len(s_rows), size * size + 1))
    for t, i in enumerate(s_rows):
        loss[t, i * size : (i + 1) * size] = [float(v) for v in user.loss.matrix[i]]
        loss[t, -1] = -1.0
    a_ub = vstack([dp_rows, coo_matrix(loss)]).tocsr()
    a_eq = row_sum_constraints(size, extra=1)
    c = np.zeros(size * size + 1)
    c[-1] = 1.0
    bounds = [(0, None)] * (size * size) + [(None, None)]
    result = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(k + len(s_rows)), A_eq=a_eq, b_eq=np.ones(size), bounds=bounds, **HIGHS
    )
    if result.status != 0:
        raise CertificationError(f"HiGHS could not solve the minimax LP: {result.message}")
    xf, d = result.x[:-1].reshape(size, size), result.x[-1]
    loss_f = loss @ result.x
    active = [i for t, i in enumerate(s_rows) if loss_f[t] >= -_ACTIVE * max(1.0, abs(d))]
    pieces = segment_pieces(xf, a)
    # unknowns: one scale per segment, then d; rows sum to 1, active rows lose exactly d
    system, rhs = [], []
    for i in range(size):
        system.append(
            [sum((w for row, w in members if row == i), Fraction(0)) for _, members in pieces] + [Fraction(0)]
        )
        rhs.append(Fraction(1))
    for i in active:
        system.append(
            [sum((w * user.loss.matrix[i][j] for row, w in members if row == i), Fraction(0)) for j, members in pieces]
            + [Fraction(-1)]
        )
        rhs.append(Fraction(0))
    scales = solve(system, rhs)
    x = mechanism_from_pieces(pieces, scales, size)
    if x is None:
        raise CertificationError("the minimax LP's vertex could not be rebuilt exactly from its signature")
    marginals = list(-result.ineqlin.marginals[k:])
    weights, dual = _minimax_duals(x, user, a, active, s_rows, marginals, list(result.eqlin.marginals))
    problem = check_minimax_certificate(x, user, a, weights, dual)
    if problem is not None:
        raise CertificationError(f"the minimax certificate does not check: {problem}")
    return MinimaxOptimum(x, sum(dual, Fraction(0)), tuple(weights), tuple(dual), a)


def _minimax_duals(
    x: Mechanism,
    user: MinimaxUser,
    alpha: Fraction,
    active: list[int],
    s_rows: list[int],
    weight_hint: list[float],
    dual_hint: list[float],
) -> tuple[list[Fraction], list[Fraction]]:
    """(λ on active rows, u) with Σλ = 1 and Σ_{i∈s} x_ij(λ_i l_ij − u_i) = 0 on every segment."""
    size = user.n + 1
    hints = dict(zip(s_rows, weight_hint))
    width = len(active) + size
    equations, rhs = [[Fraction(1)] * len(active) + [Fraction(0)] * size], [Fraction(1)]
    for j, rows in exact_segments(x, alpha):
        equation = [Fraction(0)] * width
        for i in rows:
            if i in active:
                equation[active.index(i)] += x.rows[i][j] * user.loss.matrix[i][j]
            equation[len(active) + i] -= x.rows[i][j]
        equations.append(equation)
        rhs.append(Fraction(0))

    def split(values: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
        weights = [Fraction(0)] * size
        for i, w in zip(active, values):
            weights[i] = w
        return weights, values[len(active) :]

    values = first_accepted(
        equations,
        rhs,
        [hints[i] for i in active] + dual_hint,
        lambda v: check_minimax_certificate(x, user, alpha, *split(v)) is None,
    )
    if values is None:
        raise CertificationError("no exact (λ, u) from complementary slackness passes the check")
    return split(values)


def derived_minimax_loss(user: MinimaxUser, alpha: ExactNumber) -> Fraction:
    """The loss the user gets from T = G_{n,α} with its optimal randomized remap (GS Thm 1(b))."""
    from mechlib.core.families import truncated_geometric

    return optimal_interaction(truncated_geometric(alpha, user.n), user).value
