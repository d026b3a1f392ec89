"""Machine-checked claims from the papers: the catalogue of CLAIMS.md, the registry, the checks.

Importing this package registers every check module listed in ``CHECK_MODULES``.
"""

from importlib import import_module

from proofs.registry import REGISTRY, Claim, Outcome, Verdict

CHECK_MODULES = (
    "proofs.grs_examples",
    "proofs.certified_examples",
    "proofs.smt_claims",
    "proofs.symbolic_claims",
    "proofs.database_claims",
    "proofs.sy_claims",
    "proofs.sy_privacy_sets",
    "proofs.sy_uprr",
    "proofs.sy_example1",
    "proofs.fuzz_claims",
    "proofs.fuzz_mechanisms",
    "proofs.gs_minimax_structure",
    "proofs.grs_gs_instances",
    "proofs.parametric",
)

for _module in CHECK_MODULES:
    import_module(_module)

__all__ = ["REGISTRY", "Claim", "Outcome", "Verdict"]
