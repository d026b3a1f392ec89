"""Certified LP results (GRS LP (3)–(7) with an exact dual; the dominance certificate of CLAIMS.md
note 1) beside HiGHS's bare float solve of the same LP, which certifies nothing."""

from __future__ import annotations

from fractions import Fraction

import pytest

from benchmarks.baselines import highs_only_bayes, highs_only_dominance
from benchmarks.conftest import Measure, size
from mechlib import BayesUser, Prior, absolute_loss, randomized_response
from mechlib.optimality.dominance import dominance_certificate
from mechlib.optimality.optimal import optimal_bayes_mechanism

N = size(100, 40)
THIRD = Fraction(1, 3)


@pytest.mark.benchmark(group=f"certified Bayes-optimal mechanism (uniform prior, absolute loss), α = 1/3, n = {N}")
@pytest.mark.parametrize("role", ["mechlib", "baseline: HiGHS float solve, no certificate"])
def test_certified_bayes_optimum(measure: Measure, role: str) -> None:
    user = BayesUser(Prior.uniform(N), absolute_loss(N))
    if role == "mechlib":
        measure(lambda: optimal_bayes_mechanism(user, THIRD), role=role, n=N, target=10.0)
    else:
        measure(lambda: highs_only_bayes(user, THIRD), role=role, n=N)


@pytest.mark.benchmark(group=f"dominance certificate of randomized response, α = 1/2, n = {N}")
@pytest.mark.parametrize("role", ["mechlib", "baseline: HiGHS float solve, no certificate"])
def test_dominance_certificate(measure: Measure, role: str) -> None:
    rr = randomized_response(Fraction(1, 2), N + 1)
    if role == "mechlib":
        measure(lambda: dominance_certificate(rr), role=role, n=N, target=30.0)
    else:
        measure(lambda: highs_only_dominance(rr), role=role, n=N)
