"""Databases θ ∈ {0..T}^N, priors π₀ over them and the projection P onto the statistic ω = Σθᵢ.

Schmutte–Yoder §2: N respondents with types in {0..T} (categorical data when T = 1, magnitude
data when T > 1); the decision maker cares about ω_θ = Σₙ θₙ ∈ Ω = {0..NT}; P maps a belief on Θ
to the belief on Ω it induces (SY §4, eq. (6)). Two databases are adjacent when they differ in
exactly one entry (bounded DP, SY eq. (1)). Respondents are anonymous when π₀ is symmetric.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import permutations, product
from math import factorial
from typing import Any

from mechlib.core.exact import format_fraction, to_fraction
from mechlib.errors import InputError

Theta = tuple[int, ...]


@dataclass(frozen=True)
class DatabaseSpace:
    """Θ = {0..T}^N, listed in lexicographic order."""

    n: int
    t: int

    def __post_init__(self) -> None:
        if self.n < 1 or self.t < 1:
            raise InputError(f"got N={self.n}, T={self.t}", hint="expected N >= 1 respondents and types 0..T, T >= 1")

    @cached_property
    def thetas(self) -> tuple[Theta, ...]:
        return tuple(product(range(self.t + 1), repeat=self.n))

    @property
    def omegas(self) -> range:
        return range(self.n * self.t + 1)

    @cached_property
    def adjacent_pairs(self) -> tuple[tuple[Theta, Theta], ...]:
        """Unordered pairs (θ, θ′), θ < θ′, differing in exactly one entry."""
        return tuple(
            (a, b) for a in self.thetas for b in self.thetas if a < b and sum(x != y for x, y in zip(a, b)) == 1
        )

    def histogram(self, theta: Theta) -> tuple[int, ...]:
        """How many respondents have each type 0..T."""
        return tuple(theta.count(k) for k in range(self.t + 1))

    def project(self, belief: Mapping[Theta, Any], zero: Any) -> list[Any]:
        """P: (Pπ)(ω) = Σ_{θ: ω_θ = ω} π(θ) — for Fractions and polynomials alike."""
        out = [zero for _ in self.omegas]
        for theta, value in belief.items():
            out[sum(theta)] = out[sum(theta)] + value
        return out


def check_prior(space: DatabaseSpace, prior: Mapping[Theta, Fraction]) -> dict[Theta, Fraction]:
    """π₀ as a full-support distribution over Θ (SY assume π₀ has full support)."""
    missing = [t for t in space.thetas if t not in prior]
    if missing:
        raise InputError(f"the prior has no weight for database {missing[0]}", hint=f"give all {len(space.thetas)}")
    extra = [t for t in prior if t not in space.thetas]
    if extra:
        raise InputError(f"database {extra[0]} is not in {{0..{space.t}}}^{space.n}")
    out = {t: to_fraction(prior[t]) for t in space.thetas}
    for t, p in out.items():
        if p <= 0:
            raise InputError(
                f"prior({t})={format_fraction(p)}", hint="expected a full-support prior (every weight > 0)"
            )
    total = sum(out.values())
    if total != 1:
        raise InputError(f"the prior sums to {format_fraction(total)}", hint="expected weights summing to 1")
    return out


def iid_prior(space: DatabaseSpace, probabilities: Sequence[object]) -> dict[Theta, Fraction]:
    """π₀(θ) = Πₙ p(θₙ): i.i.d. respondents (anonymous)."""
    p = [to_fraction(x) for x in probabilities]
    if len(p) != space.t + 1:
        raise InputError(f"got {len(p)} type probabilities", hint=f"expected T+1 = {space.t + 1}")
    prior = {}
    for theta in space.thetas:
        w = Fraction(1)
        for x in theta:
            w *= p[x]
        prior[theta] = w
    return check_prior(space, prior)


def exchangeable_prior(
    space: DatabaseSpace, weight: Callable[[tuple[int, ...]], object] | Mapping[tuple[int, ...], object]
) -> dict[Theta, Fraction]:
    """Anonymous π₀ given by a weight per histogram, shared by its permutations and normalised."""
    of = weight if callable(weight) else weight.__getitem__
    raw = {theta: to_fraction(of(space.histogram(theta))) for theta in space.thetas}
    total = sum(raw.values())
    return check_prior(space, {t: w / total for t, w in raw.items()})


def is_anonymous(space: DatabaseSpace, prior: Mapping[Theta, Fraction]) -> bool:
    """π₀(θ) = π₀(θ′) whenever θ′ is a permutation of θ (SY §4.2)."""
    by_histogram: dict[tuple[int, ...], Fraction] = {}
    return all(by_histogram.setdefault(space.histogram(t), p) == p for t, p in prior.items())


def permutations_of(space: DatabaseSpace) -> list[tuple[int, ...]]:
    """All N! permutations of the respondents (small N only)."""
    if factorial(space.n) > 5040:
        raise InputError(f"N={space.n} has {factorial(space.n)} permutations", hint="expected N <= 7")
    return list(permutations(range(space.n)))
