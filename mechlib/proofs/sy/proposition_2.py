"""SY-P2 (SY Proposition 2): Optimal mechanisms induce extreme points of K(ε,π0).

Every check part of this claim is here (``mechlib verify --only SY-P2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.infodesign.alpha import const
from mechlib.infodesign.database_mechanisms import DatabaseMechanism
from mechlib.infodesign.databases import DatabaseSpace
from mechlib.infodesign.decision import DecisionProblem
from mechlib.infodesign.designer import optimal_design
from mechlib.infodesign.privacy_sets import binding_bounds
from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide
from mechlib.proofs.shared.privacy_set_instances import RATIONAL_ALPHAS, _name, _random_prior


@check("SY-P2", kind=EXACT)
def optimal_designs_use_vertices() -> Outcome:
    """Random decision problems: the certified optimal design (:mod:`mechlib.infodesign.designer`) has
    (a) vertex posteriors, (b) each binding ≥ (T+1)^N − 1 bounds, (c) a linearly independent
    support, hence (d) unique weights; its mechanism m* is ε-DP and attains the optimum."""
    import flint

    rng = random.Random(2)
    failures: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    record = Record("N")
    for space in (DatabaseSpace(2, 1), DatabaseSpace(3, 1), DatabaseSpace(2, 2)):
        for alpha in RATIONAL_ALPHAS:
            prior = _random_prior(space, rng)
            for _ in range(2):
                problem = DecisionProblem.of([[rng.randint(-6, 6) for _ in space.omegas] for _ in range(3)])
                design = optimal_design(space, prior, problem, alpha)
                name = _name(space, alpha)
                if design is None:
                    return Outcome(Verdict.UNKNOWN, {"done": rows}, f"{name}: the design could not be certified")
                need = len(space.thetas) - 1
                binding = [
                    len(binding_bounds({t: const(p) for t, p in post.items()}, prior, space.adjacent_pairs, alpha))
                    for post in design.posteriors
                ]
                rank = flint.fmpq_mat(
                    [[flint.fmpq(p[t].numerator, p[t].denominator) for t in space.thetas] for p in design.posteriors]
                ).rank()
                mech = DatabaseMechanism.of(space, design.mechanism(prior))
                if min(binding) < need or rank != len(design.posteriors) or mech.dp_violation(alpha) is not None:
                    failures.append({"instance": name, "binding": binding, "rank": rank})
                rows.append(
                    {
                        "instance": name,
                        "value": format_fraction(design.value),
                        "support": len(design.weights),
                        "binding": binding,
                    }
                )
                record.ran(space.n, str(alpha), f"a random decision problem and prior, T = {space.t}")
    outcome = decide(failures, {"designs": rows, "vertices": "enumerated exactly (π₀·α^g)"})
    return record.outcome(outcome, "certified optimal design (exact LP over the vertices of K), its structure checked")
