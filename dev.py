#!/usr/bin/env python3
"""Developer tasks with nothing but python3 (≥ 3.11): creates or reuses .venv, installs, runs.

python3 dev.py verify   # check the papers' claims, write reports/latest/verify.{json,md,html}
python3 dev.py test     # the test suite, in parallel (CI=true: Hypothesis 'mechlib-ci' profile, not slow)
python3 dev.py bench    # benchmarks beside their peers (the bench extra), write reports/bench.{json,md}
python3 dev.py fuzz     # verify with the deep fuzzing profile (20× the examples)
python3 dev.py examples # regenerate the example audits in reports/examples/
python3 dev.py lint     # ruff (check, format) + import-linter (layering) + mypy
python3 dev.py docs     # the documentation site, warnings as errors, into docs/_build/html
python3 dev.py mutate   # mutation-test the checkers (hours), write reports/checker_mutation.{json,md}
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".mechlib-installed"
DOCS_BUILD = ("docs", "docs/_build/html")


def ensure_venv(extras: tuple[str, ...] = ("dev",)) -> None:
    """Create .venv and install the project with ``extras`` (dev tools; the benchmarks also their peers,
    ``bench``) when pyproject.toml changed or one of them is not installed yet. The stamp holds the
    hash of pyproject.toml and the extras installed with it."""
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = STAMP.read_text().split() if STAMP.exists() else []
    installed = set(stamp[1:]) if stamp[:1] == [want] else set()
    if set(extras) <= installed and (BIN / "mechlib").exists():
        return
    if not (BIN / "python").exists():
        print("dev.py: creating .venv", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = sorted(installed | set(extras))
    print(f"dev.py: installing mechlib and its dependencies ({', '.join(wanted)}) into .venv", flush=True)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", f"{ROOT}[{','.join(wanted)}]"], check=True)
    STAMP.write_text(" ".join([want, *wanted]) + "\n")


def usual_verify_time() -> str:
    """How long the last committed full run took (reports/verify.json), said before starting."""
    import json

    try:
        doc = json.loads((ROOT / "reports" / "verify.json").read_text())
        wall, created = doc["summary"]["wall_seconds"], doc["created"][:10]
    except (OSError, ValueError, KeyError):
        return "dev.py: verify runs every claim check of the three papers (a few minutes on 2 cores)"
    return (
        f"dev.py: verify runs every claim check; it usually takes about {wall:.0f} s on 2 cores "
        f"(reports/verify.json, {created}); Ctrl-C writes a partial report of what was decided"
    )


def run(*argv: str) -> int:
    return subprocess.run(argv, cwd=ROOT, check=False).returncode


def main(args: list[str]) -> int:
    tasks = {"verify", "test", "bench", "lint", "fuzz", "examples", "docs", "mutate"}
    if not args or args[0] not in tasks:
        print(__doc__)
        return 2
    task, rest = args[0], args[1:]
    ensure_venv(("dev", "bench") if task == "bench" else ("dev",))
    py = str(BIN / "python")
    if task in ("verify", "fuzz"):
        # reports/latest/ is not committed: running the quick start leaves a fresh clone clean
        # (the committed reports/verify.* are refreshed on purpose: mechlib verify --report-dir reports)
        where = [] if "--report-dir" in rest or "--reports" in rest else ["--report-dir", "reports/latest"]
        if task == "verify":
            print(usual_verify_time(), flush=True)
        return run(str(BIN / "mechlib"), "verify", *(["--deep"] if task == "fuzz" else []), *where, *rest)
    if task == "test":
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            os.environ.setdefault("HYPOTHESIS_PROFILE", "mechlib-ci")
            if "-m" not in rest:  # slow proofs and fuzz runs belong to `dev.py verify`, not CI's tests
                rest = ["-m", "not slow", *rest]
        return run(py, "-m", "pytest", "-n", "auto", *rest)
    if task == "bench":
        return run(py, "-m", "benchmarks", *rest)
    if task == "mutate":
        return run(py, "-m", "benchmarks.checker_mutation", *rest)
    if task == "examples":
        return run(py, "-m", "mechlib.audit.examples", *rest)
    if task == "docs":  # -n: every cross-reference must resolve; -W --keep-going: all warnings, then fail
        return run(py, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q", *rest, *DOCS_BUILD)
    status = run(py, "-m", "ruff", "check", ".")
    status = run(py, "-m", "ruff", "format", "--check", ".") or status
    status = run(str(BIN / "lint-imports")) or status  # the layering contracts of pyproject.toml
    return run(py, "-m", "mypy") or status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
