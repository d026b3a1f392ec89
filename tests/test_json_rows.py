"""A JSON mechanism file's matrix cut from its bytes (:mod:`mechlib.audit.json_rows`) reads exactly
what the standard reading reads: the same mechanism and claims from every layout a writer may use,
and on any fault (a broken document, an escape, a bad cell) the standard reading's one-line error."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mechlib import Mechanism
from mechlib.audit import json_rows
from mechlib.audit.loading import LoadedMechanism, load_mechanism
from mechlib.core.families import truncated_geometric
from mechlib.errors import InputError
from mechlib.strategies import mechanisms

#: How writers lay JSON out: json.dumps's default, compact, indented (cells one a line), tabs and CRLF.
LAYOUTS: list[dict[str, Any]] = [{}, {"separators": (",", ":")}, {"indent": 2}, {"indent": "\t"}]


def _text(doc: dict[str, Any], layout: dict[str, Any], crlf: bool = False) -> bytes:
    text = json.dumps(doc, **layout)
    return (text.replace("\n", "\r\n") if crlf else text).encode()


def _outcome(path: Path, standard: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What loading ``path`` gives: (mechanism, claims) or the error's line; the standard reading alone
    when ``standard``."""
    with monkeypatch.context() as patch:
        if standard:
            patch.setattr(json_rows, "scan", lambda data, decoder: None)
        try:
            loaded: LoadedMechanism = load_mechanism(path)
        except InputError as err:
            return str(err)
    return loaded.mechanism, loaded.claimed_alpha, loaded.claimed_epsilon, loaded.claimed_delta, loaded.name


@given(mechanisms(max_n=4), st.sampled_from(LAYOUTS), st.booleans(), st.sampled_from(["strings", "rows"]), st.data())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_layout_is_cut_from_the_bytes_and_read_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, x: Mechanism, layout: dict[str, Any], crlf: bool, form: str,
    data: st.DataObject,
) -> None:  # fmt: skip
    """The mechanism itself, its fields in any order: cut from the bytes (the scan answers) and read as
    the standard reading reads it."""
    fields: dict[str, Any] = {
        "matrix": x.to_strings() if form == "strings" else x.to_integer_rows(),
        "outputs": list(x.outputs),
        "claimed_alpha": "1/3",
        "name": 'a "name" [["1"]] \\ é',
    }
    order = data.draw(st.permutations(list(fields)))
    path = tmp_path / "m.json"
    path.write_bytes(_text({key: fields[key] for key in order}, layout, crlf))
    fast = _outcome(path, False, monkeypatch)
    assert fast == _outcome(path, True, monkeypatch)
    assert fast[0] == x and fast[0].outputs == x.outputs
    _assert_cut_from_the_bytes(path, monkeypatch)


def _assert_cut_from_the_bytes(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``path`` loads with the standard reading out of reach: its matrix was cut from the bytes."""
    from mechlib.audit import loading

    def unreachable(*args: Any) -> None:
        raise AssertionError("the standard reading was needed")

    with monkeypatch.context() as patch:
        patch.setattr(loading, "_fields", unreachable)
        load_mechanism(path)


def test_decimal_strings_and_a_bare_matrix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.json"
    path.write_text(' \n[["0.25", "0.75"],\n ["1e-1", "9e-1"]]\n')
    assert load_mechanism(path).mechanism == Mechanism([["1/4", "3/4"], ["1/10", "9/10"]])
    _assert_cut_from_the_bytes(path, monkeypatch)


#: Bytes a mutation inserts: JSON's structure, quotes and escapes, digits, whitespace, a control character.
NOISE = st.sampled_from([b"[", b"]", b'"', b",", b":", b"{", b"}", b"\\", b"1", b"/", b"0", b" ", b"\n", b"\x0b", b"e"])


@given(
    st.sampled_from(LAYOUTS),
    st.sampled_from(["strings", "numbers", "rows"]),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 2), NOISE), min_size=1, max_size=3),
)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_damaged_file_reads_as_the_standard_reading_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: dict[str, Any], form: str,
    edits: list[tuple[float, int, bytes]],
) -> None:  # fmt: skip
    """Bytes inserted, deleted or replaced anywhere (inside the cells, between them, in the other fields):
    the same mechanism or the same one-line error as the standard reading — never a file the standard
    reading refuses, never another matrix."""
    cells = [["0.25", "0.75", "0"], ["10e-1", "0", "0"], ["0.5", "0.25", "0.25"]]
    matrix = {"strings": cells, "numbers": cells, "rows": truncated_geometric("1/3", 2).to_integer_rows()}[form]
    written = _text({"outputs": [0, 1, 2], "matrix": matrix, "claimed_epsilon": "1"}, layout)
    text = bytearray(_numbers(written, cells) if form == "numbers" else written)
    for where, kind, noise in edits:
        at = int(where * (len(text) - 1))
        if kind == 0:
            text[at:at] = noise
        elif kind == 1:
            del text[at]
        else:
            text[at : at + 1] = noise
    path = tmp_path / "m.json"
    path.write_bytes(bytes(text))
    assert _outcome(path, False, monkeypatch) == _outcome(path, True, monkeypatch)


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ([["1/2", "1/2"], ["1/0", "1"]], "row 1, column 0"),  # denominator 0
        ([["1/2", "1/2"], ["1/3", "abc"]], "row 1, column 1"),
        ([["1/2", "1/2"], ["1/3", "1/3"]], "row 1"),  # the row does not sum to 1
        ([["1/2", "1/2"], ["1/2"]], "row 1"),  # ragged
    ],
)
def test_bad_cells_are_named_as_before(tmp_path: Path, cells: list[list[str]], message: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": cells}))
    with pytest.raises(InputError, match=message) as caught:
        load_mechanism(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_an_escaped_cell_is_read_by_the_standard_reading(tmp_path: Path) -> None:
    """JSON's escapes are the standard reading's: ``"\\u0031/2"`` is the cell 1/2."""
    path = tmp_path / "m.json"
    path.write_bytes(b'{"matrix": [["\\u0031/2", "1/2"], ["1/2", "1/2"]]}')
    assert load_mechanism(path).mechanism == Mechanism([["1/2", "1/2"], ["1/2", "1/2"]])


@pytest.mark.parametrize(
    "text",
    [
        b'{"name": "[[\\"1\\"]]", "matrix": [["1"]]}',  # cells inside a string, before the matrix
        b'{"outputs": [0], "matrix": [["1"]], "matrix": [["1"]]}',  # a repeated key
        b'{"description": [["1"]], "matrix": [["1"]]}',  # cells at a place no matrix stands
        b'{"neighbours": [["0", "1"]], "matrix": [["1"], ["1"]]}',
        b'{"name": {"inner": [["1"]]}, "matrix": [["1"]]}',  # inside another value
        b'{"matrix": {"denominators": ["1"], "numerators": [["1"]], "columns": [["1"]]}}',
        b'{"matrix": [["1"], [0, "1"]]}',  # a cell not quoted, before or after the quoted ones
        b'{"matrix": [["1"], ["1", 0]]}',
        b'{"matrix": [["1/2", "1/2"], ["1", "0"]]} []',  # more after the document
        b'{"matrix": [["1/2", "1/2"], ["1", "0"]]}, "x"',
        b'{"matrix": [["1/2",\t"1/2"], ["1",  "0"]]}',  # separators that differ from row to row
        b'{"matrix": [["1"] x ["1"]]}',  # no comma between the rows
        b'{"matrix": [[1, 0], [01, 0]]}',  # numbers JSON does not write so
        b'{"matrix": [[1, 0], [1/2, 1/2]]}',
        b'{"matrix": [[1, 0], [.5, 0.5]]}',
        b'{"matrix": [[1, 0], [+1, 0]]}',
        b'{"matrix": [[1, 0], [1, "0"]]}',
        b'{"matrix": {"denominators": ["1"], "numerators": [[1]]}}',  # integer rows are text
        b'{"matrix": [[1, 0], [1e99999, 0]]}',  # past the limits
        b'{"matrix": [[1, 0], [' + b"1" * 5000 + b", 0]]}",
    ],
)
def test_cells_are_taken_only_where_the_matrix_stands(
    text: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(text)
    assert _outcome(path, False, monkeypatch) == _outcome(path, True, monkeypatch)


@st.composite
def decimal_rows(draw: st.DrawFn) -> tuple[list[list[str]], list[list[Fraction]]]:
    """Rows of decimal texts (``"0.25"``, ``"25e-2"``, ``"0.250"``) and the exact values they spell."""
    places = draw(st.integers(0, 4))
    width = draw(st.integers(1, 4))
    texts, values = [], []
    for _ in range(draw(st.integers(1, 4))):
        cuts = sorted(draw(st.lists(st.integers(0, 10**places), min_size=width - 1, max_size=width - 1)))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, 10**places])]
        spelt = [(f"{p}e-{places}", f"{p // 10**places}.{p % 10**places:0{places}d}0") for p in parts]
        forms = [draw(st.sampled_from(pair)) for pair in spelt]
        texts.append(forms)
        values.append([Fraction(p, 10**places) for p in parts])
    return texts, values


def _numbers(text: bytes, cells: list[list[str]]) -> bytes:
    """``text`` with its quoted ``cells`` written as JSON number literals."""
    for cell in {cell for row in cells for cell in row}:
        text = text.replace(f'"{cell}"'.encode(), cell.encode())
    return text


@given(decimal_rows(), st.sampled_from(LAYOUTS), st.sampled_from(["strings", "numbers", "csv"]))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_decimals_round_trip_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: tuple[list[list[str]], list[list[Fraction]]],
    layout: dict[str, Any], form: str,
) -> None:  # fmt: skip
    """Decimal cells, each distinct one read once by the general number reader: exactly the values they
    spell, as JSON strings or JSON number literals (any layout, cut from the bytes) and in CSV."""
    texts, values = rows
    path = tmp_path / ("m.csv" if form == "csv" else "m.json")
    if form == "csv":
        path.write_text("\n".join(",".join(row) for row in texts) + "\n")
    else:
        text = _text({"matrix": texts}, layout)
        path.write_bytes(_numbers(text, texts) if form == "numbers" else text)
        assert _outcome(path, False, monkeypatch) == _outcome(path, True, monkeypatch)
        _assert_cut_from_the_bytes(path, monkeypatch)
    assert load_mechanism(path).mechanism.rows == tuple(map(tuple, values))


def test_the_separator_is_found_in_the_first_row_that_has_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sparse integer rows, compact: the first row has one cell, the second shows the separator."""
    path = tmp_path / "m.json"
    path.write_bytes(
        b'{"matrix":{"denominators":["1","2"],"numerators":[["1"],["1","1"]],"columns":[[1],[0,1]]},"outputs":[0,1]}'
    )
    assert load_mechanism(path).mechanism == Mechanism([["0", "1"], ["1/2", "1/2"]])
    _assert_cut_from_the_bytes(path, monkeypatch)
