"""GRS-L5.6 (GRS Lemma 5.6): …and the rows of the signature are ordered (monotone structure).

Every check part of this claim is here (``mechlib verify --only GRS-L5.6``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.signature import DOWN, Signature, signature
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import decide_on_optimal
from mechlib.proofs.shared.generators import STRICT_USERS_AND_ALPHAS, on_optimal_vertex


def row_order_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.6: (a) rows 0..n−1 are nondecreasing in their number of ↓ entries; (b) a
    strictly unimodal row (no S) other than the last is followed by a strictly larger row or by
    a row with an S entry."""
    downs = [row.count(DOWN) for row in sig.rows]
    for i in range(len(sig.rows) - 1):
        if downs[i + 1] < downs[i]:
            return {"rows": [i, i + 1], "part": "a", "signature": str(sig)}
        if "S" not in sig.rows[i] and downs[i + 1] == downs[i] and "S" not in sig.rows[i + 1]:
            return {"rows": [i, i + 1], "part": "b", "signature": str(sig)}
    return None


@check("GRS-L5.6", kind=FUZZ)
def fuzz_row_order() -> Outcome:
    return fuzz("GRS-L5.6", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(row_order_violation), 30, drawn=user_first)


@check("GRS-L5.6", kind=EXACT)
def exact_row_order() -> Outcome:
    """Every optimal mechanism of every full-support, strictly legal user at n ≤ 3: its signature is
    that of the barycentre of the vertices it mixes, a set some strict user finds optimal together —
    every such set is decided (:func:`mechlib.proofs.shared.dp_polytope.decide_on_optimal`)."""
    return decide_on_optimal(
        lambda x, alpha: row_order_violation(signature(x, alpha)),
        what="every co-optimal set of vertices",
        largest_set=None,
    )
