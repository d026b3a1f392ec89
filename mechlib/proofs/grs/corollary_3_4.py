"""GRS-C3.4 (GRS Corollary 3.4, §5.8): With range N, the universally utility-maximizing mechanisms
are exactly π∘T.

Every check part of this claim is here (``mechlib verify --only GRS-C3.4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations
from typing import Any

import flint

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.privacy import dp_level
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.proofs.catalogue import EXACT, SMT
from mechlib.proofs.registry import Outcome, Record, check, decide, measured, with_scope
from mechlib.proofs.shared.encodings import HALF, THIRD, lemma_5_12_user, unique_optimum
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat


@check("GRS-C3.4", kind=SMT)
def smt_uniqueness_up_to_permutation() -> Outcome:
    """GRS §5.8, bounded, the step of the "only if": a universally optimal X with range N is
    optimal for Lemma 5.12's user, whose unique optimal direct mechanism is T (this part), so Y∘X = T
    for a deterministic Y: N → N; T being nonsingular, Y is a permutation (the EXACT part checks
    that, and the "if": every π∘T has every remap of T)."""
    gamma = Fraction(1, 100)
    alphas, sizes = (Fraction(1, 2), Fraction(1, 3)), (1, 2, 3)
    parts = {
        f"T unique for Lemma 5.12's user, n={n}, α={format_fraction(a)}": unique_optimum(
            truncated_geometric(a, n), lemma_5_12_user(n, gamma), a
        )
        for a in alphas
        for n in sizes
    }
    return with_scope(proved_if_unsat(parts), measured(TWO_SOLVERS, n=sizes, alphas=alphas, every_object=True))


@check("GRS-C3.4", kind=EXACT)
def exact_permutations_of_t() -> Outcome:
    """The "if" half of GRS §5.8 and the step of its "only if": T is nonsingular, and for every
    permutation π, π∘T is α-DP with T = π⁻¹∘(π∘T) (so it has every remap of T)."""
    failures: list[dict[str, Any]] = []
    record = Record()
    for alpha in (HALF, THIRD):
        for n in (1, 2, 3):
            t = truncated_geometric(alpha, n)
            rows = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in row] for row in t.rows])
            if rows.det() == 0:
                failures.append({"n": n, "alpha": format_fraction(alpha), "problem": "T is singular"})
            for perm in permutations(range(n + 1)):
                pi = Remap.deterministic(dict(enumerate(perm)), range(n + 1), range(n + 1))
                back = Remap.deterministic({v: k for k, v in enumerate(perm)}, range(n + 1), range(n + 1))
                moved = compose(pi, t)
                if dp_level(moved).alpha < alpha or compose(back, moved) != t:
                    failures.append({"n": n, "alpha": format_fraction(alpha), "permutation": list(perm)})
            record.ran(n, alpha)
    method = "exact rationals: det T ≠ 0 (flint); every permutation π: π∘T is α-DP and π⁻¹∘(π∘T) = T"
    return record.outcome(decide(failures, {"n": "1..3", "alphas": ["1/2", "1/3"]}), method, every_object=True)
