"""EXACT parts of Schmutte–Yoder's claims on K(ε, π₀), K_Ω(ε, μ₀) and P (SY §3–4, App. C).

Every instance is decided in exact arithmetic with α = e^(−ε) either rational or e^(−1) itself
(:mod:`mechlib.infodesign.alpha`). Inclusions between polytopes are decided on vertices: a convex set lies
in a polytope iff its extreme points do, and P is linear, so PK ⊆ K_Ω iff P(ext K) ⊆ K_Ω; and
K_Ω ⊆ PK iff every vertex μ of K_Ω has a preimage in K — for an anonymous prior the oblivious
lift π(θ) = μ(ω_θ)·π₀(θ)/μ₀(ω_θ).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.infodesign.alpha import Alpha, const
from mechlib.infodesign.databases import DatabaseSpace, Theta
from mechlib.infodesign.privacy_sets import k_omega_vertices, k_omega_violation, k_vertices, k_violation

ALPHAS = (Alpha.of("1/2"), Alpha.of("1/3"), Alpha.exp(1))
RATIONAL_ALPHAS = ALPHAS[:2]


def _name(space: DatabaseSpace, alpha: Alpha, label: str = "") -> str:
    return f"N={space.n}, T={space.t}, α={alpha}" + (f", {label}" if label else "")


def _random_prior(space: DatabaseSpace, rng: random.Random) -> dict[Theta, Fraction]:
    """A full-support prior with no symmetry."""
    raw = {t: Fraction(rng.randint(1, 9)) for t in space.thetas}
    total = sum(raw.values())
    return {t: w / total for t, w in raw.items()}


def projection_escapes(space: DatabaseSpace, prior: dict[Theta, Fraction], alpha: Alpha) -> list[dict[str, Any]]:
    """Vertices π of K whose projection Pπ leaves K_Ω, with the violated pair (ω − t, ω)."""
    mu0 = space.project(prior, Fraction(0))
    out = []
    for v in k_vertices(space, prior):
        found = k_omega_violation(space.project(v, const(0)), mu0, space.t, alpha)
        if found is not None:
            out.append(
                {
                    "vertex (π₀·α^g)": {"".join(map(str, t)): str(p) for t, p in v.items()},
                    "pair": [found.low, found.high],
                }
            )
    return out


def lifts_fail(space: DatabaseSpace, prior: dict[Theta, Fraction], alpha: Alpha) -> list[list[str]]:
    """Vertices μ of K_Ω whose oblivious lift μ(ω_θ)π₀(θ)/μ₀(ω_θ) is not in K."""
    mu0 = space.project(prior, Fraction(0))
    failed = []
    for mu in k_omega_vertices(mu0, space.t):
        lift = {t: mu[sum(t)] * const(prior[t] / mu0[sum(t)]) for t in space.thetas}
        if k_violation(space, lift, prior, alpha) is not None:
            failed.append([str(m) for m in mu])
    return failed
