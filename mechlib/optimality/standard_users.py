"""The three standard users at scale: absolute, squared and binary loss (GRS §2.2), any prior.

For these losses the best guess for an output r depends only on the posterior weights
w_i = p_i·x[i][r] (integers here, after one common scaling), with W = Σ w_i:

* absolute, l = |i − j|: C(j) − C(j − 1) = 2·Σ_{i < j} w_i − W, so the minimisers are the weighted
  medians {j : 2·Σ_{i < j} w_i ≤ W ≤ 2·Σ_{i ≤ j} w_i}, an interval;
* squared, l = (i − j)²: C(j) = W·(j − S/W)² + const with S = Σ i·w_i, so the minimisers are the
  integers nearest the posterior mean S/W (two of them when it is a half-integer);
* binary, l = [i ≠ j]: C(j) = W − w_j, so the minimisers are the posterior modes.

An optimal remap therefore costs O(n) per output instead of the O(n²) of a general loss
(``mechlib.core.post_processing.optimal_remap``, whose tie rule is kept: r itself if it is a
minimiser, else the nearest minimiser, the smaller on equal distance). The loss and the vector b
of GRS Theorem 3.1's dual (``mechlib.optimality.optimal.optimum_of_t``) are integer work; the
dual's check — every column c_j − u nonnegative on the α-DP cone — runs on rigorous float
intervals, with exact integers for what they leave open (``dual_columns_nonnegative``). A
certificate names the loss instead of writing its (n + 1)² entries.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, compress
from operator import mul, sub
from typing import Any

from mechlib.core.intervals import cone_minimum_signs, down, enclose, ray_is_a_minimiser, up
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import StochasticMatrix
from mechlib.core.users import BayesUser, Loss, Prior, absolute_loss, binary_loss, squared_loss
from mechlib.optimality.optimal import OptimumOfT

#: The standard losses, by name.
STANDARD_LOSSES = ("absolute", "squared", "binary")


def loss_value(kind: str, i: int, j: int) -> int:
    """l(i, j) of a standard loss."""
    return abs(i - j) if kind == "absolute" else (i - j) ** 2 if kind == "squared" else int(i != j)


def numbers_fit(alpha: Fraction, n: int) -> bool:
    """Whether every integer of a standard user's certified optimum at α = a/b on 0..n has at most
    ``MAX_DIGITS`` digits, so that a checker reads it back: with D = b^n·(a + b), T's denominator,
    b_r = N_r/((n + 1)·D) with 0 ≤ N_r ≤ (n + 1)·n²·D, and u = (T⁻¹)ᵀb over (b − a)² more, every
    numerator and denominator is below B = 3·(a² + b²)·(b − a)²·(n + 1)³·n²·D (checked exactly).
    At the default 4000 digits: n ≤ 8300 at α = 1/3, about 3990 at α = 1/10."""
    from mechlib.core import exact

    return bool(_bound(alpha, n) < 10**exact.MAX_DIGITS)


def digits_needed(alpha: Fraction, n: int) -> int:
    """The least ``MAX_DIGITS`` at which ``numbers_fit(alpha, n)`` holds (the bound's digits)."""
    bound = _bound(alpha, n)
    digits = max(1, bound.bit_length() * 30103 // 100000)  # at most the digits: bound < 2^bits, 0.30103 > log₁₀ 2
    while 10**digits <= bound:
        digits += 1
    return digits


def _bound(alpha: Fraction, n: int) -> int:
    a, b = alpha.numerator, alpha.denominator
    return int(3 * (a * a + b * b) * (b - a) ** 2 * (n + 1) ** 3 * max(n, 1) ** 2 * b**n * (a + b))


def loss_array(kind: str, offsets: Any) -> Any:
    """``loss_value`` on a numpy array of signed distances i − j, as floats (exact below 2⁵³)."""
    import numpy as np

    if kind == "absolute":
        return np.abs(offsets).astype(float)
    if kind == "squared":
        return (offsets * offsets).astype(float)
    return (offsets != 0).astype(float)


def loss_columns(kind: str, n: int) -> Callable[[int], list[int]]:
    """j ↦ [l(0, j), …, l(n, j)], each a slice of one precomputed list of l by signed distance."""
    by_offset = [loss_value(kind, d, 0) for d in range(n, -n - 1, -1)]  # index n − j + i ↔ i − j

    def column(j: int) -> list[int]:
        return by_offset[n - j : 2 * n + 1 - j]

    return column


@dataclass(frozen=True)
class StandardUser:
    """A Bayesian user with a standard loss (``kind``) and any exact prior on 0..n."""

    kind: str
    prior: Prior

    def __post_init__(self) -> None:
        if self.kind not in STANDARD_LOSSES:
            raise ValueError(f"kind={self.kind!r} is not one of {STANDARD_LOSSES}")

    @property
    def n(self) -> int:
        return self.prior.n

    def loss(self) -> Loss:
        """The loss matrix ((n + 1)² exact entries: for small n and the general code)."""
        return {"absolute": absolute_loss, "squared": squared_loss, "binary": binary_loss}[self.kind](self.n)

    def as_bayes_user(self) -> BayesUser:
        return BayesUser(self.prior, self.loss())


def _row_weights(mechanism: StochasticMatrix, prior: Prior) -> tuple[list[int], int]:
    """(m, L): m_i = L·p_i/den_i in integers, so that p_i·x[i][r] = num[i][r]·m_i / L, in lowest
    terms (a uniform prior over rows of one denominator gives m_i = 1: the columns are the
    weights as they are)."""
    _, den = mechanism.scaled()
    ratios = [p / d for p, d in zip(prior.probabilities, den, strict=True)]
    common = math.lcm(*(r.denominator for r in ratios))
    weights = [r.numerator * (common // r.denominator) for r in ratios]
    g = math.gcd(common, *weights)
    return [w // g for w in weights], common // g


def _minimisers(kind: str, w: Sequence[int], total: int) -> tuple[int, int] | list[int]:
    """The guesses of least expected loss for weights w (total = Σw): an interval (lo, hi), or a
    list (modes)."""
    n = len(w) - 1
    if total == 0:  # an output of probability 0: every guess ties
        return (0, n)
    if kind == "binary":
        return list(compress(range(n + 1), map(max(w).__eq__, w)))
    if kind == "absolute":
        return _median_interval([0, *accumulate(w)], total, n)
    return _nearest_to_mean(sum(map(mul, w, range(n + 1))), total)


def _median_interval(below: Sequence[int], total: int, n: int) -> tuple[int, int]:
    """The weighted medians, from below[j] = Σ_{i < j} w_i (j = 0..n + 1, nondecreasing)."""
    lo = bisect_left(below, -(-total // 2), 1) - 1  # the first j with 2·Σ_{i ≤ j} w_i ≥ W
    hi = bisect_right(below, total // 2, 0, n + 1) - 1  # the last j with 2·Σ_{i < j} w_i ≤ W
    return (lo, hi)


def _nearest_to_mean(first: int, total: int) -> tuple[int, int]:
    """The integers nearest the mean first/total (first = Σ i·w_i): the squared loss's minimisers."""
    k, rest = divmod(first, total)
    if rest == 0:
        return (k, k)
    side = 2 * first - (2 * k + 1) * total
    return (k, k) if side < 0 else (k + 1, k + 1) if side > 0 else (k, k + 1)


@dataclass(frozen=True)
class GeometricColumns:
    """T's integer columns (``families.truncated_geometric`` at α = p/q: numerators over q^n·(q + p))
    as c_r·e_{|i−r|}, e_k = p^k·q^(n−k), c_r = q at the two end columns and q − p inside (GRS
    Example 2.2), with the prefix sums P_m[k] = Σ_{k′<k} k′^m·e_{k′}, m = 0, 1, 2: a column's total,
    partial sums, first moment and loss at a guess are O(1) integer work, not a pass over n + 1
    entries. Column r's rows are i = r − k (k = 0..r) and i = r + k (k = 1..n − r)."""

    e: tuple[int, ...]
    prefix: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    c: tuple[int, ...]

    @classmethod
    def of(cls, alpha: Fraction, n: int) -> GeometricColumns:
        p, q = alpha.numerator, alpha.denominator
        e = tuple(p**k * q ** (n - k) for k in range(n + 1))
        p0, p1, p2 = (tuple([0, *accumulate(k**m * v for k, v in enumerate(e))]) for m in range(3))
        return cls(e, (p0, p1, p2), tuple(q if r in (0, n) else q - p for r in range(n + 1)))

    @property
    def n(self) -> int:
        return len(self.e) - 1

    def span(self, lo: int, hi: int, c2: int, c1: int, c0: int) -> int:
        """Σ_{k=lo}^{hi} e_k·(c2·k² + c1·k + c0); 0 when lo > hi."""
        if lo > hi:
            return 0
        p0, p1, p2 = self.prefix
        return c2 * (p2[hi + 1] - p2[lo]) + c1 * (p1[hi + 1] - p1[lo]) + c0 * (p0[hi + 1] - p0[lo])

    def total(self, r: int) -> int:
        return self.c[r] * (self.span(0, r, 0, 0, 1) + self.span(1, self.n - r, 0, 0, 1))

    def below(self, r: int, j: int) -> int:
        """Σ_{i < j} of column r (j = 0..n + 1)."""
        if j <= r:
            return self.c[r] * self.span(r - j + 1, r, 0, 0, 1)
        return self.c[r] * (self.span(0, r, 0, 0, 1) + self.span(1, j - 1 - r, 0, 0, 1))

    def first(self, r: int) -> int:
        """Σ_i i·(column r)_i: rows r − k and r + k."""
        return self.c[r] * (self.span(0, r, 0, -1, r) + self.span(1, self.n - r, 0, 1, r))

    def loss(self, kind: str, r: int, g: int) -> int:
        """Σ_i (column r)_i·l(i, g); i − g is d − k on the left and d + k on the right, d = r − g."""
        n, d = self.n, r - g
        if kind == "binary":
            return self.total(r) - self.c[r] * self.e[abs(d)]
        if kind == "squared":
            return self.c[r] * (self.span(0, r, 1, -2 * d, d * d) + self.span(1, n - r, 1, 2 * d, d * d))
        left = self.span(0, min(r, d), 0, -1, d) + self.span(max(0, d + 1), r, 0, 1, -d)  # |d − k|
        right = self.span(max(1, -d), n - r, 0, 1, d) + self.span(1, min(n - r, -d - 1), 0, -1, -d)  # |d + k|
        return self.c[r] * (left + right)

    def minimisers(self, kind: str, r: int) -> tuple[int, int] | list[int]:
        """``_minimisers`` of column r (a uniform prior: the weights are the column)."""
        n = self.n
        if kind == "binary":  # e_k strictly decreases (α < 1): the mode is row r alone
            return [r]
        if kind == "absolute":
            return _median_interval(_Below(self, r), self.total(r), n)
        return _nearest_to_mean(self.first(r), self.total(r))


class _Below(Sequence[int]):
    """below[j] = Σ_{i < j} of T's column r, computed on demand (for bisect: O(log n) look-ups)."""

    def __init__(self, columns: GeometricColumns, r: int) -> None:
        self._columns, self._r = columns, r

    def __len__(self) -> int:
        return self._columns.n + 2

    def __getitem__(self, j: Any) -> Any:
        return self._columns.below(self._r, j)


def _chosen(found: tuple[int, int] | list[int], label: object) -> int:
    """``optimal_remap``'s tie rule: the label if it is a minimiser, else the nearest one (the
    smaller on equal distance), else (a label that is not an integer) the smallest."""
    if isinstance(found, tuple):
        lo, hi = found
        if isinstance(label, int) and not isinstance(label, bool):
            return min(max(label, lo), hi)
        return lo
    if isinstance(label, int) and not isinstance(label, bool):
        return label if label in found else min(found, key=lambda j: (abs(j - label), j))
    return found[0]


def optimal_remap(mechanism: StochasticMatrix, user: StandardUser) -> Remap:
    """The user's optimal deterministic remap of ``mechanism`` (the same as the general
    ``optimal_remap`` gives, tie rule included), in O(n) per output."""
    weights, _ = _row_weights(mechanism, user.prior)
    mapping = {}
    columns = zip(mechanism.outputs, _weighted_columns(mechanism, weights), _totals(mechanism, weights), strict=True)
    for label, w, total in columns:
        mapping[label] = _chosen(_minimisers(user.kind, w, total), label)
    return Remap.deterministic(mapping, mechanism.outputs, list(range(user.n + 1)))


def remapped_loss(mechanism: StochasticMatrix, user: StandardUser, remap: Remap) -> Fraction:
    """Σ_i p_i Σ_r x[i][r]·l(i, Y(r)) for a deterministic remap Y, in integers."""
    weights, common = _row_weights(mechanism, user.prior)
    mapping = remap.as_mapping()
    guess = [mapping[r] for r in mechanism.outputs]
    column = loss_columns(user.kind, user.n)
    columns = _weighted_columns(mechanism, weights)
    total = sum(sum(map(mul, col, column(g))) for col, g in zip(columns, guess, strict=True))
    return Fraction(total, common)


def _totals(mechanism: StochasticMatrix, weights: Sequence[int]) -> Iterator[int]:
    """Σ_i of each weighted column (``_weighted_columns``): the matrix's own column sums, kept, when
    every weight is 1 (a uniform prior over rows of one denominator)."""
    if all(m == 1 for m in weights):
        yield from mechanism.column_numerator_sums()
        return
    yield from map(sum, _weighted_columns(mechanism, weights))


def _weighted_columns(mechanism: StochasticMatrix, weights: Sequence[int]) -> Iterator[Sequence[int]]:
    """Per output r, the integer weights num[i][r]·m_i over i (``_row_weights``)."""
    columns = mechanism.column_numerators()
    if all(m == 1 for m in weights):
        yield from columns
        return
    for column in columns:
        yield list(map(mul, column, weights))


def cone_nonnegative_integers(w: Sequence[int], alpha: Fraction) -> bool:
    """``optimal.cone_nonnegative`` on an integer vector (the test is invariant under positive
    scaling): F = N/s with s a product of α's numerator and denominator, so no fraction is reduced."""
    p, q = alpha.numerator, alpha.denominator
    value, scale = w[-1], 1
    for entry in reversed(w[:-1]):
        if value >= 0:  # F_i = w_i + α·F_{i+1}
            value, scale = entry * q * scale + p * value, scale * q
        else:  # F_i = w_i + F_{i+1}/α
            value, scale = entry * p * scale + q * value, scale * p
    return value >= 0


def optimal_remap_of_t(geometric: GeometricColumns, user: StandardUser, outputs: Sequence[Any]) -> Remap:
    """``optimal_remap`` of T (outputs 0..n, labelled ``outputs``) for a user with a uniform prior:
    each column's minimisers from T's closed-form columns, the same tie rule."""
    mapping = {label: _chosen(geometric.minimisers(user.kind, r), label) for r, label in enumerate(outputs)}
    return Remap.deterministic(mapping, outputs, list(range(user.n + 1)))


def optimum_of_t(
    user: StandardUser,
    alpha: Fraction,
    t: Mechanism,
    inverse: Sequence[Sequence[Fraction]],
    t_remap: Remap | None,
    geometric: GeometricColumns | None = None,
) -> OptimumOfT | None:
    """``optimal.optimum_of_t`` for a standard user in integers: Y the optimal remap of T,
    b_r = Σ_i p_i·T[i][r]·l(i, Y(r)), u = (T⁻¹)ᵀb, accepted iff Σu is T-then-Y's loss and every
    column c_j − u, c[i][j] = p_i·l(i, j), is nonnegative on the α-DP cone; else None. With a
    uniform prior T's columns are read in closed form (``geometric``, built here when not given):
    Y and b in O(n log n), not O(n²)."""
    n = user.n
    weights, common = _row_weights(t, user.prior)
    if not all(m == 1 for m in weights):  # the closed forms read T's columns as the weights
        geometric = None
    elif geometric is None:  # a uniform prior over T's rows
        geometric = GeometricColumns.of(alpha, n)
    if t_remap is not None:
        remap = t_remap
    else:
        remap = optimal_remap(t, user) if geometric is None else optimal_remap_of_t(geometric, user, t.outputs)
    mapping = remap.as_mapping()
    guess = [mapping[r] for r in t.outputs]
    column = loss_columns(user.kind, n)
    columns = _weighted_columns(t, weights)
    if geometric is not None:  # Σ_i T_num[i][r]·l(i, Y(r)), the weights being 1
        scaled = [geometric.loss(user.kind, r, g) for r, g in enumerate(guess)]
    elif user.kind == "binary":  # Σ_i w_i·[i ≠ g] = W − w_g
        scaled = [total - w[g] for w, g, total in zip(columns, guess, _totals(t, weights), strict=True)]
    else:
        scaled = [sum(map(mul, w, column(g))) for w, g in zip(columns, guess, strict=True)]
    b = [Fraction(v, common) for v in scaled]
    u = _inverse_transpose_times(inverse, scaled, common)
    value = sum(b, Fraction(0))
    if sum(u, Fraction(0)) != value:  # T⁻¹1 = 1 makes them equal; checked, not assumed
        return None
    if not dual_columns_nonnegative(user, alpha, u, guess):
        return None
    return OptimumOfT(remap, value, tuple(u))


def _inverse_transpose_times(
    inverse: Sequence[Sequence[Fraction]], scaled: Sequence[int], common: int
) -> list[Fraction]:
    """u = (T⁻¹)ᵀb for b = scaled/common with T⁻¹ tridiagonal (GS Lemma 2): each u_i is at most three
    integer products over one denominator L·common (L the lcm of the band's few denominators), then
    one reduction — not three ``Fraction`` operations on ~n-bit numbers."""
    n = len(scaled) - 1
    band = [[(r, inverse[r][i]) for r in range(max(0, i - 1), min(n, i + 1) + 1)] for i in range(n + 1)]
    scale = math.lcm(*{v.denominator for terms in band for _, v in terms})
    return [
        Fraction(sum(v.numerator * (scale // v.denominator) * scaled[r] for r, v in terms), scale * common)
        for terms in band
    ]


def dual_columns_nonnegative(user: StandardUser, alpha: Fraction, u: Sequence[Fraction], guess: Sequence[int]) -> bool:
    """Whether every column c_j − u, c[i][j] = p_i·l(i, j), is nonnegative on the α-DP cone, for
    u = (T⁻¹)ᵀb built from the remap ``guess`` of T (``optimum_of_t``).

    Complementary slackness makes column j = Y(r) *tight* on T's column r: (c_j − u)·T[·][r] =
    b_r − (Tᵀu)_r = 0 exactly, so the cone minimum is 0 and no interval can show it ≥ 0 by
    evaluating it. Instead ``core.intervals.ray_is_a_minimiser`` proves, on rigorous float
    intervals, that the cone recursion follows T's column r (whose value is exactly 0) at every
    step. Columns no output is remapped to are evaluated on intervals
    (``cone_minimum_signs``); a column neither decides is redone in exact integers
    (``cone_nonnegative_integers``). n = 1000: ~1 s → ~0.05 s per user."""
    n, probabilities = user.n, user.prior.probabilities
    column = loss_columns(user.kind, n)
    prior, dual = enclose(probabilities), enclose(u)
    undecided: Sequence[int] = range(n + 1)
    if prior is not None and dual is not None:
        import numpy as np

        steps = np.arange(n + 1)
        losses = loss_array(user.kind, steps[:, None] - steps[None, :])  # l(i, j) ≤ n² < 2⁵³: exact
        lo = down(down(prior[0][:, None] * losses) - dual[1][:, None])
        hi = up(up(prior[1][:, None] * losses) - dual[0][:, None])
        ray = np.full(n + 1, -1)
        for r in range(n, -1, -1):  # the smallest r remapped to each column
            ray[guess[r]] = r
        proved = ray_is_a_minimiser(lo, hi, alpha, ray)
        rest = (~proved).nonzero()[0]
        signs = cone_minimum_signs(lo[:, rest], hi[:, rest], alpha)
        if (signs < 0).any():
            return False
        undecided = [int(j) for j in rest[signs == 0]]
    if not undecided:
        return True
    scale = math.lcm(*(p.denominator for p in probabilities), *(v.denominator for v in u))
    scaled_prior = [p.numerator * (scale // p.denominator) for p in probabilities]
    scaled_dual = [v.numerator * (scale // v.denominator) for v in u]
    return all(
        cone_nonnegative_integers(list(map(sub, map(mul, scaled_prior, column(j)), scaled_dual)), alpha)
        for j in undecided
    )


# --- The optimum bracketed at short α (a DP level whose exact optimum's numbers are too long) ---


def farey_neighbours(alpha: Fraction, limit: int) -> tuple[Fraction, Fraction]:
    """The fractions lo ≤ α ≤ hi nearest α with denominators at most ``limit`` (α's neighbours in the
    Farey sequence of that order; lo = hi = α when α's own denominator is at most ``limit``), for
    0 ≤ α ≤ 1. A walk down the Stern–Brocot tree from 0/1 and 1/0, a run of steps to one side at a
    time (each run is one partial quotient of α's continued fraction): O(log) steps, exact. hi − lo
    = 1/(q_lo·q_hi) ≤ 1/limit — never wider than k/2^m rounding with 2^m ≤ limit, usually far
    narrower."""
    p, q = alpha.numerator, alpha.denominator
    if p == 0:
        return alpha, alpha
    lo_p, lo_q, hi_p, hi_q = 0, 1, 1, 0  # lo < α < hi from here on: a mediant equal to α returns
    while lo_q + hi_q <= limit:
        mid_p, mid_q = lo_p + hi_p, lo_q + hi_q
        if p * mid_q == mid_p * q:
            return Fraction(mid_p, mid_q), Fraction(mid_p, mid_q)
        if p * mid_q < mid_p * q:  # α below the mediant: hi moves towards lo, k steps at once
            # the largest k with α < (hi_p + k·lo_p)/(hi_q + k·lo_q) (k = 1 holds), within the limit
            k = min((q * hi_p - p * hi_q - 1) // (p * lo_q - q * lo_p), (limit - hi_q) // lo_q)
            hi_p, hi_q = hi_p + k * lo_p, hi_q + k * lo_q
        else:  # α above: lo moves towards hi; hi_q ≥ 1 here (hi = 1/0 has α below every mediant step)
            k = min((p * lo_q - q * lo_p - 1) // (q * hi_p - p * hi_q), (limit - lo_q) // hi_q)
            lo_p, lo_q = lo_p + k * hi_p, lo_q + k * hi_q
    return Fraction(lo_p, lo_q), Fraction(hi_p, hi_q)


def bracket_alphas(alpha: Fraction, n: int, digits: int | None = None) -> tuple[Fraction, Fraction] | None:
    """Short α_lo ≤ α ≤ α_hi, 0 < α_lo, α_hi < 1, whose certified optima's numbers have at most
    ``digits`` digits (default and at most ``MAX_DIGITS``; ``numbers_fit``): α's Farey neighbours for
    the largest denominator limit that fits. α-DP with a larger α is a subset (α ≤ α′ ⇒ α′-DP ⊆
    α-DP: x[i][r] ≥ α′·x[i′][r] ≥ α·x[i′][r]), so a user's optimum L*(α) is nondecreasing in α and
    L*(α_lo) ≤ L*(α) ≤ L*(α_hi). None when no limit fits or a neighbour is 0 or 1."""
    from mechlib.core import exact

    budget = min(digits or exact.MAX_DIGITS, exact.MAX_DIGITS)
    # b^(n+5)·12(n+1)³n² bounds ``_bound`` at every a/b, a < b: a first guess of the limit, lowered until both fit
    spare = budget - 1 - math.log10(12 * (n + 1) ** 3 * max(n, 1) ** 2)
    limit = int(10 ** min(spare / (n + 5), 300.0)) if spare > 0 else 1  # 10^300: past any use, within a float
    while limit >= 2:
        lo, hi = farey_neighbours(alpha, limit)
        if _bound(lo, n) < 10**budget and _bound(hi, n) < 10**budget:
            return (lo, hi) if lo > 0 and hi < 1 else None
        limit = limit * 9 // 10
    return None


def t_with_optimal_remap(user: StandardUser, alpha: Fraction, geometric: GeometricColumns) -> tuple[Remap, Fraction]:
    """T at α (outputs 0..n) with the optimal remap of a user with a uniform prior, and its loss:
    T's closed-form columns (``GeometricColumns``), numerators over q^n·(q + p) at α = p/q."""
    n = user.n
    if user.prior.probabilities != (Fraction(1, n + 1),) * (n + 1):
        raise ValueError("t_with_optimal_remap reads T's columns as the weights: a uniform prior only")
    remap = optimal_remap_of_t(geometric, user, range(n + 1))
    mapping = remap.as_mapping()
    total = sum(geometric.loss(user.kind, r, mapping[r]) for r in range(n + 1))
    p, q = alpha.numerator, alpha.denominator
    return remap, Fraction(total, (n + 1) * q**n * (q + p))


@dataclass(frozen=True)
class EnclosedLoss:
    """A mechanism's optimal deterministic remap for a user and its expected loss with it, enclosed:
    lower ≤ loss ≤ upper (short binary fractions), proved on rigorous float intervals
    (``core.intervals``)."""

    remap: Remap
    lower: Fraction
    upper: Fraction


def enclosed_optimal_remap(
    mechanism: StochasticMatrix, user: StandardUser, weights: tuple[Any, Any] | None = None
) -> EnclosedLoss:
    """``optimal_remap`` and its loss for a mechanism whose exact loss is too long to write (rows over
    many different long denominators: their lcm has ~10⁵ digits at n = 1000 for the exponential
    mechanism). Each column's guess is chosen on float intervals of the weights p_i·x[i][r] and
    proved a minimiser there (absolute: a weighted median, 2·A_g ≤ W ≤ 2·A_{g+1} with A_j = Σ_{i<j} w_i;
    squared: a nearest integer to the mean, (2g − 1)·W ≤ 2·S₁ ≤ (2g + 1)·W; binary: a mode); a column
    the intervals leave open is decided exactly. The loss with these guesses is then enclosed by
    sums of interval products (``sum_enclosure``). ``weights``:
    ``weight_enclosure(mechanism, user.prior)`` when already computed (shared by users of one prior)."""
    import numpy as np

    n, kind = user.n, user.kind
    lo, hi = weights or weight_enclosure(mechanism, user.prior)
    guess, proved = interval_minimisers(kind, lo, hi)
    for r in (~proved).nonzero()[0]:
        guess[r] = _exact_column_minimiser(mechanism, user, int(r))
    losses = loss_array(kind, np.arange(n + 1)[:, None] - guess[None, :])
    lower, upper = sum_enclosure(down(lo * losses), up(hi * losses))
    # written with 9 significant digits, outward past a margin of 10⁻⁷ of the value: a checker's own
    # enclosure (another summation bound, relative width ~10⁻⁹ at n = 5000) lands inside
    margin = 1e-7 * upper + 1e-300
    outputs = mechanism.outputs
    remap = Remap.deterministic(dict(zip(outputs, map(int, guess), strict=True)), outputs, list(range(n + 1)))
    low = significant_digits(Fraction(lower - margin), 9, up=False) if lower > margin else Fraction(0)
    return EnclosedLoss(remap, low, significant_digits(Fraction(upper + margin), 9, up=True))


def significant_digits(value: Fraction, digits: int, *, up: bool) -> Fraction:
    """``value`` rounded to ``digits`` significant decimal digits, down (towards −∞) or up: k/10^m."""
    if value == 0:
        return value
    shift = digits - 1 - math.floor(math.log10(abs(value)))
    scale = Fraction(10) ** shift
    scaled = value * scale
    return Fraction(math.ceil(scaled) if up else math.floor(scaled)) / scale


def sum_enclosure(lower_terms: Any, upper_terms: Any) -> tuple[float, float]:
    """Floats lower ≤ Σ t ≤ upper for reals t ≥ 0 with lower_terms ≤ t ≤ upper_terms entry by entry.
    A float sum of N ≥ 0 terms in any order (numpy's pairwise) is within γ·Σ of the exact sum, γ =
    (N − 1)·2⁻⁵³/(1 − (N − 1)·2⁻⁵³) ≤ g = N·2⁻⁵² (N ≤ 2⁵⁰; an addition whose result is subnormal is
    exact, so underflow adds nothing): the sum ŝ of the lower terms (clipped at 0, as t is) has Σ ≥
    ŝ/(1 + g) ≥ ŝ·(1 − g), and that of the upper terms Σ ≤ ŝ/(1 − g) ≤ ŝ·(1 + 2g); 1 ± g and 1 + 2g
    are exact floats, each product stepped one ulp outward."""
    import numpy as np

    g = lower_terms.size * 2.0**-52
    low = float(np.sum(np.maximum(lower_terms, 0.0)))
    high = float(np.sum(upper_terms))
    return float(down(low * (1 - g))), float(up(high * (1 + 2 * g)))


def weight_enclosure(mechanism: StochasticMatrix, prior: Prior) -> tuple[Any, Any]:
    """Float arrays lo ≤ p_i·x[i][r] ≤ hi ((n + 1) × outputs). A row over a denominator of more than
    1000 bits is cut to its top bits first (a >> k for every entry and the denominator, a ∈ [a′, a′ + 1]·2^k;
    2^k cancels in a/d), so every integer converts to a float (correctly rounded) and each bound is one
    ulp outward after each operation: no long division per entry."""
    import numpy as np

    num, den = mechanism.scaled()
    bounds = enclose(prior.probabilities)
    assert bounds is not None  # probabilities are in [0, 1]
    lo, hi = np.empty((len(num), len(num[0]))), np.empty((len(num), len(num[0])))
    for i, (row, d) in enumerate(zip(num, den, strict=True)):
        shift = max(d.bit_length() - 1000, 0)
        spare = 1 if shift else 0  # each bound of a and d one unit wider when cut
        cut = [v >> shift for v in row] if shift else row
        a = np.array(list(map(float, cut)))  # CPython's int → float: correctly rounded
        top, bottom = down(float(d >> shift)), up(float((d >> shift) + spare))
        lo[i] = down(down(a) / bottom) * bounds[0][i]
        hi[i] = up(up(up(a) + spare) / top) * bounds[1][i]
    return down(lo), up(hi)


def interval_minimisers(kind: str, lo: Any, hi: Any) -> tuple[Any, Any]:
    """Per column, a guess chosen from the intervals' midpoints and whether the intervals prove it a
    least-loss guess (the conditions in ``enclosed_optimal_remap``; each loss is convex in the guess,
    so a guess no worse than its neighbours is a minimiser)."""
    import numpy as np

    n = lo.shape[0] - 1
    columns = np.arange(lo.shape[1])
    if kind == "binary":
        guess = np.argmax(lo + hi, axis=0)
        others = hi.copy()
        others[guess, columns] = -np.inf
        return guess, lo[guess, columns] >= others.max(axis=0)
    below_lo, below_hi = np.zeros((n + 2, lo.shape[1])), np.zeros((n + 2, lo.shape[1]))  # A_j, j = 0..n + 1
    for i in range(n + 1):
        below_lo[i + 1], below_hi[i + 1] = down(below_lo[i] + lo[i]), up(below_hi[i] + hi[i])
    total_lo, total_hi = below_lo[n + 1], below_hi[n + 1]
    if kind == "absolute":
        middle = below_lo + below_hi
        guess = np.argmax(2 * middle[1:] >= middle[n + 1], axis=0)  # the first j with 2·A_{j+1} ≥ W
        left = (guess == 0) | (2 * below_hi[guess, columns] <= total_lo)
        right = (guess == n) | (2 * below_lo[guess + 1, columns] >= total_hi)
        return guess, left & right
    steps = np.arange(n + 1, dtype=float)[:, None]
    first_lo, first_hi = np.zeros(lo.shape[1]), np.zeros(lo.shape[1])
    for i in range(1, n + 1):
        first_lo, first_hi = down(first_lo + down(steps[i] * lo[i])), up(first_hi + up(steps[i] * hi[i]))
    with np.errstate(all="ignore"):
        mean = (first_lo + first_hi) / (total_lo + total_hi)
    guess = np.clip(np.nan_to_num(np.rint(mean)), 0, n).astype(int)
    left = (guess == 0) | (up((2 * guess - 1) * total_hi) <= 2 * first_lo)
    right = (guess == n) | (2 * first_hi <= down((2 * guess + 1) * total_lo))
    return guess, left & right


def _exact_column_minimiser(mechanism: StochasticMatrix, user: StandardUser, r: int) -> int:
    """A least-loss guess for output r in exact rationals (a column the intervals left open: a tie)."""
    num, den = mechanism.scaled()
    weights = [p * Fraction(row[r], d) for p, row, d in zip(user.prior.probabilities, num, den, strict=True)]
    common = math.lcm(*(w.denominator for w in weights))
    scaled = [w.numerator * (common // w.denominator) for w in weights]
    return _chosen(_minimisers(user.kind, scaled, sum(scaled)), mechanism.outputs[r])
