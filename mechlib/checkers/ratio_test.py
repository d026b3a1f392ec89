"""Independent re-check of a black-box result's ε test (``dp``, ``mechlib.blackbox/5``).

The test (``mechlib.audit.ratio_test`` states it and why it is valid): for each ordered neighbour
pair (i, j) and event E with k = k_i(E), m = k_i(E) + k_j(E) hits, reject when
P(Bin(m, θ₀) ≥ k) ≤ level, θ₀ = t/(1 + t), t the recorded rational upper bound on e^ε. Recomputed
here from the recorded phases alone:

* t ≥ e^ε within 10⁻¹⁰ (arb); H = ordered pairs × events (single outputs, both tails at the outputs
  seen); the exhaustive level α_FA/(2H), exactly, and the two-phase level α_FA/2;
* the two-phase choice: the largest positive z = (k − mθ₀)/√(mθ₀(1 − θ₀)) over each pair's
  candidate events (the likelihood-ratio set {s : k_i(s)·N_j > t·k_j(s)·N_i}, then per output c
  from the largest down {s = c} and {s ≥ c}, then {s ≤ c} upwards) on the selection phase, IEEE
  floats, the first best; its counts the test phase's; whether it rejects;
* the verdict: "violation" iff some exhaustive hypothesis or the two-phase one rejects, the
  recorded violation being one that does;
* the certified ε lower bound: its θ_L a verified Clopper–Pearson bound at its test's level,
  1/2 ≤ θ_L < 1, the ratio θ_L/(1 − θ_L), ε ≤ ln of it (arb); null only if no hypothesis rejects
  θ = 1/2 (then no θ_L ≥ 1/2 is a valid bound). That no other hypothesis gives a larger bound is not
  re-checked (any valid one is a valid bound);
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
    seen = sorted({s for h in counts for s in h})
    return [{"outputs": [s]} for s in seen] + [{"at_most": s} for s in seen[:-1]] + [{"at_least": s} for s in seen[1:]]


def chosen(selection: Histograms, pairs: list[tuple[int, int]], t: Fraction) -> Any:
    """(pair, event, z) of the two-phase test's choice on the selection phase, or None."""
    theta = float(t / (1 + t))
    outputs = sorted({s for h in selection for s in h})
    best = None
    for i, j in pairs:
        a, b = selection[i], selection[j]
        n_i, n_j = sum(a.values()), sum(b.values())
        events: list[dict[str, Any]] = [{"outputs": [s for s in outputs if a.get(s, 0) * n_j > t * b.get(s, 0) * n_i]}]
        for c in reversed(outputs):
            events += [{"outputs": [c]}, {"at_least": c}]
        events += [{"at_most": c} for c in outputs]
        for event in events:
            k, m = hits(a, event), hits(a, event) + hits(b, event)
            if m == 0:
                continue
            z = (k - m * theta) / math.sqrt(m * theta * (1 - theta))
            if z > 0 and (best is None or z > best[2]):
                best = ((i, j), event, z)
    return best


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
