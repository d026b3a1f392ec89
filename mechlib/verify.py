"""``mechlib verify``: run the claim registry and write ``reports/verify.json`` and ``verify.md``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mechlib import __version__
from mechlib.audit.loading import write_atomic
from mechlib.provenance import package_versions
from mechlib.rendering import render

SCHEMA = "mechlib.verify/1"


def select(only: Iterable[str] = (), paper: str | None = None) -> list[Any]:
    """The registered claims, filtered by ID and paper, in ID order."""
    from mechlib.errors import InputError

    try:
        from mechlib.proofs import REGISTRY
    except ImportError as err:
        raise InputError(
            f"the claim checks need {err.name or 'more packages'}", hint="pip install 'mechlib[proofs]'"
        ) from None

    wanted = list(only)
    unknown = [i for i in wanted if i not in REGISTRY]
    if unknown:
        raise InputError(f"unknown claim ID(s) {unknown}", field="--only", hint=f"registered: {sorted(REGISTRY)}")
    claims = [REGISTRY[i] for i in sorted(REGISTRY) if (not wanted or i in wanted)]
    if paper is not None:
        claims = [c for c in claims if c.paper.upper() == paper.upper()]
    return claims


class Interrupted(Exception):
    """``verify`` was stopped (Ctrl-C, SIGTERM) after deciding ``results``; the rest did not run."""

    def __init__(self, results: list[Any], not_run: list[str]) -> None:
        super().__init__(f"interrupted after {len(results)} claims ({len(not_run)} not run)")
        self.results, self.not_run = results, not_run


def run(
    claims: list[Any],
    *,
    jobs: int = 1,
    timeout: float | None = None,
    progress: str | bool | None = None,
    scheduler: str | None = None,
) -> list[Any]:
    """Run the claims on the Dask engine (:mod:`mechlib.engine`: a local cluster of ``jobs``
    workers, or ``scheduler``), each implemented one in a child process that is stopped at
    ``timeout`` seconds (UNKNOWN, "timed out"). Results in input order.

    With ``jobs == 1``, no timeout and no scheduler the claims run in this process, one after
    another (the single-process reference run). A ``KeyboardInterrupt`` (Ctrl-C; the command
    turns SIGTERM into one) raises :class:`Interrupted` with what was decided so far.
    """
    from mechlib.proofs.registry import run_claim

    with _Reporter(len(claims), progress) as reporter:
        try:
            if jobs == 1 and timeout is None and scheduler is None:
                for c in claims:
                    reporter.done(run_claim(c))
            else:
                _on_engine(claims, jobs, timeout, scheduler, reporter.done)
        except KeyboardInterrupt:
            done = [reporter.results[c.id] for c in claims if c.id in reporter.results]
            raise Interrupted(done, [c.id for c in claims if c.id not in reporter.results]) from None
    return [reporter.results[c.id] for c in claims]


class _Reporter:
    """Collects results by claim ID and shows progress: a rich bar (``"bar"``, on a terminal),
    a line per finished claim on stderr (``"lines"``, in a pipe or CI), or nothing."""

    def __init__(self, total: int, progress: str | bool | None) -> None:
        self.results: dict[str, Any] = {}
        self.finished = 0  # not len(results): a claim's mutants share its ID
        self.total = total
        self.mode = "bar" if progress is True else progress or None
        self.bar: Any = None
        if self.mode == "bar":
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            columns = (TextColumn("[bold]verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            self.bar = Progress(*columns, TextColumn("{task.description}"), transient=True)
            self.task = self.bar.add_task("", total=total)

    def __enter__(self) -> _Reporter:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def done(self, result: Any) -> None:
        self.results[result.claim.id] = result
        self.finished += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=result.claim.id)
        elif self.mode == "lines":
            import sys

            verdict = result.outcome.verdict.value
            print(
                f"verify {self.finished}/{self.total} {result.claim.id} {verdict} ({result.seconds:.1f} s)",
                file=sys.stderr,
                flush=True,
            )


def claim_outcome(claim_id: str, mutant: str | None = None) -> tuple[Any, float]:
    """An engine task: one claim's outcome and time (in a mutant's world, if named)."""
    from mechlib.proofs import REGISTRY
    from mechlib.proofs.registry import run_claim

    if mutant is None:
        result = run_claim(REGISTRY[claim_id])
    else:
        import mechlib.proofs.falsifications  # noqa: F401  (registers the mutants)
        from mechlib.proofs.mutants import run_mutant

        result = run_mutant(mutant, claim_id).result
    return result.outcome, result.seconds


def run_mutants(
    claims: list[Any],
    *,
    jobs: int = 1,
    timeout: float | None = None,
    progress: str | bool | None = None,
    scheduler: str | None = None,
) -> list[Any]:
    """Every registered mutant of the selected claims, each (mutant, claim) one engine task in its
    own child process (stopped at ``timeout``: UNKNOWN, which kills the mutant), all submitted at
    once. MutantResults in a stable order."""
    import mechlib.proofs.falsifications  # noqa: F401  (registers the mutants)
    from mechlib.proofs.mutants import MUTANTS, MutantResult, pairs

    wanted = {c.id: c for c in claims}
    chosen = pairs(list(wanted))
    found: dict[tuple[str, str], Any] = {}
    with _Reporter(len(chosen), progress) as reporter:
        jobs_by_key = {f"mutant-{k}": (name, wanted[claim]) for k, (name, claim) in enumerate(chosen)}

        def done(key: str, result: Any) -> None:
            name, claim = jobs_by_key[key]
            found[(name, claim.id)] = MutantResult(MUTANTS[name], claim.id, result)
            reporter.done(result)

        _on_engine(list(jobs_by_key.items()), jobs, timeout, scheduler, done, mutants=True)
    return [found[pair] for pair in chosen]


#: Environment a claim's child process needs, passed with each task (a remote worker has its own).
_PASSED_ENV = (
    "MECHLIB_FUZZ_SCALE", "MECHLIB_FUZZ_SEED", "MECHLIB_COUNTEREXAMPLES", "HYPOTHESIS_PROFILE", "MECHLIB_SEARCH",
    "MECHLIB_CACHE", "HYPOTHESIS_STORAGE_DIRECTORY",
)  # fmt: skip


def _task_env() -> dict[str, str]:
    import os

    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    where = env.get("MECHLIB_COUNTEREXAMPLES", "reports/counterexamples")  # empty: not saved
    env["MECHLIB_COUNTEREXAMPLES"] = str(Path(where).resolve()) if where else ""
    return env


#: Claims that take longest (reports/verify.json, 2 cores), submitted first: a scheduling hint only —
#: every claim runs and decides the same way in any order.
LONGEST_FIRST = ("GRS-C3.3", "GRS-T3.2", "GRS-LP", "DOM", "BN-path", "GS-L3", "GS-L1", "GS-L5", "GRS-L5.6", "GS-T2")


#: What a claim task imports (the registry: every claim module), and a mutant's task too (the
#: registered mutants): imported once per worker by the process tasks are forked from.
PRELOAD, MUTANT_PRELOAD = ("mechlib.proofs",), ("mechlib.proofs", "mechlib.proofs.falsifications")


def _on_engine(
    work: list[Any], jobs: int, timeout: float | None, scheduler: str | None, done: Any, mutants: bool = False
) -> None:
    """Claims (or (key, (mutant, claim)) pairs) as engine tasks; ``done`` gets each Result (with
    its key, for mutants). A task that timed out or whose process died is UNKNOWN."""
    from mechlib.engine import Task, TaskResult, run_all
    from mechlib.proofs.registry import Result, outcome_of_task, run_claim

    env = _task_env()
    tasks, claim_of = [], {}
    if not mutants:  # the longest first, so that two workers finish together (results keep input order)
        work = sorted(work, key=lambda c: LONGEST_FIRST.index(c.id) if c.id in LONGEST_FIRST else len(LONGEST_FIRST))
    for item in work:
        if mutants:
            key, (name, claim) = item
            kwargs = {"claim_id": claim.id, "mutant": name}
        else:
            key, claim, kwargs = item.id, item, {"claim_id": item.id}
            if not claim.implemented:
                done(run_claim(claim))  # answers at once: "not implemented yet"
                continue
        claim_of[key] = claim
        tasks.append(Task(key, "mechlib.verify:claim_outcome", kwargs, timeout=timeout, env=env,
                          preload=MUTANT_PRELOAD if mutants else PRELOAD))  # fmt: skip

    def finished(result: TaskResult) -> None:
        answer = Result(claim_of[result.key], *outcome_of_task(result))
        done(result.key, answer) if mutants else done(answer)

    run_all(tasks, jobs=jobs, scheduler=scheduler, done=finished)


VERDICTS = ("PROVED", "NO COUNTEREXAMPLE", "REFUTED", "UNKNOWN")
STRENGTHS = ("ALL-n", "BOUNDED", "INSTANCES", "SAMPLED")


def report(results: list[Any], wall_seconds: float | None = None, not_run: list[str] | None = None) -> dict[str, Any]:
    """The verify report; ``seconds`` is the sum of the claims' own times, ``wall_seconds`` the
    run's wall time (engine start and every claim's process included)."""
    import mechlib.proofs.falsifications  # noqa: F401  (registers the mutants)
    from mechlib.proofs.mutants import pairs

    mutants: dict[str, list[str]] = {}
    for name, claim in pairs():
        mutants.setdefault(claim, []).append(name)
    verdicts = [r.outcome.verdict.value for r in results]
    strengths = [None if r.strength is None else r.strength.value for r in results]
    return {
        "schema": SCHEMA,
        "tool": {"name": "mechlib", "version": __version__},
        "versions": package_versions("z3-solver", "cvc5", "sympy", "python-flint", "hypothesis"),
        "git_commit": _git_commit(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "summary": {
            "claims": len(results),
            "implemented": sum(r.claim.implemented for r in results),
            "as_expected": sum(r.as_expected for r in results if r.claim.implemented),
            **{v: verdicts.count(v) for v in VERDICTS},
            "strength": {s: strengths.count(s) for s in STRENGTHS},
            "shortfall": sum(bool(r.shortfall) for r in results),
            "seconds": round(sum(r.seconds for r in results), 3),
            "wall_seconds": None if wall_seconds is None else round(wall_seconds, 1),
        },
        # each claim: its checks (module:function per kind) and the mutants that must kill it
        "claims": [{**r.to_json(), "mutants": mutants.get(r.claim.id, [])} for r in results],
        **({} if not_run is None else {"interrupted": {"not_run": not_run}}),
    }


def summary_line(summary: dict[str, Any]) -> str:
    """'53 claims: 30 PROVED (…), 14 NO COUNTEREXAMPLE, …; strength …; 12 with a shortfall'."""
    verdicts = ", ".join(f"{summary[v]} {v}" for v in VERDICTS)
    strength = ", ".join(f"{summary['strength'][s]} {s}" for s in STRENGTHS)
    return (
        f"{summary['claims']} claims: {verdicts}; strength: {strength}; "
        f"{summary['shortfall']} short of what the catalogue asks"
    )


def write_reports(doc: dict[str, Any], directory: Path, stem: str = "verify") -> tuple[Path, Path]:
    """``stem``.json, ``stem``.md and ``stem``.html (a run of selected claims writes ``verify.partial``,
    never over the report of all claims). Returns the JSON and Markdown paths."""
    json_path, md_path = directory / f"{stem}.json", directory / f"{stem}.md"
    write_atomic(json_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    context = _report_context(doc)
    write_atomic(md_path, render("verify.md", **context))
    write_atomic(directory / f"{stem}.html", render("verify.html", **context))
    return json_path, md_path


#: Evidence shown per claim in the reports (the whole of it is in verify.json).
EVIDENCE_CHARS = 3000


def _report_context(doc: dict[str, Any]) -> dict[str, Any]:
    """What verify.md and verify.html show: the summary, every claim (statement in full), then per
    claim its parts' scopes, where it is checked, its mutants and its evidence (readable JSON, cut
    at :data:`EVIDENCE_CHARS`)."""
    claims = []
    for c in doc["claims"]:
        shown = json.dumps(c["evidence"], indent=1, ensure_ascii=False)
        if len(shown) > EVIDENCE_CHARS:
            shown = shown[:EVIDENCE_CHARS] + f"\n… ({len(shown) - EVIDENCE_CHARS} more characters in verify.json)"
        claims.append({**c, "anchor": c["id"].lower().replace(".", ""), "evidence_shown": shown})
    return {
        **doc,
        "claims": claims,
        "summary_line": summary_line(doc["summary"]),
        "recheck": "mechlib verify",
        "glossary": ["PROVED", "remap cell"],
    }


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
