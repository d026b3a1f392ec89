"""Exact numbers: parse ints, ``"p/q"`` and decimal strings into ``Fraction``, never via float.

A float is accepted only where the caller opts in (``from_float=True``), and then as its
exact binary value (``Fraction(0.1) == 3602879701896397/36028797018963968``).
"""

from __future__ import annotations

import math
import numbers
import os
import re
from decimal import Decimal
from fractions import Fraction

from mechlib.errors import InputError

_EXPECTED = "expected an integer, 'p/q' or a decimal string such as '0.1'"

#: What the public constructors take as an exact number (a float is a type error: 0.1 is not 1/10).
ExactNumber = Fraction | int | str | Decimal

#: Limits checked before any arithmetic, so that a 40-byte input cannot ask for 10⁹-digit
#: numbers: digits per number and the size of a decimal exponent. Raise them with the environment
#: variables MECHLIB_MAX_DIGITS and MECHLIB_MAX_EXPONENT.
MAX_DIGITS = int(os.environ.get("MECHLIB_MAX_DIGITS", "4000"))
MAX_EXPONENT = int(os.environ.get("MECHLIB_MAX_EXPONENT", "4000"))

# ASCII digits only (Python's own parser also reads other scripts' digits, e.g. Arabic-Indic).
_DECIMAL = re.compile(r"[+-]?(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?:[eE](?P<exp>[+-]?[0-9]+))?")
_RATIO = re.compile(r"[+-]?(?P<num>[0-9]+)\s*/\s*(?P<den>[0-9]+)")
#: "p/q" or "p" as the writers write them (no spaces): read by ``int`` alone, the common case of large files
_PLAIN_RATIO = re.compile(r"(?P<sign>[+-]?)(?P<num>[0-9]+)(?:/(?P<den>[0-9]+))?")


def to_fraction(value: object, *, from_float: bool = False) -> Fraction:
    """Return ``value`` as an exact ``Fraction``.

    Accepts ints, ``Fraction`` and other ``numbers.Rational`` (gmpy2, flint), ``Decimal``,
    and strings ``"3"``, ``"-2/7"``, ``"0.1"``, ``"1e-3"``. Floats only with
    ``from_float=True`` (exact binary value). NaN, infinities and booleans are rejected.

    Raises
    ------
    InputError
        Naming the value and what was expected.
    """
    if isinstance(value, bool):
        raise InputError(f"got the boolean {value!r}", hint=_EXPECTED)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        check_digits(value)
        return Fraction(value)
    if isinstance(value, str):
        return _parse_string(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"got the non-finite number {value}", hint=_EXPECTED)
        return _parse_string(str(value))
    if isinstance(value, float):
        if not from_float:
            raise InputError(
                f"got the binary float {value!r}",
                hint="write it as an exact string such as '0.1' or '1/3', "
                "or opt in to its exact binary value with from_float=True / --from-float",
            )
        if not math.isfinite(value):
            raise InputError(f"got the non-finite float {value!r}", hint=_EXPECTED)
        return Fraction(value)
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    raise InputError(f"got {value!r} of type {type(value).__name__}", hint=_EXPECTED)


def check_digits(value: int) -> None:
    """An integer of at most MAX_DIGITS decimal digits (judged from its bit length, no printing)."""
    if value.bit_length() > MAX_DIGITS * 3.33 + 4:
        raise InputError(
            f"got an integer of about {int(value.bit_length() / 3.32)} digits",
            hint=f"at most {MAX_DIGITS} digits per number (raise MECHLIB_MAX_DIGITS to allow more)",
        )


def plain_ratio(text: str) -> tuple[int, int] | None:
    """(p, q) for "p/q" or "p" written plainly — ASCII digits, an optional sign, no spaces, q ≠ 0, at
    most MAX_DIGITS digits — read with ``int`` alone; None for anything else (the general parser
    reads it, or names what is wrong)."""
    found = _PLAIN_RATIO.fullmatch(text)
    if found is None:
        return None
    num, den = found["num"], found["den"] or "1"
    if max(len(num), len(den)) > MAX_DIGITS or not den.strip("0"):
        return None
    p = decimal_int(num)
    return (-p if found["sign"] == "-" else p), decimal_int(den)


def decimal_int(digits: str | bytes) -> int:
    """ASCII decimal digits as an int, in time near-linear in their length: CPython's ``int`` is
    quadratic (and refuses more than 4,300 digits), python-flint's reading is not (1,000 digits:
    2 µs against 5; 4,000: 50 µs against 150)."""
    if len(digits) < 1000:
        return int(digits)
    import flint

    return int(flint.fmpz(digits if isinstance(digits, str) else digits.decode("ascii")))


def _parse_string(text: str) -> Fraction:
    plain = plain_ratio(text)
    if plain is not None:
        return Fraction(*plain)
    stripped = text.strip()
    if not stripped:
        raise InputError("got an empty string", hint=_EXPECTED)
    ratio, decimal = _RATIO.fullmatch(stripped), _DECIMAL.fullmatch(stripped)
    if ratio is None and (decimal is None or not (decimal["int"] or decimal["frac"])):
        raise InputError(f"cannot read {text[:40]!r} as an exact number", hint=_EXPECTED)
    if ratio is not None:  # per integer: the numerator's and the denominator's digits
        digits = max(len(ratio["num"]), len(ratio["den"]))
    else:
        assert decimal is not None
        digits = len(decimal["int"] or "") + len(decimal["frac"] or "")
    if digits > MAX_DIGITS:
        raise InputError(
            f"got a number of {digits} digits",
            hint=f"at most {MAX_DIGITS} digits per number (raise MECHLIB_MAX_DIGITS to allow more)",
        )
    if decimal is not None and decimal["exp"] is not None and abs(int(decimal["exp"][:12])) > MAX_EXPONENT:
        raise InputError(
            f"got the exponent {decimal['exp'][:20]} in {text[:40]!r}",
            hint=f"exponents are limited to ±{MAX_EXPONENT} (raise MECHLIB_MAX_EXPONENT to allow more)",
        )
    try:
        result = Fraction(stripped)
    except ZeroDivisionError:
        raise InputError(f"got {text!r}, a fraction with denominator 0", hint=_EXPECTED) from None
    except ValueError:
        raise InputError(f"cannot read {text!r} as an exact number", hint=_EXPECTED) from None
    return result


def format_fraction(value: Fraction | int) -> str:
    """The canonical exact string of a rational: ``"3"`` or ``"-2/7"`` (round-trips), however
    many digits (Python's 4,300-digit int-to-str limit does not apply: flint prints big ones)."""
    value = Fraction(value)
    if value.denominator == 1:
        return _int_text(value.numerator)
    return f"{_int_text(value.numerator)}/{_int_text(value.denominator)}"


def _int_text(n: int) -> str:
    if n.bit_length() < 14000:  # well below 4,300 digits
        return str(n)
    import flint

    return str(flint.fmpz(n))


def parse_probability(value: object, *, from_float: bool = False) -> Fraction:
    """An exact number in [0, 1]."""
    result = to_fraction(value, from_float=from_float)
    if not 0 <= result <= 1:
        raise InputError(f"got {format_fraction(result)}", hint="expected a number in [0, 1]")
    return result


def format_decimal(value: Fraction, digits: int, *, up: bool) -> str:
    """``value`` rounded to ``digits`` decimals towards +∞ (``up``) or −∞: an exact bound."""
    scale = 10**digits
    scaled = value * scale
    whole = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    sign = "-" if whole < 0 else ""
    body = str(abs(whole)).rjust(digits + 1, "0")
    return f"{sign}{body[:-digits]}.{body[-digits:]}" if digits else f"{sign}{body}"
