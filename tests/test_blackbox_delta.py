"""The black-box (ε, δ) test: a planted δ is found, a true claim is not flagged, the result checks."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mechlib import truncated_geometric
from mechlib.audit.blackbox import Sampler, poisson_sizes, sample_phases
from mechlib.audit.blackbox_delta import delta_test, event_hits
from mechlib.checkers.blackbox_result import check_result
from mechlib.cli import main
from mechlib.core.approximate import privacy_profile
from mechlib.core.mechanism import Mechanism
from mechlib.infodesign.alpha import exp_bounds

PATH = [(0, 1), (1, 2), (2, 3)]


def leaky_t(leak: Fraction) -> Mechanism:
    """T at α = 1/2 on 0..3 whose count 1 moves mass ``leak`` from output 1 to output 4, an
    output its neighbours never give: δ(ε) ≥ leak at every ε."""
    rows = [[*row, Fraction(0)] for row in truncated_geometric("1/2", 3).rows]
    rows[1][1] -= leak
    rows[1][4] = leak
    return Mechanism(rows)


def exact_sampler(mech: Mechanism) -> Sampler:
    probabilities = [[float(p) for p in row] for row in mech.rows]

    def draw(i: int, size: int, rng: Any) -> list[int]:
        return [int(v) for v in rng.choice(len(probabilities[i]), size=size, p=probabilities[i])]

    return Sampler("exact", draw)


def run(mech: Mechanism, delta: Fraction, samples: int, seed: int) -> dict[str, Any]:
    return delta_test(sample_phases(exact_sampler(mech), 3, samples, seed), Fraction(1), delta, "0.05", PATH)


def true_delta_at_e(mech: Mechanism) -> Fraction:
    """δ(ε = 1) from the exact profile, rounded up: δ(t) is non-increasing, so δ(t_lo) ≥ δ(e)."""
    low, _ = exp_bounds(Fraction(1))
    return privacy_profile(mech).delta_at(low)


def test_phases_and_events() -> None:
    selection, test = poisson_sizes(100_000, 3, 0)
    assert len(selection) == len(test) == 4 and poisson_sizes(100_000, 3, 0) == (selection, test)  # seeded
    assert all(abs(s - 25_000) < 1_000 and abs(t - 75_000) < 2_000 for s, t in zip(selection, test, strict=True))
    h = {-1: 2, 0: 5, 3: 7}
    assert event_hits(h, {"outputs": [0, 3]}) == 12
    assert event_hits(h, {"at_least": 0}) == 12 and event_hits(h, {"at_most": 0}) == 7


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_delta_ten_times_the_claim_is_found(seed: int) -> None:
    mech = leaky_t(Fraction(1, 100))
    claimed = true_delta_at_e(mech) / 10
    result = run(mech, claimed, 20_000, seed)
    assert result["verdict"] == "violation", result["event"]
    assert Fraction(result["delta_lower_bound"]) <= true_delta_at_e(mech)  # a lower bound indeed


def test_a_true_claim_at_its_exact_delta_is_not_flagged() -> None:
    """At the boundary (claimed δ = the true δ(ε) from the exact profile), 20 seeded runs: the test
    is allowed α_FA = 5% false alarms and, being conservative, raises none here."""
    mech = leaky_t(Fraction(1, 100))
    claimed = true_delta_at_e(mech)
    alarms = [seed for seed in range(20) if run(mech, claimed, 5_000, seed)["verdict"] == "violation"]
    assert alarms == []


def test_no_candidate_gives_no_event() -> None:
    constant = Mechanism([["1"], ["1"], ["1"], ["1"]])
    result = run(constant, Fraction(0), 300, 0)
    assert result["event"] is None and result["verdict"] == "no violation found"


SAMPLERS = """
def leaky(count, rng):      # fair coin, and output 9 under count 1 with probability 1/50
    if count == 1 and rng.random() < 0.02:
        return 9
    return int(rng.random() < 0.5)
"""


def test_cli_delta_flags_checks_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    (tmp_path / "leaky_samplers.py").write_text(textwrap.dedent(SAMPLERS))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    argv = ["blackbox", "leaky_samplers:leaky", "--n", "3", "--epsilon", "1", "--samples", "8000"]
    code = main([*argv, "--delta", "1/1000", "-o", str(out), "--report-dir", str(tmp_path / "rep")])
    text = capsys.readouterr().out
    assert code == 1 and "δ test" in text and "violation" in text and "the true δ(ε) is at least" in text
    result = json.loads(out.read_text())
    assert check_result(result) == []
    counts = [Counter({int(k): v for k, v in h.items()}) for h in result["counts"]]
    phases = [
        [Counter({int(k): v for k, v in h.items()}) for h in result[f"{p}_counts"]] for p in ("selection", "test")
    ]
    assert counts == [a + b for a, b in zip(*phases, strict=True)]
    report = (tmp_path / "rep" / "leaky_samplers_leaky.blackbox.md").read_text()
    assert "(ε, δ) test" in report and "one event chosen on separate samples, s " in report  # in words
    assert '{"' not in report  # no JSON in the prose
    assert main([*argv, "--delta", "1/10"]) == 0  # δ = 1/10 covers the leak
    capsys.readouterr()


@pytest.mark.parametrize("option", [["--delta", "2"], ["--delta", "x"], ["--delta", "1/10", "--samples", "0"]])
def test_cli_bad_delta_is_one_line(option: list[str], capsys: Any) -> None:
    code = main(["blackbox", "mechlib:truncated_geometric", "--n", "2", "--epsilon", "1", *option])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("spec", "module"), [("pydp:GaussianMechanism", "pydp"), ("opendp:make_gaussian", "opendp")])
def test_gaussian_adapters_pass_at_their_own_claim(spec: str, module: str, tmp_path: Path, capsys: Any) -> None:
    pytest.importorskip(module)
    out = tmp_path / "r.json"
    argv = ["blackbox", spec, "--n", "2", "--epsilon", "1", "--samples", "20000"]
    assert main([*argv, "--delta", "1e-5", "-o", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["delta_test"]["verdict"] == "no violation found" and result["sampler"]["configured"]
    assert check_result(result) == []
    capsys.readouterr()
    assert main(argv) == 2  # an (ε, δ) mechanism needs the claim's δ
    assert "--delta" in capsys.readouterr().err
