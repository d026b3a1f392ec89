"""Independent re-check of a black-box result's ε test (``dp``, ``mechlib.blackbox/8``, /7 and /6).

The test (``mechlib.audit.ratio_test`` states it and why it is valid): for each ordered neighbour
pair (i, j) — and each count i against the other counts J of its component, pooled (/7 and /6: its
neighbours) — and event E with k = k_i(E), m = k + Σ_J k_j(E) hits over both phases, reject when
P(Bin(m, θ₀) ≥ k) ≤ the level, θ₀ = 1/(1 + Σ_J t^(−d(i, j))) (t/(1 + t) for a pair), t the recorded
rational upper bound on e^ε. Recomputed here from the recorded counts alone:

* t ≥ e^ε within 10⁻¹⁰ (arb); the H single hypotheses = (ordered pairs + pooled counts) × events
  (single outputs, both tails at the outputs seen inside their range), and the summed hypotheses
  of a count query on the path (``sums``: pairs on disjoint cells, their hits added, θ₀ = t/(1 + t));
  the levels exactly: /8 gives the sums α_FA/4 and the single ones 3α_FA/4 (all of α_FA without
  sums), /7 and /6 one level α_FA/H;
* the verdict: "violation" iff some (pair, event) rejects, the recorded violation being one that
  does; "no violation found" only if none does (every hypothesis redone);
* the certified ε lower bound: its θ_L a verified Clopper–Pearson bound at the hypothesis's level,
  1/(1 + |J|) ≤ θ_L < 1, the ratio |J|·θ_L/(1 − θ_L), and Σ_J e^(−ε·d(i, j)) ≥ (1 − θ_L)/θ_L at the
  recorded ε (arb; for a pair, ε ≤ ln(θ_L/(1 − θ_L))); null only if no hypothesis rejects
  θ = 1/(1 + |J|) (a ratio of 1). That no other hypothesis gives a larger bound is not re-checked
  (any valid one is a valid bound);
* the one-sided outputs, from the counts.

Tails are decided with arb: k ≤ mθ (the binomial median is ≥ ⌊mθ⌋: tail ≥ 1/2); else the point
mass at k (log-gamma) with the ratios of consecutive terms, which decrease, bounds the tail on
both sides; else the regularised incomplete beta at 128 then 1024 bits; undecided is "does not
reject". Written apart from the producer's code, on purpose.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import flint

Histograms = list[dict[int, int]]


def _ball(value: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def rejects(k: int, m: int, theta: Fraction, level: Fraction) -> bool:
    """P(Bin(m, θ) ≥ k) ≤ level, proved (0 < level < 1/2)."""
    if k <= 0:
        return False
    if k > m or theta <= 0:
        return True
    if theta >= 1 or k <= m * theta:
        return False
    old = flint.ctx.prec
    try:
        flint.ctx.prec = 128
        p, q = theta.numerator, theta.denominator - theta.numerator  # θ = p/(p + q)
        th, lv = _ball(theta), _ball(level)
        log_mass = flint.arb(m + 1).lgamma() - flint.arb(k + 1).lgamma() - flint.arb(m - k + 1).lgamma()
        mass = (log_mass + k * th.log() + (m - k) * (1 - th).log()).exp()
        top = _ball(Fraction((m - k) * p, (k + 1) * q))  # the largest ratio of consecutive terms (< 1 here)
        if mass / (1 - top) <= lv:
            return True
        terms = min(m - k, 4 * math.isqrt(m) + 2)
        low = _ball(Fraction((m - k - terms + 1) * p, (k + terms) * q)) if terms else flint.arb(0)
        if mass * (1 - low ** (terms + 1)) / (1 - low) > lv:
            return False
        for bits in (128, 1024):
            flint.ctx.prec = bits
            tail = _ball(theta).beta_lower(k, m - k + 1, regularized=True)
            if tail <= _ball(level):
                return True
            if tail > _ball(level):
                return False
        return False
    finally:
        flint.ctx.prec = old


def hits(h: dict[int, int], event: dict[str, Any]) -> int:
    if "outputs" in event:
        wanted = set(event["outputs"])
        return sum(k for s, k in h.items() if s in wanted)
    if "at_least" in event:
        return sum(k for s, k in h.items() if s >= event["at_least"])
    return sum(k for s, k in h.items() if s <= event["at_most"])


def exhaustive_events(counts: Histograms) -> list[dict[str, Any]]:
    """Each output seen, and the tails s ≤ t and s ≥ t at the seen outputs strictly inside their range
    (at the ends a tail is a single output, already listed)."""
    seen = sorted({s for h in counts for s in h})
    inner = seen[1:-1]
    return [{"outputs": [s]} for s in seen] + [{"at_most": s} for s in inner] + [{"at_least": s} for s in inner]


def distances(pairs: list[tuple[int, int]]) -> dict[int, dict[int, int]]:
    """d(i, j) in the neighbour graph for every count i of a pair and every other count j it reaches."""
    links: dict[int, set[int]] = {}
    for i, j in pairs:
        links.setdefault(i, set()).add(j)
        links.setdefault(j, set()).add(i)
    out: dict[int, dict[int, int]] = {}
    for source in links:
        reached, layer, step = {source: 0}, {source}, 0
        while layer:
            step += 1
            layer = {j for i in layer for j in links[i]} - reached.keys()
            reached.update(dict.fromkeys(layer, step))
        del reached[source]
        out[source] = reached
    return out


def family(pairs: list[tuple[int, int]], grouped: bool) -> list[tuple[int, list[int], list[int]]]:
    """(i, J, distances): each ordered neighbour pair (i, j) as (i, [j], [1]), then pooled counts —
    ``grouped`` (``mechlib.blackbox/8``): each count against every other count of its component, when
    there are two or more; else (/6, /7) each count against its neighbours, when two or more. An
    ε-DP mechanism has P_i(E) ≤ e^(ε·d(i, j))·P_j(E) (group privacy), so θ = P_i(E)/(P_i(E) +
    Σ_J P_j(E)) ≤ 1/(1 + Σ_J t^(−d(i, j)))."""
    reach = distances(pairs)
    pooled = []
    for i in sorted(reach):
        js = sorted(j for j, d in reach[i].items() if grouped or d == 1)
        if len(js) > 1:
            pooled.append((i, js, [reach[i][j] for j in js]))
    return [(i, [j], [1]) for i, j in pairs] + pooled


def null(t: Fraction, steps: list[int]) -> Fraction:
    """θ₀ = 1/(1 + Σ_j t^(−d_j))."""
    return 1 / (1 + sum((Fraction(1) / t**d for d in steps), Fraction(0)))


def _is_path(pairs: list[tuple[int, int]], n: int) -> bool:
    path = {(i, i + 1) for i in range(n)} | {(i + 1, i) for i in range(n)}
    return set(pairs) == path and len(pairs) == len(path)


def sums(pairs: list[tuple[int, int]], n: int) -> list[list[tuple[int, int, dict[str, Any]]]]:
    """``mechlib.blackbox/8``'s summed hypotheses when the pairs are exactly the path 0–1–…–n (both
    orders), else none: the ends outward [(0, 1, s ≤ 0), (n, n − 1, s ≥ n)] when n ≥ 3; then for the
    first pair at 0 and at 1, the pairs (i, i + 1), i stepping by 2, each as (i, i + 1, s ≤ i) and
    (i + 1, i, s ≥ i + 1). No (count, output) lies in two parts' events, so their hits are
    independent and k = Σk_h given m = Σm_h is at most Bin(m, t/(1 + t)) under ε-DP."""
    if not _is_path(pairs, n):
        return []
    found = [[(0, 1, {"at_most": 0}), (n, n - 1, {"at_least": n})]] if n >= 3 else []
    for first in (0, 1):
        parts = []
        for i in range(first, n, 2):
            parts += [(i, i + 1, {"at_most": i}), (i + 1, i, {"at_least": i + 1})]
        if parts:
            found.append(parts)
    return found


def one_tailed_sums(pairs: list[tuple[int, int]], n: int) -> list[list[tuple[int, int, dict[str, Any]]]]:
    """``mechlib.blackbox/7``'s sums on the path: the ends outward (n ≥ 3), then for the first pair at 0
    and at 1, the pairs (i, i + 1), i stepping by 2, each on s ≤ i, and their reverses on s ≥ i + 1,
    when there are two or more."""
    if not _is_path(pairs, n):
        return []
    found = [[(0, 1, {"at_most": 0}), (n, n - 1, {"at_least": n})]] if n >= 3 else []
    for first in (0, 1):
        starts = list(range(first, n, 2))
        if len(starts) > 1:
            found.append([(i, i + 1, {"at_most": i}) for i in starts])
            found.append([(i + 1, i, {"at_least": i + 1}) for i in starts])
    return found


def lower_bound_holds(k: int, m: int, low: Fraction, level: Fraction) -> bool:
    """θ_L is a Clopper–Pearson lower bound: P(Bin(m, θ_L) ≥ k) ≤ level."""
    if not 0 <= low <= 1:
        return False
    if k == 0:
        return low == 0
    old = flint.ctx.prec
    try:
        flint.ctx.prec = 256
        return bool(_ball(low).beta_lower(k, m - k + 1, regularized=True) <= _ball(level))
    finally:
        flint.ctx.prec = old
