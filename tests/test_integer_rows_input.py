"""A mechanism file may give its matrix as integer rows, the form the audit certificates write
(hexadecimal numerators over one denominator a row, sparse rows with their columns): read in
linear time, exactly the matrix, and a bad entry named by its row in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mechlib.audit.loading import load_mechanism
from mechlib.core.families import randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.errors import InputError
from mechlib.optimality.derivability import derivation_witness


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "mech",
    [truncated_geometric("1/3", 12), randomized_response("1/2", 5), Mechanism([["1", "0"], ["1/4", "3/4"]])],
    ids=["T", "randomized response", "zeros"],
)
def test_integer_rows_read_back_as_the_matrix(tmp_path: Path, mech: Mechanism) -> None:
    doc = {"matrix": mech.to_integer_rows(), "outputs": list(mech.outputs), "claimed_alpha": "1/4"}
    loaded = load_mechanism(_write(tmp_path, doc))
    assert loaded.mechanism == mech and loaded.claimed_alpha == 1 / 4


def test_sparse_integer_rows_read_back(tmp_path: Path) -> None:
    remap = derivation_witness(truncated_geometric("1/2", 9), "1/2").remap  # the identity: sparse
    assert remap is not None
    form = remap.to_integer_rows()
    assert "columns" in form
    loaded = load_mechanism(_write(tmp_path, {"matrix": form, "outputs": list(range(10))}))
    assert loaded.mechanism.rows == remap.rows


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f["numerators"][2].__setitem__(0, "0x1"), "row 2"),
        (lambda f: f["numerators"][1].__setitem__(0, "A"), "hexadecimal"),
        (lambda f: f["numerators"][3].__setitem__(0, "f" * 5000), "row 3"),
        (lambda f: f["denominators"].__setitem__(0, "0"), "denominator is 0"),
        (lambda f: f["numerators"][4].__setitem__(1, "0"), "row 4"),  # the row no longer sums to its denominator
        (lambda f: f["denominators"].pop(), "denominators"),
        (lambda f: f["numerators"][0].pop(), "row 0"),
    ],
)
def test_a_bad_integer_row_is_named(tmp_path: Path, change: Any, message: str) -> None:
    form = truncated_geometric("1/2", 5).to_integer_rows()
    change(form)
    with pytest.raises(InputError, match=message) as caught:
        load_mechanism(_write(tmp_path, {"matrix": form}))
    assert "\n" not in str(caught.value)


def test_sparse_rows_need_their_outputs_and_ordered_columns(tmp_path: Path) -> None:
    form = {"denominators": ["1", "1"], "numerators": [["1"], ["1"]], "columns": [[0], [1]]}
    with pytest.raises(InputError, match="needs its outputs"):
        load_mechanism(_write(tmp_path, {"matrix": form}))
    form["columns"] = [[0], [2]]
    with pytest.raises(InputError, match=r"row 1.*columns"):
        load_mechanism(_write(tmp_path, {"matrix": form, "outputs": [0, 1]}))
