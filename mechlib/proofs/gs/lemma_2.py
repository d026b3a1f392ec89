"""GS-L2 (GS Lemma 2): Cramer's-rule determinants of G with column i replaced by x.

Every check part of this claim is here (``mechlib verify --only GS-L2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.proofs.catalogue import SYM
from mechlib.proofs.registry import Outcome, check, decide, measured, with_scope
from mechlib.proofs.shared.definitions import INTERIOR
from mechlib.proofs.shared.symbolic import identity_by_evaluation, kms


@check("GS-L2", kind=SYM)
def sym_cramer_determinants() -> Outcome:
    """det G′(i, x) = (1−α²)^(m−2)·(x₁ − αx₂), (x_m − αx_{m−1}) or ((1+α²)x_i − α(x_{i−1}+x_{i+1}))
    (GS Lemma 2, indices 1..m). Linear in x, so checked on each basis vector x = e_k."""
    failures: list[dict[str, Any]] = []
    sizes = range(3, 9)
    for m in sizes:
        for i in range(m):
            for k in range(m):

                def build(a: Any, i: int = i, k: int = k, m: int = m) -> list[list[Any]]:
                    rows = kms(m, a)
                    for r in range(m):
                        rows[r][i] = Fraction(int(r == k))
                    return rows

                def target(a: Any, i: int = i, k: int = k, m: int = m) -> Any:
                    x = [int(r == k) for r in range(m)]
                    if i == 0:
                        value = x[0] - a * x[1]
                    elif i == m - 1:
                        value = x[m - 1] - a * x[m - 2]
                    else:
                        value = INTERIOR[1](a) * x[i] - a * (x[i - 1] + x[i + 1])  # GS's 1 + α²
                    return (1 - a * a) ** (m - 2) * value

                if not identity_by_evaluation(m, build, target, m * m):
                    failures.append({"m": m, "column": i + 1, "x": f"e_{k + 1}"})
    method = "exact evaluation at m²+1 points (both sides are polynomials in α of degree ≤ m²)"
    scope = measured(f"exact rationals: {method}", n=sizes, alphas="symbolic α", every_object=True)
    return with_scope(decide(failures, {"m": f"{sizes[0]}..{sizes[-1]}", "columns": "all", "method": method}), scope)
