"""Reading mechanism files, exactly, with errors that name the file, row and column.

Formats
-------
JSON  ``{"matrix": [["1/2", "1/2"], …], "outputs": [...], "claimed_alpha": "1/2"}``
      (or ``"claimed_epsilon"``; also optional ``"inputs"``, ``"neighbours"``, ``"name"``).
      Entries are ints, exact strings, or JSON number literals read as exact decimals
      (``0.1`` is 1/10: the digits in the file, never a binary float).
      ``"matrix"`` may instead be integer rows, as the audit certificates write them:
      ``{"denominators": ["c"], "numerators": [["4", "8"]]}`` (hexadecimal, one denominator a row;
      sparse rows add ``"columns"`` and need ``"outputs"``): read in linear time. A matrix laid out
      alike in every row is cut from the file's bytes (:mod:`mechlib.audit.json_rows`), each
      distinct cell read once; any fault is named by the standard reading.
CSV   one row per input, exact strings (``1/3``, ``0.25``); ``#`` comment lines skipped.
NPY   only with ``from_float=True``: each float is taken at its exact binary value.

A file may be gzip-compressed (``mech.json.gz``, ``mech.csv.gz``; any file ``mechlib check`` reads),
read up to ``MAX_FILE_BYTES`` once decompressed; an output path ending in ``.gz`` is written
compressed (:func:`write_all`).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import re
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib.audit import json_rows
from mechlib.core.exact import MAX_DIGITS, decimal_int, format_fraction, parse_probability, to_fraction
from mechlib.core.mechanism import Mechanism
from mechlib.core.stochastic import MAX_CELLS, parse_cells, parse_exact_rows, parse_integer_rows
from mechlib.errors import InputError
from mechlib.schemas import structure_error

MAX_FILE_BYTES = 1 << 30
GZIP_MAGIC = b"\x1f\x8b"
_JSON_KEYS = {
    "matrix", "outputs", "inputs", "neighbours", "claimed_alpha", "claimed_epsilon", "claimed_delta", "name",
    "description",
}  # fmt: skip


@dataclass(frozen=True)
class LoadedMechanism:
    """A mechanism read from a file, with what the file claims about it."""

    mechanism: Mechanism
    path: str
    format: str
    sha256: str
    claimed_alpha: Fraction | None = None
    claimed_epsilon: Fraction | None = None
    name: str | None = None
    rows_normalized: bool = False
    #: with claimed_alpha or claimed_epsilon: the claim is (ε, δ)-DP
    claimed_delta: Fraction | None = None


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hexadecimal, as certificates record a source file's."""
    return hashlib.sha256(data).hexdigest()


def load_mechanism(
    path: str | os.PathLike[str],
    *,
    from_float: bool = False,
    normalize_rows: bool = False,
    checksum: Callable[[bytes], str] = sha256_hex,
) -> LoadedMechanism:
    """Read a mechanism file (format from its suffix) exactly.

    ``normalize_rows`` divides each row by its exact sum (an explicit opt-in for matrices
    whose rows are only approximately stochastic, e.g. floats); it is recorded in the result.
    ``checksum`` hashes the file's bytes as given (``mechlib check`` passes the checker's own, so
    the file is read and hashed once), in a thread while the file is parsed: hashlib releases the
    GIL, so on two cores the hash costs no wall time (T at n = 1000, 108 MB: 0.09 s).

    Raises
    ------
    InputError
        Naming the file and, where it applies, the row, column or field.
    """
    name = str(path)
    p = Path(path)
    suffix = (Path(p.stem) if p.suffix.lower() == ".gz" else p).suffix.lower()
    raw = read_limited(path)  # hashed as given: the certificate names the file, compressed or not
    with ThreadPoolExecutor(max_workers=1) as pool:
        digest = pool.submit(checksum, raw)
        data = uncompressed(raw, name)
        del raw  # the thread holds them until they are hashed: not kept while the mechanism is built
        # a JSON matrix is cut from the file's bytes (T at n = 1000, 108 MB: 0.58 s → 0.30 s CPU, 424 → 178 MB)
        scanned = json_rows.scan(data, json_decoder()) if suffix == ".json" and not normalize_rows else None
        try:
            if scanned is not None:
                try:
                    return _build(_json_fields(scanned), name, "json", digest.result(), from_float, False)
                except InputError:
                    pass  # the standard reading below names the fault, as it always has
            fields = _fields(data, suffix, from_float)
            return _build(fields, name, suffix.lstrip("."), digest.result(), from_float, normalize_rows)
        except InputError as err:
            raise err.at(name) from None


def _fields(data: bytes, suffix: str, from_float: bool) -> dict[str, Any]:
    """The fields of a mechanism file's content, by its suffix."""
    if suffix == ".json":
        return _json_fields(read_json(data))
    if suffix == ".csv":
        return {"matrix": _read_csv(data)}
    if suffix == ".npy":
        if not from_float:
            raise InputError(
                ".npy files hold binary floats",
                hint="pass --from-float (from_float=True) to take each float at its exact binary value",
            )
        return {"matrix": _read_npy(data)}
    raise InputError(
        f"unknown file type {suffix or '(none)'!r}", hint="expected .json, .csv or .npy (each may be gzipped)"
    )


def _build(
    fields: dict[str, Any], name: str, fmt: str, digest: str, from_float: bool, normalize_rows: bool
) -> LoadedMechanism:
    labels: dict[str, Any] = {key: fields.get(key) for key in ("inputs", "outputs", "neighbours")}
    matrix = fields["matrix"]
    if isinstance(matrix, dict):  # integer rows, as the certificates write them: read in linear time
        if normalize_rows:
            raise InputError("integer rows are exact", field="matrix", hint="drop --normalize-rows for this file")
        outputs = labels["outputs"]
        try:
            mechanism = Mechanism.from_scaled(
                *parse_integer_rows(matrix, None if outputs is None else len(outputs)), **labels
            )
        except InputError as err:
            raise replace(err, field=err.field or "matrix") from None
    elif (
        plain := None if normalize_rows else _exact_rows(matrix)
    ) is not None:  # each distinct cell read once, "p/q" by int alone (T at n = 1000: 10 s → 0.3 s)
        mechanism = Mechanism.from_scaled(*plain, **labels)
    else:
        cells = _exact_matrix(matrix, from_float)
        mechanism = Mechanism(_normalized(cells) if normalize_rows else cells, **labels)
    alpha = eps = None
    if fields.get("claimed_alpha") is not None:
        alpha = _field(fields, "claimed_alpha", lambda v: parse_probability(v))
    if fields.get("claimed_epsilon") is not None:
        eps = _field(fields, "claimed_epsilon", _nonnegative)
    delta = None
    if fields.get("claimed_delta") is not None:
        delta = _field(fields, "claimed_delta", lambda v: parse_probability(v))
        if alpha is None and eps is None:
            raise InputError(
                "gives claimed_delta alone",
                field="claimed_delta",
                hint="add claimed_epsilon (or claimed_alpha): the claim is (ε, δ)-DP",
            )
    return LoadedMechanism(mechanism, name, fmt, digest, alpha, eps, fields.get("name"), normalize_rows, delta)


def _field(fields: dict[str, Any], key: str, parse: Any) -> Fraction:
    try:
        result: Fraction = parse(fields[key])
        return result
    except InputError as err:
        raise replace(err, field=key) from None


def _nonnegative(value: object) -> Fraction:
    result = to_fraction(value)
    if result < 0:
        raise InputError(f"got {format_fraction(result)}", hint="ε must be ≥ 0")
    return result


def _exact_rows(matrix: Any) -> tuple[Any, Any] | None:
    try:
        return parse_exact_rows(matrix)
    except InputError as err:
        raise replace(err, field="matrix") from None


def _exact_matrix(matrix: Any, from_float: bool) -> list[list[Fraction]]:
    try:
        return parse_cells(matrix, from_float=from_float)
    except InputError as err:
        raise replace(err, field="matrix") from None


def _normalized(matrix: list[list[Fraction]]) -> list[list[Fraction]]:
    result = []
    for i, row in enumerate(matrix):
        total = sum(row, Fraction(0))
        if total <= 0 or min(row, default=Fraction(0)) < 0:
            raise InputError("cannot be normalised (entries must be ≥ 0, not all 0)", row=i)
        result.append([x / total for x in row])
    return result


def read_limited(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes, refused in one line before reading when it is not a file or is larger than
    ``MAX_FILE_BYTES`` (a 1 GiB file would cost minutes and gigabytes before any check could fail)."""
    name, p = str(path), Path(path)
    try:
        size = p.stat().st_size
        if not p.is_file():
            raise InputError("is not a file", source=name)
        if size > MAX_FILE_BYTES:
            raise InputError(f"is {size:,} bytes", source=name, hint=f"expected at most {MAX_FILE_BYTES:,} bytes")
        return p.read_bytes()
    except OSError as err:
        raise InputError(f"cannot be read: {err.strerror or err}", source=name) from None


def uncompressed(data: bytes, name: str) -> bytes:
    """``data`` itself, or the content of the gzip stream it is: at most ``MAX_FILE_BYTES`` once
    decompressed (checked while decompressing, so a small file cannot expand without bound)."""
    if not data.startswith(GZIP_MAGIC):
        return data
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, MAX_FILE_BYTES + 1)
    except zlib.error as err:
        raise InputError(f"is not a readable gzip file ({err})", source=name) from None
    if len(out) > MAX_FILE_BYTES:
        raise InputError(
            f"decompresses to more than {MAX_FILE_BYTES:,} bytes", source=name, hint="split it, or read it uncompressed"
        )
    if not inflater.eof:
        raise InputError("is a truncated gzip file", source=name, hint="it ends before its gzip stream does")
    if inflater.unused_data:
        raise InputError("has data after its gzip stream", source=name, hint="expected one gzip member")
    return out


def decode_text(data: bytes) -> str:
    """UTF-8 text (a leading byte-order mark dropped), or an ``InputError``."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text") from None


def read_json(data: bytes | str) -> Any:
    """Strict JSON: number literals read exactly (floats as ``Decimal``, integers within the digit
    limit), no NaN/Infinity, no duplicate keys, no nesting deeper than Python's stack — each an
    ``InputError`` naming the problem, never a traceback."""
    try:
        return json_decoder().decode(decode_text(data) if isinstance(data, bytes) else data)
    except RecursionError:
        raise InputError("is nested too deeply", hint="a mechanism file is an object of lists of rows") from None
    except json.JSONDecodeError as err:
        problem = (
            "is empty" if not data.strip() else f"is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}"
        )
        raise InputError(problem) from None


def json_decoder() -> json.JSONDecoder:
    """:func:`read_json`'s decoder: its hooks raise an ``InputError`` naming the problem."""
    return json.JSONDecoder(
        parse_float=Decimal, parse_int=_bounded_int, parse_constant=_reject_constant, object_pairs_hook=_unique_keys
    )


def _reject_constant(token: str) -> None:
    raise InputError(f"contains {token}", hint="entries must be finite exact numbers")


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise InputError(
            f"has an integer literal of {digits} digits",
            hint=f"at most {MAX_DIGITS} digits per number (raise MECHLIB_MAX_DIGITS to allow more)",
        )
    return decimal_int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) < len(pairs):  # linear: an object with n keys (a remap) costs O(n), not O(n²)
        repeated = sorted(k for k, count in Counter(k for k, _ in pairs).items() if count > 1)
        raise InputError(f"repeats the key(s) {repeated}", hint="each field may appear once")
    return found


def _json_fields(doc: Any) -> dict[str, Any]:
    """The fields of a JSON mechanism file's document, its shape checked (the matrix's cells are read
    where the mechanism is built)."""
    if isinstance(doc, list):
        return {"matrix": doc}
    if not isinstance(doc, dict):
        raise InputError(f"holds a JSON {type(doc).__name__}", hint='expected an object {"matrix": [[...], ...]}')
    unknown = sorted(set(doc) - _JSON_KEYS)
    if unknown:
        raise InputError(f"has unknown field(s) {unknown}", hint=f"known fields: {sorted(_JSON_KEYS)}")
    if "matrix" not in doc:
        raise InputError('has no "matrix" field', hint='expected {"matrix": [["1/2", "1/2"], ...]}')
    if doc.get("claimed_alpha") is not None and doc.get("claimed_epsilon") is not None:
        raise InputError("gives both claimed_alpha and claimed_epsilon", hint="give one of them")
    for key in ("outputs", "inputs"):
        labels = doc.get(key)
        if labels is not None and not (
            isinstance(labels, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in labels)
        ):
            raise InputError("must be a list of integers", field=key)
    structure = structure_error(_schema_view(doc), "mechanism")
    if structure is not None:
        raise InputError(f"does not follow the mechanism file format: {structure}", hint="see mechlib/schemas/")
    if doc.get("neighbours") is not None:
        doc["neighbours"] = _neighbour_pairs(doc["neighbours"])
    return doc


def _schema_view(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as the schema reads it: cells cut from a file's bytes (:class:`json_rows.CellRows`, at
    least one row of at least one cell) stand as one row of one text, which the schema judges alike:
    it asks of them only that they be rows of text."""

    def view(value: Any) -> Any:
        return [[""]] if isinstance(value, json_rows.CellRows) else value

    matrix = doc["matrix"]
    if isinstance(matrix, dict):
        return {**doc, "matrix": {key: view(value) for key, value in matrix.items()}}
    return {**doc, "matrix": view(matrix)}


def _neighbour_pairs(value: Any) -> list[tuple[int, int]]:
    """A list of pairs of integer input labels (booleans and floats are not labels)."""
    ok = isinstance(value, list) and all(
        isinstance(pair, list | tuple)
        and len(pair) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
        for pair in value
    )
    if not ok:
        raise InputError(
            f"is {str(value)[:60]}",
            field="neighbours",
            hint="expected a list of pairs of integer inputs, e.g. [[0, 1], [1, 2]]",
        )
    return [(int(a), int(b)) for a, b in value]


def _read_csv(data: bytes) -> list[list[str]]:
    text = decode_text(data)
    try:  # splitlines: \n, \r\n and a lone \r all end a line
        rows = [
            [cell.strip() for cell in row]
            for row in csv.reader(text.splitlines())
            if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")
        ]
    except csv.Error as err:
        raise InputError(f"is not readable CSV: {err}", hint="one line of exact numbers per input") from None
    if not rows:
        raise InputError("is empty", hint="expected one line of exact numbers per input")
    return rows


def _read_npy(data: bytes) -> list[list[float]]:
    import numpy as np

    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(stream)  # the header only: refuse absurd sizes before loading
    except (ValueError, OSError) as err:
        raise InputError(f"is not a readable .npy file: {err}") from None
    if len(shape) != 2:
        raise InputError(f"holds an array of shape {shape}", hint="expected a 2-D matrix (inputs × outputs)")
    if shape[0] * shape[1] > MAX_CELLS:
        raise InputError(f"holds a {shape[0]}×{shape[1]} matrix", hint=f"expected at most {MAX_CELLS:,} cells")
    if dtype.kind not in "fiu":
        raise InputError(f"holds dtype {dtype}", hint="expected a float or integer array")
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        raise InputError(f"is not a readable .npy file: {err}") from None
    values: list[list[float]] = array.tolist()
    return values


def write_all(outputs: Mapping[Any, str | bytes | Iterable[str]]) -> None:
    """Write every file or none: each goes to a temporary beside its target first; only when all
    are written are they renamed into place (a failure removes every temporary). Temporaries
    left by a killed run (``.NAME.*.tmp``) beside a target are removed first. A text may come as
    an iterable of pieces (written as they come: a large certificate is never held whole)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in outputs.items():
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            for stale in target.parent.glob(f".{target.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            if target.is_dir():
                raise IsADirectoryError(21, "is a directory", str(target))
            staged.append((_stage(target, data), target))
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise


def _stage(target: Path, data: str | bytes | Iterable[str]) -> str:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            # a target ending in .gz is written gzip-compressed (mtime 0: the same bytes every run); level 1:
            # T's certificate at n = 1000 (109 MB) takes 0.2 s and becomes 2.2 MB, level 9 takes 3.2 s for 2.4 MB
            gz = target.suffix == ".gz"
            sink: Any = gzip.GzipFile(fileobj=handle, mode="wb", mtime=0, compresslevel=1) if gz else handle
            if isinstance(data, bytes):
                sink.write(data)
            else:  # text in 16 MiB pieces at most: a 100 MB certificate is not copied whole
                for piece in [data] if isinstance(data, str) else data:
                    for start in range(0, len(piece), 1 << 24):
                        sink.write(piece[start : start + (1 << 24)].encode("utf-8"))
            if sink is not handle:
                sink.close()
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is wrong for a report meant to be shared
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text, as UTF-8, or bytes) to ``path`` so that it is either fully written or
    untouched."""
    write_all({path: data})


_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def is_callable_spec(spec: str) -> bool:
    """``module:function`` with dotted Python names on both sides; anything else (``results:final.json``,
    ``C:\\mech.csv``) is a file path and is never imported."""
    module, sep, func = spec.partition(":")
    looks_like_a_file = Path(spec).suffix.lower() in {".json", ".csv", ".npy", ".gz"}
    return bool(sep) and not looks_like_a_file and bool(_DOTTED.fullmatch(module)) and bool(_DOTTED.fullmatch(func))


def import_callable(spec: str) -> tuple[Any, Callable[..., Any]]:
    """(module, function) for ``module:function`` (or ``module:Class.method``), resolved by
    :func:`pkgutil.resolve_name`. The current directory is put on ``sys.path``, as ``python -m``
    does: the ``mechlib`` script's own ``sys.path[0]`` is its bin directory, and the function may
    import its neighbours when called, so it stays there."""
    import importlib
    import pkgutil
    import sys

    module_name, _, func_name = spec.partition(":")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as err:
        raise InputError(
            f"cannot import module {module_name!r}: {type(err).__name__}: {err}",
            source=spec,
            hint="give a file that exists, or module:function importable from the current directory",
        ) from None
    try:
        func = pkgutil.resolve_name(spec)
    except AttributeError:
        func = None
    if not callable(func):
        raise InputError(f"module {module_name!r} has no callable {func_name!r}", source=spec)
    return module, func


def load_source(
    spec: str,
    *,
    from_float: bool = False,
    normalize_rows: bool = False,
    arguments: dict[str, Any] | None = None,
    checksum: Callable[[bytes], str] = sha256_hex,
) -> LoadedMechanism:
    """A mechanism file, or ``module:function`` — a Python callable (no arguments, or ``arguments``
    as keywords: ``epsilon`` as an exact ``Fraction``, ``n`` as an int, as a sweep calls it)
    returning a ``Mechanism``, a matrix (list of rows) or a dict in the JSON file format. The
    SHA-256 is then that of the module's source file; an ``epsilon`` argument is the claimed ε.
    ``checksum`` hashes a file's bytes (:func:`load_mechanism`)."""
    if Path(spec).exists() or not is_callable_spec(spec):
        return load_mechanism(spec, from_float=from_float, normalize_rows=normalize_rows, checksum=checksum)
    loaded = _load_callable(spec, from_float, normalize_rows, dict(arguments or {}))
    if arguments and "epsilon" in arguments and loaded.claimed_epsilon is None and loaded.claimed_alpha is None:
        loaded = replace(loaded, claimed_epsilon=to_fraction(arguments["epsilon"]))
    return loaded


def _load_callable(spec: str, from_float: bool, normalize_rows: bool, kwargs: dict[str, Any]) -> LoadedMechanism:
    import inspect

    module, func = import_callable(spec)
    func_name = spec.partition(":")[2]
    shown = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    if "epsilon" in kwargs:
        kwargs["epsilon"] = to_fraction(kwargs["epsilon"])
    try:
        value = func(**kwargs)
    except (Exception, SystemExit) as err:  # the user's code: sys.exit() is an error here, not our exit
        raise InputError(f"{func_name}({shown}) raised {type(err).__name__}: {err}", source=spec) from None
    try:
        data = Path(inspect.getsourcefile(module) or "").read_bytes()
    except (OSError, TypeError):
        data = spec.encode()
    digest = hashlib.sha256(data).hexdigest()
    try:
        if isinstance(value, Mechanism):
            return LoadedMechanism(value, spec, "python", digest)
        fields = value if isinstance(value, dict) else {"matrix": value}
        unknown = sorted(set(fields) - _JSON_KEYS) if isinstance(fields, dict) else []
        if unknown:
            raise InputError(f"{func_name}() returned unknown field(s) {unknown}", hint=f"known: {sorted(_JSON_KEYS)}")
        if isinstance(fields, dict) and fields.get("neighbours") is not None:
            fields = {**fields, "neighbours": _neighbour_pairs(fields["neighbours"])}
        if not isinstance(fields, dict) or "matrix" not in fields:
            raise InputError(
                f"{func_name}() returned {type(value).__name__}", hint="expected a Mechanism, a matrix or a dict"
            )
        return _build(dict(fields), spec, "python", digest, from_float, normalize_rows)
    except InputError as err:
        raise err.at(spec) from None


def load_vector(path: str) -> list[Fraction]:
    """A prior: a JSON list or one CSV line of exact numbers."""
    cells = _load_cells(path)
    if len(cells) != 1:
        raise InputError(f"has {len(cells)} rows", source=path, hint="expected one row of probabilities")
    return cells[0]


def load_matrix(path: str) -> list[list[Fraction]]:
    """A loss matrix l(i, j): JSON list of rows or CSV of exact numbers."""
    return _load_cells(path)


def _load_cells(path: str) -> list[list[Fraction]]:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as err:
        raise InputError(f"cannot be read: {err.strerror or err}", source=path) from None
    try:
        if p.suffix.lower() == ".json":
            doc = read_json(data)
            rows = doc if doc and isinstance(doc[0], list) else [doc]
        else:
            rows = _read_csv(data)
        return [[to_fraction(v) for v in row] for row in rows]
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError, IndexError, KeyError) as err:
        raise InputError(f"is not a JSON list or CSV of exact numbers ({type(err).__name__})", source=path) from None
    except InputError as err:
        raise err.at(path) from None
