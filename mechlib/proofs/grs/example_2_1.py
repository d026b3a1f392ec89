"""GRS-E2.1 (GRS Example 2.1): The two-sided geometric noise (1−α)/(1+α)·α^|δ| sums to 1 and the
α-geometric mechanism is α-DP.

Every check part of this claim is here (``mechlib verify --only GRS-E2.1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
import z3

from mechlib.proofs.catalogue import SMT, SYM, Strength
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Scope, check, decide
from mechlib.proofs.shared.symbolic import ALPHA
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


@check(
    "GRS-E2.1",
    kind=SMT,
    scope=Scope(
        Strength.ALL_N,
        "every n and every output r ∈ ℤ (patterns); windows −n..2n, n ∈ {1, 3, 10}, as cross-checks",
        "symbolic, 0 < α < 1",
        TWO_SOLVERS,
        covers="is α-DP",
    ),
)
def smt_geometric_is_dp() -> Outcome:
    """The α-geometric mechanism on ℤ is α-DP: the entries of rows i, i+1 in column r ∈ ℤ are
    c·α^|i−r| and c·α^|i+1−r| with c = (1−α)/(1+α) > 0 and |i+1−r| − |i−r| = ±1 for all integers —
    the same two patterns as T's (mechlib.proofs.shared.parametric) — cross-checked on lumped windows."""
    from mechlib.proofs.grs.example_2_2 import (
        column_factors_positive,
        exponent_lemma,
        neighbouring_entries_are_alpha_dp,
    )

    parts = {
        "integer lemma over ℤ": exponent_lemma(nonnegative=False),
        "c = (1−α)/(1+α) > 0": column_factors_positive(),
        "pattern r ≤ i": neighbouring_entries_are_alpha_dp(True),
        "pattern r ≥ i+1": neighbouring_entries_are_alpha_dp(False),
    }
    parts |= {f"n={n}, window -{n}..{2 * n}": geometric_window_is_dp(n, -n, 2 * n) for n in (1, 3, 10)}
    return proved_if_unsat(parts)


#: GRS Example 2.1's normalising constant of the two-sided geometric noise, as data.
NORMALISER = ("(1−α)/(1+α)", lambda a: (1 - a) / (1 + a))


@check(
    "GRS-E2.1",
    kind=SYM,
    scope=Scope(Strength.ALL_N, "any (noise on ℤ)", "symbolic, |α| < 1", "sympy series", covers="sums to 1"),
)
def sym_geometric_noise_sums_to_one() -> Outcome:
    """Σ_{δ∈ℤ} c·α^|δ| = 1 for c = NORMALISER = (1−α)/(1+α), symbolic α (|α| < 1)."""
    d = sp.Symbol("d", integer=True, positive=True)
    tail = sp.summation(ALPHA**d, (d, 1, sp.oo))
    if isinstance(tail, sp.Piecewise):  # α/(1−α) under |α| < 1
        tail = tail.args[0][0]
    total = sp.simplify(NORMALISER[1](ALPHA) * (1 + 2 * tail))
    return decide(
        [] if total == 1 else [{"sum": str(total)}], {"sum over ℤ": str(total), "tail Σ_{d≥1} α^d": str(tail)}
    )


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("the geometric noise's normaliser → 1 − α", "changed statement", ("GRS-E2.1",),
         module_constant(__name__, "NORMALISER", lambda real: (real[0], lambda a: 1 - a)))  # fmt: skip
