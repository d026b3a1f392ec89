"""No silent skips: a finding a limit stopped is SKIPPED in every output (JSON, text, Markdown,
HTML), listed in ``unknown`` with its reason and what would decide it, and the audit exits 3."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

import mechlib.audit.whitebox
import mechlib.checkers.audit_certificate
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.cli import main


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Near-uniform randomized response on 0..5: not derivable, and T itself has heavier tails
    somewhere, so its dominance needs the LP."""
    from mechlib.core.families import randomized_response

    path = tmp_path_factory.mktemp("source") / "near_uniform_rr.json"
    path.write_text(json.dumps({"matrix": randomized_response("9/10", 6).to_strings(), "claimed_alpha": "9/10"}))
    return path


def _audit(capsys: pytest.CaptureFixture[str], tmp_path: Path, source: Path) -> tuple[int, str, Path]:
    code = main(["audit", str(source), "--report-dir", str(tmp_path), "--no-progress"])
    return code, capsys.readouterr().out, tmp_path / "near_uniform_rr.audit"


def test_a_skipped_finding_is_undecided_everywhere_and_exits_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: Path
) -> None:
    monkeypatch.setattr(mechlib.audit.whitebox, "LP_MAX_N", 2)  # below the fixture's n
    monkeypatch.setattr(mechlib.checkers.audit_certificate, "LP_MAX_N", 2)
    code, text, base = _audit(capsys, tmp_path, source)
    report = json.loads(Path(f"{base}.json").read_text())
    dominance = report["dominance"]
    assert code == 3 and report["verdict"] == "PASS" and report["unknown"] == ["dominance"]
    assert dominance["status"] == "skipped" and "MECHLIB_LP_MAX_N" in dominance["decide"]
    assert "dominance  SKIPPED" in text and "MECHLIB_LP_MAX_N" in text and "undecided  dominance" in text
    for page in (Path(f"{base}.md").read_text(), Path(f"{base}.html").read_text()):
        assert "Audit incomplete" in page and "SKIPPED" in page and "MECHLIB_LP_MAX_N" in page
    assert check_certificate(report, source.read_bytes()) == []
    hidden = copy.deepcopy(report)
    hidden["unknown"] = []
    assert any("unknown is [], the findings say ['dominance']" in f for f in check_certificate(hidden))


def test_the_named_option_decides_the_skipped_finding(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: Path
) -> None:
    """MECHLIB_LP_MAX_N runs the LP past the default; the checker checks its result (to n = 1000)."""
    monkeypatch.setattr(mechlib.audit.whitebox, "LP_MAX_N", 2)
    monkeypatch.setattr(mechlib.checkers.audit_certificate, "LP_MAX_N", 2)
    monkeypatch.setenv("MECHLIB_LP_MAX_N", "100")
    code, _, base = _audit(capsys, tmp_path, source)
    report = json.loads(Path(f"{base}.json").read_text())
    assert code == 0 and report["unknown"] == [] and report["dominance"]["status"] == "certified"
    assert check_certificate(report, source.read_bytes()) == []
    forged = copy.deepcopy(report)
    forged["dominance"]["remap"]["denominators"][0] = "7"
    assert check_certificate(forged, source.read_bytes())


@pytest.mark.parametrize("value", ["lots", "1001", "٣"])
def test_a_bad_lp_limit_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str, source: Path
) -> None:
    monkeypatch.setenv("MECHLIB_LP_MAX_N", value)
    code = main(["audit", str(source)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "MECHLIB_LP_MAX_N" in err


def test_t_itself_decides_dominance_of_a_dense_mechanism_past_the_lp_size(tmp_path: Path) -> None:
    """Randomized response at n = 160 (dense, past LP_MAX_N): T itself has lighter error tails,
    checked in O(n²) integers — certified, not skipped; the checker re-checks it in integers."""
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.audit.whitebox import audit
    from mechlib.core.families import randomized_response

    report = json.loads(json.dumps(audit(LoadedMechanism(randomized_response("1/3", 161), "rr", "python", "0" * 64))))
    assert report["n"] > mechlib.audit.whitebox.LP_MAX_N and report["unknown"] == []
    assert report["dominance"]["status"] == "certified" and check_certificate(report) == []


def test_t_itself_is_refused_where_its_tails_are_heavier() -> None:
    """Near-uniform randomized response (α = 9/10): T's tails are heavier somewhere, so T itself is
    no certificate: the producer does not claim it, and a forged claim is rejected."""
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.audit.whitebox import audit
    from mechlib.core.families import randomized_response
    from mechlib.core.remap import Remap
    from mechlib.optimality.dominance import dominating_t, t_itself_dominates

    mech = randomized_response("9/10", 51)
    assert not t_itself_dominates(mech, Fraction(9, 10)) and dominating_t(mech, Fraction(9, 10)) is None
    report = json.loads(json.dumps(audit(LoadedMechanism(randomized_response("1/3", 6), "rr", "python", "0" * 64))))
    forged = json.loads(json.dumps(audit(LoadedMechanism(mech, "rr", "python", "0" * 64))))
    forged["dominance"] = {"status": "certified", "alpha": forged["dp_level"],
                           "remap": Remap.identity(range(mech.n + 1)).to_integer_rows()}  # fmt: skip
    forged["unknown"] = [k for k in forged["unknown"] if k != "dominance"]
    assert any("heavier error tail" in f for f in check_certificate(forged))
    assert report["dominance"]["status"] == "certified"
