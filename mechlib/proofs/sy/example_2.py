"""SY-E2 (SY Example 2): The geometric mechanism UPRR-dominates the alternative τ_b.

Every check part of this claim is here (``mechlib verify --only SY-E2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction

from mechlib.infodesign.info_structure import geometric_structure
from mechlib.infodesign.uprr import uprr_dominates
from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.uprr import ALPHAS, example2_tau_b


@check("SY-E2", kind=EXACT)
def example_two() -> Outcome:
    """N = 2, ε = 1 exactly, μ₀ = (1/3, 1/3, 1/3): τ^g ⪰_UPRR τ_b with peaks 0, 1, 2 for the
    posteriors attaining no, one (ω = 1), both upper bounds (Figure 6); both are Bayes-plausible;
    and τ_b does not dominate τ^g."""
    alpha = ALPHAS[2]
    mu0 = [Fraction(1, 3)] * 3
    tau_g, tau_b = geometric_structure(mu0), example2_tau_b()
    forward = uprr_dominates(tau_g, tau_b, alpha)
    backward = uprr_dominates(tau_b, tau_g, alpha)
    failures = []
    if tau_g.prior_violation(mu0, alpha) is not None or tau_b.prior_violation(mu0, alpha) is not None:
        failures.append({"problem": "not Bayes-plausible"})
    if not forward.dominates or forward.peaks != {0: 0, 1: 1, 2: 2}:
        failures.append({"problem": "τ^g does not dominate with peaks 0, 1, 2", "verdict": str(forward)})
    if backward.dominates:
        failures.append({"problem": "τ_b dominates τ^g too"})
    evidence = {"peaks of τ^g (output: peak)": forward.peaks, "τ_b fails at": str(backward.failure)}
    record = Record.one(len(mu0) - 1, str(alpha), "Example 2's τ^g and τ_b, uniform μ₀", size="N")
    return record.outcome(decide(failures, evidence), "exact: UPRR dominance both ways, Bayes plausibility")
