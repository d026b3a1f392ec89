"""The privacy parameter α = e^(−ε) as an exact object, and numbers that are polynomials in it.

Schmutte–Yoder state privacy in ε; their privacy sets (SY eqs. (4), (7)), the vertices of those
sets (π₀·α^g, see :mod:`mechlib.infodesign.privacy_sets`) and the posteriors of the geometric mechanism are
polynomials in α with rational coefficients (``flint.fmpq_poly``). A comparison is the sign of
such a polynomial p at α, decided exactly:

* α rational: evaluate p(α) in rationals;
* α = e^(−ε) with ε ≠ 0 rational: α is transcendental (Lindemann–Weierstrass), so p(α) = 0 iff p
  is the zero polynomial; otherwise evaluate p on an arb ball at doubling precision until the
  ball excludes 0, which must happen.

Either way no float decides anything.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import flint

from mechlib.core.exact import format_fraction, to_fraction
from mechlib.core.privacy import arb_precision, to_arb
from mechlib.errors import InputError

Poly = flint.fmpq_poly

#: The polynomial "α".
X = flint.fmpq_poly([0, 1])


def const(value: object) -> Poly:
    """The constant polynomial with the exact value ``value`` (int, Fraction, "p/q", "0.1")."""
    if isinstance(value, flint.fmpq_poly):
        return value
    f = to_fraction(value)
    return flint.fmpq_poly([flint.fmpq(f.numerator, f.denominator)])


def poly_sum(terms: Iterable[Poly]) -> Poly:
    total = flint.fmpq_poly([])
    for term in terms:
        total += term
    return total


def as_fraction(p: Poly) -> Fraction:
    """A constant polynomial's value; raises if p depends on α."""
    if p.degree() > 0:
        raise ValueError(f"{p} depends on α")
    c = p.coeffs()
    return Fraction(int(c[0].p), int(c[0].q)) if c else Fraction(0)


@dataclass(frozen=True)
class Alpha:
    """α ∈ (0, 1): either a rational number or e^(−ε) for a rational ε > 0."""

    rational: Fraction | None = None
    epsilon: Fraction | None = None

    @classmethod
    def of(cls, value: object) -> Alpha:
        """α given exactly (``"1/2"``, ``Fraction(1, 3)``)."""
        a = to_fraction(value)
        if not 0 < a < 1:
            raise InputError(f"got alpha={format_fraction(a)}", hint="expected 0 < alpha < 1")
        return cls(rational=a)

    @classmethod
    def exp(cls, epsilon: object) -> Alpha:
        """α = e^(−ε) for an exact ε > 0 (``Alpha.exp(1)``)."""
        e = to_fraction(epsilon)
        if e <= 0:
            raise InputError(f"got epsilon={format_fraction(e)}", hint="expected epsilon > 0")
        return cls(epsilon=e)

    def __str__(self) -> str:
        if self.rational is not None:
            return format_fraction(self.rational)
        return f"e^-{format_fraction(self.epsilon or Fraction(0))}"

    def ball(self, p: Poly, bits: int = 128) -> flint.arb:
        """An arb ball containing p(α), at ``bits`` of working precision."""
        with arb_precision(bits):
            x = to_arb(self.rational) if self.rational is not None else (-to_arb(self.epsilon or Fraction(0))).exp()
            value = flint.arb(0)
            for c in reversed(p.coeffs()):
                value = value * x + flint.arb(c)
            return value

    def sign(self, p: Poly) -> int:
        """The exact sign (−1, 0, 1) of p(α)."""
        if p.degree() < 0:  # the zero polynomial
            return 0
        if self.rational is not None:
            v = p(flint.fmpq(self.rational.numerator, self.rational.denominator))
            return (v > 0) - (v < 0)
        bits = 128
        while True:
            ball = self.ball(p, bits)
            if ball > 0:
                return 1
            if ball < 0:
                return -1
            bits *= 2

    def at_least(self, p: Poly, q: Poly) -> bool:
        """p(α) ≥ q(α), exactly."""
        return self.sign(p - q) >= 0

    def value(self, p: Poly) -> Fraction | str:
        """p(α) exactly if α is rational, else a 20-digit decimal enclosure (for reports)."""
        if self.rational is not None:
            v = p(flint.fmpq(self.rational.numerator, self.rational.denominator))
            return Fraction(int(v.p), int(v.q))
        return self.ball(p, 128).str(20, radius=False)


def exp_bounds(epsilon: Fraction, digits: int = 12) -> tuple[Fraction, Fraction]:
    """Rationals E_lo < e^ε < E_hi, 10^−digits apart, checked with arb (a float only suggests)."""
    with arb_precision(4 * digits + 64):
        e = to_arb(epsilon).exp()
        scale = 10**digits
        lo = Fraction(math.floor(Fraction(e.str(digits + 10, radius=False)) * scale) - 1, scale)
        hi = lo + Fraction(2, scale)
        if not to_arb(lo) < e < to_arb(hi):
            raise ArithmeticError(f"could not separate e^{epsilon} from its rational bounds")
        return lo, hi
