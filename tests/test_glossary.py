"""`mechlib explain` and the glossary every report links to."""

import pytest

from mechlib.cli import main
from mechlib.glossary import TERMS, lookup


def test_every_name_and_alias_finds_one_term() -> None:
    words = [w for t in TERMS for w in (t.name.lower(), *t.aliases)]
    assert len(words) == len(set(words)), "an alias names two terms"
    assert all(lookup(w.upper()) is not None for w in words)


def test_explain_prints_the_terms_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "dominance", "epsilon"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dominance\n") and "ε and α" in out and "GRS Theorem 3.2" in out
    assert main(["explain"]) == 0
    everything = capsys.readouterr().out
    assert all(t.name in everything for t in TERMS)


def test_an_unknown_term_is_bad_input_listing_the_terms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "dominence"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'dominence'" in err and "dominance" in err
