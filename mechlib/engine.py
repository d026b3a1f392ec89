"""The engine every independent job runs on: ``dask.distributed``.

``mechlib verify``, ``verify --mutants`` and ``mechlib sweep`` turn their work into :class:`Task`
objects — a function named ``module:function`` and its keyword arguments — and hand them to a
Dask cluster: by default an in-process ``LocalCluster`` sized to the machine (nothing to start),
or an existing one given by ``--scheduler ADDRESS`` / ``MECHLIB_SCHEDULER``.

**Timeouts.** A task with a timeout runs its function in a child Python process that the Dask
task waits on and kills when the time is up; the task then returns "timed out" (UNKNOWN for a
claim) and the worker goes on with its next task. We chose a child process over restarting the
worker because a solver call (z3, cvc5) cannot be interrupted inside a worker thread, and a
restarted worker loses whatever else it holds and counts as a failure of its tasks to the
scheduler. The child is a plain ``subprocess`` (not ``multiprocessing``), so it works on any
worker, daemonic or not. A task without a timeout runs in the worker's thread.

**Lost workers.** Dask reruns a task whose worker died; results are collected by task key, so a
task that ran twice is counted once.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mechlib.errors import InputError

#: Where ``--scheduler`` falls back to.
SCHEDULER_ENV = "MECHLIB_SCHEDULER"
#: How a task that the engine could not run (its process died, it raised) is reported — unlike a
#: timeout, not an answer of the check: a mutant that meets it is not killed.
ENGINE_FAILURE = "engine: "


@dataclass(frozen=True)
class Task:
    """One independent job: ``function`` (``module:function``) called with ``kwargs``.

    ``key`` names it uniquely (results are collected by key); ``timeout`` (seconds, None: no
    limit) makes it run in a child process that is killed when the time is up; ``env`` is set in
    that child only."""

    key: str
    function: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskResult:
    """What a task gave: ``value`` if ``ok``, else ``reason`` (timed out, the child died, an
    exception); ``seconds`` is the task's own wall time."""

    key: str
    ok: bool
    value: Any = None
    reason: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    @property
    def unknown_reason(self) -> str:
        """Why a failed task has no answer: its time limit ("timed out after …", a verdict of
        UNKNOWN), or ``ENGINE_FAILURE`` and what went wrong (the process died, it raised)."""
        return self.reason if self.timed_out else ENGINE_FAILURE + self.reason


def resolve(spec: str) -> Callable[..., Any]:
    module, _, name = spec.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


def run_task(task: Task) -> TaskResult:
    """Run one task where it is (a Dask worker, or this process), in a child when it has a timeout
    or its own environment."""
    start = time.perf_counter()

    def finished(ok: bool, value: Any = None, reason: str = "", timed_out: bool = False) -> TaskResult:
        return TaskResult(task.key, ok, value, reason, time.perf_counter() - start, timed_out)

    if task.timeout is None and not task.env:
        try:
            return finished(True, resolve(task.function)(**task.kwargs))
        except Exception as err:  # reported as the task's failure, never lost
            return finished(False, reason=f"{type(err).__name__}: {err}")
    child = subprocess.Popen(
        [sys.executable, "-m", "mechlib.engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **task.env},
    )
    try:
        out, errors = child.communicate(pickle.dumps((task.function, task.kwargs)), timeout=task.timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return finished(False, reason=f"timed out after {task.timeout:g} s", timed_out=True)
    if child.returncode != 0 or not out:
        last = (errors.decode(errors="replace").strip().splitlines() or [""])[-1]
        return finished(False, reason=f"the task's process died (exit code {child.returncode}) {last}".strip())
    ok, value = pickle.loads(out)
    return finished(ok, value if ok else None, "" if ok else str(value))


def _child_main() -> None:
    """The child's side: read (function, kwargs) from stdin, write (ok, value or reason) to stdout."""
    function, kwargs = pickle.loads(sys.stdin.buffer.read())
    try:
        answer: tuple[bool, Any] = (True, resolve(function)(**kwargs))
    except Exception as err:  # sent back as the task's failure
        answer = (False, f"{type(err).__name__}: {err}")
    sys.stdout.buffer.write(pickle.dumps(answer))
    sys.stdout.buffer.flush()


@contextmanager
def cluster(jobs: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: connected to ``scheduler`` (or ``$MECHLIB_SCHEDULER``), else to a
    new ``LocalCluster`` of ``jobs`` single-threaded worker processes (default: the cores)."""
    import logging

    import dask
    from distributed import Client, LocalCluster

    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    quiet = {"distributed.logging.distributed": "error", "distributed.worker.daemon": False}
    with dask.config.set(quiet):
        if address is not None:
            try:
                client = Client(address, timeout="20s")
            except OSError as err:
                raise InputError(
                    f"cannot reach the Dask scheduler at {address}: {err}",
                    field="--scheduler",
                    hint="start one with `dask scheduler`, or leave --scheduler out for a local cluster",
                ) from None
            try:
                yield client
            finally:
                client.close()
            return
        workers = max(1, jobs or os.cpu_count() or 1)
        local = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: never the warning that 8787 is taken
            silence_logs=logging.ERROR,
        )
        client = Client(local)
        try:
            yield client
        finally:
            client.close()
            local.close()


def run_all(
    tasks: Sequence[Task],
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    done: Callable[[TaskResult], None] | None = None,
) -> dict[str, TaskResult]:
    """Every task on the cluster (see :func:`cluster`), results by key as they finish (``done``
    is called once per task, in completion order)."""
    from distributed import as_completed

    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    results: dict[str, TaskResult] = {}
    if not tasks:
        return results
    with cluster(jobs, scheduler) as client:
        futures = [client.submit(run_task, t, key=f"mechlib-{t.key}", pure=False, retries=1) for t in tasks]
        for future in as_completed(futures):
            result: TaskResult = future.result()
            if result.key in results:  # a rerun after a lost worker: counted once
                continue
            results[result.key] = result
            if done is not None:
                done(result)
    return results


if __name__ == "__main__":
    _child_main()
