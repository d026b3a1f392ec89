"""GS-LP (GS §2.4.3, §2.5): The optimal randomized interaction LP and the minimax optimal-mechanism
LP.

Every check part of this claim is here (``mechlib verify --only GS-LP``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.users import MinimaxUser, absolute_loss
from mechlib.optimality.minimax import optimal_interaction, optimal_minimax_mechanism
from mechlib.proofs.registry import Outcome, Record, check, decide


@check("GS-LP", kind="EXACT")
def exact_gs_lps_certified() -> Outcome:
    """Both GS LPs solved and exactly certified (λ-certificates re-checked) on instances."""
    from mechlib.optimality.minimax import check_interaction_certificate, check_minimax_certificate

    failures: list[dict[str, Any]] = []
    cases = []
    record = Record()
    for n, alpha, side in ((3, Fraction(1, 4), range(4)), (4, Fraction(1, 2), [0, 2]), (5, Fraction(2, 3), [1, 4, 5])):
        user = MinimaxUser(side, absolute_loss(n))
        best = optimal_minimax_mechanism(user, alpha)
        t = truncated_geometric(alpha, n)
        interaction = optimal_interaction(t, user)
        if check_minimax_certificate(best.mechanism, user, alpha, best.weights, best.dual) is not None:
            failures.append({"n": n, "lp": "optimal mechanism"})
        if check_interaction_certificate(t, user, interaction.remap, interaction.weights) is not None:
            failures.append({"n": n, "lp": "optimal interaction"})
        cases.append({"n": n, "alpha": format_fraction(alpha), "S": list(side), "optimum": format_fraction(best.value)})
        record.ran(n, alpha, "a minimax user with the absolute loss")
    method = "exact rationals: both GS LPs solved, their λ-certificates re-checked"
    return record.outcome(decide(failures, {"instances": cases}), method)
