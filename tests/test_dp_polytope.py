"""Every vertex of the α-DP polytope and the exact parts of GRS Lemmas 5.3–5.10 built on it
(mechlib.proofs.shared.dp_polytope)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import flint
import pytest

from mechlib import truncated_geometric
from mechlib.core.exact_linear import solve, to_fmpq
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import is_dp
from mechlib.core.remap import Remap
from mechlib.core.signature import Signature, signature
from mechlib.core.stochastic import compose
from mechlib.proofs.catalogue import Strength
from mechlib.proofs.grs.lemma_5_4 import binding_of_signature, binding_set
from mechlib.proofs.grs.lemma_5_9 import column_structure_violation
from mechlib.proofs.registry import Verdict
from mechlib.proofs.shared.dp_polytope import (
    classify,
    co_optimal_sets,
    decide_on_optimal,
    dominates,
    tails,
    vertices,
    zero_chain_certificates,
)

HALF = Fraction(1, 2)


def _constraints(n: int, alpha: Fraction) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """GRS LP (4)–(7) written out independently: the ≥ 0 rows (x ≥ 0, then the two DP rows per
    pair) and the row sums."""
    size = n + 1
    width = size * size

    def unit(*terms: tuple[int, Fraction]) -> list[Fraction]:
        row = [Fraction(0)] * width
        for var, c in terms:
            row[var] += c
        return row

    inequalities = [unit((v, Fraction(1))) for v in range(width)]
    for i in range(n):
        for j in range(size):
            up, down = i * size + j, (i + 1) * size + j
            inequalities.append(unit((down, Fraction(1)), (up, -alpha)))
            inequalities.append(unit((up, Fraction(1)), (down, -alpha)))
    sums = [unit(*((i * size + j, Fraction(1)) for j in range(size))) for i in range(size)]
    return inequalities, sums


@pytest.mark.slow
def test_the_vertices_at_n_2_are_those_of_every_basis() -> None:
    """(~17 s) Brute force over every choice of n(n+1) inequalities made tight with the row sums: the
    feasible points with a unique solution are exactly the enumerated vertices."""
    n, alpha = 2, Fraction(2, 3)
    inequalities, sums = _constraints(n, alpha)
    width = (n + 1) ** 2
    found = set()
    for chosen in itertools.combinations(range(len(inequalities)), width - n - 1):
        rows = sums + [inequalities[k] for k in chosen]
        if flint.fmpq_mat(width, width, [to_fmpq(v) for r in rows for v in r]).det() == 0:
            continue
        x = solve(rows, [Fraction(1)] * (n + 1) + [Fraction(0)] * (width - n - 1))
        assert x is not None
        if all(sum(c * v for c, v in zip(r, x)) >= 0 for r in inequalities):
            found.add(tuple(x))
    assert found == {tuple(v for row in x for v in row) for x in vertices(n, alpha)}


@pytest.mark.parametrize("alpha", [HALF, Fraction(1, 3)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_enumerated_point_is_a_vertex(n: int, alpha: Fraction) -> None:
    """Each is α-DP and stochastic, and its tight constraints have full rank; no point twice."""
    inequalities, sums = _constraints(n, alpha)
    width = (n + 1) ** 2
    found = vertices(n, alpha)
    assert len(set(found)) == len(found)
    for x in found:
        assert is_dp(Mechanism([list(r) for r in x]), alpha)
        flat = [v for row in x for v in row]
        tight = [r for r in inequalities if sum(c * v for c, v in zip(r, flat)) == 0]
        assert flint.fmpq_mat(len(tight) + n + 1, width, [to_fmpq(v) for r in sums + tight for v in r]).rank() == width


def test_vertex_counts() -> None:
    """4, 27 and 664 vertices at n = 1, 2, 3 (cdd, in floats, finds the same 664 at n = 3)."""
    assert [len(vertices(n, HALF)) for n in (1, 2, 3)] == [4, 27, 664]


def _monotone_remaps_of_t(n: int, alpha: Fraction) -> set[tuple[Fraction, ...]]:
    """Y∘T for Y sending contiguous blocks of T's outputs, in order, to increasing columns."""
    t = truncated_geometric(alpha, n)
    found = set()
    for k in range(1, n + 2):
        for cuts in itertools.combinations(range(1, n + 1), k - 1):
            bounds = [0, *cuts, n + 1]
            for columns in itertools.combinations(range(n + 1), k):
                block = {r: columns[b] for b in range(k) for r in range(bounds[b], bounds[b + 1])}
                y = Remap.deterministic(block, list(range(n + 1)), list(range(n + 1)))
                found.add(tuple(v for row in compose(y, t).rows for v in row))
    return found


@pytest.mark.parametrize("alpha", [HALF, Fraction(2, 3)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_undominated_vertices_are_the_monotone_remaps_of_t(n: int, alpha: Fraction) -> None:
    """Every other vertex carries an exact strict domination; the C(2n+1, n) left are Y∘T."""
    c = classify(n, alpha)
    assert len(c.candidates) == comb(2 * n + 1, n)
    assert all(dominates(c.tails, d, c.tails[v]) for v, d in c.dominated.items())
    assert len(c.dominated) + len(c.candidates) == len(c.vertices)
    undominated = {tuple(v for row in c.vertices[k] for v in row) for k in c.candidates}
    assert undominated == _monotone_remaps_of_t(n, alpha)


def test_a_domination_must_be_strict_and_below() -> None:
    c = classify(2, HALF)
    v, d = next(iter(c.dominated.items()))
    assert dominates(c.tails, d, c.tails[v])
    dominator = [
        sum((w * c.tails[k][i] for k, w in zip(d.support, d.weights)), Fraction(0)) for i in range(len(c.tails[v]))
    ]
    assert not dominates(c.tails, d, dominator)  # equal tails: not strict
    assert not dominates(c.tails, d, [t - 1 for t in c.tails[v]])  # above the target


def test_tails_are_the_error_tails() -> None:
    t = truncated_geometric(HALF, 2)
    assert tails(t.rows, 2) == (1 - t.rows[0][0], t.rows[0][2], 1 - t.rows[1][1], 1 - t.rows[2][2], t.rows[2][0])


def test_co_optimal_sets_contain_the_pairs_around_t() -> None:
    """Every undominated vertex is a co-optimal set; some pairs are excluded exactly; the vertex
    lemmas' singletons need no pair at all."""
    c = classify(2, HALF)
    sets, excluded = co_optimal_sets(c)
    assert excluded > 0 and all(len(s) <= 4 for s in sets)
    assert {(v,) for v in c.candidates} <= set(sets)
    assert co_optimal_sets(c, 1) == ([(v,) for v in c.candidates], 0)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_zero_chains(n: int) -> None:
    """(n+1)·n(n+1) chains and (n+1)·n pair identities."""
    assert zero_chain_certificates(n, Fraction(1, 3)) == (n + 1) * n * (n + 1) + (n + 1) * n


def test_a_false_lemma_is_refuted_by_a_confirmed_strict_user() -> None:
    """ "No optimal vertex of a strict user has an S entry" is false (merged outputs of T): the
    exact part finds the vertex, and a user w > 0 for whom the certified LP confirms it optimal."""

    def no_slack(x: Mechanism, alpha: Fraction) -> dict[str, str] | None:
        sig = signature(x, alpha)
        return {"signature": str(sig)} if any("S" in row for row in sig.rows) else None

    outcome = decide_on_optimal(no_slack, what="test", largest_set=1, largest_n=2, alphas=(HALF,))
    assert outcome.verdict == Verdict.REFUTED
    (found,) = [e["counterexample"] for e in outcome.evidence.values() if "counterexample" in e]
    assert "S" in found["signature"] and all(Fraction(p) > 0 for p in found["user"]["prior"])


def test_a_true_property_is_proved_with_counts() -> None:
    outcome = decide_on_optimal(lambda x, a: None, what="test", largest_set=None, largest_n=2, alphas=(HALF,))
    assert outcome.verdict == Verdict.PROVED
    assert outcome.evidence["n=2, α=1/2"]["vertices"] == 27
    (scope,) = outcome.scopes  # computed from the (n, α) decided, not declared
    assert scope.measured and scope.strength == Strength.BOUNDED and scope.n == "1 ≤ n ≤ 2 (every n)"


def _sig(*columns: str) -> Signature:
    rows = tuple(tuple(col[i] for col in columns) for i in range(len(columns[0])))
    return Signature(HALF, tuple(range(len(columns))), rows)


def test_lemma_5_9_checks_p1_to_p3() -> None:
    assert column_structure_violation(signature(truncated_geometric(HALF, 4), HALF)) is None
    assert column_structure_violation(_sig("↓↓", "↑↓", "↑↑")) is None
    assert column_structure_violation(_sig("↓↑", "↑↓", "↑↓"))["part"] == "P1"  # type: ignore[index]
    assert column_structure_violation(_sig("↑↓", "↓↓", "↑↑"))["part"] == "P2"  # type: ignore[index]
    assert column_structure_violation(_sig("↓↓", "↑↓", "↑↓"))["part"] == "P2"  # type: ignore[index]
    assert column_structure_violation(_sig("↓↓↓", "↑↑↓", "↑↑↑"))["part"] == "P3"  # type: ignore[index]


def test_binding_of_signature_reads_like_the_lp_rows() -> None:
    """On T and on a mechanism with a zero column and an S entry."""
    t = truncated_geometric(HALF, 3)
    assert binding_set(t, HALF) == binding_of_signature(signature(t, HALF))
    x = Mechanism(
        [[Fraction(2, 3), Fraction(1, 3), 0], [Fraction(1, 2), Fraction(1, 2), 0], [Fraction(1, 3), Fraction(2, 3), 0]]
    )
    assert binding_set(x, HALF) == binding_of_signature(signature(x, HALF))


def test_the_ten_claims_parts_are_bounded() -> None:
    """Each claim of issue 33 made BOUNDED has an EXACT part whose scope is measured when it runs
    (none declared beside it), and its catalogue entry asks for BOUNDED (so a shortfall would be
    reported)."""
    import mechlib.proofs  # noqa: F401  (registers every claim module)
    from mechlib.proofs.catalogue import CATALOGUE
    from mechlib.proofs.registry import REGISTRY

    for cid in ("GRS-L5.3", "GRS-L5.4", "GRS-L5.5", "GRS-L5.6", "GRS-L5.8", "GRS-L5.9", "GRS-L5.10", "GRS-LP"):
        assert "EXACT" in [kind for kind, _ in REGISTRY[cid].parts], cid
        assert CATALOGUE[cid].target == Strength.BOUNDED and "EXACT" in CATALOGUE[cid].kinds, cid


def test_gs_lemma_5s_exact_part_is_bounded_by_what_it_ran() -> None:
    """GS-L5's exact part: every co-optimal set at n ≤ 3, three α, its scope measured (BOUNDED)."""
    from mechlib.proofs.catalogue import Strength
    from mechlib.proofs.gs.section_4_2 import exact_adjacent_row_structure
    from mechlib.proofs.registry import run_part

    outcome = run_part(exact_adjacent_row_structure)
    assert outcome.verdict == Verdict.PROVED, outcome.reason
    (scope,) = outcome.scopes
    assert scope.measured and scope.strength == Strength.BOUNDED and scope.n == "1 ≤ n ≤ 3 (every n)"
    assert len(outcome.evidence) == 9 and all(e["vertex sets checked"] > 0 for e in outcome.evidence.values())


@pytest.mark.parametrize(
    "mutant", ["GS-L5: no free column between adjacent rows (c₂ = c₁ + 1)", "GS-L5: the structure read at α²"]
)
def test_gs_lemma_5s_exact_part_fails_under_its_mutants(mutant: str) -> None:
    """A violation of the stronger statement leaves the existence claim undecided: UNKNOWN, not REFUTED."""
    from mechlib.proofs.gs.section_4_2 import exact_adjacent_row_structure
    from mechlib.proofs.mutants import MUTANTS, applied
    from mechlib.proofs.registry import run_part

    with applied(MUTANTS[mutant]):
        outcome = run_part(exact_adjacent_row_structure)
    assert outcome.verdict == Verdict.UNKNOWN and "lacks the structure" in (outcome.reason or "")
