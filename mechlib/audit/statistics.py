"""The statistical primitives of the black-box tests, shared by the ε test (``ratio_test``), the
(ε, δ) test (``blackbox_delta``) and the conformance test (``blackbox``) — here, so that none of
them imports another for these: verified Clopper–Pearson bounds, histograms of the two phases,
the ordered neighbour pairs and the one-sided outputs.

**Exactness.** scipy's Beta quantiles only suggest a bound; each is then rounded outward to a
rational and *verified* with arb's rigorous regularised incomplete beta, I_L(k, N−k+1) ≤ δ
(lower) and 1 − I_U(k+1, N−k) ≤ δ (upper). The verdicts compare rationals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import flint

from mechlib.core.privacy import arb_precision, to_arb

#: Histograms per count 0..n: output -> hits.
Histograms = list[dict[int, int]]
#: The (selection, test) phases of one run.
Phases = tuple[Histograms, Histograms]


def _at_least(k: int, n: int, p: Fraction) -> flint.arb:
    """P(Bin(n, p) ≥ k) = I_p(k, n − k + 1) (k ≥ 1), as an arb ball."""
    return to_arb(p).beta_lower(k, n - k + 1, regularized=True)


def _verified(candidate: float, ok: Callable[[Fraction], bool], toward: int) -> Fraction:
    """The candidate bound rounded outward (``toward`` −1: down, +1: up) until ``ok`` proves it."""
    step = 1e-12
    while True:
        value = min(max(candidate + toward * step, 0.0), 1.0)
        bound = Fraction(value).limit_denominator(10**15)
        if (toward < 0 and bound > value) or (toward > 0 and bound < value):
            bound = Fraction(value)
        if ok(bound):
            return bound
        if value in (0.0, 1.0):
            return Fraction(int(value))
        step *= 16


def cp_lower(k: int, n: int, delta: float | Fraction) -> Fraction:
    """A verified Clopper–Pearson lower bound: P(Bin(n, L) ≥ k) ≤ δ (0 if k = 0), δ taken exactly."""
    if k == 0:
        return Fraction(0)
    from scipy.stats import beta

    with arb_precision(128):
        level = to_arb(Fraction(delta))
        guess = float(beta.ppf(float(delta), k, n - k + 1))
        return _verified(guess, lambda p: bool(_at_least(k, n, p) <= level), -1)


def cp_upper(k: int, n: int, delta: float | Fraction) -> Fraction:
    """A verified Clopper–Pearson upper bound: P(Bin(n, U) ≤ k) ≤ δ (1 if k = n), δ taken exactly."""
    if k == n:
        return Fraction(1)
    from scipy.stats import beta

    with arb_precision(128):
        level = to_arb(Fraction(delta))
        guess = float(beta.ppf(1 - float(delta), k + 1, n - k))
        return _verified(guess, lambda p: bool(1 - _at_least(k + 1, n, p) <= level), +1)


def add_histograms(*runs: Histograms) -> Histograms:
    """The histograms of several runs (or phases) added count by count, exactly."""
    out: Histograms = [{} for _ in runs[0]]
    for run in runs:
        for total, h in zip(out, run, strict=True):
            for s, k in h.items():
                total[s] = total.get(s, 0) + k
    return out


def ordered_pairs(neighbours: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Both directions of every neighbouring pair, (i, i′) and (i′, i)."""
    return [pair for i, j in neighbours for pair in ((i, j), (j, i))]


#: One-sided outputs listed in a result (their total is always given).
ONE_SIDED_SHOWN = 20


def one_sided_outputs(counts: list[dict[int, int]], pairs: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """Outputs seen under a count and never under a neighbouring count: consistent with an infinite
    ε (an output one input never produces), which no finite sample can certify — shown as such,
    never as evidence of privacy. The rarest under their count come first."""
    found = [
        {"output": s, "seen_under": i, "count": k, "never_under": j, "samples": sum(counts[j].values())}
        for i, j in pairs
        for s, k in counts[i].items()
        if s not in counts[j]
    ]
    found.sort(key=lambda f: (f["count"], f["output"], f["seen_under"], f["never_under"]))
    return {"total": len(found), "shown": found[:ONE_SIDED_SHOWN]}
