"""Mechanisms on databases m(s | θ): general, permutation-invariant, oblivious (SY §2, §4).

A mechanism is ε-DP (bounded DP, SY eq. (1)) iff m(s|θ) ≥ α·m(s|θ′) for every output s and all
databases θ, θ′ one entry apart, α = e^(−ε). It is permutation-invariant if m(·|θ) depends on θ
only through its histogram, oblivious if only through ω_θ. The output s induces the posterior
π_s(θ) ∝ m(s|θ)π₀(θ) (SY eq. (3)) and, projected, the joint column P(s, ω) of an information
structure (:mod:`mechlib.infodesign.info_structure`). ``symmetrized`` is SY Proposition 5's construction:
permute the respondents uniformly at random, then run m.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from mechlib.core.exact import format_fraction, to_fraction
from mechlib.errors import InputError
from mechlib.infodesign.alpha import Alpha, Poly, const
from mechlib.infodesign.databases import DatabaseSpace, Theta, permutations_of
from mechlib.infodesign.info_structure import InformationStructure
from mechlib.infodesign.privacy_sets import RatioViolation, ratio_violation


@dataclass(frozen=True)
class DatabaseMechanism:
    """Rows m(· | θ) over a common list of outputs, exact."""

    space: DatabaseSpace
    rows: dict[Theta, tuple[Fraction, ...]]

    @classmethod
    def of(cls, space: DatabaseSpace, rows: Mapping[Theta, Sequence[object]]) -> DatabaseMechanism:
        out = {}
        for theta in space.thetas:
            if theta not in rows:
                raise InputError(f"no row for database {theta}", hint=f"give all {len(space.thetas)} databases")
            row = tuple(to_fraction(x) for x in rows[theta])
            if min(row) < 0 or sum(row) != 1:
                raise InputError(f"row {theta} is not a distribution (sum {format_fraction(sum(row))})")
            out[theta] = row
        if len({len(r) for r in out.values()}) != 1:
            raise InputError("rows have different numbers of outputs")
        return cls(space, out)

    @classmethod
    def by_histogram(
        cls, space: DatabaseSpace, row: Callable[[tuple[int, ...]], Sequence[object]]
    ) -> DatabaseMechanism:
        """A permutation-invariant mechanism given by its row per histogram."""
        return cls.of(space, {t: row(space.histogram(t)) for t in space.thetas})

    @classmethod
    def oblivious(cls, space: DatabaseSpace, sigma: Sequence[Sequence[object]]) -> DatabaseMechanism:
        """m(s|θ) = σ(s|ω_θ) (SY §4.1), σ given with one row per ω ∈ Ω."""
        if len(sigma) != len(space.omegas):
            raise InputError(f"σ has {len(sigma)} rows", hint=f"expected one per ω = 0..{space.n * space.t}")
        return cls.of(space, {t: sigma[sum(t)] for t in space.thetas})

    @property
    def outputs(self) -> int:
        return len(next(iter(self.rows.values())))

    def dp_violation(self, alpha: Alpha) -> tuple[int, RatioViolation[Theta]] | None:
        """(s, pair) with m(s|high) > e^ε·m(s|low) for adjacent databases, or None if ε-DP."""
        ones = dict.fromkeys(self.space.thetas, Fraction(1))
        for s in range(self.outputs):
            column = {t: const(r[s]) for t, r in self.rows.items()}
            found = ratio_violation(column, ones, self.space.adjacent_pairs, alpha)
            if found is not None:
                return s, found
        return None

    def posteriors(self, prior: Mapping[Theta, Fraction]) -> list[dict[Theta, Poly]]:
        """π_s ∝ m(s|·)·π₀ (unnormalised; all-zero for an output that is never sent)."""
        return [{t: const(r[s] * prior[t]) for t, r in self.rows.items()} for s in range(self.outputs)]

    def about_omega(self, prior: Mapping[Theta, Fraction]) -> InformationStructure:
        """The induced τ about ω: joint columns P(s, ω) = Σ_{θ: ω_θ = ω} m(s|θ)π₀(θ)."""
        zero = Fraction(0)
        return InformationStructure.of(
            [self.space.project({t: r[s] * prior[t] for t, r in self.rows.items()}, zero) for s in range(self.outputs)]
        )

    def is_permutation_invariant(self) -> bool:
        seen: dict[tuple[int, ...], tuple[Fraction, ...]] = {}
        return all(seen.setdefault(self.space.histogram(t), r) == r for t, r in self.rows.items())

    def is_oblivious(self) -> bool:
        seen: dict[int, tuple[Fraction, ...]] = {}
        return all(seen.setdefault(sum(t), r) == r for t, r in self.rows.items())

    def symmetrized(self) -> DatabaseMechanism:
        """m̄(s|θ) = (1/N!)·Σ_σ m(s | σθ) (SY Prop. 5): DP if m is, permutation-invariant, and with
        an anonymous prior it induces the same joint law of (s, ω)."""
        perms = permutations_of(self.space)
        rows = {}
        for theta in self.space.thetas:
            acc = [Fraction(0)] * self.outputs
            for p in perms:
                for s, x in enumerate(self.rows[tuple(theta[i] for i in p)]):
                    acc[s] += x
            rows[theta] = tuple(x / len(perms) for x in acc)
        return DatabaseMechanism(self.space, rows)
