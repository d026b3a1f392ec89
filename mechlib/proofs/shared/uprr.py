"""Schmutte–Yoder §5: the geometric mechanism's posteriors, the UPRR order, supermodular users.

EXACT parts run over fixed instances with α ∈ {1/2, 1/3, e^−1} (exact: :mod:`mechlib.infodesign.alpha`);
FUZZ parts (Hypothesis, :mod:`mechlib.proofs.fuzz`) over random priors μ₀, oblivious DP mechanisms
(mixtures of remaps of T with randomized response) and payoffs. Lemma 2 against *every*
oblivious DP posterior reduces to the vertices of K_Ω: the relative-risk conditions
μ(ω)μ′(ω−1) ≥ μ(ω−1)μ′(ω) are linear in μ′.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.infodesign.alpha import Alpha, X, const
from mechlib.infodesign.info_structure import InformationStructure
from mechlib.proofs.fuzz import alpha_first, fuzz, jsonable
from mechlib.proofs.registry import Outcome, Record, Verdict
from mechlib.strategies import boundary_payoffs, oblivious_dp_cases, payoffs

ALPHAS = (Alpha.of("1/2"), Alpha.of("1/3"), Alpha.exp(1))


def _random_mu0(n: int, rng: random.Random) -> list[Fraction]:
    raw = [Fraction(rng.randint(1, 9)) for _ in range(n + 1)]
    return [w / sum(raw) for w in raw]


def _over_random_priors(
    seed: int, sizes: range, violation: Callable[[list[Fraction], Alpha], dict[str, Any] | None], record: Record
) -> list[dict[str, Any]]:
    """``violation`` on a random full-support μ₀ per N in ``sizes``, at every α of ALPHAS; each
    instance checked goes into ``record``."""
    rng = random.Random(seed)
    failures = []
    for n in sizes:
        mu0 = _random_mu0(n, rng)
        for alpha in ALPHAS:
            bad = violation(mu0, alpha)
            if bad:
                failures.append({"N": n, "alpha": str(alpha), **bad})
            record.ran(n, str(alpha), "a seeded random full-support μ₀ (T = 1)")
    return failures


def example2_tau_b() -> InformationStructure:
    """SY Example 2's τ_b for μ₀ = (1/3, 1/3, 1/3): the vertices with one upper bound, at ω = 1
    (∝ (α, 1, α)) or at ω = 2 (∝ (1, α, 1)), with equal weights; scale 1 + α."""
    third = const(Fraction(1, 3))
    return InformationStructure(
        (tuple(third * p for p in (X, const(1), X)), tuple(third * p for p in (const(1), X, const(1)))), const(1) + X
    )


# -- FUZZ parts ---------------------------------------------------------------------------------


def _structure(sigma: Any, mu0: list[Fraction]) -> InformationStructure:
    return InformationStructure.from_oblivious([list(r) for r in sigma.rows], mu0)


def _supermodular_case(supermodular: bool | None = True) -> st.SearchStrategy[Any]:
    """Cases with a supermodular payoff — half of them on the boundary (modular, or one unit
    increment) — or, with ``supermodular=False``, a payoff that is not supermodular."""

    def payoff(states: int) -> st.SearchStrategy[Any]:
        drawn = payoffs(states, supermodular=supermodular)
        return st.one_of(drawn, boundary_payoffs(states)) if supermodular else drawn

    return oblivious_dp_cases(max_n=4).flatmap(lambda c: st.tuples(st.just(c), payoff(c[2].n + 1)))


def supermodular_cases() -> st.SearchStrategy[Any]:
    """What the FUZZ parts of SY-T3 and SY-T4 draw from (a mutant draws outside the hypothesis)."""
    return _supermodular_case()


def grs_appendix_b_case() -> Any:
    """A non-supermodular negative control both properties must flag: GRS Appendix B's user
    (uniform prior on ω = 0..3, Figure 5(b)'s illegal loss as the payoff u(a, ω) = −l(ω, a)), with
    Figure 5(a)'s mechanism (1/2-DP) beating the geometric mechanism's value (−1/3 > −17/48)."""
    from mechlib.proofs.grs.appendix_b import GRS_FIGURE_5B
    from mechlib.proofs.shared.printed import GRS_FIGURE_5A

    payoff = [[-GRS_FIGURE_5B.matrix[w][a] for w in range(4)] for a in range(4)]
    return (Fraction(1, 2), [Fraction(1, 4)] * 4, GRS_FIGURE_5A), payoff


#: How many random non-supermodular cases the negative-control search may draw.
CONTROL_SEARCH = 200


def _with_negative_control(
    claim: str, prop: Callable[[Any], dict[str, Any] | None], base: int, controls: dict[str, Any], search: bool
) -> Outcome:
    """The property must flag each fixed non-supermodular control and, with ``search``, at least
    one random non-supermodular case (a derandomized search of ≤ CONTROL_SEARCH draws) — else the
    check cannot fail: UNKNOWN — then hold on random supermodular payoffs, boundary ones included."""
    flagged = {}
    for name, case in controls.items():
        flagged[name] = prop(case)
        if flagged[name] is None:
            return Outcome(Verdict.UNKNOWN, reason=f"the non-supermodular control ({name}) was not flagged")
    if search:
        found_case = _flagged_random_case(prop)
        if found_case is None:
            return Outcome(Verdict.UNKNOWN, reason=f"no random non-supermodular case was flagged in {CONTROL_SEARCH}")
        flagged["a random non-supermodular case (found by search)"] = {
            "case": jsonable(found_case),
            **(prop(found_case) or {}),
        }
    found = fuzz(claim, supermodular_cases(), prop, base, drawn=lambda c: alpha_first(c[0]), size="N",
                 hypothesis=supermodular)  # fmt: skip
    return replace(found, evidence={**found.evidence, "negative controls (flagged)": jsonable(flagged)})


def supermodular(case: Any) -> str | None:
    """The payoff is supermodular (SY §5): u(a+1, ω+1) − u(a, ω+1) ≥ u(a+1, ω) − u(a, ω)."""
    from mechlib.infodesign.decision import DecisionProblem

    where = DecisionProblem.of(case[1]).supermodularity_violation()
    return None if where is None else f"u is not supermodular at (a, ω) = {where}"


def _flagged_random_case(prop: Callable[[Any], dict[str, Any] | None]) -> Any:
    """A random non-supermodular case the property flags (derandomized search), or None. The
    first one found, not shrunk: any flagged case shows the check can fail, and shrinking it took
    ~25 s of SY-T3's time."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    quiet = settings(
        max_examples=CONTROL_SEARCH, derandomize=True, database=None, suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )  # fmt: skip
    try:
        return find(_supermodular_case(supermodular=False), lambda c: prop(c) is not None, settings=quiet)
    except NoSuchExample:
        return None
