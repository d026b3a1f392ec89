"""``mechlib sweep MANIFEST``: a grid of claims, audits and black-box runs on the engine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mechlib.cli import options
from mechlib.errors import ExitCode


def add_parser(sub: Any, name: str) -> None:
    sweep = sub.add_parser(
        name,
        help="run a grid of claims, audits and black-box runs (a TOML manifest) on the Dask engine",
        description="Run every task of MANIFEST (claims × fuzz seeds and depth; audits of files and "
        "module:function sources × ε × n; black-box runs × seeds, their counts merged exactly) on a local "
        "Dask cluster or --scheduler, and write DIR/sweep.{json,md,html} with the certificates under "
        "DIR/certificates/ (DIR: --report-dir, else [sweep] output, else MANIFEST.sweep). Every task is "
        "checked before any runs. Resumable: finished tasks are kept in DIR/cache/ and skipped on a rerun. "
        "Exit 0: every task answered, every claim as its paper predicts, no audit FAIL, no black-box "
        "violation; 1: a claim against its paper, an audit FAIL or a violation; 3: otherwise a task without "
        "an answer or an UNKNOWN (what finished is kept); 2: bad manifest. See examples/sweep.toml.",
        epilog=options.EPILOG,
    )
    sweep.add_argument("manifest", metavar="MANIFEST", help="the TOML manifest")
    sweep.add_argument(
        "-o", "--output", metavar="PATH",
        help="write the merged report (sweep.json's content) to PATH (JSON, written atomically); "
        "deprecated: a PATH not ending in .json is taken as --report-dir, as before",
    )  # fmt: skip
    options.add_report_dir(sweep, "sweep.{json,md,html}, certificates/ and cache/", force=False)
    options.add_json(sweep, "the merged report")
    options.add_no_progress(sweep, "progress lines")
    options.add_engine(sweep, "tasks run")


def run(args: argparse.Namespace) -> int:
    from mechlib import sweep

    if args.output is not None and not args.output.endswith((".json", ".json.gz")):
        options.note("-o DIR is deprecated and goes in the next release: use --report-dir DIR (-o is now the JSON)")
        args.report_dir, args.output = args.report_dir or args.output, None
    options.check_output(args.output)
    shown = {"last": -1}

    def progress(done: int, total: int, cached: int) -> None:
        if args.no_progress or args.json or done == 0:  # nothing yet: a failure to connect stays one line
            return
        step = max(1, total // 20)  # about 20 lines for a long sweep, in a pipe too
        if done == total or done - shown["last"] >= step:
            shown["last"] = done
            print(f"sweep  {done}/{total} tasks done ({cached} from the cache)", file=sys.stderr, flush=True)

    with options.engine(args) as scheduler:
        report, out = sweep.run(
            args.manifest, output=args.report_dir, jobs=args.jobs, scheduler=scheduler, progress=progress
        )
    html = options.markdown_page(
        f"Sweep: {args.manifest}", sweep.render_markdown(report), report["tool"], f"mechlib sweep {args.manifest}"
    )
    options.write_all({out / "sweep.html": html, **({args.output: options.json_text(report)} if args.output else {})})
    if args.json:
        print(options.json_text(report), end="")
    else:
        _print_report(report, out, args.output)
    return outcome(report)


def outcome(report: dict[str, Any]) -> int:
    """1 for a finding against the claim (a claim REFUTED against its paper, an audit FAIL, a
    violation), else 3 for anything without an answer, else 0."""
    claims_off = [c for c in report["claims"] if not c["as_expected"]]
    if (
        any(c["verdict"] != "UNKNOWN" for c in claims_off)
        or any(a["verdict"] == "FAIL" for a in report["audits"])
        or any(b["verdict"] == "violation" for b in report["blackbox"])
    ):
        return ExitCode.FAILS
    undecided = (
        report["failed"]
        or claims_off
        or any(a["verdict"] == "UNKNOWN" or a.get("unknown") for a in report["audits"])
        or any(b["verdict"] == "UNKNOWN" for b in report["blackbox"])
    )
    return ExitCode.UNDECIDED if undecided else ExitCode.HOLDS


def _print_report(report: dict[str, Any], out: Path, output: str | None) -> None:
    t = report["tasks"]
    print(f"sweep      {t['total']} tasks: {t['run']} run, {t['from_cache']} from the cache, {t['failed']} failed")
    for c in report["claims"]:
        seed = "claim's seed" if c["seed"] is None else f"seed {c['seed']}"
        print(
            f"claim      {c['claim']:<10} {seed:<13} {c['verdict']}"
            + ("" if c["as_expected"] else "  (NOT as expected)")
        )
    for a in report["audits"]:
        unknown = f" (unknown: {', '.join(a['unknown'])})" if a.get("unknown") else ""
        print(f"audit      {a['task']}: {a['verdict']}{unknown}")
    for b in report["blackbox"]:
        print(f"blackbox   {b['sampler']} ({len(b.get('seeds', []))} seeds merged): {b['verdict']}")
    for f in report["failed"]:
        print(f"no answer  {f['task']}: {f['reason']}")
    files = [out / "sweep.md", out / "sweep.html", out / "sweep.json", *([output] if output else [])]
    print(f"report     {', '.join(map(str, files))}; certificates in {out / 'certificates'}")
