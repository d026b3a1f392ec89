"""Independent re-check of a black-box audit result (schema ``mechlib.blackbox/8``; /7 and /6 too).

Everything is recomputed from the recorded phases alone, with arb's rigorous regularised
incomplete beta (scipy's Beta quantile only suggests a candidate bound, which arb then proves):

* the shape: n + 1 histograms over integer outputs per phase; ``counts`` the phases added;
* the ε test (``mechlib.checkers.ratio_test``): the conditional binomial test of every (pair,
  event) and (count against its neighbours pooled, event), the verdict, the recorded violation and
  the certified lower bound on the true ε;
* the one-sided outputs (seen under a count, never under a neighbour) recomputed from the counts;
* conformance: the verdict recomputed cell by cell against the recorded claimed pmf at
  α_FA/(2·cells); a nonconformant cell's claimed probability outside its verified interval;
* an (ε, δ) claim's two-phase test, by ``mechlib.checkers.blackbox_delta``.

``PROVENANCE`` lists what cannot be re-checked from the counts (that they came from the named
sampler with this seed and Poisson sizes of that mean, the speed). The smallest detectable
excess ε is a display figure.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import flint

from mechlib.checkers.blackbox_delta import check_delta_test, histograms
from mechlib.checkers.numbers import exact
from mechlib.checkers.ratio_test import (
    Histograms,
    exhaustive_events,
    family,
    hits,
    lower_bound_holds,
    null,
    one_tailed_sums,
    rejects,
    sums,
)
from mechlib.schemas import precheck

SCHEMA = "mechlib.blackbox/8"
#: Results handed out earlier, checked against their own families: /7 (neighbours pooled, five one-tailed
#: sums, one level α_FA/H) and /6 (no sums).
V7, V6 = "mechlib.blackbox/7", "mechlib.blackbox/6"
EARLIER = (V7, V6)

#: Recorded, not re-checkable from the counts.
PROVENANCE = (
    "tool (versions)",
    "sampler and seed (that these counts came from that sampler with that seed)",
    "samples_per_count and sampling (that each phase's sample sizes were Poisson, of these means)",
    "samples_per_second",
    "dp.smallest_detectable_excess_epsilon (a float for display; it decides nothing)",
)

TOP = {
    "schema", "tool", "sampler", "n", "samples_per_count", "sampling", "seed", "samples_per_second", "counts",
    "selection_counts", "test_counts", "neighbours", "dp", "conformance", "delta_test",
}  # fmt: skip
DP = {
    "epsilon", "e_epsilon_upper", "alpha_fa", "hypotheses", "per_bound_level", "verdict", "violation",
    "epsilon_lower_bound", "one_sided", "smallest_detectable_excess_epsilon",
}  # fmt: skip
HYPOTHESIS = {"inputs", "event", "counts"}
SUMMED = {"parts", "counts"}


class Malformed(ValueError):
    pass


def _arb(value: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def _exact(text: Any, where: str) -> Fraction:
    if not isinstance(text, str):
        raise Malformed(f"{where}: expected an exact number as a string, got {text!r}")
    try:
        return exact(text)
    except ValueError as err:
        raise Malformed(f"{where}: {err}") from None


def _int(value: Any, where: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
        raise Malformed(f"{where}: expected an integer" + (f" ≥ {low}" if low is not None else "") + f", got {value!r}")
    return value


def _keys(obj: Any, where: str, fields: set[str]) -> dict[str, Any]:
    if not isinstance(obj, dict) or obj.keys() != fields:
        have = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise Malformed(f"{where}: expected the fields {sorted(fields)}, got {have}")
    return obj


def _number(value: Any, where: str) -> float:
    """A JSON number (read as float, or as Decimal by a strict reader), as a float: α_FA and the
    per-bound level are configuration floats, compared to 12 significant digits."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise Malformed(f"{where}: expected a number, got {value!r}")
    return float(value)


def _at_least(k: int, n: int, p: Fraction) -> flint.arb:
    """P(Bin(n, p) ≥ k) = I_p(k, n − k + 1) for k ≥ 1."""
    return _arb(p).beta_lower(k, n - k + 1, regularized=True)


def lower_ok(k: int, n: int, low: Fraction, delta: Fraction) -> bool:
    """L is a Clopper–Pearson lower bound at level δ: P(Bin(N, L) ≥ k) ≤ δ (L = 0 if k = 0)."""
    if not 0 <= low <= 1:
        return False
    return low == 0 if k == 0 else bool(_at_least(k, n, low) <= _arb(delta))


def upper_ok(k: int, n: int, up: Fraction, delta: Fraction) -> bool:
    """U is a Clopper–Pearson upper bound at level δ: P(Bin(N, U) ≤ k) ≤ δ (U = 1 if k = N)."""
    if not 0 <= up <= 1:
        return False
    return up == 1 if k == n else bool(1 - _at_least(k + 1, n, up) <= _arb(delta))


@functools.lru_cache(maxsize=65536)
def _bound(k: int, n: int, delta: Fraction, lower: bool) -> Fraction:
    """The checker's own verified bound: scipy's quantile, moved outward until arb proves it (a
    pure function of its arguments, so cached)."""
    from scipy.stats import beta

    if lower and k == 0:
        return Fraction(0)
    if not lower and k == n:
        return Fraction(1)
    level = float(delta)
    guess = beta.ppf(level, k, n - k + 1) if lower else beta.ppf(1 - level, k + 1, n - k)
    step = 1e-12
    while True:
        value = min(max(float(guess) + (-step if lower else step), 0.0), 1.0)
        bound = Fraction(value)
        if (lower_ok if lower else upper_ok)(k, n, bound, delta):
            return bound
        if value in (0.0, 1.0):
            return Fraction(int(value))
        step *= 16


def check_result(result: Any) -> list[str]:
    """The failed checks (empty: every recorded finding holds, or is listed provenance)."""
    label = result.get("schema") if isinstance(result, dict) else None
    version = label if label in EARLIER else SCHEMA
    wrong = precheck(result, version, "result")
    if wrong:
        return wrong
    flint.ctx.prec = 256
    try:
        return _check(result, version)
    except Malformed as err:
        return [f"malformed result: {err}"]
    except (KeyError, TypeError, IndexError, ValueError, ZeroDivisionError, AttributeError) as err:
        return [f"malformed result: {type(err).__name__}: {err}"]


def _check(result: dict[str, Any], version: str) -> list[str]:
    _keys(result, "result", TOP)
    n = _int(result["n"], "n", 1)
    _int(result["samples_per_count"], "samples_per_count", 1)
    try:
        counts, selection, tested = (histograms(result[k], k, n) for k in ("counts", "selection_counts", "test_counts"))
    except ValueError as err:
        raise Malformed(str(err)) from None
    failures = []
    if [_added(a, b) for a, b in zip(selection, tested, strict=True)] != counts:
        failures.append("counts are not the selection and test phases added")
    neighbours = _neighbours(result["neighbours"], n)
    pairs = [pair for i, j in neighbours for pair in ((i, j), (j, i))]
    failures += _check_dp(_keys(result["dp"], "dp", DP), counts, pairs, version)
    if result["conformance"] is not None:
        failures += _check_conformance(result["conformance"], counts)
    if result["delta_test"] is not None:
        try:
            failures += check_delta_test(
                result["delta_test"], (selection, tested), pairs, result["dp"], lower_ok, upper_ok
            )
        except ValueError as err:
            raise Malformed(str(err)) from None
    return failures


def _added(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    return {s: a.get(s, 0) + b.get(s, 0) for s in a.keys() | b.keys()}


def _neighbours(raw: Any, n: int) -> list[tuple[int, int]]:
    if not isinstance(raw, list) or not raw:
        raise Malformed("neighbours: expected a nonempty list of pairs of counts")
    pairs = [tuple(_int(v, f"neighbours[{k}]", 0) for v in _list2(p, f"neighbours[{k}]")) for k, p in enumerate(raw)]
    if any(i == j or max(i, j) > n for i, j in pairs) or len({frozenset(p) for p in pairs}) != len(pairs):
        raise Malformed(f"neighbours: expected distinct pairs of distinct counts in 0..{n}")
    return [(i, j) for i, j in pairs]


#: A hypothesis as the checker tabulates it: (as recorded, k, m, θ₀, level, distances of the compared counts).
Row = tuple[dict[str, Any], int, int, Fraction, Fraction, list[int]]


def _levels(
    dp: dict[str, Any], alpha_fa: float, single: int, summed: int, version: str
) -> tuple[list[str], Fraction, Fraction]:
    """The recorded H and levels against the checker's own: /8 gives the sums α_FA/4 and the single
    hypotheses 3α_FA/4 (α_FA without sums); /7 and /6 one level α_FA/H for all."""
    alpha = Fraction(alpha_fa)
    if version != SCHEMA:
        level = alpha / max(single + summed, 1)
        if dp["hypotheses"] != single + summed or _exact(dp["per_bound_level"], "dp.per_bound_level") != level:
            return [f"dp.hypotheses/per_bound_level are not {single + summed} and α_FA/H = {level}"], level, level
        return [], level, level
    one = alpha * Fraction(3, 4) / max(single, 1) if summed else alpha / max(single, 1)
    each = alpha / 4 / summed if summed else None
    recorded = _keys(dp["per_bound_level"], "dp.per_bound_level", {"single", "summed"})
    summed_level = None if recorded["summed"] is None else _exact(recorded["summed"], "dp.per_bound_level.summed")
    if (
        dp["hypotheses"] != {"single": single, "summed": summed}
        or _exact(recorded["single"], "dp.per_bound_level.single") != one
        or summed_level != each
    ):
        want = f"{single} single at {one}, {summed} summed" + (f" at {each}" if each is not None else "")
        return [f"dp.hypotheses/per_bound_level are not {want}"], one, each or one
    return [], one, each or one


def _check_dp(dp: dict[str, Any], counts: Histograms, pairs: list[tuple[int, int]], version: str) -> list[str]:
    eps = _exact(dp["epsilon"], "dp.epsilon")
    alpha_fa = _number(dp["alpha_fa"], "dp.alpha_fa")
    if not 0 < alpha_fa < 1 or eps < 0:
        raise Malformed("dp: expected 0 < alpha_fa < 1 and epsilon ≥ 0")
    if dp["verdict"] not in ("violation", "no violation found"):
        raise Malformed(f"dp.verdict: {dp['verdict']!r}")
    t = _exact(dp["e_epsilon_upper"], "dp.e_epsilon_upper")
    failures = []
    gap = _arb(t) - _arb(eps).exp()
    if not (gap > 0 and gap < flint.arb(10) ** -10):
        failures.append("dp.e_epsilon_upper is not an upper bound on e^ε within 10⁻¹⁰")
    events = exhaustive_events(counts)
    tested = family(pairs, grouped=version == SCHEMA)
    n = len(counts) - 1
    added = [] if not events or version == V6 else sums(pairs, n) if version == SCHEMA else one_tailed_sums(pairs, n)
    wrong, single_level, summed_level = _levels(dp, alpha_fa, len(tested) * len(events), len(added), version)
    failures += wrong
    nulls = {profile: null(t, list(profile)) for profile in {tuple(d) for _, _, d in tested} | {(1,)}}
    # every (inputs, event); a pair's inputs are [i, j], a pooled one's [i, J]
    table: list[Row] = []
    for event in events:
        inside = [hits(h, event) for h in counts]  # each count's hits once, not once per hypothesis
        table += [
            ({"inputs": [i, js[0] if len(js) == 1 else js], "event": event, "counts": [k, other]},
             k, k + other, nulls[tuple(d)], single_level, d)
            for i, js, d in tested
            for k, other in [(inside[i], sum(inside[j] for j in js))]
        ]  # fmt: skip
    for parts in added:  # a sum of pairs' hits on disjoint cells: θ₀ = t/(1 + t)
        k = sum(hits(counts[i], event) for i, _, event in parts)
        other = sum(hits(counts[j], event) for _, j, event in parts)
        recorded = {"parts": [{"inputs": [i, j], "event": event} for i, j, event in parts], "counts": [k, other]}
        table.append((recorded, k, k + other, nulls[1,], summed_level, [1]))
    violation = dp["violation"]
    if (dp["verdict"] == "violation") != (violation is not None):
        failures.append(f"dp.verdict {dp['verdict']!r} does not match the violation recorded")
    elif violation is not None:
        row = next((r for r in table if r[0] == _keys(violation, "dp.violation", _named(violation))), None)
        if row is None or not rejects(row[1], row[2], row[3], row[4]):
            failures.append("dp.violation is not a hypothesis of the test that rejects at its level")
    elif any(rejects(k, m, theta, level) for _, k, m, theta, level, _ in table):
        failures.append("dp.verdict says no violation, but a hypothesis of the test rejects")
    failures += _check_epsilon_bound(dp["epsilon_lower_bound"], table)
    if dp["one_sided"] != one_sided(counts, pairs):
        failures.append("dp.one_sided is not the counts' outputs seen under one count and never under a neighbour")
    return failures


def _named(h: Any) -> set[str]:
    """The fields of a recorded hypothesis: a (pair or pooled count, event) or a sum of parts."""
    return SUMMED if isinstance(h, dict) and "parts" in h else HYPOTHESIS


def _check_epsilon_bound(b: Any, table: list[Row]) -> list[str]:
    where = "dp.epsilon_lower_bound"
    if b is None:  # no privacy loss shown: no hypothesis rejects a ratio of 1, θ = 1/(1 + |J|)
        shown = any(rejects(k, m, Fraction(1, 1 + len(d)), level) for _, k, m, _, level, d in table)
        return [f"{where} is null, but a hypothesis shows a ratio of at least 1"] if shown else []
    named = _named(b)
    _keys(b, where, named | {"theta_lower_bound", "ratio_lower_bound", "epsilon"})
    row = next((r for r in table if r[0] == {key: b[key] for key in named}), None)
    if row is None:
        return [f"{where} is not a hypothesis of the test"]
    low = _exact(b["theta_lower_bound"], f"{where}.theta_lower_bound")
    ratio = _exact(b["ratio_lower_bound"], f"{where}.ratio_lower_bound")
    shown = b["epsilon"]
    if not isinstance(shown, str) or not _DECIMAL6.fullmatch(shown):
        raise Malformed(f"{where}.epsilon: expected a decimal with 6 digits, got {shown!r}")
    _, k, m, _, level, steps = row
    out, size = [], len(steps)
    if not (Fraction(1, 1 + size) <= low < 1 and lower_bound_holds(k, m, low, level)):
        out.append(f"{where}: θ_L is not a verified Clopper–Pearson lower bound of at least 1/(1 + |J|) at its level")
    elif ratio != size * low / (1 - low) or not _loss_at_least(Fraction(shown), steps, (1 - low) / low):
        out.append(f"{where}: ε ≥ {shown} does not follow from θ_L (Σ_J e^(−ε·d(i, j)) ≥ (1 − θ_L)/θ_L)")
    return out


def _loss_at_least(epsilon: Fraction, steps: list[int], target: Fraction) -> bool:
    """Σ_j e^(−ε·d_j) ≥ target, proved with arb: then every ε′ with Σ_j e^(−ε′·d_j) ≤ target is ≥ ε."""
    total = sum(((-_arb(epsilon) * d).exp() for d in steps), flint.arb(0))
    return bool(total >= _arb(target))


def one_sided(counts: list[dict[int, int]], pairs: list[tuple[int, int]], shown: int = 20) -> dict[str, Any]:
    """Outputs seen under a count and never under a neighbouring one, rarest first."""
    found = [
        {"output": s, "seen_under": i, "count": k, "never_under": j, "samples": sum(counts[j].values())}
        for i, j in pairs
        for s, k in counts[i].items()
        if s not in counts[j]
    ]
    found.sort(key=lambda f: (f["count"], f["output"], f["seen_under"], f["never_under"]))
    return {"total": len(found), "shown": found[:shown]}


_DECIMAL6 = re.compile(r"[0-9]+\.[0-9]{6}")


def _list2(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != 2:
        raise Malformed(f"{where}: expected a pair")
    return value


CONFORMANCE = {"verdict", "alpha_fa", "cells", "per_bound_level", "pmf", "cell", "interval"}


def _check_conformance(c: Any, counts: list[dict[int, int]]) -> list[str]:
    """Redo the conformance test from the recorded claimed pmf: every cell, at α_FA/(2·cells)."""
    _keys(c, "conformance", CONFORMANCE)
    if c["verdict"] not in ("conformant", "nonconformant"):
        raise Malformed(f"conformance.verdict: {c['verdict']!r}")
    alpha_fa = _number(c["alpha_fa"], "conformance.alpha_fa")
    if not 0 < alpha_fa < 1:
        raise Malformed("conformance.alpha_fa: expected 0 < alpha_fa < 1")
    if not isinstance(c["pmf"], list) or len(c["pmf"]) != len(counts):
        raise Malformed(f"conformance.pmf: expected {len(counts)} rows")
    pmf: list[dict[int, Fraction]] = []
    for i, row in enumerate(c["pmf"]):
        if not isinstance(row, dict):
            raise Malformed(f"conformance.pmf[{i}]: expected an object of output → probability")
        try:
            pmf.append({int(s): _exact(p, f"conformance.pmf[{i}]") for s, p in row.items()})
        except ValueError as err:
            raise Malformed(f"conformance.pmf[{i}]: {err}") from None
    out = []
    if any(min(row.values(), default=Fraction(0)) < 0 or sum(row.values()) != 1 for row in pmf):
        out.append("conformance.pmf: a row is not a probability distribution")
    outputs = sorted({s for h in counts for s in h} | {s for row in pmf for s in row})
    cells = len(counts) * len(outputs)
    delta = Fraction(alpha_fa) / (2 * cells)
    if (
        c["cells"] != cells
        or not isinstance(c["per_bound_level"], float)
        or not math.isclose(c["per_bound_level"], float(delta), rel_tol=1e-12, abs_tol=0)
    ):
        out.append(f"conformance.cells/per_bound_level are not {cells} and α_FA/(2·cells)")
    if c["verdict"] == "conformant":
        if c["cell"] is not None or c["interval"] is not None:
            return [*out, "conformance says conformant but records a failing cell"]
        for i, (h, row) in enumerate(zip(counts, pmf)):
            total = sum(h.values())
            for s in outputs:
                k, p = h.get(s, 0), row.get(s, Fraction(0))
                if not _bound(k, total, delta, lower=True) <= p <= _bound(k, total, delta, lower=False):
                    return [*out, f"conformance says conformant, but the cell ({i}, {s}) is outside its interval"]
        return out
    cell = _keys(c["cell"], "conformance.cell", {"input", "output", "count", "samples", "claimed"})
    i, s = _int(cell["input"], "conformance.cell.input", 0), _int(cell["output"], "conformance.cell.output")
    if i >= len(counts):
        return [*out, "the nonconformant cell's input is not a count 0..n"]
    low, up = (_exact(x, "conformance.interval") for x in _list2(c["interval"], "conformance.interval"))
    claimed = _exact(cell["claimed"], "conformance.cell.claimed")
    k, total = counts[i].get(s, 0), sum(counts[i].values())
    if cell["count"] != k or cell["samples"] != total:
        out.append("the nonconformant cell's count is not the histogram's")
    if claimed != pmf[i].get(s, Fraction(0)):
        out.append("the nonconformant cell's claimed probability is not the recorded pmf's")
    if not (lower_ok(k, total, low, delta) and upper_ok(k, total, up, delta)):
        out.append("the nonconformant cell's interval is not a verified Clopper–Pearson interval")
    if low <= claimed <= up:
        out.append("the nonconformant cell's claimed probability lies inside its interval")
    return out
