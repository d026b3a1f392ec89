"""GRS-P6.1 (GRS Proposition 6.1): Averaging a DP mechanism over databases with the same count
gives an oblivious DP mechanism, no worse in the worst case.

Every check part of this claim is here (``mechlib verify --only GRS-P6.1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.oblivious import oblivious_suffices


@check("GRS-P6.1", kind=EXACT)
def exact_averaging_over_databases() -> Outcome:
    return oblivious_suffices()
