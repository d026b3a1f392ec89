"""GRS Proposition 6.1 / GS Appendix A on exact instances: averaging over databases."""

from fractions import Fraction

from mechlib import Mechanism, dp_level
from mechlib.proofs.shared.oblivious import averaged, rowwise_randomized_response

FLIPS = [Fraction(1, 5), Fraction(1, 3), Fraction(2, 5)]


def test_rowwise_randomized_response_is_dp_and_not_oblivious() -> None:
    x = rowwise_randomized_response(FLIPS)
    assert dp_level(x).alpha == Fraction(1, 4)  # the least private row: (1/5)/(4/5)
    assert x.row((1, 0, 0)) != x.row((0, 1, 0))  # same count, different output distributions


def test_averaging_keeps_the_privacy_level() -> None:
    x = rowwise_randomized_response(FLIPS)
    assert dp_level(averaged(x)).alpha >= dp_level(x).alpha


def test_picking_one_database_per_count_can_lose_privacy() -> None:
    """Negative control: representatives that are not neighbours break the guarantee."""
    x = rowwise_randomized_response(FLIPS)
    picks = [(0, 0, 0), (0, 0, 1), (1, 1, 0), (1, 1, 1)]  # counts 1 and 2 differ in every row
    selected = Mechanism([list(x.row(d)) for d in picks])
    assert dp_level(selected).alpha == Fraction(3, 16) < dp_level(x).alpha == Fraction(1, 4)
