"""``mechlib prove-universal N``: T optimal for every legal Bayesian user at one n and α (GRS
Thm 3.2 'if', DOM), the remap cells as tasks on the engine."""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib.cli import options
from mechlib.errors import ExitCode, InputError

#: The largest n `prove-universal` takes (C(25, 12) = 5.2 million remap cells: weeks on one core).
UNIVERSAL_MAX_N = 12
#: The schema of the document ``--json`` prints and ``-o PATH`` writes.
SCHEMA = "mechlib.universal/1"


def add_parser(sub: Any, name: str) -> None:
    universal = sub.add_parser(
        name,
        help="prove for one n and α that T is optimal for every legal Bayesian user (GRS Thm 3.2 'if', DOM)",
        description="Prove, for counts 0..N and one α, that the truncated geometric mechanism T is optimal "
        "for every legal Bayesian user — so every α-DP mechanism is dominated by a remap of T, for every "
        "legal user (GRS Theorem 3.2's 'if' direction, claim DOM of mechlib/proofs/catalogue.py). The users "
        "split into C(2N+1, N) remap cells, each proved with Farkas certificates checked in exact rationals "
        "(`mechlib explain 'remap cell'`); the cells run as tasks on a local Dask cluster of -j workers, or on "
        "--scheduler ADDRESS, so that a cluster pushes N further. `mechlib verify` re-checks the shipped "
        "certificates of N ≤ 6; -o writes this N's certificate for `mechlib check`. Exit 0: "
        "proved; 1: refuted; 3: unknown (a task timed out or had no live worker); 2: bad input.",
        epilog=options.EPILOG,
    )
    universal.add_argument(
        "n", type=options.integer(1, UNIVERSAL_MAX_N), metavar="N",
        help=f"the largest count, 1 ≤ N ≤ {UNIVERSAL_MAX_N} (the cells grow as C(2N+1, N): 6435 at N = 7, "
        "about 3 minutes on 2 cores; 24,310 at N = 8, about 22 minutes)",
    )  # fmt: skip
    universal.add_argument("--alpha", default="1/2", help="α = e^−ε, an exact number in (0, 1) (default 1/2)")
    universal.add_argument(
        "--timeout",
        type=options.seconds,
        metavar="SECONDS",
        help="per task (one prefix of the remaps); over it: UNKNOWN",
    )
    options.add_output(universal, "the certificate (mechlib.universal/2: every cell's Farkas certificates, every "
                       "abandoned prefix's Gordan certificate) that `mechlib check PATH` re-verifies; when there is "
                       "none (not proved), the verdict and the counts --json prints")  # fmt: skip
    options.add_report_dir(universal, "universal-nN.{md,html}")
    options.add_json(universal, "the verdict and the counts")
    options.add_no_progress(universal, "progress lines")
    options.add_engine(universal, "tasks run")


def run(args: argparse.Namespace) -> int:
    from mechlib.core.exact import format_fraction, parse_probability

    try:
        alpha = parse_probability(args.alpha)
    except InputError as err:
        raise InputError(f"--alpha={args.alpha}: {err}") from None
    if not 0 < alpha < 1:
        raise InputError(f"--alpha={args.alpha}", hint="expected 0 < α < 1 (α = 0 or 1 makes the theorem trivial)")
    options.check_output(args.output)
    from mechlib.proofs.registry import Verdict
    from mechlib.proofs.shared.remap_cells import judged_document, prove_on_engine

    say = options.progress_lines(args)

    def progress(finished: int, total: int) -> None:
        if say is not None:
            say(f"prove-universal {finished}/{total} tasks")

    start = time.perf_counter()
    with options.engine(args) as scheduler:
        counts = prove_on_engine(
            args.n, alpha, jobs=args.jobs, scheduler=scheduler, timeout=args.timeout, done=progress
        )
    seconds = time.perf_counter() - start
    outcome, certificate = judged_document(args.n, alpha, counts, {"seconds": round(seconds, 2)})
    doc = universal_document(args.n, alpha, outcome, counts, seconds)
    outputs: dict[Any, str] = {args.output: options.json_text(certificate or doc)} if args.output else {}
    if args.report_dir:
        base = Path(args.report_dir) / f"universal-n{args.n}"
        options.refuse_overwrite([Path(f"{base}.md"), Path(f"{base}.html")], args.force)
        markdown = universal_markdown(doc)
        recheck = f"mechlib prove-universal {args.n} --alpha {doc['alpha']}"
        html = options.markdown_page(f"T universally optimal at n = {args.n}?", markdown, tool(), recheck)
        outputs |= {f"{base}.md": markdown, f"{base}.html": html}
    options.write_all(outputs)
    if args.json:
        print(json.dumps(doc, ensure_ascii=False))
    else:
        a, e = format_fraction(alpha), outcome.evidence
        if outcome.verdict == Verdict.PROVED:
            print(f"n={args.n} α={a}: PROVED — T is optimal for every legal Bayesian user, so every {a}-DP "
                  f"mechanism on 0..{args.n} is dominated by a remap of T (GRS Thm 3.2 'if', DOM)")  # fmt: skip
        else:
            print(f"n={args.n} α={a}: {outcome.verdict.value} — {outcome.reason}")
        print(f"cells      {e['cells proved']} remap cells proved ({e['of them by reflection']} by reflection), "
              f"{e['Farkas certificates']} Farkas certificates, {e['pieces split']} pieces split, "
              f"{e['prefixes abandoned (Gordan)']} prefixes abandoned (Gordan)")  # fmt: skip
        if "counterexample" in e:
            print(f"user       {json.dumps(e['counterexample'], ensure_ascii=False)}")
        if outputs:
            print(f"written    {', '.join(map(str, outputs))}")
        print(f"time       {seconds:.1f} s")
    return {Verdict.PROVED: ExitCode.HOLDS, Verdict.REFUTED: ExitCode.FAILS}.get(outcome.verdict, ExitCode.UNDECIDED)


def universal_document(n: int, alpha: Fraction, outcome: Any, counts: Any, seconds: float) -> dict[str, Any]:
    """The ``mechlib.universal/1`` document of one run: what ``--json`` prints and ``-o`` writes."""
    from mechlib.core.exact import format_fraction

    return {
        "schema": SCHEMA, "n": n, "alpha": format_fraction(alpha), "verdict": outcome.verdict.value,
        "reason": outcome.reason, "cells": counts.cells, "mirrored": counts.mirrored,
        "abandoned": counts.abandoned, "farkas_certificates": counts.certificates, "splits": counts.splits,
        "unproved": counts.unproved[:5], "counterexample": outcome.evidence.get("counterexample"),
        "seconds": round(seconds, 2),
    }  # fmt: skip


def tool() -> dict[str, str]:
    from mechlib import __version__

    return {"name": "mechlib", "version": __version__}


def universal_markdown(doc: dict[str, Any]) -> str:
    """The report of one run in Markdown (``--report-dir``), from its document."""
    rows = [(key, doc[key]) for key in ("cells", "mirrored", "farkas_certificates", "splits", "abandoned", "seconds")]
    lines = [
        f"# T optimal for every legal Bayesian user at n = {doc['n']}, α = {doc['alpha']}: {doc['verdict']}",
        "",
        "GRS Theorem 3.2's 'if' direction (claim DOM): every remap cell proved with Farkas certificates "
        "checked in exact rationals (`mechlib explain 'remap cell'`)." + (f" {doc['reason']}" if doc["reason"] else ""),
        "",
        "| count | value |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in rows),
    ]
    if doc["unproved"]:
        lines += [
            "",
            "Unproved (the first five): " + "; ".join(json.dumps(u, ensure_ascii=False) for u in doc["unproved"]),
        ]
    if doc["counterexample"] is not None:
        lines += ["", f"Counterexample: `{json.dumps(doc['counterexample'], ensure_ascii=False)}`"]
    return "\n".join(lines) + "\n"
