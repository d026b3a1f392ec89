"""GS-AB (GS Appendix B): The matrix is 1/2-DP and not derivable from G_{3,1/2}: three-term value
−0.75/9.

Every check part of this claim is here (``mechlib verify --only GS-AB``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.privacy import dp_level
from mechlib.optimality.derivability import derivation_witness
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, perturbed, register
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.encodings import printed_matrix_outcome
from mechlib.proofs.shared.printed import GS_APPENDIX_B


@check("GS-AB", kind="EXACT")
def check_gs_appendix_b() -> Outcome:
    alpha = Fraction(1, 2)
    level = dp_level(GS_APPENDIX_B).alpha
    found = derivation_witness(GS_APPENDIX_B, alpha)
    failures: list[dict[str, Any]] = []
    if level != alpha:
        failures.append({"dp_level": format_fraction(level)})
    v = found.violation
    if v is None or (v.row, v.output, v.value) != (1, 1, Fraction(-3, 4) / 9):
        failures.append({"derivation": None if v is None else v.to_json()})
    evidence = {"dp_level": format_fraction(level), "violation": None if v is None else v.to_json()}
    record = Record.one(len(GS_APPENDIX_B.rows) - 1, alpha, "GS Appendix B's matrix")
    method = "exact rationals: its DP level, and the three-term violation of derivability from G"
    return record.outcome(decide(failures, evidence), method)


@check("GS-AB", kind=SMT)
def smt_gs_appendix_b() -> Outcome:
    return printed_matrix_outcome(GS_APPENDIX_B, Fraction(1, 2), "GS Appendix B's matrix")


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("GS App. B perturbed", "perturbed figure", ("GS-AB",),
         module_constant("mechlib.proofs.shared.printed", "GS_APPENDIX_B", perturbed))  # fmt: skip
