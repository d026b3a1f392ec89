"""Tests that kill mutants of mechlib/checkers/blackbox_result.py (the re-check of a black-box audit
result) that the other tests left alive (``python3 dev.py mutate``, reports/checker_mutation.md).

The first ones sit in ``_check_conformance_v8``, the re-check of a /8 (or earlier) result's conformance
section, which only one stored result reached. Here the private function is called directly on a
small two-histogram sample (n = 1, outputs 0 and 1) with a hand-built section: a conformant one, a
nonconformant one whose cell has no count and no pmf entry (the defaults 0), and forgeries that each
break one field while the others stay consistent. The intervals are chosen far from the
Clopper–Pearson boundaries, so their validity follows from a one-line bound given beside each.
The later sections (r4bba, r4bbb, r4bbc) are fast stand-ins for the slow tampering tests of
test_tampering.py: one small /9 result made once from fixed phases (the top-level fields, α_FA, the
claimed pmf, ε = 0, the conformance α_FA), the /9 conformance section, the Clopper–Pearson bound checks,
the neighbour list and the DP section's levels called directly, and a forgery of the stored /8 result.
benchmarks/checker_mutation_equivalent.json argues why each mutant left alive changes nothing."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mechlib.audit.blackbox import blackbox_result as result_of
from mechlib.audit.statistics import one_sided_outputs
from mechlib.checkers.blackbox_result import (
    Malformed,
    _added,
    _check_conformance,
    _check_conformance_v8,
    _check_dp,
    _check_epsilon_bound,
    _exact,
    _int,
    _keys,
    _levels,
    _list2,
    _neighbours,
    check_result,
    lower_ok,
    one_sided,
    upper_ok,
)
from mechlib.checkers.numbers import exact

#: tests/, where the results handed out by earlier versions are kept as they were written.
TESTS = Path(__file__).parent

#: Input 0 saw outputs 0 and 1 fifty times each; input 1 saw output 0 a hundred times (never 1).
COUNTS = [{0: 50, 1: 50}, {0: 100}]
ALPHA = 0.01
#: α_FA/(2·cells) with cells = 2 inputs × 2 outputs, at the float's exact value, as /8 used it.
LEVEL = Fraction(ALPHA) / (2 * 4)


def section(verdict: str = "conformant", **over: Any) -> dict[str, Any]:
    c: dict[str, Any] = {
        "verdict": verdict,
        "alpha_fa": ALPHA,
        "cells": 4,
        "per_bound_level": float(LEVEL),
        "pmf": [{"0": "1/2", "1": "1/2"}, {"0": "1"}],
        "cell": None,
        "interval": None,
    }
    return c | over


def failing(input_: int, output: int, claimed: str, interval: list[str], pmf_row: dict[str, str]) -> dict[str, Any]:
    """A nonconformant section naming the cell (input_, output) with the histogram's own count."""
    pmf = [{"0": "1/2", "1": "1/2"}, {"0": "1/2", "1": "1/2"}]
    pmf[input_] = pmf_row
    k = COUNTS[input_].get(output, 0)
    cell = {"input": input_, "output": output, "count": k, "samples": sum(COUNTS[input_].values()), "claimed": claimed}
    return section("nonconformant", pmf=pmf, cell=cell, interval=interval)


# (1, 1): k = 0 of 100 (no key in the histogram), [0, 1/5] is valid: P(Bin(100, 1/5) = 0) = 0.8^100 < 1e-9.
ZERO_COUNT = failing(1, 1, "1/2", ["0", "1/5"], {"0": "1/2", "1": "1/2"})
# (0, 1): k = 50 of 100, claimed 0 by a pmf row without output 1; [1/10, 1] is valid: P(Bin(100, 1/10) ≥ 50) < 1e-9.
NO_PMF_ENTRY = failing(0, 1, "0", ["1/10", "1"], {"0": "1"})


def test_a_consistent_v8_section_passes_both_verdicts() -> None:
    assert _check_conformance_v8(section(), COUNTS) == []
    # Decimal is what the strict reader of ``mechlib check`` hands over for a JSON number.
    assert _check_conformance_v8(section(per_bound_level=Decimal(repr(float(LEVEL)))), COUNTS) == []
    assert _check_conformance_v8(ZERO_COUNT, COUNTS) == []
    assert _check_conformance_v8(NO_PMF_ENTRY, COUNTS) == []


@pytest.mark.parametrize(
    "over",
    [
        {"cells": 5},
        {"per_bound_level": str(float(LEVEL))},  # the right value, but not a JSON number
        {"per_bound_level": True},
        {"per_bound_level": float(LEVEL) * (1 + 1e-10)},  # closer than math.isclose's default 1e-9
    ],
)
def test_a_wrong_cell_count_or_level_is_refused(over: dict[str, Any]) -> None:
    assert _check_conformance_v8(section(**over), COUNTS) == [
        "conformance.cells/per_bound_level are not 4 and α_FA/(2·cells)"
    ]


@pytest.mark.parametrize("over", [{"cell": ZERO_COUNT["cell"]}, {"interval": ["0", "1/5"]}])
def test_a_conformant_section_recording_a_failing_cell_is_refused(over: dict[str, Any]) -> None:
    assert _check_conformance_v8(section(**over), COUNTS) == ["conformance says conformant but records a failing cell"]


def test_a_conformant_verdict_with_cells_outside_names_the_first_only() -> None:
    # All four cells are outside: each claims 0 or 1 where the count is 50 of 100 or the other extreme.
    c = section(pmf=[{"0": "1", "1": "0"}, {"0": "0", "1": "1"}])
    assert _check_conformance_v8(c, COUNTS) == [
        "conformance says conformant, but the cell (0, 0) is outside its interval"
    ]


def test_the_nonconformant_cell_must_be_a_count_of_the_histograms() -> None:
    cell = ZERO_COUNT["cell"] | {"input": len(COUNTS)}
    assert _check_conformance_v8(ZERO_COUNT | {"cell": cell}, COUNTS) == [
        "the nonconformant cell's input is not a count 0..n"
    ]
    with pytest.raises(Malformed, match=r"conformance\.cell\.input"):
        _check_conformance_v8(ZERO_COUNT | {"cell": cell | {"input": -1}}, COUNTS)


@pytest.mark.parametrize("field, value", [("count", 1), ("samples", 99)])
def test_the_nonconformant_cell_must_carry_the_histograms_count(field: str, value: int) -> None:
    c = ZERO_COUNT | {"cell": ZERO_COUNT["cell"] | {field: value}}
    assert _check_conformance_v8(c, COUNTS) == ["the nonconformant cell's count is not the histogram's"]


def test_the_nonconformant_cell_must_carry_the_pmfs_probability() -> None:
    c = NO_PMF_ENTRY | {"cell": NO_PMF_ENTRY["cell"] | {"claimed": "1/100"}}
    assert _check_conformance_v8(c, COUNTS) == [
        "the nonconformant cell's claimed probability is not the recorded pmf's"
    ]


# (0, 0): k = 50 of 100, claimed 1/20. 1/10 is a valid lower bound (above); 1/2 is no upper bound
# (P(Bin(100, 1/2) ≤ 50) > 1/2), nor 9/20 a lower one (P(Bin(100, 9/20) ≥ 50) > 1/10).
@pytest.mark.parametrize("interval", [["1/10", "1/2"], ["9/20", "1"]])
def test_either_bound_of_the_nonconformant_interval_must_be_verified(interval: list[str]) -> None:
    c = failing(0, 0, "1/20", interval, {"0": "1/20", "1": "19/20"})
    assert _check_conformance_v8(c, COUNTS) == [
        "the nonconformant cell's interval is not a verified Clopper–Pearson interval"
    ]


@pytest.mark.parametrize(
    "c",
    [
        failing(0, 1, "1/10", ["1/10", "1"], {"0": "9/10", "1": "1/10"}),  # on the lower bound
        failing(1, 1, "1/5", ["0", "1/5"], {"0": "4/5", "1": "1/5"}),  # on the upper bound
    ],
)
def test_a_claimed_probability_on_a_bound_is_inside(c: dict[str, Any]) -> None:
    assert _check_conformance_v8(c, COUNTS) == ["the nonconformant cell's claimed probability lies inside its interval"]


# --- r4bba: _alpha, _check, check_result, _claimed_pmf ---
# A small /9 result made by the producer from fixed phases (no sampling): n = 2, outputs 0..2, at
# α_FA = 2/5 (in [1/3, 1/2)), one sample per count (λ is provenance, but ≥ 1), a claimed pmf whose
# rows also name output 3 at probability 0 (never seen), so its cells are 3 × 4 = 12.
_R4BBA_SELECTION = [{0: 8, 1: 1, 2: 2}, {0: 4, 1: 4, 2: 3}, {0: 1, 1: 2, 2: 7}]
_R4BBA_TEST = [{0: 23, 1: 2, 2: 6}, {0: 11, 1: 11, 2: 7}, {0: 4, 1: 3, 2: 20}]
#: The failure of an e^ε upper bound t that is not above e^ε by less than 10⁻¹⁰.
_E_EPSILON_UPPER = "dp.e_epsilon_upper is not an upper bound on e^ε within 10⁻¹⁰"
_R4BBA_PMF = [["2/3", "1/6", "1/6"], ["1/3", "1/3", "1/3"], ["1/6", "1/6", "2/3"]]


@pytest.fixture(scope="module")
def r4bba_json() -> str:
    """The small result's JSON text, made once for this module."""
    return _r4bba_json(Fraction(1))


def _r4bba_json(epsilon: Fraction) -> str:
    """The small result's JSON text for the claim ε = epsilon, as the producer writes it."""
    pmf = [{s: Fraction(p) for s, p in enumerate([*row, "0"])} for row in _R4BBA_PMF]
    doc = result_of(
        spec="r4bba",
        library="mechlib",
        n=2,
        samples=1,
        seed=1,
        seconds=1.0,
        phases=(_R4BBA_SELECTION, _R4BBA_TEST),
        epsilon=epsilon,
        alpha_fa="2/5",
        pmf=pmf,
    )
    return json.dumps(doc)


def test_r4bba_the_small_result_passes_at_its_alpha_sample_size_and_cells(r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    assert (doc["samples_per_count"], doc["dp"]["alpha_fa"], doc["conformance"]["cells"]) == (1, "2/5", 12)
    assert check_result(doc) == []


@pytest.mark.parametrize("alpha", ["0", "1/2", "0.5", "2/3", "1"])
def test_r4bba_alpha_fa_outside_the_open_interval_to_one_half_is_refused(alpha: str, r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc["dp"]["alpha_fa"] = alpha
    assert check_result(doc) == [f"malformed result: dp.alpha_fa: expected 0 < α_FA < 1/2, got {alpha!r}"]


@pytest.mark.parametrize("phase", ["counts", "selection_counts", "test_counts"])
def test_r4bba_a_phase_short_of_a_histogram_is_named(phase: str, r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc[phase].pop()
    assert check_result(doc) == [f"malformed result: {phase}: expected 3 histograms (inputs 0..2)"]


def test_r4bba_a_result_that_is_not_an_object_is_refused_by_its_schema() -> None:
    assert check_result([]) == ["schema 'list' is not 'mechlib.blackbox/9'"]
    assert check_result(None) == ["schema 'NoneType' is not 'mechlib.blackbox/9'"]


def test_r4bba_a_claimed_pmf_short_of_a_row_is_refused(r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc["conformance"]["pmf"].pop()
    assert check_result(doc) == ["malformed result: conformance.pmf: expected 3 rows"]


def test_r4bba_a_claimed_pmf_output_that_is_no_integer_is_named(r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc["conformance"]["pmf"][1]["x"] = "0"
    wrong = check_result(doc)
    assert len(wrong) == 1 and wrong[0].startswith("malformed result: conformance.pmf[1]: invalid literal"), wrong


def test_r4bba_an_empty_claimed_pmf_row_is_no_distribution(r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc["conformance"]["pmf"][0] = {}
    wrong = check_result(doc)
    assert "conformance.pmf: a row is not a probability distribution" in wrong
    assert not any(w.startswith("malformed") for w in wrong), wrong


# JSON Schema's "integer" takes 2.0 (a number with no fractional part): the checker's own reading refuses it.
@pytest.mark.parametrize("field, value", [("n", 2.0), ("samples_per_count", 1.0)])
def test_r4bba_a_whole_float_count_passes_the_schema_but_is_refused(field: str, value: float, r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc[field] = value
    assert check_result(doc) == [f"malformed result: {field}: expected an integer ≥ 1, got {value!r}"]


# --- r4bbb: _check_conformance, _outside_cells, lower_ok, upper_ok ---
# The /9 conformance section, re-checked by calling ``_check_conformance`` directly on COUNTS with
# α_FA = 1/100, so the level is α_FA/(2·cells) = 1/800. The claimed pmf below puts every cell outside
# its interval: row 0 claims output 0 surely (the histogram says 50 of 100, and nothing for output 1,
# so the cell (0, 1) takes the pmf's default 0); row 1 claims 1/2 each where the histogram saw output
# 0 a hundred times (so the cell (1, 1) takes the histogram's default count 0). Each interval is far
# from the Clopper–Pearson boundaries: P(Bin(100, 1/10) ≥ 50) and P(Bin(100, 9/10) ≤ 50) are < 1e-20,
# P(Bin(100, 9/10) ≥ 100) = 0.9^100 < 3e-5 and P(Bin(100, 1/5) ≤ 0) = 0.8^100 < 3e-10, all < 1/800.
_R4BBB_ALPHA = Fraction(1, 100)
_R4BBB_LEVEL = _R4BBB_ALPHA / (2 * 4)
_R4BBB_PMF = [{"0": "1"}, {"0": "1/2", "1": "1/2"}]


def _r4bbb_cell(input_: int, output: int, claimed: str, interval: list[str], **over: Any) -> dict[str, Any]:
    """A listed cell with the histogram's count and samples and its decimals to 6 significant digits."""
    k = COUNTS[input_].get(output, 0) if input_ < len(COUNTS) else 0
    samples = sum(COUNTS[input_].values()) if input_ < len(COUNTS) else 0

    def approx(text: str) -> str:
        return f"{float(Fraction(text)):.6g}"

    cell = {
        "input": input_,
        "output": output,
        "count": k,
        "samples": samples,
        "claimed": claimed,
        "interval": interval,
        "approx": {"claimed": approx(claimed), "interval": [approx(v) for v in interval]},
    }
    return cell | over


#: The four cells of _R4BBB_PMF, each with a valid interval its claimed probability lies outside of.
_R4BBB_OUTSIDE = [
    _r4bbb_cell(0, 0, "1", ["1/10", "9/10"]),
    _r4bbb_cell(0, 1, "0", ["1/10", "9/10"]),
    _r4bbb_cell(1, 0, "1/2", ["9/10", "1"]),
    _r4bbb_cell(1, 1, "1/2", ["0", "1/5"]),
]


def _r4bbb_section(outside: list[dict[str, Any]], pmf: list[dict[str, str]] = _R4BBB_PMF) -> dict[str, Any]:
    return {
        "verdict": "nonconformant" if outside else "conformant",
        "alpha_fa": str(_R4BBB_ALPHA),
        "cells": 4,
        "per_bound_level": str(_R4BBB_LEVEL),
        "pmf": pmf,
        "outside": outside,
    }


def _r4bbb_check(outside: list[dict[str, Any]], pmf: list[dict[str, str]] = _R4BBB_PMF) -> list[str]:
    return _check_conformance(_r4bbb_section(outside, pmf), _R4BBB_ALPHA, COUNTS)


def test_r4bbb_a_consistent_section_with_default_count_and_pmf_cells_passes() -> None:
    # (0, 1) has no pmf entry (claimed 0), (1, 1) no histogram entry (count 0), (1, 0) k = N (U = 1).
    assert _r4bbb_check(_R4BBB_OUTSIDE) == []
    assert _r4bbb_check([], [{"0": "1/2", "1": "1/2"}, {"0": "1"}]) == []


def test_r4bbb_a_cell_outside_its_interval_must_be_listed() -> None:
    assert _r4bbb_check(_R4BBB_OUTSIDE[1:]) == [
        "conformance: the cell (input, output) = (0, 0) is outside its interval but not listed"
    ]
    assert _r4bbb_check([]) == ["conformance: the cell (input, output) = (0, 0) is outside its interval but not listed"]


def test_r4bbb_each_cell_that_is_not_a_cell_of_the_counts_and_the_pmf_is_named() -> None:
    # An input one past the last count (output 0 is a cell), then an output no histogram or pmf has.
    strays = [_r4bbb_cell(len(COUNTS), 0, "1/2", ["0", "1"]), _r4bbb_cell(0, 7, "0", ["0", "1"])]
    assert _r4bbb_check([*strays, *_R4BBB_OUTSIDE]) == [
        "conformance.outside[0] is not a cell of the counts and the pmf",
        "conformance.outside[1] is not a cell of the counts and the pmf",
    ]


def test_r4bbb_a_negative_input_is_malformed_and_named() -> None:
    with pytest.raises(Malformed, match=r"^conformance\.outside\[0\]\.input: expected an integer ≥ 0, got -1$"):
        _r4bbb_check([_r4bbb_cell(1, 0, "1/2", ["9/10", "1"], input=-1)])


@pytest.mark.parametrize(
    "over",
    [
        {"count": 49},  # count alone wrong
        {"samples": 99},  # samples alone wrong
        {"claimed": "1/2", "approx": {"claimed": "0.5", "interval": ["0.1", "0.9"]}},  # claimed p alone wrong
    ],
)
def test_r4bbb_count_samples_and_claimed_p_are_each_checked(over: dict[str, Any]) -> None:
    # The forged claimed 1/2 is not the pmf's 1 (and inside the interval: the mismatch is reported first).
    outside = [_R4BBB_OUTSIDE[0] | over, *_R4BBB_OUTSIDE[1:]]
    assert _r4bbb_check(outside) == [
        "conformance.outside[0]: its count, samples or claimed p are not the histogram's and the pmf's"
    ]


@pytest.mark.parametrize("interval", [["9/20", "9/10"], ["1/10", "11/20"]])
def test_r4bbb_both_bounds_of_a_listed_interval_are_verified(interval: list[str]) -> None:
    # k = 50 of 100: P(Bin(100, 9/20) ≥ 50) > 1/10 and P(Bin(100, 11/20) ≤ 50) > 1/10, far above 1/800.
    outside = [_r4bbb_cell(0, 0, "1", interval), *_R4BBB_OUTSIDE[1:]]
    assert _r4bbb_check(outside) == [
        "conformance.outside[0]: the interval is not a verified Clopper–Pearson interval at α_FA/(2·cells)"
    ]


def test_r4bbb_a_listed_claimed_p_on_a_bound_is_inside() -> None:
    # Rows (9/10, 1/10) and (4/5, 1/5): (0, 1) claims 1/10, on the lower bound of [1/10, 9/10], and (1, 1)
    # 1/5, on the upper bound of [0, 1/5]; (0, 0) claims 9/10, outside [1/10, 4/5] (P(Bin(100, 4/5) ≤ 50)
    # < 1e-9), (1, 0) 4/5. All four are outside the checker's own (tighter) intervals, so they are rightly
    # listed, but these two do not show it.
    pmf = [{"0": "9/10", "1": "1/10"}, {"0": "4/5", "1": "1/5"}]
    outside = [
        _r4bbb_cell(0, 0, "9/10", ["1/10", "4/5"]),
        _r4bbb_cell(0, 1, "1/10", ["1/10", "9/10"]),
        _r4bbb_cell(1, 0, "4/5", ["9/10", "1"]),
        _r4bbb_cell(1, 1, "1/5", ["0", "1/5"]),
    ]
    assert _r4bbb_check(outside, pmf) == [
        f"conformance.outside[{x}]: the claimed probability lies inside its interval" for x in (1, 3)
    ]


def test_r4bbb_bounds_on_their_level_are_accepted() -> None:
    # n = 1: P(Bin(1, L) ≥ 1) = L and P(Bin(1, U) ≤ 0) = 1 − U, exact in arb at these dyadic values.
    delta = Fraction(1, 16)
    assert lower_ok(1, 1, delta, delta)
    assert upper_ok(0, 1, 1 - delta, delta)
    assert not lower_ok(1, 1, delta * 2, delta)
    assert not upper_ok(0, 1, 1 - delta * 2, delta)


def test_r4bbb_bounds_outside_0_1_are_refused() -> None:
    # Read as polynomials beyond [0, 1], the tails are small there: P(Bin(2, x) ≥ 1) = 1 − (1 − x)² is 0
    # at x = 2, and P(Bin(1, x) ≤ 0) = 1 − x is −1; a probability bound must still lie in [0, 1].
    delta = Fraction(1, 16)
    for bad in (Fraction(-1), Fraction(2)):
        assert not lower_ok(1, 2, bad, delta)
        assert not upper_ok(0, 1, bad, delta)


# --- r4bbc: _added, _neighbours, _levels, _check_dp, _check ---
# The per-level bounds of the DP section and the neighbour list, called directly and compared with an
# exact recomputation; the cross-section checks of _check on the small /9 result above and on the
# stored /8 result of tests/results_v8.


def test_r4bbc_added_takes_an_output_missing_from_either_phase_as_zero() -> None:
    assert _added({0: 3, 1: 1}, {1: 2, 5: 4}) == {0: 3, 1: 3, 5: 4}
    assert _added({}, {}) == {}


@pytest.mark.parametrize("raw", [[], "", {}, "01", None])
def test_r4bbc_neighbours_must_be_a_nonempty_list(raw: Any) -> None:
    with pytest.raises(Malformed, match=r"^neighbours: expected a nonempty list of pairs of counts$"):
        _neighbours(raw, 2)


@pytest.mark.parametrize("pair", [[-1, 0], [0, -1]])
def test_r4bbc_a_negative_neighbour_is_named(pair: list[int]) -> None:
    with pytest.raises(Malformed, match=r"^neighbours\[1\]: expected an integer ≥ 0, got -1$"):
        _neighbours([[0, 1], pair], 2)


@pytest.mark.parametrize(
    "raw",
    [
        [[0, 1], [1, 1]],  # a count paired with itself (within 0..n)
        [[0, 1], [0, 3]],  # a count beyond n = 2 (distinct)
        [[0, 1], [1, 0]],  # a pair listed twice (each pair itself fine)
        [[0, 1], [0, 1]],
    ],
)
def test_r4bbc_each_fault_of_a_neighbour_list_is_refused_alone(raw: list[list[int]]) -> None:
    assert _neighbours([[0, 1], [2, 1]], 2) == [(0, 1), (2, 1)]
    with pytest.raises(Malformed, match=r"^neighbours: expected distinct pairs of distinct counts in 0\.\.2$"):
        _neighbours(raw, 2)


_R4BBC_ALPHA = Fraction(1, 10)


@pytest.mark.parametrize("version", ["mechlib.blackbox/7", "mechlib.blackbox/6"])
@pytest.mark.parametrize("single, summed", [(0, 0), (1, 0), (2, 1), (6, 5)])
def test_r4bbc_v7_levels_are_alpha_over_h(version: str, single: int, summed: int) -> None:
    h = single + summed
    level = _R4BBC_ALPHA / h if h else _R4BBC_ALPHA
    dp = {"hypotheses": h, "per_bound_level": str(level)}
    assert _levels(dp, _R4BBC_ALPHA, single, summed, version) == ([], level, level)
    want = [f"dp.hypotheses/per_bound_level are not {h} and α_FA/H = {level}"]
    for forged in ({"hypotheses": h + 1}, {"per_bound_level": str(level / 2)}):  # each field alone
        assert _levels(dp | forged, _R4BBC_ALPHA, single, summed, version) == (want, level, level)


@pytest.mark.parametrize("version", ["mechlib.blackbox/9", "mechlib.blackbox/8"])
@pytest.mark.parametrize("single, summed", [(0, 0), (1, 0), (3, 0), (0, 2), (1, 2), (5, 3)])
def test_r4bbc_v9_levels_give_the_sums_a_quarter_of_alpha(version: str, single: int, summed: int) -> None:
    alpha = _R4BBC_ALPHA
    share = alpha * 3 / 4 if summed else alpha  # what the single hypotheses share
    one = share / single if single else share
    each = alpha / 4 / summed if summed else None
    dp: dict[str, Any] = {
        "hypotheses": {"single": single, "summed": summed},
        "per_bound_level": {"single": str(one), "summed": None if each is None else str(each)},
    }
    assert _levels(dp, alpha, single, summed, version) == ([], one, each or one)
    want = f"{single} single at {one}, {summed} summed" + ("" if each is None else f" at {each}")
    forgeries = [
        {"hypotheses": {"single": single + 1, "summed": summed}},
        {"per_bound_level": {"single": str(one / 2), "summed": dp["per_bound_level"]["summed"]}},
        {"per_bound_level": {"single": str(one), "summed": str(alpha / 4)}},  # summed is null or α_FA/4/summed
    ]
    for forged in forgeries:
        got = _levels(dp | forged, alpha, single, summed, version)
        assert got == ([f"dp.hypotheses/per_bound_level are not {want}"], one, each or one), forged


def test_r4bbc_a_single_level_that_is_no_string_is_named() -> None:
    dp = {"hypotheses": {"single": 1, "summed": 0}, "per_bound_level": {"single": 0.1, "summed": None}}
    with pytest.raises(Malformed, match=r"^dp\.per_bound_level\.single: expected an exact number as a string"):
        _levels(dp, _R4BBC_ALPHA, 1, 0, "mechlib.blackbox/9")


def test_r4bbc_epsilon_zero_is_a_claim_the_checker_reads(r4bba_json: str) -> None:
    # ε = 0 (a constant mechanism's claim) is no malformed result: the producer's passes, and a
    # claim changed to 0 alone is refused for its e^ε bound (made for ε = 1), not as malformed.
    zero = json.loads(_r4bba_json(Fraction(0)))
    assert (zero["dp"]["epsilon"], check_result(zero)) == ("0", [])
    doc = json.loads(r4bba_json)
    doc["dp"]["epsilon"] = "0"
    assert check_result(doc) == [_E_EPSILON_UPPER]


def test_r4bbc_the_conformance_alpha_must_be_the_dp_tests(r4bba_json: str) -> None:
    doc = json.loads(r4bba_json)
    doc["conformance"]["alpha_fa"] = "1/3"
    assert "conformance.alpha_fa is not the DP test's" in check_result(doc)


def test_r4bbc_a_v8_results_dp_failure_survives_its_conformance_check() -> None:
    # The stored /8 result passes; a forged one_sided total is reported beside its (consistent)
    # nonconformant section, whose own re-check finds nothing.
    doc = json.loads((TESTS / "results_v8" / "rt_samplers_wrong_spec_pmf.blackbox.json").read_text())
    assert (doc["schema"], doc["conformance"]["verdict"]) == ("mechlib.blackbox/8", "nonconformant")
    assert check_result(doc) == []
    doc["dp"]["one_sided"]["total"] += 1
    assert check_result(doc) == [
        "dp.one_sided is not the counts' outputs seen under one count and never under a neighbour"
    ]


# --- r4bbd: _check_dp ---
# The DP section's own checks on the small /9 result above, claimed for ε = 0 so that e^ε = 1 is exact
# and t − e^ε is the recorded excess itself; and the stored /6 and /7 results (n = 3 on the path), whose
# families and levels differ from /9's: /6 has no sums, /7 the one-tailed ones at one level α_FA/H.


@pytest.mark.parametrize(
    "excess, failures",
    [
        (Fraction(0), [_E_EPSILON_UPPER]),  # t = e^0 = 1 is not above e^ε
        (Fraction(5, 10**11), []),  # above, by less than 10⁻¹⁰ (and more than 10⁻¹¹ and 11⁻¹⁰)
        (Fraction(1, 10**10), [_E_EPSILON_UPPER]),  # not within 10⁻¹⁰: the bound is strict
        (Fraction(2, 10**10), [_E_EPSILON_UPPER]),
    ],
)
def test_r4bbd_e_epsilon_upper_is_above_e_epsilon_by_less_than_1e_10(excess: Fraction, failures: list[str]) -> None:
    doc = json.loads(_r4bba_json(Fraction(0)))
    doc["dp"]["e_epsilon_upper"] = str(1 + excess)
    assert check_result(doc) == failures


@pytest.mark.parametrize("version", [6, 7])
def test_r4bbd_stored_v6_and_v7_results_check_against_their_own_families(version: int) -> None:
    doc = json.loads((TESTS / f"results_v{version}" / "opendp_make_gaussian.blackbox.json").read_text())
    assert doc["schema"] == f"mechlib.blackbox/{version}"
    assert check_result(doc) == []


# Three equal histograms on the path 0–1–2: no hypothesis rejects (k = m·θ at θ = 1/2 and 1/3, and θ₀ is
# larger still), so no violation and no bound on ε. /6 and /7 test 5 events (outputs 0, 1, 2, s ≤ 1,
# s ≥ 1) on the 4 ordered pairs and count 1 against its two neighbours pooled: H = 25. Neither adds a
# sum on so short a path (/7's one-tailed ones take two pairs a side); /8 and /9 would add two.
_R4BBD_COUNTS = [{0: 5, 1: 5, 2: 5}] * 3
_R4BBD_PATH = [(0, 1), (1, 0), (1, 2), (2, 1)]


@pytest.mark.parametrize("version", ["mechlib.blackbox/7", "mechlib.blackbox/6"])
def test_r4bbd_a_short_path_has_no_sums_before_v8(version: str) -> None:
    alpha = Fraction(1, 10)
    dp = {
        "epsilon": "1",
        "e_epsilon_upper": "135914091423/50000000000",  # e + 9.5·10⁻¹³
        "hypotheses": 25,
        "per_bound_level": str(alpha / 25),
        "verdict": "no violation found",
        "violation": None,
        "epsilon_lower_bound": None,
        "one_sided": {"total": 0, "shown": []},
    }
    assert _check_dp(dp, alpha, _R4BBD_COUNTS, _R4BBD_PATH, version) == []
    dp["hypotheses"], dp["per_bound_level"] = 27, str(alpha / 27)
    assert _check_dp(dp, alpha, _R4BBD_COUNTS, _R4BBD_PATH, version) == [
        f"dp.hypotheses/per_bound_level are not 25 and α_FA/H = {alpha / 25}"
    ]


# --- r4bbe: _check_dp (the recorded violation), _check_epsilon_bound ---
# The recorded violation's rejection on the small /9 result above, and the certified lower bound on ε
# called directly on hand-made table rows with k = m, where P(Bin(m, θ) ≥ m) = θ^m is exact in Fractions.
_R4BBE_LEVEL = Fraction(1, 10)
_R4BBE_NULL = "dp.epsilon_lower_bound is null, but a hypothesis shows a ratio of at least 1"


def test_r4bbe_a_recorded_violation_must_reject_with_its_own_hits(r4bba_json: str) -> None:
    # The result says no violation; its bound's summed hypothesis (k = 57 of m = 77 at θ₀ = t/(1 + t))
    # does not reject, though all m hits would: θ₀^m is below its level. Recorded as the violation, it
    # is refused for its own k.
    doc = json.loads(r4bba_json)
    dp = doc["dp"]
    hypothesis = {key: dp["epsilon_lower_bound"][key] for key in ("parts", "counts")}
    t = Fraction(dp["e_epsilon_upper"])
    assert (t / (1 + t)) ** sum(hypothesis["counts"]) <= Fraction(dp["per_bound_level"]["summed"])
    dp["verdict"], dp["violation"] = "violation", hypothesis
    assert check_result(doc) == ["dp.violation is not a hypothesis of the test that rejects at its level"]


def _r4bbe_row(k: int, m: int, steps: list[int]) -> Any:
    """A table row: k of m hits of count 0 against its |J| = len(steps) neighbours, at level 1/10."""
    recorded = {"inputs": [0, 1 if len(steps) == 1 else list(range(1, 1 + len(steps)))], "event": {"outputs": [0]}}
    return (recorded | {"counts": [k, m - k]}, k, m, Fraction(1, 2), _R4BBE_LEVEL, steps)


@pytest.mark.parametrize("steps", [[1], [1, 1], [1, 2]])
def test_r4bbe_a_null_bound_is_refused_exactly_when_a_hypothesis_rejects_a_ratio_of_1(steps: list[int]) -> None:
    # At a ratio of 1, θ = 1/(1 + |J|) whatever the distances; m is the fewest all-hit samples that
    # reject: θ^m ≤ level < θ^(m−1).
    theta = Fraction(1, 1 + len(steps))
    m = next(m for m in range(1, 100) if theta**m <= _R4BBE_LEVEL)
    below = [_r4bbe_row(m - 1, m - 1, steps)]
    assert _check_epsilon_bound(None, below) == []
    assert _check_epsilon_bound(None, [*below, _r4bbe_row(m, m, steps)]) == [_R4BBE_NULL]


#: k = m = 5 at level 1/10: θ_L = 5/8 is a lower bound ((5/8)^5 < 1/10), the ratio 1·θ_L/(1 − θ_L) = 5/3,
#: and ε = 1/2 follows: e^(−1/2) > 3/5 = (1 − θ_L)/θ_L.
_R4BBE_ROW = _r4bbe_row(5, 5, [1])
_R4BBE_BOUND = _R4BBE_ROW[0] | {"theta_lower_bound": "5/8", "ratio_lower_bound": "5/3", "epsilon": "0.500000"}


@pytest.mark.parametrize("shown", ["0.5", "0.5000000", "00.50000", "5e-1", 0.5, None])
def test_r4bbe_the_bounds_epsilon_must_be_a_decimal_with_6_digits(shown: Any) -> None:
    assert _check_epsilon_bound(_R4BBE_BOUND, [_R4BBE_ROW]) == []
    with pytest.raises(Malformed, match=r"^dp\.epsilon_lower_bound\.epsilon: expected a decimal with 6 digits"):
        _check_epsilon_bound(_R4BBE_BOUND | {"epsilon": shown}, [_R4BBE_ROW])


def test_r4bbe_a_bound_on_no_hypothesis_of_the_test_is_named() -> None:
    other = _R4BBE_BOUND | {"counts": [4, 1]}
    assert _check_epsilon_bound(other, [_R4BBE_ROW]) == ["dp.epsilon_lower_bound is not a hypothesis of the test"]


# --- r4fin ---
# The range check of θ_L in _check_epsilon_bound, on the r4bbe rows (k = m, P(Bin(m, θ) ≥ m) = θ^m), at
# and just below the floor 1/(1 + |J|) where a ratio of 1 (ε = 0) is all that θ_L shows; and the
# one-sided outputs listed when more are found than a result shows.
_R4FIN_THETA = (
    "dp.epsilon_lower_bound: θ_L is not a verified Clopper–Pearson lower bound of at least 1/(1 + |J|) at its level"
)


def _r4fin_bound(steps: list[int], low: Fraction, epsilon: str) -> tuple[dict[str, Any], Any]:
    """A bound at θ_L = low on the row k = m = 10 (low^10 ≤ 1/10 here), its ratio |J|·θ_L/(1 − θ_L) exact."""
    row = _r4bbe_row(10, 10, steps)
    assert low**10 <= _R4BBE_LEVEL
    ratio = len(steps) * low / (1 - low)
    return row[0] | {"theta_lower_bound": str(low), "ratio_lower_bound": str(ratio), "epsilon": epsilon}, row


@pytest.mark.parametrize("steps", [[1], [1, 1], [1, 2]])
def test_r4fin_theta_l_on_the_floor_shows_epsilon_zero_and_no_more(steps: list[int]) -> None:
    # θ_L = 1/(1 + |J|): (1 − θ_L)/θ_L = |J| = Σ_J e^(−0·d), so ε ≥ 0 follows (equality), ε ≥ 10⁻⁶ does not.
    low = Fraction(1, 1 + len(steps))
    bound, row = _r4fin_bound(steps, low, "0.000000")
    assert _check_epsilon_bound(bound, [row]) == []
    bound, row = _r4fin_bound(steps, low, "0.000001")
    assert _check_epsilon_bound(bound, [row]) == [
        "dp.epsilon_lower_bound: ε ≥ 0.000001 does not follow from θ_L (Σ_J e^(−ε·d(i, j)) ≥ (1 − θ_L)/θ_L)"
    ]


@pytest.mark.parametrize("steps", [[1], [1, 1], [1, 2]])
def test_r4fin_a_verified_theta_l_below_the_floor_is_refused_for_its_range(steps: list[int]) -> None:
    # 2/(2|J| + 3) lies strictly between 1/(2 + |J|) and 1/(1 + |J|): a valid lower bound, but one that
    # shows no ratio of 1 (the producer records null then).
    low = Fraction(2, 2 * len(steps) + 3)
    assert Fraction(1, 2 + len(steps)) < low < Fraction(1, 1 + len(steps))
    bound, row = _r4fin_bound(steps, low, "0.000000")
    assert _check_epsilon_bound(bound, [row]) == [_R4FIN_THETA]


def test_r4fin_one_sided_shows_as_many_outputs_as_the_producer() -> None:
    # Count 0 saw 25 outputs count 1 never did, and count 1 one that count 0 never did: 26 in all.
    counts = [{s: 1 + s % 3 for s in range(25)}, {100: 2}]
    pairs = [(0, 1), (1, 0)]
    mine = one_sided(counts, pairs)
    assert mine == one_sided_outputs(counts, pairs)
    assert mine["total"] == 26 > len(mine["shown"])


# The readers' one-line errors, called directly: each names the field and what was expected.
def test_r4fin_an_inexact_number_is_named_with_the_readers_reason() -> None:
    with pytest.raises(ValueError) as reason:
        exact("1/x")
    with pytest.raises(Malformed) as err:
        _exact("1/x", "dp.epsilon")
    assert str(err.value) == f"dp.epsilon: {reason.value}"


def test_r4fin_an_integer_with_no_least_value_says_no_bound() -> None:
    with pytest.raises(Malformed) as err:
        _int("3", "n")
    assert str(err.value) == "n: expected an integer, got '3'"


@pytest.mark.parametrize(
    "obj, have",
    [({"a": 1, "c": 2}, "['a', 'c']"), ({}, "[]"), ([], "list"), ("b", "str")],
)
def test_r4fin_an_object_without_exactly_its_fields_names_what_it_has(obj: Any, have: str) -> None:
    assert _keys({"b": 1}, "w", {"b"}) == {"b": 1}
    with pytest.raises(Malformed) as err:
        _keys(obj, "w", {"b"})
    assert str(err.value) == f"w: expected the fields ['b'], got {have}"


@pytest.mark.parametrize("value", [[1], [1, 2, 3], "ab", (1, 2), None])
def test_r4fin_a_pair_is_a_list_of_two(value: Any) -> None:
    assert _list2([1, 2], "w") == [1, 2]
    with pytest.raises(Malformed, match=r"^w: expected a pair$"):
        _list2(value, "w")
