from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechlib import (
    InputError,
    constant,
    dp_level,
    exponential,
    geometric,
    identity,
    randomized_response,
    rounded_laplace,
    rounded_laplace_bounds,
    truncated_geometric,
)
from mechlib.core.families import rational_sqrt, sqrt_bounds
from mechlib.proofs.grs.example_2_2 import FIGURE_1A, FIGURE_1B
from mechlib.strategies import alphas


def test_grs_figure_1b_exactly() -> None:
    assert [list(r) for r in truncated_geometric("1/2", 5).rows] == FIGURE_1B


def test_grs_figure_1a_exactly() -> None:
    g = geometric("1/2", 5, margin=2)
    assert g.outputs == tuple(range(-2, 8))
    assert [list(r[1:-1]) for r in g.rows] == FIGURE_1A
    # The end outputs carry the tails: P[out ≤ −2 | i] = α^(i+2)/(1+α).
    assert [r[0] for r in g.rows] == [Fraction(1, 2) ** (i + 2) / Fraction(3, 2) for i in range(6)]


@given(alphas(), st.integers(1, 8))
def test_t_formula(alpha: Fraction, n: int) -> None:
    t = truncated_geometric(alpha, n)
    for i in range(n + 1):
        for r in range(n + 1):
            scale = 1 / (1 + alpha) if r in (0, n) else (1 - alpha) / (1 + alpha)
            assert t.entry(i, r) == alpha ** abs(i - r) * scale


@given(
    st.one_of(alphas(), st.sampled_from([Fraction(0), Fraction(1), Fraction(1, 10**30)])),
    st.integers(1, 12),
    st.integers(0, 4),
)
def test_the_geometric_rows_are_stochastic_by_their_identity(alpha: Fraction, n: int, margin: int) -> None:
    """T and the geometric mechanism skip the row-sum check (``stochastic_by_construction``):
    every row is nonnegative and sums to its denominator, as the telescoping identity says."""
    from mechlib.core.stochastic import _check_stochastic

    for mechanism in (truncated_geometric(alpha, n), geometric(alpha, n, margin=margin)):
        _check_stochastic(mechanism._num, mechanism._den)  # raises InputError naming the row


def test_extreme_alphas() -> None:
    assert truncated_geometric(0, 3) == identity(3)
    assert truncated_geometric(1, 2).rows == ((Fraction(1, 2), Fraction(0), Fraction(1, 2)),) * 3
    assert dp_level(identity(3)).alpha == 0
    assert dp_level(constant(3, output=2)).alpha == 1


def test_randomized_response() -> None:
    rr = randomized_response("1/3", 4)
    assert rr.rows[0] == (Fraction(1, 2), Fraction(1, 6), Fraction(1, 6), Fraction(1, 6))
    assert dp_level(rr).alpha == Fraction(1, 3)


def test_exponential_mechanism() -> None:
    e = exponential("1/2", 2)
    assert e.rows[1] == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    assert e.rows[0] == (Fraction(4, 7), Fraction(2, 7), Fraction(1, 7))
    # McSherry–Talwar: base b gives (b²)-DP; here the exact level is better than b².
    assert dp_level(e).alpha == Fraction(7, 16) > Fraction(1, 4)


@pytest.mark.parametrize("alpha", [Fraction(1, 4), Fraction(4, 9), Fraction(9, 16)])
def test_rounded_laplace_is_a_scaled_geometric_off_zero(alpha: Fraction) -> None:
    """GRS Theorem A.2: P[Δ'=i] = (1+α)/(2√α)·P[Δ=i] for i ≠ 0, and P[Δ'=0] < P[Δ=0]."""
    n, root = 3, rational_sqrt(alpha)
    assert root is not None
    lap, geo = rounded_laplace(alpha, n, margin=2), geometric(alpha, n, margin=2)
    factor = (1 + alpha) / (2 * root)
    for i in range(n + 1):
        for r in range(-1, n + 2):  # interior outputs: point masses
            if r != i:
                assert lap.entry(i, r) == factor * geo.entry(i, r)
        assert lap.entry(i, i) < geo.entry(i, i)
    assert factor > 1


def test_rounded_laplace_irrational_root_needs_bounds() -> None:
    with pytest.raises(InputError, match=r"√α is irrational.*rounded_laplace_bounds"):
        rounded_laplace("1/2", 2)
    bounds = rounded_laplace_bounds("1/2", 2, margin=1, digits=20)
    for lo_row, hi_row in zip(bounds.lower, bounds.upper):
        assert sum(lo_row) <= 1 <= sum(hi_row)
        assert all(0 <= lo <= hi and hi - lo < Fraction(1, 10**19) for lo, hi in zip(lo_row, hi_row))


def test_bounds_contain_the_exact_mechanism_and_not_a_perturbed_one() -> None:
    exact = rounded_laplace("4/9", 2, margin=1)
    bounds = rounded_laplace_bounds("4/9", 2, margin=1, digits=10)
    assert bounds.contains(exact)
    assert not bounds.contains(geometric("4/9", 2, margin=1))


@given(st.fractions(min_value=Fraction(1, 1000), max_value=10), st.integers(0, 30))
def test_sqrt_bounds_are_rigorous(value: Fraction, digits: int) -> None:
    lo, hi = sqrt_bounds(value, digits)
    assert lo * lo <= value <= hi * hi and lo <= hi


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: truncated_geometric("3/2", 3), "alpha: got 3/2"),
        (lambda: truncated_geometric("1/2", 0), "n=0"),
        (lambda: geometric("1/2", 2, margin=-1), "margin=-1"),
        (lambda: randomized_response("1/2", 1), "k=1"),
        (lambda: constant(3, output=4), "output=4"),
        (lambda: rounded_laplace(0, 2), "needs α > 0"),
    ],
)
def test_family_argument_errors(call: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()  # type: ignore[operator]
