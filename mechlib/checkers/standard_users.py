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
from collections.abc import Sequence
from typing import Any

from mechlib.checkers.fields import IntRows, Malformed, Q, _f, _int, _keys, _list, _same

FIELDS = {"prior_name", "loss_name", "prior", "loss", "mechanism", "optimal_remap", "optimum", "ratio", "dual"}


def loss_at(kind: str, i: int, j: int) -> int:
    return abs(i - j) if kind == "absolute" else (i - j) ** 2 if kind == "squared" else int(i != j)


def t_rows(alpha: Q, n: int) -> IntRows:
    """T at α = a/b on 0..n as integer rows (module docstring)."""
    a, b = int(alpha.p), int(alpha.q)

    def entry(i: int, r: int) -> int:
        k = abs(i - r)
        value: int = a**k * b ** (n + 1 - k) if r in (0, n) else (b - a) * a**k * b ** (n - k)
        return value

    num = [[entry(i, r) for r in range(n + 1)] for i in range(n + 1)]
    return IntRows([b**n * (a + b)] * (n + 1), num)


def _scaled_prior(prior: list[Q], m: IntRows) -> tuple[list[int], int]:
    """(k, L) with p_i/den_i = k_i/L, integers."""
    ratios = [p / d for p, d in zip(prior, m.den)]
    common = math.lcm(*(int(r.q) for r in ratios))
    return [int(r.p) * (common // int(r.q)) for r in ratios], common


def _least(kind: str, w: Sequence[int]) -> int:
    """min_j Σ_i w_i·l(i, j)."""
    total = sum(w)
    if total == 0:
        return 0
    if kind == "binary":
        return total - max(w)
    if kind == "squared":
        s1 = sum(i * v for i, v in enumerate(w))
        s2 = sum(i * i * v for i, v in enumerate(w))
        k = s1 // total
        return min(s2 - 2 * j * s1 + j * j * total for j in (k, min(k + 1, len(w) - 1)))
    below = 0
    for j, v in enumerate(w):  # the first j with Σ_{i ≤ j} w_i ≥ W/2 is a weighted median
        below += v
        if 2 * below >= total:
            return sum(v * abs(i - j) for i, v in enumerate(w))
    raise AssertionError("unreachable: the weights sum to W")


def _guesses(remap: Any, where: str, outputs: list[int], n: int) -> list[int]:
    _keys(remap, where, {str(o) for o in outputs})
    guess = [_int(remap[str(o)], where) for o in outputs]
    if any(not 0 <= g <= n for g in guess):
        raise Malformed(f"{where}: a guess outside 0..{n}")
    return guess


def _remapped(m: IntRows, k: list[int], kind: str, guess: list[int]) -> int:
    """L·Σ_i p_i Σ_r x[i][r]·l(i, guess[r])."""
    return sum(
        ki * sum(a * loss_at(kind, i, g) for a, g in zip(row, guess) if a)
        for i, (row, ki) in enumerate(zip(m.num, k))
        if ki
    )


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


def check_standard_user(
    u: dict[str, Any], where: str, m: IntRows, outputs: list[int], alpha: Q, n: int, t: IntRows
) -> list[str]:
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
    k, common = _scaled_prior(prior, m)
    best = sum(_least(kind, [a * ki for a, ki in zip(column, k)]) for column in zip(*m.num))
    mine = _f(u["mechanism"], f"{where}.mechanism")
    recorded = _remapped(m, k, kind, _guesses(u["optimal_remap"], f"{where}.optimal_remap", outputs, n))
    if Q(best, common) != mine or Q(recorded, common) != mine:
        out.append(f"{name}: the mechanism's loss with its optimal remap is not {u['mechanism']}")
    dual = [_f(v, f"{where}.dual") for v in _list(u["dual"], f"{where}.dual", n + 1)]
    value = _f(u["optimum"], f"{where}.optimum")
    scale = math.lcm(*(int(p.q) for p in prior), *(int(v.q) for v in dual))
    scaled_prior = [int(p.p) * (scale // int(p.q)) for p in prior]
    scaled_dual = [int(v.p) * (scale // int(v.q)) for v in dual]
    columns_ok = all(
        cone_nonnegative(
            [pi * loss_at(kind, i, j) - ui for i, (pi, ui) in enumerate(zip(scaled_prior, scaled_dual))], alpha
        )
        for j in range(n + 1)
    )
    if not (value == sum(dual, Q(0)) and columns_ok):
        out.append(f"{name}: the optimality certificate of {u['optimum']} does not check")
    ratio = None if value == 0 else mine / value
    if (u["ratio"] is None) != (ratio is None) or (ratio is not None and not _same(u["ratio"], ratio, where)):
        out.append(f"{name}: the ratio is not mechanism/optimum")
    kt, common_t = _scaled_prior(prior, t)
    steps = _guesses(u["t_optimal_remap"], f"{where}.t_optimal_remap", list(range(n + 1)), n)
    if Q(_remapped(t, kt, kind, steps), common_t) != value:
        out.append(f"{name}: T with the recorded remap does not reach the optimum (GRS Thm 3.1)")
    return out
