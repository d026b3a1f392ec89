"""Independent re-check of an Example 1 bracket certificate (SY Example 1, :mod:`mechlib.infodesign.cell_lp`).

Shares nothing with the producer but the certificate's data model: it rebuilds the multinomial
prior over histograms, the adjacency and the retraction itself, and re-verifies in rationals

1. E_lo < e^ε < E_hi (arb);
2. the mechanism: each box row is a distribution; x(r(h), s) ≤ E_lo·x(r(h′), s) for every
   pair of histograms one household apart, over all C(N+2, 2) histograms — so x∘r is ε-DP;
3. upper ≥ its loss Σ_s Var(ω | s)·P(s) with posterior-mean actions;
4. the duals y ≥ 0 sit on box edges, and lower ≤ Σ_{c∈box} min_g [π(c)(ω(c) − g)² + (Aᵀy_g)(c)]
   − (h²/4)·π(box) over the grid g = 0, h, …, ω_max(box) (the weak-duality bound).

A certificate is a JSON object, schema ``mechlib.bracket/1``; any tampered number fails a check.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial
from typing import Any

import flint

from mechlib.checkers.numbers import exact
from mechlib.schemas import precheck

SCHEMA = "mechlib.bracket/1"


def _f(text: Any) -> Fraction:
    return exact(text)  # within the digit and exponent limits


def check_certificate(cert: dict[str, Any]) -> list[str]:
    """The list of failed checks (empty: the certificate holds); a malformed certificate is one
    failure naming the problem, never an exception."""
    wrong = precheck(cert, SCHEMA, "certificate")
    if wrong:
        return wrong
    try:
        return _check(cert)
    except (KeyError, TypeError, IndexError, ValueError, ZeroDivisionError, AttributeError) as err:
        return [f"malformed certificate: {type(err).__name__}: {err}"]


def _check(cert: dict[str, Any]) -> list[str]:
    failures: list[str] = []
    n = int(cert["households"])
    p0, p1, p2 = (_f(p) for p in cert["type_probabilities"])
    eps, lo, hi = _f(cert["epsilon"]), _f(cert["factor_lo"]), _f(cert["factor_hi"])
    a_max, b_max = (int(v) for v in cert["box"])
    if a_max + b_max > n:  # every box cell must be a histogram of n households (the schema: a, b ≥ 0)
        return [
            f"malformed certificate: box: ({a_max}, {b_max}) holds a cell of {a_max + b_max} households, "
            f"households is {n} (expected a box [a, b] with a + b ≤ households)"
        ]
    step = _f(cert["grid_step"])

    flint.ctx.prec = 256
    e = flint.arb(flint.fmpq(eps.numerator, eps.denominator)).exp()
    if (
        not flint.arb(flint.fmpq(lo.numerator, lo.denominator))
        < e
        < flint.arb(flint.fmpq(hi.numerator, hi.denominator))
    ):
        failures.append("factor_lo < e^epsilon < factor_hi does not hold")

    cells = [(n1, n2) for n1 in range(n + 1) for n2 in range(n + 1 - n1)]
    prior = {
        (n1, n2): Fraction(factorial(n), factorial(n - n1 - n2) * factorial(n1) * factorial(n2))
        * p0 ** (n - n1 - n2)
        * p1**n1
        * p2**n2
        for n1, n2 in cells
    }
    if p0 + p1 + p2 != 1 or min(p0, p1, p2) < 0:
        failures.append("type_probabilities are not a distribution")

    def retract(c: tuple[int, int]) -> tuple[int, int]:
        return min(c[0], a_max), min(c[1], b_max)

    mech = {
        tuple(int(v) for v in key.split(",")): {int(s): _f(x) for s, x in row.items()}
        for key, row in cert["mechanism"].items()
    }
    box = [(n1, n2) for n1 in range(a_max + 1) for n2 in range(b_max + 1)]
    if sorted(mech) != box:
        failures.append("the mechanism does not have exactly one row per box cell")
        return failures
    outputs = sorted({s for row in mech.values() for s in row})
    for c, row in mech.items():
        if sum(row.values()) != 1 or min(row.values()) < 0:
            failures.append(f"mechanism row {c} is not a distribution")
    steps = ((1, 0), (0, 1), (1, -1))
    for c in cells:
        for d in steps:
            other = (c[0] + d[0], c[1] + d[1])
            if other not in prior:
                continue
            here, there = mech[retract(c)], mech[retract(other)]
            for s in outputs:
                xs, ys = here.get(s, Fraction(0)), there.get(s, Fraction(0))
                if xs > lo * ys or ys > lo * xs:
                    failures.append(f"not DP between histograms {c} and {other} at output {s}")
                    break

    s0: dict[int, Fraction] = {}
    s1: dict[int, Fraction] = {}
    s2: dict[int, Fraction] = {}
    for c, p in prior.items():
        w = c[0] + 2 * c[1]
        for s, x in mech[retract(c)].items():
            q = p * x
            s0[s] = s0.get(s, Fraction(0)) + q
            s1[s] = s1.get(s, Fraction(0)) + q * w
            s2[s] = s2.get(s, Fraction(0)) + q * w * w
    upper = sum((s2[s] - s1[s] ** 2 / s0[s] for s in s0 if s0[s] > 0), Fraction(0))
    if upper > _f(cert["upper"]):
        failures.append("the mechanism's loss exceeds the claimed upper bound")

    top = max(a + 2 * b for a, b in box)
    points = [step * i for i in range(int(top / step) + 1)]
    if points[-1] != top:
        points.append(Fraction(top))
    adjust: dict[tuple[tuple[int, int], int], Fraction] = {}
    moves = {d for a, b in steps for d in ((a, b), (-a, -b))}
    for u1, u2, v1, v2, k, value in cert["duals"]:
        u, v, k, y = (int(u1), int(u2)), (int(v1), int(v2)), int(k), _f(value)
        if (
            y < 0
            or u not in mech
            or v not in mech
            or (v[0] - u[0], v[1] - u[1]) not in moves
            or not 0 <= k < len(points)
        ):
            failures.append(f"dual {u}->{v} at grid point {k} is not a nonnegative dual of a box edge")
            continue
        adjust[(u, k)] = adjust.get((u, k), Fraction(0)) + y
        adjust[(v, k)] = adjust.get((v, k), Fraction(0)) - hi * y
    lower = Fraction(0)
    for c in box:
        w = c[0] + 2 * c[1]
        lower += min(prior[c] * (w - g) ** 2 + adjust.get((c, k), Fraction(0)) for k, g in enumerate(points))
    lower -= step * step / 4 * sum(prior[c] for c in box)
    if lower < _f(cert["lower"]):
        failures.append("the dual bound is below the claimed lower bound")
    return failures
