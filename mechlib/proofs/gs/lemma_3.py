"""GS-L3 (GS Lemma 3): For α ≤ β, T_{α,β} = G_α⁻¹G_β is stochastic.

Every check part of this claim is here (``mechlib verify --only GS-L3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import SMT, SYM, Strength
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Scope, Verdict, bounded, check, decide
from mechlib.proofs.shared.symbolic import ALPHA
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

BETA = sp.Symbol("beta", positive=True)


def _to_z3(poly: sp.Poly, variables: dict[sp.Symbol, Any]) -> Any:
    terms = []
    for powers, coefficient in poly.terms():
        term = z3.Q(int(sp.numer(coefficient)), int(sp.denom(coefficient)))
        for symbol, power in zip(poly.gens, powers):
            if power:
                term = term * variables[symbol] ** power
        terms.append(term)
    return z3.Sum(terms) if terms else z3.RealVal(0)


def t_alpha_beta_symbolic(n: int) -> sp.Matrix:
    """T_{α,β} = G_α⁻¹ G_β with symbolic α, β (GS Lemma 3)."""

    def g(a: Any) -> sp.Matrix:
        return sp.Matrix(n + 1, n + 1, lambda i, r: a ** abs(i - r) * (1 if r in (0, n) else 1 - a) / (1 + a))

    return sp.simplify(g(ALPHA).inv() * g(BETA))


def negative_entry_query(t: sp.Matrix, *, ordered: bool) -> z3.Solver:
    """z3: can an entry of T_{α,β} be negative for 0 < α ≤ β < 1 (or, negative control, for
    0 < β < α < 1)? An entry is negative iff its numerator and denominator differ in sign."""
    a, b = z3.Real("alpha"), z3.Real("beta")
    solver = smt_query("QF_NRA")
    solver.add(a > 0, b > 0, a < 1, b < 1, a <= b if ordered else a > b)
    negatives = []
    for entry in t:
        num, den = sp.fraction(sp.together(entry))
        negatives.append(_to_z3(sp.Poly(sp.expand(num * den), ALPHA, BETA), {ALPHA: a, BETA: b}) < 0)
    solver.add(z3.Or(negatives))
    return solver


@check("GS-L3", kind=SYM, scope=bounded(4, "symbolic α, β", "sympy: rows of T_{α,β} sum to 1"))
def sym_t_alpha_beta() -> Outcome:
    """Rows of T_{α,β} = G_α⁻¹G_β sum to 1, symbolically (sympy)."""
    failures: list[dict[str, Any]] = []
    for n in (1, 2, 3, 4):
        t = t_alpha_beta_symbolic(n)
        for i in range(n + 1):
            if sp.simplify(sum(t[i, :]) - 1) != 0:
                failures.append({"n": n, "row": i, "problem": "row sum"})
    return decide(failures, {"n": "1..4", "alpha, beta": "symbolic"})


@check(
    "GS-L3",
    kind=SMT,
    scope=Scope(Strength.ALL_N, "every n ≥ 1 (patterns), cross-checked n ≤ 4", "symbolic 0 < α ≤ β < 1", TWO_SOLVERS),
)
def smt_t_alpha_beta_nonnegative() -> Outcome:
    """For every n and 0 < α ≤ β < 1, T_{α,β} is stochastic: its entries are GS's conditions at α on
    the columns of T_β over positive scales, nonnegative in each of four position patterns
    (mechlib.proofs.shared.parametric.t_alpha_beta_patterns), and its rows sum to 1 (T_β·1 = 1 and T_α⁻¹·1 = 1).
    Cross-checks: for n ≤ 4 no entry of the symbolic matrix is negative; the negative control
    (β < α) must find one."""
    from mechlib.proofs.gs.theorem_2 import inverse_identities
    from mechlib.proofs.shared.parametric import t_alpha_beta_patterns

    closed_form = inverse_identities()  # the patterns read T_α⁻¹ in GS's closed form: it must be the inverse
    if not all(closed_form.values()):
        failed = [k for k, ok in closed_form.items() if not ok]
        return Outcome(Verdict.REFUTED, {"T·T⁻¹ = I": closed_form}, f"the closed-form T⁻¹ is not T's inverse: {failed}")
    parts = {f"pattern: {k}": v for k, v in t_alpha_beta_patterns().items()}
    parts |= {f"n={n}": run(negative_entry_query(t_alpha_beta_symbolic(n), ordered=True)) for n in (1, 2, 3, 4)}
    outcome = proved_if_unsat(parts)
    answer, ev = run(negative_entry_query(t_alpha_beta_symbolic(2), ordered=False))
    if answer != z3.sat:
        return Outcome(Verdict.UNKNOWN, outcome.evidence, "negative control (β < α) found no negative entry")
    evidence = {**outcome.evidence, "negative control β < α": ev, "facts used": "T_β·1 = 1; T_α⁻¹·1 = 1"}
    return Outcome(outcome.verdict, evidence, outcome.reason)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _swapped_t_alpha_beta(real: Any) -> Any:
    def t_alpha_beta(n: int) -> Any:
        from mechlib.proofs.gs.lemma_3 import BETA
        from mechlib.proofs.shared.symbolic import ALPHA

        return real(n).subs({ALPHA: BETA, BETA: ALPHA}, simultaneous=True)

    return t_alpha_beta


register("T_{α,β} with α and β swapped", "wrong α", ("GS-L3",),
         module_constant(__name__, "t_alpha_beta_symbolic", _swapped_t_alpha_beta))  # fmt: skip
