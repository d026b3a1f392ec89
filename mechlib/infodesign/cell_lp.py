"""Certified bracket on the least expected squared error of an ε-DP mechanism over a cell graph.

Cells are what a mechanism may depend on (histograms of a database for permutation-invariant
mechanisms, SY Prop. 5; values of ω for oblivious ones, SY Prop. 3), with prior mass π(c), a
statistic ω(c) and an adjacency (cells one changed record apart). A mechanism m(s | c) is ε-DP iff
m(s|c) ≤ e^ε m(s|c′) on every edge. The user best-responds with the posterior mean, so a
mechanism's loss is Σ_s Var(ω | s)·P(s). We bracket V* = inf over all ε-DP mechanisms.

**Upper bound** (a feasible mechanism's exact loss). A *retraction* r of the cells onto a small
box B (r = id on B, adjacent cells map to adjacent-or-equal cells) turns any DP mechanism x on B
into the DP mechanism x∘r on all cells. HiGHS solves the LP over x on B with actions on a grid,
each box cell carrying the cost of its whole fibre r⁻¹(c); the solution is rationalised and mixed
with a little of the uniform distribution over the used actions until it is exactly DP for a
rational E_lo ≤ e^ε; its loss with posterior-mean actions is computed in rationals.

**Lower bound** (a dual bound). Drop the cells outside B (their losses are ≥ 0 and dropping
constraints only relaxes). For the grid G = {0, h, …, ω_max(B)} and duals y ≥ 0 of the DP rows
x(u) − E_hi·x(v) ≤ 0 (E_hi ≥ e^ε), set λ(c) = min_{g∈G} [π(c)(ω(c) − g)² + (Aᵀy_g)(c)]. Then for
every action a ∈ ℝ, interpolating y between neighbouring grid points,
π(ω − a)² − λ + (h²/4)·π + Aᵀy_a ≥ 0 (the quadratic lies at most h²/4·π below its chord; outside
[0, ω_max] the end points dominate), and weak duality gives
V* ≥ Σ_{c∈B} λ(c) − (h²/4)·Σ_{c∈B} π(c). Only the sparse y is kept; λ is recomputed exactly.

Floats (HiGHS's interior point method) only find x and y; every number reported is exact, and
:mod:`mechlib.checkers.bracket_certificate` re-verifies both bounds from the certificate alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from mechlib.errors import InputError


@dataclass(frozen=True)
class CellGraph:
    """All cells (prior, statistic, adjacency) and a retraction onto a box of them."""

    prior: tuple[Fraction, ...]
    omega: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]
    retract: tuple[int, ...]  # cell -> box cell (a cell index with retract[b] == b)
    factor_lo: Fraction  # rational E_lo ≤ e^ε
    factor_hi: Fraction  # rational E_hi ≥ e^ε

    def __post_init__(self) -> None:
        if sum(self.prior) != 1:
            raise InputError(f"the cell prior sums to {self.prior and sum(self.prior)}", hint="expected 1")
        if any(self.retract[b] != b for b in self.retract):
            raise InputError("the retraction does not fix its box", hint="expected retract[retract[c]] == retract[c]")

    @property
    def box(self) -> list[int]:
        return sorted(set(self.retract))

    def box_edges(self) -> list[tuple[int, int]]:
        inside = set(self.box)
        return [(u, v) for u, v in self.edges if u in inside and v in inside]


@dataclass(frozen=True)
class Bracket:
    """lower ≤ V* ≤ upper, each with its exact witness."""

    upper: Fraction
    lower: Fraction
    mechanism: dict[int, dict[int, Fraction]]  # box cell -> {action index: probability}
    actions: tuple[Fraction, ...]  # recommended action values of the mechanism's outputs
    grid_step: Fraction
    grid_top: Fraction
    duals: dict[tuple[int, int, int], Fraction]  # (u, v, grid index) -> y for x(u) − E_hi x(v) ≤ 0
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def gap(self) -> Fraction:
        return self.upper - self.lower


def _lp(
    costs: np.ndarray, edges: Sequence[tuple[int, int]], factor: float
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """HiGHS IPM on min Σ cost·x, rows of x sum to 1, x(u,k) − factor·x(v,k) ≤ 0 both ways."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    cells, k = costs.shape
    directed = [(u, v) for a, b in edges for u, v in ((a, b), (b, a))]
    r = np.arange(len(directed) * k)
    uu = np.repeat([u for u, _ in directed], k) * k + np.tile(np.arange(k), len(directed))
    vv = np.repeat([v for _, v in directed], k) * k + np.tile(np.arange(k), len(directed))
    a_ub = coo_matrix(
        (
            np.concatenate([np.ones(len(r)), -factor * np.ones(len(r))]),
            (np.concatenate([r, r]), np.concatenate([uu, vv])),
        ),
        shape=(len(r), cells * k),
    ).tocsr()
    a_eq = coo_matrix(
        (np.ones(cells * k), (np.repeat(np.arange(cells), k), np.arange(cells * k))), shape=(cells, cells * k)
    )
    res = linprog(
        costs.ravel(), A_ub=a_ub, b_ub=np.zeros(len(r)), A_eq=a_eq.tocsr(), b_eq=np.ones(cells), method="highs-ipm"
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS: {res.message}")
    return res.x.reshape(cells, k), -res.ineqlin.marginals.reshape(len(directed), k), directed


def grid(step: Fraction, top: Fraction) -> list[Fraction]:
    count = int(top / step)
    return [step * i for i in range(count + 1)] + ([top] if step * count != top else [])


def posterior_mean_loss(graph: CellGraph, mechanism: dict[int, dict[int, Fraction]]) -> Fraction:
    """Σ_s [E(ω²; s) − E(ω; s)²/P(s)] for the mechanism x∘r on all cells (exact)."""
    s0: dict[int, Fraction] = {}
    s1: dict[int, Fraction] = {}
    s2: dict[int, Fraction] = {}
    for c, (p, w) in enumerate(zip(graph.prior, graph.omega)):
        for k, x in mechanism[graph.retract[c]].items():
            q = p * x
            s0[k] = s0.get(k, Fraction(0)) + q
            s1[k] = s1.get(k, Fraction(0)) + q * w
            s2[k] = s2.get(k, Fraction(0)) + q * w * w
    return sum((s2[k] - s1[k] ** 2 / s0[k] for k in s0 if s0[k] > 0), Fraction(0))


def _exact_mechanism(graph: CellGraph, x: np.ndarray, box: list[int]) -> dict[int, dict[int, Fraction]]:
    """Round x to 12 decimals (rows summing to 1), then mix in the uniform distribution on the
    used actions until x(u) ≤ E_lo·x(v) holds exactly on every box edge."""
    used = [k for k in range(x.shape[1]) if x[:, k].max() > 1e-9]
    rows = {}
    for i, c in enumerate(box):
        raw = [Fraction(round(max(float(x[i, k]), 0.0) * 10**12), 10**12) for k in used]
        raw[raw.index(max(raw))] += 1 - sum(raw, Fraction(0))
        rows[c] = raw
    uniform = Fraction(1, len(used))
    factor = graph.factor_lo
    gamma = Fraction(0)
    for u, v in graph.box_edges():
        for a, b in ((u, v), (v, u)):
            for xa, xb in zip(rows[a], rows[b]):
                excess = xa - factor * xb
                if excess > 0:
                    gamma = max(gamma, excess / (excess + (factor - 1) * uniform))
    if gamma > 0:
        gamma = Fraction(int(gamma * 10**12) + 1, 10**12)
    return {c: {k: (1 - gamma) * v + gamma * uniform for k, v in zip(used, row)} for c, row in rows.items()}


def lower_bound(
    graph: CellGraph, points: Sequence[Fraction], step: Fraction, duals: dict[tuple[int, int, int], Fraction]
) -> Fraction:
    """Σ_{c∈B} λ(c) − (h²/4)·π(B), λ(c) = min_g [π(c)(ω(c) − g)² + (Aᵀy_g)(c)] (see module doc)."""
    box = graph.box
    adjust: dict[tuple[int, int], Fraction] = {}
    for (u, v, k), y in duals.items():
        adjust[(u, k)] = adjust.get((u, k), Fraction(0)) + y
        adjust[(v, k)] = adjust.get((v, k), Fraction(0)) - graph.factor_hi * y
    total = Fraction(0)
    for c in box:
        p, w = graph.prior[c], graph.omega[c]
        total += min(p * (w - g) ** 2 + adjust.get((c, k), Fraction(0)) for k, g in enumerate(points))
    return total - step * step / 4 * sum((graph.prior[c] for c in box), Fraction(0))


def bracket(graph: CellGraph, step: Fraction, progress: Callable[[str], Any] | None = None) -> Bracket:
    """The certified bracket [lower, upper] on V* with actions on a grid of step ``step``."""
    say = progress or (lambda _: None)
    box = graph.box
    index = {c: i for i, c in enumerate(box)}
    top = Fraction(max(graph.omega[c] for c in box))
    points = grid(step, top)
    g = np.array([float(v) for v in points])
    seconds: dict[str, float] = {}

    say(f"upper bound: LP over {len(box)} cells × {len(points)} actions")
    start = time.perf_counter()
    fibre = np.zeros((len(box), len(points)))
    for c, (p, w) in enumerate(zip(graph.prior, graph.omega)):
        fibre[index[graph.retract[c]]] += float(p) * (w - g) ** 2
    edges = [(index[u], index[v]) for u, v in graph.box_edges()]
    x, _, _ = _lp(fibre, edges, float(graph.factor_lo))
    mechanism = _exact_mechanism(graph, x, box)
    upper = posterior_mean_loss(graph, mechanism)
    seconds["upper"] = time.perf_counter() - start

    say(f"lower bound: dual LP over {len(box)} cells × {len(points)} actions")
    start = time.perf_counter()
    own = np.array([[float(graph.prior[c]) * (graph.omega[c] - gv) ** 2 for gv in g] for c in box])
    _, y, directed = _lp(own, edges, float(graph.factor_hi))
    duals = {
        (box[u], box[v], k): Fraction(f"{y[r, k]:.8e}")
        for r, (u, v) in enumerate(directed)
        for k in range(len(points))
        if y[r, k] > 1e-15
    }
    lower = lower_bound(graph, points, step, duals)
    seconds["lower"] = time.perf_counter() - start
    return Bracket(upper, lower, mechanism, tuple(points), step, top, duals, seconds)
