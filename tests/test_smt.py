"""The SMT encodings prove what they should and — negative controls — fail when the claim is wrong."""

from fractions import Fraction

import pytest
import z3

from mechlib import Mechanism, randomized_response, truncated_geometric
from mechlib.proofs.grs.example_2_1 import geometric_window_is_dp
from mechlib.proofs.gs.theorem_2 import derivability_equivalence
from mechlib.proofs.shared.encodings import dominance_query, recheck_counterexample
from mechlib.proofs.shared.printed import GS_APPENDIX_B


def test_t_is_dp_for_symbolic_alpha() -> None:
    assert geometric_window_is_dp(6, 0, 6)[0] == z3.unsat
    assert geometric_window_is_dp(4, -4, 8)[0] == z3.unsat


def test_t_is_not_dp_at_a_level_it_does_not_have() -> None:
    """Negative control: T_α is not ((1+α)/2)-DP for any α ∈ (0,1)."""
    assert geometric_window_is_dp(3, 0, 3, claimed=lambda a: (1 + a) / 2)[0] == z3.sat


def test_gs_theorem_2_encoding() -> None:
    assert derivability_equivalence(4, Fraction(1, 2))[0] == z3.unsat


def test_a_wrong_three_term_coefficient_is_caught() -> None:
    """Negative control: with (1+α) in place of (1+α²) the equivalence fails."""
    assert derivability_equivalence(4, Fraction(1, 2), middle=Fraction(3, 2))[0] == z3.sat


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(2, 3)])
def test_t_dominates_every_dp_mechanism_n2(alpha: Fraction) -> None:
    solver, _ = dominance_query(2, alpha, truncated_geometric(alpha, 2))
    assert solver.check() == z3.unsat


@pytest.mark.parametrize(
    ("n", "base"),
    [(3, GS_APPENDIX_B), (2, randomized_response(Fraction(1, 2), 3))],
    ids=["gs-appendix-b", "randomized-response"],
)
def test_other_mechanisms_do_not_dominate_and_the_counterexample_rechecks(n: int, base: Mechanism) -> None:
    solver, xs = dominance_query(n, Fraction(1, 2), base)
    assert solver.check() == z3.sat
    assert recheck_counterexample(n, Fraction(1, 2), base, solver.model(), xs) is None


@pytest.mark.slow
def test_dominance_n3_all_alphas() -> None:
    for alpha in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)):
        solver, _ = dominance_query(3, alpha, truncated_geometric(alpha, 3))
        assert solver.check() == z3.unsat


def test_polynomial_identity_by_evaluation_catches_a_wrong_exponent() -> None:
    from mechlib.proofs.shared.symbolic import identity_by_evaluation, kms

    m = 5
    assert identity_by_evaluation(m, lambda a: kms(m, a), lambda a: (1 - a * a) ** (m - 1), m * (m - 1))
    assert not identity_by_evaluation(m, lambda a: kms(m, a), lambda a: (1 - a * a) ** m, m * (m - 1))


def test_t_alpha_beta_has_a_negative_entry_when_alpha_exceeds_beta() -> None:
    """GS Lemma 3 negative control: the sign query is SAT for β < α."""
    from mechlib.proofs.gs.lemma_3 import negative_entry_query, t_alpha_beta_symbolic

    t = t_alpha_beta_symbolic(2)
    assert negative_entry_query(t, ordered=True).check() == z3.unsat
    assert negative_entry_query(t, ordered=False).check() == z3.sat


def test_gs_appendix_matrices_are_not_derivable_but_remaps_of_t_are() -> None:
    from mechlib import Remap, compose
    from mechlib.proofs.shared.encodings import not_derivable

    half = Fraction(1, 2)
    assert not_derivable(GS_APPENDIX_B, half)[0] == z3.unsat
    t = truncated_geometric(half, 3)
    derivable = compose(Remap.deterministic(lambda r: min(r, 2), range(4), range(4)), t)
    assert not_derivable(derivable, half)[0] == z3.sat  # negative control


def test_t_is_the_unique_optimum_for_lemma_5_12s_user_but_not_for_a_point_prior() -> None:
    from mechlib import BayesUser, Prior, binary_loss
    from mechlib.proofs.shared.encodings import lemma_5_12_user, unique_optimum

    half = Fraction(1, 2)
    t = truncated_geometric(half, 3)
    assert unique_optimum(t, lemma_5_12_user(3, Fraction(1, 100)), half)[0] == z3.unsat
    # Negative control: a point prior only sees row 0, so other rows can move: not unique.
    assert unique_optimum(t, BayesUser(Prior.point(3, 0), binary_loss(3)), half)[0] == z3.sat


def test_grs_appendix_c() -> None:
    from mechlib.proofs.grs.appendix_c import remapped_to_both

    assert remapped_to_both("a", "b")[0] == z3.unsat
    assert remapped_to_both("a", "a")[0] == z3.sat  # control: one user alone is served


def test_brenner_nissim_triangle_versus_path() -> None:
    from mechlib.proofs.other.brenner_nissim_path import BN_GRAPHS, bn_users, is_path, path_order, serves_both

    half = Fraction(1, 2)
    users = dict(bn_users(3, BN_GRAPHS["triangle K3"]))
    pair = [users["uniform prior, binary loss"], users["on {0,1} prior, binary loss"]]
    assert serves_both(BN_GRAPHS["triangle K3"], 3, pair, half).check() == z3.unsat
    assert serves_both(BN_GRAPHS["path P3"], 3, pair, half).check() == z3.sat
    assert [name for name, e in BN_GRAPHS.items() if is_path(e, 1 + max(v for x in e for v in x))] == [
        "path P3",
        "path P4",
    ]
    assert path_order([(2, 0), (0, 3), (3, 1)], 4) in ([2, 0, 3, 1], [1, 3, 0, 2])
    assert path_order(BN_GRAPHS["star K1,3"], 4) is None
