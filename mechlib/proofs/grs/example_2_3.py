"""GRS-E2.3 (GRS Example 2.3): n odd, binary loss, prior p0=pn=1/2: face value loses 2α/(1+α); the
threshold remap α^((n+1)/2)/(1+α).

Every check part of this claim is here (``mechlib verify --only GRS-E2.3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.remap import Remap
from mechlib.core.users import BayesUser, Prior, binary_loss
from mechlib.proofs.catalogue import SYM, Strength
from mechlib.proofs.registry import Outcome, Scope, check, decide
from mechlib.proofs.shared.grs_instances import ALPHAS
from mechlib.proofs.shared.symbolic import ALPHA


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


@check(
    "GRS-E2.3",
    kind=SYM,
    scope=Scope(Strength.ALL_N, "every odd n = 2k+1 (k symbolic)", "symbolic, 0 < α < 1", "sympy series"),
)
def sym_post_processing_every_odd_n() -> Outcome:
    """GRS Example 2.3 for every odd n = 2k + 1 and symbolic α: with the geometric mechanism's
    noise c·α^|d| (c = (1−α)/(1+α)) and p₀ = p_n = 1/2, face value errs with P[Δ ≠ 0] = 1 − c =
    2α/(1+α); the threshold remap (outputs ≥ k+1 read as n, others as 0) errs at 0 iff Δ ≥ k+1 and
    at n iff Δ ≤ −(k+1), each with probability Σ_{d ≥ k+1} c·α^d = α^(k+1)/(1+α)."""
    k = sp.Symbol("k", integer=True, nonnegative=True)
    big = sp.Symbol("N", integer=True, positive=True)
    d = sp.Symbol("d", integer=True)
    c = (1 - ALPHA) / (1 + ALPHA)
    # the partial tail Σ_{d=k+1}^{k+N} c·α^d = (α^(k+1) − α^(k+N+1))/(1+α) for every N; as N → ∞,
    # α^(k+N+1) → 0 for 0 < α < 1, so the tail is α^(k+1)/(1+α)
    partial = sp.summation(c * ALPHA**d, (d, k + 1, k + big))
    closed = (ALPHA ** (k + 1) - ALPHA ** (k + big + 1)) / (1 + ALPHA)
    threshold = sp.Rational(1, 2) * partial + sp.Rational(1, 2) * partial  # p₀ = p_n = 1/2, mirror tails
    facts = {
        "face value loses 2α/(1+α)": sp.simplify(1 - c - 2 * ALPHA / (1 + ALPHA)) == 0,
        "partial tails in closed form": sp.simplify(sp.powsimp(sp.expand(partial - closed))) == 0,
        "threshold loses α^((n+1)/2)/(1+α) in the limit": sp.simplify(threshold - closed) == 0,
    }
    evidence = {"partial tail": str(sp.simplify(partial)), "checked": list(facts)}
    return decide([{key: False} for key, ok in facts.items() if not ok], evidence)
