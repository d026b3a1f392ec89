"""The checkers' own reading of exact numbers: ASCII ``p/q`` or decimals, with the digit and
exponent limits checked before any arithmetic (a certificate cannot make ``check`` hang on
``"1e-999999999"``). Shared by the checkers only; independent of the producers' parser."""

from __future__ import annotations

import os
import re
from fractions import Fraction

MAX_DIGITS = int(os.environ.get("MECHLIB_MAX_DIGITS", "4000"))
MAX_EXPONENT = int(os.environ.get("MECHLIB_MAX_EXPONENT", "4000"))

_NUMBER = re.compile(
    r"[+-]?(?:(?P<num>[0-9]+)/(?P<den>[0-9]+)|(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?:[eE](?P<exp>[+-]?[0-9]{1,9}))?)"
)


def exact(text: object) -> Fraction:
    """``text`` (a string or int) as a Fraction; ValueError naming the problem otherwise."""
    return Fraction(*exact_ratio(text))


def exact_ratio(text: object) -> tuple[int, int]:
    """``text`` (a string or int) as integers (p, q), q > 0, p/q its exact value (not necessarily in
    lowest terms: the caller's rational type reduces it); ValueError naming the problem otherwise."""
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise ValueError(f"expected an exact number as a string, got {text!r}")
    if isinstance(text, int):
        if text.bit_length() > MAX_DIGITS * 3.33 + 4:
            raise ValueError(f"an integer of more than {MAX_DIGITS} digits")
        return text, 1
    match = _NUMBER.fullmatch(text.strip())
    if match is None or not any(match[g] for g in ("num", "int", "frac")):
        raise ValueError(f"{text[:40]!r} is not an exact number")
    # per integer: a fraction's numerator and denominator, a decimal's digits
    digits = max(len(match["num"] or ""), len(match["den"] or ""), len(match["int"] or "") + len(match["frac"] or ""))
    if digits > MAX_DIGITS or (match["exp"] is not None and abs(int(match["exp"])) > MAX_EXPONENT):
        raise ValueError(f"{text[:40]!r} is beyond the limits ({MAX_DIGITS} digits, exponent ±{MAX_EXPONENT})")
    sign = -1 if text.strip().startswith("-") else 1
    if match["den"] is not None:
        den = int(match["den"])
        if den == 0:
            raise ValueError(f"{text[:40]!r} has denominator 0")
        return sign * int(match["num"]), den
    frac = match["frac"] or ""
    shift = (int(match["exp"]) if match["exp"] is not None else 0) - len(frac)
    digits = int((match["int"] or "") + frac or "0")  # the checks above: at least one digit
    return (sign * digits * 10**shift, 1) if shift >= 0 else (sign * digits, 10**-shift)
