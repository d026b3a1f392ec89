"""SY-P4 (SY Proposition 4): Categorical, N=2: K_Ω = P·K for any prior.

Every check part of this claim is here (``mechlib verify --only SY-P4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction

import z3

from mechlib.core.exact import format_fraction
from mechlib.infodesign.databases import DatabaseSpace
from mechlib.proofs.catalogue import EXACT, SMT
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide
from mechlib.proofs.shared.privacy_set_instances import ALPHAS, _name, _random_prior, lifts_fail, projection_escapes
from mechlib.proofs.shared.privacy_set_smt import (
    _equality,
    _witness,
    databases,
    projection_leaves_k_omega,
    recheck_witness,
)
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run

#: A non-anonymous prior on {0,1}³ (weights 5, 9, 3, 5, 2, 2, 6, 8 over 40, in database order) for
#: which PK ⊄ K_Ω: anonymity matters in SY Theorem 2 (the negative control; compare SY Appendix A).
ASYMMETRIC_3 = dict(zip(databases(3, 1), (Fraction(w, 40) for w in (5, 9, 3, 5, 2, 2, 6, 8))))


@check("SY-P4", kind=SMT)
def smt_two_respondents_any_prior() -> Outcome:
    """N = 2, T = 1: PK = K_Ω for asymmetric priors too; with N = 3 an asymmetric prior breaks it."""
    priors = {
        "(1/2,1/8,1/4,1/8)": dict(
            zip(databases(2, 1), (Fraction(1, 2), Fraction(1, 8), Fraction(1, 4), Fraction(1, 8)))
        ),
        "(1/10,3/10,1/5,2/5)": dict(
            zip(databases(2, 1), (Fraction(1, 10), Fraction(3, 10), Fraction(1, 5), Fraction(2, 5)))
        ),
    }
    alpha, parts, record = Fraction(1, 2), {}, Record("N")
    for name, prior in priors.items():
        for k, v in _equality(prior, alpha).items():
            parts[f"{name}, {k}"] = v
        record.ran(2, alpha, "an asymmetric prior, T = 1")
    outcome = proved_if_unsat(parts)
    solver, pi = projection_leaves_k_omega(ASYMMETRIC_3, 1, alpha)
    answer, ev = run(solver)
    if answer != z3.sat or not recheck_witness(_witness(solver, pi), ASYMMETRIC_3, 1, alpha):
        return Outcome(Verdict.UNKNOWN, outcome.evidence, "control: the N=3 asymmetric prior should break PK ⊆ K_Ω")
    record.ran(3, alpha, "control: an asymmetric prior breaks it")
    outcome.evidence["control: N=3 asymmetric prior breaks PK ⊆ K_Ω"] = ev
    return record.outcome(outcome, TWO_SOLVERS + "; the control's witness (z3) re-checked exactly")


@check("SY-P4", kind=EXACT)
def two_respondents_any_prior() -> Outcome:
    """N = 2, T = 1, asymmetric priors: P(ext K) ⊆ K_Ω, and every vertex of K_Ω lifts into K (the
    oblivious lift works for every prior: K_Ω ⊆ PK always). Control: an asymmetric N = 3 prior has
    a vertex of K projecting outside K_Ω."""
    rng = random.Random(5)
    failures, count = [], 0
    record = Record("N")
    space = DatabaseSpace(2, 1)
    for _ in range(4):
        prior = _random_prior(space, rng)
        for alpha in ALPHAS:
            out, up = projection_escapes(space, prior, alpha), lifts_fail(space, prior, alpha)
            count += 1
            if out or up:
                failures.append(
                    {"instance": _name(space, alpha), "prior": [format_fraction(prior[t]) for t in space.thetas]}
                )
            record.ran(space.n, str(alpha), "a seeded random prior, T = 1")
    control = projection_escapes(DatabaseSpace(3, 1), dict(ASYMMETRIC_3), ALPHAS[0])
    if not control:
        failures.append({"control": "the asymmetric N=3 prior should break PK ⊆ K_Ω"})
    record.ran(3, str(ALPHAS[0]), "control: an asymmetric prior breaks it")
    outcome = decide(failures, {"instances": count, "control (N=3 asymmetric)": control[:1]})
    return record.outcome(outcome, "exact: P(ext K) ⊆ K_Ω and every vertex of K_Ω lifts into K")
