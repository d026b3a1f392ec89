"""Users' optima bracketed at short α_lo ≤ α ≤ α_hi where the exact optimum at the DP level α is too
long to write (the exponential mechanism: α has ~n bits): the bracket holds the exact optimum, M's
enclosed loss holds its exact loss, the checker accepts the certificate and refuses every tampered
field; the Farey neighbours and the float enclosures are checked against exact arithmetic."""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechlib.checkers.numbers
import mechlib.core.exact
from mechlib import exponential
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit, render_text
from mechlib.checkers import bracketed_users as checker
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.checkers.fields import IntRows, Malformed, Q
from mechlib.core.mechanism import Mechanism
from mechlib.core.users import Prior
from mechlib.optimality import standard_users
from mechlib.optimality.derivability import TBasis
from mechlib.optimality.standard_users import STANDARD_LOSSES, StandardUser

N = 40
#: A digit limit under which the exact optimum at the exponential mechanism's α (~40 bits, so T's
#: numbers ~1600 bits) does not fit and the short ends do.
DIGITS = 300


def _audit(mech: Mechanism) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(json.dumps(audit(LoadedMechanism(mech, "exp", "python", "0" * 64))))
    return report


@pytest.fixture(scope="module")
def bracketed() -> tuple[dict[str, Any], Mechanism]:
    """The audit under the low digit limit (each test that checks it sets the limit: ``limited``)."""
    mech = exponential("1/2", N)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mechlib.core.exact, "MAX_DIGITS", DIGITS)
        patch.setattr(mechlib.checkers.numbers, "MAX_DIGITS", DIGITS)
        return _audit(mech), mech


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mechlib.core.exact, "MAX_DIGITS", DIGITS)
    monkeypatch.setattr(mechlib.checkers.numbers, "MAX_DIGITS", DIGITS)


def _rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = report["user_losses"]["users"]
    return rows


def test_the_bracket_holds_the_exact_optimum_and_the_mechanisms_loss(
    bracketed: tuple[dict[str, Any], Mechanism],
) -> None:
    """L*(α_lo) ≤ L*(α) ≤ L*(α_hi) with L*(α) computed exactly at α (no digit limit here), and M's
    exact loss with its optimal remap inside the recorded enclosure."""
    report, mech = bracketed
    alpha = Fraction(report["dp_level"])
    assert report["user_losses"]["status"] == "certified" and report["unknown"] == []
    basis = TBasis(alpha, N)
    for row, kind in zip(_rows(report), STANDARD_LOSSES, strict=True):
        low, high = row["optimum"]["lower"], row["optimum"]["upper"]
        assert Fraction(low["alpha"]) <= alpha <= Fraction(high["alpha"]) < 1
        user = StandardUser(kind, Prior.uniform(N))
        exact = standard_users.optimum_of_t(user, alpha, basis.t, basis.inverse, None)
        assert exact is not None
        assert Fraction(low["value"]) <= exact.value <= Fraction(high["value"])
        mine = standard_users.remapped_loss(mech, user, standard_users.optimal_remap(mech, user))
        assert Fraction(row["mechanism"]["lower"]) <= mine <= Fraction(row["mechanism"]["upper"])
        assert Fraction(row["excess"]["lower"]) > 0  # the exponential mechanism is not optimal for them
    assert "a bracket" in render_text(report) and "is not optimal for this user" in render_text(report)


def test_the_checker_accepts_the_bracketed_certificate(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None
) -> None:
    assert check_certificate(bracketed[0]) == []


def _set(report: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    forged = copy.deepcopy(report)
    node = forged
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value(node[path[-1]]) if callable(value) else value
    return forged


def _plus(text: str) -> str:
    return str(Fraction(text) + Fraction(1, 10**6))


USER = ["user_losses", "users", 0]
LOW, HIGH = [*USER, "optimum", "lower"], [*USER, "optimum", "upper"]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ([*LOW, "alpha"], "9/10", "do not enclose"),
        ([*HIGH, "alpha"], "1/3", "do not enclose"),
        ([*LOW, "value"], _plus, "lower end's optimality certificate"),
        ([*LOW, "dual", 3], _plus, "lower end's optimality certificate"),
        ([*LOW, "t_optimal_remap", "0"], 5, "does not reach the lower end"),
        ([*HIGH, "value"], _plus, "does not lose the upper end's value"),
        ([*HIGH, "value"], "0", "does not lose the upper end's value"),
        ([*HIGH, "t_optimal_remap", "0"], 5, "does not lose the upper end's value"),
        ([*USER, "mechanism", "lower"], _plus, "not in the recorded bracket"),
        ([*USER, "mechanism", "upper"], lambda v: str(Fraction(v) - Fraction(1, 10**6)), "not in the recorded bracket"),
        ([*USER, "optimal_remap", "0"], 30, "not optimal for the mechanism"),
        ([*USER, "optimal_remap", "20"], 0, "not optimal for the mechanism"),
        (["user_losses", "users", 1, "optimal_remap", "20"], 0, "not optimal for the mechanism"),
        (["user_losses", "users", 2, "optimal_remap", "20"], 21, "not optimal for the mechanism"),
        ([*USER, "excess", "lower"], _plus, "the excess"),
        ([*USER, "excess", "upper"], _plus, "the excess"),
        ([*USER, "ratio", "lower"], _plus, "the ratio"),
        ([*USER, "ratio", "upper"], _plus, "the ratio"),
        ([*USER, "ratio"], None, "the ratio"),
        ([*USER, "loss_name"], "squared", "is named"),
        ([*USER, "prior", 0], lambda p: str(Fraction(p) * 2), "not uniform"),
        ([*USER, "prior_name"], "mine", "not uniform"),
    ],
)
def test_every_tampered_bracket_field_is_refused(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None, path: list[Any], value: Any, message: str
) -> None:
    failures = check_certificate(_set(bracketed[0], path, value))
    assert any(message in failure for failure in failures), failures


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ([*LOW, "alpha"], "0", "is not in (0, 1)"),
        ([*HIGH, "alpha"], "1", "is not in (0, 1)"),
        ([*HIGH, "alpha"], "1/2" + "0" * 150 + "1", "pass the digit limit"),  # numbers checked before work
        ([*USER, "excess"], {"lower": "0"}, "excess"),
        ([*USER, "optimum"], {"lower": {}}, "user_losses"),
    ],
)
def test_a_malformed_bracket_is_refused_before_work(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None, path: list[Any], value: Any, message: str
) -> None:
    failures = check_certificate(_set(bracketed[0], path, value))
    assert failures and failures[0].startswith("malformed") and message in failures[0], failures


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("loss", "cubic", "not a standard loss"), ("optimum", {"lower": {}, "upper": {}}, "optimum.lower")],
)
def test_the_checker_names_a_malformed_row_itself(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None, field: str, value: Any, message: str
) -> None:
    """Past the schema (which refuses these first), the checker's own reading names the field."""
    report, mech = bracketed
    num, den = mech.scaled()
    rows = IntRows(list(den), [list(r) for r in num])
    row = {**_rows(report)[0], field: value}
    with pytest.raises(Malformed, match=message.replace(".", r"\.")):
        alpha = Q(*Fraction(report["dp_level"]).as_integer_ratio())
        checker.check_bracketed_user(row, "u", rows, list(range(N + 1)), alpha, N, (None, None))


def test_a_bracket_where_the_exact_optimum_fits_is_refused(bracketed: tuple[dict[str, Any], Mechanism]) -> None:
    """At the default digit limit the exact optimum at α fits: the audit gives it, so a bracket there
    (a weaker statement) is a failure; under the low limit an exact row cannot be read at all."""
    assert any("bracketed although" in failure for failure in check_certificate(bracketed[0]))


def test_an_exact_row_past_the_digit_limit_is_refused(limited: None) -> None:
    """An exact optimum at α (written under the default limit) is not read where its numbers pass
    the checker's limit: refused before its numbers are parsed."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mechlib.core.exact, "MAX_DIGITS", 4000)
        report = _audit(exponential("1/2", N))
    assert isinstance(report["user_losses"]["users"][0]["optimum"], str)
    failures = check_certificate(report)
    assert failures and "past the digit limit" in failures[0], failures


def test_extra_users_at_a_long_level_are_skipped_with_what_decides_them(limited: None) -> None:
    from mechlib.core.users import BayesUser, absolute_loss

    user = BayesUser(Prior.uniform(N), absolute_loss(N))
    report = audit(LoadedMechanism(exponential("1/2", N), "exp", "python", "0" * 64), [("uniform", "abs", user)])
    losses = report["user_losses"]
    assert (
        losses["status"] == "skipped" and "--prior/--loss" in losses["decide"] and report["unknown"] == ["user_losses"]
    )


@settings(max_examples=200, deadline=None, database=None)
@given(st.fractions(min_value=0, max_value=1, max_denominator=400), st.integers(1, 40))
def test_farey_neighbours_are_the_nearest_short_fractions(alpha: Fraction, limit: int) -> None:
    lo, hi = standard_users.farey_neighbours(alpha, limit)
    short = {Fraction(a, b) for b in range(1, limit + 1) for a in range(b + 1)}
    assert lo == max(f for f in short if f <= alpha) and hi == min(f for f in short if f >= alpha)


def test_bracket_alphas_fit_the_limit_and_enclose_alpha() -> None:
    alpha = Fraction(2**200 + 1, 5 * 2**199)  # just above 2/5, as the exponential mechanism's level
    ends = standard_users.bracket_alphas(alpha, 500, 1200)
    assert ends is not None
    lo, hi = ends
    assert lo == Fraction(2, 5) < alpha < hi and standard_users._bound(hi, 500) < 10**1200
    assert hi - lo < Fraction(1, 200)
    assert standard_users.bracket_alphas(Fraction(1, 10**9), 500, 1200) is None  # α_lo would be 0
    assert standard_users.bracket_alphas(Fraction(1, 10**1000), 5, 4000) is None  # a limit past floats: capped


def _tied() -> Mechanism:
    """Columns with exact ties over rows of different long denominators: every guess of column 0 of
    rows 0–1 ties for the absolute and binary losses, the mean of column 0 is a half-integer."""
    big = 3**700
    return Mechanism.from_scaled([[big, big, 0], [big, big, 0], [1, 2, 3**700 * 2 - 3]], [2 * big, 2 * big, 2 * big])


@pytest.mark.parametrize("kind", STANDARD_LOSSES)
def test_ties_are_decided_exactly_by_both_sides(kind: str) -> None:
    mech = _tied()
    user = StandardUser(kind, Prior.uniform(2))
    found = standard_users.enclosed_optimal_remap(mech, user)
    exact = standard_users.remapped_loss(mech, user, standard_users.optimal_remap(mech, user))
    assert found.lower <= exact <= found.upper
    assert standard_users.remapped_loss(mech, user, found.remap) == exact
    num, den = mech.scaled()
    rows = IntRows(list(den), [list(r) for r in num])
    guess = [found.remap.as_mapping()[r] for r in mech.outputs]
    bounds = checker.weight_bounds(rows)
    enclosed = checker._enclosed_loss(kind, rows, bounds, guess, 2)
    assert enclosed is not None and enclosed[0] <= exact <= enclosed[1]
    worse = [2, 2, 2] if kind != "binary" else [1, 0, 0]
    assert checker._enclosed_loss(kind, rows, bounds, worse, 2) is None


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(st.floats(0, 1e300) | st.sampled_from([0.0, 5e-324, 2.0**-1022, 1e-310]), min_size=1, max_size=40))
def test_sum_bounds_enclose_the_exact_sum(values: list[float]) -> None:
    terms = np.array(values)
    exact = sum(map(Fraction, values), Fraction(0))
    low, high = standard_users.sum_enclosure(terms, terms)
    assert Fraction(low) <= exact <= Fraction(high)
    low, high = checker._sum_bounds(terms, terms)
    assert Fraction(float(low)) <= exact <= Fraction(float(high))


@settings(max_examples=60, deadline=None, database=None)
@given(st.integers(1, 1400), st.lists(st.integers(0, 10**6), min_size=2, max_size=5))
def test_weight_bounds_enclose_the_weights(bits: int, parts: list[int]) -> None:
    """Rows over denominators of up to 1400 bits (cut to their top 1000 bits past that)."""
    scale = 1 << bits
    row = [p * scale + p for p in parts]
    den = sum(row) or 1
    mech = Mechanism.from_scaled([row, row[::-1]], [den, den]) if any(row) else None
    if mech is None:
        return
    lo, hi = standard_users.weight_enclosure(mech, Prior.uniform(1))
    c_lo, c_hi = checker.weight_bounds(IntRows([den, den], [row, row[::-1]]))
    for i, r in enumerate([row, row[::-1]]):
        for j, v in enumerate(r):
            exact = Fraction(v, den) / 2
            assert Fraction(float(lo[i][j])) <= exact <= Fraction(float(hi[i][j]))
            assert Fraction(float(c_lo[i][j])) <= exact <= Fraction(float(c_hi[i][j]))


@pytest.mark.parametrize("k", [0, 1, 64])
@pytest.mark.parametrize(
    ("n", "top", "up", "den"),
    [(60, 0x1C73FA23C77E7B, True, 0x1F53C7727EA8E3), (4, 0x106681A2EB4550, False, 0x1CBC5056AEE306)],
)
def test_weight_bounds_hold_where_each_outward_step_is_least(n: int, top: int, up: bool, den: int, k: int) -> None:
    """Rows where lo's outward steps leave the least room: a and d a hair past a rounding midpoint
    next to top·2⁹⁴⁷ and den·2⁹⁴⁷ (each rounds up, to the float above; d's step up then lands only
    about half an ulp above it), with the quotient's and the product's rounding errors also near
    their worst. One step the wrong way then crosses the weight: 1/(n + 1) rounded up (n = 60), or
    the numerator stepped up, ≈ 1.5 ulp above a at a mantissa near 1 (n = 4) — both surviving
    mutants of the 50k-matrix search. Found by a directed search over such floats; k > 0 lifts the
    row past 1000 bits (a·2^k over d·2^k − 1, cut back to the same floats)."""
    half = 1 << 946
    a, d = (top << 947) + (half + 1 if up else 1 - half), (den << 947) - half - 1
    a, d = (a << k, (d << k) - 1) if k else (a, d)
    rows = IntRows([d] + [1] * n, [[a, d - a]] + [[1, 0]] * n)
    lo, hi = checker.weight_bounds(rows)
    for i, r in enumerate(rows.num):
        for j, v in enumerate(r):
            assert Fraction(float(lo[i][j])) <= Fraction(v, rows.den[i]) / (n + 1) <= Fraction(float(hi[i][j]))


def test_an_older_audit_certificate_is_named_as_such(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A mechlib.audit/7 file (before the t_at remap and the bracketed users): exit 2, one line saying
    it comes from an older mechlib and what to do; the checker's own precheck says the same."""
    from mechlib.cli import main

    path = tmp_path / "old.json"
    path.write_text(json.dumps({"schema": "mechlib.audit/7"}))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "older mechlib" in err and "mechlib.audit/8" in err
    assert "older mechlib" in check_certificate({"schema": "mechlib.audit/7"})[0]
    assert "older" not in check_certificate({"schema": "mechlib.audit/9"})[0]


def _forms(kind: str, g: int, n: int) -> list[tuple[bool, list[int]]]:
    """The least-loss conditions of guess g as linear forms Σ_i c_i·w_i ≥ 0 (each with whether it
    applies): absolute 2·A_g ≤ W, 2·A_{g+1} ≥ W; squared (2g − 1)·W ≤ 2·S₁ ≤ (2g + 1)·W; binary
    w_g ≥ w_j for every j ≠ g."""
    rows = range(n + 1)
    if kind == "absolute":
        return [(g > 0, [1 if i >= g else -1 for i in rows]), (g < n, [1 if i <= g else -1 for i in rows])]
    if kind == "squared":
        return [(g > 0, [2 * i - 2 * g + 1 for i in rows]), (g < n, [2 * g + 1 - 2 * i for i in rows])]
    return []  # binary: w_g ≥ w_j for every j ≠ g, decided on the maximum rival (``_exact_signs``)


def _exact_signs(kind: str, lo: np.ndarray, hi: np.ndarray, g: int, n: int, room: Fraction) -> tuple[bool, bool]:
    """(every weight vector in [max(lo, 0), hi] has g least-loss, none has), in Fractions, each with
    ``room`` to spare (a fraction of the scale Σ|c_i|·hi_i of the forms)."""
    low = [Fraction(max(float(v), 0.0)) for v in lo]
    high = [Fraction(float(v)) for v in hi]
    if kind == "binary":  # every vector: w_g ≥ every rival; none: some rival's low above w_g's high
        rival_hi, rival_lo = max(high[:g] + high[g + 1 :]), max(low[:g] + low[g + 1 :])
        gap = room * max(high)
        return low[g] - rival_hi >= gap, high[g] - rival_lo < -gap
    forms = [c for applies, c in _forms(kind, g, n) if applies]
    worst = [sum((x * (a if x > 0 else b) for x, a, b in zip(c, low, high)), Fraction(0)) for c in forms]
    best = [sum((x * (b if x > 0 else a) for x, a, b in zip(c, low, high)), Fraction(0)) for c in forms]
    gaps = [room * sum((abs(x) * b for x, b in zip(c, high)), Fraction(0)) for c in forms]
    return all(v >= d for v, d in zip(worst, gaps)), any(v < -d for v, d in zip(best, gaps))


@st.composite
def _columns(draw: st.DrawFn) -> tuple[str, np.ndarray, np.ndarray, int, int]:
    """One column of float weights near a least-loss boundary: random weights (some a big one followed
    by terms of half an ulp, which a running float sum loses or rounds up), one row solved so that a
    condition of guess g holds with equality, rounded and moved a few ulps — at scales from 1 down to
    subnormals, where an ulp is absolute; then a box of 0–2 ulps around each weight (or none), or the
    enclosures of ``weight_bounds``' zero weights (±5e-324)."""
    kind = draw(st.sampled_from(STANDARD_LOSSES))
    n = draw(st.sampled_from([1, 2, 3, 5, 8, 40, 300]))
    g = draw(st.integers(0, n))
    big = draw(st.sampled_from([1.0, 0.5, 2.0**-20, 2.0**-1000, 2.0**-1023, 2.0**-1066]))  # the last two: subnormal
    tiny = draw(st.sampled_from([0.0, 2.0**-54, 2.0**-53 * (1 + 2.0**-52), 2.0**-60]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    spread: bool = draw(st.booleans())
    w = [Fraction(float(v)) for v in rng.random(n + 1) * big] if spread else [Fraction(tiny * big)] * (n + 1)
    w[draw(st.integers(0, n))] = Fraction(big)
    forms = [c for applies, c in _forms(kind, g, n) if applies]
    solve: bool = draw(st.booleans())
    if forms and solve:
        c = forms[draw(st.integers(0, len(forms) - 1))]
        j = draw(st.sampled_from([i for i in range(n + 1) if c[i] != 0]))
        solved = -sum((x * v for i, (x, v) in enumerate(zip(c, w)) if i != j), Fraction(0)) / c[j]
        if solved >= 0:
            w[j] = solved
    values = np.array([float(v) for v in w])
    for _ in range(draw(st.integers(0, 3))):
        values[draw(st.integers(0, n))] = np.nextafter(values[draw(st.integers(0, n))], draw(st.sampled_from([-1, 2])))
    values = np.maximum(values, 0.0)
    box = draw(st.sampled_from(["point", "ulp", "two", "zero"]))
    lo, hi = values.copy(), values.copy()
    if box in ("ulp", "two"):
        lo, hi = np.maximum(np.nextafter(lo, -np.inf), 0.0), np.nextafter(hi, np.inf)
    if box == "two":
        lo, hi = np.maximum(np.nextafter(lo, -np.inf), 0.0), np.nextafter(hi, np.inf)
    if box == "zero":
        lo, hi = np.where(values == 0, -5e-324, lo), np.where(values == 0, 5e-324, hi)
    return kind, lo, hi, g, n


@settings(max_examples=400, deadline=None, database=None)
@given(_columns())
def test_guess_signs_agree_with_fractions_at_the_boxs_worst_ends(column: tuple[str, Any, Any, int, int]) -> None:
    """``_guess_signs`` on one column: proved ⇒ the guess is least-loss for every weight vector in the
    box (checked in Fractions at the worst end of each condition), disproved ⇒ for none; and a column
    whose conditions hold or fail by more than 2⁻³⁰ of their scale is decided on the floats."""
    kind, lo, hi, g, n = column
    scaled = 2.0**8  # a second column, the first times 2⁸: the same verdicts, on its own column's numbers
    with np.errstate(all="ignore"):  # as ``_enclosed_loss`` calls it
        proved, disproved = checker._guess_signs(
            kind, np.stack([lo, lo * scaled], 1), np.stack([hi, hi * scaled], 1), np.array([g, g]), np.arange(2), n
        )
    for at, scale in enumerate((1.0, scaled)):
        holds, fails = _exact_signs(kind, lo * scale, hi * scale, g, n, Fraction(0))
        assert not (proved[at] and not holds), "proved, but a vector in the box has a lesser-loss guess"
        assert not (disproved[at] and not fails), "disproved, but a vector in the box has it least-loss"
        if float(np.max(hi)) > 2.0**-900:
            clear_holds, clear_fails = _exact_signs(kind, lo * scale, hi * scale, g, n, Fraction(2) ** -30)
            assert not clear_holds or proved[at], "a guess least-loss with room to spare is left open"
            assert not clear_fails or disproved[at], "a guess far from least-loss is left open"


def _matrix(mech: Mechanism) -> IntRows:
    num, den = mech.scaled()
    return IntRows(list(den), [list(r) for r in num])


def _direct(
    bracketed: tuple[dict[str, Any], Mechanism],
    row: dict[str, Any],
    alpha: Fraction | None = None,
    bounds: tuple[Any, Any] | None = None,
) -> list[str]:
    """``check_bracketed_user`` on a user row of the bracketed audit, at the audit's α (or ``alpha``),
    with ``weight_bounds`` of its matrix (or ``bounds``)."""
    report, mech = bracketed
    rows = _matrix(mech)
    level = Fraction(report["dp_level"]) if alpha is None else alpha
    bounds = checker.weight_bounds(rows) if bounds is None else bounds
    return checker.check_bracketed_user(row, "u", rows, list(range(N + 1)), Q(*level.as_integer_ratio()), N, bounds)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["prior"], ["1/41"] * 40, "u.prior"),
        (["optimum", "lower", "dual"], ["0"] * 42, "u.optimum.lower.dual"),
        (["optimum", "lower", "alpha"], "a/b", "u.optimum.lower.alpha"),
        (["optimum", "upper", "alpha"], "a/b", "u.optimum.upper.alpha"),
        (["optimum", "lower", "alpha"], "0", "u.optimum.lower.alpha"),
        (["optimum", "upper", "alpha"], "1", "u.optimum.upper.alpha"),
        (["optimum", "lower", "alpha"], "1/2" + "0" * 150 + "1", "u.optimum.lower.alpha"),
        (["optimum", "upper", "alpha"], "1/2" + "0" * 150 + "1", "u.optimum.upper.alpha"),
        (["excess"], {"lower": "0"}, "u.excess"),
        (["excess", "upper"], "a/b", "u.excess.upper"),
        (["ratio"], {"lower": "0"}, "u.ratio"),
    ],
)
def test_a_malformed_bracket_field_is_named_by_the_checker(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None, path: list[str], value: Any, field: str
) -> None:
    """Past the schema (which refuses most of these first), the checker's own reading names the field
    — a list of the wrong length too, not a failure or an IndexError further on."""
    row = _set(_rows(bracketed[0])[0], path, value)
    with pytest.raises(Malformed, match=f"^{re.escape(field)}: "):
        _direct(bracketed, row)


def test_a_bracket_may_end_at_the_dp_level(bracketed: tuple[dict[str, Any], Mechanism], limited: None) -> None:
    """α_lo ≤ α ≤ α_hi with either equality: T at α itself is one of the ends (a level whose own
    numbers are short has an exact row, but the bracket's statement still holds there)."""
    for row in _rows(bracketed[0]):
        for end in ("lower", "upper"):
            assert _direct(bracketed, row, Fraction(row["optimum"][end]["alpha"])) == [], end


def _with_bracket(row: dict[str, Any], low: Fraction, high: Fraction) -> dict[str, Any]:
    """The row with the mechanism's loss bracket [low, high] and its excess and ratio recomputed."""
    value_low, value_high = Fraction(row["optimum"]["lower"]["value"]), Fraction(row["optimum"]["upper"]["value"])
    return {
        **row,
        "mechanism": {"lower": str(low), "upper": str(high)},
        "excess": {"lower": str(max(low - value_high, Fraction(0))), "upper": str(high - value_low)},
        "ratio": {"lower": str(low / value_high), "upper": str(high / value_low)},
    }


def test_the_loss_bracket_may_be_the_checkers_own_enclosure(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None
) -> None:
    """A recorded bracket equal to the checker's float enclosure (both ends) is in it; one whose lower
    end is the enclosure's upper end is not (the mechanism's loss may be below it)."""
    rows = _matrix(bracketed[1])
    for row, kind in zip(_rows(bracketed[0]), STANDARD_LOSSES, strict=True):
        guess = [int(row["optimal_remap"][str(r)]) for r in range(N + 1)]
        enclosed = checker._enclosed_loss(kind, rows, checker.weight_bounds(rows), guess, N)
        assert enclosed is not None
        low, high = (Fraction(float(v)) for v in enclosed)
        assert low < high
        assert _direct(bracketed, _with_bracket(row, low, high)) == [], kind
        failures = _direct(bracketed, _with_bracket(row, high, high))
        assert any("not in the recorded bracket" in failure for failure in failures), (kind, failures)


def test_a_lower_end_of_one_is_a_ratio_like_any_other(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None
) -> None:
    """The ratio is None only where an optimum's end is 0: at L*(α_lo) = 1 (forged, so the lower end
    fails) the recorded ratio mine/1 is still checked as a ratio."""
    row = _rows(bracketed[0])[0]
    mine = (Fraction(row["mechanism"]["lower"]), Fraction(row["mechanism"]["upper"]))
    forged = _with_bracket(_set(row, ["optimum", "lower", "value"], "1"), *mine)
    failures = _direct(bracketed, forged)
    assert failures and not any("the ratio" in failure for failure in failures), failures


def test_open_columns_are_decided_in_integers_by_the_row_check(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None
) -> None:
    """With enclosures too wide for the floats to decide any column ([0, 1] for every weight), each
    recorded guess is still found least-loss, in integers; only the loss bracket is then too wide."""
    wide = (np.zeros((N + 1, N + 1)), np.ones((N + 1, N + 1)))
    for row in _rows(bracketed[0]):
        assert _direct(bracketed, row, bounds=wide) == [
            f"user (uniform, {row['loss']}): the mechanism's loss with its optimal remap is not in the recorded bracket"
        ]


def _t_inverse(alpha: Fraction, r: int, i: int) -> Fraction:
    """T⁻¹[r][i] at α (GS Lemma 2): tridiagonal, (1 − α)²·T⁻¹ has rows (−α, 1 + α², −α) inside and
    (1 − α)·(1, −α), (1 − α)·(−α, 1) at the ends."""
    end = 1 - alpha if r in (0, N) else Fraction(1)
    entry = (1 + alpha * alpha if 0 < r < N else end) if r == i else -alpha * end if abs(r - i) == 1 else Fraction(0)
    return entry / (1 - alpha) ** 2


def test_a_dual_of_the_upper_ends_inverse_is_refused_at_the_lower_end(
    bracketed: tuple[dict[str, Any], Mechanism], limited: None
) -> None:
    """u = (T⁻¹)ᵀb with T at α_hi but b at α_lo: Σu = Σb (T⁻¹'s rows sum to 1), so the lower end's
    value still checks, but u is not α_lo's dual — the rays of α_lo's T must not be taken from it, nor
    its feasibility decided at α_hi (where the cone is smaller)."""
    for row in _rows(bracketed[0]):
        low = row["optimum"]["lower"]
        a_lo, a_hi = Fraction(low["alpha"]), Fraction(row["optimum"]["upper"]["alpha"])
        steps = [int(low["t_optimal_remap"][str(r)]) for r in range(N + 1)]
        b = [
            Fraction(int(v.p), int(v.q)) for v in checker._t_losses(row["loss"], Q(*a_lo.as_integer_ratio()), steps, N)
        ]
        dual = [sum((_t_inverse(a_hi, r, i) * b[r] for r in range(N + 1)), Fraction(0)) for i in range(N + 1)]
        assert sum(dual) == sum(b) == Fraction(low["value"])
        failures = _direct(bracketed, _set(row, ["optimum", "lower", "dual"], [str(v) for v in dual]))
        assert failures == [
            f"user (uniform, {row['loss']}): the lower end's optimality certificate at α_lo = {a_lo} does not check"
        ]


def _rounded_the_wrong_way(count: int) -> list[IntRows]:
    """Matrices of 2–13 rows whose integers (55–63 bits, and past the 1000-bit cut) sit just beside a
    float's rounding midpoint, just above or below a power of two — where float(a) and float(d)
    round each way by nearly half an ulp and one ulp is relatively smallest or largest."""
    import random

    rnd = random.Random(5)
    matrices = []
    for _ in range(count):
        dens, nums = [], []
        for _ in range(rnd.choice([2, 3, 5, 7, 10, 13])):
            p = rnd.choice([rnd.randint(54, 62), rnd.randint(1000, 1004)])
            q = rnd.randint(p, p + 2)
            unit, d_unit = 1 << (p - 52), 1 << (q - 52)
            shift = rnd.choice([1, 2, 3, unit // 4]) * rnd.choice([1, -1])
            a = rnd.choice([(1 << p) + unit // 2, (2 << p) - unit // 2]) + rnd.randint(0, 50) * unit * rnd.choice(
                [1, -1]
            )
            d = rnd.choice([(2 << q) - d_unit // 2, (1 << q) + d_unit // 2]) + rnd.randint(0, 50) * d_unit
            a, d = sorted((a + shift, d + rnd.choice([1, 2, 3, d_unit // 4]) * rnd.choice([1, -1])))
            dens.append(d)
            nums.append([a, d - a])
        matrices.append(IntRows(dens, nums))
    return matrices


def test_weight_bounds_enclose_entries_that_round_the_wrong_way() -> None:
    """Each weight x/(n + 1) of such a matrix is enclosed (the last two: rows a search over them found
    to need every step down of x_lo, and every step up of x_hi); an empty matrix has empty enclosures."""
    a, d = 36028797018963867, 72057594037927651  # 2⁵⁵ − 101 over 2⁵⁶ − 285: x just under 1/2, n = 4
    e = 288230376151721633  # 2⁵⁸ + 9889, which float() rounds up by 31: x = 3906/e, n = 8
    found = [IntRows([d] * 5, [[a, d - a]] * 5), IntRows([e] * 9, [[e - 3906, 3906]] * 9)]
    for m in [*_rounded_the_wrong_way(400), *found]:
        lo, hi = checker.weight_bounds(m)
        for i, (row, d) in enumerate(zip(m.num, m.den)):
            for r, a in enumerate(row):
                assert Fraction(float(lo[i][r])) <= Fraction(a, d * len(m.num)) <= Fraction(float(hi[i][r])), (a, d)
    assert [b.shape for b in checker.weight_bounds(IntRows([1, 3], [[], []]))] == [(2, 0), (2, 0)]


def test_sum_bounds_along_an_axis_bound_each_column() -> None:
    """``_sum_bounds(lower, upper, 0)``: one pair per column, each enclosing its column's sum and
    within 2⁻⁴⁰ of it (another column's mass is not in it)."""
    rng = np.random.default_rng(7)
    terms = rng.random((30, 4)) * np.array([1.0, 2.0**-30, 2.0**600, 0.0])
    low, high = checker._sum_bounds(terms, terms, 0)
    assert low.shape == high.shape == (4,)
    for column, (a, b) in enumerate(zip(low, high)):
        exact = sum(map(Fraction, terms[:, column]), Fraction(0))
        assert (
            Fraction(float(a)) <= exact <= Fraction(float(b)) <= exact * (1 + Fraction(2) ** -40) + Fraction(2) ** -1070
        )


@pytest.mark.parametrize("kind", STANDARD_LOSSES)
def test_a_subnormal_loss_is_enclosed(kind: str) -> None:
    """Exact weights 1/2, 2⁻¹⁰⁷⁰ (a subnormal) and 0, the loss (2⁻¹⁰⁷⁰·l(1, 0)) subnormal too: each
    product of a weight and a loss is exact there, so its one ulp outward must go outward."""
    d = 1 << 1069
    m = IntRows([1, d], [[1, 0], [1, d - 1]])  # row 1: x = 2⁻¹⁰⁶⁹, 1 − 2⁻¹⁰⁶⁹; over n + 1 = 2
    lo = np.array([[0.5, 0.0], [2.0**-1070, np.nextafter(0.5, 0)]])
    hi = np.array([[0.5, 0.0], [2.0**-1070, 0.5]])
    found = checker._enclosed_loss(kind, m, (lo, hi), [0, 1], 1)
    assert found is not None
    exact = Fraction(2) ** -1070  # l(1, 0) = 1 for each loss
    assert Fraction(float(found[0])) <= exact <= Fraction(float(found[1]))
