"""GRS-L5.12 (GRS Lemma 5.12): Uniform prior, loss 0 if i=j else 1+γ|j−i|: T is the unique optimal
direct mechanism.

Every check part of this claim is here (``mechlib verify --only GRS-L5.12``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.post_processing import expected_loss
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import EXACT, SMT
from mechlib.proofs.registry import Outcome, Record, check, decide, measured, with_scope
from mechlib.proofs.shared.encodings import HALF, THIRD, lemma_5_12_user, lemma_5_12_user_small_gamma, unique_optimum
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat


@check("GRS-L5.12", kind=SMT)
def smt_t_is_the_unique_optimum() -> Outcome:
    gamma = Fraction(1, 100)
    alphas, sizes = (Fraction(1, 2), Fraction(1, 3), Fraction(4, 5)), range(1, 7)  # n = 8: 1.5 s to 13 s per α
    outcome = proved_if_unsat(
        {
            f"n={n}, α={format_fraction(a)}, γ=1/100": unique_optimum(
                truncated_geometric(a, n), lemma_5_12_user(n, gamma), a
            )
            for a in alphas
            for n in sizes
        }
    )
    return with_scope(outcome, measured(TWO_SOLVERS + ", γ = 1/100", n=sizes, alphas=alphas, every_object=True))


@check("GRS-L5.12", kind=EXACT)
def exact_t_is_the_certified_optimum() -> Outcome:
    """The exactly certified optimal mechanism of Lemma 5.12's user is T itself (entrywise), with
    T's loss as the certified value."""
    failures: list[dict[str, Any]] = []
    record = Record()
    for alpha in (HALF, THIRD, Fraction(4, 5)):
        for n in range(1, 7):
            user, t = lemma_5_12_user_small_gamma(n), truncated_geometric(alpha, n)
            best = optimal_bayes_mechanism(user, alpha)
            if best.mechanism.rows != t.rows or best.value != expected_loss(t, user):
                failures.append({"n": n, "alpha": format_fraction(alpha), "optimum": format_fraction(best.value)})
            record.ran(n, alpha)
    outcome = decide(failures, {"n": "1..6", "alphas": ["1/2", "1/3", "4/5"]})
    return record.outcome(outcome, "exact certified LP optimum of Lemma 5.12's user (γ = 1/100)", every_object=True)
