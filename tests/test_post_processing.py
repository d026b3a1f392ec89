from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechlib import (
    BayesUser,
    InputError,
    Loss,
    Mechanism,
    MinimaxUser,
    Prior,
    Remap,
    absolute_loss,
    binary_loss,
    compose,
    expected_loss,
    geometric,
    optimal_remap,
    posterior,
    squared_loss,
    truncated_geometric,
)
from mechlib.strategies import alphas, remaps, stochastic_rows
from tests.reference import best_deterministic_loss


@st.composite
def small_cases(draw: st.DrawFn) -> tuple[Mechanism, BayesUser]:
    n = draw(st.integers(1, 3))
    x = Mechanism(draw(stochastic_rows(n + 1, draw(st.integers(1, 4)))))
    prior = Prior.from_weights(draw(st.lists(st.integers(0, 5), min_size=n + 1, max_size=n + 1).filter(any)))
    values = draw(st.lists(st.lists(st.integers(0, 6), min_size=n + 1, max_size=n + 1), min_size=n + 1, max_size=n + 1))
    return x, BayesUser(prior, Loss(values))


@given(small_cases())
def test_optimal_remap_beats_every_deterministic_remap(case: tuple[Mechanism, BayesUser]) -> None:
    """GRS §2.3: posterior-then-argmin is the best deterministic remap (checked by enumeration)."""
    x, user = case
    y = optimal_remap(x, user)
    assert y.is_deterministic()
    assert expected_loss(x, user, y) == best_deterministic_loss(x, user)


@given(small_cases(), st.data())
def test_no_randomized_remap_does_better(case: tuple[Mechanism, BayesUser], data: st.DataObject) -> None:
    """GRS-R2.3: the deterministic optimum is at most the loss of any randomized remap."""
    x, user = case
    y = data.draw(remaps(x.outputs, user.n + 1))
    assert expected_loss(x, user, optimal_remap(x, user)) <= expected_loss(x, user, y)


@given(alphas(), st.integers(1, 6))
def test_t_is_direct_for_uniform_absolute_users(alpha: Fraction, n: int) -> None:
    """The optimal remap is never worse than face value (the identity is one of the remaps)."""
    t = truncated_geometric(alpha, n)
    user = BayesUser(Prior.uniform(n), absolute_loss(n))
    assert expected_loss(t, user, optimal_remap(t, user)) <= expected_loss(t, user)


@pytest.mark.parametrize("n", [1, 3, 5, 7, 9])
@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(4, 5)])
def test_grs_example_2_3(n: int, alpha: Fraction) -> None:
    """GRS Ex 2.3: face value loses 2α/(1+α); the threshold remap α^((n+1)/2)/(1+α), optimal."""
    g = geometric(alpha, n)
    user = BayesUser(Prior([Fraction(1, 2)] + [0] * (n - 1) + [Fraction(1, 2)]), binary_loss(n))
    face = sum(p * (1 - g.entry(i, i)) for i, p in enumerate(user.prior.probabilities))
    assert face == 2 * alpha / (1 + alpha)
    half = (n + 1) // 2
    threshold = Remap.deterministic(lambda r: n if r >= half else 0, g.outputs, range(n + 1))
    assert expected_loss(g, user, threshold) == alpha**half / (1 + alpha)
    assert expected_loss(g, user, optimal_remap(g, user)) == alpha**half / (1 + alpha)
    # Negative control: moving the threshold one step is worse (n ≥ 3 so both sides are nonempty).
    if n >= 3:
        shifted = Remap.deterministic(lambda r: n if r >= half + 1 else 0, g.outputs, range(n + 1))
        assert expected_loss(g, user, shifted) > alpha**half / (1 + alpha)


def test_tie_rule_prefers_face_value_then_nearest() -> None:
    t = truncated_geometric("1/2", 4)
    point = BayesUser(Prior.point(4, 2), absolute_loss(4))
    y = optimal_remap(t, point).as_mapping()
    assert y == {r: 2 for r in range(5)}
    nobody = BayesUser(Prior([Fraction(1, 2), Fraction(1, 2), 0, 0, 0]), binary_loss(4))
    m = Mechanism([[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]] + [[0, 0, 0, 0, 1]] * 3)
    mapping = optimal_remap(m, nobody).as_mapping()
    assert mapping[2] == 2 and mapping[3] == 3  # zero-probability outputs: every guess ties


def test_posterior() -> None:
    t = truncated_geometric("1/2", 1)  # [[2/3, 1/3], [1/3, 2/3]]
    assert posterior(t, Prior.uniform(1), 0) == (Fraction(2, 3), Fraction(1, 3))
    m = Mechanism([[1, 0], [1, 0]])
    assert posterior(m, Prior.uniform(1), 1) is None


def test_minimax_loss() -> None:
    t = truncated_geometric("1/2", 2)  # rows [2/3,1/6,1/6], [1/3,1/3,1/3], [1/6,1/6,2/3]
    # absolute loss per input: 1/6·1 + 1/6·2 = 1/2, 1/3 + 1/3 = 2/3, 1/2
    assert expected_loss(t, MinimaxUser([0, 1], absolute_loss(2))) == Fraction(2, 3)
    assert expected_loss(t, MinimaxUser([0], absolute_loss(2))) == Fraction(1, 2)
    # squared loss per input: 1/6·1 + 1/6·4 = 5/6, 2/3, 5/6
    assert expected_loss(t, MinimaxUser([1], squared_loss(2))) == Fraction(2, 3)
    assert expected_loss(t, MinimaxUser(range(3), squared_loss(2))) == Fraction(5, 6)


def test_expected_loss_needs_guesses_in_range() -> None:
    g = geometric("1/2", 2, margin=1)
    user = BayesUser(Prior.uniform(2), absolute_loss(2))
    with pytest.raises(InputError, match=r"outputs \[-1, 3\] are not guesses in 0..2"):
        expected_loss(g, user)
    assert expected_loss(g, user, optimal_remap(g, user)) <= expected_loss(compose(optimal_remap(g, user), g), user)
    with pytest.raises(InputError, match="same n"):
        expected_loss(truncated_geometric("1/2", 3), user)


def test_optimal_remap_at_scale_is_exact() -> None:
    t = truncated_geometric("1/3", 120)
    user = BayesUser(Prior.uniform(120), absolute_loss(120))
    assert optimal_remap(t, user).as_mapping() == {i: i for i in range(121)}
