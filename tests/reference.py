"""Independent, obviously-correct reference computations (plain Fraction loops) to test against."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from mechlib import BayesUser, Mechanism


def dp_level_reference(x: Mechanism) -> Fraction:
    """min over neighbours and outputs of min(u, v)/max(u, v); 0/0 = 1 (GRS §2.1)."""
    best = Fraction(1)
    rows = x.rows
    for a, b in x.neighbour_positions:
        for u, v in zip(rows[a], rows[b]):
            if u == v == 0:
                continue
            best = min(best, min(u, v) / max(u, v))
    return best


def matmul(a: tuple[tuple[Fraction, ...], ...], b: tuple[tuple[Fraction, ...], ...]) -> list[list[Fraction]]:
    return [
        [sum((a[i][k] * b[k][j] for k in range(len(b))), Fraction(0)) for j in range(len(b[0]))] for i in range(len(a))
    ]


def best_deterministic_loss(x: Mechanism, user: BayesUser) -> Fraction:
    """The smallest Bayes loss over all deterministic remaps, by enumeration."""
    n, p, loss = user.n, user.prior.probabilities, user.loss.matrix
    best = None
    for images in product(range(n + 1), repeat=len(x.outputs)):
        value = sum(
            (p[i] * x.rows[i][r] * loss[i][images[r]] for i in range(n + 1) for r in range(len(x.outputs))),
            Fraction(0),
        )
        best = value if best is None else min(best, value)
    assert best is not None
    return best
