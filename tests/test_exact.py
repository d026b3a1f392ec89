from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechlib.core.exact import format_fraction, parse_probability, to_fraction
from mechlib.errors import InputError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.1", Fraction(1, 10)),
        ("1/3", Fraction(1, 3)),
        (" -2/7 ", Fraction(-2, 7)),
        ("1e-3", Fraction(1, 1000)),
        ("3", Fraction(3)),
        ("0.999999999999", Fraction(999999999999, 10**12)),
    ],
)
def test_strings_are_exact(text: str, value: Fraction) -> None:
    assert to_fraction(text) == value


def test_decimal_and_rational_types_are_exact() -> None:
    assert to_fraction(Decimal("0.1")) == Fraction(1, 10)
    assert to_fraction(7) == 7
    import gmpy2

    assert to_fraction(gmpy2.mpq(2, 6)) == Fraction(1, 3)


def test_float_needs_opt_in_and_keeps_its_binary_value() -> None:
    with pytest.raises(InputError, match=r"binary float 0\.1.*from_float"):
        to_fraction(0.1)
    exact = to_fraction(0.1, from_float=True)
    assert exact == Fraction(3602879701896397, 36028797018963968)
    assert exact != Fraction(1, 10)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "cannot read 'nan'"),
        ("inf", "cannot read 'inf'"),
        ("", "empty string"),
        ("1/0", "denominator 0"),
        ("abc", "cannot read 'abc'"),
        (True, "boolean"),
        (None, "NoneType"),
        (Decimal("NaN"), "non-finite"),
    ],
)
def test_bad_values_are_named(value: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        to_fraction(value)


def test_non_finite_floats_rejected_even_with_opt_in() -> None:
    with pytest.raises(InputError, match="non-finite"):
        to_fraction(float("nan"), from_float=True)


def test_probability_range() -> None:
    assert parse_probability("1/2") == Fraction(1, 2)
    with pytest.raises(InputError, match=r"expected a number in \[0, 1\]"):
        parse_probability("3/2")


@given(st.fractions())
def test_format_round_trips(value: Fraction) -> None:
    assert to_fraction(format_fraction(value)) == value


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimal_strings_round_trip_exactly(value: Decimal) -> None:
    assert to_fraction(str(value)) == Fraction(value)


@given(st.fractions(), st.integers(0, 20))
def test_format_decimal_bounds(value: Fraction, digits: int) -> None:
    from mechlib.core.exact import format_decimal

    lo, hi = Fraction(format_decimal(value, digits, up=False)), Fraction(format_decimal(value, digits, up=True))
    assert lo <= value <= hi and hi - lo <= Fraction(1, 10**digits)
