"""SY Example 1 machinery on small instances: exact bounds, certificates, tampering."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mechlib.checkers.bracket_certificate import check_certificate
from mechlib.infodesign.alpha import exp_bounds
from mechlib.infodesign.cell_lp import Bracket, bracket, posterior_mean_loss
from mechlib.infodesign.school_planning import Example, certificate, geometric_loss, histogram_graph, oblivious_graph
from mechlib.proofs.sy.example_1 import school_planning_figures

SMALL = Example(households=6, probabilities=(Fraction("0.85"), Fraction("0.12"), Fraction("0.03")))
BOX = (4, 2)


@pytest.fixture(scope="module")
def small_bracket() -> Bracket:
    return bracket(histogram_graph(SMALL, BOX), Fraction(1, 2))


def test_exp_bounds_bracket_e() -> None:
    lo, hi = exp_bounds(Fraction(1))
    assert lo < Fraction(str(math.e)) < hi and hi - lo == Fraction(2, 10**12)


def test_geometric_loss_matches_a_float_computation() -> None:
    mu0 = SMALL.omega_prior()
    a = math.exp(-0.5)
    w = np.arange(len(mu0))
    s = np.arange(-60, 73)
    joint = (1 - a) / (1 + a) * a ** np.abs(s[:, None] - w[None, :]) * np.array([float(m) for m in mu0])[None, :]
    ps = joint.sum(1)
    float_loss = float((joint @ w**2 - (joint @ w) ** 2 / ps).sum())
    ball = geometric_loss(mu0, Fraction(1, 2))
    assert abs(float(ball.mid()) - float_loss) < 1e-9 and float(ball.rad()) < 1e-30


def test_bracket_is_ordered_and_tight(small_bracket: Bracket) -> None:
    assert small_bracket.lower <= small_bracket.upper
    assert small_bracket.gap < Fraction(1, 10)  # h = 1/2: gap ≲ h²/6 plus the dropped tail
    graph = histogram_graph(SMALL, BOX)
    assert posterior_mean_loss(graph, small_bracket.mechanism) == small_bracket.upper


def test_non_oblivious_beats_oblivious_beats_nothing(small_bracket: Bracket) -> None:
    """Magnitude data (SY Thm 1): the best mechanism is at least as good as the best oblivious one."""
    noise = bracket(oblivious_graph(SMALL, 12), Fraction(1, 2))
    assert small_bracket.lower <= noise.upper
    mu0 = SMALL.omega_prior()
    mean = sum(w * m for w, m in enumerate(mu0))
    variance = sum((w - mean) ** 2 * m for w, m in enumerate(mu0))
    assert noise.upper <= variance  # any mechanism beats publishing nothing


def test_certificate_rechecks_and_rejects_tampering(small_bracket: Bracket) -> None:
    cert = json.loads(json.dumps(certificate(SMALL, BOX, small_bracket)))
    assert check_certificate(cert) == []
    lowered = dict(cert, upper=str(Fraction(cert["upper"]) - Fraction(1, 10**6)))
    assert "exceeds the claimed upper bound" in check_certificate(lowered)[0]
    raised = dict(cert, lower=str(Fraction(cert["lower"]) + Fraction(1, 10**6)))
    assert "below the claimed lower bound" in check_certificate(raised)[0]
    other = dict(cert, factor_hi=cert["factor_lo"])
    assert any("e^epsilon" in f for f in check_certificate(other))
    row_key = next(iter(cert["mechanism"]))
    row = dict(cert["mechanism"][row_key])
    k1, k2 = list(row)[:2]
    row[k1], row[k2] = "0", str(Fraction(row[k1]) + Fraction(row[k2]))  # still a distribution, not DP
    assert any("not DP" in f for f in check_certificate(dict(cert, mechanism={**cert["mechanism"], row_key: row})))
    bad_dual = [list(d) for d in cert["duals"]]
    bad_dual[0][-1] = "-1"
    assert any("nonnegative dual" in f for f in check_certificate(dict(cert, duals=bad_dual)))
    assert check_certificate(dict(cert, schema="mechlib.bracket/0"))


def test_cli_check_and_bad_input(small_bracket: Bracket, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mechlib.cli import main

    cert = certificate(SMALL, BOX, small_bracket)
    good = tmp_path / "cert.json"
    good.write_text(json.dumps(cert))
    assert main(["check", str(good)]) == 0 and "holds" in capsys.readouterr().out
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(dict(cert, upper="0")))
    assert main(["check", str(tampered)]) == 1 and "FAIL" in capsys.readouterr().out
    truncated = tmp_path / "truncated.json"
    truncated.write_text(json.dumps(cert)[:200])
    assert main(["check", str(truncated)]) == 2 and "truncated" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps(dict(cert, schema="mechlib.bracket/9")))
    assert main(["check", str(other)]) == 2 and "'mechlib.bracket/1'" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.json")]) == 2
    assert main(["school-planning", "--box", "30,20", "--report-dir", str(tmp_path)]) == 2
    assert "--box" in capsys.readouterr().err
    assert main(["school-planning", "--step", "0", "--report-dir", str(tmp_path)]) == 2
    assert main(["school-planning", "--step", "0.1.2", "--report-dir", str(tmp_path)]) == 2
    assert not (tmp_path / "school_planning.json").exists()  # nothing written on bad input


@pytest.mark.parametrize(
    ("geometric", "lower", "upper", "check", "verdict"),
    [
        ("3.2320400232", "2.3219", "2.3260", "passed", "REFUTED"),  # this project's numbers
        ("3.2210000000", "2.4790", "2.4810", "passed", "PROVED"),  # had the paper been right
        ("3.2210000000", "2.4790", "2.4810", ["tampered"], "UNKNOWN"),  # a certificate that fails
    ],
)
def test_sy_e1_verdict_logic(
    monkeypatch: pytest.MonkeyPatch, geometric: str, lower: str, upper: str, check: Any, verdict: str
) -> None:
    import mechlib.proofs.sy.example_1 as se

    report = {
        "geometric": {"loss": geometric},
        "optimum (permutation-invariant = all, SY Prop. 5)": {
            "lower": lower,
            "upper": upper,
            "certificate check": check,
        },
    }
    monkeypatch.setattr(se, "figures", lambda: report)
    assert school_planning_figures().verdict.value == verdict


def test_sy_e1_rests_on_a_rechecked_bracket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stored bracket is re-checked, not solved again; a tampered one, or one for another
    question, is solved again (study, here a stand-in) and never trusted."""
    import mechlib.proofs.sy.example_1 as se
    from mechlib.proofs.shared import universal_cache

    packaged = universal_cache.read(universal_cache.PACKAGED / se.BRACKET)
    monkeypatch.setenv("MECHLIB_CACHE", str(tmp_path))
    monkeypatch.delenv("MECHLIB_SEARCH", raising=False)
    calls: list[object] = []

    def solved(**kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        calls.append(kwargs)
        failures = kwargs["check_certificate"](packaged)
        return {se.BEST: {"certificate check": failures or "passed"}}, packaged

    monkeypatch.setattr(se, "study", solved)
    assert se.figures()["certificate"]["certificate"] == f"package: {se.BRACKET}" and not calls
    monkeypatch.setattr(universal_cache, "PACKAGED", tmp_path / "elsewhere")
    for change in ({"upper": "2"}, {"grid_step": "1/3"}):
        universal_cache.write(tmp_path / "certificates" / se.BRACKET, {**packaged, **change})
        report = se.figures()
        assert "rejected" in report["certificate"] and len(calls) == 1
        assert universal_cache.read(tmp_path / "certificates" / se.BRACKET) == packaged  # replaced
        calls.clear()
    monkeypatch.setenv("MECHLIB_SEARCH", "1")
    assert "forced" in se.figures()["certificate"] and len(calls) == 1
