"""Every vertex of the α-DP polytope of GRS LP (4)–(7), exactly, and which of them some user with a
full-support prior and a strictly legal loss finds optimal — for GRS Lemmas 5.5–5.10 at small n.

**The polytope.** P(n, α) = {X : every column X_j in the α-DP cone C = {x ≥ 0 : α x_i ≤ x_{i+1} ≤
x_i/α}, Σ_j X_j = 1}. For α > 0 a column of a point of P is all zero or all positive (x_i = 0 forces
x_{i±1} = 0): proved for every feasible X by :func:`zero_chain_certificates`' exact Farkas identities.

**Vertices by signature.** At X ∈ P the tight constraints are: x ≥ 0 on the zero columns, and on a
positive column j the ↓ / ↑ entries of the signature (GRS §5.3). A positive column with signature
column s ∈ {↓, ↑, S}^n therefore lies in the span of its *segments* (maximal runs of rows joined by
↓/↑; x_{i+1} = α^{±1} x_i inside one), one scale per segment. X is a vertex iff its tight constraints
determine it: iff the (n+1) × (segments) matrix M of the segments' profiles has full column rank (then
the scales are M⁺·1). So the vertices are found by running over every choice of zero columns and
signature columns with at most n+1 segments, solving M t = 1 exactly, and keeping the solutions with
full column rank, every scale > 0 and every S entry strictly slack — which makes the choice *the*
signature of the point, so every vertex is met exactly once (no deduplication). P is invariant under
permuting the outputs, so only nondecreasing sequences of column choices are solved; the others are
their permutations.

**Users by weights** (as :mod:`mechlib.proofs.shared.remap_cells`): a user with prior p and legal loss
l is, up to a constant, the weights w_{i,k} = p_i·(g_i(k) − g_i(k−1)) ≥ 0, and the user's loss with X
is Σ w_{i,k}·τ_{i,k}(X), τ_{i,k}(X) = P_X(|j − i| ≥ k | i) (the *tails*). Full support and strict
legality ⇔ every w_{i,k} > 0.

**Optimal for some strict user** (Motzkin's transposition theorem): X ∈ P is optimal for some w > 0
iff no Z ∈ P has τ(Z) ≤ τ(X) with τ(Z) ≠ τ(X) — a *strict domination* (then every w > 0 strictly
prefers Z). A domination certificate is a convex combination of vertices, checked exactly (Z is in P
by convexity; its tails are the same combination of theirs), so "X is never optimal for a strict
user" never rests on the enumeration being complete. The converse, a user w > 0 for whom X is
optimal, is rounded from HiGHS and checked exactly against the certified Bayes LP
(:func:`mechlib.optimality.optimal.optimal_bayes_mechanism`): a counterexample to a lemma is always
such a user.

**Covering every user** (the enumeration's completeness): a point of the optimal face F_w of a strict
user is a convex combination of vertices optimal for w; its signature is the entrywise *join* of
theirs (an entry of a combination is ↓ iff it is ↓ or 0 in every vertex — a zero column meets both
DP constraints — likewise ↑; 0 iff 0 in all; else S). So a lemma about optimal vertices is decided by
the vertices not strictly dominated, and one about every optimal mechanism by the sets of vertices
some strict user finds optimal together (a set is co-optimal iff its barycentre is not strictly
dominated; :func:`co_optimal_sets` excludes pairs by certificate and checks every clique of the rest,
a superset of the co-optimal sets). P, the strict users and the tails are invariant under the mirror
x[i][j] ↦ x[n−i][n−j], so a mirror image's certificate is reused, checked again.

Floats (HiGHS) only find: a domination, a user; every verdict is checked in exact rationals.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from mechlib.core.exact import format_fraction
from mechlib.core.exact_linear import first_accepted, from_fmpq, rationalize, to_fmpq
from mechlib.core.mechanism import Mechanism
from mechlib.core.signature import DOWN, SLACK, UP
from mechlib.core.users import BayesUser
from mechlib.proofs.fuzz import jsonable
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Scope, Verdict, decide, measured, with_scope
from mechlib.proofs.shared.remap_cells import ALPHAS, _Highs, user_of, weight_coordinates

#: (n, α) the vertex lemmas are decided at: every n up to LARGEST_N at the remap cells' three α
#: (664 vertices at n = 3; n = 4 did not finish in 10 minutes, here or in cdd).
LARGEST_N = 3
VERTEX_METHOD = (
    "every vertex of the α-DP polytope (exact enumeration by signature), each either certified "
    "strictly dominated in every error tail by a mixture of vertices (optimal for no full-support, "
    "strictly legal user) or checked"
)


class VertexSet(NamedTuple):
    """Every vertex of P(n, α), with the evidence of its enumeration."""

    n: int
    alpha: Fraction
    name: str
    vertices: list[Mechanism]
    counts: dict[str, int]


def vertex_scope(method: str, ran: Iterable[tuple[int, Fraction]]) -> Scope:
    """The scope of a vertex lemma's exact part, computed from the (n, α) it decided: every
    object (every feasible X, every strict user) at each; ``method`` says how."""
    ran = list(ran)
    return measured(method, n=[n for n, _ in ran], alphas=[a for _, a in ran], every_object=True)


Pattern = tuple[str, ...]  # one signature column: n symbols of ↓ ↑ S, or () for a zero column


def _segments(pattern: Pattern, alpha: Fraction, n: int) -> list[list[Fraction]]:
    """The profiles (length n+1) of a positive column's segments under its signature column."""
    profiles: list[list[Fraction]] = []
    current = [Fraction(0)] * (n + 1)
    current[0] = Fraction(1)
    for i, symbol in enumerate(pattern):
        if symbol == SLACK:
            profiles.append(current)
            current = [Fraction(0)] * (n + 1)
            current[i + 1] = Fraction(1)
        else:
            current[i + 1] = current[i] * (alpha if symbol == DOWN else 1 / alpha)
    profiles.append(current)
    return profiles


def _combination(
    rows: Sequence[Sequence[tuple[int, Fraction]]], weights: dict[int, Fraction], size: int
) -> list[Fraction]:
    """Σ weights_k·rows_k as a dense linear form in the (n+1)² variables."""
    total = [Fraction(0)] * size
    for k, weight in weights.items():
        for var, coefficient in rows[k]:
            total[var] += weight * coefficient
    return total


def zero_chain_certificates(n: int, alpha: Fraction) -> int:
    """Exact Farkas identities on GRS LP (4)–(5)'s own rows (``dp_constraint_rows``, each ``≤ 0``):
    for every column j and rows i ≠ k, α^|k−i|·x_kj − x_ij = Σ_l α^(…)·row_l with nonnegative
    weights, so x_kj ≤ x_ij/α^|k−i| on P: a zero entry makes its whole column zero (GRS Lemma 5.3(a),
    and the premise of the vertex enumeration). For each pair (i, i+1) and column j also
    row_↓ + α·row_↑ = (α² − 1)·x_{i+1,j}: both DP constraints tight force a zero entry. Returns the
    number of identities checked; raises ``ArithmeticError`` on one that fails."""
    from mechlib.optimality.optimal import dp_constraint_rows

    size = n + 1
    rows = list(dp_constraint_rows(size, size, alpha))  # per pair (i, j): α x_ij − x_{i+1,j}, then α x_{i+1,j} − x_ij
    checked = 0
    for j in range(size):
        for i, k in itertools.permutations(range(size), 2):
            if k > i:  # α x_{h+1} − x_h ≤ 0 for h = i..k−1, weights α^(h−i)
                weights = {2 * (h * size + j) + 1: alpha ** (h - i) for h in range(i, k)}
            else:  # α x_h − x_{h+1} ≤ 0 for h = k..i−1, weights α^(i−1−h)
                weights = {2 * (h * size + j): alpha ** (i - 1 - h) for h in range(k, i)}
            expected = [Fraction(0)] * size * size
            expected[k * size + j] += alpha ** abs(k - i)
            expected[i * size + j] -= 1
            if _combination(rows, weights, size * size) != expected:
                raise ArithmeticError(f"n={n}: no chain from x[{i}][{j}] to x[{k}][{j}]")
            checked += 1
        for i in range(n):
            both = _combination(rows, {2 * (i * size + j): Fraction(1), 2 * (i * size + j) + 1: alpha}, size * size)
            expected = [Fraction(0)] * size * size
            expected[(i + 1) * size + j] = alpha * alpha - 1
            if both != expected:
                raise ArithmeticError(f"n={n}: both DP constraints at ({i}, {j}) do not force a zero")
            checked += 1
    return checked


def every_vertex(largest_n: int = LARGEST_N, alphas: Sequence[Fraction] = ALPHAS) -> Iterator[VertexSet]:
    """For each α and n ≤ ``largest_n``: every vertex of P(n, α) and the evidence — how many
    vertices, and the exact identities of :func:`zero_chain_certificates` (checked here: the
    premise of the enumeration)."""
    for alpha in alphas:
        for n in range(1, largest_n + 1):
            found = [Mechanism([list(r) for r in x]) for x in vertices(n, alpha)]
            counts = {"Farkas identities": zero_chain_certificates(n, alpha), "vertices": len(found)}
            yield VertexSet(n, alpha, f"n={n}, α={format_fraction(alpha)}", found, counts)


def decide_on_every_vertex(violations: Callable[[VertexSet], list[dict[str, Any]]], method: str) -> Outcome:
    """A property of every vertex of P(n, α), n ≤ LARGEST_N at the three α (:func:`every_vertex`):
    ``violations`` lists what breaks it in one vertex set; PROVED with none, its scope measured from
    the sets decided (``method`` says how the vertices cover every feasible X)."""
    failures: list[dict[str, Any]] = []
    evidence: dict[str, Any] = {}
    ran: list[tuple[int, Fraction]] = []
    for vertex_set in every_vertex():
        evidence[vertex_set.name] = vertex_set.counts
        ran.append((vertex_set.n, vertex_set.alpha))
        failures += violations(vertex_set)
    return with_scope(decide(failures, evidence), vertex_scope(method, ran))


def _patterns(n: int) -> list[Pattern]:
    """Every column choice: zero, then each signature column (fewest S first)."""
    columns = [tuple(p) for p in itertools.product((DOWN, UP, SLACK), repeat=n)]
    return [(), *sorted(columns, key=lambda p: p.count(SLACK))]


def _vertex_of(choice: Sequence[Pattern], alpha: Fraction, n: int) -> list[list[Fraction]] | None:
    """The vertex whose signature is ``choice`` (column by column), or None if there is none."""
    profiles = [(j, seg) for j, p in enumerate(choice) if p for seg in _segments(p, alpha, n)]
    if len(profiles) > n + 1:
        return None
    scales = _unique_solution([[seg[i] for _, seg in profiles] for i in range(n + 1)], n + 1)
    if scales is None or any(t <= 0 for t in scales):
        return None
    x = [[Fraction(0)] * (n + 1) for _ in range(n + 1)]
    for (j, seg), t in zip(profiles, scales):
        for i in range(n + 1):
            if seg[i]:
                x[i][j] = t * seg[i]
    for j, p in enumerate(choice):  # S entries must be strictly slack, else the signature differs
        for i, symbol in enumerate(p):
            if symbol == SLACK and not alpha * x[i][j] < x[i + 1][j] < x[i][j] / alpha:
                return None
    return x


def _unique_solution(system: list[list[Fraction]], rows: int) -> list[Fraction] | None:
    """The unique solution t of system·t = 1, or None (inconsistent, or a line of solutions)."""
    import flint

    width = len(system[0])
    augmented = flint.fmpq_mat(rows, width + 1, [to_fmpq(v) for row in system for v in (*row, Fraction(1))])
    reduced, rank = augmented.rref()
    if rank != width or any(reduced[r, c] != (r == c) for r in range(width) for c in range(width)):
        return None  # rank below the width (a line), or the last column is a pivot (inconsistent)
    return [from_fmpq(reduced[r, width]) for r in range(width)]


@lru_cache(maxsize=16)
def vertices(n: int, alpha: Fraction) -> tuple[tuple[tuple[Fraction, ...], ...], ...]:
    """Every vertex of P(n, α), exactly (see the module docstring), as row tuples."""
    patterns = _patterns(n)
    found: list[tuple[tuple[Fraction, ...], ...]] = []

    def extend(prefix: list[int], segments: int) -> Iterator[list[int]]:
        if len(prefix) == n + 1:
            yield prefix
            return
        for k in range(prefix[-1] if prefix else 0, len(patterns)):
            cost = 0 if k == 0 else 1 + patterns[k].count(SLACK)
            if segments + cost <= n + 1:
                yield from extend([*prefix, k], segments + cost)

    for sorted_choice in extend([], 0):
        x = _vertex_of([patterns[k] for k in sorted_choice], alpha, n)
        if x is None:
            continue
        columns = [tuple(x[i][j] for i in range(n + 1)) for j in range(n + 1)]
        seen: set[tuple[tuple[Fraction, ...], ...]] = set()
        for perm in itertools.permutations(columns):
            if perm in seen:
                continue
            seen.add(perm)
            found.append(tuple(tuple(perm[j][i] for j in range(n + 1)) for i in range(n + 1)))
    return tuple(found)


def tails(x: Sequence[Sequence[Fraction]], n: int) -> tuple[Fraction, ...]:
    """τ_{i,k}(X) = P_X(|j − i| ≥ k | i) over the users' weight coordinates (i, k)."""
    return tuple(sum((x[i][j] for j in range(n + 1) if abs(j - i) >= k), Fraction(0)) for i, k in weight_coordinates(n))


_INF = float("inf")


@dataclass(frozen=True)
class Domination:
    """Z = Σ weights_k·vertex_k (a point of P) has tails ≤ the target's, strictly somewhere."""

    support: tuple[int, ...]
    weights: tuple[Fraction, ...]


def dominates(tails_of: Sequence[Sequence[Fraction]], d: Domination, target: Sequence[Fraction]) -> bool:
    """The exact check of a domination certificate against the target tails."""
    if any(w < 0 for w in d.weights) or sum(d.weights) != 1:
        return False
    mixed = [sum((w * tails_of[k][c] for k, w in zip(d.support, d.weights)), Fraction(0)) for c in range(len(target))]
    return all(z <= t for z, t in zip(mixed, target)) and any(z < t for z, t in zip(mixed, target))


def _dominated_by_mixture(
    tails_of: Sequence[Sequence[Fraction]], approx: np.ndarray, pool: Sequence[int], target: Sequence[Fraction]
) -> Domination | None:
    """A strict domination of ``target`` by a mixture of the ``pool`` vertices: HiGHS maximises the total
    gap Σ(target − Σ y_k τ_k) over y ≥ 0, Σy = 1, Σ y_k τ_k ≤ target; the basis is then solved exactly."""
    t = np.array([float(v) for v in target])
    f = approx[list(pool)]
    a = np.vstack([f.T, np.ones((1, len(pool)))])
    y = _Highs.solve(f.sum(axis=1), a, np.r_[np.full(len(t), -_INF), 1.0], np.r_[t, 1.0], (0.0, _INF))
    if y is None or t.sum() - f.sum(axis=1) @ y <= 1e-9:
        return None
    support = [k for k in range(len(pool)) if y[k] > 1e-10]
    mixed = f[support].T @ y[support]
    tight = [c for c in range(len(t)) if mixed[c] >= t[c] - 1e-9]
    system = [[tails_of[pool[k]][c] for k in support] for c in tight] + [[Fraction(1)] * len(support)]
    rhs = [target[c] for c in tight] + [Fraction(1)]
    chosen = tuple(pool[k] for k in support)

    def accept(values: list[Fraction]) -> bool:
        return dominates(tails_of, Domination(chosen, tuple(values)), target)

    weights = first_accepted(system, rhs, [float(y[k]) for k in support], accept)
    return None if weights is None else Domination(chosen, tuple(weights))


@dataclass
class Classification:
    """The vertices of P(n, α) and, for each, an exact strict domination or none found: those
    without one (``candidates``) are the only vertices a full-support, strictly legal user can find
    optimal."""

    n: int
    alpha: Fraction
    vertices: tuple[tuple[tuple[Fraction, ...], ...], ...]
    tails: list[tuple[Fraction, ...]]
    dominated: dict[int, Domination] = field(default_factory=dict)
    candidates: list[int] = field(default_factory=list)
    by_single_vertex: int = 0

    @property
    def approx(self) -> np.ndarray:
        return np.array([[float(v) for v in t] for t in self.tails])

    def to_json(self) -> dict[str, Any]:
        return {
            "vertices": len(self.vertices),
            "strictly dominated (exact certificate)": len(self.dominated),
            "of them by one vertex": self.by_single_vertex,
            "no domination found (checked)": len(self.candidates),
        }


def classify(n: int, alpha: Fraction) -> Classification:
    """Every vertex of P(n, α), each with an exact strict domination unless HiGHS finds none."""
    found = vertices(n, alpha)
    result = Classification(n, alpha, found, [tails(x, n) for x in found])
    approx = result.approx
    undecided = []
    for v, target in enumerate(result.tails):
        below = (approx <= approx[v] + 1e-12).all(axis=1) & (approx < approx[v] - 1e-12).any(axis=1)
        for u in np.nonzero(below)[0]:
            single = Domination((int(u),), (Fraction(1),))
            if dominates(result.tails, single, target):
                result.dominated[v] = single
                result.by_single_vertex += 1
                break
        else:
            undecided.append(v)
    # a point strictly dominated is dominated by a mixture of undominated vertices (a minimal point
    # below it is one): the pool of vertices no single vertex dominates is enough to search
    mirror = _mirror(result)
    for v in undecided:
        mixture = None
        seen = result.dominated.get(mirror[v])
        if mirror[v] < v and seen is not None:  # the mirror image's certificate, mirrored and checked
            mixture = Domination(tuple(mirror[k] for k in seen.support), seen.weights)
            if not dominates(result.tails, mixture, result.tails[v]):
                mixture = None
        if mixture is None and not (mirror[v] < v and mirror[v] in result.candidates):
            mixture = _dominated_by_mixture(result.tails, approx, undecided, result.tails[v])
        if mixture is None:
            result.candidates.append(v)
        else:
            result.dominated[v] = mixture
    return result


def _mirror(c: Classification) -> list[int]:
    """The index of each vertex's mirror image x[n−i][n−j] (P, the strict users and the tails' order
    up to (i, k) ↦ (n−i, k) are invariant under it)."""
    n = c.n
    index = {x: k for k, x in enumerate(c.vertices)}
    return [index[tuple(tuple(x[n - i][n - j] for j in range(n + 1)) for i in range(n + 1))] for x in c.vertices]


def compatible_pairs(c: Classification) -> tuple[dict[int, set[int]], int]:
    """For each candidate, the candidates some strict user may find optimal with it (no strict
    domination of the pair's midpoint found), and how many pairs were excluded by an exact one. A
    pair whose mirror image was decided reuses its answer: the mirrored certificate, checked again."""
    approx = c.approx
    mirror = _mirror(c)
    partners: dict[int, set[int]] = {v: set() for v in c.candidates}
    decided: dict[tuple[int, int], Domination | None] = {}
    excluded = 0
    for u, v in itertools.combinations(c.candidates, 2):
        midpoint = [(a + b) / 2 for a, b in zip(c.tails[u], c.tails[v])]
        image = tuple(sorted((mirror[u], mirror[v])))
        if image in decided:
            seen = decided[image]
            found = None if seen is None else Domination(tuple(mirror[k] for k in seen.support), seen.weights)
            if found is not None and not dominates(c.tails, found, midpoint):
                found = _dominated_by_mixture(c.tails, approx, c.candidates, midpoint)
        else:
            found = _dominated_by_mixture(c.tails, approx, c.candidates, midpoint)
        decided[(u, v)] = found
        if found is None:
            partners[u].add(v)
            partners[v].add(u)
        else:
            excluded += 1
    return partners, excluded


def co_optimal_sets(c: Classification, largest: int | None = None) -> tuple[list[tuple[int, ...]], int]:
    """Every set of candidates (of at most ``largest``) that a strict user may find optimal together,
    and the number of pairs excluded exactly: the cliques of :func:`compatible_pairs` — a set is
    co-optimal only if each of its pairs is, so no co-optimal set is missed (a clique that is not
    co-optimal is only checked needlessly)."""
    if largest == 1:
        return [(v,) for v in c.candidates], 0
    partners, excluded = compatible_pairs(c)
    found: list[tuple[int, ...]] = []

    def extend(chosen: tuple[int, ...], common: set[int]) -> None:
        found.append(chosen)
        if largest is not None and len(chosen) >= largest:
            return
        for v in sorted(common):
            if v > chosen[-1]:
                extend((*chosen, v), common & partners[v])

    for v in c.candidates:
        extend((v,), partners[v])
    return found, excluded


def barycentre(points: Sequence[Sequence[Sequence[Fraction]]]) -> Mechanism:
    """The barycentre of points of P (its signature is the join of theirs)."""
    k, size = len(points), len(points[0])
    return Mechanism([[sum((x[i][j] for x in points), Fraction(0)) / k for j in range(size)] for i in range(size)])


def strict_user_for(c: Classification, chosen: Sequence[int]) -> list[Fraction] | None:
    """Weights w > 0 (rational) for which every chosen vertex is optimal — confirmed by the certified
    Bayes LP (their loss equals its certified optimum) — or None if none is found."""
    from mechlib.optimality.optimal import optimal_bayes_mechanism

    approx = c.approx
    m = approx.shape[1]
    pool = approx[c.candidates]
    # max t: w_c − t ≥ 0, w·(τ_u − τ_v) ≥ 0 for u in the pool and v chosen, Σw = 1 (variables w, t)
    rows = [np.r_[pool[u] - approx[v], 0.0] for v in chosen for u in range(len(pool))]
    a = np.vstack([*rows, np.hstack([np.eye(m), -np.ones((m, 1))]), np.r_[np.ones(m), 0.0][None, :]])
    lower = np.r_[np.zeros(len(rows) + m), 1.0]
    upper = np.r_[np.full(len(rows) + m, _INF), 1.0]
    x = _Highs.solve(np.r_[np.zeros(m), -1.0], a, lower, upper, (-_INF, _INF))
    if x is None or x[-1] <= 1e-9:
        return None
    for limit in (10**3, 10**6):
        w = [rationalize(max(float(v), 0.0), limit) for v in x[:m]]
        if min(w) <= 0:
            continue
        user = user_of(c.n, w)
        optimum = optimal_bayes_mechanism(user, c.alpha).value
        if all(_loss(user, c.vertices[v]) == optimum for v in chosen):
            return w
    return None


def _reference_check(c: Classification) -> str | None:
    """A guard on the certificates: for a fixed strict user (loss |i − j|) the best
    vertex left undominated must lose exactly the certified optimum of the Bayes LP — else some
    certificate excluded an optimal vertex. None when it does."""
    from mechlib.optimality.optimal import optimal_bayes_mechanism

    user = user_of(c.n, [Fraction(1)] * len(c.tails[0]))  # unit steps of |i − j| (prior ∝ the steps)
    optimum = optimal_bayes_mechanism(user, c.alpha).value
    best = min((_loss(user, c.vertices[v]) for v in c.candidates), default=None)
    if best == optimum:
        return None
    return f"the undominated vertices' best loss {best} differs from the certified optimum {optimum}"


def _loss(user: BayesUser, x: Sequence[Sequence[Fraction]]) -> Fraction:
    """The user's expected loss with x read at face value, from the prior and loss themselves (not
    from the tails, so that a confirmation does not rest on them)."""
    from mechlib.optimality.optimal import bayes_costs

    return sum((c * v for crow, row in zip(bayes_costs(user), x) for c, v in zip(crow, row)), Fraction(0))


Property = Callable[[Mechanism, Fraction], "dict[str, Any] | None"]


def decide_on_optimal(
    prop: Property,
    *,
    what: str,
    largest_set: int | None,
    largest_n: int = LARGEST_N,
    alphas: Sequence[Fraction] = ALPHAS,
) -> Outcome:
    """Decide "for every user with a full-support prior and a strictly legal loss, every optimal
    vertex (``largest_set`` = 1) / every optimal mechanism (``None``: every co-optimal set of vertices,
    through its barycentre; 2: pairs, for a property whose violation two vertices already show) has
    ``prop``" exactly, for every n ≤ ``largest_n`` at each α. A set whose barycentre breaks ``prop``
    must be certified strictly dominated (never optimal together for a strict user); otherwise the
    claim is REFUTED by a confirmed strict user, or UNKNOWN if none is confirmed. PROVED carries the
    scope of the (n, α) decided; ``what`` names the vertex sets (the lemma's reach)."""
    evidence: dict[str, Any] = {}
    ran: list[tuple[int, Fraction]] = []
    for alpha in alphas:
        for n in range(1, largest_n + 1):
            start = time.perf_counter()
            c = classify(n, alpha)
            name = f"n={n}, α={format_fraction(alpha)}"
            missing = _reference_check(c)
            if missing is not None:
                evidence[name] = {**c.to_json(), "reference user": missing}
                return Outcome(Verdict.UNKNOWN, evidence, f"{name}: {missing}")
            sets, pairs_excluded = co_optimal_sets(c, largest_set)
            excluded = 0
            for chosen in sets:
                x = barycentre([c.vertices[v] for v in chosen])
                violation = prop(x, alpha)
                if violation is None:
                    continue
                target = tails(x.rows, n)
                if _dominated_by_mixture(c.tails, c.approx, c.candidates, target) is not None:
                    excluded += 1
                    continue
                found = {"mechanism": [[format_fraction(v) for v in row] for row in x.rows], **jsonable(violation)}
                w = strict_user_for(c, chosen)
                if w is None:
                    evidence[name] = {**c.to_json(), "unsettled": found}
                    return Outcome(Verdict.UNKNOWN, evidence, f"{name}: a violation neither excluded nor confirmed")
                user = user_of(n, w)
                found["user"] = {
                    "prior": [format_fraction(p) for p in user.prior.probabilities],
                    "loss": [[format_fraction(v) for v in row] for row in user.loss.matrix],
                }
                evidence[name] = {**c.to_json(), "counterexample": found}
                return Outcome(Verdict.REFUTED, evidence, f"{name}: an optimal mechanism of a strict user breaks it")
            evidence[name] = {
                **c.to_json(),
                "vertex sets checked": len(sets),
                "pairs excluded (exact)": pairs_excluded,
                "violations excluded (exact)": excluded,
                "seconds": round(time.perf_counter() - start, 2),
            }
            ran.append((n, alpha))
    return with_scope(Outcome(Verdict.PROVED, evidence), vertex_scope(f"{VERTEX_METHOD}: {what}", ran))


def _flipped(real: Any) -> Any:
    def check(tails_of: Any, d: Domination, target: Any) -> bool:
        mirrored = [[-v for v in t] for t in tails_of]
        return bool(real(mirrored, d, [-v for v in target]))  # "dominated" now means "dominates"

    return check


def _closeness(_real: Any) -> Any:
    def closeness(x: Sequence[Sequence[Fraction]], n: int) -> tuple[Fraction, ...]:
        far = _real(x, n)
        return tuple(1 - t for t in far)  # P(|j − i| < k): users who want to be far from the truth

    return closeness


VERTEX_CLAIMS = ("GRS-L5.5", "GRS-L5.6", "GRS-L5.8", "GRS-L5.9", "GRS-L5.10")
# flipped, no domination is accepted and every vertex stays a candidate: the vertex lemmas other than
# L5.8 (true of every vertex) then meet a vertex no strict user finds optimal (the pair lemmas would
# first compare ~2·10⁵ pairs, so they are left to the mutant below)
register("strict domination checked with its inequality flipped", "flipped inequality", ("GRS-L5.9", "GRS-L5.10"),
         module_constant("mechlib.proofs.shared.dp_polytope", "dominates", _flipped))  # fmt: skip
register("error tails read as closeness (far guesses preferred)", "illegal loss", VERTEX_CLAIMS,
         module_constant("mechlib.proofs.shared.dp_polytope", "tails", _closeness))  # fmt: skip


def _dp_rows_at_alpha_squared(real: Any) -> Any:
    def rows(inputs: int, outputs: int, alpha: Fraction) -> Any:
        return real(inputs, outputs, alpha * alpha)

    return rows


register("the LP's DP rows at α² (zero chains)", "wrong α", ("GRS-L5.3", "GRS-L5.4"),
         module_constant("mechlib.optimality.optimal", "dp_constraint_rows", _dp_rows_at_alpha_squared))  # fmt: skip
