"""GRS-L5.5 (GRS Lemma 5.5): Full-support prior + strictly legal loss ⇒ optimal direct mechanisms
have unimodal signatures.

Every check part of this claim is here (``mechlib verify --only GRS-L5.5``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.signature import ZERO, Signature, signature
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import decide_on_optimal
from mechlib.proofs.shared.generators import STRICT_USERS_AND_ALPHAS, on_optimal_vertex


def nonzero(row: tuple[str, ...]) -> list[str]:
    return [s for s in row if s != ZERO]


def unimodal_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.5: each row's non-zero entries are ↓*, then at most one S, then ↑*."""
    for i, row in enumerate(sig.rows):
        seq = "".join({"↓": "d", "S": "s", "↑": "u"}[s] for s in nonzero(row))
        if seq != "d" * seq.count("d") + "s" * seq.count("s") + "u" * seq.count("u") or seq.count("s") > 1:
            return {"row": i, "signature": str(sig)}
    return None


@check("GRS-L5.5", kind=FUZZ)
def fuzz_unimodal() -> Outcome:
    return fuzz("GRS-L5.5", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(unimodal_violation), 30, drawn=user_first)


@check("GRS-L5.5", kind=EXACT)
def exact_unimodal() -> Outcome:
    """Every optimal mechanism of every full-support, strictly legal user at n ≤ 3: a row breaks
    unimodality iff some ↓ constraint is slack left of a slack ↑ constraint (or two S), and a slack
    constraint of a mixture is slack in one of its vertices — so two co-optimal vertices show every
    violation, and every pair is decided (:func:`mechlib.proofs.shared.dp_polytope.decide_on_optimal`)."""
    return decide_on_optimal(
        lambda x, alpha: unimodal_violation(signature(x, alpha)),
        what="every pair of co-optimal vertices",
        largest_set=2,
    )
