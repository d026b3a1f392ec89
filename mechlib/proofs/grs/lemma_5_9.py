"""GRS-L5.9 (GRS Lemma 5.9): Column structure P1–P3 at an optimal vertex.

Every check part of this claim is here (``mechlib verify --only GRS-L5.9``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.signature import DOWN, SLACK, UP, ZERO, Signature, signature
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import decide_on_optimal
from mechlib.proofs.shared.generators import STRICT_USERS_AND_ALPHAS, on_optimal_vertex


def single_peak_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.9 (P1): every non-zero column is ↑*, then S*, then ↓* down the rows."""
    for c in range(len(sig.outputs)):
        column = "".join({"↓": "d", "S": "s", "↑": "u", "0": ""}[row[c]] for row in sig.rows)
        if column and column != "u" * column.count("u") + "s" * column.count("s") + "d" * column.count("d"):
            return {"column": c, "signature": str(sig)}
    return None


@check("GRS-L5.9", kind=FUZZ)
def fuzz_single_peaked() -> Outcome:
    return fuzz("GRS-L5.9", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(single_peak_violation), 30, drawn=user_first)


def column_structure_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.9 in full: (P1) every non-zero column is single-peaked; (P2) the first non-zero
    column has no incline (no leading ↑) and the last no decline (no ↓); (P3) the incline of each
    later non-zero column is the previous one's incline and peak and one more row."""
    single_peaked = single_peak_violation(sig)
    if single_peaked is not None:
        return {"part": "P1", **single_peaked}
    columns = [[row[c] for row in sig.rows] for c in range(len(sig.outputs))]
    nonzero = [col for col in columns if col and col[0] != ZERO]  # a column is all 0 or none (L5.3)
    if not nonzero:
        return None
    if nonzero[0][0] == UP or DOWN in nonzero[-1]:
        return {"part": "P2", "signature": str(sig)}
    shapes = [(col.count(UP), col.count(SLACK)) for col in nonzero]
    for k in range(1, len(shapes)):
        (up_before, peak_before), (up_now, _) = shapes[k - 1], shapes[k]
        if up_now != up_before + peak_before + 1:  # inclines are initial runs of rows (P1)
            return {"part": "P3", "column": k, "signature": str(sig)}
    return None


@check("GRS-L5.9", kind=EXACT)
def exact_column_structure() -> Outcome:
    """Every optimal vertex of every full-support, strictly legal user at n ≤ 3: P1–P3."""
    return decide_on_optimal(
        lambda x, alpha: column_structure_violation(signature(x, alpha)),
        what="every vertex not dominated",
        largest_set=1,
    )
