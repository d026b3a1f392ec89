"""Hypothesis profiles: ``dev`` (default), ``ci`` (derandomized, no database, bounded) and
``deep`` (long runs); pick one with HYPOTHESIS_PROFILE (dev.py sets ``ci`` when CI=true)."""

import os

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
