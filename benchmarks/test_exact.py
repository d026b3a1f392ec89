"""The exact kernels beside plain-Fraction and flint baselines (GRS Example 2.2's T, the DP level,
GRS §2.3's optimal remap, GS Theorem 2's derivability)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from benchmarks.baselines import (
    flint_solve,
    float_false_violations,
    naive_dp_level,
    naive_optimal_remap,
    naive_t,
)
from benchmarks.conftest import HEAVY_ROUNDS, Measure, size
from mechlib import BayesUser, Prior, Remap, absolute_loss, compose, dp_level, optimal_remap, truncated_geometric
from mechlib.optimality.derivability import derivation_witness

THIRD = Fraction(1, 3)
BIG = size(1000, 300)


@pytest.mark.benchmark(group=f"build T exactly, α = 1/3, n = {BIG}")
@pytest.mark.parametrize("role", ["mechlib", "baseline: Fraction list comprehension"])
def test_build_t(measure: Measure, role: str) -> None:
    if role == "mechlib":
        t = measure(lambda: truncated_geometric(THIRD, BIG), role=role, n=BIG, target=1.0)
        assert t.rows[0][0] == Fraction(3, 4)
    else:
        rows = measure(lambda: naive_t(THIRD, BIG), role=role, n=BIG)
        assert rows == [list(r) for r in truncated_geometric(THIRD, BIG).rows]


@pytest.mark.benchmark(group=f"dp_level(T), α = 1/3, n = {BIG}")
@pytest.mark.parametrize("role", ["mechlib", "baseline: plain Fraction loop"])
def test_dp_level(measure: Measure, role: str) -> None:
    t = truncated_geometric(THIRD, BIG)
    if role == "mechlib":
        level = measure(lambda: dp_level(t), role=role, n=BIG, target=1.0, min_speedup=5.0)
        assert level.alpha == THIRD
    else:
        rows = [list(r) for r in t.rows]
        assert measure(lambda: naive_dp_level(rows), role=role, n=BIG) == THIRD


@pytest.mark.benchmark(group="float DP check of T, α = 1/3, n = 200 (contrast: wrong)")
def test_float_dp_check_is_fast_and_wrong(measure: Measure) -> None:
    wrong = measure(lambda: float_false_violations(THIRD, 200), role="contrast", n=200)
    measure.note(f"{wrong} false violations on an exactly 1/3-DP mechanism: floats cannot decide")
    assert wrong > 0  # T is exactly 1/3-DP: every flag is a float's error


N_REMAP = size(200, 80)


@pytest.mark.benchmark(group=f"optimal Bayes remap of T (uniform prior, absolute loss), n = {N_REMAP}")
@pytest.mark.parametrize("role", ["mechlib", "baseline: Fraction loops"])
def test_optimal_remap(measure: Measure, role: str) -> None:
    t = truncated_geometric(THIRD, N_REMAP)
    user = BayesUser(Prior.uniform(N_REMAP), absolute_loss(N_REMAP))
    if role == "mechlib":
        measure(lambda: optimal_remap(t, user), role=role, n=N_REMAP, target=0.5)
    else:
        rows, prior = [list(r) for r in t.rows], list(user.prior.probabilities)
        loss = [[abs(i - j) for j in range(N_REMAP + 1)] for i in range(N_REMAP + 1)]
        guesses = measure(lambda: naive_optimal_remap(rows, prior, loss), role=role, n=N_REMAP)
        assert guesses == list(optimal_remap(t, user).as_mapping().values())


@pytest.mark.benchmark(group=f"derivability T⁻¹M ≥ 0 (GS Thm 2) of a remap of T, n = {BIG}")
@pytest.mark.parametrize("role", ["mechlib", "baseline: flint general exact solve"])
def test_derivability(measure: Measure, role: str) -> None:
    t = truncated_geometric(THIRD, BIG)
    m = compose(Remap.deterministic(lambda r: r // 2, t.outputs, range(BIG // 2 + 1)), t)
    if role == "mechlib":
        found = measure(lambda: derivation_witness(m, THIRD), role=role, n=BIG, rounds=HEAVY_ROUNDS, target=1.0)
        assert found.remap is not None
    else:
        solved = measure(lambda: flint_solve(t, m), role=role, n=BIG, rounds=HEAVY_ROUNDS)
        assert all(solved[r, j] >= 0 for r in range(BIG + 1) for j in range(BIG // 2 + 1))
