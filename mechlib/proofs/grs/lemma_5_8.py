"""GRS-L5.8 (GRS Lemma 5.8): At an optimal vertex, #S entries ≤ #zero columns.

Every check part of this claim is here (``mechlib verify --only GRS-L5.8``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.signature import ZERO, Signature, signature
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import decide_on_optimal
from mechlib.proofs.shared.generators import STRICT_USERS_AND_ALPHAS, on_optimal_vertex


def slack_count_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.8: #S entries ≤ #zero columns."""
    slack = sum(row.count("S") for row in sig.rows)
    zero_columns = sum(all(row[c] == ZERO for row in sig.rows) for c in range(len(sig.outputs)))
    return None if slack <= zero_columns else {"S": slack, "zero_columns": zero_columns, "signature": str(sig)}


@check("GRS-L5.8", kind=FUZZ)
def fuzz_slack_count() -> Outcome:
    return fuzz("GRS-L5.8", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(slack_count_violation), 30, drawn=user_first)


@check("GRS-L5.8", kind=EXACT)
def exact_slack_count() -> Outcome:
    """Every optimal vertex of every full-support, strictly legal user at n ≤ 3."""
    return decide_on_optimal(
        lambda x, alpha: slack_count_violation(signature(x, alpha)), what="every vertex not dominated", largest_set=1
    )


def _no_slack_at_all(_real: Any) -> Any:
    def violation(sig: Signature) -> dict[str, Any] | None:
        slack = sum(row.count("S") for row in sig.rows)
        return None if slack == 0 else {"S": slack, "signature": str(sig)}  # "#S ≤ #zero columns" → "#S = 0"

    return violation


register("#S ≤ #zero columns → no S at all", "changed statement", ("GRS-L5.8",),
         module_constant("mechlib.proofs.grs.lemma_5_8", "slack_count_violation", _no_slack_at_all))  # fmt: skip
