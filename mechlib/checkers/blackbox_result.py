"""Independent re-check of a black-box audit result (schema ``mechlib.blackbox/9``; /8, /7 and /6 too).

Everything is recomputed from the recorded phases alone, with arb's rigorous regularised
incomplete beta (scipy's Beta quantile only suggests a candidate bound, which arb then proves):

* the shape: n + 1 histograms over integer outputs per phase; ``counts`` the phases added;
* the ε test (``mechlib.checkers.ratio_test``): the conditional binomial test of every (pair,
  event) and (count against its neighbours pooled, event), the verdict, the recorded violation and
  the certified lower bound on the true ε;
* the one-sided outputs (seen under a count, never under a neighbour) recomputed from the counts;
* conformance: the verdict recomputed cell by cell against the recorded claimed pmf at
  α_FA/(2·cells); each cell listed outside has its claimed probability outside its verified
  interval (and its decimals are those values to 6 significant digits), and no other cell is
  outside the checker's own interval (/8 and earlier list the first such cell only);
* α_FA exact: /9 records it as an exact number (as typed); /8 and earlier as a JSON number, taken
  at its float's exact value (as they used it);
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

SCHEMA = "mechlib.blackbox/9"
#: Results handed out earlier, checked against their own families: /8 (the family of /9, α_FA a JSON
#: number, one nonconformant cell), /7 (neighbours pooled, five one-tailed sums, one level α_FA/H) and
#: /6 (no sums).
V8, V7, V6 = "mechlib.blackbox/8", "mechlib.blackbox/7", "mechlib.blackbox/6"
EARLIER = (V8, V7, V6)

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


def _alpha(value: Any, where: str) -> Fraction:
    """α_FA as /9 records it: an exact number as a string, in (0, 1/2)."""
    alpha = _exact(value, where)
    if not 0 < alpha < Fraction(1, 2):
        raise Malformed(f"{where}: expected 0 < α_FA < 1/2, got {value!r}")
    return alpha


def _float_alpha(value: Any, where: str) -> Fraction:
    """α_FA as /8 and earlier record it: a JSON number in (0, 1) — read as float, or as Decimal by a
    strict reader such as ``mechlib check``'s — taken at its float's exact value, as they used it."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal) or not 0 < value < 1:
        raise Malformed(f"{where}: expected a number in (0, 1), got {value!r}")
    return Fraction(float(value))


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
    read_alpha = _alpha if version == SCHEMA else _float_alpha
    alpha = read_alpha(_keys(result["dp"], "dp", DP)["alpha_fa"], "dp.alpha_fa")
    failures += _check_dp(result["dp"], alpha, counts, pairs, version)
    if result["conformance"] is not None:
        c = result["conformance"]
        if version == SCHEMA:
            alpha_c = _alpha(_keys(c, "conformance", CONFORMANCE)["alpha_fa"], "conformance.alpha_fa")
            failures += [] if alpha_c == alpha else ["conformance.alpha_fa is not the DP test's"]
            failures += _check_conformance(c, alpha_c, counts)
        else:
            failures += _check_conformance_v8(c, counts)
    if result["delta_test"] is not None:
        try:
            failures += check_delta_test(
                result["delta_test"], (selection, tested), pairs, result["dp"], alpha, read_alpha, (lower_ok, upper_ok)
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
    dp: dict[str, Any], alpha: Fraction, single: int, summed: int, version: str
) -> tuple[list[str], Fraction, Fraction]:
    """The recorded H and levels against the checker's own: /9 and /8 give the sums α_FA/4 and the
    single hypotheses 3α_FA/4 (α_FA without sums); /7 and /6 one level α_FA/H for all."""
    if version in (V7, V6):
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


def _check_dp(
    dp: dict[str, Any], alpha: Fraction, counts: Histograms, pairs: list[tuple[int, int]], version: str
) -> list[str]:
    eps = _exact(dp["epsilon"], "dp.epsilon")
    if eps < 0:
        raise Malformed("dp: expected epsilon ≥ 0")
    if dp["verdict"] not in ("violation", "no violation found"):
        raise Malformed(f"dp.verdict: {dp['verdict']!r}")
    t = _exact(dp["e_epsilon_upper"], "dp.e_epsilon_upper")
    failures = []
    gap = _arb(t) - _arb(eps).exp()
    if not (gap > 0 and gap < flint.arb(10) ** -10):
        failures.append("dp.e_epsilon_upper is not an upper bound on e^ε within 10⁻¹⁰")
    events = exhaustive_events(counts)
    tested = family(pairs, grouped=version in (SCHEMA, V8))
    n = len(counts) - 1
    added = [] if not events or version == V6 else one_tailed_sums(pairs, n) if version == V7 else sums(pairs, n)
    wrong, single_level, summed_level = _levels(dp, alpha, len(tested) * len(events), len(added), version)
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


CONFORMANCE = {"verdict", "alpha_fa", "cells", "per_bound_level", "pmf", "outside"}
#: /8 and earlier: the first nonconformant cell only, the level a float.
CONFORMANCE_V8 = {"verdict", "alpha_fa", "cells", "per_bound_level", "pmf", "cell", "interval"}
CELL = {"input", "output", "count", "samples", "claimed", "interval", "approx"}


def _claimed_pmf(c: dict[str, Any], counts: Histograms) -> tuple[list[str], list[dict[int, Fraction]], list[int]]:
    """The recorded claimed pmf (failures if a row is not a distribution) and the outputs of the cells."""
    if c["verdict"] not in ("conformant", "nonconformant"):
        raise Malformed(f"conformance.verdict: {c['verdict']!r}")
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
    return out, pmf, sorted({s for h in counts for s in h} | {s for row in pmf for s in row})


def _outside_cells(
    counts: Histograms, pmf: list[dict[int, Fraction]], outputs: list[int], level: Fraction
) -> list[Any]:
    """The cells (i, s) whose claimed p lies outside the checker's own verified interval, in order."""
    found = []
    for i, (h, row) in enumerate(zip(counts, pmf)):
        total = sum(h.values())
        for s in outputs:
            k, p = h.get(s, 0), row.get(s, Fraction(0))
            if not _bound(k, total, level, lower=True) <= p <= _bound(k, total, level, lower=False):
                found.append((i, s))
    return found


def _approx(value: Fraction) -> str:
    return f"{float(value):.6g}"


def _check_conformance(c: dict[str, Any], alpha: Fraction, counts: Histograms) -> list[str]:
    """/9: redo the conformance test from the recorded claimed pmf at α_FA/(2·cells) exactly; every
    recorded cell outside its verified interval, and no other cell outside the checker's own."""
    out, pmf, outputs = _claimed_pmf(c, counts)
    cells = len(counts) * len(outputs)
    level = alpha / (2 * cells)
    if c["cells"] != cells or _exact(c["per_bound_level"], "conformance.per_bound_level") != level:
        out.append(f"conformance.cells/per_bound_level are not {cells} and α_FA/(2·cells) = {level}")
    recorded = c["outside"]
    if not isinstance(recorded, list):
        raise Malformed("conformance.outside: expected a list of cells")
    if (c["verdict"] == "nonconformant") != bool(recorded):
        out.append(f"conformance.verdict {c['verdict']!r} does not match the {len(recorded)} cell(s) listed outside")
    named = []
    for x, raw in enumerate(recorded):
        where = f"conformance.outside[{x}]"
        cell = _keys(raw, where, CELL)
        i, s = _int(cell["input"], f"{where}.input", 0), _int(cell["output"], f"{where}.output")
        if i >= len(counts) or s not in outputs:
            out.append(f"{where} is not a cell of the counts and the pmf")
            continue
        named.append((i, s))
        low, up = (_exact(v, f"{where}.interval") for v in _list2(cell["interval"], f"{where}.interval"))
        claimed, k, total = _exact(cell["claimed"], f"{where}.claimed"), counts[i].get(s, 0), sum(counts[i].values())
        shown = {"claimed": _approx(claimed), "interval": [_approx(low), _approx(up)]}
        if cell["count"] != k or cell["samples"] != total or claimed != pmf[i].get(s, Fraction(0)):
            out.append(f"{where}: its count, samples or claimed p are not the histogram's and the pmf's")
        elif not (lower_ok(k, total, low, level) and upper_ok(k, total, up, level)):
            out.append(f"{where}: the interval is not a verified Clopper–Pearson interval at α_FA/(2·cells)")
        elif low <= claimed <= up:
            out.append(f"{where}: the claimed probability lies inside its interval")
        elif cell["approx"] != shown:
            out.append(f"{where}.approx is not the exact values to 6 significant digits: {shown}")
    if named != sorted(set(named)):
        out.append("conformance.outside: the cells are not listed once each, in the order (input, output)")
    missed = [cell for cell in _outside_cells(counts, pmf, outputs, level) if cell not in named]
    if missed:
        out.append(f"conformance: the cell (input, output) = {missed[0]} is outside its interval but not listed")
    return out


def _check_conformance_v8(c: Any, counts: Histograms) -> list[str]:
    """/8 and earlier: the verdict redone cell by cell at the float α_FA/(2·cells); a nonconformant
    cell's claimed probability outside its verified interval."""
    _keys(c, "conformance", CONFORMANCE_V8)
    out, pmf, outputs = _claimed_pmf(c, counts)
    alpha = _float_alpha(c["alpha_fa"], "conformance.alpha_fa")
    cells = len(counts) * len(outputs)
    delta = alpha / (2 * cells)
    recorded = c["per_bound_level"]  # a JSON number: float, or Decimal from a strict reader
    if (
        c["cells"] != cells
        or isinstance(recorded, bool)
        or not isinstance(recorded, float | Decimal)
        or not math.isclose(float(recorded), float(delta), rel_tol=1e-12, abs_tol=0)
    ):
        out.append(f"conformance.cells/per_bound_level are not {cells} and α_FA/(2·cells)")
    if c["verdict"] == "conformant":
        if c["cell"] is not None or c["interval"] is not None:
            return [*out, "conformance says conformant but records a failing cell"]
        wrong = _outside_cells(counts, pmf, outputs, delta)[:1]
        return out + [f"conformance says conformant, but the cell {cell} is outside its interval" for cell in wrong]
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
