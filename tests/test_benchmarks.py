"""The benchmark code runs (a quick smoke run of two groups) and its report says what it measured."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmarks_write_their_own_report_with_baselines(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--reports", str(tmp_path), "-k", "build_t or dp_level"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    doc = json.loads((tmp_path / "bench.json").read_text())
    assert doc["quick"] is True and len(doc["results"]) == 4
    ours = [r for r in doc["results"] if r["role"] == "mechlib"]
    assert len(ours) == 2 and all(r["speedup"] > 1 and r["meets_target"] is None for r in ours)
    assert all(r["min"] <= r["median"] <= r["max"] for r in doc["results"])
    assert "quick run" in (tmp_path / "bench.md").read_text()
