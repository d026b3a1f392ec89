"""Independent re-check of a universal-optimality certificate (schema ``mechlib.universal/2``): the
truncated geometric mechanism T on counts 0..n at α is optimal for every legal Bayesian user — GRS
Theorem 3.2's "if" direction (Lemma 5.11) at one n, hence DOM (every α-DP mechanism on 0..n is
dominated by a post-processing of T for every legal user).

Shares nothing with the producer (:mod:`mechlib.proofs.shared.remap_cells`) but the certificate's
data model; everything below is rebuilt here from the definitions, in integers.

**T.** T_ij = α^|i−j|·(1−α)/(1+α) for 0 < j < n, α^|i−j|/(1+α) for j ∈ {0, n}.

**Users.** A legal loss is l(i, j) = g_i(|j − i|), g_i nondecreasing; with a prior p a user is, up
to a constant, the weights w_{i,k} = p_i·(g_i(k) − g_i(k−1)) ≥ 0 on the coordinates (i, k),
1 ≤ k ≤ max(i, n−i), and every w ≥ 0 is one. Guessing s for output j costs
b_{j,s}(w) = Σ_i T_ij·Σ_{k ≤ |s−i|} w_{i,k}.

**Cells.** For a remap σ (output j read as σ(j)) the cell C_σ is {w ≥ 0 : b_{j,r}(w) − b_{j,σ(j)}(w) ≥ 0
for all j, r}. Row (j, r) of a cell is that form; its id is j·(n+1) + r.

**Why a cell's certificate proves T∘σ optimal on it.** Let u(w) solve Σ_i T_ij u_i = b_{j,σ(j)} for
every j (T is invertible: checked) and v^r_i = Σ_{k ≤ |r−i|} w_{i,k} − u_i. An α-DP mechanism X
has columns x in C = {x ≥ 0 : α x_i ≤ x_{i+1} ≤ x_i/α}. If every v^r lies in the dual cone C*,
X with any remap ρ loses Σ_r Σ_i X_ir (v^{ρ(r)}_i + u_i) ≥ Σ_i u_i = Σ_j b_{j,σ(j)}, the loss of
T∘σ. Membership v ∈ C*: minimise Σ v_i x_i over x ∈ C from the last coordinate back — with
F_n = v_n, the best x_{i} given x_{i−1} contributes x_{i−1}·(α F_i if F_i ≥ 0, F_i/α if
F_i ≤ 0), so F_{i−1} = v_{i−1} + that factor, and v ∈ C* iff F_0 ≥ 0. A cell's certificate gives,
per output r and per i = n..1, the sign of F_i on the current *piece* (the cell plus the sign rows
added by splits), or a split into the pieces F_i ≥ 0 and F_i ≤ 0, and finally F_0 ≥ 0. Each
sign fact a·w ≥ 0 carries a Farkas certificate [L, id, l, …]: L·a − Σ l·row_id ≥ 0 entrywise
(L > 0, l ≥ 0), so a·w ≥ 0 for every w ≥ 0 of the piece. Every form and row is used as its
primitive integer vector (a positive multiple: the same inequality). Split rows have ids
(n+1)² + t, t the split's depth on the path.

**Coverage.** Every w ≥ 0 lies in a cell, and the cells with interior cover the orthant (their
union is closed and dense). The tree over σ(0), σ(1), … is walked here: a node is abandoned only
on a Gordan certificate [id, y, …] (y > 0 integers on nonzero rows of the prefix with
Σ y·row ≤ 0 entrywise: no w > 0 makes all those rows positive, so the prefix's cells have no
interior) — one for the prefix itself, or a pair certificate on the rows of σ(j−1), σ(j) alone,
which serves every prefix holding both; otherwise every value of the next σ(j) is visited. Every
leaf must be a proved cell or, when T is centrosymmetric (T_{n−i,n−j} = T_ij, checked), a
mirrored leaf σ with mirror σ′(j) = n − σ(n−j) < σ: reflection w_{i,k} ↦ w_{n−i,k} maps C_σ′ and
its certificates onto C_σ, and σ′ is a leaf covered in its own right.

Provenance (producer, versions, seconds) is recorded, not checked; the certificate depends only on
(n, α) and the mathematics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from mechlib.checkers.numbers import exact
from mechlib.schemas import precheck

SCHEMA = "mechlib.universal/2"
#: The largest n a certificate may state (C(2n+1, n) cells: 1.35 million at n = 12).
MAX_N = 12
#: The largest numerator or denominator of α (checked before any arithmetic).
MAX_ALPHA_DIGITS = 12
PROVENANCE = ("provenance (producer, versions, seconds)",)


class Rejected(Exception):
    """One failed check (the walk stops at the first: a certificate holds or it does not)."""


def t_matrix(n: int, alpha: Fraction) -> list[list[Fraction]]:
    """T at α on 0..n, from its definition."""
    inner, end = (1 - alpha) / (1 + alpha), 1 / (1 + alpha)
    return [[alpha ** abs(i - j) * (end if j in (0, n) else inner) for j in range(n + 1)] for i in range(n + 1)]


def _inverse(matrix: Sequence[Sequence[Fraction]]) -> list[list[Fraction]] | None:
    """Gauss–Jordan in rationals; None if singular."""
    size = len(matrix)
    work = [[*row, *(Fraction(int(i == j)) for j in range(size))] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = next((r for r in range(col, size) if work[r][col]), None)
        if pivot is None:
            return None
        work[col], work[pivot] = work[pivot], work[col]
        head = work[col][col]
        work[col] = [x / head for x in work[col]]
        for r in range(size):
            if r != col and work[r][col]:
                factor = work[r][col]
                work[r] = [a - factor * b for a, b in zip(work[r], work[col])]
    return [row[size:] for row in work]


def _primitive(nums: Sequence[int]) -> list[int]:
    g = math.gcd(*nums)
    return list(nums) if g in (0, 1) else [x // g for x in nums]


class _Geometry:
    """The objects of one (n, α), in integers: coordinates, cost rows, T⁻¹ and the c_r forms."""

    def __init__(self, n: int, alpha: Fraction) -> None:
        self.n, self.size = n, n + 1
        self.p, self.q = alpha.numerator, alpha.denominator
        self.coords = [(i, k) for i in range(n + 1) for k in range(1, max(i, n - i) + 1)]
        self.m = len(self.coords)
        t = t_matrix(n, alpha)
        self.symmetric = all(t[n - i][n - j] == t[i][j] for i in range(n + 1) for j in range(n + 1))
        scale = math.lcm(*(x.denominator for row in t for x in row))
        tint = [[int(x * scale) for x in row] for row in t]  # T·scale
        # cost[j][s][c] = scale·b_{j,s} at coordinate c = (i, k): T_ij when |s − i| ≥ k
        self.cost = [[[tint[i][j] if abs(s - i) >= k else 0 for i, k in self.coords] for s in range(self.size)]
                     for j in range(self.size)]  # fmt: skip
        inverse = _inverse([[Fraction(x) for x in row] for row in tint])
        if inverse is None:
            raise Rejected("T is singular")
        self.e = math.lcm(*(x.denominator for row in inverse for x in row))
        self.inv = [[int(x * self.e) for x in row] for row in inverse]  # (T·scale)⁻¹·e, integers
        # rows[j][s][r]: the primitive row (j, r) of a cell with σ(j) = s, sparse [(c, value)]
        sizes = range(self.size)
        self.rows = [[[self._row(j, r, s) for r in sizes] for s in sizes] for j in sizes]
        # ones[r][i]: coordinates c where c_r(w)_i has w_c (i' = i, k ≤ |r − i|)
        self.ones = [[[c for c, (ii, k) in enumerate(self.coords) if ii == i and k <= abs(r - i)]
                      for i in range(self.size)] for r in range(self.size)]  # fmt: skip

    def _row(self, j: int, r: int, s: int) -> list[tuple[int, int]]:
        difference = _primitive([a - b for a, b in zip(self.cost[j][r], self.cost[j][s])])
        return [(c, x) for c, x in enumerate(difference) if x]

    def mirror(self, sigma: Sequence[int]) -> tuple[int, ...]:
        return tuple(self.n - sigma[self.n - j] for j in range(self.size))

    def cell_rows(self, sigma: Sequence[int]) -> dict[int, list[tuple[int, int]]]:
        """id → sparse primitive row, for the rows of a prefix σ(0..len−1)."""
        return {j * self.size + r: self.rows[j][s][r] for j, s in enumerate(sigma) for r in range(self.size) if r != s}

    def v_forms(self, sigma: Sequence[int]) -> list[list[list[int]]]:
        """v[r][i] as integer vectors over the common denominator e/scale·… (one positive scale
        for all: v^r_i = (e·[c_r]_i − Σ_j inv_ji·cost_{j,σ(j)}) / e)."""
        u = [[0] * self.m for _ in range(self.size)]
        for j in range(self.size):
            b = self.cost[j][sigma[j]]
            for i in range(self.size):
                factor = self.inv[j][i]
                if factor:
                    row = u[i]
                    for c, x in enumerate(b):
                        if x:
                            row[c] += factor * x
        forms = []
        for r in range(self.size):
            per_i = []
            for i in range(self.size):
                vec = [-x for x in u[i]]
                for c in self.ones[r][i]:
                    vec[c] += self.e
                per_i.append(vec)
            forms.append(per_i)
        return forms


def check_certificate(cert: Any, *, n: int | None = None, alpha: Fraction | None = None) -> list[str]:
    """The failed checks (empty: the certificate holds); a malformed certificate is one failure
    naming the problem, never an exception. ``n``, ``alpha``: what the caller needs proved (the
    certificate must state exactly that)."""
    wrong = precheck(cert, SCHEMA, "certificate")
    if wrong:
        return wrong
    try:
        stated_n, stated_alpha = _header(cert)
        if (n is not None and stated_n != n) or (alpha is not None and stated_alpha != alpha):
            return [f"the certificate is for n = {stated_n}, α = {stated_alpha}, not n = {n}, α = {alpha}"]
        _Walk(_Geometry(stated_n, stated_alpha), cert).run()
    except Rejected as failure:
        return [str(failure)]
    except (KeyError, TypeError, IndexError, ValueError) as err:
        return [f"malformed certificate: {type(err).__name__}: {err}"]
    return []


def _header(cert: dict[str, Any]) -> tuple[int, Fraction]:
    n = cert["n"]
    if not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise ValueError(f"n = {n!r}: expected an integer 1 ≤ n ≤ {MAX_N}")
    text = cert["alpha"]
    if not isinstance(text, str) or len(text) > 2 * MAX_ALPHA_DIGITS + 1:
        raise ValueError(f"alpha = {text!r}: expected p/q with at most {MAX_ALPHA_DIGITS} digits each")
    alpha = exact(text)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha = {text!r}: expected 0 < α < 1")
    return n, alpha


class _Walk:
    def __init__(self, geometry: _Geometry, cert: dict[str, Any]) -> None:
        self.g = geometry
        self.reflection = bool(cert["reflection"])
        if self.reflection and not geometry.symmetric:
            raise Rejected("reflection is used but T is not centrosymmetric")
        self.pairs: dict[tuple[int, int, int], list[int]] = {}
        for entry in cert["pairs"]:
            j, before, at, *y = entry
            self.pairs[j, before, at] = y
        self.empty = {tuple(prefix): y for prefix, y in cert["abandoned"]}
        self.cells = {tuple(sigma): chains for sigma, chains in cert["cells"]}
        self.mirrored = {tuple(sigma) for sigma in cert["mirrored"]}
        if len(self.cells) != len(cert["cells"]) or len(self.mirrored) != len(cert["mirrored"]):
            raise Rejected("a cell is listed twice")
        self.used: set[tuple[int, ...]] = set()

    def run(self) -> None:
        for key, y in self.pairs.items():
            j, before, at = key
            if not (1 <= j <= self.g.n and 0 <= before <= self.g.n and 0 <= at <= self.g.n):
                raise Rejected(f"pair certificate {list(key)}: no such pair of guesses")
            rows = {**self._rows_of(j - 1, before), **self._rows_of(j, at)}
            if not self._gordan(rows, y):
                raise Rejected(f"pair certificate {list(key)}: Σ y·row ≤ 0 does not hold")
        self._visit(())
        for name, listed in (("abandoned prefix", self.empty), ("cell", self.cells), ("mirrored cell", self.mirrored)):
            extra = [key for key in listed if key not in self.used]
            if extra:
                raise Rejected(f"{name} {list(extra[0])} is not a node of the search tree")

    def _rows_of(self, j: int, s: int) -> dict[int, list[tuple[int, int]]]:
        return {j * self.g.size + r: self.g.rows[j][s][r] for r in range(self.g.size) if r != s}

    def _visit(self, prefix: tuple[int, ...]) -> None:
        g = self.g
        if len(prefix) >= 2 and (len(prefix) - 1, prefix[-2], prefix[-1]) in self.pairs:
            return  # every cell under it has empty interior (the pair certificate, checked)
        if prefix in self.empty:
            self.used.add(prefix)
            if not self._gordan(g.cell_rows(prefix), self.empty[prefix]):
                raise Rejected(f"abandoned prefix {list(prefix)}: its Gordan certificate does not hold")
            return
        if len(prefix) == g.size:
            self.used.add(prefix)
            if prefix in self.cells:
                self._cell(prefix, self.cells[prefix])
            elif prefix in self.mirrored:
                if not (self.reflection and g.mirror(prefix) < prefix):
                    raise Rejected(f"cell {list(prefix)} is listed as mirrored, but its mirror is not an earlier leaf "
                                   "or reflection is not used")  # fmt: skip
            else:
                raise Rejected(f"cell {list(prefix)} is neither proved, mirrored nor under an abandoned prefix")
            return
        for s in range(g.size):
            self._visit((*prefix, s))

    def _gordan(self, rows: dict[int, list[tuple[int, int]]], y: list[int]) -> bool:
        if not y or len(y) % 2:
            return False
        total = [0] * self.g.m
        for k, weight in zip(y[::2], y[1::2]):
            row = rows.get(k)
            if row is None or not row or weight <= 0:  # a zero row is no constraint on the interior
                return False
            for c, x in row:
                total[c] += weight * x
        return all(x <= 0 for x in total)

    def _cell(self, sigma: tuple[int, ...], chains: list[Any]) -> None:
        g = self.g
        if len(chains) != g.size:
            raise Rejected(f"cell {list(sigma)}: expected a chain for each of the {g.size} outputs")
        rows = g.cell_rows(sigma)
        v = g.v_forms(sigma)
        for r in range(g.size):
            self._chain(sigma, r, v[r], g.n, v[r][g.n], 1, rows, chains[r])

    def _chain(
        self, sigma: tuple[int, ...], r: int, v: list[list[int]], i: int, f: list[int], scale: int,
        rows: dict[int, list[tuple[int, int]]], chain: list[Any],
    ) -> None:  # fmt: skip
        """F_i = f/(e·scale); the facts of ``chain`` from position i down to 0."""
        g = self.g
        where = f"cell {list(sigma)}, output {r}"
        for fact in chain:
            code = fact[0]
            if code == 0 and i > 0:  # a split: both pieces, with the sign row added
                _, plus, minus = fact
                for sign, half in ((1, plus), (-1, minus)):
                    row = [(c, x) for c, x in enumerate(_primitive([sign * x for x in f])) if x]
                    extra = {**rows, g.size**2 + len(rows) - g.size * g.n: row}  # split rows after the cell's
                    nf, ns = self._step(v[i - 1], f, scale, sign)
                    self._chain(sigma, r, v, i - 1, nf, ns, extra, half)
                return
            if code not in (1, -1) or (i == 0 and code != 1):
                raise Rejected(f"{where}: F_{i} has no valid sign fact")
            if not self._farkas(rows, [code * x for x in f], fact[1:]):
                raise Rejected(f"{where}: the Farkas certificate of {'F' if code == 1 else '−F'}_{i} ≥ 0 does not hold")
            if i == 0:
                if fact is not chain[-1]:
                    raise Rejected(f"{where}: facts after F_0")
                return
            f, scale = self._step(v[i - 1], f, scale, code)
            i -= 1
        raise Rejected(f"{where}: the chain stops at F_{i}, before F_0 ≥ 0")

    def _step(self, v: list[int], f: list[int], scale: int, sign: int) -> tuple[list[int], int]:
        """F_{i−1} = v_{i−1} + α·F_i (F_i ≥ 0) or F_i/α (F_i ≤ 0), with F = f/(e·scale), v = v/e."""
        a, b = (self.g.p, self.g.q) if sign == 1 else (self.g.q, self.g.p)  # factor a/b
        return [b * scale * x + a * y for x, y in zip(v, f)], b * scale

    def _farkas(self, rows: dict[int, list[tuple[int, int]]], form: list[int], entries: list[Any]) -> bool:
        if not entries or len(entries) % 2 == 0:
            return False
        common = entries[0]
        if not isinstance(common, int) or common <= 0:
            return False
        total = [common * x for x in _primitive(form)]
        for k, weight in zip(entries[1::2], entries[2::2]):
            row = rows.get(k)
            if row is None or not isinstance(weight, int) or weight < 0:
                return False
            for c, x in row:
                total[c] -= weight * x
        return all(x >= 0 for x in total)
