"""bench.json and bench.md from pytest-benchmark's JSON: per group (one thing measured), mechlib's
row beside its baseline's, both with median and min–max over the same rounds, the ratio of
medians, the target and whether it was met; then what each run found (its note)."""

from __future__ import annotations

from typing import Any

#: Rows whose role starts with this are the baselines of their group.
BASELINE = "baseline"


def summarise(raw: dict[str, Any], quick: bool) -> dict[str, Any]:
    """One row per benchmark, judged against its target (not in a quick run: sizes are smaller); its
    commit is its own ``commit`` when a merge of saved runs set one, else the run's."""
    rows = []
    for bench in raw["benchmarks"]:
        info, stats = bench["extra_info"], bench["stats"]
        rows.append({
            "group": bench["group"], "test": bench["name"], "role": info["role"], "n": info["n"],
            "rounds": stats["rounds"], "median": stats["median"], "min": stats["min"], "max": stats["max"],
            "target": info.get("target"), "min_speedup": info.get("min_speedup"),
            "relative_target": info.get("relative_target"), "note": info.get("note"), "table": info.get("table"),
            "commit": bench.get("commit") or raw.get("commit_info", {}).get("id"), "miss": info.get("miss"),
        })  # fmt: skip
    for row in rows:
        peers = [r for r in rows if r["group"] == row["group"]]
        base = next((r for r in peers if r["role"].startswith(BASELINE)), None)
        row["speedup"] = base["median"] / row["median"] if base and row is not base and row["median"] else None
        verdicts = [False] if row.get("miss") else []
        if row["target"] is not None:
            verdicts.append(row["median"] < row["target"])
        if row["min_speedup"] is not None and row["speedup"] is not None:
            verdicts.append(row["speedup"] >= row["min_speedup"])
        if row["relative_target"]:
            other = next(r for r in peers if r["role"] == row["relative_target"]["role"])
            verdicts.append(row["median"] <= row["relative_target"]["at_most"] * other["median"])
        row["meets_target"] = None if quick or not verdicts else all(verdicts)
    order = list(dict.fromkeys(r["group"] for r in rows))  # groups as first run, mechlib before its baseline
    rows.sort(key=lambda r: (order.index(r["group"]), r["role"].startswith(BASELINE), r["role"]))
    return {"schema": "mechlib.bench/2", "quick": quick, "machine": raw["machine_info"], "created": raw["datetime"],
            "commit": raw.get("commit_info", {}).get("id"), "results": rows}  # fmt: skip


def merged(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with the groups measured in ``new`` replaced (in place; new groups at the end) — also
    a group whose name changed (its sizes are in it): a row of a test and role measured now goes,
    and so does an old failure of a test that ran now.
    Rows keep the commit they were measured on (a row of an older report without one gets its report's)."""
    fresh = {r["group"] for r in new["results"]}
    now = {(r["test"], r["role"]): r["group"] for r in new["results"]}  # the group each measured test has now
    kept = [
        {**r, "commit": r.get("commit") or old["commit"]}
        for r in old["results"]
        if r["group"] not in fresh and (r["test"], r["role"]) not in now
    ]
    order = list(dict.fromkeys(now.get((r["test"], r["role"]), r["group"]) for r in old["results"]))
    order += [g for g in dict.fromkeys(r["group"] for r in new["results"]) if g not in order]
    rows = sorted([*kept, *new["results"]], key=lambda r: order.index(r["group"]))
    ran = {test for test, _ in now} | {f.split(": ", 1)[0] for f in new.get("failed", [])}
    still = [f for f in old.get("failed", []) if f.split(": ", 1)[0] not in ran]  # a failure rerun now is replaced
    return {**new, "results": rows, "failed": [*still, *new.get("failed", [])]}


def _target(row: dict[str, Any]) -> str:
    parts = []
    if row["target"] is not None:
        parts.append(f"< {row['target']:g} s")
    if row["min_speedup"] is not None:
        parts.append(f"≥ {row['min_speedup']:g}× baseline")
    if row["relative_target"]:
        parts.append(f"≤ {row['relative_target']['at_most']:g} × {row['relative_target']['role']}")
    return " and ".join(parts) or "—"


def _seconds(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def markdown(doc: dict[str, Any]) -> str:
    machine = doc["machine"]
    lines = [
        "# mechlib benchmarks",
        "",
        f"{doc['created']}, commit `{doc['commit'] or 'unknown'}`, Python {machine['python_version']}, "
        f"{machine.get('cpu', {}).get('count', '?')} CPUs"
        + (" — **quick run**: smaller sizes, one round, targets not judged" if doc["quick"] else "")
        + ".",
        "",
        "Measured with pytest-benchmark: mechlib and its baseline in the same run, the same rounds "
        "(a warm-up round first when there are five), one call per round. Seconds are the median, "
        "with min–max; 'baseline ÷ ours' is the ratio of medians. `python -m benchmarks` reruns it; "
        "runs are saved under `.benchmarks/` for `pytest-benchmark compare`.",
        "",
    ]
    commits = [(c or "unknown")[:7] for c in dict.fromkeys(r.get("commit") or doc["commit"] for r in doc["results"])]
    if len(commits) > 1:  # a merged report: each row says which code it measured
        lines[2] = (
            f"{doc['created']} (the latest groups), Python {machine['python_version']}, "
            f"{machine.get('cpu', {}).get('count', '?')} CPUs; rows measured on {len(commits)} commits "
            f"({', '.join(f'`{c}`' for c in commits)}): see the commit column."
        )
    lines += [
        "| measured | n | role | rounds | median s | min–max s | baseline ÷ ours | target | met |"
        + (" commit |" if len(commits) > 1 else ""),
        "|---|---|---|---|---|---|---|---|---|" + ("---|" if len(commits) > 1 else ""),
    ]
    for r in doc["results"]:
        met = {None: "—", True: "yes", False: "**NO**"}[r["meets_target"]]
        speed = f"{r['speedup']:.1f}×" if r["speedup"] is not None else "—"
        lines.append(
            f"| {r['group']} | {r['n']} | {r['role']} | {r['rounds']} | {_seconds(r['median'])} "
            f"| {_seconds(r['min'])}–{_seconds(r['max'])} | {speed} | {_target(r)} | {met} |"
            + (f" `{(r.get('commit') or doc['commit'] or 'unknown')[:7]}` |" if len(commits) > 1 else "")
        )
    notes = [f"- {r['group']} ({r['role']}): {r['note']}" for r in doc["results"] if r["note"]]
    notes += [f"- **missed** {r['group']} ({r['role']}): {r['miss']}" for r in doc["results"] if r.get("miss")]
    tables = []
    for r in doc["results"]:
        if r.get("table"):
            t = r["table"]
            tables += ["", f"**{t['title']}**", "", "| " + " | ".join(t["header"]) + " |"]
            tables += ["|" + "---|" * len(t["header"]), *("| " + " | ".join(map(str, row)) + " |" for row in t["rows"])]
    failed = [f"- **failed**: {f}" for f in doc.get("failed", [])]
    return "\n".join([*lines, "", *notes, *tables, *([""] if failed else []), *failed]) + "\n"
