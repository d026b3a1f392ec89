"""The exact privacy profile δ(ε) and the zCDP bracket against closed forms and definitions."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechlib import randomized_response, truncated_geometric
from mechlib.core.approximate import hockey_stick, privacy_profile
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import arb_precision, dp_level
from mechlib.core.renyi import renyi_divergence, zcdp_rho


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10)])
@pytest.mark.parametrize("n", [1, 4, 20])
def test_t_profile_is_the_closed_form(alpha: Fraction, n: int) -> None:
    """T's neighbouring rows differ by α^±1 on either side of the pair, each side carrying
    1/(1+α) and α/(1+α): δ(t) = (1 − α·t)/(1 + α) on [1, 1/α], 0 after."""
    profile = privacy_profile(truncated_geometric(alpha, n))
    assert profile.ts == (Fraction(1), 1 / alpha)
    for t in (Fraction(1), (1 + 1 / alpha) / 2, 1 / alpha, 2 / alpha):
        assert profile.delta_at(t) == max(Fraction(0), (1 - alpha * t) / (1 + alpha))


@pytest.mark.parametrize("k", [2, 3, 5])
def test_randomized_response_profile_is_the_closed_form(k: int) -> None:
    """k-ary randomized response, p on the truth and q elsewhere (p = q/α): δ(t) = max(0, p − t·q)."""
    alpha = Fraction(1, 3)
    mech = randomized_response(alpha, k)
    p, q = mech.rows[0][0], mech.rows[0][1]
    profile = privacy_profile(mech)
    for t in (Fraction(1), Fraction(2), Fraction(3), Fraction(5)):
        assert profile.delta_at(t) == max(Fraction(0), p - t * q)


@st.composite
def mechanisms(draw: st.DrawFn) -> Mechanism:
    width = draw(st.integers(1, 5))
    rows = []
    for _ in range(draw(st.integers(2, 5))):
        w = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 7]), min_size=width, max_size=width))
        w[0] += 0 if sum(w) else 1
        rows.append([Fraction(x, sum(w)) for x in w])
    return Mechanism(rows)


@settings(max_examples=150)
@given(mechanisms(), st.fractions(0, 1), st.fractions(1, 50))
def test_profile_is_the_hockey_stick_everywhere(mech: Mechanism, delta: Fraction, t: Fraction) -> None:
    """At every vertex, between vertices and beyond them the envelope is the definition; the
    tightest t at δ is the least t with δ(t) ≤ δ; δ = 0 exactly from the pure DP level on."""
    profile = privacy_profile(mech)
    assert all(a < b for a, b in zip(profile.ts, profile.ts[1:], strict=False))
    probes = [*profile.ts, t, *((a + b) / 2 for a, b in zip(profile.ts, profile.ts[1:], strict=False))]
    for probe in probes:
        assert profile.delta_at(probe) == hockey_stick(mech, probe)
    found = profile.tightest_t(delta)
    if found is None:
        assert hockey_stick(mech, profile.ts[-1] * 1000) > delta
    else:
        least, _ = found
        assert hockey_stick(mech, least) <= delta
        assert least == 1 or hockey_stick(mech, least * Fraction(999_999, 1_000_000)) > delta
    alpha = dp_level(mech).alpha
    assert (profile.delta_infinity == 0) == (alpha > 0)
    if alpha > 0:
        assert profile.tightest_t(Fraction(0)) is not None
        assert profile.tightest_t(Fraction(0))[0] == 1 / alpha  # type: ignore[index]


def test_binary_randomized_response_renyi_is_the_closed_form() -> None:
    """Binary RR (p, 1 − p): D_λ = ln(p^λ(1−p)^(1−λ) + (1−p)^λ p^(1−λ))/(λ − 1); D_1 = KL."""
    mech = randomized_response(Fraction(1, 3), 2)
    p = float(mech.rows[0][0])
    with arb_precision(128):
        for lam in (Fraction(1), Fraction(3, 2), Fraction(2), Fraction(10)):
            ball = renyi_divergence(mech.rows[0], mech.rows[1], lam)
            x = float(lam)
            if lam == 1:
                expected = p * math.log(p / (1 - p)) + (1 - p) * math.log((1 - p) / p)
            else:
                expected = math.log(p**x * (1 - p) ** (1 - x) + (1 - p) ** x * p ** (1 - x)) / (x - 1)
            assert ball is not None
            assert abs(float(ball.mid()) - expected) < 1e-12
            assert ball.rad() < 1e-30


def test_zcdp_bracket_contains_the_supremum() -> None:
    """The bracket holds the maximum of D_λ/λ found on a fine float grid, and is narrow."""
    mech = randomized_response(Fraction(1, 3), 2)
    bracket = zcdp_rho(mech, Fraction(1), Fraction(64))
    assert bracket.lo is not None and bracket.hi is not None
    p = float(mech.rows[0][0])

    def value(x: float) -> float:
        if x == 1:
            return p * math.log(p / (1 - p)) + (1 - p) * math.log((1 - p) / p)
        return math.log(p**x * (1 - p) ** (1 - x) + (1 - p) ** x * p ** (1 - x)) / (x - 1) / x

    best = max(value(1 + k / 1000) for k in range(63_001))
    assert float(bracket.lo) <= best + 1e-12 and best <= float(bracket.hi) + 1e-12
    assert bracket.hi <= bracket.lo * Fraction(1001, 1000)


def test_an_impossible_output_gives_infinite_rho() -> None:
    mech = Mechanism([["1/2", "1/2"], ["1", "0"]])
    bracket = zcdp_rho(mech, Fraction(1), Fraction(4))
    assert bracket.lo is None and bracket.hi is None
    assert privacy_profile(mech).delta_infinity == Fraction(1, 2)
    with arb_precision(64):
        assert renyi_divergence(mech.rows[0], mech.rows[1], Fraction(2)) is None
        assert renyi_divergence(mech.rows[1], mech.rows[0], Fraction(2)) is not None


def test_ratio_groups_are_exact_where_floats_cannot_tell() -> None:
    """Ratios within one float of each other, equal ratios, a zero denominator and ratios beyond a
    float's range: the groups are those of exact Fractions."""
    from mechlib.core.approximate import _by_ratio, _by_ratio_exactly

    big = 10**20
    cases = [
        ([big, big + 1, 2 * big, 3], [big - 1, big, 2 * big - 2, 0]),  # 1 + 1/big-ish twins, equal, ∞
        ([10**400, 1, 2], [1, 10**400, 4]),  # out of float range
        ([6, 4, 2, 9], [3, 2, 1, 3]),  # equal ratios 2, 2, 2 and 3
    ]
    for a, b in cases:
        outputs = list(range(len(a)))
        assert [sorted(g) for g in _by_ratio(a, b, outputs)] == [sorted(g) for g in _by_ratio_exactly(a, b, outputs)]


def test_the_zcdp_bracket_never_has_a_negative_lower_end() -> None:
    """Equal rows: D_λ = 0 exactly, a ball around 0; ρ's lower end is 0 (it printed −1e−12), the
    checker accepts 0 by D_λ ≥ 0 and refuses a negative end."""
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.audit.whitebox import audit
    from mechlib.checkers.audit_certificate import check_certificate

    flat = Mechanism([["1/2", "1/2"], ["1/2", "1/2"]])
    report = audit(LoadedMechanism(flat, "flat", "python", "0" * 64), renyi=(Fraction(1), Fraction(8)))
    rho = report["approximate_dp"]["renyi"]["rho_interval"]
    assert rho[0] == "0" and Fraction(rho[1]) >= 0 and check_certificate(report) == []
    report["approximate_dp"]["renyi"]["rho_interval"][0] = "-1/1000000000000"
    assert any("negative" in f for f in check_certificate(report))


@pytest.mark.parametrize(
    ("mech", "wide"), [(randomized_response("99/100", 8), True), (truncated_geometric("1/2", 5), False)]
)
def test_a_zcdp_bracket_wider_than_its_aim_says_so(mech: Mechanism, wide: bool) -> None:
    from mechlib.audit.approximate_dp import approximate_section, findings
    from mechlib.core.renyi import TOLERANCE

    section, _ = approximate_section(mech, renyi=(Fraction(1), Fraction(64)))
    assert section is not None
    lo, hi = (Fraction(x) for x in section["renyi"]["rho_interval"])
    text = findings(section)[-1][1]
    assert (hi > lo * (1 + TOLERANCE)) is wide and ("wider than the 0.1% aimed at" in text) is wide


@st.composite
def wide_mechanisms(draw: st.DrawFn) -> Mechanism:
    """Up to 12 rows of up to 12 outputs, zeros (outputs a neighbour never gives: δ_∞ > 0) and
    repeated ratios (T's and randomized response's structure) among them."""
    width, height = draw(st.integers(1, 12)), draw(st.integers(2, 12))
    rows = []
    for _ in range(height):
        w = draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 7, 10**6]), min_size=width, max_size=width))
        w[0] += 0 if sum(w) else 1
        rows.append([Fraction(x, sum(w)) for x in w])
    return Mechanism(rows)


@settings(max_examples=200)
@given(wide_mechanisms())
def test_the_float_screen_keeps_every_line_of_the_envelope(mech: Mechanism) -> None:
    """The profile with every line screened (``_undominated`` on from one line) is the profile
    from all lines: the screen drops only lines strictly below an actual line of the envelope."""
    from unittest import mock

    import mechlib.core.approximate as approximate

    exact = privacy_profile(mech)
    with mock.patch.object(approximate, "_SCREEN_FROM", 1):
        assert privacy_profile(mech) == exact


def test_a_screen_that_drops_a_line_of_the_envelope_is_caught() -> None:
    """The negative control of the test above: with a margin below 0 the screen drops the
    envelope's own lines too, and the profile differs."""
    from unittest import mock

    import mechlib.core.approximate as approximate

    mech = randomized_response(Fraction(1, 3), 6)
    exact = privacy_profile(mech)
    with mock.patch.object(approximate, "_SCREEN_FROM", 1), mock.patch.object(approximate, "_MARGIN", -1e-9):
        assert privacy_profile(mech) != exact


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10), Fraction(1, 1000)])
@pytest.mark.parametrize("n", [1, 2, 7])
def test_t_profile_in_closed_form_is_the_envelope(alpha: Fraction, n: int) -> None:
    """``t_profile`` (T's profile without its lines) has the envelope's vertices and values, and its
    piece is the pair (0, 1) with S = {0}: the masses P_0(S) and P_1(S)."""
    from mechlib.core.approximate import t_level, t_profile

    t = truncated_geometric(alpha, n)
    closed, envelope = t_profile(alpha), privacy_profile(t)
    assert (closed.ts, closed.deltas) == (envelope.ts, envelope.deltas)
    piece = closed.pieces[0]
    assert (piece.mass, piece.neighbour_mass) == (t.rows[0][0], t.rows[1][0]) and t_level(t) == alpha


def test_t_level_names_t_only() -> None:
    """T is recognised whatever its row denominators (read from a file of fractions in lowest
    terms); randomized response, the exponential mechanism, and T with one cell moved are not T."""
    from mechlib import exponential
    from mechlib.core.approximate import t_level

    t = truncated_geometric(Fraction(1, 3), 6)
    assert t_level(Mechanism([[str(x) for x in row] for row in t.rows])) == Fraction(1, 3)
    moved = [list(row) for row in t.rows]
    moved[4][2] += Fraction(1, 10**9)
    moved[4][3] -= Fraction(1, 10**9)
    for other in (randomized_response(Fraction(1, 3), 7), exponential(Fraction(1, 3), 6), Mechanism(moved)):
        assert t_level(other) is None


def test_delta_past_the_cell_limit_for_t_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the profile's cell limit (here lowered to 100) T's profile is its closed form, and the
    checker re-checks it (two vertices: every pair scanned at both); another mechanism is refused in
    one line; a profile past the limit with a third vertex is refused by the checker."""
    import json

    import mechlib.audit.approximate_dp as producer
    import mechlib.checkers.approximate_dp as checker
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.audit.whitebox import audit
    from mechlib.checkers.audit_certificate import check_certificate
    from mechlib.errors import InputError

    for module in (producer, checker):
        monkeypatch.setattr(module, "PROFILE_MAX_CELLS", 100)
        monkeypatch.setattr(module, "DENSE_PROFILE_MAX_CELLS", 100)
    monkeypatch.setattr(checker, "PROFILE_MAX_SCANS", 10_000)
    alpha, delta = Fraction(1, 3), Fraction(1, 100)
    t = truncated_geometric(alpha, 40)
    report = json.loads(json.dumps(audit(LoadedMechanism(t, "t", "python", "0" * 64), delta=delta)))
    # δ(t) = (1 − α·t)/(1 + α) = δ at t* = (1 − (1 + α)·δ)/α
    assert Fraction(report["approximate_dp"]["at_delta"]["alpha"]) == alpha / (1 - (1 + alpha) * delta)
    assert check_certificate(report) == []
    with pytest.raises(InputError, match="cells"):
        audit(LoadedMechanism(randomized_response(alpha, 41), "rr", "python", "0" * 64), delta=delta)
    vertices = report["approximate_dp"]["profile"]["vertices"]
    vertices.insert(1, {"alpha": "1/2", "delta": "1/8"})
    assert any("cells" in failure for failure in check_certificate(report))


#: Two ratios a/b < a′/b′ (≈ 138; a′·b − a·b′ = 1, every number below 2³¹) that round to the same float.
FLOAT_TIED = ((966367689, 7000003), (865506556, 6269403))


def float_tied_mechanism() -> Mechanism:
    """Rows over 2³¹ − 1 whose pair (0, 1) has the ratios of ``FLOAT_TIED`` on outputs 0 and 1 in the
    wrong order in the floats (equal there, so the sort keeps them by position); the pair (1, 0) is at
    most 7-DP, so the profile past t = 7 is the pair (0, 1)'s."""
    d = 2**31 - 1
    (a, b), (a2, b2) = FLOAT_TIED
    return Mechanism.from_scaled([[a, a2, d - a - a2], [b, b2, d - b - b2]], [d, d])


@settings(max_examples=150)
@given(wide_mechanisms())
def test_the_int64_lines_are_the_python_lines(mech: Mechanism) -> None:
    """The profile from ``_dense_lines`` (numpy, int64) is the one from ``_pair_lines`` (Python
    integers, forced by a bound of 0 on the denominators), every line screened by both."""
    from unittest import mock

    import mechlib.core.approximate as approximate

    with mock.patch.object(approximate, "_SCREEN_FROM", 1):
        dense = privacy_profile(mech)
        with mock.patch.object(approximate, "INT64_DENOMINATOR", 0):
            assert privacy_profile(mech) == dense


def test_a_float_order_that_is_wrong_is_left_to_the_exact_lines() -> None:
    """Ratios the floats cannot tell apart: the int64 cross-products find the pair misordered, its
    lines come from ``_pair_lines``, and the profile has the vertex between the two ratios — the one
    the float order alone would miss (its first output is the larger ratio's: S = {1})."""
    import numpy as np

    from mechlib.core.approximate import _sorted_prefixes

    mech = float_tied_mechanism()
    num, den = (np.array(x, dtype=np.int64) for x in mech.scaled())
    assert _sorted_prefixes(num, den, np.array([0]), np.array([1]))[4].tolist() == [True]
    (a, b), (a2, b2) = FLOAT_TIED
    profile = privacy_profile(mech)
    assert Fraction(a, b) in profile.ts and Fraction(a2, b2) in profile.ts
    assert any(piece.inputs == (0, 1) and piece.outputs == (1,) for piece in profile.pieces)
    assert all(profile.delta_at(t) == hockey_stick(mech, t) for t in (*profile.ts, Fraction(a + a2, b + b2)))


@pytest.mark.parametrize("int64", [True, False], ids=["int64 rows", "Python integers"])
@pytest.mark.parametrize("mech", [float_tied_mechanism(), randomized_response("1/3", 5), "random"])
def test_the_checker_finds_a_vertex_lowered_by_one_part_in_10_to_the_30(
    monkeypatch: pytest.MonkeyPatch, mech: Mechanism | str, int64: bool
) -> None:
    """The checker accepts the audit's profile and rejects it with one vertex's δ lowered by 10⁻³⁰ (far
    below the floats' margin: decided in integers), naming that vertex and a pair attaining it — on
    its int64 path and on its Python-integer one."""
    import json

    import mechlib.checkers.approximate_dp as checker
    from benchmarks.sources import dense_random
    from mechlib.audit.loading import LoadedMechanism
    from mechlib.audit.whitebox import audit
    from mechlib.checkers.audit_certificate import check_certificate

    mech = dense_random(12) if mech == "random" else mech
    assert isinstance(mech, Mechanism)
    if not int64:
        monkeypatch.setattr(checker, "INT64_DENOMINATOR", 0)
    report = audit(LoadedMechanism(mech, "m", "python", "0" * 64), delta=Fraction(1, 10**6))
    doc = json.loads(json.dumps(report))
    assert check_certificate(doc) == []
    vertices, pieces = doc["approximate_dp"]["profile"]["vertices"], doc["approximate_dp"]["profile"]["pieces"]
    k = len(vertices) // 2 if len(vertices) > 2 else 0
    vertices[k]["delta"] = str(Fraction(vertices[k]["delta"]) - Fraction(1, 10**30))
    failures = check_certificate(doc)
    assert any(f"at vertex {k} (α = {vertices[k]['alpha']}) the pair of rows" in failure for failure in failures)
    assert len(pieces) == len(vertices)


def test_a_vertex_past_the_floats_range_is_decided_in_integers() -> None:
    """x_0 = (1/2, 1/2) and x_1 = (1, 0): H_t(x_0 ‖ x_1) = 1/2 at every t (an output x_1 never gives). A
    profile claiming δ = 0 from t = 10³⁰⁸ is refused there, though t·d/e is ∞ in floats (no float
    comparison with NaN may settle it) — and at t = 10⁴⁰⁰, past the floats, in integers throughout."""
    import mechlib.checkers.approximate_dp as checker
    from mechlib.checkers.fields import IntRows, Q

    rows = IntRows(den=[2, 1], num=[[1, 1], [1, 0]])
    for t in (Q(10**308), Q(10**400)):
        assert checker._first_pair_above(rows, [(0, 1), (1, 0)], [Q(1), t], [Q(1, 2), Q(0)]) == (1, (0, 1))


@settings(max_examples=100)
@given(wide_mechanisms(), st.sampled_from([Fraction(1), Fraction(3, 2), Fraction(7)]))
def test_divergences_over_merged_ratios_are_the_per_output_ones(mech: Mechanism, lam: Fraction) -> None:
    """D_λ of each ordered pair with the outputs of one likelihood ratio merged — the audit's
    (``ratio_groups``) and the checker's (``_ratios``) — is a ball overlapping the one summed output by
    output (``renyi_divergence``), and ∞ exactly when that one is."""
    import mechlib.checkers.approximate_dp as checker
    from mechlib.checkers.fields import IntRows, Q
    from mechlib.core.privacy import to_arb
    from mechlib.core.renyi import _divergence, _grouped, ratio_groups

    num, den = mech.scaled()
    rows = IntRows(list(den), [list(row) for row in num])
    with arb_precision(128):
        for x, y in mech.ordered_neighbour_positions:
            direct = renyi_divergence(mech.rows[x], mech.rows[y], lam)
            merged = _divergence(*_grouped(mech, ratio_groups(mech))[x, y], to_arb(lam), lam == 1)
            logs = checker._logs(rows, x, y, checker._ratios(rows, x, y))
            checked = checker._divergence(*logs, Q(lam.numerator, lam.denominator))
            if direct is None:
                assert merged is None and checked is None
            else:
                assert merged is not None and checked is not None
                assert direct.overlaps(merged) and direct.overlaps(checked)
