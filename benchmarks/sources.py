"""Mechanisms the command benchmarks audit as ``benchmarks.sources:NAME`` (a module:function
source, as a user would give one): ``t_N`` is T at α = 1/2 on 0..N, ``rr_N`` randomized response
at α = 1/3 on 0..N, ``exp_N`` the exponential mechanism with base 1/2 on 0..N (the functions are made
on first use: any N)."""

from __future__ import annotations

from collections.abc import Callable

from mechlib import Mechanism, exponential, randomized_response, truncated_geometric

FAMILIES: dict[str, Callable[[int], Mechanism]] = {
    "t": lambda n: truncated_geometric("1/2", n),
    "rr": lambda n: randomized_response("1/3", n + 1),
    "exp": lambda n: exponential("1/2", n),
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
