"""SY-F1 (SY Figure 1): N=2, ε=1, π0=(1/3,1/6,1/6,1/3): K and K_Ω as drawn.

Every check part of this claim is here (``mechlib verify --only SY-F1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib.infodesign.alpha import Alpha, Poly, X, const, poly_sum
from mechlib.infodesign.databases import DatabaseSpace
from mechlib.infodesign.privacy_sets import k_omega_vertices, k_vertices
from mechlib.proofs.catalogue import EXACT
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, check, decide
from mechlib.proofs.shared.privacy_set_instances import lifts_fail, projection_escapes


def _poly_text(p: Poly) -> str:
    return str(p).replace("x", "α")


#: SY Figure 1 (N = 2, π₀ = (1/3, 1/6, 1/6, 1/3)): each vertex is π₀·α^g, g read off the figure as
#: exponents over (00, 01, 10, 11) — around the 4-cycle 00–01–11–10 every edge is tight, two up and
#: two down: the six corners drawn. K_Ω's four (Corollary 4): μ₀·(1, α^±1, α^(±1±1)) over ω = 0, 1, 2.
#: Exponents are shifted so the smallest is 0. The check computes from SY_F1_PRIOR and compares
#: with the figure's own data (a separate object, so a mutated instance cannot rewrite the figure).
FIGURE_1_PRIOR = (Fraction(1, 3), Fraction(1, 6), Fraction(1, 6), Fraction(1, 3))  # as printed


FIGURE_1_K = {(0, 1, 1, 2), (2, 1, 1, 0), (1, 0, 2, 1), (1, 2, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1)}


FIGURE_1_K_OMEGA = {(0, 1, 2), (2, 1, 0), (0, 1, 0), (1, 0, 1)}


SY_F1_PRIOR = tuple(Fraction(x) for x in ("1/3", "1/6", "1/6", "1/3"))


SY_F1_EPSILON = Fraction(1)


def _exponents_of(vertex: list[Poly], weights: list[Fraction]) -> tuple[int, ...] | None:
    """g with vertex = weights·α^g exactly (shifted to min 0), or None if some entry is not such a
    monomial."""
    powers = []
    for p, w in zip(vertex, weights):
        k = p.degree()
        if k < 0 or p != const(w) * X**k:
            return None
        powers.append(k)
    low = min(powers)
    return tuple(k - low for k in powers)


@check("SY-F1", kind=EXACT)
def figure_one_sets() -> Outcome:
    """N = 2, ε = 1 exactly (α = e^−1), π₀ = (1/3, 1/6, 1/6, 1/3): K has 6 vertices and K_Ω the 4
    of Corollary 4, ∝ (1, α^±1, α^(±1±1)); PK = K_Ω (Figure 4); no bound links (0,0) and (1,1)."""
    space = DatabaseSpace(2, 1)
    prior = dict(zip(space.thetas, SY_F1_PRIOR))
    alpha = Alpha.exp(SY_F1_EPSILON)
    k_ext = k_vertices(space, prior)
    mu0 = space.project(prior, Fraction(0))
    omega_ext = k_omega_vertices(mu0, 1)
    failures: list[dict[str, Any]] = []
    drawn_mu0 = [FIGURE_1_PRIOR[0], FIGURE_1_PRIOR[1] + FIGURE_1_PRIOR[2], FIGURE_1_PRIOR[3]]
    k_drawn = {_exponents_of([v[t] for t in space.thetas], list(FIGURE_1_PRIOR)) for v in k_ext}
    omega_drawn = {_exponents_of(v, drawn_mu0) for v in omega_ext}
    if k_drawn != FIGURE_1_K or len(k_ext) != len(FIGURE_1_K):
        failures.append({"ext K": sorted(map(str, k_drawn)), "figure": sorted(map(str, FIGURE_1_K))})
    if omega_drawn != FIGURE_1_K_OMEGA or len(omega_ext) != len(FIGURE_1_K_OMEGA):
        failures.append({"ext K_Ω": sorted(map(str, omega_drawn)), "figure": sorted(map(str, FIGURE_1_K_OMEGA))})
    if projection_escapes(space, prior, alpha) or lifts_fail(space, prior, alpha):
        failures.append({"problem": "PK ≠ K_Ω"})
    if ((0, 0), (1, 1)) in space.adjacent_pairs:
        failures.append({"problem": "(0,0) and (1,1) adjacent"})
    norm = [poly_sum(v) for v in omega_ext]
    evidence = {
        "alpha": "e^-1 (exact: signs of polynomials in α decided by transcendence + arb)",
        "ext K_Ω (∝, ω = 0,1,2)": [[_poly_text(m * 3) for m in v] for v in omega_ext],
        "ext K (∝ over 00, 01, 10, 11)": [[_poly_text(v[t] * 6) for t in space.thetas] for v in k_ext],
        "ext K_Ω normalisers at e^-1": [alpha.value(z) for z in norm],
    }
    record = Record.one(space.n, str(alpha), f"Figure 1's prior, T = {space.t}", size="N")
    method = "exact: the vertices of K and K_Ω (signs of polynomials in α by transcendence + arb), PK = K_Ω"
    return record.outcome(decide(failures, evidence), method)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


UNIFORM_4 = tuple(Fraction(1, 4) for _ in range(4))


register("SY Figure 1's prior → uniform", "perturbed figure", ("SY-F1",),
         module_constant(__name__, "SY_F1_PRIOR", lambda _: UNIFORM_4))  # fmt: skip
