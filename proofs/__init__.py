"""Machine-checked claims from the papers: the registry and its checks.

Importing this package registers every claim module listed in ``CLAIM_MODULES``.
"""

from importlib import import_module

from proofs.registry import REGISTRY, Claim, Outcome, Verdict

CLAIM_MODULES = ("proofs.grs_examples", "proofs.certified_examples")

for _module in CLAIM_MODULES:
    import_module(_module)

__all__ = ["REGISTRY", "Claim", "Outcome", "Verdict"]
