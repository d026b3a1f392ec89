"""The dominance certificate (CLAIMS.md note 1; GRS Theorem 3.2's "if" direction, per mechanism).

For an α-DP mechanism X on counts 0..n (integer output labels), a stochastic remap Y of T with

    P_{Y∘T}(|j − i| ≥ k | i) ≤ P_X(|j − i| ≥ k | i)   for every input i and every k ≥ 1

proves that every legal user, Bayesian or minimax, does at least as well with T then Y as with
X: a legal loss is l(i, j) = g_i(|j − i|) with g_i nondecreasing, so the expected loss at input i
is g_i(0) + Σ_{k ≥ 1} (g_i(k) − g_i(k−1))·P(|j − i| ≥ k | i).

HiGHS finds Z = Y∘T over the derivable mechanisms (GS Theorem 2: T⁻¹Z ≥ 0, three nonzeros per
row); Y is rebuilt exactly from its support and the tight tails, and ``check_dominance`` decides.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate

from mechlib.core.exact import format_fraction, parse_probability
from mechlib.core.exact_linear import first_accepted
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import dp_level
from mechlib.core.remap import Remap
from mechlib.core.stochastic import StochasticMatrix, compose
from mechlib.errors import InputError
from mechlib.optimality.derivability import TBasis, derivation_witness
from mechlib.optimality.optimal import HIGHS, CertificationError

_TIGHT = 1e-9


@dataclass(frozen=True)
class TailViolation:
    """P_{Y∘T}(|j−i| ≥ k | i) exceeds P_X(|j−i| ≥ k | i)."""

    input: int
    k: int
    remapped: Fraction
    mechanism: Fraction

    def to_json(self) -> dict[str, object]:
        return {
            "input": self.input,
            "k": self.k,
            "Y∘T": format_fraction(self.remapped),
            "X": format_fraction(self.mechanism),
        }


@dataclass(frozen=True)
class Dominance:
    """A remap Y of T whose error tails are nowhere above X's (exactly checked)."""

    alpha: Fraction
    remap: Remap


def tail_profile(z: StochasticMatrix) -> list[list[Fraction]]:
    """t[i][k] = P(|j − i| ≥ k | i) for k = 0..K (K = the largest distance); integer labels."""
    labels = z.outputs
    if not all(isinstance(j, int) and not isinstance(j, bool) for j in labels):
        raise InputError("error tails need integer output labels")
    width = max(abs(j - i) for i in z.inputs for j in labels) + 2
    result = []
    for i, row in zip(z.inputs, z.rows):
        mass = [Fraction(0)] * width
        for j, x in zip(labels, row):
            mass[abs(j - i)] += x
        tails = [Fraction(0)] * width
        running = Fraction(0)
        for d in range(width - 1, -1, -1):
            running += mass[d]
            tails[d] = running
        result.append(tails)
    return result


def check_dominance(
    mechanism: Mechanism, alpha: Fraction, remap: Remap, *, basis: TBasis | None = None
) -> TailViolation | None:
    """The first (i, k) where Y∘T's error tails exceed X's, or None: the certificate holds.
    ``basis``: T at (α, n) if already built."""
    basis = basis or TBasis(alpha, mechanism.n)
    ours = tail_profile(compose(remap, basis.t))
    theirs = tail_profile(mechanism)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        for k in range(1, len(a)):
            bound = b[k] if k < len(b) else Fraction(0)
            if a[k] > bound:
                return TailViolation(i, k, a[k], bound)
    return None


def planted_violations(z: Mechanism) -> list[tuple[int, int, Mechanism]]:
    """Negative controls for :func:`check_dominance`, one per error tail (i, k ≥ 1) that can be
    lowered alone: Z with half its mass on an output at distance exactly k from input i moved one
    step towards i. Only P(|j − i| ≥ k | i) changes (down), so any Y with Y∘T = Z violates
    dominance over the planted mechanism at (i, k) and nowhere else — a check that skips a tail
    misses it. Inputs 0..n, integer output labels."""
    labels = list(z.outputs)
    column = {j: c for c, j in enumerate(labels)}
    planted = []
    for i, row in enumerate(z.rows):
        for k in range(1, max(abs(j - i) for j in labels) + 1):
            moves = [(column[j], column[j - 1 if j > i else j + 1]) for j in (i + k, i - k)
                     if j in column and (j - 1 if j > i else j + 1) in column and row[column[j]] > 0]  # fmt: skip
            if not moves:
                continue
            source, target = moves[0]
            moved = [list(r) for r in z.rows]
            moved[i][source] -= row[source] / 2
            moved[i][target] += row[source] / 2
            planted.append((i, k, Mechanism(moved, outputs=labels)))
    return planted


def integer_tails(num: Sequence[int], i: int, labels: Sequence[int], top: int) -> list[int]:
    """den · P(|j − i| ≥ k | i) for k = 0..top (top ≥ every distance), from one row's integer
    numerators over its denominator (no Fraction); for outputs 0..L−1 around i, by slices."""
    mass = [0] * (top + 2)
    if list(labels) == list(range(len(num))) and 0 <= i < len(num):
        below, above = list(num[i::-1]), list(num[i + 1 :])  # distances 0..i and 1..L−1−i
        mass[: len(below)] = below
        mass[1 : 1 + len(above)] = map(operator.add, mass[1 : 1 + len(above)], above)
    else:
        for j, x in zip(labels, num):
            mass[abs(j - i)] += x
    return list(accumulate(reversed(mass)))[::-1][: top + 1]


#: T at α′ is tried while T's row denominator at α′ and X's largest have together at most this many
#: bits: the tails' closed form costs O(n · bits) per power, and a comparison the bit lengths leave open
#: multiplies numbers this long (the exponential mechanism at n = 1000 has ≈ 10⁶ at its own α).
T_ITSELF_MAX_BITS = 50_000
#: Denominator bits of the short α′ ≥ α tried before α itself: α rounded up to k/2^bits.
ROUNDINGS = (8, 16, 32, 64)


def t_itself_bits(mechanism: Mechanism, alpha: Fraction) -> int:
    """The bits of T's row denominator b^n·(a + b) at α = a/b plus X's largest: the cost of ``t_itself_dominates``."""
    b = alpha.denominator
    return mechanism.n * b.bit_length() + (alpha.numerator + b).bit_length() + max(mechanism.scaled()[1]).bit_length()


def geometric_tails(at: Fraction, n: int) -> tuple[list[int], int]:
    """T at α′ = u/v on 0..n in closed form: its error tail on one side, P(j − i ≥ k | i) =
    α′^k/(1 + α′) for 1 ≤ k ≤ n − i (GRS Example 2.2's entries summed: the end column holds the
    rest of the geometric series), the same on the left for k ≤ i — as integers num[k] =
    u^k·v^(n+1−k) over v^n·(u + v), k = 0..n. No matrix and no sum per row."""
    u, v = at.numerator, at.denominator
    up, down = [1], [1]
    for _ in range(n + 1):
        up.append(up[-1] * u)
        down.append(down[-1] * v)
    return [up[k] * down[n + 1 - k] for k in range(n + 1)], down[n] * (u + v)


def t_itself_dominates(mechanism: Mechanism, at: Fraction) -> bool:
    """Whether T at ``at`` (Y the identity when ``at`` is X's level) has error tails nowhere above
    X's: O(n²) integer comparisons, at any n, no LP — T dominates many dense mechanisms (k-ary
    randomized response, the exponential mechanism at their DP level). X's tails are suffix sums
    over its row denominators, T's the closed form (``geometric_tails``); each comparison of
    cross-products is first decided by bit lengths (a ≤ 2^len(a) and a ≥ 2^(len(a)−1): exact),
    multiplied out only when the lengths are within two. False (not tried) past
    ``T_ITSELF_MAX_BITS``."""
    n, inputs, labels = mechanism.n, list(mechanism.inputs), list(mechanism.outputs)
    if inputs != list(range(n + 1)) or not all(type(j) is int for j in labels):
        return False
    if t_itself_bits(mechanism, at) > T_ITSELF_MAX_BITS:
        return False
    ours, t_den = geometric_tails(at, n)
    sides = {c: [c * x for x in ours] for c in (1, 2)}  # T's tail at (i, k): one or both sides reach k
    side_bits = {c: [x.bit_length() for x in row] for c, row in sides.items()}
    den_bits = t_den.bit_length()
    top = max(max(labels), n) - min(min(labels), 0) + 1  # past every |j − i|
    x_num, x_den = mechanism.scaled()
    for i in inputs:
        theirs = integer_tails(x_num[i], i, labels, top)
        d, d_bits = x_den[i], x_den[i].bit_length()
        for k in range(1, n + 1):
            c = (k <= i) + (k <= n - i)
            if not c:
                break  # k > max(i, n − i): T's tails are 0 from here on
            mine, lhs_bits = sides[c][k], side_bits[c][k] + d_bits  # d·ours < 2^lhs_bits
            their = theirs[k]
            if their and lhs_bits <= their.bit_length() + den_bits - 2:  # t_den·theirs ≥ 2^that
                continue
            if mine * d > their * t_den:
                return False
    return True


def dominating_t(mechanism: Mechanism, alpha: Fraction) -> Fraction | None:
    """An α′ with α ≤ α′ < 1 at which T has error tails nowhere above X's, or None. T at α′ is a
    remap of T at α (Y = T_α⁻¹·T_α′ ≥ 0 for α ≤ α′ < 1: GS Lemma 2's tridiagonal inverse applied
    to T_α′'s geometric columns gives entries with the signs of α′ − α, 1 − αα′ and (1 − α)² + 2α(1 − α′),
    all ≥ 0), so it dominates X too. Tried from the shortest numbers: α rounded up to k/2^8,
    k/2^16, … (T's tails grow with α′, so a short α′ close enough suffices where α's own numbers
    are too long: the exponential mechanism's α has ≈ 700 bits at n = 1000), then α itself."""
    rounded = {Fraction(-((-alpha.numerator << bits) // alpha.denominator), 1 << bits) for bits in ROUNDINGS}
    shorter = sorted(
        (at for at in rounded if alpha < at < 1 and at.denominator.bit_length() < alpha.denominator.bit_length()),
        key=lambda at: at.denominator,
    )
    for at in [*shorter, alpha]:
        if t_itself_dominates(mechanism, at):
            return at
    return None


def dominance_certificate(
    mechanism: Mechanism,
    alpha: object | None = None,
    *,
    level: Fraction | None = None,
    basis: TBasis | None = None,
) -> Dominance:
    """Find and exactly certify a remap Y of T (at α, default X's DP level) dominating X.

    ``level`` (X's exact DP level) and ``basis`` (T and T⁻¹ at α) are reused when the caller has
    them. A derivable X needs no search: its derivation Y = T⁻¹X (exact) has Y∘T = X, X's own
    tails, at any n — so T and every remap of T are certified without the LP (whose float
    solve of T itself fails from n ≈ 40 at α = 1/2, entries α^k being below its tolerances).

    Raises
    ------
    InputError
        If X is not α-DP, not a count-query mechanism, or has non-integer output labels.
    CertificationError
        If no certificate is found. HiGHS reporting the LP infeasible would contradict GRS
        Theorem 3.2; that is reported as such (an exact Farkas certificate is not built yet).
    """
    if not mechanism.is_count_query():
        raise InputError("the dominance certificate needs a count-query mechanism (inputs 0..n)")
    level = dp_level(mechanism).alpha if level is None else level
    a = level if alpha is None else alpha if isinstance(alpha, Fraction) else parse_probability(alpha)
    if level < a:
        raise InputError(f"the mechanism is only {format_fraction(level)}-DP, not {format_fraction(a)}-DP")
    if a == 0 or a == 1:
        raise InputError(f"alpha={format_fraction(a)}", hint="the dominance LP needs 0 < α < 1")
    if mechanism.n >= 1 and list(mechanism.outputs) == list(range(len(mechanism.outputs))):  # guesses 0..k−1
        derived = derivation_witness(mechanism, a).remap  # exact, O(n²) integer work (GS Theorem 2)
        if derived is not None:  # Y∘T = X: its tails are X's own, at any n, with no LP
            return Dominance(a, derived)
    if t_itself_dominates(mechanism, a):  # O(n²) integers, no LP
        return Dominance(a, Remap.identity(range(mechanism.n + 1)))
    basis = basis if basis is not None and basis.alpha == a and basis.n == mechanism.n else TBasis(a, mechanism.n)
    bounds = tail_profile(mechanism)
    try:
        zf = _highs_dominance(basis, bounds)
        remap = _rebuild(basis, bounds, zf, mechanism)
    except OverflowError:  # T⁻¹ has entries up to 1/(1 − α)²: past a float's range as α → 1
        raise CertificationError(
            f"the dominance LP runs in floats, and T⁻¹ at 1 − α ≈ {float(1 - a):.3g} has entries beyond their "
            "range (≈ 1.8·10³⁰⁸)"
        ) from None
    return Dominance(a, remap)


def _highs_dominance(basis: TBasis, bounds: list[list[Fraction]]) -> object:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    n = basis.n
    size = n + 1
    inverse = [[float(v) for v in row] for row in basis.inverse]
    rows, cols, vals = [], [], []
    rhs: list[float] = []
    k_row = 0
    for r in range(size):  # −(T⁻¹Z)_rj ≤ 0: Y ≥ 0 (GS Theorem 2), at most 3 nonzeros
        for j in range(size):
            for i in (r - 1, r, r + 1):
                if 0 <= i < size and inverse[r][i]:
                    rows.append(k_row)
                    cols.append(i * size + j)
                    vals.append(-inverse[r][i])
            rhs.append(0.0)
            k_row += 1
    for i in range(size):  # tail_Z(i, k) ≤ tail_X(i, k)
        for k in range(1, max(i, n - i) + 1):
            for j in range(size):
                if abs(j - i) >= k:
                    rows.append(k_row)
                    cols.append(i * size + j)
                    vals.append(1.0)
            rhs.append(float(bounds[i][k]) if k < len(bounds[i]) else 0.0)
            k_row += 1
    a_ub = coo_matrix((vals, (rows, cols)), shape=(k_row, size * size)).tocsr()
    cells = np.arange(size * size)
    a_eq = coo_matrix((np.ones(size * size), (cells // size, cells)), shape=(size, size * size)).tocsr()
    cost = np.array([abs(i - j) for i in range(size) for j in range(size)], dtype=float)  # mean error
    result = linprog(cost, A_ub=a_ub, b_ub=np.array(rhs), A_eq=a_eq, b_eq=np.ones(size), **HIGHS)
    if result.status == 2:
        raise CertificationError(
            "HiGHS reports the dominance LP infeasible: that would contradict GRS Theorem 3.2 "
            "(no exact Farkas certificate is built yet, so this is UNKNOWN, not a refutation)"
        )
    if result.status != 0:
        raise CertificationError(f"HiGHS could not solve the dominance LP: {result.message}")
    return result.x.reshape(size, size)


def _rebuild(basis: TBasis, bounds: list[list[Fraction]], zf: object, mechanism: Mechanism) -> Remap:
    """Exact Y on the support of T⁻¹Z with the tight tails as equations; checked exactly."""
    import numpy as np

    n, alpha = basis.n, basis.alpha
    size = n + 1
    t = basis.t.rows
    inverse = np.array([[float(v) for v in row] for row in basis.inverse])
    z = np.asarray(zf)
    yf = inverse @ z
    support = [(r, j) for r in range(size) for j in range(size) if yf[r, j] > _TIGHT]
    equations, rhs = [], []
    for r in range(size):
        equations.append([Fraction(int(rr == r)) for rr, _ in support])
        rhs.append(Fraction(1))
    for i in range(size):
        for k in range(1, max(i, n - i) + 1):
            bound = bounds[i][k] if k < len(bounds[i]) else Fraction(0)
            if sum(z[i, j] for j in range(size) if abs(j - i) >= k) >= float(bound) - _TIGHT:
                equations.append([t[i][r] if abs(j - i) >= k else Fraction(0) for r, j in support])
                rhs.append(bound)

    def remap_of(values: list[Fraction]) -> Remap:
        table = [[Fraction(0)] * size for _ in range(size)]
        for (r, j), v in zip(support, values):
            table[r][j] = v
        return Remap(table)

    def certifies(values: list[Fraction]) -> bool:
        return all(v >= 0 for v in values) and check_dominance(mechanism, alpha, remap_of(values), basis=basis) is None

    values = first_accepted(equations, rhs, [float(yf[r, j]) for r, j in support], certifies)
    if values is None:
        raise CertificationError("the dominance LP's solution could not be rebuilt into an exact certificate")
    return remap_of(values)
