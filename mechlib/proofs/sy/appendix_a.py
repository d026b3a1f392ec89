"""SY-AA (SY Appendix A): N=3 married respondents: the posterior is in K; its projection is outside
K_Ω.

Every check part of this claim is here (``mechlib verify --only SY-AA``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from mechlib.core.exact import format_fraction
from mechlib.infodesign.databases import DatabaseSpace, Theta
from mechlib.optimality.smt import q
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.privacy_set_smt import k_omega_constraints, projected
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

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
    record = Record("N")
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
        record.ran(3, alpha, "the married respondents' prior, δ → 0 and δ = 1/1000")
    erratum = (
        "the limit has ψ = (e^-2ε, e^-3ε, 1, e^-ε); SY Appendix A prints (e^-ε, e^-3ε, 1, e^-2ε) "
        "(ω = 0 and 3 swapped), and its text's 'upper bound e^ε between (0,0,0) and (1,0,0)' is e^-ε by φ; "
        "the conclusion μ̂ ∉ K_Ω (between ω = 1 and 2) holds either way"
    )
    outcome = decide(
        failures, {"alphas": ["1/2", "1/3"], "limit": "sympy, δ → 0", "finite δ": "1/1000", "erratum": erratum}
    )
    return record.outcome(outcome, "exact rationals; sympy: the limit δ → 0")


@check("SY-AA", kind=SMT)
def smt_married_respondents_all_small_delta() -> Outcome:
    """For every δ ∈ (0, 1/100] (not only in the limit), Pπ̂ ∉ K_Ω(α, Pπ₀): z3 (NRA, δ symbolic)."""
    parts, record = {}, Record("N")
    for alpha in (Fraction(1, 2), Fraction(1, 3)):
        delta = z3.Real("delta")
        mu = projected(posterior_a(q(alpha), delta), 3)
        mu0 = projected(married_prior(delta), 3)
        solver = smt_query("QF_NRA")
        solver.add(delta > 0, delta <= z3.Q(1, 100))
        solver.add(z3.And(k_omega_constraints(mu, mu0, alpha, 1)))  # negated goal: Pπ̂ ∈ K_Ω
        parts[f"α={format_fraction(alpha)}, 0 < δ ≤ 1/100"] = run(solver)
        record.ran(3, alpha, "the married respondents' prior, every 0 < δ ≤ 1/100 (δ symbolic)")
    return record.outcome(proved_if_unsat(parts), TWO_SOLVERS)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _uniform_phi(_real: Any) -> Any:
    def phi(alpha: Any) -> Any:
        from mechlib.proofs.sy.appendix_a import ORDER_A

        return dict.fromkeys(ORDER_A, 1)  # π̂ = π₀: the married respondents' posterior never moves

    return phi


register("φ → 1 (π̂ = π₀)", "changed statement", ("SY-AA",),
         module_constant(__name__, "phi", _uniform_phi))  # fmt: skip
