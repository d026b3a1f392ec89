"""``mechlib sweep MANIFEST``: a grid of independent work on the engine, one merged report.

A manifest is TOML with any of three kinds of work (see ``examples/sweep.toml``)::

    [sweep]
    output = "sweep-out"        # the directory of the report, certificates and cache
    timeout = 600               # seconds per task (over it: UNKNOWN, "timed out")

    [[claims]]                  # claims × fuzz seeds, at a fuzz depth
    only = ["GRS-LP", "DOM"]    # or paper = "GRS"; neither: every claim
    seeds = [1, 2]              # Hypothesis seeds (omitted: each claim's own seed)
    depth = 5                   # fuzz examples × depth

    [[audits]]                  # white-box audits: files, and module:function sources × ε × n
    sources = ["mech.csv", "mypkg.mechanisms:make"]   # make(epsilon=Fraction, n=int)
    epsilons = ["1/2", "1"]
    ns = [4, 8]

    [[blackbox]]                # black-box runs × seeds; the counts are merged exactly
    sampler = "mechlib:truncated_geometric"
    epsilon = "1"
    n = 4
    samples = 100000            # per count and seed
    seeds = [0, 1, 2, 3]

Every task is keyed by a hash of its inputs and the tool version; a finished task's result is
stored under ``OUTPUT/cache/`` and a rerun skips it (resumable). The report is
``OUTPUT/sweep.{json,md}``; audit certificates and merged black-box results (each re-checkable
with ``mechlib check``) are under ``OUTPUT/certificates/``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib import __version__
from mechlib.audit import DEFAULT_ALPHA_FA, MAX_COUNT, MAX_SAMPLES, false_alarm_rate
from mechlib.audit.loading import write_all, write_atomic
from mechlib.core.exact import format_fraction, to_fraction
from mechlib.engine import MAX_TIMEOUT, Task, TaskResult, run_all
from mechlib.errors import InputError
from mechlib.rendering import render

SCHEMA = "mechlib.sweep/1"
SECTIONS = {"sweep", "claims", "audits", "blackbox"}
FIELDS = {
    "sweep": {"output", "timeout"},
    "claims": {"only", "paper", "seeds", "depth"},
    "audits": {"sources", "epsilons", "ns"},
    "blackbox": {"sampler", "epsilon", "n", "samples", "seeds", "alpha_fa"},
}
#: Grid limits, checked before anything runs.
MAX_TASKS = 100_000
#: The largest manifest read, and integer in it (n, samples, seeds, depth).
MAX_MANIFEST_BYTES = 10_000_000
MAX_INT = 2**63 - 1
#: The deepest fuzz run a claim task takes (examples × depth).
MAX_DEPTH = 1000


@dataclass(frozen=True)
class Planned:
    """A task with what the merge needs: its section and entry, and its cache key."""

    section: str
    entry: int
    label: str
    task: Task


# -- reading the manifest -----------------------------------------------------------------


def read_manifest(path: str) -> dict[str, Any]:
    hint = "expected a UTF-8 TOML file like examples/sweep.toml"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as err:
        raise InputError(f"cannot read the manifest: {err.strerror or err}", source=path) from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise InputError(f"the manifest is over {MAX_MANIFEST_BYTES // 1_000_000} MB", source=path, hint=hint)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not a text file (binary or compressed?)", source=path, hint=hint) from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"not valid TOML: {err}", source=path, hint="see examples/sweep.toml") from None
    except RecursionError:
        raise InputError("nested too deeply", source=path, hint=hint) from None
    except ValueError:  # an integer past Python's digit limit
        raise InputError("an integer of more than 4300 digits", source=path, hint=hint) from None
    unknown = sorted(set(data) - SECTIONS)
    if unknown:
        raise InputError(f"unknown section(s) {unknown}", source=path, hint=f"known: {sorted(SECTIONS)}")
    for section in SECTIONS - {"sweep"}:
        entries = data.get(section, [])
        if not isinstance(entries, list):
            raise InputError(f"[{section}] must be an array of tables", source=path, hint=f"write [[{section}]]")
        for k, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise InputError(f"[[{section}]] #{k + 1} is {entry!r}", source=path, hint=f"write [[{section}]]")
            extra = sorted(set(entry) - FIELDS[section])
            if extra:
                raise InputError(
                    f"[[{section}]] #{k + 1}: unknown field(s) {extra}",
                    source=path,
                    hint=f"known: {sorted(FIELDS[section])}",
                )
    head = data.get("sweep", {})
    if not isinstance(head, dict):
        raise InputError(f"sweep = {head!r}", source=path, hint="write a [sweep] table")
    extra = sorted(set(head) - FIELDS["sweep"])
    if extra:
        raise InputError(f"[sweep]: unknown field(s) {extra}", source=path, hint=f"known: {sorted(FIELDS['sweep'])}")
    if not isinstance(head.get("output", ""), str):
        raise InputError(f"[sweep] output = {head['output']!r}"[:120], source=path, hint="expected a directory name")
    return data


def _ints(value: Any, where: str, low: int = 0, high: int = MAX_INT) -> list[int]:
    values = value if isinstance(value, list) else [value]
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high for v in values):
        shown = f"{value!r}"[:80]
        raise InputError(f"{where} = {shown}", hint=f"expected an integer in {low}..{high} or a list of them")
    return values


def _fractions(value: Any, where: str) -> list[Fraction]:
    values = value if isinstance(value, list) else [value]
    try:
        out = [to_fraction(str(v)) for v in values]
    except InputError:
        raise InputError(f"{where} = {value!r}", hint='expected exact numbers, e.g. "1/2" or 1') from None
    if not out or any(v <= 0 for v in out):
        raise InputError(f"{where} = {value!r}", hint="expected positive numbers")
    return out


def plan(manifest: dict[str, Any], source: str) -> list[Planned]:
    """Every task of the manifest (limits checked before anything runs)."""
    head = manifest.get("sweep", {})
    timeout = head.get("timeout", 600)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT:
        raise InputError(
            f"[sweep] timeout = {f'{timeout!r}'[:80]}", source=source, hint=f"expected seconds in (0, {MAX_TIMEOUT}]"
        )
    planned: list[Planned] = []
    try:
        for section, planner in (("claims", _plan_claims), ("audits", _plan_audits), ("blackbox", _plan_blackbox)):
            for k, entry in enumerate(manifest.get(section, [])):
                planned += planner(k, entry, f"[[{section}]] #{k + 1}", float(timeout))
                if len(planned) > MAX_TASKS:
                    raise InputError(f"the manifest asks for more than {MAX_TASKS} tasks", hint="split it")
    except InputError as err:
        raise err.at(source) from None
    if not planned:
        hint = "add [[claims]], [[audits]] or [[blackbox]]"
        raise InputError("the manifest asks for no work", source=source, hint=hint)
    return planned


def _plan_claims(k: int, entry: dict[str, Any], where: str, timeout: float) -> list[Planned]:
    """Each selected claim × seed, in a child with the fuzz depth and seed in its environment."""
    seeds: list[int | None] = list(_ints(entry["seeds"], f"{where} seeds")) if "seeds" in entry else [None]
    depth = _ints(entry.get("depth", 1), f"{where} depth", 1, MAX_DEPTH)[0]
    out = []
    for claim in _claim_ids(entry, where):
        for seed in seeds:
            env = {"MECHLIB_FUZZ_SCALE": str(depth), "MECHLIB_COUNTEREXAMPLES": ""}
            if seed is not None:
                env["MECHLIB_FUZZ_SEED"] = str(seed)
            shown = "the claim's" if seed is None else seed
            label = f"{claim} seed={shown} depth={depth}"
            kwargs: dict[str, Any] = {"claim_id": claim}
            out.append(_planned("claims", k, label, "mechlib.verify:claim_outcome", kwargs, timeout, env))
    return out


def _plan_audits(k: int, entry: dict[str, Any], where: str, timeout: float) -> list[Planned]:
    """Files as they are; ``module:function`` sources over the ε × n grid."""
    from mechlib.audit.loading import is_callable_spec

    sources = entry.get("sources")
    if not isinstance(sources, list) or not sources or not all(isinstance(s, str) for s in sources):
        raise InputError(f"{where} sources = {sources!r}", hint="expected a list of files or module:function")
    epsilons: list[Fraction | None] = (
        list(_fractions(entry["epsilons"], f"{where} epsilons")) if "epsilons" in entry else [None]
    )
    ns: list[int | None] = list(_ints(entry["ns"], f"{where} ns", 1, MAX_COUNT)) if "ns" in entry else [None]
    out = []
    for spec in sources:
        _check_source(spec, where)
        if not (is_callable_spec(spec) and not Path(spec).exists()):
            kwargs: dict[str, Any] = {"spec": spec, "arguments": None, "digest": _file_digest(spec)}
            out.append(_planned("audits", k, spec, "mechlib.sweep:audit_task", kwargs, timeout))
            continue
        for eps in epsilons:
            for n in ns:
                args: dict[str, Any] = {} if eps is None else {"epsilon": format_fraction(eps)}
                args |= {} if n is None else {"n": n}
                label = f"{spec}({', '.join(f'{a}={v}' for a, v in args.items())})"
                kwargs = {"spec": spec, "arguments": args or None}
                out.append(_planned("audits", k, label, "mechlib.sweep:audit_task", kwargs, timeout))
    return out


def _manifest_alpha_fa(value: Any) -> str:
    """A manifest's alpha_fa as the result records it: a string as written, a TOML number as its
    shortest decimal (0.01 → "0.01", its value as written, not its binary float's)."""
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise InputError(f"alpha_fa = {value!r}", hint="expected an exact number")


def _plan_blackbox(k: int, entry: dict[str, Any], where: str, timeout: float) -> list[Planned]:
    """One task per seed (the merge adds their histograms)."""
    sampler = entry.get("sampler")
    if not isinstance(sampler, str):
        raise InputError(f"{where} sampler = {sampler!r}", hint="expected module:function or an adapter name")
    eps = format_fraction(_fractions(entry.get("epsilon"), f"{where} epsilon")[0])
    _check_sampler(sampler, where)
    n = _ints(entry.get("n"), f"{where} n", 1, MAX_COUNT)[0]
    samples = _ints(entry.get("samples", 100_000), f"{where} samples", 1, MAX_SAMPLES)[0]
    alpha_fa = entry.get("alpha_fa", DEFAULT_ALPHA_FA)
    try:
        false_alarm_rate(_manifest_alpha_fa(alpha_fa))
    except InputError:
        raise InputError(
            f"{where} alpha_fa = {alpha_fa!r}", hint='expected an exact number in (0, 1/2): "1/100", "0.01" or 0.01'
        ) from None
    seeds = _ints(entry.get("seeds", [0]), f"{where} seeds")
    if len(set(seeds)) != len(seeds):
        raise InputError(f"{where} seeds = {seeds}", hint="seeds must differ (their counts are added)")
    out = []
    for seed in seeds:
        kwargs: dict[str, Any] = {"sampler": sampler, "n": n, "epsilon": eps, "samples": samples, "seed": seed}
        label = f"{sampler} n={n} ε={eps} seed={seed}"
        out.append(_planned("blackbox", k, label, "mechlib.sweep:blackbox_phases_task", kwargs, timeout))
    return out


def _check_source(spec: str, where: str) -> None:
    """An audit's source exists before anything runs: a readable file, or ``module:function`` whose
    top-level module can be found (found, not imported: its code runs on a worker, in the task)."""
    from mechlib.audit.loading import is_callable_spec

    if Path(spec).is_file():
        return
    if not is_callable_spec(spec):
        raise InputError(
            f"{where}: no such file {spec!r}", hint="expected an existing mechanism file or module:function"
        )
    _check_module(spec, where)


def _check_sampler(spec: str, where: str) -> None:
    """A black-box entry's sampler before anything runs: a known adapter, or ``module:function`` whose
    top-level module can be found."""
    from mechlib.audit.adapters import ADAPTERS, LIBRARIES

    library, _, function = spec.partition(":")
    if spec in ADAPTERS:
        return
    if library in LIBRARIES or not function:
        raise InputError(
            f"{where} sampler = {spec!r}", hint=f"expected module:function or one of {', '.join(ADAPTERS)}"
        )
    _check_module(spec, where)


def _check_module(spec: str, where: str) -> None:
    import importlib.util
    import sys

    top = spec.partition(":")[0].split(".")[0]
    if "" not in sys.path and str(Path.cwd()) not in sys.path:  # as import_callable finds it
        sys.path.insert(0, str(Path.cwd()))
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        found = None
    if found is None:
        raise InputError(
            f"{where}: no module {top!r} for {spec!r}",
            hint="run from the directory that holds it, or install it; a file needs its extension (.json, .csv)",
        )


def _claim_ids(entry: dict[str, Any], where: str) -> list[str]:
    try:
        from mechlib.proofs import REGISTRY
    except ImportError as err:
        raise InputError(f"claims need {err.name or 'more packages'}", hint="pip install 'mechlib[proofs]'") from None
    only = entry.get("only", [])
    if not isinstance(only, list) or not all(isinstance(c, str) for c in only):
        raise InputError(f"{where} only = {only!r}", hint='expected a list of claim IDs, e.g. ["GRS-LP"]')
    unknown = [c for c in only if c not in REGISTRY]
    if unknown:
        raise InputError(f"{where}: unknown claim ID(s) {unknown}", hint=f"registered: {sorted(REGISTRY)}")
    paper = entry.get("paper")
    ids = [c for c in sorted(REGISTRY) if (not only or c in only) and REGISTRY[c].implemented]
    if paper is not None:
        ids = [c for c in ids if REGISTRY[c].paper.upper() == str(paper).upper()]
    if not ids:
        raise InputError(f"{where} selects no implemented claim", hint="check only = [...] and paper = ...")
    return ids


def _file_digest(spec: str) -> str | None:
    """A file's SHA-256 (part of its task's key: an edited file is audited again)."""
    try:
        return hashlib.sha256(Path(spec).read_bytes()).hexdigest()
    except OSError:
        return None


def _planned(
    section: str,
    entry: int,
    label: str,
    function: str,
    kwargs: dict[str, Any],
    timeout: float,
    env: dict[str, str] | None = None,
) -> Planned:
    identity = json.dumps(
        {"function": function, "kwargs": kwargs, "env": env or {}, "version": __version__}, sort_keys=True, default=str
    )
    key = f"{section}-{hashlib.sha256(identity.encode()).hexdigest()[:20]}"
    return Planned(section, entry, label, Task(key, function, kwargs, timeout=timeout, env=env or {}))


# -- the tasks (run on the workers) --------------------------------------------------------


def audit_task(spec: str, arguments: dict[str, Any] | None, digest: str | None = None) -> dict[str, Any]:
    """The white-box audit report (a certificate) of a file, or of ``spec(**arguments)``; the claimed
    ε is ``arguments["epsilon"]`` when given. ``digest`` only keys the cache."""
    from mechlib.audit.loading import load_source
    from mechlib.audit.whitebox import audit

    del digest
    loaded = load_source(spec, arguments=arguments)
    return audit(loaded)


def blackbox_phases_task(sampler: str, n: int, epsilon: str, samples: int, seed: int) -> dict[str, Any]:
    """One seed's (selection, test) phases (output → count per input 0..n; Poisson sizes of mean
    ``samples``) and the sampler's library."""
    import time

    from mechlib.audit.adapters import sampler as make_sampler
    from mechlib.audit.blackbox import sample_phases

    chosen = make_sampler(sampler, n, to_fraction(epsilon))
    start = time.perf_counter()
    phases = sample_phases(chosen, n, samples, seed)
    return {"phases": phases, "library": chosen.library, "seconds": time.perf_counter() - start}


# -- running and merging -------------------------------------------------------------------


def run(
    manifest_path: str,
    *,
    output: str | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> tuple[dict[str, Any], Path]:
    """Plan, skip cached tasks, run the rest on the engine, merge; returns (report, output dir)."""
    manifest = read_manifest(manifest_path)
    planned = plan(manifest, manifest_path)
    out = Path(output or manifest.get("sweep", {}).get("output") or Path(manifest_path).with_suffix(".sweep"))
    cache = out / "cache"
    existing = next(p for p in (out, *out.parents) if p.exists() or p == p.parent)
    if not existing.is_dir() or not os.access(existing, os.W_OK):  # usable before anything runs
        problem = "is a file" if existing.exists() and not existing.is_dir() else "cannot be written"
        raise InputError(f"{existing} {problem}", source=str(out), hint="choose another output directory")
    results: dict[str, TaskResult] = {}
    for p in planned:
        stored = cache / f"{p.task.key}.pickle"
        if stored.exists():
            try:
                results[p.task.key] = pickle.loads(stored.read_bytes())
            except (pickle.UnpicklingError, EOFError, AttributeError, ImportError):
                stored.unlink()  # a damaged entry is recomputed
    from_cache = len(results)
    todo = [p.task for p in planned if p.task.key not in results]
    if progress is not None:
        progress(len(results), len(planned), from_cache)

    def finished(result: TaskResult) -> None:
        results[result.key] = result
        if result.ok:  # only an answer is kept: a failed task is tried again on the next run
            write_atomic(cache / f"{result.key}.pickle", pickle.dumps(result))
        if progress is not None:
            progress(len(results), len(planned), from_cache)

    run_all(todo, jobs=jobs, scheduler=scheduler, done=finished)
    report, certificates = merge(planned, results, manifest)
    report["tasks"] |= {"from_cache": from_cache, "run": len(todo)}
    report["manifest"] = str(manifest_path)
    files = {str(out / name): text for name, text in certificates.items()}
    files[str(out / "sweep.json")] = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    files[str(out / "sweep.md")] = render_markdown(report)
    try:
        write_all(files)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", source=str(err.filename or out)) from None
    return report, out


def merge(
    planned: list[Planned], results: dict[str, TaskResult], manifest: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """One report from every task's result, and the certificate files to write (relative names
    under ``certificates/``, made absolute by the caller's output directory)."""
    claims, audits, files = [], [], {}
    failed = []
    for p in planned:
        r = results[p.task.key]
        if not r.ok:
            failed.append({"task": p.label, "reason": r.reason})
        if p.section == "claims":
            claims.append(_claim_row(p, r))
        elif p.section == "audits":
            row, certificate = _audit_row(p, r)
            audits.append(row)
            if certificate is not None:
                files[row["certificate"]] = certificate
    blackbox, bb_files = _merge_blackbox(planned, results, manifest)
    files |= bb_files
    report = {
        "schema": SCHEMA,
        "tool": {"name": "mechlib", "version": __version__},
        "tasks": {"total": len(planned), "failed": len(failed)},
        "claims": claims,
        "audits": audits,
        "blackbox": blackbox,
        "failed": failed,
    }
    return report, files


def _claim_row(p: Planned, r: TaskResult) -> dict[str, Any]:
    from mechlib.proofs import REGISTRY
    from mechlib.proofs.registry import Result, outcome_of_task

    claim = REGISTRY[p.task.kwargs["claim_id"]]
    outcome, seconds = outcome_of_task(r)
    result = Result(claim, outcome, seconds)
    env = p.task.env
    return {
        "claim": claim.id,
        "seed": int(env["MECHLIB_FUZZ_SEED"]) if "MECHLIB_FUZZ_SEED" in env else None,
        "depth": int(env["MECHLIB_FUZZ_SCALE"]),
        "verdict": outcome.verdict.value,
        "as_expected": result.as_expected,
        "strength": None if result.strength is None else result.strength.value,
        "reason": outcome.reason,
        "seconds": round(seconds, 3),
    }


def _audit_row(p: Planned, r: TaskResult) -> tuple[dict[str, Any], str | None]:
    from mechlib.audit.whitebox import certificate_text

    name = hashlib.sha256(p.label.encode()).hexdigest()[:12]
    slug = "".join(ch if ch.isalnum() else "_" for ch in p.label)[:60]
    row: dict[str, Any] = {"task": p.label, "seconds": round(r.seconds, 3)}
    if not r.ok:
        return {**row, "verdict": "UNKNOWN", "reason": r.reason}, None
    report = r.value
    row |= {
        "verdict": report["verdict"],
        "dp_level": report["dp_level"],
        "derivable": report["derivable"],
        "unknown": report["unknown"],
        "certificate": f"certificates/{slug}-{name}.audit.json",
    }
    return row, certificate_text(report)


def _merge_blackbox(
    planned: list[Planned], results: dict[str, TaskResult], manifest: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Per [[blackbox]] entry: the seeds' histograms added exactly, then one DP test on the sum —
    a ``mechlib.blackbox/9`` result that ``mechlib check`` re-verifies (Poisson sizes add up: the
    merged phases are again of Poisson sizes with equal means across counts)."""
    from mechlib.audit.blackbox import blackbox_result
    from mechlib.audit.statistics import add_histograms

    rows, files = [], {}
    entries = manifest.get("blackbox", [])
    for k, entry in enumerate(entries):
        mine = [p for p in planned if p.section == "blackbox" and p.entry == k]
        done = [results[p.task.key] for p in mine]
        if not all(r.ok for r in done):
            rows.append({"sampler": entry["sampler"], "verdict": "UNKNOWN", "reason": "a seed's task failed"})
            continue
        n = mine[0].task.kwargs["n"]
        selection, test = (add_histograms(*(r.value["phases"][k] for r in done)) for k in (0, 1))
        seeds = [p.task.kwargs["seed"] for p in mine]
        samples = mine[0].task.kwargs["samples"] * len(seeds)
        seconds = sum(r.value["seconds"] for r in done)
        result = blackbox_result(
            spec=entry["sampler"],
            library=done[0].value["library"],
            n=n,
            samples=samples,
            seed=seeds,
            seconds=seconds,
            phases=(selection, test),
            epsilon=to_fraction(mine[0].task.kwargs["epsilon"]),
            alpha_fa=_manifest_alpha_fa(entry.get("alpha_fa", DEFAULT_ALPHA_FA)),
        )
        slug = "".join(ch if ch.isalnum() else "_" for ch in entry["sampler"])
        path = f"certificates/{slug}-{k + 1}.blackbox.json"
        files[path] = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
        rows.append(
            {
                "sampler": entry["sampler"],
                "n": n,
                "epsilon": result["dp"]["epsilon"],
                "seeds": seeds,
                "samples_per_count": samples,
                "verdict": result["dp"]["verdict"],
                "certificate": path,
            }
        )
    return rows, files


def render_markdown(report: dict[str, Any]) -> str:
    """sweep.md (``templates/sweep.md``): a table per kind of task, then the failed tasks."""
    claims = [
        [c["claim"], "the claim's" if c["seed"] is None else c["seed"], c["depth"], c["verdict"],
         "yes" if c["as_expected"] else "**NO**", c["strength"], c["seconds"]]
        for c in report["claims"]
    ]  # fmt: skip
    audits = [
        [a["task"], a["verdict"], a.get("dp_level"), a.get("derivable"), ", ".join(a.get("unknown", [])) or "–",
         a.get("certificate", a.get("reason"))]
        for a in report["audits"]
    ]  # fmt: skip
    blackbox = [
        [b["sampler"], b.get("n"), b.get("epsilon"), b.get("seeds"), b.get("samples_per_count"), b["verdict"],
         b.get("certificate", b.get("reason"))]
        for b in report["blackbox"]
    ]  # fmt: skip
    sections = [
        ("Claims", ["claim", "seed", "depth", "verdict", "as expected", "strength", "seconds"], claims),
        ("Audits", ["mechanism", "verdict", "α (DP level)", "derivable", "unknown", "certificate"], audits),
        ("Black-box runs (seeds merged)", ["sampler", "n", "ε", "seeds", "samples per count", "verdict", "result"],
         blackbox),
    ]  # fmt: skip
    return render("sweep.md", **{"manifest": "", **report}, sections=sections)
