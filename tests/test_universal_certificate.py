"""The universal-optimality certificate (``mechlib.universal/2``) and its independent checker: the
remap-cell proof's verdict is a function of the certificate. Every way a proof could be broken —
a cell accepted without its Farkas certificate, a dropped cell or prefix, a forged multiplier, a
Gordan certificate that does not hold, a reflection without its mirror — is rejected."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mechlib import verify
from mechlib.checkers.universal_certificate import check_certificate, t_matrix
from mechlib.cli import main
from mechlib.core.families import truncated_geometric
from mechlib.proofs.registry import Verdict
from mechlib.proofs.shared import remap_cells, universal_cache
from mechlib.proofs.shared.remap_cells import judged_document, prove, prove_on_engine

Doc = dict[str, Any]


def _document(n: int, alpha: Fraction) -> Doc:
    outcome, doc = judged_document(n, alpha, prove(n, alpha))
    assert outcome.verdict == Verdict.PROVED and doc is not None
    return doc


@pytest.fixture(scope="module")
def doc3() -> Doc:
    return _document(3, Fraction(1, 2))


@pytest.fixture(scope="module")
def doc4() -> Doc:
    """n = 4 at α = 1/3: cells with splits and pair certificates — and, since the search never needs
    one there (nor at n = 5), prefixes abandoned on their own certificate, made from the first pair
    certificate (still a valid certificate)."""
    doc = _document(4, Fraction(1, 3))
    return _pair_as_prefixes(doc, 0)


def _pair_as_prefixes(doc: Doc, k: int) -> Doc:
    """The k-th pair certificate replaced by one Gordan certificate per prefix the search reaches
    that ends in that pair (its rows are among each prefix's rows)."""
    from itertools import product

    doc = copy.deepcopy(doc)
    j, before, at, *y = doc["pairs"].pop(k)
    others = {tuple(pair[:3]) for pair in doc["pairs"]}
    size = doc["n"] + 1
    for head in product(range(size), repeat=j - 1):
        prefix = [*head, before, at]
        if not any((i, prefix[i - 1], prefix[i]) in others for i in range(1, j)):
            doc["abandoned"].append([prefix, y])
    assert check_certificate(doc, n=doc["n"], alpha=Fraction(doc["alpha"])) == []
    return doc


def _rejected(doc: Doc, change: Callable[[Doc], object]) -> list[str]:
    tampered = copy.deepcopy(doc)
    change(tampered)
    return check_certificate(tampered, n=doc["n"], alpha=Fraction(doc["alpha"]))


def _facts(chain: list[Any]) -> Iterator[list[Any]]:
    for fact in chain:
        if fact[0] == 0:
            yield from _facts(fact[1])
            yield from _facts(fact[2])
        else:
            yield fact


def _fact_paths(doc: Doc) -> list[tuple[int, int, int]]:
    """(cell, output, index) of every sign fact whose Farkas certificate uses a row."""
    return [
        (c, r, k)
        for c, (_, chains) in enumerate(doc["cells"])
        for r, chain in enumerate(chains)
        for k, fact in enumerate(_facts(chain))
        if len(fact) > 2
    ]


def _fact(doc: Doc, path: tuple[int, int, int]) -> list[Any]:
    c, r, k = path
    return list(_facts(doc["cells"][c][1][r]))[k]


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(4, 5)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_searched_certificate_is_accepted(n: int, alpha: Fraction) -> None:
    doc = _document(n, alpha)
    assert check_certificate(doc, n=n, alpha=alpha) == []
    assert json.loads(json.dumps(doc)) == doc  # plain JSON: integers and lists only


def test_the_certificate_states_only_mathematics(doc3: Doc) -> None:
    """The same (n, α) searched again, on the engine, gives the same certificate (provenance aside)."""
    split = prove_on_engine(3, Fraction(1, 2), jobs=1)
    again = remap_cells.universal_certificate_document(3, Fraction(1, 2), split)
    assert {k: v for k, v in again.items() if k != "provenance"} == {k: v for k, v in doc3.items() if k != "provenance"}


def test_the_checker_builds_t_from_its_definition() -> None:
    for n, alpha in [(1, Fraction(1, 2)), (4, Fraction(1, 3)), (6, Fraction(2, 3))]:
        assert t_matrix(n, alpha) == [list(row) for row in truncated_geometric(alpha, n).rows]


def test_a_cell_accepted_without_its_farkas_certificate_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer's mutant: ``certified`` says yes without a certificate. The search then
    "proves" every cell, but the certificate it writes does not check, so the verdict is UNKNOWN."""
    monkeypatch.setattr(remap_cells._Prover, "certified", lambda self, rows, form: [1])
    outcome, doc = judged_document(3, Fraction(1, 2), prove(3, Fraction(1, 2)))
    assert outcome.verdict == Verdict.UNKNOWN and doc is None
    assert "Farkas certificate" in (outcome.reason or "")


def test_every_dropped_cell_is_rejected(doc3: Doc) -> None:
    for c in range(len(doc3["cells"])):
        failures = _rejected(doc3, lambda d: d["cells"].pop(c))  # noqa: B023
        assert failures and "neither proved" in failures[0]


def test_every_dropped_mirror_is_rejected(doc3: Doc) -> None:
    assert doc3["mirrored"]
    for c in range(len(doc3["mirrored"])):
        assert _rejected(doc3, lambda d: d["mirrored"].pop(c))  # noqa: B023


def test_reflection_is_used_only_where_declared_and_only_onto_an_earlier_leaf(doc3: Doc) -> None:
    assert "reflection" in _rejected(doc3, lambda d: d.__setitem__("reflection", False))[0]

    def mirror_the_proved_one(d: Doc) -> None:
        """Claim the earlier cell of a mirror pair by reflection instead (a cycle: neither is proved)."""
        first = next(sigma for sigma, _ in d["cells"] if [3 - sigma[3 - j] for j in range(4)] != sigma)
        d["cells"] = [cell for cell in d["cells"] if cell[0] != first]
        d["mirrored"].append(first)

    assert _rejected(doc3, mirror_the_proved_one)


def test_every_dropped_pair_certificate_is_rejected(doc3: Doc) -> None:
    """Each pair certificate is the only reason some leaf is not a cell to prove."""
    for k in range(len(doc3["pairs"])):
        failures = _rejected(doc3, lambda d: d["pairs"].pop(k))  # noqa: B023
        assert failures and "neither proved" in failures[0]


def test_every_dropped_prefix_is_rejected(doc4: Doc) -> None:
    assert doc4["abandoned"]
    for k in range(len(doc4["abandoned"])):
        failures = _rejected(doc4, lambda d: d["abandoned"].pop(k))  # noqa: B023
        assert failures, f"dropping the abandoned prefix {doc4['abandoned'][k][0]} went unnoticed"


def test_every_forged_farkas_multiplier_is_rejected(doc3: Doc, doc4: Doc) -> None:
    """λ = 0 on a fact that needs rows (the form alone is not nonnegative: the producer writes [1]
    for those); a multiplier on a row the piece does not have; L = 0. Every fact at n = 3, every
    tenth at n = 4 (split pieces included)."""
    for doc in (doc3, doc4):
        _forgeries_rejected(doc, _fact_paths(doc)[:: 1 if doc is doc3 else 10])


def _forgeries_rejected(doc: Doc, paths: list[tuple[int, int, int]]) -> None:
    assert len(paths) > 30
    for path in paths:

        def zero(d: Doc) -> None:
            fact = _fact(d, path)  # noqa: B023
            fact[3::2] = [0] * len(fact[3::2])

        def foreign(d: Doc) -> None:
            _fact(d, path)[2] = 10**6  # noqa: B023

        for change in (zero, foreign):
            failures = _rejected(doc, change)
            assert failures and "Farkas" in failures[0], (path, change.__name__)
    failures = _rejected(doc, lambda d: _fact(d, paths[0]).__setitem__(1, 0))
    assert failures and "Farkas" in failures[0]


def test_every_gordan_certificate_that_does_not_hold_is_rejected(doc4: Doc) -> None:
    """y on one row alone never holds (a single row of a cell always has a positive entry), nor a
    y on a row the prefix does not have."""
    for k in range(len(doc4["pairs"])):
        failures = _rejected(doc4, lambda d: d["pairs"][k].__delitem__(slice(5, None)))  # noqa: B023
        assert failures and "pair certificate" in failures[0]
    for k in range(len(doc4["abandoned"])):
        failures = _rejected(doc4, lambda d: d["abandoned"][k][1].__delitem__(slice(2, None)))  # noqa: B023
        assert failures and "Gordan" in failures[0]
        failures = _rejected(doc4, lambda d: d["abandoned"][k][1].__setitem__(0, 10**6))  # noqa: B023
        assert failures and "Gordan" in failures[0]


def test_structure_and_scope_are_checked(doc3: Doc) -> None:
    assert "not n = 4" in check_certificate(doc3, n=4, alpha=Fraction(1, 2))[0]
    assert check_certificate(doc3, n=3, alpha=Fraction(1, 3))
    assert "malformed" in _rejected(doc3, lambda d: d.__setitem__("cells", 7))[0]
    assert "malformed" in _rejected(doc3, lambda d: d.__setitem__("n", 99))[0]
    assert "malformed" in _rejected(doc3, lambda d: d.__setitem__("alpha", "3/2"))[0]
    assert "schema" in _rejected(doc3, lambda d: d.__setitem__("schema", "mechlib.universal/1"))[0]
    # a listed cell that is no leaf of the tree, a chain cut short, a sign fact after F_0
    chains = doc3["cells"][0][1]
    assert "not a node" in _rejected(doc3, lambda d: d["cells"].append([[9, 9, 9, 9], chains]))[0]
    assert "stops" in _rejected(doc3, lambda d: d["cells"][0][1][0].pop())[0]
    assert _rejected(doc3, lambda d: d["cells"][0][1][0].append([1, 1]))


def test_mechlib_check_dispatches_on_the_schema(doc3: Doc, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cert.json.gz"
    universal_cache.write(path, doc3)
    assert main(["check", str(path)]) == 0
    assert "holds" in capsys.readouterr().out
    tampered = copy.deepcopy(doc3)
    tampered["cells"].pop()
    plain = tmp_path / "tampered.json"
    plain.write_text(json.dumps(tampered))
    assert main(["check", str(plain)]) == 1
    assert "neither proved" in capsys.readouterr().out


# --- the cache: re-checked, never trusted -----------------------------------------------------------------


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MECHLIB_CACHE", str(tmp_path))
    monkeypatch.delenv("MECHLIB_SEARCH", raising=False)
    monkeypatch.setattr(universal_cache, "PACKAGED", tmp_path / "packaged")
    return tmp_path / "certificates"


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = remap_cells.prove

    def counted(n: int, alpha: Fraction, **kwargs: Any) -> remap_cells.CellCounts:
        calls.append(n)
        return real(n, alpha, **kwargs)

    monkeypatch.setattr(remap_cells, "prove", counted)
    return calls


def test_a_missing_certificate_is_searched_then_rechecked(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _searches(monkeypatch)
    alpha = Fraction(1, 3)
    first = universal_cache.certified_outcome(3, alpha)
    assert first.verdict == Verdict.PROVED and calls == [3]
    assert "no stored certificate" in first.evidence["certificate"]
    second = universal_cache.certified_outcome(3, alpha)
    assert second.verdict == Verdict.PROVED and calls == [3]  # re-checked, not searched
    assert second.evidence["re-checked by"] == "mechlib.checkers.universal_certificate"
    monkeypatch.setenv("MECHLIB_SEARCH", "1")
    assert universal_cache.certified_outcome(3, alpha).verdict == Verdict.PROVED and calls == [3, 3]


@pytest.mark.parametrize("damage", ["tampered", "stale", "unreadable"])
def test_a_bad_certificate_is_searched_again_never_trusted(
    damage: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alpha = Fraction(1, 2)
    path = cache / universal_cache.universal_name(2, alpha)
    doc = _document(2, alpha)
    if damage == "tampered":
        doc["cells"].pop()
        universal_cache.write(path, doc)
    elif damage == "stale":
        universal_cache.write(path, _document(1, alpha))
    else:
        path.parent.mkdir(parents=True)
        path.write_bytes(b"\x1f\x8bnot gzip")
    calls = _searches(monkeypatch)
    outcome = universal_cache.certified_outcome(2, alpha)
    assert outcome.verdict == Verdict.PROVED and calls == [2]
    assert "rejected" in outcome.evidence["certificate"]
    assert check_certificate(universal_cache.read(path), n=2, alpha=alpha) == []  # replaced by a good one


def test_a_replaced_t_is_searched_not_taken_from_the_store(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored certificate speaks of T by definition; when the library's T is another mechanism
    (a mutant), that mechanism is searched — and randomized response is refuted."""
    from mechlib.core import families

    alpha = Fraction(1, 2)
    universal_cache.write(cache / universal_cache.universal_name(2, alpha), _document(2, alpha))
    monkeypatch.setattr(families, "truncated_geometric", lambda a, n: families.randomized_response(a, n + 1))
    outcome = universal_cache.certified_outcome(2, alpha)
    assert outcome.verdict == Verdict.REFUTED


def test_the_packaged_certificates_check() -> None:
    """Every certificate shipped with the package is accepted for the (n, α) its name says."""
    paths = sorted(universal_cache.PACKAGED.glob("universal-*.json.gz"))
    assert paths
    for path in paths:
        doc = universal_cache.read(path)
        if doc["n"] <= 4:  # the larger ones are re-checked by verify (seconds each)
            assert universal_cache.universal_name(doc["n"], Fraction(doc["alpha"])) == path.name
            assert check_certificate(doc, n=doc["n"], alpha=Fraction(doc["alpha"])) == []


def test_verify_search_forces_the_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``mechlib verify --search`` sets MECHLIB_SEARCH=1 (inherited by the engine's workers), which
    the store reads."""
    import os

    monkeypatch.delenv("MECHLIB_SEARCH", raising=False)
    assert not universal_cache.search_forced()
    seen: list[bool] = []
    real = verify.run

    def run(*args: Any, **kwargs: Any) -> Any:
        seen.append(os.environ.get("MECHLIB_SEARCH") == "1" and universal_cache.search_forced())
        return real(*args, **kwargs)

    monkeypatch.setattr(verify, "run", run)
    argv = ["verify", "--search", "--only", "GRS-F4", "-j", "1", "--no-progress", "--report-dir", str(tmp_path)]
    assert main(argv) == 0
    assert seen == [True] and "MECHLIB_SEARCH" not in os.environ  # set for the run only, then restored
