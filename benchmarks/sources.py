"""Mechanisms the command benchmarks audit as ``benchmarks.sources:NAME`` (a module:function
source, as a user would give one): ``t_N`` is T at α = 1/2 on 0..N, ``rr_N`` randomized response
at α = 1/3 on 0..N, ``exp_N`` the exponential mechanism with base 1/2 on 0..N, ``random_N`` a dense random
mechanism on 0..N (row i: integer weights 1..50 drawn from ``random.Random(i)``, over their sum; the functions are
made on first use: any N)."""

from __future__ import annotations

from collections.abc import Callable

from mechlib import Mechanism, exponential, randomized_response, truncated_geometric


def dense_random(n: int) -> Mechanism:
    """n + 1 rows of n + 1 random weights in 1..50 over their sum (row i drawn from ``random.Random(i)``),
    built from integers: no Fraction per cell."""
    import random

    num = [[rng.randint(1, 50) for _ in range(n + 1)] for rng in map(random.Random, range(n + 1))]
    return Mechanism.from_scaled(num, [sum(row) for row in num])


FAMILIES: dict[str, Callable[[int], Mechanism]] = {
    "t": lambda n: truncated_geometric("1/2", n),
    "rr": lambda n: randomized_response("1/3", n + 1),
    "exp": lambda n: exponential("1/2", n),
    "random": dense_random,
}


def __getattr__(name: str) -> Callable[[], Mechanism]:
    family, _, size = name.partition("_")
    if family not in FAMILIES or not size.isdigit():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    build, n = FAMILIES[family], int(size)

    def source() -> Mechanism:
        return build(n)

    source.__name__ = name
    return source
