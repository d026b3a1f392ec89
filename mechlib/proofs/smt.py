"""How an SMT part decides: UNSAT of a negated goal, shown non-vacuous and confirmed by two solvers.

A query is a z3 solver made by :func:`smt_query` (which records its SMT-LIB logic) whose **last
assertion is the negated goal** and whose earlier assertions are the hypotheses. :func:`run`

1. asks z3 (per-query resource limit ``Z3_RLIMIT``);
2. on UNSAT, checks the hypotheses alone are satisfiable (the goal dropped) and re-evaluates each
   hypothesis in z3's model with exact (rational or algebraic) arithmetic — unsatisfiable
   hypotheses would prove anything, so the answer becomes unknown "vacuous";
3. exports the same query as SMT-LIB 2 and asks cvc5. An UNSAT counts only if cvc5 also
   answers unsat: a different answer, cvc5 running out of resources or an error makes the query
   unknown (never a pass). A SAT answer stands only if z3's model satisfies every assertion when evaluated exactly
   (:func:`model_satisfies`) — or, where quantifiers keep it from evaluating, if the caller's
   exact re-check of the model holds. A model re-checked exactly is a certificate decided apart
   from both solvers, so cvc5 is not asked then (its answer could add nothing: an exact witness
   stands whatever a solver says); a model that nothing re-checks stands only if cvc5, asked with
   the smaller limit ``CVC5_SAT_CONFIRM_RLIMIT``, answers sat too. The solvers' times and resource
   use are recorded.

**Limits are resources, not seconds** (z3's ``rlimit``, cvc5's ``rlimit-per``): a solver's
resource count depends only on the query and the solver's version, never on how busy the machine
is, so the same query gets the same answer on a quiet laptop and on a loaded CI runner. A
wall-clock limit (``SAFETY_SECONDS``) remains only as a safety net far above what any query needs
within its resource limit; if it fires, the answer is unknown with the reason "machine too slow"
— a statement about the machine, never a different verdict about the mathematics.

The answer returned is the agreed one; evidence records each solver's answer and the vacuity
check, so a reader can see what was shown by whom.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import z3

from mechlib.proofs.registry import Outcome, Verdict

#: Per-query resource limits (deterministic): z3's ``rlimit`` and cvc5's ``rlimit-per``. Calibrated
#: on every query of ``mechlib verify``, whose use is recorded in ``reports/verify.json`` (``rlimit``
#: under each query's z3 and cvc5 evidence): the largest, SY-T2's K_Ω ⊆ PK at N = 3, takes z3 about
#: 2·10⁸ units (12 s) and cvc5 3·10⁵; z3's limit is ≈ 10× that (its parameter is a 32-bit count).
Z3_RLIMIT = 2_000_000_000
CVC5_RLIMIT = 50_000_000
#: cvc5's limit when it is asked to confirm a SAT answer (a counterexample is confirmed by
#: re-checking its model exactly, which the callers that rely on it do; cvc5 is a second look):
#: measured, the dominance queries' negative controls confirm within 350k units (3.6 s) or not in
#: 1M (15 s: cvc5's quantifier instantiation does not finish), so 500k keeps the look to seconds.
CVC5_SAT_CONFIRM_RLIMIT = 500_000
#: The wall-clock safety net of each solver call: never reached within the resource limits on a
#: working machine; reaching it says "machine too slow", not anything about the query.
SAFETY_SECONDS = 900
#: The reason given when the safety net fires.
MACHINE_TOO_SLOW = "machine too slow: the wall-clock safety net"

_LOGIC = "_mechlib_logic"
#: Why cvc5 is not asked about a SAT answer whose model was re-checked exactly.
EXACT_WITNESS = "z3's model was re-checked in exact arithmetic: the witness decides, not a second solver"

#: The method of an SMT part, as its scope states it.
TWO_SOLVERS = "z3 + cvc5: UNSAT of the negation"


def smt_query(logic: str) -> z3.Solver:
    """A z3 solver for ``logic`` (SMT-LIB name); "LRA" (quantified linear real arithmetic) uses
    z3's ``qsat`` tactic. The logic is recorded for the cvc5 export."""
    made = z3.Tactic("qsat").solver() if logic == "LRA" else z3.SolverFor(logic)
    setattr(made, _LOGIC, logic)
    return made


def run(
    query: z3.Solver, recheck: Callable[[z3.ModelRef], str | None] | None = None
) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """Decide ``query`` (see the module docstring); the answer is ``unknown`` unless both solvers
    agree and, for UNSAT, the hypotheses are shown satisfiable. ``recheck``: the caller's exact
    re-check of a SAT model (None if it holds, else what fails), used where quantifiers keep the
    model from being evaluated."""
    logic = getattr(query, _LOGIC, None)
    if logic is None:
        raise ValueError(
            "SMT queries are built with mechlib.proofs.smt.smt_query(logic), which records the logic for cvc5"
        )
    answer, z3_evidence = _z3_check(query)
    evidence: dict[str, Any] = {"answer": str(answer), "z3": z3_evidence}
    if answer == z3.unknown:
        evidence["reason_unknown"] = f"z3: {z3_evidence['reason']}"
        return answer, evidence
    if answer == z3.sat:
        # z3's model stays readable by the caller: exporting the query does not touch the solver
        rechecked = model_satisfies(query)
        if rechecked is None and recheck is not None:
            problem = recheck(query.model())
            rechecked = problem is None
            evidence["caller_recheck"] = problem or "the counterexample holds, re-checked exactly"
        evidence["model_rechecked"] = rechecked
        doubt = None
        if rechecked is False:
            doubt = "z3's model does not satisfy the query when evaluated exactly"
        elif rechecked is None:  # no exact re-check: cvc5 must find the query satisfiable too
            second = _cvc5(query.to_smt2(), logic, rlimit=CVC5_SAT_CONFIRM_RLIMIT)
            evidence["cvc5"] = second
            if second["answer"] != "sat":
                doubt = f"z3's model could not be evaluated (quantifiers) and cvc5 answered {second['answer']}"
        else:
            evidence["cvc5"] = {"answer": "not asked", "reason": EXACT_WITNESS}
        if doubt:
            evidence["answer"] = "unknown"
            evidence["reason_unknown"] = doubt
            return z3.unknown, evidence
        return answer, evidence
    second = _cvc5(query.to_smt2(), logic)
    evidence["cvc5"] = second
    if second["answer"] != "unsat":
        evidence["answer"] = "unknown"
        evidence["reason_unknown"] = f"z3 answered unsat, cvc5 {second['answer']} ({second.get('reason', '')})"
        return z3.unknown, evidence
    vacuity = hypotheses_satisfiable(query, logic)
    evidence["vacuity"] = vacuity
    if not vacuity["satisfiable"]:
        evidence["answer"] = "unknown"
        evidence["reason_unknown"] = f"vacuous: the hypotheses alone are {vacuity['answer']}"
        return z3.unknown, evidence
    return answer, evidence


def hypotheses_satisfiable(query: z3.Solver, logic: str) -> dict[str, Any]:
    """Every assertion but the last (the negated goal), asserted alone: SAT with a model in which
    each hypothesis evaluates to true exactly, or the reason it is not."""
    hypotheses = list(query.assertions())[:-1]
    if not hypotheses:
        return {"satisfiable": True, "answer": "sat", "hypotheses": 0, "note": "no hypotheses (a ground query)"}
    check = smt_query(logic)
    check.add(*hypotheses)
    answer, z3_evidence = _z3_check(check)
    result: dict[str, Any] = {"hypotheses": len(hypotheses), **z3_evidence}
    if answer != z3.sat:
        return {**result, "satisfiable": False}
    model = check.model()
    holds = all(z3.is_true(model.eval(h, model_completion=True)) for h in hypotheses)
    return {**result, "satisfiable": holds, "model_rechecked": holds}


def _z3_check(query: z3.Solver) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """z3's answer under the resource limit (and the safety net), with the resources it used:
    z3's ``rlimit count`` is cumulative over the process, so the query's own use is the
    difference, and the limit is relative to the count at the call."""
    query.set("rlimit", Z3_RLIMIT)
    query.set("timeout", SAFETY_SECONDS * 1000)
    before = query.statistics().get_key_value("rlimit count")
    start = time.perf_counter()
    answer = query.check()
    seconds = _since(start)  # the safety net fired only if the clock reached it (z3 says "canceled" for both)
    stats = query.statistics()
    found: dict[str, Any] = {k: stats.get_key_value(k) for k in stats if k in ("conflicts", "decisions")}
    found.update(
        answer=str(answer), seconds=seconds, rlimit=stats.get_key_value("rlimit count") - before, rlimit_max=Z3_RLIMIT
    )
    if answer == z3.unknown:
        reason = query.reason_unknown()
        timed_out = reason in ("timeout", "canceled") and seconds >= SAFETY_SECONDS * 0.99
        found["reason"] = f"{MACHINE_TOO_SLOW} of {SAFETY_SECONDS} s fired" if timed_out else f"{reason} (rlimit)"
    return answer, found


def _cvc5(smt2: str, logic: str, rlimit: int = CVC5_RLIMIT) -> dict[str, Any]:
    """cvc5's answer ("sat" / "unsat" / "unknown") to a z3-exported SMT-LIB 2 query, within
    ``rlimit`` resource units (and the wall-clock safety net), with the units it used."""
    import cvc5

    start = time.perf_counter()
    try:
        tm = cvc5.TermManager()
        slv = cvc5.Solver(tm)
        slv.setOption("rlimit-per", str(rlimit))
        slv.setOption("tlimit-per", str(SAFETY_SECONDS * 1000))
        if logic == "LRA":
            slv.setOption("cegqi-all", "true")  # quantifier instantiation complete for linear reals
        symbols = cvc5.SymbolManager(tm)
        parser = cvc5.InputParser(slv, symbols)
        body = _without_unary_sums(smt2.replace("(check-sat)", ""))
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, f"(set-logic {logic})\n{body}", "mechlib-query")
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            command.invoke(slv, symbols)
        result = slv.checkSat()
    except Exception as err:  # a cvc5 failure is recorded and makes the query unknown, never a pass
        return {"answer": "error", "reason": f"{type(err).__name__}: {err}", "seconds": _since(start)}
    answer = "unsat" if result.isUnsat() else "sat" if result.isSat() else "unknown"
    used = slv.getStatistics().get(True, True).get("resource::resourceUnitsUsed", {}).get("value")
    found: dict[str, Any] = {"answer": answer, "seconds": _since(start), "rlimit": used, "rlimit_max": rlimit}
    if answer == "unknown":
        explanation = result.getUnknownExplanation()
        timed_out = explanation == cvc5.UnknownExplanation.TIMEOUT
        found["reason"] = f"{MACHINE_TOO_SLOW} of {SAFETY_SECONDS} s fired" if timed_out else str(explanation)
    return found


def _without_unary_sums(smt2: str) -> str:
    """z3 prints a one-term ``z3.Sum`` as ``(+ x)``, which SMT-LIB 2.6 (and cvc5) reject; write
    ``x`` instead. A token-level rewrite (symbols in ``|…|`` kept whole), nothing else changes."""
    uncommented = re.sub(r";[^\n]*", "", smt2)
    tokens = re.findall(r"\|[^|]*\||\(|\)|[^\s()|]+", uncommented)
    stack: list[list[str | list[Any]]] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done[1] if len(done) == 2 and done[0] in ("+", "*") else done)
        else:
            stack[-1].append(token)

    def show(node: str | list[Any]) -> str:
        return node if isinstance(node, str) else "(" + " ".join(show(n) for n in node) + ")"

    return "\n".join(show(node) for node in stack[0])


def model_satisfies(query: z3.Solver) -> bool | None:
    """Whether z3's model makes every assertion true, evaluated exactly (rationals and algebraic
    numbers): True, False, or None when some assertion does not evaluate to a constant (a
    quantified formula), in which case the second solver must confirm the SAT answer."""
    model = query.model()
    values = [model.eval(a, model_completion=True) for a in query.assertions()]
    if any(z3.is_false(v) for v in values):
        return False
    return True if all(z3.is_true(v) for v in values) else None


def _since(start: float) -> float:
    return round(time.perf_counter() - start, 4)


def proved_if_unsat(parts: dict[str, tuple[z3.CheckSatResult, dict[str, Any]]]) -> Outcome:
    """PROVED if every query is UNSAT (both solvers, non-vacuous); UNKNOWN (with reasons) if any
    is unknown; REFUTED if a query is SAT."""
    evidence = {name: ev for name, (_, ev) in parts.items()}
    unknown = [name for name, (r, _) in parts.items() if r == z3.unknown]
    if unknown:
        reasons = "; ".join(f"{n}: {parts[n][1].get('reason_unknown')}" for n in unknown)
        return Outcome(Verdict.UNKNOWN, evidence, f"unknown for {reasons}")
    sat = [name for name, (r, _) in parts.items() if r == z3.sat]
    if sat:
        return Outcome(Verdict.REFUTED, evidence, f"SAT (counterexample) for {sat}")
    return Outcome(Verdict.PROVED, evidence)
