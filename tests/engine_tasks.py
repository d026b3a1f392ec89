"""Tiny engine tasks for the tests (imported by workers and child processes by name)."""

from __future__ import annotations

import os
import time


def square(x: int, pause: float = 0.0) -> int:
    time.sleep(pause)
    return x * x


def crash() -> None:
    os._exit(3)


def boom() -> None:
    raise ValueError("boom")


def environment(name: str) -> str | None:
    return os.environ.get(name)
