"""GS-AA (GS Appendix A): Oblivious mechanisms are w.l.o.g. for minimax users.

Every check part of this claim is here (``mechlib verify --only GS-AA``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.oblivious import oblivious_suffices


@check("GS-AA", kind=EXACT)
def exact_oblivious_wlog_for_minimax() -> Outcome:
    return oblivious_suffices()
