"""GRS examples and figures decided by exact rational computation (the EXACT parts).

The SMT and symbolic parts of these IDs belong to the SMT encodings (proofs issue).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import product
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric, rational_sqrt, sqrt_bounds, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import dp_level
from mechlib.core.remap import Remap
from mechlib.core.signature import DOWN, UP, signature
from mechlib.core.users import BayesUser, Loss, Prior, binary_loss
from mechlib.optimality.optimal import certify_given
from proofs.catalogue import Strength
from proofs.registry import Outcome, Scope, check, decide

ALPHAS = (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(1, 10), Fraction(99, 100))


def _figure(rows: list[str]) -> list[list[Fraction]]:
    return [[Fraction(x) for x in row.split()] for row in rows]


# GRS Figure 1(a) (columns −1..6, as printed) and 1(b), α = 1/2, n = 5.
FIGURE_1A = _figure(
    [
        "1/6 1/3 1/6 1/12 1/24 1/48 1/96 1/192",
        "1/12 1/6 1/3 1/6 1/12 1/24 1/48 1/96",
        "1/24 1/12 1/6 1/3 1/6 1/12 1/24 1/48",
        "1/48 1/24 1/12 1/6 1/3 1/6 1/12 1/24",
        "1/96 1/48 1/24 1/12 1/6 1/3 1/6 1/12",
        "1/192 1/96 1/48 1/24 1/12 1/6 1/3 1/6",
    ]
)
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
FIGURE_1B = _figure(
    [
        "2/3 1/6 1/12 1/24 1/48 1/48",
        "1/3 1/3 1/6 1/12 1/24 1/24",
        "1/6 1/6 1/3 1/6 1/12 1/12",
        "1/12 1/12 1/6 1/3 1/6 1/6",
        "1/24 1/24 1/12 1/6 1/3 1/3",
        "1/48 1/48 1/24 1/12 1/6 2/3",
    ]
)


@check(
    "GRS-E2.2",
    kind="EXACT",
    scope=Scope(
        Strength.ALL_N,
        "Figure 1's own instance (n = 5), entrywise — all that half states; T's level also for n ≤ 40",
        "1/2 (figure); 5 values (levels)",
        "exact rationals",
        covers="Figure 1(a), (b) entries exactly",
    ),
)
def check_truncated_geometric() -> Outcome:
    failures: list[dict[str, Any]] = []
    sizes = (1, 2, 5, 12, 40)
    for alpha in ALPHAS:
        for n in sizes:
            level = dp_level(truncated_geometric(alpha, n)).alpha
            if level != alpha:
                failures.append({"alpha": format_fraction(alpha), "n": n, "dp_level": format_fraction(level)})
    wide = geometric(Fraction(1, 2), 5, margin=2)  # columns −2..7; −1..6 are exact point masses
    printed = [list(row[1:-1]) for row in wide.rows]
    if printed != FIGURE_1A:
        failures.append({"figure": "1(a)", "computed": [[format_fraction(x) for x in r] for r in printed]})
    table = truncated_geometric(Fraction(1, 2), 5)
    if [list(r) for r in table.rows] != FIGURE_1B:
        failures.append({"figure": "1(b)", "computed": table.to_strings()})
    return decide(
        failures,
        {"alphas": [format_fraction(a) for a in ALPHAS], "n": list(sizes), "figures": ["1(a)", "1(b)"]},
    )


def _threshold(n: int, half: int) -> Callable[[int], int]:
    """Ex 2.3's remap: outputs ≥ (n+1)/2 read as n, all others as 0."""
    return lambda r: n if r >= half else 0


@check("GRS-E2.3", kind="EXACT")
def check_post_processing_example() -> Outcome:
    failures: list[dict[str, Any]] = []
    sizes = (1, 3, 5, 7, 9)
    for alpha in ALPHAS:
        for n in sizes:
            mech = geometric(alpha, n)  # window −n..2n; interior columns are exact point masses
            user = BayesUser(Prior([Fraction(1, 2)] + [0] * (n - 1) + [Fraction(1, 2)]), binary_loss(n))
            # Face value on ℤ: the guess is right iff the output equals the count, P[Δ = 0].
            face = sum(p * (1 - mech.entry(i, i)) for i, p in enumerate(user.prior.probabilities))
            half = (n + 1) // 2
            threshold = Remap.deterministic(_threshold(n, half), mech.outputs, range(n + 1))
            got = {
                "face_value": face,
                "threshold": expected_loss(mech, user, threshold),
                "optimal_remap": expected_loss(mech, user, optimal_remap(mech, user)),
            }
            want = {
                "face_value": 2 * alpha / (1 + alpha),
                "threshold": alpha**half / (1 + alpha),
                "optimal_remap": alpha**half / (1 + alpha),
            }
            for key in got:
                if got[key] != want[key]:
                    failures.append(
                        {
                            "alpha": format_fraction(alpha),
                            "n": n,
                            "remap": key,
                            "computed": format_fraction(got[key]),
                            "paper": format_fraction(want[key]),
                        }
                    )
    return decide(failures, {"alphas": [format_fraction(a) for a in ALPHAS], "n": list(sizes)})


@check("GRS-F4", kind="EXACT")
def check_signature_of_t() -> Outcome:
    failures: list[dict[str, Any]] = []
    for alpha in ALPHAS:
        n = 5
        sig = signature(truncated_geometric(alpha, n), alpha)
        want = tuple(tuple(DOWN if r <= i else UP for r in range(n + 1)) for i in range(n))
        if sig.rows != want:
            failures.append({"alpha": format_fraction(alpha), "computed": str(sig)})
    return decide(failures, {"alphas": [format_fraction(a) for a in ALPHAS], "n": 5})


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
    corners = power_loss_box(5, digits=6)
    for loss in corners:
        if certify_given(x, BayesUser(prior, loss), alpha) is None:
            failures.append({"uncertified corner": [format_fraction(v) for v in loss.matrix[0]]})
    return decide(failures, {"box_corners": len(corners), "sqrt_digits": 6, "signature": "Figure 3(b)"})
