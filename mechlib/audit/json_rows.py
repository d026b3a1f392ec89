"""A JSON mechanism file read without a JSON object per matrix cell.

A million-cell matrix (``[["2/3", "1/6", …], …]``, ``[[0.25, 0.75], …]``, or the certificates'
integer rows ``"numerators": [["4", "8", …], …]``) is most of a file's bytes: the standard parser
decodes the whole file to text and builds a string (or a ``Decimal``) per cell (T at n = 1000,
108 MB: 0.5 s before a number is read). Here the cells are cut from the file's bytes, row by row,
as ``bytes``, each distinct cell kept once; the rest of the document (its fields, with ``[]`` where
the cells stood) is read by the standard parser with the caller's hooks, key by key, so that the
cells are known to stand exactly where the document holds its matrix. Anything else — separators
that change from row to row, escapes, a number JSON does not write so — and the caller's reading of
the cells declines, or :func:`scan` answers None: the caller then reads the file the standard way,
which names what is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any, AnyStr

from mechlib.errors import InputError

_SPACE = re.compile(rb"[ \t\n\r]*")
_TEXT_SPACE = re.compile(r"[ \t\n\r]*")
_WHITE = b" \t\n\r"
#: Where a matrix of cells may start: ``[[`` and a quote, a digit or a minus sign, with JSON whitespace between.
_START = re.compile(rb"\[[ \t\n\r]*\[[ \t\n\r]*[\"0-9-]")
_QUOTED_SEPARATOR = re.compile(rb'"[ \t\n\r]*,[ \t\n\r]*"')
_SEPARATOR = re.compile(rb"[ \t\n\r]*,[ \t\n\r]*")
#: A JSON number literal, as JSON's grammar has it (no leading zeros, no "+", no "1." or ".5").
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: The places a matrix of cells may stand: the document itself, its matrix, or (text only) its
#: integer rows' numerators.
_PLACES = ((), ("matrix",), ("matrix", "numerators"))


class CellRows(list[list[bytes]]):
    """A matrix's rows of cells as bytes: the text between their quotes (``quoted``; escapes not
    read: the reader of the cells accepts only the characters it reads and declines the rest), or
    JSON number literals (checked against JSON's grammar)."""

    quoted: bool


def scan(data: bytes, decoder: json.JSONDecoder) -> Any:
    """The document in ``data`` with its matrix of cells as :class:`CellRows`, or None when the file
    does not have that shape or has any fault (the caller then reads it whole with ``decoder``,
    which names the fault as it always has)."""
    start = _START.search(data)
    found = None if start is None else _rows(data, start.start(), data[start.end() - 1] == ord('"'))
    if start is None or found is None:
        return None
    rows, end = found
    try:
        head = data[: start.start()].decode("utf-8-sig")
        text = head + "[]" + data[end:].decode("utf-8")
        document, position = _Skeleton(text, len(head), rows, decoder).value(_space(text, 0), ())
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError, InputError):
        return None
    return document if _space(text, position) == len(text) else None


def _rows(data: bytes, start: int, quoted: bool) -> tuple[CellRows, int] | None:
    """The rows of cells of the array at ``data[start]`` and the index after it; None unless every
    row is ``[``, cells (all quoted, or all JSON numbers) with one separator throughout, ``]``."""
    rows, separator = CellRows(), None
    rows.quoted = quoted
    seen: dict[bytes, bytes] = {}  # each distinct cell's first bytes object: the copies are freed with their row
    position = start + 1
    while True:
        position = _space(data, position)
        close = data.find(b"]", position)
        if not data.startswith(b"[", position) or close < 0:
            return None
        if quoted:
            first, last = data.find(b'"', position, close), data.rfind(b'"', position, close)
            if first < 0 or data[position + 1 : first].strip(_WHITE) or data[last + 1 : close].strip(_WHITE):
                return None  # an empty row, or a cell not quoted (a lone quote leaves an empty cell: not a number)
            cells = data[first + 1 : last]
        else:
            cells = data[position + 1 : close].strip(_WHITE)
        if separator is None:  # the first found: ", " as json.dumps writes it, "," compact, or indented
            between = (_QUOTED_SEPARATOR if quoted else _SEPARATOR).search(cells)
            separator = None if between is None else between.group()
        split = [cells] if separator is None else cells.split(separator)
        rows.append(list(map(seen.setdefault, split, split)))
        position = _space(data, close + 1)
        if data.startswith(b"]", position):
            numbers = quoted or all(_NUMBER.fullmatch(cell) for cell in seen)
            return (rows, position + 1) if numbers else None
        if not data.startswith(b",", position):
            return None
        position += 1


def _space(text: AnyStr, position: int) -> int:
    """The index of the first character at or after ``position`` that is not JSON whitespace."""
    pattern = _TEXT_SPACE if isinstance(text, str) else _SPACE
    return pattern.match(text, position).end()  # type: ignore[union-attr]  # it matches the empty string


class _Skeleton:
    """The document with ``[]`` where its cells stood (at ``hole``), read as JSON: the objects on the
    way to a matrix key by key, every other key and value by the standard parser; the cells are
    taken where a matrix is read at exactly that place, and a value read past it is refused."""

    def __init__(self, text: str, hole: int, rows: CellRows, decoder: json.JSONDecoder) -> None:
        self.text, self.hole, self.rows, self.decoder = text, hole, rows, decoder

    def value(self, position: int, path: tuple[str, ...]) -> tuple[Any, int]:
        if position == self.hole and path in (_PLACES if self.rows.quoted else _PLACES[:2]):
            return self.rows, position + 2
        if self.text.startswith("{", position) and path in _PLACES[:2]:
            return self.object(position, path)
        return self.standard(position)

    def standard(self, position: int) -> tuple[Any, int]:
        found: tuple[Any, int] = self.decoder.raw_decode(self.text, position)
        if position <= self.hole < found[1]:
            raise ValueError("the cells stood inside another value")
        return found

    def object(self, position: int, path: tuple[str, ...]) -> tuple[Any, int]:
        text, pairs, hook = self.text, list[tuple[str, Any]](), self.decoder.object_pairs_hook
        assert hook is not None  # the caller's: it refuses repeated keys
        position = _space(text, position + 1)
        if text.startswith("}", position):
            return hook(pairs), position + 1
        while True:
            if not text.startswith('"', position):
                raise ValueError("expected a key")
            key, position = self.standard(position)
            position = _space(text, position)
            if not text.startswith(":", position):
                raise ValueError("expected a colon")
            item, position = self.value(_space(text, position + 1), (*path, key))
            pairs.append((key, item))
            position = _space(text, position)
            if text.startswith("}", position):
                return hook(pairs), position + 1
            if not text.startswith(",", position):
                raise ValueError("expected a comma")
            position = _space(text, position + 1)
