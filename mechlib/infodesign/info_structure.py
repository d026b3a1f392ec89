"""Distributions of posteriors about ω (SY's τ ∈ Δ(Δ(Ω))), kept as joint columns.

An information structure is stored as its joint distribution with the state: column s holds
j_s(ω) = scale · P(signal s, ω). The posterior after s is j_s / Σ_ω j_s(ω) and τ puts mass
Σ_ω j_s(ω) / scale on it; Bayes plausibility is Σ_s j_s = scale · μ₀. Entries are polynomials in
α (:mod:`mechlib.infodesign.alpha`) so that the geometric mechanism's posteriors at ε = 1 stay exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechlib.errors import InputError
from mechlib.infodesign.alpha import Alpha, Poly, X, const, poly_sum


@dataclass(frozen=True)
class InformationStructure:
    """τ as joint columns j_s over Ω, with a common positive scale (a polynomial in α)."""

    columns: tuple[tuple[Poly, ...], ...]
    scale: Poly

    @classmethod
    def of(cls, columns: Sequence[Sequence[object]], scale: object = 1) -> InformationStructure:
        cols = tuple(tuple(const(x) for x in c) for c in columns)
        if not cols or len({len(c) for c in cols}) != 1:
            raise InputError("expected at least one column, all over the same states ω = 0..L")
        return cls(cols, const(scale))

    @classmethod
    def from_oblivious(
        cls, rows: Sequence[Sequence[object]], mu0: Sequence[Fraction], scale: object = 1
    ) -> InformationStructure:
        """The τ an oblivious mechanism σ(s | ω) (rows = states) induces from μ₀ (SY §4.1).

        ``rows`` are σ times ``scale`` (so that e.g. the geometric mechanism stays polynomial)."""
        if len(rows) != len(mu0):
            raise InputError(f"got {len(rows)} rows for {len(mu0)} states", hint="expected one row per ω")
        outputs = len(rows[0])
        return cls.of([[const(rows[w][s]) * const(mu0[w]) for w in range(len(mu0))] for s in range(outputs)], scale)

    @property
    def states(self) -> int:
        return len(self.columns[0])

    def support(self, alpha: Alpha) -> list[int]:
        """The signals that are sent with positive probability."""
        return [s for s, c in enumerate(self.columns) if alpha.sign(poly_sum(c)) > 0]

    def prior_violation(self, mu0: Sequence[Fraction], alpha: Alpha) -> int | None:
        """Bayes plausibility Σ_s j_s = scale · μ₀: the first state where it fails, or None."""
        for w in range(self.states):
            if alpha.sign(poly_sum(c[w] for c in self.columns) - self.scale * const(mu0[w])) != 0:
                return w
        return None


def geometric_structure(mu0: Sequence[Fraction]) -> InformationStructure:
    """τ_ε^g: the truncated geometric mechanism on Ω (GRS; SY footnote 28), times (1 + α).

    σ(s|ω)·(1+α) = (1−α)·α^|s−ω| for 0 < s < L, and α^|s−ω| for s ∈ {0, L}; it induces the same
    posteriors as the untruncated ε-geometric mechanism (SY §5.1)."""
    last = len(mu0) - 1
    one = const(1)
    rows = [[(one if s in (0, last) else one - X) * X ** abs(s - w) for s in range(last + 1)] for w in range(last + 1)]
    return InformationStructure.from_oblivious(rows, mu0, one + X)
