"""Rigorous float intervals, vectorised with numpy: a sound filter in front of exact arithmetic.

Under IEEE 754 round-to-nearest (numpy's only mode) a sum or product of two floats is within half
an ulp of the exact result, so one ulp outward (``np.nextafter``) gives a float below (``down``)
or above (``up``) the exact value — also on overflow (an exact value beyond the largest float
rounds to ±inf, stepped back to ±max: still on the right side) and among subnormals. An interval
[lo, hi] carried this way contains the exact value, as an arb ball does: a comparison it decides
is proved; one it cannot decide (the interval meets the threshold, or is NaN) is left to exact
integers. A ``Fraction`` enters through ``float()``, which is correctly rounded, then one ulp
each way.

The recursions below run on many vectors at once — column j of the (n + 1) × m arrays
``lo``/``hi`` encloses the vector w^(j) = (w_0, …, w_n) — and work on the α-DP cone
{x ≥ 0 : α·x_i ≤ x_{i+1} ≤ x_i/α} of one column of an α-DP mechanism (0 < α < 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

Array = Any  # numpy float64 arrays


def down(x: Array) -> Array:
    """A float ≤ the exact result that rounded to nearest gave ``x``."""
    return np.nextafter(x, -np.inf)


def up(x: Array) -> Array:
    """A float ≥ the exact result that rounded to nearest gave ``x``."""
    return np.nextafter(x, np.inf)


def enclose(values: Sequence[Fraction]) -> tuple[Array, Array] | None:
    """Arrays lo ≤ v ≤ hi, entry by entry, for exact values; None if one is beyond a float."""
    try:
        nearest = np.array([float(v) for v in values], dtype=float)
    except OverflowError:
        return None
    return down(nearest), up(nearest)


def _factors(alpha: Fraction) -> tuple[float, float, float, float] | None:
    """Floats a_lo ≤ α ≤ a_hi and b_lo ≤ 1/α ≤ b_hi; None when 1/α is beyond a float."""
    bounds = enclose([alpha, 1 / alpha])
    if bounds is None:
        return None
    (a_lo, b_lo), (a_hi, b_hi) = bounds
    return float(a_lo), float(a_hi), float(b_lo), float(b_hi)


def cone_minimum_signs(lo: Array, hi: Array, alpha: Fraction) -> Array:
    """The sign of min{w·x : x in the cone, x_0 = 1} per column: the recursion of
    ``optimal.cone_nonnegative`` (F_n = w_n, F_i = w_i + φ(F_{i+1}), φ(F) = αF if F ≥ 0 else F/α)
    on intervals. φ is increasing, so [φ(lo), φ(hi)] encloses φ of the interval.

    An int8 array: 1 where F_0 ≥ 0 is proved, −1 where F_0 < 0 is proved, 0 where it is open."""
    factors = _factors(alpha)
    if factors is None:
        return np.zeros(lo.shape[1:], dtype=np.int8)
    a_lo, a_hi, b_lo, b_hi = factors
    with np.errstate(all="ignore"):
        f_lo, f_hi = lo[-1], hi[-1]
        for k in range(lo.shape[0] - 2, -1, -1):
            phi_lo = np.where(f_lo >= 0, down(a_lo * f_lo), down(b_hi * f_lo))  # F < 0: the larger factor is lower
            phi_hi = np.where(f_hi >= 0, up(a_hi * f_hi), up(b_lo * f_hi))
            f_lo, f_hi = down(lo[k] + phi_lo), up(hi[k] + phi_hi)
        return np.where(f_lo >= 0, 1, np.where(f_hi < 0, -1, 0)).astype(np.int8)


def ray_is_a_minimiser(lo: Array, hi: Array, alpha: Fraction, ray: Array) -> Array:
    """Per column j with ``ray[j]`` = r ≥ 0 and w·x^(r) = 0 exactly — x^(r)_i = α^|i−r|, the
    shape of T's column r; the caller guarantees the identity — whether the cone recursion
    provably takes x^(r)'s branch at every step, so that min{w·x} = w·x^(r) = 0 (the column is
    nonnegative on the cone). With G_k = Σ_{i ≥ k} w_i x_i / x_k along x^(r), F = G by induction
    from F_n = G_n when G_{k} ≥ 0 for k > r (the α branch) and G_k ≤ 0 for 1 ≤ k ≤ r (the 1/α
    branch; either branch when G = 0). Both are evaluated by contracting recursions, so no error
    is amplified: G_n = w_n, G_k = w_k + α·G_{k+1} for k > r; and, since w·x^(r) = 0,
    G_k = −H_k with H_1 = α·w_0, H_{k+1} = α·(H_k + w_k), needing H_k ≥ 0 for 1 ≤ k ≤ r.

    A bool array: True where proved (columns with ``ray[j]`` < 0 are False)."""
    factors = _factors(alpha)
    if factors is None:
        return np.zeros(lo.shape[1:], dtype=bool)
    a_lo, a_hi, _, _ = factors
    rows = lo.shape[0]
    ok = ray >= 0
    with np.errstate(all="ignore"):
        g_lo = lo[-1]  # only lower ends are needed: G ≥ 0 and H ≥ 0
        for k in range(rows - 1, 0, -1):  # G_k for k = n..1, required where k > r
            if k < rows - 1:
                g_lo = down(lo[k] + np.where(g_lo >= 0, down(a_lo * g_lo), down(a_hi * g_lo)))
            ok &= (k <= ray) | (g_lo >= 0)
        h_lo: Array = np.where(lo[0] >= 0, down(a_lo * lo[0]), down(a_hi * lo[0]))  # H_1
        for k in range(1, rows):  # H_k for k = 1..n, required where k ≤ r
            ok &= (k > ray) | (h_lo >= 0)
            s = down(h_lo + lo[k])
            h_lo = np.where(s >= 0, down(a_lo * s), down(a_hi * s))
        return ok  # a NaN bound compares False: not proved
