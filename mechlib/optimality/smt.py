"""z3 helpers shared by the exact fallback LP and the SMT proofs: exact rationals in and out, and
the variables of an α-DP stochastic matrix (GRS LP constraints (4)–(7))."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3


def q(value: Fraction | int) -> z3.ArithRef:
    """An exact z3 rational."""
    value = Fraction(value)
    return z3.Q(value.numerator, value.denominator)


def exact(term: Any) -> Fraction:
    """A z3 rational value as a Fraction (raises on anything else, e.g. an algebraic number)."""
    if not z3.is_rational_value(term):
        raise ValueError(f"z3 returned a non-rational value {term}")
    return Fraction(term.numerator_as_long(), term.denominator_as_long())


def dp_matrix(
    solver: Any, size: int, alpha: Fraction, *, edges: Sequence[tuple[int, int]] | None = None, name: str = "x"
) -> list[list[z3.ArithRef]]:
    """Real variables x[i][j] (size × size) constrained to a row-stochastic, α-DP matrix: rows
    sum to 1, entries ≥ 0, and α·x[u][j] ≤ x[v][j] both ways for every edge (default: the path)."""
    xs = [[z3.Real(f"{name}{i}_{j}") for j in range(size)] for i in range(size)]
    a = q(alpha)
    for row in xs:
        solver.add(z3.Sum(row) == 1, *[v >= 0 for v in row])
    for u, v in edges if edges is not None else [(i, i + 1) for i in range(size - 1)]:
        for j in range(size):
            solver.add(a * xs[u][j] <= xs[v][j], a * xs[v][j] <= xs[u][j])
    return xs
