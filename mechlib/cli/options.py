"""What every ``mechlib`` command shares, each flag defined once: the result (``-o PATH``), the
reports (``--report-dir DIR``), ``--json``, ``--no-progress``, the engine (``-j``, ``--scheduler``,
``--connect-timeout``, ``--worker-grace``), argument types that check their limits before any
work, deprecated spellings, and writing every output file of a command or none of them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from mechlib.errors import ExitCode, InputError, exit_codes_text

#: The most local workers any command starts.
MAX_JOBS = 1024


class Parser(argparse.ArgumentParser):
    """argparse with a usage error in one line (what is wrong, where to read more), exit 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(ExitCode.BAD_INPUT)


EPILOG = exit_codes_text()


# -- argument types: limits checked before any work ------------------------------------------


def seconds(text: str) -> float:
    """A positive, finite number of seconds, at most a week (``engine.MAX_TIMEOUT``)."""
    from mechlib.engine import MAX_TIMEOUT

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds in (0, {MAX_TIMEOUT}]")
    return value


def integer(low: int, high: int) -> Callable[[str], int]:
    """An integer in ``low..high``, also written as an exact decimal or in scientific notation (1e5)."""

    def parse(text: str) -> int:
        try:
            value = Decimal(text.strip()) if len(text) <= 100 else Decimal("NaN")
        except InvalidOperation:
            value = Decimal("NaN")
        if not value.is_finite() or value != value.to_integral_value() or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer in {low}..{high:,}")
        return int(value)

    return parse


def probability(text: str) -> float:
    """A rate strictly between 0 and 1, written exactly (1/100, 0.01, 1e-2); the float nearest it."""
    from mechlib.core.exact import to_fraction

    try:
        value = to_fraction(text) if len(text) <= 100 else Fraction(-1)
    except InputError:
        value = Fraction(-1)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number strictly between 0 and 1 (e.g. 1/100)")
    return float(value)


# -- flags ----------------------------------------------------------------------------------


class Deprecated(argparse.Action):
    """An old spelling kept for one release: it sets the new option's value, with a one-line note."""

    def __init__(self, option_strings: Sequence[str], dest: str, instead: str, **kwargs: Any) -> None:
        self.instead = instead
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:  # fmt: skip
        note(f"{option_string} is deprecated and goes in the next release: use {self.instead}")
        setattr(namespace, self.dest, values)


def note(message: str) -> None:
    print(f"mechlib: note: {message}", file=sys.stderr, flush=True)


def add_json(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON on stdout")


def add_output(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "-o", "--output", metavar="PATH",
        help=f"write {what} to PATH (JSON, written atomically; gzip-compressed when PATH ends in .gz)",
    )  # fmt: skip


def add_report_dir(
    parser: argparse.ArgumentParser, what: str, default: str | None = None, old: str | None = None, force: bool = True
) -> None:
    """``--report-dir DIR`` (and ``--force`` to overwrite); ``old``: a deprecated spelling of it."""
    shown = f" (default: {default})" if default else ""
    parser.add_argument("--report-dir", metavar="DIR", default=default, help=f"write {what} to DIR{shown}")
    if old is not None:
        parser.add_argument(old, dest="report_dir", metavar="DIR", action=Deprecated, instead="--report-dir")
    if force:
        parser.add_argument("--force", action="store_true", help="overwrite reports that already exist in DIR")


def add_no_progress(parser: argparse.ArgumentParser, what: str = "progress on stderr") -> None:
    parser.add_argument("--no-progress", action="store_true", help=f"no {what}")


def add_engine(parser: argparse.ArgumentParser, what: str) -> None:
    """``-j``, ``--scheduler`` and the engine's waits (``mechlib.engine``)."""
    from mechlib.engine import SCHEDULER_ENV, EngineOptions

    defaults = EngineOptions()
    group = parser.add_argument_group("engine (Dask)")
    group.add_argument(
        "-j", "--jobs", type=integer(1, MAX_JOBS), default=os.cpu_count() or 1, metavar="N",
        help=f"workers of the local Dask cluster, {what} at once (default: all cores)",
    )  # fmt: skip
    group.add_argument(
        "--scheduler", metavar="ADDRESS",
        help=f"run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786 (default: ${SCHEDULER_ENV}, else Dask's "
        "scheduler-address (DASK_SCHEDULER_ADDRESS), else a local cluster of -j workers)",
    )  # fmt: skip
    group.add_argument(
        "--connect-timeout", type=seconds, default=defaults.connect_timeout, metavar="SECONDS",
        help=f"give up reaching --scheduler after this long (default {defaults.connect_timeout:g})",
    )  # fmt: skip
    group.add_argument(
        "--worker-grace", type=seconds, default=defaults.worker_grace, metavar="SECONDS",
        help=f"with no live worker for this long, warn; as long again, give up the unfinished tasks, "
        f"keep what finished and exit {ExitCode.UNDECIDED.value} (default {defaults.worker_grace:g})",
    )  # fmt: skip


class engine:
    """The scheduler's address, checked before any work (``--scheduler``, ``$MECHLIB_SCHEDULER``, Dask's
    configuration), with the engine's waits set from the flags for the ``with`` block."""

    def __init__(self, args: argparse.Namespace) -> None:
        from mechlib import engine as dask_engine

        self.address = dask_engine.scheduler_address(args.scheduler)
        self.waits = dask_engine.options(connect_timeout=args.connect_timeout, worker_grace=args.worker_grace)

    def __enter__(self) -> str | None:
        self.waits.__enter__()
        return self.address

    def __exit__(self, *exc: object) -> None:
        self.waits.__exit__(*exc)


def progress_lines(args: argparse.Namespace, prefix: str = "") -> Callable[[str], None] | None:
    """A line on stderr per step, unless ``--no-progress`` or ``--json``."""
    if args.no_progress or args.json:
        return None
    return lambda message: print(prefix + message, file=sys.stderr, flush=True)


# -- writing ---------------------------------------------------------------------------------


def json_text(doc: Any) -> str:
    """A result as the files hold it: indented JSON, UTF-8 as is, a final newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def refuse_overwrite(reports: list[Path], force: bool) -> None:
    """Existing reports are kept unless --force (two sources with one stem would overwrite each
    other's reports otherwise)."""
    existing = [p for p in reports if p.exists()]
    if existing and not force:
        raise InputError(
            "already exists", source=str(existing[0]), hint="pass --force to overwrite, or choose another --report-dir"
        )


def check_output(path: str | None) -> None:
    """``-o PATH`` is usable before any work: not a directory, its parent not a file."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise InputError("is a directory", source=path, field="-o", hint="give a file name, e.g. result.json")
    parent = next((p for p in target.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise InputError(f"{parent} is a file", source=path, field="-o", hint="choose a path in a directory")


def write_all(outputs: dict[Any, Any]) -> None:
    """Write all the files of one command or none of them; an OS error is bad input naming the
    file (exit 2)."""
    from mechlib.audit.loading import write_all as write_every

    try:
        write_every(outputs)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", source=str(err.filename or "")) from None


def option_delta(text: str | None) -> Fraction | None:
    """``--delta``: an exact number in [0, 1]."""
    from mechlib.core.exact import parse_probability

    if text is None:
        return None
    try:
        return parse_probability(text)
    except InputError as err:
        raise replace(err, field="--delta", hint="expected an exact number in [0, 1], e.g. 1/1000 or 1e-6") from None


def markdown_page(title: str, markdown: str, tool: dict[str, Any], recheck: str) -> str:
    """A report's Markdown as one self-contained HTML page (``templates/markdown_page.html``)."""
    from mechlib.rendering import render

    return render("markdown_page.html", title=title, body=markdown, tool=tool, recheck=recheck, created=None,
                  glossary=[])  # fmt: skip
