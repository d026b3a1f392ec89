"""SY-T4 (SY Theorem 4): UPRR dominance ⇒ higher value in every supermodular problem.

Every check part of this claim is here (``mechlib verify --only SY-T4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.infodesign.alpha import Alpha
from mechlib.infodesign.decision import DecisionProblem, at_least
from mechlib.infodesign.info_structure import geometric_structure
from mechlib.infodesign.uprr import uprr_dominates
from mechlib.proofs.catalogue import FUZZ
from mechlib.proofs.fuzz import jsonable
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.uprr import _structure, _with_negative_control, grs_appendix_b_case


def theorem4_violation(case: Any) -> dict[str, Any] | None:
    """τ′ (oblivious DP) ⪯_UPRR τ^g and the payoff is worth at least as much under τ^g."""
    (a, mu0, sigma), u = case
    alpha = Alpha.of(a)
    tau, other = geometric_structure(mu0), _structure(sigma, mu0)
    if not uprr_dominates(tau, other, alpha).dominates:
        return {"problem": "not UPRR-ordered (SY-L2 would fail)"}
    problem = DecisionProblem.of(u)
    if not at_least(problem.value(tau, alpha), problem.value(other, alpha), alpha):
        return {"payoff": jsonable(u)}
    return None


@check("SY-T4", kind=FUZZ)
def fuzz_uprr_implies_value() -> Outcome:
    """Random τ′ (oblivious DP) ⪯_UPRR τ^g, random supermodular payoff: τ^g is worth at least τ′."""
    controls = {"GRS App. B": grs_appendix_b_case(), "SY §5.1's central-vs-extreme user": central_vs_extreme_case()}
    # random non-supermodular payoffs almost never meet a τ′ that τ^g dominates yet loses to
    # (none in 200 draws), so T4's controls are the two fixed ones
    return _with_negative_control("SY-T4", theorem4_violation, 40, controls, search=False)


def central_vs_extreme_case() -> Any:
    """SY §5.1: a user who acts on "central vs extreme" (not supermodular) prefers τ_b, which τ^g
    UPRR-dominates (α = 1/3, μ₀ uniform on ω = 0..2; τ_b's rows ∝ (1, α, 1), (α, 1, α))."""
    from mechlib.core.mechanism import Mechanism

    tau_b = Mechanism([["3/4", "1/4"], ["1/4", "3/4"], ["3/4", "1/4"]])
    central = [[Fraction(0), Fraction(1), Fraction(0)], [Fraction(1), Fraction(0), Fraction(1)]]
    return (Fraction(1, 3), [Fraction(1, 3)] * 3, tau_b), central
