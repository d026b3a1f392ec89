"""The ``mechlib`` command: one module per command (``mechlib/cli/<command>.py``, each an
``add_parser`` and a ``run``) on the shared flags of :mod:`mechlib.cli.options`.

Exit codes (:class:`mechlib.errors.ExitCode`): 0 holds, 1 fails, 2 bad input or usage (one line
on stderr, no traceback, no partial output file), 3 undecided, 130 interrupted.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mechlib import __version__
from mechlib.cli import (
    audit,
    blackbox,
    check,
    explain,
    prove_universal,
    school_planning,
    sweep,
    verify,
)
from mechlib.cli.options import EPILOG, Parser
from mechlib.errors import ExitCode, InputError

__all__ = ["build_parser", "main"]

#: The commands in the order ``mechlib --help`` lists them.
COMMANDS = {
    "audit": audit, "verify": verify, "school-planning": school_planning, "blackbox": blackbox,
    "sweep": sweep, "check": check, "prove-universal": prove_universal, "explain": explain,
}  # fmt: skip


def build_parser() -> Parser:
    parser = Parser(
        prog="mechlib",
        description="Exact checks of differential-privacy mechanisms for count queries "
        "(Ghosh–Roughgarden–Sundararajan, Gupte–Sundararajan, Schmutte–Yoder).",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"mechlib {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module in COMMANDS.items():
        module.add_parser(sub, name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a usage error (one line on stderr), --help or --version
        return int(stop.code or 0)
    restore = _sigterm_interrupts()
    try:
        if args.command not in COMMANDS:
            parser.print_help()
            return ExitCode.BAD_INPUT
        status = int(COMMANDS[args.command].run(args))
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except InputError as err:
        print(f"mechlib: error: {err}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("mechlib: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # stdout closed early (`mechlib … | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    finally:
        restore()


def _sigterm_interrupts() -> Callable[[], Any]:
    """SIGTERM stops a command as Ctrl-C does (``verify`` then writes what it decided); returns the
    function that puts the previous handler back. Only in the main thread (a caller's thread keeps its own)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)
