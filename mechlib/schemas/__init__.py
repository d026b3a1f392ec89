"""JSON Schemas (draft 2020-12) of every file format mechlib reads or writes, shipped with the
package: ``mechanism`` (mechanism files), ``mechlib.audit/8``, ``mechlib.blackbox/9`` (and /8, /7, /6, read only),
``mechlib.bracket/1``, ``mechlib.verify/1``, ``mechlib.mutants/1``, ``mechlib.sweep/1``,
``mechlib.universal/1`` (``mechlib prove-universal --json``), ``mechlib.universal/2`` (its certificate).

:func:`validate` checks a document against its schema and raises :class:`ValidationError`, which
names the JSON path of the first structural error (:func:`structure_error` gives that line
instead); the producers and checkers then decide its content. A schema is named by its id
(``mechlib.audit/8``) or by its family, for the current version (``audit``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

#: Schema id → file in this package.
FILES = {
    "mechanism": "mechanism.schema.json",
    # /8: dominance by T at a short α′ ≥ α and bracketed users' optima; /7 certificates are not read (an
    # older mechlib wrote them: ``precheck`` says so and how to get an /8 one)
    "mechlib.audit/8": "audit.schema.json",
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
    "mechlib.universal/2": "universal2.schema.json",
}


#: A family's current schema: ``validate(doc, "audit")`` is ``validate(doc, "mechlib.audit/8")``.
CURRENT = {"mechanism": "mechanism"} | {
    name.removeprefix("mechlib.").split("/")[0]: name
    for name in FILES
    if name.startswith("mechlib.") and FILES[name] == name.removeprefix("mechlib.").split("/")[0] + ".schema.json"
}


class ValidationError(ValueError):
    """A document that does not follow its schema: ``path`` (JSON path of the first error, the
    deepest), ``message`` (what was expected) and ``schema`` (the schema's id)."""

    def __init__(self, path: str, message: str, schema: str) -> None:
        self.path, self.message, self.schema = path, message, schema
        super().__init__(f"{path}: {message} (schema {schema})")


def _schema_id(name: str) -> str:
    if name in FILES:
        return name
    if name in CURRENT:
        return CURRENT[name]
    raise ValueError(f"no schema {name!r}; known: {', '.join([*CURRENT, *FILES])}")


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema called ``name`` (a key of :data:`FILES`, or a family of :data:`CURRENT`)."""
    text = resources.files(__name__).joinpath(FILES[_schema_id(name)]).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(name: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(name))


def validate(document: Any, name: str) -> None:
    """Return if ``document`` follows schema ``name``; else raise :class:`ValidationError` naming the
    JSON path of the first error (the deepest) and what was expected. The whole document, every
    cell of a matrix included, by jsonschema-rs (a 1000 × 1000 certificate in milliseconds)."""
    found = _first_error(document, _schema_id(name))
    if found is not None:
        raise ValidationError(*found)


def structure_error(document: Any, name: str) -> str | None:
    """None if ``document`` follows schema ``name``, else :func:`validate`'s error as one line."""
    found = _first_error(document, _schema_id(name))
    return None if found is None else str(ValidationError(*found))


def _first_error(document: Any, name: str) -> tuple[str, str, str] | None:
    validator = _validator(name)
    if validator.is_valid(document):
        return None
    errors = sorted(
        validator.iter_errors(document), key=lambda e: (-len(e.instance_path), list(map(str, e.instance_path)))
    )
    first = errors[0]
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.instance_path)
    message = first.message if len(first.message) <= 200 else first.message[:200] + "…"

    def printable(text: str) -> str:  # one line, whatever the document's keys and strings hold
        return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)

    return printable(path), printable(message), name


def precheck(document: Any, schema_id: str, kind: str) -> list[str]:
    """The checkers' first step: [] if ``document`` carries ``schema_id`` and follows its schema,
    else the one failure that says which (``kind``: "certificate" or "result")."""
    if not isinstance(document, dict) or document.get("schema") != schema_id:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        note = older_note(found, schema_id)
        return [f"schema {found!r} is not {schema_id!r}" + (f": {note}" if note else "")]
    structure = structure_error(document, schema_id)
    return [] if structure is None else [f"malformed {kind}: {structure}"]


def older_note(found: Any, schema_id: str) -> str:
    """For a document of an earlier version of the same family (``mechlib.audit/7`` against /8): that
    it comes from an older mechlib and how to get one this version reads; else ""."""
    family, _, version = schema_id.rpartition("/")
    theirs = found.rpartition("/") if isinstance(found, str) else ("", "", "")
    if theirs[0] != family or not (theirs[2].isdigit() and version.isdigit()) or int(theirs[2]) >= int(version):
        return ""
    return (
        f"it was written by an older mechlib, and this version reads {schema_id} only — re-run the command "
        "that made it (e.g. `mechlib audit`) with this version, or check it with the mechlib version that wrote it"
    )
