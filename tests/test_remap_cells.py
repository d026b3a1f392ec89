"""The remap-cell proof of GRS Theorem 3.2's "if" direction and DOM (mechlib.proofs.shared.remap_cells)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from mechlib import randomized_response, truncated_geometric
from mechlib.core.post_processing import expected_loss
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.shared.generators import best_remap_loss
from mechlib.proofs.shared.remap_cells import (
    Form,
    _Problem,
    farkas,
    gordan,
    prove,
    prove_on_engine,
    user_of,
    weight_coordinates,
)


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(4, 5)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_t_is_proved_optimal_for_every_user(n: int, alpha: Fraction) -> None:
    """Every cell proved; the cells with interior are the monotone remaps, C(2n+1, n) of them."""
    counts = prove(n, alpha)
    assert counts.counterexample is None and not counts.unproved
    assert counts.cells == comb(2 * n + 1, n)


def test_a_permuted_t_is_proved_without_the_reflection() -> None:
    """π∘T is universally optimal too (GRS Corollary 3.4), but not centrosymmetric: every cell is
    then proved on its own."""
    n, alpha = 3, Fraction(1, 2)
    swap = Remap.deterministic(lambda r: {0: 1, 1: 0}.get(r, r), range(n + 1), range(n + 1))
    permuted = compose(swap, truncated_geometric(alpha, n))
    counts = prove(n, alpha, base=permuted)
    assert counts.counterexample is None and not counts.unproved
    assert counts.mirrored == 0 and counts.cells == comb(2 * n + 1, n)


@pytest.mark.parametrize("n", [2, 3])
def test_randomized_response_is_refuted_by_a_checked_user(n: int) -> None:
    """The base mechanism replaced by randomized response (α-DP, not universally optimal): the
    proof stops at a user w; the certified Bayes LP confirms that no remap of RR is optimal for it."""
    alpha = Fraction(1, 2)
    rr = randomized_response(alpha, n + 1)
    counts = prove(n, alpha, base=rr)
    assert counts.counterexample is not None
    user = user_of(n, counts.counterexample["w"])
    assert optimal_bayes_mechanism(user, alpha).value < best_remap_loss(rr, user)


def test_users_of_weights_lose_what_the_weights_say() -> None:
    """user_of(w): the loss of a mechanism is Σ_{i,j} X_ij·c_j(w)_i up to the positive scale Σw."""
    n, alpha = 3, Fraction(1, 3)
    coords = weight_coordinates(n)
    w = [Fraction(1 + (3 * i + k) % 4, 7) if i != 2 else Fraction(0) for i, k in coords]
    t = truncated_geometric(alpha, n)
    identity = Remap.deterministic(lambda r: r, range(n + 1), range(n + 1))
    direct = sum(
        (t.rows[i][j] * sum((x for (ii, k), x in zip(coords, w) if ii == i and k <= abs(j - i)), Fraction(0))
         for i in range(n + 1) for j in range(n + 1)),
        Fraction(0),
    )  # fmt: skip
    assert expected_loss(t, user_of(n, w), identity) * sum(w) == direct


def _form(*values: int) -> Form:
    return Form.of([Fraction(v) for v in values])


def test_farkas_certificates_are_exact_and_sound() -> None:
    rows = [_form(1, -1)]  # w0 ≥ w1
    assert farkas(rows, _form(2, -1)) is not None  # 2w0 − w1 = (w0 − w1) + w0 ≥ 0
    assert farkas(rows, _form(1, -2)) is None  # negative at w = (1, 1)
    assert farkas([], _form(0, 3)) == []  # nonnegative coefficients need no rows


def test_gordan_certificates_only_for_empty_interiors() -> None:
    assert gordan([_form(1, -1), _form(-1, 1)], 2) is not None  # w0 = w1: no interior
    assert gordan([_form(1, -1)], 2) is None
    assert gordan([], 2) is None


def test_forms_stay_exact() -> None:
    f = Form.of([Fraction(1, 3), Fraction(-2, 5)])
    g = f.plus(Fraction(3, 7), Form.of([Fraction(1), Fraction(1, 2)]))
    assert g.at([Fraction(1), Fraction(0)]) == Fraction(1, 3) + Fraction(3, 7)
    assert g.at([Fraction(0), Fraction(1)]) == Fraction(-2, 5) + Fraction(3, 14)
    assert (-g).at([Fraction(1), Fraction(1)]) == -g.at([Fraction(1), Fraction(1)])


def test_a_singular_base_is_refused() -> None:
    rows = [[Fraction(1, 2)] * 2] * 2
    from mechlib import Mechanism

    with pytest.raises(ValueError, match="singular"):
        _Problem(1, Fraction(1, 2), Mechanism(rows))


def test_the_engine_proves_what_one_process_proves() -> None:
    """Split into prefixes of σ, each a task on the local cluster: the same cells are proved."""
    alone = prove(3, Fraction(1, 2))
    split = prove_on_engine(3, Fraction(1, 2), jobs=2)
    assert (split.cells, split.mirrored) == (alone.cells, alone.mirrored)
    assert not split.unproved and split.counterexample is None
