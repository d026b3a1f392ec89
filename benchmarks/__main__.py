"""Run the benchmarks (pytest-benchmark, ``benchmarks/test_*.py``) and write bench.json and bench.md.

    python -m benchmarks [--quick] [--reports DIR] [-k EXPR] [--compare] [--merge]

Every figure is the median over the same rounds for mechlib and its baseline, with min and max
(``benchmarks/conftest.py``); each run is also saved under ``.benchmarks/`` so that
``pytest-benchmark compare`` (or ``--compare``: against the last saved run) shows a change.
``--quick`` is a smoke run (smaller sizes, one round) written to reports/quick/, never over the
committed reports; ``--from-json`` renders a saved run. A benchmark that fails is listed in the
report (the others are still reported). ``--merge`` (with ``-k`` or ``--from-json``): the groups
measured now replace the same groups in the existing bench.json, the others are kept — every row
names the commit it was measured on, so a merged report says which figures are from which code.
Exit 1 when a target is missed or a benchmark failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.report import markdown, merged, summarise
from mechlib.audit.loading import write_atomic


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one round (a smoke run, not the targets)")
    parser.add_argument("--reports", help="where bench.json and bench.md go (default: reports, or reports/quick)")
    parser.add_argument("-k", dest="select", help="only the benchmarks matching this pytest -k expression")
    parser.add_argument("--compare", action="store_true", help="compare with the last saved run (.benchmarks/)")
    parser.add_argument(
        "--from-json", metavar="RUN", nargs="+",
        help="render saved pytest-benchmark runs (.benchmarks/…/NNNN_….json) instead of running; a benchmark "
        "in a later run replaces the same one in an earlier",
    )  # fmt: skip
    parser.add_argument(
        "--merge", action="store_true",
        help="replace only the groups measured now in the existing bench.json (each row keeps its commit)",
    )  # fmt: skip
    args = parser.parse_args()
    reports = Path(args.reports or ("reports/quick" if args.quick else "reports"))
    failed: list[str] = []
    raw: dict[str, Any] | None
    if args.from_json:
        runs = [json.loads(Path(path).read_text()) for path in args.from_json]
        # each benchmark keeps the commit of the run it was measured in
        latest = {b["fullname"]: {**b, "commit": run.get("commit_info", {}).get("id")} for run in runs
                  for b in run["benchmarks"]}  # fmt: skip
        raw = {**runs[-1], "benchmarks": list(latest.values())}
    else:
        raw, failed = _run(args)
        if raw is None:
            return 2
    doc = summarise(raw, args.quick)
    doc["failed"] = failed
    if args.merge and (reports / "bench.json").exists():
        doc = merged(json.loads((reports / "bench.json").read_text()), doc)
    write_atomic(reports / "bench.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    text = markdown(doc)
    write_atomic(reports / "bench.md", text)
    print(text, end="")
    missed = [f"{r['group']} ({r['role']})" for r in doc["results"] if r["meets_target"] is False]
    if missed:
        print(f"targets missed: {missed}")
    return 1 if missed or failed else 0


def _run(args: argparse.Namespace) -> tuple[dict[str, Any] | None, list[str]]:
    """pytest-benchmark's JSON of this run, and the benchmarks that failed (their rows are absent;
    the others are reported)."""
    # a run started from a pytest-xdist worker (the smoke test) must not look like one itself
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["MECHLIB_BENCH_QUICK"] = "1" if args.quick else "0"
    with tempfile.TemporaryDirectory() as tmp:
        raw_path, log_path = Path(tmp) / "raw.json", Path(tmp) / "failed.txt"
        argv = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                "--benchmark-only", f"--benchmark-json={raw_path}", "--benchmark-storage=.benchmarks",
                f"--junitxml={log_path}",
                *([] if args.quick else ["--benchmark-autosave"]), *(["--benchmark-compare"] if args.compare else []),
                *(["-k", args.select] if args.select else [])]  # fmt: skip
        status = subprocess.run(argv, env=env, check=False).returncode
        if status not in (0, 1) or not raw_path.exists():
            print(f"benchmarks: pytest exited {status}; no report written", file=sys.stderr)
            return None, []
        failed = _failed_tests(log_path.read_text()) if status == 1 else []
        return json.loads(raw_path.read_text()), failed


def _failed_tests(junit_xml: str) -> list[str]:
    from xml.etree import ElementTree

    failed = []
    for case in ElementTree.fromstring(junit_xml).iter("testcase"):
        bad = case.find("failure")
        bad = case.find("error") if bad is None else bad
        if bad is not None:
            failed.append(f"{case.get('name')}: {bad.get('message', '')[:300]}")
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
