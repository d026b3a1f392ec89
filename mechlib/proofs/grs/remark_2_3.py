"""GRS-R2.3 (GRS §2.3): The optimal remap is deterministic (posterior then argmin) and equals the
best randomized remap.

Every check part of this claim is here (``mechlib verify --only GRS-R2.3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

from hypothesis import strategies as st

from mechlib.core.exact import format_fraction
from mechlib.core.families import randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.users import BayesUser, Loss, Prior, absolute_loss, binary_loss
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.encodings import HALF, THIRD
from mechlib.proofs.shared.generators import best_remap_loss
from mechlib.proofs.shared.printed import GS_APPENDIX_B
from mechlib.strategies import priors, remaps, stochastic_rows


def optimal_remap_is_best(case: tuple[Mechanism, BayesUser, Any]) -> dict[str, Any] | None:
    """GRS-R2.3: posterior-then-argmin is the best deterministic remap (by enumeration) and no
    worse than a random randomized remap."""
    x, user, randomized = case
    mine = best_remap_loss(x, user)
    n, p, loss = user.n, user.prior.probabilities, user.loss.matrix
    brute = min(
        sum((p[i] * x.rows[i][r] * loss[i][g[r]] for i in range(n + 1) for r in range(len(x.outputs))), Fraction(0))
        for g in product(range(n + 1), repeat=len(x.outputs))
    )
    if mine != brute or mine > expected_loss(x, user, randomized):
        return {"optimal_remap": mine, "best_deterministic": brute}
    return None


@st.composite
def small_mechanisms_and_users(draw: st.DrawFn) -> tuple[Mechanism, BayesUser, Any]:
    n = draw(st.integers(1, 3))
    x = Mechanism(draw(stochastic_rows(n + 1, draw(st.integers(1, 4)))))
    prior = draw(priors(n))
    loss = Loss(
        draw(st.lists(st.lists(st.integers(0, 6), min_size=n + 1, max_size=n + 1), min_size=n + 1, max_size=n + 1))
    )
    return x, BayesUser(prior, loss), draw(remaps(x.outputs, n + 1))


@check("GRS-R2.3", kind=FUZZ)
def fuzz_optimal_remap() -> Outcome:
    return fuzz("GRS-R2.3", small_mechanisms_and_users(), optimal_remap_is_best, 60,
                drawn=lambda c: (c[0].n, "none: any mechanism"))  # fmt: skip


def _small_users(n: int) -> list[BayesUser]:
    skewed = Prior([Fraction(k + 1) / ((n + 1) * (n + 2) // 2) for k in range(n + 1)])
    return [BayesUser(prior, loss(n)) for prior in (Prior.uniform(n), skewed) for loss in (absolute_loss, binary_loss)]


@check("GRS-R2.3", kind=EXACT)
def exact_optimal_remap_by_enumeration() -> Outcome:
    """Posterior-then-argmin reaches the minimum over *every* deterministic remap (enumerated), and
    a randomized remap's loss is an average of deterministic ones, so none does better (GRS §2.3)."""
    failures: list[dict[str, Any]] = []
    count = 0
    record = Record()
    for n in (1, 2, 3):
        mechanisms = {
            "T": (HALF, truncated_geometric(HALF, n)),
            "randomized response": (THIRD, randomized_response(THIRD, n + 1)),
        }
        if n == 3:
            mechanisms["GS Appendix B's matrix"] = (HALF, GS_APPENDIX_B)
        for name, (alpha, x) in mechanisms.items():
            for user in _small_users(n):
                p, loss = user.prior.probabilities, user.loss.matrix
                brute = min(
                    sum(
                        (p[i] * x.rows[i][r] * loss[i][g[r]] for i in range(n + 1) for r in range(len(x.outputs))),
                        Fraction(0),
                    )
                    for g in product(range(n + 1), repeat=len(x.outputs))
                )
                count += 1
                if expected_loss(x, user, optimal_remap(x, user)) != brute:
                    failures.append({"n": n, "mechanism": str(x), "best": format_fraction(brute)})
                record.ran(n, alpha, name)
    method = "enumeration of every deterministic remap; uniform and skewed priors × absolute and binary losses"
    return record.outcome(decide(failures, {"instances": count}), method)
