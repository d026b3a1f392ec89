"""``mechlib verify``: run the claim registry and write ``reports/verify.json`` and ``verify.md``."""

from __future__ import annotations

import json
import platform
import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from mechlib import __version__
from mechlib.loading import write_atomic

SCHEMA = "mechlib.verify/1"


def select(only: Iterable[str] = (), paper: str | None = None) -> list[Any]:
    """The registered claims, filtered by ID and paper, in ID order."""
    from mechlib.errors import InputError
    from proofs import REGISTRY

    wanted = list(only)
    unknown = [i for i in wanted if i not in REGISTRY]
    if unknown:
        raise InputError(f"unknown claim ID(s) {unknown}", field="--only", hint=f"registered: {sorted(REGISTRY)}")
    claims = [REGISTRY[i] for i in sorted(REGISTRY) if (not wanted or i in wanted)]
    if paper is not None:
        claims = [c for c in claims if c.paper.upper() == paper.upper()]
    return claims


def run(claims: list[Any], *, progress: bool) -> list[Any]:
    """Run the claims in order, with a progress bar on the terminal when ``progress``."""
    from proofs.registry import run_claim

    if not progress:
        return [run_claim(c) for c in claims]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    results = []
    columns = (
        TextColumn("[bold]verify"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("", total=len(claims))
        for c in claims:
            bar.update(task, description=c.id)
            results.append(run_claim(c))
            bar.advance(task)
    return results


def report(results: list[Any]) -> dict[str, Any]:
    verdicts = [r.outcome.verdict.value for r in results]
    return {
        "schema": SCHEMA,
        "tool": {"name": "mechlib", "version": __version__},
        "versions": _versions(),
        "git_commit": _git_commit(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "summary": {
            "claims": len(results),
            "as_expected": sum(r.as_expected for r in results),
            **{v: verdicts.count(v) for v in ("PROVED", "REFUTED", "UNKNOWN")},
            "seconds": round(sum(r.seconds for r in results), 3),
        },
        "claims": [r.to_json() for r in results],
    }


def write_reports(doc: dict[str, Any], directory: Path) -> tuple[Path, Path]:
    json_path, md_path = directory / "verify.json", directory / "verify.md"
    write_atomic(json_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    write_atomic(md_path, markdown(doc))
    return json_path, md_path


def markdown(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    lines = [
        "# mechlib verify",
        "",
        f"mechlib {doc['tool']['version']}, commit `{doc['git_commit'] or 'unknown'}`, {doc['created']}.",
        f"{s['claims']} claims: {s['PROVED']} PROVED, {s['REFUTED']} REFUTED, {s['UNKNOWN']} UNKNOWN; "
        f"{s['as_expected']} as the papers predict; {s['seconds']} s.",
        "",
        "| claim | paper | kind | verdict | expected | seconds | evidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in doc["claims"]:
        note = c["reason"] or ", ".join(f"{k}: {_brief(v)}" for k, v in c["evidence"].items())
        lines.append(
            f"| {c['id']} | {c['paper']} {c['location']} | {c['kind']} | {c['verdict']} | {c['expected']} "
            f"| {c['seconds']:.3f} | {note.replace('|', '/')} |"
        )
    return "\n".join(lines) + "\n"


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "…"


def _versions() -> dict[str, str]:
    result = {"python": platform.python_version()}
    for dist in ("z3-solver", "sympy", "python-flint", "hypothesis"):
        try:
            result[dist] = version(dist)
        except PackageNotFoundError:
            result[dist] = "not installed"
    return result


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).resolve().parent,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
