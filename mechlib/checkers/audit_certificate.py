"""Independent re-check of a white-box audit certificate (schema ``mechlib.audit/2``).

Shares nothing with the producer but the JSON data model: it parses the exact strings itself,
builds the truncated geometric mechanism T from its formula, and re-verifies in rationals

1. the matrix is row-stochastic (and, given SOURCE, has the certified SHA-256);
2. the DP level α: x[a][r] ≥ α·x[b][r] on every neighbour pair and output, with equality at the
   witness — so no larger α holds; the claimed ε (via arb) or α agrees with the verdict;
3. derivability: a stochastic Y with T·Y = M, or a row w with w·T = e_row and (w·M)[r] < 0;
4. dominance: a stochastic Y whose error tails P(|j − i| ≥ k | i) under T·Y are nowhere above M's;
5. each user: the mechanism's loss under its recorded optimal remap, and that no remap does
   better (posterior argmin, recomputed);
   the optimum X* is α-DP and stochastic, its loss equals Σu, and every column c_j − u is
   nonnegative on the α-DP cone (so no α-DP mechanism loses less than Σu);
6. the recorded Bayes-optimal remap of T for the user reaches the optimum (GRS Thm 3.2).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from itertools import pairwise
from typing import Any

import flint

SCHEMA = "mechlib.audit/2"

#: Exact rationals (flint's fmpq: the same values as fractions.Fraction, computed faster).
Q = flint.fmpq


def _f(text: Any) -> Q:
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise ValueError(f"expected an exact number as a string, got {text!r}")
    value = Fraction(text)  # parses decimals and "p/q" exactly
    return Q(value.numerator, value.denominator)


def _matrix(rows: Any) -> list[list[Q]]:
    return [[_f(v) for v in row] for row in rows]


def _stochastic(m: list[list[Q]]) -> bool:
    return all(min(row) >= 0 and sum(row) == 1 for row in m)


def _t(alpha: Q, n: int) -> list[list[Q]]:
    """T(i, r) = (1−α)/(1+α)·α^|i−r| inside, α^|i−r|/(1+α) at r ∈ {0, n} (GRS Example 2.2)."""
    return [
        [(1 if r in (0, n) else 1 - alpha) / (1 + alpha) * alpha ** abs(i - r) for r in range(n + 1)]
        for i in range(n + 1)
    ]


def _product(a: list[list[Q]], b: list[list[Q]]) -> list[list[Q]]:
    fa, fb = flint.fmpq_mat(a), flint.fmpq_mat(b)
    p = fa * fb
    return [[p[i, j] for j in range(p.ncols())] for i in range(p.nrows())]


def _tails(m: list[list[Q]], inputs: list[int], outputs: list[int], top: int) -> list[list[Q]]:
    """P(|j − i| ≥ k | i) for k = 0..top: mass by distance, then suffix sums."""
    out = []
    for i, row in zip(inputs, m):
        by_distance = [Q(0)] * (top + 2)
        for o, p in zip(outputs, row):
            by_distance[min(abs(o - i), top + 1)] += p
        tail, acc = [Q(0)] * (top + 1), Q(0)
        for k in range(top + 1, -1, -1):
            acc += by_distance[k]
            if k <= top:
                tail[k] = acc
        out.append(tail)
    return out


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


def check_certificate(cert: dict[str, Any], source: bytes | None = None) -> list[str]:
    """The failed checks (empty: every finding of the certificate holds)."""
    if cert.get("schema") != SCHEMA:
        return [f"schema {cert.get('schema')!r} is not {SCHEMA!r}"]
    failures: list[str] = []
    if source is not None and hashlib.sha256(source).hexdigest() != cert["source"]["sha256"]:
        failures.append("SOURCE does not have the certified SHA-256")
    mech = cert["mechanism"]
    m = _matrix(mech["matrix"])
    inputs, outputs = [int(v) for v in mech["inputs"]], [int(v) for v in mech["outputs"]]
    row_of, col_of = {v: k for k, v in enumerate(inputs)}, {v: k for k, v in enumerate(outputs)}
    neighbours = [(row_of[a], row_of[b]) for a, b in mech["neighbours"]]
    if not _stochastic(m):
        failures.append("the matrix is not row-stochastic")
    alpha = _f(cert["dp_level"])
    for a, b in neighbours:
        if any(u < alpha * v or v < alpha * u for u, v in zip(m[a], m[b])):
            failures.append(f"not {alpha}-DP between inputs {inputs[a]} and {inputs[b]}")
    w = cert["witness"]
    if w is not None:
        big, small = (row_of[v] for v in w["inputs"])
        r = col_of[w["output"]]
        if (min(big, small), max(big, small)) not in {(min(p), max(p)) for p in neighbours} or m[small][r] != alpha * m[
            big
        ][r]:
            failures.append("the witness does not attain the DP level")
    elif alpha != 1:
        failures.append("a DP level below 1 needs a witness")
    claimed = cert.get("claimed")
    if claimed is not None:
        if "alpha" in claimed:
            holds = alpha >= _f(claimed["alpha"])
        else:
            eps = _f(claimed["epsilon"])
            flint.ctx.prec = 256
            target = (-flint.arb(flint.fmpq(eps.numerator, eps.denominator))).exp()
            mine = flint.arb(flint.fmpq(alpha.numerator, alpha.denominator))
            holds = bool(mine >= target) if eps != 0 else alpha == 1
            if not (mine > target or mine < target) and eps != 0:
                failures.append("could not separate α from e^-ε at 256 bits")
        if holds != claimed["holds"]:
            failures.append("the claimed level's verdict is wrong")
    n = len(m) - 1
    t = _t(alpha, n) if 0 < alpha < 1 and inputs == list(range(n + 1)) else None
    d = cert["derivation"]
    if t is not None and d["status"] not in ("derivable", "not derivable"):
        failures.append(f"derivability is decidable here (0 < α < 1, count query) but reported {d['status']!r}")
    if d["status"] == "derivable" and t is not None:
        y = _matrix(d["remap"])
        if not _stochastic(y) or _product(t, y) != m:
            failures.append("the derivation remap Y does not give T·Y = M")
    elif d["status"] == "not derivable" and t is not None:
        row, r = int(d["violation"]["row"]), col_of[d["violation"]["output"]]
        wrow = [_f(v) for v in d["violation"]["inverse_row"]]
        unit = [Q(int(k == row)) for k in range(n + 1)]
        entry = sum((wk * m[k][r] for k, wk in enumerate(wrow)), Q(0))
        if [sum((wk * t[k][c] for k, wk in enumerate(wrow)), Q(0)) for c in range(n + 1)] != unit or entry >= 0:
            failures.append("the non-derivability witness does not give a negative entry of T⁻¹M")
    dom = cert["dominance"]
    if dom["status"] == "certified" and t is not None:
        y = _matrix(dom["remap"])
        guesses = list(range(len(y[0])))
        if not _stochastic(y):
            failures.append("the dominance remap is not stochastic")
        else:
            top = max(abs(o - i) for o in [*outputs, *guesses] for i in inputs) + 1
            ours, theirs = _tails(_product(t, y), inputs, guesses, top), _tails(m, inputs, outputs, top)
            if any(a > b for ra, rb in zip(ours, theirs) for a, b in zip(ra, rb)):
                failures.append("T·Y has a heavier error tail than the mechanism somewhere")
    users = cert["user_losses"]
    for u in users.get("users", []) if users["status"] == "certified" else []:
        failures += _check_user(u, m, outputs, alpha, t)
    return failures


def _remapped_loss(
    m: list[list[Q]], outputs: list[int], prior: list[Q], loss: list[list[Q]], remap: dict[str, Any]
) -> Q:
    """Σ_i p_i Σ_r m[i][r]·l(i, remap[r]) for a recorded deterministic remap (guesses 0..n)."""
    guess = [int(remap[str(o)]) for o in outputs]
    return sum((p * v * loss[i][guess[r]] for i, (p, row) in enumerate(zip(prior, m)) for r, v in enumerate(row)), Q(0))


def _check_user(
    u: dict[str, Any], m: list[list[Q]], outputs: list[int], alpha: Q, t: list[list[Q]] | None
) -> list[str]:
    name = f"user ({u['prior_name']}, {u['loss_name']})"
    prior, loss = [_f(p) for p in u["prior"]], _matrix(u["loss"])
    out = []
    mine = _f(u["mechanism"])
    if (
        _optimal_remap_loss(m, prior, loss) != mine
        or _remapped_loss(m, outputs, prior, loss, u["optimal_remap"]) != mine
    ):
        out.append(f"{name}: the mechanism's loss with its optimal remap is not {u['mechanism']}")
    x, dual, value = _matrix(u["optimum_mechanism"]), [_f(v) for v in u["dual"]], _f(u["optimum"])
    costs = [[p * v for v in row] for p, row in zip(prior, loss)]
    dp = all(a >= alpha * b and b >= alpha * a for r0, r1 in pairwise(x) for a, b in zip(r0, r1))
    face = sum((c * v for crow, xrow in zip(costs, x) for c, v in zip(crow, xrow)), Q(0))
    columns_ok = all(_cone_nonnegative([costs[i][j] - dual[i] for i in range(len(x))], alpha) for j in range(len(x[0])))
    if not (_stochastic(x) and dp and face == value == sum(dual, Q(0)) and columns_ok):
        out.append(f"{name}: the optimality certificate of {u['optimum']} does not check")
    if t is not None and _remapped_loss(t, list(range(len(t))), prior, loss, u["t_optimal_remap"]) != value:
        out.append(f"{name}: T with the recorded remap does not reach the optimum (GRS Thm 3.2)")
    return out
