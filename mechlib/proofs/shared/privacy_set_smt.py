"""SMT parts of Schmutte–Yoder's claims on K(ε, π₀) and K_Ω(ε, μ₀) (SY §3–4), with α = e^(−ε)
as an exact rational parameter, so that every constraint is linear:

* π ∈ K: π(θ)·π₀(θ′) ≥ α·π(θ′)·π₀(θ) both ways, for databases θ, θ′ ∈ {0..T}^N differing in one
  entry (eq. (4));
* μ ∈ K_Ω: μ(ω−t)·μ₀(ω) ≥ α·μ(ω)·μ₀(ω−t) both ways, 1 ≤ t ≤ min(T, ω) (eq. (7));
* P sums π over the databases with the same total ω = Σθ_n.

PK ⊆ K_Ω is UNSAT of (π ∈ K and Pπ ∉ K_Ω); K_Ω ⊆ PK is the ∀μ ∃π query, decided by qsat. A SAT
witness π is re-checked in exact rationals before it counts.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from mechlib.infodesign.databases import DatabaseSpace, Theta, iid_prior
from mechlib.optimality.smt import exact, q
from mechlib.proofs.smt import run, smt_query


def databases(n: int, t: int) -> list[Theta]:
    return list(DatabaseSpace(n, t).thetas)


def space_of(prior: dict[Theta, Any]) -> DatabaseSpace:
    """The database space a prior (or belief) is defined on."""
    n = len(next(iter(prior)))
    return DatabaseSpace(n, round(len(prior) ** (1 / n)) - 1)


def iid(n: int, probabilities: list[Fraction]) -> dict[Theta, Fraction]:
    """π₀(θ) = Π_n p(θ_n)."""
    return iid_prior(DatabaseSpace(n, len(probabilities) - 1), probabilities)


def projected(prior: dict[Theta, Any], total: int) -> list[Any]:
    """P: the distribution of ω = Σθ_n (works for exact values, z3 and sympy terms alike)."""
    out = space_of(prior).project(prior, Fraction(0))
    assert len(out) == total + 1
    return out


def k_constraints(pi: dict[Theta, Any], prior: dict[Theta, Fraction], alpha: Fraction) -> list[Any]:
    a = q(alpha) if isinstance(next(iter(pi.values())), z3.ArithRef) else alpha
    cons = []
    for s, t in space_of(prior).adjacent_pairs:
        cons += [pi[s] * prior[t] >= a * pi[t] * prior[s], pi[t] * prior[s] >= a * pi[s] * prior[t]]
    return cons


def k_omega_constraints(mu: list[Any], mu0: list[Fraction], alpha: Fraction, t_max: int) -> list[Any]:
    a = q(alpha) if isinstance(mu[0], z3.ArithRef) else alpha
    cons = []
    for w in range(1, len(mu)):
        for t in range(1, min(t_max, w) + 1):
            cons += [mu[w - t] * mu0[w] >= a * mu[w] * mu0[w - t], mu[w] * mu0[w - t] >= a * mu[w - t] * mu0[w]]
    return cons


def projection_leaves_k_omega(
    prior: dict[Theta, Fraction], t: int, alpha: Fraction
) -> tuple[z3.Solver, dict[Theta, Any]]:
    """z3: ∃ π ∈ K(α, π₀) with Pπ ∉ K_Ω(α, Pπ₀)? (SAT: PK ⊄ K_Ω.)"""
    n = len(next(iter(prior)))
    pi = {theta: z3.Real("p" + "".join(map(str, theta))) for theta in prior}
    solver = smt_query("QF_LRA")
    solver.add(z3.Sum(list(pi.values())) == 1, *[v >= 0 for v in pi.values()], *k_constraints(pi, prior, alpha))
    mu = [z3.Sum([pi[s] for s in prior if sum(s) == w]) for w in range(n * t + 1)]
    solver.add(z3.Not(z3.And(k_omega_constraints(mu, projected(prior, n * t), alpha, t))))
    return solver, pi


def recheck_witness(pi: dict[Theta, Fraction], prior: dict[Theta, Fraction], t: int, alpha: Fraction) -> bool:
    """Exactly: π is a distribution in K and Pπ is not in K_Ω."""
    n = len(next(iter(prior)))
    in_k = sum(pi.values()) == 1 and min(pi.values()) >= 0 and all(k_constraints(pi, prior, alpha))
    mu = projected(pi, n * t)
    return in_k and not all(k_omega_constraints(mu, projected(prior, n * t), alpha, t))


def k_omega_not_covered(prior: dict[Theta, Fraction], t: int, alpha: Fraction) -> z3.Solver:
    """z3 (qsat): ∃ μ ∈ K_Ω with no π ∈ K projecting to it? (UNSAT: K_Ω ⊆ PK.)"""
    n = len(next(iter(prior)))
    total = n * t
    mu = [z3.Real(f"m{w}") for w in range(total + 1)]
    pi = {theta: z3.Real("p" + "".join(map(str, theta))) for theta in prior}
    solver = smt_query("LRA")
    solver.add(z3.Sum(mu) == 1, *[v >= 0 for v in mu], *k_omega_constraints(mu, projected(prior, total), alpha, t))
    inner = [z3.Sum(list(pi.values())) == 1, *[v >= 0 for v in pi.values()], *k_constraints(pi, prior, alpha)]
    inner += [z3.Sum([pi[s] for s in prior if sum(s) == w]) == mu[w] for w in range(total + 1)]
    solver.add(z3.Not(z3.Exists(list(pi.values()), z3.And(inner))))
    return solver


def _witness(solver: z3.Solver, pi: dict[Theta, Any]) -> dict[Theta, Fraction]:
    model = solver.model()
    return {theta: exact(model.eval(v, model_completion=True)) for theta, v in pi.items()}


def _equality(
    prior: dict[Theta, Fraction], alpha: Fraction, cover: bool = True
) -> dict[str, tuple[z3.CheckSatResult, dict[str, Any]]]:
    """T = 1: the query PK ⊆ K_Ω, and K_Ω ⊆ PK (∀μ ∃π, qsat) if ``cover``."""
    solver, _ = projection_leaves_k_omega(prior, 1, alpha)
    answers = {"PK ⊆ K_Ω": run(solver)}
    if cover:
        answers["K_Ω ⊆ PK"] = run(k_omega_not_covered(prior, 1, alpha))
    return answers


# -- SY Appendix A: married respondents --------------------------------------------------------
