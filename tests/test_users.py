from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechlib import (
    BayesUser,
    InputError,
    Loss,
    MinimaxUser,
    Prior,
    absolute_loss,
    binary_loss,
    power_loss,
    squared_loss,
)


def test_prior_validation() -> None:
    assert Prior(["1/4", "3/4"]).probabilities == (Fraction(1, 4), Fraction(3, 4))
    with pytest.raises(InputError, match=r"field 'prior': the prior sums to 9/10, not exactly 1"):
        Prior(["0.5", "0.4"])
    with pytest.raises(InputError, match=r"p\[1\] = -1/2 is negative"):
        Prior(["3/2", "-1/2"])
    with pytest.raises(InputError, match="column 1: cannot read 'x'"):
        Prior(["1", "x"])
    assert Prior.from_weights([1, 3]).probabilities == (Fraction(1, 4), Fraction(3, 4))
    assert Prior.uniform(3).has_full_support() and not Prior.point(3, 1).has_full_support()


@pytest.mark.parametrize(
    ("loss", "legal", "strict"),
    [
        (absolute_loss(4), True, True),
        (squared_loss(4), True, True),
        (binary_loss(4), True, False),
        (power_loss(4, 3), True, True),
        (power_loss(1, "1/2"), True, True),  # distances 0 and 1 only: d^(1/2) is rational
        # GRS Figure 5(b)-style illegal loss: depends on the direction of the error.
        (Loss([[0, 1, 2], [1, 0, 2], [2, 1, 0]]), False, False),
        # Decreasing in the distance.
        (Loss([[0, 2, 1], [2, 0, 2], [1, 2, 0]]), False, False),
    ],
)
def test_legality(loss: Loss, legal: bool, strict: bool) -> None:
    assert loss.is_legal() is legal
    assert loss.is_strictly_legal() is strict


def test_power_loss_with_square_distances() -> None:
    loss = Loss.from_function(3, lambda i, j: abs(i - j) ** 2)
    assert power_loss(3, 2) == loss


def test_legality_violation_says_where() -> None:
    violation = Loss([[0, 1, 2], [1, 0, 2], [2, 1, 0]]).legality_violation()
    assert violation is not None
    assert violation.describe() == "l(1, 0) = 1 and l(1, 2) = 2: depends on more than |j − i|"
    flat = binary_loss(2).legality_violation(strict=True)
    assert flat is not None and "not increasing" in flat.describe()


@given(st.integers(1, 6), st.data())
def test_random_nondecreasing_profiles_are_legal(n: int, data: st.DataObject) -> None:
    steps = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    profile = [sum(steps[:d]) for d in range(n + 1)]
    loss = Loss.from_function(n, lambda i, j: profile[abs(i - j)])
    assert loss.is_legal()
    assert loss.is_strictly_legal() == all(steps)


def test_power_loss_irrational_is_refused() -> None:
    with pytest.raises(InputError, match=r"2\^3/2 is irrational"):
        power_loss(5, "3/2")
    with pytest.raises(InputError, match="exponent > 0"):
        power_loss(5, 0)


def test_loss_shape_and_users() -> None:
    with pytest.raises(InputError, match=r"row 1: .*has 1 entries, expected 2"):
        Loss([[0, 1], [1]])
    with pytest.raises(InputError, match=r"on 0\.\.2 but the loss is on 0\.\.3"):
        BayesUser(Prior.uniform(2), absolute_loss(3))
    with pytest.raises(InputError, match="side information S is empty"):
        MinimaxUser([], absolute_loss(3))
    with pytest.raises(InputError, match=r"S contains \[7\]"):
        MinimaxUser([0, 7], absolute_loss(3))
    assert MinimaxUser([1, 2], absolute_loss(3)).n == 3
