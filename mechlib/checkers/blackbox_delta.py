"""Independent re-check of a black-box result's ``delta_test`` (an (ε, δ) claim, two phases).

From the recorded phases alone (the black-box checker has checked they add up to ``counts``): t is a
rational upper bound on e^ε within 10⁻¹⁰ (arb); the level is α_FA/2 (exact from /9 on); the event is the one the
selection rule picks (recomputed from its statement: per ordered neighbour pair, the selection
phase's likelihood-ratio set, single outputs and tails, pairs with an empty phase skipped, scored by
p_i − 2√(p_i/M_i) − t·(p_j + 2√(p_j/M_j) + 4/M_j) in IEEE floats, p = k/N of the selection phase and
M the test phase's sizes; the first best); its hits are the test phase's; L and U are verified
Clopper–Pearson bounds; the verdict is "violation" iff L − t·U > δ; the lower bound on δ(ε) is
L − t·U when positive.
What cannot be re-checked — that the phases were drawn independently, from the named sampler — is
provenance, like the seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import flint

from mechlib.checkers.numbers import exact
from mechlib.checkers.ratio_test import hits

FIELDS = {
    "epsilon", "delta", "e_epsilon_upper", "alpha_fa", "per_bound_level", "event", "verdict", "delta_lower_bound",
}  # fmt: skip
EVENT = {"inputs", "set", "counts", "samples", "lower_bound", "upper_bound"}


def _exact(text: Any, where: str) -> Fraction:
    if not isinstance(text, str):
        raise ValueError(f"{where}: expected an exact number as a string, got {text!r}")
    return exact(text)


def histograms(raw: Any, where: str, n: int) -> list[dict[int, int]]:
    """n + 1 recorded histograms (inputs 0..n), each an object of integer output → positive count
    (the black-box checker's ``counts`` and the δ test's phases)."""
    if not isinstance(raw, list) or len(raw) != n + 1:
        raise ValueError(f"{where}: expected {n + 1} histograms (inputs 0..{n})")
    out = []
    for i, h in enumerate(raw):
        if not isinstance(h, dict):
            raise ValueError(f"{where}[{i}]: expected an object of output → count")
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in h.values()):
            raise ValueError(f"{where}[{i}]: expected counts that are integers ≥ 1")
        try:
            out.append({int(k): v for k, v in h.items()})
        except ValueError:
            raise ValueError(f"{where}[{i}]: outputs must be integers") from None
    return out


def _selection(counts: list[dict[int, int]], pairs: list[tuple[int, int]], t: Fraction, sizes: list[int]) -> Any:
    outputs = sorted({s for h in counts for s in h})
    best: tuple[float, tuple[int, int], dict[str, Any]] | None = None
    t_float = float(t)
    for i, j in pairs:
        a, b = counts[i], counts[j]
        n_i, n_j = sum(a.values()), sum(b.values())
        events: list[dict[str, Any]] = [{"outputs": [s for s in outputs if a.get(s, 0) * n_j > t * b.get(s, 0) * n_i]}]
        for c in reversed(outputs):
            events += [{"outputs": [c]}, {"at_least": c}]
        events += [{"at_most": c} for c in outputs]
        m_i, m_j = sizes[i], sizes[j]
        if 0 in (n_i, n_j, m_i, m_j):
            continue
        for event in events:
            p_i, p_j = hits(a, event) / n_i, hits(b, event) / n_j
            value = p_i - 2 * math.sqrt(p_i / m_i) - t_float * (p_j + 2 * math.sqrt(p_j / m_j) + 4 / m_j)
            if value > 0 and (best is None or value > best[0]):
                best = (value, (i, j), event)
    return None if best is None else best[1:]


def check_delta_test(
    test: Any,
    phases: tuple[list[dict[int, int]], list[dict[int, int]]],
    pairs: list[tuple[int, int]],
    dp: dict[str, Any],
    alpha: Fraction,
    read_alpha: Callable[[Any, str], Fraction],
    bounds: tuple[Callable[[int, int, Fraction, Fraction], bool], Callable[[int, int, Fraction, Fraction], bool]],
) -> list[str]:
    """Failures of a non-null ``delta_test`` against the DP test's exact α_FA ``alpha`` (``read_alpha``
    reads a recorded α_FA as its schema version writes it; ``bounds``: the black-box checker's
    verified Clopper–Pearson tests, lower and upper); raises ValueError on a malformed field."""
    lower_ok, upper_ok = bounds
    if not isinstance(test, dict) or test.keys() != FIELDS:
        raise ValueError(f"delta_test: expected the fields {sorted(FIELDS)}")
    eps, delta = _exact(test["epsilon"], "delta_test.epsilon"), _exact(test["delta"], "delta_test.delta")
    t = _exact(test["e_epsilon_upper"], "delta_test.e_epsilon_upper")
    if not 0 <= delta <= 1 or eps < 0:
        raise ValueError("delta_test: expected ε ≥ 0 and δ in [0, 1]")
    failures = []
    if eps != _exact(dp["epsilon"], "dp.epsilon") or read_alpha(test["alpha_fa"], "delta_test.alpha_fa") != alpha:
        failures.append("delta_test: ε or α_FA differ from the DP test's")
    e_eps = flint.arb(flint.fmpq(eps.numerator, eps.denominator)).exp()
    t_ball = flint.arb(flint.fmpq(t.numerator, t.denominator))
    if not (t_ball > e_eps and t_ball - e_eps < flint.arb(10) ** -10):
        failures.append("delta_test.e_epsilon_upper is not an upper bound on e^ε within 10⁻¹⁰")
    level = alpha / 2
    recorded_level = test["per_bound_level"]
    if isinstance(recorded_level, str):  # /9: exact
        same = _exact(recorded_level, "delta_test.per_bound_level") == level
    else:  # /8 and earlier: the float α_FA/2, compared to 12 significant digits
        same = isinstance(recorded_level, int | float | Decimal) and math.isclose(
            float(recorded_level), float(level), rel_tol=1e-12, abs_tol=0
        )
    if not same:
        failures.append("delta_test.per_bound_level is not α_FA/2")
    selection, tested = phases
    chosen = _selection(selection, pairs, t, [sum(h.values()) for h in tested])
    event = test["event"]
    if event is None:
        if chosen is not None:
            failures.append("delta_test.event is null, but the selection phase picks an event")
        if test["verdict"] != "no violation found" or test["delta_lower_bound"] is not None:
            failures.append("delta_test: with no event the verdict is 'no violation found' and no bound")
        return failures
    if not isinstance(event, dict) or event.keys() != EVENT:
        raise ValueError(f"delta_test.event: expected the fields {sorted(EVENT)}")
    pair = tuple(event["inputs"]) if isinstance(event["inputs"], list) else None
    if chosen is None or (pair, event["set"]) != (chosen[0], chosen[1]):
        return [*failures, "delta_test.event is not the one the selection phase picks"]
    i, j = chosen[0]
    k_i, k_j = hits(tested[i], event["set"]), hits(tested[j], event["set"])
    n_i, n_j = sum(tested[i].values()), sum(tested[j].values())
    if event["counts"] != [k_i, k_j] or event["samples"] != [n_i, n_j]:
        failures.append("delta_test.event: its counts are not the test phase's")
    low = _exact(event["lower_bound"], "delta_test.event.lower_bound")
    up = _exact(event["upper_bound"], "delta_test.event.upper_bound")
    if not lower_ok(k_i, n_i, low, level) or not upper_ok(k_j, n_j, up, level):
        failures.append("delta_test.event: L or U is not a verified Clopper–Pearson bound at α_FA/2")
    bound = low - t * up
    if test["verdict"] != ("violation" if bound > delta else "no violation found"):
        failures.append(f"delta_test.verdict is {test['verdict']!r}, L − t·U = {bound} against δ = {delta}")
    recorded = test["delta_lower_bound"]
    if (recorded is None) != (bound <= 0) or (recorded is not None and _exact(recorded, "delta_lower_bound") != bound):
        failures.append("delta_test.delta_lower_bound is not L − t·U")
    return failures
