"""What an SMT part needs before it proves anything: non-vacuous hypotheses and cvc5's agreement."""

from __future__ import annotations

from typing import Any

import pytest
import z3

from mechlib.proofs import smt
from mechlib.proofs.registry import Verdict


def _query(hypotheses: list[Any], negated_goal: Any, logic: str = "QF_NRA") -> z3.Solver:
    query = smt.smt_query(logic)
    query.add(*hypotheses)
    query.add(negated_goal)
    return query


def test_a_proof_is_confirmed_by_both_solvers_and_is_not_vacuous() -> None:
    a = z3.Real("alpha")
    answer, evidence = smt.run(_query([a > 0, a < 1], a * a >= a))  # α² < α on (0, 1)
    assert answer == z3.unsat
    assert evidence["z3"]["answer"] == "unsat" and evidence["cvc5"]["answer"] == "unsat"
    assert evidence["vacuity"] == {**evidence["vacuity"], "satisfiable": True, "model_rechecked": True}


def test_unsatisfiable_hypotheses_make_the_part_unknown_not_proved() -> None:
    a = z3.Real("alpha")
    answer, evidence = smt.run(_query([a > 1, a < 0], a * a < 0))  # anything follows from a > 1 > 0 > a
    assert answer == z3.unknown and "vacuous" in evidence["reason_unknown"]
    assert smt.proved_if_unsat({"q": (answer, evidence)}).verdict == Verdict.UNKNOWN


def test_cvc5_disagreeing_or_failing_makes_the_part_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    a = z3.Real("alpha")
    for other in ({"answer": "sat"}, {"answer": "unknown", "reason": "TIMEOUT"}, {"answer": "error", "reason": "x"}):
        monkeypatch.setattr(smt, "_cvc5", lambda *_args, other=other, **_kw: {**other, "seconds": 0})
        answer, evidence = smt.run(_query([a > 0, a < 1], a * a >= a))
        assert answer == z3.unknown, other
        assert evidence["z3"]["answer"] == "unsat" and "cvc5" in evidence["reason_unknown"]


def test_an_unevaluable_sat_answer_contradicted_by_cvc5_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    a = z3.Real("alpha")
    monkeypatch.setattr(smt, "model_satisfies", lambda _query: None)
    monkeypatch.setattr(smt, "_cvc5", lambda *_args, **_kw: {"answer": "unsat", "seconds": 0})
    answer, _ = smt.run(_query([a > 0], a < 1))
    assert answer == z3.unknown


def test_an_exactly_rechecked_witness_does_not_wait_for_cvc5(monkeypatch: pytest.MonkeyPatch) -> None:
    """The witness, evaluated in exact arithmetic, decides: cvc5 is not asked (DRAT-style: the
    certificate is checked, not the solver trusted), and the evidence says why."""

    def asked(*_args: object, **_kw: object) -> dict[str, object]:
        raise AssertionError("cvc5 asked about a witness that was re-checked exactly")

    a = z3.Real("alpha")
    monkeypatch.setattr(smt, "_cvc5", asked)
    answer, evidence = smt.run(_query([a > 0], a < 1))
    assert answer == z3.sat and evidence["cvc5"] == {"answer": "not asked", "reason": smt.EXACT_WITNESS}


def test_a_sat_answer_stands_when_its_model_is_rechecked_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    a = z3.Real("alpha")
    monkeypatch.setattr(smt, "_cvc5", lambda *_args, **_kw: {"answer": "unknown", "reason": "TIMEOUT", "seconds": 0})
    answer, evidence = smt.run(_query([a > 0], a * a == 2))  # an algebraic model, √2
    assert answer == z3.sat and evidence["model_rechecked"] is True


def test_a_sat_answer_whose_model_fails_the_exact_recheck_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    a = z3.Real("alpha")
    monkeypatch.setattr(smt, "model_satisfies", lambda _query: False)
    answer, evidence = smt.run(_query([a > 0], a < 1))
    assert answer == z3.unknown and "evaluated exactly" in evidence["reason_unknown"]


def test_an_unevaluable_sat_model_needs_cvc5(monkeypatch: pytest.MonkeyPatch) -> None:
    a = z3.Real("alpha")
    monkeypatch.setattr(smt, "model_satisfies", lambda _query: None)
    monkeypatch.setattr(smt, "_cvc5", lambda *_args, **_kw: {"answer": "unknown", "reason": "TIMEOUT", "seconds": 0})
    answer, evidence = smt.run(_query([a > 0], a < 1))
    assert answer == z3.unknown and "quantifiers" in evidence["reason_unknown"]


def test_queries_must_record_their_logic() -> None:
    with pytest.raises(ValueError, match="smt_query"):
        smt.run(z3.Solver())


def test_unary_sums_are_rewritten_for_smt_lib() -> None:
    x = z3.Real("x")
    query = _query([z3.Sum([x]) >= 0], x < 0, "QF_LRA")
    text = smt._without_unary_sums(query.to_smt2())
    assert "(+ x)" not in text and "(>= x 0.0)" in text
    assert smt._cvc5(query.to_smt2(), "QF_LRA")["answer"] == "unsat"


def test_a_query_over_its_resource_limit_is_unknown_whatever_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits are resources, not seconds: a query needing more than ``Z3_RLIMIT`` is unknown with
    z3's resource reason (the same on any machine), and the resources used are recorded."""
    import z3

    a, b = z3.Reals("a b")
    query = smt.smt_query("QF_NRA")
    query.add(a * a > 2, a * b < -3, b * b < z3.Q(1, 100000))
    monkeypatch.setattr(smt, "Z3_RLIMIT", 50)
    answer, evidence = smt.run(query)
    assert answer == z3.unknown and "resource" in evidence["reason_unknown"]
    monkeypatch.setattr(smt, "Z3_RLIMIT", 10**8)
    answer, evidence = smt.run(query)
    assert answer == z3.sat and 0 < evidence["z3"]["rlimit"] <= 10**8


def test_cvc5_runs_under_a_resource_limit() -> None:
    import z3

    x, y = z3.Reals("x y")
    query = smt.smt_query("QF_NRA")
    query.add(x * x + y * y * x < -1, x > 0)
    assert "RESOURCEOUT" in smt._cvc5(query.to_smt2(), "QF_NRA", rlimit=1)["reason"]
    found = smt._cvc5(query.to_smt2(), "QF_NRA")
    assert found["answer"] == "unsat" and found["rlimit"] is not None
