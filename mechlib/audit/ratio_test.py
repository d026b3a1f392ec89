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

**Pooled neighbours.** For a count i with d ≥ 2 neighbours J, ε-DP gives P_i(E) ≤ e^ε·P_j(E) for
each j ∈ J, hence P_i(E) ≤ e^ε·Σ_J P_j(E)/d; the pooled hits Σ_J k_j(E) are Poisson(λ·Σ_J P_j(E)),
so given m = k_i(E) + Σ_J k_j(E), k_i(E) ~ Bin(m, θ) with θ ≤ θ₀ = t/(t + d) under the null — the
same exact test. It is what finds an output one count produces and its neighbours never do (or a
count that stands out from both sides): each hit counts ln((t + 2)/t) ≈ 0.55 towards rejection at
ε = 1 instead of ln((t + 1)/t) ≈ 0.31 (a 10⁻⁴ output under one count: 30 of 30 runs flagged at 3·10⁵
samples per count against 24 with pairs alone).

**The family.** Every ordered neighbour pair and every pooled count × every event (single outputs,
and both tails at every output seen inside the range — at its ends a tail is a single output),
each at α_FA/H (Bonferroni over the H hypotheses): "violation" iff one rejects, which for an ε-DP
mechanism has probability ≤ α_FA. (A two-phase variant — one (pair, event) chosen
by z-score on the selection phase and tested alone on the test phase at α_FA/2, beside this family
at α_FA/(2H) — was measured on ``benchmarks/test_power.py``'s planted bugs, 100 seeds each: ε off
by 10% at 3,000 samples per count flagged 75 times against 85 for this test alone, and T and
randomized response at their own ε drew 21 false alarms in 600 runs against 4. It is not used.)

**Summed hypotheses** (count queries: inputs 0..n, path neighbours). A bug that touches several
pairs a little — ε miscalibrated everywhere, both ends of the range clamped — leaves each pair's
evidence below α_FA/H. Hypotheses on *disjoint* counts can be added exactly: their hits are then
independent, given each m_h, k_h ~ Bin(m_h, θ_h) with θ_h ≤ θ₀ under the null, and a sum of
independent binomials with θ_h ≤ θ₀ is stochastically at most Bin(Σm_h, θ₀) — so
P(Bin(Σm_h, θ₀) ≥ Σk_h) is a valid p-value, and a rejection says some part is violated. Fixed in
advance, up to five such sums join the family (each at α_FA/H, H counting them): the ends outward, (0, 1)
on s ≤ 0 with (n, n − 1) on s ≥ n (n ≥ 3); and the adjacent pairs from even and from odd counts, each
on the tail between them, (i, i + 1) on s ≤ i and (i + 1, i) on s ≥ i + 1 (i = 0, 2, 4, … resp.
1, 3, …; at least two pairs). They are T's tightest events (its ratio is e^ε on each), where a
clamping or a miscalibrated ε shows first. On ``benchmarks/test_power.py``'s transition cells
(300 seeds) they took ε off by 10 % at 10³ samples per count from 22 % to 42 % detected and
clamping by resampling from 29 % to 58 %; the largest P_i(E_h)/P_j(E_h) of a sum is at least
Σ P_i/Σ P_j (the mediant), so a sum also gives an ε lower bound.

**Certified ε lower bound** (what DP-Sniper reports). A Clopper–Pearson lower bound θ_L on θ at
α_FA/H gives P_i(E)/P_j(E) ≥ θ_L/(1 − θ_L) — pooled, P_i(E) over the mean of the P_j(E) is at least
d·θ_L/(1 − θ_L), and so is the largest P_i(E)/P_j(E). With probability ≥ 1 − α_FA all H bounds hold
at once, so the largest ln of these is a lower bound on the true ε, whatever the claim.

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
from itertools import chain
from typing import Any

import flint

from mechlib.audit.blackbox import Phases, add_histograms, cp_lower, one_sided_outputs, ordered_pairs
from mechlib.audit.blackbox_delta import event_hits, event_name
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


def theta_lower(k: int, m: int, level: Fraction, floor: Fraction = Fraction(1, 2)) -> Fraction:
    """A verified Clopper–Pearson lower bound θ_L on θ from k of m (P(Bin(m, θ_L) ≥ k) ≤ level),
    never below ``floor`` when ``floor`` itself is one (a ratio ≥ 1 is never lost to rounding)."""
    low = cp_lower(k, m, level) if k else Fraction(0)  # the level exactly: a float could round it up
    if low < floor and tail_at_most(k, m, floor, level):
        return floor
    return low


def exhaustive_events(counts: list[dict[int, int]]) -> list[dict[str, Any]]:
    """Single outputs and both tails at every output seen, as event objects — each event once (the
    tails s ≤ min and s ≥ max are the single outputs min and max)."""
    seen = sorted({s for h in counts for s in h})
    events: list[dict[str, Any]] = [{"outputs": [t]} for t in seen]
    events += [{"at_most": t} for t in seen[1:-1]]
    return events + [{"at_least": t} for t in seen[1:-1]]


#: A hypothesis's inputs: count i and the counts it is compared with — one (an ordered neighbour pair)
#: or its d ≥ 2 neighbours, pooled.
Inputs = tuple[int, tuple[int, ...]]


def hypothesis_inputs(neighbours: Sequence[tuple[int, int]]) -> list[Inputs]:
    """The family's inputs: every ordered neighbour pair, then each count with at least two
    neighbours against all of them (sorted)."""
    around: dict[int, set[int]] = {}
    for i, j in neighbours:
        around.setdefault(i, set()).add(j)
        around.setdefault(j, set()).add(i)
    pooled = [(i, tuple(sorted(js))) for i, js in sorted(around.items()) if len(js) >= 2]
    return [(i, (j,)) for i, j in ordered_pairs(neighbours)] + pooled


#: A summed hypothesis: (i, j, event) parts on pairwise disjoint counts.
Sum = list[tuple[int, int, dict[str, Any]]]


def summed_hypotheses(neighbours: Sequence[tuple[int, int]], n: int) -> list[Sum]:
    """The sums of the module docstring when the neighbours are exactly the path on the counts
    0..n, else none."""
    if {frozenset(p) for p in neighbours} != {frozenset((i, i + 1)) for i in range(n)} or len(neighbours) != n:
        return []
    sums: list[Sum] = [[(0, 1, {"at_most": 0}), (n, n - 1, {"at_least": n})]] if n >= 3 else []
    for start in (0, 1):
        lows = range(start, n, 2)  # pairs (i, i + 1): disjoint, as i steps by 2
        if len(lows) >= 2:
            sums.append([(i, i + 1, {"at_most": i}) for i in lows])
            sums.append([(i + 1, i, {"at_least": i + 1}) for i in lows])
    return sums


def _summed(parts: Sum, counts: list[dict[int, int]]) -> dict[str, Any]:
    """As recorded: the parts, and the hits summed over them, under the i's and under the j's."""
    k = sum(event_hits(counts[i], event) for i, _, event in parts)
    other = sum(event_hits(counts[j], event) for _, j, event in parts)
    return {"parts": [{"inputs": [i, j], "event": event} for i, j, event in parts], "counts": [k, other]}


def _hypothesis(inputs: Inputs, event: dict[str, Any], k: int, other: int) -> dict[str, Any]:
    """As recorded: a pair's inputs are [i, j], a pooled hypothesis's [i, [j₁, …, j_d]]."""
    i, js = inputs
    return {"inputs": [i, js[0] if len(js) == 1 else list(js)], "event": event, "counts": [k, other]}


def inputs_in_words(recorded: list[Any]) -> tuple[str, str]:
    """A recorded hypothesis's inputs and its null θ₀ in words: ("inputs 0 vs 1", "e^ε/(1 + e^ε)") or,
    pooled, ("input 2 vs its neighbours 1, 3 pooled", "e^ε/(e^ε + 2)")."""
    i, other = recorded
    if isinstance(other, list):
        return f"input {i} vs its neighbours {', '.join(map(str, other))} pooled", f"e^ε/(e^ε + {len(other)})"
    return f"inputs {i} vs {other}", "e^ε/(1 + e^ε)"


def hypothesis_in_words(recorded: dict[str, Any]) -> tuple[str, str]:
    """A recorded hypothesis with its event(s), and its null θ₀, in words: ("inputs 0 vs 1, event
    s ≤ 0", "e^ε/(1 + e^ε)"); a sum: ("inputs 0 vs 1 at s ≤ 0 plus inputs 5 vs 4 at s ≥ 5, summed", …)."""
    if "parts" in recorded:
        parts = [f"{inputs_in_words(p['inputs'])[0]} at {event_name(p['event'])}" for p in recorded["parts"]]
        return " plus ".join(parts) + ", summed", "e^ε/(1 + e^ε)"
    who, null = inputs_in_words(recorded["inputs"])
    return f"{who}, event {event_name(recorded['event'])}", null


def _epsilon_bound(found: dict[str, Any], d: int, level: Fraction) -> dict[str, Any] | None:
    """The hypothesis with its verified θ_L, the ratio d·θ_L/(1 − θ_L) (a lower bound on P_i(E) over
    the mean of its d neighbours' P_j(E), so on the largest P_i(E)/P_j(E)) and ln of it rounded down to
    6 decimals (proved by arb); None when the ratio is below 1, i.e. θ_L < 1/(1 + d) (no privacy loss
    shown)."""
    k, other = found["counts"]
    low = theta_lower(k, k + other, level, Fraction(1, 1 + d))
    if low < Fraction(1, 1 + d):
        return None
    ratio = d * low / (1 - low)
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
    dict (``mechlib.blackbox/7``'s ``dp``)."""
    from scipy.stats import beta

    counts = add_histograms(*phases)
    family = hypothesis_inputs(neighbours)
    _, t = exp_bounds(epsilon)
    events = exhaustive_events(counts)
    sums = summed_hypotheses(neighbours, len(counts) - 1) if events else []
    hypotheses = len(family) * len(events) + len(sums)
    level = Fraction(alpha_fa) / max(hypotheses, 1)  # H = 0: nothing seen, nothing to test
    hits = [[event_hits(h, event) for h in counts] for event in events]
    # (d, hypothesis as recorded): every (inputs, event), then the sums — d = 1, the mediant bounding
    # the largest part's ratio
    tested = chain(
        (
            (len(js), _hypothesis((i, js), event, hits[e][i], sum(hits[e][j] for j in js)))
            for e, event in enumerate(events)
            for i, js in family
        ),
        ((1, _summed(parts, counts)) for parts in sums),
    )
    rejected: dict[str, Any] | None = None
    # (float lower bound on the ratio, d, hypothesis): the ε bound's candidates
    candidates: list[tuple[float, int, dict[str, Any]]] = []
    for d, found in tested:
        k, other = found["counts"]
        if k == 0:
            continue
        low = float(beta.ppf(float(level), k, other + 1))
        candidates.append((d * low / (1 - low) if low < 1 else math.inf, d, found))
        if rejected is None and tail_at_most(k, k + other, t / (t + d), level):  # θ₀ = t/(t + d)
            rejected = found
    # the certified lower bound on ε: the best candidate by its float ratio, verified exactly
    best = max(candidates, key=lambda c: c[0]) if candidates else None
    bound = None if best is None else _epsilon_bound(best[2], best[1], level)
    if bound is None:  # the float ranking can miss a hypothesis showing a ratio ≥ 1: null must mean none does
        shown = next(
            (
                (d, f)
                for _, d, f in candidates
                if tail_at_most(f["counts"][0], sum(f["counts"]), Fraction(1, 1 + d), level)
            ),
            None,
        )
        bound = None if shown is None else _epsilon_bound(shown[1], shown[0], level)
    excess = [float(epsilon) - math.log(r) for r, _, _ in candidates if 0 < r < math.inf]
    return {
        "epsilon": format_fraction(epsilon),
        "e_epsilon_upper": format_fraction(t),
        "alpha_fa": alpha_fa,
        "hypotheses": hypotheses,
        "per_bound_level": format_fraction(level),
        "verdict": "violation" if rejected is not None else "no violation found",
        "violation": rejected,
        "epsilon_lower_bound": bound,
        "one_sided": one_sided_outputs(counts, ordered_pairs(neighbours)),
        # min over (pair, event) of ε − ln(θ_L/(1 − θ_L)): the smallest excess privacy loss at one
        # event that this sample would have flagged (display only; floats never decide the verdict)
        "smallest_detectable_excess_epsilon": round(max(min(excess), 0.0), 6) if excess else None,
    }
