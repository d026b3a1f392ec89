"""GRS-T3.2 (GRS Theorem 3.2): X is universally utility-maximizing ⇔ some remap Y has Y∘X = T.

Every check part of this claim is here (``mechlib verify --only GRS-T3.2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.exact import format_fraction
from mechlib.core.families import exponential, randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import dp_level
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import EXACT, FUZZ, SMT
from mechlib.proofs.fuzz import fuzz
from mechlib.proofs.registry import Outcome, Verdict, check, decide, measured, sampled
from mechlib.proofs.shared.encodings import HALF, THIRD, dominance_proofs, lemma_5_12_user_small_gamma
from mechlib.proofs.shared.generators import best_remap_loss
from mechlib.proofs.shared.printed import GRS_FIGURE_5A, GS_APPENDIX_B
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
    from mechlib.proofs.shared.encodings import lemma_5_12_user_small_gamma

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
    refined = fuzz("GRS-T3.2", refinements_with_users(), refinement_serves_like_t, 100, n="n ≤ 8")
    if refined.verdict != Verdict.PROVED:
        return refined
    vertices = fuzz("GRS-T3.2", dp_vertices(max_n=3), vertex_only_if, 30, n="n ≤ 3", alpha="k/m, m ≤ 6")
    if vertices.verdict != Verdict.PROVED:
        return vertices
    count = (refined.scopes[0].examples or 0) + (vertices.scopes[0].examples or 0)
    evidence = {"if (refinements of T)": refined.evidence, "only if (DP vertices)": vertices.evidence}
    return Outcome(Verdict.PROVED, evidence, scopes=(sampled(count, "n ≤ 8 (if), n ≤ 3 (only if)"),))


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


ONLY_IF_CASES = {
    "GS App. B (α = 1/2)": (GS_APPENDIX_B, HALF),
    "GRS Figure 5(a) (α = 1/2)": (GRS_FIGURE_5A, HALF),
    "randomized response k=3 (α = 1/3)": (randomized_response(THIRD, 3), THIRD),
    "randomized response k=4 (α = 1/2)": (randomized_response(HALF, 4), HALF),
    "exponential n=3": (exponential(HALF, 3), dp_level(exponential(HALF, 3)).alpha),
}


@check("GRS-T3.2", kind=EXACT)
def exact_both_directions() -> Outcome:
    """GRS Thm 3.2's "if" for every n ≤ 6 at three α — T, hence every X with a remap onto T, is
    optimal for every legal Bayesian user (Lemma 5.11), proved remap cell by remap cell
    (:mod:`mechlib.proofs.shared.remap_cells`): PROVED only on a certificate the independent checker
    accepts (stored and re-checked, or searched) — and its "only if" on listed instances."""
    proved = cell_proofs(LARGEST_N, ALPHAS, covers=IF)
    if proved.verdict != Verdict.PROVED:
        return proved
    only_if = exact_only_if_direction()
    evidence = {"if (remap cells)": proved.evidence, "only if (instances)": only_if.evidence}
    listed = [m.n for m, _ in ONLY_IF_CASES.values()]
    only_if_scope = measured(f"{len(ONLY_IF_CASES)} listed mechanisms (not derivable from T), exact LP + z3/cvc5",
                             n=listed, alphas=[a for _, a in ONLY_IF_CASES.values()], every_object=False,
                             covers=ONLY_IF)  # fmt: skip
    return Outcome(only_if.verdict, evidence, only_if.reason, (*proved.scopes, only_if_scope))


def exact_only_if_direction() -> Outcome:
    """GRS Thm 3.2's "only if", on instances: for an α-DP X from which T cannot be derived (no
    stochastic Y with Y∘X = T — decided by the two solvers), Lemma 5.12's user (uniform prior, loss
    0 on the truth and 1 + |j−i|/100 elsewhere, whose unique optimum is T) loses strictly more with
    X and its best remap than the certified optimum: X is not universally optimal. A control: T's
    own remaps of T (here T itself) reach the optimum."""
    failures: list[dict[str, Any]] = []
    shown = {}
    for name, (x, alpha) in ONLY_IF_CASES.items():
        if t_from_x(x, alpha):
            failures.append({"case": name, "problem": "T is a remap of X; not an 'only if' instance"})
            continue
        user = lemma_5_12_user_small_gamma(x.n)
        optimum = optimal_bayes_mechanism(user, alpha).value
        mine = expected_loss(x, user, optimal_remap(x, user))
        shown[name] = {"X with its best remap": format_fraction(mine), "optimum": format_fraction(optimum)}
        if not mine > optimum:
            failures.append({"case": name, "problem": "X reaches the optimum for Lemma 5.12's user"})
    t = truncated_geometric(HALF, 3)
    if not t_from_x(t, HALF):
        failures.append({"control": "T is not found to be a remap of itself"})
    return decide(failures, {"strictly worse for Lemma 5.12's user": shown})
