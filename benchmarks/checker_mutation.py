"""Mutation testing of the trusted base (``mechlib/checkers/``) with mutmut; writes
reports/checker_mutation.json and .md.

    python -m benchmarks.checker_mutation [MODULE[.FUNCTION] ...] [--max-children N] [--deselect NODEID]
                                          [--survivors] [--new] [--carry-over COMMIT] [--report-only]
                                          [--baseline JSON]
    python3 dev.py mutate [...]        # the same

mutmut's settings are in pyproject.toml (``[tool.mutmut]``): only ``mechlib/checkers/*`` is mutated
(the producers are copied unmutated into ``mutants/`` so that tests can build certificates) and each
mutant runs only the tests of the selection that reach its function, with ``-x``, under the
derandomized Hypothesis profile ``mechlib-ci``. MODULE (``bracket_certificate``, …; default: every
checker module) selects whose mutants run now, MODULE.FUNCTION one function's (``audit_certificate.
_check_user``); results of earlier runs stay in ``mutants/`` and the report covers every mutant run so
far, the seconds each module took, and the mutants not run yet with an estimate of their time.
``--deselect`` leaves a slow test out of this run (the report names it: the module's score is then a
lower bound); mutmut then also drops it from its map of the tests (mutants/mutmut-stats.json), so later
runs leave it out too until that file is removed (a full stats run follows). A test file added to the
selection (``[tool.mutmut]`` in pyproject.toml) keeps every result: mutmut would reset them all on the
changed selection, so that file is removed first (mutants/selection.json records the last selection).

Every surviving mutant is either explained in benchmarks/checker_mutation_equivalent.json (keyed by
its function, the line above the change and the changed lines, so renumbering does not lose the
note) with a one-line argument that it is equivalent, recognised as changing only the text of an
error, or listed as unexplained (exit 1). ``--baseline`` (a report of a first run, before the tests
that kill its survivors) puts that run's scores beside these and counts its survivors killed since;
with ``--find-killers`` the report names, for each, the first test of tests/test_checker_gaps*.py that
kills it now. ``--survivors`` reruns the survivors not argued equivalent, all in one mutmut run.

Results carried over: mutmut keeps a mutant's result in mutants/ until the source of its function
changes (then the function's mutants have no result again; ``--new`` runs only those). A fresh
mutants/ can take over the results of the report committed at COMMIT with ``--carry-over COMMIT``
(after a first run has generated the mutants): for each function whose source text is the same now
as at COMMIT, in a module that report ran completely (every mutant killed or survived), a mutant is
survived if the report lists it as a survivor, else killed. The report counts these per module
(*carried*) until they are run again. A carried kill assumes the tests that killed it still do: the
tests of the selection have only been added to since, and a changed helper the function calls is not
seen by the comparison (as with mutmut's own per-function hashes).

Long: mutmut 3.8 makes 8,468 mutants of the checkers (audit_certificate 2806, standard_users 1360,
blackbox_result 1310, approximate_dp 724, universal_certificate 579, unique_optimum 396, blackbox_delta
387, bracket_certificate 344, ratio_test 340, fields 115, numbers 107), generated in ~70 s; the stats
run (every test of the selection once, traced) took ~8 min on the shared 2-core machine (~15 min under
load); then each mutant is a fork running the tests that reach its function (bracket_certificate: ~10
min of mutant runs; universal_certificate ~8 mutants a minute, its tests build remap-cell proofs).
It runs niced beside other work, one mutant at a time (the default ``--max-children 1``):
``nice -n 10 python3 dev.py mutate bracket_certificate``. Never part of CI's test tier.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import functools
import json
import os
import re
import shlex
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
CARRIED = ROOT / "mutants" / "carried.json"
STATS = ROOT / "mutants" / "mutmut-stats.json"
#: the test selection of the last run, beside mutmut's stats (which keep only its hash)
SELECTION = ROOT / "mutants" / "selection.json"
#: a survivor of the baseline run whose mutant has no result now (its function changed, or is not run yet)
NOT_RUN = "not run since"
#: the statuses a mutant can have in the report; mutmut's others (segfault, suspicious, interrupted, …) are
#: counted as "other", outside the score, and named in the report
COLUMNS = ("killed", "timeout", "survived", "no tests", "not checked")


def modules() -> list[str]:
    return sorted(p.stem for p in CHECKERS.glob("*.py") if p.stem != "__init__")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.checker_mutation", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument("modules", nargs="*", metavar="MODULE[.FUNCTION]",
                        help=f"checker modules (or one function of one) to mutate now ({modules()})")  # fmt: skip
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutant runs (default 1)")
    parser.add_argument("--report-only", action="store_true", help="no mutmut run: report what mutants/ holds")
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="rerun only the last run's survivors (and mutants no test reached) not argued equivalent; with --new, "
        "both in one run",
    )
    parser.add_argument(
        "--new",
        action="store_true",
        help="run only the mutants with no result yet (new or changed functions), of all selections in one run",
    )
    parser.add_argument("--carry-over", metavar="COMMIT",
                        help="first take over the results of the report committed at COMMIT for the functions "
                        "unchanged since (see the module's documentation)")  # fmt: skip
    parser.add_argument(
        "--baseline", type=Path, help="an earlier report: its scores beside these, its survivors killed since"
    )
    parser.add_argument("--find-killers", action="store_true",
                        help="with --baseline: name the test of tests/test_checker_gaps*.py that kills each survivor "
                        "of the baseline now (one pytest run per survivor)")  # fmt: skip
    parser.add_argument("--reports", type=Path, default=ROOT / "reports", help="where the report goes")
    parser.add_argument("--deselect", action="append", default=[], metavar="NODEID",
                        help="a (slow) test not run against this run's mutants, as pytest --deselect; "
                        "named in the report, whose score for the module is then a lower bound")  # fmt: skip
    args = parser.parse_args(argv)
    unknown = sorted({m for m in args.modules if m.partition(".")[0] not in modules()})
    if unknown:
        parser.error(f"not a checker module: {', '.join(unknown)} (expected one of {', '.join(modules())})")
    if args.baseline and not args.baseline.is_file():
        parser.error(f"--baseline {args.baseline}: no such report (expected a checker_mutation.json)")
    old = _load(args.reports / "checker_mutation.json")
    seconds: dict[str, float] = old.get("seconds", {})
    deselected: dict[str, list[str]] = old.get("deselected", {})
    # which functions each test reaches, read before mutmut runs: with --deselect, mutmut's listing of
    # the tests leaves the test out and drops it from this map (mutants/mutmut-stats.json)
    reach = _stats()["tests_by_mangled_function_name"]
    mapped = set().union(*reach.values())  # every test mutmut's map knows
    if args.carry_over:
        print(f"checker_mutation: carried over from {args.carry_over}: {carry_over(args.carry_over)}")
    if not args.report_only:
        _keep_results_across_added_tests()
        addopts = " ".join(shlex.quote(f"--deselect={test}") for test in args.deselect)
        env = {**os.environ, "HYPOTHESIS_PROFILE": "mechlib-ci", "PYTEST_ADDOPTS": addopts}
        # one mutmut run per selection; the survivors (or the new mutants) of all selections in one (a run
        # costs minutes before its first mutant), its time shared out among the modules by their number of mutants
        selections = args.modules or modules()
        for run in [selections] if args.survivors or args.new else [[selection] for selection in selections]:
            names = {selection: _names(selection, args.survivors, args.new) for selection in run}
            if not any(names.values()):
                continue
            start = time.monotonic()
            argv_ = [
                str(MUTMUT),
                "run",
                "--max-children",
                str(args.max_children),
                *(n for v in names.values() for n in v),
            ]
            code = subprocess.run(argv_, cwd=ROOT, env=env, check=False).returncode
            if code != 0:
                print(f"checker_mutation: mutmut exited {code} on {' '.join(run)}; no report written", file=sys.stderr)
                return 2
            elapsed, total = time.monotonic() - start, sum(len(v) for v in names.values())
            for selection, found in names.items():
                module, _, function = selection.partition(".")
                # a whole module's run replaces its time; a function's, the new mutants' or the survivors' adds to it
                whole = not function and not args.survivors and not args.new
                share = elapsed * len(found) / total
                seconds[module] = round(share + (0 if whole else seconds.get(module, 0)))
                # a left-out test counts for a module if it reaches one of the module's functions, or if
                # mutmut's map does not know the test (left out of every run since the map was made)
                mine = {
                    t
                    for t in args.deselect
                    if t not in mapped or any(t in reach[f] for f in reach if f.split(".")[2] == module)
                }
                deselected[module] = sorted(mine | (set() if whole else set(deselected.get(module, []))))
    left_out = {module: tests for module, tests in deselected.items() if tests}
    doc = summarise(seconds, _load(NOTES), set(left_out))
    doc["deselected"] = left_out
    if any(row.get("carried") for row in doc["modules"].values()):
        doc["carried_from"] = _load(CARRIED)["commit"]
    if not any(row["run"] for row in doc["modules"].values()):
        print("checker_mutation: no mutant has been run yet (mutants/ holds no result); no report written")
        return 2
    baseline = _load(args.baseline) if args.baseline else old.get("baseline")
    if baseline:
        known = {s["mutant"]: s.get("killed_by") for s in old.get("baseline", {}).get("survivors", [])}
        doc["baseline"] = {k: baseline[k] for k in ("modules", "total")}
        alive = {s["mutant"] for s in doc["survivors"]}
        ran = {name for module in modules() for name, code in _codes(module).items() if code is not None}
        doc["baseline"]["survivors"] = [
            {"mutant": s["mutant"], "key": s["key"],
             "killed_by": None if s["mutant"] in alive else NOT_RUN if s["mutant"] not in ran
             else known.get(s["mutant"]) if known.get(s["mutant"]) not in (None, NOT_RUN)
             else killer(s) if args.find_killers else "killed (a rerun of the survivors)"}
            for s in baseline["survivors"]
        ]  # fmt: skip
    write_atomic(args.reports / "checker_mutation.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    text = markdown(doc)
    write_atomic(args.reports / "checker_mutation.md", text)
    print(text, end="")
    return 1 if any(s["equivalent"] is None for s in doc["survivors"]) else 0


def _keep_results_across_added_tests() -> None:
    """mutmut resets every mutant's result when ``[tool.mutmut]``'s test selection differs from its
    stats run's, though tests added to it can only kill more: when the selection only grew, its stats
    file is removed instead — mutmut then collects its map of the tests afresh and keeps the results
    (a selection that lost a test is left to mutmut's reset: a kill by the lost test no longer stands)."""
    import tomllib

    now = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
    before = _load(SELECTION).get("selection")
    if before is not None and before != now and set(before) <= set(now) and STATS.is_file():
        print(f"checker_mutation: tests added to the selection ({', '.join(sorted(set(now) - set(before)))}): "
              "mutmut's stats are collected afresh, its results kept")  # fmt: skip
        STATS.unlink()
    if STATS.parent.is_dir():
        write_atomic(SELECTION, json.dumps({"selection": now}, indent=1) + "\n")


def _names(selection: str, survivors: bool, new: bool = False) -> list[str]:
    """The mutants of MODULE[.FUNCTION] to run: all (as mutmut's pattern), or those with no result yet
    (``new``) and/or the last run's survivors and mutants no test reached, not argued equivalent
    (``survivors``: they would only survive again)."""
    module, _, function = selection.partition(".")
    if not (survivors or new):
        return [f"mechlib.checkers.{module}." + (f"x_{function}__mutmut_*" if function else "*")]
    codes = _codes(module)
    names = [n for n, code in codes.items() if new and code is None]
    if survivors:
        notes = _load(NOTES)
        names += [n for n in _survivors(module) if not (notes.get(note_key(n, _diff(n))) or _wording_only(_diff(n)))]
    return [n for n in names if not function or _function(n) == function]


def carry_over(commit: str) -> dict[str, int]:
    """Take over the results of the report committed at ``commit`` into mutmut's record (mutants/…/M.py.meta)
    for the functions whose source is unchanged since, in the modules that report ran completely; the
    mutants carried, by module (their names go to mutants/carried.json)."""
    old = json.loads(_git("show", f"{commit}:reports/checker_mutation.json"))
    if old["tool"] != f"mutmut {_version()}":
        raise SystemExit(
            f"checker_mutation: --carry-over {commit}: its report is by {old['tool']}, not mutmut {_version()} "
            "(another version numbers the mutants otherwise); run the modules instead"
        )
    lived = {s["mutant"] for s in old["survivors"]}
    carried: dict[str, list[str]] = {}
    for module, row in old["modules"].items():
        path = ROOT / "mutants" / "mechlib" / "checkers" / f"{module}.py.meta"
        if not row["run"] or row["killed"] + row["survived"] != row["mutants"] or not path.exists():
            continue
        before = _sources(_git("show", f"{commit}:mechlib/checkers/{module}.py"))
        now = _sources((CHECKERS / f"{module}.py").read_text())
        meta = _load(path)
        same = {name for name in meta["exit_code_by_key"] if before.get(_mangled(name), "") == now.get(_mangled(name))}
        missing = sorted({n for n in lived if n.split(".")[2] == module and _mangled(n) in {_mangled(m) for m in same}}
                         - same)  # fmt: skip
        if missing:  # the same source must give the same mutants
            raise SystemExit(f"checker_mutation: --carry-over {commit}: its survivors {missing} are not mutants now")
        meta["exit_code_by_key"].update({name: 0 if name in lived else 1 for name in same})
        write_atomic(path, json.dumps(meta, indent=4))
        carried[module] = sorted(same)
    write_atomic(CARRIED, json.dumps({"commit": commit, "mutants": carried}, indent=1) + "\n")
    return {module: len(names) for module, names in carried.items()}


def _git(*argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def _sources(text: str) -> dict[str, str | None]:
    """The source of each function and method, by mutmut's mangled name (x_f, xǁClassǁmethod)."""
    tree = ast.parse(text)
    found: dict[str, str | None] = {}
    for node in tree.body:
        methods = [(f"xǁ{node.name}ǁ", f) for f in node.body] if isinstance(node, ast.ClassDef) else [("x_", node)]
        for prefix, f in methods:
            if isinstance(f, ast.FunctionDef):
                found[prefix + f.name] = ast.get_source_segment(text, f)
    return found


def _mangled(name: str) -> str:
    return name.rpartition(".")[2].partition("__mutmut_")[0]


def _carried(module: str, meta: dict[str, Any]) -> set[str]:
    """The module's mutants whose result was carried over and not run since."""
    codes, ran = meta.get("exit_code_by_key", {}), meta.get("durations_by_key", {})
    names = _load(CARRIED).get("mutants", {}).get(module, [])
    return {n for n in names if codes.get(n) is not None and n not in ran}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {}


def _meta(module: str) -> dict[str, Any]:
    """mutmut's record of a module's mutants: exit code and seconds of each run one."""
    return _load(ROOT / "mutants" / "mechlib" / "checkers" / f"{module}.py.meta")


def _codes(module: str) -> dict[str, int | None]:
    return dict(_meta(module).get("exit_code_by_key", {}))


def status(code: int | None) -> str:
    """A mutant's status as mutmut names it (mutmut.stats.status_by_exit_code)."""
    from mutmut.stats import status_by_exit_code

    return str(status_by_exit_code[code])


def _survivors(module: str) -> list[str]:
    return [name for name, code in _codes(module).items() if status(code) in ("survived", "no tests")]


def summarise(seconds: dict[str, float], notes: dict[str, str], partial: set[str] | None = None) -> dict[str, Any]:
    """Per module: mutants by status and the score killed / (killed + survived + no tests); the
    survivors with their diff and, when it is one, the argument that they are equivalent; the
    modules (or their mutants) not run yet, with the time they would take (measured on the modules
    run without a test left out, ``partial``)."""
    per_module: dict[str, dict[str, Any]] = {}
    survivors = []
    spent: dict[str, float] = {}
    worst_run: dict[str, float] = dict.fromkeys(modules(), 0.0)
    worst_left: dict[str, float] = dict.fromkeys(modules(), 0.0)
    for module in modules():
        meta = _meta(module)
        codes: dict[str, int | None] = meta.get("exit_code_by_key", {})
        statuses = {name: status(code) for name, code in codes.items()}
        counts = Counter(s if s in COLUMNS else "other" for s in statuses.values())
        carried = _carried(module, meta)
        for name, s in statuses.items():
            if name not in carried:  # a carried result took no time here
                (worst_left if s == "not checked" else worst_run)[module] += _worst_case(name)
        spent[module] = sum(meta.get("durations_by_key", {}).values())
        if counts["not checked"] == len(codes):
            per_module[module] = {"mutants": len(codes), "run": False}
            continue
        lived = _survivors(module)
        for name in sorted(lived, key=_number):
            diff = _diff(name)
            key = note_key(name, diff)
            survivors.append({"mutant": name, "key": key, "status": statuses[name], "diff": diff,
                              "equivalent": notes.get(key) or _wording_only(diff)})  # fmt: skip
        counts["equivalent"] = sum(1 for s in survivors if s["mutant"] in lived and s["equivalent"] is not None)
        counts["mutants"] = len(codes)
        other = sorted({s for s in statuses.values() if s not in COLUMNS})
        per_module[module] = {"run": True, **_scores(counts), "carried": len(carried), "other_statuses": other,
                              "seconds": seconds.get(module), "mutant_seconds": round(spent[module])}  # fmt: skip
    # mutants not run: the tests that reach each one's function (its time if it survives), scaled by
    # the measured ratio of the mutants run (most are killed by their first failing test, -x)
    measured = [module for module in modules() if module not in (partial or set())]
    worst = sum(worst_run[module] for module in measured)
    ratio = sum(spent.get(module, 0.0) for module in measured) / worst if worst else None
    for module, row in per_module.items():
        if worst_left[module] and ratio is not None:
            row["not_run_estimate_seconds"] = round(worst_left[module] * ratio)
    totals: Counter[str] = Counter()
    for row in per_module.values():
        if row["run"]:
            totals.update({k: row[k] for k in ("mutants", "killed", "timeout", "survived", "no tests", "not checked",
                                               "other", "equivalent")})  # fmt: skip
    return {"tool": f"mutmut {_version()}", "modules": per_module, "seconds": seconds,
            "estimate_ratio": None if ratio is None else round(ratio, 4),
            "total": {**_scores(totals), "carried": sum(row.get("carried", 0) for row in per_module.values())},
            "survivors": survivors}  # fmt: skip


def _worst_case(name: str) -> float:
    """Seconds of the tests that reach a mutant's function (mutmut's stats run)."""
    stats = _stats()
    tests = stats["tests_by_mangled_function_name"].get(name.partition("__mutmut_")[0], [])
    return float(sum(stats["duration_by_test"].get(t, 0.0) for t in tests))


_STATS: dict[str, Any] = {}


def _stats() -> dict[str, Any]:
    if not _STATS:
        _STATS.update(_load(ROOT / "mutants" / "mutmut-stats.json") or {"tests_by_mangled_function_name": {},
                                                                         "duration_by_test": {}})  # fmt: skip
    return _STATS


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
        "other": counts["other"],
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
    """The changed lines, after the unchanged line above them (a bare ``continue`` → ``break`` is
    told apart from another one by it)."""
    lines = [line for line in _show(name).splitlines() if line[:3] not in ("+++", "---") and line[:2] != "@@"]
    changed = [k for k, line in enumerate(lines) if line[:1] in "+-"]
    above = [line for line in lines[: changed[0]] if line.startswith(" ") and line.strip()][-1:] if changed else []
    return "\n".join([*above, *(lines[k] for k in changed)])


def _show(name: str) -> str:
    """What ``mutmut show`` prints, from mutants/ directly: the original function against the mutant."""
    module, mutant = name.split(".")[2], name.rpartition(".")[2]
    functions = _functions(module)
    original = functions[mutant.partition("__mutmut_")[0] + "__mutmut_orig"]
    name_back = functools.partial(re.sub, r"def \S+?__mutmut_\w+\(", f"def {_function(name).rpartition('ǁ')[2]}(")
    old, new = ([name_back(lines[0]), *lines[1:]] for lines in (original, functions[mutant]))
    return "\n".join(difflib.unified_diff(old, new, lineterm="", n=3))


@functools.cache
def _functions(module: str) -> dict[str, list[str]]:
    """The source lines of each function (and method) in mutants/ of a checker module, by name."""
    text = (ROOT / "mutants" / "mechlib" / "checkers" / f"{module}.py").read_text()
    lines = text.splitlines()
    return {f.name: lines[f.lineno - 1 : f.end_lineno] for f in ast.walk(ast.parse(text))
            if isinstance(f, ast.FunctionDef) and f.end_lineno is not None}  # fmt: skip


#: a raise of an error with one argument, its text
_RAISED = re.compile(r"\s*raise (?P<call>\w+)\((?P<text>.*)\)\s*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
#: where a string literal is a failure's or an error's text, never a value compared or looked up
_MESSAGE = re.compile(r"\.append\(|Malformed\(|Error\(|return \[|\+= \[|^\s*f?\"[^\"]*\"\s*[,)]*\s*$")


def _wording_only(diff: str) -> str | None:
    """The argument for a mutant that changes only the text of a failure message or error (the same
    checks fail or pass: the verdict is the same), else None."""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+")]
    if len(removed) == len(added) == 1 and _where_only(removed[0], added[0]):
        return "message wording only: a where/kind argument, used only in the text of an error, differs"
    if len(removed) == len(added) == 1 and _RAISED.fullmatch(removed[0]) and _RAISED.fullmatch(added[0]):
        old, new = (_RAISED.fullmatch(line) for line in (removed[0], added[0]))
        if old and new and old["call"] == new["call"] and new["text"] == "None":  # the error's text "None"
            return "message wording only: the same error is raised, its text is None"
    appended = r"\s*(failures|out)\.append\((None|f?[\"'].*[\"'])\)\s*"  # a failure's text, or None
    if len(removed) == len(added) == 1 and added[0].strip().endswith("(None)") and re.fullmatch(appended, removed[0]):
        return "message wording only: the same check fails (its failure is listed), its text is None"
    if len(removed) != len(added) or not all(_MESSAGE.search(line) for line in removed):
        return None
    if [_STRING.sub('""', line) for line in removed] != [_STRING.sub('""', line) for line in added]:
        return None
    return "message wording only: the same checks fail on the same input, the failure's text differs"


def _where_only(removed: str, added: str) -> bool:
    """The two lines differ in one string constant (or None) only, and it is the ``where`` (or
    ``kind``) argument of a checker helper that uses it only in the text of its errors."""
    try:
        # a compound statement's header (if …:, for …:) is parsed with an empty body
        old, new = (
            ast.parse(line.strip() + (" pass" if line.rstrip().endswith(":") else "")) for line in (removed, added)
        )
    except SyntaxError:
        return False
    old, new = _WhereAsText().visit(old), _WhereAsText().visit(new)
    if len(list(ast.walk(old))) != len(list(ast.walk(new))):
        return False
    calls = [a for a in ast.walk(old) if isinstance(a, ast.Call)]
    differing = [(a, b) for a, b in zip(ast.walk(old), ast.walk(new)) if ast.dump(a) != ast.dump(b)]
    # a message replaced by another string or None
    leaves = [(a, b) for a, b in differing if isinstance(a, ast.Constant) and isinstance(b, ast.Constant)]
    if len(leaves) != 1 or not isinstance(leaves[0][1].value, (str, type(None))):
        return False
    leaf = leaves[0][0]
    for call in calls:
        name = call.func.id if isinstance(call.func, ast.Name) else None
        position = _message_parameters().get(name or "")
        if position is not None and len(call.args) > position and call.args[position] is leaf:
            return all(any(n is leaf for n in ast.walk(a)) for a, _ in differing)  # nothing else differs
    return False


class _WhereAsText(ast.NodeTransformer):
    """``where`` and f-strings as one text each (a where passed on, or built from it, is message text)."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Constant("{where}") if node.id == "where" else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.Constant(ast.unparse(node))


@functools.cache
def _message_parameters() -> dict[str, int]:
    """Checker helpers and the position of their ``where`` (or ``name``) parameter, for those whose
    ``where`` only enters f-strings (error texts) or another such helper's ``where`` (checked here on
    the source); ``precheck``'s ``kind`` (mechlib/schemas: "malformed {kind}: …")."""
    found: dict[str, int] = {"precheck": 2}
    functions = [f for path in sorted(CHECKERS.glob("*.py")) for f in ast.walk(ast.parse(path.read_text()))
                 if isinstance(f, ast.FunctionDef)]  # fmt: skip
    for f in functions:
        names = [a.arg for a in f.args.args]
        for parameter in ("where", "name"):
            if parameter in names:
                found[f.name] = names.index(parameter)
                break
    changed = True
    while changed:  # drop a helper whose where is used otherwise (compared, indexed, returned, …)
        changed = False
        for f in functions:
            if f.name in found and not _where_in_messages(f, found):
                del found[f.name]
                changed = True
    return found


def _where_in_messages(f: ast.FunctionDef, helpers: dict[str, int]) -> bool:
    """Every use of ``f``'s ``where`` (or ``name``) is inside an f-string or a helper's ``where`` argument."""
    allowed: set[int] = set()
    for node in ast.walk(f):
        if isinstance(node, ast.JoinedStr):
            allowed |= {id(n) for n in ast.walk(node)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            position = helpers[node.func.id]
            if len(node.args) > position:
                allowed |= {id(n) for n in ast.walk(node.args[position])}
    parameter = next((a.arg for a in f.args.args if a.arg in ("where", "name")), "where")
    uses = [n for n in ast.walk(f) if isinstance(n, ast.Name) and n.id == parameter]
    return all(id(n) in allowed for n in uses)


def _function(name: str) -> str:
    """The function a mutant changes: mechlib.checkers.M.x_F__mutmut_N → F."""
    return re.sub(r"__mutmut_\d+$", "", name.rpartition(".")[2]).removeprefix("x_")


def note_key(name: str, diff: str) -> str:
    """The mutated function, the line above the change and the changed lines: stable when other
    mutants are added or removed."""
    module = name.split(".")[2]
    return f"{module}.{_function(name)}: " + " | ".join(
        f"{line[0].strip() or '@'} {line[1:].strip()}" for line in diff.splitlines()
    )


def killer(survivor: dict[str, Any]) -> str:
    """The first test of tests/test_checker_gaps*.py (where the tests aimed at survivors are) that fails
    against this (no longer surviving) mutant; run in mutants/, on the tests of the last run."""
    env = {**os.environ, "MUTANT_UNDER_TEST": survivor["mutant"], "HYPOTHESIS_PROFILE": "mechlib-ci"}
    argv = [sys.executable, "-m", "pytest", "-x", "-q", "-rf", "-p", "no:cacheprovider", "-p", "no:xdist",
            "-p", "no:randomly", "-m", "not slow and not browser",
            *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_checker_gaps*.py"))]  # fmt: skip
    out = subprocess.run(argv, cwd=ROOT / "mutants", env=env, capture_output=True, text=True, check=False).stdout
    found = re.search(r"^FAILED (\S+)", out, re.MULTILINE)
    return found.group(1) if found else "killed by mutmut's run (by a test outside tests/test_checker_gaps*.py)"


def markdown(doc: dict[str, Any]) -> str:
    base = doc.get("baseline", {}).get("modules", {})
    run = {module: row for module, row in doc["modules"].items() if row["run"]}
    lines = [
        "# Mutation testing of the trusted base (`mechlib/checkers/`)",
        "",
        f"{doc['tool']} via `python3 dev.py mutate` (benchmarks/checker_mutation.py): each mutant of a checker "
        "module against the tests that reach its function, each in its own forked test run, one or two at a "
        "time (`--max-children`). "
        "Score = killed (or timed out) / (killed + survived + no tests); *without equivalent*: the equivalent "
        "survivors left out; *not run*: mutants of the module not run yet (see below); *other*: mutmut's "
        "other statuses (segfault, suspicious, interrupted), outside the score. *Before*: the score of the "
        "first run (`--baseline`), before the tests written against its survivors; *seconds*: wall time of "
        "the module's runs (mutant generation and mutmut's stats run included), *mutant s*: the mutants' own "
        "test runs (the last run of each); *carried*: results taken over from an earlier report for functions "
        "unchanged since (`--carry-over`), not run again here"
        + (
            f" (the report at {doc['carried_from']})."
            if "carried_from" in doc
            else " (none: every result is from a run here)."
        ),
        "",
        "| module | mutants | carried | not run | killed | timeout | survived | no tests | other | equivalent | score "
        "| without equivalent | before | seconds | mutant s |",
        "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
    ]
    for module, row in [*run.items(), ("**all run**", doc["total"])]:
        before = base.get(module, doc.get("baseline", {}).get("total") if module.startswith("**") else None)
        lines.append(
            f"| {module} | {row['mutants']} | {row.get('carried', 0)} | {row['not checked']} | {row['killed']} | "
            f"{row['timeout']} | "
            f"{row['survived']} | {row['no tests']} | {row['other']} | {row['equivalent']} | {_pct(row['score'])} | "
            f"{_pct(row['score_without_equivalent'])} "
            f"| {_pct(before.get('score')) if before else '—'}{_secs(before)} | {row.get('seconds') or '—'} "
            f"| {row.get('mutant_seconds', '—')} |"
        )
    left = {module: row for module, row in doc["modules"].items() if not row["run"] or row["not checked"]}
    lines += ["", "## Not run", ""]
    if left:
        lines += [
            "Not run yet (`python3 dev.py mutate MODULE` runs them). Estimate: the seconds of the tests that "
            "reach each mutant's function (its time if it "
            f"survives), times the ratio measured on the mutants run ({doc['estimate_ratio']}; modules with a test "
            "left out not counted), plus a few minutes per run for mutmut's start (listing and running the tests).",
            "",
            "| module | mutants not run | estimated seconds |",
            "| --- | --: | --: |",
        ]
        for module, row in left.items():
            count = row["not checked"] if row["run"] else row["mutants"]
            estimate = row.get("not_run_estimate_seconds", "— (no test of the selection reaches it)")
            lines.append(f"| {module} | {count} | {estimate} |")
    else:
        lines.append("None: every mutant of every checker module was run.")
    if doc.get("deselected"):
        lines += ["", "## Tests not run against a module's mutants", "",
                  "Left out (`--deselect`) for their time; a mutant only they kill counts as surviving here, so "
                  "the module's score is a lower bound.", ""]  # fmt: skip
        lines += [f"- {module}: `{test}`" for module, tests in doc["deselected"].items() for test in tests]
    lines += ["", "## Surviving mutants and why each is equivalent", ""]
    for s in doc["survivors"]:
        why = s["equivalent"] or "**UNEXPLAINED: needs a test or an argument**"
        lines += [f"- `{s['mutant']}` ({s['status']}): {why}", "", _fenced(s["diff"]), ""]
    if not doc["survivors"]:
        lines.append("None.")
    before = doc.get("baseline", {}).get("survivors", [])
    if before:
        killed = [s for s in before if s.get("killed_by") not in (None, NOT_RUN)]
        unrun = sum(s.get("killed_by") == NOT_RUN for s in before)
        lines += ["", "## Survivors of the first run, killed since", "",
                  f"{len(killed)} of the {len(before)} survivors of the first run are killed now, by the tests "
                  f"written against them (tests/test_checker_gaps*.py; {unrun} not run since, their functions "
                  "changed or not run yet); checker_mutation.json lists each"
                  + (" with the test that kills it." if any(s["killed_by"].startswith("tests/") for s in killed)
                     else " (`--find-killers` names the test).")]  # fmt: skip
    return "\n".join(lines).rstrip() + "\n"


def _fenced(diff: str) -> str:
    return "\n".join(["  ```diff", *(f"  {line}" for line in diff.splitlines()), "  ```"])


def _secs(row: dict[str, Any] | None) -> str:
    return f" ({row['seconds']} s)" if row and row.get("seconds") else ""


def _pct(score: float | None) -> str:
    return "—" if score is None else f"{100 * score:.1f} %"


if __name__ == "__main__":
    raise SystemExit(main())
