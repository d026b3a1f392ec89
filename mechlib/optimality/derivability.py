"""Derivability from the truncated geometric mechanism (GS §3, Theorem 2 and Lemma 2).

M is derivable from T = G_{n,α} (M = Y∘T for a stochastic remap Y) iff Y = T⁻¹M ≥ 0. T⁻¹ is
tridiagonal in closed form: first row [1, −α]/(1−α), interior rows [−α, 1+α², −α]/(1−α)²,
last row [−α, 1]/(1−α). So, column by column of M (entries x), GS's conditions read:

* row 0:        x₀ − α·x₁ ≥ 0                        (GS Lemma 2.1)
* row n:        x_n − α·x_{n−1} ≥ 0                  (GS Lemma 2.2)
* row 0<r<n:    (1+α²)·x_r − α·(x_{r−1} + x_{r+1}) ≥ 0 (GS Theorem 2, the three-term condition)

For an α-DP M the two boundary conditions hold automatically; the interior ones need not
(GS Appendix B). Everything is exact; rows of T⁻¹M sum to 1 because T⁻¹ is a generalized
stochastic matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from mechlib.core.exact import format_fraction, parse_probability
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import IntRows, Label
from mechlib.errors import InputError


@dataclass(frozen=True)
class DerivabilityViolation:
    """Row ``row`` of T⁻¹M is negative in column ``output``: GS's condition fails there.

    ``value`` is the condition's left-hand side (x₀ − αx₁, x_n − αx_{n−1}, or the three-term
    (1+α²)x_r − α(x_{r−1}+x_{r+1})); ``entry`` is the entry of T⁻¹M, ``value`` divided by
    (1−α) at the boundary rows and (1−α)² inside.
    """

    row: int
    output: Label
    value: Fraction
    entry: Fraction
    condition: str

    def to_json(self) -> dict[str, object]:
        return {
            "row": self.row,
            "output": self.output,
            "condition": self.condition,
            "value": format_fraction(self.value),
            "entry": format_fraction(self.entry),
        }


@dataclass(frozen=True)
class Derivation:
    """The verdict of ``derivation_witness``: a remap Y with Y∘T = M, or where T⁻¹M < 0."""

    alpha: Fraction
    remap: Remap | None
    violation: DerivabilityViolation | None

    @property
    def derivable(self) -> bool:
        return self.remap is not None


@dataclass(frozen=True)
class TBasis:
    """T = G_{n,α} (GRS Example 2.2) and its closed-form inverse (GS Lemma 2), each built at most
    once and shared by every analysis of one mechanism (derivation, dominance, users' remaps).

    ``alpha`` is already an exact ``Fraction`` in [0, 1): it is parsed once, by the caller.
    """

    alpha: Fraction
    n: int

    def __post_init__(self) -> None:
        if not isinstance(self.alpha, Fraction) or not 0 <= self.alpha < 1:
            raise InputError(f"alpha={self.alpha!r}", hint="T's basis needs an exact 0 ≤ α < 1")

    @cached_property
    def t(self) -> Mechanism:
        from mechlib.core.families import truncated_geometric

        return truncated_geometric(self.alpha, self.n)

    @cached_property
    def inverse(self) -> tuple[tuple[Fraction, ...], ...]:
        return inverse_t_rows(self.alpha, self.n)


def inverse_t_rows(alpha: object, n: int) -> tuple[tuple[Fraction, ...], ...]:
    """T⁻¹ for T = truncated_geometric(α, n), 0 ≤ α < 1, from the closed form (dense, exact)."""
    a = _alpha(alpha)
    rows = []
    for r in range(n + 1):
        row = [Fraction(0)] * (n + 1)
        if r in (0, n):
            row[r] = 1 / (1 - a)
            row[1 if r == 0 else n - 1] = -a / (1 - a)
        else:
            row[r - 1] = row[r + 1] = -a / (1 - a) ** 2
            row[r] = (1 + a * a) / (1 - a) ** 2
        rows.append(tuple(row))
    return tuple(rows)


def _alpha(alpha: object) -> Fraction:
    a = parse_probability(alpha)
    if a == 1:
        raise InputError("alpha=1", hint="T is singular at α = 1; a mechanism is derivable then iff its rows are equal")
    return a


def derivation_witness(mechanism: Mechanism, alpha: object) -> Derivation:
    """Decide whether ``mechanism`` M = Y∘T for a stochastic Y (GS Theorem 2), exactly.

    Returns the remap Y = T⁻¹M when every entry is ≥ 0, else the first (row, column) in row
    order where an entry is negative, with GS's condition value. α = 1 is handled directly
    (T's rows are all equal, so M is derivable iff its rows are). Needs a count-query
    mechanism on 0..n with n ≥ 1.
    """
    a = parse_probability(alpha)
    if not mechanism.is_count_query() or mechanism.n < 1:
        raise InputError("derivability from T needs a count-query mechanism on 0..n with n ≥ 1")
    if a == 1:
        return _derivation_at_one(mechanism)
    num, den = mechanism.scaled()
    n = mechanism.n
    p, q = a.numerator, a.denominator
    rows: list[list[int]] = []
    divisors: list[int] = []
    for r in range(n + 1):
        values, scale, condition = _condition_row(num, den, r, n, p, q)
        if min(values) < 0:  # the first negative entry, in column order
            c, v = next((c, v) for c, v in enumerate(values) if v < 0)
            value = Fraction(v, scale)
            entry = value / ((1 - a) if r in (0, n) else (1 - a) ** 2)
            return Derivation(a, None, DerivabilityViolation(r, mechanism.outputs[c], value, entry, condition))
        # entry = value/(1−α) = q·value/(q−p) at the boundary, value/(1−α)² = q²·value/(q−p)² inside;
        # the scale is a multiple of q (q²) (_condition_row), so the row keeps its values: one denominator
        boundary = r in (0, n)
        rows.append(values)
        divisors.append(scale // (q if boundary else q * q) * ((q - p) if boundary else (q - p) ** 2))
    remap = Remap.from_scaled(rows, divisors, inputs=range(n + 1), outputs=mechanism.outputs)
    return Derivation(a, remap, None)


def _condition_row(num: IntRows, den: tuple[int, ...], r: int, n: int, p: int, q: int) -> tuple[list[int], int, str]:
    """GS's condition for T⁻¹ row r on every column, as integers over one positive scale.

    Boundary: q·x_r − p·x_nb (= q·(x_r − αx_nb)); interior: (q²+p²)·x_r − pq·(x_{r−1}+x_{r+1})
    (= q²·(three-term)). Rows of M with different denominators are brought together first.
    """
    if r in (0, n):
        nb = 1 if r == 0 else n - 1
        dr, dn = den[r], den[nb]
        if dr == dn:
            return [q * x - p * y for x, y in zip(num[r], num[nb])], q * dr, "x_r - a*x_nb"
        return [q * x * dn - p * y * dr for x, y in zip(num[r], num[nb])], q * dr * dn, "x_r - a*x_nb"
    d0, d1, d2 = den[r - 1], den[r], den[r + 1]
    label = "(1+a^2)*x_r - a*(x_(r-1) + x_(r+1))"
    if d0 == d1 == d2:
        middle, sides = q * q + p * p, p * q
        values = [middle * x - sides * (w + y) for w, x, y in zip(num[r - 1], num[r], num[r + 1])]
        return values, q * q * d1, label
    values = [
        (q * q + p * p) * x * d0 * d2 - p * q * (w * d1 * d2 + y * d0 * d1)
        for w, x, y in zip(num[r - 1], num[r], num[r + 1])
    ]
    return values, q * q * d0 * d1 * d2, label


def _derivation_at_one(mechanism: Mechanism) -> Derivation:
    rows = mechanism.rows
    for i, row in enumerate(rows):
        if row != rows[0]:
            c = next(k for k, (x, y) in enumerate(zip(rows[0], row)) if x != y)
            violation = DerivabilityViolation(
                i, mechanism.outputs[c], row[c] - rows[0][c], row[c] - rows[0][c], "rows of M differ at α = 1"
            )
            return Derivation(Fraction(1), None, violation)
    remap = Remap([list(rows[0])] * len(rows), inputs=range(len(rows)), outputs=mechanism.outputs)
    return Derivation(Fraction(1), remap, None)


def t_alpha_beta(alpha: object, beta: object, n: int) -> Remap:
    """T_{α,β} = G_α⁻¹·G_β, the remap taking the α-geometric to the β-geometric mechanism
    (GS Lemma 3): stochastic whenever α ≤ β. Raises if α > β (it is then not stochastic)."""
    from mechlib.core.families import truncated_geometric

    a, b = parse_probability(alpha), parse_probability(beta)
    derivation = derivation_witness(truncated_geometric(b, n), a)
    if derivation.remap is None:
        raise InputError(
            f"G_β is not derivable from G_α for alpha={format_fraction(a)}, beta={format_fraction(b)}",
            hint="GS Lemma 3 needs α ≤ β",
        )
    return derivation.remap
