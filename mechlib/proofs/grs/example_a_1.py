"""GRS-EA.1 (GRS Example A.1): α=1/2, n=1, uniform prior, binary loss: T loses 1/3, the Laplace
mechanism 1/(2√2) ≈ 0.354.

Every check part of this claim is here (``mechlib verify --only GRS-EA.1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from mechlib.core.exact import format_fraction
from mechlib.proofs.catalogue import SYM
from mechlib.proofs.registry import Outcome, Record, check, decide


@check("GRS-EA.1", kind=SYM)
def sym_laplace_example() -> Outcome:
    """α = 1/2, n = 1, uniform prior, binary loss: T loses 1/3; Laplace noise (density
    ε/2·e^(−ε|t|), ε = ln 2) read by the threshold 1/2 (the likelihood-ratio rule) loses
    P[L > 1/2] = 1/(2√2); and 1/(2√2) > 1/3 (squares: 1/8 > 1/9)."""
    from mechlib.core.families import truncated_geometric
    from mechlib.core.post_processing import expected_loss, optimal_remap
    from mechlib.core.users import BayesUser, Prior, binary_loss

    t = sp.Symbol("t", real=True)
    eps = sp.log(2)
    mech = truncated_geometric(Fraction(1, 2), 1)  # T's loss computed, not assumed
    user = BayesUser(Prior.uniform(1), binary_loss(1))
    t_loss = expected_loss(mech, user, optimal_remap(mech, user))
    laplace = sp.simplify(sp.integrate(eps / 2 * sp.exp(-eps * t), (t, sp.Rational(1, 2), sp.oo)))
    # 1/(2√2) > T's loss ⇔ 1/8 > loss² (both positive)
    facts = {
        "T loses 1/3": t_loss == Fraction(1, 3),
        "Laplace loses 1/(2√2)": sp.simplify(laplace - 1 / (2 * sp.sqrt(2))) == 0,
        "1/(2√2) > T's loss": t_loss > 0 and Fraction(1, 8) > t_loss * t_loss,
    }
    evidence = {"T loss": format_fraction(t_loss), "laplace": str(laplace), "checked": list(facts)}
    outcome = decide([{k: False} for k, ok in facts.items() if not ok], evidence)
    record = Record.one(mech.n, Fraction(1, 2), "uniform prior, binary loss")
    return record.outcome(outcome, "sympy: the Laplace tail integral; exact rationals: T's loss")
