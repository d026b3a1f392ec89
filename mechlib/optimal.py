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
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechlib.errors import InputError
from mechlib.exact import format_fraction, parse_probability
from mechlib.exact_linear import solve
from mechlib.mechanism import Mechanism
from mechlib.privacy import is_dp
from mechlib.users import BayesUser

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


# -- HiGHS, then exact rebuild ----------------------------------------------------------------


def _highs_bayes(costs: list[list[Fraction]], alpha: Fraction) -> tuple[Mechanism, list[Fraction]] | None:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    size = len(costs)
    a = float(alpha)
    index = np.arange(size * size).reshape(size, size)  # x_ij ↦ variable index
    rows, cols, vals = [], [], []
    k = 0
    for i in range(size - 1):
        for j in range(size):  # α x_ij − x_{i+1,j} ≤ 0 and α x_{i+1,j} − x_ij ≤ 0
            rows += [k, k, k + 1, k + 1]
            cols += [index[i, j], index[i + 1, j], index[i + 1, j], index[i, j]]
            vals += [a, -1.0, a, -1.0]
            k += 2
    a_ub = coo_matrix((vals, (rows, cols)), shape=(k, size * size)).tocsr()
    eq_rows = np.repeat(np.arange(size), size)
    a_eq = coo_matrix((np.ones(size * size), (eq_rows, index.ravel())), shape=(size, size * size)).tocsr()
    c = np.array([float(v) for row in costs for v in row])
    tolerances = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    result = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=np.ones(size), method="highs-ds", options=tolerances
    )
    if result.status != 0:
        return None
    xf = result.x.reshape(size, size)
    x = _vertex_from_signature(xf, alpha)
    if x is None:
        return None
    u = _dual_from_complementary_slackness(x, costs, alpha, list(result.eqlin.marginals))
    return (x, u) if u is not None else None


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


def _vertex_from_signature(xf: object, alpha: Fraction) -> Mechanism | None:
    """The exact vertex with the float solution's binding constraints (one solve)."""
    size = len(xf)  # type: ignore[arg-type]
    a = float(alpha)
    pieces: list[tuple[int, list[tuple[int, Fraction]]]] = []  # (column, [(row, weight)])
    for j in range(size):
        segments = _segments([float(xf[i][j]) for i in range(size)], a)  # type: ignore[index]
        for seg in segments or []:
            pieces.append((j, [(seg[t], alpha ** seg[t + 1]) for t in range(0, len(seg), 2)]))
    system = [[Fraction(0)] * len(pieces) for _ in range(size)]
    for s, (_, members) in enumerate(pieces):
        for row, weight in members:
            system[row][s] += weight
    scales = solve(system, [Fraction(1)] * size)
    if scales is None or any(t <= 0 for t in scales):
        return None
    rows = [[Fraction(0)] * size for _ in range(size)]
    for (j, members), t in zip(pieces, scales):
        for row, weight in members:
            rows[row][j] = t * weight
    try:
        return Mechanism(rows)
    except InputError:
        return None


def _dual_from_complementary_slackness(
    x: Mechanism, costs: list[list[Fraction]], alpha: Fraction, hint: list[float]
) -> list[Fraction] | None:
    """u with (c_j − u)·s = 0 for every segment s of every nonzero column of x (exact).

    At an optimum each nonzero column minimises (c_j − u)·x over the cone at value 0, so the
    linear function vanishes on the face spanned by its segments. Free coordinates take the
    HiGHS duals.
    """
    size = len(costs)
    equations, rhs = [], []
    for j in range(size):
        column = [x.rows[i][j] for i in range(size)]
        if not any(column):
            continue
        start = 0
        for i in range(size):
            last = i == size - 1
            if last or not (column[i + 1] == alpha * column[i] or column[i] == alpha * column[i + 1]):
                equation = [Fraction(0)] * size
                for r in range(start, i + 1):
                    equation[r] = column[r]
                equations.append(equation)
                rhs.append(sum((column[r] * costs[r][j] for r in range(start, i + 1)), Fraction(0)))
                start = i + 1
    return solve(equations, rhs, hint)


# -- z3 fallback ---------------------------------------------------------------------------


def _z3_bayes(costs: list[list[Fraction]], alpha: Fraction) -> tuple[Mechanism, list[Fraction]]:
    """Exact primal and dual optima with z3's Optimize (exact rational LP)."""
    import z3

    size = len(costs)
    al = z3.Q(alpha.numerator, alpha.denominator)
    primal = z3.Optimize()
    xs = [[z3.Real(f"x_{i}_{j}") for j in range(size)] for i in range(size)]
    for i in range(size):
        primal.add(z3.Sum(xs[i]) == 1)
        for j in range(size):
            primal.add(xs[i][j] >= 0)
            if i + 1 < size:
                primal.add(al * xs[i][j] <= xs[i + 1][j], al * xs[i + 1][j] <= xs[i][j])
    primal.minimize(z3.Sum([_q(costs[i][j]) * xs[i][j] for i in range(size) for j in range(size)]))
    if primal.check() != z3.sat:
        raise CertificationError(f"z3 answered {primal.check()} on the primal LP")
    model = primal.model()
    x = Mechanism([[_value(model.eval(xs[i][j], model_completion=True)) for j in range(size)] for i in range(size)])
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
            reduced = _q(costs[i][j]) - us[i]
            if i < size - 1:
                reduced = reduced - mu[i][j] + al * nu[i][j]
            if i > 0:
                reduced = reduced + al * mu[i - 1][j] - nu[i - 1][j]
            dual.add(reduced >= 0)
    dual.maximize(z3.Sum(us))
    if dual.check() != z3.sat:
        raise CertificationError("z3 could not solve the dual LP")
    dmodel = dual.model()
    return x, [_value(dmodel.eval(u, model_completion=True)) for u in us]


def _q(value: Fraction) -> object:
    import z3

    return z3.Q(value.numerator, value.denominator)


def _value(term: object) -> Fraction:
    import z3

    if not z3.is_rational_value(term):
        raise CertificationError(f"z3 returned a non-rational value {term}")
    return Fraction(term.numerator_as_long(), term.denominator_as_long())  # type: ignore[attr-defined]
