"""``mechlib audit SOURCE``: the white-box audit of a mechanism, a re-checkable certificate."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib.cli import options
from mechlib.errors import ExitCode, InputError

#: An audit of a matrix of at least this many cells reports each step on stderr (n = 1000: ~2 s in all).
PROGRESS_CELLS = 1_000_000


def add_parser(sub: Any, name: str) -> None:
    audit = sub.add_parser(
        name,
        help="white-box audit of a mechanism: exact DP level, derivability, dominance, users; a certificate",
        description="Audit a mechanism given as a matrix file: x[i][r] = P(output r | count i), or as "
        "module:function, a Python callable returning one — this imports and RUNS that module's code, "
        "so give only code you trust; a path that looks like a file (has no module:name form) is never "
        "imported. "
        'Formats: .json ({"matrix": [["1/2", "1/2"], ...], "outputs": [...], '
        '"claimed_alpha": "1/2"} or "claimed_epsilon"), .csv of exact numbers, '
        '.npy with --from-float. Numbers are exact: "0.1" is 1/10. The JSON report is a certificate: '
        "re-check it with `mechlib check REPORT.json [SOURCE]`.",
        epilog=options.EPILOG + " An audit with a finding skipped (its 'unknown' list) is undecided.",
    )
    audit.add_argument(
        "file", metavar="SOURCE", help="mechanism file (.json, .csv, .npy) or module:function (runs that code)"
    )
    options.add_output(audit, "the JSON report (a certificate)")
    options.add_report_dir(audit, "NAME.audit.{json,md,html}")
    options.add_json(audit, "the report")
    options.add_no_progress(audit, "progress messages (each step is reported on stderr for 10⁶ cells or more)")
    audit.add_argument("--prior", metavar="FILE", help="an extra user's prior (JSON list or CSV line; with --loss)")
    audit.add_argument(
        "--loss", metavar="FILE", help="the extra user's loss matrix l(i, j) (JSON or CSV; with --prior)"
    )
    audit.add_argument("--from-float", action="store_true", help="accept binary floats at their exact value (.npy)")
    audit.add_argument(
        "--normalize-rows", action="store_true", help="divide each row by its exact sum (recorded in the report)"
    )
    audit.add_argument(
        "--delta",
        metavar="DELTA",
        help="approximate DP: the exact privacy profile δ(ε) and the tightest ε at this δ (exact, e.g. 1/1000)",
    )
    audit.add_argument(
        "--renyi",
        metavar="LO:HI",
        help="the tightest zCDP ρ (D_λ ≤ ρλ) over Rényi orders λ in [LO, HI], LO ≥ 1 (arb-rigorous bracket)",
    )


def run(args: argparse.Namespace) -> int:
    from mechlib.audit.loading import load_matrix, load_source, load_vector
    from mechlib.audit.whitebox import CertificateText, audit, render_text
    from mechlib.core.users import BayesUser, Loss, Prior

    options.check_output(args.output)
    loaded = load_source(args.file, from_float=args.from_float, normalize_rows=args.normalize_rows)
    if (args.prior is None) != (args.loss is None):
        raise InputError("--prior and --loss go together", hint="give both files for the extra user, or neither")
    users = []
    if args.prior is not None:
        try:
            user = BayesUser(Prior(load_vector(args.prior)), Loss(load_matrix(args.loss)))
        except InputError as err:
            if err.field == "prior" and "sums to" in err.problem:  # a CLI hint, not the library's Python one
                err = replace(err, hint="write probabilities that add up to exactly 1")
            raise err if err.source else err.at(f"{args.prior} / {args.loss}") from None
        users.append((Path(args.prior).stem, Path(args.loss).stem, user))
    rows, columns = loaded.mechanism.shape
    started = time.perf_counter()
    say = (
        None
        if args.json or args.no_progress or rows * columns < PROGRESS_CELLS
        else lambda step: print(f"… {time.perf_counter() - started:6.1f} s  {step}", file=sys.stderr, flush=True)
    )
    delta, renyi = options.option_delta(args.delta), _option_renyi(args.renyi)
    report = audit(loaded, users, delta=delta, renyi=renyi, progress=say)
    text = CertificateText(report)  # written piece by piece, to each file and to stdout
    outputs: dict[Any, Any] = {args.output: text} if args.output else {}
    if args.report_dir:
        stem = Path(loaded.path.replace(":", "_")).stem
        base = Path(args.report_dir) / f"{stem}.audit"
        options.refuse_overwrite([Path(f"{base}.{ext}") for ext in ("json", "md", "html")], args.force)
        from mechlib.audit.report import render_html, render_markdown  # Jinja2: only for --report-dir

        outputs |= {
            f"{base}.json": text,
            f"{base}.md": render_markdown(report, f"{base}.json"),
            f"{base}.html": render_html(report, f"{base}.json"),
        }
    options.write_all(outputs)
    if args.json:
        sys.stdout.writelines(text)
    else:
        print(render_text(report))
    if report["verdict"] == "FAIL":
        return ExitCode.FAILS
    return ExitCode.UNDECIDED if report["unknown"] else ExitCode.HOLDS


def _option_renyi(text: str | None) -> tuple[Fraction, Fraction] | None:
    from mechlib.core.exact import to_fraction

    if text is None:
        return None
    hint = "expected LO:HI with 1 ≤ LO < HI ≤ 10000, e.g. 1:64"
    try:
        lo, hi = (to_fraction(part) for part in text.split(":"))
    except (InputError, ValueError):
        raise InputError(f"got {text!r}", field="--renyi", hint=hint) from None
    if not 1 <= lo < hi <= 10_000:
        raise InputError(f"got {text!r}", field="--renyi", hint=hint)
    return lo, hi
