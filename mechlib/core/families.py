"""Standard mechanisms for a count query on N = {0..n}, built exactly.

All take α = e^{−ε} as an exact rational in [0, 1] (GRS §2.1 parametrisation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from mechlib.core.exact import ExactNumber, format_fraction, parse_probability
from mechlib.core.mechanism import Mechanism
from mechlib.errors import InputError


def _alpha(alpha: object) -> Fraction:
    try:
        return parse_probability(alpha)
    except InputError as err:
        raise InputError(f"alpha: {err.problem}", hint="α = e^(−ε) must be an exact number in [0, 1]") from None


def _n(n: int, minimum: int = 1, name: str = "n") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        raise InputError(f"{name}={n!r}", hint=f"expected an integer ≥ {minimum}")
    return n


def geometric(alpha: ExactNumber, n: int, *, margin: int | None = None) -> Mechanism:
    """The α-geometric mechanism (GRS Example 2.1): output i + Δ, P[Δ=δ] = (1−α)/(1+α)·α^|δ|.

    Its range is ℤ; it is represented exactly on the window of outputs −margin..n+margin
    (default margin = n) whose two end outputs stand for the tails "≤ −margin" and
    "≥ n+margin": P[out ≤ lo | i] = α^(i−lo)/(1+α). Lumping the tails is a deterministic remap,
    so the window has the same DP level, and every remap of it is a remap of the ℤ-range
    mechanism. ``margin=0`` gives the truncated geometric mechanism T (GRS Example 2.2).
    """
    n = _n(n)
    margin = n if margin is None else margin
    if isinstance(margin, bool) or not isinstance(margin, int) or margin < 0:
        raise InputError(f"margin={margin!r}", hint="expected an integer ≥ 0")
    return _lumped_geometric(_alpha(alpha), n, -margin, n + margin)


def truncated_geometric(alpha: ExactNumber, n: int) -> Mechanism:
    """The truncated α-geometric mechanism T (GRS Example 2.2; GS Definition 4, G_{n,α}).

    T[i][r] = α^|i−r|·(1−α)/(1+α) for 0 < r < n and α^|i−r|/(1+α) for r ∈ {0, n}:
    the geometric mechanism with negative outputs read as 0 and outputs above n read as n.
    α = 0 gives the identity, α = 1 the constant mechanism (1/2, 0, …, 0, 1/2).
    """
    return _lumped_geometric(_alpha(alpha), _n(n), 0, n)


def _lumped_geometric(alpha: Fraction, n: int, lo: int, hi: int) -> Mechanism:
    """Scaled integers: with α = p/q and dmax the largest distance, every entry is
    p^d q^(dmax−d)·c / (q^dmax (q+p)), c = q−p inside the window, c = q at its ends.

    Each row sums to its denominator by telescoping, so it is not summed again: with
    A = q^(dmax+1), (q − p)·Σ_{d=a}^{b} p^d q^(dmax−d) = A·(α^a − α^(b+1)); row i has the inner
    distances 1..i−lo−1 and 0..hi−i−1 (less distance 0 when i = lo, where it is the end column)
    and the ends α^(i−lo), α^(hi−i), so its sum is A·(α − α^(i−lo) + 1 − α^(hi−i) + α^(i−lo) + α^(hi−i))
    = A·(1 + α) = q^dmax·(q + p) (``tests/test_families.py`` pins it for many α, n, margins)."""
    p, q = alpha.numerator, alpha.denominator
    dmax = max(n - lo, hi)
    power = [p**d * q ** (dmax - d) for d in range(dmax + 1)]
    inner = [w * (q - p) for w in power]
    end = [w * q for w in power]
    outputs = range(lo, hi + 1)
    # row i over lo < r < hi: distances i − r down to 1 (r < i), then r − i from 0 (r ≥ i) — as slices
    # of one table (the entries are shared, not rebuilt: T at n = 1000 is 10⁶ references to 2n + 2 ints)
    rows = []
    for i in range(n + 1):
        left = inner[i - lo - 1 : 0 : -1] if i - lo > 1 else []  # r = lo + 1 .. i − 1
        right = inner[max(lo + 1 - i, 0) : hi - i]  # r = max(lo + 1, i) .. hi − 1
        rows.append([end[i - lo], *left, *right, end[hi - i]])
    den = q**dmax * (q + p)
    return Mechanism.from_scaled(rows, [den] * (n + 1), outputs=list(outputs), stochastic_by_construction=True)


def randomized_response(alpha: ExactNumber, k: int) -> Mechanism:
    """k-ary randomized response on inputs 0..k−1: report the truth with probability
    1/(1+(k−1)α), each other value with probability α/(1+(k−1)α).

    Every ratio between neighbouring inputs is 1, α or 1/α, so it is α-DP (and α-DP for any
    neighbour graph). It is the classical contrast to T: not derivable from T for k ≥ 3 and
    α > 0 (GS §3).
    """
    a = _alpha(alpha)
    k = _n(k, minimum=2, name="k")
    p, q = a.numerator, a.denominator
    rows = [[q if i == j else p for j in range(k)] for i in range(k)]
    return Mechanism.from_scaled(rows, [q + (k - 1) * p] * k)


def exponential(base: object, n: int) -> Mechanism:
    """The exponential mechanism (McSherry–Talwar) on N with score −|i−j| and rational base b:
    x[i][j] = b^|i−j| / Σ_j' b^|i−j'|.

    With b = e^(−ε/2) it is ε-DP (α = b²); its exact DP level is usually better than b² and is
    found by ``dp_level``. Not universally optimal (its normaliser depends on i).
    """
    b = _alpha(base)
    n = _n(n)
    p, q = b.numerator, b.denominator
    power = [p**d * q ** (n - d) for d in range(n + 1)]
    rows = [[power[abs(i - j)] for j in range(n + 1)] for i in range(n + 1)]
    return Mechanism.from_scaled(rows, [sum(row) for row in rows])


def constant(n: int, output: int = 0) -> Mechanism:
    """The constant mechanism: always ``output``, whatever the input (α = 1; GRS Ex. 2.1's
    1-geometric mechanism)."""
    n = _n(n)
    if not 0 <= output <= n:
        raise InputError(f"output={output!r}", hint=f"expected an output in 0..{n}")
    rows = [[1 if r == output else 0 for r in range(n + 1)] for _ in range(n + 1)]
    return Mechanism.from_scaled(rows, [1] * (n + 1))


def identity(n: int) -> Mechanism:
    """The identity mechanism: the true count, no privacy (α = 0; GRS's 0-geometric)."""
    n = _n(n)
    rows = [[1 if r == i else 0 for r in range(n + 1)] for i in range(n + 1)]
    return Mechanism.from_scaled(rows, [1] * (n + 1))


# -- rounded Laplace ---------------------------------------------------------------------------


def rational_sqrt(value: Fraction) -> Fraction | None:
    """√value if it is rational, else None."""
    p, q = value.numerator, value.denominator
    rp, rq = math.isqrt(p), math.isqrt(q)
    return Fraction(rp, rq) if rp * rp == p and rq * rq == q else None


def sqrt_bounds(value: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """Exact rationals lo ≤ √value ≤ hi with hi − lo ≤ 10^(−digits)/denominator(value)."""
    p, q = value.numerator, value.denominator
    scale = 10**digits
    m = math.isqrt(p * q * scale * scale)  # m ≤ √(pq)·scale < m + 1
    return Fraction(m, q * scale), Fraction(m + 1, q * scale)


def _rounded_laplace_rows(alpha: Fraction, t: Fraction, n: int, margin: int) -> list[list[Fraction]]:
    # Laplace noise of scale 1/ε rounded to the nearest integer (GRS Theorem A.2), with
    # t = 1/√α (so √α = α·t): P[Δ'=0] = 1 − αt; P[Δ'=k] = α^|k|(1−α)t/2 for k ≠ 0;
    # tails P[Δ' ≥ m] = P[Δ' ≤ −m] = α^m·t/2 for m ≥ 1, and P[Δ' ≤ 0] = 1 − αt/2.
    lo, hi = -margin, n + margin

    def entry(d: int, at_end: bool) -> Fraction:
        if at_end:
            return alpha**d * t / 2 if d else 1 - alpha * t / 2
        return alpha**d * (1 - alpha) * t / 2 if d else 1 - alpha * t

    return [[entry(abs(r - i), r in (lo, hi)) for r in range(lo, hi + 1)] for i in range(n + 1)]


def _laplace_args(alpha: object, n: int, margin: int | None) -> tuple[Fraction, int, int]:
    a = _alpha(alpha)
    if a == 0:
        raise InputError("alpha=0", hint="the Laplace mechanism needs α > 0 (ε < ∞)")
    n = _n(n)
    margin = n if margin is None else margin
    if isinstance(margin, bool) or not isinstance(margin, int) or margin < 0:
        raise InputError(f"margin={margin!r}", hint="expected an integer ≥ 0")
    return a, n, margin


def rounded_laplace(alpha: ExactNumber, n: int, *, margin: int | None = None) -> Mechanism:
    """Laplace noise (density ε/2·e^(−ε|t|), α = e^(−ε)) rounded to the nearest integer
    (GRS Appendix A), on the output window −margin..n+margin with lumped tails.

    GRS Theorem A.2: P[Δ'=k] = (1+α)/(2√α)·P[Δ=k] for k ≠ 0 (Δ two-sided geometric).
    Exact when √α is rational (α = 1/4, 4/9, …); otherwise use ``rounded_laplace_bounds``.
    """
    a, n, margin = _laplace_args(alpha, n, margin)
    root = rational_sqrt(a)
    if root is None:
        raise InputError(
            f"√α is irrational for alpha={format_fraction(a)}",
            hint="use rounded_laplace_bounds(alpha, n, digits=…) for exact entrywise bounds, "
            "or an α that is the square of a rational",
        )
    return Mechanism(_rounded_laplace_rows(a, 1 / root, n, margin), outputs=list(range(-margin, n + margin + 1)))


@dataclass(frozen=True)
class EntryBounds:
    """Exact entrywise bounds lower[i][r] ≤ x[i][r] ≤ upper[i][r] on a mechanism."""

    lower: tuple[tuple[Fraction, ...], ...]
    upper: tuple[tuple[Fraction, ...], ...]
    outputs: tuple[int, ...]

    def contains(self, mechanism: Mechanism) -> bool:
        return mechanism.outputs == self.outputs and all(
            lo <= x <= hi
            for lrow, row, urow in zip(self.lower, mechanism.rows, self.upper)
            for lo, x, hi in zip(lrow, row, urow)
        )


def rounded_laplace_bounds(alpha: ExactNumber, n: int, *, margin: int | None = None, digits: int = 30) -> EntryBounds:
    """Exact entrywise bounds on ``rounded_laplace`` for any rational α > 0, from rational
    bounds on √α tight to 10^(−digits); every entry is monotone in 1/√α."""
    a, n, margin = _laplace_args(alpha, n, margin)
    root_lo, root_hi = sqrt_bounds(a, digits)
    at_hi = _rounded_laplace_rows(a, 1 / root_lo, n, margin)
    at_lo = _rounded_laplace_rows(a, 1 / root_hi, n, margin)
    lower = tuple(tuple(map(min, x, y)) for x, y in zip(at_lo, at_hi))
    upper = tuple(tuple(map(max, x, y)) for x, y in zip(at_lo, at_hi))
    return EntryBounds(lower, upper, tuple(range(-margin, n + margin + 1)))


def gs_appendix_b() -> Mechanism:
    """GS Appendix B's matrix on counts 0..3 as reconstructed in CLAIMS.md: 1/2-DP and not derivable
    from the truncated 1/2-geometric mechanism (GS Theorem 2's three-term value −0.75/9)."""
    return Mechanism(
        [
            ["1/9", "2/9", "4/9", "2/9"],
            ["2/9", "1/9", "2/9", "4/9"],
            ["4/9", "2/9", "1/9", "2/9"],
            ["13/18", "1/9", "1/18", "1/9"],
        ]
    )
