"""White-box audit certificates: produced by `mechlib audit`, re-checked by the independent
checker, tampering rejected; custom users, module:function sources, Markdown/HTML reports."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import textwrap
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mechlib.audit.loading import load_mechanism
from mechlib.audit.report import render_html, render_markdown
from mechlib.audit.whitebox import audit
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.cli import main
from mechlib.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures"


def _report(name: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(json.dumps(audit(load_mechanism(FIXTURES / name))))
    return report


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_every_fixture_certificate_rechecks(name: str) -> None:
    assert check_certificate(_report(name), (FIXTURES / name).read_bytes()) == []


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["dp_level"], "2/3", "is not 2/3-DP"),
        (["dp_level"], "1/3", "does not attain the DP level"),
        (["mechanism", "matrix", "numerators", 0, 0], "0", "not row-stochastic"),
        (["mechanism", "matrix", "denominators", 1], "a", "not row-stochastic"),
        (["witness", "inputs"], [3, 0], "witness"),
        (["derivation", "violation", "inverse_row", 0], "5", "non-derivability"),
        (["dominance", "remap", "denominators", 0], "7", "dominance remap"),
        (["dominance", "remap"], "derivation", "no checked derivation"),
        (["derivation"], {"status": "skipped", "reason": "hidden", "decide": "x"}, "decidable"),
        (["derivation"], {"status": "not applicable", "reason": "hidden"}, "decidable"),
        (["dominance"], {"status": "skipped", "reason": "hidden", "decide": "x"}, "skipped although"),
        (["dominance"], {"status": "not applicable", "reason": "hidden"}, "although it is defined"),
        (["user_losses"], {"status": "skipped", "reason": "hidden", "decide": "x"}, "skipped although"),
        (["claimed", "holds"], False, "claimed"),
        (["user_losses", "users", 0, "optimum"], "1/100", "optimality certificate"),
        (["user_losses", "users", 0, "dual", 0], "0", "optimality certificate"),
        (["user_losses", "users", 1, "mechanism"], "0", "optimal remap"),
        (["schema"], "mechlib.audit/1", "schema"),
        (["user_losses", "users", 0, "optimal_remap", "0"], 3, "optimal remap"),
        (["user_losses", "users", 0, "t_optimal_remap", "0"], 3, "recorded remap"),
    ],
)
def test_tampered_certificates_are_rejected(path: list[Any], value: Any, message: str) -> None:
    cert = copy.deepcopy(_report("gs_appendix_b.json"))
    node = cert
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    failures = check_certificate(cert)
    assert failures and any(message in f for f in failures), failures


def test_a_derivable_certificate_checks_its_remap() -> None:
    cert = _report("truncated_geometric_half_5.json")
    assert cert["derivation"]["status"] == "derivable" and check_certificate(cert) == []
    assert cert["dominance"]["remap"] == "derivation"  # Y∘T = M: the derivation dominates, no LP
    remap = cert["derivation"]["remap"]
    assert remap["columns"][0] == [0]  # T's own derivation is the identity, written sparsely
    remap["columns"][0] = [1]  # still stochastic, no longer T⁻¹M
    failures = check_certificate(cert)
    assert any("T·Y = M" in f for f in failures) and any("no checked derivation" in f for f in failures)


def test_cli_audit_writes_certificate_and_reports_and_check_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = FIXTURES / "gs_appendix_b.json"
    prior = tmp_path / "skewed.json"
    prior.write_text('["1/2", "1/4", "1/8", "1/8"]')
    loss = tmp_path / "cost.csv"
    loss.write_text("0,1,2,3\n1,0,1,2\n2,1,0,1\n3,2,1,0\n")
    cert = tmp_path / "cert.json"
    code = main(
        ["audit", str(src), "-o", str(cert), "--prior", str(prior), "--loss", str(loss), "--report-dir", str(tmp_path)]
    )
    assert code == 0
    report = json.loads(cert.read_text())
    users = {(u["prior_name"], u["loss_name"]) for u in report["user_losses"]["users"]}
    assert ("skewed", "cost") in users
    assert main(["check", str(cert), str(src)]) == 0
    assert main(["check", str(cert), str(FIXTURES / "decimals.json")]) == 1  # another file: SHA-256
    html = (tmp_path / "gs_appendix_b.audit.html").read_text()
    assert "<script" not in html and "http" not in html.split("</title>")[1] and "heat" in html
    assert "| derivable from T | no" in (tmp_path / "gs_appendix_b.audit.md").read_text()
    capsys.readouterr()
    assert main(["audit", str(src), "--prior", str(prior)]) == 2
    assert "--prior and --loss go together" in capsys.readouterr().err


def test_cli_audit_of_a_python_callable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "my_mech.py").write_text(
        textwrap.dedent(
            """
            from mechlib import truncated_geometric

            def t():
                return truncated_geometric("1/3", 4)

            def matrix():
                return {"matrix": [["2/3", "1/3"], ["1/3", "2/3"]], "claimed_epsilon": "1"}

            def broken():
                raise RuntimeError("no database")
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "my_mech:t", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dp_level"] == "1/3"
    assert main(["audit", "my_mech:matrix", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "PASS"
    assert main(["audit", "my_mech:broken"]) == 2
    assert "raised RuntimeError: no database" in capsys.readouterr().err
    assert main(["audit", "no_such_module:f"]) == 2
    assert "cannot import module" in capsys.readouterr().err
    assert main(["audit", "my_mech:missing"]) == 2


def test_markdown_and_html_render_every_fixture() -> None:
    for path in FIXTURES.iterdir():
        report = _report(path.name)
        assert report["dp_level"] in render_markdown(report)
        assert render_html(report).startswith("<!doctype html>")


def _chromium(page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _blackbox_page() -> str:
    from mechlib.audit.adapters import sampler
    from mechlib.audit.blackbox import blackbox_result, sample_phases
    from mechlib.audit.report import render_blackbox_html

    phases = sample_phases(sampler("mechlib:truncated_geometric", 3, Fraction(1)), 3, 3000, 0)
    result = blackbox_result(
        spec="mechlib:truncated_geometric", library="mechlib", n=3, samples=3000, seed=0, seconds=1.0,
        phases=phases, epsilon=Fraction(1, 2), alpha_fa="0.05",
    )  # fmt: skip
    return render_blackbox_html(result, None)


def _verify_page() -> str:
    """The committed verify report's page (rendered from the committed verify.json)."""
    from mechlib.rendering import render
    from mechlib.verify import _report_context

    doc = json.loads((Path(__file__).parents[1] / "reports" / "verify.json").read_text())
    return render("verify.html", **_report_context(doc))


@pytest.mark.browser
@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="headless Chromium (Debian package chromium) is not installed"
)
@pytest.mark.parametrize(
    ("kind", "texts"),
    [
        ("audit", ["Audit of GS Appendix B", "PASS", "derivable from T", "Signature at α = 1/2", "mechlib check"]),
        ("blackbox", ["Black-box audit of mechlib:truncated_geometric", "violation", "count 3", "mechlib check"]),
        ("verify", ["mechlib verify", "GS-T2", "NO COUNTEREXAMPLE", "ALL-n", "Mutants that must be killed"]),
    ],
)
def test_each_html_report_kind_renders_in_headless_chromium(tmp_path: Path, kind: str, texts: list[str]) -> None:
    """The page renders with no console error, shows its text (the DOM after rendering), keeps its
    styles, and no Markdown is left raw (a line starting '# ')."""
    page = tmp_path / f"{kind}.html"
    pages = {"audit": lambda: render_html(_report("gs_appendix_b.json")), "blackbox": _blackbox_page,
             "verify": _verify_page}  # fmt: skip
    page.write_text(pages[kind]())
    shot = tmp_path / "shot.png"
    done = _chromium(page, f"--screenshot={shot}", "--window-size=1100,1400")
    assert done.returncode == 0 and shot.stat().st_size > 1000
    assert "Uncaught" not in done.stderr and ":ERROR:CONSOLE" not in done.stderr
    dom = _chromium(page, "--dump-dom").stdout
    assert all(text in dom for text in texts), [t for t in texts if t not in dom]
    assert "<style>" in dom and 'class="verdict' in dom and "Terms used on this page" in dom
    assert not any(line.lstrip().startswith("# ") for line in dom.splitlines())


REMAPS_OF_T = """
from fractions import Fraction as F

from mechlib import truncated_geometric
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose

N = 12


def _of_t(rows):
    return compose(Remap(rows, inputs=range(N + 1), outputs=range(N + 1)), truncated_geometric("1/3", N))


def clamp():  # outputs 0 and N folded inward: one nonzero a row
    return _of_t([[F(int(j == min(max(s, 1), N - 1))) for j in range(N + 1)] for s in range(N + 1)])


def banded():  # (1/4, 1/2, 1/4) around s, the ends lumped: ≤ 3 nonzeros a row
    rows = [[F(0)] * (N + 1) for _ in range(N + 1)]
    for s in range(N + 1):
        for d, w in ((-1, F(1, 4)), (0, F(1, 2)), (1, F(1, 4))):
            rows[s][min(max(s + d, 0), N)] += w
    return _of_t(rows)


def spread():  # output 0 kept, every other output spread over 1..N: a dense derivation, α still 1/3
    return _of_t([[F(1)] + [F(0)] * N if s == 0 else [F(0)] + [F(1, N)] * N for s in range(N + 1)])
"""


@pytest.mark.parametrize(("name", "product"), [("clamp", True), ("banded", True), ("spread", False)])
def test_a_sparse_derivation_is_the_certificates_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, product: bool
) -> None:
    """M = T·Y is written as (t_alpha, Y) when Y is sparse; the checker rebuilds T·Y itself, so it
    must equal SOURCE's matrix, and a consistently forged Y describes another mechanism."""
    (tmp_path / "remaps_of_t.py").write_text(REMAPS_OF_T)
    monkeypatch.chdir(tmp_path)
    source, cert = f"remaps_of_t:{name}", tmp_path / "cert.json"
    assert main(["audit", source, "-o", str(cert)]) == 0
    report = json.loads(cert.read_text())
    assert report["derivable"] and ("t_alpha" in report["mechanism"]["matrix"]) is product
    assert main(["check", str(cert), source]) == 0
    if not product:
        return
    assert report["mechanism"]["matrix"]["remap"] == report["derivation"]["remap"]
    forged = copy.deepcopy(report)
    columns = forged["mechanism"]["matrix"]["remap"]["columns"]
    columns[5], columns[6] = columns[6], columns[5]  # rows 5 and 6 of Y swapped: still stochastic
    forged["derivation"]["remap"] = forged["mechanism"]["matrix"]["remap"]
    cert.write_text(json.dumps(forged))
    capsys.readouterr()
    assert main(["check", str(cert), source]) == 1
    assert "FAIL mechanism.matrix differs from SOURCE's" in capsys.readouterr().out


@pytest.mark.parametrize("alpha", ["1/2", "1/3", "2/3", "1/1000", "999/1000"])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 40])
def test_the_checkers_t_is_t_and_exactly_alpha_dp(alpha: str, n: int) -> None:
    """What the checker's T·Y shortcut assumes: its own T (built from the formula, apart from the
    producer) equals the producer's T entry by entry and has DP level exactly α (GRS Example 2.2)."""
    from mechlib import truncated_geometric
    from mechlib.checkers.fields import Q
    from mechlib.checkers.standard_users import t_rows
    from mechlib.core.mechanism import Mechanism
    from mechlib.core.privacy import dp_level

    a = Fraction(alpha)
    ours = t_rows(Q(a.numerator, a.denominator), n)
    mine = Mechanism.from_scaled(ours.num, ours.den)
    assert mine == truncated_geometric(alpha, n) and dp_level(mine).alpha == Fraction(alpha)


def test_fractions_are_limited_per_integer_in_both_parsers() -> None:
    """MAX_DIGITS bounds each integer of "p/q" (a certified optimum at n = 5000 has ~2400-digit
    numerators and denominators), in the producer's parser and the checker's alike."""
    from mechlib.checkers.numbers import exact
    from mechlib.core.exact import MAX_DIGITS, to_fraction

    fits = "7" * MAX_DIGITS + "/" + "9" * MAX_DIGITS
    assert exact(fits) == to_fraction(fits) == Fraction(int("7" * MAX_DIGITS), int("9" * MAX_DIGITS))
    too_long = "7" * (MAX_DIGITS + 1) + "/9"
    with pytest.raises(ValueError, match="beyond the limits"):
        exact(too_long)
    with pytest.raises(InputError, match="digits"):
        to_fraction(too_long)


@pytest.mark.parametrize(("n", "decided"), [(12, True), (200, False)])
def test_users_are_skipped_where_their_numbers_would_pass_the_digit_limit(
    monkeypatch: pytest.MonkeyPatch, n: int, decided: bool
) -> None:
    """The producer decides the users only where every number of their certificate stays within
    MAX_DIGITS (here 60: T at α = 1/2 has 2^n in its denominators), and the checker, with its own
    bound, accepts the skip exactly there — a certificate it could not read is never written."""
    import mechlib.checkers.numbers
    import mechlib.core.exact
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.core.families import truncated_geometric

    monkeypatch.setattr(mechlib.core.exact, "MAX_DIGITS", 60)
    monkeypatch.setattr(mechlib.checkers.numbers, "MAX_DIGITS", 60)
    report = json.loads(json.dumps(audit(LoadedMechanism(truncated_geometric("1/2", n), "t", "python", "0" * 64))))
    users = report["user_losses"]
    assert (users["status"] == "certified") is decided
    assert decided or "60 digits" in users["reason"]
    assert check_certificate(report) == []
    forged = copy.deepcopy(report)
    forged["user_losses"] = (
        {"status": "skipped", "reason": "too big", "decide": "x"} if decided else report["user_losses"]
    )
    assert not decided or any("skipped although" in f for f in check_certificate(forged))
    assert report["unknown"] == ([] if decided else ["user_losses"])
    hidden = {**report, "unknown": []}  # a skip cannot be left out of the undecided findings
    assert decided or any("unknown is" in f for f in check_certificate(hidden))


def test_a_dp_level_above_the_mechanisms_is_rejected_over_long_row_denominators() -> None:
    """The exponential mechanism's rows have different ≈ 100-bit denominators, so the checker
    settles most cells of its DP check by floats first (``_unsettled``): a claimed level 10⁻⁴⁰ above
    the true one still fails there, exactly."""
    from mechlib import exponential
    from mechlib.audit.loading import LoadedMechanism

    report = json.loads(json.dumps(audit(LoadedMechanism(exponential("1/2", 60), "exp", "python", "0" * 64))))
    assert check_certificate(report) == []
    alpha = Fraction(report["dp_level"])
    report["dp_level"] = str(alpha * (1 + Fraction(1, 10**40)))
    assert any(f"is not {report['dp_level']}-DP" in failure for failure in check_certificate(report))


def test_the_float_screen_of_the_dp_check_leaves_a_violation_by_one_part_in_10_to_the_300_to_exact_integers() -> None:
    """``_dp_violation`` drops cells by floats only where the float estimate is 10⁻¹² clear of the
    bound: a level 10⁻³⁰⁰ above the true one (far below a float's resolution) still fails, on the
    float path (rows below 2¹⁰²⁴) and on the exact path (a row past the float range)."""
    from mechlib import exponential
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.checkers.audit_certificate import _dp_violation, _int_rows
    from mechlib.checkers.fields import Q

    report = json.loads(json.dumps(audit(LoadedMechanism(exponential("1/2", 60), "exp", "python", "0" * 64))))
    m = _int_rows(report["mechanism"]["matrix"], "m", 61, 61)
    path = [(i, i + 1) for i in range(60)]
    alpha = Q(*Fraction(report["dp_level"]).as_integer_ratio())
    assert _dp_violation(m, path, alpha) is None
    above = alpha * (1 + Q(1, 10**300))
    assert _dp_violation(m, path, above) is not None
    wide = type(m)([d << 1100 for d in m.den], [[a << 1100 for a in row] for row in m.num])  # past 2¹⁰²⁴
    assert _dp_violation(wide, path, alpha) is None
    assert _dp_violation(wide, path, above) is not None


@pytest.mark.parametrize(
    "row",
    [
        ["0x1"], ["1_0"], ["+1"], [" 1"], ["1 "], ["A"], [""], ["1", ""], ["", "1"], ["1,2"], ["1", "2,"],
        [",1"], ["1", "٣"], ["1", "ｆ"], ["1", "-2"], ["1", 2], ["1", None], ["1" * 5000],
    ],
)  # fmt: skip
def test_a_hex_row_is_refused_entry_by_entry_as_each_entry_alone_would_be(row: list[Any]) -> None:
    """The one-pass validation of a row (``_hex_row``) takes exactly what ``_hex`` takes per entry:
    a prefix, separator, sign, space, capital, empty entry, comma inside an entry, non-ASCII digit,
    non-string or over-long entry is refused, naming the entry."""
    from mechlib.checkers.audit_certificate import _hex_row
    from mechlib.checkers.fields import Malformed

    with pytest.raises(Malformed, match=r"row\[\d\]: expected at most"):
        _hex_row(row, "row")


def test_a_hex_row_of_valid_entries_is_read_exactly() -> None:
    from mechlib.checkers.audit_certificate import _hex_row

    row = ["0", "f", "00ff", "1" * 4000, "abcdef0123456789"]
    assert _hex_row(row, "row") == [int(t, 16) for t in row]
    assert _hex_row([], "row") == []


def test_the_float_screen_keeps_a_cell_whose_neighbour_is_zero() -> None:
    """x[i][r] > 0 = x[i′][r] violates every α > 0; over long row denominators (the float path) the
    screen's estimate is ∞ there, and the cell is compared exactly, not dropped."""
    from mechlib.checkers.audit_certificate import _dp_violation
    from mechlib.checkers.fields import IntRows, Q

    m = IntRows([3**80, 7**60], [[3**80 - 1, 1], [7**60, 0]])
    assert _dp_violation(m, [(0, 1)], Q(1, 2)) == (0, 1, 1)
    assert _dp_violation(IntRows(m.den, [[3**80, 0], [7**60, 0]]), [(0, 1)], Q(1, 2)) is None
