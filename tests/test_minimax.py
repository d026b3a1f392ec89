"""Minimax users (GS): certified optimal mechanisms and optimal interactions, GS Table 1, GS Thm 1(b)."""

from fractions import Fraction

from hypothesis import given, settings

from mechlib import Loss, MinimaxUser, Remap, absolute_loss, compose, truncated_geometric
from mechlib.optimality.derivability import derivation_witness
from mechlib.optimality.minimax import (
    check_interaction_certificate,
    check_minimax_certificate,
    derived_minimax_loss,
    optimal_interaction,
    optimal_minimax_mechanism,
)
from mechlib.strategies import alphas, minimax_users

# GS Table 1 (the OCR'd table is garbled; recomputed): n = 3, α = 1/4, l = |i − r|, S = N.
TABLE_1_REMAP = [
    ["68/83", "15/83", "0", "0"],
    ["0", "1", "0", "0"],
    ["0", "0", "1", "0"],
    ["0", "0", "15/83", "68/83"],
]


def test_gs_table_1_recomputed() -> None:
    user = MinimaxUser(range(4), absolute_loss(3))
    best = optimal_minimax_mechanism(user, "1/4")
    assert best.value == Fraction(168, 415)
    derivation = derivation_witness(best.mechanism, "1/4")
    assert derivation.remap is not None and derivation.remap.to_strings() == TABLE_1_REMAP
    interaction = optimal_interaction(truncated_geometric("1/4", 3), user)
    assert interaction.value == best.value
    assert compose(interaction.remap, truncated_geometric("1/4", 3)) == best.mechanism


@settings(max_examples=30)
@given(minimax_users(max_n=5), alphas(max_denominator=9))
def test_gs_theorem_1b(user: MinimaxUser, alpha: Fraction) -> None:
    """Every minimax user gets from G, via its optimal randomized remap, its optimal loss."""
    best = optimal_minimax_mechanism(user, alpha)
    assert check_minimax_certificate(best.mechanism, user, alpha, best.weights, best.dual) is None
    assert derived_minimax_loss(user, alpha) == best.value


def test_illegal_loss_breaks_theorem_1b() -> None:
    """Negative control: GRS Figure 5(b)'s illegal loss, S = N: G with its best remap loses 2/5 > 1/3."""
    user = MinimaxUser(range(4), Loss([[1, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]]))
    assert optimal_minimax_mechanism(user, "1/2").value == Fraction(1, 3)
    assert derived_minimax_loss(user, "1/2") == Fraction(2, 5)


def test_certificate_mutations_are_rejected() -> None:
    user = MinimaxUser(range(4), absolute_loss(3))
    best = optimal_minimax_mechanism(user, "1/4")
    alpha = Fraction(1, 4)
    uniform = [Fraction(1, 4)] * 4
    assert check_minimax_certificate(best.mechanism, user, alpha, uniform, best.dual) is not None
    narrow = MinimaxUser([1, 2], absolute_loss(3))  # λ has weight outside S
    assert "outside" in (check_minimax_certificate(best.mechanism, narrow, alpha, best.weights, best.dual) or "")
    t = truncated_geometric("1/4", 3)
    interaction = optimal_interaction(t, user)
    identity = Remap.identity(range(4))
    assert check_interaction_certificate(t, user, identity, interaction.weights) is not None
    assert check_interaction_certificate(t, user, interaction.remap, interaction.weights) is None
