"""SY-L2 (SY Lemma 2): The geometric mechanism UPRR-dominates every oblivious ε-DP mechanism.

Every check part of this claim is here (``mechlib verify --only SY-L2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.infodesign.alpha import Alpha
from mechlib.infodesign.info_structure import geometric_structure
from mechlib.infodesign.privacy_sets import k_omega_vertices
from mechlib.infodesign.uprr import uprr_dominates, violated_peak
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.uprr import ALPHAS, _over_random_priors, _structure, example2_tau_b
from mechlib.strategies import oblivious_dp_cases


def lemma2_violation(mu0: list[Fraction], alpha: Alpha) -> dict[str, Any] | None:
    """The geometric posterior for output s has peak s against every vertex of K_Ω (SY Lemma 2)."""
    tau = geometric_structure(mu0)
    others = list(enumerate(tuple(v) for v in k_omega_vertices(mu0, 1)))
    for s, column in enumerate(tau.columns):
        broken = violated_peak(column, others, s, alpha)
        if broken is not None:
            return {"output": s, "vertex": broken[0], "omega": broken[1]}
    return None


@check("SY-L2", kind=EXACT)
def geometric_uprr_dominant_exact() -> Outcome:
    """N = 1..6, random μ₀, α ∈ {1/2, 1/3, e^−1}: each geometric posterior (output s) has the valid
    peak s (SY Lemma 2's ω*) against every vertex of K_Ω, hence against every oblivious ε-DP
    posterior. Control: τ_b of SY Example 2 does not UPRR-dominate τ^g."""
    record = Record("N")
    failures = _over_random_priors(12, range(1, 7), lemma2_violation, record)
    mu0 = [Fraction(1, 3)] * 3
    if uprr_dominates(example2_tau_b(), geometric_structure(mu0), ALPHAS[2]).dominates:
        failures.append({"control": "τ_b ⪰_UPRR τ^g"})
    record.ran(len(mu0) - 1, str(ALPHAS[2]), "control: Example 2's τ_b")
    outcome = decide(failures, {"N": "1..6", "alphas": [str(a) for a in ALPHAS], "against": "all vertices of K_Ω"})
    return record.outcome(outcome, "exact: the geometric posteriors' peaks against every vertex of K_Ω")


@check("SY-L2", kind=FUZZ)
def fuzz_geometric_dominates() -> Outcome:
    """Random oblivious α-DP τ (T = 1): τ^g ⪰_UPRR τ, with the peaks found exactly."""

    def prop(case: tuple[Fraction, list[Fraction], Any]) -> dict[str, Any] | None:
        a, mu0, sigma = case
        verdict = uprr_dominates(geometric_structure(mu0), _structure(sigma, mu0), Alpha.of(a))
        return None if verdict.dominates else {"failure": str(verdict.failure)}

    return fuzz("SY-L2", oblivious_dp_cases(), prop, 40, drawn=alpha_first, size="N")
