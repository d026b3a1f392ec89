"""Proofs for every n: each a local identity or an induction whose finitely many cases are proved
by z3 and cvc5 (through :mod:`proofs.smt`) or by sympy, with symbolic α ∈ (0, 1) — the base case
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

from proofs.catalogue import SMT, Strength
from proofs.registry import Outcome, Scope, Verdict, check
from proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

ALL_N = "every n ≥ 1"

#: The local steps as data (so that a mutated identity goes through the same proof and fails):
#: |i+1−r| − |i−r| = ±STEP[1] between neighbouring rows of T; the corner of G′ after the row
#: operation is 1 − α^CORNER[1].
STEP = ("exponent step between neighbouring rows", 1)
INTERIOR = ("the interior diagonal of T⁻¹, times (1−α)²", lambda a: 1 + a * a)
CORNER = ("power of α in the corner of G′ after the row operation", 2)


def exponent_lemma(nonnegative: bool = True) -> tuple[Any, dict[str, Any]]:
    """Integers i, r (≥ 0, or any when not ``nonnegative``): r ≤ i ⇒ |i+1−r| = |i−r| + 1, and
    r ≥ i+1 ⇒ |i+1−r| = |i−r| − 1 (LIA)."""
    i, r = z3.Ints("i r")

    def dist(x: Any) -> Any:
        return z3.If(x >= 0, x, -x)

    query = smt_query("QF_LIA")
    query.add(*([i >= 0, r >= 0] if nonnegative else [z3.BoolVal(True)]))  # over ℤ: no hypothesis
    query.add(
        z3.Not(
            z3.And(
                z3.Implies(r <= i, dist(i + 1 - r) == dist(i - r) + 1),
                z3.Implies(r >= i + 1, dist(i + 1 - r) == dist(i - r) - 1),
            )
        )
    )
    return run(query)


def neighbouring_entries_are_alpha_dp(toward_row: bool) -> tuple[Any, dict[str, Any]]:
    """For 0 < α < 1, c > 0, P > 0: entries u, v of rows i, i+1 in one column, with v = α·u
    (r ≤ i, ``toward_row``) or u = α·v (r ≥ i+1), satisfy α·u ≤ v and α·v ≤ u (NRA)."""
    a, c, p = z3.Reals("alpha c P")
    step = a ** STEP[1]
    u, v = (c * p, c * step * p) if toward_row else (c * step * p, c * p)
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1, c > 0, p > 0)
    query.add(z3.Not(z3.And(a * u <= v, a * v <= u)))
    return run(query)


def column_factors_positive() -> tuple[Any, dict[str, Any]]:
    """Both column factors of T, 1/(1+α) (r ∈ {0, n}) and (1−α)/(1+α) (inside), are > 0 on (0, 1)."""
    a = z3.Real("alpha")
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1)
    query.add(z3.Or(1 / (1 + a) <= 0, (1 - a) / (1 + a) <= 0))
    return run(query)


def t_row_sums() -> dict[str, bool]:
    """Σ_r T[i][r] = 1 for symbolic n and i (interior rows, and rows 0 and n), as geometric sums."""
    a = sp.Symbol("alpha", positive=True)
    n, i, r = sp.symbols("n i r", integer=True, positive=True)

    def total(expression: Any, low: Any, high: Any) -> Any:
        found = sp.piecewise_fold(sp.summation(expression, (r, low, high)))
        return found.args[-1][0] if isinstance(found, sp.Piecewise) else found  # the α ≠ 1 branch

    inside = (1 - a) / (1 + a)
    interior = (a**i + a ** (n - i)) / (1 + a) + inside * (
        total(a ** (i - r), 1, i) + total(a ** (r - i), i + 1, n - 1)
    )
    first = (1 + a**n) / (1 + a) + inside * total(a**r, 1, n - 1)  # row 0 (row n is its mirror)
    return {
        "0 < i < n": sp.simplify(interior - 1) == 0,
        "i = 0 (and i = n by symmetry)": sp.simplify(first - 1) == 0,
    }


def grs_e2_2_every_n() -> Outcome:
    """GRS Example 2.2 for every n and symbolic α: T is stochastic and α-DP with level exactly α."""
    steps = {
        "integer lemma |i+1−r| − |i−r| = ±1": exponent_lemma(),
        "column factors > 0": column_factors_positive(),
        "pattern r ≤ i (v = α·u)": neighbouring_entries_are_alpha_dp(True),
        "pattern r ≥ i+1 (u = α·v)": neighbouring_entries_are_alpha_dp(False),
    }
    outcome = proved_if_unsat(steps)
    sums = t_row_sums()
    evidence = {
        **outcome.evidence,
        "row sums (sympy, symbolic n, i)": sums,
        "exactly α": "column 0 of rows 0 and 1: T[1][0] = α·T[0][0] with T[0][0] = 1/(1+α) > 0",
        "facts used": "α^(k+1) = α·α^k",
    }
    if outcome.verdict != Verdict.PROVED:
        return Outcome(outcome.verdict, evidence, outcome.reason, scopes=(SCOPE_E2_2,))
    failed = [k for k, ok in sums.items() if not ok]
    verdict = Verdict.PROVED if not failed else Verdict.REFUTED
    return Outcome(verdict, evidence, f"row sums fail: {failed}" if failed else None, scopes=(SCOPE_E2_2,))


SCOPE_E2_2 = Scope(
    Strength.ALL_N,
    ALL_N,
    "symbolic, 0 < α < 1",
    TWO_SOLVERS + "; local patterns + sympy sums",
    covers="T is stochastic and α-DP, exactly α",
)


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


@check("GRS-E2.2", kind=SMT, scope=SCOPE_E2_2)
def smt_every_n() -> Outcome:
    return grs_e2_2_every_n()


# -- T⁻¹ in closed form for every n, and GS Theorem 2 for every n --------------------------------


def _t_entry(a: Any, n: int, i: int, k: int) -> Any:
    """T[i][k] = f_k·α^|i−k|/(1+α), f_k = 1 at k ∈ {0, n}, 1 − α inside (GRS Example 2.2)."""
    return (1 if k in (0, n) else 1 - a) * a ** abs(i - k) / (1 + a)


def _inverse_entry(a: Any, n: int, k: int, j: int) -> Any:
    """T⁻¹[k][j] from GS's closed form: rows 0 and n are [1, −α]/(1−α) (mirrored), interior rows
    [−α, 1+α², −α]/(1−α)²."""
    if k in (0, n):
        neighbour = 1 if k == 0 else n - 1
        return 1 / (1 - a) if j == k else -a / (1 - a) if j == neighbour else 0
    return INTERIOR[1](a) / (1 - a) ** 2 if j == k else -a / (1 - a) ** 2 if abs(j - k) == 1 else 0


def inverse_identities() -> dict[str, bool]:
    """(T·T⁻¹)[i][j] = [i = j] for every n. Column j of T⁻¹ is nonzero only in rows k = j−1, j, j+1,
    so for i = j−1−d (d ≥ 0) the entry is Σ_k f_k·α^(d + k − j + 1)/(1+α)·T⁻¹[k][j], for
    i = j+1+d it is Σ_k f_k·α^(d + j + 1 − k)/(1+α)·T⁻¹[k][j], and at i = j it is
    Σ_k f_k·α^|j−k|/(1+α)·T⁻¹[k][j] — with d symbolic, and f_k, T⁻¹[k][j] depending only on which of
    j−1, j, j+1 are boundary rows. For n ≥ 4 the column types are j = 0, 1, middle, n−1, n (their
    entries read at n = 6, j = 0, 1, 3, 5, 6 — the same for every n ≥ 4); n = 1, 2, 3 are base cases,
    multiplied out in full."""
    a = sp.Symbol("alpha", positive=True)
    d = sp.Symbol("d", integer=True, nonnegative=True)
    results: dict[str, bool] = {}
    for n in (1, 2, 3):

        def cell(i: int, j: int, n: int = n) -> Any:
            return sum(_t_entry(a, n, i, k) * _inverse_entry(a, n, k, j) for k in range(n + 1))

        product = sp.Matrix(n + 1, n + 1, cell)
        results[f"base n = {n}: T·T⁻¹ = I"] = sp.simplify(product - sp.eye(n + 1)) == sp.zeros(n + 1)
    n = 6
    for j, name in ((0, "j = 0"), (1, "j = 1"), (3, "2 ≤ j ≤ n−2"), (5, "j = n−1"), (6, "j = n")):
        rows = [k for k in (j - 1, j, j + 1) if 0 <= k <= n]
        f = {k: (1 if k in (0, n) else 1 - a) / (1 + a) for k in rows}
        inv = {k: _inverse_entry(a, n, k, j) for k in rows}
        on = sum(f[k] * a ** abs(j - k) * inv[k] for k in rows)
        results[f"{name}: diagonal = 1"] = sp.simplify(on - 1) == 0
        if j >= 1:  # rows i = j−1−d above the diagonal
            above = sum(f[k] * a ** (d + k - j + 1) * inv[k] for k in rows)
            results[f"{name}: above = 0 (every d)"] = sp.simplify(sp.powsimp(sp.expand(above))) == 0
        if j <= n - 1:  # rows i = j+1+d below it
            below = sum(f[k] * a ** (d + j + 1 - k) * inv[k] for k in rows)
            results[f"{name}: below = 0 (every d)"] = sp.simplify(sp.powsimp(sp.expand(below))) == 0
    return results


def dp_gives_the_boundary_conditions() -> tuple[Any, dict[str, Any]]:
    """GS Lemma 2: for an α-DP column, x₀ − αx₁ ≥ 0 and x_n − αx_{n−1} ≥ 0 (LRA; the latter is the
    mirror image)."""
    a, x0, x1 = z3.Reals("alpha x0 x1")
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1, x0 >= 0, x1 >= 0, a * x1 <= x0, a * x0 <= x1)
    query.add(x0 - a * x1 < 0)
    return run(query)


def inverse_scales_positive() -> tuple[Any, dict[str, Any]]:
    """T⁻¹'s row scales 1/(1−α) and 1/(1−α)² are positive on (0, 1)."""
    a = z3.Real("alpha")
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1)
    query.add(z3.Or(1 / (1 - a) <= 0, 1 / ((1 - a) * (1 - a)) <= 0))
    return run(query)


@check(
    "GS-T2",
    kind="SYM",
    scope=Scope(Strength.ALL_N, ALL_N, "symbolic, 0 < α < 1", "sympy (T·T⁻¹ = I by column types) + " + TWO_SOLVERS),
)
def gs_theorem_2_every_n() -> Outcome:
    """GS Thm 2 for every n: the closed-form T⁻¹ is T's inverse (inverse_identities), so M = Y∘T
    has the unique solution Y = T⁻¹M, whose rows sum to 1 (T·1 = 1 gives T⁻¹·1 = 1); row r of T⁻¹M
    is GS's condition on each column divided by (1−α) (r ∈ {0, n}) or (1−α)² (inside), positive
    scales; and for an α-DP M the two boundary conditions hold (GS Lemma 2). So M is derivable iff
    the interior three-term conditions hold."""
    identities = inverse_identities()
    outcome = proved_if_unsat(
        {"scales positive": inverse_scales_positive(), "DP ⇒ boundary rows": dp_gives_the_boundary_conditions()}
    )
    evidence = {
        **outcome.evidence,
        "T·T⁻¹ = I (every n)": identities,
        "facts used": "α^(d+1) = α·α^d; T·1 = 1 (GRS-E2.2, every n); Y = T⁻¹M is unique since T is invertible",
    }
    failed = [k for k, ok in identities.items() if not ok]
    if outcome.verdict != Verdict.PROVED:
        return Outcome(outcome.verdict, evidence, outcome.reason)
    return Outcome(Verdict.REFUTED if failed else Verdict.PROVED, evidence, f"fails: {failed}" if failed else None)


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
