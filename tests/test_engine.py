"""The Dask engine with real processes: timeouts, a local cluster, an external scheduler with two
`dask worker` processes, a worker killed mid-run — results equal the single-process run exactly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mechlib.engine import Task, run_all, run_task

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_task_over_its_timeout_is_stopped() -> None:
    start = time.perf_counter()
    result = run_task(Task("slow", "tests.engine_tasks:square", {"x": 3, "pause": 60}, timeout=2))
    assert not result.ok and result.reason == "timed out after 2 s"
    assert time.perf_counter() - start < 20


def test_a_task_that_dies_or_raises_is_reported_not_lost() -> None:
    died = run_task(Task("crash", "tests.engine_tasks:crash", timeout=30))
    assert not died.ok and "process died (exit code 3)" in died.reason
    raised = run_task(Task("boom", "tests.engine_tasks:boom"))
    assert not raised.ok and raised.reason == "ValueError: boom"
    child = run_task(Task("env", "tests.engine_tasks:environment", {"name": "MECHLIB_X"}, env={"MECHLIB_X": "7"}))
    assert child.ok and child.value == "7"


def test_forked_tasks_are_isolated_and_their_output_cannot_corrupt_the_answer() -> None:
    """Each task is a fork of the warm process: module state one task changes is gone for the
    next, each runs in a process of its own, and what a task prints is kept off the reply stream."""
    runs = [run_task(Task(f"touch{k}", "tests.engine_tasks:touch", timeout=60)) for k in range(3)]
    assert [r.value for r in runs] == [1, 1, 1]
    pids = {run_task(Task(f"pid{k}", "tests.engine_tasks:process_id", timeout=60)).value for k in range(3)}
    assert len(pids) == 3 and os.getpid() not in pids
    noisy = run_task(Task("noisy", "tests.engine_tasks:noisy", {"x": 1}, timeout=60))
    assert noisy.ok and noisy.value == 2
    assert run_task(Task("after", "tests.engine_tasks:square", {"x": 4}, timeout=60)).value == 16
    preloaded = Task("pre", "tests.engine_tasks:imported", {"name": "tests.engine_preloaded"}, timeout=60,
                     preload=("tests.engine_preloaded",))  # fmt: skip
    assert run_task(preloaded).value is True  # imported by the warm process, before the fork


def test_a_task_dies_with_its_warm_process_when_the_worker_is_gone(tmp_path: Path) -> None:
    """A worker that dies mid-task must not leave its task computing for nobody: the warm process
    sees its stdin end and kills the task's process before it exits."""
    from mechlib import forking

    warm = forking.WarmProcess(dict(os.environ))
    where = tmp_path / "pid"
    answers: list[tuple[str, Any]] = []
    task = {"path": str(where), "pause": 60}
    running = threading.Thread(
        target=lambda: answers.append(warm.run("tests.engine_tasks:write_pid_and_wait", task, 120)), daemon=True
    )
    running.start()
    deadline = time.monotonic() + 30
    while not (where.exists() and where.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    task_pid = int(where.read_text())
    assert warm.process.stdin is not None
    warm.process.stdin.close()  # what the worker's death does to the warm process's stdin
    running.join(timeout=30)
    assert answers and answers[0][0] == "died" and not warm.alive()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(task_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(task_pid, signal.SIGKILL)
        pytest.fail("the task's process outlived its warm process")


def test_without_fork_each_task_gets_a_fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from mechlib import forking

    monkeypatch.setattr(forking, "AVAILABLE", False)
    test_a_task_that_dies_or_raises_is_reported_not_lost()
    assert run_task(Task("fresh", "tests.engine_tasks:touch", timeout=60)).value == 1


def test_a_local_cluster_gives_every_result_once() -> None:
    tasks = [Task(f"t{k}", "tests.engine_tasks:square", {"x": k}) for k in range(12)]
    seen: list[str] = []
    results = run_all(tasks, jobs=2, done=lambda r: seen.append(r.key))
    assert sorted(seen) == sorted(t.key for t in tasks)
    assert {k: r.value for k, r in results.items()} == {f"t{k}": k * k for k in range(12)}


def _without_times(value: Any) -> Any:
    if isinstance(value, dict):
        # a solver's resource count is its own (z3's differs with what ran before it in the process)
        skip = {"seconds", "samples_per_second", "rlimit"}
        return {k: _without_times(v) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def test_verify_on_two_workers_equals_the_single_process_run() -> None:
    from mechlib import verify

    claims = verify.select(["GRS-F4", "GRS-P6.1", "GS-AA", "SY-L1", "GRS-L5.3", "GS-T2"])
    alone = verify.run(claims, jobs=1)
    on_cluster = verify.run(claims, jobs=2, timeout=300)
    assert [_without_times(r.to_json()) for r in on_cluster] == [_without_times(r.to_json()) for r in alone]


def _manifest(tmp_path: Path, seeds: int = 4, samples: int = 20_000) -> Path:
    manifest = tmp_path / "grid.toml"
    manifest.write_text(
        f"""
[sweep]
output = "{tmp_path / "out"}"
timeout = 300

[[audits]]
sources = ["{FIXTURES / "truncated_geometric_half_5.json"}", "{FIXTURES / "gs_appendix_b.json"}"]

[[blackbox]]
sampler = "mechlib:truncated_geometric"
epsilon = "1"
n = 3
samples = {samples}
seeds = {list(range(seeds))}
"""
    )
    return manifest


def _dask(*args: str) -> subprocess.Popen[bytes]:
    dask = Path(sys.executable).parent / "dask"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False", "PYTHONPATH": str(Path.cwd())}
    return subprocess.Popen([str(dask), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


@pytest.fixture
def external_cluster(tmp_path: Path) -> Any:
    """A scheduler and two single-threaded `dask worker` processes (no nanny: a killed worker stays
    dead) on 127.0.0.1, started here."""
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = _dask(
        "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)
    )
    workers: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        for _ in range(2):
            workers.append(
                _dask("worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1")
            )
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for process in [*workers, scheduler]:
            process.kill()
            process.wait()


def _run_sweep(manifest: Path, out: Path, **kwargs: Any) -> dict[str, Any]:
    from mechlib import sweep

    report, _ = sweep.run(str(manifest), output=str(out), **kwargs)
    return report


def test_an_external_scheduler_with_two_workers_equals_the_local_run(tmp_path: Path, external_cluster: Any) -> None:
    address, _ = external_cluster
    manifest = _manifest(tmp_path)
    remote = _run_sweep(manifest, tmp_path / "remote", scheduler=address)
    local = _run_sweep(manifest, tmp_path / "local", jobs=1)
    assert _without_times({k: remote[k] for k in ("audits", "blackbox", "failed")}) == _without_times(
        {k: local[k] for k in ("audits", "blackbox", "failed")}
    )
    merged = json.loads((tmp_path / "remote" / remote["blackbox"][0]["certificate"]).read_text())
    assert merged["samples_per_count"] == 4 * 20_000 and merged["seed"] == [0, 1, 2, 3]
    local_merged = json.loads((tmp_path / "local" / local["blackbox"][0]["certificate"]).read_text())
    assert merged["counts"] == local_merged["counts"]


def test_a_killed_worker_loses_nothing_and_counts_nothing_twice(tmp_path: Path, external_cluster: Any) -> None:
    address, workers = external_cluster
    manifest = _manifest(tmp_path, seeds=8, samples=150_000)
    killed: list[int] = []

    def kill_one(done: int, total: int, cached: int) -> None:
        if done >= 1 and not killed:
            workers[0].send_signal(signal.SIGKILL)
            killed.append(workers[0].pid)

    remote = _run_sweep(manifest, tmp_path / "remote", scheduler=address, progress=kill_one)
    assert killed and workers[0].wait() != 0
    local = _run_sweep(manifest, tmp_path / "local", jobs=1)
    assert remote["tasks"]["failed"] == 0
    remote_counts = json.loads((tmp_path / "remote" / remote["blackbox"][0]["certificate"]).read_text())["counts"]
    local_counts = json.loads((tmp_path / "local" / local["blackbox"][0]["certificate"]).read_text())["counts"]
    assert remote_counts == local_counts  # every seed's histogram added exactly once
    from mechlib.audit.blackbox import poisson_sizes  # each seed's Poisson sizes, both phases, added

    drawn = [sum(sum(sizes[i] for sizes in poisson_sizes(150_000, 3, seed)) for seed in range(8)) for i in range(4)]
    assert [sum(h.values()) for h in remote_counts] == drawn


def test_a_rerun_takes_finished_tasks_from_the_cache(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path, seeds=2)
    first = _run_sweep(manifest, tmp_path / "out", jobs=1)
    again = _run_sweep(manifest, tmp_path / "out", jobs=1)
    assert first["tasks"]["run"] == 4 and again["tasks"] == {**again["tasks"], "from_cache": 4, "run": 0}
    assert _without_times(first["blackbox"]) == _without_times(again["blackbox"])


def test_the_merged_blackbox_result_and_audit_certificates_recheck(tmp_path: Path) -> None:
    from mechlib.checkers.audit_certificate import check_certificate
    from mechlib.checkers.blackbox_result import check_result

    report = _run_sweep(_manifest(tmp_path, seeds=2), tmp_path / "out", jobs=1)
    merged = json.loads((tmp_path / "out" / report["blackbox"][0]["certificate"]).read_text())
    assert check_result(merged) == []
    for row in report["audits"]:
        assert check_certificate(json.loads((tmp_path / "out" / row["certificate"]).read_text())) == []


@pytest.fixture
def workerless_scheduler() -> Any:
    """A scheduler on 127.0.0.1 with no worker at all, in this process (cheap: no processes)."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address=":0") as c:
        yield c.scheduler_address


def test_no_live_worker_warns_then_gives_up_keeping_what_finished(
    tmp_path: Path, workerless_scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One task answered (from the cache of an earlier run), one with no worker to run it: a warning
    after the grace period, then exit 3 with the answered task kept in sweep.json. The address
    comes from Dask's own configuration (what DASK_SCHEDULER_ADDRESS sets)."""
    import dask

    from mechlib.cli import main

    done = tmp_path / "done.toml"
    done.write_text(f'[[audits]]\nsources = ["{FIXTURES / "gs_appendix_b.json"}"]\n')
    out = tmp_path / "out"
    assert main(["sweep", str(done), "--report-dir", str(out), "-j", "1", "--no-progress"]) == 0
    both = tmp_path / "both.toml"
    sources = [str(FIXTURES / name) for name in ("gs_appendix_b.json", "truncated_geometric_half_5.json")]
    both.write_text(f"[[audits]]\nsources = {json.dumps(sources)}\n")
    capsys.readouterr()
    start = time.monotonic()
    with dask.config.set({"scheduler-address": workerless_scheduler}):
        status = main(["sweep", str(both), "--report-dir", str(out), "--worker-grace", "0.5", "--no-progress"])
    assert status == 3 and time.monotonic() - start < 30
    err = capsys.readouterr().err
    assert "no live Dask workers for 0.5 s" in err and "1 task(s) given up" in err
    report = json.loads((out / "sweep.json").read_text())
    assert report["tasks"]["from_cache"] == 1 and [f["reason"] for f in report["failed"]] == ["no live workers"]
    assert [a["verdict"] for a in report["audits"]] == ["PASS", "UNKNOWN"]


@pytest.mark.parametrize("listening", [False, True], ids=["refused", "silent"])
def test_an_unreachable_scheduler_is_reported_within_the_connect_timeout(
    listening: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """A closed port is reported at once; a port that accepts and never answers (no Dask scheduler
    behind it) after --connect-timeout seconds."""
    import socket

    from mechlib.cli import main
    from mechlib.engine import EngineOptions

    assert EngineOptions().connect_timeout <= 10
    with socket.socket() as s:  # bound; listening (the kernel accepts, nothing answers) or not
        s.bind(("127.0.0.1", 0))
        if listening:
            s.listen()
        port = s.getsockname()[1]
        start = time.monotonic()
        status = main(["prove-universal", "1", "--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "1"])
        elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "cannot reach the Dask scheduler" in err
    assert elapsed < 8
