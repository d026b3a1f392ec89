"""The audit's approximate-DP findings: the exact privacy profile δ(ε), the tightest ε at a given
δ, a claimed (ε, δ), and the tightest zCDP ρ over a range of Rényi orders (arb-rigorous).

The profile is recorded in t = e^ε = 1/α (where it is piecewise linear with rational vertices,
``mechlib.core.approximate``), as α = e^−ε like the rest of the report: vertices (α_k, δ_k) from
α_0 = 1, and per piece the ordered neighbour pair and output set S attaining it, δ = P_i(S) −
P_i′(S)/α. ``mechlib check`` re-derives each piece from its pair and set and bounds every pair's
hockey-stick divergence by the profile at every vertex (δ(t) is linear between vertices and each
pair's divergence convex in t, so that suffices).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mechlib.core.approximate import INT64_DENOMINATOR, PrivacyProfile, privacy_profile, t_level, t_profile
from mechlib.core.exact import format_decimal, format_fraction
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import epsilon_interval
from mechlib.core.renyi import MAX_POINTS, TOLERANCE, RatioGroups, ratio_groups, zcdp_rho
from mechlib.errors import InputError

#: The profile runs when (ordered neighbour pairs) × outputs is at most this (checked first), and for T
#: at any size (its closed form; ``mechlib check`` then scans its two vertices only) ...
PROFILE_MAX_CELLS = 2_000_000
#: ... and up to this when every row denominator is below ``INT64_DENOMINATOR`` (the rows are read as
#: int64: a dense n = 2000, 8,004,000 cells, in ≈ 1.2 s; ``mechlib check`` as fast).
DENSE_PROFILE_MAX_CELLS = 8_100_000
#: ... while (ordered pairs) × the profile's vertices is at most this (``mechlib check`` scans each pair at
#: each vertex; a dense n = 2000: 4000 pairs × ≈ 500 vertices): a profile past the general limit with more
#: vertices is refused once computed (its cost is bounded by the cells), not written for check to refuse.
PROFILE_MAX_SCANS = 20_000_000
#: The zCDP bracket merges each pair's outputs by likelihood ratio (integers) up to this many pair-output
#: cells (n = 1000: T's 2,002,000 in ≈ 1.2 s), and then takes arb exponentials at up to 400 orders for up
#: to this many (pair, ratio) terms (a dense mechanism: one per cell; T: two per pair).
RENYI_MAX_CELLS = 2_002_000
RENYI_MAX_TERMS = 40_000


def _cells(mechanism: Mechanism) -> int:
    return len(mechanism.ordered_neighbour_positions) * len(mechanism.outputs)


def approximate_section(
    mechanism: Mechanism,
    *,
    delta: Fraction | None = None,
    renyi: tuple[Fraction, Fraction] | None = None,
    claimed_delta: Fraction | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any] | None, PrivacyProfile | None]:
    """The report's ``approximate_dp`` section (None when nothing was asked: no ``delta``, no
    ``renyi`` range, no claimed δ) and the profile, for the claim's verdict; ``progress`` is told the
    profile's steps as they start."""
    if delta is None and renyi is None and claimed_delta is None:
        return None, None
    cells = _cells(mechanism)
    t_alpha = t_level(mechanism)  # T: its profile in closed form, at any n
    limit = DENSE_PROFILE_MAX_CELLS if max(mechanism.scaled()[1]) < INT64_DENOMINATOR else PROFILE_MAX_CELLS
    if cells > limit and t_alpha is None:
        raise InputError(
            f"the privacy profile would scan {cells:,} (pair, output) cells",
            hint=f"at most {limit:,} for this mechanism ({DENSE_PROFILE_MAX_CELLS:,} when every row's denominator "
            f"is below 2³¹, {PROFILE_MAX_CELLS:,} otherwise, T itself at any size): audit a smaller mechanism, or "
            "drop --delta/--renyi/claimed_delta",
        )
    if renyi is not None and cells > RENYI_MAX_CELLS:
        raise InputError(
            f"the zCDP bracket would scan {cells:,} (pair, output) cells",
            hint=f"at most {RENYI_MAX_CELLS:,}: drop --renyi for this mechanism",
        )
    groups = None if renyi is None else ratio_groups(mechanism)
    terms = 0 if groups is None else sum(map(len, groups.values()))
    if terms > RENYI_MAX_TERMS:
        raise InputError(
            f"the zCDP bracket would sum {terms:,} (pair, likelihood ratio) terms at each Rényi order",
            hint=f"at most {RENYI_MAX_TERMS:,} (a dense mechanism has one per pair and output): drop --renyi for "
            "this mechanism",
        )
    profile = privacy_profile(mechanism, progress) if t_alpha is None else t_profile(t_alpha)
    pairs = len(mechanism.ordered_neighbour_positions)
    if t_alpha is None and cells > PROFILE_MAX_CELLS and pairs * len(profile.ts) > PROFILE_MAX_SCANS:
        raise InputError(
            f"the privacy profile has {len(profile.ts):,} vertices over {pairs:,} ordered neighbour pairs and "
            f"{cells:,} (pair, output) cells: mechlib check would scan {pairs * len(profile.ts):,} (pair, vertex) "
            "pairs",
            hint=f"past {PROFILE_MAX_CELLS:,} cells, at most {PROFILE_MAX_SCANS:,} (pair, vertex) scans: audit a "
            "smaller mechanism, or drop --delta/--renyi/claimed_delta",
        )
    section = {
        "profile": profile_json(mechanism, profile),
        "at_delta": None if delta is None else at_delta_json(profile, delta),
        "renyi": None if renyi is None else renyi_json(mechanism, *renyi, groups),
    }
    return section, profile


def profile_json(mechanism: Mechanism, profile: PrivacyProfile) -> dict[str, Any]:
    inputs, outputs = mechanism.inputs, mechanism.outputs
    return {
        "vertices": [
            {"alpha": format_fraction(1 / t), "delta": format_fraction(d)} for t, d in zip(profile.ts, profile.deltas)
        ],
        "pieces": [
            {
                "inputs": None if piece.inputs is None else [inputs[piece.inputs[0]], inputs[piece.inputs[1]]],
                "outputs": [outputs[r] for r in piece.outputs],
                "mass": format_fraction(piece.mass),
                "neighbour_mass": format_fraction(piece.neighbour_mass),
            }
            for piece in profile.pieces
        ],
    }


def tightest_alpha(profile: PrivacyProfile, delta: Fraction) -> tuple[Fraction, int | None]:
    """α* = e^−ε* for the least ε* with δ(ε*) ≤ ``delta`` and its piece; (0, None): no finite ε."""
    found = profile.tightest_t(delta)
    return (Fraction(0), None) if found is None else (1 / found[0], found[1])


def at_delta_json(profile: PrivacyProfile, delta: Fraction) -> dict[str, Any]:
    alpha, piece = tightest_alpha(profile, delta)
    return {
        "delta": format_fraction(delta),
        "alpha": format_fraction(alpha),
        "epsilon_interval": epsilon_interval(alpha),
        "piece": piece,
    }


def renyi_json(mechanism: Mechanism, lo: Fraction, hi: Fraction, groups: RatioGroups | None = None) -> dict[str, Any]:
    bracket = zcdp_rho(mechanism, lo, hi, groups=groups)
    inputs, outputs = mechanism.inputs, mechanism.outputs
    if bracket.lo is None or bracket.hi is None:
        i, j, r = _impossible_output(mechanism)
        attained: dict[str, Any] | None = {"inputs": [inputs[i], inputs[j]], "output": outputs[r]}
    elif bracket.attained is None:
        attained = None  # no neighbouring inputs: ρ = 0
    else:
        lam, (i, j) = bracket.attained
        attained = {"lambda": format_fraction(lam), "inputs": [inputs[i], inputs[j]]}
    return {
        "lambda_range": [format_fraction(lo), format_fraction(hi)],
        "grid": [format_fraction(lam) for lam in bracket.grid],
        "rho_interval": None
        if bracket.lo is None or bracket.hi is None
        else [format_fraction(bracket.lo), format_fraction(bracket.hi)],
        "attained": attained,
    }


def _impossible_output(mechanism: Mechanism) -> tuple[int, int, int]:
    """An ordered neighbour pair (i, i′) and output r with x_i[r] > 0 = x_i′[r] (D_λ = ∞)."""
    rows = mechanism.rows
    for x, y in mechanism.ordered_neighbour_positions:
        for r, (p, q) in enumerate(zip(rows[x], rows[y], strict=True)):
            if p > 0 and q == 0:
                return x, y, r
    raise AssertionError("D_λ is infinite only where a neighbour cannot produce an output")


def findings(section: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(name, text) per approximate-DP finding, for the text, Markdown and HTML accounts."""
    if section is None:
        return []
    vertices = section["profile"]["vertices"]
    last_alpha, last_delta = Fraction(vertices[-1]["alpha"]), Fraction(vertices[-1]["delta"])
    tail = (
        f"δ = 0 for ε ≥ ln {format_fraction(1 / last_alpha)} (pure DP there)"
        if last_delta == 0
        else f"δ(ε) → {vertices[-1]['delta']} as ε → ∞ (mass no ε covers)"
    )
    out = [("profile", f"δ(ε) exact, {len(vertices)} vertices: δ(0) = {vertices[0]['delta']}, {tail}")]
    at = section["at_delta"]
    if at is not None:
        eps = at["epsilon_interval"]
        out.append(
            (
                f"at δ = {at['delta']}",
                "no finite ε" if eps is None else f"tightest ε = ln(1/α) ∈ [{eps[0]}, {eps[1]}] (α = {at['alpha']})",
            )
        )
    renyi = section["renyi"]
    if renyi is not None:
        lo, hi = renyi["lambda_range"]
        rho = renyi["rho_interval"]
        out.append(
            (
                "zCDP",
                f"ρ = ∞ on λ ∈ [{lo}, {hi}] (an output impossible under a neighbour)"
                if rho is None
                else f"tightest ρ on λ ∈ [{lo}, {hi}] is in [{_decimal(rho[0])}, {_decimal(rho[1])}]"
                + _bracket_width(Fraction(rho[0]), Fraction(rho[1]), len(renyi["grid"])),
            )
        )
    return out


def _bracket_width(lo: Fraction, hi: Fraction, points: int) -> str:
    """Nothing when the bracket meets its aim (hi ≤ lo·(1 + TOLERANCE)); else how wide it is, and why."""
    if hi <= lo * (1 + TOLERANCE):
        return ""
    width = "its lower end 0" if lo == 0 else f"{float((hi - lo) / lo):.3%} wide"
    aim = f"{float(TOLERANCE):.1%}"
    return f" — wider than the {aim} aimed at ({width}; the grid stopped at {points} of at most {MAX_POINTS} points)"


def _decimal(exact: str) -> str:
    """A bracket end (a decimal with at most 12 places, stored as p/q) as that decimal."""
    return format_decimal(Fraction(exact), 12, up=False).rstrip("0").rstrip(".")


def plot_points(section: dict[str, Any], count: int = 160) -> dict[str, Any]:
    """δ(ε) sampled for the HTML plot (floats: display only, the certificate holds the exact
    profile): ε from 0 to a little past the last vertex."""
    vertices, pieces = section["profile"]["vertices"], section["profile"]["pieces"]
    ts = [1 / Fraction(v["alpha"]) for v in vertices]
    top = math.log(ts[-1]) * 1.25 if ts[-1] > 1 else 1.0
    points = []
    for k in range(count + 1):
        eps = top * k / count
        t = math.exp(eps)
        piece = pieces[max(j for j, tj in enumerate(ts) if float(tj) <= t)]
        points.append((eps, max(0.0, float(Fraction(piece["mass"])) - t * float(Fraction(piece["neighbour_mass"])))))
    return {
        "points": points,
        "epsilon_max": top,
        "delta_max": max(d for _, d in points) or 1.0,
        "vertices": [(math.log(float(t)), float(Fraction(v["delta"]))) for t, v in zip(ts, vertices, strict=True)],
    }
