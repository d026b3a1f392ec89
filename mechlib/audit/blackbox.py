"""Black-box audit: sample a mechanism on counts 0..n and test its claimed ε (and its pmf).

**DP test.** For each ordered neighbour pair (i, i′) and output event E (single outputs and the
tails {s ≤ t}, {s ≥ t}), with k_i(E) of N samples in E: a Clopper–Pearson lower bound L on
P_i(E) and an upper bound U on P_i′(E), each at level δ = α_FA / (2H) for H hypotheses
(Bonferroni). "violation" iff L > e^ε·U for some (i, i′, E): then P(false alarm) ≤ α_FA for any
ε-DP mechanism. Otherwise "no violation found", with the smallest excess ε (over the claim, at
one event) that this sample size would have flagged.

**Conformance test.** Against a claimed exact pmf p_i(s): a two-sided Clopper–Pearson interval
per cell at level α_FA / (2·cells) must contain p_i(s); a cell outside is reported with its
counts — so a sampler that does not implement its spec is caught even when DP happens to hold.

**Exactness.** scipy's Beta quantiles only suggest a bound; each is then rounded outward to a
rational and *verified* with arb's rigorous regularised incomplete beta, I_L(k, N−k+1) ≤ δ
(lower) and 1 − I_U(k+1, N−k) ≤ δ (upper); e^ε enters through rational bounds checked by arb.
The verdict compares rationals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint

from mechlib.core.exact import format_decimal, format_fraction
from mechlib.core.privacy import arb_precision, to_arb
from mechlib.errors import InputError
from mechlib.infodesign.alpha import exp_bounds

#: A sampler: (true count, number of samples, numpy Generator) -> list of int outputs.
Draw = Callable[[int, int, Any], list[int]]


@dataclass(frozen=True)
class Sampler:
    """A named sampler; ``configured``: what an adapter set in its library (recorded, provenance)."""

    name: str
    draw: Draw
    library: str = "mechlib"
    configured: dict[str, Any] | None = None


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


def cp_lower(k: int, n: int, delta: float) -> Fraction:
    """A verified Clopper–Pearson lower bound: P(Bin(n, L) ≥ k) ≤ δ (0 if k = 0)."""
    if k == 0:
        return Fraction(0)
    from scipy.stats import beta

    with arb_precision(128):
        return _verified(float(beta.ppf(delta, k, n - k + 1)), lambda p: bool(_at_least(k, n, p) <= delta), -1)


def cp_upper(k: int, n: int, delta: float) -> Fraction:
    """A verified Clopper–Pearson upper bound: P(Bin(n, U) ≤ k) ≤ δ (1 if k = n)."""
    if k == n:
        return Fraction(1)
    from scipy.stats import beta

    with arb_precision(128):
        return _verified(
            float(beta.ppf(1 - delta, k + 1, n - k)), lambda p: bool(1 - _at_least(k + 1, n, p) <= delta), +1
        )


def sample_counts(
    sampler: Sampler,
    n: int,
    samples: int,
    seed: int | list[int],
    progress: Callable[[int], Any] | None = None,
    outputs: range | None = None,
) -> list[dict[int, int]]:
    """Histograms of ``samples`` draws per input 0..n, validating every output (an integer, and
    in ``outputs`` when the mechanism declares its range)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    counts = []
    for i in range(n + 1):
        try:
            out = sampler.draw(i, samples, rng)
        except InputError:
            raise
        except Exception as err:
            raise InputError(
                f"the sampler raised {type(err).__name__}: {err} (input {i})", source=sampler.name
            ) from None
        hist: dict[int, int] = {}
        for value in out:
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise InputError(
                    f"the sampler returned {value!r} for input {i}",
                    source=sampler.name,
                    hint="expected an integer output",
                )
            if outputs is not None and int(value) not in outputs:
                raise InputError(
                    f"the sampler returned {int(value)} for input {i}",
                    source=sampler.name,
                    hint=f"expected outputs in {outputs.start}..{outputs.stop - 1} (--range)",
                )
            hist[int(value)] = hist.get(int(value), 0) + 1
        if sum(hist.values()) != samples:
            raise InputError(
                f"the sampler returned {sum(hist.values())} values for {samples} requested", source=sampler.name
            )
        counts.append(hist)
        if progress is not None:
            progress(i)
    return counts


def _events(counts: list[dict[int, int]]) -> list[tuple[str, str, int]]:
    """(name, kind, t): single outputs s = t and the tails s ≤ t, s ≥ t."""
    seen = sorted({s for h in counts for s in h})
    events = [(f"s = {t}", "=", t) for t in seen]
    events += [(f"s ≤ {t}", "≤", t) for t in seen[:-1]]
    return events + [(f"s ≥ {t}", "≥", t) for t in seen[1:]]


def _hits(h: dict[int, int], kind: str, t: int) -> int:
    return sum(c for s, c in h.items() if (s == t if kind == "=" else s <= t if kind == "≤" else s >= t))


def path_neighbours(n: int) -> list[tuple[int, int]]:
    """The neighbours of a count query: i and i + 1."""
    return [(i, i + 1) for i in range(n)]


def complete_neighbours(n: int) -> list[tuple[int, int]]:
    """Every pair of inputs 0..n (a categorical mechanism such as randomized response)."""
    return [(i, j) for i in range(n + 1) for j in range(i + 1, n + 1)]


def ordered_pairs(neighbours: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Both directions of every neighbouring pair, (i, i′) and (i′, i)."""
    return [pair for i, j in neighbours for pair in ((i, j), (j, i))]


def dp_test(
    counts: list[dict[int, int]],
    epsilon: Fraction,
    alpha_fa: float = 0.05,
    neighbours: Sequence[tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """The DP test of the module docstring on histograms over inputs 0..n; ``neighbours``: the
    pairs of inputs DP is claimed between (default: the path of a count query)."""
    samples = [sum(h.values()) for h in counts]
    events = _events(counts)
    neighbours = path_neighbours(len(counts) - 1) if neighbours is None else neighbours
    pairs = ordered_pairs(neighbours)
    hypotheses = len(pairs) * len(events)
    delta = alpha_fa / (2 * hypotheses)
    _, e_hi = exp_bounds(epsilon)
    hits = [[_hits(h, kind, t) for h in counts] for _, kind, t in events]
    lowers = [[cp_lower(k, samples[i], delta) for i, k in enumerate(row)] for row in hits]
    uppers = [[cp_upper(k, samples[i], delta) for i, k in enumerate(row)] for row in hits]
    best: dict[str, Any] | None = None  # the (pair, event) with the largest L/U
    resolution = math.inf
    for e, (name, _, _) in enumerate(events):
        for i, j in pairs:
            low, up = lowers[e][i], uppers[e][j]
            if low > 0 and (best is None or low / up > Fraction(best["ratio_lower_bound"])):
                best = {
                    "inputs": [i, j],
                    "event": name,
                    "counts": [hits[e][i], hits[e][j]],
                    "samples": [samples[i], samples[j]],
                    "lower_bound": format_fraction(low),
                    "upper_bound": format_fraction(up),
                    "ratio_lower_bound": format_fraction(low / up),
                }
            if low > 0:  # how much larger P_i(E)/P_i′(E) would have to be to be flagged here
                resolution = min(resolution, float(epsilon) - math.log(float(low / up)))
    violated = best is not None and Fraction(best["ratio_lower_bound"]) > e_hi
    result: dict[str, Any] = {
        "epsilon": format_fraction(epsilon),
        "alpha_fa": alpha_fa,
        "hypotheses": hypotheses,
        "per_bound_level": delta,
        "verdict": "violation" if violated else "no violation found",
        "violation": best if violated else None,
        # with probability ≥ 1 − α_FA every bound holds at once, so the true ε ≥ ln(L/U) for each
        # (pair, event): the largest is a certified lower bound on the true ε, whatever the claim
        "epsilon_lower_bound": _epsilon_lower_bound(best),
        "one_sided": one_sided_outputs(counts, pairs),
        # min over (pair, event) of ε − ln(L/U): the smallest excess privacy loss at one event
        # that this sample would have flagged (display only; floats never decide the verdict)
        "smallest_detectable_excess_epsilon": None if math.isinf(resolution) else round(max(resolution, 0.0), 6),
    }
    return result


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


def _epsilon_lower_bound(best: dict[str, Any] | None) -> dict[str, Any] | None:
    """ln(L/U) of the best (pair, event), rounded down to 6 decimals and proved ≤ ln(L/U) by arb;
    None when no event has L/U > 1 (the data show no privacy loss at all)."""
    if best is None or Fraction(best["ratio_lower_bound"]) <= 1:
        return None
    ratio = Fraction(best["ratio_lower_bound"])
    with arb_precision(128):
        shown = Fraction(math.floor(math.log(float(ratio)) * 10**6) - 1, 10**6)
        while not to_arb(shown) < to_arb(ratio).log():  # the float log is only a first guess
            shown -= Fraction(1, 10**6)
    return {**best, "epsilon": format_decimal(shown, 6, up=False)}


def conformance_test(
    counts: list[dict[int, int]], pmf: Sequence[dict[int, Fraction]], alpha_fa: float = 0.05
) -> dict[str, Any]:
    """Every claimed p_i(s) inside its two-sided Clopper–Pearson interval (Bonferroni over cells)."""
    if len(pmf) != len(counts):
        raise InputError(f"the claimed pmf has {len(pmf)} rows for {len(counts)} inputs")
    outputs = sorted({s for h in counts for s in h} | {s for row in pmf for s in row})
    cells = len(counts) * len(outputs)
    delta = alpha_fa / (2 * cells)
    recorded = {  # everything the checker needs to redo the test
        "alpha_fa": alpha_fa,
        "cells": cells,
        "per_bound_level": delta,
        "pmf": [{str(s): format_fraction(p) for s, p in sorted(row.items())} for row in pmf],
    }
    for i, (h, row) in enumerate(zip(counts, pmf)):
        n = sum(h.values())
        for s in outputs:
            k, p = h.get(s, 0), row.get(s, Fraction(0))
            low, up = cp_lower(k, n, delta), cp_upper(k, n, delta)
            if not low <= p <= up:
                return {
                    **recorded,
                    "verdict": "nonconformant",
                    "cell": {"input": i, "output": s, "count": k, "samples": n, "claimed": format_fraction(p)},
                    "interval": [format_fraction(low), format_fraction(up)],
                }
    return {**recorded, "verdict": "conformant", "cell": None, "interval": None}


def blackbox_result(
    *,
    spec: str,
    library: str,
    n: int,
    samples: int,
    seed: int | list[int],
    seconds: float,
    counts: list[dict[int, int]],
    epsilon: Fraction,
    alpha_fa: float,
    pmf: list[dict[int, Fraction]] | None = None,
    neighbours: Sequence[tuple[int, int]] | None = None,
    delta_test: dict[str, Any] | None = None,
    configured: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``mechlib.blackbox/4`` result (re-checked by ``mechlib check``) for histograms of
    ``samples`` draws per count: the DP test, given a claimed ``pmf`` the conformance test, and
    for an (ε, δ) claim the two-phase δ test (``blackbox_delta``; its two phases add up to
    ``counts``). ``seed`` is a list when the counts are several seeded runs added (a sweep)."""
    from mechlib.audit.whitebox import tool_versions

    neighbours = path_neighbours(n) if neighbours is None else neighbours
    return {
        "schema": "mechlib.blackbox/4",
        "tool": tool_versions(),
        "sampler": {"spec": spec, "library": library, **({"configured": configured} if configured else {})},
        "n": n,
        "samples_per_count": samples,
        "seed": seed,
        "samples_per_second": round(samples * (n + 1) / seconds, 1) if seconds else None,
        "counts": [{str(k): v for k, v in sorted(h.items())} for h in counts],
        "neighbours": [list(pair) for pair in neighbours],
        "dp": dp_test(counts, epsilon, alpha_fa, neighbours),
        "conformance": conformance_test(counts, pmf, alpha_fa) if pmf is not None else None,
        "delta_test": delta_test,
    }
