"""Users' optima bracketed at short α_lo ≤ α ≤ α_hi where the exact optimum at the DP level α is too
long to write (the exponential mechanism: α has ~n bits): the bracket holds the exact optimum, M's
enclosed loss holds its exact loss, the checker accepts the certificate and refuses every tampered
field; the Farey neighbours and the float enclosures are checked against exact arithmetic."""

from __future__ import annotations

import copy
import json
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
