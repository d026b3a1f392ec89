import pickle
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechlib import InputError, Mechanism, Remap, StochasticMatrix, compose, geometric, truncated_geometric
from mechlib.strategies import mechanisms, remaps
from tests.reference import matmul


def test_entries_and_labels() -> None:
    x = Mechanism([["1/2", "1/2"], ["0.25", "0.75"]], outputs=[-1, 7])
    assert x.entry(1, 7) == Fraction(3, 4)
    assert x.row(0) == (Fraction(1, 2), Fraction(1, 2))
    assert x.shape == (2, 2) and x.n == 1 and x.is_count_query()
    with pytest.raises(InputError, match="no output labelled 3"):
        x.entry(0, 3)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ([], "no rows"),
        ([[]], "row 0: the row is empty"),
        ([["1/2", "1/2"], ["1"]], "row 1: the row has 1 entries but row 0 has 2"),
        ([["3/2", "-1/2"]], "row 0, column 1: the entry -1/2 is negative"),
        (
            [["1/2", "1/2"], ["0.5", "0.499999999999"]],
            r"row 1: the row sums to .* not exactly 1 \(off by -1/1000000000000\)",
        ),
        ([["1/2", "x"]], "row 0, column 1: cannot read 'x'"),
        ("not a matrix", "expected a matrix"),
        ([[0.5, 0.5]], "row 0, column 0: got the binary float 0.5"),
    ],
)
def test_malformed_matrices(matrix: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Mechanism(matrix)  # type: ignore[arg-type]


def test_labels_are_checked() -> None:
    with pytest.raises(InputError, match="3 outputs labels for 2 columns"):
        Mechanism([[1, 0], [0, 1]], outputs=[0, 1, 2])
    with pytest.raises(InputError, match="label 1 appears twice"):
        Mechanism([[1, 0], [0, 1]], outputs=[1, 1])


def test_from_float_is_an_opt_in_and_exact() -> None:
    x = Mechanism([[0.5, 0.25, 0.25]], from_float=True)
    assert x.rows[0] == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    with pytest.raises(InputError, match="not exactly 1"):
        Mechanism([[0.1, 0.9]], from_float=True)  # 0.1 + 0.9 as binary floats is not exactly 1


def test_immutable_value_semantics() -> None:
    a = truncated_geometric("1/3", 4)
    b = truncated_geometric(Fraction(1, 3), 4)
    assert a == b and hash(a) == hash(b)
    assert a != truncated_geometric("1/4", 4)
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError, match="immutable"):
        a._num = ()
    assert a.to_numpy().shape == (5, 5)


def test_equality_across_different_denominators() -> None:
    a = Mechanism.from_scaled([[1, 1], [2, 2]], [2, 4])
    b = Mechanism([["1/2", "1/2"], ["1/2", "1/2"]])
    assert a == b


@given(mechanisms(), st.data())
def test_composition_is_matrix_product(x: Mechanism, data: st.DataObject) -> None:
    y = data.draw(remaps(x.outputs, data.draw(st.integers(1, 4))))
    z = compose(y, x)
    assert [list(r) for r in z.rows] == matmul(x.rows, y.rows)
    assert z.inputs == x.inputs and z.outputs == y.outputs and isinstance(z, Mechanism)


@given(mechanisms(max_n=4), st.data())
def test_composition_is_associative(x: Mechanism, data: st.DataObject) -> None:
    y = data.draw(remaps(x.outputs, data.draw(st.integers(1, 4))))
    w = data.draw(remaps(y.outputs, data.draw(st.integers(1, 4))))
    assert compose(w, compose(y, x)) == compose(compose(w, y), x)


@given(mechanisms(), st.data())
def test_deterministic_fast_path_matches_general_product(x: Mechanism, data: st.DataObject) -> None:
    images = data.draw(st.lists(st.integers(0, 2), min_size=len(x.outputs), max_size=len(x.outputs)))
    fast = Remap.deterministic(dict(zip(x.outputs, images)), x.outputs, [0, 1, 2])
    assert fast.is_deterministic()
    slow = StochasticMatrix([list(r) for r in fast.rows], inputs=fast.inputs, outputs=fast.outputs)
    assert compose(slow, x).rows == compose(fast, x).rows


def test_lumping_the_tails_of_the_geometric_mechanism_gives_t() -> None:
    """GRS Example 2.2: T is the geometric mechanism with outputs clamped into 0..n."""
    for margin in (0, 1, 4):
        g = geometric("2/5", 4, margin=margin)
        clamp = Remap.deterministic(lambda r: min(max(r, 0), 4), g.outputs, range(5))
        assert compose(clamp, g) == truncated_geometric("2/5", 4)
    off_by_one = Remap.deterministic(lambda r: min(max(r + 1, 0), 4), g.outputs, range(5))
    assert compose(off_by_one, g) != truncated_geometric("2/5", 4)


def test_compose_rejects_mismatched_labels() -> None:
    x = truncated_geometric("1/2", 2)
    with pytest.raises(InputError, match="remap's inputs must be exactly the mechanism's outputs"):
        compose(Remap.identity([0, 1]), x)


def test_large_products_go_through_flint_and_agree() -> None:
    x = truncated_geometric("1/3", 70)
    y = Remap([[Fraction(1, 2) if j in (r, (r + 1) % 71) else 0 for j in range(71)] for r in range(71)])
    z = compose(y, x)  # 71³ multiply-adds: above the flint threshold
    assert z.rows[5][6] == (x.rows[5][6] + x.rows[5][5]) / 2


def test_deterministic_remap_errors() -> None:
    with pytest.raises(InputError, match="no image for output 2"):
        Remap.deterministic({0: 0, 1: 1}, [0, 1, 2])
    with pytest.raises(InputError, match="maps to 5"):
        Remap.deterministic({0: 5}, [0], [0, 1])
    with pytest.raises(InputError, match="randomized"):
        Remap([["1/2", "1/2"]]).as_mapping()
    assert Remap.identity([3, 4]).as_mapping() == {3: 3, 4: 4}


@given(mechanisms(max_n=4), st.integers(1, 4))
def test_plain_ratio_rows_read_as_the_general_parser_reads_them(x: Mechanism, scale: int) -> None:
    """``parse_exact_rows`` (a file's "p/q" cells read with int alone, one denominator for all rows
    when cheap) gives the same matrix as the Fraction parser, lowest terms or not, from text or from
    the bytes of a file."""
    from mechlib.core.stochastic import parse_exact_rows

    cells = [[f"{v.numerator * scale}/{v.denominator * scale}" if v else "0" for v in row] for row in x.rows]
    for form in (cells, [[cell.encode() for cell in row] for row in cells]):
        plain = parse_exact_rows(form)
        assert plain is not None
        assert Mechanism.from_scaled(*plain, outputs=x.outputs) == Mechanism(cells, outputs=x.outputs) == x


@given(
    st.lists(st.lists(st.text('0123/,-+. e\t\\"é', max_size=6), min_size=2, max_size=2), min_size=1, max_size=3),
    st.booleans(),
)
def test_the_text_fast_path_reads_only_what_the_general_parser_reads_alike(cells: list[list[str]], raw: bool) -> None:
    """Any text (commas, slashes, signs, spaces, escapes in cells; as text or as a file's bytes): the
    fast path declines, or it reads exactly the cells the general parser reads (without their row-sum
    check, which comes after)."""
    from mechlib.core.stochastic import parse_cells, parse_exact_rows

    try:
        read = parse_exact_rows([[cell.encode() for cell in row] for row in cells] if raw else cells)
    except InputError:  # the shape: checked alike by both
        return
    if read is None:
        return
    num, den = read
    assert [[Fraction(a, d) for a in row] for row, d in zip(num, den)] == parse_cells(cells)


@pytest.mark.parametrize(
    "cell", ["1/0", "١/3", "1" * 5000 + "/3", "1,2", "1/", "/3", "", 0.5, 1, b"1/2", b"1\t/3", b"\\u0031", b"1/2\xc3"]
)
def test_other_cells_are_left_to_the_general_parser(cell: object) -> None:
    """What is not an exact number, a number past the limits, a cell of another type than its
    neighbours, and in a file's bytes a control character, an escape or a non-ASCII byte: declined (the
    general parser names it, or reads the escape)."""
    from mechlib.core.stochastic import parse_exact_rows

    assert parse_exact_rows([[cell, "1/2"], ["1/2", "1/2"]]) is None
    if isinstance(cell, bytes) and cell != b"1/2":
        assert parse_exact_rows([[cell, b"1/2"], [b"1/2", b"1/2"]]) is None


@pytest.mark.parametrize("cell", ["-1/3", " 1/3", "0.5", "1e-2", "+2/6", "0.25e1"])
def test_any_exact_text_is_read_once_per_distinct_text(cell: str) -> None:
    """Decimals, signs and spaced fractions are read by the general parser, once per distinct text."""
    from mechlib.core.exact import to_fraction
    from mechlib.core.stochastic import parse_exact_rows

    for form in (cell, cell.encode()):
        read = parse_exact_rows([[form, form], [form, form]])
        assert read is not None
        num, den = read
        assert Fraction(num[1][0], den[1]) == to_fraction(cell)


def test_t_read_from_a_file_of_fractions_is_t(tmp_path: object) -> None:
    """T's rows in lowest terms have denominators 3·2^k for varying k; read back they share one."""
    import json
    from pathlib import Path

    from mechlib.audit.loading import load_source

    t = truncated_geometric("1/2", 12)
    path = Path(str(tmp_path)) / "t.json"
    path.write_text(json.dumps({"matrix": t.to_strings()}))
    loaded = load_source(str(path)).mechanism
    assert loaded == t and len(set(loaded.scaled()[1])) == 1
    path.write_text(json.dumps({"matrix": [["1/0", "1"], ["1/2", "1/2"]]}))
    with pytest.raises(InputError, match="denominator 0") as err:
        load_source(str(path))
    assert err.value.row == 0 and err.value.column == 0


@pytest.mark.parametrize("other", [True, 0.5, 1.0])
def test_numbers_are_read_once_but_never_a_boolean_or_a_float(other: object) -> None:
    """JSON's number literals (int, Decimal) are read once per distinct value; a boolean or a float
    equal to one of them (True == 1, 0.5 == Decimal("0.5")) is still declined, for the general parser
    to name."""
    from decimal import Decimal

    from mechlib.core.stochastic import parse_exact_rows

    read = parse_exact_rows([[Decimal("0.5"), Decimal("0.5")], [1, 0]])
    assert read is not None and [[Fraction(a, d) for a in row] for row, d in zip(*read)] == [[0.5, 0.5], [1, 0]]
    assert (
        parse_exact_rows([[Decimal("0.5"), Decimal("0.5")], [1, 0], [other, Decimal("0.5") if other == 0.5 else 0]])
        is None
    )
