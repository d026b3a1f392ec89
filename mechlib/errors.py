"""Errors that say where the bad input is, what was expected and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass, replace


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
