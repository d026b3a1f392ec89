"""Errors that say where the bad input is, what was expected and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum


@dataclass(frozen=True)
class InputError(ValueError):
    """Bad input from a user: a file, a matrix entry, a CLI argument.

    The message names the source (file), the place in it (row, column or field),
    what was found, what was expected and, where possible, how to fix it.
    The CLI turns it into a one-line message and exit code 2, never a traceback.
    """

    problem: str
    source: str | None = None
    row: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None

    def at(self, source: str) -> InputError:
        """The same error, attributed to ``source`` (a file name)."""
        return replace(self, source=source)

    def __str__(self) -> str:
        where = []
        if self.source is not None:
            where.append(self.source)
        place = []
        if self.field is not None:
            place.append(f"field {self.field!r}")
        if self.row is not None:
            place.append(f"row {self.row}")
        if self.column is not None:
            place.append(f"column {self.column}")
        if place:
            where.append(", ".join(place))
        text = ": ".join([*where, self.problem]) if where else self.problem
        if self.hint:
            text += f" ({self.hint})"
        return text


class ExitCode(IntEnum):
    """The exit status of every ``mechlib`` command (``mechlib explain exit-codes``)."""

    HOLDS = 0
    FAILS = 1
    BAD_INPUT = 2
    UNDECIDED = 3
    INTERRUPTED = 130

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]


_MEANINGS = {
    ExitCode.HOLDS: "holds (every claim as its paper predicts, an audit PASS, no violation found)",
    ExitCode.FAILS: "fails (a violation, an audit FAIL, a claim REFUTED against its paper, a certificate that fails)",
    ExitCode.BAD_INPUT: "bad input or usage (one line on stderr naming what and where; no output written)",
    ExitCode.UNDECIDED: "undecided (an UNKNOWN verdict, a finding skipped, a task with no answer: a timeout, "
    "no live workers)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}


def exit_codes_text() -> str:
    """The exit codes and their meanings in one paragraph (``--help``, README, the glossary)."""
    return "Exit codes: " + "; ".join(f"{code.value} {code.meaning}" for code in ExitCode) + "."
