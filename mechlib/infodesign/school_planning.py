"""SY Example 1 (school planning): how good is the geometric mechanism, and what is optimal?

N = 40 households, θᵢ ∈ {0, 1, 2} children i.i.d. with P = 0.89 / 0.09 / 0.02 (exact decimals),
ω = Σθᵢ, ε = 1, Δ = 2, squared error (ω − a)², the district best-responds (a = E[ω | s]).

* The geometric mechanism with ε/Δ = 1/2 (α = e^(−1/2)): its loss Σ_s Var(ω|s)P(s) is enclosed
  in an arb ball (the truncated mechanism on Ω has the same posteriors, SY footnote 28).
* The optimum over all ε-DP mechanisms: permutation-invariant mechanisms are without loss (SY
  Prop. 5), so it is an LP over the 861 histograms (n₀, n₁, n₂), DP between histograms one
  household apart; bracketed with exact certificates by :mod:`mechlib.infodesign.cell_lp`.
* The optimum over oblivious mechanisms (ones that only add noise to ω, SY Prop. 3: DP between
  ω and ω ± 1, ω ± 2), bracketed the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, factorial, floor
from typing import Any

import flint

from mechlib.core.exact import format_fraction, to_fraction
from mechlib.core.privacy import arb_precision, to_arb
from mechlib.infodesign.alpha import exp_bounds
from mechlib.infodesign.cell_lp import Bracket, CellGraph
from mechlib.rendering import render

#: The certificate format, re-checked by mechlib.checkers.bracket_certificate (same id, tested).
SCHEMA = "mechlib.bracket/1"

#: The example as SY state it.
HOUSEHOLDS = 40
TYPE_PROBABILITIES = (Fraction("0.89"), Fraction("0.09"), Fraction("0.02"))
EPSILON = Fraction(1)
SENSITIVITY = 2
SENSITIVITY_KEY = "loss if each printed probability is off by up to ±0.005 (corners)"
#: Oblivious mechanisms are retracted onto ω ≤ 30 (P(ω > 30) < 10⁻⁹).
OBLIVIOUS_TOP = 30
#: SY's figures: geometric ≈ 3.22, best (non-oblivious) ≈ 2.48.
PAPER_GEOMETRIC = "3.22"
PAPER_OPTIMUM = "2.48"


@dataclass(frozen=True)
class Example:
    households: int = HOUSEHOLDS
    probabilities: tuple[Fraction, ...] = TYPE_PROBABILITIES
    epsilon: Fraction = EPSILON

    @property
    def types(self) -> int:
        return len(self.probabilities) - 1

    def omega_prior(self) -> list[Fraction]:
        """μ₀: the law of ω = Σθᵢ (exact convolution)."""
        mu = [Fraction(1)]
        for _ in range(self.households):
            out = [Fraction(0)] * (len(mu) + self.types)
            for w, m in enumerate(mu):
                for k, p in enumerate(self.probabilities):
                    out[w + k] += m * p
            mu = out
        return mu


def geometric_loss(mu0: Sequence[Fraction], alpha_exponent: Fraction, bits: int = 256) -> flint.arb:
    """Σ_s Var(ω | s)·P(s) for the geometric mechanism with α = e^(−alpha_exponent), as an arb ball."""
    with arb_precision(bits):
        a = (-to_arb(alpha_exponent)).exp()
        last = len(mu0) - 1
        prior = [to_arb(m) for m in mu0]
        total = flint.arb(0)
        for s in range(last + 1):
            edge = s in (0, last)
            s0 = s1 = s2 = flint.arb(0)
            for w, m in enumerate(prior):
                j = (1 if edge else 1 - a) * a ** abs(s - w) / (1 + a) * m
                s0, s1, s2 = s0 + j, s1 + j * w, s2 + j * w * w
            total += s2 - s1 * s1 / s0
        return total


def histogram_graph(example: Example, box: tuple[int, int]) -> CellGraph:
    """Cells (n₁, n₂) (n₀ = N − n₁ − n₂), multinomial prior, ω = n₁ + 2n₂, one household moved per
    edge; retraction (n₁, n₂) ↦ (min(n₁, A), min(n₂, B)) onto the box [0, A] × [0, B]."""
    if example.types != 2:
        raise ValueError("histogram_graph is for types {0, 1, 2}")
    n = example.households
    p0, p1, p2 = example.probabilities
    a_max, b_max = box
    if a_max + b_max > n:
        raise ValueError(f"box {box} does not fit N={n}")
    cells = [(n1, n2) for n1 in range(n + 1) for n2 in range(n + 1 - n1)]
    index = {c: i for i, c in enumerate(cells)}
    prior = tuple(
        Fraction(factorial(n), factorial(n - n1 - n2) * factorial(n1) * factorial(n2))
        * p0 ** (n - n1 - n2)
        * p1**n1
        * p2**n2
        for n1, n2 in cells
    )
    edges = tuple(
        (index[(n1, n2)], index[(n1 + d1, n2 + d2)])
        for n1, n2 in cells
        for d1, d2 in ((1, 0), (0, 1), (1, -1))
        if (n1 + d1, n2 + d2) in index
    )
    retract = tuple(index[(min(n1, a_max), min(n2, b_max))] for n1, n2 in cells)
    lo, hi = exp_bounds(example.epsilon)
    return CellGraph(prior, tuple(n1 + 2 * n2 for n1, n2 in cells), edges, retract, lo, hi)


def oblivious_graph(example: Example, top: int) -> CellGraph:
    """Cells ω ∈ Ω with prior μ₀, edges {ω, ω + t} for 1 ≤ t ≤ T (SY Prop. 3); retraction
    ω ↦ min(ω, top)."""
    mu0 = example.omega_prior()
    edges = tuple((w, w + t) for w in range(len(mu0)) for t in range(1, example.types + 1) if w + t < len(mu0))
    lo, hi = exp_bounds(example.epsilon)
    return CellGraph(tuple(mu0), tuple(range(len(mu0))), edges, tuple(min(w, top) for w in range(len(mu0))), lo, hi)


def parse_probabilities(values: Sequence[object]) -> tuple[Fraction, ...]:
    return tuple(to_fraction(v) for v in values)


def bracket_question(example: Example, box: tuple[int, int], step: Fraction) -> dict[str, Any]:
    """The fields of a ``mechlib.bracket/1`` certificate that say which bracket it is (the example,
    the retraction's box, the grid): a stored certificate answers this question only if they match."""
    return {
        "households": example.households,
        "type_probabilities": [format_fraction(p) for p in example.probabilities],
        "epsilon": format_fraction(example.epsilon),
        "box": list(box),
        "grid_step": format_fraction(step),
    }


def certificate(
    example: Example, box: tuple[int, int], result: Bracket, graph: CellGraph | None = None
) -> dict[str, Any]:
    """The bracket as a ``mechlib.bracket/1`` certificate (checked by :mod:`mechlib.checkers.bracket_certificate`);
    ``graph`` is ``histogram_graph(example, box)`` if already built."""
    graph = graph or histogram_graph(example, box)
    cells = [(n1, n2) for n1 in range(example.households + 1) for n2 in range(example.households + 1 - n1)]
    return {
        "schema": SCHEMA,
        **bracket_question(example, box, result.grid_step),
        "factor_lo": format_fraction(graph.factor_lo),
        "factor_hi": format_fraction(graph.factor_hi),
        "upper": format_fraction(outward(result.upper, up=True)),
        "lower": format_fraction(outward(result.lower, up=False)),
        "mechanism": {
            f"{cells[c][0]},{cells[c][1]}": {str(k): format_fraction(x) for k, x in row.items()}
            for c, row in sorted(result.mechanism.items())
        },
        "duals": [[*cells[u], *cells[v], k, format_fraction(y)] for (u, v, k), y in sorted(result.duals.items())],
    }


def outward(value: Fraction, *, up: bool, digits: int = 12) -> Fraction:
    """``value`` rounded to ``digits`` decimals away from the bracket's inside (up or down)."""
    scaled = value * 10**digits
    return Fraction(ceil(scaled) if up else floor(scaled), 10**digits)


def _ball_text(ball: flint.arb, digits: int = 10) -> str:
    return str(ball.str(digits, radius=False))


def study(
    example: Example | None = None,
    step: Fraction = Fraction(1, 6),
    box: tuple[int, int] = (14, 7),
    progress: Callable[[str], Any] | None = None,
    *,
    check_certificate: Callable[[dict[str, Any]], list[str]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Example 1 end to end: (report, certificate). Every number in the report is exact or an
    arb enclosure. ``check_certificate`` (the independent checker,
    :func:`mechlib.checkers.bracket_certificate.check_certificate`, handed in so that no producer
    imports a checker) re-verifies the certificate before returning; its failures are reported."""
    from mechlib.infodesign.cell_lp import bracket

    ex = example or Example()
    say = progress or (lambda _: None)
    mu0 = ex.omega_prior()
    geometric = geometric_loss(mu0, ex.epsilon / SENSITIVITY)
    say("geometric mechanism: exact enclosure")
    p0, p1, p2 = ex.probabilities
    corners = []
    for d1 in (Fraction(-5, 1000), Fraction(5, 1000)):
        for d2 in (Fraction(-5, 1000), Fraction(5, 1000)):
            shifted = Example(ex.households, (p0 - d1 - d2, p1 + d1, p2 + d2), ex.epsilon)
            corners.append(geometric_loss(shifted.omega_prior(), ex.epsilon / SENSITIVITY))
    start = time.perf_counter()
    graph = histogram_graph(ex, box)
    best = bracket(graph, step, say)
    noise = bracket(oblivious_graph(ex, OBLIVIOUS_TOP), step, say)
    seconds = time.perf_counter() - start
    cert = certificate(ex, box, best, graph)
    failures = check_certificate(cert)
    upper, lower = Fraction(cert["upper"]), Fraction(cert["lower"])
    report = {
        "schema": "mechlib.school_planning/1",
        "example": {
            "households": ex.households,
            "type_probabilities": [format_fraction(p) for p in ex.probabilities],
            "epsilon": format_fraction(ex.epsilon),
            "sensitivity": SENSITIVITY,
            "loss": "squared error, posterior-mean action",
        },
        "geometric": {
            "alpha": f"e^-{format_fraction(ex.epsilon / SENSITIVITY)}",
            "loss": _ball_text(geometric),
            "paper": PAPER_GEOMETRIC,
            SENSITIVITY_KEY: [_ball_text(c, 6) for c in corners],
        },
        "optimum (permutation-invariant = all, SY Prop. 5)": {
            "lower": format_fraction(lower),
            "upper": format_fraction(upper),
            "gap": format_fraction(upper - lower),
            "paper": PAPER_OPTIMUM,
            "histograms": len(graph.prior),
            "box (retraction)": list(box),
            "grid step": format_fraction(step),
            "outputs used": len(next(iter(best.mechanism.values()))),
            "certificate check": failures if failures else "passed",
        },
        "optimum over oblivious (noise-adding) mechanisms": {
            "lower": format_fraction(outward(noise.lower, up=False)),
            "upper": format_fraction(outward(noise.upper, up=True)),
        },
        "seconds": round(seconds, 1),
    }
    return report, cert


def render_markdown(report: dict[str, Any]) -> str:
    """school_planning.md (``templates/school_planning.md``)."""
    geometric = report["geometric"]
    return render(
        "school_planning.md",
        example=report["example"],
        geometric=geometric,
        sensitivity=geometric[SENSITIVITY_KEY],
        optimum=report["optimum (permutation-invariant = all, SY Prop. 5)"],
        oblivious=report["optimum over oblivious (noise-adding) mechanisms"],
        seconds=report["seconds"],
    )
