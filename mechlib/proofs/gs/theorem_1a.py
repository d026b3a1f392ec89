"""GS-T1a (GS Theorem 1(a), Algorithm 1): Release at α1<…<αk by successive post-processing is
collusion resistant (α_min(C)-DP).

Every check part of this claim is here (``mechlib verify --only GS-T1a``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.privacy import dp_level
from mechlib.optimality.multilevel import joint_release
from mechlib.proofs.registry import Outcome, Record, check, decide


@check("GS-T1a", kind="EXACT")
def check_multilevel_release() -> Outcome:
    levels = [Fraction(1, 5), Fraction(1, 3), Fraction(1, 2)]
    failures: list[dict[str, Any]] = []
    record = Record()
    for n in (1, 2, 3):
        for i, alpha in enumerate(levels):
            if joint_release(n, levels, [i]).rows != truncated_geometric(alpha, n).rows:
                failures.append({"n": n, "marginal": i})
            record.ran(n, alpha, "one release")
        for size in (2, 3):
            for coalition in combinations(range(3), size):
                level = dp_level(joint_release(n, levels, coalition)).alpha
                if level != min(levels[i] for i in coalition):
                    failures.append({"n": n, "coalition": list(coalition), "dp_level": format_fraction(level)})
                record.ran(n, what=f"a coalition of {size} releases")
    evidence = {"levels": [format_fraction(a) for a in levels], "n": [1, 2, 3], "coalitions": "all"}
    method = "exact rationals: each release is T at its level; each coalition's DP level is its least"
    return record.outcome(decide(failures, evidence), method)
