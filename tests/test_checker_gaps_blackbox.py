"""Tests that kill mutants of mechlib/checkers/blackbox_result.py (the re-check of a black-box audit
result) that the other tests left alive (``python3 dev.py mutate``, reports/checker_mutation.md).

They all sit in ``_check_conformance_v8``, the re-check of a /8 (or earlier) result's conformance
section, which only one stored result reached. Here the private function is called directly on a
small two-histogram sample (n = 1, outputs 0 and 1) with a hand-built section: a conformant one, a
nonconformant one whose cell has no count and no pmf entry (the defaults 0), and forgeries that each
break one field while the others stay consistent. The intervals are chosen far from the
Clopper–Pearson boundaries, so their validity follows from a one-line bound given beside each.
benchmarks/checker_mutation_equivalent.json argues why each mutant left alive changes nothing."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from mechlib.checkers.blackbox_result import Malformed, _check_conformance_v8

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
