"""GS Lemma 3 and Algorithm 1: exact marginals, collusion resistance, exact sampling."""

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from mechlib import InputError, dp_level, truncated_geometric
from mechlib.optimality.multilevel import joint_release, multilevel_release, release_chain, sample_row

LEVELS = [Fraction(1, 4), Fraction(1, 2), Fraction(2, 3)]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_marginal_is_exactly_geometric_and_every_coalition_is_dp(n: int) -> None:
    """GS Theorem 1(a): r_i alone is the α_i-geometric; a coalition C is α_min(C)-DP, not better."""
    for i, alpha in enumerate(LEVELS):
        marginal = joint_release(n, LEVELS, [i])
        assert [list(r) for r in marginal.rows] == [list(r) for r in truncated_geometric(alpha, n).rows]
    for size in (2, 3):
        for coalition in combinations(range(3), size):
            level = dp_level(joint_release(n, LEVELS, coalition)).alpha
            assert level == min(LEVELS[i] for i in coalition)


def test_independent_noise_is_not_collusion_resistant() -> None:
    """Negative control: two independent releases at 1/2 combine to (1/2)² = 1/4-DP."""
    t = truncated_geometric("1/2", 2)
    from mechlib import Mechanism

    rows = [[a * b for a in row for b in row] for row in t.rows]
    assert dp_level(Mechanism(rows)).alpha == Fraction(1, 4)


def test_sampling_is_exact_and_seeded() -> None:
    first, _ = release_chain(3, LEVELS)
    rng = random.Random(7)
    draws = Counter(sample_row(first, 1, rng) for _ in range(20000))
    for r, p in enumerate(first.rows[1]):
        assert abs(draws[r] / 20000 - float(p)) < 0.02  # a sanity check on the sampler only
    assert multilevel_release(2, LEVELS, 3, random.Random(1)) == multilevel_release(2, LEVELS, 3, random.Random(1))


def test_bad_levels_and_counts() -> None:
    with pytest.raises(InputError, match="strictly increasing"):
        multilevel_release(1, ["1/2", "1/4"], 3, random.Random(0))
    with pytest.raises(InputError, match="count=5"):
        multilevel_release(5, LEVELS, 3, random.Random(0))
