"""FUZZ claims of GRS decided on random exact instances (``mechlib.proofs.fuzz``).

Each property returns None when an example satisfies the claim, else an exact description of
the violation; the tests feed every property a negative control that must be reported.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.signature import Signature, signature
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.strategies import (
    alphas,
    bayes_users,
    dp_mixtures,
    dp_vertices,
    legal_losses,
    priors,
)


def best_remap_loss(x: Any, user: BayesUser) -> Fraction:
    return expected_loss(x, user, optimal_remap(x, user))


@st.composite
def strict_users(draw: st.DrawFn, max_n: int = 5) -> BayesUser:
    n = draw(st.integers(1, max_n))
    return BayesUser(draw(priors(n, full_support=True)), draw(legal_losses(n, strict=True)))


def dp_mechanisms(max_n: int) -> st.SearchStrategy[tuple[Fraction, Mechanism]]:
    """α-DP mechanisms of two kinds: mixtures of randomized response with remaps of T (for which
    many properties nearly hold by construction) and certified vertices of the α-DP polytope
    (optimal for a random, usually illegal objective; often not derivable from T)."""
    return st.one_of(dp_mixtures(max_n=max_n), dp_vertices(max_n=min(max_n, 4)))


USERS_AND_ALPHAS = st.tuples(bayes_users(max_n=5), alphas(max_denominator=9))


# -- optimal vertices (GRS §5.3–5.4), GS Theorem 2, dominance, minimax users -----------------------


def on_optimal_vertex(
    test: Callable[[Signature], dict[str, Any] | None],
) -> Callable[[tuple[BayesUser, Fraction]], dict[str, Any] | None]:
    """The property ``test`` of the signature of the user's certified optimal vertex."""

    def prop(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
        user, alpha = case
        return test(signature(optimal_bayes_mechanism(user, alpha).mechanism, alpha))

    return prop


STRICT_USERS_AND_ALPHAS = st.tuples(strict_users(), alphas(max_denominator=9))


# -- the theorems' hypotheses, checked exactly on every draw (mechlib.proofs.fuzz.fuzz) ------------


def legal_user(case: tuple[BayesUser, Fraction]) -> str | None:
    """The user's loss is legal (GRS §2.2) and 0 < α < 1."""
    user, alpha = case
    bad = user.loss.legality_violation()
    if bad is not None:
        return f"illegal loss: {bad}"
    return None if 0 < alpha < 1 else f"α = {alpha} is not in (0, 1)"


def alpha_dp(case: tuple[Fraction, Mechanism]) -> str | None:
    """The mechanism is α-DP (its exact DP level is at least α)."""
    from mechlib.core.privacy import dp_level

    alpha, mechanism = case
    level = dp_level(mechanism).alpha
    return None if level >= alpha else f"the mechanism's DP level {level} is below α = {alpha}"
