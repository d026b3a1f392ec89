"""GS Theorem 2 (G⁻¹M ≥ 0 ⇔ three-term conditions ⇔ derivable), GS Lemma 3, GRS Lemma 5.10."""

from fractions import Fraction

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechlib import InputError, Mechanism, Remap, compose, is_dp, randomized_response, signature, truncated_geometric
from mechlib.core.exact_linear import from_fmpq, to_fmpq
from mechlib.core.signature import remap_from_signature
from mechlib.optimality.derivability import derivation_witness, inverse_t_rows, t_alpha_beta
from mechlib.proofs.grs.figure_3 import FIGURE_3A
from mechlib.proofs.shared.printed import GS_APPENDIX_B
from mechlib.strategies import alphas, dp_mechanisms, dp_mixtures, remaps


def general_solve(m: Mechanism, alpha: Fraction) -> list[list[Fraction]]:
    """T⁻¹M by flint's general exact solve (independent of the closed form)."""
    t = truncated_geometric(alpha, m.n)
    tm = flint.fmpq_mat([[to_fmpq(x) for x in row] for row in t.rows])
    mm = flint.fmpq_mat([[to_fmpq(x) for x in row] for row in m.rows])
    y = tm.solve(mm)
    return [[from_fmpq(y[i, j]) for j in range(len(m.outputs))] for i in range(m.n + 1)]


def test_gs_appendix_b_is_dp_and_not_derivable() -> None:
    m = GS_APPENDIX_B
    d = derivation_witness(m, "1/2")
    assert not d.derivable and d.violation is not None
    assert (d.violation.row, d.violation.output) == (1, 1)
    assert d.violation.value == Fraction(-3, 4) / 9  # CLAIMS.md: −0.75/9


@given(alphas(max_denominator=9), st.integers(1, 7))
def test_closed_form_inverse_matches_flint(alpha: Fraction, n: int) -> None:
    t = truncated_geometric(alpha, n)
    inverse = flint.fmpq_mat([[to_fmpq(x) for x in row] for row in t.rows]).inv()
    assert [[from_fmpq(inverse[i, j]) for j in range(n + 1)] for i in range(n + 1)] == [
        list(r) for r in inverse_t_rows(alpha, n)
    ]


@given(dp_mechanisms(max_n=5))
def test_remaps_of_t_are_derivable_and_the_remap_is_recovered(case: tuple[Fraction, Mechanism]) -> None:
    alpha, m = case
    d = derivation_witness(m, alpha)
    assert d.derivable and d.remap is not None
    assert compose(d.remap, truncated_geometric(alpha, m.n)) == m
    assert [list(r) for r in d.remap.rows] == general_solve(m, alpha)


@given(dp_mixtures(max_n=5))
def test_verdict_agrees_with_the_general_solve(case: tuple[Fraction, Mechanism]) -> None:
    """Mixtures λ·RR + (1−λ)·Y∘T are α-DP, derivable or not: the closed-form verdict agrees
    with flint's general solve (G⁻¹M ≥ 0), and a derivable verdict's remap rebuilds M."""
    alpha, m = case
    d = derivation_witness(m, alpha)
    assert d.derivable == all(v >= 0 for row in general_solve(m, alpha) for v in row)
    if d.remap is not None:
        assert compose(d.remap, truncated_geometric(alpha, m.n)) == m


def test_randomized_response_is_not_derivable() -> None:
    for k in (3, 4, 6):
        d = derivation_witness(randomized_response("1/3", k), "1/3")
        assert not d.derivable and d.violation is not None and d.violation.value < 0


@given(alphas(max_denominator=8), st.integers(2, 6), st.data())
def test_perturbing_a_derivable_mechanism_flips_exactly_when_an_entry_turns_negative(
    alpha: Fraction, n: int, data: st.DataObject
) -> None:
    """Move mass ε between two outputs in one row of M = Y∘T (keeping it α-DP): the verdict is
    'derivable' exactly when every entry of T⁻¹M' stays ≥ 0."""
    t = truncated_geometric(alpha, n)
    y = data.draw(remaps(t.outputs, n + 1))
    m = compose(y, t)
    i = data.draw(st.integers(0, n))
    r, s = data.draw(st.lists(st.integers(0, n), min_size=2, max_size=2, unique=True))
    rows = [list(row) for row in m.rows]
    eps = rows[i][s] * Fraction(data.draw(st.integers(1, 20)), 100)
    rows[i][r] += eps
    rows[i][s] -= eps
    mutated = Mechanism(rows)
    if not is_dp(mutated, alpha):
        return
    d = derivation_witness(mutated, alpha)
    assert d.derivable == all(v >= 0 for row in general_solve(mutated, alpha) for v in row)


@given(alphas(max_denominator=10), alphas(max_denominator=10), st.integers(1, 6))
def test_gs_lemma_3(a: Fraction, b: Fraction, n: int) -> None:
    """T_{α,β} = G_α⁻¹G_β is stochastic for α ≤ β, and not for α > β."""
    lo, hi = min(a, b), max(a, b)
    y = t_alpha_beta(lo, hi, n)
    assert compose(y, truncated_geometric(lo, n)) == truncated_geometric(hi, n)
    if lo < hi:
        with pytest.raises(InputError, match="GS Lemma 3 needs α ≤ β"):
            t_alpha_beta(hi, lo, n)


def test_alpha_one_and_bad_input() -> None:
    constant_rows = Mechanism([["1/2", "1/2"]] * 3)
    assert derivation_witness(constant_rows, 1).derivable
    assert not derivation_witness(truncated_geometric("1/2", 2), 1).derivable
    with pytest.raises(InputError, match="count-query"):
        derivation_witness(Mechanism([[1]]), "1/2")


# GRS Figure 3(a) and Lemma 5.10 ----------------------------------------------------------------


def test_lemma_5_10_rebuilds_figure_3_from_its_signature() -> None:
    x = Mechanism(FIGURE_3A)
    y = remap_from_signature(signature(x, "1/2"))
    assert y.as_mapping() == {0: 0, 1: 2, 2: 2, 3: 3, 4: 4, 5: 5}
    assert compose(y, truncated_geometric("1/2", 5)) == x


def test_lemma_5_10_off_by_one_remap_does_not_rebuild() -> None:
    x = Mechanism(FIGURE_3A)
    wrong = Remap.deterministic({0: 0, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5}, range(6), range(6))
    assert compose(wrong, truncated_geometric("1/2", 5)) != x


def test_lemma_5_10_rejects_signatures_outside_lemma_5_9() -> None:
    with pytest.raises(InputError, match=r"Lemma 5\.9"):
        remap_from_signature(signature(randomized_response("1/2", 4), "1/2"))


def lp_derivable(m: Mechanism, alpha: Fraction) -> bool | None:
    """HiGHS: is {Y ≥ 0, rows sum to 1, T·Y = M} feasible? (a float cross-check, never a verdict;
    None when HiGHS is not sure)."""
    import numpy as np
    from scipy.optimize import linprog

    t = np.array([[float(x) for x in row] for row in truncated_geometric(alpha, m.n).rows])
    size, width = m.n + 1, len(m.outputs)
    a_eq = np.kron(t, np.eye(width))  # (T·Y)_{i,c} = Σ_r T_ir Y_rc, Y flattened row-major
    b_eq = np.array([float(x) for row in m.rows for x in row])
    result = linprog(np.zeros(size * width), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return {0: True, 2: False}.get(result.status)


@settings(max_examples=40)
@given(dp_mixtures(max_n=5))
def test_verdict_agrees_with_lp_feasibility(case: tuple[Fraction, Mechanism]) -> None:
    """GS Theorem 2 three ways: the closed-form sign test, flint's solve (above), and an LP."""
    alpha, m = case
    verdict = derivation_witness(m, alpha)
    lp = lp_derivable(m, alpha)
    entries = [v for row in general_solve(m, alpha) for v in row]
    if lp is not None and min(entries) ** 2 > Fraction(1, 10**12):  # skip borderline entries ≈ 0
        assert lp == verdict.derivable
