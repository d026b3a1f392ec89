"""GRS-E2.1 (GRS Example 2.1): The two-sided geometric noise (1−α)/(1+α)·α^|δ| sums to 1 and the
α-geometric mechanism is α-DP.

Every check part of this claim is here (``mechlib verify --only GRS-E2.1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import SMT, SYM
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, decide, measured
from mechlib.proofs.shared.definitions import I, R, agreement, geometric_entry
from mechlib.proofs.shared.obligations import Region, mul, power_of_distance, prove_for_every_index
from mechlib.proofs.shared.obligations import outcome as obligations_outcome
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query


def geometric_window_is_dp(n: int, lo: int, hi: int, claimed: Any = None) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ α ∈ (0,1) breaking α-DP of the α-geometric mechanism on outputs lo..hi (lumped tails)?
    Entries are scaled by (1+α) > 0: α^|i−r| at the window's ends, α^|i−r|(1−α) inside.
    ``claimed(α)`` replaces the level checked (negative controls: a level it does not have)."""
    a = z3.Real("alpha")
    level = a if claimed is None else claimed(a)
    solver = smt_query("QF_NRA")
    solver.add(a > 0, a < 1)

    def entry(i: int, r: int) -> z3.ArithRef:
        return a ** abs(i - r) * (1 if r in (lo, hi) else 1 - a)

    violations = []
    for i in range(n):
        for r in range(lo, hi + 1):
            u, v = entry(i, r), entry(i + 1, r)
            violations += [level * u > v, level * v > u]
    solver.add(z3.Or(violations))
    return run(solver)


@check("GRS-E2.1", kind=SMT)
def smt_geometric_is_dp() -> Outcome:
    """The α-geometric mechanism on ℤ is α-DP: from its one definition
    (``definitions.geometric_entry``), α·x[i][r] ≤ x[i+1][r] and α·x[i+1][r] ≤ x[i][r] for every
    pair of integers (i, r) — the case split on the signs of i−r and i+1−r derived and proved
    exhaustive over ℤ — cross-checked on lumped windows −n..2n, n ∈ {1, 3, 10}."""
    from mechlib.proofs.grs.example_2_2 import _alpha_dp

    every = prove_for_every_index(
        "the geometric mechanism is α-DP", z3.BoolVal(True),
        {"u": geometric_entry(I, R), "v": geometric_entry(I + 1, R)}, [Region("every i, r ∈ ℤ", True, _alpha_dp)],
    )  # fmt: skip
    windows = {f"n={n}, window -{n}..{2 * n}": geometric_window_is_dp(n, -n, 2 * n) for n in (1, 3, 10)}
    checked = proved_if_unsat(windows)
    agree = agreement(("geometric on ℤ",))
    outcome = obligations_outcome([every], {"windows": checked.evidence, "the definition is the library's": agree})
    if checked.verdict != Verdict.PROVED and outcome.verdict == Verdict.PROVED:
        outcome = Outcome(checked.verdict, outcome.evidence, checked.reason)
    elif not all(agree.values()) and outcome.verdict == Verdict.PROVED:
        outcome = Outcome(Verdict.UNKNOWN, outcome.evidence, "the definition is not the library's geometric mechanism")
    scope = measured(
        TWO_SOLVERS + "; obligations derived from the mechanism's definition",
        n="every output r ∈ ℤ and input i ∈ ℤ (no n)" if outcome.verdict == Verdict.PROVED else [],
        alphas="symbolic, 0 < α < 1",
        every_object=True,
        covers="is α-DP",
    )
    return replace(outcome, scopes=(scope,))


#: GRS Example 2.1's normalising constant of the two-sided geometric noise, as data.
NORMALISER = ("(1−α)/(1+α)", lambda a: (1 - a) / (1 + a))


@check("GRS-E2.1", kind=SYM)
def sym_geometric_noise_sums_to_one() -> Outcome:
    """Σ_{δ∈ℤ} c·α^|δ| = 1 for c = NORMALISER = (1−α)/(1+α), symbolic α ∈ (0, 1), written
    α = 1/(1+t) with t > 0 so that sympy's infinite sum needs no convergence branch."""
    d = sp.Symbol("d", integer=True, positive=True)
    t = sp.Symbol("t", positive=True)
    alpha = 1 / (1 + t)
    tail = sp.summation(alpha**d, (d, 1, sp.oo))
    total = sp.simplify(NORMALISER[1](alpha) * (1 + 2 * tail))
    outcome = decide(
        [] if total == 1 else [{"sum": str(total)}], {"sum over ℤ": str(total), "tail Σ_{d≥1} α^d": str(tail)}
    )
    scope = measured("sympy: an infinite sum, α = 1/(1+t), t > 0", n="any (noise on ℤ)", alphas="symbolic, 0 < α < 1",
                     every_object=outcome.verdict == Verdict.PROVED, covers="sums to 1")  # fmt: skip
    return replace(outcome, scopes=(scope,))


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("the geometric mechanism on ℤ defined with α^(2|i−r|)", "pattern not from the definition", ("GRS-E2.1",),
         module_constant("mechlib.proofs.shared.definitions", "geometric_entry",
                         lambda real: lambda i, r: mul(real(i, r), power_of_distance("alpha", i - r))))  # fmt: skip
register("the geometric noise's normaliser → 1 − α", "changed statement", ("GRS-E2.1",),
         module_constant(__name__, "NORMALISER", lambda real: (real[0], lambda a: 1 - a)))  # fmt: skip
