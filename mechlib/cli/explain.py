"""``mechlib explain [TERM]``: the glossary."""

from __future__ import annotations

import argparse
from typing import Any

from mechlib.errors import ExitCode, InputError


def add_parser(sub: Any, name: str) -> None:
    explain = sub.add_parser(
        name,
        help="what a term in mechlib's output means (T, derivable, dominance, legal user, exit codes, …)",
        description="Explain the terms mechlib's reports use, each with the paper it comes from. "
        "With no TERM, every term.",
    )
    explain.add_argument("terms", nargs="*", metavar="TERM", help="a term or alias, e.g. 'dominance', 'T', 'epsilon'")


def run(args: argparse.Namespace) -> int:
    from mechlib.glossary import TERMS, explain, lookup

    unknown = [word for word in args.terms if lookup(word) is None]
    if unknown:
        names = ", ".join(term.name for term in TERMS)
        raise InputError(f"no term {unknown[0]!r}", hint=f"one of: {names}; no TERM lists them all")
    print(explain(args.terms))
    return ExitCode.HOLDS
