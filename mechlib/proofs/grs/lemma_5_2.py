"""GRS-L5.2 (GRS Lemma 5.2): Direct mechanisms suffice: Y∘X is DP and direct for an optimal Y.

Every check part of this claim is here (``mechlib verify --only GRS-L5.2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric, randomized_response
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import dp_level
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser, Prior, absolute_loss, squared_loss
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.encodings import HALF, THIRD
from mechlib.proofs.shared.generators import best_remap_loss, dp_mechanisms
from mechlib.strategies import legal_losses, priors


def direct_mechanisms_suffice(case: tuple[tuple[Fraction, Mechanism], BayesUser]) -> dict[str, Any] | None:
    """GRS-L5.2: Z = Y∘X (Y optimal) is α-DP, has X's loss, and is direct (face value is optimal)."""
    (alpha, x), user = case
    z = compose(optimal_remap(x, user), x)
    if dp_level(z).alpha < alpha:
        return {"problem": "Y∘X is not α-DP", "alpha": alpha}
    if expected_loss(z, user) != best_remap_loss(x, user) or best_remap_loss(z, user) != expected_loss(z, user):
        return {"problem": "Y∘X is not direct or loses more", "face_value": expected_loss(z, user)}
    return None


@st.composite
def mixtures_with_users(draw: st.DrawFn) -> tuple[tuple[Fraction, Mechanism], BayesUser]:
    alpha, x = draw(dp_mechanisms(max_n=5))
    return (alpha, x), BayesUser(draw(priors(x.n)), draw(legal_losses(x.n)))


@check("GRS-L5.2", kind=FUZZ)
def fuzz_direct() -> Outcome:
    return fuzz("GRS-L5.2", mixtures_with_users(), direct_mechanisms_suffice, 60, drawn=lambda c: alpha_first(c[0]))


@check("GRS-L5.2", kind=EXACT)
def exact_direct_mechanisms_suffice() -> Outcome:
    """For non-direct mechanisms (the geometric mechanism on a window of ℤ, randomized response)
    and standard users: Z = Y∘X with Y optimal is α-DP, direct (face value optimal for Z) and loses
    exactly X's optimum."""
    failures: list[dict[str, Any]] = []
    count = 0
    record = Record()
    for alpha in (HALF, THIRD):
        for n in (2, 3, 4):
            mechanisms = {"geometric on a window of ℤ": geometric(alpha, n, margin=2),
                          "randomized response": randomized_response(alpha, n + 1)}  # fmt: skip
            for name, x in mechanisms.items():
                for user in (BayesUser(Prior.uniform(n), loss(n)) for loss in (absolute_loss, squared_loss)):
                    z = compose(optimal_remap(x, user), x)
                    best = expected_loss(x, user, optimal_remap(x, user))
                    direct = expected_loss(z, user) == expected_loss(z, user, optimal_remap(z, user)) == best
                    count += 1
                    if dp_level(z).alpha < alpha or not direct:
                        failures.append({"n": n, "alpha": format_fraction(alpha), "mechanism": str(x)})
                    record.ran(n, alpha, name)
    method = "exact rationals: the uniform prior with the absolute and the squared loss"
    return record.outcome(decide(failures, {"instances": count}), method)
