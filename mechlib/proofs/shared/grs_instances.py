"""GRS examples and figures decided by exact rational computation (the EXACT parts).

The SMT and symbolic parts of these IDs belong to the SMT encodings (proofs issue).
"""

from __future__ import annotations

from fractions import Fraction

ALPHAS = (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(1, 10), Fraction(99, 100))


def _figure(rows: list[str]) -> list[list[Fraction]]:
    return [[Fraction(x) for x in row.split()] for row in rows]
