"""Mutation testing of the trusted base (``mechlib/checkers/``) with mutmut; writes
reports/checker_mutation.json and .md.

    python -m benchmarks.checker_mutation [MODULE ...] [--max-children N] [--report-only] [--baseline JSON]
    python3 dev.py mutate [...]        # the same

mutmut's settings are in pyproject.toml (``[tool.mutmut]``): only ``mechlib/checkers/*`` is mutated
(the producers are copied unmutated into ``mutants/`` so that tests can build certificates) and each
mutant runs only the tests of the selection that reach its function, with ``-x``, under the
derandomized Hypothesis profile ``mechlib-ci``. MODULE (``bracket_certificate``, …; default: every
checker module) selects whose mutants run now; results of earlier runs stay in ``mutants/`` and the
report covers every module run so far, with the seconds each took.

Every surviving mutant is either explained in benchmarks/checker_mutation_equivalent.json (keyed by
its function and mutated lines, so renumbering does not lose the note) with a one-line argument
that it is equivalent, or listed as unexplained (exit 1). For the survivors of ``--baseline`` (a
report of a run before the tests that kill them), the report names the first test that kills each
one now, found by running the selection with ``-x`` against that mutant. Long: mutmut 3.8 makes
about 6,850 mutants of the checkers at 9c33db7 (audit_certificate 2452, standard_users 1360,
blackbox_result 1072, approximate_dp 681, blackbox_delta 390, bracket_certificate 341, ratio_test
340, fields 108, numbers 107), generated in ~2.5 min; the stats run (every test of the selection
once) is ~70 s of tests; then each mutant is a fork running the tests that reach its function. Run
a module or two at a time under ``flock /tmp/mechlib-heavy.lock``. Never part of CI's test tier.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from mechlib.audit.loading import write_atomic

ROOT = Path(__file__).resolve().parent.parent
CHECKERS = ROOT / "mechlib" / "checkers"
NOTES = Path(__file__).with_name("checker_mutation_equivalent.json")
MUTMUT = Path(sys.executable).with_name("mutmut")
#: mutmut's exit codes of a mutant's test run (mutmut.stats.status_by_exit_code), grouped
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 36: "timeout", None: "not checked"}


def modules() -> list[str]:
    return sorted(p.stem for p in CHECKERS.glob("*.py") if p.stem != "__init__")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.checker_mutation", description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=f"checker modules to mutate now ({modules()})")
    parser.add_argument("--max-children", type=int, default=2, help="parallel mutant runs (default 2)")
    parser.add_argument("--report-only", action="store_true", help="no mutmut run: report what mutants/ holds")
    parser.add_argument("--survivors", action="store_true", help="rerun only the mutants that survived the last run")
    parser.add_argument("--baseline", type=Path, help="an earlier report whose survivors get the test that kills them")
    parser.add_argument("--reports", type=Path, default=ROOT / "reports", help="where the report goes")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.modules) - set(modules()))
    if unknown:
        parser.error(f"not a checker module: {', '.join(unknown)} (expected one of {', '.join(modules())})")
    if args.baseline and not args.baseline.is_file():
        parser.error(f"--baseline {args.baseline}: no such report (expected a checker_mutation.json)")
    old = _load(args.reports / "checker_mutation.json")
    seconds: dict[str, float] = old.get("seconds", {})
    if not args.report_only:
        env = {**os.environ, "HYPOTHESIS_PROFILE": "mechlib-ci"}
        for module in args.modules or modules():
            start = time.monotonic()
            names = _survivors(module) if args.survivors else [f"mechlib.checkers.{module}.*"]
            if not names:
                continue
            argv_ = [str(MUTMUT), "run", "--max-children", str(args.max_children), *names]
            status = subprocess.run(argv_, cwd=ROOT, env=env, check=False).returncode
            if status != 0:
                print(f"checker_mutation: mutmut exited {status} on {module}; no report written", file=sys.stderr)
                return 2
            seconds[module] = round(time.monotonic() - start)
    doc = summarise(seconds, _load(NOTES))
    if not doc["modules"]:
        print("checker_mutation: no mutant has been run yet (mutants/ holds no result); no report written")
        return 2
    baseline = _load(args.baseline) if args.baseline else old.get("baseline")
    if baseline:
        known = {s["mutant"]: s.get("killed_by") for s in old.get("baseline", {}).get("survivors", [])}
        doc["baseline"] = {k: baseline[k] for k in ("modules", "total")}
        doc["baseline"]["survivors"] = [
            {**s, "killed_by": known.get(s["mutant"]) or killer(s, doc)} for s in baseline["survivors"]
        ]
    write_atomic(args.reports / "checker_mutation.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    text = markdown(doc)
    write_atomic(args.reports / "checker_mutation.md", text)
    print(text, end="")
    return 1 if any(s["equivalent"] is None for s in doc["survivors"]) else 0


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {}


def _codes(module: str) -> dict[str, int | None]:
    meta = ROOT / "mutants" / "mechlib" / "checkers" / f"{module}.py.meta"
    return dict(json.loads(meta.read_text())["exit_code_by_key"]) if meta.exists() else {}


def _survivors(module: str) -> list[str]:
    return [name for name, code in _codes(module).items() if STATUS.get(code) in ("survived", "no tests")]


def summarise(seconds: dict[str, float], notes: dict[str, str]) -> dict[str, Any]:
    """Per module: mutants by status and the score killed / (killed + survived + no tests); the
    survivors with their diff and, when it is one, the argument that they are equivalent."""
    per_module: dict[str, dict[str, Any]] = {}
    survivors = []
    for module in modules():
        codes = _codes(module)
        counts = Counter(STATUS.get(code, "suspicious") for code in codes.values())
        if counts["not checked"] == len(codes):
            continue
        lived = _survivors(module)
        for name in sorted(lived, key=_number):
            diff = _diff(name)
            key = note_key(name, diff)
            survivors.append({"mutant": name, "key": key, "status": STATUS[codes[name]], "diff": diff,
                              "equivalent": notes.get(key) or _wording_only(diff)})  # fmt: skip
        counts["equivalent"] = sum(1 for s in survivors if s["mutant"] in lived and s["equivalent"] is not None)
        counts["mutants"] = len(codes)
        per_module[module] = {**_scores(counts), "seconds": seconds.get(module)}
    totals: Counter[str] = Counter()
    for row in per_module.values():
        totals.update({k: row[k] for k in ("mutants", "killed", "survived", "no tests", "timeout", "not checked",
                                           "equivalent")})  # fmt: skip
    return {"tool": f"mutmut {_version()}", "modules": per_module, "seconds": seconds,
            "total": _scores(totals), "survivors": survivors}  # fmt: skip


def _scores(counts: Counter[str]) -> dict[str, Any]:
    killed = counts["killed"] + counts["timeout"]
    live = counts["survived"] + counts["no tests"]
    equivalent = counts["equivalent"]
    return {
        "mutants": counts["mutants"],
        "killed": counts["killed"],
        "timeout": counts["timeout"],
        "survived": counts["survived"],
        "no tests": counts["no tests"],
        "not checked": counts["not checked"],
        "equivalent": equivalent,
        "score": round(killed / (killed + live), 4) if killed + live else None,
        "score_without_equivalent": (
            round(killed / (killed + live - equivalent), 4) if killed + live > equivalent else None
        ),
    }


def _number(name: str) -> tuple[str, int]:
    head, _, n = name.rpartition("__mutmut_")
    return head, int(n)


def _version() -> str:
    from importlib.metadata import version

    return version("mutmut")


def _diff(name: str) -> str:
    out = subprocess.run([str(MUTMUT), "show", name], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return "\n".join(line for line in out.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
#: where a string literal is a failure's or an error's text, never a value compared or looked up
_MESSAGE = re.compile(r"\.append\(|Malformed\(|Error\(|return \[|\+= \[|^\s*f?\"[^\"]*\"\s*[,)]*\s*$")


def _wording_only(diff: str) -> str | None:
    """The argument for a mutant that changes only the text of a failure message or error (the same
    checks fail or pass: the verdict is the same), else None."""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+")]
    if len(removed) != len(added) or not all(_MESSAGE.search(line) for line in removed):
        return None
    if [_STRING.sub('""', line) for line in removed] != [_STRING.sub('""', line) for line in added]:
        return None
    return "message wording only: the same checks fail on the same input, the failure's text differs"


def note_key(name: str, diff: str) -> str:
    """The mutated function and its changed lines: stable when other mutants are added or removed."""
    function = re.sub(r"__mutmut_\d+$", "", name.rpartition(".")[2]).removeprefix("x_")
    module = name.split(".")[2]
    return f"{module}.{function}: " + " | ".join(f"{line[0]} {line[1:].strip()}" for line in diff.splitlines())


def killer(survivor: dict[str, Any], doc: dict[str, Any]) -> str | None:
    """The first test of the selection that fails against this mutant now (None: it still survives)."""
    if any(s["mutant"] == survivor["mutant"] for s in doc["survivors"]):
        return None
    env = {**os.environ, "MUTANT_UNDER_TEST": survivor["mutant"], "HYPOTHESIS_PROFILE": "mechlib-ci"}
    selection = _selection()
    argv = [sys.executable, "-m", "pytest", "-x", "-q", "-rf", "-p", "no:cacheprovider", "-p", "no:xdist",
            "-p", "no:randomly", "-m", "not slow and not browser", *selection]  # fmt: skip
    out = subprocess.run(argv, cwd=ROOT / "mutants", env=env, capture_output=True, text=True, check=False).stdout
    found = re.search(r"^FAILED (\S+)", out, re.MULTILINE)
    return found.group(1) if found else "killed (by mutmut's run; no single test reproduced it)"


def _selection() -> list[str]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return list(config["pytest_add_cli_args_test_selection"])


def markdown(doc: dict[str, Any]) -> str:
    base = doc.get("baseline", {}).get("modules", {})
    lines = [
        "# Mutation testing of the trusted base (`mechlib/checkers/`)",
        "",
        f"{doc['tool']} via `python3 dev.py mutate` (benchmarks/checker_mutation.py): each mutant of a checker "
        "module against the tests that reach its function. Score = killed (or timed out) / (killed + survived + "
        "no tests); *without equivalent*: the equivalent survivors left out; *not run*: mutants of functions "
        "outside the modules run. *Before*: the full run before tests/test_checker_gaps.py (its seconds); "
        "*seconds*: the last run (with `--survivors`: only the survivors of the run before).",
        "",
        "| module | mutants | not run | killed | timeout | survived | no tests | equivalent | score "
        "| without equivalent | before | seconds |",
        "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
    ]
    rows = [*doc["modules"].items(), ("**all run**", doc["total"])]
    for module, row in rows:
        before = base.get(module, doc.get("baseline", {}).get("total") if module.startswith("**") else None)
        lines.append(
            f"| {module} | {row['mutants']} | {row['not checked']} | {row['killed']} | {row['timeout']} | "
            f"{row['survived']} | {row['no tests']} | {row['equivalent']} | {_pct(row['score'])} | "
            f"{_pct(row['score_without_equivalent'])} "
            f"| {_pct(before['score']) if before else '—'}{_secs(before)} | {row.get('seconds') or '—'} |"
        )
    lines += ["", "## Surviving mutants and why each is equivalent", ""]
    for s in doc["survivors"]:
        why = s["equivalent"] or "**UNEXPLAINED: needs a test or an argument**"
        lines += [f"- `{s['mutant']}` ({s['status']}): {why}", "", _fenced(s["diff"]), ""]
    if not doc["survivors"]:
        lines.append("None.")
    killed = [s for s in doc.get("baseline", {}).get("survivors", []) if s.get("killed_by")]
    if killed:
        lines += ["", "## Survivors before, and the test that kills each now", ""]
        for s in killed:
            lines += [f"- `{s['mutant']}`: `{s['killed_by']}`", "", _fenced(s["diff"]), ""]
    return "\n".join(lines).rstrip() + "\n"


def _fenced(diff: str) -> str:
    return "\n".join(["  ```diff", *(f"  {line}" for line in diff.splitlines()), "  ```"])


def _secs(row: dict[str, Any] | None) -> str:
    return f" ({row['seconds']} s)" if row and row.get("seconds") else ""


def _pct(score: float | None) -> str:
    return "—" if score is None else f"{100 * score:.1f} %"


if __name__ == "__main__":
    raise SystemExit(main())
