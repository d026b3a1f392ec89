"""GRS-F3 (GRS Figure 3): n=5, α=1/2, prior (1/4,0,1/4,0,1/4,1/4), loss |i−j|^1.5: the printed
matrix is optimal; Figure 3(b) is its signature.

Every check part of this claim is here (``mechlib verify --only GRS-F3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import rational_sqrt, sqrt_bounds
from mechlib.core.mechanism import Mechanism
from mechlib.core.signature import signature
from mechlib.core.users import BayesUser, Loss, Prior
from mechlib.optimality.optimal import certify_given
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.grs_instances import _figure

# GRS Figure 3(a): optimal for prior (1/4,0,1/4,0,1/4,1/4) and loss |i−j|^1.5, α = 1/2, n = 5.
FIGURE_3A = _figure(
    [
        "2/3 0 1/4 1/24 1/48 1/48",
        "1/3 0 1/2 1/12 1/24 1/24",
        "1/6 0 1/2 1/6 1/12 1/12",
        "1/12 0 1/4 1/3 1/6 1/6",
        "1/24 0 1/8 1/6 1/3 1/3",
        "1/48 0 1/16 1/12 1/6 2/3",
    ]
)


FIGURE_3B = (
    "↓ 0 ↑ ↑ ↑ ↑",
    "↓ 0 S ↑ ↑ ↑",
    "↓ 0 ↓ ↑ ↑ ↑",
    "↓ 0 ↓ ↓ ↑ ↑",
    "↓ 0 ↓ ↓ ↓ ↑",
)


def _distance_loss(n: int, table: dict[int, Fraction]) -> Loss:
    return Loss.from_function(n, lambda i, j: table[abs(i - j)])


def power_loss_box(n: int, digits: int) -> list[Loss]:
    """The corners of a box of legal losses around |i−j|^(3/2), exact: d·√d between rational
    bounds tight to 10^(−digits) for every non-square distance d ≤ n."""
    exact: dict[int, Fraction] = {}
    ranges: dict[int, tuple[Fraction, Fraction]] = {}
    for d in range(n + 1):
        root = rational_sqrt(Fraction(d))
        if root is not None:
            exact[d] = d * root
        else:
            lo, hi = sqrt_bounds(Fraction(d), digits)
            ranges[d] = (d * lo, d * hi)
    corners = []
    for values in product(*ranges.values()):
        table = {**exact, **dict(zip(ranges, values))}
        corners.append(_distance_loss(n, table))
    return corners


@check("GRS-F3", kind="EXACT")
def check_figure_3() -> Outcome:
    """|i−j|^1.5 is irrational, so optimality is proved for every loss in a box around it: the
    losses for which a vertex is optimal form a convex cone (its normal cone), so certificates at
    the box's corners cover the whole box."""
    alpha = Fraction(1, 2)
    x = Mechanism(FIGURE_3A)
    prior = Prior([Fraction(1, 4), 0, Fraction(1, 4), 0, Fraction(1, 4), Fraction(1, 4)])
    failures: list[dict[str, Any]] = []
    if tuple(str(signature(x, alpha)).splitlines()) != FIGURE_3B:
        failures.append({"signature": str(signature(x, alpha))})
    record = Record.one(x.n, alpha, "Figure 3(b): the signature of Figure 3(a)")
    corners = power_loss_box(5, digits=6)
    for loss in corners:
        if certify_given(x, BayesUser(prior, loss), alpha) is None:
            failures.append({"uncertified corner": [format_fraction(v) for v in loss.matrix[0]]})
        record.ran(x.n, alpha, "Figure 3(a) optimal at a corner of the loss box around |i−j|^1.5")
    outcome = decide(failures, {"box_corners": len(corners), "sqrt_digits": 6, "signature": "Figure 3(b)"})
    return record.outcome(outcome, "exact rationals: the signature; an exact optimality certificate at each corner")
