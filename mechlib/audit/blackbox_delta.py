"""Black-box test of an (ε, δ)-DP claim: a certified lower bound on the true δ(ε).

The run's two phases (``mechlib.audit.blackbox.sample_phases``: Poisson sizes, independent streams):

1. **Selection** (mean a quarter of the samples per count). For every ordered neighbour pair (i, i′)
   the candidate events are the empirical likelihood-ratio set {s : k_i(s)/N_i > t·k_i′(s)/N_i′}
   (t ≥ e^ε a rational bound), every single output seen and every tail {s ≥ c}, {s ≤ c} at a
   seen c; the (pair, event) whose test-phase bound is expected to be largest is kept (``_score``,
   a deterministic float heuristic that ``mechlib check`` recomputes: it only chooses).
2. **Test** (the rest). With k_i, k_i′ hits of that one event, a Clopper–Pearson lower bound L
   on P_i(E) and an upper bound U on P_i′(E), each at level α_FA/2. Since the event was fixed
   before these samples were drawn, with probability ≥ 1 − α_FA both hold, and then

       δ(ε) ≥ P_i(E) − e^ε·P_i′(E) ≥ L − t·U,

   a certified lower bound on the mechanism's true δ at ε (the hockey-stick divergence of one
   event bounds it from below; Dwork–Roth Def. 2.4). The claim fails ("violation") iff L − t·U
   exceeds the claimed δ: for a mechanism that is (ε, δ)-DP this happens with probability ≤ α_FA.
   It is the kind of bound DP-Sniper reports; choosing the event on separate samples is what makes
   one test (no Bonferroni over events) valid. (Scoring the candidates on a third, separate phase
   was tried: it chose worse — the noise of a smaller scoring sample outweighed the overfitting
   it avoids; benchmarks/test_approximate.py measures the power.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TypeVar

from mechlib.audit import false_alarm_rate
from mechlib.audit.statistics import cp_lower, cp_upper, ordered_pairs
from mechlib.core.exact import format_fraction
from mechlib.infodesign.alpha import exp_bounds

#: Hits of a histogram, or probabilities of a pmf's row.
Weight = TypeVar("Weight", int, float)


def event_hits(h: dict[int, Weight], event: dict[str, Any]) -> Weight:
    """Samples of one histogram inside an event: {"outputs": [...]}, {"at_least": c} or {"at_most": c}
    (of one row of a pmf: the event's probability)."""
    if "outputs" in event:
        wanted = set(event["outputs"])
        return sum(k for s, k in h.items() if s in wanted)
    if "at_least" in event:
        return sum(k for s, k in h.items() if s >= event["at_least"])
    return sum(k for s, k in h.items() if s <= event["at_most"])


def event_name(event: dict[str, Any]) -> str:
    if "at_least" in event:
        return f"s ≥ {event['at_least']}"
    if "at_most" in event:
        return f"s ≤ {event['at_most']}"
    shown = ", ".join(map(str, event["outputs"][:6])) + (", …" if len(event["outputs"]) > 6 else "")
    count = len(event["outputs"])
    return f"s ∈ {{{shown}}} ({count} output{'' if count == 1 else 's'})"


def _score(k_i: int, n_i: int, m_i: int, k_j: int, n_j: int, m_j: int, t: float) -> float:
    """What the test phase's bound L − t·U is expected to be for an event with k of N selection
    hits per input and M test samples: p_i − 2√(p_i/M_i) − t·(p_j + 2√(p_j/M_j) + 4/M_j) — a float
    heuristic (IEEE-754 operations only, so the checker recomputes it bit for bit); it chooses,
    never decides."""
    p_i, p_j = k_i / n_i, k_j / n_j
    return p_i - 2 * math.sqrt(p_i / m_i) - t * (p_j + 2 * math.sqrt(p_j / m_j) + 4 / m_j)


def candidate_events(counts: list[dict[int, int]], i: int, j: int, t: Fraction) -> list[dict[str, Any]]:
    """The events tried for the ordered pair (i, j), in order: the likelihood-ratio set
    {s : k_i(s)·N_j > t·k_j(s)·N_i} (exact), then {s = c} and {s ≥ c} for each seen c from the
    largest down, then {s ≤ c} upwards."""
    a, b = counts[i], counts[j]
    n_i, n_j = sum(a.values()), sum(b.values())
    outputs = sorted({s for h in counts for s in h})
    events: list[dict[str, Any]] = [{"outputs": [s for s in outputs if a.get(s, 0) * n_j > t * b.get(s, 0) * n_i]}]
    for c in reversed(outputs):
        events += [{"outputs": [c]}, {"at_least": c}]
    return events + [{"at_most": c} for c in outputs]


def select_event(
    counts: list[dict[int, int]], pairs: Sequence[tuple[int, int]], t: Fraction, test_sizes: Sequence[int]
) -> tuple[tuple[int, int], dict[str, Any]] | None:
    """The (ordered pair, event) with the largest positive ``_score`` among each pair's
    ``candidate_events``, the first on ties; None when no score is positive."""
    best: tuple[float, tuple[int, int], dict[str, Any]] | None = None
    t_float = float(t)
    for i, j in pairs:
        n_i, n_j = sum(counts[i].values()), sum(counts[j].values())
        if 0 in (n_i, n_j, test_sizes[i], test_sizes[j]):  # a Poisson size can be 0: nothing to score or test
            continue
        for event in candidate_events(counts, i, j, t):
            k_i, k_j = event_hits(counts[i], event), event_hits(counts[j], event)
            value = _score(k_i, n_i, test_sizes[i], k_j, n_j, test_sizes[j], t_float)
            if value > 0 and (best is None or value > best[0]):
                best = (value, (i, j), event)
    return None if best is None else (best[1], best[2])


def delta_test(
    phases: tuple[list[dict[int, int]], list[dict[int, int]]],
    epsilon: Fraction,
    delta: Fraction,
    alpha_fa: Fraction | str,
    neighbours: Sequence[tuple[int, int]],
) -> dict[str, Any]:
    """The test of the module docstring on the (selection, test) histograms at the exact false-alarm
    rate ``alpha_fa`` (recorded as given); a JSON-ready dict (``mechlib.blackbox/9``'s ``delta_test``)."""
    selection, test = phases
    _, t = exp_bounds(epsilon)
    alpha, alpha_text = false_alarm_rate(alpha_fa)
    level = alpha / 2
    recorded: dict[str, Any] = {
        "epsilon": format_fraction(epsilon),
        "delta": format_fraction(delta),
        "e_epsilon_upper": format_fraction(t),
        "alpha_fa": alpha_text,
        "per_bound_level": format_fraction(level),
    }
    chosen = select_event(selection, ordered_pairs(neighbours), t, [sum(h.values()) for h in test])
    if chosen is None:
        return {**recorded, "event": None, "verdict": "no violation found", "delta_lower_bound": None}
    (i, j), event = chosen
    k_i, k_j = event_hits(test[i], event), event_hits(test[j], event)
    n_i, n_j = sum(test[i].values()), sum(test[j].values())
    low, up = cp_lower(k_i, n_i, level), cp_upper(k_j, n_j, level)
    bound = low - t * up
    return {
        **recorded,
        "event": {
            "inputs": [i, j],
            "set": event,
            "counts": [k_i, k_j],
            "samples": [n_i, n_j],
            "lower_bound": format_fraction(low),
            "upper_bound": format_fraction(up),
        },
        "verdict": "violation" if bound > delta else "no violation found",
        "delta_lower_bound": format_fraction(bound) if bound > 0 else None,
    }
