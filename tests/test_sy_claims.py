"""Negative controls for the SY claim checks: each check must fail on a mutated input."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import strategies as st

import mechlib.proofs.shared.privacy_set_instances as ps
from mechlib.infodesign.alpha import Alpha, X, const
from mechlib.infodesign.databases import DatabaseSpace, iid_prior
from mechlib.infodesign.designer import optimal_oblivious_value
from mechlib.infodesign.info_structure import InformationStructure, geometric_structure
from mechlib.infodesign.privacy_sets import k_omega_vertices, k_omega_violation, k_violation
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Verdict
from mechlib.proofs.sy.equation_4 import dp_iff_posteriors_in_k
from mechlib.proofs.sy.lemma_1 import geometric_posteriors_exact, lemma1_violation
from mechlib.proofs.sy.lemma_2 import lemma2_violation
from mechlib.proofs.sy.theorem_1 import _theorem1_posterior
from mechlib.proofs.sy.theorem_2 import categorical_anonymous_equal
from mechlib.proofs.sy.theorem_3 import theorem3_violation
from mechlib.proofs.sy.theorem_4 import theorem4_violation
from mechlib.strategies import oblivious_dp_cases, payoffs
from tests.conftest import patch_everywhere

HALF = Alpha.of("1/2")


def test_theorem1_construction_stays_in_k_omega_for_categorical_data() -> None:
    """The same construction with T = 1 projects into K_Ω (Theorem 2): T > 1 is what breaks it."""
    space = DatabaseSpace(3, 1)
    prior = iid_prior(space, ["1/2", "1/2"])
    pi, _ = _theorem1_posterior(space, prior)
    assert k_omega_violation(space.project(pi, const(0)), space.project(prior, Fraction(0)), 1, HALF) is None


def test_a_wrong_alpha_in_the_posterior_test_breaks_e4(monkeypatch: pytest.MonkeyPatch) -> None:
    real = k_violation
    patch_everywhere(monkeypatch, real, lambda space, pi, prior, alpha: real(space, pi, prior, Alpha.of("9/10")))
    assert dp_iff_posteriors_in_k().verdict == Verdict.REFUTED


def test_an_asymmetric_prior_refutes_t2(monkeypatch: pytest.MonkeyPatch) -> None:
    from mechlib.proofs.sy.proposition_4 import ASYMMETRIC_3

    patch_everywhere(
        monkeypatch, iid_prior, lambda space, p: dict(ASYMMETRIC_3) if space.n == 3 else iid_prior(space, p)
    )
    outcome = categorical_anonymous_equal()
    assert outcome.verdict == Verdict.REFUTED and outcome.evidence["failures"][0]["escapes"]


def test_lifts_fail_when_the_prior_of_the_lift_is_wrong() -> None:
    """K_Ω ⊆ PK needs the right μ₀: lifting with another prior's weights leaves K."""
    space = DatabaseSpace(2, 1)
    prior = iid_prior(space, ["1/2", "1/2"])
    assert ps.lifts_fail(space, prior, HALF) == []
    skew = iid_prior(space, ["9/10", "1/10"])
    mu0 = space.project(prior, Fraction(0))
    failed = [
        v
        for v in k_omega_vertices(space.project(skew, Fraction(0)), 1)
        if k_violation(space, {t: v[sum(t)] * const(prior[t] / mu0[sum(t)]) for t in space.thetas}, prior, HALF)
    ]
    assert failed


def _squared_alpha(mu0: list[Fraction]) -> InformationStructure:
    """The geometric mechanism at α² instead of α: a mutation of τ^g."""
    g = geometric_structure(mu0)
    return InformationStructure(tuple(tuple(p(X * X) for p in c) for c in g.columns), g.scale(X * X))


def test_lemmas_1_and_2_fail_for_the_geometric_mechanism_at_the_wrong_alpha(monkeypatch: pytest.MonkeyPatch) -> None:
    mu0 = [Fraction(1, 4)] * 4
    assert lemma1_violation(mu0, HALF) is None and lemma2_violation(mu0, HALF) is None
    patch_everywhere(monkeypatch, geometric_structure, _squared_alpha)
    assert lemma1_violation(mu0, HALF) is not None
    assert geometric_posteriors_exact().verdict == Verdict.REFUTED


def test_lemma2_fails_with_the_wrong_peak() -> None:
    from mechlib.infodesign.uprr import violated_peak

    mu0 = [Fraction(1, 4)] * 4
    g = geometric_structure(mu0)
    others = list(enumerate(tuple(v) for v in k_omega_vertices(mu0, 1)))
    assert violated_peak(g.columns[1], others, 1, HALF) is None
    assert violated_peak(g.columns[1], others, 2, HALF) is not None


def test_uprr_fails_against_a_non_dp_structure() -> None:
    from mechlib.infodesign.uprr import uprr_dominates

    mu0 = [Fraction(1, 3)] * 3
    revealing = InformationStructure.of([[Fraction(1, 3), 0, 0], [0, Fraction(1, 3), 0], [0, 0, Fraction(1, 3)]])
    verdict = uprr_dominates(geometric_structure(mu0), revealing, HALF)
    assert not verdict.dominates and verdict.failure is not None


def test_non_dp_mechanisms_refute_the_p3_and_l2_fuzz_properties() -> None:
    from mechlib.strategies import mechanisms, priors

    def case(m: Any) -> Any:
        return st.tuples(
            st.just(Fraction(1, 2)), priors(m.n, full_support=True).map(lambda p: list(p.probabilities)), st.just(m)
        )

    non_dp = mechanisms(max_n=4).filter(lambda m: m.n >= 1).flatmap(case)

    def prop(c: Any) -> Any:
        a, mu0, sigma = c
        structure = InformationStructure.from_oblivious([list(r) for r in sigma.rows], mu0)
        return next(
            ({"s": s} for s, col in enumerate(structure.columns) if k_omega_violation(list(col), mu0, 1, Alpha.of(a))),
            None,
        )

    assert fuzz("control-P3", non_dp, prop, 40, drawn=alpha_first).verdict == Verdict.REFUTED


def test_non_supermodular_payoffs_refute_theorems_3_and_4() -> None:
    cases = oblivious_dp_cases(max_n=3).flatmap(
        lambda c: st.tuples(st.just(c), payoffs(c[2].n + 1, supermodular=False))
    )
    control = fuzz("control-T3", cases, theorem3_violation, 60, drawn=lambda c: alpha_first(c[0]))
    assert control.verdict == Verdict.REFUTED

    # Theorem 4's control: SY §5.1's "central vs extreme" user prefers τ_b (a DP mechanism that τ^g
    # UPRR-dominates) — supermodularity is what makes UPRR dominance pay.
    from mechlib.core.mechanism import Mechanism

    tau_b = Mechanism([["3/4", "1/4"], ["1/4", "3/4"], ["3/4", "1/4"]])  # α = 1/3: ∝ (1, α, 1), (α, 1, α)
    central = [[Fraction(0), Fraction(1), Fraction(0)], [Fraction(1), Fraction(0), Fraction(1)]]
    case = (Fraction(1, 3), [Fraction(1, 3)] * 3, tau_b)  # τ_b wins for α < 1/2 (ties at 1/2)
    assert theorem4_violation((case, central)) is not None
    supermodular = [[Fraction(0)] * 3, [Fraction(-1), Fraction(0), Fraction(1)]]
    assert theorem4_violation((case, supermodular)) is None


def test_supermodular_strategy_is_supermodular_and_control_is_not() -> None:
    from hypothesis import given, settings

    from mechlib.infodesign.decision import DecisionProblem

    @settings(max_examples=50, database=None)
    @given(payoffs(4), payoffs(4, supermodular=False))
    def check(good: Any, bad: Any) -> None:
        assert DecisionProblem.of(good).supermodularity_violation() is None
        assert DecisionProblem.of(bad).supermodularity_violation() is not None

    check()


def test_an_uncertifiable_optimum_makes_t3_unknown_not_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    from mechlib.proofs.registry import REGISTRY, run_claim

    patch_everywhere(monkeypatch, optimal_oblivious_value, lambda *args: None)
    assert run_claim(REGISTRY["SY-T3"]).outcome.verdict == Verdict.UNKNOWN


# -- SY-T4's exact part: coupling certificates --------------------------------------------------


def _t4_instance(n: int = 2, a: Fraction = Fraction(1, 2)) -> tuple[Any, Any, Any, Any]:
    """τ^g's joint columns (signals in peak order), a vertex's ordered columns, μ₀ — as fmpq."""
    from mechlib.core.exact_linear import to_fmpq
    from mechlib.proofs.sy.theorem_4 import _joint, orderings

    mu0 = [Fraction(1, n + 1)] * (n + 1)
    joint = [tuple(to_fmpq(v) for v in c) for c in _joint(geometric_structure(mu0), Alpha.of(a), range(n + 1))]
    columns = max(orderings(n, a), key=len)  # a vertex with n + 1 signals
    return joint, tuple(tuple(to_fmpq(v) for v in c) for c in columns), [to_fmpq(p) for p in mu0], a


def test_theorem4_coupling_certificate_is_checked_exactly() -> None:
    """The paper's coupling passes the exact check; each single tampering is caught."""
    from mechlib.proofs.sy.theorem_4 import coupling_failure, frechet_coupling

    joint, columns, mu0, _ = _t4_instance()
    target = [tuple(p * c for p, c in zip(mu0, col)) for col in columns]
    z = frechet_coupling([sum(c) for c in joint], [sum(t) for t in target])
    assert coupling_failure(z, joint, target) is None
    moved = [list(row) for row in z]
    s, a = next((s, a) for s in range(len(z)) for a in range(len(z[0])) if z[s][a] > 0 and a + 1 < len(z[0]))
    moved[s][a] -= z[s][a]
    moved[s][a + 1] += z[s][a]  # the same margins of s, not of the actions
    assert coupling_failure(moved, joint, target) is not None
    negative = [list(row) for row in z]
    negative[0][0] -= 1
    negative[0][1] += 1
    assert coupling_failure(negative, joint, target) == "a negative weight"
    shifted = [list(c) for c in joint]
    shifted[0][0], shifted[0][1] = shifted[0][1], shifted[0][0]  # P(s) kept, the law of ω not
    assert coupling_failure(z, [tuple(c) for c in shifted], target) == "τ and τ′ give ω = 0 different probabilities"
    reversed_order = frechet_coupling([sum(c) for c in joint][::-1], [sum(t) for t in target])
    assert coupling_failure(reversed_order, joint[::-1], target) is not None  # peaks in the wrong order


def test_theorem4_falls_back_to_an_lp_certificate() -> None:
    """With τ's signals laid out against their peaks, the paper's coupling fails; HiGHS finds one,
    rebuilt and checked exactly."""
    from mechlib.proofs.sy.theorem_4 import _decide_ordering

    joint, columns, mu0, a = _t4_instance()
    how, z = _decide_ordering(a, mu0, joint[::-1], columns)
    assert how == "LP" and all(v >= 0 for row in z for v in row)


@pytest.mark.parametrize(
    ("mutant", "verdict"),
    [
        ("SY-T4: τ′ over the α²-DP polytope's vertices", Verdict.UNKNOWN),
        ("τ^g → randomized response on Ω, UPRR dominance taken for granted", Verdict.REFUTED),
        ("τ^g → randomized response on Ω", Verdict.UNKNOWN),
    ],
)
def test_theorem4s_exact_part_fails_under_its_mutants(mutant: str, verdict: Verdict) -> None:
    """A vertex outside the hypothesis leaves the family uncovered (UNKNOWN); with the hypothesis taken
    for granted, randomized response loses a supermodular problem to some vertex (REFUTED, confirmed)."""
    import mechlib.proofs.falsifications  # noqa: F401  (registers the shared mutants)
    from mechlib.proofs.mutants import MUTANTS, applied
    from mechlib.proofs.registry import run_part
    from mechlib.proofs.sy.theorem_4 import exact_uprr_implies_value

    with applied(MUTANTS[mutant]):
        outcome = run_part(exact_uprr_implies_value)
    assert outcome.verdict == verdict, outcome.reason
    if verdict == Verdict.REFUTED:
        (found,) = [e["counterexample"] for e in outcome.evidence.values() if "counterexample" in e]
        assert "payoff" in found


def test_theorem4s_exact_part_is_bounded_by_what_it_ran() -> None:
    from mechlib.proofs.catalogue import Strength
    from mechlib.proofs.registry import run_part
    from mechlib.proofs.sy.theorem_4 import exact_uprr_implies_value

    outcome = run_part(exact_uprr_implies_value)
    assert outcome.verdict == Verdict.PROVED, outcome.reason
    (scope,) = outcome.scopes
    assert scope.measured and scope.strength == Strength.BOUNDED and scope.n == "1 ≤ n ≤ 3 (every n)"
    assert outcome.evidence["n=3, α=1/2"]["orderings of their positive columns"] == 301
