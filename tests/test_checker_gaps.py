"""Forgeries that keep a certificate's other fields consistent, so that exactly one check of the
trusted base (``mechlib/checkers/``) stands between them and acceptance. tests/test_tampering.py
changes one leaf at a time, which some checks never see: found by mutation testing the checkers
(``python3 dev.py mutate``, reports/checker_mutation.md). Each forgery states something false
(a profile below the true one, an optimum above the true one, a lower bound above an achieved
loss, a Clopper–Pearson bound the counts do not support) and must be rejected; each malformed
field must be named in its error; and the edge cases a check must accept (an output of probability
0, a grid of two orders, a grid off its step) must check. benchmarks/checker_mutation_equivalent.json
argues why each mutant these tests leave alive changes nothing."""

from __future__ import annotations

import copy
import json
import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechlib import randomized_response, truncated_geometric
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.checkers.blackbox_result import check_result
from mechlib.checkers.bracket_certificate import check_certificate as check_bracket
from mechlib.checkers.fields import IntRows, Malformed, Q
from mechlib.core.families import exponential
from mechlib.core.mechanism import Mechanism
from mechlib.core.users import BayesUser, Loss, Prior
from mechlib.infodesign.cell_lp import Bracket


def _audit(mech: Mechanism, **options: Any) -> dict[str, Any]:
    claimed = options.pop("claimed", None)
    users = options.pop("users", ())
    loaded = LoadedMechanism(mech, "test", "json", "0" * 64, claimed_alpha=claimed, claimed_delta=options.get("delta"))
    doc: dict[str, Any] = json.loads(json.dumps(audit(loaded, users, **options)))
    assert check_certificate(doc) == []
    return doc


def test_a_privacy_profile_below_the_true_one_is_rejected_at_its_vertices() -> None:
    """T at α = 1/2 is not (ln 3/2, 1/10)-DP. The forged profile δ ≡ 0 (one vertex at α = 1, one
    piece on the empty output set) is made of real lines meeting it at its vertex, and the claim,
    the verdict and the tightest α at δ all follow from it: only the envelope comparison at the
    vertices — every pair's hockey-stick divergence ≤ δ — sees that δ(1) is the rows' total variation."""
    doc = _audit(truncated_geometric("1/2", 3), claimed=Fraction(2, 3), delta=Fraction(1, 10))
    assert doc["claimed"]["holds"] is False and doc["verdict"] == "FAIL"
    forged = copy.deepcopy(doc)
    section = forged["approximate_dp"]
    section["profile"] = {
        "vertices": [{"alpha": "1", "delta": "0"}],
        "pieces": [{"inputs": None, "outputs": [], "mass": "0", "neighbour_mass": "0"}],
    }
    section["at_delta"].update(alpha="1", epsilon_interval=["0", "0"], piece=0)
    forged["claimed"]["holds"], forged["verdict"] = True, "PASS"
    assert check_certificate(forged) == [
        "approximate_dp.profile: at vertex 0 (α = 1) the pair of rows (0, 1) has hockey-stick divergence above δ = 0"
    ]


def test_a_profile_has_one_piece_per_vertex_and_names_its_fields() -> None:
    """A piece fewer than vertices, a number that is none, α not falling from 1 to above 0, outputs
    repeated or not the mechanism's, outputs without a pair: each refused with the field named."""
    doc = _audit(truncated_geometric("1/2", 3), delta=Fraction(1, 20))
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["profile"]["pieces"].pop()
    assert check_certificate(forged) == ["malformed certificate: approximate_dp.profile.pieces: expected a list of 2"]
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["profile"]["vertices"][1]["delta"] = "1/0"
    [failure] = check_certificate(forged)
    assert failure.startswith("malformed certificate: approximate_dp.profile.vertices[1].delta: "), failure
    alphas = "malformed certificate: approximate_dp.profile.vertices: α must start at 1 and decrease, staying > 0"
    for values in (["1/2", "1/4"], ["1", "1"], ["1", "0"]):
        forged = copy.deepcopy(doc)
        for vertex, alpha in zip(forged["approximate_dp"]["profile"]["vertices"], values):
            vertex["alpha"] = alpha
        assert check_certificate(forged) == [alphas], values
    where = "malformed certificate: approximate_dp.profile.pieces[0]"
    for change, failure in (
        ({"outputs": [0, 0]}, f"{where}.outputs: expected distinct outputs of the mechanism"),
        ({"outputs": [99]}, f"{where}.outputs: expected distinct outputs of the mechanism"),
        ({"inputs": None}, f"{where}: a set of outputs needs its pair of inputs"),
    ):
        forged = copy.deepcopy(doc)
        forged["approximate_dp"]["profile"]["pieces"][0].update(change)
        assert check_certificate(forged) == [failure], change


def test_a_profile_is_compared_with_every_unit_of_excess() -> None:
    """The identity on 0..1 (rows 1, 0 and 0, 1 over the denominator 1): at α = 1 each ordered pair's
    excess, in the checker's integers, is exactly 1 (1·1 − 1·0 on one output): δ(1) = 1, not 0."""
    doc = _audit(Mechanism([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]), delta=Fraction(0))
    assert doc["approximate_dp"]["profile"]["vertices"][0] == {"alpha": "1", "delta": "1"}
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["profile"] = {
        "vertices": [{"alpha": "1", "delta": "0"}],
        "pieces": [{"inputs": None, "outputs": [], "mass": "0", "neighbour_mass": "0"}],
    }
    forged["approximate_dp"]["at_delta"].update(alpha="1", epsilon_interval=["0", "0"], piece=0)
    assert check_certificate(forged) == [
        "approximate_dp.profile: at vertex 0 (α = 1) the pair of rows (0, 1) has hockey-stick divergence above δ = 0"
    ]


def test_each_profile_piece_meets_both_of_its_vertices() -> None:
    """T at α = 1/2: the piece 2/3 − t/3 reaches 0 at t = 2. Its vertex moved to t = 3 (α = 1/3,
    still δ = 0, still above the true profile) leaves the line off its right end; a flat piece
    (B = 0) before the last one is no piece of the profile either."""
    doc = _audit(truncated_geometric("1/2", 3), delta=Fraction(1, 20))
    off = "approximate_dp.profile.pieces[0]: its line P_i(S) − P_i′(S)/α does not meet the profile at its vertices"
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["profile"]["vertices"][1]["alpha"] = "1/3"
    forged["approximate_dp"]["at_delta"] = None
    assert check_certificate(forged) == [off]
    flat: dict[str, Any] = {"inputs": None, "outputs": [], "mass": "0", "neighbour_mass": "0"}
    uniform = _audit(Mechanism([[Fraction(1, 2)] * 2] * 2), delta=Fraction(0))
    uniform["approximate_dp"]["profile"] = {"vertices": [{"alpha": "1", "delta": "0"}, {"alpha": "1/2", "delta": "0"}],
                                            "pieces": [flat, flat]}  # fmt: skip
    uniform["approximate_dp"]["at_delta"] = None
    assert check_certificate(uniform) == [off]
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["profile"]["pieces"][0]["mass"] = "1/2"
    failures = check_certificate(forged)
    assert "approximate_dp.profile.pieces[0]: the masses are not P_i(S) and P_i′(S)" in failures, failures


def test_a_profile_vertex_moved_with_its_lines_is_rejected() -> None:
    """A profile whose inner vertex sits on a weaker pair's line: each piece is still a real line
    A − B·t through its recorded vertices, but between them the profile is below the true one."""
    doc = _audit(truncated_geometric("1/2", 3), delta=Fraction(1, 20))
    profile = doc["approximate_dp"]["profile"]
    assert [v["delta"] for v in profile["vertices"]] == ["1/3", "0"]
    forged = copy.deepcopy(doc)
    # the pair (1, 0) on output 1: A = P_1({1}) = 1/3, B = P_0({1}) = 1/6, zero at t = 2 (α = 1/2)
    weak = {"inputs": [1, 0], "outputs": [1], "mass": "1/3", "neighbour_mass": "1/6"}
    forged["approximate_dp"]["profile"] = {
        "vertices": [{"alpha": "1", "delta": "1/6"}, {"alpha": "1/2", "delta": "0"}],
        "pieces": [weak, profile["pieces"][1]],
    }
    forged["approximate_dp"]["at_delta"] = None
    failures = check_certificate(forged)
    assert failures and all("hockey-stick divergence above" in f for f in failures), failures


def test_the_tightest_alpha_states_its_value_and_delta_stays_a_probability() -> None:
    """A wrong α at δ is named with the right one; a δ above 1 is refused."""
    doc = _audit(truncated_geometric("1/2", 3), delta=Fraction(1, 5))
    at = doc["approximate_dp"]["at_delta"]
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["at_delta"]["alpha"] = "1/3"
    assert check_certificate(forged) == [
        f"approximate_dp.at_delta: the tightest α at δ = 1/5 is {at['alpha']} (piece {at['piece']})"
    ]
    forged["approximate_dp"]["at_delta"].update(delta="3/2", alpha="1", piece=0)
    assert check_certificate(forged) == ["malformed certificate: approximate_dp.at_delta.delta: 3/2 is not in [0, 1]"]


def test_the_tightest_alpha_is_checked_at_the_profiles_ends() -> None:
    """δ at a vertex (δ(1), δ(t_K)) and beyond the ends: the producer's at_delta checks, so the
    checker's piece search agrees there too (δ ≥ δ(1): α = 1; δ < δ(∞): no α, piece null)."""
    rows = [list(row) for row in exponential("1/2", 2).rows]
    rows[0] = [rows[0][0] + rows[0][-1], *rows[0][1:-1], Fraction(0)]  # an output count 0 never gives
    leaky = Mechanism(rows)
    floor = min(Fraction(v["delta"]) for v in _audit(leaky, delta=Fraction(1))["approximate_dp"]["profile"]["vertices"])
    assert floor > 0
    cases = [(truncated_geometric("1/2", 3), d) for d in (Fraction(0), Fraction(1, 3), Fraction(1, 5), Fraction(1))]
    cases += [(leaky, floor), (leaky, floor - Fraction(1, 10**9))]
    cases += [(exponential("1/2", 3), Fraction(1, 10))]  # δ below its middle vertex 4/15 (three vertices)
    for mech, delta in cases:
        at = _audit(mech, delta=delta)["approximate_dp"]["at_delta"]  # checked inside
        assert (at["piece"] is None) == (delta < floor and mech is leaky), at


@pytest.mark.parametrize(
    ("rows", "orders"),
    [
        (truncated_geometric("1/2", 3).rows, (1, 4)),  # the sup at λ = 1 (KL)
        ([[Fraction(2, 3), Fraction(0), Fraction(1, 3)], [Fraction(1, 3), Fraction(0), Fraction(2, 3)]], (2, 8)),
    ],
    ids=["T, orders 1 to 4", "an output never given, orders 2 to 8"],
)
def test_a_zcdp_bracket_is_checked_to_its_rounding(rows: Any, orders: tuple[int, int]) -> None:
    """The producer rounds ρ_lo down and ρ_hi up at 12 decimals: either end moved inward by 10⁻¹⁰
    is rejected — at an order λ > 1 too, and past an output no row gives (it adds nothing to D_λ)."""
    doc = _audit(Mechanism([list(row) for row in rows]), renyi=tuple(Fraction(x) for x in orders))
    renyi = doc["approximate_dp"]["renyi"]
    lo, hi = (Fraction(x) for x in renyi["rho_interval"])
    tiny = Fraction(1, 10**10)
    forged = copy.deepcopy(doc)
    forged["approximate_dp"]["renyi"]["rho_interval"] = [str(lo + tiny), str(hi)]
    assert check_certificate(forged) == [
        f"approximate_dp.renyi: D_λ/λ at λ = {renyi['attained']['lambda']} does not reach ρ_lo = {lo + tiny}"
    ]
    forged["approximate_dp"]["renyi"]["rho_interval"] = [str(lo), str(hi - tiny)]
    [failure] = check_certificate(forged)
    assert failure.startswith("approximate_dp.renyi: on λ ∈ [") and failure.endswith(f"may exceed ρ_hi = {hi - tiny}")


def test_a_zcdp_bound_of_exactly_zero_checks() -> None:
    """Two equal deterministic rows (one output): every D_λ is an exact ball 0, and ρ = [0, 0] holds
    (D_λ/λ ≤ 0, not < 0)."""
    doc = _audit(Mechanism([[Fraction(1)], [Fraction(1)]]), renyi=(Fraction(1), Fraction(2)))
    assert doc["approximate_dp"]["renyi"]["rho_interval"] == ["0", "0"]


def test_a_zcdp_lower_end_is_attained_inside_the_range() -> None:
    """ρ_lo = 0 needs no order, but the recorded order must lie in the range: its high end is
    accepted, an order past it is not (whatever D_λ/λ there)."""
    doc = _audit(truncated_geometric("1/2", 3), renyi=(Fraction(1), Fraction(4)))
    forged = copy.deepcopy(doc)
    renyi = forged["approximate_dp"]["renyi"]
    renyi["rho_interval"][0] = "0"
    renyi["attained"]["lambda"] = "4"
    assert check_certificate(forged) == []
    renyi["attained"]["lambda"] = "5"
    assert check_certificate(forged) == ["approximate_dp.renyi: D_λ/λ at λ = 5 does not reach ρ_lo = 0"]


def test_a_zcdp_section_is_refused_above_the_audits_limit_before_any_arithmetic() -> None:
    """(ordered pairs) × likelihood ratios = 200 × 200 = 40,000 terms, the limit, is checked; one more
    output (40,200) is refused with the count. Rows alternating weights r + 1 and (r + 1)² on output r
    (every ratio of a pair distinct), a one-cell grid."""
    renyi = {"lambda_range": ["1", "2"], "grid": ["1", "2"], "rho_interval": ["0", "1/1000000"],
             "attained": {"lambda": "1", "inputs": [0, 1]}}  # fmt: skip
    refused = (
        "malformed certificate: approximate_dp.renyi: 40,200 (pair, likelihood ratio) terms, above 40,000, the "
        "audit's limit"
    )
    for width in (200, 201):
        weights = [[(r + 1) ** (1 + i % 2) for r in range(width)] for i in range(101)]
        doc = _audit(Mechanism.from_scaled(weights, [sum(w) for w in weights]), delta=Fraction(0))
        doc["approximate_dp"]["renyi"] = renyi
        failures = check_certificate(doc)
        assert (failures == [refused]) if width == 201 else not any("limit" in f for f in failures), width


def test_a_recorded_pair_must_be_two_neighbouring_inputs() -> None:
    """The attaining pair of the zCDP bracket with one input of the mechanism and one not: named."""
    doc = _audit(truncated_geometric("1/2", 3), renyi=(Fraction(1), Fraction(4)))
    for pair in ([0, 99], [99, 0], [0, 2]):
        forged = copy.deepcopy(doc)
        forged["approximate_dp"]["renyi"]["attained"]["inputs"] = pair
        assert check_certificate(forged) == [
            f"malformed certificate: approximate_dp.renyi.attained.inputs: {pair} is not a pair of neighbouring inputs"
        ]


def test_a_zcdp_grid_of_two_orders_checks_and_a_grid_that_does_not_rise_is_refused() -> None:
    """The coarsest grid is the range's two ends (one cell, a loose ρ_hi); a range starting below
    λ = 1 or a grid repeating an order is malformed."""
    doc = _audit(truncated_geometric("1/2", 3), renyi=(Fraction(1), Fraction(4)))
    coarse = copy.deepcopy(doc)
    coarse["approximate_dp"]["renyi"].update(
        grid=["1", "4"], rho_interval=[doc["approximate_dp"]["renyi"]["rho_interval"][0], "10"]
    )
    assert check_certificate(coarse) == []
    refused = (
        "malformed certificate: approximate_dp.renyi: the grid must rise from the range's low end (≥ 1) to its high end"
    )
    for lambda_range, grid in ((["1/2", "4"], ["1/2", "4"]), (["1", "4"], ["1", "2", "2", "4"])):
        forged = copy.deepcopy(coarse)
        forged["approximate_dp"]["renyi"].update(lambda_range=lambda_range, grid=grid)
        assert check_certificate(forged) == [refused], grid


def test_an_infinite_zcdp_bound_needs_an_output_one_row_gives_and_its_neighbour_never() -> None:
    """ρ = ∞ (``rho_interval`` null) is shown by the recorded (i, i′, r) with x_i[r] > 0 = x_i′[r]:
    the producer's record checks; the pair reversed, another output, or ∞ claimed for a mechanism
    whose ρ is finite, does not."""
    rows = [["1/2", "1/2", "0", "0"], ["1/4", "1/2", "1/4", "0"]]  # output 3: never given
    leak = Mechanism([[Fraction(x) for x in row] for row in rows])
    doc = _audit(leak, renyi=(Fraction(1), Fraction(2)))
    renyi = doc["approximate_dp"]["renyi"]
    assert renyi["rho_interval"] is None and renyi["attained"] == {"inputs": [1, 0], "output": 2}
    wrong = "approximate_dp.renyi: ρ = ∞ needs an output with x_i[r] > 0 = x_i′[r]"
    outputs = (2, 1, 3, 7)
    for attained in [{"inputs": [0, 1], "output": 2}, *({"inputs": [1, 0], "output": r} for r in outputs[1:])]:
        forged = copy.deepcopy(doc)
        forged["approximate_dp"]["renyi"]["attained"] = attained
        assert check_certificate(forged) == [wrong], attained
    finite = _audit(truncated_geometric("1/2", 1), renyi=(Fraction(1), Fraction(2)))
    finite["approximate_dp"]["renyi"].update(rho_interval=None, attained={"inputs": [1, 0], "output": 1})
    assert check_certificate(finite) == [wrong]


def test_a_mechanism_without_neighbours_has_zcdp_bound_zero() -> None:
    """One input, no pair: ρ = 0 with no attaining pair; any other bracket or a pair is refused."""
    doc = _audit(Mechanism([[Fraction(1, 2), Fraction(1, 2)]]), renyi=(Fraction(1), Fraction(2)))
    assert doc["approximate_dp"]["renyi"]["rho_interval"] == ["0", "0"]
    for rho, attained in ((["0", "1"], None), (["1", "1"], None), (["0", "0"], {"lambda": "1", "inputs": [0, 0]})):
        forged = copy.deepcopy(doc)
        forged["approximate_dp"]["renyi"].update(rho_interval=rho, attained=attained)
        assert check_certificate(forged) == ["approximate_dp.renyi: no neighbours, ρ = 0"], rho


def _user_with_loss_matrix() -> tuple[Mechanism, dict[str, Any], list[list[Fraction]]]:
    """Randomized response on 0..3 audited with a skewed prior and a cost matrix (as
    ``mechlib audit --prior --loss`` does), the user's entry, and T's rows at its DP level."""
    mech = randomized_response("1/3", 4)  # on 0..3
    prior = Prior([Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8)])
    cost = Loss([[abs(i - j) + (i > j) for j in range(4)] for i in range(4)])
    doc = _audit(mech, users=[("skewed", "cost", BayesUser(prior, cost))])
    user = doc["user_losses"]["users"][3]
    assert (user["prior_name"], user["loss_name"]) == ("skewed", "cost") and "optimum_mechanism" not in user
    t = truncated_geometric(Fraction(doc["dp_level"]), 3)
    return mech, doc, [list(row) for row in t.rows]


@pytest.mark.parametrize(
    ("up", "down", "amount"),
    [(0, 1, Fraction(1, 100)), (3, 1, Fraction(1, 2000))],
    ids=["count 1 to 0", "count 1 to 3"],
)
def test_a_loss_matrix_users_dual_must_be_feasible(up: int, down: int, amount: Fraction) -> None:
    """The dual moved between two counts: same total (the optimum), not feasible any more — moved to
    count 3, only at the last guess (its column w_3 = (p_i·l(i, 3) − y_i)_i leaves the cone)."""
    _, doc, _ = _user_with_loss_matrix()
    forged = copy.deepcopy(doc)
    dual = [Fraction(v) for v in forged["user_losses"]["users"][3]["dual"]]
    dual[up], dual[down] = dual[up] + amount, dual[down] - amount
    forged["user_losses"]["users"][3]["dual"] = [str(v) for v in dual]
    optimum = doc["user_losses"]["users"][3]["optimum"]
    assert check_certificate(forged) == [f"user (skewed, cost): the optimality certificate of {optimum} does not check"]


def test_a_loss_matrix_users_optimum_raised_with_a_worse_remap_is_rejected() -> None:
    """The forger's aim: a higher optimum makes the mechanism look closer to optimal. T with a worse
    remap (every output guessed as 0) reaches the raised value, the dual is scaled to sum to it
    and the ratio is recomputed — only the dual's feasibility is left to catch it."""
    _, doc, t = _user_with_loss_matrix()
    user = doc["user_losses"]["users"][3]
    prior = [Fraction(p) for p in user["prior"]]
    loss = [[Fraction(v) for v in row] for row in user["loss"]]
    worse = sum(p * x * loss[i][0] for i, (p, row) in enumerate(zip(prior, t)) for x in row)
    optimum = Fraction(user["optimum"])
    assert worse > optimum
    forged = copy.deepcopy(doc)
    entry = forged["user_losses"]["users"][3]
    entry["t_optimal_remap"] = {str(r): 0 for r in range(4)}
    entry["optimum"] = str(worse)
    entry["dual"] = [str(Fraction(v) * worse / optimum) for v in user["dual"]]
    entry["ratio"] = str(Fraction(user["mechanism"]) / worse)
    assert check_certificate(forged) == [f"user (skewed, cost): the optimality certificate of {worse} does not check"]


def _bracket(
    probabilities: tuple[str, str, str] = ("0.85", "0.12", "0.03"), epsilon: Fraction = Fraction(1)
) -> tuple[dict[str, Any], Bracket]:
    """A small SY Example 1 bracket certificate and the producer's exact bracket behind it."""
    from mechlib.infodesign.cell_lp import bracket
    from mechlib.infodesign.school_planning import Example, certificate, histogram_graph

    p0, p1, p2 = (Fraction(p) for p in probabilities)
    small = Example(households=4, probabilities=(p0, p1, p2), epsilon=epsilon)
    exact = bracket(histogram_graph(small, (2, 1)), Fraction(1, 2))
    doc = json.loads(json.dumps(certificate(small, (2, 1), exact)))
    assert check_bracket(doc) == []
    return doc, exact


def test_a_bracket_is_checked_to_the_last_digit() -> None:
    """The exact bounds (the mechanism's loss, the duals' weak-duality bound) are accepted; an upper
    bound below the loss or a lower bound above the dual bound by 10⁻⁴⁰ is not."""
    doc, exact = _bracket()
    tight = {**doc, "upper": str(exact.upper), "lower": str(exact.lower)}
    assert check_bracket(tight) == []
    tiny = Fraction(1, 10**40)
    assert check_bracket({**tight, "upper": str(exact.upper - tiny)}) == [
        "the mechanism's loss exceeds the claimed upper bound"
    ]
    assert check_bracket({**tight, "lower": str(exact.lower + tiny)}) == [
        "the dual bound is below the claimed lower bound"
    ]


def test_a_bracket_mechanism_at_exactly_the_dp_factor_checks() -> None:
    """x(u) = E_lo·x(v) exactly is allowed (the constraint is ≤), and so is an output of probability
    0 in every row: a hand-made mechanism (cell (0, 0) at ratio exactly E_lo to the others on output
    0, output 2 never given) with a generous upper bound checks."""
    doc, _ = _bracket()
    lo = Fraction(doc["factor_lo"])
    a = Fraction(1, 10)
    rows = {cell: {"0": str(a), "1": str(1 - a), "2": "0"} for cell in doc["mechanism"]}
    rows["0,0"] = {"0": str(lo * a), "1": str(1 - lo * a), "2": "0"}
    assert check_bracket({**doc, "mechanism": rows, "upper": "100"}) == []


def test_a_bracket_with_a_type_of_probability_zero_checks() -> None:
    _bracket(("0.88", "0.12", "0"))  # checked inside


def test_a_bracket_at_a_fractional_epsilon_checks() -> None:
    """e^ε with ε = 1/2 (not an integer: its numerator alone would give e^1, outside the factors)."""
    doc, _ = _bracket(epsilon=Fraction(1, 2))
    assert Fraction(doc["factor_hi"]) < 2  # e^(1/2) ≈ 1.6487 is enclosed, e ≈ 2.718 is not


def test_a_bracket_states_which_of_its_premises_fails() -> None:
    """Each forged premise is named, whatever else it breaks: type probabilities that do not sum
    to 1 (all ≥ 0), factors that do not enclose e^ε, a structure the schema refuses, and a dual
    too short to unpack."""
    doc, _ = _bracket()
    assert "type_probabilities are not a distribution" in check_bracket(
        {**doc, "type_probabilities": ["17/20", "3/25", "1/25"]}
    )
    for negative in (["-1/10", "1", "1/10"], ["1", "-1/10", "1/10"], ["1", "1/10", "-1/10"]):  # each sums to 1
        assert "type_probabilities are not a distribution" in check_bracket({**doc, "type_probabilities": negative})
    assert "factor_lo < e^epsilon < factor_hi does not hold" in check_bracket({**doc, "factor_lo": "3"})
    rows = doc["mechanism"]
    missing = {cell: row for cell, row in rows.items() if cell != "0,0"}
    assert check_bracket({**doc, "mechanism": missing}) == ["the mechanism does not have exactly one row per box cell"]
    for row in ({"0": "1/2", "1": "1/3"}, {"0": "-1/10", "1": "11/10"}):  # a sum below 1; a negative entry
        assert "mechanism row (0, 0) is not a distribution" in check_bracket({**doc, "mechanism": {**rows, "0,0": row}})
    [schema] = check_bracket({**doc, "households": 0})
    assert schema.startswith("malformed certificate: ") and "households" in schema, schema
    [short] = check_bracket({**doc, "duals": [[0, 0, 1, 0, "1"]]})
    assert short.startswith("malformed certificate: ValueError: "), short


def test_a_bracket_row_may_leave_out_an_output_of_probability_zero() -> None:
    """An output a row does not list has probability 0 there: against a row that lists it at 0 the
    pair is DP (0 ≤ E_lo·0), not malformed and not a violation."""
    doc, _ = _bracket()
    a = Fraction(1, 10)
    rows = {cell: {"1": str(a), "2": str(1 - a), "3": "0"} for cell in doc["mechanism"]}
    for cell in ("0,0", "1,0"):  # the first row of its edges, and the second of (0, 0) → (1, 0)
        left_out = {**rows, cell: {"1": str(a), "2": str(1 - a)}}
        assert check_bracket({**doc, "mechanism": left_out, "upper": "100"}) == [], cell


def test_a_bracket_box_must_fit_its_households() -> None:
    """The box (2, 1) holds the cell (2, 1), no histogram of N = 2 households: refused in one line naming
    the box. (So every
    pair of box rows that an edge from a cell with n₁ + n₂ = N joins is also joined by an edge from a
    cell inside: (A, n₂ − 1) → (A, n₂) when n₁ ≥ A, else (n₁, B) → (n₁ + 1, B).)"""
    doc, _ = _bracket()
    assert check_bracket({**doc, "households": 2}) == [
        "malformed certificate: box: (2, 1) holds a cell of 3 households, households is 2 "
        "(expected a box [a, b] with a + b ≤ households)"
    ]
    # a box that fits exactly, or is one row of cells, is well formed (its other checks then decide)
    for households, box in ((3, [2, 1]), (4, [0, 1]), (4, [2, 0])):
        assert not check_bracket({**doc, "households": households, "box": box})[0].startswith("malformed"), box


def test_a_bracket_grid_may_end_off_its_step() -> None:
    """ω_max = 4 on the box (2, 1); a step 3/2 gives the grid 0, 3/2, 3 and then 4 itself."""
    doc, _ = _bracket()
    assert check_bracket({**doc, "grid_step": "3/2", "duals": [], "lower": "-10"}) == []


def test_a_bracket_without_duals_bounds_nothing_above_its_loss() -> None:
    """No dual: the bound is the grid's Σ min_g π(c)(ω(c) − g)² − (h²/4)·π(box), at most the loss
    the mechanism achieves; a lower bound claimed above that loss is rejected."""
    doc, _ = _bracket()
    forged = {**doc, "duals": [], "lower": str(Fraction(doc["upper"]) + 1)}
    assert check_bracket(forged) == ["the dual bound is below the claimed lower bound"]


def test_every_malformed_bracket_dual_is_named() -> None:
    """Duals off a box edge (a cell outside the box, two cells two steps apart) or past the grid are
    each reported, and the duals after them still count (a zero value: the bound is unchanged)."""
    doc, _ = _bracket()
    points = 1 + 4 * 2  # the grid 0, 1/2, …, 4
    bad = [[3, 0, 2, 0, 0, "0"], [0, 0, 2, 0, 0, "0"], [0, 0, 1, 0, points, "0"]]
    failures = check_bracket({**doc, "duals": bad + doc["duals"]})
    assert failures == [
        f"dual ({u1}, {u2})->({v1}, {v2}) at grid point {k} is not a nonnegative dual of a box edge"
        for u1, u2, v1, v2, k, _ in bad
    ]


def test_a_negative_bracket_dual_is_rejected() -> None:
    """Weak duality needs y ≥ 0. With y = −z on one box edge u → v at every grid point, each of v's
    terms rises by E_hi·z and each of u's falls by z: the bound rises by (E_hi − 1)·z without limit.
    Here it is pushed above the certificate's own upper bound (a loss the mechanism achieves)."""
    doc, _ = _bracket()
    lower, upper, hi = (Fraction(doc[k]) for k in ("lower", "upper", "factor_hi"))
    z = 2 * (upper - lower) / (hi - 1)
    points = 1 + max(k for *_, k, _ in doc["duals"])
    forged = copy.deepcopy(doc)
    forged["duals"] += [[0, 0, 1, 0, k, str(-z)] for k in range(points)]
    forged["lower"] = str(lower + (hi - 1) * z)
    assert Fraction(forged["lower"]) > upper
    failures = check_bracket(forged)
    assert any("is not a nonnegative dual" in f for f in failures), failures
    zero = copy.deepcopy(doc)  # a zero dual is a dual: it changes nothing
    zero["duals"].append([0, 0, 1, 0, 0, "0"])
    assert check_bracket(zero) == []


def _blackbox(theta_steps: int = 0) -> dict[str, Any]:
    """A black-box result whose ε test rejects: count 0 gives output 1 far more often than count 1."""
    from mechlib.audit.blackbox import blackbox_result

    counts = [{0: 300, 1: 700}, {0: 700, 1: 300}]
    doc = blackbox_result(
        spec="synthetic:counts", library="test", n=1, samples=1000, seed=0, seconds=1.0,
        phases=([{}, {}], counts), epsilon=Fraction(1, 2), alpha_fa="0.05",
    )  # fmt: skip
    out: dict[str, Any] = json.loads(json.dumps(doc))
    assert check_result(out) == [] and out["dp"]["verdict"] == "violation"
    return out


def test_a_forged_clopper_pearson_bound_is_rejected() -> None:
    """θ_L raised halfway to 1, with the ratio |J|·θ_L/(1 − θ_L) and a larger ε that follow from it:
    every field agrees with the forged θ_L, which the counts do not support at the level."""
    doc = _blackbox()
    bound = doc["dp"]["epsilon_lower_bound"]
    assert len(bound["inputs"]) == 2 and not isinstance(bound["inputs"][1], list)  # a pair: |J| = 1
    low = (Fraction(bound["theta_lower_bound"]) + 1) / 2
    forged = copy.deepcopy(doc)
    claimed = math.floor(math.log(low / (1 - low)) * 10**6 - 1) / 10**6  # ε ≤ ln(θ_L/(1 − θ_L))
    forged["dp"]["epsilon_lower_bound"].update(
        theta_lower_bound=str(low), ratio_lower_bound=str(low / (1 - low)), epsilon=f"{claimed:.6f}"
    )
    assert claimed > float(bound["epsilon"])
    failures = check_result(forged)
    assert len(failures) == 1 and "not a verified Clopper–Pearson lower bound" in failures[0], failures


def _path(n: int) -> list[tuple[int, int]]:
    return [p for i in range(n) for p in ((i, i + 1), (i + 1, i))]


def test_the_ratio_tests_hypotheses_are_the_ones_their_format_defines() -> None:
    """The families written out from ratio_test's definitions, on small paths: the pairs and pooled
    counts (/8 pools a count against its whole component, /6 and /7 against its neighbours), the
    summed hypotheses of /8 and the one-tailed sums of /7 — none off the path 0–1–…–n."""
    from mechlib.checkers.ratio_test import family, one_tailed_sums, sums

    pairs = [(0, 1), (1, 0), (1, 2), (2, 1)]
    singles = [(i, [j], [1]) for i, j in pairs]
    assert family(pairs, grouped=False) == [*singles, (1, [0, 2], [1, 1])]
    assert family(pairs, grouped=True) == [*singles, (0, [1, 2], [1, 2]), (1, [0, 2], [1, 1]), (2, [0, 1], [2, 1])]

    def low(i: int, j: int) -> tuple[int, int, dict[str, int]]:
        return (i, j, {"at_most": i})

    def high(i: int, j: int) -> tuple[int, int, dict[str, int]]:
        return (i, j, {"at_least": i})

    ends = {3: [low(0, 1), high(3, 2)], 4: [low(0, 1), high(4, 3)]}
    assert sums(_path(1), 1) == [[low(0, 1), high(1, 0)]]
    assert sums(_path(2), 2) == [[low(0, 1), high(1, 0)], [low(1, 2), high(2, 1)]]
    assert sums(_path(3), 3) == [ends[3], [low(0, 1), high(1, 0), low(2, 3), high(3, 2)], [low(1, 2), high(2, 1)]]
    assert one_tailed_sums(_path(2), 2) == []
    assert one_tailed_sums(_path(3), 3) == [ends[3], [low(0, 1), low(2, 3)], [high(1, 0), high(3, 2)]]
    assert one_tailed_sums(_path(4), 4) == [
        ends[4],
        [low(0, 1), low(2, 3)],
        [high(1, 0), high(3, 2)],
        [low(1, 2), low(3, 4)],
        [high(2, 1), high(4, 3)],
    ]
    for off in (pairs[:3], [*pairs, (0, 1)], [*pairs, (0, 2), (2, 0)]):
        assert sums(off, 2) == one_tailed_sums(off, 2) == [], off


def _tail(k: int, m: int, theta: Fraction) -> Fraction:
    """P(Bin(m, θ) ≥ k), exactly."""
    return sum((math.comb(m, j) * theta**j * (1 - theta) ** (m - j) for j in range(max(k, 0), m + 1)), Fraction(0))


def test_the_checkers_tail_decisions_are_exact_at_small_theta() -> None:
    """θ₀ = 1/(1 + Σ_J t^(−d)) is small for a count pooled against many: there one hit (k = 1) and
    k = m can reject; the checker's decision is the exact one on both sides of the tail."""
    from mechlib.checkers.ratio_test import rejects

    for theta in (Fraction(1, 1000), Fraction(1, 60), Fraction(1, 3)):
        for m in (1, 2, 7, 40):
            for k in range(-1, m + 2):
                tail = _tail(k, m, theta)
                for level in (tail * Fraction(999, 1000), tail * Fraction(1001, 1000)):
                    if 0 < level < Fraction(1, 2):
                        assert rejects(k, m, theta, level) == (tail <= level), (k, m, theta, level)
    assert rejects(1, 5, Fraction(0), Fraction(1, 100)) and not rejects(0, 5, Fraction(0), Fraction(1, 100))
    # a level equal to the (rational) tail: a ball of positive radius cannot decide the tie, and
    # undecided is no rejection; an exact ball (P(Bin(2, 1/2) ≥ 2) = 1/4) decides it: rejected
    assert not any(rejects(k, 40, Fraction(1, 3), _tail(k, 40, Fraction(1, 3))) for k in (20, 30))
    assert rejects(2, 2, Fraction(1, 2), Fraction(1, 4))
    # more hits than trials: the tail is 0, at any θ
    assert all(rejects(m + 1, m, theta, Fraction(1, 100)) for m in (1, 7) for theta in (Fraction(1, 3), Fraction(2, 3)))


def test_the_checkers_clopper_pearson_test_is_exact() -> None:
    """θ_L is a lower bound at the level iff P(Bin(m, θ_L) ≥ k) ≤ level: checked on both sides of
    the exact tail; 0 is always one, and with no hit (k = 0) the only one."""
    from mechlib.checkers.ratio_test import lower_bound_holds

    level = Fraction(1, 40)
    for m in (1, 6, 30):
        for k in range(1, m + 1):
            for low in (Fraction(1, 100), Fraction(1, 4), Fraction(2, 3), Fraction(99, 100)):
                tail = _tail(k, m, low)
                for at in (tail * Fraction(999, 1000), tail * Fraction(1001, 1000)):
                    if 0 < at < 1:
                        assert lower_bound_holds(k, m, low, at) == (tail <= at), (k, m, low, at)
            assert lower_bound_holds(k, m, Fraction(0), level)
            # outside [0, 1] the incomplete beta is no probability (at θ = 2, k = 3, m = 6 it is −48)
            assert not any(lower_bound_holds(k, m, Fraction(x), level) for x in ("1", "3/2", "2", "-1/10"))
    assert lower_bound_holds(0, 5, Fraction(0), level)
    assert not lower_bound_holds(0, 5, Fraction(1, 10), level)
    # at the level exactly: P(Bin(2, 1/2) ≥ 2) = 1/4 is an exact ball, and 1/4 ≤ 1/4
    assert lower_bound_holds(2, 2, Fraction(1, 2), Fraction(1, 4))


def _named_user_with_its_optimal_mechanism() -> dict[str, Any]:
    """Randomized response's certificate with its first standard user (uniform prior, absolute loss)
    carrying the LP's form of proof, an optimal mechanism: T at the DP level (GRS Thm 3.1; its
    remap here is the identity), so that the general check (``_check_user``) takes it."""
    doc = _audit(randomized_response("1/3", 4))
    entry = doc["user_losses"]["users"][0]
    assert (entry["loss"], entry["t_optimal_remap"]) == ("absolute", {str(r): r for r in range(4)})
    entry["optimum_mechanism"] = truncated_geometric(Fraction(doc["dp_level"]), 3).to_integer_rows()
    assert check_certificate(doc) == []
    return doc


def test_a_named_users_loss_and_prior_are_the_names() -> None:
    """A loss named by a standard name is that loss, and a prior named uniform is uniform (a name
    outside the standard ones is refused by the schema)."""
    doc = _named_user_with_its_optimal_mechanism()
    user = "user (uniform, absolute)"
    binary = [[str(int(i != j)) for j in range(4)] for i in range(4)]
    for change, failure in (
        ({"loss_name": "squared"}, "user (uniform, squared): the loss is named 'absolute', not 'squared'"),
        ({"prior": ["1/2", "1/6", "1/6", "1/6"]}, f"{user}: the prior is not uniform"),
        ({"loss": binary}, f"{user}: the loss is not the absolute loss"),
    ):
        forged = copy.deepcopy(doc)
        forged["user_losses"]["users"][0].update(change)
        assert failure in check_certificate(forged), change


def test_an_optimal_mechanism_must_be_dp_stochastic_and_reach_the_optimum() -> None:
    """The LP's primal: T with count 1's mass on output 0 moved to output 2 (the same loss, not DP at
    α), T at another level (DP, stochastic, but its loss is not the optimum) and T with a row scaled
    (not stochastic) each leave the optimum unproved."""
    doc = _named_user_with_its_optimal_mechanism()
    alpha = Fraction(doc["dp_level"])
    optimum = doc["user_losses"]["users"][0]["optimum"]
    scaled = truncated_geometric(alpha, 3).to_integer_rows()
    scaled["denominators"][0] = format(2 * int(scaled["denominators"][0], 16), "x")
    rows = [list(row) for row in truncated_geometric(alpha, 3).rows]
    rows[1][2] += rows[1][0]  # the same loss (|1 − 0| = |1 − 2|), but output 0 never given by count 1: not DP
    rows[1][0] = Fraction(0)
    for primal in (
        Mechanism(rows).to_integer_rows(),
        truncated_geometric(alpha * alpha, 3).to_integer_rows(),
        scaled,
    ):
        forged = copy.deepcopy(doc)
        forged["user_losses"]["users"][0]["optimum_mechanism"] = primal
        failures = check_certificate(forged)
        assert f"user (uniform, absolute): the optimality certificate of {optimum} does not check" in failures, primal
    t = [list(row) for row in truncated_geometric(alpha, 3).rows]
    for shape in (Mechanism([*t, t[3]]), Mechanism([[*row, Fraction(0)] for row in t])):  # a row, a column too many
        forged = copy.deepcopy(doc)
        forged["user_losses"]["users"][0]["optimum_mechanism"] = shape.to_integer_rows()
        [failure] = check_certificate(forged)
        assert failure.startswith("malformed certificate: user_losses.users[0].optimum_mechanism"), failure


def test_a_loss_matrix_users_fields_are_each_checked() -> None:
    """Each field of a general user's entry, changed alone, is named: a prior or dual one entry too
    long (a zero: the sums are unchanged), a loss one row too many, a prior that is no distribution,
    a worse optimal remap, a ratio, T's remap."""
    _, doc, _ = _user_with_loss_matrix()
    user, where = "user (skewed, cost)", "malformed certificate: user_losses.users[3]"
    entry = doc["user_losses"]["users"][3]
    worse = {str(r): 0 for r in range(4)}
    for change, failure in (
        ({"prior": [*entry["prior"], "0"]}, f"{where}.prior: expected a list of 4"),
        ({"dual": [*entry["dual"], "0"]}, f"{where}.dual: expected a list of 4"),
        ({"prior": ["3/4", "1/2", "-1/4", "0"]}, f"{user}: the prior is not a distribution"),
        ({"prior": ["1/2", "1/4", "1/8", "1/4"]}, f"{user}: the prior is not a distribution"),
        ({"optimal_remap": worse}, f"{user}: the mechanism's loss with its optimal remap is not {entry['mechanism']}"),
        ({"ratio": "1"}, f"{user}: the ratio is not mechanism/optimum"),
        ({"t_optimal_remap": worse}, f"{user}: T with the recorded remap does not reach the optimum (GRS Thm 3.1)"),
    ):
        forged = copy.deepcopy(doc)
        forged["user_losses"]["users"][3].update(change)
        assert failure in check_certificate(forged), change
    for loss in (entry["loss"] + [["0"] * 4], [[*row, "0"] for row in entry["loss"]]):  # a row, a column too many
        forged = copy.deepcopy(doc)
        forged["user_losses"]["users"][3]["loss"] = loss
        [failure] = check_certificate(forged)
        assert failure.startswith(f"{where}.loss"), failure


def test_loss_matrix_users_at_the_edges_check() -> None:
    """A prior with zero mass on some counts, and a loss that is zero everywhere (optimum 0, no
    ratio): the producer's certificate checks."""
    zeros = Prior([Fraction(1, 2), Fraction(1, 2), Fraction(0), Fraction(0)])
    cost = Loss([[abs(i - j) for j in range(4)] for i in range(4)])
    free = Loss([[0] * 4 for _ in range(4)])
    users = [("zeros", "cost", BayesUser(zeros, cost)), ("zeros", "free", BayesUser(zeros, free))]
    doc = _audit(randomized_response("1/3", 4), users=users)
    free_user = doc["user_losses"]["users"][4]
    assert free_user["optimum"] == "0" and free_user["ratio"] is None


# The two float enclosures of the trusted base, attacked at their margins. Each answer is compared with
# one computed here in Fractions (the checkers' own integer paths are not the oracle).


def _hockey_stick(m: IntRows, i: int, j: int, t: Fraction) -> Fraction:
    excess = (Fraction(a, m.den[i]) - t * Fraction(b, m.den[j]) for a, b in zip(m.num[i], m.num[j]))
    return sum((x for x in excess if x > 0), Fraction(0))


def _first_above(m: IntRows, ordered: list[tuple[int, int]], ts: list[Fraction], deltas: list[Fraction]) -> Any:
    return next(((k, p) for k, (t, d) in enumerate(zip(ts, deltas)) for p in ordered if _hockey_stick(m, *p, t) > d),
                None)  # fmt: skip


def _dense_recheck(m: IntRows, ordered: list[tuple[int, int]], ts: list[Fraction], deltas: list[Fraction]) -> Any:
    from mechlib.checkers.approximate_dp import _first_pair_above

    return _first_pair_above(m, ordered, *([Q(x.numerator, x.denominator) for x in xs] for xs in (ts, deltas)))


#: t·d/e moved off an output's exact ratio by less than the floats see, and by far less (10⁻⁴⁰⁰).
_SHIFTS = [Fraction(s, 2**e) for s in (1, -1, 3, -3) for e in (52, 54, 56, 60)] + [Fraction(1, 10**400)]


def _profile_at(m: IntRows, ordered: list[tuple[int, int]], t: Fraction) -> tuple[list[Fraction], list[Fraction]]:
    """Vertices 1 and t with δ the true profile there (the margins are tested by lowering δ)."""
    return [Fraction(1), t], [max(_hockey_stick(m, *p, s) for p in ordered) for s in (Fraction(1), t)]


@settings(max_examples=150, deadline=None, database=None)
@given(st.integers(2**30, 2**31 - 1), st.integers(2**30, 2**31 - 1), st.integers(1, 2**29), st.integers(1, 2**29))
def test_the_dense_profile_recheck_is_exact_where_an_outputs_ratio_is_within_ulps_of_t(
    d: int, e: int, a: int, b: int
) -> None:
    """Rows over denominators near 2³¹ (the int64 path's limit), t placed within a few ulps — or 10⁻⁴⁰⁰ —
    of an output's exact a·e/(b·d), on either side: the float ratio may land on the wrong side of t·d/e.
    δ at the true profile checks; δ lowered by 10⁻⁴⁰ (far inside MARGIN·(1 + t)) is refused at that
    vertex, as in Fractions — so neither MARGIN nor the exact NEAR window can be dropped."""
    m = IntRows([d, e], [[a, d - a], [b, e - b]])
    ordered = [(0, 1), (1, 0)]
    for shift in _SHIFTS:
        t = Fraction(a * e, b * d) * (1 + shift)
        if t <= 1:
            continue
        ts, deltas = _profile_at(m, ordered, t)
        assert _dense_recheck(m, ordered, ts, deltas) is None
        lowered = [deltas[0], deltas[1] - Fraction(1, 10**40)]
        assert _dense_recheck(m, ordered, ts, lowered) == _first_above(m, ordered, ts, lowered) is not None


def test_two_ratios_equal_in_floats_are_split_exactly_by_t() -> None:
    """Outputs 0 and 1 have ratios 1 + 2⁻²⁹ and 1 + 1/(2²⁹ − 1), one float apart from nothing (the same
    double); t halfway between them puts output 1 alone in the pair's threshold set, H_t ≈ 4·10⁻¹⁹. δ = 0
    there (where the floats see no output above t) and δ lowered by 10⁻⁴⁰ are refused, the true δ checks."""
    d = 2**31 - 1
    x, y = [2**29 + 1, 2**29], [2**29, 2**29 - 1]
    m = IntRows([d, d], [[*x, d - sum(x)], [*y, d - sum(y)]])
    low, high = Fraction(x[0], y[0]), Fraction(x[1], y[1])
    assert float(low) == float(high) and low < high
    ordered = [(0, 1), (1, 0)]
    ts, deltas = _profile_at(m, ordered, (low + high) / 2)
    assert 0 < deltas[1] < Fraction(1, 10**18)
    assert _dense_recheck(m, ordered, ts, deltas) is None
    for wrong in (Fraction(0), deltas[1] - Fraction(1, 10**40)):
        lowered = [deltas[0], wrong]
        assert _dense_recheck(m, ordered, ts, lowered) == _first_above(m, ordered, ts, lowered) is not None


@pytest.mark.parametrize(("t", "delta"), [(Fraction(10**308), Fraction(0)), (Fraction(3, 2), -Fraction(1, 10**400))])
def test_a_tiny_or_negative_delta_and_a_huge_finite_t_are_decided_exactly(t: Fraction, delta: Fraction) -> None:
    """Identical rows (H_t = 0 at every t) with an output of probability 0: δ = 0 checks, δ = −10⁻⁴⁰⁰
    (−0.0 in floats) is refused. x_0 = (1/2, 1/2) beside x_1 = (1, 0): H_t = 1/2 at every t, from an
    output x_1 never gives; at t = 10³⁰⁸ (a float, but t·d/e = ∞: the float threshold set is empty and
    the float H_t is 0) δ = 1/2 checks and δ = 1/4 is refused — only the margin's factor (1 + t) sends
    that vertex to the integers."""
    same = IntRows([2**31 - 1] * 2, [[2**31 - 2, 1, 0]] * 2)
    ts, ordered = [Fraction(1), t], [(0, 1), (1, 0)]
    assert _dense_recheck(same, ordered, ts, [Fraction(0), max(delta, Fraction(0))]) is None
    assert _dense_recheck(same, ordered, ts, [Fraction(0), delta]) == (None if delta >= 0 else (1, (0, 1)))
    apart = IntRows([2, 1], [[1, 1], [1, 0]])
    ts, deltas = _profile_at(apart, ordered, t)
    assert _dense_recheck(apart, ordered, ts, deltas) is None
    for lowered in (deltas[1] - Fraction(1, 10**40), deltas[1] / 2):
        assert _dense_recheck(apart, ordered, ts, [deltas[0], lowered]) == (1, (0, 1))


@pytest.mark.parametrize("entry", [2**62, 2**63, 2**64 + 5])
def test_a_non_stochastic_matrix_with_an_approximate_section_is_a_failure_not_a_crash(entry: int) -> None:
    """The dense --delta re-check reads rows as int64 only when they are stochastic over denominators
    below 2³¹ (each entry and prefix sum ≤ den): a remap entry of 2⁶³ (not int64) or 2⁶² (sums past
    int64) is the listed failure 'not row-stochastic', not an OverflowError."""
    doc = _audit(truncated_geometric("1/2", 3), delta=Fraction(1, 20))
    forged = copy.deepcopy(doc)
    forged["mechanism"]["matrix"]["remap"]["numerators"][0][0] = format(entry, "x")
    assert "the matrix's remap Y is not row-stochastic" in check_certificate(forged)


def _enclosure_holds(kind: str, m: IntRows) -> None:
    """Every remap of a two-output matrix: ``_enclosed_loss`` is None iff a guess is not a least-loss
    guess of its column (in Fractions), and otherwise encloses the exact loss."""
    from itertools import product

    from mechlib.checkers.bracketed_users import _enclosed_loss, weight_bounds

    n = len(m.num) - 1
    bounds = weight_bounds(m)

    def loss(i: int, g: int) -> int:
        return abs(i - g) if kind == "absolute" else (i - g) ** 2 if kind == "squared" else int(i != g)

    weights = [[Fraction(a, d * (n + 1)) for a in row] for row, d in zip(m.num, m.den)]
    columns = [[sum(weights[i][r] * loss(i, g) for i in range(n + 1)) for g in range(n + 1)] for r in range(2)]
    for guess in product(range(n + 1), repeat=len(columns)):
        found = _enclosed_loss(kind, m, bounds, list(guess), n)
        least = all(c[g] == min(c) for c, g in zip(columns, guess))
        assert (found is not None) == least, (kind, guess)
        if found is not None:
            exact = sum(c[g] for c, g in zip(columns, guess))
            assert Fraction(float(found[0])) <= exact <= Fraction(float(found[1])), (kind, guess)


#: Rows 1 and 2 over ≈ 1100- and ≈ 1000-bit denominators, row 0 over their product (cut to its top
#: 1000 bits by ``weight_bounds``), so that row 0's column-0 weight can sit one unit of 1/D₀ ≈ 2⁻²¹⁰⁰
#: either side of a median, mean or mode boundary — far inside the floats' reach.
_D1, _D2 = 3**700, 5**430


@pytest.mark.parametrize("unit", [-1, 0, 1])
@pytest.mark.parametrize(
    ("kind", "share"),
    [("absolute", (1, 1)), ("squared", (1, 3)), ("binary", (1, 0))],  # x_0 = c₁·x_1 + c₂·x_2 at the boundary
)
def test_bracketed_least_loss_guesses_at_a_boundary_are_decided_exactly(
    kind: str, share: tuple[int, int], unit: int
) -> None:
    """Absolute: guess 1 is a weighted median iff x_0 ≤ x_1 + x_2 (2·A_1 ≤ W), guesses 0 and 1 tie at
    equality; squared: guess 1 is nearest the mean iff x_0 ≤ x_1 + 3·x_2 ((2g − 1)·W ≤ 2·S₁); binary:
    row 0 is a mode iff x_0 ≥ x_1. Row 0's weight is put exactly there and one unit either side: the
    floats cannot tell these apart, the checker must decide them exactly, and enclose the loss."""
    a1, a2 = _D1 // 8, _D2 // 8
    x0 = share[0] * a1 * _D2 + share[1] * a2 * _D1 + unit
    m = IntRows([_D1 * _D2, _D1, _D2], [[x0, _D1 * _D2 - x0], [a1, _D1 - a1], [a2, _D2 - a2]])
    _enclosure_holds(kind, m)


@pytest.mark.parametrize("kind", ["absolute", "squared", "binary"])
def test_bracketed_columns_of_zero_weights_are_decided_exactly(kind: str) -> None:
    """A column no row gives (every guess ties: each float weight is enclosed in ±5·10⁻³²⁴, which proves
    no guess) and a column of ties across 1000-bit denominators: every remap decided as in Fractions."""
    big = 3**630
    _enclosure_holds(kind, IntRows([big, 2 * big, 1], [[big, 0], [2 * big, 0], [1, 0]]))
    _enclosure_holds(kind, IntRows([big, 2 * big, 2], [[big - 1, 1], [2 * big - 2, 2], [1, 1]]))


@pytest.mark.parametrize("bits", [999, 1000, 1001, 1053, 1100, 2100])
def test_weight_bounds_enclose_entries_at_the_cut(bits: int) -> None:
    """Denominators 2^b − 1, 2^b, 2^b + 1 around the 1000-bit cut (k = b − 999 or b − 1000 bits dropped),
    entries 0, 1, 2^k − 1 (cut to 0), 2^k, ⌊d/3⌋, d − 1 and d: each weight x/(n + 1) is enclosed."""
    from mechlib.checkers.bracketed_users import weight_bounds

    dens = [(1 << bits) - 1, 1 << bits, (1 << bits) + 1]
    rows = []
    for d in dens:
        k = max(d.bit_length() - 1000, 0)
        entries = [0, 1, (1 << k) - 1, 1 << k, d // 3, d - 1, d]
        rows.append([e for e in entries if e <= d])
    width = min(map(len, rows))
    m = IntRows(dens, [row[:width] for row in rows])
    lo, hi = weight_bounds(m)
    for i, (row, d) in enumerate(zip(m.num, m.den)):
        for r, a in enumerate(row):
            assert Fraction(float(lo[i][r])) <= Fraction(a, 3 * d) <= Fraction(float(hi[i][r])), (i, r)


@pytest.mark.parametrize(
    ("den", "entry"),
    [
        ((1 << 1000) + 1, (2**1024 - 2**970 - 1) << 1),  # cut to a float whose next integer overflows
        (1, 2**1024 - 2**971),  # the largest float: an upper bound of ∞, a loss bound ∞·0 = NaN
        (1, 2),
    ],
)
def test_a_weight_above_its_denominator_is_refused_before_any_float(den: int, entry: int) -> None:
    """The enclosures hold for entries up to their row's denominator (x ≤ 1); an entry above it (a
    matrix that is not stochastic) is refused, naming the matrix — not an OverflowError, nor NaN."""
    from mechlib.checkers.bracketed_users import weight_bounds

    with pytest.raises(Malformed, match=r"^mechanism\.matrix: row 0 has an entry above its denominator$"):
        weight_bounds(IntRows([den, 1], [[entry, 0], [0, 1]]))


@pytest.mark.parametrize(
    "terms",
    [[1.0] + [2.0**-54] * 1000, [1.0] + [2.0**-53 * (1 + 2.0**-52)] * 6],
    ids=["each-addition-rounds-down", "each-addition-rounds-up"],
)
def test_bracketed_sum_bounds_hold_where_the_float_sum_is_ulps_off(terms: list[float]) -> None:
    """1 plus a thousand 2⁻⁵⁴ (each lost in the addition: the float sum 3 ulps below the exact one), and
    1 plus six terms just above half an ulp (each rounding up: 3 ulps above): one ulp outward would not
    enclose either; the bound g·Σ, g = N·2⁻⁵², does."""
    import numpy as np

    from mechlib.checkers.bracketed_users import _sum_bounds

    values = np.array(terms)
    exact = sum(map(Fraction, terms), Fraction(0))
    low, high = _sum_bounds(values, values)
    assert Fraction(float(low)) <= exact <= Fraction(float(high))
    assert (
        not Fraction(float(np.nextafter(np.sum(values), -np.inf)))
        <= exact
        <= Fraction(float(np.nextafter(np.sum(values), np.inf)))
    )


def test_the_shared_field_readers_name_the_field_and_take_ints_and_strings() -> None:
    """mechlib/checkers/fields.py, which every certificate reaches only with well-formed values."""
    from mechlib.checkers.fields import Malformed, Q, _f, _list

    assert _f(3, "w") == Q(3) and _f("-3/4", "w") == Q(-3, 4)
    with pytest.raises(Malformed, match=r"^w: expected an exact number as a string, got \[1\]$"):
        _f([1], "w")  # not a string: read by the number reader (never looked up in the cache of strings)
    with pytest.raises(Malformed, match=r"^w: expected a list$"):
        _list(5, "w")
    with pytest.raises(Malformed, match=r"^w: expected a list of 2$"):
        _list([1, 2, 3], "w", 2)


def test_an_epsilon_interval_is_fifteen_decimals_around_ln_one_over_alpha_at_most_two_units_wide() -> None:
    """ε = ln 2 = 0.693147180559945 3…: the interval must contain it, have 15 decimals at each end,
    start at 0 or above and be at most 2·10⁻¹⁵ wide; null exactly when α = 0."""
    from mechlib.checkers.fields import Malformed, Q, check_epsilon

    half = Q(1, 2)

    def ends(lo: int, hi: int) -> list[str]:
        return [f"0.693147180559{lo}", f"0.693147180559{hi}"]

    assert check_epsilon(ends(945, 946), half, "w") == [] and check_epsilon(ends(945, 947), half, "w") == []
    assert check_epsilon(None, Q(0), "w") == []
    assert check_epsilon(ends(945, 946), Q(0), "w") == ["w must be null when α = 0 (ε = ∞)"]
    for lo, hi in ((945, 948), (944, 947), (946, 947), (943, 944), (946, 945)):  # 3 units wide (twice), above, below
        assert check_epsilon(ends(lo, hi), half, "w") == [f"w [{ends(lo, hi)[0]}, {ends(lo, hi)[1]}] does not bracket "
                                                          "ln(1/α) tightly"], (lo, hi)  # fmt: skip
    wide = ["0.693147180559945", "1.000000000000000"]
    assert check_epsilon(wide, half, "w"), "a bracket 0.3 wide"
    # ε = ln(1/(1 − 10⁻²⁰)) ≈ 10⁻²⁰: the bracket [0, 10⁻¹⁵] holds, one starting below 0 does not
    near_one = 1 - Q(1, 10**20)
    assert check_epsilon(["0.000000000000000", "0.000000000000001"], near_one, "w") == []
    assert check_epsilon(["-0.000000000000001", "0.000000000000001"], near_one, "w")
    for interval in (ends(945, 946)[:1], [*ends(945, 946), "0.693147180559947"]):
        with pytest.raises(Malformed, match=r"^w: expected a list of 2$"):
            check_epsilon(interval, half, "w")
    for bad in (0.693, "0.69314718055994", "0.6931471805599450", "1"):
        with pytest.raises(Malformed, match=f"^w: expected a decimal with 15 digits, got {re.escape(repr(bad))}$"):
            check_epsilon([bad, "0.693147180559946"], half, "w")


@pytest.mark.parametrize("int64_rows", [False, True])
def test_a_two_vertex_profile_past_the_cell_limit_is_rechecked_up_to_its_scans(
    monkeypatch: pytest.MonkeyPatch, int64_rows: bool
) -> None:
    """Past the profile's cell limits (lowered here) a profile of two vertices (T's) is re-checked while
    cells × vertices ≤ PROFILE_MAX_SCANS, to the cell, and refused one scan beyond — on the exact path
    (rows past int64) and on int64 rows, where the dense limit does not take the two-vertex one away."""
    import mechlib.audit.approximate_dp as producer
    import mechlib.checkers.approximate_dp as checker

    n = 6
    monkeypatch.setattr(producer, "PROFILE_MAX_CELLS", 10)
    monkeypatch.setattr(checker, "PROFILE_MAX_CELLS", 10)
    monkeypatch.setattr(checker, "DENSE_PROFILE_MAX_CELLS", 10)  # T's rows at n = 6 are int64 rows
    monkeypatch.setattr(checker, "PROFILE_MAX_SCANS", 10**9)
    if not int64_rows:
        monkeypatch.setattr(checker, "_int64", lambda m: False)  # the exact path
    doc = _audit(truncated_geometric("1/3", n), delta=Fraction(1, 100))
    assert len(doc["approximate_dp"]["profile"]["vertices"]) == 2
    scans = 2 * (2 * n) * (n + 1)  # two vertices × (ordered neighbouring pairs × outputs)
    monkeypatch.setattr(checker, "PROFILE_MAX_SCANS", scans)
    assert check_certificate(doc) == []
    monkeypatch.setattr(checker, "PROFILE_MAX_SCANS", scans - 1)
    refused = f"approximate_dp.profile: {scans // 2:,} (pair, output) cells, above 10, the audit's limit"
    assert check_certificate(doc) == [f"malformed certificate: {refused}"]


@pytest.mark.parametrize("den", [2**31 - 1, 2**31])
def test_the_dense_profile_limit_covers_rows_below_2_31_up_to_their_scans(
    monkeypatch: pytest.MonkeyPatch, den: int
) -> None:
    """Randomized response on 0..2 over the denominator 2³¹ − 1 (int64 rows) and 2³¹ (not): its cells are
    past the general profile limit (lowered to one below them) and within the dense one (lowered to them).
    The dense limit applies while (ordered pairs) × vertices ≤ PROFILE_MAX_SCANS, to the scan, and never at
    2³¹; cells × vertices is past PROFILE_MAX_SCANS, so the two-vertex limit stays out of it."""
    import mechlib.checkers.approximate_dp as checker

    rows = [[Fraction(den - 2 if r == i else 1, den) for r in range(3)] for i in range(3)]
    doc = _audit(Mechanism(rows), delta=Fraction(0))
    assert "denominators" in doc["mechanism"]["matrix"]  # M's own rows (not T·Y, whose denominators are longer)
    pairs, vertices = 2 * len(doc["mechanism"]["neighbours"]), len(doc["approximate_dp"]["profile"]["vertices"])
    cells = pairs * len(doc["outputs"])
    monkeypatch.setattr(checker, "PROFILE_MAX_CELLS", cells - 1)
    monkeypatch.setattr(checker, "DENSE_PROFILE_MAX_CELLS", cells)
    refused = f"malformed certificate: approximate_dp.profile: {cells:,} (pair, output) cells, above {cells - 1:,}"
    for scans in (pairs * vertices, pairs * vertices - 1):
        monkeypatch.setattr(checker, "PROFILE_MAX_SCANS", scans)
        assert cells * vertices > scans
        dense = den < 2**31 and scans == pairs * vertices
        assert check_certificate(doc) == ([] if dense else [f"{refused}, the audit's limit"]), scans


def test_the_audit_refuses_a_dense_profile_whose_vertex_scans_check_would_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the general cell limit the checker re-reads a profile on int64 rows while (ordered pairs) ×
    vertices ≤ PROFILE_MAX_SCANS; the audit refuses, once the profile is computed, what the check would
    (limits lowered to a mechanism on 0..2 with three vertices: certified and re-checked at its scans,
    refused by the audit one scan below)."""
    import mechlib.audit.approximate_dp as producer
    import mechlib.checkers.approximate_dp as checker
    from mechlib.errors import InputError

    mech = Mechanism([[Fraction(v, 10) for v in row] for row in ([6, 3, 1], [3, 4, 3], [1, 3, 6])])
    doc = _audit(mech, delta=Fraction(0))
    pairs, vertices = 2 * len(doc["mechanism"]["neighbours"]), len(doc["approximate_dp"]["profile"]["vertices"])
    cells = pairs * len(doc["outputs"])
    assert vertices > 2
    for module in (producer, checker):
        monkeypatch.setattr(module, "PROFILE_MAX_CELLS", cells - 1)
        monkeypatch.setattr(module, "DENSE_PROFILE_MAX_CELLS", cells)
        monkeypatch.setattr(module, "PROFILE_MAX_SCANS", pairs * vertices)
    assert _audit(mech, delta=Fraction(0)) == doc
    for module in (producer, checker):
        monkeypatch.setattr(module, "PROFILE_MAX_SCANS", pairs * vertices - 1)
    with pytest.raises(InputError, match=f"the privacy profile has {vertices} vertices over {pairs} ordered"):
        _audit(mech, delta=Fraction(0))
    assert check_certificate(doc)  # ... as the check refuses the certificate written without the limit


@pytest.mark.parametrize("den", [2**31 - 1, 2**31])
def test_the_dense_profile_limit_reads_a_t_times_y_matrix_in_its_own_denominators(
    monkeypatch: pytest.MonkeyPatch, den: int
) -> None:
    """M on 0..6 with columns linear in the input (i + 1, 7 − i, 2i + 6 and den − 14 − 2i, over ``den``)
    and outputs 4..6 never given: derivable (T at 1/2 times a remap equal to M inside), so the audit
    writes it as T·Y, rebuilt over 3·2⁶·lcm(Y) > 2³¹ whatever M's own denominators; three vertices. The
    profile limits (lowered) let its cells through only as int64 rows: the audit and the check agree on
    2³¹ − 1 (certified and re-checked) and on 2³¹ (refused by the audit, and by the check of the
    certificate of an audit without the lowered limit)."""
    import mechlib.audit.approximate_dp as producer
    import mechlib.checkers.approximate_dp as checker
    from mechlib.errors import InputError

    n = 6
    rows = [[i + 1, n + 1 - i, 2 * i + n, den - 2 * n - 2 - 2 * i, 0, 0, 0] for i in range(n + 1)]
    mech = Mechanism.from_scaled(rows, [den] * (n + 1))
    cells = 2 * n * (n + 1)
    for module in (producer, checker):
        monkeypatch.setattr(module, "PROFILE_MAX_CELLS", cells - 1)
        monkeypatch.setattr(module, "DENSE_PROFILE_MAX_CELLS", cells)
    loaded, delta = LoadedMechanism(mech, "m", "json", "0" * 64), Fraction(1, 10**6)
    if den >= 2**31:
        general = f"would scan {cells} \\(pair, output\\) cells \\(at most {cells - 1} for this mechanism "
        with pytest.raises(InputError, match=general):
            audit(loaded, delta=delta)
        monkeypatch.setattr(producer, "PROFILE_MAX_CELLS", cells)  # an audit its limit lets through
    doc = json.loads(json.dumps(audit(loaded, delta=delta)))
    assert doc["mechanism"]["matrix"]["t_alpha"] == "1/2" and len(doc["approximate_dp"]["profile"]["vertices"]) == 3
    refused = f"malformed certificate: approximate_dp.profile: {cells:,} (pair, output) cells, above {cells - 1:,}"
    assert check_certificate(doc) == ([] if den < 2**31 else [f"{refused}, the audit's limit"])


def test_a_zcdp_bracket_past_its_cell_limit_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """T at 1/2 on 0..3 with a zCDP bracket: checked at RENYI_MAX_CELLS = its cells, refused one below,
    naming the zCDP section (the profile's limit is not reached); without the bracket that limit is none."""
    import mechlib.checkers.approximate_dp as checker

    doc = _audit(truncated_geometric("1/2", 3), renyi=(Fraction(1), Fraction(4)))
    cells = 2 * len(doc["mechanism"]["neighbours"]) * len(doc["outputs"])
    monkeypatch.setattr(checker, "RENYI_MAX_CELLS", cells)
    assert check_certificate(doc) == []
    monkeypatch.setattr(checker, "RENYI_MAX_CELLS", cells - 1)
    assert check_certificate(doc) == [
        f"malformed certificate: approximate_dp.renyi: {cells} (pair, output) cells, above {cells - 1}, the audit's "
        "limit"
    ]
    doc["approximate_dp"]["renyi"] = None
    assert check_certificate(doc) == []


def test_a_profile_pieces_outputs_are_integers_not_floats_the_schema_lets_through() -> None:
    """JSON Schema counts 0.0 as an integer, and 0.0 finds output 0's column (0.0 == 0, one hash): a
    piece's outputs written as floats, all or one, are refused naming the field and the first float."""
    doc = _audit(truncated_geometric("1/2", 3), delta=Fraction(1, 20))
    outputs = doc["approximate_dp"]["profile"]["pieces"][0]["outputs"]
    assert outputs and len(outputs) < len(doc["outputs"])
    spare = next(o for o in doc["outputs"] if o not in outputs)
    where = "malformed certificate: approximate_dp.profile.pieces[0].outputs: expected an integer, got"
    for labels in ([float(o) for o in outputs], [*outputs, float(spare)]):
        forged = copy.deepcopy(doc)
        forged["approximate_dp"]["profile"]["pieces"][0]["outputs"] = labels
        first = next(o for o in labels if type(o) is float)
        read = json.loads(json.dumps(forged))  # as read from a file: the floats stay floats
        assert check_certificate(read) == [f"{where} {first!r}"], labels


def test_a_zcdp_lower_end_other_than_zero_must_be_reached() -> None:
    """ρ_lo = 0 is the one lower end taken without its ball (D_λ ≥ 0); any other — 1 here, above T's
    ρ ≈ 0.23, with a ρ_hi of 10 that holds — must be reached at the recorded order."""
    doc = _audit(truncated_geometric("1/2", 3), renyi=(Fraction(1), Fraction(4)))
    assert Fraction(doc["approximate_dp"]["renyi"]["rho_interval"][1]) < 1
    forged = copy.deepcopy(doc)
    renyi = forged["approximate_dp"]["renyi"]
    renyi["rho_interval"] = ["1", "10"]
    assert check_certificate(forged) == [
        f"approximate_dp.renyi: D_λ/λ at λ = {renyi['attained']['lambda']} does not reach ρ_lo = 1"
    ]


def test_likelihood_ratios_equal_in_floats_stay_apart() -> None:
    """``_ratios`` merges a pair's outputs of one likelihood ratio x[r]/y[r] (1/3 and 2/6 here) and drops
    those x never gives; ratios that differ but are one double in lowest terms — 2⁵⁴/3 and (2⁵⁴ + 1)/3,
    7/2⁵⁴ and 7/(2⁵⁴ + 1), as rows over long denominators have — stay apart: merged, they would lower
    every D_λ (a coarser partition of the outputs)."""
    from mechlib.checkers.approximate_dp import _ratios

    big = 2**54
    x, y = [big, big + 1, 7, 7, 1, 2, 0], [3, 3, big, big + 1, 3, 6, 5]
    assert float(big) == float(big + 1) and math.gcd(7, big + 1) == math.gcd(big + 1, 3) == 1
    groups: dict[Fraction, list[int]] = {}
    for a, b in zip(x, y):
        if a:
            total = groups.setdefault(Fraction(a, b), [0, 0])
            total[0], total[1] = total[0] + a, total[1] + b
    assert len(groups) == 5
    assert sorted(_ratios(IntRows([sum(x), sum(y)], [x, y]), 0, 1)) == sorted(groups.values())


def test_dp_is_decided_exactly_when_floats_prune_rows_over_long_denominators() -> None:
    """Rows over 3⁵⁰ and 5⁴⁵ (multipliers past 64 bits, where floats settle the clear cells first):
    a violation by a relative 10⁻¹⁴ is found at its column (after a column of zeros), 4·10⁻¹³ below it
    is none, an output that
    the other row never gives is a violation, and exact equality is none."""
    from math import ceil

    from mechlib.checkers.audit_certificate import _dp_violation
    from mechlib.checkers.fields import IntRows, Q

    d, e = 3**50, 5**45
    alpha = Q(1, 2)
    b = e // 4
    a = ceil(Fraction(2 * b, e) * (1 + Fraction(1, 10**14)) * d)  # α·a/d = (b/e)·(1 + 10⁻¹⁴), just above
    rows = IntRows(den=[d, e], num=[[0, a, d // 3], [0, b, e // 4]])
    assert _dp_violation(rows, [(0, 1)], alpha) == (0, 1, 1)
    below = IntRows(den=[d, e], num=[[0, a - 2 * d // 10**13, d // 3], [0, b, e // 4]])
    assert _dp_violation(below, [(0, 1)], alpha) is None
    never = IntRows(den=[d, e], num=[[0, 1, d // 3], [0, 0, e // 4]])  # output 1: 1/d against 0
    assert _dp_violation(never, [(0, 1)], alpha) == (0, 1, 1)
    equal = IntRows(den=[d, e], num=[[2 * d, d // 3], [e, e // 4]])  # α·2 = 1 exactly
    assert _dp_violation(equal, [(0, 1)], alpha) is None
    assert _dp_violation(equal, [(1, 0)], alpha) is None


def test_dominance_by_t_at_a_larger_alpha_is_checked_tail_by_tail() -> None:
    """``{"t_at": α′}`` (the audit writes it past the LP's size) at small n: T at α is dominated by
    itself and randomized response by T at its α; a larger α′ puts heavier tails on T (for T itself
    at input 0, distance 1: α′/(1 + α′) > α/(1 + α)); α′ outside [α, 1) is no remap of T; an α′ whose
    numbers would pass the bit limit (at n = 20) is refused before any arithmetic."""
    from mechlib.checkers import audit_certificate

    def with_t_at(doc: dict[str, Any], at: str) -> list[str]:
        forged = copy.deepcopy(doc)
        forged["dominance"]["remap"] = {"t_at": at}
        return check_certificate(forged)

    t, rr = _audit(truncated_geometric("1/2", 6)), _audit(randomized_response("1/2", 7))
    assert with_t_at(t, "1/2") == [] and with_t_at(rr, "1/2") == []
    assert with_t_at(t, "2/3") == ["T at 2/3 has a heavier error tail than the mechanism at input 0, distance 1"]
    # a tail far lighter at distance 1 (8/10 against 1/11) says nothing of distance 2 (5/1000 against 1/110)
    lopsided = _audit(Mechanism([["2/10", "795/1000", "5/1000"], ["1/3", "1/3", "1/3"], ["1/3", "1/3", "1/3"]]))
    assert with_t_at(lopsided, "1/10") == [
        "T at 1/10 has a heavier error tail than the mechanism at input 0, distance 2"
    ]
    # outputs −2..5 (labels below 0): every distance up to 6 + 2 counts in the tails
    shifted = Mechanism([[str(x) for x in row] for row in randomized_response("1/2", 8).rows[:7]], outputs=range(-2, 6))
    assert with_t_at(_audit(shifted), "1/2")[0].startswith("T at 1/2 has a heavier error tail than the mechanism")
    rows = randomized_response("1/2", 7).rows

    def rr_tail(i: int, k: int) -> Fraction:
        return sum((p for o, p in enumerate(rows[i]) if abs(o - i) >= k), Fraction(0))

    for at in (Fraction(3, 5), Fraction(2, 3), Fraction(4, 5), Fraction(9, 10)):  # the first heavier tail, exactly
        first = next((i, k) for i in range(7) for k in range(1, max(i, 6 - i) + 1)
                     if ((k <= i) + (k <= 6 - i)) * at**k / (1 + at) > rr_tail(i, k))  # fmt: skip
        heavier = f"T at {at} has a heavier error tail than the mechanism at input {first[0]}, distance {first[1]}"
        assert with_t_at(rr, str(at)) == [heavier]
    for doc in (t, rr):
        for outside in ("1/3", "1"):
            assert with_t_at(doc, outside) == [
                f"dominance.remap: T at {outside} is not a remap of T at the DP level 1/2 (needs α ≤ α′ < 1)"
            ]
    n = 20  # n · bits of α′ past the limit with α′ within the digits a number may have
    t20 = _audit(truncated_geometric("1/2", n))
    bits = audit_certificate.T_AT_MAX_BITS // n + 1
    huge = f"{2**bits - 1}/{2**bits}"
    assert with_t_at(t20, huge)[0].startswith("malformed certificate: dominance.remap.t_at: T at α′ = ")
    assert with_t_at(t20, huge)[0].endswith(f"on 0..{n} has numbers past {audit_certificate.T_AT_MAX_BITS:,} bits")
    just = f"{2 ** (bits - 2) - 1}/{2 ** (bits - 2)}"  # within the limit: read, and T at it is heavier
    assert with_t_at(t20, just) == [f"T at {just} has a heavier error tail than the mechanism at input 0, distance 1"]
    forged = copy.deepcopy(t)
    forged["dominance"]["remap"] = {"t_at": "1/2", "columns": []}
    assert check_certificate(forged)[0].startswith("malformed certificate: $.dominance")  # the schema's


def test_the_source_bytes_and_the_label_lists_are_checked() -> None:
    """The SOURCE's bytes are hashed by the checker and compared with the certified SHA-256; the
    inputs and outputs are nonempty lists of distinct integers (each way of failing, alone)."""
    import hashlib

    source = b'{"matrix": "T at 1/2 on 0..3"}'
    t = truncated_geometric("1/2", 3)
    doc = json.loads(json.dumps(audit(LoadedMechanism(t, "t", "json", hashlib.sha256(source).hexdigest()))))
    assert check_certificate(doc, source) == []
    assert check_certificate(doc, source + b" ") == ["SOURCE does not have the certified SHA-256"]
    labels = "malformed certificate: mechanism.inputs/outputs: expected nonempty lists of distinct integers"
    for key in ("inputs", "outputs"):
        for wrong in ([], [0, 0, 1, 2]):
            forged = copy.deepcopy(doc)
            forged["mechanism"][key] = wrong
            assert check_certificate(forged) == [labels], (key, wrong)


def test_a_profile_at_vertices_with_numerators_above_one_checks() -> None:
    """The profile's pairs are scanned at each vertex t = u/v with u > 1 too (the multipliers of two
    rows are v·e and u·d over their gcd), for rows over one denominator and over several."""
    for mech in (truncated_geometric("2/5", 4), exponential(Fraction(2, 5), 3), randomized_response("3/7", 4)):
        doc = _audit(mech, delta=Fraction(1, 100))
        assert any(Fraction(v["alpha"]).numerator > 1 for v in doc["approximate_dp"]["profile"]["vertices"])


def test_a_pair_is_above_a_profile_vertex_exactly_when_its_divergence_exceeds_delta() -> None:
    """At t = 2/5 (a vertex u/v with u > 1) the pair (0, 1) is above δ exactly when
    Σ_r max(0, x₀[r] − t·x₁[r]) > δ, for rows over one denominator and over two."""
    from mechlib.checkers.approximate_dp import _pair_above
    from mechlib.checkers.fields import IntRows, Q

    t = Fraction(2, 5)
    for den, num in (([10, 10], [[5, 3, 2], [1, 3, 6]]), ([10, 7], [[5, 3, 2], [1, 2, 4]])):
        x = [[Fraction(a, d) for a in row] for row, d in zip(num, den)]
        divergence = sum((max(Fraction(0), a - t * b) for a, b in zip(x[0], x[1])), Fraction(0))
        rows = IntRows(den=den, num=num)
        assert _pair_above(rows, [(0, 1)], Q(2, 5), Q(divergence.numerator, divergence.denominator)) is None
        below = divergence - Fraction(1, 1000)
        assert _pair_above(rows, [(0, 1)], Q(2, 5), Q(below.numerator, below.denominator)) == (0, 1)


def test_the_cell_limit_and_the_neighbour_pairs_are_checked_at_their_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mechanism of exactly MAX_CELLS cells is read, one more is refused; a neighbour pair must join
    two different inputs of the mechanism (each way of failing, alone)."""
    from mechlib.checkers import audit_certificate

    doc = _audit(truncated_geometric("1/2", 3))  # 4 × 4 cells
    monkeypatch.setattr(audit_certificate, "MAX_CELLS", 16)
    assert check_certificate(doc) == []
    monkeypatch.setattr(audit_certificate, "MAX_CELLS", 15)
    assert check_certificate(doc)[0].startswith("malformed certificate:")
    monkeypatch.undo()
    for pair in ([0, 0], [0, 99], [99, 0]):
        forged = copy.deepcopy(doc)
        forged["mechanism"]["neighbours"][0] = pair
        assert check_certificate(forged)[0].startswith("malformed certificate: mechanism.neighbours[0]"), pair


def test_t_alpha_and_dp_level_are_read_within_their_ranges_and_a_source_failure_is_kept() -> None:
    """T·Y's t_alpha must lie in (0, 1) and dp_level in [0, 1] (at 0, 1, 3/2 and 2: one malformed
    line naming the field); a SOURCE whose bytes do not hash to the certified SHA-256 is a failure
    even when the parsed SOURCE agrees with the certificate."""
    import hashlib

    from mechlib.core.mechanism import Mechanism as Matrix

    t = truncated_geometric("1/2", 3)
    doc = _audit(t)
    for value in ("0", "1", "3/2"):
        forged = copy.deepcopy(doc)
        forged["mechanism"]["matrix"]["t_alpha"] = value
        assert check_certificate(forged)[0].startswith("malformed certificate: mechanism.matrix: T·Y needs"), value
    for value in ("3/2", "2"):
        assert check_certificate({**doc, "dp_level": value}) == [
            f"malformed certificate: dp_level: {value} is not in [0, 1]"
        ]
    num, den = Matrix(t.to_strings()).scaled()
    parsed = {"matrix": {"denominators": list(den), "numerators": [list(r) for r in num]}, "inputs": doc["inputs"],
              "outputs": doc["outputs"], "neighbours": doc["mechanism"]["neighbours"], "claimed": None}  # fmt: skip
    source = b"T at 1/2"
    signed = json.loads(json.dumps(audit(LoadedMechanism(t, "t", "json", hashlib.sha256(source).hexdigest()))))
    assert check_certificate(signed, source, parsed) == []
    assert check_certificate(signed, source + b"!", parsed) == ["SOURCE does not have the certified SHA-256"]


def test_a_dense_dominance_remap_is_rechecked_up_to_its_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dense remap Y (an LP's) past n = LP_CHECK_MAX_N (lowered here) is refused once it has more
    than 4·(n + 1) nonzeros, to the entry; at n = LP_CHECK_MAX_N it is re-checked; a dense Y with
    another number of rows is malformed."""
    from mechlib.checkers import audit_certificate

    n = 4
    doc = _audit(exponential(Fraction(1, 2), n))

    def dense(nonzeros: int) -> dict[str, Any]:
        """Y on 0..n over 16: the identity, then one unit moved off the diagonal per extra nonzero."""
        rows = [[16 * (r == i) for r in range(n + 1)] for i in range(n + 1)]
        off = [(i, r) for i in range(n + 1) for r in range(n + 1) if r != i][: nonzeros - (n + 1)]
        for i, r in off:
            rows[i][i] -= 1
            rows[i][r] += 1
        return {"denominators": ["10"] * (n + 1), "numerators": [[format(v, "x") for v in row] for row in rows]}

    refused = f"malformed certificate: dominance: a dense remap (an LP's) is re-checked up to n = {n - 1}, not {n}"
    monkeypatch.setattr(audit_certificate, "LP_CHECK_MAX_N", n - 1)
    for nonzeros in (4 * (n + 1), 4 * (n + 1) + 1):
        forged = copy.deepcopy(doc)
        forged["dominance"]["remap"] = dense(nonzeros)
        assert (check_certificate(forged) == [refused]) is (nonzeros > 4 * (n + 1)), nonzeros
    monkeypatch.setattr(audit_certificate, "LP_CHECK_MAX_N", n)
    assert refused.replace(f"n = {n - 1}", f"n = {n}") not in check_certificate(forged)
    extra = dense(n + 1)
    extra["denominators"].append("10")
    extra["numerators"].append(extra["numerators"][0])
    forged["dominance"]["remap"] = extra
    assert check_certificate(forged)[0].startswith("malformed certificate: dominance.remap")


def _sparse(columns: list[list[int]], numerators: list[list[int]], dens: list[int]) -> dict[str, Any]:
    return {
        "denominators": [format(d, "x") for d in dens],
        "numerators": [[format(v, "x") for v in row] for row in numerators],
        "columns": columns,
    }


def test_dominance_compares_each_tail_at_its_own_distance_up_to_the_farthest() -> None:
    """``_check_dominance`` against M = T at α = 1/2 on 0..3: Y = I gives T·Y = M (dominated); Y
    moving each guess one up makes T·Y's tail at distance k + 1 no heavier than M's at k but its tail
    at distance 1 (input 0) heavier — a comparison off by one distance would pass it; M with one unit
    moved nearer at input 0 (a lighter tail at distance 3 only) is beaten by T at the farthest
    distance alone; outputs below 0 (M's at −2 and 1, Y onto guess 0) reach past the inputs' span."""
    from mechlib.checkers.audit_certificate import _check_dominance
    from mechlib.checkers.standard_users import t_rows

    alpha, n, inputs = Q(1, 2), 3, [0, 1, 2, 3]
    t = t_rows(alpha, n)
    heavier = ["T·Y has a heavier error tail than the mechanism somewhere"]
    identity = _sparse([[i] for i in range(n + 1)], [[1]] * (n + 1), [1] * (n + 1))
    assert _check_dominance(identity, t, inputs, inputs, alpha, n) == []
    shifted = _sparse([[min(i + 1, n)] for i in range(n + 1)], [[1]] * (n + 1), [1] * (n + 1))
    assert _check_dominance(shifted, t, inputs, inputs, alpha, n) == heavier
    nearer = IntRows(list(t.den), [list(row) for row in t.num])
    nearer.num[0][n] -= 1
    nearer.num[0][n - 1] += 1
    assert _check_dominance(identity, nearer, inputs, inputs, alpha, n) == heavier
    onto_zero = {"denominators": ["1"] * (n + 1), "numerators": [["1"]] * (n + 1)}
    far = IntRows([1, 1, 1, 2], [[1, 0], [1, 0], [1, 0], [1, 1]])  # input 3: half its mass at distance 2
    assert _check_dominance(onto_zero, far, inputs, [-2, 1], alpha, n) == heavier
    far.num[3] = [2, 0]
    assert _check_dominance(onto_zero, far, inputs, [-2, 1], alpha, n) == []


def test_a_sparse_dominance_remap_has_n_plus_one_rows_of_guesses_0_to_n() -> None:
    from mechlib.checkers.audit_certificate import _check_dominance
    from mechlib.checkers.standard_users import t_rows

    alpha, n, inputs = Q(1, 2), 3, [0, 1, 2, 3]
    t = t_rows(alpha, n)
    taller = _sparse([[i] for i in range(n + 2)], [[1]] * (n + 2), [1] * (n + 2))
    with pytest.raises(Malformed, match=re.escape("dominance.remap: expected a list of 4")):
        _check_dominance(taller, t, inputs, inputs, alpha, n)
    wider = _sparse([[n + 1], [1], [2], [3]], [[1]] * (n + 1), [1] * (n + 1))
    with pytest.raises(Malformed, match=re.escape("dominance.remap.columns[0]: expected increasing columns in 0..3")):
        _check_dominance(wider, t, inputs, inputs, alpha, n)


def test_recorded_histograms_hold_integer_outputs_and_counts_of_at_least_one() -> None:
    from mechlib.checkers.blackbox_delta import histograms

    assert histograms([{"0": 1}, {"-1": 2}], "counts", 1) == [{0: 1}, {-1: 2}]
    for bad in (0, 2.5, True, "3"):
        with pytest.raises(ValueError, match=re.escape("counts[1]: expected counts that are integers ≥ 1")):
            histograms([{"0": 1}, {"0": bad}], "counts", 1)
    with pytest.raises(ValueError, match=re.escape("counts[0]: outputs must be integers")):
        histograms([{"a": 1}, {"0": 1}], "counts", 1)


def test_the_delta_selection_skips_only_empty_phases_and_needs_a_positive_score() -> None:
    """A phase of one sample still counts; an empty one skips its pair only; the score's last term
    is 4/M_j (t = 6/5, M_j = 5: 1 − 2·10⁻⁶ − 24/25 > 0, with 5/M_j it is not); a score of exactly 0
    (1 − 2·√(1/16) − 4/8) picks nothing."""
    from mechlib.checkers.blackbox_delta import _selection

    one = Fraction(1)
    assert _selection([{0: 1000}, {1: 1}], [(0, 1)], one, [10**6, 10**6]) == ((0, 1), {"outputs": [0]})
    assert _selection([{0: 1000}, {1: 1000}, {}], [(0, 2), (0, 1)], one, [10**6] * 3) == ((0, 1), {"outputs": [0]})
    assert _selection([{0: 10}, {1: 10}], [(0, 1)], Fraction(6, 5), [10**12, 5]) == ((0, 1), {"outputs": [0]})
    assert _selection([{0: 4}, {1: 4}], [(0, 1)], one, [16, 8]) is None


def _delta_check(**changes: Any) -> list[str]:
    """check_delta_test on ε = 0, α_FA = 1/20 and phases whose selection picks output 0 of the pair
    (0, 1), its verified bounds taken as given; ``changes`` replace fields of the test (``event``:
    of its event)."""
    from mechlib.checkers.blackbox_delta import check_delta_test

    event = {"inputs": [0, 1], "set": {"outputs": [0]}, "counts": [10**6, 0], "samples": [10**6, 10**6]}
    event.update(lower_bound="0", upper_bound="0", **changes.pop("event", {}))
    test = {
        "epsilon": "0", "delta": "0", "e_epsilon_upper": "20000000001/20000000000", "alpha_fa": "1/20",
        "per_bound_level": "1/40", "event": event, "verdict": "no violation found", "delta_lower_bound": None,
    }  # fmt: skip
    test.update(changes)
    phases = ([{0: 1000}, {1: 1000}], [{0: 10**6}, {1: 10**6}])
    return check_delta_test(
        test, phases, [(0, 1)], {"epsilon": test["epsilon"]}, Fraction(1, 20),
        lambda text, where: Fraction(text), (lambda *_: True, lambda *_: True),
    )  # fmt: skip


def test_a_delta_tests_fields_are_each_checked_at_their_edges() -> None:
    """L − t·U = 0 has no lower bound on δ; t must be above e^ε (ε = 0: t = 1 is not) and within
    10⁻¹⁰ of it, e^ε for ε = 1/2 (numerator and denominator both count); a float level (schemas /8
    and before) within 12 significant digits of α_FA/2; an event of other fields, or whose inputs are
    no list, is named."""
    assert _delta_check() == []
    assert _delta_check(delta_lower_bound="0") == ["delta_test.delta_lower_bound is not L − t·U"]
    upper = ["delta_test.e_epsilon_upper is not an upper bound on e^ε within 10⁻¹⁰"]
    assert _delta_check(e_epsilon_upper="1") == upper
    with localcontext() as context:
        context.prec = 40
        e_half = Fraction(Decimal("0.5").exp()) + Fraction(1, 10**12)  # past the 53-bit balls
    assert _delta_check(epsilon="1/2", e_epsilon_upper=f"{e_half}") == []
    assert _delta_check(epsilon="1/2", e_epsilon_upper=f"{e_half + Fraction(1, 10**9)}") == upper
    level = ["delta_test.per_bound_level is not α_FA/2"]
    assert _delta_check(per_bound_level=0.025) == []
    for off in (0.025 * (1 + 1e-10), 0.3, None):
        assert _delta_check(per_bound_level=off) == level, off
    with pytest.raises(ValueError, match=re.escape("delta_test.event: expected the fields")):
        _delta_check(event={"extra": 1})
    assert _delta_check(event={"inputs": 5}) == ["delta_test.event is not the one the selection phase picks"]


def test_a_matrix_and_its_remap_have_a_row_per_input_and_a_column_per_output() -> None:
    """M written as T·Y (T at 1/2 on 0..3: Y sparse, or dense) and M as integer rows (randomized
    response on 0..2): a row or a column more is refused, naming the field."""
    t, rr = _audit(truncated_geometric("1/2", 3)), _audit(randomized_response("1/2", 3))
    assert "t_alpha" in t["mechanism"]["matrix"] and "columns" in t["mechanism"]["matrix"]["remap"]
    remap = "malformed certificate: mechanism.matrix.remap"
    taller = _sparse([[0], [1], [2], [3], [3]], [[1]] * 5, [1] * 5)
    dense = {"denominators": ["1"] * 4, "numerators": [["1", "0", "0", "0"]] * 4}
    for y, failure in (
        (taller, f"{remap}: expected a list of 4"),
        ({"denominators": ["1"] * 5, "numerators": [["1", "0", "0", "0"]] * 5}, f"{remap}: expected a list of 4"),
        ({**dense, "numerators": [["1", "0", "0", "0", "0"]] * 4}, f"{remap}.numerators[0]: expected 4 entries, got 5"),
    ):
        forged = copy.deepcopy(t)
        forged["mechanism"]["matrix"]["remap"] = y
        assert check_certificate(forged) == [failure]
    forged = copy.deepcopy(rr)
    matrix = forged["mechanism"]["matrix"]
    matrix["denominators"].append(matrix["denominators"][0])
    matrix["numerators"].append(matrix["numerators"][0])
    assert check_certificate(forged) == ["malformed certificate: mechanism.matrix: expected a list of 3"]
    forged = copy.deepcopy(rr)
    forged["mechanism"]["matrix"]["numerators"] = [[*row, "0"] for row in rr["mechanism"]["matrix"]["numerators"]]
    wider = "malformed certificate: mechanism.matrix.numerators[0]: expected 3 entries, got 4"
    assert check_certificate(forged) == [wider]


def test_a_derivation_naming_the_matrixs_own_remap_holds_by_definition() -> None:
    """M = T·Y at the DP level with a Y that is not stochastic: the matrix check names it, and the
    derivation that names the same Y (T·Y = M by definition) adds no second failure of its own."""
    doc = _audit(truncated_geometric("1/2", 3))
    forged = copy.deepcopy(doc)
    y = _sparse([[0], [1], [2], [3]], [[1], [1], [1], [2]], [1] * 4)
    forged["mechanism"]["matrix"]["remap"] = forged["derivation"]["remap"] = y
    failures = check_certificate(forged)
    assert "the matrix's remap Y is not row-stochastic" in failures
    assert "the derivation remap Y does not give T·Y = M" not in failures


def test_an_lp_dominance_is_decided_up_to_lp_max_n_inclusive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Randomized response on 0..2 is not derivable: its dominance is an LP's, always decided up to
    n = LP_MAX_N — skipped at the limit (lowered to 2 here) is a failure, past it (1) it is not."""
    from mechlib.checkers import audit_certificate

    doc = _audit(randomized_response("1/2", 3))
    assert doc["derivation"]["status"] == "not derivable" and doc["dominance"]["status"] == "certified"
    forged = {**doc, "dominance": {"status": "skipped", "reason": "past the LP's size", "decide": "MECHLIB_LP_MAX_N"}}
    forged["unknown"] = ["dominance"]
    monkeypatch.setattr(audit_certificate, "LP_MAX_N", 2)
    assert check_certificate(forged) == ["dominance is skipped although the audit decides it here"]
    monkeypatch.setattr(audit_certificate, "LP_MAX_N", 1)
    assert check_certificate(forged) == []


def test_the_users_optima_are_certified_up_to_users_max_n_and_decided_up_to_lp_max_n(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The standard users' exact optima on 0..3 (T at 1/2): certified up to n = USERS_MAX_N
    inclusive and, past it, reported certified in error; skipped, they are a failure up to n =
    LP_MAX_N inclusive (while certifiable) and not past either limit."""
    from mechlib.checkers import audit_certificate

    doc = _audit(truncated_geometric("1/2", 3))
    assert doc["user_losses"]["status"] == "certified"
    skipped = {**doc, "user_losses": {"status": "skipped", "reason": "past the limit", "decide": "MECHLIB_LP_MAX_N"}}
    skipped["unknown"] = ["user_losses"]
    not_decided = "user_losses is skipped although the audit decides it here"
    monkeypatch.setattr(audit_certificate, "USERS_MAX_N", 3)
    monkeypatch.setattr(audit_certificate, "LP_MAX_N", 3)
    assert check_certificate(doc) == []
    assert check_certificate(skipped) == [not_decided]
    monkeypatch.setattr(audit_certificate, "LP_MAX_N", 2)
    assert check_certificate(skipped) == []
    monkeypatch.setattr(audit_certificate, "LP_MAX_N", 3)
    monkeypatch.setattr(audit_certificate, "USERS_MAX_N", 2)
    assert check_certificate(doc) == ["user_losses is reported certified although the audit does not decide it here"]
    assert check_certificate(skipped) == []


def test_named_users_are_checked_against_t_at_the_dp_level_when_m_is_written_at_another() -> None:
    """M = T(1/3)·Y with Y mixing each guess half and half with the uniform one is more private than
    1/3: its certificate (audited from M's rows) with the matrix rewritten as T(1/3)·Y checks, and its
    standard users' optima are T's at the DP level, not at 1/3."""
    t = truncated_geometric("1/3", 2)
    y = [[Fraction(4 if r == s else 1, 6) for r in range(3)] for s in range(3)]
    rows = [
        [sum((Fraction(t.rows[i][s]) * y[s][r] for s in range(3)), Fraction(0)) for r in range(3)] for i in range(3)
    ]
    doc = _audit(Mechanism([[str(x) for x in row] for row in rows]))
    assert Fraction(doc["dp_level"]) != Fraction(1, 3) and doc["user_losses"]["status"] == "certified"
    forged = copy.deepcopy(doc)
    forged["mechanism"]["matrix"] = {
        "t_alpha": "1/3",
        "remap": {"denominators": ["6"] * 3, "numerators": [["4", "1", "1"], ["1", "4", "1"], ["1", "1", "4"]]},
    }
    assert check_certificate(forged) == []


def test_float_pruning_settles_nothing_at_a_scale_past_its_range() -> None:
    """``_unsettled`` drops a cell only on a scale lhs/rhs inside 10⁻²⁹⁰..10²⁹⁰: a subnormal scale
    (5·10⁻³²⁴ stands for anything up to 7.4·10⁻³²⁴) is no bound, so every cell is kept for the exact
    comparison — even one whose estimate (10³⁰⁰ · 5·10⁻³²⁴) looks far below 1; inside the range (10⁻²⁸⁹)
    a cell whose estimate is below 1 and one with a = 0 are dropped."""
    import numpy as np

    from mechlib.checkers.audit_certificate import _unsettled

    big, small = [10**300, 0, 1], [1, 1, 1]
    floats = np.array([float(a) for a in big]), np.array([float(b) for b in small])
    assert _unsettled(big, small, *floats, 5e-324) == (big, small)
    assert _unsettled(big, small, *floats, 1e-310) == (big, small)
    assert _unsettled(big, small, *floats, 1e-289) == ([10**300], [1])


def _first_dp_violation(m: IntRows, alpha: Fraction) -> tuple[int, int, int] | None:
    """The first (big, small, column) with α·x[big][r] > x[small][r] over the pair (0, 1), in Fractions."""
    for big, small in ((0, 1), (1, 0)):
        for r, (a, b) in enumerate(zip(m.num[big], m.num[small])):
            if alpha * Fraction(a, m.den[big]) > Fraction(b, m.den[small]):
                return big, small, r
    return None


def _screened(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """Spy on ``_unsettled``: the cells (as their a) each call keeps for the exact comparison."""
    import mechlib.checkers.audit_certificate as checker

    kept: list[list[int]] = []
    screen = checker._unsettled

    def spy(*args: Any) -> tuple[list[int], list[int]]:
        out = screen(*args)
        kept.append(out[0])
        return out

    monkeypatch.setattr(checker, "_unsettled", spy)
    return kept


def test_the_float_screen_leaves_every_cell_near_the_bound_to_integers_over_1000_bit_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows over 3⁶³¹ and 5⁴³⁰ (≈ 1000 bits, so the float screen runs) at α = 1/2: a cell at the
    bound exactly, one 10⁻¹³ below it and one a unit above it (p·a·e − q·b·d = 1, a relative 2⁻²⁰⁰⁰:
    the floats see exactly 1) are all kept for the exact comparison, which finds the violation at its
    own column; the clear cell (ratio 1/4) and the zeros are dropped. A unit below is no violation;
    the reverse direction keeps only its own cell at the bound, and the rows swapped name (1, 0)."""
    from mechlib.checkers.audit_certificate import _dp_violation

    d, e, alpha = 3**631, 5**430, Fraction(1, 2)
    p, q = alpha.numerator, alpha.denominator
    assert math.gcd(p * e, q * d) == 1 and min(p * e, q * d).bit_length() > 64
    above = pow(p * e, -1, q * d)  # p·above·e ≡ 1 (mod q·d)
    b_above = (p * above * e - 1) // (q * d)
    b_near = e // 3
    near = q * b_near * d * (10**13 - 1) // (p * e * 10**13)  # 1 − 10⁻¹³ of the bound, floored
    big = [0, d // 4, q * d, near, above]
    small = [0, e // 2, p * e, b_near, b_above]
    assert all(0 < v < 2**1010 for v in big[1:] + small[1:])  # below 2¹⁰²⁴: every row has floats
    kept = _screened(monkeypatch)
    m = IntRows([d, e], [big, small])
    assert _dp_violation(m, [(0, 1)], Q(1, 2)) == _first_dp_violation(m, alpha) == (0, 1, 4)
    assert kept == [[q * d, near, above]]
    kept.clear()
    below = IntRows([d, e], [[*big[:4], above - 1], small])  # p·a·e − q·b·d = 1 − p·e < 0
    assert _first_dp_violation(below, alpha) is None
    assert _dp_violation(below, [(0, 1)], Q(1, 2)) is None
    assert kept == [[q * d, near, above - 1], [e // 2]]  # the reverse direction: column 1 at its bound
    swapped = IntRows([e, d], [small, big])
    assert _dp_violation(swapped, [(0, 1)], Q(1, 2)) == _first_dp_violation(swapped, alpha) == (1, 0, 4)


def _sized(top: int) -> st.SearchStrategy[int]:
    """Integers of every size up to ``top`` bits (0, 1, a few bits, ..., just below 2^top)."""
    return st.integers(0, top).flatmap(lambda bits: st.integers(0, 2**bits))


@st.composite
def _long_rows(draw: st.DrawFn) -> tuple[IntRows, Fraction]:
    """Two rows over long denominators (65 to 1100 bits: the float screen runs wherever the reduced
    multipliers stay past 64 bits) and a level α ∈ (0, 1] of up to 200 bits; each column is a pair of
    zeros or of free integers (huge gaps either way, up to past 2¹⁰²⁴ where a row has no floats), at
    the bound exactly, or within two units of it in either direction of the pair."""
    # powers of 3 and 5 (65 to 1100 bits) moved a little: no large common factor shortens the multipliers
    d = 3 ** draw(st.integers(41, 694)) + draw(st.integers(0, 2**64))
    e = 5 ** draw(st.integers(28, 473)) + draw(st.integers(0, 2**64))
    p, q = sorted(draw(st.integers(1, 2**200)) for _ in range(2))
    big: list[int] = []
    small: list[int] = []
    for _ in range(draw(st.integers(1, 6))):
        flipped = draw(st.booleans())  # the cell is near the bound of direction (1, 0) instead
        lhs, rhs = (p * d, q * e) if flipped else (p * e, q * d)  # the pair's inequality: lhs·x ≤ rhs·y
        kind = draw(st.sampled_from(["zeros", "free", "equal", "near"]))
        if kind == "zeros":
            x, y = 0, 0
        elif kind == "free":
            x, y = draw(_sized(1030)), draw(_sized(1030))
        elif kind == "equal":
            g, t = math.gcd(lhs, rhs), draw(st.integers(1, 2**20))
            x, y = rhs // g * t, lhs // g * t
        else:
            y = draw(_sized(1030))
            x = max(0, rhs * y // lhs + draw(st.integers(-2, 2)))
        big.append(y if flipped else x)
        small.append(x if flipped else y)
    return IntRows([d, e], [big, small]), Fraction(p, q)


@settings(max_examples=200, deadline=None, database=None)
@given(_long_rows())
def test_the_float_screened_dp_check_finds_exactly_the_first_violation_fractions_find(
    rows: tuple[IntRows, Fraction],
) -> None:
    """Whatever the floats drop, ``_dp_violation`` names the same first violation (pair direction and
    column) as a plain Fraction comparison of every cell — or none where there is none."""
    from mechlib.checkers.audit_certificate import _dp_violation

    m, alpha = rows
    assert _dp_violation(m, [(0, 1)], Q(alpha.numerator, alpha.denominator)) == _first_dp_violation(m, alpha)


@pytest.mark.parametrize(("top", "screened"), [(2**1024 - 2**970 - 1, True), (2**1024 - 2**970, False)])
def test_a_violation_by_one_unit_at_the_top_of_the_float_range_is_found_on_either_side_of_it(
    monkeypatch: pytest.MonkeyPatch, top: int, screened: bool
) -> None:
    """An entry 2¹⁰²⁴ − 2⁹⁷⁰ − 1 rounds to the largest float (the row is screened); 2¹⁰²⁴ − 2⁹⁷⁰ rounds
    up to 2¹⁰²⁴, past the range (the row has no floats and is compared exactly). Either way the cell
    a unit past the bound is a violation at its column, and a unit inside it none."""
    from mechlib.checkers.audit_certificate import _dp_violation

    d, e, alpha = 3**631, 5**430, Fraction(1, 2)
    lhs, rhs = alpha.numerator * e, alpha.denominator * d
    past, inside = (lhs * top - 1) // rhs, -(-lhs * top // rhs)  # lhs·top > rhs·past; lhs·top ≤ rhs·inside
    kept = _screened(monkeypatch)
    for b, expected in ((past, (0, 1, 1)), (inside, None)):
        m = IntRows([d, e], [[d // 4, top], [e // 2, b]])
        assert _dp_violation(m, [(0, 1)], Q(1, 2)) == _first_dp_violation(m, alpha) == expected
    # screened: the cell at the top, twice; then, direction (1, 0), column 0 at its bound (1/4 each side)
    assert kept == ([[top], [top], [e // 2]] if screened else [])


def test_a_subnormal_float_quotient_is_dropped_only_where_its_cell_is_far_inside_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Denominators 3⁴² and 5⁴⁴² make the scale lhs/rhs ≈ 2⁹⁵⁹ (inside 10²⁹⁰); a = 1 over b = 2¹⁰²³
    has the subnormal quotient 2⁻¹⁰²³, and its estimate ≈ 2⁻⁶⁴ drops the cell (truly below 1 too),
    while an output the other row never gives (b = 0, estimate ∞) is kept and named; beyond the
    guard (a scale of 10²⁹¹) nothing is dropped."""
    import numpy as np

    from mechlib.checkers.audit_certificate import _dp_violation, _unsettled

    d, e = 3**42, 5**442
    kept = _screened(monkeypatch)
    m = IntRows([d, e], [[1, 1, 2], [2**1023, 0, 2**1023]])
    assert _dp_violation(m, [(0, 1)], Q(1, 2)) == _first_dp_violation(m, Fraction(1, 2)) == (0, 1, 1)
    assert kept == [[1]]
    big, small = [1, 2**1000], [2**1023, 1]
    floats = np.array([float(a) for a in big]), np.array([float(b) for b in small])
    assert _unsettled(big, small, *floats, 1e289) == ([2**1000], [1])
    assert _unsettled(big, small, *floats, 1e291) == (big, small)


def test_t_times_an_identity_remap_with_extra_zero_columns_keeps_every_column() -> None:
    """Y = [I | 0] (T with an output no input reaches): T·Y has Y's width, the zero column included,
    not T's — the identity shortcut is for a square Y only."""
    from mechlib.checkers.audit_certificate import _t_times
    from mechlib.checkers.standard_users import t_rows

    t = t_rows(Q(1, 2), 2)
    identity = [[(s, 1)] for s in range(3)]
    assert _t_times(t, [1, 1, 1], identity, 3) is t
    wide = _t_times(t, [1, 1, 1], identity, 4)
    assert [len(row) for row in wide.num] == [4, 4, 4]
    assert [row[:3] for row in wide.num] == t.num and [row[3] for row in wide.num] == [0, 0, 0]


def test_rows_past_2_31_are_reduced_only_by_a_gcd_of_the_whole_row() -> None:
    """Rows over d = 2³¹ + 2 whose first and last entries (and d) are even, a middle entry odd: the gcd
    with the end entries (2) would bring them below 2³¹, the whole row's (1) does not — the matrix stays
    as written and its profile checks; reduced by the end entries' gcd alone, 1 // 2 = 0 would change the
    mechanism the profile is checked against."""
    d = 2**31 + 2
    rows = [[Fraction(v, d) for v in row] for row in ([2, 1, 1, d - 4], [4, 1, 1, d - 6], [2, 3, 1, d - 6])]
    doc = _audit(Mechanism(rows), delta=Fraction(0))
    assert doc["mechanism"]["matrix"]["denominators"] == [f"{d:x}"] * 3


def test_t_past_the_float_range_has_its_delta_profile_checked() -> None:
    """T at α = 1/3 on 0..650: its row denominator 3⁶⁵⁰·4 is past 2¹⁰²⁴, so a float quotient of it
    overflows; the reduction of T·Y's rows is decided in integers."""
    doc = _audit(truncated_geometric("1/3", 650), delta=Fraction(1, 100))
    assert doc["approximate_dp"]["at_delta"] is not None
