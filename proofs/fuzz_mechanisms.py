"""FUZZ parts on whole mechanisms: GRS Theorem 3.2's "if" direction and GRS Theorem A.2.

* GRS-T3.2: X = T with its outputs split (``refinements_of_t``) has a remap Y with Y∘X = T, so
  it must serve every legal user exactly as well as T: the optimal-remap losses are compared
  exactly for random users. Cheap, so it also measures exactly decided examples per second.
* GRS-TA.2: the rounded Laplace mechanism (exact for α with rational √α) with its optimal remap
  is within the factor (1+α)/(2√α) of the certified optimum for random legal users.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.families import rounded_laplace, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.strategies import dp_vertices, legal_losses, priors, refinements_of_t
from proofs.catalogue import FUZZ
from proofs.fuzz import fuzz
from proofs.fuzz_claims import best_remap_loss
from proofs.registry import Outcome, Verdict, check, sampled


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
    from proofs.grs_gs_instances import _lemma_5_12_user, t_from_x

    alpha, x = case
    if not 0 < alpha < 1:
        return None
    user = _lemma_5_12_user(x.n)
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


@st.composite
def laplace_cases(draw: st.DrawFn) -> tuple[Fraction, BayesUser]:
    """(√α, user): √α = p/q rational (so rounded Laplace is exact) and a legal user, n ≤ 4."""
    q = draw(st.integers(2, 6))
    n = draw(st.integers(1, 4))
    return Fraction(draw(st.integers(1, q - 1)), q), BayesUser(draw(priors(n)), draw(legal_losses(n)))


def laplace_within_factor(case: tuple[Fraction, BayesUser], factor: bool = True) -> dict[str, Any] | None:
    """loss(rounded Laplace, optimal remap) ≤ (1+α)/(2√α) · certified optimum (with ``factor``
    off: ≤ the optimum itself — false in general, the negative control)."""
    root, user = case
    alpha = root * root
    bound = (1 + alpha) / (2 * root) if factor else Fraction(1)
    optimum = optimal_bayes_mechanism(user, alpha).value
    mine = best_remap_loss(rounded_laplace(alpha, user.n), user)
    return None if optimum <= mine <= bound * optimum else {"laplace": mine, "optimum": optimum, "factor": bound}


@check("GRS-TA.2", kind=FUZZ)
def fuzz_rounded_laplace() -> Outcome:
    return fuzz("GRS-TA.2", laplace_cases(), laplace_within_factor, 30)
