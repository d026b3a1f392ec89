"""The mutants that falsify several claims at once (see :mod:`mechlib.proofs.mutants`): T replaced, the
optimal vertex or remap replaced, a signature or privacy set misread, a wrong α. A mutant of a
single claim is registered beside that claim's checks (``mechlib/proofs/<paper>/<claim>.py``).

Each swap names the original object and its replacement; a mutant is listed only for the claims
it really falsifies (the mutation run shows each of them killed).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mechlib.core import families, post_processing, privacy, signature
from mechlib.core.exact import ExactNumber, parse_probability
from mechlib.infodesign import alpha as alpha_module
from mechlib.infodesign import info_structure, privacy_sets
from mechlib.infodesign.decision import DecisionProblem
from mechlib.optimality import optimal
from mechlib.proofs.mutants import Attr, module_constant, never_violated, register
from mechlib.proofs.registry import Outcome, Record

_REAL_T = families.truncated_geometric


def _rr_in_place_of_t(alpha: ExactNumber, n: int) -> Any:
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


T_RR_KILLS = (
    "GRS-B", "GRS-C3.4", "GRS-E2.2", "GRS-F4", "GRS-L5.10", "GRS-L5.12", "GRS-LP", "DOM", "GS-T1a",
    "GRS-T3.2", "GS-T2", "GS-Tab1", "GS-T1b",
)  # fmt: skip
T_NOISIER_KILLS = (*T_RR_KILLS, "GRS-EA.1", "GRS-TA.2")

register("T → randomized response", "non-universal mechanism in place of T", T_RR_KILLS,
         lambda: [(_REAL_T, _rr_in_place_of_t)])  # fmt: skip
register("T → T at (1+α)/2", "noisier mechanism in place of T", T_NOISIER_KILLS,
         lambda: [(_REAL_T, _noisier_t)])  # fmt: skip
register("optimal vertex → randomized response", "non-universal mechanism in place of T",
         ("GRS-L5.5", "GRS-L5.8", "GRS-L5.9", "GRS-L5.10"), lambda: [(_REAL_OPTIMUM, _optimum_is_rr)])  # fmt: skip
register("signature read upside down", "changed statement",
         ("GRS-L5.5", "GRS-L5.6", "GRS-L5.9", "GRS-L5.10", "GRS-F3"),
         lambda: [(_REAL_SIGNATURE, _upside_down_signature)])  # fmt: skip
register("privacy sets without their inequality", "flipped inequality", ("SY-P3", "SY-T1", "SY-P4"),
         lambda: [(_REAL_RATIO, never_violated)])  # fmt: skip
register("τ^g → randomized response on Ω", "non-universal mechanism in place of T",
         ("SY-L1", "SY-L2", "SY-E2", "SY-T3", "SY-T4"),
         lambda: [(_REAL_GEOMETRIC_STRUCTURE, _uniform_rr_structure)])  # fmt: skip


def _wrong_kms(_real: Any) -> Any:
    def kms(m: int, alpha: Any) -> list[list[Any]]:
        return [[alpha ** (abs(i - j) + (i != j)) for j in range(m)] for i in range(m)]

    return kms


register("G′ with α^(|i−j|+1) off the diagonal", "changed statement", ("GS-L1", "GS-L2"),
         module_constant("mechlib.proofs.shared.symbolic", "kms", _wrong_kms))  # fmt: skip


def _face_value_remap(mechanism: Any, user: Any) -> Any:
    """The 'optimal' remap replaced by face value (each output read as the nearest count)."""
    from mechlib.core.remap import Remap

    n = user.n
    return Remap.deterministic(lambda r: min(max(r, 0), n), mechanism.outputs, range(n + 1))


def _reversed_remap(mechanism: Any, user: Any) -> Any:
    """The 'optimal' remap with every guess g replaced by n − g (a deterministic remap, usually bad)."""
    from mechlib.core.remap import Remap

    best = _REAL_REMAP(mechanism, user)
    n = user.n
    return Remap.deterministic(lambda r: n - best.as_mapping()[r], mechanism.outputs, range(n + 1))


def _squared_level(mechanism: Any) -> Any:
    """The DP level read as α² (a wrong α: every mechanism looks more private than it is)."""
    from mechlib.core.privacy import DPLevel

    real = _REAL_DP_LEVEL(mechanism)
    return DPLevel(real.alpha * real.alpha, real.witness)


def _flipped_sign(self: Any, p: Any) -> int:
    return -int(_REAL_SIGN(self, p))


def _noisier_geometric(alpha: object, n: int, *, margin: int | None = None) -> Any:
    a = parse_probability(alpha)
    return _REAL_GEOMETRIC((1 + a) / 2 if a < 1 else Fraction(1), n, margin=margin)


_REAL_REMAP = post_processing.optimal_remap
_REAL_DP_LEVEL = privacy.dp_level
_REAL_SIGN = alpha_module.Alpha.sign
_REAL_GEOMETRIC = families.geometric

register("optimal remap → face value", "changed statement",
         ("GRS-E2.3", "GRS-R2.3", "GRS-TA.2", "GRS-LP", "GRS-C3.3"),
         lambda: [(_REAL_REMAP, _face_value_remap)])  # fmt: skip
register("DP level read as α²", "wrong α",
         ("GS-D2", "GRS-E2.2", "GRS-L5.2", "GS-AB", "GS-LP", "GS-L5", "GRS-L5.8"),
         lambda: [(_REAL_DP_LEVEL, _squared_level)])  # fmt: skip
register("signs at α flipped", "flipped inequality",
         ("SY-P2", "SY-P5", "SY-E2", "SY-F1", "SY-P3", "SY-T3", "SY-T2", "SY-L1", "SY-L2", "SY-T1", "SY-P4"),
         lambda: [(Attr(alpha_module.Alpha, "sign"), _flipped_sign)])  # fmt: skip
register("geometric → geometric at (1+α)/2", "noisier mechanism in place of T", ("GRS-E2.3", "GRS-C3.3"),
         lambda: [(_REAL_GEOMETRIC, _noisier_geometric)])  # fmt: skip

register("T⁻¹'s interior diagonal → (1+α)/(1−α)²", "changed statement", ("GS-T2", "GS-L3", "GS-L2"),
         module_constant("mechlib.proofs.shared.definitions", "INTERIOR",
                         lambda real: (real[0], lambda a: 1 + a)))  # fmt: skip


def _exact_count(x: Any) -> Any:
    """The 'averaged' mechanism replaced by the exact count (not DP at all)."""
    from mechlib.core.mechanism import Mechanism

    n = len(x.inputs[0])
    return Mechanism([[int(i == j) for j in range(n + 1)] for i in range(n + 1)])


def _slack_read_as(symbol: str) -> Callable[[Any], Any]:
    """The signature with every S entry read as ``symbol`` (↓ or ↑)."""

    def swap(real: Any) -> Any:
        def sig(mechanism: Any, alpha: object) -> Any:
            found = real(mechanism, alpha)
            rows = tuple(tuple(symbol if s == signature.SLACK else s for s in row) for row in found.rows)
            return signature.Signature(found.alpha, found.outputs, rows)

        return sig

    return swap


register("the average over databases → the exact count", "non-universal mechanism in place of T",
         ("GRS-P6.1", "GS-AA"),
         module_constant("mechlib.proofs.shared.oblivious", "averaged", lambda _: _exact_count))  # fmt: skip

register("the signature's S read as ↓", "changed statement",
         ("GRS-L5.3", "GRS-L5.4", "GRS-L5.6", "GRS-F3", "GRS-L5.10"),
         module_constant("mechlib.core.signature", "signature", _slack_read_as(signature.DOWN)))  # fmt: skip


def _non_supermodular_cases(_real: Any) -> Any:
    def cases(supermodular: bool | None = True) -> Any:
        from hypothesis import strategies as st

        from mechlib.proofs.shared.uprr import grs_appendix_b_case

        return st.just(grs_appendix_b_case())

    return cases


register("supermodular payoffs → GRS App. B's payoff", "illegal loss", ("SY-T3", "SY-T4"),
         module_constant("mechlib.proofs.shared.uprr", "_supermodular_case", _non_supermodular_cases))  # fmt: skip


register("optimal remap → guesses reversed", "changed statement", ("GRS-EA.1", "GRS-R2.3", "GRS-L5.2"),
         lambda: [(_REAL_REMAP, _reversed_remap)])  # fmt: skip


def _mean_over_all(x: Any) -> Any:
    """The 'average over databases with the same count' replaced by the mean over all databases."""
    from mechlib.core.mechanism import Mechanism

    n = len(x.inputs[0])
    mean = [sum(col, Fraction(0)) / len(x.rows) for col in zip(*x.rows)]
    return Mechanism([mean] * (n + 1))


def _drop_first(real: Any) -> Any:
    def fewer(*args: Any) -> Any:
        return real(*args)[1:]

    return fewer


register("the average over databases → the mean over all databases", "changed statement", ("GRS-P6.1", "GS-AA"),
         module_constant("mechlib.proofs.shared.oblivious", "averaged", lambda _: _mean_over_all))  # fmt: skip
register("the signature's S read as ↑", "changed statement", ("GRS-L5.3", "GRS-L5.4"),
         module_constant("mechlib.core.signature", "signature", _slack_read_as(signature.UP)))  # fmt: skip


def _looser_k_omega(real: Any) -> Any:
    def constraints(mu: Any, mu0: Any, alpha: Any, t_max: int) -> Any:
        return real(mu, mu0, alpha * alpha, t_max)  # K_Ω at α² ⊋ K_Ω at α: a wrong α

    return constraints


register("K_Ω's constraints at α²", "wrong α", ("SY-T1", "SY-T2", "SY-P4"),
         module_constant("mechlib.proofs.shared.privacy_set_smt", "k_omega_constraints", _looser_k_omega))  # fmt: skip


def _minimax_optimum_is_rr(real: Any) -> Any:
    def optimum(user: Any, alpha: object) -> Any:
        from mechlib.optimality.minimax import MinimaxOptimum

        best = real(user, alpha)
        rr = families.randomized_response(best.alpha, user.n + 1)
        return MinimaxOptimum(rr, best.value, best.weights, best.dual, best.alpha)

    return optimum


_REAL_VALUE = DecisionProblem.value


def _negated_value(self: Any, tau: Any, alpha: Any) -> Any:
    num, scale = _REAL_VALUE(self, tau, alpha)
    return -num, scale


register("the minimax optimum → randomized response", "non-universal mechanism in place of T",
         ("GS-LP", "GS-L5", "GS-Tab1"),
         module_constant("mechlib.optimality.minimax", "optimal_minimax_mechanism",
                          _minimax_optimum_is_rr))  # fmt: skip
register("decision values negated", "changed statement", ("SY-T3", "SY-T4"),
         lambda: [(Attr(DecisionProblem, "value"), _negated_value)])  # fmt: skip


def _design_at_alpha_squared(real: Any) -> Any:
    def design(space: Any, prior: Any, problem: Any, alpha: Any) -> Any:
        return real(space, prior, problem, alpha_module.Alpha.of(alpha.rational**2))  # vertices of K(α²)

    return design


def _constraints_dropped(real: Any) -> Any:
    def constraints(*args: Any) -> list[bool]:
        return [True for _ in real(*args)]  # every bound of K_Ω reads as satisfied

    return constraints


register("optimal designs over K at α²", "wrong α", ("SY-P2", "SY-P5"),
         module_constant("mechlib.infodesign.designer", "optimal_design", _design_at_alpha_squared))  # fmt: skip
register("K_Ω's constraints dropped", "flipped inequality", ("SY-AA", "SY-T1", "SY-T2", "SY-P4"),
         module_constant("mechlib.proofs.shared.privacy_set_smt", "k_omega_constraints",
                         _constraints_dropped))  # fmt: skip


#: Candidates measured and not (yet) killing any claim check: kept for the next round. The two
#: "loses a vertex" survive SY-P2, P5, T2 and AA: those checks take the vertex enumeration on
#: trust (its completeness is tested against brute-force basis enumeration in the tests only).
CANDIDATES: dict[str, tuple[str, Any]] = {
    "K_Ω loses a vertex": (
        "changed statement",
        lambda: [(privacy_sets.k_omega_vertices, _drop_first(privacy_sets.k_omega_vertices))],
    ),
    "K loses a vertex": (
        "changed statement",
        lambda: [(privacy_sets.k_vertices, _drop_first(privacy_sets.k_vertices))],
    ),
    "≥ at α flipped": ("flipped inequality", lambda: [(Attr(alpha_module.Alpha, "at_least"), _flipped_at_least)]),
}


def _outside_hypothesis(real: Any) -> Any:
    from mechlib.proofs.shared.uprr import _supermodular_case

    return lambda: _supermodular_case(supermodular=False)


register("SY-T3/T4's fuzz draws non-supermodular payoffs", "fuzz draw outside the hypothesis", ("SY-T3", "SY-T4"),
         module_constant("mechlib.proofs.shared.uprr", "supermodular_cases", _outside_hypothesis))  # fmt: skip


def _outcome_without_record(self: Record, outcome: Outcome, method: str, **_how: Any) -> Outcome:
    return outcome  # the verdict as decided, its record of what ran thrown away


register("a part's verdict returned without the record of what it ran", "verdict without its record",
         ("GRS-B", "GS-AA", "GS-T1a", "SY-E2"),
         lambda: [(Attr(Record, "outcome"), _outcome_without_record)])  # fmt: skip
register("GRS-F4's α emptied: the part checks nothing", "verdict without its record", ("GRS-F4",),
         module_constant("mechlib.proofs.shared.grs_instances", "ALPHAS", lambda _: ()))  # fmt: skip
