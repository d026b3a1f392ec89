"""The dominance certificate (CLAIMS.md note 1, DOM)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings

import mechlib.optimality.dominance as dominance
from mechlib import (
    InputError,
    Mechanism,
    Remap,
    exponential,
    randomized_response,
    truncated_geometric,
)
from mechlib.optimality.derivability import TBasis
from mechlib.optimality.dominance import check_dominance, dominance_certificate, tail_profile
from mechlib.optimality.optimal import CertificationError
from mechlib.proofs.shared.printed import GS_APPENDIX_B
from mechlib.strategies import dp_mixtures


@settings(max_examples=30)
@given(dp_mixtures(max_n=6))
def test_every_dp_mechanism_is_dominated(case: tuple[Fraction, Mechanism]) -> None:
    """Mixtures of randomized response and remaps of T (α-DP, derivable or not)."""
    alpha, x = case
    certificate = dominance_certificate(x, alpha)
    assert check_dominance(x, alpha, certificate.remap) is None


@pytest.mark.parametrize(
    "x",
    [GS_APPENDIX_B, randomized_response("1/3", 5), exponential("1/2", 6)],
    ids=["gs-appendix-b", "randomized-response", "exponential"],
)
def test_named_mechanisms_are_dominated(x: Mechanism) -> None:
    certificate = dominance_certificate(x)
    assert check_dominance(x, certificate.alpha, certificate.remap) is None


def test_a_non_dominating_remap_is_caught() -> None:
    x = randomized_response("1/3", 4)
    constant = Remap.deterministic(lambda r: 0, range(4), range(4))
    violation = check_dominance(x, Fraction(1, 3), constant)
    assert violation is not None and violation.remapped > violation.mechanism


def test_a_less_accurate_t_cannot_dominate() -> None:
    """Negative control: T_{1/2} cannot dominate T_{1/3} (its zero-error mass is smaller)."""
    x = truncated_geometric("1/3", 4)
    with pytest.raises(CertificationError, match="infeasible"):
        dominance._highs_dominance(TBasis(Fraction(1, 2), 4), tail_profile(x))


def test_tail_profile() -> None:
    t = truncated_geometric("1/2", 2)  # rows [2/3,1/6,1/6], [1/3,1/3,1/3], [1/6,1/6,2/3]
    assert tail_profile(t)[0][:3] == [1, Fraction(1, 3), Fraction(1, 6)]
    assert tail_profile(t)[1][:3] == [1, Fraction(2, 3), 0]


def test_input_errors() -> None:
    with pytest.raises(InputError, match="only 1/3-DP"):
        dominance_certificate(truncated_geometric("1/3", 3), "1/2")
    with pytest.raises(InputError, match="0 < α < 1"):
        dominance_certificate(Mechanism([[1, 0], [0, 1]]))
