from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mechlib import Mechanism, compose, dp_level, is_dp, randomized_response, truncated_geometric
from mechlib.core.privacy import alpha_at_least_exp_minus, epsilon_bounds
from mechlib.strategies import alphas, dp_mechanisms, mechanisms, remaps
from tests.reference import dp_level_reference


@given(alphas(max_denominator=50), st.integers(1, 30))
def test_dp_level_of_t_is_exactly_alpha(alpha: Fraction, n: int) -> None:
    """GRS Example 2.2: T is α-DP, and no better."""
    level = dp_level(truncated_geometric(alpha, n))
    assert level.alpha == alpha
    assert level.witness is not None and level.witness.ratio == alpha


@given(mechanisms(max_n=6))
def test_dp_level_agrees_with_the_reference(x: Mechanism) -> None:
    level = dp_level(x)
    assert level.alpha == dp_level_reference(x)
    w = level.witness
    assert w is not None
    assert frozenset((w.larger, w.smaller)) in {frozenset(p) for p in x.neighbours}
    assert x.entry(w.larger, w.output) == w.larger_probability >= w.smaller_probability == x.entry(w.smaller, w.output)
    assert w.ratio == level.alpha


@given(dp_mechanisms(), st.data())
def test_post_processing_keeps_dp(case: tuple[Fraction, Mechanism], data: st.DataObject) -> None:
    """GRS Lemma 5.2: Y∘X is α-DP for every stochastic Y."""
    alpha, x = case
    assert is_dp(x, alpha)
    y = data.draw(remaps(x.outputs, data.draw(st.integers(1, 4))))
    assert dp_level(compose(y, x)).alpha >= dp_level(x).alpha >= alpha


@given(alphas(), st.integers(2, 8), st.data())
def test_moving_mass_in_t_breaks_its_level(alpha: Fraction, n: int, data: st.DataObject) -> None:
    """Negative control: move mass *into* any entry of T (keeping its row stochastic) and the level
    drops below α, whenever input i has a neighbour i' farther from r: T[i'][r] = α·T[i][r] binds.
    (In rows 0 and n, outputs on the far side have no farther neighbour: adding there stays DP.)"""
    t = truncated_geometric(alpha, n)
    i = data.draw(st.integers(0, n))
    r, s = data.draw(st.lists(st.integers(0, n), min_size=2, max_size=2, unique=True))
    assume((r <= i < n) or (0 < i <= r))
    rows = [list(row) for row in t.rows]
    eps = rows[i][s] / 7
    rows[i][r] += eps
    rows[i][s] -= eps
    mutated = Mechanism(rows)
    assert not is_dp(mutated, alpha)
    assert dp_level(mutated).alpha < alpha


def test_zero_beside_nonzero_gives_zero_with_witness() -> None:
    x = Mechanism([[1, 0], ["1/2", "1/2"]])
    level = dp_level(x)
    assert level.alpha == 0
    assert level.witness is not None
    assert (level.witness.larger, level.witness.smaller, level.witness.output) == (1, 0, 1)


def test_zero_over_zero_is_one() -> None:
    x = Mechanism([[1, 0, 0], ["1/2", "1/2", 0]])
    assert dp_level(x).alpha == 0
    assert dp_level(Mechanism([["1/2", "1/2", 0], ["1/2", "1/2", 0]])).alpha == 1


def test_custom_neighbour_graph() -> None:
    rr = randomized_response("1/4", 3)
    x = Mechanism([list(r) for r in rr.rows], neighbours=[(0, 2)])
    assert dp_level(x).alpha == Fraction(1, 4)
    single = Mechanism([["1/2", "1/2"]])
    assert dp_level(single).alpha == 1 and dp_level(single).witness is None
    no_edges = Mechanism([[1, 0], [0, 1]], neighbours=[])
    assert dp_level(no_edges).alpha == 1 and dp_level(no_edges).witness is None


def test_is_dp_threshold_is_exact() -> None:
    t = truncated_geometric("1/3", 10)
    assert is_dp(t, "1/3")
    assert not is_dp(t, Fraction(1, 3) + Fraction(1, 10**30))


def test_epsilon_decisions_are_exact() -> None:
    half = Fraction(1, 2)  # ln 2 = 0.69314718055994530941 72…
    bounds = epsilon_bounds(half, digits=20)
    assert bounds is not None
    lo, hi = bounds
    assert Fraction("0.69314718055994530941") < lo < hi < Fraction("0.69314718055994530942")
    assert alpha_at_least_exp_minus(half, Fraction("0.6932"))
    assert not alpha_at_least_exp_minus(half, Fraction("0.6931"))
    assert alpha_at_least_exp_minus(Fraction(1), Fraction(0))
    assert not alpha_at_least_exp_minus(Fraction(99, 100), Fraction(0))
    assert epsilon_bounds(Fraction(0)) is None


@pytest.mark.parametrize("digits", [1, 12, 40])
def test_epsilon_bounds_width(digits: int) -> None:
    bounds = epsilon_bounds(Fraction(1, 3), digits)
    assert bounds is not None and bounds[1] - bounds[0] < Fraction(1, 10**digits)


def test_a_constant_mechanisms_witness_is_not_zero_over_zero() -> None:
    from mechlib.core.mechanism import Mechanism
    from mechlib.core.privacy import dp_level

    level = dp_level(Mechanism([[0, 1], [0, 1], [0, 1]]))
    assert level.alpha == 1 and level.witness is not None
    assert level.witness.output == 1 and level.witness.larger_probability == level.witness.smaller_probability == 1


@given(mechanisms(max_n=5), st.lists(st.sampled_from([1, 3, 10**300, 7**400 * 2**90]), min_size=7, max_size=7))
def test_dp_level_over_long_row_denominators_agrees_with_the_reference(x: Mechanism, scales: list[int]) -> None:
    """Rows over different denominators of hundreds of digits (the exponential mechanism's at n = 1000)
    go through the float screen of dp_level: the same exact level and a witness attaining it."""
    num, den = x.scaled()
    scaled = Mechanism.from_scaled(
        [[v * s for v in row] for row, s in zip(num, scales)], [d * s for d, s in zip(den, scales)], outputs=x.outputs
    )
    level = dp_level(scaled)
    assert level.alpha == dp_level_reference(x)
    assert level.witness is not None and level.witness.ratio == level.alpha
