"""Certified optimal DP mechanisms for a Bayesian user (GRS §5.2, LP (3)–(7)).

HiGHS (scipy, dual simplex) *finds* an optimal vertex in floats; the answer is then rebuilt
and *certified* exactly:

* primal: from the float solution's signature (GRS §5.3) each column splits into segments
  whose ratios are fixed (binding ↓/↑ constraints); one exact linear solve for the segment
  scales gives the exact vertex X, checked α-DP and stochastic exactly;
* dual: multipliers u of the row-sum constraints. Weak duality: for every α-DP stochastic X,
  Σ_ij c_ij x_ij = Σ_i u_i + Σ_j (c_j − u)·x_j ≥ Σ_i u_i whenever every column w = c_j − u
  is nonnegative on the α-DP cone {x ≥ 0: α x_i ≤ x_{i+1} ≤ x_i/α} (``cone_nonnegative``).
  Σ_i u_i = loss(X) then proves X optimal.

If the rebuilt pair does not check, z3's exact ``Optimize`` decides instead (small n).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction, parse_probability
from mechlib.core.exact_linear import first_accepted, solve
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import optimal_remap
from mechlib.core.privacy import is_dp
from mechlib.core.remap import Remap
from mechlib.core.users import BayesUser
from mechlib.errors import InputError

#: Reading a float solution's signature (never deciding): a pair is binding when its ratio is
#: within _TIGHT (relative) of α or 1/α; pairs with an entry below _FLOOR × the column's largest
#: are too close to the solver's absolute error (~1e-7) to read.
_TIGHT = 1e-3
_FLOOR = 1e-3
_ZERO = 1e-9
#: z3's exact Optimize is the fallback only up to this n (it took 86 s at n = 50).
Z3_MAX_N = 20


class CertificationError(RuntimeError):
    """No exact certificate could be built: the result is UNKNOWN, never a pass."""


@dataclass(frozen=True)
class BayesOptimum:
    """An exactly certified optimal α-DP mechanism for a Bayesian user.

    ``dual`` is u (one multiplier per input row) with Σ u = ``value``; ``method`` says how the
    pair was found (``highs+signature`` or ``z3``).
    """

    mechanism: Mechanism
    value: Fraction
    dual: tuple[Fraction, ...]
    alpha: Fraction
    method: str


def bayes_costs(user: BayesUser) -> list[list[Fraction]]:
    """c_ij = p_i·l(i, j): the objective (3) of the user-specific LP."""
    return [[p * v for v in row] for p, row in zip(user.prior.probabilities, user.loss.matrix)]


def cone_nonnegative(w: Sequence[Fraction], alpha: Fraction) -> bool:
    """Whether w·x ≥ 0 for every x in the α-DP cone {x ≥ 0 : α x_i ≤ x_{i+1} ≤ x_i/α}, 0 < α < 1.

    The cone's extreme rays are the positive vectors with x_{i+1} = α^{±1} x_i (one binding
    constraint per pair). F_i = min over those rays, scaled to x_i = 1, of Σ_{k ≥ i} w_k x_k:
    F_n = w_n, F_i = w_i + (α·F_{i+1} if F_{i+1} ≥ 0 else F_{i+1}/α); the answer is F_0 ≥ 0.
    """
    f = w[-1]
    for value in reversed(w[:-1]):
        f = value + (alpha * f if f >= 0 else f / alpha)
    return f >= 0


def check_bayes_certificate(
    mechanism: Mechanism, user: BayesUser, alpha: Fraction, dual: Sequence[Fraction]
) -> str | None:
    """Re-check an optimality certificate exactly; None if it holds, else what fails."""
    n = user.n
    if mechanism.inputs != tuple(range(n + 1)) or mechanism.outputs != tuple(range(n + 1)):
        return "the mechanism must map 0..n to 0..n"
    if not is_dp(mechanism, alpha):
        return f"the mechanism is not {format_fraction(alpha)}-DP"
    costs = bayes_costs(user)
    value = sum((c * x for crow, xrow in zip(costs, mechanism.rows) for c, x in zip(crow, xrow)), Fraction(0))
    if sum(dual) != value:
        return f"Σu = {format_fraction(sum(dual, Fraction(0)))} differs from the loss {format_fraction(value)}"
    for j in range(n + 1):
        if not cone_nonnegative([costs[i][j] - dual[i] for i in range(n + 1)], alpha):
            return f"column {j} of c − u is negative somewhere on the α-DP cone"
    return None


def optimal_bayes_mechanism(user: BayesUser, alpha: object) -> BayesOptimum:
    """The exactly certified optimal α-DP mechanism on 0..n for ``user`` (GRS LP (3)–(7)).

    Raises
    ------
    CertificationError
        If neither the HiGHS-guided rebuild nor z3 gives a certificate that checks.
    """
    a = parse_probability(alpha)
    if not 0 < a < 1:
        raise InputError(f"alpha={format_fraction(a)}", hint="expected 0 < α < 1")
    costs = bayes_costs(user)
    found = _highs_bayes(costs, a)
    if found is not None:
        x, u = found
        if check_bayes_certificate(x, user, a, u) is None:
            return BayesOptimum(x, sum(u, Fraction(0)), tuple(u), a, "highs+signature")
    if user.n > Z3_MAX_N:
        raise CertificationError(
            f"the HiGHS solution could not be rebuilt into an exact certificate, and n={user.n} is above "
            f"the z3 fallback's limit {Z3_MAX_N}"
        )
    x, u = _z3_bayes(costs, a)
    problem = check_bayes_certificate(x, user, a, u)
    if problem is not None:
        raise CertificationError(f"z3's solution does not check: {problem}")
    return BayesOptimum(x, sum(u, Fraction(0)), tuple(u), a, "z3")


@dataclass(frozen=True)
class OptimumOfT:
    """The optimum over all α-DP mechanisms as T followed by the user's optimal remap Y (GRS
    Theorem 3.1), certified with no LP: ``dual`` u with Σu = ``value`` and every column c_j − u
    nonnegative on the α-DP cone, while T then Y loses exactly ``value``."""

    remap: Remap
    value: Fraction
    dual: tuple[Fraction, ...]


def optimum_of_t(
    user: BayesUser,
    alpha: Fraction,
    t: Mechanism,
    inverse: Sequence[Sequence[Fraction]],
    t_remap: Remap | None = None,
) -> OptimumOfT | None:
    """GRS Theorem 3.1's optimum, T then Y = the optimal remap of T, certified by a dual built from
    complementary slackness instead of an LP: every column r of T is a point of the α-DP cone
    that Y sends to guess Y(r), so each (c_{Y(r)} − u)·T_{·r} = 0, i.e. Tᵀu = b with
    b_r = Σ_i T[i][r]·c[i][Y(r)], and u = (T⁻¹)ᵀb (T⁻¹ tridiagonal: O(n)). Since T⁻¹1 = 1,
    Σu = Σ_r b_r, the loss of T then Y. The pair is accepted only if every column c_j − u is
    nonnegative on the α-DP cone (weak duality then proves no α-DP mechanism loses less);
    otherwise None (the LP decides). ``t`` and ``inverse``: T and T⁻¹ at the user's n and α;
    ``t_remap``: the user's optimal remap of T when the caller has it (an O(n³) product)."""
    n = user.n
    remap = optimal_remap(t, user) if t_remap is None else t_remap
    mapping = remap.as_mapping()
    guess = [mapping[r] for r in t.outputs]
    costs = bayes_costs(user)
    num, den = t.scaled()
    # b in integers: with S a common multiple, K[i][g] = c[i][g]·S/den_i, and b_r·S = Σ_i num[i][r]·K[i][g]
    row_scale = [math.lcm(*(c.denominator for c in row)) for row in costs]
    scale = math.lcm(*(d * k for d, k in zip(den, row_scale)))
    k = [[c.numerator * (scale // (d * c.denominator)) for c in row] for d, row in zip(den, costs)]
    b = [Fraction(sum(num[i][r] * k[i][g] for i in range(n + 1)), scale) for r, g in enumerate(guess)]
    u = [sum((inverse[r][i] * b[r] for r in range(max(0, i - 1), min(n, i + 1) + 1)), Fraction(0))
         for i in range(n + 1)]  # fmt: skip
    value = sum(b, Fraction(0))  # the loss of T then Y
    if sum(u, Fraction(0)) != value:  # T⁻¹1 = 1 makes them equal; checked, not assumed
        return None
    if not all(cone_nonnegative([costs[i][j] - u[i] for i in range(n + 1)], alpha) for j in range(n + 1)):
        return None
    return OptimumOfT(remap, value, tuple(u))


def certify_given(mechanism: Mechanism, user: BayesUser, alpha: object) -> tuple[Fraction, ...] | None:
    """Multipliers u proving that a *given* mechanism is optimal for ``user`` (None if none found).

    HiGHS's duals for this user's LP are only hints; u comes from complementary slackness on the
    given mechanism's own segments and is accepted only if ``check_bayes_certificate`` holds.
    """
    a = parse_probability(alpha)
    costs = bayes_costs(user)
    result = solve_bayes_lp(costs, a)
    hint = list(result.eqlin.marginals) if result.status == 0 else [0.0] * len(costs)
    equations, rhs = segment_dual_equations(mechanism, a, costs)
    u = first_accepted(equations, rhs, hint, lambda v: check_bayes_certificate(mechanism, user, a, v) is None)
    return None if u is None else tuple(u)


# -- HiGHS, then exact rebuild ----------------------------------------------------------------


#: HiGHS options: dual simplex (a vertex) with tight tolerances.
HIGHS = {"method": "highs-ds", "options": {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}}


def dp_constraint_rows(inputs: int, outputs: int, alpha: Fraction) -> Iterator[tuple[tuple[int, Fraction], ...]]:
    """The α-DP constraints (4)–(5) of GRS LP (3)–(7), exactly, each a ``≤ 0`` row given as its
    (variable, coefficient) terms on x_ij (index i·outputs + j): α x_ij − x_{i+1,j} ≤ 0, then
    α x_{i+1,j} − x_ij ≤ 0, for i < inputs − 1 and every j."""
    for i in range(inputs - 1):
        for j in range(outputs):
            up, down = i * outputs + j, (i + 1) * outputs + j
            yield (up, alpha), (down, Fraction(-1))
            yield (down, alpha), (up, Fraction(-1))


def dp_lp_constraints(size: int, alpha: Fraction) -> tuple[list[list[float]], int]:
    """Sparse (row, column, value) triplets of :func:`dp_constraint_rows` in floats (for HiGHS),
    square ``size`` × ``size``, and the number of rows."""
    rows: list[float] = []
    cols: list[float] = []
    vals: list[float] = []
    k = -1
    for k, terms in enumerate(dp_constraint_rows(size, size, alpha)):
        for var, coefficient in terms:
            rows.append(k)
            cols.append(var)
            vals.append(float(coefficient))
    return [rows, cols, vals], k + 1


def solve_bayes_lp(costs: list[list[Fraction]], alpha: Fraction) -> Any:
    """HiGHS on GRS LP (3)–(7) in floats (scipy's result): it finds, it does not decide."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    size = len(costs)
    (rows, cols, vals), k = dp_lp_constraints(size, alpha)
    a_ub = coo_matrix((vals, (rows, cols)), shape=(k, size * size)).tocsr()
    c = np.array([float(v) for row in costs for v in row])
    return linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=row_sum_constraints(size), b_eq=np.ones(size), **HIGHS)


def row_sum_constraints(size: int, extra: int = 0) -> object:
    """Σ_j x_ij = 1 for every row i, as a sparse matrix (``extra`` further zero columns)."""
    import numpy as np
    from scipy.sparse import coo_matrix

    cells = np.arange(size * size)
    return coo_matrix((np.ones(size * size), (cells // size, cells)), shape=(size, size * size + extra)).tocsr()


def _highs_bayes(costs: list[list[Fraction]], alpha: Fraction) -> tuple[Mechanism, list[Fraction]] | None:
    size = len(costs)
    result = solve_bayes_lp(costs, alpha)
    if result.status != 0:
        return None
    pieces = segment_pieces(result.x.reshape(size, size), alpha)
    system = [[Fraction(0)] * len(pieces) for _ in range(size)]
    for s, (_, members) in enumerate(pieces):
        for row, weight in members:
            system[row][s] += weight
    scales = solve(system, [Fraction(1)] * size)
    x = mechanism_from_pieces(pieces, scales, size)
    if x is None:
        return None
    equations, rhs = segment_dual_equations(x, alpha, costs)

    def dual_feasible(u: list[Fraction]) -> bool:
        return all(cone_nonnegative([costs[i][j] - u[i] for i in range(size)], alpha) for j in range(size))

    u = first_accepted(equations, rhs, list(result.eqlin.marginals), dual_feasible)
    return None if u is None else (x, u)


def _segments(column: Sequence[float], alpha: float) -> list[list[int]] | None:
    """Read one float column's signature: runs of rows joined by binding ↓/↑ constraints.

    Each segment is a flat list [row, e, row, e, …]: x_row = scale·α^e inside the segment.
    Returns None for a zero column. Entries below the solver's noise floor (the tails of a
    column, α^n small) carry no signal, so their pairs take the direction of the nearest
    readable pair — the single-peaked shape of GRS Lemma 5.9. Only a guess: the exact
    check decides.
    """
    scale = max(abs(v) for v in column)
    if scale <= _ZERO:
        return None
    directions: list[int | None] = []  # +1: ↓ (x_{i+1} = α x_i), −1: ↑, 0: slack, None: unreadable
    for u, v in itertools.pairwise(column):
        if min(u, v) <= _FLOOR * scale:
            directions.append(None)
        elif abs(v / u - alpha) <= _TIGHT * alpha:
            directions.append(1)
        elif abs(u / v - alpha) <= _TIGHT * alpha:
            directions.append(-1)
        else:
            directions.append(0)
    readable = [k for k, d in enumerate(directions) if d is not None]
    if not readable:
        return None
    for k in range(len(directions)):
        if directions[k] is None:
            nearest = readable[0] if k < readable[0] else readable[-1] if k > readable[-1] else None
            directions[k] = directions[nearest] if nearest is not None else 0
    segments: list[list[int]] = [[0, 0]]
    for i, d in enumerate(directions):
        if d == 0:
            segments.append([i + 1, 0])
        else:
            segments[-1] += [i + 1, segments[-1][-1] + (d or 0)]
    return segments


def segment_pieces(xf: object, alpha: Fraction) -> list[tuple[int, list[tuple[int, Fraction]]]]:
    """The segments of a float solution's columns: (column, [(row, α^e)]) with x_row = t·α^e."""
    size = len(xf)  # type: ignore[arg-type]
    pieces: list[tuple[int, list[tuple[int, Fraction]]]] = []
    for j in range(size):
        segments = _segments([float(xf[i][j]) for i in range(size)], float(alpha))  # type: ignore[index]
        for seg in segments or []:
            pieces.append((j, [(seg[t], alpha ** seg[t + 1]) for t in range(0, len(seg), 2)]))
    return pieces


def mechanism_from_pieces(
    pieces: list[tuple[int, list[tuple[int, Fraction]]]], scales: list[Fraction] | None, size: int
) -> Mechanism | None:
    """The exact matrix with x_row,j = t_s·α^e on each segment s (None if a scale is ≤ 0)."""
    if scales is None or any(t <= 0 for t in scales[: len(pieces)]):
        return None
    rows = [[Fraction(0)] * size for _ in range(size)]
    for (j, members), t in zip(pieces, scales):
        for row, weight in members:
            rows[row][j] = t * weight
    try:
        return Mechanism(rows)
    except InputError:
        return None


def exact_segments(x: Mechanism, alpha: Fraction) -> list[tuple[int, range]]:
    """(column, rows) for every maximal run of rows of a nonzero column joined by binding
    ↓/↑ constraints of the exact mechanism x."""
    size = len(x.rows)
    result = []
    for j in range(size):
        column = [x.rows[i][j] for i in range(size)]
        if not any(column):
            continue
        start = 0
        for i in range(size):
            if i == size - 1 or not (column[i + 1] == alpha * column[i] or column[i] == alpha * column[i + 1]):
                result.append((j, range(start, i + 1)))
                start = i + 1
    return result


def segment_dual_equations(
    x: Mechanism, alpha: Fraction, costs: list[list[Fraction]]
) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Σ_{i ∈ s} x_ij·u_i = Σ_{i ∈ s} x_ij·c_ij for every segment s of x's nonzero columns.

    At an optimum each nonzero column minimises (c_j − u)·x over the α-DP cone at value 0, so
    that linear function vanishes on the face spanned by the column's segments.
    """
    size = len(costs)
    equations, rhs = [], []
    for j, rows in exact_segments(x, alpha):
        equation = [Fraction(0)] * size
        for r in rows:
            equation[r] = x.rows[r][j]
        equations.append(equation)
        rhs.append(sum((x.rows[r][j] * costs[r][j] for r in rows), Fraction(0)))
    return equations, rhs


# -- z3 fallback ---------------------------------------------------------------------------


def _z3_bayes(costs: list[list[Fraction]], alpha: Fraction) -> tuple[Mechanism, list[Fraction]]:
    """Exact primal and dual optima with z3's Optimize (exact rational LP)."""
    import z3

    from mechlib.optimality.smt import dp_matrix, exact, q

    size = len(costs)
    al = q(alpha)
    primal = z3.Optimize()
    xs = dp_matrix(primal, size, alpha)
    primal.minimize(z3.Sum([q(costs[i][j]) * xs[i][j] for i in range(size) for j in range(size)]))
    if primal.check() != z3.sat:
        raise CertificationError(f"z3 answered {primal.check()} on the primal LP")
    model = primal.model()
    try:
        x = Mechanism([[exact(model.eval(xs[i][j], model_completion=True)) for j in range(size)] for i in range(size)])
    except ValueError as err:
        raise CertificationError(str(err)) from None
    # Dual: max Σu s.t. c_ij − u_i − μ_ij + α μ_{i−1,j} − ν_{i−1,j} + α ν_ij ≥ 0, μ, ν ≥ 0.
    dual = z3.Optimize()
    us = [z3.Real(f"u_{i}") for i in range(size)]
    mu = [[z3.Real(f"mu_{i}_{j}") for j in range(size)] for i in range(size - 1)]
    nu = [[z3.Real(f"nu_{i}_{j}") for j in range(size)] for i in range(size - 1)]
    for i in range(size - 1):
        for j in range(size):
            dual.add(mu[i][j] >= 0, nu[i][j] >= 0)
    for i in range(size):
        for j in range(size):
            reduced = q(costs[i][j]) - us[i]
            if i < size - 1:
                reduced = reduced - mu[i][j] + al * nu[i][j]
            if i > 0:
                reduced = reduced + al * mu[i - 1][j] - nu[i - 1][j]
            dual.add(reduced >= 0)
    dual.maximize(z3.Sum(us))
    if dual.check() != z3.sat:
        raise CertificationError("z3 could not solve the dual LP")
    dmodel = dual.model()
    try:
        return x, [exact(dmodel.eval(u, model_completion=True)) for u in us]
    except ValueError as err:
        raise CertificationError(str(err)) from None
