"""SY-T3 (SY Theorem 3): Anonymous respondents, supermodular payoff: the geometric mechanism is
optimal.

Every check part of this claim is here (``mechlib verify --only SY-T3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.infodesign.alpha import Alpha
from mechlib.infodesign.decision import DecisionProblem
from mechlib.infodesign.designer import optimal_oblivious_value
from mechlib.infodesign.info_structure import geometric_structure
from mechlib.optimality.optimal import CertificationError
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import jsonable
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide
from mechlib.proofs.shared.uprr import ALPHAS, _with_negative_control, grs_appendix_b_case


def theorem3_violation(case: Any) -> dict[str, Any] | None:
    """E τ^g value = the certified best over oblivious DP mechanisms (LP over ext K_Ω); exact."""
    (a, mu0, _), u = case
    alpha = Alpha.of(a)
    problem = DecisionProblem.of(u)
    num, scale = problem.value(geometric_structure(mu0), alpha)
    geometric = Fraction(alpha.value(num)) / Fraction(alpha.value(scale))
    best = optimal_oblivious_value(mu0, 1, problem, alpha)
    if best is None:  # undecided: the check must end UNKNOWN, never count the example as a pass
        raise CertificationError(f"the best oblivious value for α = {a} could not be certified")
    if geometric != best:
        return {"geometric": format_fraction(geometric), "best oblivious": format_fraction(best)}
    return None


@check("SY-T3", kind=FUZZ)
def fuzz_geometric_optimal_supermodular() -> Outcome:
    """Random supermodular payoffs (categorical data): the geometric mechanism's value equals the
    certified optimum over oblivious DP mechanisms (all of them by SY Thm 2 / SY-T2); for i.i.d.
    N = 2, 3 also the certified optimum over all DP mechanisms on databases (see the tests)."""
    return _with_negative_control("SY-T3", theorem3_violation, 30, {"GRS App. B": grs_appendix_b_case()}, search=True)


def _seeded_payoff(states: int, rng: random.Random) -> list[list[Fraction]]:
    """A supermodular u(a, ω) = r(a) + c(ω) + Σ_{i<a, j<ω} d(i, j), d ≥ 0."""
    actions = rng.randint(2, 3)
    d = [[rng.randint(0, 3) for _ in range(states - 1)] for _ in range(actions - 1)]
    r = [rng.randint(-4, 4) for _ in range(actions)]
    c = [rng.randint(-2, 2) for _ in range(states)]
    return [
        [Fraction(r[a] + c[w] + sum(d[i][j] for i in range(a) for j in range(w))) for w in range(states)]
        for a in range(actions)
    ]


def geometric_against_all_designs(
    n: int, p: Fraction, payoff: list[list[Fraction]], alpha: Alpha
) -> tuple[Fraction, Fraction] | None:
    """(the geometric mechanism's value, the certified best over *all* ε-DP mechanisms on the
    databases {0,1}^N — non-oblivious ones too — with i.i.d. respondents, P(1) = p); None if the
    design could not be certified."""
    from mechlib.infodesign.databases import DatabaseSpace, iid_prior
    from mechlib.infodesign.designer import optimal_design

    space = DatabaseSpace(n, 1)
    prior = iid_prior(space, [1 - p, p])
    problem = DecisionProblem.of(payoff)
    design = optimal_design(space, prior, problem, alpha)
    if design is None:
        return None
    num, scale = problem.value(geometric_structure(space.project(prior, Fraction(0))), alpha)
    return Fraction(alpha.value(num)) / Fraction(alpha.value(scale)), design.value


#: SY §5.1's "central vs extreme" payoff (not supermodular): act 1 pays at the extremes of ω.
CENTRAL_VS_EXTREME = {
    2: [[0, 1, 0], [1, 0, 1]],
    3: [[0, 1, 1, 0], [1, 0, 0, 1]],
}


@check("SY-T3", kind=EXACT)
def geometric_optimal_among_all_designs() -> Outcome:
    """N ∈ {2, 3} i.i.d. respondents (P(1) random), α ∈ {1/2, 1/3}, seeded supermodular payoffs:
    the geometric mechanism's value equals the certified optimum over all DP mechanisms on the
    databases, non-oblivious ones included (SY Thm 3 with Thm 2). Negative controls: with SY
    §5.1's central-vs-extreme payoff (P(1) = 3/10) a design is strictly better, at every N and α."""
    rng = random.Random(33)
    failures: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    controls: list[dict[str, Any]] = []
    record = Record("N")
    for n in (2, 3):
        for alpha in ALPHAS[:2]:
            cases = [(Fraction(rng.randint(1, 9), 10), _seeded_payoff(n + 1, rng)) for _ in range(4)]
            cases.append((Fraction(3, 10), [[Fraction(v) for v in row] for row in CENTRAL_VS_EXTREME[n]]))
            for k, (p, payoff) in enumerate(cases):
                where = {"N": n, "alpha": str(alpha), "P(1)": format_fraction(p), "payoff": jsonable(payoff)}
                values = geometric_against_all_designs(n, p, payoff, alpha)
                if values is None:
                    return Outcome(Verdict.UNKNOWN, {"done": rows}, f"no certified design for {where}")
                geometric, best = (format_fraction(v) for v in values)
                if k < len(cases) - 1:
                    rows.append({**where, "value": best})
                    if values[0] != values[1]:
                        failures.append({**where, "geometric": geometric, "best": best})
                else:
                    controls.append({**where, "geometric": geometric, "best": best})
                    if not values[0] < values[1]:
                        failures.append({**where, "control": "the central-vs-extreme payoff is not better served"})
                last = k == len(cases) - 1
                record.ran(n, str(alpha), "central-vs-extreme control" if last else "seeded supermodular payoff")
    evidence = {"supermodular instances": rows, "negative controls (central vs extreme)": controls}
    method = "certified LP over the vertices of K (every DP mechanism on databases, T = 1, i.i.d. priors), exact"
    return record.outcome(decide(failures, evidence), method)
