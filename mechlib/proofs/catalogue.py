"""Every claim of ../shared/CLAIMS.md: ID, paper, location, statement, kind of check, owner.

The single source of claim metadata; checks attach to an ID with ``mechlib.proofs.registry.check``.
``owner`` names the body of work that decides a claim still pending (reported with UNKNOWN).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Strength(StrEnum):
    """How much a passing check shows, weakest last."""

    ALL_N = "ALL-n"  # a parametric proof: every n (and the α range stated)
    BOUNDED = "BOUNDED"  # every n up to a bound
    INSTANCES = "INSTANCES"  # the listed instances, exactly
    SAMPLED = "SAMPLED"  # random examples: no counterexample found


RANK = {Strength.SAMPLED: 0, Strength.INSTANCES: 1, Strength.BOUNDED: 2, Strength.ALL_N: 3}

SMT, SYM, EXACT, FUZZ = "SMT", "SYM", "EXACT", "FUZZ"
PROOFS, FUZZING, INFO_DESIGN = "the SMT/symbolic proofs", "the fuzzing work", "the information-design work"


@dataclass(frozen=True)
class ClaimInfo:
    id: str
    paper: str
    location: str
    statement: str
    kinds: tuple[str, ...]
    owner: str
    target: Strength


#: Claims that can be proved for every n (GRS Example 2.1–2.3, GS Lemmas 1 and 3, Theorem 2: local
#: identities on a tridiagonal T⁻¹); the parametric proofs are the "proofs for every n" work.
ALL_N_TARGETS = {"GRS-E2.1", "GRS-E2.2", "GRS-E2.3", "GS-L1", "GS-T2", "GS-L3"}
#: ∀X∃Y statements decided up to a bound on n (CLAIMS.md note 1), and GRS §5's lemmas, decided for
#: every α-DP mechanism and every (full-support, strictly) legal user up to a bound on n: by the
#: remap cells (GRS-LP) or every vertex of the α-DP polytope (L5.3–L5.10, GS-L5 for every monotone
#: minimax user); SY-T4 for every supermodular problem and every oblivious α-DP mechanism below τ^g.
BOUNDED_TARGETS = {
    "GRS-T3.2", "DOM", "GS-T1b", "GRS-LP", "GRS-L5.3", "GRS-L5.4", "GRS-L5.5", "GRS-L5.6", "GRS-L5.8", "GRS-L5.9",
    "GRS-L5.10", "GS-L5", "SY-T4",
}  # fmt: skip


def _target(id: str, kinds: tuple[str, ...]) -> Strength:
    if id in ALL_N_TARGETS:
        return Strength.ALL_N
    if id in BOUNDED_TARGETS:
        return Strength.BOUNDED
    return Strength.SAMPLED if kinds == (FUZZ,) else Strength.INSTANCES


def _c(id: str, location: str, statement: str, kinds: str, owner: str = PROOFS) -> ClaimInfo:
    paper = id.split("-")[0] if "-" in id and id.split("-")[0] in {"GRS", "GS", "SY"} else "other"
    kind_list = tuple(kinds.split("+"))
    return ClaimInfo(id, paper, location, statement, kind_list, owner, _target(id, kind_list))


CATALOGUE: dict[str, ClaimInfo] = {
    c.id: c
    for c in [
        _c(
            "GRS-E2.1",
            "Example 2.1",
            "The two-sided geometric noise (1−α)/(1+α)·α^|δ| sums to 1 and the α-geometric mechanism is α-DP",
            "SYM+SMT",
        ),
        _c(
            "GRS-E2.2",
            "Example 2.2, Figure 1",
            "T is α-DP (exactly α); Figure 1(a),(b) (α=1/2, n=5) entries exactly",
            "EXACT+SMT",
        ),
        _c(
            "GRS-E2.3",
            "Example 2.3",
            "n odd, binary loss, prior p0=pn=1/2: face value loses 2α/(1+α); the threshold remap α^((n+1)/2)/(1+α)",
            "EXACT+SYM",
        ),
        _c(
            "GRS-R2.3",
            "§2.3",
            "The optimal remap is deterministic (posterior then argmin) and equals the best randomized remap",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c("GRS-T3.2", "Theorem 3.2", "X is universally utility-maximizing ⇔ some remap Y has Y∘X = T", "SMT+FUZZ"),
        _c(
            "GRS-C3.3",
            "Corollary 3.3",
            "The geometric and truncated geometric mechanisms are universally utility-maximizing",
            "FUZZ+SMT",
            FUZZING,
        ),
        _c(
            "GRS-C3.4",
            "Corollary 3.4, §5.8",
            "With range N, the universally utility-maximizing mechanisms are exactly π∘T",
            "SMT+EXACT",
        ),
        _c(
            "GRS-L5.2",
            "Lemma 5.2",
            "Direct mechanisms suffice: Y∘X is DP and direct for an optimal Y",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c(
            "GRS-LP",
            "§5.2, LP (3)–(7)",
            "The user LP's optimum equals the loss of the optimal remap of T for every legal user",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c(
            "GRS-F3",
            "Figure 3",
            "n=5, α=1/2, prior (1/4,0,1/4,0,1/4,1/4), loss |i−j|^1.5: the printed matrix is optimal; Figure 3(b) is its signature",
            "EXACT",
        ),
        _c("GRS-F4", "Figure 4", "The signature of T for n=5: row i is ↓ in columns 0..i and ↑ after", "EXACT"),
        _c(
            "GRS-L5.3",
            "Lemma 5.3",
            "No signature column mixes 0 and non-0; no row is all ↓/0 or all ↑/0",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c("GRS-L5.4", "Lemma 5.4", "Same signature ⇔ same binding constraints", "EXACT+FUZZ", FUZZING),
        _c(
            "GRS-L5.5",
            "Lemma 5.5",
            "Full-support prior + strictly legal loss ⇒ optimal direct mechanisms have unimodal signatures",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c(
            "GRS-L5.6",
            "Lemma 5.6",
            "…and the rows of the signature are ordered (monotone structure)",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c("GRS-L5.8", "Lemma 5.8", "At an optimal vertex, #S entries ≤ #zero columns", "EXACT+FUZZ", FUZZING),
        _c("GRS-L5.9", "Lemma 5.9", "Column structure P1–P3 at an optimal vertex", "EXACT+FUZZ", FUZZING),
        _c(
            "GRS-L5.10",
            "Lemma 5.10",
            "Every optimal vertex is a deterministic remap of T, built from its signature",
            "EXACT+FUZZ",
            FUZZING,
        ),
        _c(
            "GRS-L5.12",
            "Lemma 5.12",
            "Uniform prior, loss 0 if i=j else 1+γ|j−i|: T is the unique optimal direct mechanism",
            "EXACT",
            FUZZING,
        ),
        _c(
            "GRS-P6.1",
            "Proposition 6.1",
            "Averaging a DP mechanism over databases with the same count gives an oblivious DP mechanism, no worse in the worst case",
            "EXACT",
        ),
        _c(
            "GRS-EA.1",
            "Example A.1",
            "α=1/2, n=1, uniform prior, binary loss: T loses 1/3, the Laplace mechanism 1/(2√2) ≈ 0.354",
            "SYM",
        ),
        _c(
            "GRS-TA.2",
            "Theorem A.2",
            "Rounded Laplace: P[Δ'=i] = (1+α)/(2√α)·P[Δ=i] for i≠0; Laplace is (1+α)/(2√α)-approximately optimal",
            "SYM+FUZZ",
        ),
        _c(
            "GRS-B",
            "Appendix B, Figure 5",
            "Figure 5(a) is a vertex, not derivable from T, optimal for the illegal loss 5(b) (LP 1/3, T 17/48)",
            "EXACT+SMT",
        ),
        _c(
            "GRS-C",
            "Appendix C, Figure 6",
            "D={0,1}, n=3, α=1/2: no mechanism remaps to both users' unique optimal mechanisms",
            "SMT",
        ),
        _c("GS-D2", "Definition 2", "DP for count queries as 2-term column conditions", "EXACT+SMT"),
        _c(
            "GS-LP",
            "§2.4.3, §2.5",
            "The optimal randomized interaction LP and the minimax optimal-mechanism LP",
            "EXACT",
        ),
        _c(
            "GS-T1a",
            "Theorem 1(a), Algorithm 1",
            "Release at α1<…<αk by successive post-processing is collusion resistant (α_min(C)-DP)",
            "EXACT",
        ),
        _c(
            "GS-T1b",
            "Theorem 1(b)",
            "Every minimax user gets from G, via its optimal randomized remap, the loss of its optimal mechanism",
            "FUZZ+SMT",
        ),
        _c("GS-L1", "Lemma 1", "det G'_{n,α} = (1−α²)^(n−1) > 0", "SYM+SMT"),
        _c(
            "GS-T2",
            "Theorem 2, Lemma 2",
            "M (α-DP) is derivable from G ⇔ G⁻¹M ≥ 0 ⇔ three-term column conditions",
            "SMT+EXACT",
        ),
        _c("GS-L2", "Lemma 2", "Cramer's-rule determinants of G with column i replaced by x", "SYM"),
        _c("GS-L3", "Lemma 3", "For α ≤ β, T_{α,β} = G_α⁻¹G_β is stochastic", "SYM+SMT"),
        _c("GS-L5", "§4.2", "Structure of an optimal minimax mechanism (adjacent rows)", "EXACT+FUZZ", FUZZING),
        _c("GS-AA", "Appendix A", "Oblivious mechanisms are w.l.o.g. for minimax users", "EXACT"),
        _c(
            "GS-AB",
            "Appendix B",
            "The matrix is 1/2-DP and not derivable from G_{3,1/2}: three-term value −0.75/9",
            "EXACT+SMT",
        ),
        _c(
            "GS-Tab1",
            "Table 1",
            "n=3, α=1/4, |i−r|, S=N: the optimal mechanism factors as G then a randomized remap",
            "EXACT",
        ),
        _c("SY-E4", "eq. (4)", "DP ⇔ every induced posterior lies in K(ε, π0)", "EXACT", INFO_DESIGN),
        _c("SY-P2", "Proposition 2", "Optimal mechanisms induce extreme points of K(ε,π0)", "EXACT", INFO_DESIGN),
        _c("SY-P3", "Proposition 3", "Oblivious mechanisms: DP ⇔ posteriors in K_Ω(ε, μ0)", "EXACT+FUZZ", INFO_DESIGN),
        _c("SY-T1", "Theorem 1", "Magnitude data (T>1): K_Ω ≠ P·K", "EXACT+SMT", INFO_DESIGN),
        _c("SY-T2", "Theorem 2", "Categorical data, symmetric prior: K_Ω = P·K", "SMT+EXACT", INFO_DESIGN),
        _c("SY-P4", "Proposition 4", "Categorical, N=2: K_Ω = P·K for any prior", "EXACT+SMT", INFO_DESIGN),
        _c(
            "SY-P5",
            "Proposition 5",
            "Anonymous respondents: permutation-invariant mechanisms are w.l.o.g.",
            "EXACT",
            INFO_DESIGN,
        ),
        _c("SY-F1", "Figure 1", "N=2, ε=1, π0=(1/3,1/6,1/6,1/3): K and K_Ω as drawn", "EXACT", INFO_DESIGN),
        _c("SY-E2", "Example 2", "The geometric mechanism UPRR-dominates the alternative τ_b", "EXACT", INFO_DESIGN),
        _c(
            "SY-L1",
            "Lemma 1",
            "Posteriors of the ε-geometric mechanism attain the bounds of K_Ω",
            "EXACT+FUZZ",
            INFO_DESIGN,
        ),
        _c(
            "SY-L2",
            "Lemma 2",
            "The geometric mechanism UPRR-dominates every oblivious ε-DP mechanism",
            "FUZZ+EXACT",
            INFO_DESIGN,
        ),
        _c(
            "SY-T3",
            "Theorem 3",
            "Anonymous respondents, supermodular payoff: the geometric mechanism is optimal",
            "FUZZ",
            INFO_DESIGN,
        ),
        _c(
            "SY-T4",
            "Theorem 4",
            "UPRR dominance ⇒ higher value in every supermodular problem",
            "EXACT+FUZZ",
            INFO_DESIGN,
        ),
        _c(
            "SY-AA",
            "Appendix A",
            "N=3 married respondents: the posterior is in K; its projection is outside K_Ω",
            "EXACT+SMT",
            INFO_DESIGN,
        ),
        _c("SY-E1", "Example 1", "School planning: geometric ≈ 3.22, best mechanism ≈ 2.48", "EXACT", INFO_DESIGN),
        _c(
            "BN-path",
            "Brenner–Nissim",
            "Only path-shaped privacy graphs admit a universally optimal mechanism (a triangle admits none)",
            "SMT",
        ),
        _c(
            "DOM",
            "CLAIMS.md note 1",
            "Every α-DP mechanism on N is dominated, for every legal user, by a post-processing of T",
            "SMT+EXACT",
        ),
    ]
}
