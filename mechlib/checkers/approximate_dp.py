"""Independent re-check of an audit certificate's ``approximate_dp`` section.

In t = e^ε = 1/α the privacy profile δ(t) = max over ordered neighbour pairs of
H_t(x_i ‖ x_i′) = Σ_r max(0, x_i[r] − t·x_i′[r]) is what the section claims it is iff
1. each piece's line A − B·t is recomputed from its ordered pair and output set S (A = P_i(S),
   B = P_i′(S)) and meets the recorded δ at both of its vertices (the last piece, on [t_K, ∞), has
   B = 0), so δ ≤ the true profile everywhere; and
2. every ordered pair's H_t is at most the recorded δ at every vertex — H_t is convex in t and the
   recorded δ linear between vertices, and both are non-increasing after t_K, so the recorded δ ≥ the
   true profile everywhere. In integers; for stochastic rows over denominators below 2³¹ (int64: M's
   own rows, as the audit reads them, also when the certificate writes M as T·Y), each pair's outputs
   sorted once by ratio and H_t read off its prefix sums at every vertex in floats with a margin, in
   integers wherever that margin does not settle it (``_first_pair_above``).
The tightest α at δ (``at_delta``) and a claimed (ε, δ) are then recomputed from that profile.
The zCDP bracket is re-evaluated with arb: every ordered pair's D_b/a ≤ ρ_hi on every grid cell
[a, b] (D_λ non-decreasing in λ) and the recorded (λ, pair) reaches ρ_lo.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import flint

from mechlib.checkers.fields import IntRows, Malformed, Q, _f, _int, _keys, _list, _same, check_epsilon

#: arb working precision (bits) of the zCDP re-check.
PRECISION = 128
#: The producers' limits, (ordered neighbour pairs) × outputs, for the profile and the zCDP bracket
#: (``mechlib.audit.approximate_dp``): a larger section is refused before any arithmetic.
PROFILE_MAX_CELLS = 2_000_000
RENYI_MAX_CELLS = 2_002_000
#: ... and the zCDP bracket up to this many (pair, likelihood ratio) terms (checked before any ball).
RENYI_MAX_TERMS = 40_000
#: ... the profile of rows whose denominators are all below INT64_DENOMINATOR up to this many cells,
#: while (ordered pairs) × vertices stays below PROFILE_MAX_SCANS (a dense n = 2000: 8,004,000 cells,
#: 4000 pairs × ≈ 500 vertices);
DENSE_PROFILE_MAX_CELLS = 8_100_000
INT64_DENOMINATOR = 1 << 31
#: ... and a profile of at most two vertices (T's, which the audit writes at any n), re-checked while
#: cells × vertices stays below this (T at n = 2000: 8·10⁶ cells, two vertices).
PROFILE_MAX_SCANS = 20_000_000
#: A pair's float H_t settles H_t ≤ δ when below δ by more than this·(1 + t) (the float errors are
#: below 10⁻¹⁵·(1 + t)); an output's float ratio is read exactly within this relative distance of t.
MARGIN = 1e-12
NEAR = 1e-9


@dataclass(frozen=True)
class Profile:
    """A checked profile: vertices t_k = 1/α_k with δ_k, and each piece's line (A, B)."""

    ts: list[Q]
    deltas: list[Q]
    lines: list[tuple[Q, Q]]

    def tightest_alpha(self, delta: Q) -> tuple[Q, int | None]:
        """α* = 1/t* for the least t* with δ(t*) ≤ delta, and its piece; (0, None): none."""
        if delta >= self.deltas[0]:
            return Q(1), 0
        if delta < self.deltas[-1]:
            return Q(0), None
        k = next(k for k, d in enumerate(self.deltas) if d <= delta)
        a, b = self.lines[k - 1]
        return b / (a - delta), k - 1


def check_approximate(
    section: Any,
    m: IntRows,
    neighbours: list[tuple[int, int]],
    row_of: dict[int, int],
    col_of: dict[int, int],
) -> tuple[list[str], Profile | None]:
    """The failures of a non-null ``approximate_dp`` section, and its profile when it checks."""
    _keys(section, "approximate_dp", {"profile", "at_delta", "renyi"})
    m = _in_own_terms(m)
    ordered = [p for i, j in neighbours for p in ((i, j), (j, i))]
    cells = len(ordered) * len(col_of)
    profile_doc = section["profile"]
    vertices = len(profile_doc["vertices"]) if isinstance(profile_doc, dict) and isinstance(
        profile_doc.get("vertices"), list) else 0  # fmt: skip
    allowed = [PROFILE_MAX_CELLS]  # the largest limit that applies: the general, the dense, the two-vertex one
    if _int64(m) and len(ordered) * vertices <= PROFILE_MAX_SCANS:
        allowed.append(DENSE_PROFILE_MAX_CELLS)
    if vertices <= 2 and cells * vertices <= PROFILE_MAX_SCANS:
        allowed.append(cells)
    profile_limit = max(allowed)
    for name, limit, present in (("profile", profile_limit, True), ("renyi", RENYI_MAX_CELLS, section["renyi"])):
        if present is not None and cells > limit:
            raise Malformed(
                f"approximate_dp.{name}: {cells:,} (pair, output) cells, above {limit:,}, the audit's limit"
            )
    failures, profile = _check_profile(section["profile"], m, ordered, row_of, col_of)
    at = section["at_delta"]
    if at is not None and profile is not None:
        failures += _check_at_delta(at, profile)
    if section["renyi"] is not None:
        failures += _check_renyi(section["renyi"], m, ordered, row_of, col_of)
    return failures, profile


def _pair(value: Any, where: str, row_of: dict[int, int], ordered: Collection[tuple[int, int]]) -> tuple[int, int]:
    a, b = (_int(v, where) for v in _list(value, where, 2))
    if a not in row_of or b not in row_of or (row_of[a], row_of[b]) not in ordered:
        raise Malformed(f"{where}: {value} is not a pair of neighbouring inputs")
    return row_of[a], row_of[b]


def _check_profile(
    doc: Any, m: IntRows, ordered: list[tuple[int, int]], row_of: dict[int, int], col_of: dict[int, int]
) -> tuple[list[str], Profile | None]:
    _keys(doc, "approximate_dp.profile", {"vertices", "pieces"})
    vertices = _list(doc["vertices"], "approximate_dp.profile.vertices")
    if not vertices:
        raise Malformed("approximate_dp.profile.vertices: expected at least one vertex")
    pieces = _list(doc["pieces"], "approximate_dp.profile.pieces", len(vertices))
    alphas, deltas = [], []
    for k, v in enumerate(vertices):
        where = f"approximate_dp.profile.vertices[{k}]"
        _keys(v, where, {"alpha", "delta"})
        alphas.append(_f(v["alpha"], f"{where}.alpha"))
        deltas.append(_f(v["delta"], f"{where}.delta"))
    if alphas[0] != 1 or any(b >= a for a, b in itertools.pairwise(alphas)) or alphas[-1] <= 0:
        raise Malformed("approximate_dp.profile.vertices: α must start at 1 and decrease, staying > 0")
    ts = [1 / a for a in alphas]
    failures: list[str] = []
    lines = []
    pairs = set(ordered)
    for k, piece in enumerate(pieces):
        where = f"approximate_dp.profile.pieces[{k}]"
        _keys(piece, where, {"inputs", "outputs", "mass", "neighbour_mass"})
        labels = _list(piece["outputs"], f"{where}.outputs")
        if not all(type(o) is int for o in labels):
            [_int(o, f"{where}.outputs") for o in labels]  # names the first that is not an integer
        cols = [c for c in map(col_of.get, labels) if c is not None]
        if len(cols) != len(labels) or len(set(cols)) != len(cols):
            raise Malformed(f"{where}.outputs: expected distinct outputs of the mechanism")
        if piece["inputs"] is None:
            if labels:
                raise Malformed(f"{where}: a set of outputs needs its pair of inputs")
            a = b = Q(0)
        else:
            i, j = _pair(piece["inputs"], f"{where}.inputs", row_of, pairs)
            a = Q(sum(map(m.num[i].__getitem__, cols)), m.den[i])
            b = Q(sum(map(m.num[j].__getitem__, cols)), m.den[j])
        if not (
            _same(piece["mass"], a, f"{where}.mass") and _same(piece["neighbour_mass"], b, f"{where}.neighbour_mass")
        ):
            failures.append(f"{where}: the masses are not P_i(S) and P_i′(S)")
        last = k == len(pieces) - 1
        ends = [k] if last else [k, k + 1]
        if any(a - b * ts[e] != deltas[e] for e in ends) or (b != 0 if last else b == 0):
            failures.append(f"{where}: its line P_i(S) − P_i′(S)/α does not meet the profile at its vertices")
        lines.append((a, b))
    above = _first_pair_above(m, ordered, ts, deltas)
    if above is not None:
        k, pair = above
        failures.append(
            f"approximate_dp.profile: at vertex {k} (α = {vertices[k]['alpha']}) the pair of rows "
            f"{pair} has hockey-stick divergence above δ = {vertices[k]['delta']}"
        )
    return failures, (None if failures else Profile(ts, deltas, lines))


def _int64(m: IntRows) -> bool:
    """Rows the dense re-check covers: stochastic over denominators below 2³¹, so every entry and prefix
    sum is at most its row's denominator (int64, and exact in floats). A matrix that is not stochastic
    (a listed failure of its own) is re-checked in integers, within the general limits."""
    return bool(m.den) and max(m.den) < INT64_DENOMINATOR and m.stochastic()


def _in_own_terms(m: IntRows) -> IntRows:
    """``m`` with its rows over their least common denominators (each divided by the gcd of its
    denominator and numerators) when that brings every denominator below ``INT64_DENOMINATOR``, else ``m``
    itself: T·Y is rebuilt over den(T)·lcm(Y), past 2³¹ where M's own rows, the audit's, may be int64 rows.
    Rows already below stay as they are; a row that cannot get below is found from the gcd with its two
    end entries (a multiple of the whole row's gcd) before the rest are read, and ends the search (T
    itself: at its first row)."""
    if not m.den or max(m.den) < INT64_DENOMINATOR:
        return m
    den, num = [], []
    for d, row in zip(m.den, m.num):
        if d >= INT64_DENOMINATOR:
            g = math.gcd(d, *row[:1], *row[-1:])
            if d // g >= INT64_DENOMINATOR or d // (g := math.gcd(g, *row)) >= INT64_DENOMINATOR:
                return m
            d, row = d // g, [a // g for a in row]
        den.append(d)
        num.append(row)
    return IntRows(den, num)


def _first_pair_above(
    m: IntRows, ordered: list[tuple[int, int]], ts: list[Q], deltas: list[Q]
) -> tuple[int, tuple[int, int]] | None:
    """The first vertex k and, of the ordered pairs in order, the first whose H_{t_k} exceeds δ_k; None
    when every pair is at most the profile at every vertex."""
    if _int64(m) and ordered:
        try:
            t_near, slack = [_near(t) for t in ts], [_near(d) - MARGIN * (1 + _near(t)) for t, d in zip(ts, deltas)]
        except OverflowError:  # a vertex past the floats' range
            pass
        else:
            return _first_dense_pair_above(m, ordered, ts, deltas, t_near, slack)
    for k, (t, d) in enumerate(zip(ts, deltas)):
        above = _pair_above(m, ordered, t, d)
        if above is not None:
            return k, above
    return None


def _near(x: Q) -> float:
    return int(x.p) / int(x.q)  # correctly rounded


#: Ordered pairs sorted per numpy call (≈ 8 arrays of this many int64 or floats).
_BATCH_CELLS = 1 << 19


def _first_dense_pair_above(
    m: IntRows,
    ordered: list[tuple[int, int]],
    ts: list[Q],
    deltas: list[Q],
    t_near: list[float],
    slack: list[float],
) -> tuple[int, tuple[int, int]] | None:
    """``_first_pair_above`` for int64 rows. Per pair (x_i[r] = a_r/d, x_i′[r] = b_r/e) the outputs sorted
    by the float ratio a_r/b_r (decreasing, b_r = 0 first) and the exact prefix sums of a and b in that
    order; at t the threshold set S = {r : a_r/b_r > t·d/e} is a prefix, found by binary search in the
    floats, and H_t = P_i(S) − t·P_i′(S). An output whose float ratio sits on the wrong side of t·d/e has
    its exact ratio within a few ulps of it, so a_r/d − t·b_r/e is within 10⁻¹⁵·t·b_r/e of 0: the float H_t
    is within 10⁻¹⁵·(1 + t) of the exact one (where t·d/e is ∞ in floats, t > 10²⁹⁸, the outputs x_i′
    never gives drop out of the float set: an error ≤ 1, far below MARGIN·t), and H_t ≤ δ is settled
    where it is below δ − MARGIN·(1 + t).
    Elsewhere in integers: the prefix of float ratios above t·d/e·(1 + NEAR) (so, exactly, above t·d/e)
    from the prefix sums, and each output whose float ratio is within NEAR of t·d/e compared exactly."""
    import numpy as np

    rows, dens = np.array(m.num, dtype=np.int64), np.array(m.den, dtype=np.int64)
    t_floats, bounds = np.array(t_near), np.array(slack)
    first, second = np.array([x for x, _ in ordered]), np.array([y for _, y in ordered])
    step = max(1, _BATCH_CELLS // rows.shape[1])
    above: list[tuple[int, int]] = []
    # ±∞ and NaN are meant: b = 0 gives the ratio ∞; t·d/e past the floats, a NaN H_t (decided in integers)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for start in range(0, len(ordered), step):
            xs, ys = first[start : start + step], second[start : start + step]
            a, b = rows[xs], rows[ys]
            ratios = np.where(a > 0, -(a / b), 0.0)  # negated: increasing; b = 0 < a gives −∞, a = 0 gives 0
            order = np.argsort(ratios, axis=1)
            ratios = np.take_along_axis(ratios, order, axis=1)
            zero = np.zeros((len(xs), 1), dtype=np.int64)
            sums = np.concatenate((zero, np.cumsum(np.take_along_axis(a, order, axis=1), axis=1)), axis=1)
            neighbour_sums = np.concatenate((zero, np.cumsum(np.take_along_axis(b, order, axis=1), axis=1)), axis=1)
            d, e = dens[xs, None], dens[ys, None]
            levels = -t_floats * (d / e)  # negated, as the ratios
            prefix = np.array([np.searchsorted(row, level) for row, level in zip(ratios, levels, strict=True)])
            floats = np.take_along_axis(sums, prefix, axis=1) / d - t_floats * (
                np.take_along_axis(neighbour_sums, prefix, axis=1) / e
            )
            found = np.nonzero(~(floats <= bounds))  # NaN too (t·d/e past the floats): decided in integers
            for p, ks in itertools.groupby(zip(*(x.tolist() for x in found), strict=True), key=lambda pk: pk[0]):
                suspects = np.array([k for _, k in ks])
                sure = np.searchsorted(ratios[p], levels[p, suspects] * (1 + NEAR), side="left").tolist()
                near = np.searchsorted(ratios[p], levels[p, suspects] * (1 - NEAR), side="right").tolist()
                i, j = ordered[start + p]
                d_i, d_j = m.den[i], m.den[j]
                for k, lo, hi in zip(suspects.tolist(), sure, near, strict=True):
                    u, v = int(ts[k].p), int(ts[k].q)
                    mass, neighbour_mass = int(sums[p, lo]), int(neighbour_sums[p, lo])
                    for r in order[p, lo:hi].tolist():
                        x, y = m.num[i][r], m.num[j][r]
                        if x * d_j * v > u * y * d_i:
                            mass, neighbour_mass = mass + x, neighbour_mass + y
                    g, h = int(deltas[k].p), int(deltas[k].q)
                    if h * (mass * d_j * v - u * neighbour_mass * d_i) > g * d_i * d_j * v:  # P_i(S) − t·P_i′(S) > δ
                        above.append((k, start + p))
                        break  # a later vertex of this pair cannot come first
    if not above:
        return None
    k, p = min(above)
    return k, ordered[p]


def _pair_above(m: IntRows, ordered: list[tuple[int, int]], t: Q, delta: Q) -> tuple[int, int] | None:
    """An ordered pair with Σ_r max(0, x_i[r] − t·x_i′[r]) > δ, or None. In integers, with
    t = u/v, x_i[r] = a/d, x_i′[r] = b/e, δ = g/h: h·Σ max(0, a·v·e − b·u·d) ≤ g·d·v·e."""
    u, v, g, h = int(t.p), int(t.q), int(delta.p), int(delta.q)
    for i, j in ordered:
        d, e = m.den[i], m.den[j]
        common = math.gcd(v * e, u * d)  # rows over one denominator: the multipliers are v and u
        left, right = v * e // common, u * d // common
        excess = sum(x for x in map(operator.sub, map(left.__mul__, m.num[i]), map(right.__mul__, m.num[j])) if x > 0)
        if h * excess > g * d * left:  # Σ max(0, a·v·e − b·u·d) = common · excess
            return i, j
    return None


def _check_at_delta(at: Any, profile: Profile) -> list[str]:
    _keys(at, "approximate_dp.at_delta", {"delta", "alpha", "epsilon_interval", "piece"})
    delta = _f(at["delta"], "approximate_dp.at_delta.delta")
    if not 0 <= delta <= 1:
        raise Malformed(f"approximate_dp.at_delta.delta: {at['delta']} is not in [0, 1]")
    alpha, piece = profile.tightest_alpha(delta)
    out = []
    if not _same(at["alpha"], alpha, "approximate_dp.at_delta.alpha") or at["piece"] != piece:
        out.append(f"approximate_dp.at_delta: the tightest α at δ = {at['delta']} is {alpha} (piece {piece})")
    return out + check_epsilon(at["epsilon_interval"], alpha, "approximate_dp.at_delta.epsilon_interval")


def _ratios(m: IntRows, x: int, y: int) -> list[list[int]]:
    """The numerators of rows x and y summed over the outputs of one ratio x[r]/y[r] (D_λ is a sum over
    outputs of a function of the ratio, times y[r] — or x[r] for KL — so the same over merged outputs),
    outputs x never gives dropped: per pair as many terms as ratios."""
    groups: dict[tuple[int, int], list[int]] = {}
    for a, b in zip(m.num[x], m.num[y]):
        if a:
            g = math.gcd(a, b)
            total = groups.setdefault((a // g, b // g), [0, 0])
            total[0] += a
            total[1] += b
    return list(groups.values())


def _logs(m: IntRows, x: int, y: int, ratios: list[list[int]]) -> tuple[list[Any], list[Any]]:
    """``_ratios`` of the pair (x, y) as (value, log) balls (None for 0)."""

    def ball(v: int, d: int) -> tuple[flint.arb, flint.arb] | None:
        return (flint.arb(Q(v, d)), flint.arb(Q(v, d)).log()) if v else None

    return [ball(a, m.den[x]) for a, _ in ratios], [ball(b, m.den[y]) for _, b in ratios]


def _divergence(p: list[Any], q: list[Any], lam: Q) -> flint.arb | None:
    """D_λ(P ‖ Q) (λ = 1: KL) as a ball; None: ∞. P has no zero term (``_ratios`` drops the outputs P
    never gives)."""
    total, kl, lam_ball = flint.arb(0), lam == 1, flint.arb(lam)
    for a, b in zip(p, q):
        if b is None:
            return None
        total += a[0] * (a[1] - b[1]) if kl else (b[1] + lam_ball * (a[1] - b[1])).exp()
    return total if kl else total.log() / (lam_ball - 1)


def _check_renyi(
    doc: Any, m: IntRows, ordered: list[tuple[int, int]], row_of: dict[int, int], col_of: dict[int, int]
) -> list[str]:
    _keys(doc, "approximate_dp.renyi", {"lambda_range", "grid", "rho_interval", "attained"})
    lo, hi = (_f(x, "approximate_dp.renyi.lambda_range") for x in _list(doc["lambda_range"], "lambda_range", 2))
    grid = [_f(x, "approximate_dp.renyi.grid") for x in _list(doc["grid"], "approximate_dp.renyi.grid")]
    if (
        not 1 <= lo < hi
        or len(grid) < 2
        or grid[0] != lo
        or grid[-1] != hi
        or any(b <= a for a, b in itertools.pairwise(grid))
    ):
        raise Malformed("approximate_dp.renyi: the grid must rise from the range's low end (≥ 1) to its high end")
    attained, rho = doc["attained"], doc["rho_interval"]
    if rho is None:  # ∞: an output one row gives and a neighbour never does
        _keys(attained, "approximate_dp.renyi.attained", {"inputs", "output"})
        i, j = _pair(attained["inputs"], "approximate_dp.renyi.attained.inputs", row_of, ordered)
        r = col_of.get(_int(attained["output"], "approximate_dp.renyi.attained.output"))
        if r is None or not (m.num[i][r] > 0 and m.num[j][r] == 0):
            return ["approximate_dp.renyi: ρ = ∞ needs an output with x_i[r] > 0 = x_i′[r]"]
        return []
    rho_lo, rho_hi = (_f(x, "approximate_dp.renyi.rho_interval") for x in _list(rho, "rho_interval", 2))
    if rho_lo < 0:
        return [f"approximate_dp.renyi: ρ_lo = {rho[0]} is negative (D_λ ≥ 0)"]
    if not ordered:
        return [] if attained is None and rho_lo == rho_hi == 0 else ["approximate_dp.renyi: no neighbours, ρ = 0"]
    _keys(attained, "approximate_dp.renyi.attained", {"lambda", "inputs"})
    lam = _f(attained["lambda"], "approximate_dp.renyi.attained.lambda")
    i, j = _pair(attained["inputs"], "approximate_dp.renyi.attained.inputs", row_of, ordered)
    ratios = {pair: _ratios(m, *pair) for pair in ordered}
    terms = sum(map(len, ratios.values()))
    if terms > RENYI_MAX_TERMS:
        raise Malformed(
            f"approximate_dp.renyi: {terms:,} (pair, likelihood ratio) terms, above {RENYI_MAX_TERMS:,}, "
            "the audit's limit"
        )
    flint.ctx.prec = PRECISION
    logs = {pair: _logs(m, *pair, ratios[pair]) for pair in ordered}
    out = []
    reached = _divergence(*logs[i, j], lam)
    # ρ_lo = 0 holds by D_λ ≥ 0 (a ball around an exact 0 would not show it)
    if not lo <= lam <= hi or reached is None or not (rho_lo == 0 or reached / flint.arb(lam) >= flint.arb(rho_lo)):
        out.append(f"approximate_dp.renyi: D_λ/λ at λ = {attained['lambda']} does not reach ρ_lo = {rho[0]}")
    for a, b in itertools.pairwise(grid):
        for x, y in ordered:
            d = _divergence(*logs[x, y], b)
            if d is None or not d / flint.arb(a) <= flint.arb(rho_hi):
                return [
                    *out,
                    f"approximate_dp.renyi: on λ ∈ [{a}, {b}] the pair of rows ({x}, {y}) may exceed ρ_hi = {rho[1]}",
                ]
    return out
