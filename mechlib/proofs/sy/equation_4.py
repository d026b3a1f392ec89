"""SY-E4 (SY eq. (4)): DP ⇔ every induced posterior lies in K(ε, π0).

Every check part of this claim is here (``mechlib verify --only SY-E4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.infodesign import privacy_sets
from mechlib.infodesign.database_mechanisms import DatabaseMechanism
from mechlib.infodesign.databases import DatabaseSpace
from mechlib.infodesign.privacy_sets import k_violation
from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.mutants import Attr, never_violated, register
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.privacy_set_instances import RATIONAL_ALPHAS, _name, _random_prior


@check("SY-E4", kind=EXACT)
def dp_iff_posteriors_in_k() -> Outcome:
    """For boundary mechanisms m(s|θ) ∝ α^(k·g_s(θ)) (k = 1: DP; k = 2: not) and random ones, over
    N·T ≤ 4 spaces and random priors: DP ⇔ every π_s ∈ K (SY eq. (3)–(4)), with the same pair."""
    rng = random.Random(4)
    failures, checked = [], 0
    record = Record("N")
    for space in (DatabaseSpace(2, 1), DatabaseSpace(3, 1), DatabaseSpace(2, 2)):
        for alpha in RATIONAL_ALPHAS:
            a = alpha.rational or Fraction(1)
            prior = _random_prior(space, rng)
            mechanisms = []
            for stretch in (1, 2):  # columns α^(stretch·d(θ, θ̂)), normalised per row
                cols = [
                    [a ** (stretch * sum(x != y for x, y in zip(t, hat))) for hat in space.thetas[:3]]
                    for t in space.thetas
                ]
                mechanisms.append({t: [c / sum(col) for c in col] for t, col in zip(space.thetas, cols)})
            for _ in range(3):
                raw = {t: [Fraction(rng.randint(1, 6)) for _ in range(3)] for t in space.thetas}
                mechanisms.append({t: [x / sum(r) for x in r] for t, r in raw.items()})
            for rows in mechanisms:
                m = DatabaseMechanism.of(space, rows)
                direct = m.dp_violation(alpha)
                via = [(s, k_violation(space, pi, prior, alpha)) for s, pi in enumerate(m.posteriors(prior))]
                first = next(((s, v) for s, v in via if v is not None), None)
                checked += 1
                if (direct is None) != (first is None) or (direct and first and direct[1] != first[1]):
                    failures.append({"instance": _name(space, alpha), "direct": str(direct), "posteriors": str(first)})
                record.ran(space.n, str(alpha), f"a mechanism on databases, T = {space.t}")
    evidence = {"mechanisms": checked, "spaces": ["N=2,T=1", "N=3,T=1", "N=2,T=2"], "alphas": ["1/2", "1/3"]}
    method = "exact: DP directly against every posterior in K (boundary and seeded random mechanisms, random priors)"
    return record.outcome(decide(failures, evidence), method)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("posteriors never leave K", "flipped inequality", ("SY-E4",),
         lambda: [(privacy_sets.k_violation, never_violated)])  # fmt: skip


def _database_dp_never_violated(self: Any, alpha: Any) -> None:
    return None


register("mechanisms on databases never violate DP", "flipped inequality", ("SY-E4",),
         lambda: [(Attr(DatabaseMechanism, "dp_violation"), _database_dp_never_violated)])  # fmt: skip
