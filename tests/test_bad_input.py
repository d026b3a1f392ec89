"""Input that cannot crash, hang or leave half a result: every malformed input found by the
adversarial review ends in exit 2 with one line on stderr and no output file; limits are checked
before any arithmetic; big valid rationals print. A Hypothesis test fuzzes the loaders."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mechlib.cli import main

T_ROWS = [["2/3", "1/3"], ["1/3", "2/3"]]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _bad(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> str:
    out_file = tmp_path / "out" / "cert.json"
    code, out, err = _run(capsys, *argv, "-o", str(out_file)) if argv[0] == "audit" else _run(capsys, *argv)
    assert code == 2, (code, out, err)
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert not out_file.exists()
    return err


JSON_CASES = {
    "exponent past the limit (used to hang)": '{"matrix": [["1e-999999999", "1"], ["1", "0"]]}',
    "huge exponent": '{"matrix": [["1e999999", "0"], ["0", "1"]]}',
    "integer literal of 10^5 digits": '{"matrix": [[1' + "0" * 100_000 + ", 0], [0, 1]]}",
    "deeply nested": "[" * 100_000 + "]" * 100_000,
    "neighbours 5": json.dumps({"matrix": T_ROWS, "neighbours": 5}),
    "neighbours [1]": json.dumps({"matrix": T_ROWS, "neighbours": [1]}),
    "neighbours nested": json.dumps({"matrix": T_ROWS, "neighbours": [[[0], [1]]]}),
    "neighbours {}": json.dumps({"matrix": T_ROWS, "neighbours": {}}),
    "neighbours of booleans": json.dumps({"matrix": T_ROWS, "neighbours": [[True, False]]}),
    "neighbours of floats": json.dumps({"matrix": T_ROWS, "neighbours": [[0.0, 1.0]]}),
    "Arabic-Indic digits": json.dumps({"matrix": [["١/٣", "٢/٣"], ["1/3", "2/3"]]}),
    "claimed_delta alone": json.dumps({"matrix": T_ROWS, "claimed_delta": "1/10"}),
    "claimed_delta above 1": json.dumps({"matrix": T_ROWS, "claimed_epsilon": "1", "claimed_delta": "2"}),
    "duplicate keys": '{"matrix": [["1", "0"], ["0", "1"]], "matrix": [["1/2", "1/2"], ["1/2", "1/2"]]}',
}


@pytest.mark.parametrize("case", sorted(JSON_CASES))
def test_malformed_json_exits_2_with_one_line(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json"
    path.write_text(JSON_CASES[case])
    _bad(capsys, tmp_path, "audit", str(path))


def test_malformed_csv_and_npy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.csv"
    big.write_text("1" + "0" * 140_000 + ",0\n0,1\n")
    _bad(capsys, tmp_path, "audit", str(big))
    short = tmp_path / "short.npy"
    buffer = tmp_path / "full.npy"
    np.save(buffer, np.array([[0.5, 0.5], [0.5, 0.5]]))
    short.write_bytes(buffer.read_bytes()[:-8])
    _bad(capsys, tmp_path, "audit", str(short), "--from-float")


def test_csv_with_cr_line_endings_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cr.csv"
    path.write_bytes(b"2/3,1/3\r1/3,2/3\r")
    code, out, _ = _run(capsys, "audit", str(path), "--json")
    assert code == 0 and json.loads(out)["dp_level"] == "1/2"


def test_user_code_that_exits_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _bad(capsys, tmp_path, "audit", "sys:exit")
    (tmp_path / "quits.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "extra.py").write_text("def make():\n    return {'matrix': [[1]], 'colour': 'red'}\n")
    monkeypatch.chdir(tmp_path)
    _bad(capsys, tmp_path, "audit", "quits:make")
    _bad(capsys, tmp_path, "audit", "extra:make")


def test_a_path_that_looks_like_a_file_is_never_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "results.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    err = _bad(capsys, tmp_path, "audit", "results:final.json")
    assert "cannot be read" in err and not marker.exists()


def test_big_valid_rationals_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tiny.py").write_text(
        textwrap.dedent(
            """
            from fractions import Fraction
            from mechlib import truncated_geometric

            def make():
                return truncated_geometric(Fraction(1, 10**1000), 5)
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "audit", "tiny:make", "--json")
    assert code in (0, 1, 3) and "Traceback" not in err
    assert len(json.loads(out)["dp_level"]) > 1000


def test_a_certificate_past_the_limits_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": T_ROWS}))
    cert = tmp_path / "cert.json"
    assert main(["audit", str(path), "-o", str(cert)]) == 0
    doc = json.loads(cert.read_text())
    doc["dp_level"] = "1e-999999999"
    cert.write_text(json.dumps(doc))
    capsys.readouterr()
    _bad(capsys, tmp_path, "check", str(cert))


def test_outputs_are_all_or_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": T_ROWS}))
    blocker = tmp_path / "reports"
    blocker.write_text("a file where the report directory should be")
    cert = tmp_path / "cert.json"
    code, _, err = _run(capsys, "audit", str(path), "-o", str(cert), "--report-dir", str(blocker))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert not cert.exists()  # nothing written, not even the files that could have been
    assert not list(tmp_path.glob(".*.tmp"))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
            max_leaves=20,
        ).map(lambda doc: json.dumps({"matrix": doc}).encode()),
    ),
    st.sampled_from([".json", ".csv"]),
)
def test_loaders_never_crash(tmp_path_factory: pytest.TempPathFactory, data: bytes, suffix: str) -> None:
    """Random bytes and random JSON shapes: the audit either accepts the file or exits 2 with one
    line — never a traceback, never output on failure."""
    import contextlib
    import io

    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / f"m{suffix}"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["audit", str(path), "-o", str(folder / "cert.json")])
    assert code in (0, 1, 2), code
    if code == 2:
        assert out.getvalue() == "" and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
        assert not (folder / "cert.json").exists()


def test_existing_reports_are_kept_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports = tmp_path / "reports"
    for suffix in (".json", ".csv"):
        (tmp_path / f"m{suffix}").write_text(
            json.dumps({"matrix": T_ROWS}) if suffix == ".json" else "2/3,1/3\n1/3,2/3\n"
        )
    assert main(["audit", str(tmp_path / "m.json"), "--report-dir", str(reports)]) == 0
    before = (reports / "m.audit.json").read_text()
    capsys.readouterr()
    err = _bad(capsys, tmp_path, "audit", str(tmp_path / "m.csv"), "--report-dir", str(reports))  # same stem
    assert "--force" in err and (reports / "m.audit.json").read_text() == before
    assert main(["audit", str(tmp_path / "m.csv"), "--report-dir", str(reports), "--force"]) == 0


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`mechlib audit … --json | head -1`: no BrokenPipeError traceback when stdout closes early.
    The pipe's reading end is closed before the command writes (how much a pipe takes before a
    write fails depends on the kernel), so every write fails as it would after `head` exits."""
    import os
    import subprocess
    import sys

    path = tmp_path / "m.json"
    path.write_text('{"matrix": [["2/3", "1/3"], ["1/3", "2/3"]]}')
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        audit = subprocess.run(
            [sys.executable, "-m", "mechlib.cli", "audit", str(path), "--json"],
            stdout=write_end, stderr=subprocess.PIPE, timeout=60, check=False,
        )  # fmt: skip
    finally:
        os.close(write_end)
    err = audit.stderr.decode()
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert audit.returncode == 141  # 128 + SIGPIPE, as a shell pipeline reports it


def test_stale_temporaries_of_a_killed_run_are_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run killed while writing (kill -9) leaves `.NAME.*.tmp` beside its target and no target;
    the next run writing that target removes them."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": T_ROWS}))
    stale = tmp_path / ".cert.json.x1y2z3.tmp"
    stale.write_text('{"half": ')
    assert main(["audit", str(path), "-o", str(tmp_path / "cert.json")]) == 0
    assert not stale.exists() and json.loads((tmp_path / "cert.json").read_text())["dp_level"] == "1/2"


def test_check_with_a_module_function_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mechlib check CERT module:function` works as documented: the source is run, and its matrix,
    labels, neighbours and claim (and its module's SHA-256) compared; another source is rejected."""
    (tmp_path / "srcs.py").write_text(
        "from mechlib import truncated_geometric, randomized_response\n\n"
        "def t():\n    return truncated_geometric('1/2', 3)\n\n"
        "def rr():\n    return randomized_response('1/2', 4)\n"
    )
    monkeypatch.chdir(tmp_path)
    cert = tmp_path / "cert.json"
    assert main(["audit", "srcs:t", "-o", str(cert)]) == 0
    capsys.readouterr()
    assert main(["check", str(cert), "srcs:t"]) == 0
    assert main(["check", str(cert), "srcs:rr"]) == 1
    out = capsys.readouterr().out
    assert "matrix differs from SOURCE" in out


@pytest.mark.parametrize(
    "option",
    [("--delta", "2"), ("--delta", "x"), ("--renyi", "0:4"), ("--renyi", "4:2"), ("--renyi", "1"), ("--renyi", "a:b")],
)
def test_bad_approximate_dp_options(
    option: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": T_ROWS}))
    err = _bad(capsys, tmp_path, "audit", str(path), *option)
    assert option[0] in err


@pytest.mark.parametrize(
    ("row", "limit"),
    [
        (["1/4", "1/2", "1/4"], "DENSE_PROFILE_MAX_CELLS"),
        (["1/4", "1/2", f"{2**38 - 1}/{2**40}", f"1/{2**40}"], "PROFILE_MAX_CELLS"),
    ],
    ids=["row denominators below 2**31", "a row denominator of 2**40"],
)
def test_a_profile_too_large_is_refused_before_arithmetic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, row: list[str], limit: str
) -> None:
    """Each limit where it applies: the int64 one to rows over denominators below 2³¹, the other to the
    rest. (T itself is not refused: its profile is a closed form, ``test_delta_past_the_cell_limit_for_t_only``.)"""
    from mechlib.audit import approximate_dp

    for name in ("PROFILE_MAX_CELLS", "DENSE_PROFILE_MAX_CELLS"):
        monkeypatch.setattr(approximate_dp, name, 3 if name == limit else 100)
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": [["1/2", "1/4", "1/4", "0"][: len(row)], row]}))
    assert "at most 3" in _bad(capsys, tmp_path, "audit", str(path), "--delta", "1/10")


@pytest.mark.parametrize(("limit", "what"), [("RENYI_MAX_CELLS", "cells"), ("RENYI_MAX_TERMS", "terms")])
def test_a_zcdp_bracket_too_large_is_refused_before_arithmetic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, limit: str, what: str
) -> None:
    """Its cells (merged by likelihood ratio in integers first) and its (pair, ratio) terms (arb exponentials
    at every order), each limit in one line: here 2 ordered pairs × 3 outputs, 2 × 3 terms (three ratios each)."""
    from mechlib.audit import approximate_dp

    monkeypatch.setattr(approximate_dp, limit, 3)
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"]]}))
    err = _bad(capsys, tmp_path, "audit", str(path), "--renyi", "1:2")
    assert "at most 3" in err and what in err


def test_gzip_certificates_and_mechanism_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-o PATH.gz writes the same certificate gzip-compressed (the same bytes every run); check and
    the loaders read .gz files as they are."""
    import gzip

    path = tmp_path / "m.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"matrix": T_ROWS}).encode()))
    plain, packed = tmp_path / "cert.json", tmp_path / "cert.json.gz"
    assert main(["audit", str(path), "-o", str(plain)]) == 0
    assert main(["audit", str(path), "-o", str(packed)]) == 0
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    first = packed.read_bytes()
    assert main(["audit", str(path), "-o", str(packed)]) == 0 and packed.read_bytes() == first
    capsys.readouterr()
    code, out, _ = _run(capsys, "check", str(packed), str(path))
    assert code == 0 and out.strip().endswith("holds")
    csv_path = tmp_path / "m.csv.gz"
    csv_path.write_bytes(gzip.compress(b"2/3,1/3\n1/3,2/3\n"))
    assert _run(capsys, "audit", str(csv_path))[0] == 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\xff" * 8, "is not a readable gzip file"),
        (None, "is a truncated gzip file"),
        (b"", "decompresses to more than 1,000 bytes"),
    ],
    ids=["garbage", "truncated", "bomb"],
)
def test_bad_gzip_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, content: bytes | None,
    expected: str,
) -> None:  # fmt: skip
    import gzip

    import mechlib.audit.loading as loading

    monkeypatch.setattr(loading, "MAX_FILE_BYTES", 1000)
    whole = gzip.compress(json.dumps({"matrix": T_ROWS}).encode())
    data = {None: whole[:-12], b"": gzip.compress(b" " * 5000)}.get(content, whole[:10] + (content or b""))
    for name in ("cert.json.gz", "m.json.gz"):
        (tmp_path / name).write_bytes(data)
    for argv in (["check", str(tmp_path / "cert.json.gz")], ["audit", str(tmp_path / "m.json.gz")]):
        assert expected in _bad(capsys, tmp_path, *argv)


# -- sweeps and the scheduler: every case fails in one line before any work -------------------------

MANIFESTS = {
    "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(200)),
    "binary": bytes(range(256)) * 4,
    "timeout nan": b"[sweep]\ntimeout = nan\n",
    "timeout inf": b"[sweep]\ntimeout = inf\n",
    "timeout 1e308": b"[sweep]\ntimeout = 1e308\n",
    "deeply nested": b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "5000-digit integer": b'[[blackbox]]\nsampler = "mechlib:truncated_geometric"\nepsilon = 1\nn = ' + b"9" * 5000,
    "n too large": b'[[blackbox]]\nsampler = "mechlib:truncated_geometric"\nepsilon = 1\nn = 10000000000\n',
    "samples 1e20": b'[[blackbox]]\nsampler = "mechlib:truncated_geometric"\nepsilon = 1\nn = 2\nsamples = 1e20\n',
    "entry not a table": b"claims = [1]\n",
    "output not a name": b"[sweep]\noutput = 5\n",
    "missing source file": b'[[audits]]\nsources = ["no-such-file.csv"]\n',
    "unknown module": b'[[audits]]\nsources = ["no_such_module_here:make"]\n',
    "unknown adapter": b'[[blackbox]]\nsampler = "opendp:nope"\nepsilon = 1\nn = 2\n',
    "unknown sampler module": b'[[blackbox]]\nsampler = "no_such_module_here:draw"\nepsilon = 1\nn = 2\n',
}


@pytest.mark.parametrize("case", sorted(MANIFESTS))
def test_a_bad_manifest_fails_at_once_writing_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    manifest = tmp_path / "m.toml"
    manifest.write_bytes(MANIFESTS[case])
    start = time.perf_counter()
    err = _bad(capsys, tmp_path, "sweep", str(manifest), "--report-dir", str(tmp_path / "out"), "-j", "1")
    assert time.perf_counter() - start < 1, "checked before any work"
    assert "m.toml" in err and not (tmp_path / "out").exists()


def test_an_output_under_a_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[[audits]]\nsources = ["{Path(__file__).parent / "fixtures" / "gs_appendix_b.json"}"]\n')
    (tmp_path / "file").write_text("")
    assert "is a file" in _bad(capsys, tmp_path, "sweep", str(manifest), "--report-dir", str(tmp_path / "file" / "x"))
    assert "is a file" in _bad(capsys, tmp_path, "sweep", str(manifest), "-o", str(tmp_path / "file" / "r.json"))
    source = str(Path(__file__).parent / "fixtures" / "gs_appendix_b.json")
    assert "is a directory" in _bad(capsys, tmp_path, "verify", "--only", "GRS-F4", "-o", str(tmp_path))
    assert "is a file" in _bad(capsys, tmp_path, "blackbox", "mechlib:truncated_geometric", "--n", "2", "--epsilon",
                               "1", "-o", str(tmp_path / "file" / "r.json"))  # fmt: skip
    code, _, err = _run(capsys, "audit", source, "-o", str(tmp_path / "file" / "cert.json"))
    assert code == 2 and "is a file" in err


SCHEDULERS = {
    "empty": "",
    "garbage": "garbage!!",
    "unclosed IPv6": "[::1",
    "unknown scheme": "foo://",
    "no host": "tcp://",
    "port out of range": "tcp://127.0.0.1:99999",
    "port not a number": "tcp://127.0.0.1:http",
    "tls without certificates": "tls://127.0.0.1:8786",
    "100k-character host": "tcp://" + "a" * 100_000 + ":8786",
}


@pytest.mark.parametrize("case", sorted(SCHEDULERS))
@pytest.mark.parametrize("command", [["verify", "--only", "GRS-F4"], ["prove-universal", "1"], ["sweep", "M"]])
def test_a_malformed_scheduler_address_is_bad_input(
    case: str, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text('[[claims]]\nonly = ["GRS-F4"]\n')
    argv = [str(manifest) if a == "M" else a for a in command]
    err = _bad(capsys, tmp_path, *argv, "--scheduler", SCHEDULERS[case], "--report-dir", str(tmp_path / "out"))
    assert "--scheduler" in err and not (tmp_path / "out").exists()


def test_the_environment_and_dask_addresses_are_checked_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import dask

    monkeypatch.setenv("MECHLIB_SCHEDULER", "foo://x")
    assert "$MECHLIB_SCHEDULER" in _bad(capsys, tmp_path, "prove-universal", "1")
    monkeypatch.delenv("MECHLIB_SCHEDULER")
    with dask.config.set({"scheduler-address": "[::1"}):  # what DASK_SCHEDULER_ADDRESS sets
        assert "DASK_SCHEDULER_ADDRESS" in _bad(capsys, tmp_path, "prove-universal", "1")


@pytest.mark.parametrize(
    "argv",
    [
        ["--samples", "1e20"],
        ["--samples", "0"],
        ["--samples", "1.5"],
        ["--n", "1" + "0" * 5000],
        ["--alpha-fa", "1"],
        ["--alpha-fa", "nan"],
        ["--seed", "-1"],
    ],
)
def test_blackbox_limits_are_checked_before_sampling(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["blackbox", "mechlib:truncated_geometric", "--n", "2", "--epsilon", "1"]
    _bad(capsys, tmp_path, *base, *argv)


def test_blackbox_takes_exact_rates_and_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    argv = ["blackbox", "mechlib:truncated_geometric", "--n", "2", "--epsilon", "1", "--samples", "2e3"]
    code, _, _ = _run(capsys, *argv, "--alpha-fa", "1/100", "-o", str(out), "--no-progress")
    result = json.loads(out.read_text())
    assert code == 0 and result["samples_per_count"] == 2000 and result["dp"]["alpha_fa"] == "1/100"
