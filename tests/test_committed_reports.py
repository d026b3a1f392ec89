"""The committed reports/verify.* describe the registry as it is: same schema, same claims with the
same statements, checks, expectations and mutants (not re-running a claim: the verdicts are the
committed run's). Stale after a change to the registry: refresh with
`mechlib verify --report-dir reports` and commit the reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPORTS = Path(__file__).resolve().parents[1] / "reports"
#: The fields of each claim that come from the registry alone (not from a run).
STATIC = ("paper", "location", "statement", "kind", "checks", "pending", "implemented", "target_strength", "expected")


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((REPORTS / "verify.json").read_text())
    return doc


def _registry_rows() -> dict[str, dict[str, Any]]:
    import mechlib.proofs.falsifications  # noqa: F401  (registers the mutants)
    from mechlib.proofs import REGISTRY
    from mechlib.proofs.mutants import pairs
    from mechlib.proofs.registry import Outcome, Result, Verdict

    mutants: dict[str, list[str]] = {}
    for name, claim_id in pairs():
        mutants.setdefault(claim_id, []).append(name)
    rows = {}
    for claim_id, claim in REGISTRY.items():
        row = Result(claim, Outcome(Verdict.UNKNOWN), 0.0).to_json()
        rows[claim_id] = {**{k: row[k] for k in STATIC}, "mutants": mutants.get(claim_id, [])}
    return rows


def test_the_committed_verify_report_lists_the_registrys_claims(committed: dict[str, Any]) -> None:
    from mechlib.schemas import validate
    from mechlib.verify import SCHEMA

    hint = "stale: run `mechlib verify --report-dir reports` and commit reports/verify.*"
    assert committed["schema"] == SCHEMA, hint
    validate(committed, SCHEMA)
    rows = _registry_rows()
    shown = {c["id"]: {**{k: c[k] for k in STATIC}, "mutants": c["mutants"]} for c in committed["claims"]}
    assert sorted(shown) == sorted(rows), hint
    differ = {claim_id: [k for k in rows[claim_id] if rows[claim_id][k] != shown[claim_id][k]] for claim_id in rows}
    assert not {claim_id: keys for claim_id, keys in differ.items() if keys}, hint


def test_the_committed_pages_show_every_claim(committed: dict[str, Any]) -> None:
    for page in ("verify.md", "verify.html"):
        text = (REPORTS / page).read_text()
        assert all(c["id"] in text for c in committed["claims"]), f"reports/{page} is older than verify.json"
