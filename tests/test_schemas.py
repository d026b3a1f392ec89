"""Every file format has a JSON Schema (shipped in mechlib/schemas/); every committed example and
report follows it, and a structural error is reported with its JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mechlib.schemas import FILES, ValidationError, schema, structure_error, validate

ROOT = Path(__file__).resolve().parent.parent


def _committed() -> list[tuple[Path, str]]:
    reports = ROOT / "reports"
    found = [(p, "mechlib.audit/8") for p in sorted((reports / "examples").glob("*.audit.json"))]
    found += [(p, "mechlib.blackbox/9") for p in sorted((reports / "examples" / "blackbox").glob("*.blackbox.json"))]
    found += [(p, "mechanism") for p in sorted((reports / "examples" / "sources").glob("*.json"))]
    found += [(p, "mechanism") for p in sorted((ROOT / "tests" / "fixtures").glob("*.json"))]
    found += [
        (p, f"mechlib.blackbox/{v}")
        for v in (6, 7, 8)
        for p in sorted((ROOT / "tests" / f"results_v{v}").glob("*.json"))
    ]
    found += [
        (reports / "verify.json", "mechlib.verify/1"),
        (reports / "mutants.json", "mechlib.mutants/1"),
        (reports / "school_planning_certificate.json", "mechlib.bracket/1"),
    ]
    return found


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    import jsonschema  # the reference implementation (a dev dependency)

    for name in FILES:
        jsonschema.Draft202012Validator.check_schema(schema(name))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))] or [path]
    if isinstance(value, list):
        return [leaf for k, v in enumerate(value) for leaf in _leaves(v, (*path, k))] or [path]
    return [path]


@pytest.mark.parametrize(
    ("path", "name"),
    [(p, name) for p, name in _committed() if p.stat().st_size < 200_000],  # the reference is slow on big ones
    ids=lambda v: str(v).rpartition("/")[2],
)
def test_the_validator_agrees_with_the_reference_implementation(path: Path, name: str) -> None:
    """mechlib validates with jsonschema-rs; on committed files and on 40 seeded tamperings of each
    (a leaf set to a number, a string, null, a list, or removed) it accepts exactly what the
    reference implementation, jsonschema, accepts."""
    import random

    import jsonschema

    reference = jsonschema.Draft202012Validator(schema(name))
    document = json.loads(path.read_text())
    rng, leaves = random.Random(f"{path.name}"), _leaves(document)
    for _ in range(40):
        tampered = json.loads(json.dumps(document))
        *parents, key = rng.choice(leaves) or ("schema",)
        holder = tampered
        for step in parents:
            holder = holder[step]
        if rng.random() < 0.2 and isinstance(holder, dict):
            holder.pop(key)
        else:
            holder[key] = rng.choice([7, -1.5, "x", None, [], {"k": 1}, True])
        assert (structure_error(tampered, name) is None) == reference.is_valid(tampered), (path.name, parents, key)


@pytest.mark.parametrize(("path", "name"), _committed(), ids=lambda v: str(v).rpartition("/")[2])
def test_committed_files_follow_their_schema(path: Path, name: str) -> None:
    validate(json.loads(path.read_text()), name)


def test_produced_blackbox_results_and_sweep_reports_follow_their_schemas(tmp_path: Path) -> None:
    from mechlib import sweep

    manifest = tmp_path / "grid.toml"
    fixture = ROOT / "tests" / "fixtures" / "gs_appendix_b.json"
    manifest.write_text(
        f'[[audits]]\nsources = ["{fixture}"]\n\n[[blackbox]]\nsampler = "mechlib:truncated_geometric"\n'
        'epsilon = "1"\nn = 2\nsamples = 2000\nseeds = [0, 1]\n'
    )
    report, out = sweep.run(str(manifest), output=str(tmp_path / "out"), jobs=1)
    validate(report, "mechlib.sweep/1")
    merged = json.loads((out / report["blackbox"][0]["certificate"]).read_text())
    validate(merged, "mechlib.blackbox/9")
    validate(json.loads((out / report["audits"][0]["certificate"]).read_text()), "mechlib.audit/8")


def _audit() -> dict[str, Any]:
    return dict(json.loads((ROOT / "reports" / "examples" / "gs_appendix_b.audit.json").read_text()))


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda c: c.update(witness=5), "$.witness"),
        (
            lambda c: c["mechanism"]["matrix"]["numerators"][1].__setitem__(2, 0.25),
            "$.mechanism.matrix.numerators[1][2]",
        ),
        (lambda c: c["derivation"].pop("alpha"), "$.derivation"),
        (lambda c: c.update(verdict="MAYBE"), "$.verdict"),
    ],
)
def test_check_names_the_json_path_of_a_structural_error(change: Any, path: str) -> None:
    from mechlib.checkers.audit_certificate import check_certificate

    cert = _audit()
    change(cert)
    failures = check_certificate(cert)
    assert failures and failures[0].startswith(f"malformed certificate: {path}"), failures


def test_a_mechanism_file_with_a_wrong_structure_names_the_field(tmp_path: Path) -> None:
    from mechlib.audit.loading import load_mechanism
    from mechlib.errors import InputError

    bad = tmp_path / "m.json"
    bad.write_text(json.dumps({"matrix": [["1/2", "1/2"], ["1/2", "1/2"]], "name": 7}))
    with pytest.raises(InputError, match=r"\$\.name"):
        load_mechanism(str(bad))


def test_validate_raises_a_validation_error_naming_the_path() -> None:
    with pytest.raises(ValidationError) as info:
        validate({}, "audit")  # a family name: its current schema
    assert info.value.schema == "mechlib.audit/8" and info.value.path == "$" and "required" in info.value.message
    with pytest.raises(ValidationError, match=r"^\$\.matrix"):
        validate({"matrix": 5}, "mechanism")
    with pytest.raises(ValueError, match="no schema 'nope'; known: mechanism, audit"):
        validate({}, "nope")
    assert structure_error({}, "mechlib.audit/8") == str(info.value)
