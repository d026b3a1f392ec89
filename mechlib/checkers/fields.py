"""The field readers the certificate checkers share: exact values, objects with exactly their
documented keys, and matrices as integer rows. Each failure is a ``Malformed`` naming the field."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import flint

from mechlib.checkers.numbers import exact_ratio

#: Exact rationals (flint's fmpq: the same values as fractions.Fraction, computed faster).
Q = flint.fmpq


class Malformed(ValueError):
    """A field that does not have the documented form (reported as a failure naming it)."""


def _f(text: Any, where: str) -> Q:
    try:
        return _exact(text) if isinstance(text, str) else Q(*exact_ratio(text))
    except ValueError as err:
        raise Malformed(f"{where}: {err}") from None


@lru_cache(maxsize=4096)
def _exact(text: str) -> Q:
    """A string's exact value, decimals and "p/q" within the limits, reduced by flint; remembered, as
    certificates repeat values (a uniform prior is one string n + 1 times per user)."""
    return Q(*exact_ratio(text))


def _same(text: Any, value: Q, where: str) -> bool:
    return _f(text, where) == value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Malformed(f"{where}: expected an integer, got {value!r}")
    return value


def _keys(obj: Any, where: str, required: set[str], optional: set[str] | None = None) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise Malformed(f"{where}: expected an object, got {type(obj).__name__}")
    missing, extra = required - obj.keys(), obj.keys() - required - (optional or set())
    if missing or extra:
        raise Malformed(f"{where}: missing {sorted(missing)}, unexpected {sorted(extra)}")
    return obj


def _list(obj: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(obj, list) or (length is not None and len(obj) != length):
        raise Malformed(f"{where}: expected a list" + (f" of {length}" if length is not None else ""))
    return obj


@dataclass(frozen=True)
class IntRows:
    """x[i][r] = num[i][r] / den[i] (dense, Python ints)."""

    den: list[int]
    num: list[list[int]]

    def stochastic(self) -> bool:
        return all(sum(row) == d for row, d in zip(self.num, self.den))

    def entry(self, i: int, r: int) -> Q:
        return Q(self.num[i][r], self.den[i])

    def rationals(self) -> list[list[Q]]:
        return [[Q(a, d) for a in row] for row, d in zip(self.num, self.den)]


def check_epsilon(interval: Any, alpha: Q, where: str) -> list[str]:
    """``interval`` brackets ε = ln(1/α) within 2·10⁻¹⁵ with 15-decimal ends (null when α = 0)."""
    if alpha == 0:
        return [] if interval is None else [f"{where} must be null when α = 0 (ε = ∞)"]
    ends = _list(interval, where, 2)
    for text in ends:
        if not isinstance(text, str) or "." not in text or len(text.split(".")[1]) != 15:
            raise Malformed(f"{where}: expected a decimal with 15 digits, got {text!r}")
    lo, hi = (_f(v, where) for v in ends)
    # α's own bits on top of 256: ln(1/α) near α = 1 (1 − α ≈ 10⁻³⁰⁰) is then still a tight ball
    flint.ctx.prec = 256 + max(int(alpha.p).bit_length(), int(alpha.q).bit_length())
    eps = -flint.arb(alpha).log()
    if not (flint.arb(lo) <= eps and eps <= flint.arb(hi)) or lo < 0 or hi - lo > Q(2, 10**15):
        return [f"{where} [{ends[0]}, {ends[1]}] does not bracket ln(1/α) tightly"]
    return []
