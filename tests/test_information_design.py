"""The information-design kernel (SY): α as an exact object, databases, K and K_Ω, their
vertices, database mechanisms, UPRR, decision problems and the certified designer."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechlib.errors import InputError
from mechlib.infodesign.alpha import Alpha, X, const
from mechlib.infodesign.database_mechanisms import DatabaseMechanism
from mechlib.infodesign.databases import DatabaseSpace, Theta, exchangeable_prior, iid_prior, is_anonymous
from mechlib.infodesign.decision import DecisionProblem, at_least
from mechlib.infodesign.designer import optimal_design, optimal_oblivious_value
from mechlib.infodesign.info_structure import InformationStructure, geometric_structure
from mechlib.infodesign.privacy_sets import (
    exponent_vertices,
    k_omega_vertices,
    k_omega_violation,
    k_vertices,
    k_violation,
    ratio_violation,
)
from mechlib.infodesign.uprr import uprr_dominates
from mechlib.strategies import alphas, payoffs

HALF = Alpha.of("1/2")
E1 = Alpha.exp(1)


def test_alpha_signs_are_exact_at_rationals_and_at_e() -> None:
    assert HALF.sign(X - const("1/2")) == 0
    assert E1.sign(X - const("0.36787944117144233")) < 0  # e^-1 = 0.367879441171442321...
    assert E1.sign(X - const("0.36787944117144232")) > 0
    assert E1.sign(X * X * 0) == 0
    assert E1.sign((const(1) + X) ** 7 - (const(1) + X) ** 7) == 0
    assert str(E1) == "e^-1" and HALF.value(X**2) == Fraction(1, 4)


@pytest.mark.parametrize("bad", ["0", "1", "3/2", "-1/2"])
def test_alpha_out_of_range_is_an_input_error(bad: str) -> None:
    with pytest.raises(InputError, match="0 < alpha < 1"):
        Alpha.of(bad)
    with pytest.raises(InputError, match="epsilon > 0"):
        Alpha.exp("-1")


def test_priors_and_anonymity() -> None:
    space = DatabaseSpace(3, 1)
    iid = iid_prior(space, ["0.7", "0.3"])
    assert sum(iid.values()) == 1 and is_anonymous(space, iid)
    exch = exchangeable_prior(space, lambda h: 1 + h[1] ** 2)
    assert is_anonymous(space, exch) and exch != iid
    skewed = dict(iid)
    skewed[(0, 0, 1)], skewed[(1, 0, 0)] = skewed[(1, 0, 0)] / 2, skewed[(1, 0, 0)] * 3 / 2
    assert not is_anonymous(space, skewed)
    with pytest.raises(InputError, match="T\\+1 = 2"):
        iid_prior(space, ["1/2", "1/4", "1/4"])
    with pytest.raises(InputError, match="sums to"):
        iid_prior(space, ["1/2", "1/4"])
    assert space.project(iid, Fraction(0)) == [
        Fraction(343, 1000),
        Fraction(441, 1000),
        Fraction(189, 1000),
        Fraction(27, 1000),
    ]


def _brute_force_vertices(
    space: DatabaseSpace, prior: dict[Theta, Fraction], alpha: Fraction
) -> set[tuple[Fraction, ...]]:
    """Basis enumeration: every choice of |Θ| − 1 tight ratio constraints + Σπ = 1, solved exactly."""
    thetas = space.thetas
    rows = []
    for a, b in space.adjacent_pairs:
        for low, high in ((a, b), (b, a)):  # π(low)π₀(high) − α π(high)π₀(low) ≥ 0
            row = [Fraction(0)] * len(thetas)
            row[thetas.index(low)] += prior[high]
            row[thetas.index(high)] -= alpha * prior[low]
            rows.append(row)
    found = set()
    for chosen in combinations(rows, len(thetas) - 1):
        m = flint.fmpq_mat(
            [[flint.fmpq(x.numerator, x.denominator) for x in r] for r in (*chosen, [Fraction(1)] * len(thetas))]
        )
        if m.rank() < len(thetas):
            continue
        rhs = flint.fmpq_mat(len(thetas), 1, [0] * (len(thetas) - 1) + [1])
        sol = [Fraction(int(v.p), int(v.q)) for v in m.solve(rhs).entries()]
        if all(sum(c * x for c, x in zip(r, sol)) >= 0 for r in rows):
            found.add(tuple(sol))
    return found


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_vertices_of_k_match_brute_force_basis_enumeration(n: int) -> None:
    space = DatabaseSpace(n, 1)
    prior = dict(zip(space.thetas, [Fraction(w, 10 * 2 ** (n - 2) + (0 if n == 2 else 4)) for w in range(1, 2**n + 1)]))
    prior = {t: p / sum(prior.values()) for t, p in prior.items()}
    alpha = Fraction(1, 3)
    ours = set()
    for v in k_vertices(space, prior):
        raw = [Fraction(Alpha.of(alpha).value(v[t])) for t in space.thetas]
        ours.add(tuple(x / sum(raw) for x in raw))
    assert ours == _brute_force_vertices(space, prior, alpha)


def test_k_omega_has_two_to_the_n_vertices_for_categorical_data() -> None:
    for n in range(1, 7):
        assert len(k_omega_vertices([Fraction(1, n + 1)] * (n + 1), 1)) == 2**n  # SY Corollary 4
    assert len(exponent_vertices([0, 1, 2], [(0, 1), (1, 2), (0, 2)])) == 6


def test_membership_witnesses_name_the_pair() -> None:
    mu0 = [Fraction(1, 3)] * 3
    inside = [const(1), X, const(1)]
    assert k_omega_violation(inside, mu0, 1, HALF) is None
    outside = [const(1), X * X, const(1)]  # ratio α² between ω = 0 and 1
    found = k_omega_violation(outside, mu0, 1, HALF)
    assert found is not None and (found.low, found.high) == (1, 0)
    space = DatabaseSpace(2, 1)
    prior = iid_prior(space, ["1/2", "1/2"])
    assert k_violation(space, {t: const(prior[t]) for t in space.thetas}, prior, E1) is None  # π₀ ∈ K
    bad = {t: const(1 if t == (0, 0) else 3) for t in space.thetas}  # ratio 3 > e
    assert k_violation(space, bad, prior, E1) is not None
    assert k_violation(space, {t: const(1 if t == (0, 0) else 2) for t in space.thetas}, prior, E1) is None


def test_database_mechanisms_dp_posteriors_and_symmetrization() -> None:
    space = DatabaseSpace(2, 1)
    rr = {
        t: [Fraction(2, 3) if t[0] == 0 else Fraction(1, 3), Fraction(1, 3) if t[0] == 0 else Fraction(2, 3)]
        for t in space.thetas
    }
    m = DatabaseMechanism.of(space, rr)  # randomized response on respondent 1: ln 2-DP
    assert m.dp_violation(HALF) is None and m.dp_violation(Alpha.of("3/5")) is not None
    assert not m.is_permutation_invariant() and m.symmetrized().is_permutation_invariant()
    assert m.symmetrized().dp_violation(HALF) is None
    prior = iid_prior(space, ["1/2", "1/2"])
    assert m.symmetrized().about_omega(prior).columns == m.about_omega(prior).columns
    with pytest.raises(InputError, match="not a distribution"):
        DatabaseMechanism.of(space, {t: ["1/2", "1/3"] for t in space.thetas})
    obl = DatabaseMechanism.oblivious(space, [["1", "0"], ["1/2", "1/2"], ["0", "1"]])
    assert obl.is_oblivious() and obl.dp_violation(HALF) is not None


def test_geometric_structure_is_bayes_plausible_and_dominates_its_own_garbling() -> None:
    mu0 = [Fraction(1, 6), Fraction(1, 2), Fraction(1, 3)]
    g = geometric_structure(mu0)
    assert g.prior_violation(mu0, E1) is None
    merged = InformationStructure((tuple(a + b for a, b in zip(g.columns[0], g.columns[1])), g.columns[2]), g.scale)
    assert uprr_dominates(g, merged, E1).dominates
    broken = InformationStructure.of([[1, 0, 0], [0, 1, 1]])  # not Bayes-plausible for μ₀
    assert broken.prior_violation(mu0, HALF) == 0


def test_supermodularity_witness_and_values() -> None:
    sm = DecisionProblem.of([[0, 0, 0], [-1, 0, 1]])
    assert sm.supermodularity_violation() is None
    not_sm = DecisionProblem.of([[0, 1, 0], [1, 0, 1]])  # "central vs extreme"
    assert not_sm.supermodularity_violation() == (0, 0)
    mu0 = [Fraction(1, 3)] * 3
    g = geometric_structure(mu0)
    from mechlib.proofs.shared.uprr import example2_tau_b

    b = example2_tau_b()
    assert at_least(sm.value(g, E1), sm.value(b, E1), E1)
    assert not at_least(not_sm.value(g, E1), not_sm.value(b, E1), E1)  # SY §5.1: τ_b wins there


def _direct_lp_value(
    space: DatabaseSpace, prior: dict[Theta, Fraction], problem: DecisionProblem, alpha: Fraction
) -> float:
    """Float LP over mechanisms m(a | θ) (revelation principle): a cross-check of the designer."""
    from scipy.optimize import linprog

    thetas, acts = space.thetas, len(problem.payoff)
    idx = {(t, a): i for i, (t, a) in enumerate((t, a) for t in thetas for a in range(acts))}
    c = np.zeros(len(idx))
    for (t, a), i in idx.items():
        c[i] = -float(prior[t] * problem.payoff[a][sum(t)])
    a_ub = []
    for x, y in space.adjacent_pairs:
        for low, high in ((x, y), (y, x)):
            for a in range(acts):
                row = np.zeros(len(idx))
                row[idx[(high, a)]] = float(alpha)
                row[idx[(low, a)]] = -1
                a_ub.append(row)
    a_eq = np.zeros((len(thetas), len(idx)))
    for (t, _), i in idx.items():
        a_eq[thetas.index(t), i] = 1
    res = linprog(
        c, A_ub=np.array(a_ub), b_ub=np.zeros(len(a_ub)), A_eq=a_eq, b_eq=np.ones(len(thetas)), method="highs"
    )
    return float(-res.fun)


@given(alphas(max_denominator=5), st.integers(0, 2).flatmap(lambda k: payoffs(3 if k < 2 else 4, supermodular=None)))
def test_certified_designer_agrees_with_a_direct_lp_over_mechanisms(a: Fraction, u: list[list[Fraction]]) -> None:
    n = len(u[0]) - 1
    space = DatabaseSpace(n, 1)
    prior = iid_prior(space, ["3/5", "2/5"])
    problem = DecisionProblem.of(u)
    design = optimal_design(space, prior, problem, Alpha.of(a))
    assert design is not None
    assert abs(float(design.value) - _direct_lp_value(space, prior, problem, a)) < 1e-7
    assert DatabaseMechanism.of(space, design.mechanism(prior)).dp_violation(Alpha.of(a)) is None
    # SY Thm 2: with categorical data and an anonymous prior, the best oblivious mechanism is as good
    assert optimal_oblivious_value(space.project(prior, Fraction(0)), 1, problem, Alpha.of(a)) == design.value


def test_ratio_violation_uses_both_directions() -> None:
    f = {0: const(1), 1: const(3)}
    w = {0: Fraction(1), 1: Fraction(1)}
    found = ratio_violation(f, w, [(0, 1)], HALF)
    assert found is not None and (found.low, found.high) == (0, 1)
    assert ratio_violation({0: const(3), 1: const(1)}, w, [(0, 1)], HALF) is not None
