"""GS-Tab1 (GS Table 1): n=3, α=1/4, |i−r|, S=N: the optimal mechanism factors as G then a
randomized remap.

Every check part of this claim is here (``mechlib verify --only GS-Tab1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.stochastic import compose
from mechlib.core.users import MinimaxUser, absolute_loss
from mechlib.optimality.derivability import derivation_witness
from mechlib.optimality.minimax import optimal_interaction, optimal_minimax_mechanism
from mechlib.proofs.registry import Outcome, Record, check, decide


@check("GS-Tab1", kind="EXACT")
def check_gs_table_1() -> Outcome:
    user = MinimaxUser(range(4), absolute_loss(3))
    best = optimal_minimax_mechanism(user, Fraction(1, 4))
    t = truncated_geometric(Fraction(1, 4), 3)
    interaction = optimal_interaction(t, user)
    derivation = derivation_witness(best.mechanism, Fraction(1, 4))
    failures = []
    if derivation.remap is None or derivation.remap.is_deterministic():
        failures.append({"derivation": "not a randomized remap of G"})
    if interaction.value != best.value or compose(interaction.remap, t) != best.mechanism:
        failures.append({"interaction": format_fraction(interaction.value), "optimum": format_fraction(best.value)})
    evidence = {
        "optimum": format_fraction(best.value),
        "mechanism": best.mechanism.to_strings(),
        "remap_of_G": None if derivation.remap is None else derivation.remap.to_strings(),
        "certificate_weights": [format_fraction(w) for w in best.weights],
    }
    record = Record.one(user.n, Fraction(1, 4), "Table 1's minimax user (S = {0..n}, absolute loss)")
    method = "exact rationals: the certified minimax optimum is a randomized remap of G, G's optimal interaction"
    return record.outcome(decide(failures, evidence), method)
