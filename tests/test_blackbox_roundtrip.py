"""`mechlib blackbox … -o R` then `mechlib check R`, through the command line, for every option.

The checker read the file as ``mechlib check`` reads it (strict JSON, numbers as ``Decimal``) only
here: a result written with ``--pmf`` was once rejected by the command while the checker, called on
the parsed file in Python, said it held (issue 35). Every number a result records is now exact text,
α_FA as typed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mechlib import truncated_geometric
from mechlib.cli import main

SAMPLERS = """
def _t(alpha, count, rng):     # T at α on 0..3
    rows = [(1 if r in (0, 3) else 1 - alpha) / (1 + alpha) * alpha ** abs(count - r) for r in range(4)]
    return int(rng.choice(4, p=rows))

def tight(count, rng):         # T at α = 1/2: ln 2-DP, 0.7-DP too, and its pmf is T's at 1/2
    return _t(0.5, count, rng)

def wrong_spec(count, rng):    # T at α = 3/4: DP at 0.7, but not the pmf claimed (T at 1/2)
    return _t(0.75, count, rng)
"""


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rt_samplers.py").write_text(SAMPLERS)
    (tmp_path / "t_half.json").write_text(json.dumps({"matrix": truncated_geometric("1/2", 3).to_strings()}))
    (tmp_path / "pairs.json").write_text("[[0, 1], [1, 2], [2, 3], [0, 3]]")
    monkeypatch.chdir(tmp_path)
    return tmp_path


BASE = ["--n", "3", "--epsilon", "0.7", "--samples", "3000", "--seed", "2"]

#: (name, sampler, extra options, expected exit of blackbox): each option alone and together.
RUNS = [
    ("plain", "rt_samplers:tight", [], 0),
    ("alpha-fa as a fraction", "rt_samplers:tight", ["--alpha-fa", "1/20"], 0),
    ("alpha-fa as an exponent", "rt_samplers:tight", ["--alpha-fa", "5e-2"], 0),
    ("pmf conformant", "rt_samplers:tight", ["--pmf", "t_half.json"], 0),
    ("pmf nonconformant", "rt_samplers:wrong_spec", ["--pmf", "t_half.json", "--alpha-fa", "1/100"], 1),
    ("delta", "rt_samplers:tight", ["--delta", "1e-5"], 0),
    ("complete neighbours", "rt_samplers:tight", ["--neighbours", "complete"], 1),  # 0 vs 3: 3·ln 2
    ("neighbours from a file", "rt_samplers:tight", ["--neighbours", "pairs.json"], 1),  # 0–3 is ln 8 apart
    ("range", "rt_samplers:tight", ["--range", "0:3"], 0),
    (
        "everything",
        "rt_samplers:wrong_spec",
        ["--pmf", "t_half.json", "--delta", "1/1000", "--neighbours", "complete", "--alpha-fa", "0.02"],
        1,
    ),
    ("an adapter", "mechlib:truncated_geometric", ["--pmf", "t_half.json", "--delta", "0"], 0),
]


@pytest.mark.parametrize(("name", "sampler", "extra", "exit_code"), RUNS, ids=[r[0] for r in RUNS])
def test_every_option_round_trips_through_check(
    where: Path, capsys: pytest.CaptureFixture[str], name: str, sampler: str, extra: list[str], exit_code: int
) -> None:
    out = where / "r.json.gz" if name == "everything" else where / "r.json"
    assert main(["blackbox", sampler, *BASE, *extra, "-o", str(out)]) == exit_code
    text = capsys.readouterr().out
    assert main(["check", str(out)]) == 0, capsys.readouterr()
    assert capsys.readouterr().out.rstrip().endswith(": holds")
    if "--alpha-fa" in extra:  # recorded as typed, everywhere
        typed = extra[extra.index("--alpha-fa") + 1]
        result = json.loads(out.read_text()) if out.suffix == ".json" else None
        if result is not None:
            assert result["dp"]["alpha_fa"] == typed and f"α_FA = {typed}" in text
            assert all(result[k] is None or result[k]["alpha_fa"] == typed for k in ("conformance", "delta_test"))
    if "nonconformant" in name:
        result = json.loads(out.read_text())
        outside = result["conformance"]["outside"]
        assert outside and result["conformance"]["per_bound_level"] == f"1/{200 * result['conformance']['cells']}"
        lines = [line for line in text.splitlines() if line.startswith("outside")]
        assert len(lines) == min(len(outside), 20)
        first = outside[0]
        assert f"input {first['input']}, output {first['output']}" in lines[0]
        assert f"{first['claimed']} ≈ {first['approx']['claimed']}" in lines[0]


def test_a_sweep_merged_result_round_trips_through_check(where: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seeds merged by a sweep, α_FA written as a TOML string and as a TOML number: both re-check."""
    (where / "grid.toml").write_text(
        '[[blackbox]]\nsampler = "rt_samplers:tight"\nepsilon = "0.7"\nn = 3\nsamples = 1000\nseeds = [0, 1]\n'
        'alpha_fa = "1/50"\n\n'
        '[[blackbox]]\nsampler = "mechlib:truncated_geometric"\nepsilon = "1"\nn = 2\nsamples = 1000\n'
        "seeds = [3, 4]\nalpha_fa = 0.02\n"
    )
    assert main(["sweep", "grid.toml", "-o", "out", "-j", "1", "--no-progress"]) == 0
    capsys.readouterr()
    certificates = sorted((where / "out" / "certificates").glob("*.blackbox.json"))
    assert len(certificates) == 2
    for path in certificates:
        result = json.loads(path.read_text())
        assert result["dp"]["alpha_fa"] in ("1/50", "0.02") and len(result["seed"]) == 2
        assert main(["check", str(path)]) == 0, capsys.readouterr()


def test_the_command_itself_round_trips(where: Path) -> None:
    """The command in a subprocess: write with --pmf and --delta, re-check, exit 0 both."""
    command = [sys.executable, "-m", "mechlib.cli"]
    env = {**os.environ, "PYTHONPATH": str(where)}
    write = [
        *command,
        "blackbox",
        "rt_samplers:tight",
        *BASE,
        "--pmf",
        "t_half.json",
        "--delta",
        "1e-5",
        "-o",
        "r.json",
    ]
    assert subprocess.run(write, capture_output=True, env=env, check=False).returncode == 0
    checked = subprocess.run([*command, "check", "r.json"], capture_output=True, text=True, check=False)
    assert checked.returncode == 0 and checked.stdout.rstrip().endswith(": holds"), checked.stdout + checked.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [("0.5", "0 < α_FA < 1/2"), ("0", "0 < α_FA < 1/2"), ("-1/100", "0 < α_FA < 1/2"), ("one", "--alpha-fa one")],
)
def test_a_bad_alpha_fa_exits_2_naming_it(
    where: Path, capsys: pytest.CaptureFixture[str], value: str, message: str
) -> None:
    assert main(["blackbox", "rt_samplers:tight", *BASE, f"--alpha-fa={value}", "-o", "r.json"]) == 2
    err = capsys.readouterr().err
    assert message in err and "--alpha-fa" in err and len(err.strip().splitlines()) == 1
    assert not (where / "r.json").exists()


def test_each_nonconformant_cell_is_checked(where: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every cell listed outside is re-derived: one left out, listed twice or out of order, a decimal
    that is not its exact value's, a verdict that disagrees, an α_FA that differs from the DP test's."""
    import copy

    from mechlib.checkers.blackbox_result import check_result

    out = where / "r.json"
    args = ["blackbox", "rt_samplers:wrong_spec", *BASE, "--pmf", "t_half.json", "--delta", "1e-3", "-o", str(out)]
    assert main(args) == 1
    capsys.readouterr()
    doc = json.loads(out.read_text())
    outside = doc["conformance"]["outside"]
    assert len(outside) >= 2 and check_result(doc) == []

    def fails(change: Any, words: str) -> None:
        bad = copy.deepcopy(doc)
        change(bad)
        assert any(words in f for f in check_result(bad)), check_result(bad)

    fails(lambda d: d["conformance"]["outside"].pop(), "not listed")
    fails(lambda d: d["conformance"]["outside"].reverse(), "order")
    fails(lambda d: d["conformance"]["outside"].append(d["conformance"]["outside"][0]), "once each")
    fails(lambda d: d["conformance"]["outside"][0]["approx"].update(claimed="0.5"), "approx")
    fails(lambda d: d["conformance"].update(verdict="conformant"), "does not match")
    fails(lambda d: d["conformance"].update(alpha_fa="1/50"), "not the DP test's")
    fails(lambda d: d["delta_test"].update(alpha_fa="1/50"), "α_FA differ")
    fails(lambda d: d["delta_test"].update(per_bound_level="1/7"), "per_bound_level")
    fails(lambda d: d["conformance"].update(per_bound_level="1/7"), "per_bound_level")
    assert check_result({**doc, "dp": {**doc["dp"], "alpha_fa": 0.01}})  # /9 wants exact text


def test_a_v8_result_written_with_pmf_rechecks_through_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: a /8 result written by ``mechlib blackbox --pmf --delta`` (at 9c33db7, whose own
    ``mechlib check`` rejected it: its float levels read back as Decimal) holds; a wrong level still fails."""
    import copy

    from mechlib.audit.loading import read_json
    from mechlib.checkers.blackbox_result import check_result

    path = Path(__file__).parent / "results_v8" / "rt_samplers_wrong_spec_pmf.blackbox.json"
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith(": holds")
    doc = read_json(path.read_bytes())
    assert doc["schema"] == "mechlib.blackbox/8" and doc["conformance"]["verdict"] == "nonconformant"
    for part in ("conformance", "delta_test"):
        bad = copy.deepcopy(doc)
        bad[part]["per_bound_level"] *= 2
        assert any("per_bound_level" in f for f in check_result(bad)), part
