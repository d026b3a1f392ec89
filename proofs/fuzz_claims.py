"""FUZZ claims of GRS decided on random exact instances (``proofs.fuzz``).

Each property returns None when an example satisfies the claim, else an exact description of
the violation; the tests feed every property a negative control that must be reported.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import product
from typing import Any

from hypothesis import strategies as st

from mechlib.core.families import geometric, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import dp_level
from mechlib.core.signature import DOWN, UP, ZERO, Signature, remap_from_signature, signature
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser, Loss
from mechlib.optimality.optimal import dp_constraint_rows, optimal_bayes_mechanism
from mechlib.strategies import (
    alphas,
    bayes_users,
    dp_mixtures,
    dp_vertices,
    legal_losses,
    priors,
    remaps,
    stochastic_rows,
)
from proofs.catalogue import FUZZ
from proofs.fuzz import fuzz
from proofs.registry import Outcome, check


def best_remap_loss(x: Any, user: BayesUser) -> Fraction:
    return expected_loss(x, user, optimal_remap(x, user))


def lp_matches_t(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
    """GRS-LP / Thm 3.2: the certified LP optimum equals the loss of T's optimal remap."""
    user, alpha = case
    optimum = optimal_bayes_mechanism(user, alpha).value
    mine = best_remap_loss(truncated_geometric(alpha, user.n), user)
    return None if mine == optimum else {"lp_optimum": optimum, "T_with_optimal_remap": mine}


def geometric_is_optimal(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
    """GRS-C3.3: the geometric mechanism (a window of ℤ) with its optimal remap reaches the optimum."""
    user, alpha = case
    optimum = optimal_bayes_mechanism(user, alpha).value
    mine = best_remap_loss(geometric(alpha, user.n, margin=2), user)
    return None if mine == optimum else {"lp_optimum": optimum, "geometric_with_optimal_remap": mine}


def direct_mechanisms_suffice(case: tuple[tuple[Fraction, Mechanism], BayesUser]) -> dict[str, Any] | None:
    """GRS-L5.2: Z = Y∘X (Y optimal) is α-DP, has X's loss, and is direct (face value is optimal)."""
    (alpha, x), user = case
    z = compose(optimal_remap(x, user), x)
    if dp_level(z).alpha < alpha:
        return {"problem": "Y∘X is not α-DP", "alpha": alpha}
    if expected_loss(z, user) != best_remap_loss(x, user) or best_remap_loss(z, user) != expected_loss(z, user):
        return {"problem": "Y∘X is not direct or loses more", "face_value": expected_loss(z, user)}
    return None


def optimal_remap_is_best(case: tuple[Mechanism, BayesUser, Any]) -> dict[str, Any] | None:
    """GRS-R2.3: posterior-then-argmin is the best deterministic remap (by enumeration) and no
    worse than a random randomized remap."""
    x, user, randomized = case
    mine = best_remap_loss(x, user)
    n, p, loss = user.n, user.prior.probabilities, user.loss.matrix
    brute = min(
        sum((p[i] * x.rows[i][r] * loss[i][g[r]] for i in range(n + 1) for r in range(len(x.outputs))), Fraction(0))
        for g in product(range(n + 1), repeat=len(x.outputs))
    )
    if mine != brute or mine > expected_loss(x, user, randomized):
        return {"optimal_remap": mine, "best_deterministic": brute}
    return None


def signature_shape(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """GRS-L5.3: no signature column mixes 0 and non-0; no row is all ↓/0 or all ↑/0."""
    alpha, x = case
    return signature_violation(signature(x, alpha))


def signature_violation(sig: Signature) -> dict[str, Any] | None:
    """Where a signature breaks GRS Lemma 5.3, or None."""
    for c in range(len(sig.outputs)):
        column = {row[c] == ZERO for row in sig.rows}
        if len(column) > 1:
            return {"column": c, "signature": str(sig)}
    for i, row in enumerate(sig.rows):
        if set(row) <= {DOWN, ZERO} or set(row) <= {UP, ZERO}:
            return {"row": i, "signature": str(sig)}
    return None


def vertex_is_a_remap_of_t(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
    """GRS-L5.10: full-support prior, strictly legal loss: the optimal vertex is Y∘T with Y built
    from its signature."""
    user, alpha = case
    x = optimal_bayes_mechanism(user, alpha).mechanism
    try:
        y = remap_from_signature(signature(x, alpha))
    except Exception as err:
        return {"problem": str(err), "vertex": x}
    return None if compose(y, truncated_geometric(alpha, user.n)) == x else {"vertex": x, "remap": y}


@st.composite
def strict_users(draw: st.DrawFn, max_n: int = 5) -> BayesUser:
    n = draw(st.integers(1, max_n))
    return BayesUser(draw(priors(n, full_support=True)), draw(legal_losses(n, strict=True)))


@st.composite
def mixtures_with_users(draw: st.DrawFn) -> tuple[tuple[Fraction, Mechanism], BayesUser]:
    alpha, x = draw(dp_mechanisms(max_n=5))
    return (alpha, x), BayesUser(draw(priors(x.n)), draw(legal_losses(x.n)))


@st.composite
def small_mechanisms_and_users(draw: st.DrawFn) -> tuple[Mechanism, BayesUser, Any]:
    n = draw(st.integers(1, 3))
    x = Mechanism(draw(stochastic_rows(n + 1, draw(st.integers(1, 4)))))
    prior = draw(priors(n))
    loss = Loss(
        draw(st.lists(st.lists(st.integers(0, 6), min_size=n + 1, max_size=n + 1), min_size=n + 1, max_size=n + 1))
    )
    return x, BayesUser(prior, loss), draw(remaps(x.outputs, n + 1))


def dp_mechanisms(max_n: int) -> st.SearchStrategy[tuple[Fraction, Mechanism]]:
    """α-DP mechanisms of two kinds: mixtures of randomized response with remaps of T (for which
    many properties nearly hold by construction) and certified vertices of the α-DP polytope
    (optimal for a random, usually illegal objective; often not derivable from T)."""
    return st.one_of(dp_mixtures(max_n=max_n), dp_vertices(max_n=min(max_n, 4)))


USERS_AND_ALPHAS = st.tuples(bayes_users(max_n=5), alphas(max_denominator=9))


@check("GRS-LP", kind=FUZZ)
def fuzz_lp() -> Outcome:
    # 300 examples: at 40 the illegal-loss mutant survived (its counterexamples are rare)
    return fuzz("GRS-LP", USERS_AND_ALPHAS, lp_matches_t, 300)


@check("GRS-C3.3", kind=FUZZ)
def fuzz_geometric() -> Outcome:
    return fuzz("GRS-C3.3", USERS_AND_ALPHAS, geometric_is_optimal, 30)


@check("GRS-L5.2", kind=FUZZ)
def fuzz_direct() -> Outcome:
    return fuzz("GRS-L5.2", mixtures_with_users(), direct_mechanisms_suffice, 60)


@check("GRS-R2.3", kind=FUZZ)
def fuzz_optimal_remap() -> Outcome:
    return fuzz("GRS-R2.3", small_mechanisms_and_users(), optimal_remap_is_best, 60)


@check("GRS-L5.3", kind=FUZZ)
def fuzz_signature_shape() -> Outcome:
    return fuzz("GRS-L5.3", dp_mechanisms(max_n=6), signature_shape, 100)


@check("GRS-L5.10", kind=FUZZ)
def fuzz_vertex_remap() -> Outcome:
    return fuzz("GRS-L5.10", st.tuples(strict_users(), alphas(max_denominator=9)), vertex_is_a_remap_of_t, 30)


# -- optimal vertices (GRS §5.3–5.4), GS Theorem 2, dominance, minimax users -----------------------


def nonzero(row: tuple[str, ...]) -> list[str]:
    return [s for s in row if s != ZERO]


def unimodal_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.5: each row's non-zero entries are ↓*, then at most one S, then ↑*."""
    for i, row in enumerate(sig.rows):
        seq = "".join({"↓": "d", "S": "s", "↑": "u"}[s] for s in nonzero(row))
        if seq != "d" * seq.count("d") + "s" * seq.count("s") + "u" * seq.count("u") or seq.count("s") > 1:
            return {"row": i, "signature": str(sig)}
    return None


def slack_count_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.8: #S entries ≤ #zero columns."""
    slack = sum(row.count("S") for row in sig.rows)
    zero_columns = sum(all(row[c] == ZERO for row in sig.rows) for c in range(len(sig.outputs)))
    return None if slack <= zero_columns else {"S": slack, "zero_columns": zero_columns, "signature": str(sig)}


def single_peak_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.9 (P1): every non-zero column is ↑*, then S*, then ↓* down the rows."""
    for c in range(len(sig.outputs)):
        column = "".join({"↓": "d", "S": "s", "↑": "u", "0": ""}[row[c]] for row in sig.rows)
        if column and column != "u" * column.count("u") + "s" * column.count("s") + "d" * column.count("d"):
            return {"column": c, "signature": str(sig)}
    return None


def on_optimal_vertex(
    test: Callable[[Signature], dict[str, Any] | None],
) -> Callable[[tuple[BayesUser, Fraction]], dict[str, Any] | None]:
    """The property ``test`` of the signature of the user's certified optimal vertex."""

    def prop(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
        user, alpha = case
        return test(signature(optimal_bayes_mechanism(user, alpha).mechanism, alpha))

    return prop


def row_order_violation(sig: Signature) -> dict[str, Any] | None:
    """GRS Lemma 5.6: (a) rows 0..n−1 are nondecreasing in their number of ↓ entries; (b) a
    strictly unimodal row (no S) other than the last is followed by a strictly larger row or by
    a row with an S entry."""
    downs = [row.count(DOWN) for row in sig.rows]
    for i in range(len(sig.rows) - 1):
        if downs[i + 1] < downs[i]:
            return {"rows": [i, i + 1], "part": "a", "signature": str(sig)}
        if "S" not in sig.rows[i] and downs[i + 1] == downs[i] and "S" not in sig.rows[i + 1]:
            return {"rows": [i, i + 1], "part": "b", "signature": str(sig)}
    return None


STRICT_USERS_AND_ALPHAS = st.tuples(strict_users(), alphas(max_denominator=9))


@check("GRS-L5.6", kind=FUZZ)
def fuzz_row_order() -> Outcome:
    return fuzz("GRS-L5.6", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(row_order_violation), 30)


@check("GRS-L5.5", kind=FUZZ)
def fuzz_unimodal() -> Outcome:
    return fuzz("GRS-L5.5", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(unimodal_violation), 30)


@check("GRS-L5.8", kind=FUZZ)
def fuzz_slack_count() -> Outcome:
    return fuzz("GRS-L5.8", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(slack_count_violation), 30)


@check("GRS-L5.9", kind=FUZZ)
def fuzz_single_peaked() -> Outcome:
    return fuzz("GRS-L5.9", STRICT_USERS_AND_ALPHAS, on_optimal_vertex(single_peak_violation), 30)


def derivability_agrees(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """GS-T2: the closed-form three-term verdict equals G⁻¹M ≥ 0 by flint's general solve."""
    import flint

    from mechlib.core.exact_linear import from_fmpq, to_fmpq
    from mechlib.optimality.derivability import derivation_witness

    alpha, m = case
    t = flint.fmpq_mat([[to_fmpq(v) for v in row] for row in truncated_geometric(alpha, m.n).rows])
    y = t.solve(flint.fmpq_mat([[to_fmpq(v) for v in row] for row in m.rows]))
    general = all(from_fmpq(y[i, j]) >= 0 for i in range(m.n + 1) for j in range(len(m.outputs)))
    verdict = derivation_witness(m, alpha).derivable
    return None if verdict == general else {"three_term": verdict, "general_solve": general, "mechanism": m}


@check("GS-T2", kind=FUZZ)
def fuzz_derivability() -> Outcome:
    return fuzz("GS-T2", dp_mixtures(max_n=6), derivability_agrees, 80)


def dominated(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """DOM: a remap of T whose error tails are nowhere above X's, found and re-checked exactly."""
    from mechlib.optimality.dominance import check_dominance, dominance_certificate

    alpha, x = case
    certificate = dominance_certificate(x, alpha)
    violation = check_dominance(x, alpha, certificate.remap)
    return None if violation is None else {"violation": violation.to_json(), "mechanism": x}


@check("DOM", kind=FUZZ)
def fuzz_dominance() -> Outcome:
    return fuzz("DOM", dp_mechanisms(max_n=5), dominated, 25)


def minimax_from_g(case: tuple[Any, Fraction]) -> dict[str, Any] | None:
    """GS-T1b: G with the optimal randomized remap reaches the certified minimax optimum."""
    from mechlib.optimality.minimax import derived_minimax_loss, optimal_minimax_mechanism

    user, alpha = case
    best, mine = optimal_minimax_mechanism(user, alpha).value, derived_minimax_loss(user, alpha)
    return None if best == mine else {"optimum": best, "from_G": mine}


@check("GS-T1b", kind=FUZZ)
def fuzz_minimax() -> Outcome:
    from mechlib.strategies import minimax_users

    return fuzz("GS-T1b", st.tuples(minimax_users(max_n=4), alphas(max_denominator=9)), minimax_from_g, 25)


def binding_set(x: Mechanism, alpha: Fraction) -> frozenset[tuple[str, int]]:
    """The constraints of GRS LP (3)–(7) tight at x, read off the LP's own rows
    (:func:`mechlib.optimality.optimal.dp_constraint_rows`, the encoding HiGHS solves) evaluated
    exactly — not from the signature: ("dp", k) for a tight α-DP row k, ("x ≥ 0", v) for a zero
    variable."""
    flat = [v for row in x.rows for v in row]
    tight = {("x ≥ 0", v) for v, value in enumerate(flat) if value == 0}
    rows = dp_constraint_rows(len(x.rows), len(x.outputs), alpha)
    tight |= {("dp", k) for k, terms in enumerate(rows) if sum(c * flat[v] for v, c in terms) == 0}
    return frozenset(tight)


def signature_iff_binding(case: tuple[tuple[Fraction, Mechanism], Mechanism]) -> dict[str, Any] | None:
    """GRS-L5.4: two α-DP mechanisms have the same signature ⇔ the same binding constraints."""
    (alpha, x), other = case
    same_signature = signature(x, alpha).rows == signature(other, alpha).rows
    same_binding = binding_set(x, alpha) == binding_set(other, alpha)
    return None if same_signature == same_binding else {"same_signature": same_signature, "same_binding": same_binding}


@st.composite
def pairs_of_dp_mechanisms(draw: st.DrawFn) -> tuple[tuple[Fraction, Mechanism], Mechanism]:
    """Two α-DP mechanisms of the same shape: a DP mixture X and X itself, T, or X mixed with a
    random remap of T."""
    alpha, x = draw(dp_mixtures(max_n=4))
    choice = draw(st.sampled_from(["same", "T", "mixture"]))
    if choice == "same":
        return (alpha, x), x
    t = truncated_geometric(alpha, x.n)
    if choice == "T" and len(x.outputs) == len(t.outputs):
        return (alpha, x), t
    other = compose(draw(remaps(t.outputs, len(x.outputs))), t)  # α-DP, same shape as x
    lam = Fraction(draw(st.integers(1, 3)), 4)
    return (alpha, x), Mechanism([[lam * a + (1 - lam) * b for a, b in zip(r, s)] for r, s in zip(x.rows, other.rows)])


@check("GRS-L5.4", kind=FUZZ)
def fuzz_signature_binding() -> Outcome:
    return fuzz("GRS-L5.4", pairs_of_dp_mechanisms(), signature_iff_binding, 80)
