"""The dominance certificate (CLAIMS.md note 1, DOM)."""

from fractions import Fraction
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechlib.optimality.dominance as dominance
from mechlib import (
    InputError,
    Mechanism,
    Remap,
    exponential,
    randomized_response,
    truncated_geometric,
)
from mechlib.core.stochastic import compose
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


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["1/2", "1/3", "2/3", "9/10"]), st.integers(30, 90), st.integers(0, 2**32 - 1))
def test_t_and_every_remap_of_t_is_certified_without_the_lp(alpha: str, n: int, seed: int) -> None:
    """Issue 19: the float dominance LP was UNKNOWN on T itself from n = 40 at α = 1/2. A remap of T
    (here T itself, a deterministic clamp or a random stochastic remap) is derivable, and its
    derivation is the certificate — exact, at any n, and accepted by the exact tail check."""
    import random

    rng = random.Random(seed)
    t = truncated_geometric(alpha, n)
    kind = rng.choice(["identity", "clamp", "random"])
    if kind == "identity":
        x = t
    elif kind == "clamp":
        lo, hi = sorted(rng.sample(range(n + 1), 2))
        x = compose(Remap.deterministic(lambda r: min(max(r, lo), hi), range(n + 1), range(n + 1)), t)
    else:
        weights = [[rng.randint(0, 3) * (abs(r - j) <= 2) for j in range(n + 1)] for r in range(n + 1)]
        for r, row in enumerate(weights):
            row[r] += 1
        x = compose(Remap([[Fraction(v, sum(row)) for v in row] for row in weights]), t)
    with mock.patch.object(dominance, "_highs_dominance", side_effect=AssertionError("the LP was called")):
        found = dominance_certificate(x, alpha)
    assert check_dominance(x, Fraction(alpha), found.remap) is None


@pytest.mark.parametrize("alpha", ["1/2", "1/3"])
@pytest.mark.parametrize("n", [1, 3, 5])
def test_a_violation_planted_in_any_tail_is_caught_there(n: int, alpha: str) -> None:
    """Every error tail (i, k) of Y∘T, lowered alone in a planted mechanism, is the violation found."""
    t = truncated_geometric(alpha, n)
    clamp = Remap.deterministic(lambda r: min(r, n - 1) if n > 1 else r, range(n + 1), range(n + 1))
    for y in (Remap.deterministic(lambda r: r, range(n + 1), range(n + 1)), clamp):
        z = Mechanism(compose(y, t).rows)
        planted = dominance.planted_violations(z)
        assert {k for _, k, _ in planted} == set(range(1, n + 1))
        for i, k, x in planted:
            found = check_dominance(x, Fraction(alpha), y)
            assert found is not None and (found.input, found.k) == (i, k)


def test_a_check_that_skips_the_tail_k_1_fails_the_dom_fuzz_property(monkeypatch: pytest.MonkeyPatch) -> None:
    """DOM's fuzz property rests on the check comparing every tail: with k = 1 skipped it reports
    the planted violation it missed, on the first mechanism tried."""
    import mechlib.proofs.other.dominance as dom_claim

    case = (Fraction(1, 3), randomized_response("1/3", 4))
    assert dom_claim.dominated(case) is None
    skipping = dom_claim._skipping_tail_one(check_dominance)
    monkeypatch.setattr(dom_claim, "check_dominance", skipping)
    monkeypatch.setattr(dominance, "check_dominance", skipping)
    problem = dom_claim.dominated(case)
    assert problem is not None and "k=1" in problem["problem"]


@given(st.lists(st.integers(0, 50), min_size=1, max_size=9), st.data())
def test_error_tails_by_slices_are_the_tails_by_distance(row: list[int], data: st.DataObject) -> None:
    """The slice path (outputs 0..L−1, the input among them) of the producer's and the checker's
    integer tails equals the per-output path (the same row, its outputs listed in reverse)."""
    from mechlib.checkers.audit_certificate import _int_tails
    from mechlib.optimality.dominance import integer_tails

    i = data.draw(st.integers(0, len(row) - 1))
    labels, top = list(range(len(row))), len(row)
    expected = integer_tails(row[::-1], i, labels[::-1], top)  # not 0..L−1 in order: the general path
    assert integer_tails(row, i, labels, top) == _int_tails(row, i, labels, top) == expected
    assert expected == [sum(x for j, x in enumerate(row) if abs(j - i) >= k) for k in range(top + 1)]


@given(st.integers(1, 7), st.fractions(0, 1, max_denominator=40), st.fractions(0, 1, max_denominator=40))
def test_t_at_a_larger_alpha_is_a_remap_of_t(n: int, a: Fraction, b: Fraction) -> None:
    """The lemma behind dominance by T at α′ (``dominating_t``, the checker's ``t_at``): for
    0 ≤ α ≤ α′ < 1, Y = T_α⁻¹·T_α′ is stochastic (≥ 0, rows summing to 1), so T_α′ is T_α then Y;
    for α′ < α some entry of Y is negative."""
    from mechlib.optimality.derivability import inverse_t_rows

    lo, hi = sorted((a, b))
    if hi == 1:
        return
    inverse, t = inverse_t_rows(lo, n), truncated_geometric(hi, n).rows
    y = [[sum(inverse[r][i] * t[i][j] for i in range(n + 1)) for j in range(n + 1)] for r in range(n + 1)]
    assert all(v >= 0 for row in y for v in row) and all(sum(row) == 1 for row in y)
    if lo < hi:
        inverse, t = inverse_t_rows(hi, n), truncated_geometric(lo, n).rows
        assert any(sum(inverse[r][i] * t[i][j] for i in range(n + 1)) < 0 for r in range(n + 1) for j in range(n + 1))


@settings(max_examples=60)
@given(st.sampled_from(["t", "rr", "exp", "any"]), st.integers(1, 9), st.fractions(0, 1, max_denominator=20),
       st.fractions(0, 1, max_denominator=64), st.data())  # fmt: skip
def test_t_itself_dominates_as_the_tails_say(kind: str, n: int, x: Fraction, at: Fraction, data: st.DataObject) -> None:
    """``t_itself_dominates`` (closed-form tails, comparisons settled by bit lengths first) says
    exactly what the definition says: T at α′'s error tails (its matrix, summed) nowhere above M's."""
    from mechlib.optimality.dominance import t_itself_dominates
    from mechlib.strategies import mechanisms

    if at == 1 or x in (0, 1):
        return
    m = (
        truncated_geometric(x, n) if kind == "t"
        else randomized_response(x, n + 1) if kind == "rr"
        else exponential(x, n) if kind == "exp"
        else data.draw(mechanisms(max_n=n))
    )  # fmt: skip
    ours, theirs = tail_profile(truncated_geometric(at, m.n)), tail_profile(m)
    lighter = all(a[k] <= (b[k] if k < len(b) else 0) for a, b in zip(ours, theirs) for k in range(1, len(a)))
    assert t_itself_dominates(m, at) is lighter


def test_the_exponential_mechanism_past_the_lp_size_is_dominated_by_t_at_a_short_alpha() -> None:
    """The exponential mechanism at n = 160 (past LP_MAX_N; its α has ≈ 110 bits): dominance is
    certified by T at α rounded up to a short α′ (``t_at``), re-checked by the checker; a t_at
    below α, or one whose tails are heavier, is rejected."""
    import json

    from mechlib.audit.loading import LoadedMechanism
    from mechlib.audit.whitebox import LP_MAX_N, audit
    from mechlib.checkers.audit_certificate import check_certificate

    report = json.loads(json.dumps(audit(LoadedMechanism(exponential("1/2", 160), "exp", "python", "0" * 64))))
    assert report["n"] > LP_MAX_N and "dominance" not in report["unknown"]
    alpha, at = Fraction(report["dp_level"]), Fraction(report["dominance"]["remap"]["t_at"])
    assert alpha < at < 1 and at.denominator < alpha.denominator
    assert check_certificate(report) == []
    for forged, says in ((alpha * Fraction(999, 1000), "not a remap of T"), (Fraction(99, 100), "heavier error tail")):
        report["dominance"]["remap"] = {"t_at": str(forged)}
        assert any(says in failure for failure in check_certificate(report)), forged
