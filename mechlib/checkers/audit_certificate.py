"""Independent re-check of a white-box audit certificate (schema ``mechlib.audit/2``).

Shares nothing with the producer but the JSON data model: it parses the exact strings itself,
builds T and its closed-form inverse from their formulas, and recomputes **every field** — or lists
it as unverified provenance (``PROVENANCE``: tool versions, the source's path, format and name,
whether rows were normalised on loading). Every object must have exactly its documented fields.

1. shape: n, inputs, outputs (top level and in ``mechanism``), neighbours (pairs of distinct
   inputs, no repeats), ``count_query`` (inputs 0..n with the path); the matrix row-stochastic;
   given SOURCE, its SHA-256 and its parsed matrix, labels, neighbours and claim;
2. the DP level α recomputed (min over neighbour pairs and outputs of min/max, 0/0 read as 1) and
   its witness (a neighbour pair and output attaining it, with the entries and ratio as recorded);
   ``epsilon_interval`` brackets ln(1/α) within 2·10⁻¹⁵ (arb); the claim's verdict recomputed;
3. derivability (GS Thm 2): decided whenever it can be (count query, n ≥ 1, α < 1) — a stochastic
   Y with T·Y = M, or a row w of T⁻¹ (recomputed) with (w·M)[r] < 0 and GS's condition value;
4. dominance: a stochastic Y whose error tails P(|j − i| ≥ k | i) under T·Y are nowhere above M's;
5. each user: the standard users are the ones named (uniform prior; absolute, squared, binary
   loss), the mechanism's loss under its optimal remap (posterior argmin, recomputed), the ratio,
   the optimum X* (α-DP, stochastic, loss Σu, every column c_j − u nonnegative on the α-DP cone, so
   no α-DP mechanism loses less), and T's recorded remap reaching it (GRS Thm 3.2);
6. the ``alpha`` of every finding is the DP level; ``derivable``, ``verdict`` and ``unknown``
   agree with the findings; a finding is skipped only where the audit cannot decide it.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from itertools import pairwise
from typing import Any

import flint

from mechlib.checkers.numbers import exact
from mechlib.schemas import precheck

SCHEMA = "mechlib.audit/2"

#: The LP-based findings (dominance, users) run up to this n (documented in the README).
LP_MAX_N = 150

#: Fields recorded for the reader but not re-checkable from the certificate.
PROVENANCE = (
    "tool (versions the certificate was produced with)",
    "source.path, source.format, source.name",
    "rows_normalized (whether --normalize-rows was given; the matrix itself is checked)",
)

#: Exact rationals (flint's fmpq: the same values as fractions.Fraction, computed faster).
Q = flint.fmpq

BOUNDARY = "x_r - a*x_nb"
INTERIOR = "(1+a^2)*x_r - a*(x_(r-1) + x_(r+1))"
STANDARD_LOSSES = ("absolute", "squared", "binary")


class Malformed(ValueError):
    """A field that does not have the documented form (reported as a failure naming it)."""


def _f(text: Any, where: str) -> Q:
    try:
        value = exact(text)  # decimals and "p/q", exactly, within the limits
    except ValueError as err:
        raise Malformed(f"{where}: {err}") from None
    return Q(value.numerator, value.denominator)


def _same(text: Any, value: Q, where: str) -> bool:
    return _f(text, where) == value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Malformed(f"{where}: expected an integer, got {value!r}")
    return value


def _keys(obj: Any, where: str, required: set[str], optional: set[str] | None = None) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise Malformed(f"{where}: expected an object, got {type(obj).__name__}")
    missing, extra = required - obj.keys(), obj.keys() - required - (optional or set())
    if missing or extra:
        raise Malformed(f"{where}: missing {sorted(missing)}, unexpected {sorted(extra)}")
    return obj


def _list(obj: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(obj, list) or (length is not None and len(obj) != length):
        raise Malformed(f"{where}: expected a list" + (f" of {length}" if length is not None else ""))
    return obj


def _matrix(rows: Any, where: str, height: int, width: int) -> list[list[Q]]:
    return [
        [_f(v, f"{where}[{i}][{j}]") for j, v in enumerate(_list(row, f"{where}[{i}]", width))]
        for i, row in enumerate(_list(rows, where, height))
    ]


def _stochastic(m: list[list[Q]]) -> bool:
    return all(min(row) >= 0 and sum(row) == 1 for row in m)


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


def _dp_level(m: list[list[Q]], neighbours: list[tuple[int, int]]) -> Q:
    level = Q(1)
    for a, b in neighbours:
        for u, v in zip(m[a], m[b]):
            low, high = min(u, v), max(u, v)
            if high > 0 and low / high < level:
                level = low / high
    return level


def _ln_inverse(alpha: Q) -> flint.arb:
    flint.ctx.prec = 256
    return -flint.arb(alpha).log()


def _decimal(text: Any, where: str) -> Q:
    if not isinstance(text, str) or "." not in text or len(text.split(".")[1]) != 15:
        raise Malformed(f"{where}: expected a decimal with 15 digits, got {text!r}")
    return _f(text, where)


def check_certificate(
    cert: dict[str, Any], source: bytes | str | None = None, source_mechanism: dict[str, Any] | None = None
) -> list[str]:
    """The failed checks (empty: every field of the certificate holds or is listed provenance).

    ``source``: the bytes of a SOURCE file, or the SHA-256 hex digest of a ``module:function``'s
    source file, compared with the certified one; ``source_mechanism``: SOURCE parsed
    into the certificate's own form (``matrix`` as exact strings, ``inputs``, ``outputs``,
    ``neighbours``, ``claimed``: {"alpha"|"epsilon": text} or None), compared field by field.
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
    "user_losses", "unknown",
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
    digest = hashlib.sha256(source).hexdigest() if isinstance(source, bytes) else source
    if digest is not None and digest != sha:
        failures.append("SOURCE does not have the certified SHA-256")
    if not isinstance(cert["rows_normalized"], bool):
        raise Malformed("rows_normalized: expected true or false")

    mech = _keys(cert["mechanism"], "mechanism", {"inputs", "outputs", "neighbours", "matrix"})
    inputs = [_int(v, "mechanism.inputs") for v in _list(mech["inputs"], "mechanism.inputs")]
    outputs = [_int(v, "mechanism.outputs") for v in _list(mech["outputs"], "mechanism.outputs")]
    if len(set(inputs)) != len(inputs) or len(set(outputs)) != len(outputs) or not inputs or not outputs:
        raise Malformed("mechanism.inputs/outputs: expected nonempty lists of distinct integers")
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
    m = _matrix(mech["matrix"], "mechanism.matrix", n + 1, len(outputs))
    if not _stochastic(m):
        failures.append("the matrix is not row-stochastic")
    if parsed is not None:
        failures += _compare_source(parsed, mech, cert["claimed"])

    alpha = _dp_level(m, neighbours)
    if not _same(cert["dp_level"], alpha, "dp_level"):
        failures.append(f"dp_level is {cert['dp_level']}, recomputed {alpha}")
    failures += _check_epsilon(cert["epsilon_interval"], alpha)
    failures += _check_witness(cert["witness"], m, neighbours, inputs, outputs, row_of, col_of, alpha)
    failures += _check_claim(cert["claimed"], cert["verdict"], alpha)

    decidable = count_query and n >= 1 and 0 < alpha < 1  # at α = 0 every mechanism is a remap of T_0 = I
    t = _t(alpha, n) if decidable else None
    d = cert["derivation"]
    failures += _check_derivation(d, m, outputs, col_of, alpha, n, t)
    status = d.get("status") if isinstance(d, dict) else None
    derivable = {"derivable": True, "not derivable": False}.get(status) if isinstance(status, str) else None
    if cert["derivable"] is not derivable:
        failures.append(f"derivable is {cert['derivable']}, the derivation finding says {derivable}")

    lp = count_query and n >= 1 and 0 < alpha < 1 and n <= LP_MAX_N
    dom = cert["dominance"]
    if _status(dom, "dominance", lp, failures) == "certified":
        _keys(dom, "dominance", {"status", "alpha", "remap"})
        if not _same(dom["alpha"], alpha, "dominance.alpha"):
            failures.append("dominance.alpha is not the DP level")
        t = t if t is not None else _t(alpha, n)
        y = _matrix(dom["remap"], "dominance.remap", n + 1, len(dom["remap"][0]) if dom["remap"] else 0)
        guesses = list(range(len(y[0]))) if y else []
        if not _stochastic(y):
            failures.append("the dominance remap is not stochastic")
        else:
            top = max(abs(o - i) for o in [*outputs, *guesses] for i in inputs) + 1
            ours, theirs = _tails(_product(t, y), inputs, guesses, top), _tails(m, inputs, outputs, top)
            if any(a > b for ra, rb in zip(ours, theirs) for a, b in zip(ra, rb)):
                failures.append("T·Y has a heavier error tail than the mechanism somewhere")
    users = cert["user_losses"]
    if _status(users, "user_losses", lp, failures) == "certified":
        _keys(users, "user_losses", {"status", "alpha", "users"})
        if not _same(users["alpha"], alpha, "user_losses.alpha"):
            failures.append("user_losses.alpha is not the DP level")
        rows = _list(users["users"], "user_losses.users")
        if [(u.get("prior_name"), u.get("loss_name")) for u in rows[:3] if isinstance(u, dict)] != [
            ("uniform", name) for name in STANDARD_LOSSES
        ]:
            failures.append("user_losses.users does not start with the three standard users")
        for k, u in enumerate(rows):
            failures += _check_user(u, f"user_losses.users[{k}]", m, outputs, alpha, t, n)
    unknown = [k for k in ("derivation", "dominance", "user_losses") if cert[k].get("status") == "UNKNOWN"]
    if cert["unknown"] != unknown:
        failures.append(f"unknown is {cert['unknown']}, the findings say {unknown}")
    return failures


def _compare_source(parsed: dict[str, Any], mech: dict[str, Any], claimed: Any) -> list[str]:
    out = []
    for field in ("inputs", "outputs", "neighbours"):
        ours = [list(p) for p in parsed[field]] if field == "neighbours" else list(parsed[field])
        if ours != mech[field]:
            out.append(f"mechanism.{field} differ from SOURCE's")
    rows = mech["matrix"]
    if len(rows) != len(parsed["matrix"]) or any(
        [Fraction(x) for x in a] != [Fraction(x) for x in b] for a, b in zip(rows, parsed["matrix"])
    ):
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


def _check_epsilon(interval: Any, alpha: Q) -> list[str]:
    if alpha == 0:
        return [] if interval is None else ["epsilon_interval must be null when α = 0 (ε = ∞)"]
    lo, hi = (_decimal(v, "epsilon_interval") for v in _list(interval, "epsilon_interval", 2))
    eps = _ln_inverse(alpha)
    width_ok = hi - lo <= Q(2, 10**15)
    if not (flint.arb(lo) <= eps and eps <= flint.arb(hi)) or lo < 0 or not width_ok:
        return [f"epsilon_interval [{interval[0]}, {interval[1]}] does not bracket ln(1/α) tightly"]
    return []


def _check_witness(
    w: Any,
    m: list[list[Q]],
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
    ratio = Q(1) if m[big][r] == 0 else m[small][r] / m[big][r]
    out = []
    if frozenset((big, small)) not in {frozenset(p) for p in neighbours}:
        out.append("the witness's inputs are not neighbours")
    if probabilities != [m[big][r], m[small][r]] or not _same(w["ratio"], ratio, "witness.ratio"):
        out.append("the witness's probabilities or ratio are not the matrix's")
    if ratio != alpha or m[small][r] > m[big][r]:
        out.append("the witness does not attain the DP level")
    return out


def _check_claim(claimed: Any, verdict: Any, alpha: Q) -> list[str]:
    if claimed is None:
        return [] if verdict == "NONE" else [f"verdict is {verdict!r} with no claimed level (expected 'NONE')"]
    keys = set(claimed) if isinstance(claimed, dict) else set()
    which = "alpha" if "alpha" in keys else "epsilon"
    _keys(claimed, "claimed", {which, "holds"})
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


def _status(finding: Any, name: str, decidable: bool, failures: list[str]) -> str:
    """The finding's status; a skip where the audit decides, or an unknown status, is a failure."""
    if not isinstance(finding, dict) or finding.get("status") not in ("certified", "skipped", "UNKNOWN"):
        raise Malformed(f"{name}: expected a status of certified, skipped or UNKNOWN")
    if finding["status"] != "certified":
        _keys(finding, name, {"status", "reason"})
        if finding["status"] == "skipped" and decidable:
            failures.append(f"{name} is skipped although the audit decides it here")
    elif not decidable:
        failures.append(f"{name} is reported certified although the audit does not decide it here")
        return "invalid"
    return str(finding["status"])


def _check_derivation(
    d: Any, m: list[list[Q]], outputs: list[int], col_of: dict[int, int], alpha: Q, n: int, t: list[list[Q]] | None
) -> list[str]:
    if not isinstance(d, dict) or d.get("status") not in ("derivable", "not derivable", "skipped", "UNKNOWN"):
        raise Malformed("derivation: expected a status of derivable, not derivable, skipped or UNKNOWN")
    if d["status"] in ("skipped", "UNKNOWN"):
        _keys(d, "derivation", {"status", "reason"})
        return [f"derivability is decidable here but reported {d['status']!r}"] if t is not None else []
    if t is None:
        return ["derivability is reported although it is not decided here (needs a count query, n ≥ 1, 0 < α < 1)"]
    out = [] if _same(d.get("alpha"), alpha, "derivation.alpha") else ["derivation.alpha is not the DP level"]
    if d["status"] == "derivable":
        _keys(d, "derivation", {"status", "alpha", "remap"})
        y = _matrix(d["remap"], "derivation.remap", n + 1, len(outputs))
        if not _stochastic(y) or _product(t, y) != m:
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
    entry = sum((wk * m[k][r] for k, wk in enumerate(w)), Q(0))
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
    u: Any, where: str, m: list[list[Q]], outputs: list[int], alpha: Q, t: list[list[Q]] | None, n: int
) -> list[str]:
    fields = {"prior_name", "loss_name", "prior", "loss", "mechanism", "optimal_remap", "optimum", "ratio"}
    _keys(u, where, fields | {"optimum_mechanism", "dual", "t_optimal_remap"})
    name = f"user ({u['prior_name']}, {u['loss_name']})"
    prior = [_f(p, f"{where}.prior") for p in _list(u["prior"], f"{where}.prior", n + 1)]
    loss = _matrix(u["loss"], f"{where}.loss", n + 1, n + 1)
    out = []
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
    x = _matrix(u["optimum_mechanism"], f"{where}.optimum_mechanism", n + 1, n + 1)
    dual = [_f(v, f"{where}.dual") for v in _list(u["dual"], f"{where}.dual", n + 1)]
    value = _f(u["optimum"], f"{where}.optimum")
    costs = [[p * v for v in row] for p, row in zip(prior, loss)]
    dp = all(a >= alpha * b and b >= alpha * a for r0, r1 in pairwise(x) for a, b in zip(r0, r1))
    face = sum((c * v for crow, xrow in zip(costs, x) for c, v in zip(crow, xrow)), Q(0))
    columns_ok = all(_cone_nonnegative([costs[i][j] - dual[i] for i in range(n + 1)], alpha) for j in range(n + 1))
    if not (_stochastic(x) and dp and face == value == sum(dual, Q(0)) and columns_ok):
        out.append(f"{name}: the optimality certificate of {u['optimum']} does not check")
    ratio = None if value == 0 else mine / value
    if (u["ratio"] is None) != (ratio is None) or (ratio is not None and not _same(u["ratio"], ratio, where)):
        out.append(f"{name}: the ratio is not mechanism/optimum")
    if t is not None:
        steps = list(range(n + 1))
        if _remapped_loss(t, steps, prior, loss, u["t_optimal_remap"], f"{where}.t_optimal_remap", n) != value:
            out.append(f"{name}: T with the recorded remap does not reach the optimum (GRS Thm 3.2)")
    return out
