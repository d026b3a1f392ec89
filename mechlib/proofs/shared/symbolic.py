"""Symbolic identities (sympy) and exact polynomial identities, with z3 for the sign conditions.

Where sympy's determinant is too slow, a polynomial identity p(α) = q(α) of degree ≤ D is proved
by exact agreement at D + 1 distinct rationals (python-flint determinants): two polynomials of
degree ≤ D that agree at D + 1 points are equal.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
import sympy as sp

ALPHA = sp.Symbol("alpha", positive=True)


def kms(m: int, alpha: Any) -> list[list[Any]]:
    """GS's G′ (the Kac–Murdock–Szegő matrix): K[i][j] = α^|i−j|, m × m."""
    return [[alpha ** abs(i - j) for j in range(m)] for i in range(m)]


def _det_at(rows: list[list[Fraction]]) -> Fraction:
    matrix = flint.fmpq_mat(len(rows), len(rows), [flint.fmpq(v.numerator, v.denominator) for row in rows for v in row])
    d = matrix.det()
    return Fraction(int(d.p), int(d.q))


def identity_by_evaluation(m: int, build: Any, target: Any, degree: int) -> bool:
    """det(build(α)) == target(α) at degree + 1 distinct rationals α = 1/(k+2)."""
    return all(_det_at(build(Fraction(1, k + 2))) == target(Fraction(1, k + 2)) for k in range(degree + 1))
