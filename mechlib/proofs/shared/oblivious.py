"""Oblivious mechanisms suffice (GRS Proposition 6.1, GS Appendix A), on exact instances.

Databases are rows in D = {0,1}^n, neighbours differ in one row, the query counts the 1s. A
non-oblivious mechanism: randomized response on each row with its own flip probability, then
the count of the noisy rows. Averaging it over databases with the same count gives an oblivious
mechanism that is as private (α-DP on the count path) and, for every user with side information
S and a legal loss, no worse in the worst case (an average is at most the maximum).
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss
from mechlib.core.privacy import dp_level
from mechlib.core.users import MinimaxUser, absolute_loss, binary_loss, squared_loss
from mechlib.proofs.registry import Outcome, Record, decide


def rowwise_randomized_response(flips: list[Fraction]) -> Mechanism:
    """Row k is flipped with probability flips[k]; output = number of 1s after flipping.
    Inputs are the databases (tuples), neighbours differ in one row."""
    n = len(flips)
    databases = list(product((0, 1), repeat=n))
    rows = []
    for d in databases:
        dist = [Fraction(1)]  # distribution of the noisy count, row by row
        for bit, flip in zip(d, flips):
            one = 1 - flip if bit else flip
            nxt = [Fraction(0)] * (len(dist) + 1)
            for c, p in enumerate(dist):
                nxt[c] += p * (1 - one)
                nxt[c + 1] += p * one
            dist = nxt
        rows.append(dist)
    neighbours = [(d, e) for d in databases for e in databases if d < e and sum(x != y for x, y in zip(d, e)) == 1]
    return Mechanism(rows, inputs=databases, neighbours=neighbours)


def averaged(x: Mechanism) -> Mechanism:
    """X̄[i] = the mean of X[d] over the databases d with count i (GRS §6)."""
    n = len(x.inputs[0])
    rows = []
    for i in range(n + 1):
        group = [row for d, row in zip(x.inputs, x.rows) if sum(d) == i]
        rows.append([sum(col, Fraction(0)) / len(group) for col in zip(*group)])
    return Mechanism(rows)


def _worst_case(x: Mechanism, user: MinimaxUser) -> Fraction:
    """max over databases with count in S of the expected loss at face value."""
    loss = user.loss.matrix
    return max(
        sum((p * loss[sum(d)][j] for j, p in enumerate(row)), Fraction(0))
        for d, row in zip(x.inputs, x.rows)
        if sum(d) in user.side_information
    )


def random_database_mechanism(n: int, rng: random.Random) -> Mechanism:
    """A random strictly positive mechanism on the databases {0,1}^n with outputs 0..n: its own
    DP level (whatever it is) and no symmetry — neither oblivious nor built from per-row noise."""
    databases = list(product((0, 1), repeat=n))
    rows = []
    for _ in databases:
        weights = [rng.randint(1, 12) for _ in range(n + 1)]
        rows.append([Fraction(w, sum(weights)) for w in weights])
    neighbours = [(d, e) for d in databases for e in databases if d < e and sum(x != y for x, y in zip(d, e)) == 1]
    return Mechanism(rows, inputs=databases, neighbours=neighbours)


#: Random mechanisms on databases beside the row-wise randomized responses (seeded).
RANDOM_MECHANISMS = 24


def _database_mechanisms() -> list[tuple[str, str, Mechanism]]:
    """(kind, name, mechanism) of each mechanism on databases checked."""
    rowwise = "row-wise randomized response"
    named = [
        (rowwise, f"row-wise RR {[format_fraction(f) for f in flips]}", rowwise_randomized_response(flips))
        for flips in (
            [Fraction(1, 3), Fraction(1, 4), Fraction(2, 5)],
            [Fraction(1, 5), Fraction(1, 3)],
            [Fraction(1, 4)] * 3,
        )
    ]
    rng = random.Random(61)
    kind = "seeded random mechanism"
    named += [(kind, f"random #{k}", random_database_mechanism(2 + k % 2, rng)) for k in range(RANDOM_MECHANISMS)]
    return named


def oblivious_suffices() -> Outcome:
    """Every mechanism X on databases (three row-wise randomized responses and seeded random
    positive matrices, n ∈ {2, 3}): X̄ is at least as private as X on the count path (DP level
    compared exactly) and no worse for any minimax user (side information S, legal loss)."""
    failures: list[dict[str, Any]] = []
    cases = 0
    mechanisms = _database_mechanisms()
    record = Record()
    for kind, name, x in mechanisms:
        alpha = dp_level(x).alpha
        bar = averaged(x)
        n = len(x.inputs[0])
        if dp_level(bar).alpha < alpha:
            failures.append({"mechanism": name, "problem": "the average is less private"})
        for loss in (absolute_loss(n), squared_loss(n), binary_loss(n)):
            for side in (range(n + 1), [0], [n], [1, n]):
                user = MinimaxUser(side, loss)
                cases += 1
                if expected_loss(bar, user) > _worst_case(x, user):
                    failures.append({"mechanism": name, "S": list(side)})
        record.ran(n, alpha, kind)
    evidence = {
        "mechanisms": len(mechanisms),
        "user cases": cases,
        "mechanism": f"row-wise randomized response (3) and seeded random positive matrices ({RANDOM_MECHANISMS})",
    }
    method = f"exact rationals: the average X̄'s DP level and its loss for {cases} minimax users in all"
    return record.outcome(decide(failures, evidence), method)
