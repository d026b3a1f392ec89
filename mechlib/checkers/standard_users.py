"""Re-check of a certificate's user row whose loss is named (``"loss": "absolute" | "squared" |
"binary"``, ``mechlib.audit/5``), in integers and O(n²), written apart from the producer.

With the prior p and the matrix x[i][r] = num[i][r]/den[i], the weights w_i = p_i·x[i][r] are
integers after one common scaling L. For each output r the least expected loss min_j Σ_i w_i·l(i, j)
is found from the loss's shape — absolute: at a weighted median; squared: C(j) = S₂ − 2jS₁ + j²S₀
at ⌊S₁/S₀⌋ or the next integer; binary: W − max w — and summed; the recorded loss must equal it and
the recorded remap must reach it. The dual u: Σu = the optimum, and each column c_j − u
(c[i][j] = p_i·l(i, j)) nonnegative on the α-DP cone, by the cone recursion carried in integers
(F = N/s, s a product of α's numerator and denominator). T's integer rows (GRS Example 2.2 with
α = a/b): a^k·b^(n+1−k) at the two end columns, (b − a)·a^k·b^(n−k) inside, over b^n·(a + b), k = |i − r|;
T with the recorded remap must lose exactly the optimum (GRS Theorem 3.1).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import mul, sub
from typing import Any

from mechlib.checkers.fields import IntRows, Malformed, Q, _f, _int, _keys, _list, _same

FIELDS = {"prior_name", "loss_name", "prior", "loss", "mechanism", "optimal_remap", "optimum", "ratio", "dual"}


def loss_at(kind: str, i: int, j: int) -> int:
    return abs(i - j) if kind == "absolute" else (i - j) ** 2 if kind == "squared" else int(i != j)


def _loss_column(kind: str, n: int) -> Callable[[int], list[int]]:
    """j ↦ [l(i, j) for i in 0..n], a slice of l tabulated by i − j."""
    table = [loss_at(kind, d, 0) for d in range(-n, n + 1)]
    return lambda j: table[n - j : 2 * n + 1 - j]


def t_rows(alpha: Q, n: int) -> IntRows:
    """T at α = a/b on 0..n as integer rows (module docstring): every entry is one of 2(n + 1)
    numbers, by the distance k = |i − r| and whether r is an end column."""
    a, b = int(alpha.p), int(alpha.q)
    inside = [(b - a) * a**k * b ** (n - k) for k in range(n + 1)]
    end = [a**k * b ** (n + 1 - k) for k in range(n + 1)]
    num = [[end[i], *(inside[abs(i - r)] for r in range(1, n)), end[n - i]] for i in range(n + 1)]  # n ≥ 1
    return IntRows([b**n * (a + b)] * (n + 1), num)


def _scaled_prior(prior: list[Q], m: IntRows) -> tuple[list[int], int]:
    """(k, L) with p_i/den_i = k_i/L, integers."""
    ratios = [p / d for p, d in zip(prior, m.den)]
    common = math.lcm(*(int(r.q) for r in ratios))
    return [int(r.p) * (common // int(r.q)) for r in ratios], common


@dataclass(frozen=True)
class Matrices:
    """M and T in integer rows, with their columns (transposed once for every user)."""

    m: IntRows
    t: IntRows
    m_columns: list[tuple[int, ...]]
    t_columns: list[tuple[int, ...]]

    @classmethod
    def of(cls, m: IntRows, t: IntRows) -> Matrices:
        return cls(m, t, list(zip(*m.num)), list(zip(*t.num)))


def _columns(columns: list[tuple[int, ...]], k: list[int]) -> tuple[Iterable[Sequence[int]], int]:
    """(per output r the weights L·p_i·x[i][r]/g over i, g): g the gcd of the row factors k_i, so that
    a uniform prior over rows of one denominator weighs nothing (the columns as they are)."""
    g = math.gcd(*k)
    reduced = [v // g for v in k]
    if all(v == 1 for v in reduced):
        return columns, g
    return (list(map(mul, column, reduced)) for column in columns), g


def _least(kind: str, w: Sequence[int], column: Callable[[int], list[int]]) -> int:
    """min_j Σ_i w_i·l(i, j)."""
    total = sum(w)
    if total == 0:
        return 0
    if kind == "binary":
        return total - max(w)
    n = len(w) - 1
    if kind == "squared":
        s1 = sum(map(mul, w, range(n + 1)))
        s2 = sum(map(mul, w, (i * i for i in range(n + 1))))
        k = s1 // total
        least: int = min(s2 - 2 * j * s1 + j * j * total for j in (k, min(k + 1, n)))
        return least
    median = bisect_left(list(accumulate(w)), -(-total // 2))  # the first j with Σ_{i ≤ j} w_i ≥ W/2
    return sum(map(mul, w, column(median)))


def _guesses(remap: Any, where: str, outputs: list[int], n: int) -> list[int]:
    _keys(remap, where, {str(o) for o in outputs})
    guess = [_int(remap[str(o)], where) for o in outputs]
    if any(not 0 <= g <= n for g in guess):
        raise Malformed(f"{where}: a guess outside 0..{n}")
    return guess


def _remapped(
    columns: list[tuple[int, ...]], k: list[int], column: Callable[[int], list[int]], guess: list[int]
) -> int:
    """L·Σ_i p_i Σ_r x[i][r]·l(i, guess[r]), output by output."""
    weighted, g = _columns(columns, k)
    return g * sum(sum(map(mul, w, column(j))) for w, j in zip(weighted, guess))


def cone_nonnegative(w: Sequence[int], alpha: Q) -> bool:
    """F_n = w_n, F_i = w_i + (α·F_{i+1} if F_{i+1} ≥ 0 else F_{i+1}/α); F_0 ≥ 0 — in integers."""
    p, q = int(alpha.p), int(alpha.q)
    value, scale = w[-1], 1
    for entry in reversed(w[:-1]):
        if value >= 0:
            value, scale = entry * q * scale + p * value, scale * q
        else:
            value, scale = entry * p * scale + q * value, scale * p
    return value >= 0


def check_standard_user(u: dict[str, Any], where: str, mt: Matrices, outputs: list[int], alpha: Q, n: int) -> list[str]:
    """Failures of a user row with a named loss; its primal is T then ``t_optimal_remap`` (an
    ``optimum_mechanism`` goes with a loss matrix)."""
    _keys(u, where, FIELDS | {"t_optimal_remap"})
    kind = u["loss"]
    name = f"user ({u['prior_name']}, {u['loss_name']})"
    if kind not in ("absolute", "squared", "binary"):
        raise Malformed(f"{where}.loss: {kind!r} is not a standard loss")
    out = []
    if u["loss_name"] != kind:
        out.append(f"{name}: the loss is named {kind!r}, not {u['loss_name']!r}")
    prior = [_f(p, f"{where}.prior") for p in _list(u["prior"], f"{where}.prior", n + 1)]
    if min(prior) < 0 or sum(prior) != 1:
        return [*out, f"{name}: the prior is not a distribution"]
    if u["prior_name"] == "uniform" and prior != [Q(1, n + 1)] * (n + 1):
        out.append(f"{name}: the prior is not uniform")
    k, common = _scaled_prior(prior, mt.m)
    column = _loss_column(kind, n)
    weighted, g = _columns(mt.m_columns, k)
    best = g * sum(_least(kind, w, column) for w in weighted)
    mine = _f(u["mechanism"], f"{where}.mechanism")
    recorded = _remapped(mt.m_columns, k, column, _guesses(u["optimal_remap"], f"{where}.optimal_remap", outputs, n))
    if Q(best, common) != mine or Q(recorded, common) != mine:
        out.append(f"{name}: the mechanism's loss with its optimal remap is not {u['mechanism']}")
    dual = [_f(v, f"{where}.dual") for v in _list(u["dual"], f"{where}.dual", n + 1)]
    value = _f(u["optimum"], f"{where}.optimum")
    scale = math.lcm(*(int(p.q) for p in prior), *(int(v.q) for v in dual))
    scaled_prior = [int(p.p) * (scale // int(p.q)) for p in prior]
    scaled_dual = [int(v.p) * (scale // int(v.q)) for v in dual]
    columns_ok = all(
        cone_nonnegative(list(map(sub, map(mul, scaled_prior, column(j)), scaled_dual)), alpha) for j in range(n + 1)
    )
    if not (value == sum(dual, Q(0)) and columns_ok):
        out.append(f"{name}: the optimality certificate of {u['optimum']} does not check")
    ratio = None if value == 0 else mine / value
    if (u["ratio"] is None) != (ratio is None) or (ratio is not None and not _same(u["ratio"], ratio, where)):
        out.append(f"{name}: the ratio is not mechanism/optimum")
    kt, common_t = _scaled_prior(prior, mt.t)
    steps = _guesses(u["t_optimal_remap"], f"{where}.t_optimal_remap", list(range(n + 1)), n)
    if Q(_remapped(mt.t_columns, kt, column, steps), common_t) != value:
        out.append(f"{name}: T with the recorded remap does not reach the optimum (GRS Thm 3.1)")
    return out
