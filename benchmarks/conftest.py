"""The benchmarks' one way of measuring (pytest-benchmark), so that ours and its baseline are
timed alike: the same rounds (a warm-up round first when there are five), one call per round;
min/median/max kept.

``MECHLIB_BENCH_QUICK=1`` (``python -m benchmarks --quick``) shrinks every size and runs one round:
a smoke run of the benchmark code, not a measurement.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

QUICK = os.environ.get("MECHLIB_BENCH_QUICK") == "1"
#: Rounds of a light benchmark and of one taking tens of seconds a round.
ROUNDS, HEAVY_ROUNDS = (1, 1) if QUICK else (5, 3)


def size(full: int, quick: int) -> int:
    """The size measured: ``full`` normally, ``quick`` in a smoke run."""
    return quick if QUICK else full


class Measure:
    """``measure(func, role=…, n=…, target=…)`` times ``func`` with pytest-benchmark and records
    what the report needs beside its statistics: ``role`` ("mechlib", "baseline: <what>" or
    "contrast"), ``n``, ``target`` (a bound on the median seconds), ``min_speedup`` (a bound on
    baseline ÷ ours); ``measure.note(text)`` adds what the run found (a count, a frontier)."""

    def __init__(self, benchmark: Any) -> None:
        self.benchmark = benchmark

    def __call__(self, func: Callable[[], Any], *, role: str, n: int, rounds: int = ROUNDS, **info: Any) -> Any:
        self.benchmark.extra_info.update(role=role, n=n, rounds=rounds, **info)
        warmup = 1 if rounds >= 5 else 0
        return self.benchmark.pedantic(func, rounds=rounds, iterations=1, warmup_rounds=warmup)

    def note(self, text: str) -> None:
        self.benchmark.extra_info["note"] = text

    def miss(self, reason: str) -> None:
        """The run did not do what it is timed for (an UNKNOWN finding): its target is missed."""
        self.benchmark.extra_info["miss"] = reason

    def table(self, title: str, header: list[str], rows: list[list[str]]) -> None:
        """A table of what the run found (detections per case), printed in the report after the notes."""
        self.benchmark.extra_info["table"] = {"title": title, "header": header, "rows": rows}


@pytest.fixture
def measure(benchmark: Any) -> Measure:
    return Measure(benchmark)


#: pytest-benchmark's commit info, taken when the run starts.
_COMMIT_AT_START = pytest.StashKey[dict[str, Any]]()


def pytest_configure(config: pytest.Config) -> None:
    """Note the commit checked out when the run starts: its code is what the run imports and measures."""
    from pytest_benchmark.utils import get_commit_info

    project = config.getoption("benchmark_project_name", None)
    config.stash[_COMMIT_AT_START] = get_commit_info(project)  # type: ignore[no-untyped-call]  # untyped library


def pytest_benchmark_generate_commit_info(config: pytest.Config) -> dict[str, Any]:
    """The rows' commit is the one at the start: pytest-benchmark asks at the end, so a commit made
    during a long run used to label rows measured on the code before it."""
    return config.stash[_COMMIT_AT_START]
