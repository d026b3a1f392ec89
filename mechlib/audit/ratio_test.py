"""The black-box ε test: exact conditional tests of P_i(E) ≤ e^ε·P_j(E) on Poisson samples.

**Design.** Each count i is sampled in two phases of Poisson sizes, mean λ/4 and 3λ/4 (λ =
``--samples``; ``mechlib.audit.blackbox.sample_phases``); the ε test uses both, N_i ~ Poisson(λ)
in all. By Poisson splitting, the hits k_i(E) of an event E are then independent
Poisson(λ·P_i(E)) across counts, and given m = k_i(E) + k_j(E)

    k_i(E) ~ Bin(m, θ),   θ = P_i(E) / (P_i(E) + P_j(E))         (exactly),

so P_i(E) ≤ e^ε·P_j(E) ⟺ θ ≤ θ₀ = t/(1 + t) for t = e^ε. The test of that null rejects when the
conditional p-value P(Bin(m, θ₀) ≥ k_i(E)) is at most its level: the tail grows with θ, so the
test is valid for every θ ≤ θ₀; t is a rational ≥ e^ε (arb), which only makes it conservative.
Conditioning on m is what the uniformly most powerful unbiased test of a ratio of two Poisson
means does; it is the power Fisher-type tests have over two separate Clopper–Pearson bounds,
without StatDP's random thinning. (With a fixed sample size the conditional law is not binomial
and the test is not valid: with N = 1, P_i(E) = 1 and P_j(E) = 1/2 — a ratio of exactly e^ε = 2 —
given m = 1 the count k_i is 1 with probability 1, not θ₀ = 2/3. Poisson sizes make it exact.)

**The family.** Every ordered neighbour pair × every event (single outputs and both tails at every
output seen), each at α_FA/H (Bonferroni over the H hypotheses): "violation" iff one rejects,
which for an ε-DP mechanism has probability ≤ α_FA. (A two-phase variant — one (pair, event) chosen
by z-score on the selection phase and tested alone on the test phase at α_FA/2, beside this family
at α_FA/(2H) — was measured on ``benchmarks/test_power.py``'s planted bugs, 100 seeds each: ε off
by 10% at 3,000 samples per count flagged 75 times against 85 for this test alone, and T and
randomized response at their own ε drew 21 false alarms in 600 runs against 4. It is not used.)

**Certified ε lower bound** (what DP-Sniper reports). A Clopper–Pearson lower bound θ_L on θ at
α_FA/H gives P_i(E)/P_j(E) ≥ θ_L/(1 − θ_L). With probability ≥ 1 − α_FA all H bounds hold at once,
so the largest ln(θ_L/(1 − θ_L)) is a lower bound on the true ε, whatever the claim.

**Exactness.** Every rejection is decided by ``tail_at_most`` with arb balls: the median bound
(k ≤ ⌊mθ⌋ ⇒ the tail is ≥ 1/2), then the pmf at k (arb log-gamma) times rigorous geometric
bounds on the ratios of consecutive terms, then arb's regularised incomplete beta; a tail that
arb cannot place on one side of the level is *not* rejected. scipy only proposes the θ_L worth
verifying. (The events are those of the outputs seen, as in every sample-based DP test.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint

from mechlib.audit.blackbox import Phases, add_histograms, cp_lower, one_sided_outputs, ordered_pairs
from mechlib.audit.blackbox_delta import event_hits
from mechlib.core.exact import format_decimal, format_fraction
from mechlib.core.privacy import arb_precision, to_arb
from mechlib.infodesign.alpha import exp_bounds


def tail_at_most(k: int, m: int, theta: Fraction, level: Fraction) -> bool:
    """Whether P(Bin(m, θ) ≥ k) ≤ level (0 < level < 1/2), proved with arb; False when it does
    not hold or arb cannot decide (a test then does not reject)."""
    if not 0 < level < Fraction(1, 2):
        raise ValueError(f"level={level} must be in (0, 1/2)")
    if k <= 0:
        return False
    if k > m:
        return True
    if theta <= 0:
        return True
    if k * theta.denominator <= m * theta.numerator or theta >= 1:  # k ≤ mθ: the median ≥ ⌊mθ⌋ ≥ … ≥ k
        return False
    with arb_precision(128):
        th, lv = to_arb(theta), to_arb(level)
        mass = (
            flint.arb(m + 1).lgamma()
            - flint.arb(k + 1).lgamma()
            - flint.arb(m - k + 1).lgamma()
            + k * th.log()
            + (m - k) * (1 - th).log()
        ).exp()  # P(X = k)

        def ratio(j: int) -> flint.arb:  # P(X = k + j + 1)/P(X = k + j), decreasing in j
            return to_arb(Fraction((m - k - j) * theta.numerator, (k + j + 1) * (theta.denominator - theta.numerator)))

        first = ratio(0)  # < 1 because k > mθ
        if mass / (1 - first) <= lv:  # P(X ≥ k) ≤ P(X = k)·Σ r₀^j
            return True
        span = min(m - k, 2 + 4 * math.isqrt(m))
        rho = ratio(span - 1) if span >= 1 else flint.arb(0)
        if mass * (1 - rho ** (span + 1)) / (1 - rho) > lv:  # P(X ≥ k) ≥ P(X = k)·Σ_{j ≤ span} ρ^j
            return False
    for bits in (128, 1024):
        with arb_precision(bits):
            tail = to_arb(theta).beta_lower(k, m - k + 1, regularized=True)
            if tail <= to_arb(level):
                return True
            if tail > to_arb(level):
                return False
    return False


def theta_lower(k: int, m: int, level: Fraction) -> Fraction:
    """A verified Clopper–Pearson lower bound θ_L on θ from k of m (P(Bin(m, θ_L) ≥ k) ≤ level),
    never below 1/2 when 1/2 itself is one (so that a ratio ≥ 1 is never lost to rounding)."""
    low = cp_lower(k, m, level) if k else Fraction(0)  # the level exactly: a float could round it up
    if low < Fraction(1, 2) and tail_at_most(k, m, Fraction(1, 2), level):
        return Fraction(1, 2)
    return low


def exhaustive_events(counts: list[dict[int, int]]) -> list[dict[str, Any]]:
    """Single outputs and both tails at every output seen, as event objects."""
    seen = sorted({s for h in counts for s in h})
    events: list[dict[str, Any]] = [{"outputs": [t]} for t in seen]
    events += [{"at_most": t} for t in seen[:-1]]
    return events + [{"at_least": t} for t in seen[1:]]


def _hypothesis(i: int, j: int, event: dict[str, Any], k: int, other: int) -> dict[str, Any]:
    return {"inputs": [i, j], "event": event, "counts": [k, other]}


def _epsilon_bound(found: dict[str, Any], level: Fraction) -> dict[str, Any] | None:
    """The hypothesis with its verified θ_L, L/(1 − L) and ln of it rounded down to 6 decimals
    (proved by arb); None when θ_L < 1/2, that is when it does not reject θ = 1/2 (no privacy
    loss shown)."""
    k, other = found["counts"]
    low = theta_lower(k, k + other, level)
    if low < Fraction(1, 2):
        return None
    ratio = low / (1 - low)
    with arb_precision(128):
        shown = Fraction(math.floor(math.log(float(ratio)) * 10**6) - 1, 10**6) if ratio > 1 else Fraction(0)
        while not to_arb(shown) <= to_arb(ratio).log():
            shown -= Fraction(1, 10**6)
    return {
        **found,
        "theta_lower_bound": format_fraction(low),
        "ratio_lower_bound": format_fraction(ratio),
        "epsilon": format_decimal(max(shown, Fraction(0)), 6, up=False),
    }


def dp_test(
    phases: Phases,
    epsilon: Fraction,
    alpha_fa: float,
    neighbours: Sequence[tuple[int, int]],
) -> dict[str, Any]:
    """The ε test of the module docstring on the (selection, test) histograms, added; a JSON-ready
    dict (``mechlib.blackbox/5``'s ``dp``)."""
    from scipy.stats import beta

    counts = add_histograms(*phases)
    pairs = ordered_pairs(neighbours)
    _, t = exp_bounds(epsilon)
    theta = t / (1 + t)
    events = exhaustive_events(counts)
    hypotheses = len(pairs) * len(events)
    level = Fraction(alpha_fa) / max(hypotheses, 1)  # H = 0: nothing seen, nothing to test
    hits = [[event_hits(h, event) for h in counts] for event in events]
    rejected: dict[str, Any] | None = None
    candidates: list[tuple[float, dict[str, Any]]] = []  # (float θ_L, hypothesis): the ε bound's candidates
    for e, event in enumerate(events):
        for i, j in pairs:
            k, other = hits[e][i], hits[e][j]
            if k == 0:
                continue
            found = _hypothesis(i, j, event, k, other)
            candidates.append((float(beta.ppf(float(level), k, other + 1)), found))
            if rejected is None and tail_at_most(k, k + other, theta, level):
                rejected = found
    # the certified lower bound on ε: the best candidate by its float θ_L, verified exactly
    bound = _epsilon_bound(max(candidates, key=lambda c: c[0])[1], level) if candidates else None
    if bound is None:  # the float ranking can miss a hypothesis that rejects θ = 1/2: null must mean none does
        half = Fraction(1, 2)
        shown = next((f for _, f in candidates if tail_at_most(f["counts"][0], sum(f["counts"]), half, level)), None)
        bound = None if shown is None else _epsilon_bound(shown, level)
    excess = [float(epsilon) - math.log(c / (1 - c)) for c, _ in candidates if 0 < c < 1]
    return {
        "epsilon": format_fraction(epsilon),
        "e_epsilon_upper": format_fraction(t),
        "alpha_fa": alpha_fa,
        "hypotheses": hypotheses,
        "per_bound_level": format_fraction(level),
        "verdict": "violation" if rejected is not None else "no violation found",
        "violation": rejected,
        "epsilon_lower_bound": bound,
        "one_sided": one_sided_outputs(counts, pairs),
        # min over (pair, event) of ε − ln(θ_L/(1 − θ_L)): the smallest excess privacy loss at one
        # event that this sample would have flagged (display only; floats never decide the verdict)
        "smallest_detectable_excess_epsilon": round(max(min(excess), 0.0), 6) if excess else None,
    }
