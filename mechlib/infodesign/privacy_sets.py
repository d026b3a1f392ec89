"""The ε-DP posteriors K(ε, π₀) (SY eq. (4)) and the oblivious ones K_Ω(ε, μ₀) (SY eq. (7)).

Both are "ratio sets" over a graph: a belief f is in the set iff for every edge {a, b}

    α · (f(b)/w(b)) ≤ f(a)/w(a) ≤ (1/α) · (f(b)/w(b)),        α = e^(−ε),

with w the prior (π₀ on databases, edges = adjacent databases; μ₀ on Ω, edges = {ω−t, ω} for
1 ≤ t ≤ min(T, ω)). Beliefs may be unnormalised (the conditions are scale-free), and their
entries are rationals or polynomials in α (:mod:`mechlib.infodesign.alpha`).

Vertices (SY Lemma 6, Corollary 4). Write f = w·r. A point is a vertex iff the binding
constraints r(a) = α^(±1) r(b) pin r down up to scale, i.e. the binding edges connect the graph;
then r = α^g for an integer g with |g(a) − g(b)| ≤ 1 on every edge (feasibility) and = 1 on a
connected spanning set of edges. So ext(K) = {w·α^g : g 1-Lipschitz, tight edges connected}, the
same combinatorics for every α ∈ (0, 1) — enumerated exactly below. For T = 1, K_Ω's graph is a
path and its 2^N vertices are the sign patterns of Corollary 4.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Generic, TypeVar

from mechlib.infodesign.alpha import Alpha, Poly, X, const
from mechlib.infodesign.databases import DatabaseSpace, Theta

Node = TypeVar("Node", bound=Hashable)


@dataclass(frozen=True)
class RatioViolation(Generic[Node]):
    """f(high)/w(high) > e^ε · f(low)/w(low): the belief moved more than ε from ``low`` to ``high``."""

    low: Node
    high: Node


def ratio_violation(
    f: Mapping[Node, Poly], w: Mapping[Node, Fraction], edges: Sequence[tuple[Node, Node]], alpha: Alpha
) -> RatioViolation[Node] | None:
    """The first edge where f leaves the ratio set, or None if f is in it (exact)."""
    for a, b in edges:
        for low, high in ((a, b), (b, a)):
            if alpha.sign(_slack(f, w, low, high)) < 0:
                return RatioViolation(low, high)
    return None


def _slack(f: Mapping[Node, Poly], w: Mapping[Node, Fraction], low: Node, high: Node) -> Poly:
    """f(low)·w(high) − α·f(high)·w(low): ≥ 0 iff the bound from ``low`` to ``high`` holds."""
    return f[low] * const(w[high]) - X * f[high] * const(w[low])


def omega_edges(n_omegas: int, t_max: int) -> list[tuple[int, int]]:
    """K_Ω's graph: {ω − t, ω} for 1 ≤ t ≤ min(T, ω) (SY Proposition 3)."""
    return [(w - t, w) for w in range(1, n_omegas) for t in range(1, min(t_max, w) + 1)]


def k_violation(
    space: DatabaseSpace, posterior: Mapping[Theta, Poly], prior: Mapping[Theta, Fraction], alpha: Alpha
) -> RatioViolation[Theta] | None:
    """π ∈ K(ε, π₀)? (SY eq. (4)); None if yes, else the adjacent pair that breaks it."""
    return ratio_violation(posterior, prior, space.adjacent_pairs, alpha)


def k_omega_violation(
    posterior: Sequence[Poly], mu0: Sequence[Fraction], t_max: int, alpha: Alpha
) -> RatioViolation[int] | None:
    """μ ∈ K_Ω(ε, μ₀)? (SY eq. (7)); None if yes, else the pair (ω − t, ω) that breaks it."""
    return ratio_violation(dict(enumerate(posterior)), dict(enumerate(mu0)), omega_edges(len(mu0), t_max), alpha)


def exponent_vertices(nodes: Sequence[Node], edges: Sequence[tuple[Node, Node]]) -> list[dict[Node, int]]:
    """All g: nodes → ℤ with min g = 0, |g(a) − g(b)| ≤ 1 on edges, tight edges connecting all nodes."""
    return [dict(zip(nodes, values)) for values in _exponents(tuple(nodes), tuple(edges))]


@cache
def _exponents(nodes: tuple[Node, ...], edges: tuple[tuple[Node, Node], ...]) -> tuple[tuple[int, ...], ...]:
    """Backtracking in BFS order (each node has a placed neighbour, so ≤ 3 choices), the root at
    0 and each g shifted by its minimum at the end: g ↦ g − min g is a bijection from the
    assignments with g(root) = 0 onto those with min g = 0. Cached: α-free."""
    neighbours: dict[Node, list[Node]] = {v: [] for v in nodes}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    order = _bfs(nodes[0], neighbours)
    if len(order) != len(nodes):
        raise ValueError("the graph is not connected")
    at = {v: i for i, v in enumerate(order)}  # g is a list in BFS order
    earlier = [[at[u] for u in neighbours[v] if at[u] < at[v]] for v in order]
    pairs = [(at[a], at[b]) for a, b in edges]
    found: list[tuple[int, ...]] = []
    g = [0] * len(order)

    def extend(i: int) -> None:
        if i == len(order):
            if _tight_connected(len(order), pairs, g):
                low = min(g)
                found.append(tuple(g[at[v]] - low for v in nodes))
            return
        placed = [g[j] for j in earlier[i]]
        options = range(1) if not placed else range(max(placed) - 1, min(placed) + 2)
        for value in options:
            g[i] = value
            extend(i + 1)

    extend(0)
    return tuple(found)


def _bfs(root: Node, neighbours: Mapping[Node, list[Node]]) -> list[Node]:
    seen, queue, order = {root}, deque([root]), []
    while queue:
        v = queue.popleft()
        order.append(v)
        for u in neighbours[v]:
            if u not in seen:
                seen.add(u)
                queue.append(u)
    return order


def _tight_connected(size: int, pairs: Sequence[tuple[int, int]], g: Sequence[int]) -> bool:
    """Do the tight edges (|g(a) − g(b)| = 1) connect all ``size`` nodes? (union–find)"""
    parent = list(range(size))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    components = size
    for a, b in pairs:
        if abs(g[a] - g[b]) == 1:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[ra] = rb
                components -= 1
    return components == 1


def vertex(w: Mapping[Node, Fraction], g: Mapping[Node, int]) -> dict[Node, Poly]:
    """The (unnormalised) vertex w·α^g."""
    return {v: const(w[v]) * X ** g[v] for v in w}


def k_vertices(space: DatabaseSpace, prior: Mapping[Theta, Fraction]) -> list[dict[Theta, Poly]]:
    """ext K(ε, π₀), unnormalised, as polynomials in α (valid for every α ∈ (0, 1))."""
    return [vertex(prior, g) for g in exponent_vertices(space.thetas, space.adjacent_pairs)]


def k_omega_vertices(mu0: Sequence[Fraction], t_max: int) -> list[list[Poly]]:
    """ext K_Ω(ε, μ₀), unnormalised, as polynomials in α."""
    nodes = list(range(len(mu0)))
    w = dict(enumerate(mu0))
    return [[vertex(w, g)[v] for v in nodes] for g in exponent_vertices(nodes, omega_edges(len(mu0), t_max))]


def binding_bounds(
    f: Mapping[Node, Poly], w: Mapping[Node, Fraction], edges: Sequence[tuple[Node, Node]], alpha: Alpha
) -> list[tuple[Node, Node]]:
    """Edges (low, high) where f(low)·w(high) = α·f(high)·w(low): the privacy bound is attained."""
    return [(low, high) for a, b in edges for low, high in ((a, b), (b, a)) if alpha.sign(_slack(f, w, low, high)) == 0]
