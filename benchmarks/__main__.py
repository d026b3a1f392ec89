"""Run the benchmarks (pytest-benchmark, ``benchmarks/test_*.py``) and write bench.json and bench.md.

    python -m benchmarks [--quick] [--reports DIR] [-k EXPR] [--compare]

Every figure is the median over the same rounds for mechlib and its baseline, with min and max
(``benchmarks/conftest.py``); each run is also saved under ``.benchmarks/`` so that
``pytest-benchmark compare`` (or ``--compare``: against the last saved run) shows a change.
``--quick`` is a smoke run (smaller sizes, one round) written to reports/quick/, never over the
committed reports. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.report import markdown, summarise
from mechlib.audit.loading import write_atomic


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one round (a smoke run, not the targets)")
    parser.add_argument("--reports", help="where bench.json and bench.md go (default: reports, or reports/quick)")
    parser.add_argument("-k", dest="select", help="only the benchmarks matching this pytest -k expression")
    parser.add_argument("--compare", action="store_true", help="compare with the last saved run (.benchmarks/)")
    args = parser.parse_args()
    reports = Path(args.reports or ("reports/quick" if args.quick else "reports"))
    # a run started from a pytest-xdist worker (the smoke test) must not look like one itself
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["MECHLIB_BENCH_QUICK"] = "1" if args.quick else "0"
    with tempfile.TemporaryDirectory() as tmp:
        raw_path = Path(tmp) / "raw.json"
        argv = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                "--benchmark-only", f"--benchmark-json={raw_path}", "--benchmark-storage=.benchmarks",
                *([] if args.quick else ["--benchmark-autosave"]), *(["--benchmark-compare"] if args.compare else []),
                *(["-k", args.select] if args.select else [])]  # fmt: skip
        status = subprocess.run(argv, env=env, check=False).returncode
        if status != 0 or not raw_path.exists():
            print(f"benchmarks: pytest exited {status}; no report written", file=sys.stderr)
            return 2
        doc = summarise(json.loads(raw_path.read_text()), args.quick)
    write_atomic(reports / "bench.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    text = markdown(doc)
    write_atomic(reports / "bench.md", text)
    print(text, end="")
    missed = [f"{r['group']} ({r['role']})" for r in doc["results"] if r["meets_target"] is False]
    if missed:
        print(f"targets missed: {missed}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
