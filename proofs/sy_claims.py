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

from mechlib.core.exact import format_fraction
from mechlib.infodesign.databases import DatabaseSpace, Theta, iid_prior
from mechlib.optimality.smt import exact, q
from proofs.catalogue import SMT
from proofs.registry import Outcome, Verdict, check, decide
from proofs.smt import proved_if_unsat, run, smt_query


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


@check("SY-T1", kind=SMT)
def smt_magnitude_data() -> Outcome:
    """T = 2: some ε-DP posterior projects outside K_Ω (PK ≠ K_Ω), found by z3, re-checked exactly."""
    evidence: dict[str, Any] = {}
    for n in (2, 3):
        for alpha in (Fraction(1, 2), Fraction(1, 3)):
            prior = iid(n, [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
            solver, pi = projection_leaves_k_omega(prior, 2, alpha)
            answer, ev = run(solver)
            name = f"N={n}, T=2, α={format_fraction(alpha)}"
            if answer != z3.sat:
                return Outcome(
                    Verdict.UNKNOWN if answer == z3.unknown else Verdict.REFUTED, evidence, f"{name}: {answer}"
                )
            witness = _witness(solver, pi)
            if not recheck_witness(witness, prior, 2, alpha):
                return Outcome(Verdict.UNKNOWN, evidence, f"{name}: z3's witness does not re-check exactly")
            evidence[name] = {**ev, "witness": {"".join(map(str, k)): format_fraction(v) for k, v in witness.items()}}
    return Outcome(Verdict.PROVED, evidence)


def _equality(prior: dict[Theta, Fraction], alpha: Fraction) -> dict[str, tuple[z3.CheckSatResult, dict[str, Any]]]:
    solver, _ = projection_leaves_k_omega(prior, 1, alpha)
    return {"PK ⊆ K_Ω": run(solver), "K_Ω ⊆ PK": run(k_omega_not_covered(prior, 1, alpha))}


@check("SY-T2", kind=SMT, slow=True)
def smt_categorical_symmetric() -> Outcome:
    """T = 1, symmetric priors (i.i.d. and exchangeable non-i.i.d.), N ∈ {2, 3}: PK = K_Ω."""
    exchangeable = {
        theta: [Fraction(1, 4), Fraction(1, 12), Fraction(1, 12), Fraction(1, 4)][sum(theta)]
        for theta in databases(3, 1)
    }
    cases = {
        "N=2 iid(2/3,1/3)": iid(2, [Fraction(2, 3), Fraction(1, 3)]),
        "N=3 iid(2/3,1/3)": iid(3, [Fraction(2, 3), Fraction(1, 3)]),
        "N=3 exchangeable": exchangeable,
    }
    parts = {f"{name}, {k}": v for name, prior in cases.items() for k, v in _equality(prior, Fraction(1, 2)).items()}
    return proved_if_unsat(parts)


#: A non-anonymous prior on {0,1}³ (weights 5, 9, 3, 5, 2, 2, 6, 8 over 40, in database order) for
#: which PK ⊄ K_Ω: anonymity matters in SY Theorem 2 (the negative control; compare SY Appendix A).
ASYMMETRIC_3 = dict(zip(databases(3, 1), (Fraction(w, 40) for w in (5, 9, 3, 5, 2, 2, 6, 8))))


@check("SY-P4", kind=SMT)
def smt_two_respondents_any_prior() -> Outcome:
    """N = 2, T = 1: PK = K_Ω for asymmetric priors too; with N = 3 an asymmetric prior breaks it."""
    priors = {
        "(1/2,1/8,1/4,1/8)": dict(
            zip(databases(2, 1), (Fraction(1, 2), Fraction(1, 8), Fraction(1, 4), Fraction(1, 8)))
        ),
        "(1/10,3/10,1/5,2/5)": dict(
            zip(databases(2, 1), (Fraction(1, 10), Fraction(3, 10), Fraction(1, 5), Fraction(2, 5)))
        ),
    }
    parts = {f"{name}, {k}": v for name, prior in priors.items() for k, v in _equality(prior, Fraction(1, 2)).items()}
    outcome = proved_if_unsat(parts)
    solver, pi = projection_leaves_k_omega(ASYMMETRIC_3, 1, Fraction(1, 2))
    answer, ev = run(solver)
    if answer != z3.sat or not recheck_witness(_witness(solver, pi), ASYMMETRIC_3, 1, Fraction(1, 2)):
        return Outcome(Verdict.UNKNOWN, outcome.evidence, "control: the N=3 asymmetric prior should break PK ⊆ K_Ω")
    outcome.evidence["control: N=3 asymmetric prior breaks PK ⊆ K_Ω"] = ev
    return outcome


# -- SY Appendix A: married respondents --------------------------------------------------------

#: Databases in the order of SY Appendix A's vectors.
ORDER_A = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (1, 1, 1)]


def married_prior(delta: Any) -> dict[Theta, Any]:
    """π₀ with θ₃ = θ₂ with probability 1 − δ (exact Fractions or sympy expressions)."""
    weights = [
        (1 - delta) / 3,
        (1 - delta) / 6,
        delta / 6,
        delta / 3,
        delta / 3,
        delta / 6,
        (1 - delta) / 6,
        (1 - delta) / 3,
    ]
    return dict(zip(ORDER_A, weights))


def phi(alpha: Any) -> dict[Theta, Any]:
    """φ = (e^−2ε, e^−3ε, e^−ε, e^−ε, e^−2ε, e^−2ε, 1, e^−ε) with α = e^−ε."""
    return dict(zip(ORDER_A, [alpha**2, alpha**3, alpha, alpha, alpha**2, alpha**2, 1, alpha]))


def posterior_a(alpha: Any, delta: Any) -> dict[Theta, Any]:
    """π̂ = φ∘π₀ / (φ·π₀)."""
    prior, f = married_prior(delta), phi(alpha)
    total = sum(f[t] * prior[t] for t in ORDER_A)
    return {t: f[t] * prior[t] / total for t in ORDER_A}


@check("SY-AA", kind="EXACT")
def exact_married_respondents() -> Outcome:
    """π̂ ∈ K (π̂/π₀ is φ up to a constant, so membership is φ's ratios across adjacent databases,
    whatever δ); Pπ̂ → μ̂ = ψ∘μ₀/(ψ·μ₀) as δ → 0 (sympy), where ψ = (φ(000), φ(100), φ(011), φ(111))
    since only those databases survive; μ̂ breaks K_Ω's bound between ω = 1 and 2; and so does Pπ̂
    at δ = 1/1000 (exact); for α ∈ {1/2, 1/3}.

    Erratum (recorded in the evidence): that ψ is (α², α³, 1, α); SY print (α, α³, 1, α²), with the
    entries for ω = 0 and ω = 3 swapped — which no DP posterior can project to, as ψ(1)/ψ(0) = α²
    < α. The conclusion (μ̂ ∉ K_Ω, between ω = 1 and 2) holds for both.
    """
    import sympy as sp

    failures: list[dict[str, Any]] = []
    d = sp.Symbol("delta", positive=True)
    for alpha in (Fraction(1, 2), Fraction(1, 3)):
        f = phi(alpha)
        for s, t in DatabaseSpace(3, 1).adjacent_pairs:
            if not alpha <= f[s] / f[t] <= 1 / alpha:
                failures.append({"alpha": format_fraction(alpha), "pair": [s, t], "problem": "π̂ ∉ K"})
        a = sp.Rational(alpha.numerator, alpha.denominator)
        limit = [sp.limit(m, d, 0) for m in projected(posterior_a(a, d), 3)]
        mu0 = [Fraction(1, 3), Fraction(1, 6), Fraction(1, 6), Fraction(1, 3)]
        psi = [f[(0, 0, 0)], f[(1, 0, 0)], f[(0, 1, 1)], f[(1, 1, 1)]]
        norm = sum(p * m for p, m in zip(psi, mu0))
        mu_hat = [p * m / norm for p, m in zip(psi, mu0)]
        if [Fraction(int(sp.numer(x)), int(sp.denom(x))) for x in limit] != mu_hat:
            failures.append({"alpha": format_fraction(alpha), "problem": "Pπ̂ does not tend to μ̂"})
        if all(k_omega_constraints(mu_hat, mu0, alpha, 1)):
            failures.append({"alpha": format_fraction(alpha), "problem": "μ̂ ∈ K_Ω"})
        small = Fraction(1, 1000)
        mu = projected(posterior_a(alpha, small), 3)
        if all(k_omega_constraints(mu, projected(married_prior(small), 3), alpha, 1)):
            failures.append({"alpha": format_fraction(alpha), "problem": "Pπ̂ ∈ K_Ω at δ = 1/1000"})
    erratum = (
        "the limit has ψ = (e^-2ε, e^-3ε, 1, e^-ε); SY Appendix A prints (e^-ε, e^-3ε, 1, e^-2ε) "
        "(ω = 0 and 3 swapped), and its text's 'upper bound e^ε between (0,0,0) and (1,0,0)' is e^-ε by φ; "
        "the conclusion μ̂ ∉ K_Ω (between ω = 1 and 2) holds either way"
    )
    return decide(
        failures, {"alphas": ["1/2", "1/3"], "limit": "sympy, δ → 0", "finite δ": "1/1000", "erratum": erratum}
    )


@check("SY-AA", kind=SMT)
def smt_married_respondents_all_small_delta() -> Outcome:
    """For every δ ∈ (0, 1/100] (not only in the limit), Pπ̂ ∉ K_Ω(α, Pπ₀): z3 (NRA, δ symbolic)."""
    parts = {}
    for alpha in (Fraction(1, 2), Fraction(1, 3)):
        delta = z3.Real("delta")
        mu = projected(posterior_a(q(alpha), delta), 3)
        mu0 = projected(married_prior(delta), 3)
        solver = smt_query("QF_NRA")
        solver.add(delta > 0, delta <= z3.Q(1, 100))
        solver.add(z3.And(k_omega_constraints(mu, mu0, alpha, 1)))  # negated goal: Pπ̂ ∈ K_Ω
        parts[f"α={format_fraction(alpha)}, 0 < δ ≤ 1/100"] = run(solver)
    return proved_if_unsat(parts)
