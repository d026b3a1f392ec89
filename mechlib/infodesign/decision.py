"""Finite decision problems on Ω and their value under an information structure (SY §2, §5).

A decision maker picks an action a from a finite ordered set and earns u(a, ω). Under τ his
expected payoff is E_τ max_a E_μ u(a, ω) = (1/scale)·Σ_s max_a Σ_ω j_s(ω)·u(a, ω), computed
exactly (j_s are the joint columns of :class:`~mechlib.infodesign.info_structure.InformationStructure`).
u is supermodular iff u(a′, ω′) − u(a, ω′) ≥ u(a′, ω) − u(a, ω) for all a′ > a, ω′ > ω; on a
grid it suffices to check neighbouring actions and states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechlib.core.exact import to_fraction
from mechlib.errors import InputError
from mechlib.infodesign.alpha import Alpha, Poly, const, poly_sum
from mechlib.infodesign.info_structure import InformationStructure


@dataclass(frozen=True)
class DecisionProblem:
    """Payoffs ``payoff[a][ω]`` for actions a = 0..A−1 (in increasing order) and states ω."""

    payoff: tuple[tuple[Fraction, ...], ...]

    @classmethod
    def of(cls, payoff: Sequence[Sequence[object]]) -> DecisionProblem:
        rows = tuple(tuple(to_fraction(x) for x in row) for row in payoff)
        if not rows or len({len(r) for r in rows}) != 1:
            raise InputError("expected a non-empty payoff table u[action][state] with equal-length rows")
        return cls(rows)

    @property
    def states(self) -> int:
        return len(self.payoff[0])

    def supermodularity_violation(self) -> tuple[int, int] | None:
        """(a, ω) with u(a+1, ω+1) − u(a, ω+1) < u(a+1, ω) − u(a, ω), or None if supermodular."""
        u = self.payoff
        for a in range(len(u) - 1):
            for w in range(self.states - 1):
                if u[a + 1][w + 1] - u[a][w + 1] < u[a + 1][w] - u[a][w]:
                    return a, w
        return None

    def best_actions(self, tau: InformationStructure, alpha: Alpha) -> list[int]:
        """For each signal, the lowest action maximising Σ_ω j_s(ω) u(a, ω)."""
        if tau.states != self.states:
            raise InputError(f"τ has {tau.states} states, the payoffs {self.states}")
        best = []
        for column in tau.columns:
            gains = [self._gain(column, a) for a in range(len(self.payoff))]
            top = 0
            for a in range(1, len(gains)):
                if alpha.sign(gains[a] - gains[top]) > 0:
                    top = a
            best.append(top)
        return best

    def _gain(self, column: Sequence[Poly], a: int) -> Poly:
        return poly_sum(const(u) * j for u, j in zip(self.payoff[a], column))

    def value(self, tau: InformationStructure, alpha: Alpha) -> tuple[Poly, Poly]:
        """E_τ max_a E_μ u(a, ω) as (numerator, scale): exact, a polynomial ratio in α."""
        actions = self.best_actions(tau, alpha)
        return poly_sum(self._gain(c, a) for c, a in zip(tau.columns, actions)), tau.scale


def at_least(x: tuple[Poly, Poly], y: tuple[Poly, Poly], alpha: Alpha) -> bool:
    """x ≥ y for values (numerator, positive scale), exactly."""
    return alpha.sign(x[0] * y[1] - y[0] * x[1]) >= 0
