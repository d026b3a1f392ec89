"""GRS-T3.2 (GRS Theorem 3.2): X is universally utility-maximizing ⇔ some remap Y has Y∘X = T.

Every check part of this claim is here (``mechlib verify --only GRS-T3.2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import EXACT, FUZZ, SMT
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, measured
from mechlib.proofs.shared.encodings import dominance_proofs, lemma_5_12_user_small_gamma
from mechlib.proofs.shared.generators import best_remap_loss
from mechlib.proofs.shared.remap_cells import ALPHAS, LARGEST_N, cell_proofs
from mechlib.strategies import dp_vertices, legal_losses, priors, refinements_of_t

#: The theorem's two directions, as the parts' scopes name them.
IF, ONLY_IF = "if: T's refinements are universally optimal", "only if: a universally optimal X has a remap onto T"


@check("GRS-T3.2", kind=SMT)
def smt_grs_theorem_3_2() -> Outcome:
    return dominance_proofs((Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)), covers=IF)


@st.composite
def refinements_with_users(draw: st.DrawFn, max_n: int = 8) -> tuple[tuple[Fraction, Mechanism, Remap], BayesUser]:
    case = draw(refinements_of_t(max_n=max_n))
    n = case[1].n
    return case, BayesUser(draw(priors(n)), draw(legal_losses(n)))


def refinement_serves_like_t(case: tuple[tuple[Fraction, Mechanism, Remap], BayesUser]) -> dict[str, Any] | None:
    """Y∘X = T exactly, and X with its optimal remap loses exactly what T does."""
    (alpha, x, y), user = case
    t = truncated_geometric(alpha, x.n)
    if compose(y, x) != t:
        return {"problem": "Y∘X ≠ T"}
    mine, theirs = best_remap_loss(x, user), best_remap_loss(t, user)
    return None if mine == theirs else {"X_with_optimal_remap": mine, "T_with_optimal_remap": theirs}


def vertex_only_if(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """GRS Thm 3.2's "only if" on a certified vertex X of the α-DP polytope (often not derivable
    from T, never built from T): when T is not a remap of X, Lemma 5.12's user loses strictly more
    with X than the optimum; when it is, X reaches it."""
    alpha, x = case
    if not 0 < alpha < 1:
        return None
    user = lemma_5_12_user_small_gamma(x.n)
    optimum = optimal_bayes_mechanism(user, alpha).value
    mine = best_remap_loss(x, user)
    derivable = t_from_x(x, alpha)
    if (mine == optimum) != derivable or mine < optimum:
        return {"T_is_a_remap_of_X": derivable, "X_with_optimal_remap": mine, "optimum": optimum}
    return None


@check("GRS-T3.2", kind=FUZZ)
def fuzz_refinements() -> Outcome:
    """Both directions: refinements of T serve every legal user like T ("if"); certified vertices
    of the DP polytope that T is not a remap of fail Lemma 5.12's user ("only if")."""
    refined = fuzz("GRS-T3.2", refinements_with_users(), refinement_serves_like_t, 100,
                   drawn=lambda c: alpha_first(c[0][:2]))  # fmt: skip
    if refined.verdict != Verdict.PROVED:
        return refined
    vertices = fuzz("GRS-T3.2", dp_vertices(max_n=3), vertex_only_if, 30, drawn=alpha_first)
    if vertices.verdict != Verdict.PROVED:
        return vertices
    evidence = {"if (refinements of T)": refined.evidence, "only if (DP vertices)": vertices.evidence}
    halves = (replace(s, covers=IF) for s in refined.scopes), (replace(s, covers=ONLY_IF) for s in vertices.scopes)
    return Outcome(Verdict.PROVED, evidence, scopes=tuple(s for half in halves for s in half))


def t_from_x(x: Mechanism, alpha: Fraction) -> bool:
    """Is there a stochastic Y with Y∘X = T (T on 0..n at α)? An exact LP feasibility question,
    answered by z3 over the rationals and confirmed by cvc5 (mechlib.proofs.smt.run)."""
    import z3

    from mechlib.optimality.smt import q
    from mechlib.proofs.smt import run, smt_query

    n, width = x.n, len(x.outputs)
    t = truncated_geometric(alpha, n).rows
    ys = [[z3.Real(f"y{r}_{j}") for j in range(n + 1)] for r in range(width)]
    solver = smt_query("QF_LRA")
    for r in range(width):
        solver.add(z3.Sum(ys[r]) == 1, *[v >= 0 for v in ys[r]])
    solver.add(
        z3.And(
            [
                z3.Sum([q(x.rows[i][r]) * ys[r][j] for r in range(width)]) == q(t[i][j])
                for i in range(n + 1)
                for j in range(n + 1)
            ]
        )
    )
    answer, _ = run(solver)
    if answer == z3.unknown:
        raise RuntimeError("the solvers could not decide whether T is a remap of X")
    return bool(answer == z3.sat)


#: Lemma 5.12's γ: small enough that T is its user's unique optimum at every (n, α) proved here.
GAMMA = Fraction(1, 100)
#: The only-if half's method, as its scope states it.
UNIQUE_METHOD = (
    "GRS §5.7: Lemma 5.12's user (uniform prior, loss 1 + |j−i|/100 off the truth) has T as its unique optimal "
    "α-DP direct mechanism — an exact dual with strictly positive multipliers on T's binding privacy rows, whose "
    "rows with the row sums have full rank, re-checked by the independent checker — so any universally optimal X, "
    "remapped optimally for that user, is an optimal direct mechanism for it, hence T"
)


def unique_optimum_certificate(n: int, alpha: Fraction, gamma: Fraction | None = None) -> dict[str, Any] | None:
    """The certificate (``mechlib.unique-optimum/1``, :mod:`mechlib.checkers.unique_optimum`) that T
    is the unique optimum of GRS LP (3)–(7) for Lemma 5.12's user at (n, α): T's binding constraints
    (privacy rows tight at T, zero entries), and the duals solving c = Aᵀy + Σ μ·g exactly on them —
    None when no exact solution exists. Positivity and rank are the checker's to decide. ``gamma``:
    Lemma 5.12's γ (default :data:`GAMMA`)."""
    from mechlib.core.exact_linear import solve
    from mechlib.proofs.shared.encodings import lemma_5_12_user
    from mechlib.provenance import package_versions

    gamma = GAMMA if gamma is None else gamma
    t = truncated_geometric(alpha, n).rows
    user = lemma_5_12_user(n, gamma)
    size = n + 1
    binding: list[tuple[str, int, int, dict[tuple[int, int], Fraction]]] = []
    for i in range(size):
        for j in range(size):
            if t[i][j] == 0:
                binding.append(("nonneg", i, j, {(i, j): Fraction(1)}))
            if i < n and t[i + 1][j] == alpha * t[i][j]:
                binding.append(("down", i, j, {(i + 1, j): Fraction(1), (i, j): -alpha}))
            elif i < n and t[i][j] == alpha * t[i + 1][j]:
                binding.append(("up", i, j, {(i, j): Fraction(1), (i + 1, j): -alpha}))
    variables = [(i, j) for i in range(size) for j in range(size)]
    # one equation per variable (i, j): y_i + Σ_k μ_k·g_k(i, j) = p_i·l(i, j)
    equations = [[Fraction(int(r == i)) for r in range(size)] + [g.get((i, j), Fraction(0)) for *_, g in binding]
                 for i, j in variables]  # fmt: skip
    costs = [user.prior.probabilities[i] * user.loss(i, j) for i, j in variables]
    duals = solve(equations, costs)
    if duals is None:
        return None
    value = sum((c * t[i][j] for (i, j), c in zip(variables, costs)), Fraction(0))
    return {
        "schema": "mechlib.unique-optimum/1",
        "statement": "T is the unique optimal α-DP direct mechanism of GRS Lemma 5.12's user",
        "n": n,
        "alpha": format_fraction(alpha),
        "gamma": format_fraction(gamma),
        "mechanism": [[format_fraction(v) for v in row] for row in t],
        "rows": [format_fraction(v) for v in duals[:size]],
        "binding": [[kind, i, j, format_fraction(mu)] for (kind, i, j, _), mu in zip(binding, duals[size:])],
        "value": format_fraction(value),
        "provenance": {"producer": __name__, **package_versions("mechlib", "python-flint")},
    }


def unique_optima(largest: int = LARGEST_N, alphas: tuple[Fraction, ...] = ALPHAS) -> Outcome:
    """GRS Thm 3.2's "only if" at every n ≤ ``largest`` and each α (GRS §5.7): PROVED when the
    independent checker accepts, at each (n, α), the certificate that T is Lemma 5.12's user's
    unique optimal direct mechanism. Then any universally optimal X (any range), with an optimal
    remap Y for that user, gives Y∘X: α-DP (post-processing), range 0..n, as good as the optimum —
    so Y∘X = T. UNKNOWN when a certificate is missing or rejected (the user may still exist)."""
    from mechlib.checkers.unique_optimum import check_certificate

    evidence: dict[str, Any] = {}
    ran: list[tuple[int, Fraction]] = []
    for alpha in alphas:
        for n in range(1, largest + 1):
            name = f"n={n}, α={format_fraction(alpha)}"
            doc = unique_optimum_certificate(n, alpha)
            failures = ["no exact dual on T's binding constraints"] if doc is None else check_certificate(
                doc, n=n, alpha=alpha)  # fmt: skip
            if failures:
                reason = f"{name}: T is not certified as Lemma 5.12's user's unique optimum: {failures[0]}"
                return Outcome(Verdict.UNKNOWN, {**evidence, name: failures[:3]}, reason)
            assert doc is not None
            evidence[name] = {"binding constraints": len(doc["binding"]), "optimum": doc["value"],
                              "checker": "accepted"}  # fmt: skip
            ran.append((n, alpha))
    scope = measured(UNIQUE_METHOD, n=[n for n, _ in ran], alphas=alphas, every_object=True, covers=ONLY_IF)
    return Outcome(Verdict.PROVED, evidence, scopes=(scope,))


@check("GRS-T3.2", kind=EXACT)
def exact_both_directions() -> Outcome:
    """GRS Thm 3.2 for every n ≤ 6 at three α. "If": T, hence every X with a remap onto T, is optimal
    for every legal Bayesian user (Lemma 5.11), proved remap cell by remap cell
    (:mod:`mechlib.proofs.shared.remap_cells`). "Only if": T is the unique optimum of Lemma 5.12's
    user (:func:`unique_optima`). Each half PROVED only on certificates the independent checkers
    accept (the cells' stored and re-checked, or searched; the duals computed and re-checked)."""
    proved = cell_proofs(LARGEST_N, ALPHAS, covers=IF)
    if proved.verdict != Verdict.PROVED:
        return proved
    only_if = unique_optima(LARGEST_N, ALPHAS)
    evidence = {"if (remap cells)": proved.evidence, "only if (unique optimum of Lemma 5.12's user)": only_if.evidence}
    return Outcome(only_if.verdict, evidence, only_if.reason, (*proved.scopes, *only_if.scopes))


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _unique_optimum_rejected(*_args: Any, **_kwargs: Any) -> list[str]:
    return ["the unique-optimum certificate is rejected (mutant)"]


register("only if: Lemma 5.12's γ → 1 (T is no longer its user's unique optimum at α = 2/3, n ≥ 3)",
         "changed statement", ("GRS-T3.2",), module_constant(__name__, "GAMMA", lambda _: Fraction(1)))  # fmt: skip
register("only if: Lemma 5.12's loss 1 − |j−i|/100 (decreasing in |j − i|: illegal)", "illegal loss",
         ("GRS-T3.2",), module_constant(__name__, "GAMMA", lambda _: Fraction(-1, 100)))  # fmt: skip
register("the unique-optimum checker rejects every certificate", "rejected certificate", ("GRS-T3.2",),
         module_constant("mechlib.checkers.unique_optimum", "check_certificate",
                         lambda _: _unique_optimum_rejected))  # fmt: skip
