"""GRS-L5.10 (GRS Lemma 5.10): Every optimal vertex is a deterministic remap of T, built from its
signature.

Every check part of this claim is here (``mechlib verify --only GRS-L5.10``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.signature import remap_from_signature, signature
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import decide_on_optimal
from mechlib.proofs.shared.generators import strict_users
from mechlib.strategies import alphas


def vertex_is_a_remap_of_t(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
    """GRS-L5.10: full-support prior, strictly legal loss: the optimal vertex is Y∘T with Y built
    from its signature."""
    user, alpha = case
    return remap_violation(optimal_bayes_mechanism(user, alpha).mechanism, alpha)


def remap_violation(x: Mechanism, alpha: Fraction) -> dict[str, Any] | None:
    """Unless x = Y∘T for the deterministic remap Y built from x's signature (GRS Lemma 5.10)."""
    try:
        y = remap_from_signature(signature(x, alpha))
    except Exception as err:
        return {"problem": str(err), "vertex": x}
    return None if compose(y, truncated_geometric(alpha, x.n)) == x else {"vertex": x, "remap": y}


@check("GRS-L5.10", kind=FUZZ)
def fuzz_vertex_remap() -> Outcome:
    return fuzz("GRS-L5.10", st.tuples(strict_users(), alphas(max_denominator=9)), vertex_is_a_remap_of_t, 30,
                drawn=user_first)  # fmt: skip


@check("GRS-L5.10", kind=EXACT)
def exact_vertex_remap() -> Outcome:
    """Every optimal vertex of every full-support, strictly legal user at n ≤ 3 is Y∘T, Y built
    from its signature."""
    return decide_on_optimal(remap_violation, what="every vertex not dominated", largest_set=1)
