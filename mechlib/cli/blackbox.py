"""``mechlib blackbox SAMPLER``: sample a mechanism and test its claimed ε (and pmf, and δ)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib.audit import DEFAULT_ALPHA_FA, MAX_COUNT, MAX_SAMPLES
from mechlib.cli import options
from mechlib.errors import ExitCode, InputError


def add_parser(sub: Any, name: str) -> None:
    box = sub.add_parser(
        name,
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
        epilog=options.EPILOG,
    )
    box.add_argument("sampler", metavar="SAMPLER")
    box.add_argument("--n", type=options.integer(1, MAX_COUNT), required=True, help="counts 0..N")
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
    box.add_argument(
        "--samples", type=options.integer(1, MAX_SAMPLES), default=100_000,
        help=f"mean samples per count (Poisson; default 100000, at most {MAX_SAMPLES:.0e}; 1e5 is 100000)",
    )  # fmt: skip
    box.add_argument("--seed", type=options.integer(0, 2**63 - 1), default=0, help="the run's seed (default 0)")
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
    options.add_output(box, "the result (mechlib check re-verifies it)")
    options.add_report_dir(box, "SAMPLER.blackbox.{json,md,html}")
    options.add_json(box, "the result")
    options.add_no_progress(box, "progress bar")


def run(args: argparse.Namespace) -> int:
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
    if (epsilon is not None and epsilon <= 0) or (library_epsilon is not None and library_epsilon <= 0):
        raise InputError(
            f"--epsilon {args.epsilon} --library-epsilon {args.library_epsilon}", hint="expected ε > 0, library ε > 0"
        )
    try:  # exact, in (0, 1/2), recorded as typed
        false_alarm_rate(args.alpha_fa if len(args.alpha_fa) <= 100 else "-1")
    except InputError as err:
        raise InputError(f"--alpha-fa {args.alpha_fa[:40]}: {err.problem}", hint=err.hint) from None
    options.check_output(args.output)
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
    neighbours = _neighbours(args.neighbours, args.n)
    delta = options.option_delta(args.delta)
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
        options.refuse_overwrite([Path(f"{base}.{ext}") for ext in ("json", "md", "html")], args.force)
        outputs |= {
            f"{base}.json": text,
            f"{base}.md": render_blackbox_markdown(result),
            f"{base}.html": render_blackbox_html(result, pmf, f"{base}.json"),
        }
    options.write_all(outputs)
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
    return ExitCode.FAILS if bad else ExitCode.HOLDS


def _sample(chosen: Any, args: argparse.Namespace, declared: Any) -> Any:
    """The run's two phases (Poisson sizes of mean --samples per count), with a progress bar on a
    terminal."""
    from mechlib.audit.blackbox import sample_phases

    if args.json or args.no_progress or not sys.stderr.isatty():
        return sample_phases(chosen, args.n, args.samples, args.seed, None, declared)
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(f"sampling {args.sampler}", total=2 * (args.n + 1))
        return sample_phases(chosen, args.n, args.samples, args.seed, lambda _: bar.advance(task), declared)


def _neighbours(spec: str, n: int) -> list[tuple[int, int]]:
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
