"""The registered mutants of every claim (see :mod:`proofs.mutants`), grouped by what they falsify.

Each swap names the original object and its replacement; a mutant is listed only for the claims
it really falsifies (the mutation run shows each of them killed).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mechlib import strategies
from mechlib.core import families, post_processing, privacy, signature
from mechlib.core.exact import parse_probability
from mechlib.infodesign import alpha as alpha_module
from mechlib.infodesign import info_structure, privacy_sets, school_planning
from mechlib.infodesign.decision import DecisionProblem
from mechlib.optimality import optimal
from proofs.mutants import Attr, Swap, register

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


def _illegal_losses_strategy() -> list[Swap]:
    """Legal losses replaced by illegal ones (some row cheaper farther from the truth, GRS §2.2),
    drawn from the real legal strategy (so the replacement does not call itself)."""
    from hypothesis import strategies as st

    real = strategies.legal_losses

    @st.composite
    def illegal(draw: st.DrawFn, n: int, strict: bool = False) -> Any:
        rows = [list(r) for r in draw(real(n, strict)).matrix]
        i = draw(st.integers(0, n))
        j = draw(st.sampled_from([k for k in range(n + 1) if k != i]))
        nearer = j - 1 if j > i else j + 1
        rows[i][nearer] = rows[i][j] + draw(st.integers(1, 3))
        from mechlib.core.users import Loss

        return Loss(rows)

    return [(real, illegal)]


def _perturbed(matrix: Any, row: int = 1) -> Any:
    """The printed matrix with one row's first two entries moved by 1/36 (still stochastic)."""
    from mechlib.core.mechanism import Mechanism

    rows = [list(r) for r in matrix.rows]
    rows[row][0] += Fraction(1, 36)
    rows[row][1] -= Fraction(1, 36)
    return Mechanism(rows)


def _module_constant(module: str, name: str, replacement: Callable[[Any], Any]) -> Callable[[], list[Swap]]:
    def swap() -> list[Swap]:
        import importlib

        original = getattr(importlib.import_module(module), name)
        return [(original, replacement(original))]

    return swap


T_RR_KILLS = (
    "GRS-B", "GRS-C3.4", "GRS-E2.2", "GRS-F4", "GRS-L5.10", "GRS-L5.12", "GRS-LP", "DOM", "GS-T1a",
    "GRS-T3.2", "GS-T2", "GS-Tab1", "GS-T1b",
)  # fmt: skip
T_NOISIER_KILLS = (*T_RR_KILLS, "GRS-EA.1")

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
         lambda: [(_REAL_RATIO, _never_violated)])  # fmt: skip
register("τ^g → randomized response on Ω", "non-universal mechanism in place of T",
         ("SY-L1", "SY-L2", "SY-E2", "SY-T3", "SY-T4"),
         lambda: [(_REAL_GEOMETRIC_STRUCTURE, _uniform_rr_structure)])  # fmt: skip

register("legal losses → illegal losses", "illegal loss", ("GRS-L5.5", "GRS-TA.2", "GRS-L5.10", "GRS-LP"),
         _illegal_losses_strategy)  # fmt: skip
register("GS App. B perturbed", "perturbed figure", ("GS-AB",),
         _module_constant("proofs.certified_examples", "GS_APPENDIX_B", _perturbed))  # fmt: skip
register("GRS Figure 5(a) perturbed", "perturbed figure", ("GRS-B",),
         _module_constant("proofs.certified_examples", "GRS_FIGURE_5A", _perturbed))  # fmt: skip
UNIFORM_4 = tuple(Fraction(1, 4) for _ in range(4))
register("SY Figure 1's prior → uniform", "perturbed figure", ("SY-F1",),
         _module_constant("proofs.sy_privacy_sets", "SY_F1_PRIOR", lambda _: UNIFORM_4))  # fmt: skip


def _bn_trees(edges: Any, k: int) -> bool:
    return len(edges) == k - 1  # connected graphs: the trees (the star too)


def _bn_degree_two(edges: Any, k: int) -> bool:
    return all(sum(v in e for e in edges) <= 2 for v in range(k))  # paths and cycles


register("Brenner–Nissim's paths → trees", "changed statement", ("BN-path",),
         _module_constant("proofs.smt_claims", "BN_CONDITION", lambda _: _bn_trees))  # fmt: skip
register("Brenner–Nissim's paths → degree ≤ 2 (cycles too)", "changed statement", ("BN-path",),
         _module_constant("proofs.smt_claims", "BN_CONDITION", lambda _: _bn_degree_two))  # fmt: skip


def _wrong_kms(_real: Any) -> Any:
    def kms(m: int, alpha: Any) -> list[list[Any]]:
        return [[alpha ** (abs(i - j) + (i != j)) for j in range(m)] for i in range(m)]

    return kms


def _swapped_t_alpha_beta(real: Any) -> Any:
    def t_alpha_beta(n: int) -> Any:
        from proofs.symbolic_claims import ALPHA, BETA

        return real(n).subs({ALPHA: BETA, BETA: ALPHA}, simultaneous=True)

    return t_alpha_beta


register("G′ with α^(|i−j|+1) off the diagonal", "changed statement", ("GS-L1", "GS-L2"),
         _module_constant("proofs.symbolic_claims", "kms", _wrong_kms))  # fmt: skip
register("T_{α,β} with α and β swapped", "wrong α", ("GS-L3",),
         _module_constant("proofs.symbolic_claims", "t_alpha_beta_symbolic", _swapped_t_alpha_beta))  # fmt: skip


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

register("exponent step between neighbouring rows → 2", "changed statement", ("GRS-E2.2", "GRS-E2.1"),
         _module_constant("proofs.parametric", "STEP", lambda real: (real[0], 2)))  # fmt: skip
register("corner of G′ → 1 − α³", "changed statement", ("GS-L1",),
         _module_constant("proofs.parametric", "CORNER", lambda real: (real[0], 3)))  # fmt: skip

register("T⁻¹'s interior diagonal → (1+α)/(1−α)²", "changed statement", ("GS-T2", "GS-L3", "GS-L2"),
         _module_constant("proofs.parametric", "INTERIOR", lambda real: (real[0], lambda a: 1 + a)))  # fmt: skip


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
         _module_constant("proofs.database_claims", "averaged", lambda _: _exact_count))  # fmt: skip
register("Figure 6(b) → Figure 6(a)", "perturbed figure", ("GRS-C",),
         _module_constant("proofs.smt_claims", "FIGURE_6", lambda real: {"a": real["a"], "b": real["a"]}))  # fmt: skip

register("the signature's S read as ↓", "changed statement",
         ("GRS-L5.3", "GRS-L5.4", "GRS-L5.6", "GRS-F3", "GRS-L5.10"),
         _module_constant("mechlib.core.signature", "signature", _slack_read_as(signature.DOWN)))  # fmt: skip

register("posteriors never leave K", "flipped inequality", ("SY-E4",),
         lambda: [(privacy_sets.k_violation, _never_violated)])  # fmt: skip


def _non_supermodular_cases(_real: Any) -> Any:
    def cases(supermodular: bool | None = True) -> Any:
        from hypothesis import strategies as st

        from proofs.sy_uprr import grs_appendix_b_case

        return st.just(grs_appendix_b_case())

    return cases


register("supermodular payoffs → GRS App. B's payoff", "illegal loss", ("SY-T3", "SY-T4"),
         _module_constant("proofs.sy_uprr", "_supermodular_case", _non_supermodular_cases))  # fmt: skip

register("Brenner–Nissim's paths → no graph", "changed statement", ("BN-path",),
         _module_constant("proofs.smt_claims", "BN_CONDITION", lambda _: lambda _edges, _k: False))  # fmt: skip

register("optimal remap → guesses reversed", "changed statement", ("GRS-EA.1", "GRS-R2.3", "GRS-L5.2"),
         lambda: [(_REAL_REMAP, _reversed_remap)])  # fmt: skip


def _database_mechanism_class() -> Any:
    from mechlib.infodesign.database_mechanisms import DatabaseMechanism

    return DatabaseMechanism


def _database_dp_never_violated(self: Any, alpha: Any) -> None:
    return None


register("mechanisms on databases never violate DP", "flipped inequality", ("SY-E4",),
         lambda: [(Attr(_database_mechanism_class(), "dp_violation"), _database_dp_never_violated)])  # fmt: skip

register("the geometric noise's normaliser → 1 − α", "changed statement", ("GRS-E2.1",),
         _module_constant("proofs.symbolic_claims", "NORMALISER", lambda real: (real[0], lambda a: 1 - a)))  # fmt: skip
register("Figure 6(a) → Figure 6(b)", "perturbed figure", ("GRS-C",),
         _module_constant("proofs.smt_claims", "FIGURE_6", lambda real: {"a": real["b"], "b": real["b"]}))  # fmt: skip


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
         _module_constant("proofs.database_claims", "averaged", lambda _: _mean_over_all))  # fmt: skip
register("the signature's S read as ↑", "changed statement", ("GRS-L5.3", "GRS-L5.4"),
         _module_constant("mechlib.core.signature", "signature", _slack_read_as(signature.UP)))  # fmt: skip


def _looser_k_omega(real: Any) -> Any:
    def constraints(mu: Any, mu0: Any, alpha: Any, t_max: int) -> Any:
        return real(mu, mu0, alpha * alpha, t_max)  # K_Ω at α² ⊋ K_Ω at α: a wrong α

    return constraints


register("K_Ω's constraints at α²", "wrong α", ("SY-T1", "SY-T2", "SY-P4"),
         _module_constant("proofs.sy_claims", "k_omega_constraints", _looser_k_omega))  # fmt: skip


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


def _one_direction(a: Any, u: Any, v: Any) -> bool:
    return bool(a * u <= v)


register("GS's two-term conditions, one direction only", "flipped inequality", ("GS-D2",),
         _module_constant("proofs.certified_examples", "TWO_TERM", lambda real: (real[0], _one_direction)))  # fmt: skip
register("the minimax optimum → randomized response", "non-universal mechanism in place of T",
         ("GS-LP", "GS-L5", "GS-Tab1"),
         _module_constant("mechlib.optimality.minimax", "optimal_minimax_mechanism",
                          _minimax_optimum_is_rr))  # fmt: skip
register("decision values negated", "changed statement", ("SY-T3", "SY-T4"),
         lambda: [(Attr(DecisionProblem, "value"), _negated_value)])  # fmt: skip


def _design_at_alpha_squared(real: Any) -> Any:
    def design(space: Any, prior: Any, problem: Any, alpha: Any) -> Any:
        return real(space, prior, problem, alpha_module.Alpha.of(alpha.rational**2))  # vertices of K(α²)

    return design


def _not_symmetrized(self: Any) -> Any:
    return self


def _uniform_phi(_real: Any) -> Any:
    def phi(alpha: Any) -> Any:
        from proofs.sy_claims import ORDER_A

        return dict.fromkeys(ORDER_A, 1)  # π̂ = π₀: the married respondents' posterior never moves

    return phi


def _constraints_dropped(real: Any) -> Any:
    def constraints(*args: Any) -> list[bool]:
        return [True for _ in real(*args)]  # every bound of K_Ω reads as satisfied

    return constraints


def _rejecting_checker(_certificate: Any) -> list[str]:
    return ["the bracket certificate is rejected (mutant)"]


register("optimal designs over K at α²", "wrong α", ("SY-P2", "SY-P5"),
         _module_constant("mechlib.infodesign.designer", "optimal_design", _design_at_alpha_squared))  # fmt: skip
register("the symmetrisation → the mechanism itself", "changed statement", ("SY-P5",),
         lambda: [(Attr(_database_mechanism_class(), "symmetrized"), _not_symmetrized)])  # fmt: skip
register("φ → 1 (π̂ = π₀)", "changed statement", ("SY-AA",),
         _module_constant("proofs.sy_claims", "phi", _uniform_phi))  # fmt: skip
register("K_Ω's constraints dropped", "flipped inequality", ("SY-AA", "SY-T1", "SY-T2", "SY-P4"),
         _module_constant("proofs.sy_claims", "k_omega_constraints", _constraints_dropped))  # fmt: skip
register("SY Example 1's printed figures → the certified values", "changed statement", ("SY-E1",),
         lambda: [(school_planning.PAPER_GEOMETRIC, "3.23"), (school_planning.PAPER_OPTIMUM, "2.32")])  # fmt: skip
register("the bracket certificate checker rejects every certificate", "rejected certificate", ("SY-E1",),
         _module_constant("mechlib.checkers.bracket_certificate", "check_certificate",
                          lambda _: _rejecting_checker))  # fmt: skip


def _swapped_figure_6_prior(real: Any) -> Any:
    def prior(user: str) -> Any:
        return real("b" if user == "a" else "a")

    return prior


register("GRS App. C's two users exchanged", "changed statement", ("GRS-C",),
         _module_constant("proofs.smt_claims", "figure_6_prior", _swapped_figure_6_prior))  # fmt: skip
register("GRS App. C's ε → 1/4 (the two users coincide)", "changed statement", ("GRS-C",),
         _module_constant("proofs.smt_claims", "FIGURE_6_EPSILON", lambda _: Fraction(1, 4)))  # fmt: skip

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
