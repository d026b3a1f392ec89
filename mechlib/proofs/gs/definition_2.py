"""GS-D2 (GS Definition 2): DP for count queries as 2-term column conditions.

Every check part of this claim is here (``mechlib verify --only GS-D2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import exponential, randomized_response
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import dp_level
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, check, decide, measured, with_scope
from mechlib.proofs.shared.printed import GRS_FIGURE_5A, GS_APPENDIX_B
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

#: GS Definition 2's two-term conditions on neighbouring entries u (count i), v (count i+1).
TWO_TERM = ("αu ≤ v and αv ≤ u", lambda a, u, v: a * u <= v and a * v <= u)


@check("GS-D2", kind="EXACT")
def exact_two_term_conditions() -> Outcome:
    """On instances: dp_level (ratio definition) ≥ α ⇔ every 2-term condition holds exactly."""
    failures: list[dict[str, Any]] = []
    one_sided = Mechanism([[1, 0], [Fraction(1, 2), Fraction(1, 2)]])  # αu ≤ v holds, αv ≤ u does not
    instances = {
        "GS Appendix B's matrix": GS_APPENDIX_B,
        "GRS Figure 5(a)": GRS_FIGURE_5A,
        "randomized response": randomized_response(Fraction(1, 3), 4),
        "exponential": exponential(Fraction(1, 2), 4),
        "one-sided 2×2": one_sided,
    }
    record = Record()
    for name, x in instances.items():
        for alpha in (Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3)):
            linear = all(
                TWO_TERM[1](alpha, x.rows[i][j], x.rows[i + 1][j]) for i in range(x.n) for j in range(len(x.outputs))
            )
            if linear != (dp_level(x).alpha >= alpha):
                failures.append({"mechanism": x.to_strings(), "alpha": format_fraction(alpha)})
            record.ran(x.n, alpha, name)
    outcome = decide(failures, {"instances": len(instances), "alphas": ["1/4", "1/3", "1/2", "2/3"]})
    return record.outcome(outcome, "exact rationals: the two-term conditions against the DP level (ratio definition)")


@check("GS-D2", kind=SMT)
def smt_dp_as_two_term_conditions() -> Outcome:
    """For u, v ≥ 0 and α ∈ (0,1]: the ratio definition (u = v = 0, or both positive with
    α ≤ u/v ≤ 1/α; GRS §2.1 reads 0/0 as 1) ⇔ GS's linear conditions αu ≤ v and αv ≤ u."""
    u, v, a = z3.Reals("u v alpha")
    ratio = z3.Or(z3.And(u == 0, v == 0), z3.And(u > 0, v > 0, u / v >= a, u / v <= 1 / a))
    solver = smt_query("QF_NRA")
    solver.add(u >= 0, v >= 0, a > 0, a <= 1)
    solver.add(ratio != z3.And(a * u <= v, a * v <= u))
    scope = measured(TWO_SOLVERS, n="every n (one pair of entries u, v ≥ 0, symbolic)", alphas="symbolic, 0 < α ≤ 1",
                     every_object=True)  # fmt: skip
    return with_scope(proved_if_unsat({"pair of entries": run(solver)}), scope)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _one_direction(a: Any, u: Any, v: Any) -> bool:
    return bool(a * u <= v)


register("GS's two-term conditions, one direction only", "flipped inequality", ("GS-D2",),
         module_constant(__name__, "TWO_TERM", lambda real: (real[0], _one_direction)))  # fmt: skip
