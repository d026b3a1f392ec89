"""Rényi divergences of a finite mechanism and its tightest zCDP ρ, bounded rigorously with arb.

D_λ(P ‖ Q) = ln(Σ_r p_r^λ q_r^(1−λ)) / (λ − 1) for λ > 1 (Mironov, "Rényi differential privacy",
2017, Def. 3), D_1 = KL(P ‖ Q) = Σ_r p_r ln(p_r/q_r); ∞ when some q_r = 0 < p_r. A mechanism is
ρ-zCDP iff D_λ(x_i ‖ x_i′) ≤ ρ·λ for every λ > 1 and ordered neighbouring pair (Bun–Steinke 2016,
Def. 1.1, with ξ = 0), so over a range [λ_lo, λ_hi] the tightest ρ is sup_λ D(λ)/λ with
D(λ) = max over pairs of D_λ.

D_λ is non-decreasing in λ (van Erven–Harremoës 2014, Thm 3), so on a cell [a, b] of a grid
D(λ)/λ ≤ D(b)/a: the grid's cells bound the supremum from above, its points from below.
``zcdp_rho`` refines the grid where the two bounds differ until they agree to a relative
``tolerance``; every value is an arb ball, so both bounds are rigorous.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint

from mechlib.core.exact import format_decimal
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import arb_bounds, arb_precision, to_arb

#: Working precision (bits) of the arb balls.
PRECISION = 128
#: Decimal places of the bracket's ends (rounded outward).
DIGITS = 12
#: The bracket's aim: hi ≤ lo·(1 + TOLERANCE), refining up to MAX_POINTS grid points (else wider, and said so).
TOLERANCE = Fraction(1, 1000)
MAX_POINTS = 400


def renyi_divergence(p: Sequence[Fraction], q: Sequence[Fraction], order: Fraction) -> flint.arb | None:
    """D_λ(P ‖ Q) as an arb ball (λ = ``order`` ≥ 1, exact; 1 is KL), or None when it is ∞."""
    return _divergence(_logs(p), _logs(q), to_arb(order), order == 1)


def _logs(row: Sequence[Fraction]) -> list[tuple[flint.arb, flint.arb] | None]:
    """(x, ln x) per entry as arb balls, None for 0."""
    return [(to_arb(x), to_arb(x).log()) if x > 0 else None for x in row]


def _divergence(
    p: Sequence[tuple[flint.arb, flint.arb] | None],
    q: Sequence[tuple[flint.arb, flint.arb] | None],
    lam: flint.arb,
    kl: bool,
) -> flint.arb | None:
    total = flint.arb(0)
    for a, b in zip(p, q):
        if a is None:
            continue
        if b is None:
            return None  # p_r > 0 = q_r
        if kl:
            total += a[0] * (a[1] - b[1])
        else:
            total += (b[1] + lam * (a[1] - b[1])).exp()
    return total if kl else total.log() / (lam - 1)


@dataclass(frozen=True)
class RhoBracket:
    """lo ≤ sup_{λ ∈ [grid[0], grid[-1]]} D(λ)/λ ≤ hi (exact rationals), with the grid whose cells
    give hi and the point (λ, ordered pair of row positions) whose value gives lo; ``lo``/``hi``
    None: D is infinite (some output of one row is impossible under a neighbour)."""

    grid: tuple[Fraction, ...]
    lo: Fraction | None
    hi: Fraction | None
    attained: tuple[Fraction, tuple[int, int]] | None


_Logs = list[tuple[flint.arb, flint.arb] | None]


#: Per ordered pair (row positions), its likelihood ratios' masses (a_g, b_g): x[r] = a_g/d_x and
#: y[r] = b_g/d_y summed over the outputs of one ratio x[r]/y[r] (those x never gives left out).
RatioGroups = dict[tuple[int, int], list[tuple[int, int]]]


def ratio_groups(mechanism: Mechanism) -> RatioGroups:
    """Each ordered neighbour pair's outputs merged by likelihood ratio (masses added): D_λ sums a
    function of the ratio p_r/q_r times q_r (times p_r for KL) over the outputs, so it is the same
    sum over the merged ones. T, randomized response and the exponential mechanism have two or three
    ratios per neighbouring pair, so D_λ costs as many exponentials, not one per output. In integers
    (over the row denominators); an output y never gives stays a group of its own (D = ∞)."""
    num, _ = mechanism.scaled()
    out: RatioGroups = {}
    for x, y in mechanism.ordered_neighbour_positions:
        groups: dict[tuple[int, int], list[int]] = {}
        for a, b in zip(num[x], num[y], strict=True):
            if a:
                g = math.gcd(a, b)
                mass = groups.setdefault((a // g, b // g), [0, 0])
                mass[0], mass[1] = mass[0] + a, mass[1] + b
        out[x, y] = [(a, b) for a, b in groups.values()]
    return out


def _grouped(mechanism: Mechanism, groups: RatioGroups) -> dict[tuple[int, int], tuple[_Logs, _Logs]]:
    """Each pair's merged rows as ``_logs`` gives them (value and log balls)."""
    _, den = mechanism.scaled()
    return {
        (x, y): (_logs([Fraction(a, den[x]) for a, _ in pair]), _logs([Fraction(b, den[y]) for _, b in pair]))
        for (x, y), pair in groups.items()
    }


def _max_over_pairs(
    logs: dict[tuple[int, int], tuple[_Logs, _Logs]], order: Fraction
) -> tuple[flint.arb, tuple[int, int]] | None:
    """The largest D_λ over the (nonempty) ordered pairs of ``logs`` (their merged rows, ``_grouped``;
    None: ∞) — the ball with the largest upper end and its pair; its lower end is a lower bound
    of the max, its upper end an upper bound."""
    best: tuple[flint.arb, tuple[int, int]] | None = None
    lam = to_arb(order)
    for (x, y), (p, q) in logs.items():
        d = _divergence(p, q, lam, order == 1)
        if d is None:
            return None
        if best is None or d.upper() > best[0].upper():
            best = (d, (x, y))
    return best


def zcdp_rho(
    mechanism: Mechanism,
    lo: Fraction,
    hi: Fraction,
    *,
    tolerance: Fraction = TOLERANCE,
    max_points: int = MAX_POINTS,
    groups: RatioGroups | None = None,
) -> RhoBracket:
    """Bracket the tightest ρ with D_λ ≤ ρ·λ for λ ∈ [lo, hi] (1 ≤ lo < hi), refining the grid
    (midpoints of the cells whose bound is too high, rounded to short rationals) until
    hi ≤ lo·(1 + tolerance) or ``max_points`` grid points. ``groups``: ``ratio_groups(mechanism)``,
    when the caller has it already."""
    if not 1 <= lo < hi:
        raise ValueError(f"expected 1 ≤ lo < hi, got lo={lo}, hi={hi}")
    pairs = mechanism.ordered_neighbour_positions
    grid = [lo + (hi - lo) * Fraction(k, 16) ** 2 for k in range(17)]  # denser near λ = 1
    if not pairs:
        return RhoBracket(tuple(grid), Fraction(0), Fraction(0), None)
    with arb_precision(PRECISION):
        logs = _grouped(mechanism, ratio_groups(mechanism) if groups is None else groups)
        values: dict[Fraction, tuple[flint.arb, tuple[int, int]]] = {}
        while True:
            for lam in grid:
                if lam not in values:
                    found = _max_over_pairs(logs, lam)
                    if found is None:
                        return RhoBracket(tuple(grid), None, None, None)
                    values[lam] = found
            # D_λ ≥ 0: a ball's lower end below 0 (ρ = 0, rows equal) is 0, never a negative ρ
            lower = {lam: max(Fraction(0), _rational(values[lam][0] / to_arb(lam), up=False)) for lam in grid}
            best = max(grid, key=lambda lam: lower[lam])
            uppers = [_rational(values[b][0] / to_arb(a), up=True) for a, b in itertools.pairwise(grid)]
            top = max(uppers)
            if top <= lower[best] * (1 + tolerance) or len(grid) >= max_points:
                return RhoBracket(tuple(grid), lower[best], top, (best, values[best][1]))
            bar = lower[best] * (1 + tolerance)
            split = [k for k, u in enumerate(uppers) if u > bar][: max_points - len(grid)]
            for k in reversed(split):
                a, b = grid[k], grid[k + 1]
                grid.insert(k + 1, _short_between(a, b))


def _short_between(a: Fraction, b: Fraction) -> Fraction:
    """A rational strictly inside (a, b) near the midpoint, with a short denominator."""
    mid = (a + b) / 2
    short = mid.limit_denominator(int(8 / (b - a)) + 2)
    return short if a < short < b else mid


def _rational(value: flint.arb, *, up: bool) -> Fraction:
    """An exact decimal (12 places) at or beyond the ball's upper (``up``) or lower end."""
    lo, hi = arb_bounds(value)
    return Fraction(format_decimal(hi if up else lo, DIGITS, up=up))
