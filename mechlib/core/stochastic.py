"""Immutable exact row-stochastic matrices with labelled rows and columns, and composition.

A mechanism X (GRS §2.1) and a remap Y (GRS §2.3) are both row-stochastic matrices:
x[i][r] = P(output r | input i). Composition is the matrix product (GRS §2.2):
(Y∘X)[i][j] = Σ_r x[i][r]·y[r][j].

Representation: row i is held as Python-int numerators over one exact row denominator,
x[i][r] = num[i][r] / den[i]. Hot loops (DP checks, products) work on these integers;
``rows`` gives the same entries as ``Fraction`` for the API.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from itertools import chain, compress, pairwise, repeat
from operator import lshift
from typing import TYPE_CHECKING, Any, TypeVar

from mechlib.core import exact
from mechlib.core.exact import _int_text, format_fraction, to_fraction
from mechlib.errors import InputError

if TYPE_CHECKING:
    import numpy as np

#: A row or column label: any hashable value (ints for count queries and windows of ℤ).
Label = Any
IntRows = tuple[tuple[int, ...], ...]

#: Largest matrix accepted (cells). Larger inputs are refused before any exact work.
MAX_CELLS = 1 << 25

_S = TypeVar("_S", bound="StochasticMatrix")

# Above this many multiply-adds an exact integer product goes through python-flint.
_FLINT_PRODUCT_THRESHOLD = 200_000


class StochasticMatrix:
    """An immutable exact row-stochastic matrix with labelled inputs (rows) and outputs (columns).

    Parameters
    ----------
    matrix
        Rows of exact numbers (ints, ``Fraction``, ``"p/q"`` or decimal strings).
    inputs, outputs
        Row and column labels (default ``0..rows-1`` and ``0..columns-1``); unique, hashable.
    from_float
        Accept floats as their exact binary value (never rounded).

    Raises
    ------
    InputError
        Naming the row and column of a bad entry: not a number, negative, ragged rows,
        or a row that does not sum to exactly 1.
    """

    __slots__ = (
        "_column_sums", "_columns", "_den", "_hash", "_input_pos", "_inputs", "_num",
        "_output_pos", "_outputs", "_rows",
    )  # fmt: skip

    _num: IntRows
    _den: tuple[int, ...]
    _inputs: tuple[Label, ...]
    _outputs: tuple[Label, ...]
    _input_pos: dict[Label, int]
    _output_pos: dict[Label, int]
    _rows: tuple[tuple[Fraction, ...], ...] | None
    _hash: int | None
    _columns: tuple[tuple[int, ...], ...] | None
    _column_sums: tuple[int, ...] | None

    def __init__(
        self,
        matrix: Sequence[Sequence[Any]],
        *,
        inputs: Sequence[Label] | None = None,
        outputs: Sequence[Label] | None = None,
        from_float: bool = False,
    ) -> None:
        num, den = _parse_rows(matrix, from_float=from_float)
        self._setup(num, den, inputs, outputs)

    # -- construction ------------------------------------------------------------------

    def _setup(
        self,
        num: IntRows,
        den: tuple[int, ...],
        inputs: Sequence[Label] | None,
        outputs: Sequence[Label] | None,
        *,
        validated: bool = False,
    ) -> None:
        """``validated``: the caller built ``num``/``den`` stochastic by construction (a deterministic remap)."""
        ins = _labels(inputs, len(num), "inputs", "rows")
        outs = _labels(outputs, len(num[0]), "outputs", "columns")
        if not validated:
            _check_stochastic(num, den)
        self._set(
            _num=num,
            _den=den,
            _inputs=ins,
            _outputs=outs,
            _input_pos={label: k for k, label in enumerate(ins)},
            _output_pos={label: k for k, label in enumerate(outs)},
            _rows=None,
            _hash=None,
            _columns=None,
            _column_sums=None,
        )

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (tried to set {name!r})")

    @classmethod
    def from_scaled(
        cls: type[_S],
        num: Sequence[Sequence[int]],
        den: Sequence[int],
        *,
        inputs: Sequence[Label] | None = None,
        outputs: Sequence[Label] | None = None,
        stochastic_by_construction: bool = False,
        **extra: Any,
    ) -> _S:
        """Build from integer numerators and row denominators: x[i][r] = num[i][r] / den[i].

        Still validated (nonnegative, each row sums to its denominator), but no parsing:
        this is how families build large exact matrices fast. ``stochastic_by_construction``:
        the caller's rows are nonnegative and sum to their denominators by an identity it states
        and a test pins, so the O(entries) check is skipped (shapes are still checked).
        """
        num_t = tuple(tuple(row) for row in num)
        _check_shape(num_t)
        den_t = tuple(den)
        if len(den_t) != len(num_t) or any(d <= 0 for d in den_t):
            raise InputError(f"expected {len(num_t)} positive row denominators, got {den_t!r}")
        obj = cls.__new__(cls)
        obj._setup(num_t, den_t, inputs, outputs, validated=stochastic_by_construction)
        obj._setup_extra(**extra)
        return obj

    def _setup_extra(self) -> None:
        """Hook for subclasses that carry more structure (a neighbour graph)."""

    def _derive(self: _S, num: IntRows, den: tuple[int, ...], outputs: Sequence[Label]) -> _S:
        """A matrix of the same kind and inputs as ``self`` with new entries and outputs."""
        return type(self).from_scaled(num, den, inputs=self._inputs, outputs=outputs, **self._extra())

    def _extra(self) -> dict[str, Any]:
        return {}

    # -- views ---------------------------------------------------------------------------

    @property
    def inputs(self) -> tuple[Label, ...]:
        return self._inputs

    @property
    def outputs(self) -> tuple[Label, ...]:
        return self._outputs

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self._num), len(self._num[0]))

    def scaled(self) -> tuple[IntRows, tuple[int, ...]]:
        """Integer numerators and row denominators: x[i][r] = num[i][r] / den[i] (positions)."""
        return self._num, self._den

    def column_numerators(self) -> tuple[tuple[int, ...], ...]:
        """The numerators by column (``scaled()``'s rows transposed; over the row denominators),
        computed once: the users' passes read a matrix by columns, several times."""
        if self._columns is None:
            self._set(_columns=tuple(zip(*self._num)))
        assert self._columns is not None
        return self._columns

    def column_numerator_sums(self) -> tuple[int, ...]:
        """Σ_i num[i][r] per column r, computed once (with equal row denominators, the column's mass
        over that denominator)."""
        if self._column_sums is None:
            self._set(_column_sums=tuple(map(sum, self.column_numerators())))
        assert self._column_sums is not None
        return self._column_sums

    @property
    def rows(self) -> tuple[tuple[Fraction, ...], ...]:
        """All entries as ``Fraction``, by position (computed once)."""
        if self._rows is None:
            self._set(_rows=tuple(tuple(Fraction(a, d) for a in row) for row, d in zip(self._num, self._den)))
        assert self._rows is not None
        return self._rows

    def input_index(self, label: Label) -> int:
        try:
            return self._input_pos[label]
        except KeyError:
            raise InputError(f"no input labelled {label!r}", hint=f"inputs are {_short(self._inputs)}") from None

    def output_index(self, label: Label) -> int:
        try:
            return self._output_pos[label]
        except KeyError:
            raise InputError(f"no output labelled {label!r}", hint=f"outputs are {_short(self._outputs)}") from None

    def entry(self, input_label: Label, output_label: Label) -> Fraction:
        """P(output | input), exactly."""
        i = self.input_index(input_label)
        return Fraction(self._num[i][self.output_index(output_label)], self._den[i])

    def row(self, input_label: Label) -> tuple[Fraction, ...]:
        return self.rows[self.input_index(input_label)]

    def is_deterministic(self) -> bool:
        """Every row puts all its mass on one output."""
        return all(d in row for row, d in zip(self._num, self._den))

    def to_numpy(self) -> np.ndarray:
        """A float64 copy, for display and plotting only: never decide anything with it."""
        import numpy as np

        return np.array([[a / d for a in row] for row, d in zip(self._num, self._den)], dtype=float)

    def to_strings(self) -> list[list[str]]:
        """Entries as exact ``"p/q"`` strings (round-trips through the file formats), formatted
        from the integers (no ``Fraction`` per entry)."""
        return [[_ratio_text(a, d) for a in row] for row, d in zip(self._num, self._den)]

    def to_integer_rows(self) -> dict[str, Any]:
        """The certificates' form of a matrix (``mechlib.audit/8``): per row, integer numerators
        over one denominator (divided by their common gcd), each as lowercase hexadecimal digits —
        the form the matrix is held in, and hexadecimal text is linear-time to write and read
        (decimal is quadratic in the digits; T at n = 1000 has 300-digit numerators). When at most
        a third of the cells are nonzero (a remap of T is often the identity or banded),
        ``columns`` lists each row's nonzero columns and ``numerators`` only their entries."""
        rows, cols = self.shape
        sparse = 3 * sum(len(row) - row.count(0) for row in self._num) <= rows * cols
        denominators, numerators, columns = [], [], []
        for row, d in zip(self._num, self._den):
            g = math.gcd(d, row[0], row[-1])  # often 1 already: then no gcd over the whole row
            if g > 1:
                g = math.gcd(g, *row)
            kept = list(compress(range(len(row)), row)) if sparse else None
            values = row if kept is None else [row[j] for j in kept]
            if g > 1:
                d, values = d // g, [a // g for a in values]
            denominators.append(format(d, "x"))
            numerators.append(list(map(format, values, repeat("x"))))
            if kept is not None:
                columns.append(kept)
        form: dict[str, Any] = {"denominators": denominators, "numerators": numerators}
        if sparse:
            form["columns"] = columns
        return form

    @classmethod
    def from_integer_rows(
        cls: type[_S], form: dict[str, Any], *, inputs: Sequence[Label] | None = None,
        outputs: Sequence[Label] | None = None, **extra: Any,
    ) -> _S:  # fmt: skip
        """The matrix written by :meth:`to_integer_rows` (validated like any other)."""
        width = len(outputs) if outputs is not None else len(form["numerators"][0])
        num: list[list[int]] = []
        for k, row in enumerate(form["numerators"]):
            values = [int(h, 16) for h in row]
            if "columns" in form:
                dense = [0] * width
                for j, a in zip(form["columns"][k], values):
                    dense[j] = a
                values = dense
            num.append(values)
        return cls.from_scaled(num, [int(h, 16) for h in form["denominators"]], inputs=inputs, outputs=outputs, **extra)

    # -- value semantics ----------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, StochasticMatrix)
        if (self._inputs, self._outputs, self._extra()) != (other._inputs, other._outputs, other._extra()):
            return False
        for row, d, orow, od in zip(self._num, self._den, other._num, other._den):
            if d == od:
                if row != orow:
                    return False
                continue
            g = math.gcd(d, od)  # denominators a small factor apart (T in lowest terms): small multipliers
            left, right = od // g, d // g
            if any(a * left != b * right for a, b in zip(row, orow)):
                return False
        return True

    def __hash__(self) -> int:
        if self._hash is None:
            self._set(_hash=hash((type(self).__name__, self._inputs, self._outputs, self.rows)))
        assert self._hash is not None
        return self._hash

    def __repr__(self) -> str:
        """Code that rebuilds this matrix exactly, e.g. ``Mechanism([['1/2', '1/2'], ['1/3', '2/3']])``
        (what Hypothesis prints for a failing example, so it can be pasted back)."""
        rows, cols = self.shape
        args = [repr(self.to_strings())]
        if self._inputs != tuple(range(rows)):
            args.append(f"inputs={list(self._inputs)!r}")
        if self._outputs != tuple(range(cols)):
            args.append(f"outputs={list(self._outputs)!r}")
        args += [f"{key}={[list(v) for v in value]!r}" for key, value in self._extra().items()]
        return f"{type(self).__name__}({', '.join(args)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._num, self._den, self._inputs, self._outputs, self._extra()))


def _ratio_text(a: int, d: int) -> str:
    """``a/d`` in lowest terms as text (``"0"``, ``"1"``, ``"p/q"``)."""
    if a == 0:
        return "0"
    g = math.gcd(a, d)
    a, d = a // g, d // g
    return _int_text(a) if d == 1 else f"{_int_text(a)}/{_int_text(d)}"


def _rebuild(cls: type[_S], num: IntRows, den: tuple[int, ...], inputs: Any, outputs: Any, extra: Any) -> _S:
    return cls.from_scaled(num, den, inputs=inputs, outputs=outputs, **extra)


def compose(remap: StochasticMatrix, mechanism: _S) -> _S:
    """Y∘X: run ``mechanism`` X, then reinterpret its output with ``remap`` Y (GRS §2.2).

    (Y∘X)[i][j] = Σ_r x[i][r]·y[r][j], exactly. The result keeps X's inputs (and neighbour
    graph) and takes Y's outputs. Y's inputs must be exactly X's outputs (any order).
    """
    if set(remap.inputs) != set(mechanism.outputs) or len(remap.inputs) != len(mechanism.outputs):
        missing = [r for r in mechanism.outputs if r not in remap._input_pos]
        extra = [r for r in remap.inputs if r not in mechanism._output_pos]
        raise InputError(
            "the remap's inputs must be exactly the mechanism's outputs",
            hint=f"missing rows for outputs {_short(missing)}; unexpected rows {_short(extra)}",
        )
    y_num, y_den = remap.scaled()
    order = [remap._input_pos[r] for r in mechanism.outputs]
    x_num, x_den = mechanism.scaled()
    n_out = len(remap.outputs)
    if remap.is_deterministic():
        target = [y_num[k].index(y_den[k]) for k in order]
        z_rows = []
        for row in x_num:
            lumped = [0] * n_out
            for a, j in zip(row, target):
                if a:
                    lumped[j] += a
            z_rows.append(tuple(lumped))
        return mechanism._derive(tuple(z_rows), x_den, remap.outputs)
    common = math.lcm(*y_den)
    y_rows = [[b * (common // y_den[k]) for b in y_num[k]] for k in order]
    z = integer_product(x_num, y_rows)
    return mechanism._derive(z, tuple(d * common for d in x_den), remap.outputs)


def integer_product(a: Sequence[Sequence[int]], b: Sequence[Sequence[int]]) -> IntRows:
    """Exact integer matrix product, through python-flint's fmpz_mat when it is large."""
    if len(a) * len(b) * len(b[0]) >= _FLINT_PRODUCT_THRESHOLD:
        import flint

        product = flint.fmpz_mat([list(r) for r in a]) * flint.fmpz_mat([list(r) for r in b])
        return tuple(tuple(int(v) for v in row) for row in product.tolist())
    columns = list(zip(*b))
    return tuple(tuple(sum(x * y for x, y in zip(row, col) if x) for col in columns) for row in a)


# -- parsing and validation -----------------------------------------------------------------


def parse_cells(matrix: Sequence[Sequence[Any]], *, from_float: bool = False) -> list[list[Fraction]]:
    """Every cell of a rectangular matrix as an exact ``Fraction``.

    Raises
    ------
    InputError
        Naming the row and column of the first bad cell, or the bad row (shape, size).
    """
    if isinstance(matrix, (str, bytes)) or not _is_sequence(matrix):
        raise InputError(f"expected a matrix (a list of rows), got {type(matrix).__name__}")
    rows = list(matrix)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not _is_sequence(row):
            raise InputError(f"expected a row (a list of numbers), got {type(row).__name__}", row=i)
    _check_shape(rows)
    result = []
    for i, row in enumerate(rows):
        values = []
        for r, cell in enumerate(row):
            try:
                values.append(to_fraction(cell, from_float=from_float))
            except InputError as err:
                raise replace(err, row=i, column=r) from None
        result.append(values)
    return result


def _parse_rows(matrix: Sequence[Sequence[Any]], *, from_float: bool) -> tuple[IntRows, tuple[int, ...]]:
    cells = parse_cells(matrix, from_float=from_float)
    return _over_denominators(cells, {v: (v.numerator, v.denominator) for row in cells for v in row})


def _over_denominators(
    rows: Sequence[Sequence[Hashable]], value: Mapping[Hashable, tuple[int, int]]
) -> tuple[IntRows, tuple[int, ...]]:
    """Rows of cells, ``value`` giving each distinct cell (a Fraction, or the text it was read
    from) as (numerator, denominator > 0), as integer rows over per-row denominators: one
    denominator for all rows when that costs at most about twice the largest row's bits (T read
    from a file of fractions in lowest terms: rows over 3·2^k for varying k, which every DP check
    and product would otherwise cross-multiply). Each distinct cell is scaled once (once a row when
    the rows keep their own denominators), and equal cells share one integer, as the families' do."""
    common = _lcm({q for _, q in value.values()})
    # every row's lcm is at least the largest denominator: past that bound only, the rows' own lcms decide
    top = max(q for _, q in value.values())
    own = None if common.bit_length() <= 2 * top.bit_length() + 64 else [
        _lcm({value[k][1] for k in set(row)}) for row in rows]  # fmt: skip
    if own is None or common.bit_length() <= 2 * max(d.bit_length() for d in own) + 64:
        scaled = {k: p * (common // q) for k, (p, q) in value.items()}
        return tuple(tuple(map(scaled.__getitem__, row)) for row in rows), (common,) * len(rows)
    num_rows = []
    for row, d in zip(rows, own):
        scaled = {k: value[k][0] * (d // value[k][1]) for k in set(row)}
        num_rows.append(tuple(map(scaled.__getitem__, row)))
    return tuple(num_rows), tuple(own)


def _lcm(values: set[int]) -> int:
    """lcm of positive integers, from the largest: a remainder test per value, a gcd only when it
    does not divide (T in lowest terms: the largest denominator is the lcm)."""
    result = max(values)
    for q in values:
        if result % q:
            result = math.lcm(result, q)
    return result


#: The only bytes a cell read straight from a file's bytes may hold to be read (ASCII, no escapes, no
#: control characters: what JSON reads as exactly these characters); anything else is declined, for the
#: caller's general reading of the whole file to name.
_EXACT_CELL_BYTES = re.compile(rb"[0-9+\-.eE/ ]+")


def parse_exact_rows(matrix: Any) -> tuple[IntRows, tuple[int, ...]] | None:
    """The integer rows of a rectangular matrix of exact cells in linear time: each distinct cell is
    read once and every cell is then a dictionary look-up (T's million cells have ≈ 2n distinct
    texts). The cells are all text — ``str``, or ``bytes`` as they stand in a file (ASCII) — "p/q" and
    "p" read by ``int`` alone (no ``Fraction``), any other exact number (``"0.25"``, ``"1e-3"``,
    ``"-1/3"``) by :func:`~mechlib.core.exact.to_fraction`; or all exact numbers (``int``, ``Decimal``
    as JSON's number literals are read, ``Fraction``). None when a cell is of another kind (a float, a
    boolean) or not an exact number: the general parser then reads it and names the bad cell. The
    shape and cell count are checked first."""
    if not isinstance(matrix, list) or not all(isinstance(row, list) for row in matrix):
        return None
    _check_shape(matrix)
    try:
        distinct = set(chain.from_iterable(matrix))
    except TypeError:  # an unhashable cell
        return None
    kinds = {type(cell) for cell in distinct}  # a cell equal to a text is that text, but True == 1 and 0.5 ==
    if kinds == {str} or kinds == {bytes}:  # Decimal("0.5"): a boolean or float cell is found by its own kind
        read: Any = _text_value if kinds == {str} else _bytes_value
    elif kinds <= _NUMBERS and set(map(type, chain.from_iterable(matrix))) <= _NUMBERS:
        read = _number_value
    else:
        return None
    value: dict[Hashable, tuple[int, int]] = {}
    for cell in distinct:
        found = read(cell)
        if found is None:
            return None
        value[cell] = found
    return _over_denominators(matrix, value)


#: The kinds of exact number a matrix may hold (JSON's literals are read as int and Decimal).
_NUMBERS = {int, Decimal, Fraction}


def _number_value(number: object) -> tuple[int, int] | None:
    """An exact number or its text, read by the general reader (which checks the limits first)."""
    try:
        exact_value = to_fraction(number)
    except InputError:
        return None
    return exact_value.numerator, exact_value.denominator


def _text_value(text: str) -> tuple[int, int] | None:
    """ "p/q" and "p" by ``int`` alone (no ``Fraction``: a random dense matrix has a million distinct
    cells), any other exact number by the general reader."""
    return exact.plain_ratio(text) or _number_value(text)


def _bytes_value(text: bytes) -> tuple[int, int] | None:
    return _text_value(text.decode("ascii")) if _EXACT_CELL_BYTES.fullmatch(text) else None


_HEX = re.compile(r"[0-9a-f]+")
_HEX_BYTES = re.compile(rb"[0-9a-f]+")


def parse_integer_rows(form: dict[str, Any], width: int | None) -> tuple[IntRows, tuple[int, ...]]:
    """The certificates' integer rows (:meth:`StochasticMatrix.to_integer_rows`) read as input:
    ``denominators`` and ``numerators`` in lowercase hexadecimal (text, or the numerators as the
    bytes they are in a file), at most ``exact.MAX_DIGITS`` digits each, and for sparse rows their
    ``columns`` (then ``width``, the number of outputs, is needed). Each distinct text is read once
    (equal entries share one int); the cell count is checked first; an error names the row. Row sums
    are checked where the matrix is built."""
    dens, rows = form["denominators"], form["numerators"]
    columns = form.get("columns")
    if columns is not None and width is None:
        raise InputError("a sparse matrix (with columns) needs its outputs", hint='add "outputs": [0, 1, …]')
    if len(dens) != len(rows) or (columns is not None and len(columns) != len(rows)):
        raise InputError(f"{len(rows)} rows of numerators, {len(dens)} denominators"
                         + ("" if columns is None else f", {len(columns)} rows of columns"),
                         hint="one denominator (and one list of columns) per row")  # fmt: skip
    size = (width or 0) if columns is not None else len(rows[0]) if rows else 0
    _check_shape([range(size)] * len(rows) if columns is not None else rows)
    value: dict[str | bytes, int] = {}
    for text in chain(set(dens), set(chain.from_iterable(rows))):
        hexadecimal = _HEX if isinstance(text, str) else _HEX_BYTES
        if hexadecimal.fullmatch(text) is None or len(text) > exact.MAX_DIGITS:
            where = next(i for i, row in enumerate(rows) if text == dens[i] or text in row)
            shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
            raise InputError(
                f"the entry {shown[:40]!r} is not at most {exact.MAX_DIGITS} lowercase hexadecimal digits",
                row=where,
                hint="integer rows hold hexadecimal integers (as the audit certificates write them)",
            )
        value[text] = int(text, 16)
    den = tuple(map(value.__getitem__, dens))
    if 0 in den:
        raise InputError("a row denominator is 0", row=den.index(0), hint="denominators are positive")
    common = _lcm(set(den))  # one denominator for all rows when cheap, as _over_denominators does
    own = common.bit_length() > 2 * max(den).bit_length() + 64
    scale = _Scaling(value)
    num: list[tuple[int, ...]] = []
    for i, row in enumerate(rows):
        values = scale.row(row, 1 if own else common // den[i])
        if columns is not None:
            cols = columns[i]
            ordered = all(a < b for a, b in pairwise(cols)) and (not cols or 0 <= cols[0] <= cols[-1] < size)
            if len(cols) != len(values) or not ordered:
                raise InputError(f"the columns are not increasing in 0..{size - 1}, one per numerator", row=i)
            dense = [0] * size
            for c, v in zip(cols, values):
                dense[c] = v
            values = tuple(dense)
        num.append(values)
    return tuple(num), (den if own else (common,) * len(den))


class _Scaling:
    """Rows of texts as their integers times a row's factor: each distinct text read once, scaled once
    per factor (a shift where the factor is a power of 2, as between T's rows), equal results one int
    (T's rows, each over its own denominator, hold 375,750 distinct (text, factor) pairs but ≈ 2n
    values over the common one: an int per cell would hold 150 MB)."""

    def __init__(self, value: dict[Any, int]) -> None:
        self.by_factor: dict[int, dict[Any, int]] = {1: value}
        self.shared: dict[int, int] = {}

    def row(self, texts: Sequence[Any], factor: int) -> tuple[int, ...]:
        scaled = self.by_factor.setdefault(factor, {})
        if factor != 1:
            new = list(set(texts).difference(scaled))
            shift = (factor & -factor).bit_length() - 1
            odd, values = factor >> shift, map(self.by_factor[1].__getitem__, new)
            products = list(map(lshift, values if odd == 1 else map(odd.__mul__, values), repeat(shift)))
            scaled.update(zip(new, map(self.shared.setdefault, products, products)))
        return tuple(map(scaled.__getitem__, texts))


def _is_sequence(obj: object) -> bool:
    return hasattr(obj, "__len__") and hasattr(obj, "__getitem__")


def _check_shape(rows: Sequence[Sequence[Any]]) -> None:
    if len(rows) == 0:
        raise InputError("the matrix has no rows", hint="expected at least one input row")
    width = len(rows[0])
    if width == 0:
        raise InputError("the row is empty", row=0, hint="expected at least one output column")
    if len(rows) * width > MAX_CELLS:
        raise InputError(
            f"the matrix is {len(rows)}×{width} = {len(rows) * width:,} cells",
            hint=f"expected at most {MAX_CELLS:,} cells",
        )
    for i, row in enumerate(rows):
        if len(row) != width:
            raise InputError(
                f"the row has {len(row)} entries but row 0 has {width}",
                row=i,
                hint="every row needs one entry per output",
            )


def _check_stochastic(num: IntRows, den: tuple[int, ...]) -> None:
    for i, (row, d) in enumerate(zip(num, den)):
        if min(row) < 0:
            r = next(k for k, a in enumerate(row) if a < 0)
            raise InputError(
                f"the entry {format_fraction(Fraction(row[r], d))} is negative",
                row=i,
                column=r,
                hint="probabilities must be ≥ 0",
            )
        total = sum(row)
        if total != d:
            s = Fraction(total, d)
            raise InputError(
                f"the row sums to {format_fraction(s)}, not exactly 1 (off by {format_fraction(s - 1)})",
                row=i,
                hint="each row is a probability distribution over the outputs",
            )


def _labels(labels: Sequence[Label] | None, count: int, what: str, unit: str) -> tuple[Label, ...]:
    if labels is None:
        return tuple(range(count))
    result = tuple(labels)
    if len(result) != count:
        raise InputError(
            f"{len(result)} {what} labels for {count} {unit}",
            field=what,
            hint=f"give exactly one label per {unit[:-1]}",
        )
    seen: set[Label] = set()
    for k, label in enumerate(result):
        if isinstance(label, bool) or not isinstance(label, Hashable):
            raise InputError(f"label {label!r} at position {k} is not a valid label", field=what)
        if label in seen:
            raise InputError(f"label {label!r} appears twice", field=what, hint="labels must be unique")
        seen.add(label)
    return result


def _short(items: Sequence[Any], limit: int = 8) -> str:
    items = list(items)
    text = ", ".join(repr(x) for x in items[:limit])
    return f"[{text}{', …' if len(items) > limit else ''}]"
