"""The public strategies produce what they promise (each property decided exactly)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mechlib.strategies as public_strategies
from mechlib.core.families import truncated_geometric
from mechlib.core.privacy import is_dp
from mechlib.core.stochastic import compose
from mechlib.infodesign.decision import DecisionProblem
from mechlib.optimality.derivability import derivation_witness
from mechlib.strategies import (
    dp_vertices,
    extreme_alphas,
    illegal_losses,
    oblivious_dp_cases,
    payoffs,
    refinements_of_t,
    side_information,
)


@given(extreme_alphas())
def test_extreme_alphas_are_in_the_open_unit_interval(alpha: Fraction) -> None:
    assert 0 < alpha < 1


@given(st.integers(1, 6).flatmap(illegal_losses))
def test_illegal_losses_are_illegal(loss: Any) -> None:
    assert not loss.is_legal()


@given(st.integers(0, 6).flatmap(lambda n: st.tuples(st.just(n), side_information(n))))
def test_side_information_is_a_nonempty_subset(case: tuple[int, frozenset[int]]) -> None:
    n, s = case
    assert s and s <= set(range(n + 1))


@given(refinements_of_t())
def test_refinements_merge_back_to_t(case: Any) -> None:
    alpha, x, y = case
    assert is_dp(x, alpha) and compose(y, x) == truncated_geometric(alpha, x.n)


@given(dp_vertices(max_n=4))
def test_dp_vertices_are_dp(case: Any) -> None:
    alpha, x = case
    assert is_dp(x, alpha)
    derivation_witness(x, alpha)  # decided either way, exactly


def test_dp_vertices_include_non_derivable_ones() -> None:
    found = []

    @given(dp_vertices(max_n=4))
    def collect(case: Any) -> None:
        found.append(derivation_witness(case[1], case[0]).derivable)

    collect()
    assert False in found and True in found


@given(oblivious_dp_cases(), st.integers(2, 5).flatmap(payoffs))
def test_oblivious_cases_and_payoffs(case: Any, u: Any) -> None:
    alpha, mu0, sigma = case
    assert is_dp(sigma, alpha) and sum(mu0) == 1 and min(mu0) > 0
    assert DecisionProblem.of(u).supermodularity_violation() is None


@pytest.mark.parametrize(
    ("strategy", "message"),
    [
        (lambda: public_strategies.mechanisms(max_n=-1), "max_n=-1: expected an integer ≥ 1"),
        (lambda: public_strategies.dp_mixtures(max_n=1), "max_n=1: expected an integer ≥ 2"),
        (lambda: public_strategies.priors(n=-2), "n=-2: expected an integer ≥ 0"),
        (lambda: public_strategies.alphas(max_denominator=True), "max_denominator=True"),
        (lambda: public_strategies.payoffs(states=1, supermodular=False), "states=1: expected an integer ≥ 2"),
    ],
)
def test_bad_arguments_are_invalid_arguments_naming_them(strategy: Any, message: str) -> None:
    from hypothesis import find
    from hypothesis.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=re.escape(message)):
        find(strategy(), lambda _: True)


def test_the_public_strategies_are_listed() -> None:
    public = {name for name, value in vars(public_strategies).items()
              if not name.startswith("_") and callable(value) and value.__module__ == "mechlib.strategies"}  # fmt: skip
    assert set(public_strategies.__all__) == public
