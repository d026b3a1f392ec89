"""Re-check of a certificate's user row whose loss is named (``"loss": "absolute" | "squared" |
"binary"``, ``mechlib.audit/8``), in integers and O(n²), written apart from the producer.

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
from functools import cache
from itertools import accumulate
from operator import mul, sub
from typing import Any

from mechlib.checkers import numbers
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
    # row i, columns 1..n−1: distances i−1, …, 1 (r < i), then |i − r| from max(i, 1) − i up to n−1−i (r ≥ i);
    # slices, not an abs() per entry; n ≥ 1
    num = [
        [end[i], *(inside[i - 1 : 0 : -1] if i > 1 else ()), *inside[(0 if i else 1) : n - i], end[n - i]]
        for i in range(n + 1)
    ]
    return IntRows([b**n * (a + b)] * (n + 1), num)


@dataclass(frozen=True)
class TColumns:
    """T's integer column r (``t_rows``) as c_r·e_{|i−r|} with e_k = a^k·b^(n−k), c_r = b at the end
    columns and b − a inside, and the prefix sums P_m[k] = Σ_{k′<k} k′^m·e_{k′} (m = 0, 1, 2): a
    standard loss of any column at any guess is then O(1) integer work instead of a pass over n + 1
    entries (the column is two geometric runs, GRS Example 2.2)."""

    e: list[int]
    prefix: tuple[list[int], list[int], list[int]]
    c: list[int]

    @classmethod
    def of(cls, alpha: Q, n: int) -> TColumns:
        a, b = int(alpha.p), int(alpha.q)
        e = [a**k * b ** (n - k) for k in range(n + 1)]
        prefix = tuple([0, *accumulate(k**m * v for k, v in enumerate(e))] for m in range(3))
        return cls(e, prefix, [b if r in (0, n) else b - a for r in range(n + 1)])  # type: ignore[arg-type]

    def _span(self, lo: int, hi: int, c2: int, c1: int, c0: int) -> int:
        """Σ_{k=lo}^{hi} e_k·(c2·k² + c1·k + c0); 0 when lo > hi."""
        if lo > hi:
            return 0
        p0, p1, p2 = self.prefix
        return c2 * (p2[hi + 1] - p2[lo]) + c1 * (p1[hi + 1] - p1[lo]) + c0 * (p0[hi + 1] - p0[lo])

    def loss(self, kind: str, r: int, g: int) -> int:
        """Σ_i T_num[i][r]·l(i, g): rows i = r − k (k = 0..r) and i = r + k (k = 1..n − r), where
        i − g = d − k and d + k with d = r − g."""
        n, d = len(self.e) - 1, r - g
        if kind == "binary":
            total = self._span(0, r, 0, 0, 1) + self._span(1, n - r, 0, 0, 1)
            return self.c[r] * (total - self.e[abs(d)])
        if kind == "squared":
            return self.c[r] * (self._span(0, r, 1, -2 * d, d * d) + self._span(1, n - r, 1, 2 * d, d * d))
        left = self._span(0, min(r, d), 0, -1, d) + self._span(max(0, d + 1), r, 0, 1, -d)  # |d − k|
        right = self._span(max(1, -d), n - r, 0, 1, d) + self._span(1, min(n - r, -d - 1), 0, -1, -d)  # |d + k|
        return self.c[r] * (left + right)


def numbers_fit(alpha: Q, n: int) -> bool:
    """The users are decided only where their numbers are readable: every integer below
    B = 3·(a² + b²)·(b − a)²·(n + 1)³·n²·b^n·(a + b) < 10^MAX_DIGITS at α = a/b (b_r has denominator
    (n + 1)·b^n·(a + b) and numerator ≤ (n + 1)·n² times it; u = (T⁻¹)ᵀb adds (b − a)²)."""
    a, b = int(alpha.p), int(alpha.q)
    if n * (b.bit_length() - 1) > 4 * numbers.MAX_DIGITS:  # b^n ≥ 2^(n·(bits − 1)) > 10^MAX_DIGITS: no power taken
        return False
    bound = 3 * (a * a + b * b) * (b - a) ** 2 * (n + 1) ** 3 * max(n, 1) ** 2 * b**n * (a + b)
    return bool(bound < 10**numbers.MAX_DIGITS)


def _scaled_prior(prior: list[Q], den: list[int]) -> tuple[list[int], int]:
    """(k, L) with p_i/den_i = k_i/L, integers."""
    ratios = [p / d for p, d in zip(prior, den)]
    common = math.lcm(*(int(r.q) for r in ratios))
    return [int(r.p) * (common // int(r.q)) for r in ratios], common


@dataclass(frozen=True)
class Matrices:
    """M and T by columns, each over one common denominator (computed once for every user: rows
    written in lowest terms have different denominators, and a uniform prior then weighs nothing)."""

    m_columns: list[tuple[int, ...]]
    m_den: list[int]
    t_columns: list[tuple[int, ...]]
    t_den: list[int]
    #: T's columns by formula (``TColumns``), as the checker built T from α
    t_geometric: TColumns
    #: M is T itself (the certificate wrote it as T·Y with Y the identity)
    m_is_t: bool

    @classmethod
    def of(cls, m: IntRows, t: IntRows, alpha: Q) -> Matrices:
        """``t`` is ``t_rows(alpha, n)``; ``m is t`` when the certificate wrote M as T·Y with Y the identity."""
        t_columns, geometric = _common_columns(t), TColumns.of(alpha, len(t.num) - 1)
        if m is t:
            return cls(*t_columns, *t_columns, geometric, True)
        return cls(*_common_columns(m), *t_columns, geometric, False)


def _common_columns(x: IntRows) -> tuple[list[tuple[int, ...]], list[int]]:
    common = math.lcm(*x.den)
    if all(d == common for d in x.den):
        return list(zip(*x.num)), x.den
    rows = (row if d == common else list(map((common // d).__mul__, row)) for row, d in zip(x.num, x.den))
    return list(zip(*rows)), [common] * len(x.den)


def _columns(columns: list[tuple[int, ...]], k: list[int]) -> tuple[Iterable[Sequence[int]], int]:
    """(per output r the weights L·p_i·x[i][r]/g over i, g): g the gcd of the row factors k_i, so that
    a uniform prior over rows of one denominator weighs nothing (the columns as they are)."""
    g = math.gcd(*k)
    reduced = [v // g for v in k]
    if all(v == 1 for v in reduced):
        return columns, g
    return (list(map(mul, column, reduced)) for column in columns), g


def _column_losses(
    kind: str, w: Sequence[int], guesses: Sequence[int], only_at: Callable[[int], list[int]] | None
) -> tuple[int, list[int]]:
    """(min_j Σ_i w_i·l(i, j), [Σ_i w_i·l(i, g) for g in guesses]) from one or two passes over w:
    binary C(g) = W − w_g; squared C(g) = S₂ − 2g·S₁ + g²·W, least at ⌊S₁/W⌋ or the next integer;
    absolute C(g) = g·A_g − B_g + (S₁ − B_g) − g·(W − A_g) with the prefix sums A_g = Σ_{i<g} w_i,
    B_g = Σ_{i<g} i·w_i, least at the first j with A_{j+1} ≥ W/2 (a weighted median).
    With ``only_at`` (j ↦ l(·, j)), only C(g) — one pass per distinct guess — and the least as 0."""
    if kind == "binary":
        total = sum(w)
        return (total - max(w) if only_at is None else 0), [total - w[g] for g in guesses]
    if only_at is not None:
        found = {g: sum(map(mul, w, only_at(g))) for g in set(guesses)}
        return 0, [found[g] for g in guesses]
    total = sum(w)
    n = len(w) - 1
    if kind == "squared":
        s1: int = sum(map(mul, w, range(n + 1)))
        s2: int = sum(map(mul, w, _squares(n)))

        def squared(g: int) -> int:
            return s2 - 2 * g * s1 + g * g * total

        k = s1 // total if total else 0
        return min(squared(k), squared(min(k + 1, n))), list(map(squared, guesses))
    below = [0, *accumulate(w)]  # A_g
    moment: list[int] = [0, *accumulate(map(mul, w, range(n + 1)))]  # B_g
    s1 = moment[-1]

    def absolute(g: int) -> int:
        return g * below[g] - moment[g] + (s1 - moment[g]) - g * (total - below[g])

    median = max(bisect_left(below, -(-total // 2)) - 1, 0)  # the first j with A_{j+1} ≥ W/2
    return absolute(median), list(map(absolute, guesses))


@cache
def _squares(n: int) -> list[int]:
    return [i * i for i in range(n + 1)]


def _guesses(remap: Any, where: str, outputs: list[int], n: int) -> list[int]:
    _keys(remap, where, {str(o) for o in outputs})
    guess = [_int(remap[str(o)], where) for o in outputs]
    if any(not 0 <= g <= n for g in guess):
        raise Malformed(f"{where}: a guess outside 0..{n}")
    return guess


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
    k, common = _scaled_prior(prior, mt.m_den)
    column = _loss_column(kind, n)
    guess = _guesses(u["optimal_remap"], f"{where}.optimal_remap", outputs, n)
    dual = [_f(v, f"{where}.dual") for v in _list(u["dual"], f"{where}.dual", n + 1)]
    value = _f(u["optimum"], f"{where}.optimum")
    kt, common_t = _scaled_prior(prior, mt.t_den)
    steps = _guesses(u["t_optimal_remap"], f"{where}.t_optimal_remap", list(range(n + 1)), n)
    mine = _f(u["mechanism"], f"{where}.mechanism")
    # M's loss at the optimum: the recorded remap is then optimal for M with no search, as every remap
    # of the α-DP M is α-DP and none loses less than the optimum (certified by the dual below)
    at_optimum = mine == value
    # one pass per column of M for its least loss (unless at_optimum) and its loss at the recorded
    # guess — and, when M is T (an audit of T), at T's recorded guess: b_r of GRS Thm 3.1's dual
    t_is_m = mt.m_den == mt.t_den and mt.m_columns == mt.t_columns  # the same matrix: M's weights are T's
    weighted, g = _columns(mt.m_columns, k)
    best = recorded = 0
    b_scaled: list[int] = []
    if mt.m_is_t and at_optimum and len(set(k)) == 1:  # weights g·T[i][r]: O(1) a column
        recorded = g * sum(mt.t_geometric.loss(kind, r, guess[r]) for r in range(n + 1))
        b_scaled = [g * mt.t_geometric.loss(kind, r, steps[r]) for r in range(n + 1)]
        weighted = ()
    for r, w in enumerate(weighted):
        least, at = _column_losses(
            kind, w, (guess[r], steps[r]) if t_is_m else (guess[r],), column if at_optimum else None
        )
        best, recorded = best + least, recorded + at[0]
        if t_is_m:
            b_scaled.append(g * at[1])
    if (not at_optimum and Q(g * best, common) != mine) or Q(g * recorded, common) != mine:
        out.append(f"{name}: the mechanism's loss with its optimal remap is not {u['mechanism']}")
    if not t_is_m:
        weighted_t, g_t = _columns(mt.t_columns, kt)
        if len(set(kt)) == 1:  # weights g_t·T[i][r]: T's columns by formula, O(1) each
            b_scaled = [g_t * mt.t_geometric.loss(kind, r, j) for r, j in enumerate(steps)]
        else:
            b_scaled = [g_t * sum(map(mul, w, column(j))) for w, j in zip(weighted_t, steps)]
    b = [Q(v, common_t) for v in b_scaled]  # b_r = Σ_i p_i·T[i][r]·l(i, steps[r])
    if not (value == sum(dual, Q(0)) and _dual_feasible(prior, dual, kind, alpha, _rays(dual, b, steps, alpha))):
        out.append(f"{name}: the optimality certificate of {u['optimum']} does not check")
    ratio = None if value == 0 else mine / value
    if (u["ratio"] is None) != (ratio is None) or (ratio is not None and not _same(u["ratio"], ratio, where)):
        out.append(f"{name}: the ratio is not mechanism/optimum")
    if sum(b, Q(0)) != value:
        out.append(f"{name}: T with the recorded remap does not reach the optimum (GRS Thm 3.1)")
    return out


def _rays(dual: list[Q], b: list[Q], steps: list[int], alpha: Q) -> list[int]:
    """Per column j, an output r of T with steps[r] = j on whose column c_j − u is exactly 0, or −1.
    When u = (T⁻¹)ᵀb (checked exactly, with T⁻¹ tridiagonal: GS Lemma 2) every such r qualifies:
    (c_j − u)·T[·][r] = b_r − (Tᵀu)_r = 0. Otherwise (another dual) none is used."""
    n = len(dual) - 1
    inside, end = (1 + alpha * alpha) / (1 - alpha) ** 2, 1 / (1 - alpha)
    off_inside, off_end = -alpha / (1 - alpha) ** 2, -alpha / (1 - alpha)

    def inverse(r: int, i: int) -> Q:  # T⁻¹[r][i]
        if abs(r - i) > 1:
            return Q(0)
        if r in (0, n):
            return end if r == i else off_end
        return inside if r == i else off_inside

    for i in range(n + 1):
        if dual[i] != sum((inverse(r, i) * b[r] for r in range(max(0, i - 1), min(n, i + 1) + 1)), Q(0)):
            return [-1] * (n + 1)
    ray = [-1] * (n + 1)
    for r in range(n, -1, -1):
        ray[steps[r]] = r
    return ray


def _down(x: Any, buffer: Any = None) -> Any:
    """x ← fl(x − d), d = fl(fl(|x|·2⁻⁵¹) + η), in place (η = 2⁻¹⁰⁷⁴, the least subnormal): at or
    below the float next under x, so a lower bound on every real that rounds to nearest to x — the
    one-ulp outward step ``np.nextafter(x, −∞)``, at half its cost. Why, with g the gap from x to
    the float under it (g = 2^(e−52) for |x| in [2^e, 2^(e+1)), g = η for |x| < 2⁻¹⁰²²): |x|·2⁻⁵¹ ≥ 2g,
    a float, so fl(|x|·2⁻⁵¹) ≥ 2g and d ≥ g, and as η is a float, d ≥ η; then x − d ≤ x − g, a float,
    so fl(x − d) ≤ x − g (fl is monotone). −∞ stays −∞; +∞ and NaN give NaN, which no test passes."""
    import numpy as np

    buffer = np.empty_like(x) if buffer is None else buffer
    np.abs(x, out=buffer)
    np.multiply(buffer, 2.0**-51, out=buffer)
    np.add(buffer, 5e-324, out=buffer)
    return np.subtract(x, buffer, out=x)


def _dual_feasible(prior: list[Q], dual: list[Q], kind: str, alpha: Q, ray: list[int]) -> bool:
    """Every column w = c_j − u, c[i][j] = p_i·l(i, j), nonnegative on the α-DP cone.

    First on float intervals stepped one ulp outward after every operation (round-to-nearest is
    within half an ulp, so each interval holds the exact value): a column with ray r (w·x = 0 on
    x_i = α^|i−r|) is proved when the cone recursion F_i = w_i + (αF_{i+1} if F_{i+1} ≥ 0 else
    F_{i+1}/α) provably follows x: the tail sums S_k = Σ_{i ≥ k} w_i·x_i/x_k are ≥ 0 for k > r
    (S_k = w_k + α·S_{k+1}) and ≤ 0 for 1 ≤ k ≤ r, i.e. P_k = −S_k = α·(P_{k−1} + w_{k−1}) ≥ 0
    (P_0 = 0) — then F_0 = S_0 = 0. Both runs multiply a lower bound x by α's lower bound alone: where
    x < 0 the product is still < 0 but may not bound α·x, which does not matter — a column needs S
    (resp. P) ≥ 0 at every step of one unbroken run (k > r, resp. 1 ≤ k ≤ r), so a negative value
    inside the run has already failed it and one outside is never read. Any other column by the
    recursion itself on intervals. What the intervals leave open is decided in integers
    (``cone_nonnegative``)."""
    import numpy as np

    n = len(dual) - 1
    try:
        # int / int is correctly rounded (to nearest) in Python; one ulp each way then encloses it
        rows = [prior, dual, [alpha, 1 / alpha]]
        near = [np.array([int(v.p) / int(v.q) for v in row]) for row in rows]
    except OverflowError:
        open_columns: Iterable[int] = range(n + 1)
    else:
        lower, upper = [np.nextafter(row, -np.inf) for row in near], [np.nextafter(row, np.inf) for row in near]
        (a_lo, b_lo), (a_hi, b_hi) = lower[2], upper[2]
        index = np.arange(n + 1, dtype=float)
        d = np.subtract.outer(index, index)  # i − j, exact in floats
        losses = np.abs(d, out=d) if kind == "absolute" else np.square(d, out=d) if kind == "squared" else d != 0
        lo = np.multiply(lower[0][:, None], losses)  # a lower bound on c_ij − u_i, in place
        _down(lo)
        np.subtract(lo, upper[1][:, None], out=lo)
        _down(lo)
        rays, buffer = np.array(ray), np.empty(n + 1)
        with np.errstate(all="ignore"):
            # lower bounds on S_k (k = n..1) and P_k (k = 1..n); where they are provably ≥ 0 (NaN: not)
            proved_s, proved_p = np.empty((n + 1, n + 1), bool), np.empty((n + 1, n + 1), bool)
            proved_s[0] = proved_p[0] = True
            s, q = lo[n].copy(), np.zeros(n + 1)
            for k in range(1, n + 1):
                if k > 1:  # S_{n+1−k} from S_{n+2−k}
                    _down(np.multiply(s, a_lo, out=s), buffer)
                    _down(np.add(s, lo[n + 1 - k], out=s), buffer)
                np.greater_equal(s, 0, out=proved_s[n + 1 - k])
                _down(np.add(q, lo[k - 1], out=q), buffer)  # P_k from P_{k−1}
                _down(np.multiply(q, a_lo, out=q), buffer)
                np.greater_equal(q, 0, out=proved_p[k])
            # column j with ray r is proved when S_k ≥ 0 for every k > r and P_k ≥ 0 for every k ≤ r:
            # the last unproved S at or before r, the first unproved P after r
            open_s, open_p = ~proved_s, ~proved_p
            last_open_s = np.where(open_s.any(axis=0), n - np.argmax(open_s[::-1], axis=0), -1)
            first_open_p = np.where(open_p.any(axis=0), np.argmax(open_p, axis=0), n + 1)
            ok = (rays >= 0) & (last_open_s <= rays) & (first_open_p > rays)
            rest = (~ok).nonzero()[0]  # the recursion itself, on the columns no ray proved
            hi = np.multiply(upper[0][:, None], losses[:, rest])
            np.nextafter(hi, np.inf, out=hi)
            np.subtract(hi, lower[1][:, None], out=hi)
            np.nextafter(hi, np.inf, out=hi)
            lo_rest = lo[:, rest]
            f_lo, f_hi = lo_rest[n], hi[n]
            for k in range(n - 1, -1, -1) if rest.size else ():
                step_lo = np.where(f_lo >= 0, a_lo * f_lo, b_hi * f_lo)
                step_hi = np.where(f_hi >= 0, a_hi * f_hi, b_lo * f_hi)
                f_lo = np.nextafter(lo_rest[k] + np.nextafter(step_lo, -np.inf), -np.inf)
                f_hi = np.nextafter(hi[k] + np.nextafter(step_hi, np.inf), np.inf)
        if (f_hi < 0).any():
            return False
        open_columns = [int(j) for j in rest[~(f_lo >= 0)]]
    if not open_columns:
        return True
    scale = math.lcm(*(int(p.q) for p in prior), *(int(v.q) for v in dual))
    scaled_prior = [int(p.p) * (scale // int(p.q)) for p in prior]
    scaled_dual = [int(v.p) * (scale // int(v.q)) for v in dual]
    column = _loss_column(kind, n)
    return all(
        cone_nonnegative(list(map(sub, map(mul, scaled_prior, column(j)), scaled_dual)), alpha) for j in open_columns
    )
