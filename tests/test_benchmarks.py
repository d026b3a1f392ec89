"""The benchmark code runs (a quick smoke run of two groups) and its report says what it measured."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_flag_counts_as_a_detection_only_when_its_witness_is_true_of_the_mechanism() -> None:
    """The power benchmark scores each flag by its witness: T's tight events (ratio e^ε exactly, in
    floats within rounding) are kept, a planted violation is not, and both methods' witnesses name the
    hypothesis they rejected (an event index off by one would name a kept cell)."""
    import numpy as np

    from benchmarks.test_power import (
        BUGS,
        CORRECT,
        METHODS,
        N,
        _thinned_fisher_rejects,
        mechlib_flags,
        witness_is_true,
    )
    from mechlib.audit.blackbox import path_neighbours
    from mechlib.audit.blackbox_delta import event_hits
    from mechlib.audit.statistics import ordered_pairs

    path = path_neighbours(N)
    t_rows, _ = CORRECT["T at ε = 1 (every ratio at the boundary e^ε)"]
    events = [{"outputs": [s]} for s in range(N + 1)] + [{"at_most": s} for s in range(N + 1)]
    events += [{"at_least": s} for s in range(N + 1)]
    pooled = [(i, tuple(j for j in range(N + 1) if j != i)) for i in range(N + 1)]
    inputs = [(i, (j,)) for i, j in ordered_pairs(path)] + pooled
    assert not any(witness_is_true(t_rows, path, [(i, js, e)]) for i, js in inputs for e in events)
    assert witness_is_true(BUGS["ε off by 10% (T at ε = 1.1)"], path, [(1, (0,), {"at_least": 1})])
    rare = BUGS["a rare output (p = 10⁻⁴, ε = ∞)"]
    assert witness_is_true(rare, path, [(3, (0, 1, 2, 4, 5), {"outputs": [99]})])
    assert not witness_is_true(rare, path, [(2, (3,), {"outputs": [99]})])
    kept, broken = (1, (0,), {"at_least": 1}), (3, (4,), {"outputs": [99]})
    assert not witness_is_true(rare, path, [kept]) and witness_is_true(rare, path, [kept, broken])  # a sum
    # the rare output is the whole bug: a hypothesis it breaks holds 99
    seen = [*events, {"outputs": [99]}, {"at_least": 99}]
    broken_by_it = [(i, js, e) for i, js in inputs for e in seen if witness_is_true(rare, path, [(i, js, e)])]
    assert broken_by_it and all(event_hits({99: 1.0}, e) == 1 for _, _, e in broken_by_it)
    for method in (mechlib_flags, METHODS["Fisher, one thinning, α_FA = 0.05"]):
        witness = method(rare, path, 10**6, 7)
        assert witness is not None and witness_is_true(rare, path, witness)
    # the baseline's witness is a cell where the samples themselves break the claim, whichever hypothesis
    # its thinning makes the smallest p-value (an event's index off by one names another cell)
    counts = [{0: 100, 1: 1000, 2: 100} if i == 3 else {0: 1000, 1: 100, 2: 1000} for i in range(N + 1)]
    sizes = [sum(h.values()) for h in counts]
    seen_as_rows = [{s: k / total for s, k in h.items()} for h, total in zip(counts, sizes, strict=True)]
    for seed in range(20):
        witness = _thinned_fisher_rejects(counts, sizes, path, 0.05, np.random.default_rng(seed), 1)
        assert witness is not None and witness_is_true(seen_as_rows, path, witness), witness


def test_rendering_saved_runs_keeps_each_benchmarks_own_commit(tmp_path: Path) -> None:
    """``--from-json A B``: a row from A names A's commit, not the last run's."""

    def run(commit: str, name: str) -> dict[str, object]:
        bench = {"fullname": name, "name": name, "group": name, "stats": {"rounds": 1, "median": 1.0, "min": 1.0,
                 "max": 1.0}, "extra_info": {"role": "mechlib", "n": 1}}  # fmt: skip
        machine = {"python_version": "3.11", "cpu": {"count": 2}}
        return {"commit_info": {"id": commit}, "machine_info": machine, "datetime": "now", "benchmarks": [bench]}

    paths = []
    for commit, name in (("a" * 40, "x"), ("b" * 40, "y")):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(run(commit, name)))
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--reports", str(tmp_path), "--from-json", *map(str, paths)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads((tmp_path / "bench.json").read_text())["results"]
    assert [(r["group"], r["commit"][0]) for r in rows] == [("x", "a"), ("y", "b")]


def test_statdp_events_and_witnesses_name_what_it_tested() -> None:
    """StatDP's events (an output, or the open lower tail s < a of its numeric search space) become the
    witness events they are on integer outputs; on a blatant bug its flag's witness is true of the
    mechanism (skipped without pystatdp: the bench extra)."""
    import math

    from benchmarks.test_power import BUGS, N, _statdp_event, statdp_flags, witness_is_true
    from mechlib.audit.blackbox import path_neighbours

    assert _statdp_event(((-math.inf, 2.0),)) == {"at_most": 1}
    assert _statdp_event(((-math.inf, 2.25),)) == {"at_most": 2}
    assert _statdp_event((3,)) == {"outputs": [3]}
    pytest.importorskip("pystatdp")
    rows, path = BUGS["one-sided noise (i + G, G ≥ 0)"], path_neighbours(N)
    for seed in range(3):
        witness = statdp_flags(rows, path, 10**4, seed)
        assert witness is not None and witness_is_true(rows, path, witness), witness
