"""The designer's optimal DP mechanism on databases, as a distribution over ext K (SY Prop. 2).

SY Proposition 1: an ε-DP mechanism is exactly a Bayes-plausible distribution ν of posteriors
in K(ε, π₀); the designer maximises E_ν v(π), v(π) = max_a E_π u(a, ω_θ) (convex). Proposition
2: an optimum is supported on linearly independent vertices of K. We solve the LP over ext K
(enumerated exactly, :mod:`mechlib.infodesign.privacy_sets`): max Σ_v c_v v(v) s.t. Σ_v c_v v = π₀, c ≥ 0,
with HiGHS finding the support, and then decide in rationals:

* c solves Σ_{v∈S} c_v v = π₀ exactly with c ≥ 0 (a feasible design);
* a price vector p with p·v ≥ v(v) for *every* vertex and p·π₀ = Σ c_v v(v). For any DP
  mechanism, each posterior π ∈ K is a convex combination of vertices, so by convexity
  v(π) ≤ p·π and its value is ≤ p·π₀: the design is optimal among all ε-DP mechanisms.

The mechanism itself is m*(v | θ) = c_v·v(θ)/π₀(θ) (SY proof of Prop. 2). Needs α rational.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from mechlib.core.exact_linear import first_accepted, solve
from mechlib.errors import InputError
from mechlib.infodesign.alpha import Alpha, Poly
from mechlib.infodesign.databases import DatabaseSpace, Theta
from mechlib.infodesign.decision import DecisionProblem
from mechlib.infodesign.privacy_sets import k_omega_vertices, k_vertices


@dataclass(frozen=True)
class Design:
    """An optimal design: posteriors (normalised vertices of K) with their probabilities."""

    posteriors: tuple[dict[Theta, Fraction], ...]
    weights: tuple[Fraction, ...]
    prices: dict[Theta, Fraction]
    value: Fraction
    vertices_checked: int

    def mechanism(self, prior: Mapping[Theta, Fraction]) -> dict[Theta, tuple[Fraction, ...]]:
        """m*(s | θ) = c_s·π_s(θ)/π₀(θ): one output per posterior."""
        return {t: tuple(c * p[t] / prior[t] for c, p in zip(self.weights, self.posteriors)) for t in prior}


def interim_value(problem: DecisionProblem, posterior: Mapping[Theta, Fraction]) -> Fraction:
    """v(π) = max_a Σ_θ π(θ)·u(a, ω_θ)."""
    return max(sum((p * row[sum(t)] for t, p in posterior.items()), Fraction(0)) for row in problem.payoff)


def optimal_design(
    space: DatabaseSpace, prior: Mapping[Theta, Fraction], problem: DecisionProblem, alpha: Alpha
) -> Design | None:
    """The certified optimal ε-DP design for ``problem``; None if it could not be certified."""
    thetas = space.thetas
    vertices = _normalised(k_vertices(space, prior), thetas, alpha)
    found = optimal_over_vertices(
        vertices, [prior[t] for t in thetas], [interim_value(problem, dict(zip(thetas, v))) for v in vertices]
    )
    if found is None:
        return None
    support, weights, prices, value = found
    return Design(
        tuple(dict(zip(thetas, vertices[k])) for k in support), weights, dict(zip(thetas, prices)), value, len(vertices)
    )


def optimal_oblivious_value(
    mu0: Sequence[Fraction], t_max: int, problem: DecisionProblem, alpha: Alpha
) -> Fraction | None:
    """The certified best value over oblivious ε-DP mechanisms: the same LP over ext K_Ω (SY Cor. 2)."""
    states = range(len(mu0))
    vertices = _normalised([dict(enumerate(v)) for v in k_omega_vertices(mu0, t_max)], states, alpha)
    values = [max(sum((m * u for m, u in zip(v, row)), Fraction(0)) for row in problem.payoff) for v in vertices]
    found = optimal_over_vertices(vertices, list(mu0), values)
    return None if found is None else found[3]


def _normalised(polys: Sequence[Mapping[Any, Poly]], keys: Sequence[Any], alpha: Alpha) -> list[list[Fraction]]:
    if alpha.rational is None:
        raise InputError(f"alpha={alpha} is irrational", hint="the designer LP needs a rational alpha")
    out = []
    for poly in polys:
        raw = [Fraction(alpha.value(poly[k])) for k in keys]
        total = sum(raw, Fraction(0))
        out.append([x / total for x in raw])
    return out


def optimal_over_vertices(
    vertices: list[list[Fraction]], prior: list[Fraction], values: list[Fraction]
) -> tuple[list[int], tuple[Fraction, ...], list[Fraction], Fraction] | None:
    """max Σ c_v·value_v s.t. Σ c_v·v = prior, c ≥ 0, certified: (support, weights, prices, value)."""
    found = _highs_support(vertices, values, prior)
    if found is None:
        return None
    support, hint = found
    dims = range(len(prior))
    c = solve([[vertices[k][i] for k in support] for i in dims], prior)
    if c is None or min(c) < 0:
        return None
    value = sum((ck * values[k] for ck, k in zip(c, support)), Fraction(0))
    prices = first_accepted(
        [vertices[k] for k in support],
        [values[k] for k in support],
        hint,
        lambda p: all(sum(pi * vi for pi, vi in zip(p, v)) >= val for v, val in zip(vertices, values)),
    )
    if prices is None or sum(pi * q for pi, q in zip(prices, prior)) != value:
        return None
    kept = [(ck, k) for ck, k in zip(c, support) if ck > 0]
    return [k for _, k in kept], tuple(ck for ck, _ in kept), prices, value


def _highs_support(
    vertices: list[list[Fraction]], values: list[Fraction], prior: list[Fraction]
) -> tuple[list[int], list[float]] | None:
    """HiGHS's optimal support and prices (float hints only)."""
    from scipy.optimize import linprog

    a_eq = np.array([[float(v[i]) for v in vertices] for i in range(len(prior))])
    res = linprog(
        -np.array([float(x) for x in values]),
        A_eq=a_eq,
        b_eq=np.array([float(p) for p in prior]),
        method="highs-ds",
    )
    if res.status != 0:
        return None
    return [k for k, x in enumerate(res.x) if x > 1e-12], [-y for y in res.eqlin.marginals]
