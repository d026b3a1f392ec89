"""GS-T2 (GS Theorem 2, Lemma 2): M (α-DP) is derivable from G ⇔ G⁻¹M ≥ 0 ⇔ three-term column
conditions.

Every check part of this claim is here (``mechlib verify --only GS-T2``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import flint
import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import exponential, randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import dp_level
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.optimality.derivability import derivation_witness
from mechlib.optimality.smt import q
from mechlib.proofs.catalogue import EXACT, FUZZ, SMT
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide, measured
from mechlib.proofs.shared.definitions import (
    ALL_N,
    I,
    J,
    N,
    R,
    agreement,
    inverse_band,
    inverse_entry,
    t_times_inverse,
)
from mechlib.proofs.shared.encodings import HALF, THIRD
from mechlib.proofs.shared.generators import alpha_dp
from mechlib.proofs.shared.obligations import ALPHA as A
from mechlib.proofs.shared.obligations import (
    ZERO,
    Obligations,
    Region,
    add,
    constant,
    mul,
    prove_for_every_index,
    where,
)
from mechlib.proofs.shared.obligations import outcome as obligations_outcome
from mechlib.proofs.shared.printed import GRS_FIGURE_5A, GS_APPENDIX_B
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query
from mechlib.strategies import dp_mixtures


def derivability_equivalence(
    n: int, alpha: Fraction, middle: Fraction | None = None
) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ an α-DP column x ≥ 0 and y with T·y = x where (y ≥ 0) and (GS's conditions on x) differ?

    GS's conditions: x₀ ≥ αx₁, x_n ≥ αx_{n−1}, (1+α²)x_r ≥ α(x_{r−1}+x_{r+1}) inside; ``middle``
    replaces 1+α² (negative controls).
    """
    size = n + 1
    t = truncated_geometric(alpha, n).rows
    a = q(alpha)
    x = [z3.Real(f"x{i}") for i in range(size)]
    y = [z3.Real(f"y{r}") for r in range(size)]
    solver = smt_query("QF_LRA")
    for i in range(size):
        solver.add(x[i] >= 0, z3.Sum([q(t[i][r]) * y[r] for r in range(size)]) == x[i])
        if i + 1 < size:
            solver.add(a * x[i] <= x[i + 1], a * x[i + 1] <= x[i])
    conditions = [x[0] >= a * x[1], x[n] >= a * x[n - 1]]
    m = 1 + a * a if middle is None else q(middle)
    conditions += [m * x[r] >= a * (x[r - 1] + x[r + 1]) for r in range(1, n)]
    solver.add(z3.And([v >= 0 for v in y]) != z3.And(conditions))
    return run(solver)


@check("GS-T2", kind=SMT)
def smt_gs_theorem_2() -> Outcome:
    parts, record = {}, Record()
    for a in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)):
        for n in (2, 5, 10, 20):
            parts[f"n={n}, α={format_fraction(a)}"] = derivability_equivalence(n, a)
            record.ran(n, a)
    method = TWO_SOLVERS + ": T⁻¹x ≥ 0 iff GS's conditions, for a symbolic α-DP column x"
    return record.outcome(proved_if_unsat(parts), method, every_object=True)


def derivability_agrees(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """GS-T2: the closed-form three-term verdict equals G⁻¹M ≥ 0 by flint's general solve."""
    import flint

    from mechlib.core.exact_linear import from_fmpq, to_fmpq
    from mechlib.optimality.derivability import derivation_witness

    alpha, m = case
    t = flint.fmpq_mat([[to_fmpq(v) for v in row] for row in truncated_geometric(alpha, m.n).rows])
    y = t.solve(flint.fmpq_mat([[to_fmpq(v) for v in row] for row in m.rows]))
    general = all(from_fmpq(y[i, j]) >= 0 for i in range(m.n + 1) for j in range(len(m.outputs)))
    verdict = derivation_witness(m, alpha).derivable
    return None if verdict == general else {"three_term": verdict, "general_solve": general, "mechanism": m}


@check("GS-T2", kind=FUZZ)
def fuzz_derivability() -> Outcome:
    return fuzz("GS-T2", dp_mixtures(max_n=6), derivability_agrees, 80, drawn=alpha_first, hypothesis=alpha_dp)


def _exact_inverse_times(t: Mechanism, m: Mechanism) -> list[list[Fraction]]:
    """T⁻¹M by flint's exact solve (not GS's closed form)."""

    def mat(rows: Any) -> Any:
        return flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in row] for row in rows])

    y = mat(t.rows).solve(mat(m.rows))
    return [[Fraction(int(y[i, j].p), int(y[i, j].q)) for j in range(y.ncols())] for i in range(y.nrows())]


def _three_term(m: Mechanism, alpha: Fraction) -> bool:
    """GS Thm 2's conditions read off the columns: x₀ ≥ αx₁, x_n ≥ αx_{n−1}, (1+α²)x_r ≥ α(x_{r−1}+x_{r+1})."""
    n = m.n
    for c in range(len(m.outputs)):
        x = [row[c] for row in m.rows]
        if x[0] < alpha * x[1] or x[n] < alpha * x[n - 1]:
            return False
        if any((1 + alpha * alpha) * x[r] < alpha * (x[r - 1] + x[r + 1]) for r in range(1, n)):
            return False
    return True


GS_T2_CASES = {
    "GS App. B": (GS_APPENDIX_B, HALF),
    "GRS Figure 5(a)": (GRS_FIGURE_5A, HALF),
    "randomized response k=4": (randomized_response(THIRD, 4), THIRD),
    "exponential n=4": (exponential(HALF, 4), dp_level(exponential(HALF, 4)).alpha),
    "T, n=5": (truncated_geometric(HALF, 5), HALF),
    "a remap of T": (compose(Remap([[1, 0], [1, 0], [0, 1], [0, 1]]), truncated_geometric(THIRD, 3)), THIRD),
    "T at 1/2 seen at 1/3": (truncated_geometric(HALF, 4), THIRD),
}


@check("GS-T2", kind=EXACT)
def exact_derivability_three_ways() -> Outcome:
    """For each instance, the three sides of GS Thm 2 agree: T⁻¹M ≥ 0 by flint's exact solve, the
    column conditions read off M, and derivation_witness (GS's closed-form T⁻¹)."""
    failures: list[dict[str, Any]] = []
    seen = {}
    record = Record()
    for name, (m, alpha) in GS_T2_CASES.items():
        y = _exact_inverse_times(truncated_geometric(alpha, m.n), m)
        by_inverse = all(v >= 0 for row in y for v in row)
        by_columns = _three_term(m, alpha)
        by_witness = derivation_witness(m, alpha).derivable
        seen[name] = by_inverse
        if not by_inverse == by_columns == by_witness:
            failures.append({"case": name, "inverse": by_inverse, "columns": by_columns, "witness": by_witness})
        record.ran(m.n, alpha, name)
    if not any(seen.values()) or all(seen.values()):
        failures.append({"problem": "the instances should include derivable and non-derivable mechanisms"})
    method = "exact rationals, 3 ways: T⁻¹M ≥ 0 (flint solve), the column conditions, derivation_witness"
    return record.outcome(decide(failures, {"derivable": seen}), method)


def inverse_identities() -> list[Obligations]:
    """GS's closed-form T⁻¹ (``definitions.inverse_entry``) is T's inverse for every n ≥ 1: it
    vanishes off its band (|k − j| ≥ 2), so (T·T⁻¹)[i][j] is the sum over k = j−1, j, j+1 inside
    0..n (``definitions.t_times_inverse``), which is 1 at i = j and 0 elsewhere — every case of
    the split (the signs of i − k, which of k, j are 0 or n) derived from the two definitions and
    the split proved exhaustive. No base cases: n is a variable from 1 up."""
    square = z3.And(N >= 1, I >= 0, I <= N, J >= 0, J <= N)
    regions = [Region("i = j", I == J, lambda x: x["x"] == 1), Region("i ≠ j", I != J, lambda x: x["x"] == 0)]
    return [inverse_band(), prove_for_every_index("T·T⁻¹ = I", square, {"x": t_times_inverse(I, J, N)}, regions)]


#: A column x of M around row r: x_(r−1), x_r, x_(r+1) (free reals: the obligations hold for all).
COLUMN = z3.Reals("x_prev x_r x_next")


def row_of_inverse_times_column() -> Obligations:
    """(T⁻¹x)_r, summed over T⁻¹'s band in row r, is GS's condition on the column x over a
    positive scale, for every n ≥ 1 and 0 ≤ r ≤ n: (x₀ − αx₁)/(1−α) at r = 0, (x_n − αx_{n−1})/(1−α)
    at r = n, ((1+α²)x_r − α(x_{r−1} + x_{r+1}))/(1−α)² inside (GS Theorem 2's conditions)."""
    prev, here, after = COLUMN
    row = add(*(where(z3.And(R + d >= 0, R + d <= N), mul(inverse_entry(R, R + d, N), constant(x)), ZERO)
                for d, x in ((-1, prev), (0, here), (1, after))))  # fmt: skip
    domain = z3.And(N >= 1, R >= 0, R <= N)
    inside = ((1 + A * A) * here - A * (prev + after)) / ((1 - A) * (1 - A))
    regions = [
        Region("r = 0", R == 0, lambda v: v["row"] == (here - A * after) / (1 - A)),
        Region("r = n", R == N, lambda v: v["row"] == (here - A * prev) / (1 - A)),
        Region("0 < r < n", z3.And(R > 0, R < N), lambda v: v["row"] == inside),
    ]
    return prove_for_every_index("row r of T⁻¹M is GS's condition over a scale", domain, {"row": row}, regions)


def dp_gives_the_boundary_conditions() -> tuple[Any, dict[str, Any]]:
    """GS Lemma 2: for an α-DP column, x₀ − αx₁ ≥ 0 and x_n − αx_{n−1} ≥ 0 (LRA; the latter is the
    mirror image)."""
    a, x0, x1 = z3.Reals("alpha x0 x1")
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1, x0 >= 0, x1 >= 0, a * x1 <= x0, a * x0 <= x1)
    query.add(x0 - a * x1 < 0)
    return run(query)


def inverse_scales_positive() -> tuple[Any, dict[str, Any]]:
    """T⁻¹'s row scales 1/(1−α) and 1/(1−α)² are positive on (0, 1)."""
    a = z3.Real("alpha")
    query = smt_query("QF_NRA")
    query.add(a > 0, a < 1)
    query.add(z3.Or(1 / (1 - a) <= 0, 1 / ((1 - a) * (1 - a)) <= 0))
    return run(query)


@check("GS-T2", kind="SYM")
def gs_theorem_2_every_n() -> Outcome:
    """GS Thm 2 for every n: the closed-form T⁻¹ is T's inverse (inverse_identities), so M = Y∘T
    has the unique solution Y = T⁻¹M, whose rows sum to 1 (T·1 = 1 gives T⁻¹·1 = 1); row r of T⁻¹M
    is GS's condition on each column divided by (1−α) (r ∈ {0, n}) or (1−α)² (inside), positive
    scales; and for an α-DP M the two boundary conditions hold (GS Lemma 2). So M is derivable iff
    the interior three-term conditions hold."""
    agree = agreement(("T", "T⁻¹", "T·T⁻¹"))
    signs = proved_if_unsat(
        {"scales positive": inverse_scales_positive(), "DP ⇒ boundary rows": dp_gives_the_boundary_conditions()}
    )
    outcome = obligations_outcome(
        [*inverse_identities(), row_of_inverse_times_column()],
        {
            **signs.evidence,
            "the definitions are the library's T and T⁻¹ (exact, every entry)": agree,
            "facts used": "T·1 = 1 (GRS-E2.2, every n), so the rows of Y = T⁻¹M sum to 1; Y = T⁻¹M is "
            "unique since T is invertible; a sum over k of terms that vanish off T⁻¹'s band is the sum over "
            "the band; the boundary rows' conditions hold for every α-DP column (GS Lemma 2, the query "
            "'DP ⇒ boundary rows', and its mirror image i ↦ n − i)",
        },
    )
    failed = [k for k, ok in agree.items() if not ok]
    if outcome.verdict == Verdict.PROVED and (signs.verdict != Verdict.PROVED or failed):
        verdict = signs.verdict if signs.verdict != Verdict.PROVED else Verdict.UNKNOWN
        outcome = Outcome(verdict, outcome.evidence, signs.reason or f"the definitions are not the library's: {failed}")
    scope = measured(
        "obligations derived from T's and T⁻¹'s definitions; " + TWO_SOLVERS,
        n=ALL_N if outcome.verdict == Verdict.PROVED else [],
        alphas="symbolic, 0 < α < 1",
        every_object=True,
    )
    return replace(outcome, scopes=(scope,))
