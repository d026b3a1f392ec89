"""GRS-C3.3 (GRS Corollary 3.3): The geometric and truncated geometric mechanisms are universally
utility-maximizing.

Every check part of this claim is here (``mechlib verify --only GRS-C3.3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import FUZZ, SMT
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.registry import Outcome, check, measured, with_scope
from mechlib.proofs.shared.encodings import dominance_query
from mechlib.proofs.shared.generators import USERS_AND_ALPHAS, best_remap_loss, legal_user
from mechlib.proofs.smt import proved_if_unsat, run


@check("GRS-C3.3", kind=SMT)
def smt_geometric_dominates() -> Outcome:
    """GRS Cor. 3.3, bounded: the geometric mechanism (range ℤ, on the window −1..n+1 with lumped
    tails) has, for every α-DP X on 0..n, a remap Y whose error tails are nowhere above X's."""
    from mechlib.core.families import geometric

    parts = {}
    alphas, sizes = (Fraction(1, 2), Fraction(1, 3)), (1, 2)
    for alpha in alphas:
        for n in sizes:
            solver, _ = dominance_query(n, alpha, geometric(alpha, n, margin=1))
            parts[f"geometric, n={n}, α={format_fraction(alpha)}"] = run(solver)
    method = "z3 qsat + cvc5: ∀X∃Y, base = geometric on a window"
    return with_scope(proved_if_unsat(parts), measured(method, n=sizes, alphas=alphas, every_object=True))


def geometric_is_optimal(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
    """GRS-C3.3: the geometric mechanism (a window of ℤ) with its optimal remap reaches the optimum."""
    user, alpha = case
    optimum = optimal_bayes_mechanism(user, alpha).value
    mine = best_remap_loss(geometric(alpha, user.n, margin=2), user)
    return None if mine == optimum else {"lp_optimum": optimum, "geometric_with_optimal_remap": mine}


@check("GRS-C3.3", kind=FUZZ)
def fuzz_geometric() -> Outcome:
    return fuzz("GRS-C3.3", USERS_AND_ALPHAS, geometric_is_optimal, 30, drawn=user_first, hypothesis=legal_user)
