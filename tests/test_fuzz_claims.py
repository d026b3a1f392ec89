"""The FUZZ properties report violations (negative controls), and the runner shrinks, prints and saves them."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import strategies as st

import mechlib.proofs.grs.lemma_5_4
from mechlib import BayesUser, Loss, Mechanism, Prior, Remap, binary_loss, truncated_geometric
from mechlib.core.post_processing import optimal_remap
from mechlib.core.signature import Signature
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.grs.corollary_3_3 import geometric_is_optimal
from mechlib.proofs.grs.lemma_5_2 import direct_mechanisms_suffice
from mechlib.proofs.grs.lemma_5_3 import signature_shape, signature_violation
from mechlib.proofs.grs.lemma_5_4 import signature_iff_binding
from mechlib.proofs.grs.lemma_5_5 import unimodal_violation
from mechlib.proofs.grs.lemma_5_8 import slack_count_violation
from mechlib.proofs.grs.lemma_5_9 import single_peak_violation
from mechlib.proofs.grs.lemma_5_10 import vertex_is_a_remap_of_t
from mechlib.proofs.grs.remark_2_3 import optimal_remap_is_best
from mechlib.proofs.grs.theorem_3_2 import fuzz_refinements
from mechlib.proofs.grs.theorem_a_2 import laplace_cases, laplace_within_factor
from mechlib.proofs.grs.user_lp import lp_matches_t
from mechlib.proofs.gs.theorem_1b import minimax_from_g
from mechlib.proofs.gs.theorem_2 import derivability_agrees
from mechlib.proofs.other.dominance import dominated
from mechlib.proofs.registry import Verdict
from tests.conftest import patch_everywhere

ILLEGAL = BayesUser(Prior.uniform(3), Loss([[1, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]]))
HALF = Fraction(1, 2)


def test_lp_and_geometric_properties_catch_an_illegal_loss() -> None:
    assert lp_matches_t((ILLEGAL, HALF)) == {"lp_optimum": Fraction(1, 3), "T_with_optimal_remap": Fraction(17, 48)}
    assert geometric_is_optimal((ILLEGAL, HALF)) is not None


def test_vertex_property_catches_a_vertex_that_is_not_a_remap_of_t() -> None:
    assert vertex_is_a_remap_of_t((ILLEGAL, HALF)) is not None


def test_direct_mechanism_property_catches_a_mechanism_that_is_not_dp() -> None:
    identity = Mechanism([[1, 0], [0, 1]])
    user = BayesUser(Prior.uniform(1), binary_loss(1))
    assert direct_mechanisms_suffice(((HALF, identity), user)) == {"problem": "Y∘X is not α-DP", "alpha": HALF}


def test_optimal_remap_property_catches_a_wrong_remap(monkeypatch: pytest.MonkeyPatch) -> None:
    always_one = Mechanism([[0, 1], [0, 1]])
    user = BayesUser(Prior.point(1, 0), binary_loss(1))
    randomized = Remap([["1/2", "1/2"], ["1/2", "1/2"]])
    assert optimal_remap_is_best((always_one, user, randomized)) is None
    patch_everywhere(monkeypatch, optimal_remap, lambda x, u: Remap.identity(x.outputs))
    assert optimal_remap_is_best((always_one, user, randomized)) is not None


def test_signature_violation_is_detected() -> None:
    mixed = Signature(HALF, (0, 1), (("↓", "↑"), ("0", "↑")))
    assert signature_violation(mixed) == {"column": 0, "signature": "↓ ↑\n0 ↑"}
    all_down = Signature(HALF, (0, 1), (("↓", "0"),))
    assert signature_violation(all_down) is not None
    assert signature_shape((HALF, truncated_geometric(HALF, 4))) is None


def test_the_runner_shrinks_prints_exactly_and_saves(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MECHLIB_COUNTEREXAMPLES", str(tmp_path))
    outcome = fuzz(
        "TEST",
        st.fractions(min_value=0, max_value=1),
        lambda a: {"a": a} if a > Fraction(1, 2) else None,
        200,
        drawn=lambda a: (1, a),
    )
    assert outcome.verdict == Verdict.REFUTED
    case = outcome.evidence["counterexample"]
    saved = json.loads(Path(outcome.evidence["saved"]).read_text())
    assert saved == case and saved["claim"] == "TEST"
    assert Fraction(case["example"]) > Fraction(1, 2)  # exact, as "p/q"
    assert fuzz("TEST", st.just(Fraction(1, 3)), lambda a: None, 5, drawn=lambda a: (1, a)).verdict == Verdict.PROVED


def test_the_scope_is_what_was_drawn_not_the_range() -> None:
    """The sizes and α in a FUZZ part's scope are those of the examples checked: a generator
    that only yields n ∈ {2, 3} reads n ∈ {2, 3}; its examples are those checked (Hypothesis stops
    at the 4 distinct ones)."""
    cases = st.tuples(st.sampled_from([Fraction(1, 2), Fraction(1, 3)]), st.integers(2, 3))
    outcome = fuzz("TEST", cases, lambda c: None, 20, drawn=lambda c: (c[1], c[0]))
    (scope,) = outcome.scopes
    assert scope.n == "n ∈ {2, 3}" and scope.alpha == "1/3, 1/2" and scope.measured
    assert scope.examples == outcome.evidence["examples"] == 4


def test_vertex_signature_properties_catch_randomized_response() -> None:
    """Negative controls: randomized response's signature is not of an optimal vertex's shape."""
    from mechlib import randomized_response, signature

    rr = signature(randomized_response(HALF, 4), HALF)  # rows like ↓ ↑ S S: S after ↑
    assert unimodal_violation(rr) is not None
    assert slack_count_violation(rr) is not None
    assert single_peak_violation(rr) is not None
    t = signature(truncated_geometric(HALF, 4), HALF)
    assert unimodal_violation(t) is None and slack_count_violation(t) is None and single_peak_violation(t) is None


def test_minimax_and_derivability_properties_catch_their_controls() -> None:
    from mechlib import MinimaxUser, randomized_response

    illegal = MinimaxUser(range(4), ILLEGAL.loss)
    assert minimax_from_g((illegal, HALF)) == {"optimum": Fraction(1, 3), "from_G": Fraction(2, 5)}
    assert derivability_agrees((HALF, randomized_response(HALF, 4))) is None  # both say "not derivable"
    assert dominated((HALF, randomized_response(HALF, 4))) is None


def test_binding_set_distinguishes_what_the_signature_distinguishes(monkeypatch: pytest.MonkeyPatch) -> None:
    from mechlib import randomized_response

    t, rr = truncated_geometric(HALF, 3), randomized_response(HALF, 4)
    assert signature_iff_binding(((HALF, t), rr)) is None  # different signatures, different binding sets
    assert signature_iff_binding(((HALF, t), t)) is None
    # Negative control: a binding set that forgets the direction makes T and RR look alike somewhere.
    monkeypatch.setattr(mechlib.proofs.grs.lemma_5_4, "binding_set", lambda x, a: frozenset({("any", 0, 0)}))
    assert signature_iff_binding(((HALF, t), rr)) == {"same_signature": False, "same_binding": True}


def test_issue5_fuzz_parts_fail_on_mutations(monkeypatch: pytest.MonkeyPatch) -> None:
    """GRS-L5.6 on non-optimal DP mechanisms, GRS-TA.2 without its factor, GRS-T3.2 against the
    wrong T: each must be REFUTED."""
    from functools import partial

    from mechlib.core.signature import signature
    from mechlib.proofs.grs.lemma_5_6 import row_order_violation
    from mechlib.strategies import dp_mixtures

    control = fuzz(
        "control-L5.6", dp_mixtures(max_n=5), lambda c: row_order_violation(signature(c[1], c[0])), 300,
        drawn=alpha_first,
    )  # fmt: skip
    assert control.verdict == Verdict.REFUTED
    laplace_control = fuzz(
        "control-TA.2", laplace_cases(), partial(laplace_within_factor, factor=False), 40,
        drawn=lambda c: (c[1].n, c[0] * c[0]),
    )  # fmt: skip
    assert laplace_control.verdict == Verdict.REFUTED
    from mechlib.core.families import truncated_geometric as real

    patch_everywhere(monkeypatch, real, lambda a, n: real(a * 99 / 100, n))
    assert fuzz_refinements().verdict == Verdict.REFUTED


def test_gs_lemma5_structure_detector() -> None:
    """T has no free column between adjacent rows; randomized response has all of them free."""
    from mechlib import randomized_response
    from mechlib.proofs.gs.section_4_2 import free_columns

    half = Fraction(1, 2)
    assert free_columns(truncated_geometric(half, 4), half) == [0, 0, 0, 0]
    assert min(free_columns(randomized_response(half, 4), half)) > 1
