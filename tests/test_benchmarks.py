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


def test_a_merged_report_keeps_other_groups_and_names_each_rows_commit() -> None:
    """``--merge``: the groups measured now replace theirs; the rest stay, each row with its commit."""
    from benchmarks.report import markdown, merged

    def row(group: str, commit: str | None) -> dict[str, object]:
        fields = {"group": group, "test": group, "role": "mechlib", "n": 1, "rounds": 1, "median": 1.0, "min": 1.0,
                  "max": 1.0, "target": None, "min_speedup": None, "relative_target": None, "note": None,
                  "table": None, "speedup": None, "meets_target": None}  # fmt: skip
        return {**fields, **({"commit": commit} if commit else {})}

    machine = {"python_version": "3.11", "cpu": {"count": 2}}
    old = {"commit": "a" * 40, "created": "then", "machine": machine, "quick": False,
           "results": [row("x", None), row("y", None)], "failed": []}  # fmt: skip
    new = {"commit": "b" * 40, "created": "now", "machine": machine, "quick": False,
           "results": [row("y", "b" * 40), row("z", "b" * 40)], "failed": []}  # fmt: skip
    doc = merged(old, new)
    assert [(r["group"], r["commit"][0]) for r in doc["results"]] == [("x", "a"), ("y", "b"), ("z", "b")]
    failed_before = {**old, "failed": ["x: RuntimeError: exited 2", "w: RuntimeError: exited 2"]}
    assert merged(failed_before, new)["failed"] == ["x: RuntimeError: exited 2", "w: RuntimeError: exited 2"]
    fixed = {**new, "results": [{**row("x", "b" * 40)}]}  # x passes now: its old failure goes, w's stays
    assert merged(failed_before, fixed)["failed"] == ["w: RuntimeError: exited 2"]
    renamed = {**row("x, up to n = 5000", "b" * 40), "test": "x"}  # the same test, its group renamed
    assert [(r["group"], r["commit"][0]) for r in merged(old, {**new, "results": [renamed]})["results"]] == [
        ("x, up to n = 5000", "b"),
        ("y", "a"),
    ]
    text = markdown(doc)
    assert "rows measured on 2 commits" in text and "| x | 1 | mechlib |" in text and "`aaaaaaa` |" in text
