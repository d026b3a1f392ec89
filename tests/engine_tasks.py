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


#: Module state a task may change: a forked task's change must not reach the next task.
STATE = {"touched": 0}


def touch() -> int:
    STATE["touched"] += 1
    return STATE["touched"]


def noisy(x: int) -> int:
    print("a check that prints to stdout", flush=True)
    os.write(1, b"and writes to fd 1 directly\n")
    return x + 1


def process_id() -> int:
    return os.getpid()


def imported(name: str) -> bool:
    """Whether ``name`` was imported before this task ran (in the process it was forked from)."""
    import sys

    return name in sys.modules


def write_pid_and_wait(path: str, pause: float) -> None:
    """Leave this process's id in ``path``, then run ``pause`` seconds."""
    with open(path, "w") as out:
        out.write(str(os.getpid()))
    time.sleep(pause)
