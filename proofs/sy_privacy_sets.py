"""EXACT parts of Schmutte–Yoder's claims on K(ε, π₀), K_Ω(ε, μ₀) and P (SY §3–4, App. C).

Every instance is decided in exact arithmetic with α = e^(−ε) either rational or e^(−1) itself
(:mod:`mechlib.infodesign.alpha`). Inclusions between polytopes are decided on vertices: a convex set lies
in a polytope iff its extreme points do, and P is linear, so PK ⊆ K_Ω iff P(ext K) ⊆ K_Ω; and
K_Ω ⊆ PK iff every vertex μ of K_Ω has a preimage in K — for an anonymous prior the oblivious
lift π(θ) = μ(ω_θ)·π₀(θ)/μ₀(ω_θ).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.infodesign.alpha import Alpha, Poly, X, const, poly_sum
from mechlib.infodesign.database_mechanisms import DatabaseMechanism
from mechlib.infodesign.databases import DatabaseSpace, Theta, exchangeable_prior, iid_prior, is_anonymous
from mechlib.infodesign.decision import DecisionProblem
from mechlib.infodesign.designer import optimal_design
from mechlib.infodesign.privacy_sets import binding_bounds, k_omega_vertices, k_omega_violation, k_vertices, k_violation
from proofs.catalogue import EXACT
from proofs.registry import Outcome, Verdict, check, decide

ALPHAS = (Alpha.of("1/2"), Alpha.of("1/3"), Alpha.exp(1))
RATIONAL_ALPHAS = ALPHAS[:2]


def _name(space: DatabaseSpace, alpha: Alpha, label: str = "") -> str:
    return f"N={space.n}, T={space.t}, α={alpha}" + (f", {label}" if label else "")


def _random_prior(space: DatabaseSpace, rng: random.Random) -> dict[Theta, Fraction]:
    """A full-support prior with no symmetry."""
    raw = {t: Fraction(rng.randint(1, 9)) for t in space.thetas}
    total = sum(raw.values())
    return {t: w / total for t, w in raw.items()}


def projection_escapes(space: DatabaseSpace, prior: dict[Theta, Fraction], alpha: Alpha) -> list[dict[str, Any]]:
    """Vertices π of K whose projection Pπ leaves K_Ω, with the violated pair (ω − t, ω)."""
    mu0 = space.project(prior, Fraction(0))
    out = []
    for v in k_vertices(space, prior):
        found = k_omega_violation(space.project(v, const(0)), mu0, space.t, alpha)
        if found is not None:
            out.append(
                {
                    "vertex (π₀·α^g)": {"".join(map(str, t)): str(p) for t, p in v.items()},
                    "pair": [found.low, found.high],
                }
            )
    return out


def lifts_fail(space: DatabaseSpace, prior: dict[Theta, Fraction], alpha: Alpha) -> list[list[str]]:
    """Vertices μ of K_Ω whose oblivious lift μ(ω_θ)π₀(θ)/μ₀(ω_θ) is not in K."""
    mu0 = space.project(prior, Fraction(0))
    failed = []
    for mu in k_omega_vertices(mu0, space.t):
        lift = {t: mu[sum(t)] * const(prior[t] / mu0[sum(t)]) for t in space.thetas}
        if k_violation(space, lift, prior, alpha) is not None:
            failed.append([str(m) for m in mu])
    return failed


@check("SY-E4", kind=EXACT)
def dp_iff_posteriors_in_k() -> Outcome:
    """For boundary mechanisms m(s|θ) ∝ α^(k·g_s(θ)) (k = 1: DP; k = 2: not) and random ones, over
    N·T ≤ 4 spaces and random priors: DP ⇔ every π_s ∈ K (SY eq. (3)–(4)), with the same pair."""
    rng = random.Random(4)
    failures, checked = [], 0
    for space in (DatabaseSpace(2, 1), DatabaseSpace(3, 1), DatabaseSpace(2, 2)):
        for alpha in RATIONAL_ALPHAS:
            a = alpha.rational or Fraction(1)
            prior = _random_prior(space, rng)
            mechanisms = []
            for stretch in (1, 2):  # columns α^(stretch·d(θ, θ̂)), normalised per row
                cols = [
                    [a ** (stretch * sum(x != y for x, y in zip(t, hat))) for hat in space.thetas[:3]]
                    for t in space.thetas
                ]
                mechanisms.append({t: [c / sum(col) for c in col] for t, col in zip(space.thetas, cols)})
            for _ in range(3):
                raw = {t: [Fraction(rng.randint(1, 6)) for _ in range(3)] for t in space.thetas}
                mechanisms.append({t: [x / sum(r) for x in r] for t, r in raw.items()})
            for rows in mechanisms:
                m = DatabaseMechanism.of(space, rows)
                direct = m.dp_violation(alpha)
                via = [(s, k_violation(space, pi, prior, alpha)) for s, pi in enumerate(m.posteriors(prior))]
                first = next(((s, v) for s, v in via if v is not None), None)
                checked += 1
                if (direct is None) != (first is None) or (direct and first and direct[1] != first[1]):
                    failures.append({"instance": _name(space, alpha), "direct": str(direct), "posteriors": str(first)})
    return decide(
        failures, {"mechanisms": checked, "spaces": ["N=2,T=1", "N=3,T=1", "N=2,T=2"], "alphas": ["1/2", "1/3"]}
    )


@check("SY-P2", kind=EXACT)
def optimal_designs_use_vertices() -> Outcome:
    """Random decision problems: the certified optimal design (:mod:`mechlib.infodesign.designer`) has
    (a) vertex posteriors, (b) each binding ≥ (T+1)^N − 1 bounds, (c) a linearly independent
    support, hence (d) unique weights; its mechanism m* is ε-DP and attains the optimum."""
    import flint

    rng = random.Random(2)
    failures: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for space in (DatabaseSpace(2, 1), DatabaseSpace(3, 1), DatabaseSpace(2, 2)):
        for alpha in RATIONAL_ALPHAS:
            prior = _random_prior(space, rng)
            for _ in range(2):
                problem = DecisionProblem.of([[rng.randint(-6, 6) for _ in space.omegas] for _ in range(3)])
                design = optimal_design(space, prior, problem, alpha)
                name = _name(space, alpha)
                if design is None:
                    return Outcome(Verdict.UNKNOWN, {"done": rows}, f"{name}: the design could not be certified")
                need = len(space.thetas) - 1
                binding = [
                    len(binding_bounds({t: const(p) for t, p in post.items()}, prior, space.adjacent_pairs, alpha))
                    for post in design.posteriors
                ]
                rank = flint.fmpq_mat(
                    [[flint.fmpq(p[t].numerator, p[t].denominator) for t in space.thetas] for p in design.posteriors]
                ).rank()
                mech = DatabaseMechanism.of(space, design.mechanism(prior))
                if min(binding) < need or rank != len(design.posteriors) or mech.dp_violation(alpha) is not None:
                    failures.append({"instance": name, "binding": binding, "rank": rank})
                rows.append(
                    {
                        "instance": name,
                        "value": format_fraction(design.value),
                        "support": len(design.weights),
                        "binding": binding,
                    }
                )
    return decide(failures, {"designs": rows, "vertices": "enumerated exactly (π₀·α^g)"})


@check("SY-P3", kind=EXACT)
def oblivious_dp_three_ways() -> Outcome:
    """Oblivious σ (geometric-like α^|s−ω| rows at α and α², random rows): (i) database DP ⇔ (ii)
    |log σ(s|ω)/σ(s|ω−t)| ≤ ε for t ≤ min(T, ω) ⇔ (iii) every posterior about ω is in K_Ω."""
    rng = random.Random(3)
    failures, checked = [], 0
    for space in (DatabaseSpace(3, 1), DatabaseSpace(2, 2), DatabaseSpace(2, 3)):
        for alpha in RATIONAL_ALPHAS:
            a = alpha.rational or Fraction(1)
            prior = _random_prior(space, rng)
            mu0 = space.project(prior, Fraction(0))
            last = len(mu0) - 1
            sigmas = []
            for base in (a, a * a):
                rows = [[base ** abs(s - w) for s in range(last + 1)] for w in range(last + 1)]
                sigmas.append([[x / sum(r) for x in r] for r in rows])
            for _ in range(2):
                raw = [[Fraction(rng.randint(1, 5)) for _ in range(3)] for _ in range(last + 1)]
                sigmas.append([[x / sum(r) for x in r] for r in raw])
            for sigma in sigmas:
                m = DatabaseMechanism.oblivious(space, sigma)
                ii = all(
                    alpha.sign(const(sigma[w][s]) - X * const(sigma[w - t][s])) >= 0
                    and alpha.sign(const(sigma[w - t][s]) - X * const(sigma[w][s])) >= 0
                    for s in range(len(sigma[0]))
                    for w in range(1, last + 1)
                    for t in range(1, min(space.t, w) + 1)
                )
                iii = all(k_omega_violation(list(c), mu0, space.t, alpha) is None for c in m.about_omega(prior).columns)
                checked += 1
                if not ((m.dp_violation(alpha) is None) == ii == iii):
                    failures.append(
                        {"instance": _name(space, alpha), "sigma": [[format_fraction(x) for x in r] for r in sigma]}
                    )
    return decide(failures, {"mechanisms": checked})


def _theorem1_posterior(space: DatabaseSpace, prior: dict[Theta, Fraction]) -> tuple[dict[Theta, Poly], int]:
    """SY proof of Thm 1: π_θ̂ ∝ π₀·α^ψ, θ̂ = (1,…,1,0,…,0) with min(T, N) ones, ψ(θ) =
    min(min(N,T), d(θ, θ̂)) off ω_θ̂ and min(min(N,T) − 1, d(θ, θ̂)) on it."""
    k = min(space.n, space.t)
    hat = tuple([1] * k + [0] * (space.n - k))
    psi = {}
    for t in space.thetas:
        d = sum(x != y for x, y in zip(t, hat))
        psi[t] = min(k - 1, d) if sum(t) == sum(hat) else min(k, d)
    return {t: const(prior[t]) * X ** psi[t] for t in space.thetas}, k


@check("SY-T1", kind=EXACT)
def magnitude_data_constructed_posterior() -> Outcome:
    """T ∈ {2, 3}, N ∈ {2, 3}, random priors (and i.i.d.), α ∈ {1/2, 1/3, e^−1}: the proof's
    π_θ̂ is in K and Pπ_θ̂ breaks K_Ω between ω = 0 and ω = min(N, T). Control: with T = 1 and an
    i.i.d. prior no vertex of K projects outside K_Ω (Theorem 2)."""
    rng = random.Random(1)
    failures: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for n, t in ((2, 2), (3, 2), (2, 3)):
        space = DatabaseSpace(n, t)
        for prior in (_random_prior(space, rng), iid_prior(space, [Fraction(1, t + 1)] * (t + 1))):
            mu0 = space.project(prior, Fraction(0))
            for alpha in ALPHAS:
                pi, k = _theorem1_posterior(space, prior)
                broken = k_omega_violation(space.project(pi, const(0)), mu0, t, alpha)
                ok = (
                    k_violation(space, pi, prior, alpha) is None
                    and broken is not None
                    and {broken.low, broken.high} == {0, k}
                )
                (rows if ok else failures).append(
                    {"instance": _name(space, alpha), "pair": broken and [broken.low, broken.high]}
                )
    control = DatabaseSpace(3, 1)
    if projection_escapes(control, iid_prior(control, ["2/3", "1/3"]), ALPHAS[0]):
        failures.append({"control": "T=1, i.i.d.: a vertex of K projected outside K_Ω"})
    return decide(failures, {"instances": len(rows), "pairs": sorted({str(r["pair"]) for r in rows})})


@check("SY-T2", kind=EXACT)
def categorical_anonymous_equal() -> Outcome:
    """T = 1, N ∈ {2, 3, 4}, i.i.d. and exchangeable (non-i.i.d.) priors, α ∈ {1/2, 1/3, e^−1}:
    P(ext K) ⊆ K_Ω and every vertex of K_Ω lifts into K — so PK = K_Ω exactly."""
    failures, count = [], 0
    for n in (2, 3, 4):
        space = DatabaseSpace(n, 1)
        priors = {
            "iid(2/3,1/3)": iid_prior(space, ["2/3", "1/3"]),
            "exchangeable": exchangeable_prior(space, lambda h: 1 + (h[1] - 1) ** 2),
        }
        for label, prior in priors.items():
            for alpha in ALPHAS:
                out, up = projection_escapes(space, prior, alpha), lifts_fail(space, prior, alpha)
                count += 1
                if out or up:
                    failures.append({"instance": _name(space, alpha, label), "escapes": out[:1], "no lift": up[:1]})
    return decide(failures, {"instances": count, "method": "vertices of K (π₀·α^g) and of K_Ω"})


@check("SY-P4", kind=EXACT)
def two_respondents_any_prior() -> Outcome:
    """N = 2, T = 1, asymmetric priors: P(ext K) ⊆ K_Ω, and every vertex of K_Ω lifts into K (the
    oblivious lift works for every prior: K_Ω ⊆ PK always). Control: an asymmetric N = 3 prior has
    a vertex of K projecting outside K_Ω."""
    rng = random.Random(5)
    failures, count = [], 0
    space = DatabaseSpace(2, 1)
    for _ in range(4):
        prior = _random_prior(space, rng)
        for alpha in ALPHAS:
            out, up = projection_escapes(space, prior, alpha), lifts_fail(space, prior, alpha)
            count += 1
            if out or up:
                failures.append(
                    {"instance": _name(space, alpha), "prior": [format_fraction(prior[t]) for t in space.thetas]}
                )
    from proofs.sy_claims import ASYMMETRIC_3

    control = projection_escapes(DatabaseSpace(3, 1), dict(ASYMMETRIC_3), ALPHAS[0])
    if not control:
        failures.append({"control": "the asymmetric N=3 prior should break PK ⊆ K_Ω"})
    return decide(failures, {"instances": count, "control (N=3 asymmetric)": control[:1]})


@check("SY-P5", kind=EXACT)
def permutation_invariant_without_loss() -> Outcome:
    """Anonymous priors, DP mechanisms (certified optimal designs for random problems, whose rows
    are not permutation-invariant in general): the symmetrised m̄ is DP, permutation-invariant and
    gives the same joint law of (s, ω). Control: with an asymmetric prior the law changes."""
    rng = random.Random(6)
    failures, count, moved = [], 0, 0
    for space in (DatabaseSpace(2, 2), DatabaseSpace(3, 1)):
        for alpha in RATIONAL_ALPHAS:
            for prior in (iid_prior(space, [Fraction(1, space.t + 1)] * (space.t + 1)), _random_prior(space, rng)):
                design_prior = _random_prior(space, rng)  # designs for another prior: DP, not symmetric
                problem = DecisionProblem.of([[rng.randint(-5, 5) for _ in space.omegas] for _ in range(3)])
                design = optimal_design(space, design_prior, problem, alpha)
                if design is None:
                    return Outcome(Verdict.UNKNOWN, {}, f"{_name(space, alpha)}: no certified design to start from")
                m = DatabaseMechanism.of(space, design.mechanism(design_prior))
                bar = m.symmetrized()
                same = bar.about_omega(prior).columns == m.about_omega(prior).columns
                if is_anonymous(space, prior):
                    count += 1
                    if bar.dp_violation(alpha) or not bar.is_permutation_invariant() or not same:
                        failures.append({"instance": _name(space, alpha)})
                else:
                    moved += not same
    if moved == 0:
        failures.append({"control": "with asymmetric priors the symmetrised law never changed"})
    return decide(failures, {"anonymous instances": count, "asymmetric controls that changed": moved})


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
    return decide(failures, evidence)
