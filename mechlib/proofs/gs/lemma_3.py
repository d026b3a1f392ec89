"""GS-L3 (GS Lemma 3): For α ≤ β, T_{α,β} = G_α⁻¹G_β is stochastic.

Every check part of this claim is here (``mechlib verify --only GS-L3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import SMT, SYM
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, decide, measured, with_scope
from mechlib.proofs.shared.definitions import ALL_N, C, N, R, agreement, inverse_band, t_alpha_beta_entry
from mechlib.proofs.shared.obligations import ALPHA as A
from mechlib.proofs.shared.obligations import BETA as B
from mechlib.proofs.shared.obligations import Obligations, Region, prove_for_every_index
from mechlib.proofs.shared.obligations import outcome as obligations_outcome
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


@check("GS-L3", kind=SYM)
def sym_t_alpha_beta() -> Outcome:
    """Rows of T_{α,β} = G_α⁻¹G_β sum to 1, symbolically (sympy)."""
    failures: list[dict[str, Any]] = []
    for n in (1, 2, 3, 4):
        t = t_alpha_beta_symbolic(n)
        for i in range(n + 1):
            if sp.simplify(sum(t[i, :]) - 1) != 0:
                failures.append({"n": n, "row": i, "problem": "row sum"})
    outcome = decide(failures, {"n": "1..4", "alpha, beta": "symbolic"})
    return with_scope(outcome, measured("sympy: rows of T_{α,β} sum to 1", n=range(1, 5), alphas="symbolic α, β",
                                        every_object=True))  # fmt: skip


def t_alpha_beta_nonnegative() -> list[Obligations]:
    """Every entry of T_α⁻¹·T_β (``definitions.t_alpha_beta_entry``: T_α⁻¹'s band times T_β's
    column) is ≥ 0 for every n ≥ 1 and 0 < α ≤ β < 1 — the entry patterns derived from the two
    definitions, the case split proved exhaustive — and T_α⁻¹ vanishes off its band."""
    square = z3.And(N >= 1, R >= 0, R <= N, C >= 0, C <= N)
    ordered = {"alpha": z3.And(A > 0, A <= B), "beta": z3.And(B > 0, B < 1)}
    entries = prove_for_every_index(
        "T_α⁻¹·T_β ≥ 0", square, {"x": t_alpha_beta_entry(R, C, N)},
        [Region("every entry", True, lambda x: x["x"] >= 0)], bases=ordered,
    )  # fmt: skip
    return [inverse_band(), entries]


@check("GS-L3", kind=SMT)
def smt_t_alpha_beta_nonnegative() -> Outcome:
    """For every n and 0 < α ≤ β < 1, T_{α,β} is stochastic: its entries are nonnegative
    (:func:`t_alpha_beta_nonnegative`, derived from the definitions of T_α⁻¹ and T_β, which
    agree exactly with flint's T_α⁻¹·T_β for n ≤ 4), and its rows sum to 1 (T_β·1 = 1 and
    T_α⁻¹·1 = 1). Cross-checks: for n ≤ 4 no entry of the symbolic matrix is negative; the
    negative control (β < α) must find one."""
    agree = agreement(("T⁻¹", "T_α⁻¹·T_β"))
    small = {f"n={n}": run(negative_entry_query(t_alpha_beta_symbolic(n), ordered=True)) for n in (1, 2, 3, 4)}
    crossed = proved_if_unsat(small)
    outcome = obligations_outcome(
        t_alpha_beta_nonnegative(),
        {"cross-checks n ≤ 4": crossed.evidence, "the definitions agree with flint's T_α⁻¹·T_β": agree,
         "facts used": "T_β·1 = 1; T_α⁻¹·1 = 1; sums over k reduce to T_α⁻¹'s band"},
    )  # fmt: skip
    answer, ev = run(negative_entry_query(t_alpha_beta_symbolic(2), ordered=False))
    failed = [k for k, ok in agree.items() if not ok]
    if outcome.verdict == Verdict.PROVED and (crossed.verdict != Verdict.PROVED or failed):
        verdict = crossed.verdict if crossed.verdict != Verdict.PROVED else Verdict.UNKNOWN
        why = crossed.reason or f"the definitions are not the library's: {failed}"
        outcome = Outcome(verdict, outcome.evidence, why)
    if answer != z3.sat:
        outcome = Outcome(Verdict.UNKNOWN, outcome.evidence, "negative control (β < α) found no negative entry")
    scope = measured(
        "obligations derived from the definitions of T_α⁻¹ and T_β; " + TWO_SOLVERS,
        n=ALL_N if outcome.verdict == Verdict.PROVED else [],
        alphas="symbolic 0 < α ≤ β < 1",
        every_object=True,
    )
    return replace(replace(outcome, evidence={**outcome.evidence, "negative control β < α": ev}), scopes=(scope,))


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _swapped_t_alpha_beta(real: Any) -> Any:
    def t_alpha_beta(n: int) -> Any:
        from mechlib.proofs.gs.lemma_3 import BETA
        from mechlib.proofs.shared.symbolic import ALPHA

        return real(n).subs({ALPHA: BETA, BETA: ALPHA}, simultaneous=True)

    return t_alpha_beta


register("T_{α,β} with α and β swapped", "wrong α", ("GS-L3",),
         module_constant(__name__, "t_alpha_beta_symbolic", _swapped_t_alpha_beta))  # fmt: skip
