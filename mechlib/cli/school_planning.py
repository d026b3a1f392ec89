"""``mechlib school-planning``: SY Example 1, its geometric mechanism and a certified bracket."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mechlib import __version__
from mechlib.cli import options
from mechlib.errors import ExitCode, InputError

#: The entry of the report that holds the certified bracket.
OPTIMUM = "optimum (permutation-invariant = all, SY Prop. 5)"


def add_parser(sub: Any, name: str) -> None:
    example = sub.add_parser(
        name,
        help="SY Example 1: the geometric mechanism's loss and a certified bracket on the optimum",
        description="Schmutte–Yoder Example 1 (N=40 households, P = 0.89/0.09/0.02, ε = 1, squared "
        "error): the geometric mechanism's exact loss, and the least loss of any ε-DP mechanism "
        "bracketed by a feasible mechanism (upper) and a dual bound (lower), both exact. Writes "
        "DIR/school_planning.{json,md,html} and DIR/school_planning_certificate.json (re-check it with "
        "`mechlib check`). About a minute of CPU at the default --step.",
        epilog=options.EPILOG,
    )
    example.add_argument("--step", default="1/6", help="action grid step h (exact; gap ≈ h²/6; default 1/6)")
    example.add_argument("--box", default="14,7", metavar="A,B", help="retract histograms onto n1 ≤ A, n2 ≤ B")
    options.add_output(example, "the report (school_planning.json's content)")
    options.add_report_dir(example, "school_planning.{json,md,html} and the certificate", "reports", "--reports",
                           force=False)  # fmt: skip
    options.add_json(example, "the report")
    options.add_no_progress(example, "progress messages")


def run(args: argparse.Namespace) -> int:
    from mechlib.checkers.bracket_certificate import check_certificate as check_bracket
    from mechlib.core.exact import to_fraction
    from mechlib.infodesign.school_planning import render_markdown, study

    options.check_output(args.output)
    step = to_fraction(args.step)
    try:
        box = tuple(int(v) for v in args.box.split(","))
    except ValueError:
        box = ()
    if len(box) != 2 or min(box) < 0 or sum(box) > 40:
        raise InputError(
            f"--box {args.box!r}", field="--box", hint="expected A,B with A, B ≥ 0 and A + B ≤ 40, e.g. 14,7"
        )
    if not 0 < step <= 1:
        raise InputError(f"--step {args.step}", field="--step", hint="expected 0 < h ≤ 1, e.g. 1/6")
    say = options.progress_lines(args, prefix="… ")
    report, cert = study(step=step, box=(box[0], box[1]), progress=say, check_certificate=check_bracket)
    out = Path(args.report_dir)
    text, markdown = options.json_text(report), render_markdown(report)
    html = options.markdown_page(
        "SY Example 1: school planning", markdown, {"name": "mechlib", "version": __version__},
        f"mechlib check {out / 'school_planning_certificate.json'}",
    )  # fmt: skip
    options.write_all(
        {
            out / "school_planning_certificate.json": json.dumps(cert) + "\n",
            out / "school_planning.json": text,
            out / "school_planning.md": markdown,
            out / "school_planning.html": html,
            **({args.output: text} if args.output else {}),
        }
    )
    print(text if args.json else markdown, end="")
    best = report[OPTIMUM]
    return ExitCode.HOLDS if best["certificate check"] == "passed" else ExitCode.FAILS
