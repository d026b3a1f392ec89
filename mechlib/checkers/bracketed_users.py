"""Re-check of a bracketed user row (``mechlib.audit/8``): a standard user (uniform prior; absolute,
squared or binary loss) at a DP level α whose exact optimum's numbers are too long to write, written
apart from the producer.

The optimum L*(α) over all α-DP mechanisms is bracketed at short α_lo ≤ α ≤ α_hi. α-DP with a
larger α is a subset of α-DP (x[i][r] ≥ α′·x[i′][r] ≥ α·x[i′][r] for α ≤ α′), so

* below: a dual u with every column c_j − u nonnegative on the α_lo-DP cone is nonnegative on the
  smaller α-DP cone too, so Σu ≤ L*(α) — checked as for an exact row (``standard_users``), at α_lo,
  with T at α_lo and its recorded remap reaching Σu (the exact optimum at α_lo, GRS Thm 3.1);
* above: T at α_hi then its recorded remap is α_hi-DP, hence α-DP, so its loss (recomputed from T's
  closed-form columns) is ≥ L*(α).

M's loss with its recorded remap: each guess a least-loss guess of its column (absolute: a weighted
median, 2·A_g ≤ W ≤ 2·A_{g+1}, A_j = Σ_{i<j} w_i; squared: nearest the mean, (2g − 1)·W ≤ 2·S₁ ≤
(2g + 1)·W; binary: a mode — each loss is convex in the guess) and the loss inside the recorded
bracket, both on float enclosures of the weights w_i = x[i][r]/(n + 1): num/den correctly rounded
(Python's int division), one ulp outward after each product, and every sum of N terms ≥ 0 widened by
its error bound g·Σ, g = N·2⁻⁵² (any summation order; subnormal results of an addition are exact).
A column the floats leave open is decided in integers. ``excess`` and ``ratio`` are recomputed from
the brackets exactly.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from mechlib.checkers.fields import IntRows, Malformed, Q, _f, _keys, _list
from mechlib.checkers.standard_users import (
    TColumns,
    _column_losses,
    _dual_feasible,
    _guesses,
    _rays,
    numbers_fit,
)

FIELDS = {"prior_name", "loss_name", "prior", "loss", "mechanism", "optimal_remap", "optimum", "excess", "ratio"}
LOWER = {"alpha", "value", "dual", "t_optimal_remap"}
UPPER = {"alpha", "value", "t_optimal_remap"}


@lru_cache(maxsize=4)
def _t_columns(a: int, b: int, n: int) -> TColumns:
    """T's columns at α = a/b, built once for the three users of a certificate."""
    return TColumns.of(Q(a, b), n)


def _t_losses(kind: str, alpha: Q, steps: list[int], n: int) -> list[Q]:
    """b_r = Σ_i (1/(n + 1))·T[i][r]·l(i, steps[r]) at α = a/b: T's integer columns over b^n·(a + b)."""
    columns = _t_columns(int(alpha.p), int(alpha.q), n)
    scale = (n + 1) * int(alpha.q) ** n * (int(alpha.p) + int(alpha.q))
    return [Q(columns.loss(kind, r, g), scale) for r, g in enumerate(steps)]


def weight_bounds(m: IntRows) -> tuple[Any, Any]:
    """Float arrays lo ≤ x[i][r]/(n + 1) ≤ hi. Row i's integers are first cut to their top bits, k =
    bits(den_i) − 1000 ≥ 0 dropped (a ∈ [a′·2^k, (a′ + 1)·2^k) for a′ = a >> k; 2^k cancels), so each
    converts to a float, correctly rounded (CPython's int → float), then one ulp outward — one C-level
    conversion per entry, not a long division (≈ 4× faster at n = 1000, 1000-bit rows). An entry above
    its row's denominator (a matrix that is not stochastic) is refused."""
    import numpy as np

    n = len(m.num) - 1
    lo, hi = np.empty((n + 1, len(m.num[0]))), np.empty((n + 1, len(m.num[0])))
    p_lo, p_hi = np.nextafter(1 / (n + 1), -np.inf), np.nextafter(1 / (n + 1), np.inf)
    with np.errstate(all="ignore"):
        for i, (row, d) in enumerate(zip(m.num, m.den)):
            if max(row, default=0) > d:  # x ≤ 1 keeps every float below 2¹⁰⁰⁰ (no ∞, no ∞·0 = NaN)
                raise Malformed(f"mechanism.matrix: row {i} has an entry above its denominator")
            k = max(d.bit_length() - 1000, 0)
            cut = row if k == 0 else [a >> k for a in row]
            top = np.array(list(map(float, cut)))
            d_lo, d_hi = float(d >> k), float((d >> k) + (k > 0))
            a_hi = top if k == 0 else np.array(list(map(float, (a + 1 for a in cut))))
            x_lo = np.nextafter(np.nextafter(top, -np.inf) / np.nextafter(d_hi, np.inf), -np.inf)
            x_hi = np.nextafter(np.nextafter(a_hi, np.inf) / np.nextafter(d_lo, -np.inf), np.inf)
            lo[i], hi[i] = np.nextafter(x_lo * p_lo, -np.inf), np.nextafter(x_hi * p_hi, np.inf)
    return lo, hi


def check_bracketed_user(
    u: Any, where: str, m: IntRows, outputs: list[int], alpha: Q, n: int, bounds: tuple[Any, Any]
) -> list[str]:
    """Failures of a bracketed user row (module docstring); ``bounds``: ``weight_bounds(m)``."""
    _keys(u, where, FIELDS)
    kind, name = u["loss"], f"user ({u['prior_name']}, {u['loss_name']})"
    if kind not in ("absolute", "squared", "binary"):
        raise Malformed(f"{where}.loss: {kind!r} is not a standard loss")
    prior = [_f(p, f"{where}.prior") for p in _list(u["prior"], f"{where}.prior", n + 1)]
    out = [] if u["loss_name"] == kind else [f"{name}: the loss is named {kind!r}, not {u['loss_name']!r}"]
    if u["prior_name"] != "uniform" or prior != [Q(1, n + 1)] * (n + 1):
        return [*out, f"{name}: a bracketed optimum is for the uniform prior, and this prior is not uniform"]
    optimum = _keys(u["optimum"], f"{where}.optimum", {"lower", "upper"})
    low = _keys(optimum["lower"], f"{where}.optimum.lower", LOWER)
    high = _keys(optimum["upper"], f"{where}.optimum.upper", UPPER)
    ends = [_f(side["alpha"], f"{where}.optimum.{key}.alpha") for key, side in (("lower", low), ("upper", high))]
    for key, end in zip(("lower", "upper"), ends):
        if not 0 < end < 1:
            raise Malformed(f"{where}.optimum.{key}.alpha: {end} is not in (0, 1)")
        if not numbers_fit(end, n):  # before any arithmetic at that α
            raise Malformed(f"{where}.optimum.{key}.alpha: the optimum's numbers at α = {end} pass the digit limit")
    if not ends[0] <= alpha <= ends[1]:
        out.append(f"{name}: the bracket's α_lo = {ends[0]} and α_hi = {ends[1]} do not enclose the DP level α")
    value_low = _f(low["value"], f"{where}.optimum.lower.value")
    value_high = _f(high["value"], f"{where}.optimum.upper.value")
    steps_low = _guesses(low["t_optimal_remap"], f"{where}.optimum.lower.t_optimal_remap", list(range(n + 1)), n)
    steps_high = _guesses(high["t_optimal_remap"], f"{where}.optimum.upper.t_optimal_remap", list(range(n + 1)), n)
    dual = [_f(v, f"{where}.optimum.lower.dual") for v in _list(low["dual"], f"{where}.optimum.lower.dual", n + 1)]
    b = _t_losses(kind, ends[0], steps_low, n)
    rays = _rays(dual, b, steps_low, ends[0])
    if not (value_low == sum(dual, Q(0)) and _dual_feasible(prior, dual, kind, ends[0], rays)):
        out.append(f"{name}: the lower end's optimality certificate at α_lo = {ends[0]} does not check")
    if sum(b, Q(0)) != value_low:
        out.append(f"{name}: T at α_lo with the recorded remap does not reach the lower end (GRS Thm 3.1)")
    if sum(_t_losses(kind, ends[1], steps_high, n), Q(0)) != value_high:
        out.append(f"{name}: T at α_hi with the recorded remap does not lose the upper end's value")
    bracket = _keys(u["mechanism"], f"{where}.mechanism", {"lower", "upper"})
    mine = [_f(bracket[k], f"{where}.mechanism.{k}") for k in ("lower", "upper")]
    guess = _guesses(u["optimal_remap"], f"{where}.optimal_remap", outputs, n)
    loss = _enclosed_loss(kind, m, bounds, guess, n)
    if loss is None:
        out.append(f"{name}: the recorded remap is not optimal for the mechanism")
    elif not (mine[0] <= _exact_float(loss[0]) and _exact_float(loss[1]) <= mine[1]):
        out.append(f"{name}: the mechanism's loss with its optimal remap is not in the recorded bracket")
    excess = {"lower": max(mine[0] - value_high, Q(0)), "upper": mine[1] - value_low}
    if _keys(u["excess"], f"{where}.excess", {"lower", "upper"}) and any(
        _f(u["excess"][k], f"{where}.excess.{k}") != v for k, v in excess.items()
    ):
        out.append(f"{name}: the excess is not the mechanism's bracket minus the optimum's")
    # value_high ≥ value_low > 0 in a certificate that holds; a forged 0 upper end is a failure above, not a crash
    ratio = None if value_low == 0 or value_high == 0 else {"lower": mine[0] / value_high, "upper": mine[1] / value_low}
    recorded = u["ratio"]
    if (recorded is None) != (ratio is None) or (
        ratio is not None
        and _keys(recorded, f"{where}.ratio", {"lower", "upper"})
        and any(_f(recorded[k], f"{where}.ratio.{k}") != v for k, v in ratio.items())
    ):
        out.append(f"{name}: the ratio is not the mechanism's bracket over the optimum's")
    return out


def _enclosed_loss(
    kind: str, m: IntRows, bounds: tuple[Any, Any], guess: list[int], n: int
) -> tuple[float, float] | None:
    """Floats enclosing Σ_i Σ_r w[i][r]·l(i, guess[r]), w = x/(n + 1) within ``bounds``, or None when
    a guess is not a least-loss guess of its column (decided on floats, the open columns in integers)."""
    import numpy as np

    lo, hi = bounds
    with np.errstate(all="ignore"):
        g = np.array(guess)
        columns = np.arange(len(guess))
        proved, disproved = _guess_signs(kind, lo, hi, g, columns, n)
    if disproved.any():
        return None
    common = math.lcm(*m.den) if not proved.all() else 1  # the open columns over one denominator
    for r in (~proved).nonzero()[0]:
        weights = [row[r] * (common // d) for row, d in zip(m.num, m.den)]
        least, at = _column_losses(kind, weights, (guess[r],), None)
        if at[0] != least:
            return None
    offsets = np.arange(n + 1)[:, None] - g[None, :]
    losses = np.abs(offsets) if kind == "absolute" else offsets**2 if kind == "squared" else offsets != 0
    return _sum_bounds(np.nextafter(lo * losses, -np.inf), np.nextafter(hi * losses, np.inf))


def _exact_float(x: Any) -> Q:
    """A float's exact value."""
    return Q(*float(x).as_integer_ratio())


def _sum_bounds(lower: Any, upper: Any, axis: int | None = None) -> tuple[Any, Any]:
    """Bounds on Σ t (along ``axis``) for reals 0 ≤ t within [lower, upper]: a float sum of N ≥ 0
    terms, in any order, is within (N·2⁻⁵²)·Σ of the exact one."""
    import numpy as np

    size = lower.size if axis is None else lower.shape[axis]
    g = size * 2.0**-52
    low = np.sum(np.maximum(lower, 0.0), axis=axis) * (1 - g)
    high = np.sum(upper, axis=axis) * (1 + 2 * g)
    return np.nextafter(low, -np.inf), np.nextafter(high, np.inf)


def _guess_signs(kind: str, lo: Any, hi: Any, g: Any, columns: Any, n: int) -> tuple[Any, Any]:
    """Per column: the guess proved a least-loss guess on the floats; proved not one."""
    import numpy as np

    if kind == "binary":  # a mode: w_g ≥ w_i for every i
        rivals_hi, rivals_lo = hi.copy(), lo.copy()
        rivals_hi[g, columns] = rivals_lo[g, columns] = -np.inf
        return lo[g, columns] >= rivals_hi.max(axis=0), hi[g, columns] < rivals_lo.max(axis=0)
    total_lo, total_hi = _sum_bounds(lo, hi, 0)
    if kind == "absolute":  # 2·A_g ≤ W (g > 0) and 2·A_{g+1} ≥ W (g < n), A_j = Σ_{i<j} w_i
        size = 2.0**-52 * (n + 1)
        below_lo = np.nextafter(np.cumsum(np.maximum(lo, 0.0), axis=0) * (1 - size), -np.inf)  # A_{j+1}
        below_hi = np.nextafter(np.cumsum(hi, axis=0) * (1 + 2 * size), np.inf)
        zero = np.zeros((1, lo.shape[1]))
        below_lo, below_hi = np.vstack([zero, below_lo]), np.vstack([zero, below_hi])  # A_0 = 0
        left_lo, left_hi = 2 * below_lo[g, columns], 2 * below_hi[g, columns]
        right_lo, right_hi = 2 * below_lo[g + 1, columns], 2 * below_hi[g + 1, columns]
        proved = ((g == 0) | (left_hi <= total_lo)) & ((g == n) | (right_lo >= total_hi))
        disproved = ((g > 0) & (left_lo > total_hi)) | ((g < n) & (right_hi < total_lo))
        return proved, disproved
    rows = np.arange(n + 1, dtype=float)[:, None]  # squared: (2g − 1)·W ≤ 2·S₁ ≤ (2g + 1)·W
    first_lo, first_hi = _sum_bounds(np.nextafter(rows * lo, -np.inf), np.nextafter(rows * hi, np.inf), 0)
    below, above = 2 * g - 1, 2 * g + 1
    left_hi, left_lo = np.nextafter(below * total_hi, np.inf), np.nextafter(below * total_lo, -np.inf)
    right_lo, right_hi = np.nextafter(above * total_lo, -np.inf), np.nextafter(above * total_hi, np.inf)
    proved = ((g == 0) | (left_hi <= 2 * first_lo)) & ((g == n) | (2 * first_hi <= right_lo))
    disproved = ((g > 0) & (left_lo > 2 * first_hi)) | ((g < n) & (2 * first_lo > right_hi))
    return proved, disproved
