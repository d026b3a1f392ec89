"""Independent re-check of a unique-optimum certificate (``mechlib.unique-optimum/1``): the truncated
geometric mechanism T on counts 0..n at α is the *unique* optimal α-DP direct mechanism of GRS
Lemma 5.12's user (uniform prior; loss 0 on the truth, 1 + γ·|j − i| elsewhere) — the step GRS
§5.7 turns into Theorem 3.2's "only if": a universally optimal X, remapped optimally for this user,
is an optimal direct mechanism for it, hence T.

Shares nothing with the producer (:mod:`mechlib.proofs.grs.theorem_3_2`) but the certificate's
data model; T, the user's costs and the LP's constraint rows are rebuilt here from the definitions.

**The LP** (GRS (3)–(7)): minimise Σ_ij c_ij x_ij, c_ij = l(i, j)/(n+1), over x with rows summing
to 1, x ≥ 0 and, for each i < n and output j, the privacy rows ``down`` x_{i+1,j} − α x_ij ≥ 0 and
``up`` x_ij − α x_{i+1,j} ≥ 0 (``nonneg`` names x_ij ≥ 0).

**Why the certificate proves uniqueness.** It gives y_i (one per row sum) and, for a set B of
constraints g_k ≥ 0, multipliers μ_k > 0, each g_k tight at the stated mechanism M (= T), with
c = Σ_i y_i·(row i's indicator) + Σ_k μ_k g_k exactly, coefficient by coefficient. For any feasible
x, c·x = Σ_i y_i + Σ_k μ_k g_k(x) ≥ Σ_i y_i = c·M: M is optimal (weak duality), and an x with
c·x = c·M has g_k(x) = 0 for every k ∈ B (μ_k > 0: strict complementary slackness on B). The row
sums and the rows of B have full rank (n+1)², so that linear system has the one solution M.

Checked here: the schema, n and α within limits before any arithmetic; the loss legal (it depends
on |j − i| only and is nondecreasing in it: γ ≥ 0); M = T entrywise and feasible; each multiplier
positive and its constraint tight at M; the identity c = Aᵀy + Σ μ g exactly; the rank (flint);
the stated value = c·M = Σ y. Provenance (producer, versions) is recorded, not checked.
"""

from __future__ import annotations

from typing import Any

import flint

from mechlib.checkers.fields import Malformed, Q, _f, _int, _keys, _list

SCHEMA = "mechlib.unique-optimum/1"
#: The largest n a certificate may state ((n+1)² unknowns: 441 at n = 20).
MAX_N = 20
#: The largest number of digits of α's or γ's numerator or denominator (checked before arithmetic).
MAX_DIGITS = 12
KINDS = ("down", "up", "nonneg")
PROVENANCE = ("provenance (producer, versions)", "statement (text)")


def check_certificate(cert: Any, *, n: int | None = None, alpha: Any = None) -> list[str]:
    """The failed checks (empty: the certificate holds); a malformed certificate is one failure
    naming the field, never an exception. ``n``/``alpha``: what the caller asks about (a
    certificate for another n or α fails)."""
    try:
        return _check(cert, n, alpha)
    except Malformed as err:
        return [f"malformed certificate: {err}"]


def _small(value: Q, where: str) -> Q:
    if max(len(str(abs(int(value.p)))), len(str(int(value.q)))) > MAX_DIGITS:
        raise Malformed(f"{where}: more than {MAX_DIGITS} digits")
    return value


def t_matrix(n: int, alpha: Q) -> list[list[Q]]:
    """T at α on 0..n, from its definition: α^|i−j|·(1−α)/(1+α) inside, α^|i−j|/(1+α) at j ∈ {0, n}."""
    inner, end = (1 - alpha) / (1 + alpha), 1 / (1 + alpha)
    return [[alpha ** abs(i - j) * (end if j in (0, n) else inner) for j in range(n + 1)] for i in range(n + 1)]


def _row(kind: str, i: int, j: int, n: int, alpha: Q) -> dict[tuple[int, int], Q]:
    """The constraint's coefficients on the variables (i, j)."""
    if kind == "nonneg":
        return {(i, j): Q(1)}
    if kind == "down":
        return {(i + 1, j): Q(1), (i, j): -alpha}
    return {(i, j): Q(1), (i + 1, j): -alpha}


def _check(cert: Any, want_n: int | None, want_alpha: Any) -> list[str]:
    doc = _keys(cert, "certificate", {"schema", "n", "alpha", "gamma", "mechanism", "rows", "binding", "value"},
                {"statement", "provenance"})  # fmt: skip
    if doc["schema"] != SCHEMA:
        return [f"schema {doc['schema']!r} is not {SCHEMA!r}"]
    n = _int(doc["n"], "n")
    if not 1 <= n <= MAX_N:
        raise Malformed(f"n: expected 1 ≤ n ≤ {MAX_N}, got {n}")
    alpha, gamma = _small(_f(doc["alpha"], "alpha"), "alpha"), _small(_f(doc["gamma"], "gamma"), "gamma")
    failures: list[str] = []
    if want_n is not None and n != want_n:
        failures.append(f"n: the certificate is for n = {n}, not {want_n}")
    if want_alpha is not None and alpha != Q(want_alpha.numerator, want_alpha.denominator):
        failures.append(f"alpha: the certificate is for α = {alpha}, not {want_alpha}")
    if not 0 < alpha < 1:
        failures.append(f"alpha: {alpha} is not in (0, 1)")
    if gamma < 0:
        failures.append(f"gamma: {gamma} < 0 makes the loss 1 + γ|j − i| decreasing in |j − i| (not legal)")
    if failures:
        return failures
    size = n + 1
    loss = [[Q(0) if i == j else 1 + gamma * abs(j - i) for j in range(size)] for i in range(size)]
    cost = [[value / size for value in row] for row in loss]
    m = [[_f(v, f"mechanism[{i}][{j}]") for j, v in enumerate(_list(row, f"mechanism[{i}]", size))]
         for i, row in enumerate(_list(doc["mechanism"], "mechanism", size))]  # fmt: skip
    if m != t_matrix(n, alpha):
        return ["mechanism: not the truncated geometric mechanism T at (n, α)"]
    y = [_f(v, f"rows[{i}]") for i, v in enumerate(_list(doc["rows"], "rows", size))]
    residual = {(i, j): cost[i][j] - y[i] for i in range(size) for j in range(size)}
    rows: list[list[Q]] = [[Q(int(k // size == i)) for k in range(size * size)] for i in range(size)]
    seen: set[tuple[str, int, int]] = set()
    for t, entry in enumerate(_list(doc["binding"], "binding")):
        kind, i, j, text = _list(entry, f"binding[{t}]", 4)
        where = f"binding[{t}]"
        if kind not in KINDS:
            raise Malformed(f"{where}: kind {kind!r} is not one of {KINDS}")
        i, j = _int(i, f"{where}[1]"), _int(j, f"{where}[2]")
        if not (0 <= j < size and 0 <= i < (size if kind == "nonneg" else n)):
            raise Malformed(f"{where}: ({i}, {j}) is outside the LP's constraints at n = {n}")
        if (kind, i, j) in seen:
            raise Malformed(f"{where}: ({kind}, {i}, {j}) is listed twice")
        seen.add((kind, i, j))
        mu = _f(text, f"{where}[3]")
        coefficients = _row(kind, i, j, n, alpha)
        if mu <= 0:
            failures.append(f"{where}: multiplier {mu} is not positive (no strict complementary slackness)")
        if sum((c * m[a][b] for (a, b), c in coefficients.items()), Q(0)) != 0:
            failures.append(f"{where}: ({kind}, {i}, {j}) is not tight at T")
        for key, c in coefficients.items():
            residual[key] -= mu * c
        rows.append([coefficients.get((k // size, k % size), Q(0)) for k in range(size * size)])
    nonzero = sorted(key for key, r in residual.items() if r != 0)
    if nonzero:
        failures.append(f"dual: c − Aᵀy − Σμg is not 0 at x{nonzero[0]} (and {len(nonzero) - 1} more)")
    if any(m[i][j] < 0 for i in range(size) for j in range(size)) or any(sum(r, Q(0)) != 1 for r in m):
        failures.append("mechanism: not a stochastic matrix")
    rank = flint.fmpq_mat(len(rows), size * size, [v for r in rows for v in r]).rank()
    if rank != size * size:
        failures.append(f"rank: the row sums and the binding constraints have rank {rank}, not (n+1)² = {size * size}")
    value = sum((cost[i][j] * m[i][j] for i in range(size) for j in range(size)), Q(0))
    if value != sum(y, Q(0)) or value != _f(doc["value"], "value"):
        failures.append(f"value: T loses {value}, the duals give {sum(y, Q(0))}, the certificate states {doc['value']}")
    return failures
