"""Machine-checked claims from the papers: the catalogue of CLAIMS.md, the registry, the checks.

Importing this package registers every claim module (``CHECK_MODULES``: ``mechlib/proofs/<paper>/<claim>.py``,
each with its check parts and its own mutants).
"""

import pkgutil
from importlib import import_module
from pathlib import Path

from mechlib.proofs.registry import REGISTRY, Claim, Outcome, Verdict

#: The per-claim modules, one package per paper (``mechlib/proofs/<paper>/<claim>.py``).
PAPERS = ("grs", "gs", "sy", "other")
CHECK_MODULES = tuple(
    f"mechlib.proofs.{paper}.{info.name}"
    for paper in PAPERS
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent / paper)]), key=lambda m: m.name)
)

for _module in CHECK_MODULES:
    import_module(_module)

__all__ = ["REGISTRY", "Claim", "Outcome", "Verdict"]
