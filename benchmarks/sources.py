"""Mechanisms the command benchmarks audit as ``benchmarks.sources:NAME`` (a module:function
source, as a user would give one)."""

from __future__ import annotations

from mechlib import Mechanism, randomized_response, truncated_geometric


def t_30() -> Mechanism:
    return truncated_geometric("1/2", 30)


def t_100() -> Mechanism:
    return truncated_geometric("1/2", 100)


def t_400() -> Mechanism:
    return truncated_geometric("1/2", 400)


def t_1000() -> Mechanism:
    return truncated_geometric("1/2", 1000)


def rr_30() -> Mechanism:
    return randomized_response("1/3", 31)


def rr_100() -> Mechanism:
    return randomized_response("1/3", 101)
