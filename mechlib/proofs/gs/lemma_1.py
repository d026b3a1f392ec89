"""GS-L1 (GS Lemma 1): det G'_{n,α} = (1−α²)^(n−1) > 0.

Every check part of this claim is here (``mechlib verify --only GS-L1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import SMT, SYM
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, bounded, check, decide
from mechlib.proofs.shared.parametric import SCOPE_L1
from mechlib.proofs.shared.symbolic import ALPHA, identity_by_evaluation, kms
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query


@check("GS-L1", kind=SYM, scope=SCOPE_L1)
def sym_kms_determinant() -> Outcome:
    """det G′_m = (1−α²)^(m−1) for every m by induction (mechlib.proofs.shared.parametric.kms_step: the base and
    the step, with the row operation and Laplace expansion as the facts used), cross-checked by
    sympy's determinant for m ≤ 6 and by exact evaluation at m(m−1)+1 points for m ≤ 21."""
    from mechlib.proofs.shared.parametric import kms_step

    step = kms_step()
    failures: list[dict[str, Any]] = [{"induction": k} for k, ok in step.items() if not ok]
    for m in range(2, 7):  # sympy, symbolic α
        det = sp.Matrix(kms(m, ALPHA)).det(method="berkowitz")
        if sp.expand(det - (1 - ALPHA**2) ** (m - 1)) != 0:
            failures.append({"m": m, "method": "sympy"})
    for m in range(2, 22):  # degree ≤ m(m−1): exact evaluation at m(m−1)+1 points
        if not identity_by_evaluation(m, lambda a, m=m: kms(m, a), lambda a, m=m: (1 - a * a) ** (m - 1), m * (m - 1)):
            failures.append({"m": m, "method": "evaluation"})
    evidence = {
        "induction": step,
        "facts used": "adding a multiple of a row keeps det; Laplace expansion along the last row; "
        "0 < α < 1 gives 1 − α² > 0, so every power (1 − α²)^(m−1) > 0",
        "cross-checks": "sympy m = 2..6; exact evaluation m = 2..21",
    }
    return decide(failures, evidence)


def _laplace_det(rows: list[list[Any]]) -> Any:
    """The determinant by cofactor expansion along the first row (z3 terms; small m only)."""
    if len(rows) == 1:
        return rows[0][0]
    return z3.Sum(
        [(-1) ** j * rows[0][j] * _laplace_det([row[:j] + row[j + 1 :] for row in rows[1:]]) for j in range(len(rows))]
    )


@check("GS-L1", kind=SMT, scope=bounded(5, "symbolic, 0 < α < 1", TWO_SOLVERS + " (det by cofactors)", n_min=1))
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
    return proved_if_unsat(parts)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("corner of G′ → 1 − α³", "changed statement", ("GS-L1",),
         module_constant("mechlib.proofs.shared.parametric", "CORNER", lambda real: (real[0], 3)))  # fmt: skip
