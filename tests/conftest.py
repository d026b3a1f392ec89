"""Hypothesis profiles: ``dev`` (default), ``ci`` (derandomized, no database, bounded) and
``deep`` (long runs); pick one with HYPOTHESIS_PROFILE (dev.py sets ``ci`` when CI=true).
Counterexamples saved by fuzz runs during tests go to a temporary directory."""

import os
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("deep", max_examples=3000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


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
        if module is not None and module_name.startswith(("mechlib", "proofs"))
        for name, value in list(vars(module).items())
        if value is original
    ]
    assert holders, f"{original!r} is held by no loaded module"
    for module, name in holders:
        monkeypatch.setattr(module, name, replacement)
