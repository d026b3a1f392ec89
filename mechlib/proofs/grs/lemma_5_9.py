"""GRS-L5.9 (GRS Lemma 5.9): Column structure P1–P3 at an optimal vertex.

Every check part of this claim is here (``mechlib verify --only GRS-L5.9``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.signature import Signature
from mechlib.proofs.catalogue import FUZZ
from mechlib.proofs.fuzz import fuzz
from mechlib.proofs.registry import Outcome, check
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
    return fuzz("GRS-L5.9", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(single_peak_violation), 30)
