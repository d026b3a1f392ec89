"""GRS-TA.2 (GRS Theorem A.2): Rounded Laplace: P[Δ'=i] = (1+α)/(2√α)·P[Δ=i] for i≠0; Laplace is
(1+α)/(2√α)-approximately optimal.

Every check part of this claim is here (``mechlib verify --only GRS-TA.2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any

import sympy as sp
import z3
from hypothesis import strategies as st

from mechlib.core.exact import format_fraction
from mechlib.core.families import rounded_laplace, sqrt_bounds
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import FUZZ, SYM
from mechlib.proofs.fuzz import fuzz
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, check, decide, measured, with_scope
from mechlib.proofs.shared.generators import best_remap_loss, legal_user
from mechlib.proofs.smt import TWO_SOLVERS, run, smt_query
from mechlib.strategies import legal_losses, priors

#: The claim's two halves: the pointwise noise lemma (symbolic, every i) and Laplace's
#: approximate optimality for every user (sampled: n ≤ 4, √α rational so Laplace is exact).
NOISE = "rounded Laplace's noise is (1+α)/(2√α) × the geometric's off 0, less at 0"
APPROXIMATE = "Laplace is (1+α)/(2√α)-approximately optimal for every legal user"


@check("GRS-TA.2", kind=SYM)
def sym_rounded_laplace() -> Outcome:
    """P[Δ'=i] = ∫_{i−1/2}^{i+1/2} ε/2·e^(−ε|t|) dt = (1+α)/(2√α)·P[Δ=i] for integers i ≥ 1
    (symbolic ε, i; by symmetry for i ≤ −1); P[Δ'=0] < P[Δ=0]; the factor at α = 1/2 is 1.06."""
    eps = sp.Symbol("epsilon", positive=True)
    i = sp.Symbol("i", integer=True, positive=True)
    t = sp.Symbol("t", real=True)
    alpha = sp.exp(-eps)
    rounded = sp.integrate(eps / 2 * sp.exp(-eps * t), (t, i - sp.Rational(1, 2), i + sp.Rational(1, 2)))
    geometric = (1 - alpha) / (1 + alpha) * alpha**i
    ratio = sp.simplify(rounded / geometric - (1 + alpha) / (2 * sp.sqrt(alpha)))
    zero = sp.integrate(eps * sp.exp(-eps * t), (t, 0, sp.Rational(1, 2)))  # both halves
    s = z3.Real("s")  # s = √α ∈ (0,1): 1 − s < (1 − s²)/(1 + s²) ⇔ P[Δ'=0] < P[Δ=0]
    solver = smt_query("QF_NRA")
    solver.add(s > 0, s < 1)
    solver.add((1 - s) * (1 + s * s) >= 1 - s * s)
    answer, ev = run(solver)
    lo, hi = sqrt_bounds(Fraction(1, 2), 8)  # factor (1+α)/(2√α) at α = 1/2, rigorously
    factor = (Fraction(3, 2) / (2 * hi), Fraction(3, 2) / (2 * lo))
    facts = {
        "ratio": ratio == 0,
        "P[Δ'=0] = 1 − √α": sp.simplify(zero - (1 - sp.sqrt(alpha))) == 0,
        "P[Δ'=0] < P[Δ=0]": answer == z3.unsat,
        "factor 1.06 at α=1/2": Fraction(105, 100) < factor[0] and factor[1] < Fraction(107, 100),
    }
    evidence = {"factor_at_half": [format_fraction(x) for x in factor], "z3": ev}
    scope = measured("sympy; " + TWO_SOLVERS, n=f"every integer i ≥ 1 ({i} symbolic)", alphas="symbolic ε > 0",
                     every_object=True, covers=NOISE)  # fmt: skip
    return with_scope(decide([{k: False} for k, ok in facts.items() if not ok], evidence), scope)


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


def _legal(case: tuple[Fraction, BayesUser]) -> str | None:
    """The user's loss is legal (GRS §2.2) and 0 < √α < 1."""
    return legal_user((case[1], case[0]))


@check("GRS-TA.2", kind=FUZZ)
def fuzz_rounded_laplace() -> Outcome:
    found = fuzz("GRS-TA.2", laplace_cases(), laplace_within_factor, 30, n="n ≤ 4", alpha="√α = p/q, q ≤ 6",
                 hypothesis=_legal)  # fmt: skip
    return replace(found, scopes=tuple(replace(s, covers=APPROXIMATE) for s in found.scopes))


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("Laplace's factor (1+α)/(2√α) → 1 (exactly optimal)", "changed statement", ("GRS-TA.2",),
         module_constant(__name__, "laplace_within_factor", lambda real: partial(real, factor=False)))  # fmt: skip
