"""The engine every independent job runs on: ``dask.distributed``.

``mechlib verify``, ``verify --mutants`` and ``mechlib sweep`` turn their work into :class:`Task`
objects — a function named ``module:function`` and its keyword arguments — and hand them to a
Dask cluster: by default an in-process ``LocalCluster`` sized to the machine (nothing to start),
or an existing one given by ``--scheduler ADDRESS``, else ``MECHLIB_SCHEDULER``, else Dask's own
``scheduler-address`` (``DASK_SCHEDULER_ADDRESS``, a Dask configuration file). The address is
checked syntactically before anything runs (:func:`check_address`), and connecting gives up after
``--connect-timeout`` seconds (default 10) with one line.

**Timeouts.** A task with a timeout runs its function in a child Python process that the Dask
task waits on and kills when the time is up; the task then returns "timed out" (UNKNOWN for a
claim) and the worker goes on with its next task. We chose a child process over restarting the
worker because a solver call (z3, cvc5) cannot be interrupted inside a worker thread, and a
restarted worker loses whatever else it holds and counts as a failure of its tasks to the
scheduler. The child is forked from a warm process that has the imports done
(:mod:`mechlib.forking`; a plain ``subprocess`` per task where there is no ``fork``), not made by
``multiprocessing``, so it works on any worker, daemonic or not; a task with its own environment
runs in such a child too. A task with neither runs in the worker's thread.

**Lost workers.** Dask reruns a task whose worker died; results are collected by task key, so a
task that ran twice is counted once. With no live worker at all for ``--worker-grace`` seconds
(default 30) the run warns; as long again, and the unfinished tasks are given up — each a failed
task, "no live workers" — and what finished is kept (``mechlib`` exits 3: undecided).
"""

from __future__ import annotations

import importlib
import ipaddress
import os
import pickle
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from mechlib import forking
from mechlib.errors import InputError

#: Where ``--scheduler`` falls back to.
SCHEDULER_ENV = "MECHLIB_SCHEDULER"
#: The longest time limit a task takes, in seconds (a week): ``--timeout``, a sweep's ``timeout``.
MAX_TIMEOUT = 7 * 24 * 3600
#: How a task that the engine could not run (its process died, it raised) is reported — unlike a
#: timeout, not an answer of the check: a mutant that meets it is not killed.
ENGINE_FAILURE = "engine: "


@dataclass(frozen=True)
class Task:
    """One independent job: ``function`` (``module:function``) called with ``kwargs``.

    ``key`` names it uniquely (results are collected by key); ``timeout`` (seconds, None: no
    limit) makes it run in a child process that is killed when the time is up; ``env`` is set in
    that child only; ``preload``: modules the function imports when it runs, imported once by the
    warm process its child is forked from (:mod:`mechlib.forking`), so that tasks do not each pay
    for them."""

    key: str
    function: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    env: dict[str, str] = field(default_factory=dict)
    preload: tuple[str, ...] = ()


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
    if forking.AVAILABLE:
        kind, value = _warm_process(task.env).run(task.function, task.kwargs, task.timeout, task.preload)
    else:
        kind, value = _fresh_process(task)
    if kind == "timeout":
        return finished(False, reason=f"timed out after {task.timeout:g} s", timed_out=True)
    if kind == "died":
        return finished(False, reason=str(value))
    ok, answer = value
    return finished(ok, answer if ok else None, "" if ok else str(answer))


def _fresh_process(task: Task) -> tuple[str, Any]:
    """The task in a new ``python -m mechlib.engine`` (where there is no ``fork``), answered as a
    warm process answers (:meth:`mechlib.forking.WarmProcess.run`)."""
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
        return "timeout", None
    if child.returncode != 0 or not out:
        last = (errors.decode(errors="replace").strip().splitlines() or [""])[-1]
        return "died", f"the task's process died (exit code {child.returncode}) {last}".strip()
    return "ok", pickle.loads(out)


_WARM = threading.local()


def _warm_process(env: dict[str, str]) -> forking.WarmProcess:
    """This thread's warm process for tasks with ``env`` (a new one if it died)."""
    processes: dict[tuple[tuple[str, str], ...], forking.WarmProcess] = _WARM.__dict__.setdefault("processes", {})
    key = tuple(sorted(env.items()))
    if key not in processes or not processes[key].alive():
        if key in processes:
            processes[key].close()
        processes[key] = forking.WarmProcess({**os.environ, **env})
    return processes[key]


def _child_main() -> None:
    """The child's side: read (function, kwargs) from stdin, write (ok, value or reason) to stdout."""
    function, kwargs = pickle.loads(sys.stdin.buffer.read())
    try:
        answer: tuple[bool, Any] = (True, resolve(function)(**kwargs))
    except Exception as err:  # sent back as the task's failure
        answer = (False, f"{type(err).__name__}: {err}")
    sys.stdout.buffer.write(pickle.dumps(answer))
    sys.stdout.buffer.flush()


#: Schemes of ``distributed`` addresses mechlib connects to (``distributed.comm``).
SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


@dataclass(frozen=True)
class EngineOptions:
    """How the engine waits: ``connect_timeout`` seconds to reach a scheduler, and ``worker_grace``
    seconds without a live worker before a warning — and as many again before the unfinished
    tasks are given up (each a failed task: "no live workers")."""

    connect_timeout: float = 10.0
    worker_grace: float = 30.0


#: What :func:`cluster` and :func:`run_all` use (``mechlib``'s ``--connect-timeout`` and
#: ``--worker-grace`` set it with :func:`options`).
OPTIONS = EngineOptions()


class options:
    """The engine's :class:`EngineOptions` changed for the duration of a ``with`` block (a class, not a
    generator: an exception passes through it untouched)."""

    def __init__(self, **changes: float) -> None:
        self.changes = changes

    def __enter__(self) -> EngineOptions:
        global OPTIONS
        self.before = OPTIONS
        OPTIONS = replace(OPTIONS, **self.changes)
        return OPTIONS

    def __exit__(self, *exc: object) -> None:
        global OPTIONS
        OPTIONS = self.before


def scheduler_address(given: str | None = None) -> str | None:
    """The scheduler to use: ``given`` (``--scheduler``), else ``$MECHLIB_SCHEDULER``, else Dask's own
    ``scheduler-address`` (``DASK_SCHEDULER_ADDRESS`` or a Dask configuration file), else None (a
    local cluster) — checked by :func:`check_address` before anything connects."""
    if given is not None:
        return check_address(given, "--scheduler")
    if os.environ.get(SCHEDULER_ENV):
        return check_address(os.environ[SCHEDULER_ENV], f"${SCHEDULER_ENV}")
    import dask

    configured = dask.config.get("scheduler-address", None)
    if configured:
        return check_address(str(configured), "Dask's scheduler-address (DASK_SCHEDULER_ADDRESS)")
    return None


def check_address(address: str, where: str = "--scheduler") -> str:
    """``address`` if it is a well-formed ``distributed`` address — ``[SCHEME://]HOST[:PORT]`` with a
    scheme of :data:`SCHEMES`, a host name, IPv4 or bracketed IPv6 address and a port in 1..65535 —
    and, for ``tls://``, Dask has certificates configured; else an :class:`InputError` (exit 2)."""
    hint = "expected [tcp|tls|ucx|ws|wss]://HOST:PORT, e.g. tcp://10.0.0.5:8786 or tcp://[::1]:8786"

    def bad(problem: str, fix: str = hint) -> InputError:
        return InputError(problem, field=where, hint=fix)

    if not address.strip():
        raise bad("is empty", "give a scheduler's address, or leave it out for a local cluster")
    if len(address) > 300:
        raise bad(f"is {len(address)} characters long")
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in SCHEMES:
        raise bad(f"unknown scheme {scheme!r}")
    if scheme == "inproc":
        if not rest:
            raise bad("inproc:// names no scheduler")
        return address
    if rest.startswith("["):
        host, bracket, tail = rest[1:].partition("]")
        if not bracket:
            raise bad(f"{address!r}: no ']' closes the IPv6 address")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise bad(f"{host!r} is not an IPv6 address") from None
        if tail and not tail.startswith(":"):
            raise bad(f"{address!r}: unexpected {tail!r} after the address")
        port = tail[1:] if tail else None
    else:
        host, colon, port_text = rest.partition(":")
        port = port_text if colon else None
        if not host or not all(_HOST_LABEL.fullmatch(label) for label in host.rstrip(".").split(".")):
            raise bad(f"{address!r}: {host!r} is not a host name or address")
    if port is not None and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise bad(f"{address!r}: port {port!r} is not in 1..65535")
    if scheme in ("tls", "wss"):
        import dask

        needed = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")
        missing = [key for key in needed if not dask.config.get(key, None)]
        if missing:
            raise bad(
                f"{scheme}:// needs certificates: {', '.join(missing)} not configured",
                "set them in Dask's configuration, e.g. DASK_DISTRIBUTED__COMM__TLS__CA_FILE and "
                "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT",
            )
    return address


def _probe(address: str, seconds: float) -> None:
    """For ``tcp://`` (the default scheme): open and close a plain TCP connection to the scheduler's
    port, raising OSError (refused, no such host, timed out) without Dask's retries."""
    scheme, sep, rest = address.partition("://")
    if sep and scheme != "tcp":
        return
    rest = rest if sep else address
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port = tail[1:]
    else:
        host, _, port = rest.partition(":")
    with socket.create_connection((host, int(port or DASK_PORT)), timeout=seconds):
        pass


def _connect(client_class: Any, address: str, seconds: float) -> Any:
    """``Client(address)``, given up after ``seconds``: a peer that accepts the connection and never
    answers the handshake holds Client() past its own timeout. The attempt runs in a daemon thread,
    which cannot keep the process alive."""
    import threading

    outcome: list[Any] = []

    def attempt() -> None:
        try:
            outcome.append(client_class(address, timeout=f"{seconds}s"))
        except BaseException as err:  # handed to the caller's thread
            outcome.append(err)

    thread = threading.Thread(target=attempt, name="mechlib-connect", daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        raise TimeoutError(f"no answer to Dask's handshake within {seconds:g} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


#: The port of a scheduler address without one (Dask's default).
DASK_PORT = 8786


@contextmanager
def cluster(jobs: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: connected to ``scheduler`` (see :func:`scheduler_address`: else
    ``$MECHLIB_SCHEDULER``, else Dask's configured address) within ``OPTIONS.connect_timeout``
    seconds, else to a new ``LocalCluster`` of ``jobs`` single-threaded worker processes (default:
    the cores)."""
    import logging

    import dask
    from distributed import Client, LocalCluster

    address = scheduler_address(scheduler)
    quiet = {"distributed.logging.distributed": "error", "distributed.worker.daemon": False}
    with dask.config.set(quiet):
        if address is not None:
            seconds = OPTIONS.connect_timeout
            try:
                _probe(address, seconds)  # a refused port or an unknown host at once: Dask retries until its timeout
                client = _connect(Client, address, seconds)
            except Exception as err:  # refused, unreachable, timed out, not a Dask scheduler
                problem = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
                if isinstance(err, OSError) and err.strerror:  # refused, no such host: without "[Errno …]"
                    problem = err.strerror
                if isinstance(err, MemoryError):  # it sent a frame length no Dask scheduler sends
                    problem = "what answers there is not a Dask scheduler"
                raise InputError(
                    f"cannot reach the Dask scheduler at {address}: {problem}",
                    field="--scheduler",
                    hint=f"start one with `dask scheduler`, raise --connect-timeout ({seconds:g} s), or leave "
                    "--scheduler out for a local cluster",
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
    warn: Callable[[str], None] | None = None,
) -> dict[str, TaskResult]:
    """Every task on the cluster (see :func:`cluster`), results by key as they finish (``done``
    is called once per task, in completion order). A task given up because no worker was alive
    (see :class:`EngineOptions`; ``warn`` gets the warnings, default: stderr) fails with the
    reason :data:`NO_WORKERS`."""

    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    results: dict[str, TaskResult] = {}
    if not tasks:
        return results
    with cluster(jobs, scheduler) as client:
        futures = [client.submit(run_task, t, key=f"mechlib-{t.key}", pure=False, retries=1) for t in tasks]
        _collect(client, futures, results, done, warn or _warn)
    for t in tasks:  # given up without a live worker: no answer
        if t.key not in results:
            results[t.key] = TaskResult(t.key, False, reason=NO_WORKERS)
            if done is not None:
                done(results[t.key])
    return results


#: The reason of a task given up because no worker was alive to run it.
NO_WORKERS = "no live workers"


def _warn(message: str) -> None:
    print(f"mechlib: warning: {message}", file=sys.stderr, flush=True)


def _collect(
    client: Any,
    futures: list[Any],
    results: dict[str, TaskResult],
    done: Callable[[TaskResult], None] | None,
    warn: Callable[[str], None],
) -> None:
    """Results as they finish, until every future has one — or until the cluster has had no live
    worker for twice ``OPTIONS.worker_grace`` seconds (warned after once): the rest are given up."""
    from distributed import as_completed

    grace = OPTIONS.worker_grace
    finished = as_completed(futures)
    alone_since: float | None = None
    checked = time.monotonic()
    warned = False
    while not finished.is_empty():
        batch = finished.next_batch(block=False)
        for future in batch:
            result: TaskResult = future.result()
            if result.key in results:  # a rerun after a lost worker: counted once
                continue
            results[result.key] = result
            if done is not None:
                done(result)
        now = time.monotonic()
        if batch:
            continue
        if now - checked < min(1.0, grace / 4):  # ask the scheduler about its workers now and then
            time.sleep(0.05)
            continue
        checked = now
        if client.nthreads():  # a live worker: wait on
            alone_since, warned = None, False
            continue
        alone_since = now if alone_since is None else alone_since
        left = [f for f in futures if not f.done()]
        if now - alone_since >= 2 * grace:
            warn(f"no live Dask workers for {2 * grace:g} s: {len(left)} task(s) given up, without an answer")
            client.cancel(left)
            return
        if now - alone_since >= grace and not warned:
            warn(f"no live Dask workers for {grace:g} s; giving up the {len(left)} unfinished task(s) in "
                 f"{grace:g} s unless a worker joins (--worker-grace)")  # fmt: skip
            warned = True


if __name__ == "__main__":
    _child_main()
