"""SY-P3 (SY Proposition 3): Oblivious mechanisms: DP ⇔ posteriors in K_Ω(ε, μ0).

Every check part of this claim is here (``mechlib verify --only SY-P3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.infodesign.alpha import Alpha, X, const
from mechlib.infodesign.database_mechanisms import DatabaseMechanism
from mechlib.infodesign.databases import DatabaseSpace
from mechlib.infodesign.privacy_sets import k_omega_violation
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.privacy_set_instances import RATIONAL_ALPHAS, _name, _random_prior
from mechlib.proofs.shared.uprr import _structure
from mechlib.strategies import oblivious_dp_cases


@check("SY-P3", kind=EXACT)
def oblivious_dp_three_ways() -> Outcome:
    """Oblivious σ (geometric-like α^|s−ω| rows at α and α², random rows): (i) database DP ⇔ (ii)
    |log σ(s|ω)/σ(s|ω−t)| ≤ ε for t ≤ min(T, ω) ⇔ (iii) every posterior about ω is in K_Ω."""
    rng = random.Random(3)
    failures, checked = [], 0
    record = Record("N")
    for space in (DatabaseSpace(3, 1), DatabaseSpace(2, 2), DatabaseSpace(2, 3)):
        for alpha in RATIONAL_ALPHAS:
            a = alpha.rational or Fraction(1)
            prior = _random_prior(space, rng)
            mu0 = space.project(prior, Fraction(0))
            last = len(mu0) - 1
            sigmas = []
            for base in (a, a * a):
                rows = [[base ** abs(s - w) for s in range(last + 1)] for w in range(last + 1)]
                sigmas.append([[x / sum(r) for x in r] for r in rows])
            for _ in range(2):
                raw = [[Fraction(rng.randint(1, 5)) for _ in range(3)] for _ in range(last + 1)]
                sigmas.append([[x / sum(r) for x in r] for r in raw])
            for sigma in sigmas:
                m = DatabaseMechanism.oblivious(space, sigma)
                ii = all(
                    alpha.sign(const(sigma[w][s]) - X * const(sigma[w - t][s])) >= 0
                    and alpha.sign(const(sigma[w - t][s]) - X * const(sigma[w][s])) >= 0
                    for s in range(len(sigma[0]))
                    for w in range(1, last + 1)
                    for t in range(1, min(space.t, w) + 1)
                )
                iii = all(k_omega_violation(list(c), mu0, space.t, alpha) is None for c in m.about_omega(prior).columns)
                checked += 1
                if not ((m.dp_violation(alpha) is None) == ii == iii):
                    failures.append(
                        {"instance": _name(space, alpha), "sigma": [[format_fraction(x) for x in r] for r in sigma]}
                    )
                record.ran(space.n, str(alpha), f"an oblivious σ, T = {space.t}")
    method = "exact: database DP, the log-ratio bound and K_Ω membership agree (geometric-like and seeded random σ)"
    return record.outcome(decide(failures, {"mechanisms": checked}), method)


@check("SY-P3", kind=FUZZ)
def fuzz_oblivious_posteriors_in_k_omega() -> Outcome:
    """Random oblivious α-DP σ (T = 1) and μ₀: every induced posterior about ω is in K_Ω."""

    def prop(case: tuple[Fraction, list[Fraction], Any]) -> dict[str, Any] | None:
        a, mu0, sigma = case
        alpha = Alpha.of(a)
        for s, column in enumerate(_structure(sigma, mu0).columns):
            found = k_omega_violation(list(column), mu0, 1, alpha)
            if found is not None:
                return {"output": s, "pair": [found.low, found.high]}
        return None

    return fuzz("SY-P3", oblivious_dp_cases(), prop, 40, drawn=alpha_first, size="N")
