"""Above a size the HTML page summarises the matrix — a downsampled heatmap, the error tails,
the worst rows — read in floats for display from a few rows of the certificate, never the whole
exact matrix; its figures agree with the exact matrix."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

import mechlib.audit.report
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.report import render_html, summary
from mechlib.audit.whitebox import audit
from mechlib.core.families import randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism


def _report(mech: Mechanism) -> dict[str, Any]:
    return dict(json.loads(json.dumps(audit(LoadedMechanism(mech, "m", "python", "0" * 64)))))


@pytest.mark.parametrize(
    "mech",
    [truncated_geometric("1/2", 30), randomized_response("1/3", 25), truncated_geometric(Fraction(1, 10**40), 12)],
    ids=["T as T·Y", "dense rows", "T, 500-digit entries"],
)
def test_the_summary_agrees_with_the_exact_matrix(mech: Mechanism, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mechlib.audit.report, "SUMMARY_ROWS", 10)  # read a sample of the rows
    monkeypatch.setattr(mechlib.audit.report, "HEATMAP_SIDE", 7)
    report = _report(mech)
    brief = summary(report)
    rows, inputs, outputs = mech.rows, list(mech.inputs), list(mech.outputs)
    read = [inputs.index(i) for i, _ in brief["heatmap"]["rows"]]
    assert brief["rows_read"] < len(inputs) and len(read) <= 7 and len(brief["heatmap"]["columns"]) <= 7
    for _, cells in brief["heatmap"]["rows"]:  # each bin's mass, summed over the row: the row's mass
        assert sum(mass for mass, _ in cells) == pytest.approx(1.0)
    for k, p, i in brief["tails"]:  # the tail at the row it names is that row's exact tail
        exact = sum((v for o, v in zip(outputs, rows[inputs.index(i)]) if abs(o - i) >= k), Fraction(0))
        assert p == pytest.approx(float(exact), rel=1e-9, abs=1e-300)
    for error, hit, i in brief["worst"]:
        row = rows[inputs.index(i)]
        assert error == pytest.approx(float(sum(v * abs(o - i) for o, v in zip(outputs, row))), rel=1e-9)
        assert hit == pytest.approx(float(row[outputs.index(i)]), rel=1e-9)


def test_a_large_page_summarises_and_never_builds_the_exact_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _report(randomized_response("1/3", 40))
    monkeypatch.setattr(mechlib.audit.report, "FULL_PAGE_MAX_N", 20)

    def refuse(_report: dict[str, Any]) -> Mechanism:
        raise AssertionError("the summary read the whole exact matrix")

    monkeypatch.setattr(mechlib.audit.report, "_mechanism", refuse)
    page = render_html(report)
    assert "Mechanism in brief" in page and "Error tails" in page and "Worst rows" in page
    assert "Signature at" not in page and "exact value on hover" not in page
    monkeypatch.setattr(mechlib.audit.report, "FULL_PAGE_MAX_N", 100)
    with pytest.raises(AssertionError, match="whole exact matrix"):  # small: every cell, exactly
        render_html(report)
