"""JSON Schemas (draft 2020-12) of every file format mechlib reads or writes, shipped with the
package: ``mechanism`` (mechanism files), ``mechlib.audit/6``, ``mechlib.blackbox/9`` (and /8, /7, /6, read only),
``mechlib.bracket/1``, ``mechlib.verify/1``, ``mechlib.mutants/1``, ``mechlib.sweep/1``,
``mechlib.universal/1`` (``mechlib prove-universal --json``).

:func:`validate` checks a document against its schema and names the JSON path of the first
structural error; the producers and checkers then decide its content.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

#: Schema id → file in this package.
FILES = {
    "mechanism": "mechanism.schema.json",
    "mechlib.audit/6": "audit.schema.json",
    "mechlib.blackbox/9": "blackbox.schema.json",
    # results handed out earlier, still checked against their own families: /8 (α_FA a JSON number, one
    # nonconformant cell), /7 (neighbours pooled, five one-tailed sums, one level) and /6 (before the sums)
    "mechlib.blackbox/8": "blackbox8.schema.json",
    "mechlib.blackbox/7": "blackbox7.schema.json",
    "mechlib.blackbox/6": "blackbox6.schema.json",
    "mechlib.bracket/1": "bracket.schema.json",
    "mechlib.verify/1": "verify.schema.json",
    "mechlib.mutants/1": "mutants.schema.json",
    "mechlib.sweep/1": "sweep.schema.json",
    "mechlib.universal/1": "universal.schema.json",
}


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema called ``name`` (a key of :data:`FILES`)."""
    loaded: dict[str, Any] = json.loads(resources.files(__name__).joinpath(FILES[name]).read_text(encoding="utf-8"))
    return loaded


@cache
def _validator(name: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(name))


def validate(document: Any, name: str) -> str | None:
    """None if ``document`` follows schema ``name``, else one line: the JSON path of the first
    error (the deepest) and what was expected. The whole document, every cell of a matrix
    included, by jsonschema-rs (a 1000 × 1000 certificate in milliseconds)."""
    validator = _validator(name)
    if validator.is_valid(document):
        return None
    errors = sorted(
        validator.iter_errors(document), key=lambda e: (-len(e.instance_path), list(map(str, e.instance_path)))
    )
    first = errors[0]
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.instance_path)
    message = first.message if len(first.message) <= 200 else first.message[:200] + "…"
    # one line, whatever the document's keys and strings hold (a line separator, a control character)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in f"{path}: {message} (schema {name})")


def precheck(document: Any, schema_id: str, kind: str) -> list[str]:
    """The checkers' first step: [] if ``document`` carries ``schema_id`` and follows its schema,
    else the one failure that says which (``kind``: "certificate" or "result")."""
    if not isinstance(document, dict) or document.get("schema") != schema_id:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        return [f"schema {found!r} is not {schema_id!r}"]
    structure = validate(document, schema_id)
    return [] if structure is None else [f"malformed {kind}: {structure}"]
