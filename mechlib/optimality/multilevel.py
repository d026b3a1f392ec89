"""Collusion-resistant release at several privacy levels (GS §4.1: Lemma 3, Algorithm 1).

For α_1 < … < α_k, release r_1 ~ G_{α_1}(count) and r_{i+1} ~ T_{α_i,α_{i+1}}(r_i), where
T_{α,β} = G_α⁻¹G_β is stochastic (GS Lemma 3). Each r_i alone is exactly α_i-geometric, and
any colluding set C sees a joint release that is α_min(C)-DP (GS Theorem 1(a)).
Sampling is exact: a row is integers over one denominator D, so one ``randrange(D)`` picks an
output with exactly the right probability (no float rounding).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import pairwise, product

from mechlib.core.exact import format_fraction, parse_probability
from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import StochasticMatrix
from mechlib.errors import InputError
from mechlib.optimality.derivability import t_alpha_beta


def _levels(alphas: Sequence[object]) -> list[Fraction]:
    levels = [parse_probability(a) for a in alphas]
    if not levels or any(b <= a for a, b in pairwise(levels)):
        raise InputError(
            f"alphas={[format_fraction(a) for a in levels]}", hint="expected strictly increasing α_1 < … < α_k"
        )
    return levels


def release_chain(n: int, alphas: Sequence[object]) -> tuple[Mechanism, list[Remap]]:
    """G_{α_1} and the remaps T_{α_i, α_{i+1}} of Algorithm 1."""
    levels = _levels(alphas)
    steps = [t_alpha_beta(a, b, n) for a, b in pairwise(levels)]
    return truncated_geometric(levels[0], n), steps


def sample_row(matrix: StochasticMatrix, position: int, rng: random.Random) -> int:
    """An output position drawn exactly from row ``position``."""
    num, den = matrix.scaled()
    draw = rng.randrange(den[position])
    for k, weight in enumerate(num[position]):
        draw -= weight
        if draw < 0:
            return k
    raise AssertionError("row does not sum to its denominator")  # impossible: rows are validated


def multilevel_release(count: int, alphas: Sequence[object], n: int, rng: random.Random) -> list[int]:
    """GS Algorithm 1: one release r_i per level α_i (r_1 the least private), exactly sampled."""
    if not 0 <= count <= n:
        raise InputError(f"count={count}", hint=f"expected a count in 0..{n}")
    first, steps = release_chain(n, alphas)
    released = [sample_row(first, count, rng)]
    for step in steps:
        released.append(sample_row(step, released[-1], rng))
    return released


def joint_release(n: int, alphas: Sequence[object], levels: Sequence[int]) -> Mechanism:
    """The exact joint distribution of (r_i)_{i ∈ levels} given the count, as a mechanism whose
    outputs are tuples (small n and k only: (n+1)^k outputs)."""
    first, steps = release_chain(n, alphas)
    k = len(steps) + 1
    chosen = sorted(set(levels))
    if not chosen or chosen[0] < 0 or chosen[-1] >= k:
        raise InputError(f"levels={list(levels)}", hint=f"expected indices in 0..{k - 1}")
    outputs = list(product(range(n + 1), repeat=len(chosen)))
    position = {o: p for p, o in enumerate(outputs)}
    rows = []
    for count in range(n + 1):
        joint = [Fraction(0)] * len(outputs)
        for path in product(range(n + 1), repeat=k):
            p = first.rows[count][path[0]]
            for step, (a, b) in zip(steps, pairwise(path)):
                if not p:
                    break
                p *= step.rows[a][b]
            if p:
                joint[position[tuple(path[i] for i in chosen)]] += p
        rows.append(joint)
    return Mechanism(rows, outputs=outputs)
