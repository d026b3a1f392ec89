"""``mechlib verify`` as a user runs it: every claim, 2 workers, wall time (issue 33's target:
under 90 s on a quiet 2-core machine) — beside the same run with ``--search``, which searches
every stored certificate again (what verify did before certificates were re-checked), in the
same session. The verdicts of both runs must agree claim by claim."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.conftest import QUICK, Measure

#: The claims of a quick smoke run (the measurement runs all of them).
QUICK_CLAIMS = ("GRS-E2.2", "DOM")


def _verify(reports: Path, *extra: str) -> dict[str, str]:
    only = [f"--only={c}" for c in QUICK_CLAIMS] if QUICK else []
    argv = [sys.executable, "-c", "import sys; from mechlib.cli import main; sys.exit(main())", "verify", "-j", "2",
            "--no-progress", "--report-dir", str(reports), *only, *extra]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1, 3):
        raise RuntimeError(f"verify failed ({done.returncode}): {done.stderr[-2000:]}")
    report = next(reports.glob("verify*.json"))
    return {c["id"]: c["verdict"] for c in json.loads(report.read_text())["claims"]}


@pytest.mark.parametrize("search", [False, True], ids=["re-check certificates", "search again"])
def test_verify_wall(measure: Measure, search: bool, tmp_path: Path) -> None:
    measure.benchmark.group = "mechlib verify: every claim, -j 2, wall seconds (target < 90 s)"
    role = "baseline: verify --search (every certificate searched again)" if search else "mechlib"
    verdicts = measure(lambda: _verify(tmp_path, *(["--search"] if search else [])), role=role, n=len(QUICK_CLAIMS)
                       if QUICK else 53, rounds=1, **({} if search else {"target": 90.0}))  # fmt: skip
    counts = {v: list(verdicts.values()).count(v) for v in sorted(set(verdicts.values()))}
    measure.note(f"verdicts {counts} (one run)")
