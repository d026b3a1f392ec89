"""Hypothesis profiles: ``dev`` (default), ``ci`` (derandomized, no database, bounded) and
``deep`` (long runs); pick one with HYPOTHESIS_PROFILE (dev.py sets ``ci`` when CI=true).
Counterexamples saved by fuzz runs during tests go to a temporary directory."""

import os

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
