"""GRS Theorem 3.2's "if" direction (Lemma 5.11), and so DOM, proved for one n and α over *every*
legal Bayesian user, cell by cell of the users' space — exact, no quantifier alternation.

**Users as weights.** A legal loss is l(i, j) = g_i(|j − i|) with g_i nondecreasing (GRS §2.2), so
a user (prior p, loss l) is, up to a constant, the weights w_{i,k} = p_i·(g_i(k) − g_i(k−1)) ≥ 0,
1 ≤ k ≤ max(i, n−i) — and every w ≥ 0 is a user. Its loss with X is Σ_{i,j} X_ij·c_j(w)_i, with
c_j(w)_i = Σ_{k ≤ |j−i|} w_{i,k} (equivalently Σ w_{i,k}·P_X(|j−i| ≥ k | i): CLAIMS.md note 1).

**Cells.** A deterministic remap σ of T (output j read as σ(j)) is optimal at w iff w lies in
C_σ = {w ≥ 0 : ⟨T_·j, c_σ(j)(w)⟩ ≤ ⟨T_·j, c_s(w)⟩ for all j, s}, a polyhedral cone.

**The dual of each cell** (GRS LP (3)–(7)). Complementary slackness with the primal σ∘T on T's
columns forces u_σ(w) = T⁻ᵀ b_σ(w), b_j = ⟨T_·j, c_σ(j)(w)⟩, and Σ_i u_i = Σ_j b_j (T1 = 1, so
T⁻¹1 = 1): the loss of σ∘T. If c_r(w) − u_σ(w) lies in C*, the dual of the α-DP column cone
C = {x ≥ 0 : α x_i ≤ x_{i+1} ≤ x_i/α}, for every output r, weak duality makes σ∘T optimal at w.
That is shown for *all* w of a cell at once: the cone test of
:func:`mechlib.optimality.optimal.cone_nonnegative` (F_n = v_n, F_i = v_i + α F_{i+1} where
F_{i+1} ≥ 0, v_i + F_{i+1}/α where F_{i+1} ≤ 0; v ∈ C* iff F_0 ≥ 0) is run on linear forms in w:
each sign, and F_0 ≥ 0 at the end, is proved on the cell (a *piece* of it, once split) by a
**Farkas certificate** — λ ≥ 0 with a − Bᵀλ ≥ 0 entrywise, so a·w = λ·Bw + (a − Bᵀλ)·w ≥ 0
whenever w ≥ 0 and Bw ≥ 0. HiGHS finds λ; exact rationals check it. A sign neither certificate
shows splits the piece in two (F ≥ 0 and F ≤ 0).

**Every user is covered.** Each w ≥ 0 lies in some cell; the cells with interior already cover
the orthant (their union is closed, and dense: the others lie in finitely many hyperplanes). A
depth-first search over σ(0), σ(1), … abandons a prefix only on an exact Gordan certificate that
its cells have empty interior (y ≥ 0, y ≠ 0, Bᵀy ≤ 0: no w > 0 has Bw > 0; a certificate for the
rows of two consecutive guesses alone serves every prefix holding them); otherwise it goes on,
so every cell with interior is reached. When T is centrosymmetric (checked exactly), the
reflection i ↦ n−i, j ↦ n−j maps cells, duals and certificates onto each other, and only one
cell of each mirror pair is proved.

**Conclusion.** T is optimal for every legal Bayesian user at (n, α) — GRS Lemma 5.11 for this n
— hence (LP duality, CLAIMS.md note 1) every α-DP mechanism on 0..n is dominated in every error
tail by a remap of T, for every legal user, Bayesian or minimax. A mechanism with range N reduces to
0..n by clamping its outputs (post-processing that only shortens every |j − i|).

**Refutation.** A piece whose F_0 ≥ 0 has no certificate gives HiGHS's minimiser; rounded to a
rational w and checked exactly (in the piece, F_0(w) < 0), it is a user for whom no remap of the
base mechanism is optimal (the forced dual is infeasible). The claim checks re-check such a user
independently with the certified Bayes LP.

Floats only *find* (cells' interiors, λ, y, a minimiser, and points of a cell — HiGHS's dual rays —
that spare a certificate attempt bound to fail); every certificate is checked in exact rationals
before it counts, and a certificate that cannot be made exact leaves the cell unproved (UNKNOWN),
never proved. Measured: the cells with interior are the C(2n+1, n) monotone remaps.

**The verdict is the checker's.** The search records everything it proved as a certificate
(:func:`universal_certificate_document`, schema ``mechlib.universal/2``): per proved cell, per
output, the chain of sign facts with their Farkas multipliers (splits as two sub-chains); the
Gordan certificates of abandoned prefixes and of pairs of guesses; the mirrored leaves.
:func:`judged_document` is PROVED only when :mod:`mechlib.checkers.universal_certificate` — which
rebuilds T, the cells, the cone test and the search tree from the definitions and imports nothing
of this module — accepts it; the claims re-check stored certificates the same way
(:mod:`mechlib.proofs.shared.universal_cache`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import highspy
import numpy as np

from mechlib.core import families
from mechlib.core.exact import format_fraction
from mechlib.core.exact_linear import first_accepted, from_fmpq, rationalize, to_fmpq
from mechlib.core.mechanism import Mechanism
from mechlib.core.users import BayesUser, Loss, Prior
from mechlib.proofs.registry import Outcome, Verdict, measured

#: A float is read as zero below this (only to choose which coordinates to solve exactly).
_ZERO = 1e-10


def weight_coordinates(n: int) -> list[tuple[int, int]]:
    """The coordinates (i, k) of a user's weights w_{i,k}: input i, distance 1 ≤ k ≤ max(i, n−i)."""
    return [(i, k) for i in range(n + 1) for k in range(1, max(i, n - i) + 1)]


@dataclass
class CellCounts:
    """What one proof (or one batch of it) did: cells proved (``mirrored``: of them, by the
    reflection), prefixes abandoned on an exact Gordan certificate, Farkas certificates checked,
    pieces split off; ``unproved`` cells (no exact certificate: UNKNOWN) and ``counterexample``
    (an exactly checked user w, with the remap σ and output r where the dual fails)."""

    cells: int = 0
    mirrored: int = 0
    abandoned: int = 0
    certificates: int = 0
    splits: int = 0
    unproved: list[dict[str, Any]] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None
    #: The certificate's entries (see :mod:`mechlib.checkers.universal_certificate`): proved cells
    #: [σ, chains], mirrored leaves σ, abandoned prefixes [prefix, y], pair certificates (j, before, at) → y.
    proved: list[list[Any]] = field(default_factory=list)
    reflected: list[list[int]] = field(default_factory=list)
    empty: list[list[Any]] = field(default_factory=list)
    pairs: dict[tuple[int, int, int], list[int]] = field(default_factory=dict)

    def add(self, other: CellCounts) -> None:
        self.cells += other.cells
        self.mirrored += other.mirrored
        self.abandoned += other.abandoned
        self.certificates += other.certificates
        self.splits += other.splits
        self.unproved += other.unproved
        self.counterexample = self.counterexample or other.counterexample
        self.proved += other.proved
        self.reflected += other.reflected
        self.empty += other.empty
        for key, y in other.pairs.items():
            self.pairs.setdefault(key, y)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "cells proved": self.cells,
            "of them by reflection": self.mirrored,
            "prefixes abandoned (Gordan)": self.abandoned,
            "Farkas certificates": self.certificates,
            "pieces split": self.splits,
        }
        if self.unproved:
            doc["unproved"] = self.unproved[:5]
        if self.counterexample is not None:
            doc["counterexample"] = self.counterexample
        return doc


@dataclass(frozen=True)
class Form:
    """A linear form in w: integer coefficients ``nums`` over one positive denominator ``den``
    (kept in lowest terms), and their floats ``approx`` (which only guide the search). A sign
    proof needs only ``nums``: a positive multiple has the same certificates."""

    nums: tuple[int, ...]
    den: int
    approx: np.ndarray

    @classmethod
    def of(cls, values: Sequence[Fraction]) -> Form:
        den = math.lcm(*(v.denominator for v in values))
        return cls.reduced([v.numerator * (den // v.denominator) for v in values], den)

    @classmethod
    def reduced(cls, nums: Sequence[int], den: int) -> Form:
        g = math.gcd(den, *nums)
        nums, den = [x // g for x in nums], den // g
        return cls(tuple(nums), den, np.array([x / den for x in nums]))

    def __neg__(self) -> Form:
        return Form(tuple(-x for x in self.nums), self.den, -self.approx)

    def plus(self, factor: Fraction, other: Form) -> Form:
        """self + factor·other, exactly."""
        left, right = other.den * factor.denominator, self.den * factor.numerator
        return Form.reduced([a * left + b * right for a, b in zip(self.nums, other.nums)], self.den * left)

    def nonnegative(self) -> bool:
        return all(x >= 0 for x in self.nums)

    def at(self, w: Sequence[Fraction]) -> Fraction:
        return sum((Fraction(a) * x for a, x in zip(self.nums, w) if a), Fraction(0)) / self.den


def _combination(rows: Sequence[Form], support: Sequence[int], weights: Sequence[Fraction]) -> list[int]:
    """L·Σ weights_k·rows_k.nums (k ∈ support) in integers, L the weights' common denominator > 0."""
    common = math.lcm(*(v.denominator for v in weights))
    total = [0] * (len(rows[0].nums) if rows else 0)
    for k, v in zip(support, weights):
        if v:
            scaled = v.numerator * (common // v.denominator)
            for c, a in enumerate(rows[k].nums):
                if a:
                    total[c] += scaled * a
    return [common, *total]


class _Problem:
    """The data of one (n, α, base): the weights' coordinates, the cost forms ⟨T_·j, c_s(w)⟩, the
    cost forms c_r(w)_i and the base's exact inverse."""

    def __init__(self, n: int, alpha: Fraction, base: Mechanism) -> None:
        import flint

        self.n, self.alpha = n, alpha
        size = n + 1
        coords = weight_coordinates(n)
        self.m = len(coords)
        t = base.rows
        if len(t) != size or any(len(row) != size for row in t):
            raise ValueError(f"the base mechanism must be square on 0..{n}")
        # c[r][i]: the form w ↦ c_r(w)_i (ones on row i's first |r − i| coordinates)
        self.c = [[[Fraction(int(ii == i and k <= abs(r - i))) for ii, k in coords] for i in range(size)]
                  for r in range(size)]  # fmt: skip
        # cost[j][s]: the form w ↦ ⟨T_·j, c_s(w)⟩ (coordinate (i, k) carries T_ij when |s − i| ≥ k)
        self.cost = [[[t[i][j] if abs(s - i) >= k else Fraction(0) for i, k in coords] for s in range(size)]
                     for j in range(size)]  # fmt: skip
        self.rows = [[self._cell_rows(j, s) for s in range(size)] for j in range(size)]
        # the certificate's name of each row: j·(n+1) + r for ⟨T_·j, c_r − c_s⟩ (the nonzero ones, in order)
        self.ids = [[[j * size + r for r in range(size) if r != s and self.cost[j][r] != self.cost[j][s]]
                     for s in range(size)] for j in range(size)]  # fmt: skip
        matrix = flint.fmpq_mat(size, size, [to_fmpq(x) for row in t for x in row])
        if matrix.det() == 0:
            raise ValueError("the base mechanism is singular: no dual is forced by complementary slackness")
        inverse = matrix.inv()
        self.inverse = [[from_fmpq(inverse[r, c]) for c in range(size)] for r in range(size)]
        self.symmetric = all(t[n - i][n - j] == t[i][j] for i in range(size) for j in range(size))

    def _cell_rows(self, j: int, s: int) -> list[Form]:
        """σ(j) = s is optimal for output j: ⟨T_·j, c_r − c_s⟩(w) ≥ 0 for every r ≠ s (zero rows dropped)."""
        rows = []
        for r in range(self.n + 1):
            row = [a - b for a, b in zip(self.cost[j][r], self.cost[j][s])]
            if r != s and any(row):
                rows.append(Form.of(row))
        return rows

    def column_forms(self, sigma: Sequence[int]) -> list[list[Form]]:
        """For each output r, v_i(w) = c_r(w)_i − u_σ(w)_i with u_σ = T⁻ᵀ b_σ (the dual that
        complementary slackness forces)."""
        size = self.n + 1
        b = [self.cost[j][sigma[j]] for j in range(size)]
        u = [[sum((self.inverse[j][i] * b[j][c] for j in range(size) if self.inverse[j][i] and b[j][c]), Fraction(0))
              for c in range(self.m)] for i in range(size)]  # fmt: skip
        return [[Form.of([x - y for x, y in zip(self.c[r][i], u[i])]) for i in range(size)] for r in range(size)]

    def prefix_ids(self, prefix: Sequence[int]) -> list[int]:
        return [k for j, s in enumerate(prefix) for k in self.ids[j][s]]

    def mirrored(self, sigma: Sequence[int]) -> tuple[int, ...]:
        n = self.n
        return tuple(n - sigma[n - j] for j in range(n + 1))


class _Highs:
    """One HiGHS instance per process, silent (highspy prints a banner when an instance is made,
    so the first is made with the standard output closed)."""

    _instance: Any = None

    @classmethod
    def solve(
        cls, cost: np.ndarray, a: np.ndarray, lower: np.ndarray, upper: np.ndarray, bounds: tuple[float, float]
    ) -> np.ndarray | None:
        """min cost·x subject to lower ≤ a·x ≤ upper and bounds on each x; x, or None if not optimal."""
        if cls._instance is None:
            cls._instance = _silently(highspy.Highs)
            cls._instance.setOptionValue("output_flag", False)
        h = cls._instance
        rows, cols = a.shape
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = cols, rows
        lp.col_cost_ = cost
        lp.col_lower_ = np.full(cols, bounds[0])
        lp.col_upper_ = np.full(cols, bounds[1])
        lp.row_lower_, lp.row_upper_ = lower, upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.arange(0, rows * cols + 1, rows, dtype=np.int32)
        lp.a_matrix_.index_ = np.tile(np.arange(rows, dtype=np.int32), cols)
        lp.a_matrix_.value_ = np.ascontiguousarray(a.T).reshape(-1)
        h.clearModel()
        h.passModel(lp)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return np.array(h.getSolution().col_value)

    @classmethod
    def ray(cls) -> np.ndarray | None:
        """The last solve's dual ray (row multipliers proving it infeasible), if HiGHS has one."""
        h = cls._instance
        if h is None or h.getModelStatus() != highspy.HighsModelStatus.kInfeasible:
            return None
        _, found, values = h.getDualRay()
        return np.array(values) if found else None


def _silently(make: Any) -> Any:
    import os
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return make()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


_INF = float("inf")


def _stack(rows: Sequence[Form], m: int) -> np.ndarray:
    return np.array([r.approx for r in rows]) if rows else np.zeros((0, m))


def farkas(rows: Sequence[Form], form: Form, witnesses: list[np.ndarray] | None = None) -> list[Fraction] | None:
    """λ ≥ 0 with form − Σ λ_k rows_k ≥ 0 entrywise, exactly checked — in the forms' integer
    numerators (positive multiples of the forms, so the same inequalities): form·w ≥ 0 for every
    w ≥ 0 with rows·w ≥ 0. None if none was found; then, when HiGHS proves none exists, its dual
    ray — a float point w of the cone with form·w < 0 — is added to ``witnesses``."""
    if form.nonnegative():
        return [Fraction(0)] * len(rows)
    if not rows:
        return None
    b, a = _stack(rows, len(form.nums)), form.approx
    scale = np.maximum(np.abs(b).max(axis=1), 1e-300)
    x = _Highs.solve(np.ones(len(rows)), (b / scale[:, None]).T, np.full(len(a), -_INF), a, (0.0, _INF))
    if x is None:
        ray = _Highs.ray()
        if witnesses is not None and ray is not None:
            for w in (ray, -ray):
                w = w / max(np.abs(w).max(), 1e-300)
                if (w >= -1e-9).all() and (b @ w >= -1e-9).all() and a @ w < -1e-9:
                    witnesses.append(np.maximum(w, 0.0))
        return None
    lam = x / scale  # for the floats nums/den; for the numerators it is λ_k·den/den_k
    support = [k for k in range(len(rows)) if x[k] > _ZERO]
    slack = a - b.T @ lam
    tight = [c for c in range(len(a)) if slack[c] <= 1e-9 * (1 + abs(a[c]))]

    def accept(values: list[Fraction]) -> bool:
        if any(v < 0 for v in values):
            return False
        common, *combined = _combination(rows, support, values)
        return all(f * common >= c for f, c in zip(form.nums, combined))

    system = [[Fraction(rows[k].nums[c]) for k in support] for c in tight]
    hint = [lam[k] * form.den / rows[k].den for k in support]
    return _spread(len(rows), support, first_accepted(system, [Fraction(form.nums[c]) for c in tight], hint, accept))


def _spread(size: int, support: Sequence[int], solved: list[Fraction] | None) -> list[Fraction] | None:
    """The multipliers on ``support`` as a vector over all ``size`` rows (None stays None)."""
    if solved is None:
        return None
    full = [Fraction(0)] * size
    for k, v in zip(support, solved):
        full[k] = v
    return full


def interior_point(rows: Sequence[Form], m: int) -> np.ndarray | None:
    """A float point w > 0 with rows·w > 0 well inside the cone (HiGHS), or None if it finds none."""
    b = _stack(rows, m)
    if len(rows):
        b = b / np.maximum(np.abs(b).max(axis=1), 1e-300)[:, None]
    # max t: rows·w − t ≥ 0, w − t ≥ 0, Σw = 1 (variables w, t)
    a = np.vstack([np.hstack([b, -np.ones((len(rows), 1))]), np.hstack([np.eye(m), -np.ones((m, 1))]),
                   np.r_[np.ones(m), 0.0][None, :]])  # fmt: skip
    lower = np.r_[np.zeros(len(rows) + m), 1.0]
    upper = np.r_[np.full(len(rows) + m, _INF), 1.0]
    x = _Highs.solve(np.r_[np.zeros(m), -1.0], a, lower, upper, (-_INF, _INF))
    if x is None or x[-1] <= 1e-9:
        return None
    return x[:m]


def gordan(rows: Sequence[Form], m: int) -> list[Fraction] | None:
    """An exact certificate that {w ≥ 0 : rows·w ≥ 0} has empty interior: y ≥ 0, Σy = 1 and
    Σ y_k rows_k ≤ 0 entrywise (in the integer numerators, positive multiples of the rows); None
    if none was found."""
    if not rows:
        return None
    b = _stack(rows, m)
    a = np.vstack([b.T, np.ones((1, len(rows)))])
    x = _Highs.solve(np.zeros(len(rows)), a, np.r_[np.full(m, -_INF), 1.0], np.r_[np.zeros(m), 1.0], (0.0, _INF))
    if x is None:
        return None
    support = [k for k in range(len(rows)) if x[k] > _ZERO]
    combined = b.T @ x
    tight = [c for c in range(m) if combined[c] >= -1e-9]
    system = [[Fraction(rows[k].nums[c]) for k in support] for c in tight] + [[Fraction(1)] * len(support)]
    rhs = [Fraction(0)] * len(tight) + [Fraction(1)]
    hint = np.array([x[k] / rows[k].den for k in support])

    def accept(values: list[Fraction]) -> bool:
        if any(v < 0 for v in values) or sum(values) != 1:
            return False
        _, *combined = _combination(rows, support, values)
        return all(c <= 0 for c in combined)

    return _spread(len(rows), support, first_accepted(system, rhs, list(hint / hint.sum()), accept))


def _content(form: Form) -> int:
    """The gcd of a form's numerators: the certificate's rows are the primitive integer vectors
    nums/gcd (positive multiples of the forms, so the same inequalities)."""
    return math.gcd(*form.nums) or 1


def farkas_entries(ids: Sequence[int], rows: Sequence[Form], form: Form, values: Sequence[Fraction]) -> list[int]:
    """λ on the numerators of ``rows`` (form − Σλ_k rows_k ≥ 0) as the certificate states it, for
    the primitive integer rows: [L, id, l, id, l, …] with L·form − Σ l·row ≥ 0 (L > 0, l > 0)."""
    scaled = [(ids[k], v * _content(rows[k]) / _content(form)) for k, v in enumerate(values) if v]
    common = math.lcm(*(v.denominator for _, v in scaled))
    return [common, *(x for k, v in scaled for x in (k, int(v * common)))]


def gordan_entries(ids: Sequence[int], rows: Sequence[Form], values: Sequence[Fraction]) -> list[int]:
    """y of :func:`gordan` as the certificate states it: [id, y, id, y, …], integers y > 0 with
    Σ y·row ≤ 0 for the primitive integer rows."""
    scaled = [(ids[k], v * _content(rows[k])) for k, v in enumerate(values) if v]
    common = math.lcm(*(v.denominator for _, v in scaled))
    shrink = math.gcd(*(int(v * common) for _, v in scaled))
    return [x for k, v in scaled for x in (k, int(v * common) // shrink)]


def _counterexample(rows: Sequence[Form], form: Form) -> list[Fraction] | None:
    """A rational w ≥ 0 with rows·w ≥ 0 and form·w < 0 (HiGHS's minimiser, rounded and checked), or None."""
    m = len(form.nums)
    a = np.vstack([_stack(rows, m), np.ones((1, m))])
    lower = np.r_[np.zeros(len(rows)), 1.0]
    upper = np.r_[np.full(len(rows), _INF), 1.0]
    x = _Highs.solve(form.approx, a, lower, upper, (0.0, _INF))
    if x is None:
        return None
    for limit in (10**3, 10**6, 10**9):
        w = [max(rationalize(v, limit), Fraction(0)) for v in x]
        if all(row.at(w) >= 0 for row in rows) and form.at(w) < 0:
            return w
    return None


class _Prover:
    def __init__(self, problem: _Problem) -> None:
        self.p = problem
        self.counts = CellCounts()
        self._pairs: dict[tuple[int, int, int], bool] = {}
        self._points: list[np.ndarray] = []  # float points of the current cell (guides only)
        self._ids: list[int] = []  # the certificate's names of the current cell's rows

    def pair_empty(self, j: int, before: int, at: int) -> bool:
        """Whether σ(j−1) = ``before`` and σ(j) = ``at`` alone leave no interior (an exact Gordan
        certificate on their rows, which holds for every cell containing both: cached, and
        recorded once)."""
        key = (j, before, at)
        if key not in self._pairs:
            rows = self.p.rows[j - 1][before] + self.p.rows[j][at]
            y = gordan(rows, self.p.m)
            self._pairs[key] = y is not None
            if y is not None:
                self.counts.pairs[key] = gordan_entries(self.p.ids[j - 1][before] + self.p.ids[j][at], rows, y)
        return self._pairs[key]

    def certified(self, rows: list[Form], form: Form) -> list[int] | None:
        """A Farkas certificate that form ≥ 0 on the piece ``rows``, as the certificate states it
        (:func:`farkas_entries`), or None (not tried when a known point of the piece already has
        form < 0: no certificate can exist; the points only save work)."""
        if not form.nonnegative() and self._points:
            b = _stack(rows, self.p.m)
            if any(float(form.approx @ w) < -1e-9 and (b @ w >= -1e-9).all() for w in self._points):
                return None
        values = farkas(rows, form, self._points)
        if values is None:
            return None
        self.counts.certificates += 1
        split_ids = [len(self.p.ids) ** 2 + t for t in range(len(rows) - len(self._ids))]
        return farkas_entries(self._ids + split_ids, rows, form, values)

    def column(
        self, sigma: tuple[int, ...], r: int, v: list[Form], rows: list[Form], point: np.ndarray | None,
        chain: list[Any],
    ) -> bool:  # fmt: skip
        """Every w of the piece ``rows`` passes the cone test for v(w) = c_r(w) − u_σ(w) (the
        forms v_0..v_n), from position ``len(v) − 1`` down; False once a piece is left unproved
        (recorded). ``chain`` receives the certificates: per position a sign [±1, λ…] or a split
        [0, chain of F ≥ 0, chain of F ≤ 0], and [1, λ…] for F_0 ≥ 0."""
        return self._from(sigma, r, v, len(v) - 1, v[-1], rows, point, chain)

    def _from(
        self, sigma: tuple[int, ...], r: int, v: list[Form], i: int, f: Form, rows: list[Form],
        point: np.ndarray | None, chain: list[Any],
    ) -> bool:  # fmt: skip
        while i > 0:
            likely_negative = point is not None and float(f.approx @ point) < 0
            order = [(-f, False), (f, True)] if likely_negative else [(f, True), (-f, False)]
            for form, nonnegative in order:
                entries = self.certified(rows, form)
                if entries is not None:
                    chain.append([1 if nonnegative else -1, *entries])
                    f = self._step(v[i - 1], f, nonnegative)
                    break
            else:  # the sign changes inside the piece: prove both halves (the point guides its own)
                self.counts.splits += 1
                side = None if point is None else float(f.approx @ point) >= 0
                halves: tuple[list[Any], list[Any]] = ([], [])
                chain.append([0, *halves])
                return all(
                    self._from(sigma, r, v, i - 1, self._step(v[i - 1], f, nonnegative), [*rows, form],
                               point if side == nonnegative else None, half)
                    for (form, nonnegative), half in zip(((f, True), (-f, False)), halves)
                )  # fmt: skip
            i -= 1
        entries = self.certified(rows, f)
        if entries is not None:
            chain.append([1, *entries])
            return True
        witness = _counterexample(rows, f)
        if witness is not None and self.counts.counterexample is None:
            self.counts.counterexample = {"remap": list(sigma), "output": r, "w": witness}
        elif witness is None:
            self.counts.unproved.append({"remap": list(sigma), "output": r})
        return False

    def _step(self, v_i: Form, f: Form, nonnegative: bool) -> Form:
        return v_i.plus(self.p.alpha if nonnegative else 1 / self.p.alpha, f)

    def cell(self, sigma: tuple[int, ...], rows: list[Form], point: np.ndarray | None) -> None:
        self._points = [] if point is None else [point]
        self._ids = self.p.prefix_ids(sigma)
        columns = self.p.column_forms(sigma)
        chains: list[list[Any]] = [[] for _ in columns]
        if all(self.column(sigma, r, v, rows, point, chains[r]) for r, v in enumerate(columns)):
            self.counts.cells += 1
            self.counts.proved.append([list(sigma), chains])
            if self.p.symmetric and self.p.mirrored(sigma) != sigma:
                self.counts.cells += 1
                self.counts.mirrored += 1

    def search(self, prefix: tuple[int, ...], rows: list[Form]) -> None:
        """Depth-first over σ(len(prefix)), …; every cell with interior under ``prefix`` is proved."""
        p = self.p
        if self.counts.counterexample is not None:
            return  # refuted: nothing left to prove
        if len(prefix) >= 2 and self.pair_empty(len(prefix) - 1, prefix[-2], prefix[-1]):
            self.counts.abandoned += 1
            return
        y = gordan(rows, p.m)
        if y is not None:
            self.counts.abandoned += 1
            self.counts.empty.append([list(prefix), gordan_entries(p.prefix_ids(prefix), rows, y)])
            return
        if len(prefix) == p.n + 1:
            if p.symmetric and p.mirrored(prefix) < prefix:
                self.counts.reflected.append(list(prefix))
                return  # proved as its mirror image (same certificates, coordinates reflected)
            self.cell(prefix, rows, interior_point(rows, p.m))
            return
        for s, extra in enumerate(p.rows[len(prefix)]):
            self.search((*prefix, s), rows + extra)


def prove(n: int, alpha: Fraction, *, prefix: Sequence[int] = (), base: Mechanism | None = None) -> CellCounts:
    """Prove every cell of the remaps of ``base`` (default T at α — looked up at call time, so a
    mutant that replaces T is seen) whose σ begins with ``prefix``; see the module docstring."""
    base = families.truncated_geometric(alpha, n) if base is None else base
    problem = _Problem(n, alpha, base)
    prover = _Prover(problem)
    rows = [row for j, s in enumerate(prefix) for row in problem.rows[j][s]]
    prover.search(tuple(prefix), rows)
    return prover.counts


def prove_batch(n: int, alpha: str, prefix: list[int]) -> CellCounts:
    """An engine task: the cells under one prefix of σ (T at α = ``alpha``, a fraction string)."""
    return prove(n, Fraction(alpha), prefix=prefix)


def prove_on_engine(
    n: int,
    alpha: Fraction,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    depth: int = 2,
    timeout: float | None = None,
    done: Callable[[int, int], None] | None = None,
) -> CellCounts:
    """:func:`prove` split into the (n+1)^depth prefixes of σ, each one task on the engine that
    ``mechlib verify`` uses (a local cluster of ``jobs`` workers, or ``scheduler``; ``timeout``
    seconds per task, then run in a child process; ``done(finished, total)`` after each task). A
    task that failed or timed out leaves its cells unproved."""
    from itertools import product

    from mechlib.engine import Task, run_all

    depth = min(depth, n + 1)
    tasks = [
        Task(f"cells-{n}-{alpha}-{'.'.join(map(str, prefix))}", "mechlib.proofs.shared.remap_cells:prove_batch",
             {"n": n, "alpha": str(alpha), "prefix": list(prefix)}, timeout=timeout)
        for prefix in product(range(n + 1), repeat=depth)
    ]  # fmt: skip
    total = CellCounts()
    finished = 0

    def one_more(_: object) -> None:
        nonlocal finished
        finished += 1
        if done is not None:
            done(finished, len(tasks))

    for key, result in sorted(run_all(tasks, jobs=jobs, scheduler=scheduler, done=one_more).items()):
        if result.ok:
            total.add(result.value)
        else:
            total.unproved.append({"task": key, "reason": result.unknown_reason})
    return total


def user_of(n: int, w: Sequence[Fraction]) -> BayesUser:
    """The Bayesian user whose weights are ``w``: prior p_i ∝ Σ_k w_{i,k}, loss
    l(i, j) = Σ_{k ≤ |j−i|} w_{i,k}/p_i (|j − i| on a row of prior 0)."""
    coords = weight_coordinates(n)
    mass = [sum((x for (i, _), x in zip(coords, w) if i == row), Fraction(0)) for row in range(n + 1)]
    weight = dict(zip(coords, w))

    def loss(i: int, j: int) -> Fraction:
        if not mass[i]:
            return Fraction(abs(j - i))
        return sum((weight[i, k] for k in range(1, abs(j - i) + 1)), Fraction(0)) / mass[i]

    return BayesUser(Prior.from_weights(mass), Loss.from_function(n, loss))


#: (n, α) proved by the claim checks: every n up to 6 at three α, each resting on a certificate
#: re-checked by :mod:`mechlib.checkers.universal_certificate` (stored, or searched when missing).
LARGEST_N = 6
ALPHAS = (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3))
ALPHA_TEXT = "α ∈ {1/2, 1/3, 2/3}"
#: The method, as the claims' scopes state it.
CELLS_METHOD = (
    "every remap cell of T (every legal Bayesian user): a certificate of exact Farkas and Gordan multipliers "
    "and the search tree's coverage, re-checked by the independent checker"
)
STATEMENT = (
    "T (the truncated geometric mechanism) on 0..n at α is optimal, with a deterministic remap, for every legal "
    "Bayesian user; hence every α-DP mechanism on 0..n is dominated by a remap of T for every legal user"
)


def universal_certificate_document(
    n: int, alpha: Fraction, counts: CellCounts, provenance: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The certificate (schema ``mechlib.universal/2``) of a proof by :func:`prove` or
    :func:`prove_on_engine` of T at (n, α): every proved cell with its chains of Farkas
    certificates, the mirrored leaves, the abandoned prefixes and pair certificates (Gordan). It
    states only mathematics; ``provenance`` (tools, seconds) is recorded unverified."""
    from mechlib.provenance import package_versions

    doc: dict[str, Any] = {
        "schema": "mechlib.universal/2",
        "statement": STATEMENT,
        "n": n,
        "alpha": format_fraction(alpha),
        "reflection": bool(counts.reflected) or counts.mirrored > 0,
        "pairs": [[*key, *y] for key, y in sorted(counts.pairs.items())],
        "abandoned": sorted(counts.empty),
        "cells": sorted(counts.proved),
        "mirrored": sorted(counts.reflected),
    }
    versions = package_versions("mechlib", "highspy", "python-flint", "numpy")
    doc["provenance"] = {"producer": "mechlib.proofs.shared.remap_cells", **versions, **(provenance or {})}
    return doc


def certificate_summary(doc: dict[str, Any]) -> dict[str, int]:
    """What a certificate holds, counted."""

    def facts(chain: list[Any]) -> int:
        return sum(facts(fact[1]) + facts(fact[2]) if fact[0] == 0 else 1 for fact in chain)

    return {
        "cells proved": len(doc["cells"]),
        "of them by reflection": len(doc["mirrored"]),
        "Farkas certificates": sum(facts(chain) for _, chains in doc["cells"] for chain in chains),
        "prefixes abandoned (Gordan)": len(doc["abandoned"]),
        "pair certificates (Gordan)": len(doc["pairs"]),
    }


def cell_proofs(largest: int = LARGEST_N, alphas: Sequence[Fraction] = ALPHAS, covers: str | None = None) -> Outcome:
    """PROVED when T's certificate at every n = 1..``largest`` and α is accepted by the independent
    checker — a stored one re-checked, or one searched (:func:`prove`) when none is stored or it
    fails (:mod:`mechlib.proofs.shared.universal_cache`). PROVED carries the scope of the (n, α)
    whose certificates were accepted — every legal Bayesian user at each — for the half ``covers``."""
    from mechlib.proofs.shared.universal_cache import certified_outcome

    evidence: dict[str, Any] = {}
    ran: list[tuple[int, Fraction]] = []
    for alpha in alphas:
        for n in range(1, largest + 1):
            start = time.perf_counter()
            outcome = certified_outcome(n, alpha)
            name = f"n={n}, α={format_fraction(alpha)}"
            evidence[name] = {**outcome.evidence, "seconds": round(time.perf_counter() - start, 2)}
            if outcome.verdict != Verdict.PROVED:
                return Outcome(outcome.verdict, evidence, f"{name}: {outcome.reason}")
            ran.append((n, alpha))
    scope = measured(CELLS_METHOD, n=[n for n, _ in ran], alphas=alphas, every_object=True, covers=covers)
    return Outcome(Verdict.PROVED, evidence, scopes=(scope,))


def judged(n: int, alpha: Fraction, counts: CellCounts) -> Outcome:
    """The verdict of one (n, α) (see :func:`judged_document`)."""
    return judged_document(n, alpha, counts)[0]


def judged_document(
    n: int, alpha: Fraction, counts: CellCounts, provenance: dict[str, Any] | None = None
) -> tuple[Outcome, dict[str, Any] | None]:
    """The verdict of one (n, α) and the certificate it rests on: PROVED only when the search's
    certificate is accepted by the independent checker
    (:func:`mechlib.checkers.universal_certificate.check_certificate`); REFUTED on a user for whom
    no remap of T is optimal, re-checked independently (the certified Bayes LP's optimum below the
    best remap of T's loss); UNKNOWN when a cell has no exact certificate, the re-check disagrees
    or the checker rejects the certificate."""
    from mechlib.checkers.universal_certificate import check_certificate

    evidence = counts.to_json()
    if counts.counterexample is not None:
        confirmed, evidence["counterexample"] = _confirmed(n, alpha, counts.counterexample)
        if confirmed:
            return Outcome(Verdict.REFUTED, evidence, "no remap of T is optimal for the user w"), None
        return Outcome(Verdict.UNKNOWN, evidence, "the Bayes LP does not confirm the counterexample"), None
    if counts.unproved:
        reason = f"{len(counts.unproved)} cell(s) or task(s) without an exact certificate"
        return Outcome(Verdict.UNKNOWN, evidence, reason), None
    doc = universal_certificate_document(n, alpha, counts, provenance)
    failures = check_certificate(doc, n=n, alpha=alpha)
    if failures:
        evidence["checker"] = failures[:3]
        reason = f"the independent checker rejects the certificate: {failures[0]}"
        return Outcome(Verdict.UNKNOWN, evidence, reason), None
    return Outcome(Verdict.PROVED, {**evidence, "checker": "accepted"}), doc


def _confirmed(n: int, alpha: Fraction, found: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether the certified Bayes LP (GRS LP (3)–(7)) beats every remap of T for the user w."""
    from mechlib.optimality.optimal import optimal_bayes_mechanism
    from mechlib.proofs.shared.generators import best_remap_loss

    user = user_of(n, found["w"])
    optimum = optimal_bayes_mechanism(user, alpha).value
    remapped = best_remap_loss(families.truncated_geometric(alpha, n), user)
    shown = {
        **found,
        "w": [format_fraction(x) for x in found["w"]],
        "certified optimum": format_fraction(optimum),
        "best remap of T": format_fraction(remapped),
    }
    return optimum < remapped, shown
