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


def t_250() -> Mechanism:
    return truncated_geometric("1/2", 250)


def t_500() -> Mechanism:
    return truncated_geometric("1/2", 500)


def t_2000() -> Mechanism:
    return truncated_geometric("1/2", 2000)


def rr_500() -> Mechanism:
    return randomized_response("1/3", 501)


def rr_1000() -> Mechanism:
    return randomized_response("1/3", 1001)
