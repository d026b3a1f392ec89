"""``mechlib verify``: the papers' claims (the claim registry), or their mutants, on the engine."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from mechlib.cli import options
from mechlib.errors import ExitCode, InputError

#: The fields of each claim ``--json`` prints (the whole report is ``-o PATH`` / verify.json).
JSON_FIELDS = (
    "id", "verdict", "strength", "shortfall", "scope", "checks", "expected", "implemented", "seconds", "evidence",
    "reason",
)  # fmt: skip


def add_parser(sub: Any, name: str) -> None:
    verify = sub.add_parser(
        name,
        help="check the claims of the papers (the claim registry) and write reports/verify.{json,md,html}",
        description="Run every registered claim check; each gets PROVED, NO COUNTEREXAMPLE, REFUTED or UNKNOWN "
        "with exact evidence, and write DIR/verify.{json,md,html} (DIR/verify.partial.* for a selection). "
        "Exit 0 only when every claim has the verdict its paper predicts; 3 when the only claims that do not "
        "are UNKNOWN.",
        epilog=options.EPILOG,
    )
    verify.add_argument("--only", metavar="ID", action="append", default=[], help="run only this claim (repeatable)")
    verify.add_argument("--paper", metavar="PAPER", help="run only the claims of one paper (GRS, GS, SY)")
    options.add_output(verify, "the whole report (verify.json's content)")
    options.add_report_dir(verify, "verify.{json,md,html} (mutants.json with --mutants)", "reports", "--reports",
                           force=False)  # fmt: skip
    options.add_json(verify, '{"claims": [...]}')
    options.add_no_progress(verify, "progress bar or lines")
    verify.add_argument(
        "--deep",
        action="store_true",
        help="the deep profile: fuzz claims with 20× the examples and run the SMT instances "
        "too large for every run (SY-T2's K_Ω ⊆ PK at N = 3); scopes record which ran",
    )
    verify.add_argument(
        "--search", action="store_true",
        help="search again where a stored certificate re-checks (remap cells of GRS-T3.2 and DOM, SY-E1's bracket); "
        "by default a stored certificate is re-checked by its independent checker and searched only when "
        "missing or rejected",
    )  # fmt: skip
    verify.add_argument(
        "--mutants",
        action="store_true",
        help="run the registered falsifying mutants of the selected claims instead: each must come back "
        "REFUTED or UNKNOWN, or stop refuting a claim the paper gets wrong (killed); writes mutants.json; "
        "exit 1 if any survives",
    )
    verify.add_argument(
        "--timeout", type=options.seconds, default=600.0, metavar="SECONDS",
        help="per-claim limit; over it: UNKNOWN (default 600)",
    )  # fmt: skip
    options.add_engine(verify, "claims run")


def run(args: argparse.Namespace) -> int:
    from mechlib import verify

    options.check_output(args.output)
    claims = verify.select(args.only, args.paper)
    if not claims:
        raise InputError(
            f"--paper {args.paper} selects no claim", field="--paper", hint="expected GRS, GS, SY or other"
        )
    quiet = args.json or args.no_progress
    show_progress = None if quiet else "bar" if sys.stderr.isatty() else "lines"
    reports = Path(args.report_dir)
    environment = {  # for the claims' processes, and this one's until the run ends
        "MECHLIB_COUNTEREXAMPLES": os.environ.get("MECHLIB_COUNTEREXAMPLES", str(reports / "counterexamples")),
        # Hypothesis's example database under the reports, not a .hypothesis/ in the user's directory
        "HYPOTHESIS_STORAGE_DIRECTORY": os.environ.get(
            "HYPOTHESIS_STORAGE_DIRECTORY", str((reports / ".hypothesis").resolve())
        ),
        **({"MECHLIB_FUZZ_SCALE": "20"} if args.deep else {}),
        **({"MECHLIB_SEARCH": "1"} if args.search else {}),  # read by mechlib.proofs.shared.universal_cache
    }
    from unittest.mock import patch  # here, not at the top: it pulls in asyncio, for every command

    with options.engine(args) as scheduler, patch.dict(os.environ, environment):
        if args.mutants:
            return _mutants(args, claims, show_progress, scheduler)
        start = time.perf_counter()
        try:
            results = verify.run(
                claims, jobs=args.jobs, timeout=args.timeout, progress=show_progress, scheduler=scheduler
            )
        except verify.Interrupted as stopped:  # Ctrl-C or SIGTERM: what was decided is kept
            return _interrupted(stopped, reports, time.perf_counter() - start)
    doc = verify.report(results, wall_seconds=time.perf_counter() - start)
    stem = "verify.partial" if args.only or args.paper else "verify"  # a selection never overwrites the full report
    try:
        json_path, md_path = verify.write_reports(doc, reports, stem)
    except OSError as err:
        raise InputError(f"cannot write reports: {err.strerror or err}", source=str(reports)) from None
    if args.output:
        options.write_all({args.output: options.json_text(doc)})
    written = [json_path, md_path, md_path.with_suffix(".html"), *([args.output] if args.output else [])]
    if args.json:
        print(options.json_text({"claims": [{k: c[k] for k in JSON_FIELDS} for c in doc["claims"]]}), end="")
    else:
        _print_claims(results)
        s = doc["summary"]
        pending = s["claims"] - s["implemented"]
        print(f"{verify.summary_line(s)} ({pending} not implemented yet). Reports: {', '.join(map(str, written))}")
    off = [r for r in results if r.claim.implemented and not r.as_expected]
    if not off:
        return ExitCode.HOLDS
    return ExitCode.UNDECIDED if all(r.outcome.verdict.value == "UNKNOWN" for r in off) else ExitCode.FAILS


def _interrupted(stopped: Any, reports: Path, seconds: float) -> int:
    """Write the claims decided before the stop as a partial report, say so, exit 130."""
    from mechlib import verify

    doc = verify.report(stopped.results, wall_seconds=seconds, not_run=stopped.not_run)
    try:
        json_path, _ = verify.write_reports(doc, reports, "verify.interrupted")
    except OSError as err:
        raise InputError(f"cannot write the partial report: {err.strerror or err}", source=str(reports)) from None
    print(
        f"mechlib verify: interrupted after {len(stopped.results)} claims ({len(stopped.not_run)} not run); "
        f"what was decided is in {json_path} (and .md, .html)",
        file=sys.stderr,
    )
    return ExitCode.INTERRUPTED


def _print_claims(results: list[Any]) -> None:
    for r in results:
        mark = "   " if not r.claim.implemented else "ok " if r.as_expected else "BAD"
        kinds = "+".join(k for k, _ in r.claim.parts) or "-"
        why = f"  ({r.outcome.reason})" if r.outcome.reason and r.claim.implemented else ""
        strength = "" if r.strength is None else r.strength.value
        short = f"  [short: {'; '.join(r.shortfall)}]" if r.shortfall else ""
        line = f"{mark} {r.claim.id:<10} {r.outcome.verdict.value:<17} {strength:<9} {kinds:<14} {r.seconds:7.3f}s  "
        print(line + f"{r.claim.statement}{why}{short}")


def _mutants(args: argparse.Namespace, claims: list[Any], progress: str | None, scheduler: str | None) -> int:
    """``verify --mutants``: the mutation score per claim and overall; survivors fail the run."""
    from mechlib import verify
    from mechlib.proofs.mutants import score

    results = verify.run_mutants(claims, jobs=args.jobs, timeout=args.timeout, progress=progress, scheduler=scheduler)
    doc: dict[str, Any] = {
        "schema": "mechlib.mutants/1",
        "score": score(results),
        "runs": [r.to_json() for r in results],
    }
    name = "mutants.partial.json" if args.only or args.paper else "mutants.json"  # a selection keeps the full run
    path = Path(args.report_dir) / name
    text = options.json_text(doc)
    options.write_all({path: text, **({args.output: text} if args.output else {})})
    if args.json:
        print(text, end="")
    else:
        for r in results:
            mark = "killed  " if r.killed else "SURVIVED"
            print(f"{mark} {r.claim:<10} {r.result.outcome.verdict.value:<17} {r.mutant.name} ({r.mutant.kind})")
        s = doc["score"]
        print(f"mutation score {s['score']} ({s['mutants']} mutants); per claim: {s['per_claim']}. Report: {path}")
    return ExitCode.HOLDS if all(r.killed for r in results) else ExitCode.FAILS
