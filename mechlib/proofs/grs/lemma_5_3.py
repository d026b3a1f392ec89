"""GRS-L5.3 (GRS Lemma 5.3): No signature column mixes 0 and non-0; no row is all ↓/0 or all ↑/0.

Every check part of this claim is here (``mechlib verify --only GRS-L5.3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.core.mechanism import Mechanism
from mechlib.core.signature import DOWN, UP, ZERO, Signature, signature
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import VertexSet, decide_on_every_vertex
from mechlib.proofs.shared.generators import dp_mechanisms


def signature_shape(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """GRS-L5.3: no signature column mixes 0 and non-0; no row is all ↓/0 or all ↑/0."""
    alpha, x = case
    return signature_violation(signature(x, alpha))


def signature_violation(sig: Signature) -> dict[str, Any] | None:
    """Where a signature breaks GRS Lemma 5.3, or None."""
    for c in range(len(sig.outputs)):
        column = {row[c] == ZERO for row in sig.rows}
        if len(column) > 1:
            return {"column": c, "signature": str(sig)}
    for i, row in enumerate(sig.rows):
        if set(row) <= {DOWN, ZERO} or set(row) <= {UP, ZERO}:
            return {"row": i, "signature": str(sig)}
    return None


@check("GRS-L5.3", kind=FUZZ)
def fuzz_signature_shape() -> Outcome:
    return fuzz("GRS-L5.3", dp_mechanisms(max_n=6), signature_shape, 100, drawn=alpha_first)


#: How the exact part decides, as its scope states it.
EXACT_METHOD = (
    "every feasible X: (a) exact Farkas chains on the LP's own rows; (b) every vertex of the α-DP polytope "
    "(exact enumeration), whose violation a point's would be"
)


@check("GRS-L5.3", kind=EXACT)
def exact_signature_shape() -> Outcome:
    """(a) for every feasible X: a zero entry makes its column zero (exact Farkas chains on LP
    (4)–(5)'s rows), so no signature column mixes 0 and non-0. (b) A row i all ↓/0 at X means
    x_{i+1,j} = α·x_ij for every j: valid inequalities tight at X, hence tight at every vertex X
    mixes, whose row i is then all ↓/0 too — so checking every vertex's signature covers every X."""

    def violations(vertex_set: VertexSet) -> list[dict[str, Any]]:
        return [
            {"instance": vertex_set.name, **v}
            for x in vertex_set.vertices
            if (v := signature_violation(signature(x, vertex_set.alpha)))
        ]

    return decide_on_every_vertex(violations, EXACT_METHOD)
