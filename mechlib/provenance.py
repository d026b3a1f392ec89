"""Provenance recorded in reports and certificates: the versions a result was produced with.

A leaf module (imports nothing of mechlib), usable from every layer; the checkers list these
fields as unverified provenance.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version


def package_versions(*dists: str) -> dict[str, str]:
    """Python's version and each distribution's ("not installed" if absent): for reports."""
    result = {"python": platform.python_version()}
    for dist in dists:
        try:
            result[dist] = version(dist)
        except PackageNotFoundError:
            result[dist] = "not installed"
    return result
