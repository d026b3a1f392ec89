"""The registered mutants of every claim (see :mod:`proofs.mutants`), grouped by what they falsify.

Each swap names the original object and its replacement; a mutant is listed only for the claims
it really falsifies (the mutation run shows each of them killed).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib import strategies
from mechlib.core import families, signature
from mechlib.core.exact import parse_probability
from mechlib.infodesign import alpha as alpha_module
from mechlib.infodesign import info_structure, privacy_sets
from mechlib.optimality import optimal
from proofs.mutants import Swap

_REAL_T = families.truncated_geometric


def _rr_in_place_of_t(alpha: object, n: int) -> Any:
    """(k = n+1)-ary randomized response: α-DP, not universally optimal, not a remap of T (GS §3)."""
    return families.randomized_response(alpha, n + 1)


def _noisier_t(alpha: object, n: int) -> Any:
    """T at α' = (1+α)/2 > α: still α-DP, but strictly less accurate than T (not optimal at α)."""
    a = parse_probability(alpha)
    return _REAL_T((1 + a) / 2 if a < 1 else Fraction(1), n)


_REAL_OPTIMUM = optimal.optimal_bayes_mechanism


def _optimum_is_rr(user: Any, alpha: object) -> Any:
    """The 'optimal vertex' replaced by randomized response (α-DP, neither optimal nor a vertex of
    the kind GRS §5 describes), with the true optimum's value and dual kept."""
    best = _REAL_OPTIMUM(user, alpha)
    return optimal.BayesOptimum(
        families.randomized_response(best.alpha, user.n + 1), best.value, best.dual, best.alpha, "mutant"
    )


_REAL_SIGNATURE = signature.signature


def _upside_down_signature(mechanism: Any, alpha: object) -> Any:
    """The signature read with rows and outputs reversed (↓ and ↑ swap roles)."""
    real = _REAL_SIGNATURE(mechanism, alpha)
    return signature.Signature(real.alpha, real.outputs[::-1], tuple(row[::-1] for row in real.rows[::-1]))


_REAL_RATIO = privacy_sets.ratio_violation


def _never_violated(*_args: Any, **_kwargs: Any) -> None:
    """K and K_Ω membership that never finds a violated ratio (the inequality dropped)."""
    return None


_REAL_GEOMETRIC_STRUCTURE = info_structure.geometric_structure


def _uniform_rr_structure(mu0: Any) -> Any:
    """τ of randomized response on Ω in place of the geometric mechanism's τ^g (SY §5)."""
    last = len(mu0) - 1
    one = alpha_module.const(1)
    x = alpha_module.X
    rows = [[one if s == w else x for s in range(last + 1)] for w in range(last + 1)]
    return info_structure.InformationStructure.from_oblivious(rows, mu0, one + last * x)


_REAL_AT_LEAST = alpha_module.Alpha.at_least


def _flipped_at_least(self: Any, p: Any, q: Any) -> bool:
    """p(α) ≥ q(α) answered as p(α) ≤ q(α)."""
    return bool(self.sign(q - p) >= 0)


_REAL_LEGAL = strategies.legal_losses.__wrapped__ if hasattr(strategies.legal_losses, "__wrapped__") else None


def _swap_legal_for_illegal() -> list[Swap]:
    def illegal(n: int, strict: bool = False) -> Any:
        return strategies.illegal_losses(n)

    return [(strategies.legal_losses, illegal)]


CANDIDATES: dict[str, tuple[str, Any]] = {
    "T → randomized response": ("non-universal mechanism in place of T", lambda: [(_REAL_T, _rr_in_place_of_t)]),
    "T → T at (1+α)/2": ("noisier mechanism in place of T", lambda: [(_REAL_T, _noisier_t)]),
    "optimum → randomized response": (
        "non-universal mechanism in place of T",
        lambda: [(_REAL_OPTIMUM, _optimum_is_rr)],
    ),
    "signature upside down": ("changed statement", lambda: [(_REAL_SIGNATURE, _upside_down_signature)]),
    "privacy sets without their inequality": ("flipped inequality", lambda: [(_REAL_RATIO, _never_violated)]),
    "τ^g → randomized response on Ω": (
        "non-universal mechanism in place of T",
        lambda: [(_REAL_GEOMETRIC_STRUCTURE, _uniform_rr_structure)],
    ),
    "≥ at α flipped": ("flipped inequality", lambda: [((alpha_module.Alpha, "at_least"), _flipped_at_least)]),
    "legal losses → illegal losses": ("illegal loss", _swap_legal_for_illegal),
}
