"""BN-path (Brenner–Nissim): Only path-shaped privacy graphs admit a universally optimal mechanism
(a triangle admits none).

Every check part of this claim is here (``mechlib verify --only BN-path``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.optimality.smt import dp_matrix, exact, q
from mechlib.proofs.catalogue import SMT
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, Verdict, check
from mechlib.proofs.shared.encodings import pair_mechanism
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run

Graph = list[tuple[int, int]]


#: Every connected graph on 3 and 4 vertices, up to isomorphism (on 1 and 2 vertices every
#: connected graph is a path). Vertices are query values 0..k−1; an edge joins two values that
#: neighbouring databases can take (Brenner–Nissim's privacy-constraint graph).
BN_GRAPHS: dict[str, Graph] = {
    "path P3": [(0, 1), (1, 2)],
    "triangle K3": [(0, 1), (1, 2), (0, 2)],
    "path P4": [(0, 1), (1, 2), (2, 3)],
    "star K1,3": [(0, 1), (0, 2), (0, 3)],
    "cycle C4": [(0, 1), (1, 2), (2, 3), (0, 3)],
    "paw": [(0, 1), (1, 2), (0, 2), (2, 3)],
    "diamond": [(0, 1), (1, 2), (2, 3), (0, 3), (0, 2)],
    "complete K4": [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
}


BN_ALPHAS = (Fraction(1, 2), Fraction(1, 3))


def is_path(edges: Graph, k: int) -> bool:
    """Brenner–Nissim's condition: the graph on 0..k−1 is a path (connected, k − 1 edges, every
    degree ≤ 2) — as a set of edges, whatever the labels."""
    degree = [sum(v in e for e in edges) for v in range(k)]
    seen, stack = {0}, [0]
    while stack:
        u = stack.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == u and y not in seen:
                    seen.add(y)
                    stack.append(y)
    return len(seen) == k and len(edges) == k - 1 and max(degree) <= 2


#: The characterization checked (a mutant replaces it with a wrong one).
BN_CONDITION = is_path


User = tuple[list[Fraction], Any]


def bn_users(k: int, edges: Graph) -> list[tuple[str, User]]:
    """Candidate users on 0..k−1: priors uniform on all values or on one pair; losses binary,
    |i − j| and (i − j)² on the labels, and the graph distance."""
    far = k  # unreachable never happens on a connected graph
    dist = [[0 if i == j else far for j in range(k)] for i in range(k)]
    for a, b in edges:
        dist[a][b] = dist[b][a] = 1
    for m in range(k):
        for i in range(k):
            for j in range(k):
                dist[i][j] = min(dist[i][j], dist[i][m] + dist[m][j])
    priors = [("uniform", [Fraction(1, k)] * k)] + [
        (f"on {{{u},{v}}}", [Fraction(1, 2) if w in (u, v) else Fraction(0) for w in range(k)])
        for u in range(k)
        for v in range(u + 1, k)
    ]
    losses: list[tuple[str, Callable[[int, int], int]]] = [
        ("binary", lambda i, j: int(i != j)),
        ("|i−j|", lambda i, j: abs(i - j)),
        ("(i−j)²", lambda i, j: (i - j) ** 2),
        ("graph distance", lambda i, j: dist[i][j]),
    ]
    return [(f"{pn} prior, {ln} loss", (prior, loss)) for pn, prior in priors for ln, loss in losses]


def serves_both(
    edges: Graph, k: int, users: list[User], alpha: Fraction, optima: list[Fraction] | None = None
) -> z3.Solver:
    """The query: ∃ a DP Z on inputs 0..k−1 (the given privacy graph) whose two marginals reach
    each user's exact optimal loss over DP mechanisms on the same graph?"""
    solver, z = pair_mechanism(list(range(k)), edges, k, alpha)
    best = optima or [optimal_loss_on_graph(edges, k, prior, loss, alpha) for prior, loss in users]
    goal = []
    for which, ((prior, loss), value) in enumerate(zip(users, best)):
        cost = [q(prior[i] * loss(i, (g, h)[which])) * z[i][g][h] for i in range(k) for g in range(k) for h in range(k)]
        goal.append(z3.Sum(cost) <= q(value))
    solver.add(z3.And(goal))
    return solver


def optimal_loss_on_graph(edges: Graph, k: int, prior: list[Fraction], loss: Any, alpha: Fraction) -> Fraction:
    """The exact optimal Bayes loss over α-DP mechanisms on inputs 0..k−1 with this graph (z3)."""
    opt = z3.Optimize()
    xs = dp_matrix(opt, k, alpha, edges=edges)
    objective = z3.Sum([q(prior[i] * loss(i, j)) * xs[i][j] for i in range(k) for j in range(k)])
    opt.minimize(objective)
    if opt.check() != z3.sat:
        raise RuntimeError(f"z3 could not solve the {k}-input LP")
    return exact(opt.model().eval(objective))


def path_order(edges: Graph, k: int) -> list[int] | None:
    """The vertices of a path graph from one end to the other (None if the graph is not a path)."""
    ends = [v for v in range(k) if sum(v in e for e in edges) == 1]
    if len(edges) != k - 1 or len(ends) != 2:
        return None
    order = [ends[0]]
    while len(order) < k:
        step = [b if a == order[-1] else a for a, b in edges if order[-1] in (a, b)]
        fresh = [v for v in step if v not in order]
        if len(fresh) != 1:
            return None
        order.append(fresh[0])
    return order


def t_loss(order: list[int], prior: list[Fraction], loss: Any, alpha: Fraction) -> Fraction:
    """The loss of T (along the path's ``order``) with its optimal deterministic remap."""
    k = len(order)
    t = truncated_geometric(alpha, k - 1).rows
    position = {v: p for p, v in enumerate(order)}
    return sum(
        (min(sum((prior[i] * t[position[i]][r] * loss(i, g) for i in range(k)), Fraction(0)) for g in range(k))
         for r in range(k)),
        Fraction(0),
    )  # fmt: skip


@check("BN-path", kind=SMT)
def smt_only_paths_admit_universal_mechanisms() -> Outcome:
    """Brenner–Nissim on every connected graph with 3 or 4 vertices, α ∈ {1/2, 1/3}: where
    ``BN_CONDITION`` (a path) holds, T is optimal for every candidate user (its optimal remap's
    loss equals the exact optimum over DP mechanisms on the graph, GRS Thm 3.2); where it does
    not, two candidate users are found that no single DP mechanism serves both optimally (z3
    finds the pair, then the query is decided by both solvers, non-vacuous)."""
    parts: dict[str, tuple[z3.CheckSatResult, dict[str, Any]]] = {}
    failures: list[dict[str, Any]] = []
    separated: dict[str, dict[str, str]] = {}
    t_checked: list[str] = []
    record = Record()
    for name, edges in BN_GRAPHS.items():
        k = 1 + max(v for e in edges for v in e)
        users = bn_users(k, edges)
        universal = BN_CONDITION(edges, k)
        order = path_order(edges, k)
        if universal and order is not None:
            t_checked.append(name)
        for alpha in BN_ALPHAS:
            where = f"{name}, α={format_fraction(alpha)}"
            optima = [optimal_loss_on_graph(edges, k, prior, loss, alpha) for _, (prior, loss) in users]
            if universal and order is not None:
                worse = [
                    label
                    for (label, (prior, loss)), best in zip(users, optima)
                    if t_loss(order, prior, loss, alpha) != best
                ]
                if worse:
                    failures.append({"graph": where, "T is not optimal for": worse[:3]})
            else:
                pair = _separating_pair(edges, k, users, optima, alpha)
                if universal:  # said to admit one, yet not a path: no two candidate users may be separated
                    if pair is not None:
                        found = [users[i][0] for i in pair[0]]
                        failures.append({"graph": where, "said universal, yet no mechanism serves both": found})
                elif pair is None:
                    failures.append({"graph": where, "problem": "no two candidate users are separated"})
                else:
                    (first, second), query = pair
                    separated[where] = {"first": users[first][0], "second": users[second][0]}
                    parts[f"{where}: no mechanism serves both"] = run(query)
            record.ran(alpha=alpha, what=f"{name} ({k} vertices)")
    method = TWO_SOLVERS + " (no mechanism serves both separated users); T's loss = the optimum on paths (z3 LP)"
    outcome = record.outcome(proved_if_unsat(parts), method)
    outcome.evidence["separating users"] = separated
    outcome.evidence["paths: T optimal for every candidate user"] = t_checked
    outcome.evidence["candidate users"] = "priors uniform or on one pair × losses binary, |i−j|, (i−j)², graph distance"
    if failures:
        return Outcome(Verdict.REFUTED, {**outcome.evidence, "failures": failures})
    return outcome


def _separating_pair(
    edges: Graph, k: int, users: list[tuple[str, User]], optima: list[Fraction], alpha: Fraction
) -> tuple[tuple[int, int], z3.Solver] | None:
    """The first pair of candidate users (in a fixed order) that z3 alone finds no common
    mechanism for, with its query still to be decided by :func:`run`."""
    for first in range(len(users)):
        for second in range(first + 1, len(users)):
            query = serves_both(edges, k, [users[first][1], users[second][1]], alpha, [optima[first], optima[second]])
            probe = z3.Solver()
            probe.add(*query.assertions())
            if probe.check() == z3.unsat:
                return (first, second), query
    return None


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _bn_trees(edges: Any, k: int) -> bool:
    return len(edges) == k - 1  # connected graphs: the trees (the star too)


register("Brenner–Nissim's paths → trees", "changed statement", ("BN-path",),
         module_constant(__name__, "BN_CONDITION", lambda _: _bn_trees))  # fmt: skip


def _bn_degree_two(edges: Any, k: int) -> bool:
    return all(sum(v in e for e in edges) <= 2 for v in range(k))  # paths and cycles


register("Brenner–Nissim's paths → degree ≤ 2 (cycles too)", "changed statement", ("BN-path",),
         module_constant(__name__, "BN_CONDITION", lambda _: _bn_degree_two))  # fmt: skip


register("Brenner–Nissim's paths → no graph", "changed statement", ("BN-path",),
         module_constant(__name__, "BN_CONDITION", lambda _: lambda _edges, _k: False))  # fmt: skip
