"""Exact solutions of small linear systems (python-flint), with float hints for free variables.

Floats may *find* (a HiGHS solution picks values for the free coordinates of an
underdetermined system); the solution returned is exact and satisfies the equations exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import flint


def to_fmpq(x: Fraction) -> flint.fmpq:
    return flint.fmpq(x.numerator, x.denominator)


def from_fmpq(x: flint.fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def rationalize(value: float, max_denominator: int = 10**9) -> Fraction:
    """A nearby simple rational for a float hint (only ever a candidate)."""
    return Fraction(value).limit_denominator(max_denominator)


#: The denominators tried, in order, when rationalizing float hints for free variables.
HINT_DENOMINATORS = (10**3, 10**4, 10**6, 10**9, 10**12)


def first_accepted(
    rows: Sequence[Sequence[Fraction]],
    rhs: Sequence[Fraction],
    hint: Sequence[float],
    accept: Callable[[list[Fraction]], bool],
) -> list[Fraction] | None:
    """The first exact solution of rows·x = rhs that ``accept`` (an exact check) takes, trying the
    free coordinates at the simplest rationals near ``hint`` first (``HINT_DENOMINATORS``); None if
    the system is inconsistent or no candidate is accepted."""
    for limit in HINT_DENOMINATORS:
        values = solve(rows, rhs, hint, limit)
        if values is None:
            return None
        if accept(values):
            return values
    return None


def solve(
    rows: Sequence[Sequence[Fraction]],
    rhs: Sequence[Fraction],
    hint: Sequence[float] | None = None,
    max_denominator: int = 10**9,
) -> list[Fraction] | None:
    """A solution of rows·x = rhs in exact rationals, or None if the system is inconsistent.

    Free variables (the system may be underdetermined) take the ``hint`` values rationalized
    with ``max_denominator``, or 0 without a hint.
    """
    m, k = len(rows), len(rows[0]) if rows else 0
    if m == 0:
        return [rationalize(h, max_denominator) for h in hint] if hint is not None else [Fraction(0)] * k
    augmented = flint.fmpq_mat(m, k + 1, [to_fmpq(v) for row, b in zip(rows, rhs) for v in (*row, b)])
    reduced, rank = augmented.rref()
    pivots: list[int] = []
    for r in range(rank):
        col = next(c for c in range(k + 1) if reduced[r, c] != 0)
        if col == k:
            return None  # 0 = nonzero: inconsistent
        pivots.append(col)
    free = [c for c in range(k) if c not in set(pivots)]
    x = [Fraction(0)] * k
    for c in free:
        x[c] = rationalize(hint[c], max_denominator) if hint is not None else Fraction(0)
    for r, col in enumerate(pivots):
        value = from_fmpq(reduced[r, k])
        for c in free:
            coefficient = reduced[r, c]
            if coefficient != 0:
                value -= from_fmpq(coefficient) * x[c]
        x[col] = value
    return x
