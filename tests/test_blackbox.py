"""Black-box audit: verified Clopper–Pearson bounds, the exact conditional ε test, conformance, bad
samplers."""

from __future__ import annotations

import itertools
import json
import textwrap
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import flint
import pytest

from mechlib.audit.blackbox import (
    Sampler,
    complete_neighbours,
    conformance_test,
    path_neighbours,
    sample_counts,
)
from mechlib.audit.ratio_test import dp_test, tail_at_most
from mechlib.audit.statistics import cp_lower, cp_upper
from mechlib.checkers.ratio_test import rejects
from mechlib.cli import main

SAMPLERS = """
import math

def _t(alpha, n, count, rng):
    rows = [(1 if r in (0, n) else 1 - alpha) / (1 + alpha) * alpha ** abs(count - r) for r in range(n + 1)]
    return int(rng.choice(n + 1, p=rows))

def loose(count, rng):          # T at ε = 2 on 0..3
    return _t(math.exp(-2), 3, count, rng)

def tight(count, rng):          # T at α = 1/2 (ε = ln 2) on 0..3
    return _t(0.5, 3, count, rng)

def wrong_spec(count, rng):     # T at α = 3/4: ln(4/3)-DP, so 0.7-DP too, but not the pmf of T at α = 1/2
    return _t(0.75, 3, count, rng)

def rare_output(count, rng):    # fair coin, plus output 99 with probability 1/10^4 under count 3 only: ε = ∞
    if count == 3 and rng.random() < 1e-4:
        return 99
    return int(rng.random() < 0.5)

def not_an_int(count, rng):
    return "three"

def raises(count, rng):
    raise RuntimeError("database offline")
"""


@pytest.fixture
def samplers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "my_samplers.py").write_text(textwrap.dedent(SAMPLERS))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (5, 10), (10, 10), (37, 1000), (999, 1000)])
def test_clopper_pearson_bounds_are_verified_and_ordered(k: int, n: int) -> None:
    delta = 0.001
    low, up = cp_lower(k, n, delta), cp_upper(k, n, delta)
    assert 0 <= low <= Fraction(k, n) <= up <= 1
    flint.ctx.prec = 128
    if k > 0:
        assert flint.arb(flint.fmpq(low.numerator, low.denominator)).beta_lower(k, n - k + 1, regularized=True) <= delta
    if k < n:
        tail = 1 - flint.arb(flint.fmpq(up.numerator, up.denominator)).beta_lower(k + 1, n - k, regularized=True)
        assert tail <= delta


def _phases(counts: list[dict[int, int]]) -> tuple[list[dict[int, int]], list[dict[int, int]]]:
    """Deterministic phases: a quarter of each count's hits for selection, the rest for the test."""
    selection = [{s: k // 4 for s, k in h.items() if k // 4} for h in counts]
    return selection, [{s: k - k // 4 for s, k in h.items()} for h in counts]


def test_dp_test_on_exact_counts() -> None:
    """Deterministic histograms: 1.5× between neighbours passes ε = 1, 9× fails ε = 1/2."""
    counts = [{0: 6000, 1: 4000}, {0: 4000, 1: 6000}]
    assert dp_test(_phases(counts), Fraction(1), "0.05", path_neighbours(1))["verdict"] == "no violation found"
    bad = dp_test(_phases([{0: 9000, 1: 1000}, {0: 1000, 1: 9000}]), Fraction(1, 2), "0.05", path_neighbours(1))
    assert bad["verdict"] == "violation" and bad["violation"]["inputs"] in ([0, 1], [1, 0])
    assert float(bad["epsilon_lower_bound"]["epsilon"]) > 2


def _tail(k: int, m: int, theta: Fraction) -> Fraction:
    """P(Bin(m, θ) ≥ k) as an exact rational."""
    from math import comb

    return sum((comb(m, j) * theta**j * (1 - theta) ** (m - j) for j in range(max(k, 0), m + 1)), Fraction(0))


@pytest.mark.parametrize("m", [1, 2, 7, 40, 150])
def test_tail_decisions_agree_with_the_exact_binomial_tail(m: int) -> None:
    """The producer's and the checker's arb decisions of P(Bin(m, θ) ≥ k) ≤ level are the exact
    answer (levels placed right below and above the tail, where a sloppy bound would flip)."""
    for theta in (Fraction(1, 2), Fraction(27183, 37183), Fraction(9, 10)):
        for k in range(m + 2):
            tail = _tail(k, m, theta)
            for level in (tail * Fraction(999, 1000), tail * Fraction(1001, 1000), Fraction(1, 1000)):
                if 0 < level < Fraction(1, 2):
                    assert tail_at_most(k, m, theta, level) == (tail <= level) == rejects(k, m, theta, level)


def test_sampling_validates_outputs() -> None:
    def short(count: int, size: int, rng: object) -> list[int]:
        return [0] * (size - 1)

    from mechlib.errors import InputError

    with pytest.raises(InputError, match="returned 9 values for 10"):
        sample_counts(Sampler("short", short), 1, 10, 0)


def test_cli_blackbox_flags_a_loose_sampler_and_passes_a_tight_one(
    samplers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["blackbox", "my_samplers:loose", "--n", "3", "--epsilon", "1", "--samples", "4000", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["dp"]["verdict"] == "violation" and result["schema"] == "mechlib.blackbox/9"
    assert main(["blackbox", "my_samplers:tight", "--n", "3", "--epsilon", "0.7", "--samples", "4000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dp"]["verdict"] == "no violation found"


def test_cli_blackbox_conformance_catches_a_sampler_off_its_spec(
    samplers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mechlib import truncated_geometric

    pmf = samplers / "t_half.json"
    pmf.write_text(json.dumps({"matrix": truncated_geometric("1/2", 3).to_strings()}))
    args = [
        "--n",
        "3",
        "--epsilon",
        "0.7",
        "--samples",
        "4000",
        "--pmf",
        str(pmf),
        "--seed",
        "2",
        "--json",
    ]  # seed 0: a 5% false alarm
    assert main(["blackbox", "my_samplers:tight", *args]) == 0
    assert json.loads(capsys.readouterr().out)["conformance"]["verdict"] == "conformant"
    assert main(["blackbox", "my_samplers:wrong_spec", *args]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["dp"]["verdict"] == "no violation found" and result["conformance"]["verdict"] == "nonconformant"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("my_samplers:not_an_int", "returned 'three'"),
        ("my_samplers:raises", "raised RuntimeError: database offline"),
        ("my_samplers:missing", "no callable 'missing'"),
        ("nowhere:f", "cannot import module"),
        ("diffprivlib:Laplace", "unknown adapter"),
        ("opendp", "unknown adapter"),
        ("just_a_name", "expected module:function"),
    ],
)
def test_cli_blackbox_bad_samplers_exit_2(
    samplers: Path, capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    assert main(["blackbox", spec, "--n", "2", "--epsilon", "1", "--samples", "10"]) == 2
    assert message in capsys.readouterr().err


def test_cli_blackbox_out_of_range_output_exits_2(samplers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["blackbox", "my_samplers:tight", "--n", "3", "--epsilon", "1", "--samples", "50"]
    assert main([*args, "--range", "0:3"]) == 0
    capsys.readouterr()
    assert main([*args, "--range", "0:1"]) == 2
    assert "expected outputs in 0..1" in capsys.readouterr().err
    assert main([*args, "--range", "zero"]) == 2


def test_conformance_needs_matching_rows() -> None:
    from mechlib.errors import InputError

    with pytest.raises(InputError, match="2 rows for 1 inputs"):
        conformance_test([{0: 1}], [{0: Fraction(1)}, {0: Fraction(1)}])


ADAPTER_SPECS = [
    "mechlib:truncated_geometric",
    "diffprivlib:GeometricTruncated",
    "diffprivlib:GeometricFolded",
    "diffprivlib:Exponential",
    "opendp:make_geometric",
    "opendp:make_laplace",
    "opendp:make_randomized_response",
    "pydp:LaplaceMechanism",
]


@pytest.mark.parametrize("spec", ADAPTER_SPECS)
def test_adapters_pass_at_their_own_epsilon(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    library = spec.split(":")[0]
    if library != "mechlib":
        modules = {"diffprivlib": "diffprivlib.mechanisms", "opendp": "opendp.prelude", "pydp": "pydp"}
        pytest.importorskip(modules[library])
    # OpenDP and PyDP are unseeded and exactly at their ε: a level-α_FA test flags such a mechanism up to
    # α_FA of the time, so the test uses α_FA = 10⁻⁶ (no flaky failures), not the default 5%
    argv = ["blackbox", spec, "--n", "3", "--epsilon", "1", "--samples", "2000", "--seed", "1", "--alpha-fa", "1e-6"]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["dp"]["verdict"] == "no violation found" and result["samples_per_second"] > 0


def test_a_claim_other_than_the_library_setting_is_tested(capsys: pytest.CaptureFixture[str]) -> None:
    """Configured at ε = 2 and claimed at 1: the library is not 1-DP, and the test says so; the
    configuration is recorded; --library-epsilon needs an adapter."""
    argv = ["blackbox", "mechlib:truncated_geometric", "--n", "3", "--samples", "20000", "--json"]
    assert main([*argv, "--epsilon", "1", "--library-epsilon", "2"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["dp"]["verdict"] == "violation" and result["sampler"]["configured"] == {"epsilon": "2"}
    assert main(["blackbox", "mechlib:truncated_geometric", "--n", "3", "--epsilon", "map"]) == 2
    assert "--library-epsilon" in capsys.readouterr().err


def test_opendp_privacy_map_is_the_claim(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("opendp.prelude")
    argv = ["blackbox", "opendp:make_laplace", "--n", "3", "--samples", "5000", "--alpha-fa", "1e-6", "--json"]
    assert main([*argv, "--epsilon", "map", "--library-epsilon", "1/2"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["dp"]["epsilon"] == "1/2" and result["sampler"]["configured"]["map_epsilon"] == 0.5
    assert (
        main(["blackbox", "opendp:make_randomized_response_bool", "--n", "1", "--epsilon", "1", "--alpha-fa", "1e-6"])
        == 0
    )
    capsys.readouterr()


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    real = importlib.import_module

    def fake(name: str, *args: object) -> object:
        if name.startswith(("diffprivlib", "opendp")):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", fake)
    assert main(["blackbox", "diffprivlib:GeometricTruncated", "--n", "2", "--epsilon", "1", "--samples", "5"]) == 2
    assert "pip install 'mechlib[adapters]'" in capsys.readouterr().err


def test_blackbox_result_rechecks_and_reports(samplers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mechlib import truncated_geometric
    from mechlib.checkers.blackbox_result import check_result

    out = samplers / "loose.json"
    base = ["--n", "3", "--epsilon", "1", "--samples", "3000", "-o", str(out), "--report-dir", str(samplers)]
    assert main(["blackbox", "my_samplers:loose", *base]) == 1
    # the headline of every report is what the sample proves: the certified lower bound on ε
    assert capsys.readouterr().out.startswith("ε bound    the true ε is at least ")
    result = json.loads(out.read_text())
    assert check_result(result) == [] and main(["check", str(out)]) == 0
    markdown = (samplers / "my_samplers_loose.blackbox.md").read_text().split("\n\n")
    assert markdown[0].startswith("# Black-box audit") and markdown[1].startswith("**The true ε is at least ")
    html = (samplers / "my_samplers_loose.blackbox.html").read_text()
    assert "<script" not in html and "count 3" in html
    assert (
        html.split("<h1>", 1)[1]
        .split("</h1>\n", 1)[1]
        .startswith('<div class="headline"><p><strong>The true ε is at least ')
    )
    tampered = json.loads(json.dumps(result))
    tampered["dp"]["violation"]["inputs"] = tampered["dp"]["violation"]["inputs"][::-1]
    assert check_result(tampered)
    tampered = json.loads(json.dumps(result))
    tampered["dp"]["violation"]["counts"][0] += 1
    assert any("violation" in f for f in check_result(tampered))
    pmf = samplers / "t_half.json"
    pmf.write_text(json.dumps({"matrix": truncated_geometric("1/2", 3).to_strings()}))
    wrong = samplers / "wrong.json"
    args = ["--n", "3", "--epsilon", "0.7", "--samples", "4000", "--seed", "2", "--pmf", str(pmf), "-o", str(wrong)]
    assert main(["blackbox", "my_samplers:wrong_spec", *args, "--report-dir", str(samplers)]) == 1
    assert check_result(json.loads(wrong.read_text())) == []
    assert "claimed (grey)" in (samplers / "my_samplers_wrong_spec.blackbox.html").read_text()
    capsys.readouterr()


def test_an_output_one_neighbour_never_produces_is_the_headline(
    samplers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue: a sampler whose ε is infinite (output 99 under count 3 only, p = 10⁻⁴) read "no
    violation found … an excess of ≈0.02 would be flagged". With a few sightings it is shown as
    one-sided, with no power statement; at 3·10⁵ samples per count the conditional test flags it
    (31 of 31 hits under one count: the old test needed 10⁶)."""
    from mechlib.checkers.blackbox_result import check_result

    out = samplers / "rare.json"
    args = ["--n", "4", "--epsilon", "1", "--samples", "30000", "--seed", "2", "-o", str(out)]
    assert main(["blackbox", "my_samplers:rare_output", *args]) == 0
    text = capsys.readouterr().out
    assert "one-sided  output 99: seen" in text and "ε = ∞" in text and "would be flagged" not in text
    result = json.loads(out.read_text())
    shown = result["dp"]["one_sided"]["shown"]
    assert {(o["output"], o["seen_under"], o["never_under"]) for o in shown} == {(99, 3, 2), (99, 3, 4)}
    assert check_result(result) == []
    result["dp"]["one_sided"]["shown"].pop()
    assert any("one_sided" in f for f in check_result(result))
    args = ["--n", "4", "--epsilon", "1", "--samples", "300000", "--seed", "1", "-o", str(out)]
    assert main(["blackbox", "my_samplers:rare_output", *args]) == 1
    result = json.loads(out.read_text())
    assert result["dp"]["violation"]["event"] == {"outputs": [99]} and check_result(result) == []
    capsys.readouterr()


def test_the_certified_lower_bound_on_epsilon_is_checked(samplers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """T at ε = 2 tested against ε = 1: a violation, and ε ≥ (a certified bound in (1, 2]); forging a
    larger bound, or hiding it, is rejected."""
    from mechlib.checkers.blackbox_result import check_result

    out = samplers / "loose.json"
    args = ["--n", "3", "--epsilon", "1", "--samples", "20000", "--seed", "3", "-o", str(out)]
    assert main(["blackbox", "my_samplers:loose", *args]) == 1
    assert "the true ε is at least" in capsys.readouterr().out
    result = json.loads(out.read_text())
    bound = result["dp"]["epsilon_lower_bound"]
    assert 1 < float(bound["epsilon"]) <= 2 and check_result(result) == []
    forged = json.loads(json.dumps(result))
    forged["dp"]["epsilon_lower_bound"]["epsilon"] = "2.500000"
    assert any("does not follow" in f for f in check_result(forged))
    hidden = json.loads(json.dumps(result))
    hidden["dp"]["epsilon_lower_bound"] = None
    assert any("is null" in f for f in check_result(hidden))


def test_neighbours_complete_tests_every_pair_of_counts(samplers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """T at α = 1/2 is ln 2-DP between adjacent counts but only ln 8-DP between 0 and 3: with
    --neighbours complete (what a categorical mechanism claims) the far pair is flagged, and the
    result records its pairs for the checker."""
    from mechlib.checkers.blackbox_result import check_result

    out = samplers / "complete.json"
    args = ["--n", "3", "--epsilon", "0.7", "--samples", "20000", "--seed", "5", "-o", str(out)]
    assert main(["blackbox", "my_samplers:tight", *args]) == 0
    assert json.loads(out.read_text())["neighbours"] == [[0, 1], [1, 2], [2, 3]]
    assert main(["blackbox", "my_samplers:tight", *args, "--neighbours", "complete"]) == 1
    result = json.loads(out.read_text())
    assert len(result["neighbours"]) == 6 and check_result(result) == []
    v = result["dp"]["violation"]
    assert abs(v["inputs"][0] - v["inputs"][1]) > 1
    fewer = json.loads(json.dumps(result))
    fewer["neighbours"] = [[0, 1], [1, 2], [2, 3]]  # the violation is no longer between neighbours
    assert check_result(fewer)
    capsys.readouterr()


def test_a_bad_neighbours_file_is_one_line(samplers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = samplers / "pairs.json"
    pairs.write_text("[[0, 1], [1, 1]]")
    assert main(["blackbox", "my_samplers:tight", "--n", "3", "--epsilon", "1", "--neighbours", str(pairs)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pair 1 is [1, 1]" in err and "pairs.json" in err


def _histogram_strategy() -> Any:
    from hypothesis import strategies as st

    return st.dictionaries(st.integers(-2, 4), st.integers(1, 40), max_size=5)


def test_every_produced_result_checks_on_arbitrary_small_phases() -> None:
    """Whatever the histograms (empty phases, one-sided outputs, ties, tiny counts) and the claim,
    the producer's result passes the independent checker: the two agree on every rejection and on
    when the ε bound may be null."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mechlib.audit.blackbox import blackbox_result
    from mechlib.checkers.blackbox_result import check_result

    @settings(max_examples=60, deadline=None, database=None)
    @given(
        st.sampled_from([2, 3, 5]).flatmap(lambda n: st.tuples(*[_histogram_strategy()] * (2 * n + 2))),
        st.sampled_from(["1/10", "1/2", "1", "3"]),
        st.sampled_from(["0.05", "1/4", "49/100"]),
    )
    def check(histograms: Any, epsilon: str, alpha_fa: str) -> None:
        n = len(histograms) // 2 - 1  # n ≥ 3: the summed hypotheses join the family
        selection, test = list(histograms[: n + 1]), list(histograms[n + 1 :])
        result = blackbox_result(
            spec="x", library="mechlib", n=n, samples=10, seed=0, seconds=1.0, phases=(selection, test),
            epsilon=Fraction(epsilon), alpha_fa=alpha_fa,
        )  # fmt: skip
        assert check_result(json.loads(json.dumps(result))) == []

    check()


def _cells(parts: list[tuple[int, int, dict[str, Any]]], n: int) -> list[tuple[int, int]]:
    """The (count, output) cells a sum's parts read, over the outputs −1..n + 1 (every tail's edge)."""
    from mechlib.audit.blackbox_delta import event_hits

    return [
        (count, s) for i, j, event in parts for count in (i, j) for s in range(-1, n + 2) if event_hits({s: 1}, event)
    ]


def test_summed_hypotheses_never_share_a_cell() -> None:
    """The sums' validity rests on their parts' hits being independent Poisson variables: no (count,
    output) is read by two parts of a sum (nor twice by one). The checker's own list is the producer's;
    other neighbour relations get none. The disjointness test itself fails on /7's adjacent pairs summed
    on overlapping tails (a sum that would be invalid)."""
    from mechlib.audit.ratio_test import summed_hypotheses
    from mechlib.checkers.ratio_test import sums

    for n in range(1, 13):
        found = summed_hypotheses(path_neighbours(n), n)
        assert len(found) == (n >= 3) + 1 + (n >= 2)
        for parts in found:
            cells = _cells(parts, n)
            assert len(cells) == len(set(cells)) and all(abs(i - j) == 1 for i, j, _ in parts)
        both_orders = [pair for i, j in path_neighbours(n) for pair in ((i, j), (j, i))]
        assert sums(both_orders, n) == found
    overlapping = [(0, 1, {"at_most": 0}), (1, 2, {"at_most": 1})]  # count 1 reads s ≤ 0 twice
    assert len(set(_cells(overlapping, 2))) < len(_cells(overlapping, 2))
    assert summed_hypotheses(complete_neighbours(4), 4) == [] and summed_hypotheses([(0, 1), (1, 2), (2, 4)], 4) == []
    assert summed_hypotheses(path_neighbours(4), 5) == [] == sums([(0, 1), (1, 0)], 2)  # the path must span 0..n


def test_the_null_of_every_hypothesis_holds_for_dp_mechanisms() -> None:
    """θ₀ is a bound under the claim: for exact ε-DP mechanisms on the path (T at ε, and random ones),
    every pooled hypothesis's θ = P_i(E)/(P_i(E) + Σ_J P_j(E)) is at most 1/(1 + Σ_J t^(−d(i, j))),
    with equality somewhere for T (the bound is tight). A null that forgot group privacy's distances,
    1/(1 + Σ_J t^(−1)), fails it."""
    import random

    from mechlib import truncated_geometric
    from mechlib.audit.blackbox_delta import event_hits
    from mechlib.audit.ratio_test import exhaustive_events, graph_distances, hypothesis_inputs, null_theta

    def thetas(rows: list[dict[int, Fraction]], t: Fraction, wrong: bool = False) -> list[tuple[Fraction, Fraction]]:
        n = len(rows) - 1
        neighbours = path_neighbours(n)
        distance = graph_distances(neighbours)
        events = exhaustive_events([{s: 1 for s in row} for row in rows])
        found = []
        for i, js in hypothesis_inputs(neighbours):
            steps = [1 if wrong else distance[i][j] for j in js]
            for event in events:
                mass = [sum((p for s, p in row.items() if event_hits({s: 1}, event)), Fraction(0)) for row in rows]
                if mass[i]:
                    found.append((mass[i] / (mass[i] + sum(mass[j] for j in js)), null_theta(t, steps)))
        return found

    t = Fraction(2)  # α = 1/2: ε = ln 2, t = e^ε exactly
    mech = truncated_geometric(Fraction(1, 2), 4)
    exact = [dict(zip(mech.outputs, row, strict=True)) for row in mech.rows]
    assert all(theta <= bound for theta, bound in thetas(exact, t))
    assert any(theta == bound for theta, bound in thetas(exact, t))
    assert any(theta > bound for theta, bound in thetas(exact, t, wrong=True))
    rng = random.Random(5)
    for _ in range(30):  # random ln 2-DP rows: each row's weights within a factor 2 of its neighbour's
        first = [Fraction(rng.randint(1, 8)) for _ in range(5)]
        rows = [first]
        for _ in range(4):
            rows.append([w * Fraction(rng.randint(1, 4), 2) for w in rows[-1]])
        normalised = [{s: w / sum(row) for s, w in enumerate(row)} for row in rows]
        worst = max(max(a[s] / b[s], b[s] / a[s]) for a, b in itertools.pairwise(normalised) for s in a)
        assert all(theta <= bound for theta, bound in thetas(normalised, worst))


def test_a_sum_of_pairs_finds_what_no_single_hypothesis_can() -> None:
    """Clamping by resampling at 1000 samples per count (rounded expected counts): count 0 against 1
    on s ≤ 0 and count 5 against 4 on s ≥ 5 each fall short of the single hypotheses' level; their
    sum, 1268 of 1648 hits against θ₀ = e/(1 + e), does not at the sums' level. It re-checks; a forged
    sum does not."""
    from mechlib.audit.ratio_test import dp_test
    from mechlib.checkers.blackbox_result import check_result

    counts = [
        {0: 634, 1: 233, 2: 86, 3: 32, 4: 12, 5: 4},
        {0: 190, 1: 516, 2: 190, 3: 70, 4: 26, 5: 9},
        {0: 66, 1: 179, 2: 486, 3: 179, 4: 66, 5: 24},
    ]
    counts += [{5 - s: k for s, k in h.items()} for h in reversed(counts)]
    selection: list[dict[int, int]] = [{} for _ in range(6)]
    dp = dp_test((selection, counts), Fraction(1), "0.05", path_neighbours(5))
    assert dp["hypotheses"] == {"single": 16 * 14, "summed": 3} and dp["verdict"] == "violation"
    assert dp["violation"] == {
        "parts": [{"inputs": [0, 1], "event": {"at_most": 0}}, {"inputs": [5, 4], "event": {"at_least": 5}}],
        "counts": [1268, 380],
    }
    result = _result_of(selection, counts, dp)
    assert check_result(result) == []
    forgeries: list[Callable[[dict[str, Any]], object]] = [
        lambda v: v["counts"].__setitem__(0, 1300),
        lambda v: v["parts"][1].__setitem__("inputs", [4, 5]),
        lambda v: v["parts"].pop(),
    ]
    for forge in forgeries:
        forged = json.loads(json.dumps(result))
        forge(forged["dp"]["violation"])
        assert check_result(forged), forged["dp"]["violation"]
    even_level = json.loads(json.dumps(result))  # the sums' level given to the single hypotheses
    even_level["dp"]["per_bound_level"]["single"] = even_level["dp"]["per_bound_level"]["summed"]
    assert any("per_bound_level" in f for f in check_result(even_level))


def test_a_count_against_the_others_pooled_finds_what_no_pair_can() -> None:
    """An output seen under count 2 and never under the others: at α_FA = 0.01 each pair's test needs
    31 such hits (θ₀ = e/(1 + e) per hit), count 2 against its two neighbours pooled 18 (/7's pool,
    θ₀ = e/(e + 2)), against every other count pooled by group privacy 14 (θ₀ = 1/(1 + 2/e + 2/e²)).
    The pooled violation and its ε bound re-check; recorded as a pair they do not."""
    from mechlib.audit.ratio_test import dp_test
    from mechlib.checkers.blackbox_result import check_result

    base = {0: 500, 1: 300, 2: 200}
    counts = [dict(base) for _ in range(5)]
    selection: list[dict[int, int]] = [{} for _ in range(5)]
    counts[2][9] = 13
    assert dp_test((selection, counts), Fraction(1), "0.01", path_neighbours(4))["verdict"] == "no violation found"
    counts[2][9] = 14
    dp = dp_test((selection, counts), Fraction(1), "0.01", path_neighbours(4))
    assert dp["verdict"] == "violation" and dp["violation"]["inputs"] == [2, [0, 1, 3, 4]]
    assert dp["violation"]["event"] == {"outputs": [9]} and dp["violation"]["counts"] == [14, 0]
    bound = dp["epsilon_lower_bound"]
    low = Fraction(bound["theta_lower_bound"])
    assert bound["inputs"] == [2, [0, 1, 3, 4]] and Fraction(bound["ratio_lower_bound"]) == 4 * low / (1 - low)
    counts[2][9] = 18
    pairs_only = dp_test((selection, counts), Fraction(1), "0.01", [(1, 2)])
    assert pairs_only["verdict"] == "no violation found"  # one neighbour: no pooled hypothesis
    counts[2][9] = 14
    result = _result_of(selection, counts, dp, alpha_fa="0.01")
    assert check_result(result) == []
    as_pair = json.loads(json.dumps(result))
    as_pair["dp"]["violation"]["inputs"] = [2, 1]
    assert any("violation" in f for f in check_result(as_pair))
    wider = json.loads(json.dumps(result))
    wider["dp"]["epsilon_lower_bound"]["ratio_lower_bound"] = str(5 * low / (1 - low))
    assert any("does not follow" in f for f in check_result(wider))
    higher = json.loads(json.dumps(result))  # ε one step above what Σ_J e^(−ε·d) ≥ (1 − θ_L)/θ_L allows
    higher["dp"]["epsilon_lower_bound"]["epsilon"] = f"{float(bound['epsilon']) + 1e-5:.6f}"
    assert any("does not follow" in f for f in check_result(higher))


def _result_of(
    selection: list[dict[int, int]], test: list[dict[int, int]], dp: dict[str, Any], alpha_fa: str = "0.05"
) -> dict[str, Any]:
    from mechlib.audit.blackbox import blackbox_result

    result = blackbox_result(
        spec="synthetic:counts", library="test", n=len(test) - 1, samples=1000, seed=0, seconds=1.0,
        phases=(selection, test), epsilon=Fraction(1), alpha_fa=alpha_fa,
    )  # fmt: skip
    assert result["dp"] == json.loads(json.dumps(dp))
    document: dict[str, Any] = json.loads(json.dumps(result))
    return document


def test_results_handed_out_earlier_still_check() -> None:
    """mechlib.blackbox/6 (no sums), /7 (neighbours pooled, five one-tailed sums, one level) and /8 (α_FA
    a JSON number) results re-check as they were written — as ``mechlib check`` reads them too (floats
    as Decimal); relabelled as another version, their hypotheses, levels or α_FA no longer match and
    the check fails."""
    from pathlib import Path

    from mechlib.audit.loading import read_json
    from mechlib.checkers.blackbox_result import check_result

    tests = Path(__file__).parent
    for version in (6, 7, 8):
        path = tests / f"results_v{version}" / "opendp_make_gaussian.blackbox.json"
        for earlier in (json.loads(path.read_text()), read_json(path.read_bytes())):
            assert earlier["schema"] == f"mechlib.blackbox/{version}" and check_result(earlier) == []
        assert main(["check", str(path)]) == 0
        for other in {6, 7, 8} - {version}:
            assert check_result({**earlier, "schema": f"mechlib.blackbox/{other}"}), (version, other)
        assert check_result({**earlier, "schema": "mechlib.blackbox/9"})  # α_FA a number, not exact text
    current = json.loads((tests.parent / "reports/examples/blackbox/opendp_make_gaussian.blackbox.json").read_text())
    assert current["schema"] == "mechlib.blackbox/9" and check_result(current) == []
    for version in (6, 7, 8):
        assert check_result({**current, "schema": f"mechlib.blackbox/{version}"})
