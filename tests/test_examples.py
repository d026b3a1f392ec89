"""The committed example audits in reports/examples/ are what `python3 dev.py examples` makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mechlib.audit.examples import generate, sources, stable
from mechlib.checkers.audit_certificate import check_certificate

COMMITTED = Path(__file__).resolve().parents[1] / "reports" / "examples"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("examples")
    generate(directory)
    return directory


@pytest.mark.parametrize("name", sorted(sources()))
def test_committed_example_matches_a_fresh_run(fresh: Path, name: str) -> None:
    committed = json.loads((COMMITTED / f"{name}.audit.json").read_text())
    regenerated = json.loads((fresh / f"{name}.audit.json").read_text())
    assert stable(committed) == stable(regenerated), (
        f"run `python3 dev.py examples` and commit reports/examples/ ({name})"
    )
    source = (COMMITTED / "sources" / f"{name}.json").read_bytes()
    assert check_certificate(committed, source) == []
    assert (COMMITTED / f"{name}.audit.md").read_text() and (COMMITTED / f"{name}.audit.html").read_text()


def test_examples_cover_the_issue_list() -> None:
    assert set(sources()) == {
        "truncated_geometric", "randomized_response", "exponential", "gs_appendix_b", "approximate_dp"
    }  # fmt: skip
    verdicts = {n: json.loads((COMMITTED / f"{n}.audit.json").read_text())["derivation"]["status"] for n in sources()}
    assert verdicts["truncated_geometric"] == "derivable" and verdicts["gs_appendix_b"] == "not derivable"
    approximate = json.loads((COMMITTED / "approximate_dp.audit.json").read_text())
    assert approximate["verdict"] == "PASS" and approximate["approximate_dp"]["renyi"] is not None


@pytest.mark.parametrize("path", sorted((COMMITTED / "blackbox").glob("*.blackbox.json")), ids=lambda p: p.name)
def test_committed_blackbox_results_recheck(path: Path) -> None:
    """The (ε, δ) audits of PyDP's and OpenDP's Gaussians (run with the libraries installed; re-checked
    here from their counts without them)."""
    from mechlib.checkers.blackbox_result import check_result

    result = json.loads(path.read_text())
    assert result["delta_test"] is not None and check_result(result) == []
