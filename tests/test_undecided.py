"""No silent skips: a finding a limit stopped is SKIPPED in every output (JSON, text, Markdown,
HTML), listed in ``unknown`` with its reason and what would decide it, and the audit exits 3."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import mechlib.audit.whitebox
import mechlib.checkers.audit_certificate
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
SOURCE = FIXTURES / "gs_appendix_b.json"  # not derivable: its dominance needs the LP


def _audit(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> tuple[int, str, Path]:
    code = main(["audit", str(SOURCE), "--report-dir", str(tmp_path), "--no-progress", *extra])
    return code, capsys.readouterr().out, tmp_path / "gs_appendix_b.audit"


def test_a_skipped_finding_is_undecided_everywhere_and_exits_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(mechlib.audit.whitebox, "LP_MAX_N", 2)  # below the fixture's n
    monkeypatch.setattr(mechlib.checkers.audit_certificate, "LP_MAX_N", 2)
    code, text, base = _audit(capsys, tmp_path)
    report = json.loads(Path(f"{base}.json").read_text())
    dominance = report["dominance"]
    assert code == 3 and report["verdict"] == "PASS" and report["unknown"] == ["dominance"]
    assert dominance["status"] == "skipped" and "MECHLIB_LP_MAX_N" in dominance["decide"]
    assert "dominance  SKIPPED" in text and "MECHLIB_LP_MAX_N" in text and "undecided  dominance" in text
    for page in (Path(f"{base}.md").read_text(), Path(f"{base}.html").read_text()):
        assert "Audit incomplete" in page and "SKIPPED" in page and "MECHLIB_LP_MAX_N" in page
    assert check_certificate(report, SOURCE.read_bytes()) == []
    hidden = copy.deepcopy(report)
    hidden["unknown"] = []
    assert any("unknown is [], the findings say ['dominance']" in f for f in check_certificate(hidden))


def test_the_named_option_decides_the_skipped_finding(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """MECHLIB_LP_MAX_N runs the LP past the default; the checker checks its result (to n = 1000)."""
    monkeypatch.setattr(mechlib.audit.whitebox, "LP_MAX_N", 2)
    monkeypatch.setattr(mechlib.checkers.audit_certificate, "LP_MAX_N", 2)
    monkeypatch.setenv("MECHLIB_LP_MAX_N", "100")
    code, _, base = _audit(capsys, tmp_path)
    report = json.loads(Path(f"{base}.json").read_text())
    assert code == 0 and report["unknown"] == [] and report["dominance"]["status"] == "certified"
    assert check_certificate(report, SOURCE.read_bytes()) == []
    forged = copy.deepcopy(report)
    forged["dominance"]["remap"]["denominators"][0] = "7"
    assert check_certificate(forged, SOURCE.read_bytes())


@pytest.mark.parametrize("value", ["lots", "1001", "٣"])
def test_a_bad_lp_limit_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("MECHLIB_LP_MAX_N", value)
    code = main(["audit", str(SOURCE)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "MECHLIB_LP_MAX_N" in err
