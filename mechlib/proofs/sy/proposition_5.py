"""SY-P5 (SY Proposition 5): Anonymous respondents: permutation-invariant mechanisms are w.l.o.g..

Every check part of this claim is here (``mechlib verify --only SY-P5``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.infodesign.database_mechanisms import DatabaseMechanism
from mechlib.infodesign.databases import DatabaseSpace, iid_prior, is_anonymous
from mechlib.infodesign.decision import DecisionProblem
from mechlib.infodesign.designer import optimal_design
from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.mutants import Attr, register
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide
from mechlib.proofs.shared.privacy_set_instances import RATIONAL_ALPHAS, _name, _random_prior


@check("SY-P5", kind=EXACT)
def permutation_invariant_without_loss() -> Outcome:
    """Anonymous priors, DP mechanisms (certified optimal designs for random problems, whose rows
    are not permutation-invariant in general): the symmetrised m̄ is DP, permutation-invariant and
    gives the same joint law of (s, ω). Control: with an asymmetric prior the law changes."""
    rng = random.Random(6)
    failures, count, moved = [], 0, 0
    record = Record("N")
    for space in (DatabaseSpace(2, 2), DatabaseSpace(3, 1)):
        for alpha in RATIONAL_ALPHAS:
            for prior in (iid_prior(space, [Fraction(1, space.t + 1)] * (space.t + 1)), _random_prior(space, rng)):
                design_prior = _random_prior(space, rng)  # designs for another prior: DP, not symmetric
                problem = DecisionProblem.of([[rng.randint(-5, 5) for _ in space.omegas] for _ in range(3)])
                design = optimal_design(space, design_prior, problem, alpha)
                if design is None:
                    return Outcome(Verdict.UNKNOWN, {}, f"{_name(space, alpha)}: no certified design to start from")
                m = DatabaseMechanism.of(space, design.mechanism(design_prior))
                bar = m.symmetrized()
                same = bar.about_omega(prior).columns == m.about_omega(prior).columns
                if is_anonymous(space, prior):
                    count += 1
                    if bar.dp_violation(alpha) or not bar.is_permutation_invariant() or not same:
                        failures.append({"instance": _name(space, alpha)})
                    record.ran(space.n, str(alpha), f"an anonymous prior, T = {space.t}")
                else:
                    moved += not same
                    record.ran(space.n, str(alpha), f"control: an asymmetric prior, T = {space.t}")
    if moved == 0:
        failures.append({"control": "with asymmetric priors the symmetrised law never changed"})
    outcome = decide(failures, {"anonymous instances": count, "asymmetric controls that changed": moved})
    method = "exact: m̄ of a certified optimal design is DP, permutation-invariant, with the same law of (s, ω)"
    return record.outcome(outcome, method)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _not_symmetrized(self: Any) -> Any:
    return self


register("the symmetrisation → the mechanism itself", "changed statement", ("SY-P5",),
         lambda: [(Attr(DatabaseMechanism, "symmetrized"), _not_symmetrized)])  # fmt: skip
