"""GRS-B (GRS Appendix B, Figure 5): Figure 5(a) is a vertex, not derivable from T, optimal for the
illegal loss 5(b) (LP 1/3, T 17/48).

Every check part of this claim is here (``mechlib verify --only GRS-B``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction

import flint

from mechlib.core.exact_linear import to_fmpq
from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import dp_level
from mechlib.core.users import BayesUser, Loss, Prior
from mechlib.optimality.derivability import derivation_witness
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, perturbed, register
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.encodings import printed_matrix_outcome
from mechlib.proofs.shared.printed import GRS_FIGURE_5A

GRS_FIGURE_5B = Loss([[1, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]])


def _is_vertex(x: Mechanism, alpha: Fraction) -> bool:
    """The constraints (4)–(7) binding at x have rank (n+1)², so they meet in one point."""
    size = len(x.rows)
    rows: list[list[Fraction]] = []

    def unit(*pairs: tuple[int, int, Fraction]) -> list[Fraction]:
        row = [Fraction(0)] * size * size
        for i, j, v in pairs:
            row[i * size + j] = v
        return row

    for i in range(size):
        rows.append(unit(*[(i, j, Fraction(1)) for j in range(size)]))
        for j in range(size):
            if x.rows[i][j] == 0:
                rows.append(unit((i, j, Fraction(1))))
            if i + 1 < size and x.rows[i + 1][j] == alpha * x.rows[i][j]:
                rows.append(unit((i + 1, j, Fraction(1)), (i, j, -alpha)))
            if i + 1 < size and x.rows[i][j] == alpha * x.rows[i + 1][j]:
                rows.append(unit((i, j, Fraction(1)), (i + 1, j, -alpha)))
    matrix = flint.fmpq_mat(len(rows), size * size, [to_fmpq(v) for row in rows for v in row])
    return bool(matrix.rank() == size * size)


@check("GRS-B", kind="EXACT")
def check_grs_appendix_b() -> Outcome:
    alpha = Fraction(1, 2)
    user = BayesUser(Prior.uniform(3), GRS_FIGURE_5B)
    t = truncated_geometric(alpha, 3)
    facts = {
        "dp": dp_level(GRS_FIGURE_5A).alpha >= alpha,
        "vertex": _is_vertex(GRS_FIGURE_5A, alpha),
        "not_derivable": not derivation_witness(GRS_FIGURE_5A, alpha).derivable,
        "loss_is_lp_optimum": expected_loss(GRS_FIGURE_5A, user)
        == optimal_bayes_mechanism(user, alpha).value
        == Fraction(1, 3),
        "best_remap_of_T": expected_loss(t, user, optimal_remap(t, user)) == Fraction(17, 48),
        "loss_is_illegal": not GRS_FIGURE_5B.is_legal(),
    }
    record = Record.one(len(GRS_FIGURE_5A.rows) - 1, alpha, "Figure 5(a) with the loss 5(b)")
    outcome = decide([{k: v} for k, v in facts.items() if not v], {"checked": sorted(facts)})
    return record.outcome(outcome, "exact rationals: " + ", ".join(sorted(facts)))


@check("GRS-B", kind=SMT)
def smt_grs_appendix_b() -> Outcome:
    from mechlib.proofs.shared.printed import GRS_FIGURE_5A

    return printed_matrix_outcome(GRS_FIGURE_5A, Fraction(1, 2), "Figure 5(a)")


# -- mutants: falsifications this claim's checks must refute ---------------------------------


register("GRS Figure 5(a) perturbed", "perturbed figure", ("GRS-B",),
         module_constant("mechlib.proofs.shared.printed", "GRS_FIGURE_5A", perturbed))  # fmt: skip
