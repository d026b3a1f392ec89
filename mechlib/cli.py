"""The ``mechlib`` command.

Exit codes: 0 ok; 1 a check failed or is UNKNOWN; 2 bad input or usage (one clear line on
stderr, no traceback, no partial output file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib import __version__
from mechlib.audit import DEFAULT_ALPHA_FA
from mechlib.errors import InputError

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
#: An audit of a matrix of at least this many cells reports each step on stderr (n = 1000: ~2 s in all).
PROGRESS_CELLS = 1_000_000
#: The largest n `prove-universal` takes (C(25, 12) = 5.2 million remap cells: weeks on one core).
UNIVERSAL_MAX_N = 12


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mechlib",
        description="Exact checks of differential-privacy mechanisms for count queries "
        "(Ghosh–Roughgarden–Sundararajan, Gupte–Sundararajan, Schmutte–Yoder).",
        epilog="Exit codes: 0 ok, 1 a check failed or is UNKNOWN, 2 bad input or usage.",
    )
    parser.add_argument("--version", action="version", version=f"mechlib {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    audit = sub.add_parser(
        "audit",
        help="white-box audit of a mechanism: exact DP level, derivability, dominance, users; a certificate",
        description="Audit a mechanism given as a matrix file: x[i][r] = P(output r | count i), or as "
        "module:function, a Python callable returning one — this imports and RUNS that module's code, "
        "so give only code you trust; a path that looks like a file (has no module:name form) is never "
        "imported. "
        'Formats: .json ({"matrix": [["1/2", "1/2"], ...], "outputs": [...], '
        '"claimed_alpha": "1/2"} or "claimed_epsilon"), .csv of exact numbers, '
        '.npy with --from-float. Numbers are exact: "0.1" is 1/10. The JSON report is a certificate: '
        "re-check it with `mechlib check REPORT.json [SOURCE]`.",
    )
    audit.add_argument(
        "file", metavar="SOURCE", help="mechanism file (.json, .csv, .npy) or module:function (runs that code)"
    )
    audit.add_argument("--json", action="store_true", help="print the report as one JSON object")
    audit.add_argument(
        "-o", "--output", metavar="PATH",
        help="also write the JSON report (certificate) to PATH (gzip-compressed when PATH ends in .gz)",
    )  # fmt: skip
    audit.add_argument("--prior", metavar="FILE", help="an extra user's prior (JSON list or CSV line; with --loss)")
    audit.add_argument(
        "--loss", metavar="FILE", help="the extra user's loss matrix l(i, j) (JSON or CSV; with --prior)"
    )
    audit.add_argument("--report-dir", metavar="DIR", help="also write NAME.audit.{json,md,html} to DIR")
    audit.add_argument("--force", action="store_true", help="overwrite reports that already exist in --report-dir")
    audit.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress messages (each step is reported on stderr for a matrix of 10⁶ cells or more)",
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

    verify = sub.add_parser(
        "verify",
        help="check the claims of the papers (the claim registry) and write reports/verify.{json,md}",
        description="Run every registered claim check; each gets PROVED, REFUTED or UNKNOWN "
        "with exact evidence. Exit 0 only when every claim has the verdict its paper predicts.",
    )
    verify.add_argument("--json", action="store_true", help='print {"claims": [...]} as JSON')
    verify.add_argument("--only", metavar="ID", action="append", default=[], help="run only this claim (repeatable)")
    verify.add_argument("--paper", metavar="PAPER", help="run only the claims of one paper (GRS, GS, SY)")
    verify.add_argument(
        "--reports", metavar="DIR", default="reports", help="where to write verify.json/.md (default: reports)"
    )
    verify.add_argument("--no-progress", action="store_true", help="no progress bar")
    verify.add_argument("--deep", action="store_true", help="fuzz claims with 20× the examples (the deep profile)")
    verify.add_argument(
        "--mutants",
        action="store_true",
        help="run the registered falsifying mutants of the selected claims instead: each must come back "
        "REFUTED or UNKNOWN, or stop refuting a claim the paper gets wrong (killed); writes mutants.json; "
        "exit 1 if any survives",
    )
    verify.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="workers of the local Dask cluster, claims run at once (default: all cores)",
    )
    verify.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="per-claim limit; over it: UNKNOWN (default 600)",
    )
    verify.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on an existing Dask cluster (e.g. tcp://10.0.0.5:8786; default: $MECHLIB_SCHEDULER, "
        "else a local cluster of -j workers)",
    )
    example = sub.add_parser(
        "school-planning",
        help="SY Example 1: the geometric mechanism's loss and a certified bracket on the optimum",
        description="Schmutte–Yoder Example 1 (N=40 households, P = 0.89/0.09/0.02, ε = 1, squared "
        "error): the geometric mechanism's exact loss, and the least loss of any ε-DP mechanism "
        "bracketed by a feasible mechanism (upper) and a dual bound (lower), both exact. Writes "
        "school_planning.{json,md} and school_planning_certificate.json (re-check it with "
        "`mechlib check`).",
    )
    example.add_argument("--step", default="1/6", help="action grid step h (exact; gap ≈ h²/6; default 1/6)")
    example.add_argument("--box", default="14,7", metavar="A,B", help="retract histograms onto n1 ≤ A, n2 ≤ B")
    example.add_argument("--reports", metavar="DIR", default="reports", help="where to write (default: reports)")
    example.add_argument("--json", action="store_true", help="print the report as JSON")
    example.add_argument("--no-progress", action="store_true", help="no progress messages")

    box = sub.add_parser(
        "blackbox",
        help="black-box audit: sample a mechanism and test its claimed ε (and its pmf)",
        description="Sample SAMPLER on every count 0..N (seeded; Poisson sample sizes of mean --samples, in a "
        "selection and a test phase) and test the claimed ε at false-alarm rate --alpha-fa: an exact conditional "
        "binomial test of each (neighbour pair, event), each count against the others pooled and, on a count query, "
        "sums of pairs, a Bonferroni split of --alpha-fa over all of them. "
        "SAMPLER is module:function (function(count, rng) -> int, rng a numpy.random.Generator; this RUNS that "
        "module's code) or an adapter: "
        "mechlib:truncated_geometric, diffprivlib:GeometricTruncated, diffprivlib:GeometricFolded, "
        "diffprivlib:Exponential, opendp:make_geometric, opendp:make_laplace, opendp:make_randomized_response, "
        "opendp:make_randomized_response_bool, pydp:LaplaceMechanism; with --delta (an (ε, δ) claim, the library "
        "configured at it): pydp:GaussianMechanism, opendp:make_gaussian. Adapters configure their library at "
        "--library-epsilon (default: the claimed ε). OpenDP's and PyDP's adapters draw from their libraries' own "
        "RNGs: --seed does not repeat their runs (mechlib's and diffprivlib's are seeded). "
        "Exit 0: no violation found (and conformant); 1: violation or nonconformant; 2: bad input.",
    )
    box.add_argument("sampler", metavar="SAMPLER")
    box.add_argument("--n", type=int, required=True, help="counts 0..N")
    box.add_argument(
        "--epsilon",
        required=True,
        help="the claimed ε (exact, e.g. 1 or 0.5); 'map': what OpenDP's own privacy map says of the configured "
        "measurement (an OpenDP adapter, with --library-epsilon)",
    )
    box.add_argument(
        "--library-epsilon",
        metavar="EPS",
        help="an adapter configures its library at this ε (default: the claimed ε), so that a claim other than "
        "the library's setting can be tested",
    )
    box.add_argument(
        "--delta",
        metavar="DELTA",
        help="the claim is (ε, δ)-DP: a certified lower bound on the true δ at ε, from one event chosen on "
        "a quarter of the samples and tested on the rest",
    )
    box.add_argument("--samples", type=int, default=100_000, help="mean samples per count (Poisson; default 100000)")
    box.add_argument("--seed", type=int, default=0)
    box.add_argument(
        "--alpha-fa", default=DEFAULT_ALPHA_FA, metavar="ALPHA",
        help="false-alarm rate, an exact number in (0, 1/2) such as 0.01 or 1/100, recorded as typed: the chance "
        f"that an ε-DP sampler is reported violating (default {DEFAULT_ALPHA_FA})",
    )  # fmt: skip
    box.add_argument("--pmf", metavar="FILE", help="claimed exact pmf: a mechanism JSON/CSV file (rows = counts)")
    box.add_argument("--range", metavar="LO:HI", help="the declared output range; a value outside it is an error")
    box.add_argument(
        "--neighbours",
        metavar="path|complete|FILE",
        default="path",
        help="the pairs of counts DP is claimed between: path (i, i+1; a count query, the default), complete "
        "(every pair: categorical mechanisms such as randomized response), or a JSON file of pairs [[0, 2], …]",
    )
    box.add_argument("--json", action="store_true", help="print the result as JSON")
    box.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="also write the JSON result to PATH (mechlib check re-verifies it; gzip-compressed when PATH ends in .gz)",
    )
    box.add_argument("--report-dir", metavar="DIR", help="also write SAMPLER.blackbox.{json,md,html} to DIR")
    box.add_argument("--force", action="store_true", help="overwrite reports that already exist in --report-dir")

    sweep = sub.add_parser(
        "sweep",
        help="run a grid of claims, audits and black-box runs (a TOML manifest) on the Dask engine",
        description="Run every task of MANIFEST (claims × fuzz seeds and depth; audits of files and "
        "module:function sources × ε × n; black-box runs × seeds, their counts merged exactly) on a local "
        "Dask cluster or --scheduler, and write OUTPUT/sweep.{json,md} with the certificates under "
        "OUTPUT/certificates/. Resumable: finished tasks are kept in OUTPUT/cache/ and skipped on a rerun. "
        "Exit 0: every task answered, every claim as its paper predicts, no audit FAIL, no black-box "
        "violation; 1 otherwise; 2: bad manifest. See examples/sweep.toml.",
    )
    sweep.add_argument("manifest", metavar="MANIFEST", help="the TOML manifest")
    sweep.add_argument(
        "-o", "--output", metavar="DIR", help="output directory (default: [sweep] output, or MANIFEST.sweep)"
    )
    sweep.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="local workers (default: all cores)"
    )
    sweep.add_argument(
        "--scheduler", metavar="ADDRESS", help="an existing Dask scheduler (default: $MECHLIB_SCHEDULER)"
    )
    sweep.add_argument("--json", action="store_true", help="print the merged report as JSON")
    sweep.add_argument("--no-progress", action="store_true", help="no progress messages")

    check = sub.add_parser(
        "check",
        help="re-verify a certificate with the independent checker",
        description="Re-verify every witness of a certificate (schemas mechlib.audit/6, "
        "mechlib.blackbox/9 (and /8, /7, /6) and mechlib.bracket/1) without trusting the code that produced it; a "
        "gzip-compressed certificate is read as is. "
        "Exit 0 if it holds, 1 if any check fails, 2 if the file is not a certificate.",
    )
    check.add_argument(
        "certificate", help="certificate JSON: an audit report, a black-box result, SY Example 1's bracket"
    )
    check.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="the audited file or module:function (which runs that Python code): its SHA-256, matrix, "
        "labels, neighbours and claim must match the certificate's",
    )
    universal = sub.add_parser(
        "prove-universal",
        help="prove for one n and α that T is optimal for every legal Bayesian user (GRS Thm 3.2 'if', DOM)",
        description="Prove, for counts 0..N and one α, that the truncated geometric mechanism T is optimal "
        "for every legal Bayesian user — so every α-DP mechanism is dominated by a remap of T, for every "
        "legal user (GRS Theorem 3.2's 'if' direction, CLAIMS.md DOM). The users split into C(2N+1, N) "
        "remap cells, each proved with Farkas certificates checked in exact rationals (`mechlib explain "
        "'remap cell'`); the cells run as tasks on a local Dask cluster of -j workers, or on --scheduler "
        "ADDRESS, so that a cluster pushes N further. `mechlib verify` proves N ≤ 5. Exit 0: proved; "
        "1: refuted or unknown; 2: bad input.",
    )
    universal.add_argument(
        "n", type=int, metavar="N",
        help=f"the largest count, 1 ≤ N ≤ {UNIVERSAL_MAX_N} (the cells grow as C(2N+1, N): 6435 at N = 7, "
        "about 7 minutes on 2 cores)",
    )  # fmt: skip
    universal.add_argument("--alpha", default="1/2", help="α = e^−ε, an exact number in (0, 1) (default 1/2)")
    universal.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
        help="workers of the local Dask cluster (default: all cores)",
    )  # fmt: skip
    universal.add_argument(
        "--scheduler", metavar="ADDRESS", help="an existing Dask cluster (default: $MECHLIB_SCHEDULER)"
    )
    universal.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="per task (one prefix of the remaps); over it: UNKNOWN"
    )
    universal.add_argument("--json", action="store_true", help="print the verdict and the counts as JSON")
    explain = sub.add_parser(
        "explain",
        help="what a term in mechlib's output means (T, derivable, dominance, legal user, one-sided output, …)",
        description="Explain the terms mechlib's reports use, each with the paper it comes from. "
        "With no TERM, every term.",
    )
    explain.add_argument("terms", nargs="*", metavar="TERM", help="a term or alias, e.g. 'dominance', 'T', 'epsilon'")
    return parser


def _prove_universal(args: argparse.Namespace) -> int:
    from mechlib.core.exact import format_fraction, parse_probability

    if not 1 <= args.n <= UNIVERSAL_MAX_N:
        raise InputError(f"N={args.n}", hint=f"expected 1 ≤ N ≤ {UNIVERSAL_MAX_N}")
    try:
        alpha = parse_probability(args.alpha)
    except InputError as err:
        raise InputError(f"--alpha={args.alpha}: {err}") from None
    if not 0 < alpha < 1:
        raise InputError(f"--alpha={args.alpha}", hint="expected 0 < α < 1 (α = 0 or 1 makes the theorem trivial)")
    if args.jobs < 1:
        raise InputError(f"--jobs={args.jobs}", hint="expected at least 1 worker")
    if args.timeout is not None and not args.timeout > 0:
        raise InputError(f"--timeout={args.timeout}", hint="expected a positive number of seconds")
    from mechlib.proofs.registry import Verdict
    from mechlib.proofs.shared.remap_cells import judged, prove_on_engine

    def progress(finished: int, total: int) -> None:
        if not args.json:
            print(f"prove-universal {finished}/{total} tasks", file=sys.stderr, flush=True)

    start = time.perf_counter()
    counts = prove_on_engine(
        args.n, alpha, jobs=args.jobs, scheduler=args.scheduler, timeout=args.timeout, done=progress
    )
    seconds = time.perf_counter() - start
    outcome = judged(args.n, alpha, counts)
    proved = outcome.verdict == Verdict.PROVED
    a, e = format_fraction(alpha), outcome.evidence
    if args.json:
        doc = {
            "schema": "mechlib.universal/1", "n": args.n, "alpha": a, "verdict": outcome.verdict.value,
            "reason": outcome.reason, "cells": counts.cells, "mirrored": counts.mirrored,
            "abandoned": counts.abandoned, "farkas_certificates": counts.certificates, "splits": counts.splits,
            "unproved": counts.unproved[:5], "counterexample": e.get("counterexample"), "seconds": round(seconds, 2),
        }  # fmt: skip
        print(json.dumps(doc, ensure_ascii=False))
    else:
        if proved:
            print(f"n={args.n} α={a}: PROVED — T is optimal for every legal Bayesian user, so every {a}-DP "
                  f"mechanism on 0..{args.n} is dominated by a remap of T (GRS Thm 3.2 'if', DOM)")  # fmt: skip
        else:
            print(f"n={args.n} α={a}: {outcome.verdict.value} — {outcome.reason}")
        print(f"cells      {e['cells proved']} remap cells proved ({e['of them by reflection']} by reflection), "
              f"{e['Farkas certificates']} Farkas certificates, {e['pieces split']} pieces split, "
              f"{e['prefixes abandoned (Gordan)']} prefixes abandoned (Gordan)")  # fmt: skip
        if "counterexample" in e:
            print(f"user       {json.dumps(e['counterexample'], ensure_ascii=False)}")
        print(f"time       {seconds:.1f} s")
    return EXIT_OK if proved else EXIT_FAILED


def _explain(args: argparse.Namespace) -> int:
    from mechlib.glossary import TERMS, explain, lookup

    unknown = [word for word in args.terms if lookup(word) is None]
    if unknown:
        names = ", ".join(term.name for term in TERMS)
        raise InputError(f"no term {unknown[0]!r}", hint=f"one of: {names}; no TERM lists them all")
    print(explain(args.terms))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    commands = {
        "audit": _audit, "verify": _verify, "school-planning": _school_planning, "check": _check,
        "blackbox": _blackbox, "sweep": _sweep, "explain": _explain, "prove-universal": _prove_universal,
    }  # fmt: skip
    try:
        if args.command not in commands:
            parser.print_help()
            return EXIT_BAD_INPUT
        status = commands[args.command](args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except InputError as err:
        print(f"mechlib: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("mechlib: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout closed early (`mechlib … | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def violation_text(v: dict[str, Any]) -> str:
    """A rejected hypothesis of the ε test in words."""
    from mechlib.audit.ratio_test import hypothesis_in_words

    what, null = hypothesis_in_words(v)
    k, other = v["counts"]
    return f"{what}: {k} vs {other} hits; P(Bin({k + other}, θ₀) ≥ {k}) ≤ its level, θ₀ = {null} (exact in --json)"


def blackbox_headline(dp: dict[str, Any]) -> list[str]:
    """What the sample shows about the true ε: a certified lower bound; outputs one neighbour never
    produced (consistent with ε = ∞, which no sample certifies); the power statement only when
    no such output makes it moot."""
    from mechlib.audit import confidence as at

    confidence = at(dp["alpha_fa"])
    bound = dp["epsilon_lower_bound"]
    from mechlib.audit.ratio_test import hypothesis_in_words

    lines = [
        f"ε bound    the true ε is at least {bound['epsilon']} (certified, {confidence}; "
        f"{hypothesis_in_words(bound)[0]})"
        if bound
        else f"ε bound    no event shows any privacy loss ({confidence})"
    ]
    one_sided = dp["one_sided"]
    if one_sided["total"]:
        o = one_sided["shown"][0]
        lines.append(
            f"one-sided  output {o['output']}: seen {o['count']} time(s) under count {o['seen_under']}, never in "
            f"{o['samples']} samples under count {o['never_under']} ({one_sided['total']} such cases): an output a "
            "neighbour never produced is consistent with ε = ∞, which no sample can certify or rule out"
        )
    elif not dp["violation"]:
        lines.append(
            f"power      an excess of ≈ {dp['smallest_detectable_excess_epsilon']} over ε at one event would be flagged"
        )
    return lines


def delta_headline(test: dict[str, Any] | None) -> list[str]:
    """The (ε, δ) test's verdict and its certified lower bound on the true δ(ε)."""
    if test is None:
        return []
    from mechlib.audit import confidence as at
    from mechlib.audit.blackbox_delta import event_name

    confidence = at(test["alpha_fa"])
    event = test["event"]
    lines = [f"δ test     (ε, δ) = ({test['epsilon']}, {test['delta']}), α_FA = {test['alpha_fa']}: {test['verdict']}"]
    if test["delta_lower_bound"] is None:
        lines.append(f"δ bound    the test samples show no δ > 0 at ε ({confidence})")
    else:
        lines.append(
            f"δ bound    the true δ(ε) is at least {float(Fraction(test['delta_lower_bound'])):.6g} (certified, "
            f"{confidence}; inputs {event['inputs']}, event {event_name(event['set'])}; exact in --json)"
        )
    return lines


def _refuse_overwrite(reports: list[Path], force: bool) -> None:
    """Existing reports are kept unless --force (two sources with one stem would overwrite each
    other's reports otherwise)."""
    existing = [p for p in reports if p.exists()]
    if existing and not force:
        raise InputError(
            "already exists", source=str(existing[0]), hint="pass --force to overwrite, or choose another --report-dir"
        )


def _write_all(outputs: dict[Any, Any]) -> None:
    """Write all the files of one command or none of them; an OS error is bad input naming the
    file (exit 2)."""
    from mechlib.audit.loading import write_all

    try:
        write_all(outputs)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", source=str(err.filename or "")) from None


def _audit(args: argparse.Namespace) -> int:
    from mechlib.audit.loading import load_matrix, load_source, load_vector
    from mechlib.audit.whitebox import CertificateText, audit, render_text
    from mechlib.core.users import BayesUser, Loss, Prior

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
    report = audit(loaded, users, delta=_option_delta(args.delta), renyi=_option_renyi(args.renyi), progress=say)
    text = CertificateText(report)  # written piece by piece, to each file and to stdout
    outputs: dict[Any, Any] = {args.output: text} if args.output else {}
    if args.report_dir:
        stem = Path(loaded.path.replace(":", "_")).stem
        base = Path(args.report_dir) / f"{stem}.audit"
        _refuse_overwrite([Path(f"{base}.{ext}") for ext in ("json", "md", "html")], args.force)
        from mechlib.audit.report import render_html, render_markdown  # Jinja2: only for --report-dir

        outputs |= {
            f"{base}.json": text,
            f"{base}.md": render_markdown(report),
            f"{base}.html": render_html(report),
        }
    _write_all(outputs)
    if args.json:
        sys.stdout.writelines(text)
    else:
        print(render_text(report))
    return EXIT_FAILED if report["verdict"] == "FAIL" or report["unknown"] else EXIT_OK


def _option_delta(text: str | None) -> Fraction | None:
    from mechlib.core.exact import parse_probability

    if text is None:
        return None
    try:
        return parse_probability(text)
    except InputError as err:
        raise replace(err, field="--delta", hint="expected an exact number in [0, 1], e.g. 1/1000 or 1e-6") from None


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


def _verify(args: argparse.Namespace) -> int:
    from mechlib import verify

    claims = verify.select(args.only, args.paper)
    if not claims:
        raise InputError(
            f"--paper {args.paper} selects no claim", field="--paper", hint="expected GRS, GS, SY or other"
        )
    quiet = args.json or args.no_progress
    show_progress = None if quiet else "bar" if sys.stderr.isatty() else "lines"
    os.environ.setdefault("MECHLIB_COUNTEREXAMPLES", str(Path(args.reports) / "counterexamples"))
    if args.deep:
        os.environ["MECHLIB_FUZZ_SCALE"] = "20"
    if args.jobs < 1 or args.timeout <= 0:
        raise InputError(f"-j {args.jobs} --timeout {args.timeout:g}", hint="expected -j ≥ 1 and --timeout > 0")
    if args.mutants:
        return _verify_mutants(args, claims, show_progress)
    start = time.perf_counter()
    results = verify.run(claims, jobs=args.jobs, timeout=args.timeout, progress=show_progress, scheduler=args.scheduler)
    doc = verify.report(results, wall_seconds=time.perf_counter() - start)
    stem = "verify.partial" if args.only or args.paper else "verify"  # a selection never overwrites the full report
    try:
        json_path, md_path = verify.write_reports(doc, Path(args.reports), stem)
    except OSError as err:
        raise InputError(f"cannot write reports: {err.strerror or err}", source=args.reports) from None
    if args.json:
        print(
            json.dumps(
                {
                    "claims": [
                        {
                            k: c[k]
                            for k in (
                                "id",
                                "verdict",
                                "strength",
                                "shortfall",
                                "scope",
                                "checks",
                                "expected",
                                "implemented",
                                "seconds",
                                "evidence",
                                "reason",
                            )
                        }
                        for c in doc["claims"]
                    ]
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        from mechlib.verify import summary_line

        for r in results:
            mark = "   " if not r.claim.implemented else "ok " if r.as_expected else "BAD"
            kinds = "+".join(k for k, _ in r.claim.parts) or "-"
            why = f"  ({r.outcome.reason})" if r.outcome.reason and r.claim.implemented else ""
            strength = "" if r.strength is None else r.strength.value
            short = f"  [short: {'; '.join(r.shortfall)}]" if r.shortfall else ""
            line = (
                f"{mark} {r.claim.id:<10} {r.outcome.verdict.value:<17} {strength:<9} {kinds:<14} {r.seconds:7.3f}s  "
            )
            print(line + f"{r.claim.statement}{why}{short}")
        s = doc["summary"]
        pending = s["claims"] - s["implemented"]
        print(f"{summary_line(s)} ({pending} not implemented yet). Reports: {json_path}, {md_path}")
    implemented = [r for r in results if r.claim.implemented]
    return EXIT_OK if all(r.as_expected for r in implemented) else EXIT_FAILED


def _school_planning(args: argparse.Namespace) -> int:
    from mechlib.checkers.bracket_certificate import check_certificate as check_bracket
    from mechlib.core.exact import to_fraction
    from mechlib.infodesign.school_planning import render_markdown, study

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
    say = None if args.no_progress or args.json else (lambda msg: print(f"… {msg}", file=sys.stderr))
    report, cert = study(step=step, box=(box[0], box[1]), progress=say, check_certificate=check_bracket)
    out = Path(args.reports)
    _write_all(
        {
            out / "school_planning_certificate.json": json.dumps(cert) + "\n",
            out / "school_planning.json": json.dumps(report, indent=2, ensure_ascii=False) + "\n",
            out / "school_planning.md": render_markdown(report),
        }
    )
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else render_markdown(report))
    best = report["optimum (permutation-invariant = all, SY Prop. 5)"]
    return EXIT_OK if best["certificate check"] == "passed" else EXIT_FAILED


def _blackbox_neighbours(spec: str, n: int) -> list[tuple[int, int]]:
    """``--neighbours``: path, complete, or a JSON file of pairs of distinct counts in 0..n."""
    from mechlib.audit.blackbox import complete_neighbours, path_neighbours
    from mechlib.audit.loading import read_json

    if spec in ("path", "complete"):
        return path_neighbours(n) if spec == "path" else complete_neighbours(n)

    expected = f"path, complete, or a JSON file of pairs of distinct counts in 0..{n}, e.g. [[0, 1], [0, 2]]"
    try:
        raw = read_json(Path(spec).read_bytes())
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", source=spec, hint=expected) from None
    except InputError as err:
        raise err.at(spec) from None
    if not isinstance(raw, list) or not raw:
        raise InputError("is not a nonempty list of pairs", source=spec, hint=expected)
    pairs: list[tuple[int, int]] = []
    seen: set[frozenset[int]] = set()
    for k, pair in enumerate(raw):
        ok = isinstance(pair, list) and len(pair) == 2 and all(type(v) is int and 0 <= v <= n for v in pair)
        if not ok or pair[0] == pair[1] or frozenset(pair) in seen:
            raise InputError(f"pair {k} is {pair!r}", source=spec, field=f"[{k}]", hint=expected + ", each pair once")
        seen.add(frozenset(pair))
        pairs.append((pair[0], pair[1]))
    return pairs


def _blackbox(args: argparse.Namespace) -> int:
    from mechlib.audit import OUTSIDE_SHOWN, false_alarm_rate, outside_in_words
    from mechlib.audit.adapters import sampler as make_sampler
    from mechlib.audit.blackbox import blackbox_result
    from mechlib.audit.loading import load_mechanism
    from mechlib.core.exact import to_fraction

    from_map = args.epsilon == "map"
    epsilon = None if from_map else to_fraction(args.epsilon)
    library_epsilon = epsilon if args.library_epsilon is None else to_fraction(args.library_epsilon)
    if from_map and library_epsilon is None:
        raise InputError("--epsilon map", hint="give --library-epsilon, the ε OpenDP is configured with")
    if (
        (epsilon is not None and epsilon <= 0)
        or (library_epsilon is not None and library_epsilon <= 0)
        or args.n < 1
        or args.samples < 1
    ):
        raise InputError(
            f"--epsilon {args.epsilon} --library-epsilon {args.library_epsilon} --n {args.n} --samples {args.samples}",
            hint="expected ε > 0, library ε > 0, N ≥ 1, samples ≥ 1",
        )
    try:
        false_alarm_rate(args.alpha_fa)
    except InputError as err:
        raise InputError(f"--alpha-fa {args.alpha_fa}: {err.problem}", hint=err.hint) from None
    pmf = None
    if args.pmf:
        claimed = load_mechanism(args.pmf).mechanism
        if claimed.n != args.n:
            raise InputError(f"the pmf has counts 0..{claimed.n}", source=args.pmf, hint=f"expected 0..{args.n}")
        pmf = [dict(zip(claimed.outputs, row)) for row in claimed.rows]
    declared = None
    if args.range is not None:
        try:
            lo, hi = (int(v) for v in args.range.split(":"))
        except ValueError:
            raise InputError(f"--range {args.range!r}", field="--range", hint="expected LO:HI, e.g. 0:5") from None
        declared = range(lo, hi + 1)
    neighbours = _blackbox_neighbours(args.neighbours, args.n)
    delta = _option_delta(args.delta)
    assert library_epsilon is not None
    chosen = make_sampler(args.sampler, args.n, library_epsilon, delta)
    if args.library_epsilon is not None and chosen.configured is None:
        raise InputError(f"--library-epsilon with {args.sampler}", hint="it configures an adapter's library only")
    if from_map:
        if chosen.configured is None or "map_epsilon" not in chosen.configured:
            raise InputError(f"--epsilon map with {args.sampler}", hint="only OpenDP's adapters have a privacy map")
        epsilon = Fraction(chosen.configured["map_epsilon"])  # the float OpenDP returned, at its exact value
    assert epsilon is not None
    start = time.perf_counter()
    phases = _sample(chosen, args, declared)
    seconds = time.perf_counter() - start
    result = blackbox_result(
        spec=args.sampler,
        library=chosen.library,
        n=args.n,
        samples=args.samples,
        seed=args.seed,
        seconds=seconds,
        phases=phases,
        epsilon=epsilon,
        alpha_fa=args.alpha_fa,
        pmf=pmf,
        neighbours=neighbours,
        delta=delta,
        configured=chosen.configured,
    )
    text = json.dumps(result, indent=2, ensure_ascii=False)
    outputs = {args.output: text + "\n"} if args.output else {}
    if args.report_dir:
        from mechlib.audit.report import render_blackbox_html, render_blackbox_markdown

        base = Path(args.report_dir) / (args.sampler.replace(":", "_") + ".blackbox")
        _refuse_overwrite([Path(f"{base}.{ext}") for ext in ("json", "md", "html")], args.force)
        outputs |= {
            f"{base}.json": text,
            f"{base}.md": render_blackbox_markdown(result),
            f"{base}.html": render_blackbox_html(result, pmf),
        }
    _write_all(outputs)
    if args.json:
        print(text)
    else:
        dp = result["dp"]
        # the headline first: what the sample proves about the true δ(ε) and ε, whatever the claim
        headline = delta_headline(result["delta_test"])
        for line in headline[1:] + blackbox_headline(dp):
            print(line)
        print(f"sampler    {args.sampler} ({result['samples_per_second']} samples/s)")
        pure = " (pure ε-DP, for information: the claim is (ε, δ))" if delta is not None else ""
        h = dp["hypotheses"]
        tested = f"ε = {dp['epsilon']}, α_FA = {dp['alpha_fa']}, {h['single']} hypotheses + {h['summed']} summed"
        print(f"dp test    {tested}: {dp['verdict']}{pure}")
        if dp["violation"]:
            print(f"violation  {violation_text(dp['violation'])}")
        conformance = result["conformance"]
        if conformance:
            outside = conformance["outside"]
            shown = f": {len(outside)} of {conformance['cells']} cells outside their intervals" if outside else ""
            print(f"pmf        {conformance['verdict']}{shown}")
            for cell in outside[:OUTSIDE_SHOWN]:
                print(f"outside    {outside_in_words(cell)}")
            if len(outside) > OUTSIDE_SHOWN:
                print(f"outside    … and {len(outside) - OUTSIDE_SHOWN} more (every one in --json)")
        for line in headline[:1]:
            print(line)
    decisive = result["delta_test"] or result["dp"]  # an (ε, δ) claim is decided by the δ test alone
    bad = decisive["verdict"] == "violation" or (result["conformance"] or {}).get("verdict") == "nonconformant"
    return EXIT_FAILED if bad else EXIT_OK


def _sample(chosen: Any, args: argparse.Namespace, declared: Any) -> Any:
    """The run's two phases (Poisson sizes of mean --samples per count), with a progress bar on a
    terminal."""
    from mechlib.audit.blackbox import sample_phases

    if args.json or not sys.stderr.isatty():
        return sample_phases(chosen, args.n, args.samples, args.seed, None, declared)
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(f"sampling {args.sampler}", total=2 * (args.n + 1))
        return sample_phases(chosen, args.n, args.samples, args.seed, lambda _: bar.advance(task), declared)


def _sweep(args: argparse.Namespace) -> int:
    from mechlib import sweep

    if args.jobs < 1:
        raise InputError(f"-j {args.jobs}", field="-j", hint="expected at least one worker")
    shown = {"last": -1}

    def progress(done: int, total: int, cached: int) -> None:
        if args.no_progress or args.json:
            return
        step = max(1, total // 20)  # about 20 lines for a long sweep, in a pipe too
        if done == total or done - shown["last"] >= step:
            shown["last"] = done
            print(f"sweep  {done}/{total} tasks done ({cached} from the cache)", file=sys.stderr, flush=True)

    report, out = sweep.run(
        args.manifest, output=args.output, jobs=args.jobs, scheduler=args.scheduler, progress=progress
    )
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        t = report["tasks"]
        print(f"sweep      {t['total']} tasks: {t['run']} run, {t['from_cache']} from the cache, {t['failed']} failed")
        for c in report["claims"]:
            seed = "claim's seed" if c["seed"] is None else f"seed {c['seed']}"
            print(
                f"claim      {c['claim']:<10} {seed:<13} {c['verdict']}"
                + ("" if c["as_expected"] else "  (NOT as expected)")
            )
        for a in report["audits"]:
            print(
                f"audit      {a['task']}: {a['verdict']}"
                + (f" (unknown: {', '.join(a['unknown'])})" if a.get("unknown") else "")
            )
        for b in report["blackbox"]:
            print(f"blackbox   {b['sampler']} ({len(b.get('seeds', []))} seeds merged): {b['verdict']}")
        print(f"report     {out / 'sweep.md'}, {out / 'sweep.json'}; certificates in {out / 'certificates'}")
    bad = (
        report["failed"]
        or any(not c["as_expected"] for c in report["claims"])
        or any(a["verdict"] in {"FAIL", "UNKNOWN"} for a in report["audits"])
        or any(b["verdict"] in {"violation", "UNKNOWN"} for b in report["blackbox"])
    )
    return EXIT_FAILED if bad else EXIT_OK


def _verify_mutants(args: argparse.Namespace, claims: list[Any], progress: str | None) -> int:
    """``verify --mutants``: the mutation score per claim and overall; survivors fail the run."""
    from mechlib import verify
    from mechlib.audit.loading import write_atomic
    from mechlib.proofs.mutants import score

    results = verify.run_mutants(
        claims, jobs=args.jobs, timeout=args.timeout, progress=progress, scheduler=args.scheduler
    )
    doc: dict[str, Any] = {
        "schema": "mechlib.mutants/1",
        "score": score(results),
        "runs": [r.to_json() for r in results],
    }
    name = "mutants.partial.json" if args.only or args.paper else "mutants.json"  # a selection keeps the full run
    path = Path(args.reports) / name
    try:
        write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    except OSError as err:
        raise InputError(f"cannot write reports: {err.strerror or err}", source=args.reports) from None
    if args.json:
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        for r in results:
            mark = "killed  " if r.killed else "SURVIVED"
            print(f"{mark} {r.claim:<10} {r.result.outcome.verdict.value:<17} {r.mutant.name} ({r.mutant.kind})")
        s = doc["score"]
        print(f"mutation score {s['score']} ({s['mutants']} mutants); per claim: {s['per_claim']}. Report: {path}")
    return EXIT_OK if all(r.killed for r in results) else EXIT_FAILED


def _certificate_source(spec: str | None, cert: dict[str, Any]) -> tuple[bytes | str | None, dict[str, Any] | None]:
    """SOURCE (a file or ``module:function``) read as the audit read it: its bytes when it is a
    file, and the mechanism (its matrix as integer rows of Python ints, no text), for a
    field-by-field comparison."""
    if spec is None:
        return None, None
    from mechlib.audit.loading import load_source
    from mechlib.core.exact import format_fraction

    src: dict[str, Any] = cert["source"] if isinstance(cert.get("source"), dict) else {}
    loaded = load_source(
        spec, from_float=src.get("format") == "npy", normalize_rows=cert.get("rows_normalized") is True
    )
    # a file's bytes are hashed by the checker; a module's source file was hashed by the loader
    data: bytes | str = Path(spec).read_bytes() if Path(spec).is_file() else loaded.sha256
    mech = loaded.mechanism
    claimed = (
        {"alpha": format_fraction(loaded.claimed_alpha)}
        if loaded.claimed_alpha is not None
        else {"epsilon": format_fraction(loaded.claimed_epsilon)}
        if loaded.claimed_epsilon is not None
        else None
    )
    if claimed is not None and loaded.claimed_delta is not None:
        claimed["delta"] = format_fraction(loaded.claimed_delta)
    num, den = mech.scaled()
    parsed = {
        "matrix": {"denominators": list(den), "numerators": [list(row) for row in num]},  # Python ints
        "inputs": list(mech.inputs),
        "outputs": list(mech.outputs),
        "neighbours": [list(pair) for pair in mech.neighbours],
        "claimed": claimed,
    }
    return data, parsed


def _check(args: argparse.Namespace) -> int:
    from mechlib.audit.loading import read_json, uncompressed
    from mechlib.checkers import audit_certificate, blackbox_result, bracket_certificate

    try:
        cert = read_json(uncompressed(Path(args.certificate).read_bytes(), args.certificate))
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", source=args.certificate) from None
    except InputError as err:
        raise err.at(args.certificate) from None
    found = cert.get("schema") if isinstance(cert, dict) else type(cert).__name__
    known = (audit_certificate.SCHEMA, bracket_certificate.SCHEMA, blackbox_result.SCHEMA, *blackbox_result.EARLIER)
    if found not in known:
        raise InputError(
            f"schema {found!r}",
            source=args.certificate,
            field="schema",
            hint=f"expected {' or '.join(map(repr, known))}",
        )
    provenance: tuple[str, ...] = ()
    try:
        if found == audit_certificate.SCHEMA:
            source, parsed = _certificate_source(args.source, cert)
            failures = audit_certificate.check_certificate(cert, source, parsed)
            provenance = audit_certificate.PROVENANCE
        elif args.source is not None:
            raise InputError("SOURCE is only for audit certificates", field="SOURCE", hint=f"drop {args.source}")
        elif found in (blackbox_result.SCHEMA, *blackbox_result.EARLIER):
            failures, provenance = blackbox_result.check_result(cert), blackbox_result.PROVENANCE
        else:
            failures = bracket_certificate.check_certificate(cert)
    except (KeyError, ValueError, TypeError, IndexError, ZeroDivisionError, AttributeError) as err:
        raise InputError(f"malformed certificate: {type(err).__name__}: {err}", source=args.certificate) from None
    if failures and failures[0].startswith("malformed"):
        raise InputError(failures[0], source=args.certificate)
    if provenance and not failures:
        print("unverified provenance (recorded, not re-checkable): " + "; ".join(provenance))
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{args.certificate}: {'holds' if not failures else f'{len(failures)} check(s) failed'}")
    return EXIT_OK if not failures else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
