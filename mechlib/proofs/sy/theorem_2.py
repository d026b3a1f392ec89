"""SY-T2 (SY Theorem 2): Categorical data, symmetric prior: K_Ω = P·K.

Every check part of this claim is here (``mechlib verify --only SY-T2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction

from mechlib.infodesign.databases import DatabaseSpace, exchangeable_prior, iid_prior
from mechlib.proofs.catalogue import EXACT, SMT
from mechlib.proofs.fuzz import deep
from mechlib.proofs.registry import Outcome, check, decide, measured, with_scope
from mechlib.proofs.shared.privacy_set_instances import ALPHAS, _name, lifts_fail, projection_escapes
from mechlib.proofs.shared.privacy_set_smt import _equality, databases, iid
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat

#: The N of the ∀μ ∃π query K_Ω ⊆ PK (z3's qsat, cvc5): N = 2 answers in milliseconds, N = 3 takes
#: z3 ≈ 2·10⁸ resource units (12–15 s) per prior, so it runs in the deep profile only
#: (``mechlib verify --deep``); the EXACT part decides K_Ω = PK at N ≤ 4 by vertices either way.
COVER_SIZES, DEEP_COVER_SIZES = (2,), (2, 3)


def _priors(n: int) -> dict[str, dict[tuple[int, ...], Fraction]]:
    """An i.i.d. prior and an exchangeable prior that is not i.i.d., on {0, 1}^n."""
    weights = {2: [Fraction(1, 3), Fraction(1, 6), Fraction(1, 3)], 3: [Fraction(1, 4), Fraction(1, 12)] * 2}[n]
    exchangeable = {theta: weights[sum(theta)] for theta in databases(n, 1)}
    return {"iid(2/3,1/3)": iid(n, [Fraction(2, 3), Fraction(1, 3)]), "exchangeable": exchangeable}


@check("SY-T2", kind=SMT)
def smt_categorical_symmetric() -> Outcome:
    """T = 1, symmetric priors (i.i.d. and exchangeable non-i.i.d.), α ∈ {1/2, 1/3}: PK ⊆ K_Ω at
    N ∈ {2, 3} and K_Ω ⊆ PK at N ∈ ``COVER_SIZES`` (``DEEP_COVER_SIZES`` in the deep profile)."""
    cover_sizes = DEEP_COVER_SIZES if deep() else COVER_SIZES
    alphas = (Fraction(1, 2), Fraction(1, 3))
    parts, sizes = {}, (2, 3)
    for n in sizes:
        for label, prior in _priors(n).items():
            for alpha in alphas:
                for query, answer in _equality(prior, alpha, cover=n in cover_sizes).items():
                    parts[f"N={n} {label}, α={alpha}, {query}"] = answer
    outcome = proved_if_unsat(parts)
    scope = measured(TWO_SOLVERS + f"; K_Ω ⊆ PK (∀μ ∃π) at N ∈ {set(cover_sizes)}", n=sizes, alphas=alphas,
                     every_object=False, size="N")  # fmt: skip
    return with_scope(outcome, scope)


@check("SY-T2", kind=EXACT)
def categorical_anonymous_equal() -> Outcome:
    """T = 1, N ∈ {2, 3, 4}, i.i.d. and exchangeable (non-i.i.d.) priors, α ∈ {1/2, 1/3, e^−1}:
    P(ext K) ⊆ K_Ω and every vertex of K_Ω lifts into K — so PK = K_Ω exactly."""
    failures, count, sizes = [], 0, (2, 3, 4)
    for n in sizes:
        space = DatabaseSpace(n, 1)
        priors = {
            "iid(2/3,1/3)": iid_prior(space, ["2/3", "1/3"]),
            "exchangeable": exchangeable_prior(space, lambda h: 1 + (h[1] - 1) ** 2),
        }
        for label, prior in priors.items():
            for alpha in ALPHAS:
                out, up = projection_escapes(space, prior, alpha), lifts_fail(space, prior, alpha)
                count += 1
                if out or up:
                    failures.append({"instance": _name(space, alpha, label), "escapes": out[:1], "no lift": up[:1]})
    method = "vertices of K (π₀·α^g) and of K_Ω"
    scope = measured(f"exact rationals: {method}, {count} instances", n=sizes, alphas=map(str, ALPHAS),
                     every_object=False, size="N")  # fmt: skip
    return with_scope(decide(failures, {"instances": count, "method": method}), scope)
