"""Tests that kill mutants of mechlib/checkers/standard_users.py (the re-check of a standard Bayesian
user's optimum) that tests/test_standard_users.py left alive (``python3 dev.py mutate``,
reports/checker_mutation.md). The audit writes its standard users with a uniform prior only, so the
checker's paths for any other prior (zero weights, a few distinct weights, M other than T) are
reached here by rows built with the producer for such a prior — each must check; forgeries keep a
row's other fields consistent so that one check alone can refuse them; the private integer helpers
are compared with exact recomputations in Fractions; numbers_fit with the audit's own least digit
limit, at limits set for the test. benchmarks/checker_mutation_equivalent.json
argues why each mutant of the module these tests leave alive changes nothing."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mechlib import randomized_response, truncated_geometric
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit
from mechlib.checkers import numbers
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.checkers.fields import IntRows, Q
from mechlib.checkers.standard_users import (
    _column_losses,
    _columns,
    _common_columns,
    _dual_feasible,
    _rays,
    cone_nonnegative,
    loss_at,
    numbers_fit,
)
from mechlib.core.exact import format_fraction
from mechlib.core.exact_linear import solve, to_fmpq
from mechlib.core.mechanism import Mechanism
from mechlib.core.users import Prior
from mechlib.optimality import standard_users
from mechlib.optimality.derivability import TBasis
from mechlib.optimality.standard_users import STANDARD_LOSSES, StandardUser, digits_needed

N = 3
T = truncated_geometric("1/2", N)  # an audit of T: M = T
RR = randomized_response("1/3", N + 1)  # M other than T, not at the optimum


@pytest.fixture(scope="module")
def certificates() -> dict[str, dict[str, Any]]:
    def certify(mech: Mechanism) -> dict[str, Any]:
        loaded = LoadedMechanism(mech, path="m.json", format="json", sha256="0" * 64, name="m")
        doc: dict[str, Any] = json.loads(json.dumps(audit(loaded)))
        return doc

    return {"T": certify(T), "RR": certify(RR)}


def _user_row(mech: Mechanism, cert: dict[str, Any], kind: str, weights: list[int]) -> dict[str, Any]:
    """The row the audit would write for the standard user (``kind``, prior ∝ ``weights``), by the
    producer (whitebox.user_losses with another prior)."""
    alpha, user = Fraction(cert["dp_level"]), StandardUser(kind, Prior.from_weights(weights))
    basis, geometric = TBasis(alpha, N), standard_users.GeometricColumns.of(alpha, N)
    is_t = mech is T
    remap = standard_users.optimal_remap(mech, user)
    of_t = standard_users.optimum_of_t(user, alpha, basis.t, basis.inverse, remap if is_t else None, geometric)
    assert of_t is not None
    mine = of_t.value if is_t else standard_users.remapped_loss(mech, user, remap)
    return {
        "prior_name": "p",
        "loss_name": kind,
        "prior": [format_fraction(p) for p in user.prior.probabilities],
        "loss": kind,
        "mechanism": format_fraction(mine),
        "optimal_remap": {str(r): g for r, g in remap.as_mapping().items()},
        "optimum": format_fraction(of_t.value),
        "ratio": format_fraction(mine / of_t.value) if of_t.value else None,
        "dual": [format_fraction(u) for u in of_t.dual],
        "t_optimal_remap": {str(r): g for r, g in of_t.remap.as_mapping().items()},
    }


def _with_users(certificates: dict[str, dict[str, Any]], which: str, weights: list[int]) -> dict[str, Any]:
    """The certificate with a fourth to sixth user row: the three standard losses at prior ∝ weights."""
    cert = copy.deepcopy(certificates[which])
    mech = T if which == "T" else RR
    cert["user_losses"]["users"] += [_user_row(mech, cert, kind, weights) for kind in STANDARD_LOSSES]
    return cert


# zeros and two distinct weights (T's closed-form path is for one weight alone); [2, 3, 2, 3]: no weight reduced to 1
PRIORS = [[0, 1, 1, 0], [2, 3, 2, 3], [1, 2, 3, 5]]


@pytest.mark.parametrize("which", ["T", "RR"])
@pytest.mark.parametrize("weights", PRIORS)
def test_users_with_other_priors_check(certificates: dict[str, dict[str, Any]], which: str, weights: list[int]) -> None:
    """A prior with zeros is a distribution; a prior named other than uniform need not be uniform;
    M's weights over a non-uniform prior are L·p_i·M[i][r]/g, T's losses then by passes, not by its
    one-weight closed form."""
    cert = _with_users(certificates, which, weights)
    assert check_certificate(cert) == []


@pytest.mark.parametrize("which", ["T", "RR"])
def test_a_prior_named_uniform_must_be_uniform(certificates: dict[str, dict[str, Any]], which: str) -> None:
    """A prior named uniform with every other field the true one for another prior: the name alone is false."""
    cert = _with_users(certificates, which, [1, 2, 3, 5])
    for u in cert["user_losses"]["users"][3:]:
        u["prior_name"] = "uniform"
    assert check_certificate(cert) == [f"user (uniform, {kind}): the prior is not uniform" for kind in STANDARD_LOSSES]


@pytest.mark.parametrize("field", ["prior", "dual"])
def test_a_list_of_another_length_is_malformed(certificates: dict[str, dict[str, Any]], field: str) -> None:
    """One entry more ("0": the sum, and so the prior's being a distribution, unchanged) is named."""
    cert = copy.deepcopy(certificates["T"])
    cert["user_losses"]["users"][0][field].append("0")
    expected = f"malformed certificate: user_losses.users[0].{field}: expected a list of {N + 1}"
    assert check_certificate(cert) == [expected]


@pytest.mark.parametrize("prior", [["-1/4", "3/4", "1/4", "1/4"], ["1/4", "1/4", "1/4", "1/2"]])
def test_a_prior_that_is_not_a_distribution_is_named(certificates: dict[str, dict[str, Any]], prior: list[str]) -> None:
    """A negative entry summing to 1, or nonnegative entries summing to more than 1: either fails."""
    cert = copy.deepcopy(certificates["T"])
    cert["user_losses"]["users"][0]["prior"] = prior
    assert "user (uniform, absolute): the prior is not a distribution" in check_certificate(cert)


def _loss(mech: Mechanism, weights: list[Fraction], kind: str, guess: dict[int, int]) -> Fraction:
    """Σ_i p_i·Σ_r M[i][r]·l(i, guess[r]), in Fractions."""
    num, den = mech.scaled()
    total = Fraction(0)
    for i, (p, row, d) in enumerate(zip(weights, num, den)):
        total += sum(p * Fraction(v, d) * loss_at(kind, i, guess[r]) for r, v in enumerate(row))
    return total


@pytest.mark.parametrize("kind", STANDARD_LOSSES)
def test_a_remap_that_is_not_optimal_for_m_is_refused(certificates: dict[str, dict[str, Any]], kind: str) -> None:
    """M (not at the optimum) with a worse remap, its loss and ratio recorded consistently: only the
    search for M's least loss can tell, and it must run whenever M's loss is not the optimum."""
    cert = copy.deepcopy(certificates["RR"])
    k = STANDARD_LOSSES.index(kind)
    u = cert["user_losses"]["users"][k]
    assert u["mechanism"] != u["optimum"]
    optimal = {int(r): g for r, g in u["optimal_remap"].items()}
    guess = {**optimal, 0: N - optimal[0]}  # output 0 to the other end
    prior = [Fraction(p) for p in u["prior"]]
    worse = _loss(RR, prior, kind, guess)
    assert worse > Fraction(u["mechanism"]) == _loss(RR, prior, kind, optimal)
    u["optimal_remap"] = {str(r): g for r, g in guess.items()}
    u["mechanism"], u["ratio"] = format_fraction(worse), format_fraction(worse / Fraction(u["optimum"]))
    assert check_certificate(cert) == [
        f"user (uniform, {kind}): the mechanism's loss with its optimal remap is not {u['mechanism']}"
    ]


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.sampled_from(STANDARD_LOSSES),
    st.lists(st.integers(0, 3), min_size=1, max_size=7),
    st.lists(st.integers(0, 6), min_size=1, max_size=3),
)
def test_column_losses_are_the_exact_ones(kind: str, w: list[int], guesses: list[int]) -> None:
    """The closed forms of ``_column_losses`` (least loss, loss at each guess) against every guess
    tried: small weights with zeros, so totals of 0, 1 and 2 (a median at the first half-weight)
    occur — the cases the equivalence notes of its n, total = 0 and A_0 mutants rest on."""
    n = len(w) - 1
    guesses = [g % (n + 1) for g in guesses]
    at = [sum(v * loss_at(kind, i, g) for i, v in enumerate(w)) for g in range(n + 1)]
    assert _column_losses(kind, w, guesses, None) == (min(at), [at[g] for g in guesses])


@pytest.mark.parametrize("k", [[2, 3, 2, 3], [0, 4, 2, 6], [1, 1, 1, 1], [5, 5, 0, 5]])
def test_weighted_columns_are_the_exact_products(k: list[int]) -> None:
    """Per column, k_i·x_i/g with g = gcd(k), in integers: entries past 2⁵³ stay exact."""
    columns = [tuple(2**60 + 3 * i + r for i in range(4)) for r in range(2)]
    weighted, g = _columns(columns, k)
    found = [list(w) for w in weighted]
    assert found == [[v * kv // g for v, kv in zip(c, k)] for c in columns]
    assert all(type(v) is int for w in found for v in w)


@pytest.mark.parametrize("den", [[2, 3, 6], [2, 3, 5], [4, 4, 4]])
def test_common_columns_are_over_one_denominator(den: list[int]) -> None:
    """Rows of other denominators (none of them the common one, or one of them) over their lcm."""
    num = [[1, 1], [1, 2], [1, 0]]
    columns, common = _common_columns(IntRows(den, num))
    assert len(set(common)) == 1
    assert [[Q(c[i], common[i]) for c in columns] for i in range(3)] == [
        [Q(v, d) for v in row] for row, d in zip(num, den)
    ]


def _f0(w: Sequence[int | Fraction], alpha: Fraction) -> Fraction:
    """F_0 of the cone recursion F_i = w_i + (α·F_{i+1} if F_{i+1} ≥ 0 else F_{i+1}/α), in Fractions."""
    f = Fraction(w[-1])
    for v in reversed(w[:-1]):
        f = v + (alpha * f if f >= 0 else f / alpha)
    return f


def _cone(w: Sequence[int | Fraction], alpha: Fraction) -> bool:
    return _f0(w, alpha) >= 0


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.lists(st.integers(-9, 9), min_size=1, max_size=8),
    st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(9, 10), Fraction(1, 7)]),
)
def test_the_checkers_cone_test_is_the_rational_recursion(w: list[int], alpha: Fraction) -> None:
    """``cone_nonnegative`` in integers is the recursion on Fractions, both branches (F ≥ 0 and F < 0)."""
    assert cone_nonnegative(w, to_fmpq(alpha)) == _cone(w, alpha)


# second round (issue 32 item 5): a user whose optimum is 0, and the digit limit of numbers_fit


@pytest.mark.parametrize("which", ["T", "RR"])
def test_a_user_who_knows_the_input_has_no_ratio(certificates: dict[str, dict[str, Any]], which: str) -> None:
    """A point prior: the user guesses its one input whatever the output, so the optimum and the
    mechanism's loss are 0 and the ratio is recorded as none — the checker must not divide by the
    optimum then, and refuses a ratio written for it."""
    cert = _with_users(certificates, which, [0, 0, 1, 0])
    rows = cert["user_losses"]["users"][3:]
    assert [(Fraction(u["optimum"]), Fraction(u["mechanism"]), u["ratio"]) for u in rows] == [
        (Fraction(0), Fraction(0), None)
    ] * 3
    assert check_certificate(cert) == []
    for u in rows:
        u["ratio"] = "1"
    assert check_certificate(cert) == [
        f"user (p, {kind}): the ratio is not mechanism/optimum" for kind in STANDARD_LOSSES
    ]


# denominators of 2 to 4 bits (b = 2, 3: the shortcut's b^n ≥ 2^(n·(bits − 1)) is then 2^n), numerators near and far
ALPHAS = [Fraction(a, b) for a, b in [(1, 2), (1, 3), (2, 3), (3, 4), (1, 7), (5, 8), (9, 10)]]


def test_numbers_fit_is_the_audits_digit_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """At any digit limit D the checker decides exactly the users the audit certified exactly:
    numbers_fit(α, n) holds at D = digits_needed(α, n) (the producer's least D for its bound) and not
    one digit below — at the boundary, where any change of a factor of the bound (n = 0, 1: max(n, 1))
    or of the shortcut that skips b^n shows."""
    for alpha in ALPHAS:
        q = to_fmpq(alpha)
        for n in range(65):
            least = digits_needed(alpha, n)
            monkeypatch.setattr(numbers, "MAX_DIGITS", least)
            assert numbers_fit(q, n), (alpha, n, least)
            monkeypatch.setattr(numbers, "MAX_DIGITS", least - 1)
            assert not numbers_fit(q, n), (alpha, n, least - 1)


class _Unreached(int):
    """A digit limit whose power 10**D fails the test: numbers_fit took the exact (costly) path."""

    def __rpow__(self, base: int, mod: int | None = None, /) -> Any:
        raise AssertionError(f"{base}**MAX_DIGITS computed: b^n was taken past the limit")


@pytest.mark.parametrize("b", [3, 5, 2**1000 + 1], ids=["b=3", "b=5", "b=2^1000+1"])
def test_numbers_past_the_limit_take_no_power(monkeypatch: pytest.MonkeyPatch, b: int) -> None:
    """Where b^n ≥ 2^(n·(bits(b) − 1)) > 2^(4D) > 10^D already (n just past that line: 1, 2 and 1000
    bits dropped), numbers_fit answers False before any power: a certificate's α may have a
    denominator of D digits, whose n-th power has millions."""
    digits, dropped = numbers.MAX_DIGITS, b.bit_length() - 1
    monkeypatch.setattr(numbers, "MAX_DIGITS", _Unreached(digits))
    assert not numbers_fit(Q(1, b), 4 * digits // dropped + 1)


# third round (issue 32 item 5): the rays of _rays, from T⁻¹ written out (GS Lemma 2)


def _q(values: list[Fraction]) -> list[Q]:
    return [to_fmpq(v) for v in values]


def _dual_of(t: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """u with Tᵀu = b, exactly (T is invertible, so the solution is unique)."""
    u = solve([list(column) for column in zip(*t)], b)
    assert u is not None
    return u


def _t(alpha: Fraction, n: int) -> list[list[Fraction]]:
    """GRS's T by its definition: T[i][r] = α^|i−r|·c_r, c_r = 1/(1 + α) at the end columns and
    (1 − α)/(1 + α) inside (not the checker's integer rows)."""
    ends = (0, n)
    return [
        [alpha ** abs(i - r) * (1 if r in ends else 1 - alpha) / (1 + alpha) for r in range(n + 1)]
        for i in range(n + 1)
    ]


@settings(max_examples=60, deadline=None, database=None)
@given(
    st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(9, 10), Fraction(1, 7)]),
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.fractions(-9, 9, max_denominator=12), min_size=n + 1, max_size=n + 1),
            st.lists(st.integers(0, n), min_size=n + 1, max_size=n + 1),
        )
    ),
    st.fractions(-3, 3, max_denominator=7).filter(bool),
)
def test_rays_are_found_exactly_when_the_dual_is_t_inverse_transposed_b(
    alpha: Fraction, b_steps: tuple[list[Fraction], list[int]], shift: Fraction
) -> None:
    """With u solving Tᵀu = b (T from its definition, solved exactly) the checker's tridiagonal
    T⁻¹ finds every column's ray — the least output r remapped to it, −1 for a column no output
    reaches; with any one u_i moved (the end ones too), none."""
    b, steps = b_steps
    n, q = len(b) - 1, to_fmpq(alpha)
    b_q, dual = _q(b), _q(_dual_of(_t(alpha, n), b))
    assert _rays(dual, b_q, steps, q) == [steps.index(j) if j in steps else -1 for j in range(n + 1)]
    for i in range(n + 1):
        moved = [u + to_fmpq(shift) if k == i else u for k, u in enumerate(dual)]
        assert _rays(moved, b_q, steps, q) == [-1] * (n + 1)


# fourth round (issue 32 item 5): _dual_feasible's float screen and its exact fallback, against the
# cone recursion in Fractions on every column


def _column(prior: list[Fraction], dual: list[Fraction], kind: str, j: int) -> list[Fraction]:
    """Column j of the dual check, c_j − u with c[i][j] = p_i·l(i, j)."""
    return [p * loss_at(kind, i, j) - u for i, (p, u) in enumerate(zip(prior, dual))]


def _feasible(prior: list[Fraction], dual: list[Fraction], kind: str, alpha: Fraction) -> bool:
    """Every column c_j − u nonnegative on the α-DP cone (the recursion in Fractions)."""
    return all(_cone(_column(prior, dual, kind, j), alpha) for j in range(len(prior)))


@settings(max_examples=150, deadline=None, database=None)
@given(
    st.sampled_from([*ALPHAS, Fraction(1_000_003, 3_000_017), Fraction(2**52 + 1, 2**53)]),
    st.sampled_from(["absolute", "squared", "binary"]),
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(1, 10**6), min_size=n + 1, max_size=n + 1),
            st.lists(st.integers(0, n), min_size=n + 1, max_size=n + 1),
            st.integers(0, n),
        )
    ),
    st.sampled_from([Fraction(0), Fraction(1, 10**30), Fraction(-1, 10**30), Fraction(1, 10**6), Fraction(-1, 10**6)]),
)
def test_the_dual_check_is_the_cone_recursion_on_every_column(
    alpha: Fraction, kind: str, weights_steps_at: tuple[list[int], list[int], int], shift: Fraction
) -> None:
    """u = (Tᵀ)⁻¹b with b_r = Σ_i p_i·T[i][r]·l(i, steps[r]) for ANY steps (T from its definition,
    solved exactly): columns reached by a step have an exact ray (w·x = 0), feasible or not as the
    steps are optimal or not, so the rays' float proof (S_k, P_k runs) is tried on both; with u_at
    moved by a shift (tiny: near-zero columns on both sides) no column has a ray and the interval
    recursion and the integer fallback decide. The float screen may leave a column open, never
    decide it wrongly: the answer is the recursion's in Fractions on every column."""
    weights, steps, at = weights_steps_at
    n = len(weights) - 1
    prior = [Fraction(w, sum(weights)) for w in weights]
    t = _t(alpha, n)
    b = [
        sum((prior[i] * t[i][r] * loss_at(kind, i, steps[r]) for i in range(n + 1)), Fraction(0)) for r in range(n + 1)
    ]
    dual = _dual_of(t, b)
    dual[at] += shift
    ray = [steps.index(j) if j in steps and not shift else -1 for j in range(n + 1)]
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(dual), kind, q, ray) == _feasible(prior, dual, kind, alpha)


@settings(max_examples=80, deadline=None, database=None)
@given(
    st.sampled_from([*ALPHAS, Fraction(1_000_003, 3_000_017)]),
    st.sampled_from(["absolute", "squared", "binary"]),
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(1, 9), min_size=n + 1, max_size=n + 1),
            st.lists(st.fractions(-9, 9, max_denominator=9), min_size=n + 1, max_size=n + 1),
            st.integers(0, n),
            st.integers(0, n),
        )
    ),
)
# found by a search against the mutants: the S run not multiplied by α or lagging a step, lo built
# from u's lower bound for p's, the S run's last value stored in the wrong row; α's bounds both upward
@example(Fraction(2, 3), "squared", ([1, 7, 5, 5], [Fraction(-3, 7), Fraction(-5), Fraction(0), Fraction(9, 7)], 2, 2))
@example(Fraction(1, 7), "squared", ([1, 7, 7], [Fraction(0), Fraction(8, 9), Fraction(-5, 3)], 1, 0))
@example(Fraction(1, 3), "absolute", ([8, 1, 3], [Fraction(0), Fraction(3), Fraction(1, 9)], 0, 0))
@example(Fraction(1, 7), "absolute", ([7, 1], [Fraction(-7), Fraction(0)], 1, 1))
# … S_n's row or one more row left unwritten (np.empty), the S run started a step early
@example(Fraction(2, 3), "absolute", ([7, 2], [Fraction(0), Fraction(3)], 0, 0))
@example(Fraction(9, 10), "squared", ([3, 5, 3], [Fraction(0), Fraction(1), Fraction(1, 3)], 1, 0))
@example(
    Fraction(3, 4), "squared", ([3, 7, 4, 7], [Fraction(-5, 8), Fraction(0), Fraction(7, 4), Fraction(2, 9)], 2, 1)
)
def test_a_column_with_a_ray_is_accepted_exactly_when_it_is_feasible(
    alpha: Fraction, kind: str, case: tuple[list[int], list[Fraction], int, int]
) -> None:
    """u_i = f_i·p_i, then u_r set so that column j is exactly 0 on the cone's ray x_i = α^|i−r| (the
    ray's precondition), the ray given for j alone: the S_k and P_k runs must prove j only when the
    recursion in Fractions holds on it, and the intervals must refuse only what it refuses."""
    weights, factors, j, r = case
    n = len(weights) - 1
    prior = [Fraction(w, sum(weights)) for w in weights]
    dual = [f * p for f, p in zip(factors, prior)]
    dual[r] = sum(
        ((prior[i] * loss_at(kind, i, j) - (dual[i] if i != r else 0)) * alpha ** abs(i - r) for i in range(n + 1)),
        Fraction(0),
    )
    ray = [r if k == j else -1 for k in range(n + 1)]
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(dual), kind, q, ray) == _feasible(prior, dual, kind, alpha)


@pytest.mark.parametrize(
    ("alpha", "dual"),
    [
        (Fraction(1, 10**400), [0, 0, 0, 0]),  # 1/α past the floats: every column in integers
        (Fraction(1, 10**400), [0, 0, 0, Fraction(1, 100)]),  # … and only the last one fails
        (Fraction(1, 10**400), [0, 0, Fraction(1, 100), 0]),  # … only the one before it
        (Fraction(1, 2), [0, 0, 0, 10**400]),  # u past the floats
        (Fraction(1, 2), [10**308] * 4),  # floats that overflow to −∞ in the screen, quietly
    ],
)
def test_numbers_past_the_floats_are_decided_in_integers(alpha: Fraction, dual: list[int | Fraction]) -> None:
    """Where α, 1/α or u does not convert to a float every column goes to the integers (the last ones
    too, and no column past n); where the screen's sums overflow it stays quiet and leaves them open."""
    prior, exact = [Fraction(1, 4)] * 4, [Fraction(u) for u in dual]
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(exact), "absolute", q, [-1] * 4) == _feasible(prior, exact, "absolute", alpha)


# --- r4suc ---
# fifth round (issue 32 item 5): one column with an exact ray that the cone refuses, among columns it accepts


def _r4suc_case(alpha: Fraction, j: int, w: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """Binary loss; prior p_j = 1 − n/10⁴ and 1/10⁴ elsewhere; u = c_j − w/10⁴, so column j is w/10⁴ and
    column k ≠ j is w/10⁴ + p_j·e_j − p_k·e_k: on the cone (x_k ≤ α^−|k−j|·x_j) at least
    x_j·(p_j − (1 + Σ|w|)·α^−n/10⁴) > 0 for the cases below, so only column j can fail."""
    n = len(w) - 1
    prior = [Fraction(1, 10**4) if i != j else 1 - Fraction(n, 10**4) for i in range(n + 1)]
    return prior, [p * loss_at("binary", i, j) - v / 10**4 for i, (p, v) in enumerate(zip(prior, w))]


# (α, j, r, w) with w·x = 0 on the ray x_i = α^|i−r| and F_0 < 0, each open in one run (P_k = α·(P_{k−1} +
# w_{k−1}) for 1 ≤ k ≤ r, S_k = w_k + α·S_{k+1} for k > r) that a slip would pass: P_1 = α·w_0 < 0 (found by
# P_r's own row, read at column 0, from w_n, or not at all); P_2 < 0 while w_0 and w_0 + w_1 are ≥ 0 (α left
# out of P); S_6 < 0 with S_7, S_5, S_3 proved and S_4, S_1 open (only every other row of S read from n)
R4SUC_CASES = [
    pytest.param(Fraction(2, 3), 0, 1, [Fraction(-3), Fraction(2)], id="P_1<0"),
    pytest.param(Fraction(1, 2), 1, 2, [Fraction(1), Fraction(-9, 10), Fraction(1, 5)], id="P_2<0"),
    pytest.param(Fraction(1, 2), 0, 4, [Fraction(v) for v in (6, -1, 1, 1, Fraction(-5, 4), 1, -2, 2)], id="S_6<0"),
]


@pytest.mark.parametrize("fill", [None, np.ones], ids=["empty", "ones"])
@pytest.mark.parametrize(("alpha", "j", "r", "w"), R4SUC_CASES)
def test_a_ray_column_the_cone_refuses_is_refused_among_feasible_ones(
    monkeypatch: pytest.MonkeyPatch, fill: Any, alpha: Fraction, j: int, r: int, w: list[Fraction]
) -> None:
    """The S_k and P_k runs must not prove column j by its (exact) ray: the answer is the recursion's in
    Fractions, which refuses j alone. With np.empty filled with ones (True) the screen must still
    read only what it wrote."""
    n = len(w) - 1
    assert sum((v * alpha ** abs(i - r) for i, v in enumerate(w)), Fraction(0)) == 0  # the ray is exact
    prior, dual = _r4suc_case(alpha, j, w)
    columns = [_column(prior, dual, "binary", k) for k in range(n + 1)]
    assert [_cone(c, alpha) for c in columns] == [k != j for k in range(n + 1)]
    if fill is not None:
        monkeypatch.setattr(np, "empty", fill)
    ray = [r if k == j else -1 for k in range(n + 1)]
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(dual), "binary", q, ray) == _feasible(prior, dual, "binary", alpha)


# --- r4sud ---
# fifth round (issue 32 item 5): the interval recursion on columns with no ray, at F_0 = 0 and
# just either side of it, where the float bounds alone cannot decide


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.sampled_from(ALPHAS),
    st.sampled_from(["absolute", "squared", "binary"]),
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(1, 9), min_size=n + 1, max_size=n + 1),
            st.lists(st.fractions(-3, 3, max_denominator=9), min_size=n, max_size=n),
            st.integers(0, n),
        )
    ),
    st.sampled_from([Fraction(0), Fraction(1, 10**30), Fraction(-1, 10**30), Fraction(1, 2**60), Fraction(-1, 2**60)]),
)
# found by a search against the mutants: F < 0 of magnitude > 1 divided by 1/α instead of multiplied
@example(Fraction(1, 3), "binary", ([5, 2], [Fraction(17, 4)], 1), Fraction(1, 2**60))
def test_a_column_at_the_cones_edge_is_decided_exactly(
    alpha: Fraction, kind: str, case: tuple[list[int], list[Fraction], int], gap: Fraction
) -> None:
    """u_1..u_n = f_i·p_i (both signs, so both branches of the recursion run), then u_0 chosen so that
    column j's F_0 is exactly −gap: 0, or below/above 0 by less than the floats resolve. No ray is
    given, so the interval recursion runs on every column; on j it can only leave it open, and the
    answer must be the recursion's in Fractions."""
    weights, factors, j = case
    n = len(weights) - 1
    prior = [Fraction(w, sum(weights)) for w in weights]
    dual = [Fraction(0)] + [f * p for f, p in zip(factors, prior[1:])]
    dual[0] = _f0(_column(prior, dual, kind, j), alpha) + gap  # F_0 moves with −u_0 alone: now −gap
    assert _f0(_column(prior, dual, kind, j), alpha) == -gap
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(dual), kind, q, [-1] * (n + 1)) == _feasible(prior, dual, kind, alpha)


def test_the_integers_scale_the_prior_too() -> None:
    """A column left open (F_0 = 0 exactly: binary loss, p = 1/3 each, u = (1/4, 0, 0), α = 1/2 gives
    w = (−1/4, 1/3, 1/3) and F = 1/3, 1/2, 0) is decided over the common denominator of p AND u: u's
    alone (4) does not clear p's thirds."""
    prior, dual, half = [Fraction(1, 3)] * 3, [Fraction(1, 4), Fraction(0), Fraction(0)], Fraction(1, 2)
    assert _f0(_column(prior, dual, "binary", 0), half) == 0
    assert _feasible(prior, dual, "binary", half)
    assert _dual_feasible(_q(prior), _q(dual), "binary", Q(1, 2), [-1] * 3)


# --- r4fp ---
#: Just above the midpoint under the float 1 − 2⁻¹⁰, so that α − a_lo (α's float rounded down) is half an ulp.
_ALPHA_ABOVE_A_MIDPOINT = 1 - Fraction(1, 2**10) - Fraction(math.ulp(1 - 2**-10)) / 2 + Fraction(1, 2**80)
# fifth round (issue 32 item 5): the outward rounding of the lower interval recursion, where a slip
# of one ulp a step adds up: at a fixed point of the float recursion that the true one falls away from


def test_the_lower_recursion_rounds_every_step_outward() -> None:
    """Binary loss, no ray, α just above the midpoint under its float 1 − 2⁻¹⁰ (α − a_lo is half an
    ulp); column 0 is (−u_0, w/8, …, w/8, x/8), n = 64, with w and x floats found by a search against
    the two rounding mutants: the lower bound f = lo(x/8) is a fixed point of f ↦ lo(w/8) + fl(a_lo·f),
    whose product rounds up by 0.45 ulp, while the true F_k falls from x/8 towards w/8/(1 − α), some
    200 ulps below. u_0 = α·F_1 + 2⁻³⁰⁰ puts F_0 at −2⁻³⁰⁰: rounded outward at every step (the product
    down and the sum down) the screen leaves column 0 to the integers, which refuse it; with either
    rounding turned inward f stays at the fixed point and column 0 passes. Every other column is ≥ 0
    entrywise (u_k = 0 for k ≥ 1, p_0 > u_0). The prior is a distribution; / 8 is exact in floats."""
    alpha = _ALPHA_ABOVE_A_MIDPOINT
    n, w, x = 64, Fraction(float.fromhex("0x1.004ea4a8c1805p-11")), Fraction(float.fromhex("0x1.004ea4a8c17d2p-1"))
    prior = [v / 8 for v in (8 - (n - 1) * w - x, *[w] * (n - 1), x)]
    dual = [Fraction(0)] * (n + 1)
    dual[0] = alpha * _f0(_column(prior, dual, "binary", 0)[1:], alpha) + Fraction(1, 2**300)
    assert _f0(_column(prior, dual, "binary", 0), alpha) == -Fraction(1, 2**300)
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(dual), "binary", q, [-1] * (n + 1)) == _feasible(prior, dual, "binary", alpha)


# --- r4dn ---
# fifth round (issue 32 item 5): the outward steps of the S_k and P_k runs that prove a column by its
# ray, where a run rounded to nearest stalls at a fixed point that the true run falls away from


@pytest.mark.parametrize("run", ["S", "P"])
def test_the_ray_runs_round_every_step_outward(run: str) -> None:
    """Binary loss, α just above the midpoint under its float 1 − 2⁻¹⁰ (as in r4fp: α − a_lo is half an
    ulp), n = 64, t = 2⁻³⁰⁰; column 0 is w = (α·t, −α·S_2 − t, c, …, c, f) with c = 9·2⁻¹⁸ and f the float
    160 ulps above the true fixed point c/(1 − α) of S_k = w_k + α·S_{k+1}: so S_0 = 0 (its ray r = 0 is
    exact) and S_1 = −t, which the cone refuses (x_i = α^i, scaled up from x_1 on). The true S_k falls
    from f towards c/(1 − α), about 10 ulps by S_2, but the run from lo(f) = f − ulp with lo(c) = c − ulp,
    its products and sums rounded to nearest, stays at lo(f): without its outward steps (on lo and on
    each operation) the screen reads S_1 ≥ 0 and proves column 0 by its ray. Reversed (column n, ray n)
    the same for P_k = α·(P_{k−1} + w_{k−1}), which stays at fl(a_lo·lo(f)). u_k = 0 for k ≥ 2 and
    p_0 > 0.9: every other column holds, so the answer turns on column 0 (resp. n) alone."""
    alpha = _ALPHA_ABOVE_A_MIDPOINT
    n, c, t = 64, Fraction(9, 2**18), Fraction(1, 2**300)
    fixed = float(c / (1 - alpha))
    f = fixed + 160 * math.ulp(fixed)
    a_lo, lo_c, lo_f = float(np.nextafter(float(alpha), -np.inf)), float(c) - math.ulp(float(c)), f - math.ulp(f)
    assert a_lo * lo_f + lo_c == lo_f and a_lo * (a_lo * lo_f + lo_c) == a_lo * lo_f  # both runs stall
    s_2 = _f0([*[c] * (n - 2), Fraction(f)], alpha)  # = S_2, as every S_k ≥ 0 for k ≥ 2
    column = [alpha * t, -alpha * s_2 - t, *[c] * (n - 2), Fraction(f)]
    prior = [Fraction(0), Fraction(1, 2**10), *column[2:]]
    prior[0] = 1 - sum(prior, Fraction(0))
    dual = [p * loss_at("binary", i, 0) - v for i, (p, v) in enumerate(zip(prior, column))]
    j = 0
    if run == "P":
        prior, dual, column, j = prior[::-1], dual[::-1], column[::-1], n
    assert sum((v * alpha ** abs(i - j) for i, v in enumerate(column)), Fraction(0)) == 0  # the ray r = j is exact
    columns = [_column(prior, dual, "binary", k) for k in range(n + 1)]
    assert columns[j] == column
    assert [_cone(w, alpha) for w in columns] == [k != j for k in range(n + 1)]
    ray = [j if k == j else -1 for k in range(n + 1)]
    q = to_fmpq(alpha)
    assert _dual_feasible(_q(prior), _q(dual), "binary", q, ray) == _feasible(prior, dual, "binary", alpha)
