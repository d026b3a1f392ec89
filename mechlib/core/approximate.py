"""Approximate DP of a finite mechanism, exactly: the privacy profile δ(ε).

A mechanism is (ε, δ)-DP iff for every ordered neighbouring pair (i, i′) the hockey-stick
divergence H_t(x_i ‖ x_i′) = Σ_r max(0, x_i[r] − t·x_i′[r]) is at most δ, with t = e^ε (Dwork–Roth
Def. 2.4; Balle et al., "Hypothesis testing interpretations and Rényi DP", 2020). Its privacy
profile is δ(t) = max over ordered pairs of H_t.

Exactness comes from working in t = e^ε = 1/α, not in ε: H_t(P ‖ Q) = max over output sets S of
P(S) − t·Q(S), the maximum attained by the threshold sets S = {r : p_r > t·q_r}. So δ(t) is the upper
envelope of finitely many lines A − B·t (one per ordered pair and likelihood-ratio threshold), a
convex, non-increasing, piecewise-linear function whose vertices are rational for a rational
mechanism. ``privacy_profile`` computes that envelope exactly; each piece carries its witness, the
pair and the set S. The tightest ε for a given δ is then ln t* with t* rational (α* = 1/t* exact,
as for pure DP); t ≥ the last vertex gives δ_∞ = the largest mass a row puts where a neighbour
puts none (0 for a mechanism that is α-DP for some α > 0; the last vertex is then 1/α).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import groupby, pairwise
from typing import Any

from mechlib.core.mechanism import Mechanism
from mechlib.core.stochastic import IntRows


@dataclass(frozen=True)
class ProfilePiece:
    """One piece of the profile: δ(t) = P_i(S) − t·P_i′(S) on its interval, attained by the
    ordered pair (``inputs[0]``, ``inputs[1]``) (row positions) and the output set ``outputs``
    (column positions, increasing); ``inputs`` is None for the empty set (δ = 0)."""

    inputs: tuple[int, int] | None
    outputs: tuple[int, ...]
    mass: Fraction  # A = P_i(S)
    neighbour_mass: Fraction  # B = P_i′(S)

    def at(self, t: Fraction) -> Fraction:
        return self.mass - t * self.neighbour_mass


@dataclass(frozen=True)
class PrivacyProfile:
    """δ(t), t = e^ε ≥ 1, exactly: vertices 1 = t_0 < t_1 < … < t_K with δ(t_k) = ``deltas[k]``;
    piece k is linear on [t_k, t_{k+1}] and the last piece (neighbour mass 0) is constant on [t_K, ∞)."""

    ts: tuple[Fraction, ...]
    deltas: tuple[Fraction, ...]
    pieces: tuple[ProfilePiece, ...]

    def delta_at(self, t: Fraction) -> Fraction:
        """δ at t = e^ε ≥ 1."""
        if t < 1:
            raise ValueError(f"t = e^ε must be at least 1, got t={t}")
        k = max(k for k, tk in enumerate(self.ts) if tk <= t)
        return self.pieces[k].at(t)

    @property
    def delta_infinity(self) -> Fraction:
        """δ as ε → ∞: the mass no finite ε covers (0 iff some α > 0 makes the mechanism α-DP)."""
        return self.deltas[-1]

    def tightest_t(self, delta: Fraction) -> tuple[Fraction, int] | None:
        """The least t with δ(t) ≤ ``delta`` and the index of the piece it lies on (the piece
        ending there when t is a vertex > 1); None when no finite ε reaches δ."""
        if delta >= self.deltas[0]:
            return Fraction(1), 0
        if delta < self.delta_infinity:
            return None
        k = next(k for k, d in enumerate(self.deltas) if d <= delta)  # k ≥ 1: δ_0 > delta
        piece = self.pieces[k - 1]  # δ strictly decreasing on [t_{k−1}, t_k]: neighbour mass > 0
        return (piece.mass - delta) / piece.neighbour_mass, k - 1


#: A line A − B·t of the envelope: (B, A, the ordered pair, prefix length, outputs by ratio).
_Line = tuple[Fraction, Fraction, "tuple[int, int] | None", int, list[int]]
#: The same line in integers, B = b/e and A = a/d: (b, e, a, d, pair, prefix length, outputs by ratio).
_IntLine = tuple[int, int, int, int, "tuple[int, int] | None", int, list[int]]


def _pair_lines(
    rows: tuple[list[int], int], neighbour_rows: tuple[list[int], int], pair: tuple[int, int]
) -> list[_IntLine]:
    """The lines (B, A, pair, prefix length, order) of H_t(x_i ‖ x_i′) for t ≥ 1: outputs sorted by
    likelihood ratio p_r/q_r (decreasing; q_r = 0 first), one line per prefix ending at a change of
    ratio, among the outputs with ratio > 1 (a larger threshold set only lowers H at t ≥ 1)."""
    (a, d), (b, e) = rows, neighbour_rows  # x_i[r] = a[r]/d, x_i′[r] = b[r]/e
    g = math.gcd(d, e)
    left, right = e // g, d // g  # p_r > q_r ⇔ a_r·e > b_r·d, common factors cancelled (rows of T share d)
    over = [r for r, (x, y) in enumerate(zip(a, b, strict=True)) if x * left > y * right]
    order: list[int] = []
    lines: list[_IntLine] = []
    mass = neighbour_mass = 0
    for group in _by_ratio(a, b, over):
        order += group
        mass, neighbour_mass = mass + sum(a[r] for r in group), neighbour_mass + sum(b[r] for r in group)
        lines.append((neighbour_mass, e, mass, d, pair, len(order), order))
    return lines


def _by_ratio(a: list[int], b: list[int], outputs: list[int]) -> list[list[int]]:
    """``outputs`` in groups of equal ratio a_r/b_r, decreasing, b_r = 0 first. Sorted by the
    float ratio (int/int division is correctly rounded), then every adjacent pair compared exactly
    (a_r·b_s against a_s·b_r): equal ratios are grouped, and an order the floats got wrong (ratios
    they cannot tell apart, or out of their range) falls back to exact Fractions."""
    groups = [[r for r in outputs if b[r] == 0]]
    try:
        finite = sorted((r for r in outputs if b[r]), key=lambda r: -(a[r] / b[r]))
    except OverflowError:
        return _by_ratio_exactly(a, b, outputs)
    for previous, r in zip([None, *finite], finite, strict=False):
        left, right = (1, 0) if previous is None else (a[previous] * b[r], a[r] * b[previous])
        if left < right:
            return _by_ratio_exactly(a, b, outputs)
        if left == right:
            groups[-1].append(r)
        else:
            groups.append([r])
    return [g for g in groups if g]


def _by_ratio_exactly(a: list[int], b: list[int], outputs: list[int]) -> list[list[int]]:
    ratio = {r: Fraction(a[r], b[r]) if b[r] else None for r in outputs}
    order = sorted(outputs, key=lambda r: (ratio[r] is not None, -(ratio[r] or 0)))
    return [list(group) for _, group in groupby(order, key=lambda r: ratio[r])]


def privacy_profile(mechanism: Mechanism, progress: Callable[[str], None] | None = None) -> PrivacyProfile:
    """The exact privacy profile of ``mechanism`` over its neighbour pairs (both orders).

    The upper envelope of the lines A − B·t on t ≥ 1, by the convex-hull trick in exact rationals:
    lines in order of decreasing B (increasing slope), a line dropped when the next one overtakes
    its predecessor no later than it does. The empty set's line (0, 0) is always present, so the
    last piece has B = 0. The lines come from ``_dense_lines`` (numpy, every row denominator below
    ``INT64_DENOMINATOR``) or ``_pair_lines`` (Python integers, any size), screened by ``_screen``
    first; ``progress`` is told each step as it starts.
    """
    say = progress or (lambda _: None)
    num, den = mechanism.scaled()
    pairs = mechanism.ordered_neighbour_positions
    if pairs and max(den) < INT64_DENOMINATOR:
        candidates = _dense_lines(num, den, pairs, say)
    else:
        raw: list[_IntLine] = [_EMPTY]
        for x, y in pairs:
            raw += _pair_lines((list(num[x]), den[x]), (list(num[y]), den[y]), (x, y))
        candidates = _undominated(raw)
    say(f"the privacy profile: the exact envelope of {len(candidates):,} candidate lines")
    lines: list[_Line] = [
        (Fraction(b, e), Fraction(a, d), pair, count, order) for b, e, a, d, pair, count, order in candidates
    ]
    lines.sort(key=lambda line: (-line[0], -line[1]))
    hull: list[_Line] = []
    for line in lines:
        if hull and hull[-1][0] == line[0]:
            continue  # same slope, lower (or equal) intercept
        while len(hull) >= 2 and _meet(hull[-2], line) <= _meet(hull[-2], hull[-1]):
            hull.pop()
        hull.append(line)
    while len(hull) >= 2 and _meet(hull[0], hull[1]) <= 1:
        hull.pop(0)  # the max only at t ≤ 1
    ts = [Fraction(1)] + [_meet(a, b) for a, b in pairwise(hull)]
    pieces = [ProfilePiece(pair, tuple(sorted(order[:count])), a, b) for b, a, pair, count, order in hull]
    deltas = [piece.at(t) for piece, t in zip(pieces, ts)]
    return PrivacyProfile(tuple(ts), tuple(deltas), tuple(pieces))


#: The empty output set's line (δ = 0), always a candidate.
_EMPTY: _IntLine = (0, 1, 0, 1, None, 0, [])
#: ``_dense_lines`` reads the rows as int64 when every row denominator is below this: then every
#: numerator, prefix sum and product of two of them (a_r·b_s, a_r·e) is below 2⁶², and every such
#: integer below 2⁵³ converts to float exactly.
INT64_DENOMINATOR = 1 << 31
#: ``_dense_lines`` sorts this many (pair, output) cells per numpy call (≈ 10 arrays of this many int64).
_BATCH_CELLS = 1 << 19


def _dense_lines(
    num: IntRows, den: tuple[int, ...], pairs: tuple[tuple[int, int], ...], say: Callable[[str], Any]
) -> list[_IntLine]:
    """The candidate lines of every ordered pair as ``_pair_lines`` makes them, in numpy: per pair
    the outputs sorted once by the float ratio a_r/b_r, that order confirmed exactly by int64
    cross-products of neighbours in it, the lines' A and B as exact int64 prefix sums; the lines then
    screened (``_screen``) and only the survivors built as Python lines. A pair whose float order is
    wrong somewhere (ratios within a rounding of each other) is left to ``_pair_lines``, unscreened."""
    import numpy as np

    rows, dens = np.array(num, dtype=np.int64), np.array(den, dtype=np.int64)
    first, second = np.array([x for x, _ in pairs]), np.array([y for _, y in pairs])
    width = rows.shape[1]
    step = max(1, _BATCH_CELLS // width)
    say(f"the privacy profile: sorting the likelihood ratios of {len(pairs):,} ordered pairs × {width:,} outputs")
    heights, slopes, ids = [np.zeros(1)], [np.zeros(1)], [np.array([-1])]  # the empty set's line
    exact: list[_IntLine] = [_EMPTY]
    for start in range(0, len(pairs), step):
        xs, ys = first[start : start + step], second[start : start + step]
        _, sums, neighbour_sums, ends, misordered = _sorted_prefixes(rows, dens, xs, ys)
        for p in np.flatnonzero(misordered).tolist():
            x, y = int(xs[p]), int(ys[p])
            exact += _pair_lines((list(num[x]), den[x]), (list(num[y]), den[y]), (x, y))
        ends[misordered] = False
        at, k = np.nonzero(ends)
        heights.append(sums[at, k] / dens[xs][at])
        slopes.append(neighbour_sums[at, k] / dens[ys][at])
        ids.append((start + at) * width + k)
    line_ids = np.concatenate(ids)
    say(f"the privacy profile: screening {len(line_ids):,} lines")
    kept = line_ids[_screen(np.concatenate(slopes), np.concatenate(heights))]
    kept = kept[kept >= 0]
    survivors = np.unique(kept // width)
    order, sums, neighbour_sums, _, _ = _sorted_prefixes(rows, dens, first[survivors], second[survivors])
    where = {p: q for q, p in enumerate(survivors.tolist())}
    orders: dict[int, list[int]] = {}
    for line in kept.tolist():
        p, k = divmod(line, width)
        q, (x, y) = where[p], pairs[p]
        prefix = orders.setdefault(p, order[q].tolist())
        exact.append((int(neighbour_sums[q, k]), den[y], int(sums[q, k]), den[x], (x, y), k + 1, prefix))
    return exact


def _sorted_prefixes(rows: Any, dens: Any, xs: Any, ys: Any) -> tuple[Any, Any, Any, Any, Any]:
    """For the ordered pairs (xs[p], ys[p]) of int64 rows x_i[r] = a[r]/d, x_i′[r] = b[r]/e: each
    pair's outputs with a/d > b/e (ratio > 1) first, by decreasing float ratio a_r/b_r (b_r = 0 first);
    the prefix sums of a and b in that order; where a prefix is a line (the last of its ratio, in
    the ratio > 1 part); and whether the float order is wrong anywhere in that part (exactly: a_k·b_{k+1}
    < a_{k+1}·b_k). Arrays of shape pairs × outputs (the last one pairs)."""
    import numpy as np

    a, b = rows[xs], rows[ys]
    over = a * dens[ys, None] > b * dens[xs, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        key = np.where(over, -(a / b), np.inf)
    order = np.argsort(key, axis=1, kind="stable")
    a, b = np.take_along_axis(a, order, axis=1), np.take_along_axis(b, order, axis=1)
    count = over.sum(axis=1)
    cross = a[:, :-1] * b[:, 1:] - a[:, 1:] * b[:, :-1]  # ≥ 0: ratio k ≥ ratio k + 1
    inside = np.arange(a.shape[1] - 1) < (count - 1)[:, None]
    ends = np.zeros(a.shape, dtype=bool)
    ends[:, :-1] = inside & (cross > 0)
    ends[np.arange(len(count)), count - 1] |= count > 0
    return order, np.cumsum(a, axis=1), np.cumsum(b, axis=1), ends, ((cross < 0) & inside).any(axis=1)


#: Below this many lines the exact hull takes them all; above, ``_screen`` screens them first.
_SCREEN_FROM = 2000
#: The screen drops a line only where it is below a line of the envelope by more than this·(1 + t).
_MARGIN = 1e-12


def _undominated(raw: list[_IntLine]) -> list[_IntLine]:
    """The lines of ``raw`` that ``_screen`` keeps (all of them, below ``_SCREEN_FROM``)."""
    if len(raw) < _SCREEN_FROM:
        return raw
    import numpy as np

    kept = _screen(np.array([b / e for b, e, *_ in raw]), np.array([a / d for _, _, a, d, *_ in raw]))
    return [line for line, keep in zip(raw, kept.tolist()) if keep]


def _screen(slopes: Any, heights: Any) -> Any:
    """Which lines A − B·t (``heights`` A, ``slopes`` B: floats, each the correctly rounded value of an
    exact line in [0, 1]) are kept: all but those shown to lie below the envelope on t ≥ 1 (a dense
    n = 2000 mechanism has ≈ 4·10⁶ lines, a few hundred on the envelope). The float envelope comes from
    the lines no other beats at every t ≥ 0 (no other with B′ ≤ B and A′ ≥ A) by the hull trick; its
    pieces 0..K by decreasing B_k, piece k from the vertex t_k (t_0 = 1). A line with B_k ≤ B < B_{k−1}
    (k = 0: B ≥ B_0) is furthest above the convex envelope at t_k, where the envelope is L_k; it is
    dropped when L_k(t_k) − L(t_k) > 10⁻¹²·(1 + t_k): then (B, A) lies below the chord of the pieces
    k − 1 and k, L ≤ λ·L_{k−1} + (1 − λ)·L_k < max(L_{k−1}, L_k) everywhere, with room for the float
    errors (A, B within 2⁻⁵³ relative, t_k within a few ulps: within 10⁻¹⁵·(1 + t_k) in all). When the
    float envelope is not clean (vertices not increasing, not finite, last slope not 0), every line is
    kept. A boolean array over the lines."""
    import numpy as np

    if len(slopes) < _SCREEN_FROM:
        return np.ones(len(slopes), dtype=bool)
    by_slope = np.argsort(slopes)
    rising = heights[by_slope]
    front = by_slope[np.concatenate(([True], rising[1:] > np.maximum.accumulate(rising)[:-1]))]
    front = front[np.append(slopes[front][1:] != slopes[front][:-1], True)]  # of equal B, the last (largest A)
    slope_of = dict(zip(front.tolist(), slopes[front].tolist(), strict=True))
    height_of = dict(zip(front.tolist(), heights[front].tolist(), strict=True))
    hull: list[int] = []
    for k in reversed(front.tolist()):  # B decreasing, A decreasing
        while len(hull) >= 2 and _float_meet(hull[-2], k, slope_of, height_of) <= _float_meet(
            hull[-2], hull[-1], slope_of, height_of
        ):
            hull.pop()
        hull.append(k)
    while len(hull) >= 2 and _float_meet(hull[0], hull[1], slope_of, height_of) <= 1:
        hull.pop(0)
    ts = [1.0] + [_float_meet(j, k, slope_of, height_of) for j, k in pairwise(hull)]
    if not all(math.isfinite(t) for t in ts) or any(s >= t for s, t in pairwise(ts)) or slope_of[hull[-1]] != 0:
        return np.ones(len(slopes), dtype=bool)
    hull_slopes, hull_heights, vertices = slopes[hull], heights[hull], np.array(ts)
    k = len(hull) - np.searchsorted(hull_slopes[::-1], slopes, side="right")  # pieces with B_j > B
    t = vertices[k]
    return (hull_heights[k] - heights) - (hull_slopes[k] - slopes) * t <= _MARGIN * (1 + t)


def _float_meet(j: int, k: int, slopes: dict[int, float], heights: dict[int, float]) -> float:
    return (heights[j] - heights[k]) / (slopes[j] - slopes[k])


#: ``t_level`` builds T at the candidate α only while its row denominator b^n·(a + b) has at most
#: about this many bits (the exponential mechanism's x[1][0]/x[0][0] has ≈ 1000 at n = 1000).
_T_MAX_BITS = 200_000


def t_level(mechanism: Mechanism) -> Fraction | None:
    """α when ``mechanism`` is T at α (GRS Example 2.2: inputs and outputs 0..n, n ≥ 1, path
    neighbours, 0 < α < 1), else None — read off x[1][0]/x[0][0] and confirmed row by row against
    T's integer rows (O(n²) comparisons, products by small factors where the row denominators
    differ by one: T read from a file of fractions in lowest terms)."""
    from mechlib.core.families import truncated_geometric

    n = mechanism.n
    if n < 1 or not mechanism.is_count_query() or mechanism.outputs != tuple(range(n + 1)):
        return None
    num, den = mechanism.scaled()
    if not num[0][0]:
        return None
    alpha = Fraction(num[1][0] * den[0], den[1] * num[0][0])
    if not 0 < alpha < 1 or n * alpha.denominator.bit_length() > _T_MAX_BITS:
        return None  # T at that α would have numbers past _T_MAX_BITS: not built to be compared
    return alpha if mechanism == truncated_geometric(alpha, n) else None


def t_profile(alpha: Fraction) -> PrivacyProfile:
    """T's privacy profile at α in closed form, at any n ≥ 1: a pair of neighbouring rows differs by
    the factor 1/α on the outputs up to the first input and α after, which carry 1/(1 + α) and
    α/(1 + α) of the first row, so δ(t) = (1 − α·t)/(1 + α) on [1, 1/α] (the pair (0, 1), S = {0})
    and 0 from 1/α on."""
    first = ProfilePiece((0, 1), (0,), 1 / (1 + alpha), alpha / (1 + alpha))
    empty = ProfilePiece(None, (), Fraction(0), Fraction(0))
    return PrivacyProfile((Fraction(1), 1 / alpha), (first.at(Fraction(1)), Fraction(0)), (first, empty))


def _meet(first: _Line, second: _Line) -> Fraction:
    """Where A₁ − B₁t = A₂ − B₂t, for B₁ > B₂."""
    return (first[1] - second[1]) / (first[0] - second[0])


def hockey_stick(mechanism: Mechanism, t: Fraction) -> Fraction:
    """δ(t) by its definition, max over ordered neighbour pairs of Σ_r max(0, x_i[r] − t·x_i′[r])
    (the reference the envelope is tested against; O(pairs × outputs) per t)."""
    rows = mechanism.rows
    return max(
        (
            sum((max(Fraction(0), p - t * q) for p, q in zip(rows[x], rows[y], strict=True)), Fraction(0))
            for x, y in mechanism.ordered_neighbour_positions
        ),
        default=Fraction(0),
    )
