"""GRS-L5.5 (GRS Lemma 5.5): Full-support prior + strictly legal loss ⇒ optimal direct mechanisms
have unimodal signatures.

Every check part of this claim is here (``mechlib verify --only GRS-L5.5``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.signature import ZERO, Signature
from mechlib.proofs.catalogue import FUZZ
from mechlib.proofs.fuzz import fuzz
from mechlib.proofs.registry import Outcome, check
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
    return fuzz("GRS-L5.5", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(unimodal_violation), 30)
