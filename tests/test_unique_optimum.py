"""GRS Theorem 3.2's "only if" at every n ≤ 6 and three α: T is the unique optimal α-DP direct
mechanism of Lemma 5.12's user, shown by a ``mechlib.unique-optimum/1`` certificate (an exact dual
with strictly positive multipliers on T's binding constraints, of full rank) that the independent
checker re-verifies. Every way the certificate could be forged or broken is rejected, and a user
for whom T is not the unique optimum gets no certificate past the checker."""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from mechlib.checkers.unique_optimum import check_certificate
from mechlib.proofs.grs.theorem_3_2 import unique_optima, unique_optimum_certificate
from mechlib.proofs.registry import Verdict
from mechlib.proofs.shared.remap_cells import ALPHAS, LARGEST_N

Doc = dict[str, Any]


@pytest.fixture(scope="module")
def doc() -> Doc:
    found = unique_optimum_certificate(3, Fraction(1, 2))
    assert found is not None
    return found


def test_t_is_lemma_5_12_users_unique_optimum_at_every_n_and_alpha() -> None:
    outcome = unique_optima()
    assert outcome.verdict == Verdict.PROVED, outcome.reason
    assert len(outcome.evidence) == LARGEST_N * len(ALPHAS)
    assert all(entry["checker"] == "accepted" for entry in outcome.evidence.values())


def test_the_certificate_is_for_the_n_and_alpha_asked(doc: Doc) -> None:
    assert check_certificate(doc, n=3, alpha=Fraction(1, 2)) == []
    assert check_certificate(doc, n=4) == ["n: the certificate is for n = 3, not 4"]
    assert "not 1/3" in check_certificate(doc, alpha=Fraction(1, 3))[0]


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Doc], None]:
    def edit(d: Doc) -> None:
        target: Any = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


TAMPERED: dict[str, tuple[Callable[[Doc], None], str]] = {
    "a multiplier made 0": (_set(("binding", 0, 3), "0"), "is not positive"),
    "a multiplier made negative": (_set(("binding", 2, 3), "-1/7"), "is not positive"),
    "a binding constraint dropped": (lambda d: d["binding"].pop(), "rank"),
    "a constraint that is slack at T": (lambda d: d["binding"].append(["nonneg", 0, 0, "1"]), "not tight at T"),
    "a row dual changed": (_set(("rows", 1), "1/2"), "c − Aᵀy − Σμg is not 0"),
    "the stated value": (_set(("value",), "1/2"), "value: T loses"),
    "another mechanism": (_set(("mechanism", 0, 0), "1/2"), "not the truncated geometric"),
    "an illegal loss (γ < 0)": (_set(("gamma",), "-1/100"), "not legal"),
    "α outside (0, 1)": (_set(("alpha",), "3/2"), "is not in (0, 1)"),
    "a huge α": (_set(("alpha",), "1/" + "9" * 40), "more than 12 digits"),
    "a constraint outside the LP": (lambda d: d["binding"].append(["up", 3, 0, "1"]), "outside the LP"),
    "a constraint listed twice": (lambda d: d["binding"].append(list(d["binding"][0])), "listed twice"),
    "an unknown kind": (_set(("binding", 0, 0), "sideways"), "is not one of"),
    "an extra field": (_set(("extra",), 1), "unexpected ['extra']"),
    "another schema": (_set(("schema",), "mechlib.universal/2"), "is not 'mechlib.unique-optimum/1'"),
    "n out of range": (_set(("n",), 99), "1 ≤ n ≤ 20"),
    "n not an integer": (_set(("n",), "3"), "expected an integer"),
}


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_certificate_is_rejected_with_one_line(doc: Doc, name: str) -> None:
    edit, expected = TAMPERED[name]
    tampered = copy.deepcopy(doc)
    edit(tampered)
    failures = check_certificate(tampered)
    assert failures and any(expected in f for f in failures), failures
    assert all("\n" not in f for f in failures)


def test_not_a_document_is_one_failure_never_an_exception() -> None:
    assert check_certificate([]) == ["malformed certificate: certificate: expected an object, got list"]
    assert check_certificate({"schema": "mechlib.unique-optimum/1"})[0].startswith("malformed certificate")


def test_a_user_whose_unique_optimum_is_not_t_gets_no_certificate() -> None:
    """The negative control: with γ = 1 (loss 1 + |j − i| off the truth) some remap of T other than
    the identity is as good at α = 2/3, n = 3, so no dual is strictly complementary on T's binding
    constraints — the producer's best attempt is rejected."""
    found = unique_optimum_certificate(3, Fraction(2, 3), Fraction(1))
    assert found is not None
    failures = check_certificate(found)
    assert failures and "is not positive" in failures[0]


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(node, dict):
        return [leaf for key, value in node.items() for leaf in _leaves(value, (*path, key))]
    if isinstance(node, list):
        return [leaf for k, value in enumerate(node) for leaf in _leaves(value, (*path, k))]
    return [(path, node)]


def _changed(value: Any) -> list[Any]:
    """Changes of one leaf that alter its meaning (never the same value)."""
    if isinstance(value, int):
        return [value + 1, value - 1]
    if value in ("down", "up", "nonneg"):
        return [kind for kind in ("down", "up", "nonneg") if kind != value]
    x = Fraction(value)
    return [str(x + Fraction(1, 7)), str(-x if x else Fraction(1, 2))]


def test_every_field_is_checked(doc: Doc) -> None:
    """Every leaf of the certificate (but the unchecked statement and provenance) changed in every
    way above is rejected: none of them leaves a true certificate of the same statement."""
    tried = 0
    for path, value in _leaves(doc):
        if path[0] in ("statement", "provenance", "schema"):
            continue
        for new in _changed(value):
            tampered = copy.deepcopy(doc)
            _set(path, new)(tampered)
            tried += 1
            assert check_certificate(tampered), f"{path}: {value!r} → {new!r} accepted"
    assert tried > 100


def test_each_limit_and_length_is_checked_at_its_edge(doc: Doc) -> None:
    """Found by mutation testing the checker: the edges of n, α, γ and the digit limit are read as
    documented, and a list of the wrong length is one malformed line naming it (never an exception)."""
    size = doc["n"] + 1
    # n = 20 (the largest) passes the range; the mechanism for n = 3 is then the wrong size
    assert check_certificate({**doc, "n": 20}) == ["malformed certificate: mechanism: expected a list of 21"]
    assert check_certificate({**doc, "alpha": "0"}) == ["alpha: 0 is not in (0, 1)"]
    assert check_certificate({**doc, "alpha": "1"}) == ["alpha: 1 is not in (0, 1)"]
    twelve = "1/" + "9" * 12  # twelve digits: within the limit
    assert not any(f.startswith("malformed") for f in check_certificate({**doc, "alpha": twelve}))
    assert not any("not legal" in f for f in check_certificate({**doc, "gamma": "0"}))  # γ = 0: the 0–1 loss, legal
    for rows in (doc["rows"][:-1], [*doc["rows"], "0"]):
        assert check_certificate({**doc, "rows": rows}) == [f"malformed certificate: rows: expected a list of {size}"]
    for entry in (doc["binding"][0][:3], [*doc["binding"][0], "1"]):
        tampered = {**doc, "binding": [entry, *doc["binding"][1:]]}
        assert check_certificate(tampered) == ["malformed certificate: binding[0]: expected a list of 4"]
    # x_{n,j} ≥ 0 is a constraint of the LP (slack at T, whose entries are all positive)
    last_row = {**doc, "binding": [*doc["binding"], ["nonneg", doc["n"], 0, "1"]]}
    assert any(f"(nonneg, {doc['n']}, 0) is not tight at T" in f for f in check_certificate(last_row))
