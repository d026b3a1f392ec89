"""GS-L1 (GS Lemma 1): det G'_{n,α} = (1−α²)^(n−1) > 0.

Every check part of this claim is here (``mechlib verify --only GS-L1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import SMT, SYM
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, measured, with_scope
from mechlib.proofs.shared.definitions import ALL_N, J, M, R, kms_entry
from mechlib.proofs.shared.obligations import ALPHA as A
from mechlib.proofs.shared.obligations import (
    Induction,
    Obligations,
    Region,
    add,
    mul,
    prove_for_every_index,
    scale,
    to_z3,
)
from mechlib.proofs.shared.obligations import outcome as obligations_outcome
from mechlib.proofs.shared.symbolic import ALPHA, identity_by_evaluation, kms
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query


def claimed_determinant(m: Any) -> Any:
    """The statement: det G′_m = (1 − α²)^(m−1) (m = n + 1)."""
    return (1 - ALPHA**2) ** (m - 1)


def row_operation_multiplier(a: Any) -> Any:
    """The step's row operation: row m−1 minus this multiple of row m−2 (GS Lemma 1's proof)."""
    return a


def kms_base(start: int) -> Obligations:
    """Base m = 1: G′_1 = (G′[0][0]), read off the definition, equals the statement at m = 1."""
    if start != 1:
        raise ValueError(f"the base is proved at m = 1, not m = {start}")
    claimed = to_z3(claimed_determinant(sp.Integer(1)))
    return prove_for_every_index(
        "base: det G′_1", z3.And(R == 0, J == 0), {"x": kms_entry(R, J)},
        [Region("m = 1", True, lambda x: x["x"] == claimed)],
    )  # fmt: skip


def step_regions(claimed_ratio: Any) -> list[Region]:
    """The last row after the row operation: zero before the corner, the statement's ratio
    det G′_m / det G′_{m−1} at the corner (so Laplace expansion along it gives the step)."""
    return [
        Region("0 ≤ j ≤ m−2: entry 0", J <= M - 2, lambda x: x["row"] == 0),
        Region("j = m−1: entry det G′_m / det G′_{m−1}", J == M - 1, lambda x: x["row"] == claimed_ratio),
    ]


def kms_step(start: int) -> Obligations:
    """Step m−1 → m (m ≥ 2): with G′'s definition (no dependence on the size, so G′_{m−1} is the
    leading minor of G′_m), the entries of row m−1 − λ·row m−2, every j in 0..m−1, with the
    case split on the signs of m−1−j and m−2−j derived from the definition."""
    m = sp.Symbol("m", integer=True, positive=True)
    ratio = sp.simplify(claimed_determinant(m) / claimed_determinant(m - 1))
    if ratio.has(m):
        raise ValueError(f"the statement's ratio det G′_m / det G′_(m−1) = {ratio} depends on m")
    row = add(kms_entry(M - 1, J), scale(-row_operation_multiplier(A), kms_entry(M - 2, J)))
    domain = z3.And(start + 1 <= M, J >= 0, J <= M - 1)
    return prove_for_every_index("step: the row operation", domain, {"row": row}, step_regions(to_z3(ratio)))


def kms_positive() -> Obligations:
    """The statement is positive for every m ≥ 1: its value at m = 1 and its ratio from m−1 to m
    (a constant in m) are positive on (0, 1)."""
    m = sp.Symbol("m", integer=True, positive=True)
    first = to_z3(claimed_determinant(sp.Integer(1)))
    ratio = to_z3(sp.simplify(claimed_determinant(m) / claimed_determinant(m - 1)))
    return prove_for_every_index(
        "the statement is positive", z3.BoolVal(True), {},
        [Region("0 < α < 1", True, lambda x: z3.And(first > 0, ratio > 0))],
    )  # fmt: skip


@check("GS-L1", kind=SYM)
def sym_kms_determinant() -> Outcome:
    """det G′_m = (1−α²)^(m−1) for every m by induction (:class:`Induction`: base and step both
    derived from G′'s definition, ``definitions.kms_entry``), cross-checked by sympy's determinant
    for m ≤ 6 and by exact evaluation at m(m−1)+1 points for m ≤ 21."""
    induction = Induction("det G′_m = (1 − α²)^(m−1)", 1, kms_base, kms_step)
    outcome = obligations_outcome(
        [*induction.prove(), kms_positive()],
        {
            "facts used": "adding a multiple of a row keeps det; Laplace expansion along the last row; "
            "G′[r][j] does not depend on the size, so G′_(m−1) is the leading minor of G′_m; "
            "a power of a positive number is positive",
            "cross-checks": "sympy m = 2..6; exact evaluation m = 2..21",
        },
    )
    failures: list[dict[str, Any]] = []
    for m in range(2, 7):  # sympy, symbolic α
        det = sp.Matrix(kms(m, ALPHA)).det(method="berkowitz")
        if sp.expand(det - claimed_determinant(m)) != 0:
            failures.append({"m": m, "method": "sympy"})
    for m in range(2, 22):  # degree ≤ m(m−1): exact evaluation at m(m−1)+1 points
        if not identity_by_evaluation(m, lambda a, m=m: kms(m, a), lambda a, m=m: (1 - a * a) ** (m - 1), m * (m - 1)):
            failures.append({"m": m, "method": "evaluation"})
    if failures and outcome.verdict == Verdict.PROVED:
        outcome = Outcome(Verdict.REFUTED, {**outcome.evidence, "failures": failures}, "cross-checks fail")
    scope = measured(
        "induction: base and step derived from G′'s definition, " + TWO_SOLVERS,
        n=ALL_N + " (m = n + 1)" if outcome.verdict == Verdict.PROVED else [],
        alphas="symbolic, 0 < α < 1",
        every_object=True,
    )
    return replace(outcome, scopes=(scope,))


def _laplace_det(rows: list[list[Any]]) -> Any:
    """The determinant by cofactor expansion along the first row (z3 terms; small m only)."""
    if len(rows) == 1:
        return rows[0][0]
    return z3.Sum(
        [(-1) ** j * rows[0][j] * _laplace_det([row[:j] + row[j + 1 :] for row in rows[1:]]) for j in range(len(rows))]
    )


@check("GS-L1", kind=SMT)
def smt_kms_determinant() -> Outcome:
    """For m = n + 1 ≤ 6: det G′_{n,α}, expanded by cofactors in z3 itself (not sympy's), equals
    (1 − α²)^(m−1), which is > 0 on (0, 1)."""
    a = z3.Real("alpha")
    parts = {}
    for m in range(2, 7):
        solver = smt_query("QF_NRA")
        solver.add(a > 0, a < 1)
        det = _laplace_det(kms(m, a))
        solver.add(z3.Or(det != (1 - a * a) ** (m - 1), det <= 0))
        parts[f"n={m - 1}"] = run(solver)
    method = TWO_SOLVERS + " (det by cofactors)"
    scope = measured(method, n=range(1, 6), alphas="symbolic, 0 < α < 1", every_object=True)
    return with_scope(proved_if_unsat(parts), scope)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("G′'s row operation: row m−1 minus α² × row m−2", "changed statement", ("GS-L1",),
         module_constant(__name__, "row_operation_multiplier", lambda real: lambda a: a * a))  # fmt: skip
register("GS-L1's induction without its base case", "dropped base case", ("GS-L1",),
         module_constant(__name__, "kms_base", lambda real: None))  # fmt: skip
register("GS-L1's step split weakened to j ≤ m−3 before the corner", "weakened case lemma", ("GS-L1",),
         module_constant(__name__, "step_regions", lambda real: lambda ratio: [
             Region("0 ≤ j ≤ m−3", J <= M - 3, lambda x: x["row"] == 0), real(ratio)[1]]))  # fmt: skip
register("G′ defined as α^(2|r−j|)", "pattern not from the definition", ("GS-L1",),
         module_constant("mechlib.proofs.shared.definitions", "kms_entry",
                         lambda real: lambda r, j: mul(real(r, j), real(r, j))))  # fmt: skip
