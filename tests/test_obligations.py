"""The ALL-n proof machinery (mechlib.proofs.shared.obligations): obligations derived from one
definition, a case split whose cover is itself proved, induction with a mandatory base and step."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
import z3

from mechlib.proofs.registry import Verdict
from mechlib.proofs.shared import obligations as ob
from mechlib.proofs.shared.definitions import I, N, R, t_entry

X = z3.Int("x")
SMALL = z3.And(X >= -3, X <= 3)


def _positive(values: Mapping[str, Any]) -> Any:
    return values["x"] > 0


def test_a_true_statement_is_proved_with_its_split_covered() -> None:
    found = ob.prove_for_every_index("α^|x| > 0", SMALL, {"x": ob.power_of_distance("alpha", X)},
                                     [ob.Region("all", True, _positive)])  # fmt: skip
    assert ob.outcome([found]).verdict == Verdict.PROVED
    assert found.cases == 2 and any("cover" in k for k in found.queries)


def test_a_false_goal_leaves_the_part_unknown_never_proved() -> None:
    found = ob.prove_for_every_index("α^|x| < α", SMALL, {"x": ob.power_of_distance("alpha", X)},
                                     [ob.Region("all", True, lambda v: v["x"] < ob.ALPHA)])  # fmt: skip
    outcome = ob.outcome([found])
    assert outcome.verdict == Verdict.UNKNOWN and "SAT" in (outcome.reason or "")


def test_a_dropped_case_fails_the_cover_even_under_overlapping_regions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ob, "CASE_FILTER", lambda cases: cases if len(cases) > 1 else [])
    regions = [ob.Region("all", True, _positive), ob.Region("x ≥ 0", X >= 0, _positive)]
    found = ob.prove_for_every_index("overlap", SMALL, {"x": ob.power_of_distance("alpha", X)}, regions)
    assert ob.outcome([found]).verdict == Verdict.UNKNOWN
    assert any("x ≥ 0: its cases cover it" in p for p in found.problems)


def test_regions_that_miss_part_of_the_domain_fail() -> None:
    found = ob.prove_for_every_index("gap", SMALL, {"x": ob.power_of_distance("alpha", X)},
                                     [ob.Region("x > 0", X > 0, _positive)])  # fmt: skip
    assert ob.outcome([found]).verdict == Verdict.UNKNOWN


def test_an_induction_refuses_to_run_without_a_base_or_a_step() -> None:
    def step(start: int) -> ob.Obligations:
        return ob.Obligations("step")

    with pytest.raises(TypeError, match="needs both a base and a step"):
        ob.Induction("statement", 1, None, step)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="discharged no obligation"):
        ob.Induction("statement", 1, step, step).prove()


def test_the_definition_of_t_evaluates_to_the_library_t() -> None:
    from mechlib import truncated_geometric

    t = truncated_geometric(Fraction(1, 3), 3)
    term = t_entry(I, R, N)
    assert all(ob.evaluate(term, {I: i, R: r, N: 3}, {"alpha": Fraction(1, 3)}) == t.rows[i][r]
               for i in range(4) for r in range(4))  # fmt: skip


def test_to_z3_keeps_the_expression_exact() -> None:
    import sympy as sp

    a = sp.Symbol("alpha", positive=True)
    solver = z3.Solver()
    solver.add(z3.Q(1, 3) == ob.ALPHA, ob.to_z3((1 - a**2) / (1 + a)) != z3.Q(2, 3))
    assert solver.check() == z3.unsat
