"""Independent re-check of a white-box audit certificate (schema ``mechlib.audit/8``).

Shares nothing with the producer but the JSON data model: it parses the exact strings itself,
builds T and its closed-form inverse from their formulas, and recomputes **every field** — or lists
it as unverified provenance (``PROVENANCE``: tool versions, the source's path, format and name,
whether rows were normalised on loading). Every object must have exactly its documented fields.

Matrices come as integer rows (numerators over one denominator per row, hexadecimal) and are
checked in integers, by cross-multiplication, without a rational per entry where n is large.
The mechanism of a count query may instead be written as T·Y (``t_alpha`` and a remap Y, the
form the audit uses when M's derivation is sparse): the checker builds T at ``t_alpha`` from its
formula and multiplies, so that matrix is exactly what every check below reads.


1. shape: n, inputs, outputs (top level and in ``mechanism``), neighbours (pairs of distinct
   inputs, no repeats), ``count_query`` (inputs 0..n with the path); each row's numerators sum to
   its denominator; given SOURCE, its SHA-256 and its parsed matrix, labels, neighbours and claim;
2. the DP level α: the mechanism is α-DP (a·d′·p ≤ b·d·q for every neighbour pair, output and
   direction, α = p/q; for T·Y with ``t_alpha`` = α by post-processing, T being α-DP) and the
   witness (a neighbour pair and output) attains α exactly — together, α is the level;
   ``epsilon_interval`` brackets ln(1/α) within 2·10⁻¹⁵ (arb); the claim's verdict;
3. derivability (GS Thm 2): decided whenever it can be (count query, n ≥ 1, α < 1) — a stochastic
   Y equal to T⁻¹M entry by entry (T⁻¹ tridiagonal, GS Lemma 2: O(n²) integer products; T·T⁻¹ = I
   for every n is GS-L2, proved by ``mechlib verify``), so T·Y = M — by definition when M is written
   as T·Y with that Y at α; or a row w of T⁻¹
   (recomputed) with (w·M)[r] < 0 and GS's condition value;
4. dominance: a stochastic Y whose error tails P(|j − i| ≥ k | i) under T·Y are nowhere above M's;
   ``"derivation"`` names the derivation's Y (T·Y = M: equal tails), decided at any n;
5. each user: the standard users are the ones named (uniform prior; absolute, squared, binary
   loss), the mechanism's loss under its optimal remap (posterior argmin, recomputed), the ratio,
   the optimum: a dual u with Σu = the optimum and every column c_j − u nonnegative on the α-DP
   cone (so no α-DP mechanism loses less), reached by T with its recorded remap (GRS Thm 3.1) and,
   when given, by the optimum X* (α-DP, stochastic); where the numbers at α pass the digit limit
   (and only there), the standard users' optima bracketed at short α_lo ≤ α ≤ α_hi
   (``mechlib.checkers.bracketed_users``);
6. the ``alpha`` of every finding is the DP level; ``derivable``, ``verdict`` and ``unknown``
   agree with the findings; a finding is "not applicable" exactly where it is not defined (not a
   count query on 0..n, n ≥ 1, or α ∉ (0, 1)); "skipped" only where a size or digit limit of the
   audit can stop it, never where the audit always decides it (there a skip is a failure); and
   every skipped or UNKNOWN finding is listed in ``unknown`` (recomputed). A skip claims nothing,
   and the claimed level's verdict does not depend on the findings, so a skip hides no failure: it
   leaves the finding undecided, in ``unknown`` and exit 3 for the audit — it cannot be removed
   from ``unknown`` nor forged where the audit decides;
7. ``approximate_dp`` (when present): the privacy profile, the tightest ε at δ, a claimed (ε, δ) and
   the zCDP bracket, by ``mechlib.checkers.approximate_dp``.
"""

from __future__ import annotations

import hashlib
import math
import operator
import re
from fractions import Fraction
from itertools import accumulate, pairwise
from typing import Any

import flint

from mechlib.checkers import numbers
from mechlib.checkers.approximate_dp import Profile, check_approximate
from mechlib.checkers.bracketed_users import check_bracketed_user, weight_bounds
from mechlib.checkers.fields import IntRows, Malformed, Q, _f, _int, _keys, _list, _same, check_epsilon
from mechlib.checkers.numbers import MAX_DIGITS
from mechlib.checkers.standard_users import Matrices, check_standard_user, numbers_fit, t_rows
from mechlib.schemas import precheck

SCHEMA = "mechlib.audit/8"

#: The LP findings (dominance of a mechanism that is not derivable; a user whose dual from T fails) are
#: always decided up to this n (the audit's default; ``MECHLIB_LP_MAX_N`` lets it run further, its
#: results then checked like any other): a skip at or below it is a failure.
LP_MAX_N = 150
#: ... and an LP certificate (a dominance remap other than the derivation) is re-checked up to this n
#: (the most MECHLIB_LP_MAX_N allows): T·Y in rationals is O(n³).
LP_CHECK_MAX_N = 1000
#: The users' certified optima run up to this n (no LP: a dual built from T).
USERS_MAX_N = 5000
#: The largest matrix (cells) the producers audit (``mechlib.core.stochastic.MAX_CELLS``): a
#: certificate declaring more is refused before any arithmetic (T at n = 20,000 as T·Y is a few
#: kilobytes of text but 4·10⁸ cells of n-digit numbers to rebuild).
MAX_CELLS = 1 << 25

#: Fields recorded for the reader but not re-checkable from the certificate.
PROVENANCE = (
    "tool (versions the certificate was produced with)",
    "source.path, source.format, source.name",
    "rows_normalized (whether --normalize-rows was given; the matrix itself is checked)",
)

BOUNDARY = "x_r - a*x_nb"
INTERIOR = "(1+a^2)*x_r - a*(x_(r-1) + x_(r+1))"
STANDARD_LOSSES = ("absolute", "squared", "binary")


_HEX = re.compile(r"[0-9a-f]+")
_HEX_DIGITS = b"0123456789abcdef"


def _hex(text: Any, where: str) -> int:
    if not isinstance(text, str) or not _HEX.fullmatch(text) or len(text) > MAX_DIGITS:
        raise Malformed(f"{where}: expected at most {MAX_DIGITS} hexadecimal digits, got {str(text)[:40]!r}")
    return int(text, 16)


def _hex_row(texts: list[Any], where: str) -> list[int]:
    """A row of hexadecimal integers, validated in one pass over the row joined by commas (``int(text,
    16)`` alone would also take '0x', '_', '+' and spaces): nothing but hexadecimal digits and commas
    (bytes.translate deleting those leaves nothing; a non-ASCII character leaves its UTF-8 bytes),
    exactly one comma between entries (none inside one) and no empty entry."""
    try:
        joined = ",".join(texts)  # a TypeError if an entry is not a string: no per-entry isinstance
    except TypeError:
        joined = None
    if (
        joined is not None
        and not joined.encode().translate(None, _HEX_DIGITS + b",")
        and joined.count(",") == len(texts) - 1
        and ",," not in joined
        and not joined.startswith(",")
        and not joined.endswith(",")
        and (joined or not texts)
        and max(map(len, texts), default=0) <= MAX_DIGITS
    ):
        return [int(t, 16) for t in texts]
    return [_hex(t, f"{where}[{k}]") for k, t in enumerate(texts)]  # names the bad entry


def _int_rows(form: Any, where: str, height: int, width: int | None) -> IntRows:
    """Integer rows, dense or sparse (``columns``), with positive denominators; ``width`` None:
    as many columns as the first dense row (sparse rows need a width)."""
    if isinstance(form, dict) and "columns" in form:
        if width is None:
            raise Malformed(f"{where}: the width of a sparse matrix is not known here")
        den, entries = _sparse_rows(form, where, height, width)
        num = []
        for row in entries:
            dense = [0] * width
            for c, v in row:
                dense[c] = v
            num.append(dense)
        return IntRows(den, num)
    _keys(form, where, {"denominators", "numerators"})
    den = _denominators(form, where, height)
    rows = _list(form["numerators"], f"{where}.numerators", height)
    if width is None:
        if not rows:
            raise Malformed(f"{where}.numerators: expected at least one row")
        width = len(_list(rows[0], f"{where}.numerators[0]"))
    num = []
    for i, row in enumerate(rows):
        values = _hex_row(_list(row, f"{where}.numerators[{i}]"), f"{where}.numerators[{i}]")
        if len(values) != width:
            raise Malformed(f"{where}.numerators[{i}]: expected {width} entries, got {len(values)}")
        num.append(values)
    return IntRows(den, num)


def _denominators(form: dict[str, Any], where: str, height: int) -> list[int]:
    den = [_hex(v, f"{where}.denominators[{i}]") for i, v in enumerate(_list(form["denominators"], where, height))]
    if 0 in den:
        raise Malformed(f"{where}.denominators: a row denominator is 0")
    return den


def _sparse_rows(form: Any, where: str, height: int, width: int) -> tuple[list[int], list[list[tuple[int, int]]]]:
    """A sparse matrix (``columns``) as its row denominators and, per row, its (column, numerator)
    pairs — never the zeros in between."""
    _keys(form, where, {"denominators", "numerators", "columns"})
    den = _denominators(form, where, height)
    rows = _list(form["numerators"], f"{where}.numerators", height)
    columns = _list(form["columns"], f"{where}.columns", height)
    entries = []
    for i, (row, cols) in enumerate(zip(rows, columns)):
        values = _hex_row(_list(row, f"{where}.numerators[{i}]"), f"{where}.numerators[{i}]")
        cols = [_int(c, f"{where}.columns[{i}]") for c in _list(cols, f"{where}.columns[{i}]")]
        ordered = all(a < b for a, b in pairwise(cols)) and (not cols or (cols[0] >= 0 and cols[-1] < width))
        if len(cols) != len(values) or not ordered:
            raise Malformed(f"{where}.columns[{i}]: expected increasing columns in 0..{width - 1}, one each")
        entries.append(list(zip(cols, values)))
    return den, entries


def _same_values(a: IntRows, b: IntRows) -> bool:
    """Equal entries, a row at a time: the same list over the same denominator, or else equal
    cross-products x·(e/g) = y·(d/g), g = gcd(d, e) — small multipliers when the denominators
    differ by a small factor (T in lowest terms against T·Y: a factor 2), never a gcd per row."""
    return len(a.num) == len(b.num) and all(
        len(ra) == len(rb) and (ra == rb if d == e else _cross_equal(ra, d, rb, e))
        for ra, d, rb, e in zip(a.num, a.den, b.num, b.den)
    )


def _cross_equal(ra: list[int], d: int, rb: list[int], e: int) -> bool:
    g = math.gcd(d, e)
    left, right = e // g, d // g  # one of them is often 1: that side is compared as it is
    return (ra if left == 1 else list(map(left.__mul__, ra))) == (rb if right == 1 else list(map(right.__mul__, rb)))


def _t_fits(alpha: Q, n: int) -> None:
    """T at α = a/b on 0..n has the row denominator b^n·(a + b) (``t_rows``): refused, before it is
    built, past ``MAX_DIGITS`` hexadecimal digits — the limit of every number written in integer
    rows, so T·Y is read exactly where M written out would be."""
    a, b = int(alpha.p), int(alpha.q)
    limit = numbers.MAX_DIGITS
    if n * (b.bit_length() - 1) > 4 * limit or len(f"{b**n * (a + b):x}") > limit:
        raise Malformed(
            f"mechanism.matrix: T at t_alpha on 0..{n} has denominators b^n·(a + b) of more than {limit} "
            "hexadecimal digits (raise MECHLIB_MAX_DIGITS to allow more)"
        )


def _t_times(t: IntRows, den: list[int], entries: list[list[tuple[int, int]]], width: int) -> IntRows:
    """T·Y in integers, Y given by its row denominators and (column, numerator) pairs: row i is
    Σ_s t[i][s]·Y[s] over t's denominator times L = lcm of Y's row denominators (O(n · nonzeros
    of Y)); T itself when Y is the identity (square: a Y with more columns gives as many)"""
    common = math.lcm(*den)
    scaled = [[(r, v * (common // d)) for r, v in row if v] for row, d in zip(entries, den)]
    if width == len(scaled) and common == 1 and all(e == [(s, 1)] for s, e in enumerate(scaled)):
        return t
    num = []
    for row in t.num:
        out = [0] * width
        for a, column in zip(row, scaled):
            for r, c in column:
                out[r] += a * c
        num.append(out)
    return IntRows([d * common for d in t.den], num)


def _dp_violation(m: IntRows, neighbours: list[tuple[int, int]], alpha: Q) -> tuple[int, int, int] | None:
    """A neighbour pair (i, i′) and column r with α·x[i][r] > x[i′][r], or None: M is α-DP.
    In integers, with α = p/q: p·a·d′ ≤ q·b·d for x[i][r] = a/d, x[i′][r] = b/d′."""
    p, q = int(alpha.p), int(alpha.q)
    floats: dict[int, Any] = {}  # a row's numerators as a float array, once per row (None: past 2¹⁰²⁴)
    for i, j in neighbours:
        for big, small in ((i, j), (j, i)):
            lhs, rhs = p * m.den[small], q * m.den[big]
            g = math.gcd(lhs, rhs)  # equal row denominators leave p and q: small multipliers
            lhs, rhs = lhs // g, rhs // g
            row_big, row_small = m.num[big], m.num[small]
            if min(lhs, rhs).bit_length() > 64:  # long multipliers (rows over other denominators)
                float_big, float_small = _floats(m, big, floats), _floats(m, small, floats)
                if float_big is not None and float_small is not None:
                    row_big, row_small = _unsettled(row_big, row_small, float_big, float_small, _quotient(lhs, rhs))
            if any(map(operator.gt, map(lhs.__mul__, row_big), map(rhs.__mul__, row_small))):
                cells = enumerate(zip(m.num[big], m.num[small]))
                return big, small, next(r for r, (a, b) in cells if lhs * a > rhs * b)
    return None


def _floats(m: IntRows, i: int, cache: dict[int, Any]) -> Any:
    """Row i's numerators as a float array (each correctly rounded by CPython's int → float: within
    2⁻⁵³ of it, relatively), None if one is past the float range (that row is compared exactly)."""
    if i not in cache:
        import numpy as np

        try:
            cache[i] = np.array(list(map(float, m.num[i])))
        except OverflowError:
            cache[i] = None
    return cache[i]


def _quotient(x: int, y: int) -> float:
    """x/y correctly rounded (Python's int division), ∞ past the float range."""
    try:
        return x / y
    except OverflowError:
        return math.inf


def _unsettled(
    row_big: list[int], row_small: list[int], float_big: Any, float_small: Any, scale: float
) -> tuple[list[int], list[int]]:
    """The cells (a, b) of two rows for which lhs·a ≤ rhs·b (``scale`` = lhs/rhs as a float) is
    not settled by floats; the rest are compared exactly by the caller. Dropped: a = 0, and cells
    with 10⁻²⁹⁰ < (â / b̂)·scale < 1 − 10⁻¹², â and b̂ the floats of a and b (b = 0 gives ∞: kept).
    Sound: numerators are never negative (hexadecimal digits, or T·Y of such), so a dropped cell has
    integers a, b ≥ 1 below 2¹⁰²⁴, â, b̂ are normal and each within 2⁻⁵³ of a, b relatively; the
    quotient, the product and ``scale`` add three more such roundings (IEEE, as numpy's float64
    division and product are) when â / b̂ is normal, so (a/b)·(lhs/rhs) < c·(1 + 2⁻⁵³)⁵/(1 − 2⁻⁵³)²
    < 1, c = 1 − 9007·2⁻⁵³ being the float 1 − 10⁻¹² compared with; when â / b̂ is subnormal (below
    2⁻¹⁰²², off by at most 2⁻¹⁰⁷⁴, or flushed to 0: then kept), (a/b)·(lhs/rhs) < 2⁻¹⁰²¹·10²⁹⁰·(1 +
    2⁻⁵⁰) < 1 as well. The exponential mechanism at n = 1000 has ≈ 700-bit α and 1000-bit rows: two
    long products per cell become one vectorised float division."""
    import numpy as np

    if not 1e-290 < scale < 1e290:
        return row_big, row_small
    with np.errstate(all="ignore"):  # b = 0: ∞ (a > 0) or NaN (a = 0, dropped anyway)
        estimate = float_big / float_small * scale
    settled = (estimate > 1e-290) & (estimate < 1 - 1e-12)
    kept = np.flatnonzero((float_big != 0) & ~settled).tolist()
    return [row_big[r] for r in kept], [row_small[r] for r in kept]


def _matrix(rows: Any, where: str, height: int, width: int) -> list[list[Q]]:
    return [
        [_f(v, f"{where}[{i}][{j}]") for j, v in enumerate(_list(row, f"{where}[{i}]", width))]
        for i, row in enumerate(_list(rows, where, height))
    ]


def _t(alpha: Q, n: int) -> list[list[Q]]:
    """T(i, r) = (1−α)/(1+α)·α^|i−r| inside, α^|i−r|/(1+α) at r ∈ {0, n} (GRS Example 2.2)."""
    return [
        [(1 if r in (0, n) else 1 - alpha) / (1 + alpha) * alpha ** abs(i - r) for r in range(n + 1)]
        for i in range(n + 1)
    ]


def _t_inverse_row(alpha: Q, n: int, r: int) -> list[Q]:
    """Row r of T⁻¹ (GS Lemma 2): [1, −α]/(1−α) at the ends, [−α, 1+α², −α]/(1−α)² inside."""
    row = [Q(0)] * (n + 1)
    if r in (0, n):
        row[r], row[1 if r == 0 else n - 1] = 1 / (1 - alpha), -alpha / (1 - alpha)
    else:
        row[r - 1] = row[r + 1] = -alpha / (1 - alpha) ** 2
        row[r] = (1 + alpha * alpha) / (1 - alpha) ** 2
    return row


def _product(a: list[list[Q]], b: list[list[Q]]) -> list[list[Q]]:
    p = flint.fmpq_mat(a) * flint.fmpq_mat(b)
    return [[p[i, j] for j in range(p.ncols())] for i in range(p.nrows())]


def _cone_nonnegative(w: list[Q], alpha: Q) -> bool:
    """min over the extreme rays x_{i+1} = α^±1·x_i of w·x (scaled to x_0 = 1) is ≥ 0."""
    f = w[-1]
    for value in reversed(w[:-1]):
        f = value + (alpha * f if f >= 0 else f / alpha)
    return f >= 0


def _optimal_remap_loss(m: list[list[Q]], prior: list[Q], loss: list[list[Q]]) -> Q:
    """Σ_r min_g Σ_i p_i·m[i][r]·l(i, g): the Bayes user's best post-processing (GRS §2.3)."""
    joint = [[p * v for v in row] for p, row in zip(prior, m)]
    by_guess = _product([list(col) for col in zip(*loss)], joint)  # [g][r] = Σ_i l(i, g)·p_i·m[i][r]
    return sum((min(col) for col in zip(*by_guess)), Q(0))


def source_digest(data: bytes) -> str:
    """The SHA-256 of a SOURCE file's bytes (hexadecimal), computed here: ``mechlib check`` has the
    loader call it on the bytes it reads, so the file is read and hashed once, by the checker."""
    return hashlib.sha256(data).hexdigest()


def check_certificate(
    cert: dict[str, Any], source: bytes | str | None = None, source_mechanism: dict[str, Any] | None = None
) -> list[str]:
    """The failed checks (empty: every field of the certificate holds or is listed provenance).

    ``source``: the bytes of a SOURCE file, or the SHA-256 hex digest of a ``module:function``'s
    source file, compared with the certified one; ``source_mechanism``: SOURCE as loaded
    (``matrix``: {"denominators": [int], "numerators": [[int]]}, Python ints; ``inputs``,
    ``outputs``, ``neighbours``, ``claimed``: {"alpha"|"epsilon": text} or None), compared field by
    field.
    """
    wrong = precheck(cert, SCHEMA, "certificate")
    if wrong:
        return wrong
    try:
        return _check(cert, source, source_mechanism)
    except Malformed as err:
        return [f"malformed certificate: {err}"]
    except (KeyError, TypeError, IndexError, ValueError, ZeroDivisionError, AttributeError) as err:
        return [f"malformed certificate: {type(err).__name__}: {err}"]


TOP = {
    "schema", "tool", "source", "rows_normalized", "n", "inputs", "outputs", "count_query", "mechanism",
    "dp_level", "epsilon_interval", "witness", "claimed", "verdict", "derivable", "derivation", "dominance",
    "user_losses", "unknown", "approximate_dp",
}  # fmt: skip


def _check(cert: dict[str, Any], source: bytes | str | None, parsed: dict[str, Any] | None) -> list[str]:
    failures: list[str] = []
    _keys(cert, "certificate", TOP)
    if not isinstance(cert["tool"], dict):
        raise Malformed("tool: expected an object (provenance)")
    src = _keys(cert["source"], "source", {"path", "format", "sha256", "name"})
    sha = src["sha256"]
    if not isinstance(sha, str) or len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise Malformed(f"source.sha256: expected 64 hexadecimal digits, got {sha!r}")
    digest = source_digest(source) if isinstance(source, bytes) else source
    if digest is not None and digest != sha:
        failures.append("SOURCE does not have the certified SHA-256")
    if not isinstance(cert["rows_normalized"], bool):
        raise Malformed("rows_normalized: expected true or false")

    mech = _keys(cert["mechanism"], "mechanism", {"inputs", "outputs", "neighbours", "matrix"})
    inputs = [_int(v, "mechanism.inputs") for v in _list(mech["inputs"], "mechanism.inputs")]
    outputs = [_int(v, "mechanism.outputs") for v in _list(mech["outputs"], "mechanism.outputs")]
    if len(set(inputs)) != len(inputs) or len(set(outputs)) != len(outputs) or not inputs or not outputs:
        raise Malformed("mechanism.inputs/outputs: expected nonempty lists of distinct integers")
    if len(inputs) * len(outputs) > MAX_CELLS:
        raise Malformed(
            f"mechanism: {len(inputs):,} inputs × {len(outputs):,} outputs is above {MAX_CELLS:,} cells, the "
            "largest matrix mechlib audits"
        )
    if cert["inputs"] != inputs or cert["outputs"] != outputs:
        failures.append("inputs/outputs differ from the mechanism's")
    n = len(inputs) - 1
    if _int(cert["n"], "n") != n:
        failures.append(f"n is {cert['n']}, the mechanism has inputs 0..{n}")
    row_of, col_of = {v: k for k, v in enumerate(inputs)}, {v: k for k, v in enumerate(outputs)}
    neighbours: list[tuple[int, int]] = []
    for k, pair in enumerate(_list(mech["neighbours"], "mechanism.neighbours")):
        a, b = (_int(v, f"mechanism.neighbours[{k}]") for v in _list(pair, f"mechanism.neighbours[{k}]", 2))
        if a not in row_of or b not in row_of or a == b:
            raise Malformed(f"mechanism.neighbours[{k}]: {pair} is not a pair of distinct inputs")
        neighbours.append((row_of[a], row_of[b]))
    if len({frozenset(p) for p in neighbours}) != len(neighbours):
        raise Malformed("mechanism.neighbours: a pair is listed twice")
    path = {frozenset((i, i + 1)) for i in range(n)}
    count_query = inputs == list(range(n + 1)) and {frozenset(p) for p in neighbours} == path
    if cert["count_query"] is not count_query:
        failures.append(f"count_query is {cert['count_query']}, recomputed {count_query}")
    form = mech["matrix"]
    t_alpha, t = None, None  # M = T(t_alpha)·Y when the matrix is written so
    if isinstance(form, dict) and "t_alpha" in form:
        _keys(form, "mechanism.matrix", {"t_alpha", "remap"})
        t_alpha = _f(form["t_alpha"], "mechanism.matrix.t_alpha")
        if not (count_query and n >= 1 and 0 < t_alpha < 1):
            raise Malformed("mechanism.matrix: T·Y needs a count query on 0..n, n ≥ 1, and 0 < t_alpha < 1")
        _t_fits(t_alpha, n)
        remap = form["remap"]
        if isinstance(remap, dict) and "columns" in remap:  # Y's nonzeros alone, as written
            y_den, y_entries = _sparse_rows(remap, "mechanism.matrix.remap", n + 1, len(outputs))
        else:
            y = _int_rows(remap, "mechanism.matrix.remap", n + 1, len(outputs))
            y_den, y_entries = y.den, [list(enumerate(row)) for row in y.num]
        if any(sum(v for _, v in row) != d for row, d in zip(y_entries, y_den)):
            # T is stochastic by its formula, so T·Y is iff Y is
            failures.append("the matrix's remap Y is not row-stochastic")
        t = t_rows(t_alpha, n)
        m = _t_times(t, y_den, y_entries, len(outputs))
    else:
        m = _int_rows(form, "mechanism.matrix", n + 1, len(outputs))
        if not m.stochastic():
            failures.append("the matrix is not row-stochastic")
    if parsed is not None:
        failures += _compare_source(parsed, mech, m, cert["claimed"])

    alpha = _f(cert["dp_level"], "dp_level")  # the level iff M is α-DP and the witness attains α
    if not 0 <= alpha <= 1:
        raise Malformed(f"dp_level: {cert['dp_level']} is not in [0, 1]")
    # M = T(α)·Y is α-DP: T is (GRS Example 2.2) and post-processing keeps it,
    # Σ_s T[i][s]·Y[s][r] ≥ Σ_s α·T[i′][s]·Y[s][r]; with the witness attaining α, α is the level
    violation = None if t_alpha == alpha else _dp_violation(m, neighbours, alpha)
    if violation is not None:
        big, small, r = violation
        failures.append(
            f"the mechanism is not {cert['dp_level']}-DP: x[{inputs[small]}][{outputs[r]}] < "
            f"α·x[{inputs[big]}][{outputs[r]}]"
        )
    failures += check_epsilon(cert["epsilon_interval"], alpha, "epsilon_interval")
    failures += _check_witness(cert["witness"], m, neighbours, inputs, outputs, row_of, col_of, alpha)
    section, profile = cert["approximate_dp"], None
    if section is not None:
        approximate_failures, profile = check_approximate(section, m, neighbours, row_of, col_of)
        failures += approximate_failures
    failures += _check_claim(cert["claimed"], cert["verdict"], alpha, section is not None, profile)

    decidable = count_query and n >= 1 and 0 < alpha < 1  # at α = 0 every mechanism is a remap of T_0 = I
    d = cert["derivation"]
    given = form["remap"] if t_alpha == alpha else None  # M's own Y: T·Y = M by definition
    derivation_failures = _check_derivation(d, m, outputs, col_of, alpha, n, decidable, given)
    failures += derivation_failures
    status = d.get("status") if isinstance(d, dict) else None
    derivable = {"derivable": True, "not derivable": False}.get(status) if isinstance(status, str) else None
    if cert["derivable"] is not derivable:
        failures.append(f"derivable is {cert['derivable']}, the derivation finding says {derivable}")

    # a derivable M (outputs 0..m−1, the remap's guesses) is dominated by its own derivation, at any n
    by_derivation = decidable and derivable is True and outputs == list(range(len(outputs)))
    dom = cert["dominance"]
    if _status(dom, "dominance", decidable, decidable and (n <= LP_MAX_N or by_derivation), failures) == "certified":
        _keys(dom, "dominance", {"status", "alpha", "remap"})
        if not _same(dom["alpha"], alpha, "dominance.alpha"):
            failures.append("dominance.alpha is not the DP level")
        if dom["remap"] == "derivation":
            if not by_derivation or derivation_failures:
                failures.append("dominance names the derivation's remap, but M has no checked derivation here")
        else:
            failures += _check_dominance(dom["remap"], m, inputs, outputs, alpha, n)
    users = cert["user_losses"]
    fit = decidable and n <= USERS_MAX_N and numbers_fit(alpha, n)  # else the standard users are bracketed
    certifiable = decidable and n <= USERS_MAX_N
    if _status(users, "user_losses", decidable, fit and n <= LP_MAX_N, failures, certifiable) == "certified":
        _keys(users, "user_losses", {"status", "alpha", "users"})
        if not _same(users["alpha"], alpha, "user_losses.alpha"):
            failures.append("user_losses.alpha is not the DP level")
        rows = _list(users["users"], "user_losses.users")
        if [(u.get("prior_name"), u.get("loss_name")) for u in rows[:3] if isinstance(u, dict)] != [
            ("uniform", name) for name in STANDARD_LOSSES
        ]:
            failures.append("user_losses.users does not start with the three standard users")
        general: tuple[list[list[Q]], list[list[Q]]] | None = None  # M and T as rationals, for loss matrices
        integers: Matrices | None = None  # M and T in integers, by columns, for named losses
        bounds: tuple[Any, Any] | None = None
        for k, u in enumerate(rows):
            where = f"user_losses.users[{k}]"
            if isinstance(u, dict) and isinstance(u.get("optimum"), dict):  # bracketed at short α_lo ≤ α ≤ α_hi
                if fit:
                    failures.append(f"{where}: the optimum is bracketed although its exact value is decided here")
                bounds = bounds or weight_bounds(m)  # M's weights on floats, once for every user
                failures += check_bracketed_user(u, where, m, outputs, alpha, n, bounds)
                continue
            if not fit:
                raise Malformed(f"{where}: an exact optimum at α = {alpha} on 0..{n} has numbers past the digit "
                                "limit (the audit brackets it)")  # fmt: skip
            if isinstance(u, dict) and isinstance(u.get("loss"), str) and "optimum_mechanism" not in u:
                at_level = t if t is not None and t_alpha == alpha else t_rows(alpha, n)
                integers = integers or Matrices.of(m, at_level, alpha)
                failures += check_standard_user(u, where, integers, outputs, alpha, n)  # integers, O(n²)
                continue
            if general is None:
                general = (m.rationals(), _t(alpha, n))
            failures += _check_user(u, where, general[0], outputs, alpha, general[1], n)
    unknown = [k for k in ("derivation", "dominance", "user_losses") if cert[k].get("status") in UNDECIDED]
    if cert["unknown"] != unknown:
        failures.append(f"unknown is {cert['unknown']}, the findings say {unknown}")
    return failures


def _compare_source(parsed: dict[str, Any], mech: dict[str, Any], m: IntRows, claimed: Any) -> list[str]:
    out = []
    for field in ("inputs", "outputs", "neighbours"):
        ours = [list(p) for p in parsed[field]] if field == "neighbours" else list(parsed[field])
        if ours != mech[field]:
            out.append(f"mechanism.{field} differ from SOURCE's")
    source = parsed["matrix"]  # SOURCE loaded by the CLI: integer rows of Python ints, not text
    theirs_rows = IntRows(list(source["denominators"]), [list(row) for row in source["numerators"]])
    if len(theirs_rows.den) != len(m.num) or not _same_values(theirs_rows, m):
        out.append("mechanism.matrix differs from SOURCE's")
    theirs = parsed.get("claimed")
    mine = None if claimed is None else {k: v for k, v in claimed.items() if k != "holds"}
    if (theirs is None) != (mine is None) or (
        theirs is not None
        and mine is not None
        and (theirs.keys() != mine.keys() or any(Fraction(theirs[k]) != Fraction(mine[k]) for k in theirs))
    ):
        out.append("the claimed level differs from SOURCE's")
    return out


def _check_witness(
    w: Any,
    m: IntRows,
    neighbours: list[tuple[int, int]],
    inputs: list[int],
    outputs: list[int],
    row_of: dict[int, int],
    col_of: dict[int, int],
    alpha: Q,
) -> list[str]:
    if w is None:
        return [] if not neighbours else ["a mechanism with neighbouring inputs needs a DP witness"]
    _keys(w, "witness", {"inputs", "output", "probabilities", "ratio"})
    pair = [_int(v, "witness.inputs") for v in _list(w["inputs"], "witness.inputs", 2)]
    output = _int(w["output"], "witness.output")
    if any(v not in row_of for v in pair) or output not in col_of:
        return ["the witness names an input or output the mechanism does not have"]
    big, small, r = row_of[pair[0]], row_of[pair[1]], col_of[output]
    probabilities = [_f(v, "witness.probabilities") for v in _list(w["probabilities"], "witness.probabilities", 2)]
    x_big, x_small = m.entry(big, r), m.entry(small, r)
    ratio = Q(1) if x_big == 0 else x_small / x_big
    out = []
    if frozenset((big, small)) not in {frozenset(p) for p in neighbours}:
        out.append("the witness's inputs are not neighbours")
    if probabilities != [x_big, x_small] or not _same(w["ratio"], ratio, "witness.ratio"):
        out.append("the witness's probabilities or ratio are not the matrix's")
    if ratio != alpha or x_small > x_big:
        out.append("the witness does not attain the DP level")
    return out


def _check_claim(claimed: Any, verdict: Any, alpha: Q, with_profile: bool, profile: Profile | None) -> list[str]:
    """The claim's verdict: α-DP / ε-DP at the DP level; (ε, δ)-DP at the profile's tightest α at δ."""
    if claimed is None:
        return [] if verdict == "NONE" else [f"verdict is {verdict!r} with no claimed level (expected 'NONE')"]
    keys = set(claimed) if isinstance(claimed, dict) else set()
    which = "alpha" if "alpha" in keys else "epsilon"
    _keys(claimed, "claimed", {which, "holds"}, {"delta"})
    if "delta" in claimed:
        delta = _f(claimed["delta"], "claimed.delta")
        if not 0 <= delta <= 1:
            raise Malformed(f"claimed.delta: {claimed['delta']} is not in [0, 1]")
        if profile is None:  # its failures are listed already when it is there
            return [] if with_profile else ["a claimed δ needs the approximate_dp section (the privacy profile)"]
        alpha = profile.tightest_alpha(delta)[0]
    value = _f(claimed[which], f"claimed.{which}")
    if which == "alpha":
        if not 0 <= value <= 1:
            raise Malformed(f"claimed.alpha: {claimed['alpha']} is not in [0, 1]")
        holds = alpha >= value
    else:
        if value < 0:
            raise Malformed(f"claimed.epsilon: {claimed['epsilon']} is negative")
        flint.ctx.prec = 256
        target, mine = (-flint.arb(value)).exp(), flint.arb(alpha)
        if value == 0:
            holds = alpha == 1
        elif mine > target or mine < target:
            holds = bool(mine > target)
        else:
            return ["could not separate α from e^-ε at 256 bits"]
    out = [] if claimed["holds"] is holds else [f"claimed.holds is {claimed['holds']}, recomputed {holds}"]
    if verdict != ("PASS" if holds else "FAIL"):
        out.append(f"verdict is {verdict!r}, the claim {'holds' if holds else 'fails'}")
    return out


UNDECIDED = ("skipped", "UNKNOWN")


def _status(
    finding: Any, name: str, applicable: bool, decided: bool, failures: list[str], certifiable: bool | None = None
) -> str:
    """The finding's status, its form checked: "not applicable" exactly where ``applicable`` is
    false; "skipped" never where the audit always decides it (``decided``); "certified" only where
    applicable (and ``certifiable``, default ``applicable``). Else a failure, and "invalid"."""
    status = finding.get("status") if isinstance(finding, dict) else None
    if status not in ("certified", "not applicable", *UNDECIDED):
        raise Malformed(f"{name}: expected a status of certified, not applicable, skipped or UNKNOWN")
    if status == "skipped":
        _keys(finding, name, {"status", "reason", "decide"})
    elif status != "certified":
        _keys(finding, name, {"status", "reason"}, {"decide"})
    problem = (
        None
        if (status == "not applicable") == (not applicable)
        else f"{name} is reported {status} although it is {'' if applicable else 'not '}defined for this mechanism"
    )
    if problem is None and status == "skipped" and decided:
        problem = f"{name} is skipped although the audit decides it here"
    if problem is None and status == "certified" and not (applicable if certifiable is None else certifiable):
        problem = f"{name} is reported certified although the audit does not decide it here"
    if problem is not None:
        failures.append(problem)
        return "invalid"
    return str(status)


def _is_inverse_t_times(y: IntRows, m: IntRows, alpha: Q) -> bool:
    """Y = T⁻¹M entry by entry, in integers. With α = p/q, row r of q·T⁻¹ is (q, −p)/(q−p) at
    r = 0 (mirrored at r = n) and (−pq, p²+q², −pq)/(q−p)² inside (GS Lemma 2), so
    y[r][j]/e_r = Σ_k c_k·a_kj/d_k / D  ⇔  e_r·Σ_k c_k·a_kj·(L/d_k) = y_rj·D·L with L = lcm_k d_k."""
    p, q, n = int(alpha.p), int(alpha.q), len(m.num) - 1  # n ≥ 1: derivability is decided only there
    for r in range(n + 1):
        if r in (0, n):
            terms, scale = [(r, q), (1 if r == 0 else n - 1, -p)], q - p
        else:
            terms, scale = [(r - 1, -p * q), (r, p * p + q * q), (r + 1, -p * q)], (q - p) ** 2
        common = math.lcm(*(m.den[k] for k, _ in terms))
        multipliers = [c * (common // m.den[k]) * y.den[r] for k, c in terms]
        right = scale * common
        g = math.gcd(right, *multipliers)  # keeps the multipliers small when the rows share a denominator
        combined: Any = None
        for (k, _), c in zip(terms, multipliers):
            scaled = map((c // g).__mul__, m.num[k])
            combined = scaled if combined is None else map(operator.add, combined, scaled)
        if list(combined) != list(map((right // g).__mul__, y.num[r])):
            return False
    return True


def _check_dominance(remap: Any, m: IntRows, inputs: list[int], outputs: list[int], alpha: Q, n: int) -> list[str]:
    """T·Y's error tails nowhere above M's (CLAIMS.md note 1), in integers: T·Y from T's integer
    rows and Y's nonzeros (``_t_times``, O(n · nonzeros of Y): the identity — T itself — at any n),
    each row's tails as suffix sums of its numerators by distance, compared by cross-products. A
    dense Y (an LP's) is re-checked up to ``LP_CHECK_MAX_N``. ``{"t_at": α′}``: Y = T_α⁻¹·T_α′
    (``_check_t_at``)."""
    if isinstance(remap, dict) and "t_at" in remap:
        _keys(remap, "dominance.remap", {"t_at"})
        return _check_t_at(_f(remap["t_at"], "dominance.remap.t_at"), m, inputs, outputs, alpha, n)
    if isinstance(remap, dict) and "columns" in remap:  # guesses 0..n, as T's outputs
        den, entries = _sparse_rows(remap, "dominance.remap", n + 1, n + 1)
        guesses = list(range(n + 1))
    else:
        y = _int_rows(remap, "dominance.remap", n + 1, None)
        den, entries = y.den, [[(c, v) for c, v in enumerate(row) if v] for row in y.num]
        guesses = list(range(len(y.num[0])))
    if sum(map(len, entries)) > 4 * (n + 1) and n > LP_CHECK_MAX_N:
        raise Malformed(f"dominance: a dense remap (an LP's) is re-checked up to n = {LP_CHECK_MAX_N}, not {n}")
    if any(sum(v for _, v in row) != d for row, d in zip(entries, den)):
        return ["the dominance remap is not stochastic"]
    z = _t_times(t_rows(alpha, n), den, entries, len(guesses))
    labels = [*outputs, *guesses]
    top = max(max(labels) - min(inputs), max(inputs) - min(labels)) + 1  # past every distance
    for k, i in enumerate(inputs):
        ours, theirs = _int_tails(z.num[k], i, guesses, top), _int_tails(m.num[k], i, outputs, top)
        if any(map(operator.gt, map(m.den[k].__mul__, ours[1:]), map(z.den[k].__mul__, theirs[1:]))):
            return ["T·Y has a heavier error tail than the mechanism somewhere"]
    return []


#: T at α′ = u/v (a dominance remap ``t_at``) is re-checked while n·(bits of u and v) stays below
#: this: its tails are u^k·v^(n+1−k), each multiplied by M's row denominators (checked before work).
T_AT_MAX_BITS = 200_000


def _check_t_at(at: Q, m: IntRows, inputs: list[int], outputs: list[int], alpha: Q, n: int) -> list[str]:
    """Dominance by T at α′ = u/v: a remap of T at α when α ≤ α′ < 1 — Y = T_α⁻¹·T_α′ with GS
    Lemma 2's tridiagonal T_α⁻¹ applied to T_α′'s columns (geometric in |i − r| from each column,
    the end columns too) has every entry a positive multiple of one of α′ − α, 1 − αα′ and
    1 + α² − 2αα′ = (1 − α)² + 2α(1 − α′), checked here — and T_α′'s error tails nowhere above M's.
    T's tail on one side is Σ_{j ≥ i+k} = α′^k/(1 + α′) for k ≤ n − i (the end column holds the
    series' rest), on the left the same for k ≤ i: as integers u^k·v^(n+1−k) over v^n·(u + v).
    Compared with M's tails by cross-products, first by bit lengths (exact: 2^(len−1) ≤ x < 2^len)."""
    u, v = int(at.p), int(at.q)
    if n * max(u.bit_length(), v.bit_length()) > T_AT_MAX_BITS:
        raise Malformed(f"dominance.remap.t_at: T at α′ = {at} on 0..{n} has numbers past {T_AT_MAX_BITS:,} bits")
    if not (alpha <= at < 1 and all(f >= 0 for f in (at - alpha, 1 - alpha * at, 1 + alpha * alpha - 2 * alpha * at))):
        return [f"dominance.remap: T at {at} is not a remap of T at the DP level {alpha} (needs α ≤ α′ < 1)"]
    if inputs != list(range(n + 1)):
        return ["dominance.remap: T at α′ needs the inputs 0..n"]
    powers_u, powers_v = [1], [1]
    for _ in range(n + 1):
        powers_u.append(powers_u[-1] * u)
        powers_v.append(powers_v[-1] * v)
    t_den = powers_v[n] * (u + v)
    den_bits = t_den.bit_length()
    one_side = [powers_u[k] * powers_v[n + 1 - k] for k in range(n + 1)]
    tails = {1: one_side, 2: [2 * x for x in one_side]}  # by the number of sides reaching k
    bits = {c: [x.bit_length() for x in xs] for c, xs in tails.items()}
    top = max(max(outputs), n) - min(min(outputs), 0) + 1
    for row, i in enumerate(inputs):
        theirs = _int_tails(m.num[row], i, outputs, top)
        d = m.den[row]
        d_bits = d.bit_length()
        for k in range(1, max(i, n - i) + 1):
            c = (k <= i) + (k <= n - i)
            their = theirs[k]
            if their and bits[c][k] + d_bits <= their.bit_length() + den_bits - 2:
                continue
            if tails[c][k] * d > their * t_den:
                return [f"T at {at} has a heavier error tail than the mechanism at input {i}, distance {k}"]
    return []


def _int_tails(row: list[int], i: int, labels: list[int], top: int) -> list[int]:
    """Suffix sums by distance: den · P(|o − i| ≥ k | i) for k = 0..top (every distance ≤ top).
    Outputs 0..L−1 with i among them (the common case): the row read outward from i, by slices."""
    mass = [0] * (top + 2)
    if labels == list(range(len(row))) and 0 <= i < len(row):
        left, right = row[i::-1], row[i + 1 :]  # distances 0..i, and 1..L−1−i
        mass[: len(left)] = left
        mass[1 : 1 + len(right)] = map(operator.add, mass[1 : 1 + len(right)], right)
    else:
        for o, x in zip(labels, row):
            mass[abs(o - i)] += x
    return list(accumulate(reversed(mass)))[::-1][: top + 1]


def _check_derivation(
    d: Any, m: IntRows, outputs: list[int], col_of: dict[int, int], alpha: Q, n: int, decidable: bool, given: Any
) -> list[str]:
    """``given``: the remap Y of a matrix written as T·Y at the DP level (then a derivation naming
    that same Y holds by definition; Y's stochasticity is checked with the matrix)."""
    statuses = ("derivable", "not derivable", "not applicable", *UNDECIDED)
    if not isinstance(d, dict) or d.get("status") not in statuses:
        raise Malformed(f"derivation: expected a status of {', '.join(statuses)}")
    if d["status"] not in ("derivable", "not derivable"):
        _keys(d, "derivation", {"status", "reason"}, {"decide"})
        # decided wherever it is defined: neither skipped nor UNKNOWN is ever right
        if d["status"] == "not applicable" and not decidable:
            return []
        return [f"derivability is {'decidable' if decidable else 'not defined'} here but reported {d['status']!r}"]
    if not decidable:
        return ["derivability is reported although it is not decided here (needs a count query, n ≥ 1, 0 < α < 1)"]
    out = [] if _same(d.get("alpha"), alpha, "derivation.alpha") else ["derivation.alpha is not the DP level"]
    if d["status"] == "derivable":
        _keys(d, "derivation", {"status", "alpha", "remap"})
        if given is not None and d["remap"] == given:
            return out
        y = _int_rows(d["remap"], "derivation.remap", n + 1, len(outputs))
        if not y.stochastic() or not _is_inverse_t_times(y, m, alpha):
            out.append("the derivation remap Y does not give T·Y = M")
        return out
    _keys(d, "derivation", {"status", "alpha", "violation"})
    v = _keys(d["violation"], "derivation.violation", {"row", "output", "condition", "value", "entry", "inverse_row"})
    row, output = _int(v["row"], "derivation.violation.row"), _int(v["output"], "derivation.violation.output")
    if not 0 <= row <= n or output not in col_of:
        return [*out, "the non-derivability witness names a row or output the mechanism does not have"]
    r = col_of[output]
    w = _t_inverse_row(alpha, n, row)
    recorded = [_f(x, "derivation.violation.inverse_row") for x in _list(v["inverse_row"], "inverse_row", n + 1)]
    entry = sum((wk * m.entry(k, r) for k, wk in enumerate(w) if wk), Q(0))
    boundary = row in (0, n)
    value = entry * ((1 - alpha) if boundary else (1 - alpha) ** 2)
    if (
        recorded != w
        or entry >= 0
        or not _same(v["entry"], entry, "derivation.violation.entry")
        or not _same(v["value"], value, "derivation.violation.value")
        or v["condition"] != (BOUNDARY if boundary else INTERIOR)
    ):
        out.append("the non-derivability witness does not give its negative entry of T⁻¹M")
    return out


def _remapped_loss(
    m: list[list[Q]], outputs: list[int], prior: list[Q], loss: list[list[Q]], remap: Any, where: str, n: int
) -> Q:
    """Σ_i p_i Σ_r m[i][r]·l(i, remap[r]) for a recorded deterministic remap (guesses 0..n)."""
    _keys(remap, where, {str(o) for o in outputs})
    guess = [_int(remap[str(o)], where) for o in outputs]
    if any(not 0 <= g <= n for g in guess):
        raise Malformed(f"{where}: a guess outside 0..{n}")
    return sum((p * v * loss[i][guess[r]] for i, (p, row) in enumerate(zip(prior, m)) for r, v in enumerate(row)), Q(0))


def _standard(name: str, i: int, j: int) -> int:
    return abs(i - j) if name == "absolute" else (i - j) ** 2 if name == "squared" else int(i != j)


def _check_user(
    u: Any, where: str, m: list[list[Q]], outputs: list[int], alpha: Q, t: list[list[Q]], n: int
) -> list[str]:
    fields = {"prior_name", "loss_name", "prior", "loss", "mechanism", "optimal_remap", "optimum", "ratio"}
    _keys(u, where, fields | {"dual", "t_optimal_remap"}, {"optimum_mechanism"})
    name = f"user ({u['prior_name']}, {u['loss_name']})"
    prior = [_f(p, f"{where}.prior") for p in _list(u["prior"], f"{where}.prior", n + 1)]
    named = u["loss"] if isinstance(u["loss"], str) else None  # with an LP's optimum_mechanism (n ≤ 150)
    if named is not None and named not in STANDARD_LOSSES:
        raise Malformed(f"{where}.loss: {named!r} is not a standard loss")
    loss = (
        [[Q(_standard(named, i, j)) for j in range(n + 1)] for i in range(n + 1)]
        if named is not None
        else _matrix(u["loss"], f"{where}.loss", n + 1, n + 1)
    )
    out = []
    if named is not None and u["loss_name"] != named:
        out.append(f"{name}: the loss is named {named!r}, not {u['loss_name']!r}")
    if u["prior_name"] == "uniform" and prior != [Q(1, n + 1)] * (n + 1):
        out.append(f"{name}: the prior is not uniform")
    if u["loss_name"] in STANDARD_LOSSES and loss != [
        [Q(_standard(u["loss_name"], i, j)) for j in range(n + 1)] for i in range(n + 1)
    ]:
        out.append(f"{name}: the loss is not the {u['loss_name']} loss")
    if min(prior) < 0 or sum(prior) != 1:
        out.append(f"{name}: the prior is not a distribution")
    mine = _f(u["mechanism"], f"{where}.mechanism")
    if _optimal_remap_loss(m, prior, loss) != mine or (
        _remapped_loss(m, outputs, prior, loss, u["optimal_remap"], f"{where}.optimal_remap", n) != mine
    ):
        out.append(f"{name}: the mechanism's loss with its optimal remap is not {u['mechanism']}")
    dual = [_f(v, f"{where}.dual") for v in _list(u["dual"], f"{where}.dual", n + 1)]
    value = _f(u["optimum"], f"{where}.optimum")
    costs = [[p * v for v in row] for p, row in zip(prior, loss)]
    columns_ok = all(_cone_nonnegative([costs[i][j] - dual[i] for i in range(n + 1)], alpha) for j in range(n + 1))
    primal_ok = True  # without optimum_mechanism the primal is T then t_optimal_remap (checked below)
    if "optimum_mechanism" in u:
        x_rows = _int_rows(u["optimum_mechanism"], f"{where}.optimum_mechanism", n + 1, n + 1)
        x = x_rows.rationals()
        dp = all(a >= alpha * b and b >= alpha * a for r0, r1 in pairwise(x) for a, b in zip(r0, r1))
        face = sum((c * v for crow, xrow in zip(costs, x) for c, v in zip(crow, xrow)), Q(0))
        primal_ok = x_rows.stochastic() and dp and face == value
    if not (primal_ok and value == sum(dual, Q(0)) and columns_ok):
        out.append(f"{name}: the optimality certificate of {u['optimum']} does not check")
    ratio = None if value == 0 else mine / value
    if (u["ratio"] is None) != (ratio is None) or (ratio is not None and not _same(u["ratio"], ratio, where)):
        out.append(f"{name}: the ratio is not mechanism/optimum")
    steps = list(range(n + 1))
    if _remapped_loss(t, steps, prior, loss, u["t_optimal_remap"], f"{where}.t_optimal_remap", n) != value:
        out.append(f"{name}: T with the recorded remap does not reach the optimum (GRS Thm 3.1)")
    return out
