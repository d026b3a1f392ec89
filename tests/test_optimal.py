"""Certified Bayes-optimal mechanisms (GRS LP (3)–(7)) and their exact certificates."""

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechlib.optimality.optimal as optimal
from mechlib import BayesUser, Loss, Prior, compose, expected_loss, optimal_remap, signature, truncated_geometric
from mechlib.core.signature import remap_from_signature
from mechlib.optimality.optimal import check_bayes_certificate, cone_nonnegative, optimal_bayes_mechanism
from mechlib.strategies import alphas, bayes_users, legal_losses, priors


def best_remap_of_t(user: BayesUser, alpha: Fraction) -> Fraction:
    t = truncated_geometric(alpha, user.n)
    return expected_loss(t, user, optimal_remap(t, user))


@settings(max_examples=40)
@given(bayes_users(max_n=6), alphas(max_denominator=9))
def test_lp_optimum_equals_best_remap_of_t(user: BayesUser, alpha: Fraction) -> None:
    """GRS Theorem 3.2 / GRS-LP: for every legal user, the certified LP optimum is T's."""
    result = optimal_bayes_mechanism(user, alpha)
    assert check_bayes_certificate(result.mechanism, user, alpha, result.dual) is None
    assert result.value == best_remap_of_t(user, alpha)


def test_grs_appendix_b_illegal_loss_breaks_the_theorem() -> None:
    """Negative control (GRS-B): uniform prior, Figure 5(b)'s illegal loss, n=3, α=1/2."""
    loss = Loss([[1, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]])
    assert not loss.is_legal()
    user = BayesUser(Prior.uniform(3), loss)
    result = optimal_bayes_mechanism(user, "1/2")
    assert result.value == Fraction(1, 3)
    assert best_remap_of_t(user, Fraction(1, 2)) == Fraction(17, 48)


@settings(max_examples=25)
@given(st.integers(1, 5), alphas(max_denominator=7), st.data())
def test_lemma_5_10_on_optimal_vertices(n: int, alpha: Fraction, data: st.DataObject) -> None:
    """GRS Lemma 5.10: full-support prior, strictly legal loss: the optimal vertex is Y∘T with Y
    built from its signature."""
    user = BayesUser(data.draw(priors(n, full_support=True)), data.draw(legal_losses(n, strict=True)))
    x = optimal_bayes_mechanism(user, alpha).mechanism
    assert compose(remap_from_signature(signature(x, alpha)), truncated_geometric(alpha, n)) == x


def test_certificate_mutations_are_rejected() -> None:
    user = BayesUser(Prior.uniform(4), Loss.from_function(4, lambda i, j: abs(i - j)))
    alpha = Fraction(1, 2)
    good = optimal_bayes_mechanism(user, alpha)
    assert check_bayes_certificate(good.mechanism, user, alpha, good.dual) is None
    bumped = [u + Fraction(1, 100) if k == 0 else u for k, u in enumerate(good.dual)]
    assert check_bayes_certificate(good.mechanism, user, alpha, bumped) is not None  # Σu ≠ loss
    t = truncated_geometric(alpha, 4)
    worse = compose(optimal_remap(t, BayesUser(Prior.point(4, 0), user.loss)), t)
    assert check_bayes_certificate(worse, user, alpha, good.dual) is not None
    assert check_bayes_certificate(t, user, Fraction(1, 3), good.dual) is not None  # not 1/3-DP
    raised = [u + 1 for u in good.dual]  # Σu exceeds the loss: weak duality would be violated
    assert check_bayes_certificate(good.mechanism, user, alpha, raised) is not None


def test_z3_fallback_gives_the_same_certified_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    user = BayesUser(
        Prior([Fraction(1, 4), 0, Fraction(1, 4), 0, Fraction(1, 2)]), Loss.from_function(4, lambda i, j: (i - j) ** 2)
    )
    fast = optimal_bayes_mechanism(user, "1/3")
    monkeypatch.setattr(optimal, "_highs_bayes", lambda costs, alpha: None)
    slow = optimal_bayes_mechanism(user, "1/3")
    assert slow.method == "z3" and slow.value == fast.value


def test_large_n_beyond_z3_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(optimal, "_highs_bayes", lambda costs, alpha: None)
    user = BayesUser(Prior.uniform(30), Loss.from_function(30, lambda i, j: abs(i - j)))
    with pytest.raises(optimal.CertificationError, match="z3 fallback's limit"):
        optimal_bayes_mechanism(user, "1/2")


@given(alphas(max_denominator=7), st.lists(st.integers(-6, 6), min_size=1, max_size=6))
def test_cone_check_agrees_with_all_extreme_rays(alpha: Fraction, weights: list[int]) -> None:
    """The O(n) recurrence equals brute force over the 2^n rays x_{i+1} = α^{±1} x_i."""
    w = [Fraction(v) for v in weights]
    brute = True
    for signs in product((1, -1), repeat=len(w) - 1):
        ray, total = Fraction(1), w[0]
        for s, value in zip(signs, w[1:]):
            ray = ray * alpha if s == 1 else ray / alpha
            total += value * ray
        brute = brute and total >= 0
    assert cone_nonnegative(w, alpha) == brute


@settings(max_examples=60, deadline=None)
@given(bayes_users(max_n=7), alphas())
def test_the_optimum_of_t_needs_no_lp(user: BayesUser, alpha: Fraction) -> None:
    """GRS Thm 3.1 with a dual from T's columns (u = (T⁻¹)ᵀb): whenever it is accepted it is the
    LP's optimum and its certificate checks exactly; it is accepted for every drawn user."""
    from mechlib.optimality.derivability import TBasis

    basis = TBasis(alpha, user.n)
    found = optimal.optimum_of_t(user, alpha, basis.t, basis.inverse)
    assert found is not None, "the constructed dual was refused: the LP would decide"
    primal = compose(found.remap, basis.t)
    assert check_bayes_certificate(primal, user, alpha, found.dual) is None
    assert found.value == expected_loss(primal, user) == optimal_bayes_mechanism(user, alpha).value


def test_a_wrong_inverse_gives_no_optimum_of_t() -> None:
    """The negative control: u from Tᵀ instead of (T⁻¹)ᵀ fails the cone test (so nothing is
    certified from it)."""
    from mechlib.core.users import absolute_loss
    from mechlib.optimality.derivability import TBasis

    n, alpha = 6, Fraction(1, 2)
    user = BayesUser(Prior.uniform(n), absolute_loss(n))
    basis = TBasis(alpha, n)
    assert optimal.optimum_of_t(user, alpha, basis.t, basis.inverse) is not None
    assert optimal.optimum_of_t(user, alpha, basis.t, basis.t.rows) is None
