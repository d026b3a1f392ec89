"""The standard users' O(n²) path (absolute, squared, binary loss) agrees with the general code:
the same optimal remap (tie rule included), the same loss, the same certified optimum; and a
certificate naming the loss is re-checked in integers, a wrong name or value refused."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechlib import randomized_response, truncated_geometric
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss
from mechlib.core.post_processing import optimal_remap as general_remap
from mechlib.core.users import Prior
from mechlib.optimality import standard_users
from mechlib.optimality.derivability import TBasis
from mechlib.optimality.optimal import optimum_of_t
from mechlib.optimality.standard_users import STANDARD_LOSSES, StandardUser, cone_nonnegative_integers


@st.composite
def mechanisms_and_priors(draw: Any) -> tuple[Mechanism, Prior]:
    """Small mechanisms with ties (small integer weights, zero columns) and priors with zeros."""
    n = draw(st.integers(1, 5))
    width = draw(st.integers(1, 7))
    rows = []
    for _ in range(n + 1):
        w = draw(st.lists(st.integers(0, 3), min_size=width, max_size=width).filter(any))
        rows.append([Fraction(x, sum(w)) for x in w])
    weights = draw(st.lists(st.integers(0, 4), min_size=n + 1, max_size=n + 1).filter(any))
    return Mechanism(rows, outputs=list(range(-1, width - 1))), Prior.from_weights(weights)


@settings(max_examples=150, deadline=None, database=None)
@given(mechanisms_and_priors(), st.sampled_from(STANDARD_LOSSES))
def test_the_fast_remap_is_the_general_one(case: tuple[Mechanism, Prior], kind: str) -> None:
    mech, prior = case
    user = StandardUser(kind, prior)
    fast = standard_users.optimal_remap(mech, user)
    assert fast == general_remap(mech, user.as_bayes_user())
    assert standard_users.remapped_loss(mech, user, fast) == expected_loss(mech, user.as_bayes_user(), fast)


@pytest.mark.parametrize("kind", STANDARD_LOSSES)
@pytest.mark.parametrize(("alpha", "n"), [(Fraction(1, 2), 6), (Fraction(1, 3), 9), (Fraction(3, 4), 5)])
def test_the_integer_dual_is_the_general_one(kind: str, alpha: Fraction, n: int) -> None:
    basis = TBasis(alpha, n)
    user = StandardUser(kind, Prior.from_weights(range(1, n + 2)))
    fast = standard_users.optimum_of_t(user, alpha, basis.t, basis.inverse, None)
    slow = optimum_of_t(user.as_bayes_user(), alpha, basis.t, basis.inverse)
    assert fast is not None and slow is not None
    assert (fast.remap, fast.value, fast.dual) == (slow.remap, slow.value, slow.dual)


def test_the_integer_cone_test_is_the_rational_one() -> None:
    import random

    from mechlib.optimality.optimal import cone_nonnegative

    rng = random.Random(5)
    for _ in range(300):
        w = [rng.randint(-9, 9) for _ in range(rng.randint(1, 8))]
        alpha = Fraction(rng.randint(1, 9), 10)
        assert cone_nonnegative_integers(w, alpha) == cone_nonnegative([Fraction(v) for v in w], alpha)


def _certificate(mech: Mechanism) -> dict[str, Any]:
    loaded = LoadedMechanism(mech, path="m.json", format="json", sha256="0" * 64, name="m")
    doc: dict[str, Any] = json.loads(json.dumps(audit(loaded)))
    return doc


@pytest.mark.parametrize(
    "mech", [truncated_geometric("1/2", 12), randomized_response("1/3", 7), truncated_geometric("2/3", 3)]
)
def test_named_losses_certify_and_check(mech: Mechanism) -> None:
    cert = _certificate(mech)
    users = cert["user_losses"]["users"]
    assert [u["loss"] for u in users] == list(STANDARD_LOSSES) and cert["schema"] == "mechlib.audit/8"
    assert check_certificate(cert) == []

    def other_loss(u: dict[str, Any]) -> None:
        u["loss"] = "squared" if u["loss"] != "squared" else "binary"

    def more_loss(u: dict[str, Any]) -> None:
        u["mechanism"] = str(Fraction(u["mechanism"]) + Fraction(1, 10**9))

    def lower_dual(u: dict[str, Any]) -> None:
        u["dual"][0] = str(Fraction(u["dual"][0]) - 1)

    def far_guess(u: dict[str, Any]) -> None:
        u["optimal_remap"]["0"] = len(u["optimal_remap"]) - 1

    def claims_the_optimum(u: dict[str, Any]) -> None:  # the checker skips the least-loss search then
        u["mechanism"], u["ratio"] = u["optimum"], "1"

    changes = [other_loss, more_loss, lower_dual, far_guess]
    if any(u["mechanism"] != u["optimum"] for u in users):
        changes.append(claims_the_optimum)
    for change in changes:
        for k in range(3):
            forged = json.loads(json.dumps(cert))
            if change is claims_the_optimum and users[k]["mechanism"] == users[k]["optimum"]:
                continue
            change(forged["user_losses"]["users"][k])
            assert check_certificate(forged), (change.__name__, k)


def test_a_loss_matrix_user_above_its_limit_is_refused_before_any_work() -> None:
    """A --prior/--loss user costs O(n³): above n = 400 the audit refuses it (one line, exit 2 at the
    command line), while the three standard users run to n = 5000."""
    from mechlib.audit.whitebox import MATRIX_USERS_MAX_N
    from mechlib.core.users import BayesUser, absolute_loss
    from mechlib.errors import InputError

    n = MATRIX_USERS_MAX_N + 1
    loaded = LoadedMechanism(truncated_geometric("1/2", n), path="t.json", format="json", sha256="0" * 64)
    user = ("p", "l", BayesUser(Prior.uniform(n), absolute_loss(n)))
    with pytest.raises(InputError, match=f"up to n = {MATRIX_USERS_MAX_N}"):
        audit(loaded, [user])


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.lists(st.integers(-6, 6), min_size=2, max_size=9),
    st.integers(0, 8),
    st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(9, 10), Fraction(1, 7)]),
    st.integers(-3, 3),
)
def test_interval_cone_decisions_are_the_exact_ones(w: list[int], at: int, alpha: Fraction, tilt: int) -> None:
    """Soundness of ``core.intervals``: a column proved nonnegative (or negative) on the cone is so
    exactly. w is made tight on the ray α^|i−r| (w·x = 0, the identity ``ray_is_a_minimiser``
    assumes), then optionally tilted off it (the cone evaluation alone must then be right)."""
    import numpy as np

    from mechlib.core.intervals import cone_minimum_signs, enclose, ray_is_a_minimiser
    from mechlib.optimality.optimal import cone_nonnegative

    n, r = len(w) - 1, at % len(w)
    ray = [alpha ** abs(i - r) for i in range(n + 1)]
    exact = [Fraction(v) for v in w]
    exact[0] = -sum(v * x for v, x in zip(exact[1:], ray[1:])) / ray[0]  # now Σ w_i·x_i = 0
    assert sum(v * x for v, x in zip(exact, ray)) == 0
    bounds = enclose(exact)
    assert bounds is not None
    lo, hi = (b[:, None] for b in bounds)
    truth = cone_nonnegative(exact, alpha)
    if ray_is_a_minimiser(lo, hi, alpha, np.array([r]))[0]:
        assert truth
    tilted = [exact[0] + Fraction(tilt, 1000), *exact[1:]]
    bounds = enclose(tilted)
    assert bounds is not None
    sign = cone_minimum_signs(bounds[0][:, None], bounds[1][:, None], alpha)[0]
    assert sign == 0 or (sign > 0) == cone_nonnegative(tilted, alpha)


def test_the_interval_path_decides_the_standard_users_of_t_at_scale() -> None:
    """At n = 300 the tight columns are proved by the ray argument and the rest by interval
    evaluation: at most a few columns fall back to exact integers, and the optimum checks."""
    from unittest import mock

    from mechlib.optimality import standard_users as module

    basis = TBasis(Fraction(1, 3), 300)
    with mock.patch.object(module, "cone_nonnegative_integers", wraps=module.cone_nonnegative_integers) as exact:
        for kind in STANDARD_LOSSES:
            user = StandardUser(kind, Prior.uniform(300))
            assert module.optimum_of_t(user, basis.alpha, basis.t, basis.inverse, None)
    assert exact.call_count <= 6


@pytest.mark.parametrize("kind", STANDARD_LOSSES)
def test_the_loss_array_is_the_loss(kind: str) -> None:
    """The float table the interval cone test starts from is l(i, j) itself (exact: l ≤ n² < 2⁵³)."""
    import numpy as np

    from mechlib.optimality.standard_users import loss_array, loss_value

    steps = np.arange(7)
    table = loss_array(kind, steps[:, None] - steps[None, :])
    assert table.tolist() == [[float(loss_value(kind, i, j)) for j in range(7)] for i in range(7)]


@pytest.mark.parametrize("alpha", ["1/2", "1/3", "3/4"])
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_the_checkers_closed_form_losses_of_t_are_the_passes(alpha: str, n: int) -> None:
    """The checker's O(1) loss of T's column r at guess g (prefix sums of its geometric runs) is the
    pass Σ_i T_num[i][r]·l(i, g) over the rows of its own T, for every r, g and standard loss."""
    from mechlib.checkers.fields import Q
    from mechlib.checkers.standard_users import TColumns, t_rows

    a = Fraction(alpha)
    q = Q(a.numerator, a.denominator)
    rows, columns = t_rows(q, n), TColumns.of(q, n)
    for kind in STANDARD_LOSSES:
        for r in range(n + 1):
            for g in range(n + 1):
                direct = sum(rows.num[i][r] * standard_users.loss_value(kind, i, g) for i in range(n + 1))
                assert columns.loss(kind, r, g) == direct, (kind, r, g)


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(3, 4), Fraction(99, 100)])
@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_t_in_closed_form_is_t(alpha: Fraction, n: int) -> None:
    """The producer's closed-form columns of T (GeometricColumns) give what the passes over T give:
    each column's total, minimisers (ties included) and loss at every guess, and so the same remap."""
    t = truncated_geometric(alpha, n)
    geometric = standard_users.GeometricColumns.of(alpha, n)
    num, _ = t.scaled()
    columns = list(zip(*num))
    for kind in STANDARD_LOSSES:
        user = StandardUser(kind, Prior.uniform(n))
        for r, w in enumerate(columns):
            assert geometric.total(r) == sum(w)
            assert [geometric.below(r, j) for j in range(n + 2)] == [sum(w[:j]) for j in range(n + 2)]
            assert geometric.minimisers(kind, r) == standard_users._minimisers(kind, w, sum(w))
            for g in range(n + 1):
                assert geometric.loss(kind, r, g) == sum(
                    v * standard_users.loss_value(kind, i, g) for i, v in enumerate(w)
                )
        fast = standard_users.optimal_remap_of_t(geometric, user, t.outputs)
        assert fast.as_mapping() == standard_users.optimal_remap(t, user).as_mapping()


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.floats(allow_nan=False) | st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.0**-1022]), min_size=1))
def test_the_checkers_downward_step_is_at_or_below_the_next_float(values: list[float]) -> None:
    """``_down`` (the interval test's cheap outward rounding) never exceeds ``nextafter(x, −∞)``,
    subnormals, binade ends and infinities included: each lower bound stays a lower bound."""
    import numpy as np

    from mechlib.checkers.standard_users import _down

    x = np.array(values)
    with np.errstate(all="ignore"):  # −max steps to −∞: an overflow, as it should
        below, stepped = np.nextafter(x, -np.inf), _down(x.copy())
    finite = x < np.inf
    assert (stepped[finite] <= below[finite]).all()
    assert not (stepped[~finite] >= 0).any()  # +∞: NaN, which proves nothing


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.integers(1, 6),
    st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(9, 10), Fraction(1, 7)]),
    st.sampled_from(STANDARD_LOSSES),
    st.lists(st.integers(1, 5), min_size=7, max_size=7),
    st.one_of(st.none(), st.lists(st.integers(0, 6), min_size=7, max_size=7)),
)
def test_the_checkers_interval_dual_test_is_sound(
    n: int, alpha: Fraction, kind: str, weights: list[int], steps: list[int] | None
) -> None:
    """Soundness of the checker's ``_dual_feasible`` (its own intervals and tight rays): whenever it
    accepts u = (T⁻¹)ᵀb, every column c_j − u is nonnegative on the α-DP cone exactly. b comes from a
    remap of T — the user's optimal one (None: mostly accepted) or any (mostly refused)."""
    from mechlib.checkers.fields import Q
    from mechlib.checkers.standard_users import _dual_feasible, _rays, cone_nonnegative, t_rows

    a = Q(alpha.numerator, alpha.denominator)
    prior = [Q(w, sum(weights[: n + 1])) for w in weights[: n + 1]]
    rows = t_rows(a, n)
    t = [[Q(v, d) for v in row] for row, d in zip(rows.num, rows.den)]
    if steps is None:
        user = StandardUser(kind, Prior([Fraction(int(p.p), int(p.q)) for p in prior]))
        steps = [
            standard_users.optimal_remap(truncated_geometric(alpha, n), user).as_mapping()[r] for r in range(n + 1)
        ]
    guess = [g % (n + 1) for g in steps[: n + 1]]
    loss = [[Q(standard_users.loss_value(kind, i, j)) for j in range(n + 1)] for i in range(n + 1)]
    b = [sum((prior[i] * t[i][r] * loss[i][guess[r]] for i in range(n + 1)), Q(0)) for r in range(n + 1)]
    u_mat = flint.fmpq_mat([list(col) for col in zip(*t)]).solve(flint.fmpq_mat([[v] for v in b]))  # Tᵀu = b
    u = [u_mat[i, 0] for i in range(n + 1)]
    if _dual_feasible(prior, u, kind, a, _rays(u, b, guess, a)):
        scale = 1
        for v in [*prior, *u]:
            scale = scale * int(v.q) // math.gcd(scale, int(v.q))
        for j in range(n + 1):
            column = [int((prior[i] * loss[i][j] - u[i]) * scale) for i in range(n + 1)]
            assert cone_nonnegative(column, a), (j, column)
