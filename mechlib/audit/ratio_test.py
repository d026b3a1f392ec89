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

**Pooled counts (group privacy).** ε-DP between neighbours chains along paths: P_i(E) ≤
e^(ε·d(i, j))·P_j(E) for every count j of i's component, d the distance in the neighbour graph. So
for a count i with at least two other counts J in its component, Σ_J P_j(E) ≥ P_i(E)·Σ_J e^(−ε·d(i, j));
the pooled hits Σ_J k_j(E) are Poisson(λ·Σ_J P_j(E)), and given m = k_i(E) + Σ_J k_j(E), k_i(E) ~
Bin(m, θ) with θ ≤ θ₀ = 1/(1 + Σ_J t^(−d(i, j))) under the null — the same exact test. (For every
pair of counts as neighbours, ``complete``, that is t/(t + |J|).) It is what finds an output one count
produces and the others never do, or a count that stands out from both sides: on the path at ε = 1
each such hit counts ln(1/θ₀) ≈ 0.72 towards rejection at an inner count, against ≈ 0.31 for one
neighbour and ≈ 0.55 for both neighbours alone (``mechlib.blackbox/7``'s pools). Far counts add
little to the bound (t^(−d)) and their hits count against a violation, so a flat mechanism on a long
path dilutes the pool; the pairs are still tested.

**Summed hypotheses** (count queries: inputs 0..n, path neighbours). A bug that touches several
pairs a little — ε miscalibrated everywhere, both ends of the range clamped — leaves each pair's
evidence below its level. Hypotheses on *disjoint cells* can be added exactly: when no (count,
output) is in two parts' events, their hits are independent Poisson variables (Poisson splitting
again), given each m_h, k_h ~ Bin(m_h, θ_h) with θ_h ≤ θ₀ under the null, and a sum of independent
binomials with θ_h ≤ θ₀ is stochastically at most Bin(Σm_h, θ₀) — so P(Bin(Σm_h, θ₀) ≥ Σk_h) is a
valid p-value, and a rejection says some part is violated. Fixed in advance, up to three sums: the
ends outward, (0, 1) on s ≤ 0 with (n, n − 1) on s ≥ n (n ≥ 3); and the pairs from even counts, then
from odd counts, each on both of its tails, (i, i + 1) on s ≤ i and (i + 1, i) on s ≥ i + 1 (i = 0, 2,
4, … resp. 1, 3, …): count i gives s ≤ i to the first part and s ≥ i + 1 to the second, so the cells
are disjoint, and the even sum holds every sample of every count when n is odd. These are T's
tightest events (its ratio is e^ε on each), where a clamping or a miscalibrated ε shows first. The
largest P_i(E_h)/P_j(E_h) of a sum is at least Σ P_i/Σ P_j (the mediant), so a sum also gives an ε
lower bound.

**The family and its levels.** Every ordered neighbour pair and every pooled count × every event
(single outputs, and both tails at every output seen inside the range — at its ends a tail is a
single output), and the sums. A weighted Bonferroni split, fixed in advance: with sums, they share
α_FA/4 and the H single hypotheses share 3α_FA/4; without, the H share α_FA. "Violation" iff one
rejects at its level, which for an ε-DP mechanism has probability ≤ the sum of the levels = α_FA.
(Chosen on scratch runs of ``benchmarks/test_power.py``'s transition cells, 300 seeds, α_FA = 0.01:
giving the sums ½ instead took ε off by 10 % at 10³ samples per count from 78 % to 85 % detected but
a rare output at 10⁵ from 12 % to 6 %.) (A two-phase
variant — one (pair, event) chosen by z-score on the selection phase and tested alone on the test
phase at α_FA/2, beside this family at α_FA/(2H) — was measured with an earlier family of this
test, and drew five times the false alarms for less power; it is not used.)

**Certified ε lower bound** (what DP-Sniper reports). A Clopper–Pearson lower bound θ_L on θ at the
hypothesis's level gives P_i(E)/Σ_J P_j(E) ≥ θ_L/(1 − θ_L); under ε′-DP the left side is at most
1/Σ_J e^(−ε′·d(i, j)), so ε′ is at least the ε with Σ_J e^(−ε·d(i, j)) = (1 − θ_L)/θ_L — for a pair,
ln(θ_L/(1 − θ_L)). With probability ≥ 1 − α_FA every bound holds at once (their levels add up to
α_FA), so the largest of these is a lower bound on the true ε, whatever the claim.

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

from mechlib.audit import false_alarm_rate
from mechlib.audit.blackbox_delta import event_hits, event_name
from mechlib.audit.statistics import Phases, add_histograms, cp_lower, one_sided_outputs, ordered_pairs
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
#: or every other count of its component, pooled.
Inputs = tuple[int, tuple[int, ...]]


def graph_distances(neighbours: Sequence[tuple[int, int]]) -> dict[int, dict[int, int]]:
    """For each count in a pair, the distance d(i, j) to every other count of its component in the
    neighbour graph (breadth first)."""
    around: dict[int, set[int]] = {}
    for i, j in neighbours:
        around.setdefault(i, set()).add(j)
        around.setdefault(j, set()).add(i)
    found = {}
    for start in around:
        seen, frontier, d = {start: 0}, [start], 0
        while frontier:
            d += 1
            frontier = [j for i in frontier for j in sorted(around[i]) if j not in seen]
            seen |= {j: d for j in frontier}
        found[start] = {j: dist for j, dist in seen.items() if j != start}
    return found


def hypothesis_inputs(neighbours: Sequence[tuple[int, int]]) -> list[Inputs]:
    """The family's inputs: every ordered neighbour pair, then each count with at least two other
    counts in its component against all of them (sorted)."""
    pooled = [(i, tuple(sorted(js))) for i, js in sorted(graph_distances(neighbours).items()) if len(js) >= 2]
    return [(i, (j,)) for i, j in ordered_pairs(neighbours)] + pooled


def null_theta(t: Fraction, steps: Sequence[int]) -> Fraction:
    """θ₀ = 1/(1 + Σ_j t^(−d_j)) for the compared counts at distances d_j (t ≥ e^ε): under ε-DP,
    P_j(E) ≥ e^(−ε·d_j)·P_i(E) (group privacy along a shortest path), so θ = P_i(E)/(P_i(E) + Σ_j P_j(E))
    is at most θ₀. A pair is d = (1,): θ₀ = t/(1 + t)."""
    return 1 / (1 + sum((t**-d for d in steps), Fraction(0)))


#: A summed hypothesis: (i, j, event) parts whose (count, output) cells are pairwise disjoint.
Sum = list[tuple[int, int, dict[str, Any]]]

#: The share of α_FA the summed hypotheses split among them when there are any (the rest split the other
#: 3/4): they hold the most evidence a count query gives, a few hypotheses against hundreds.
SUMMED_SHARE = Fraction(1, 4)


def summed_hypotheses(neighbours: Sequence[tuple[int, int]], n: int) -> list[Sum]:
    """The sums of the module docstring when the neighbours are exactly the path on the counts
    0..n, else none: the ends outward (n ≥ 3), then the pairs (i, i + 1) from even and from odd i,
    each on both tails."""
    if {frozenset(p) for p in neighbours} != {frozenset((i, i + 1)) for i in range(n)} or len(neighbours) != n:
        return []
    sums: list[Sum] = [[(0, 1, {"at_most": 0}), (n, n - 1, {"at_least": n})]] if n >= 3 else []
    for start in (0, 1):
        lows = range(start, n, 2)  # pairs (i, i + 1): disjoint counts, as i steps by 2
        if lows:
            sums.append([part for i in lows for part in ((i, i + 1, {"at_most": i}), (i + 1, i, {"at_least": i + 1}))])
    return sums


def levels(alpha: Fraction, single: int, summed: int) -> tuple[Fraction, Fraction | None]:
    """The weighted Bonferroni levels (single, summed): with sums, the single hypotheses split
    (1 − SUMMED_SHARE)·α_FA and the sums SUMMED_SHARE·α_FA; without, the single ones split α_FA.
    They add up to α_FA exactly."""
    if not summed:
        return alpha / max(single, 1), None  # H = 0: nothing seen, nothing to test
    return alpha * (1 - SUMMED_SHARE) / max(single, 1), alpha * SUMMED_SHARE / summed


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
    pooled, ("input 2 vs counts 0, 1, 3, 4 pooled", "1/(1 + Σ_j e^(−ε·d(2, j)))")."""
    i, other = recorded
    if isinstance(other, list):
        return f"input {i} vs counts {', '.join(map(str, other))} pooled", f"1/(1 + Σ_j e^(−ε·d({i}, j)))"
    return f"inputs {i} vs {other}", "e^ε/(1 + e^ε)"


def hypothesis_in_words(recorded: dict[str, Any]) -> tuple[str, str]:
    """A recorded hypothesis with its event(s), and its null θ₀, in words: ("inputs 0 vs 1, event
    s ≤ 0", "e^ε/(1 + e^ε)"); a sum: ("inputs 0 vs 1 at s ≤ 0 plus inputs 5 vs 4 at s ≥ 5, summed", …)."""
    if "parts" in recorded:
        parts = [f"{inputs_in_words(p['inputs'])[0]} at {event_name(p['event'])}" for p in recorded["parts"]]
        return " plus ".join(parts) + ", summed", "e^ε/(1 + e^ε)"
    who, null = inputs_in_words(recorded["inputs"])
    return f"{who}, event {event_name(recorded['event'])}", null


def _epsilon_at(target: float, steps: Sequence[int]) -> float:
    """The ε with Σ_j e^(−ε·d_j) = target (a float estimate, by bisection; the sum decreases in ε)."""
    low, high = 0.0, 1.0
    while sum(math.exp(-high * d) for d in steps) > target and high < 1e6:
        high *= 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if sum(math.exp(-mid * d) for d in steps) > target else (low, mid)
    return low


def _epsilon_bound(found: dict[str, Any], steps: Sequence[int], level: Fraction) -> dict[str, Any] | None:
    """The hypothesis with its verified θ_L, the ratio |J|·θ_L/(1 − θ_L) (a lower bound on P_i(E) over
    the mean of the compared counts' P_j(E)) and the certified ε rounded down to 6 decimals: the
    largest with Σ_j e^(−ε·d_j) ≥ (1 − θ_L)/θ_L, proved by arb — under ε′-DP, Σ_j P_j(E) ≥ P_i(E)·
    Σ_j e^(−ε′·d_j) and the sum decreases in ε′, so ε′ ≥ it (for a pair: ε′ ≥ ln(θ_L/(1 − θ_L))).
    None when θ_L < 1/(1 + |J|) (no privacy loss shown)."""
    k, other = found["counts"]
    floor = Fraction(1, 1 + len(steps))
    low = theta_lower(k, k + other, level, floor)
    if low < floor:
        return None
    target = (1 - low) / low
    shown = Fraction(math.floor(_epsilon_at(float(target), steps) * 10**6) - 1, 10**6)
    with arb_precision(128):
        while shown > 0 and not sum(((-to_arb(shown) * d).exp() for d in steps), flint.arb(0)) >= to_arb(target):
            shown -= Fraction(1, 10**6)
    return {
        **found,
        "theta_lower_bound": format_fraction(low),
        "ratio_lower_bound": format_fraction(len(steps) * low / (1 - low)),
        "epsilon": format_decimal(max(shown, Fraction(0)), 6, up=False),
    }


def dp_test(
    phases: Phases,
    epsilon: Fraction,
    alpha_fa: Fraction | str,
    neighbours: Sequence[tuple[int, int]],
) -> dict[str, Any]:
    """The ε test of the module docstring on the (selection, test) histograms, added, at the exact
    false-alarm rate ``alpha_fa`` (recorded as given); a JSON-ready dict (``mechlib.blackbox/9``'s
    ``dp``)."""
    import numpy as np
    from scipy.stats import beta

    counts = add_histograms(*phases)
    family = hypothesis_inputs(neighbours)
    distance = graph_distances(neighbours)
    _, t = exp_bounds(epsilon)
    events = exhaustive_events(counts)
    sums = summed_hypotheses(neighbours, len(counts) - 1) if events else []
    alpha, alpha_text = false_alarm_rate(alpha_fa)
    single_level, summed_level = levels(alpha, len(family) * len(events), len(sums))
    summed_at = single_level if summed_level is None else summed_level  # never used without sums
    hits = [[event_hits(h, event) for h in counts] for event in events]
    # (distances of the compared counts, level, hypothesis as recorded): every (inputs, event), then the sums
    # — each part a pair, the mediant bounding the largest part's ratio
    steps = {inputs: tuple(distance[inputs[0]][j] for j in inputs[1]) for inputs in family}
    nulls = {d: null_theta(t, d) for d in set(steps.values()) | {(1,)}}
    tested = chain(
        (
            (steps[i, js], single_level, _hypothesis((i, js), event, hits[e][i], sum(hits[e][j] for j in js)))
            for e, event in enumerate(events)
            for i, js in family
        ),
        (((1,), summed_at, _summed(parts, counts)) for parts in sums),
    )
    seen = [(d, level, found) for d, level, found in tested if found["counts"][0] > 0]  # k = 0 rejects nothing
    rejected = next(
        (found for d, level, found in seen if tail_at_most(found["counts"][0], sum(found["counts"]), nulls[d], level)),
        None,
    )
    # (float ratio θ_L/(1 − θ_L) vs the compared counts' mean, distances, level, hypothesis): the ε bound's
    # candidates, their float θ_L from one vectorised call
    ks = np.array([found["counts"][0] for _, _, found in seen], dtype=float)
    others = np.array([found["counts"][1] for _, _, found in seen], dtype=float)
    lows = beta.ppf(np.array([float(level) for _, level, _ in seen]), ks, others + 1) if seen else []
    candidates = [
        (len(d) * low / (1 - low) if low < 1 else math.inf, d, level, found)
        for (d, level, found), low in zip(seen, map(float, lows), strict=True)
    ]
    bound = _best_bound(candidates)
    excess = [float(epsilon) - math.log(r) for r, d, _, _ in candidates if 0 < r < math.inf and set(d) == {1}]
    return {
        "epsilon": format_fraction(epsilon),
        "e_epsilon_upper": format_fraction(t),
        "alpha_fa": alpha_text,
        "hypotheses": {"single": len(family) * len(events), "summed": len(sums)},
        "per_bound_level": {
            "single": format_fraction(single_level),
            "summed": None if summed_level is None else format_fraction(summed_level),
        },
        "verdict": "violation" if rejected is not None else "no violation found",
        "violation": rejected,
        "epsilon_lower_bound": bound,
        "one_sided": one_sided_outputs(counts, ordered_pairs(neighbours)),
        # min over (pair, event) of ε − ln(θ_L/(1 − θ_L)): the smallest excess privacy loss at one
        # event that this sample would have flagged (display only; floats never decide the verdict)
        "smallest_detectable_excess_epsilon": round(max(min(excess), 0.0), 6) if excess else None,
    }


def _best_bound(candidates: list[tuple[float, tuple[int, ...], Fraction, dict[str, Any]]]) -> dict[str, Any] | None:
    """The certified lower bound on ε: for each distance profile the candidate with the largest float
    ratio (ε grows with it), the best of those by its float ε, verified exactly; null only if no
    hypothesis shows a ratio ≥ 1 exactly (the float ranking may miss one)."""
    best: dict[tuple[int, ...], tuple[float, tuple[int, ...], Fraction, dict[str, Any]]] = {}
    for c in candidates:
        if c[1] not in best or c[0] > best[c[1]][0]:
            best[c[1]] = c

    def estimate(c: tuple[float, tuple[int, ...], Fraction, dict[str, Any]]) -> float:
        ratio, d = c[0], c[1]
        return math.inf if ratio == math.inf else _epsilon_at(len(d) / ratio, d) if ratio > 1 else -1.0

    if best:
        _, d, level, found = max(best.values(), key=estimate)
        bound = _epsilon_bound(found, d, level)
        if bound is not None:
            return bound
    for _, d, level, found in candidates:  # null must mean no hypothesis shows a ratio ≥ 1
        if tail_at_most(found["counts"][0], sum(found["counts"]), Fraction(1, 1 + len(d)), level):
            return _epsilon_bound(found, d, level)
    return None
