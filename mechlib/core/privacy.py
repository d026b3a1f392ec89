"""Exact differential privacy of a mechanism (GRS §2.1, GS Definition 2).

X is α-DP iff α·x[i][r] ≤ x[i'][r] for all neighbouring inputs i, i' (both orders) and every
output r. ``dp_level`` finds the tightest α exactly: the smallest ratio min(u,v)/max(u,v) over
neighbouring pairs and outputs, with 0/0 read as 1 and 0 beside a nonzero giving 0.

Claims about ε (α = e^(−ε), irrational for rational ε ≠ 0) are decided with python-flint's
``arb`` balls, whose comparisons are rigorous: precision rises until the answer is certain.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import count
from typing import TYPE_CHECKING

from mechlib.core.exact import format_decimal, format_fraction
from mechlib.core.mechanism import Mechanism
from mechlib.core.stochastic import Label

if TYPE_CHECKING:
    import flint


@dataclass(frozen=True)
class DPWitness:
    """Where the DP level is attained: x[smaller][output] = α·x[larger][output]."""

    larger: Label
    smaller: Label
    output: Label
    larger_probability: Fraction
    smaller_probability: Fraction

    @property
    def ratio(self) -> Fraction:
        if self.larger_probability == 0:
            return Fraction(1)
        return self.smaller_probability / self.larger_probability

    def to_json(self) -> dict[str, object]:
        return {
            "inputs": [self.larger, self.smaller],
            "output": self.output,
            "probabilities": [format_fraction(self.larger_probability), format_fraction(self.smaller_probability)],
            "ratio": format_fraction(self.ratio),
        }


@dataclass(frozen=True)
class DPLevel:
    """The tightest α for which a mechanism is α-DP, and where it is attained.

    ``witness`` is None only when the mechanism has no neighbouring inputs (α = 1, vacuous).
    """

    alpha: Fraction
    witness: DPWitness | None

    def epsilon_bounds(self, digits: int = 12) -> tuple[Fraction, Fraction] | None:
        """Exact rationals lo ≤ ε = ln(1/α) ≤ hi, or None when α = 0 (ε = ∞)."""
        return epsilon_bounds(self.alpha, digits)


def dp_level(mechanism: Mechanism) -> DPLevel:
    """The exact tightest α with ``mechanism`` α-DP, and a witness (i, i', r) attaining it.

    Runs over every neighbouring pair and output once, on the integer numerators; the running
    minimum is a reduced fraction, so against a mechanism like T each step is a product of a
    big integer with a small one.
    """
    num, den = mechanism.scaled()
    best_num, best_den = 1, 1
    found: tuple[int, int, int] | None = None
    for a, b in mechanism.neighbour_positions:
        row_a, row_b = num[a], num[b]
        if found is None:  # α = 1 unless a ratio below 1 turns up: then an output both rows give (never 0/0)
            found = (a, b, next(r for r, u in enumerate(row_a) if u))
        cells: Iterable[tuple[int, int, int]]
        if den[a] != den[b]:  # bring the cells that may lower α over the denominator den[a]·den[b]
            outputs = _candidates(row_a, row_b, _quotient(den[b], den[a]), best_num / best_den)
            cells = ((r, row_a[r] * den[b], row_b[r] * den[a]) for r in outputs)
        else:
            cells = zip(count(), row_a, row_b)
        for r, u, v in cells:
            lo, hi = (u, v) if u <= v else (v, u)
            if lo * best_den < hi * best_num:
                g = math.gcd(lo, hi)
                best_num, best_den = lo // g, hi // g
                found = (a, b, r)
                if best_num == 0:
                    return DPLevel(Fraction(0), _witness(mechanism, found))
    if found is None:
        return DPLevel(Fraction(1), None)
    return DPLevel(Fraction(best_num, best_den), _witness(mechanism, found))


#: Relative error allowed for the float screen of ``_candidates`` (each estimate is within 2⁻⁵⁰ of its ratio).
_SCREEN = 1e-12


def _candidates(row_a: Sequence[int], row_b: Sequence[int], scale: float, best: float) -> list[int]:
    """The outputs r at which the ratio min(p, q)/max(p, q) of p = row_a[r]·s, q = row_b[r] (s =
    ``scale``, den_b/den_a as a float) may be below the running minimum ``best`` — every output
    whose ratio is not above it, so the exact minimum over the rest is the same. Each ratio is
    estimated from correctly rounded int/int quotients (a relative error within 2⁻⁵⁰ for normal
    floats) and screened out only when above ``best``·(1 + 10⁻¹²); zeros, and quotients outside
    the normal range, are kept for the exact comparison. Rows over different denominators (the
    exponential mechanism's) then cost a division per output, not two products of long integers."""
    if not 1e-290 < scale < 1e290:
        return list(range(len(row_a)))
    bar = best * (1 + _SCREEN)
    kept = []
    for r, (x, y) in enumerate(zip(row_a, row_b)):
        if x and y:
            ratio = _quotient(x, y) * scale
            if 1e-290 < ratio < 1e290 and min(ratio, 1 / ratio) > bar:
                continue
        kept.append(r)
    return kept


def _quotient(x: int, y: int) -> float:
    """x/y correctly rounded (CPython's int division), ∞ past the float range."""
    try:
        return x / y
    except OverflowError:
        return math.inf


def _witness(mechanism: Mechanism, found: tuple[int, int, int]) -> DPWitness:
    a, b, r = found
    num, den = mechanism.scaled()
    pa, pb = Fraction(num[a][r], den[a]), Fraction(num[b][r], den[b])
    if pa < pb:
        a, b, pa, pb = b, a, pb, pa
    return DPWitness(mechanism.inputs[a], mechanism.inputs[b], mechanism.outputs[r], pa, pb)


def is_dp(mechanism: Mechanism, alpha: object) -> bool:
    """True iff ``mechanism`` is α-DP (α exact in [0, 1])."""
    from mechlib.core.exact import parse_probability

    return dp_level(mechanism).alpha >= parse_probability(alpha)


# -- ε = ln(1/α), decided rigorously --------------------------------------------------------


def arb_bounds(ball: object) -> tuple[Fraction, Fraction]:
    lo_m, lo_e = ball.lower().man_exp()  # type: ignore[attr-defined]
    hi_m, hi_e = ball.upper().man_exp()  # type: ignore[attr-defined]
    return _dyadic(int(lo_m), int(lo_e)), _dyadic(int(hi_m), int(hi_e))


def _dyadic(mantissa: int, exponent: int) -> Fraction:
    return Fraction(mantissa * 2**exponent) if exponent >= 0 else Fraction(mantissa, 2**-exponent)


def epsilon_bounds(alpha: Fraction, digits: int = 12) -> tuple[Fraction, Fraction] | None:
    """Exact rationals lo ≤ ln(1/α) ≤ hi with hi − lo < 10^(−digits); None for α = 0."""

    if alpha == 0:
        return None
    if alpha == 1:
        return Fraction(0), Fraction(0)
    prec = 64 + 4 * digits
    while True:
        with arb_precision(prec):
            ball = -to_arb(alpha).log()
            lo, hi = arb_bounds(ball)
        if hi - lo < Fraction(1, 10**digits):
            return max(lo, Fraction(0)), hi  # ε > 0 for α < 1: a ball's lower end may dip below 0 as α → 1
        prec *= 2


def epsilon_interval(alpha: Fraction) -> list[str] | None:
    """ε = ln(1/α) as [lo, hi], decimals rounded outward to 15 places (the reports' form); None
    when α = 0 (ε = ∞)."""
    bounds = epsilon_bounds(alpha)
    return None if bounds is None else [format_decimal(bounds[0], 15, up=False), format_decimal(bounds[1], 15, up=True)]


def alpha_at_least_exp_minus(alpha: Fraction, epsilon: Fraction) -> bool:
    """Decide α ≥ e^(−ε) exactly, i.e. whether an α-DP mechanism is ε-DP (ε ≥ 0 rational).

    e^(−ε) is irrational for rational ε ≠ 0 (Lindemann), so equality only happens at ε = 0,
    and raising the precision always settles the comparison.
    """

    if epsilon == 0:
        return alpha == 1
    prec = 128
    while True:
        with arb_precision(prec):
            target = (-to_arb(epsilon)).exp()
            mine = to_arb(alpha)
            if mine > target:
                return True
            if mine < target:
                return False
        prec *= 2


def to_arb(value: Fraction) -> flint.arb:
    """The exact rational as an (exact) arb ball."""
    import flint

    return flint.arb(flint.fmpq(value.numerator, value.denominator))


class arb_precision:
    """Set python-flint's working precision (bits) for a block, and restore it after."""

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def __enter__(self) -> None:
        import flint

        self.saved = flint.ctx.prec
        flint.ctx.prec = self.bits

    def __exit__(self, *exc: object) -> None:
        import flint

        flint.ctx.prec = self.saved
