"""The Dask engine against the hand-written pool it replaced, in one run (``python -m benchmarks.engine``).

Rows (each the median of ``--repeats`` runs, with min and max):

* overhead per task: 40 trivial tasks, in the worker's thread and in a child process (how a
  claim runs, so that a timeout can stop it), on 1 and 2 Dask workers; beside the replaced pool
  (one spawned process per task, 2 at a time — kept here as the baseline, ``_pool``);
* ``mechlib verify`` on a set of claims: 1 Dask worker, 2 Dask workers, the replaced pool on 2;
* a sweep (an audit grid and a black-box run split over seeds) on 1 and 2 Dask workers.

Writes ``reports/engine.{json,md}`` (``--quick``: fewer repeats, to ``reports/quick/``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mechlib.engine import Task, run_all

#: Twelve claims of light to middling weight (from under a second to ~10 s each).
CLAIMS = [
    "BN-path", "GS-L3", "GS-L1", "GRS-LP", "SY-P2", "GRS-L5.10", "GRS-E2.2", "GS-T2", "SY-L1", "SY-AA", "GRS-F3",
    "GS-AB",
]  # fmt: skip


def trivial(x: int) -> int:
    return x + 1


def _spread(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "runs": len(samples)}


def _timed(action: Callable[[], Any], repeats: int) -> dict[str, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return _spread(samples)


# -- the replaced pool (baseline): one spawned process per task, ``jobs`` at a time ------------


def _pool_child(function: str, kwargs: dict[str, Any], conn: Any) -> None:
    from mechlib.engine import resolve

    conn.send(resolve(function)(**kwargs))
    conn.close()


def _pool(work: list[tuple[str, dict[str, Any]]], jobs: int) -> list[Any]:
    """The scheduler ``mechlib verify`` used before Dask (``mechlib/verify.py:_parallel``)."""
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("spawn")
    queue = list(enumerate(work))
    running: dict[Any, tuple[int, Any]] = {}
    results: dict[int, Any] = {}
    while queue or running:
        while queue and len(running) < jobs:
            k, (function, kwargs) = queue.pop(0)
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_pool_child, args=(function, kwargs, send), daemon=True)
            process.start()
            send.close()
            running[receive] = (k, process)
        for conn in wait(list(running), timeout=0.2):
            k, process = running.pop(conn)
            results[k] = conn.recv()  # type: ignore[union-attr, call-arg]
            process.join()
    return [results[k] for k in range(len(work))]


# -- measurements ---------------------------------------------------------------------------

DASK_1, DASK_2, POOL = "Dask, 1 worker", "Dask, 2 workers", "replaced pool, 2 at a time"


def _row(benchmark: str, engine: str, spread: dict[str, float], tasks: int | None = None) -> dict[str, Any]:
    per_task = {"per_task": spread["median"] / tasks} if tasks else {}
    return {"benchmark": benchmark, "engine": engine, **spread, **per_task}


def overhead(repeats: int, tasks: int = 40) -> list[dict[str, Any]]:
    rows = []
    for label, timeout in (("in the worker's thread", None), ("in a child process (as a claim runs)", 600.0)):
        work = [Task(f"t{k}", "benchmarks.engine:trivial", {"x": k}, timeout=timeout) for k in range(tasks)]
        for jobs, engine in ((1, DASK_1), (2, DASK_2)):

            def on_dask(jobs: int = jobs, work: list[Task] = work) -> None:
                run_all(work, jobs=jobs)

            rows.append(_row(f"{tasks} trivial tasks, {label}", engine, _timed(on_dask, repeats), tasks))
    pool_work = [("benchmarks.engine:trivial", {"x": k}) for k in range(tasks)]

    def on_pool() -> None:
        _pool(pool_work, 2)

    rows.append(_row(f"{tasks} trivial tasks, one spawned process each", POOL, _timed(on_pool, repeats), tasks))
    return rows


def verify_runs(repeats: int) -> list[dict[str, Any]]:
    from mechlib import verify

    claims = verify.select(CLAIMS)
    name = f"mechlib verify, {len(claims)} claims"
    rows = []
    for jobs, engine in ((1, DASK_1), (2, DASK_2)):

        def on_dask(jobs: int = jobs) -> None:
            verify.run(claims, jobs=jobs, timeout=600)

        rows.append(_row(name, engine, _timed(on_dask, repeats)))
    work = [("mechlib.verify:claim_outcome", {"claim_id": c.id}) for c in claims]

    def on_pool() -> None:
        _pool(work, 2)

    rows.append(_row(name, POOL, _timed(on_pool, repeats)))
    return rows


SWEEP = """
[[audits]]
sources = ["{fixture}", "mechlib.audit.examples:truncated_geometric_for"]
epsilons = ["1/2", "1", "2"]
ns = [4, 8, 16]

[[blackbox]]
sampler = "mechlib:truncated_geometric"
epsilon = "1"
n = 4
samples = 200000
seeds = [0, 1, 2, 3, 4, 5, 6, 7]
"""


def sweep_runs(repeats: int) -> list[dict[str, Any]]:
    from mechlib import sweep

    fixture = Path(__file__).resolve().parent.parent / "tests/fixtures/gs_appendix_b.json"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "grid.toml"
        manifest.write_text(SWEEP.format(fixture=fixture))
        runs = iter(range(10**6))
        for jobs, engine in ((1, DASK_1), (2, DASK_2)):

            def on_dask(jobs: int = jobs) -> None:
                sweep.run(str(manifest), output=f"{tmp}/out{next(runs)}", jobs=jobs)  # a fresh cache each run

            rows.append(_row("sweep: 10 audits + 8 black-box seeds (merged)", engine, _timed(on_dask, repeats)))
    return rows


def markdown(doc: dict[str, Any]) -> str:
    lines = [
        "# The Dask engine against the replaced pool",
        "",
        f"{doc['created']}, Python {doc['python']}, {doc['cpus']} CPUs, {doc['repeats']} runs each "
        "(median, min–max). Every row was measured in this one run.",
        "",
        "| benchmark | engine | median s | min s | max s | per task s |",
        "|---|---|---|---|---|---|",
    ]
    for r in doc["rows"]:
        per = f"{r['per_task']:.4f}" if "per_task" in r else ""
        times = f"{r['median']:.2f} | {r['min']:.2f} | {r['max']:.2f}"
        lines.append(f"| {r['benchmark']} | {r['engine']} | {times} | {per} |")
    lines += ["", *[f"- {note}" for note in doc["notes"]]]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one run each, written to reports/quick/")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    rows = overhead(repeats) + verify_runs(repeats) + sweep_runs(repeats)

    def median(benchmark: str, engine: str) -> float:
        return float(next(r["median"] for r in rows if r["benchmark"].startswith(benchmark) and r["engine"] == engine))

    verify_1 = median("mechlib verify", DASK_1)
    notes = [
        f"verify speed-up on 2 Dask workers: {verify_1 / median('mechlib verify', DASK_2):.2f}×; the replaced pool "
        f"on 2: {verify_1 / median('mechlib verify', POOL):.2f}× (both against Dask on 1)",
        f"sweep speed-up on 2 Dask workers: {median('sweep', DASK_1) / median('sweep', DASK_2):.2f}×",
        "a Dask run's time includes starting its local cluster",
    ]
    doc = {
        "schema": "mechlib.bench-engine/1",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "repeats": repeats,
        "rows": rows,
        "notes": notes,
    }
    out = Path("reports/quick" if args.quick else "reports")
    out.mkdir(parents=True, exist_ok=True)
    (out / "engine.json").write_text(json.dumps(doc, indent=2) + "\n")
    (out / "engine.md").write_text(markdown(doc))
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
