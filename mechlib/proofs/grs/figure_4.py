"""GRS-F4 (GRS Figure 4): The signature of T for n=5: row i is ↓ in columns 0..i and ↑ after.

Every check part of this claim is here (``mechlib verify --only GRS-F4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.signature import DOWN, UP, signature
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.grs_instances import ALPHAS


@check("GRS-F4", kind="EXACT")
def check_signature_of_t() -> Outcome:
    failures: list[dict[str, Any]] = []
    record = Record()
    for alpha in ALPHAS:
        n = 5
        sig = signature(truncated_geometric(alpha, n), alpha)
        want = tuple(tuple(DOWN if r <= i else UP for r in range(n + 1)) for i in range(n))
        if sig.rows != want:
            failures.append({"alpha": format_fraction(alpha), "computed": str(sig)})
        record.ran(n, alpha, "T's signature (Figure 4)")
    outcome = decide(failures, {"alphas": [format_fraction(a) for a in ALPHAS], "n": 5})
    return record.outcome(outcome, "exact rationals: every entry of the signature")
