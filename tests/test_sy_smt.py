"""Schmutte–Yoder's K and K_Ω encodings: Theorem 1 (T=2), Theorem 2 (T=1, symmetric), controls."""

from fractions import Fraction

import z3

import mechlib.proofs.sy.appendix_a
from mechlib.proofs.shared.privacy_set_smt import (
    _witness,
    databases,
    iid,
    k_omega_not_covered,
    projection_leaves_k_omega,
    recheck_witness,
)
from mechlib.proofs.sy.appendix_a import exact_married_respondents, phi
from mechlib.proofs.sy.proposition_4 import ASYMMETRIC_3

HALF = Fraction(1, 2)


def test_magnitude_data_projects_outside_k_omega_with_an_exact_witness() -> None:
    prior = iid(2, [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
    solver, pi = projection_leaves_k_omega(prior, 2, HALF)
    assert solver.check() == z3.sat
    assert recheck_witness(_witness(solver, pi), prior, 2, HALF)


def test_categorical_symmetric_projection_is_exact() -> None:
    prior = iid(2, [Fraction(2, 3), Fraction(1, 3)])
    solver, _ = projection_leaves_k_omega(prior, 1, HALF)
    assert solver.check() == z3.unsat
    assert k_omega_not_covered(prior, 1, HALF).check() == z3.unsat


def test_anonymity_matters_with_three_respondents() -> None:
    solver, pi = projection_leaves_k_omega(ASYMMETRIC_3, 1, HALF)
    assert solver.check() == z3.sat
    assert recheck_witness(_witness(solver, pi), ASYMMETRIC_3, 1, HALF)


def test_the_exact_recheck_rejects_a_posterior_outside_k() -> None:
    prior = iid(2, [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
    point = {theta: Fraction(int(theta == (0, 0))) for theta in databases(2, 2)}
    assert not recheck_witness(point, prior, 2, HALF)  # a point mass is not ε-DP
    assert not recheck_witness(dict(prior), prior, 2, HALF)  # the prior is in K and projects into K_Ω


def test_appendix_a_check_fails_for_a_posterior_outside_k(monkeypatch: object) -> None:
    """Mutation: φ(100) = α⁴ makes π̂/π₀ jump by α² between (000) and (100): π̂ ∉ K, REFUTED."""
    import pytest

    from mechlib.proofs.registry import Verdict

    real = phi

    def wrong(alpha: object) -> dict[tuple[int, ...], object]:
        f = real(alpha)
        f[(1, 0, 0)] = alpha**4  # type: ignore[operator]
        return f

    mp = pytest.MonkeyPatch()
    mp.setattr(mechlib.proofs.sy.appendix_a, "phi", wrong)
    try:
        assert exact_married_respondents().verdict == Verdict.REFUTED
    finally:
        mp.undo()
    assert exact_married_respondents().verdict == Verdict.PROVED
