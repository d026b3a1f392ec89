"""Task children forked from a warm process: each task still runs alone in a process of its own
(killed at its time limit, its environment set, its global state gone when it ends), without
paying Python's start and the imports of z3, cvc5, sympy and flint every time.

A :class:`WarmProcess` is one child Python process per worker thread and task environment. It
reads requests ``(function, kwargs, timeout, preload)`` on its stdin; for each, it imports the
function's module and the modules the task names to preload (once: later tasks find them imported)
and ``os.fork()`` s a grandchild that runs the function
and writes its pickled answer to a pipe. The warm process waits on that pipe up to the timeout —
then kills the grandchild, "timed out" — and answers on its stdout. A grandchild's own output
(stdout and stderr) goes to a file, so a print in a check can never corrupt the answer and a long
run can never fill a pipe nobody reads; the last line of it is the reason when a grandchild dies.

A fork copies the warm process as it is between tasks — modules imported, nothing of a task run —
so a task sees what a fresh ``python -m`` would have after importing its module; a mutant that
patches a module patches only its own grandchild. Where ``os.fork`` does not exist (Windows) the
engine starts a fresh process per task instead (:data:`AVAILABLE`).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any, BinaryIO

#: Whether tasks can be forked from a warm process here.
AVAILABLE = hasattr(os, "fork")
#: Every warm process this process started (stopped at exit).
_STARTED: list[WarmProcess] = []
_LENGTH = struct.Struct(">Q")


def _send(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    """The next message, or None at end of stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    size = _LENGTH.unpack(head)[0]
    data = stream.read(size)
    return pickle.loads(data) if len(data) == size else None


@atexit.register
def _close_all() -> None:
    """At exit, the warm processes this process started are stopped, none left behind."""
    while _STARTED:
        _STARTED.pop().close()


class WarmProcess:
    """The parent's side: one warm child, ``run`` one task at a time (not thread-safe: one per thread)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mechlib.forking"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        _STARTED.append(self)

    def alive(self) -> bool:
        return self.process.poll() is None

    def run(
        self, function: str, kwargs: dict[str, Any], timeout: float | None, preload: tuple[str, ...] = ()
    ) -> tuple[str, Any]:
        """``("ok", (ok, value or reason))``, ``("timeout", None)`` or ``("died", reason)``."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            _send(self.process.stdin, (function, kwargs, timeout, preload))  # type: ignore[arg-type]
            reply = _receive(self.process.stdout)  # type: ignore[arg-type]
        except (BrokenPipeError, OSError, pickle.UnpicklingError, EOFError) as err:
            self.close()
            return "died", f"the warm process failed ({type(err).__name__})"
        if reply is None:
            self.close()
            return "died", f"the warm process died (exit code {self.process.poll()})"
        kind, value = reply
        return str(kind), value

    def close(self) -> None:
        """Stop the warm process (its task, if any, with it) and release its pipes: its stdin closed,
        it kills a running task and exits (:func:`_read_until`); killed if it has not within 5 s."""
        if self in _STARTED:
            _STARTED.remove(self)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _run_forked(
    function: str, kwargs: dict[str, Any], timeout: float | None, preload: tuple[str, ...]
) -> tuple[str, Any]:
    """The warm process's side of one task (see the module docstring)."""
    from mechlib.engine import resolve

    try:
        for module in preload:
            importlib.import_module(module)
        target = resolve(function)  # imported here, before the fork: later tasks find it warm
    except Exception as err:
        return "ok", (False, f"{type(err).__name__}: {err}")
    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as log:
        pid = os.fork()
        if pid == 0:  # the grandchild: run, answer, leave without running the parent's cleanup
            code = 0
            try:
                os.close(read_end)
                os.dup2(log.fileno(), 1)
                os.dup2(log.fileno(), 2)
                import random

                random.seed()  # a fresh process would have drawn its own seed
                try:
                    answer: tuple[bool, Any] = (True, target(**kwargs))
                except Exception as err:  # sent back as the task's failure
                    answer = (False, f"{type(err).__name__}: {err}")
                with os.fdopen(write_end, "wb") as out:
                    out.write(pickle.dumps(answer))
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(write_end)
        try:
            data, timed_out = _read_until(read_end, timeout)
        except SystemExit:
            os.kill(pid, signal.SIGKILL)
            raise
        os.close(read_end)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if timed_out:
            return "timeout", None
        if data:
            try:
                return "ok", pickle.loads(data)
            except Exception as err:
                return "died", f"the task's answer could not be read ({type(err).__name__})"
        log.seek(0)
        lines = log.read().decode(errors="replace").strip().splitlines()
        return "died", f"the task's process died (exit code {os.waitstatus_to_exitcode(status)}) {(lines or [''])[-1]}"


def _read_until(fd: int, timeout: float | None) -> tuple[bytes, bool]:
    """Everything written to ``fd`` until its end, and whether ``timeout`` seconds passed first.
    Requests and replies alternate, so stdin turning readable meanwhile is its end — the parent is
    gone: the grandchild is killed with the warm process rather than left computing for nobody."""
    deadline = None if timeout is None else time.monotonic() + timeout
    requests = sys.stdin.fileno()
    chunks: list[bytes] = []
    while True:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd, requests], [], [], wait)
        if not ready:
            return b"".join(chunks), True
        if requests in ready and fd not in ready:
            raise SystemExit(0)  # the parent is gone (its end of stdin closed); see _run_forked
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)


def _main() -> None:
    """The warm process: answer requests until stdin ends (its parent is gone). Python ≥ 3.12 warns
    when a process with threads forks; the warm process's only threads are native libraries' idle
    pools (OpenBLAS), which re-initialise in the child, and the grandchild runs one task and exits."""
    import warnings

    warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks", category=DeprecationWarning)
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # nothing but replies on the reply stream, even what a library writes to fd 1
    while (request := _receive(requests)) is not None:
        _send(replies, _run_forked(*request))


if __name__ == "__main__":
    _main()
