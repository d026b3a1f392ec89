"""SY-T2 (SY Theorem 2): Categorical data, symmetric prior: K_Ω = P·K.

Every check part of this claim is here (``mechlib verify --only SY-T2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction

from mechlib.infodesign.databases import DatabaseSpace, exchangeable_prior, iid_prior
from mechlib.proofs.catalogue import EXACT, SMT
from mechlib.proofs.registry import Outcome, check, decide
from mechlib.proofs.shared.privacy_set_instances import ALPHAS, _name, lifts_fail, projection_escapes
from mechlib.proofs.shared.privacy_set_smt import _equality, databases, iid
from mechlib.proofs.smt import proved_if_unsat


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


@check("SY-T2", kind=EXACT)
def categorical_anonymous_equal() -> Outcome:
    """T = 1, N ∈ {2, 3, 4}, i.i.d. and exchangeable (non-i.i.d.) priors, α ∈ {1/2, 1/3, e^−1}:
    P(ext K) ⊆ K_Ω and every vertex of K_Ω lifts into K — so PK = K_Ω exactly."""
    failures, count = [], 0
    for n in (2, 3, 4):
        space = DatabaseSpace(n, 1)
        priors = {
            "iid(2/3,1/3)": iid_prior(space, ["2/3", "1/3"]),
            "exchangeable": exchangeable_prior(space, lambda h: 1 + (h[1] - 1) ** 2),
        }
        for label, prior in priors.items():
            for alpha in ALPHAS:
                out, up = projection_escapes(space, prior, alpha), lifts_fail(space, prior, alpha)
                count += 1
                if out or up:
                    failures.append({"instance": _name(space, alpha, label), "escapes": out[:1], "no lift": up[:1]})
    return decide(failures, {"instances": count, "method": "vertices of K (π₀·α^g) and of K_Ω"})
