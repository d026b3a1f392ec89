"""GS-T1b (GS Theorem 1(b)): Every minimax user gets from G, via its optimal randomized remap, the
loss of its optimal mechanism.

Every check part of this claim is here (``mechlib verify --only GS-T1b``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.exact import format_fraction
from mechlib.core.users import MinimaxUser, absolute_loss
from mechlib.optimality.minimax import derived_minimax_loss, optimal_minimax_mechanism
from mechlib.proofs.catalogue import FUZZ, SMT
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.encodings import dominance_proofs
from mechlib.strategies import alphas


@check("GS-T1b", kind="EXACT")
def check_minimax_instances() -> Outcome:
    failures: list[dict[str, Any]] = []
    cases = 0
    record = Record()
    for n in (1, 2, 3, 4):
        for alpha in (Fraction(1, 4), Fraction(1, 2), Fraction(4, 5)):
            for side in (range(n + 1), [0], [0, n], range(1, n + 1)):
                user = MinimaxUser(side, absolute_loss(n))
                best, derived = optimal_minimax_mechanism(user, alpha).value, derived_minimax_loss(user, alpha)
                cases += 1
                if best != derived:
                    failures.append(
                        {
                            "n": n,
                            "alpha": format_fraction(alpha),
                            "S": list(side),
                            "optimum": format_fraction(best),
                            "from_G": format_fraction(derived),
                        }
                    )
                record.ran(n, alpha, "a minimax user with the absolute loss")
    evidence = {"instances": cases, "loss": "|i−j|", "certified": "both sides by exact λ-certificates"}
    method = "exact rationals: the minimax optimum against G with its optimal remap, both by exact λ-certificates"
    return record.outcome(decide(failures, evidence), method)


@check("GS-T1b", kind=SMT)
def smt_minimax_users() -> Outcome:
    """Bounded: T dominates every α-DP mechanism in every error tail at every input (the
    ∀X∃Y query above), so for every side information S and legal loss the worst case over S
    with T and Y is no larger than with X — GS Theorem 1(b) for all minimax users at once."""
    outcome = dominance_proofs((Fraction(1, 2),))
    return replace(outcome, evidence={**outcome.evidence, "why": "tail dominance at every input covers every S"})


def minimax_from_g(case: tuple[Any, Fraction]) -> dict[str, Any] | None:
    """GS-T1b: G with the optimal randomized remap reaches the certified minimax optimum."""
    from mechlib.optimality.minimax import derived_minimax_loss, optimal_minimax_mechanism

    user, alpha = case
    best, mine = optimal_minimax_mechanism(user, alpha).value, derived_minimax_loss(user, alpha)
    return None if best == mine else {"optimum": best, "from_G": mine}


@check("GS-T1b", kind=FUZZ)
def fuzz_minimax() -> Outcome:
    from mechlib.strategies import minimax_users

    return fuzz("GS-T1b", st.tuples(minimax_users(max_n=4), alphas(max_denominator=9)), minimax_from_g, 25,
                drawn=user_first)  # fmt: skip
