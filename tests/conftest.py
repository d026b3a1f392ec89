"""The Hypothesis profiles come from mechlib's pytest plugin (``mechlib-dev`` by default,
``mechlib-ci`` when CI=true — dev.py sets HYPOTHESIS_PROFILE — and ``mechlib-deep``); pick one with
HYPOTHESIS_PROFILE or ``--hypothesis-profile``. Counterexamples saved by fuzz runs during tests go
to a temporary directory."""

import os
import sys
from typing import Any

import pytest
from hypothesis import settings

import mechlib.pytest_plugin  # noqa: F401  (registers the profiles even when plugins are disabled)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "mechlib-dev"))


@pytest.fixture(autouse=True)
def _counterexamples_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative controls shrink and save counterexamples: keep them out of reports/."""
    monkeypatch.setenv("MECHLIB_COUNTEREXAMPLES", str(tmp_path_factory.mktemp("counterexamples")))


def patch_everywhere(monkeypatch: pytest.MonkeyPatch, original: Any, replacement: Any) -> None:
    """Rebind ``original`` to ``replacement`` in every loaded mechlib/proofs module that holds it
    (as the mutants do), so a test does not depend on which module a check imported it into."""
    holders = [
        (module, name)
        for module_name, module in list(sys.modules.items())
        if module is not None and module_name.startswith("mechlib")
        for name, value in list(vars(module).items())
        if value is original
    ]
    assert holders, f"{original!r} is held by no loaded module"
    for module, name in holders:
        monkeypatch.setattr(module, name, replacement)
