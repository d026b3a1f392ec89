"""The audit's Markdown and HTML pages at n = 5000 (issue 34 item 5: every report in < 5 s), and
the summarised page beside the page that draws every cell (the page before: at n = 2000 it ran 40
minutes and ended in a MemoryError) at a size where that one still renders."""

from __future__ import annotations

from typing import Any

import pytest

import mechlib.audit.report
from benchmarks.conftest import HEAVY_ROUNDS, Measure, size
from benchmarks.sources import FAMILIES
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.report import render_html, render_markdown
from mechlib.audit.whitebox import audit

LARGE = size(5000, 300)
FAMILY_NAMES = {"t": "T, α = 1/2", "rr": "randomized response, α = 1/3"}


def _report(stem: str, n: int) -> dict[str, Any]:
    return audit(LoadedMechanism(FAMILIES[stem](n), f"benchmarks.sources:{stem}_{n}", "python", "0" * 64))


def _pages(report: dict[str, Any]) -> int:
    return len(render_html(report)) + len(render_markdown(report))


@pytest.mark.parametrize("stem", ["t", "rr"])
def test_report_pages_at_scale(measure: Measure, stem: str) -> None:
    measure.benchmark.group = f"HTML + Markdown pages of the audit of {FAMILY_NAMES[stem]}, n = {LARGE}"
    report = _report(stem, LARGE)  # the audit itself is not timed here (test_commands times it)
    written = measure(lambda: _pages(report), role="mechlib", n=LARGE, rounds=HEAVY_ROUNDS, target=5.0)
    measure.note(
        f"pages {written / 1e6:.2f} MB in all; the matrix summarised above n = {mechlib.audit.report.FULL_PAGE_MAX_N}"
    )


SIDE_BY_SIDE = size(300, 120)


@pytest.mark.benchmark(group=f"HTML page of the audit of T, α = 1/2, n = {SIDE_BY_SIDE}: summary vs every cell")
@pytest.mark.parametrize("role", ["mechlib", "baseline: every cell and the signature drawn (the page before)"])
def test_summary_beside_every_cell(measure: Measure, monkeypatch: pytest.MonkeyPatch, role: str) -> None:
    report = _report("t", SIDE_BY_SIDE)
    if role != "mechlib":
        monkeypatch.setattr(mechlib.audit.report, "FULL_PAGE_MAX_N", SIDE_BY_SIDE)
    written = measure(lambda: len(render_html(report)), role=role, n=SIDE_BY_SIDE, rounds=HEAVY_ROUNDS)
    measure.note(f"page {written / 1e6:.2f} MB")
