"""SY-L1 (SY Lemma 1): Posteriors of the ε-geometric mechanism attain the bounds of K_Ω.

Every check part of this claim is here (``mechlib verify --only SY-L1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.infodesign.alpha import Alpha
from mechlib.infodesign.info_structure import geometric_structure
from mechlib.infodesign.privacy_sets import binding_bounds, k_omega_violation, omega_edges
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.uprr import ALPHAS, _over_random_priors
from mechlib.strategies import alphas, priors


def lemma1_violation(mu0: list[Fraction], alpha: Alpha) -> dict[str, Any] | None:
    """Output s of the truncated geometric mechanism must give the posterior attaining the upper
    bound exactly at 1 ≤ ω ≤ s and the lower bound exactly at ω > s (SY Lemma 1)."""
    tau = geometric_structure(mu0)
    edges = omega_edges(len(mu0), 1)
    for s, column in enumerate(tau.columns):
        f = dict(enumerate(column))
        if k_omega_violation(list(column), mu0, 1, alpha) is not None:
            return {"output": s, "problem": "posterior not in K_Ω"}
        binding = set(binding_bounds(f, dict(enumerate(mu0)), edges, alpha))
        want = {(w - 1, w) if w <= s else (w, w - 1) for w in range(1, len(mu0))}
        if binding != want:
            return {"output": s, "binding": sorted(binding), "expected": sorted(want)}
    return None


@check("SY-L1", kind=EXACT)
def geometric_posteriors_exact() -> Outcome:
    """N = 1..8, random μ₀, α ∈ {1/2, 1/3, e^−1}: output s attains the upper bound at ω ≤ s and
    the lower bound above (so supp τ^g ⊆ ext K_Ω), and these N + 1 patterns are all of them."""
    record = Record("N")
    failures = _over_random_priors(11, range(1, 9), lemma1_violation, record)
    outcome = decide(failures, {"N": "1..8", "alphas": [str(a) for a in ALPHAS]})
    return record.outcome(outcome, "exact: each output's binding bounds (signs of polynomials in α)")


@check("SY-L1", kind=FUZZ)
def fuzz_geometric_posteriors() -> Outcome:
    """Random μ₀ (N ≤ 8) and α: SY Lemma 1's binding pattern for every output."""
    cases = st.tuples(alphas(), st.integers(1, 8).flatmap(lambda n: priors(n, full_support=True)))
    return fuzz("SY-L1", cases, lambda c: lemma1_violation(list(c[1].probabilities), Alpha.of(c[0])), 40,
                drawn=lambda c: (c[1].n, c[0]), size="N")  # fmt: skip
