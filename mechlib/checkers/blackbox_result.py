"""Independent re-check of a black-box audit result (schema ``mechlib.blackbox/4``).

Everything is recomputed from the recorded counts alone, with arb's rigorous regularised
incomplete beta (scipy's Beta quantile only suggests a candidate bound, which arb then proves):

* the shape: n + 1 histograms over integer outputs, each with ``samples_per_count`` samples;
* the test's parameters: the events (single outputs seen, both tails), the ordered pairs of the
  recorded neighbours (distinct counts in 0..n, each pair once), H = pairs × events hypotheses,
  the per-bound level δ = α_FA / (2H);
* a reported violation: inputs a neighbour pair, its event one of the test's, its counts and sample
  sizes the histograms', L a verified lower bound (P(Bin(N, L) ≥ k) ≤ δ), U a verified upper bound
  (P(Bin(N, U) ≤ k) ≤ δ), L/U as recorded, and L > e^ε·U proved by arb;
* the verdict: "no violation found" is accepted only if no (pair, event) has verified bounds with
  L > e^ε·U (the checker's own bounds), and "violation" only with a violation that checks;
* the certified lower bound on the true ε: its (pair, event) checked like a violation, L/U > 1,
  and the decimal ε proved below ln(L/U) by arb (it is a valid bound; that no other event gives a
  larger one is not re-checked); null only if no (pair, event) has L/U > 1 by the checker's bounds;
* the one-sided outputs (seen under a count, never under a neighbour) recomputed from the counts;
* conformance: the verdict recomputed cell by cell against the recorded claimed pmf at
  α_FA/(2·cells); a nonconformant cell's claimed probability outside its verified interval;
* an (ε, δ) claim's two-phase test, by ``mechlib.checkers.blackbox_delta``.

``PROVENANCE`` lists what cannot be re-checked from the counts (that they came from the named
sampler with this seed, the speed). The smallest detectable excess ε is a display figure.
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
from mechlib.schemas import precheck

SCHEMA = "mechlib.blackbox/4"

#: Recorded, not re-checkable from the counts.
PROVENANCE = (
    "tool (versions)",
    "sampler and seed (that these counts came from that sampler with that seed)",
    "samples_per_second",
    "dp.smallest_detectable_excess_epsilon (a float for display; it decides nothing)",
)

TOP = {
    "schema", "tool", "sampler", "n", "samples_per_count", "seed", "samples_per_second", "counts", "neighbours",
    "dp", "conformance", "delta_test",
}  # fmt: skip
DP = {
    "epsilon", "alpha_fa", "hypotheses", "per_bound_level", "verdict", "violation", "epsilon_lower_bound",
    "one_sided", "smallest_detectable_excess_epsilon",
}  # fmt: skip
VIOLATION = {"inputs", "event", "counts", "samples", "lower_bound", "upper_bound", "ratio_lower_bound"}


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


def _events(counts: list[dict[int, int]]) -> list[tuple[str, str, int]]:
    seen = sorted({s for h in counts for s in h})
    events = [(f"s = {t}", "=", t) for t in seen]
    events += [(f"s ≤ {t}", "≤", t) for t in seen[:-1]]
    return events + [(f"s ≥ {t}", "≥", t) for t in seen[1:]]


def _hits(h: dict[int, int], op: str, t: int) -> int:
    return sum(c for s, c in h.items() if (s == t if op == "=" else s <= t if op == "≤" else s >= t))


def check_result(result: Any) -> list[str]:
    """The failed checks (empty: every recorded finding holds, or is listed provenance)."""
    wrong = precheck(result, SCHEMA, "result")
    if wrong:
        return wrong
    flint.ctx.prec = 256
    try:
        return _check(result)
    except Malformed as err:
        return [f"malformed result: {err}"]
    except (KeyError, TypeError, IndexError, ValueError, ZeroDivisionError, AttributeError) as err:
        return [f"malformed result: {type(err).__name__}: {err}"]


def _check(result: dict[str, Any]) -> list[str]:
    _keys(result, "result", TOP)
    n = _int(result["n"], "n", 1)
    per_count = _int(result["samples_per_count"], "samples_per_count", 1)
    try:
        counts = histograms(result["counts"], "counts", n)
    except ValueError as err:
        raise Malformed(str(err)) from None
    failures = []
    if any(sum(h.values()) != per_count for h in counts):
        failures.append("a histogram does not have samples_per_count samples")
    failures += _check_dp(_keys(result["dp"], "dp", DP), counts, _neighbours(result["neighbours"], n))
    if result["conformance"] is not None:
        failures += _check_conformance(result["conformance"], counts)
    if result["delta_test"] is not None:
        pairs = [pair for i, j in _neighbours(result["neighbours"], n) for pair in ((i, j), (j, i))]
        try:
            failures += check_delta_test(result["delta_test"], counts, pairs, result["dp"], lower_ok, upper_ok)
        except ValueError as err:
            raise Malformed(str(err)) from None
    return failures


def _neighbours(raw: Any, n: int) -> list[tuple[int, int]]:
    if not isinstance(raw, list) or not raw:
        raise Malformed("neighbours: expected a nonempty list of pairs of counts")
    pairs = [tuple(_int(v, f"neighbours[{k}]", 0) for v in _list2(p, f"neighbours[{k}]")) for k, p in enumerate(raw)]
    if any(i == j or max(i, j) > n for i, j in pairs) or len({frozenset(p) for p in pairs}) != len(pairs):
        raise Malformed(f"neighbours: expected distinct pairs of distinct counts in 0..{n}")
    return [(i, j) for i, j in pairs]


def _check_dp(dp: dict[str, Any], counts: list[dict[int, int]], neighbours: list[tuple[int, int]]) -> list[str]:
    eps = _exact(dp["epsilon"], "dp.epsilon")
    alpha_fa = _number(dp["alpha_fa"], "dp.alpha_fa")
    if not 0 < alpha_fa < 1 or eps < 0:
        raise Malformed("dp: expected 0 < alpha_fa < 1 and epsilon ≥ 0")
    events = _events(counts)
    pairs = [pair for i, j in neighbours for pair in ((i, j), (j, i))]
    hypotheses = len(pairs) * len(events)
    failures = []
    if dp["hypotheses"] != hypotheses:
        failures.append(f"dp.hypotheses is {dp['hypotheses']}, the counts give {hypotheses}")
    delta = Fraction(alpha_fa) / (2 * hypotheses)
    recorded = _number(dp["per_bound_level"], "dp.per_bound_level")
    if not math.isclose(recorded, float(delta), rel_tol=1e-12, abs_tol=0):
        failures.append(f"dp.per_bound_level is {recorded}, α_FA/(2H) = {float(delta)}")
    e_eps = _arb(eps).exp()
    failures += _check_lower_bound(dp["epsilon_lower_bound"], counts, events, pairs, delta)
    if dp["one_sided"] != one_sided(counts, pairs):
        failures.append("dp.one_sided is not the counts' outputs seen under one count and never under a neighbour")
    violation = dp["violation"]
    if dp["verdict"] not in ("violation", "no violation found"):
        raise Malformed(f"dp.verdict: {dp['verdict']!r}")
    if (dp["verdict"] == "violation") != (violation is not None):
        return [*failures, f"dp.verdict {dp['verdict']!r} does not match the violation recorded"]
    if violation is not None:
        return failures + _check_violation(
            _keys(violation, "dp.violation", VIOLATION), counts, events, delta, e_eps, set(pairs)
        )
    totals = [sum(h.values()) for h in counts]
    for name, op, t in events:  # "no violation found": no (pair, event) with verified L > e^ε·U
        hits = [_hits(h, op, t) for h in counts]
        for i, j in pairs:
            low = _bound(hits[i], totals[i], delta, lower=True)
            if low == 0:
                continue
            up = _bound(hits[j], totals[j], delta, lower=False)
            if _arb(low) > e_eps * _arb(up):
                return [*failures, f"dp.verdict says no violation, but inputs {i}, {j} at event {name} violate"]
    return failures


def _check_violation(
    v: dict[str, Any],
    counts: list[dict[int, int]],
    events: list[tuple[str, str, int]],
    delta: Fraction,
    e_eps: Any,
    pairs: set[tuple[int, int]],
) -> list[str]:
    out, low, up = _check_witness_bounds(v, "dp.violation", counts, events, delta, pairs)
    if not _arb(low) > e_eps * _arb(up):
        out.append("L > e^ε·U does not hold")
    return out


def _check_witness_bounds(
    v: dict[str, Any],
    where: str,
    counts: list[dict[int, int]],
    events: list[tuple[str, str, int]],
    delta: Fraction,
    pairs: set[tuple[int, int]],
) -> tuple[list[str], Fraction, Fraction]:
    """A recorded (pair, event) with its counts and verified bounds L, U: (failures, L, U)."""
    i, j = (_int(x, f"{where}.inputs", 0) for x in _list2(v["inputs"], f"{where}.inputs"))
    if (i, j) not in pairs:
        return [f"{where}: the inputs are not a recorded neighbour pair"], Fraction(0), Fraction(1)
    by_name = {name: (op, t) for name, op, t in events}
    if v["event"] not in by_name:
        return [f"{where}: the event {v['event']!r} is not one of the test's"], Fraction(0), Fraction(1)
    op, t = by_name[v["event"]]
    ki, kj = (_int(x, f"{where}.counts", 0) for x in _list2(v["counts"], f"{where}.counts"))
    ni, nj = (_int(x, f"{where}.samples", 1) for x in _list2(v["samples"], f"{where}.samples"))
    out = []
    if [_hits(counts[i], op, t), _hits(counts[j], op, t)] != [ki, kj]:
        out.append(f"{where}: the counts are not the histograms' counts of its event")
    if [sum(counts[i].values()), sum(counts[j].values())] != [ni, nj]:
        out.append(f"{where}: the sample sizes are not the histograms'")
    low = _exact(v["lower_bound"], f"{where}.lower_bound")
    up = _exact(v["upper_bound"], f"{where}.upper_bound")
    if not lower_ok(ki, ni, low, delta):
        out.append(f"{where}: the lower bound is not a verified Clopper–Pearson bound")
    if not upper_ok(kj, nj, up, delta):
        out.append(f"{where}: the upper bound is not a verified Clopper–Pearson bound")
    if up == 0 or _exact(v["ratio_lower_bound"], f"{where}.ratio_lower_bound") != low / up:
        out.append(f"{where}: ratio_lower_bound is not L/U")
    return out, low, up


def _check_lower_bound(
    b: Any, counts: list[dict[int, int]], events: list[tuple[str, str, int]], pairs: list[tuple[int, int]],
    delta: Fraction,
) -> list[str]:  # fmt: skip
    if b is None:  # "no privacy loss shown": no (pair, event) with L/U > 1 by the checker's own bounds
        totals = [sum(h.values()) for h in counts]
        for name, op, t in events:
            hits = [_hits(h, op, t) for h in counts]
            for i, j in pairs:
                low = _bound(hits[i], totals[i], delta, lower=True)
                if low > 0 and low > _bound(hits[j], totals[j], delta, lower=False):
                    return [f"dp.epsilon_lower_bound is null, but inputs {i}, {j} at event {name} give L/U > 1"]
        return []
    where = "dp.epsilon_lower_bound"
    out, low, up = _check_witness_bounds(
        _keys(b, where, VIOLATION | {"epsilon"}), where, counts, events, delta, set(pairs)
    )
    shown = b["epsilon"]
    if not isinstance(shown, str) or not _DECIMAL6.fullmatch(shown):
        raise Malformed(f"{where}.epsilon: expected a decimal with 6 digits, got {shown!r}")
    if up == 0 or low <= up or not _arb(Fraction(shown)) < _arb(low / up).log():
        out.append(f"{where}: ε ≥ {shown} does not follow from L/U")
    return out


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
