"""The ``mechlib`` command: audits of every fixture, malformed inputs (exit 2), verify, --version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mechlib.audit.loading import load_mechanism
from mechlib.cli import main
from mechlib.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("fixture", "dp_level", "verdict", "code"),
    [
        ("truncated_geometric_half_5.json", "1/2", "PASS", 0),
        ("gs_appendix_b.json", "1/2", "PASS", 0),
        ("geometric_third_3.json", "1/3", "FAIL", 1),  # claims ε = 1.0986 < ln 3
        ("randomized_response_third_4.csv", "1/3", "NONE", 0),
        ("decimals.json", "1/2", "PASS", 0),
    ],
)
def test_audit_fixtures(
    capsys: pytest.CaptureFixture[str], fixture: str, dp_level: str, verdict: str, code: int
) -> None:
    status, out, _ = run(capsys, "audit", str(FIXTURES / fixture), "--json")
    report = json.loads(out)
    assert status == code
    assert report["dp_level"] == dp_level and report["verdict"] == verdict
    assert {"n", "dp_level", "witness"} <= report.keys()
    w = report["witness"]
    assert w["ratio"] == dp_level


def test_audit_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "audit", str(FIXTURES / "geometric_third_3.json"))
    assert status == 1
    assert "(α = e^−ε = 1/3)" in out and "claimed    ε = 5493/5000: FAIL" in out
    assert "outputs (-2..5)" in out


def test_audit_writes_report_atomically(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "out" / "audit.json"
    status, _, _ = run(capsys, "audit", str(FIXTURES / "gs_appendix_b.json"), "-o", str(target))
    assert status == 0 and json.loads(target.read_text())["dp_level"] == "1/2"
    bad = tmp_path / "bad.json"
    bad.write_text('{"matrix": [["1/2", "1/3"]]}')
    target2 = tmp_path / "never.json"
    status, _, err = run(capsys, "audit", str(bad), "-o", str(target2))
    assert status == 2 and not target2.exists() and "Traceback" not in err
    assert list(tmp_path.glob(".*.tmp")) == []


def test_npy_needs_from_float(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "m.npy"
    np.save(path, np.array([[0.5, 0.5], [0.25, 0.75]]))
    status, _, err = run(capsys, "audit", str(path))
    assert status == 2 and "--from-float" in err
    status, out, _ = run(capsys, "audit", str(path), "--from-float", "--json")
    assert status == 0 and json.loads(out)["dp_level"] == "1/2"


def test_normalize_rows_is_explicit_and_recorded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "m.npy"
    np.save(path, np.array([[0.1, 0.9], [0.2, 0.8]]))
    status, _, err = run(capsys, "audit", str(path), "--from-float")
    assert status == 2 and "not exactly 1" in err
    status, out, _ = run(capsys, "audit", str(path), "--from-float", "--normalize-rows", "--json")
    assert status == 0 and json.loads(out)["rows_normalized"] is True


BAD_FILES = [
    ("nan.json", '{"matrix": [["NaN", "1"]]}', r"row 0, column 0: cannot read 'NaN'"),
    ("nan_literal.json", '{"matrix": [[NaN, 1]]}', r"contains NaN"),
    ("negative.json", '{"matrix": [["3/2", "-1/2"], ["1/2", "1/2"]]}', r"row 0, column 1: the entry -1/2 is negative"),
    (
        "short.json",
        '{"matrix": [["1/2", "1/2"], ["0.5", "0.499999999999"]]}',
        r"row 1: the row sums to .*off by -1/1000000000000",
    ),
    ("ragged.json", '{"matrix": [["1/2", "1/2"], ["1"]]}', r"row 1: the row has 1 entries but row 0 has 2"),
    ("empty.json", "", r"is empty"),
    ("empty.csv", "# only a comment\n", r"is empty"),
    ("word.csv", "1/2,half\n1/2,1/2\n", r"row 0, column 1: cannot read 'half'"),
    ("trailing.csv", "1/2,1/2,\n1/2,1/2,\n", r"row 0, column 2: got an empty string"),
    ("labels.json", '{"matrix": [[1, 0], [0, 1]], "outputs": [0]}', r"field 'outputs': 1 outputs labels for 2 columns"),
    ("shape.json", '{"matrix": [1, 0]}', r"field 'matrix', row 0: expected a row \(a list of numbers\), got int"),
    ("typo.json", '{"matrix": [[1]], "claimed_epsilom": "1"}', r"unknown field\(s\) \['claimed_epsilom'\]"),
    (
        "both.json",
        '{"matrix": [[1]], "claimed_alpha": "1", "claimed_epsilon": "0"}',
        r"both claimed_alpha and claimed_epsilon",
    ),
    ("alpha.json", '{"matrix": [[1]], "claimed_alpha": "2"}', r"field 'claimed_alpha': got 2"),
    ("float_eps.json", '{"matrix": [[1]], "claimed_epsilon": "-1"}', r"field 'claimed_epsilon': got -1"),
    ("syntax.json", '{"matrix": [[1, 0]', r"not valid JSON: .* line 1"),
    ("bool.json", '{"matrix": [[true, false]]}', r"row 0, column 0: got the boolean True"),
    ("m.txt", "1", r"unknown file type '.txt'"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_malformed_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        load_mechanism(path)
    assert str(info.value).startswith(str(path))
    status, out, err = run(capsys, "audit", str(path))
    assert status == 2 and out == ""
    assert err.startswith(f"mechlib: error: {path}") and "Traceback" not in err


def test_absurd_npy_size_is_refused_before_loading(tmp_path: Path) -> None:
    path = tmp_path / "huge.npy"
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1)))
    header["shape"] = (100_000, 100_000)
    with path.open("wb") as f:
        np.lib.format.write_array_header_1_0(f, header)  # a header promising 10^10 cells, no data
    with pytest.raises(InputError, match=r"100000×100000 matrix .*at most"):
        load_mechanism(path, from_float=True)
    bad = tmp_path / "three.npy"
    np.save(bad, np.zeros((2, 2, 2)))
    with pytest.raises(InputError, match=r"shape \(2, 2, 2\)"):
        load_mechanism(bad, from_float=True)
    nan = tmp_path / "nan.npy"
    np.save(nan, np.array([[np.nan, 1.0]]))
    with pytest.raises(InputError, match=r"row 0, column 0: got the non-finite float nan"):
        load_mechanism(nan, from_float=True)


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "audit", str(tmp_path / "nope.json"))
    assert status == 2 and "cannot be read" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit"]) == 2  # argparse's usage error, as a status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the following arguments are required: SOURCE" in err
    assert main([]) == 2
    status, _, err = run(capsys, "verify", "--only", "NOPE-1")
    assert status == 2 and "unknown claim ID(s) ['NOPE-1']" in err


def test_verify_json_and_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chosen = ["--only", "GRS-F4", "--only", "GS-AB"]
    status, out, _ = run(capsys, "verify", "--json", "--report-dir", str(tmp_path), *chosen)
    doc = json.loads(out)
    assert status == 0
    assert [c["id"] for c in doc["claims"]] == ["GRS-F4", "GS-AB"]
    assert all(c["verdict"] == "PROVED" and c["implemented"] for c in doc["claims"])
    partial = json.loads((tmp_path / "verify.partial.json").read_text())  # a selection: never verify.json
    assert partial["schema"] == "mechlib.verify/1" and not (tmp_path / "verify.json").exists()
    assert partial["summary"]["UNKNOWN"] == partial["summary"]["claims"] - partial["summary"]["implemented"]
    assert partial["summary"]["wall_seconds"] > 0
    assert "## GRS-F4" in (tmp_path / "verify.partial.md").read_text()


def test_verify_of_no_claim_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "verify", "--paper", "XYZ", "--report-dir", str(tmp_path))
    assert status == 2 and "selects no claim" in err and not list(tmp_path.iterdir())


def test_verify_in_a_pipe_prints_a_line_per_claim(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chosen = ["--only", "GRS-F4", "--only", "GS-AB"]
    status, _, err = run(capsys, "verify", *chosen, "--report-dir", str(tmp_path), "-j", "1")
    assert status == 0
    lines = [line.split() for line in err.splitlines() if line.startswith("verify ")]
    assert [w[1] for w in lines] == ["1/2", "2/2"] and sorted(w[2] for w in lines) == ["GRS-F4", "GS-AB"]


def test_console_script_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mechlib.cli", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "mechlib 0.1.0"


def test_progress_bar_path_runs_every_claim() -> None:
    from mechlib import verify

    results = verify.run(verify.select(["GRS-F4", "GS-AB", "GRS-E2.2"]), progress=True)
    assert [r.claim.id for r in results] == sorted(r.claim.id for r in results)
    assert all(r.as_expected for r in results if r.claim.implemented)
    gs = verify.select(paper="gs")
    assert gs and {c.paper for c in gs} == {"GS"} and len(gs) < len(verify.select())


def test_oversized_json_matrix_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import mechlib.core.stochastic

    monkeypatch.setattr(mechlib.core.stochastic, "MAX_CELLS", 3)
    path = tmp_path / "big.json"
    path.write_text('{"matrix": [[1, 0], [0, 1]]}')
    with pytest.raises(InputError, match=r"field 'matrix': the matrix is 2×2 = 4 cells \(expected at most 3 cells\)"):
        load_mechanism(path)


def test_audit_theory_findings(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "audit", str(FIXTURES / "gs_appendix_b.json"), "--json")
    report = json.loads(out)
    assert status == 0 and report["unknown"] == []
    assert report["derivable"] is False
    violation = report["derivation"]["violation"]
    assert (violation["row"], violation["output"], violation["value"]) == (1, 1, "-1/12")
    assert report["dominance"]["status"] == "certified"
    losses = {row["loss_name"]: row for row in report["user_losses"]["users"]}
    assert losses["binary"]["optimum"] == "1/2" and losses["binary"]["mechanism"] == "13/24"
    status, out, _ = run(capsys, "audit", str(FIXTURES / "truncated_geometric_half_5.json"), "--json")
    report = json.loads(out)
    assert report["derivable"] is True
    assert all(row["ratio"] == "1" for row in report["user_losses"]["users"])  # GRS Corollary 3.3


def test_audit_reports_unknown_with_exit_3(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import mechlib.audit.whitebox
    from mechlib.optimality.optimal import CertificationError

    def fail(*args: object, **kwargs: object) -> None:
        raise CertificationError("HiGHS could not be certified (test)")

    monkeypatch.setattr(mechlib.audit.whitebox, "dominance_certificate", fail)
    status, out, _ = run(capsys, "audit", str(FIXTURES / "gs_appendix_b.json"), "--json")
    report = json.loads(out)
    assert status == 3 and report["unknown"] == ["dominance"]  # 3: undecided (the claim holds)
    assert report["dominance"]["status"] == "UNKNOWN"
    assert report["dominance"]["reason"] == "HiGHS could not be certified (test)" and report["dominance"]["decide"]


def test_audit_skips_lp_findings_outside_their_range(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "identity.json"
    path.write_text('{"matrix": [[1, 0], [0, 1]]}')
    status, out, _ = run(capsys, "audit", str(path), "--json")
    report = json.loads(out)
    assert status == 0 and report["dp_level"] == "0"
    assert report["dominance"]["status"] == "not applicable" and "0 < α < 1" in report["dominance"]["reason"]
    assert report["derivable"] is None and report["unknown"] == []  # α = 0: T is the identity, nothing to decide


def test_a_mechanism_that_is_not_dp_is_not_called_derivable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """At α = 0 every mechanism is a remap of T_0 = I: derivability says nothing (not applicable)."""
    from mechlib.checkers.audit_certificate import check_certificate

    source = tmp_path / "zero.json"
    source.write_text(json.dumps({"matrix": [["1", "0"], ["1/2", "1/2"]]}))
    status, out, _ = run(capsys, "audit", str(source), "--json")
    cert = json.loads(out)
    assert status == 0 and cert["derivation"]["status"] == "not applicable" and cert["derivable"] is None
    assert "not DP for any ε" in cert["derivation"]["reason"] and check_certificate(cert) == []
    forged = {
        **cert,
        "derivable": True,
        "derivation": {"status": "derivable", "alpha": "0", "remap": [["1", "0"], ["1/2", "1/2"]]},
    }
    assert check_certificate(forged)


def test_audit_of_approximate_dp_is_certified(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A claimed (ε, δ), --delta and --renyi: the text names them, the certificate checks, and a
    claim the profile refutes fails (exit 1)."""
    rows = [["2/3", "1/3"], ["1/3", "2/3"]]  # T at α = 1/2, n = 1: δ(t) = (1 − t/2)/(3/2)
    for epsilon, verdict, code in (("1/2", "FAIL", 1), ("3/5", "PASS", 0)):  # δ(e^ε) ≈ 0.117, 0.059
        source = tmp_path / f"m{code}.json"
        source.write_text(json.dumps({"matrix": rows, "claimed_epsilon": epsilon, "claimed_delta": "1/10"}))
        cert = tmp_path / f"c{code}.json"
        got, out, _ = run(capsys, "audit", str(source), "--delta", "1/10", "--renyi", "1:8", "-o", str(cert))
        assert got == code, out
        assert f"δ = 1/10: {verdict}" in out and "tightest ε" in out and "zCDP" in out
        doc = json.loads(cert.read_text())
        assert doc["approximate_dp"]["at_delta"]["alpha"] == "10/17"  # (1 − t/2)·2/3 = 1/10 at t = 17/10
        got, out, _ = run(capsys, "check", str(cert), str(source))
        assert got == 0, out


def test_prove_universal_proves_t_on_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "prove-universal", "2", "--alpha", "1/3", "-j", "1", "--json")
    doc = json.loads(out)
    assert status == 0 and doc["verdict"] == "PROVED" and doc["alpha"] == "1/3"
    assert doc["cells"] == 10 and doc["counterexample"] is None  # C(5, 2) remap cells
    from mechlib.schemas import validate

    validate(doc, "mechlib.universal/1")
    status, out, err = run(capsys, "prove-universal", "1", "-j", "1")
    assert status == 0 and out.startswith("n=1 α=1/2: PROVED") and "prove-universal 4/4 tasks" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["0"], "argument N: '0' is not an integer in 1..12"),
        (["13"], "argument N: '13' is not an integer in 1..12"),
        (["3", "--alpha", "1"], "--alpha=1 (expected 0 < α < 1"),
        (["3", "--alpha", "x"], "--alpha=x: cannot read 'x' as an exact number"),
        (["3", "-j", "0"], "argument -j/--jobs: '0' is not an integer in 1..1,024"),
        (["3", "--timeout", "-1"], "argument --timeout: '-1' is not a number of seconds"),
        (["3", "--timeout", "nan"], "argument --timeout: 'nan' is not a number of seconds"),
    ],
)
def test_prove_universal_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    status, out, err = run(capsys, "prove-universal", *argv)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and expected in err


def test_a_large_audit_reports_its_steps_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Progress on long runs: each step as it starts, with the seconds so far, on stderr (the report
    on stdout unchanged); none with --no-progress or --json, nor below PROGRESS_CELLS."""
    import mechlib.cli.audit

    source = str(FIXTURES / "truncated_geometric_half_5.json")
    status, quiet_out, err = run(capsys, "audit", source)
    assert status == 0 and err == ""  # 36 cells: below the threshold
    monkeypatch.setattr(mechlib.cli.audit, "PROGRESS_CELLS", 0)
    status, out, err = run(capsys, "audit", source)
    steps = [line.split(" s  ", 1)[1] for line in err.splitlines()]
    assert status == 0 and out == quiet_out and all(line.startswith("… ") for line in err.splitlines())
    assert steps[:3] == [
        "the exact DP level (6 × 6)",
        "derivability from T (GS Theorem 2)",
        "dominance by a remap of T",
    ]
    assert len(steps) == 6 and "binary loss" in steps[-1]
    for flag in ("--no-progress", "--json"):
        assert run(capsys, "audit", source, flag)[2] == ""
