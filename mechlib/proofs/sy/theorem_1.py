"""SY-T1 (SY Theorem 1): Magnitude data (T>1): K_Ω ≠ P·K.

Every check part of this claim is here (``mechlib verify --only SY-T1``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import z3

from mechlib.core.exact import format_fraction
from mechlib.infodesign.alpha import Poly, X, const
from mechlib.infodesign.databases import DatabaseSpace, Theta, iid_prior
from mechlib.infodesign.privacy_sets import k_omega_violation, k_violation
from mechlib.proofs.catalogue import EXACT, SMT
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide
from mechlib.proofs.shared.privacy_set_instances import ALPHAS, _name, _random_prior, projection_escapes
from mechlib.proofs.shared.privacy_set_smt import _witness, iid, projection_leaves_k_omega, recheck_witness
from mechlib.proofs.smt import run


@check("SY-T1", kind=SMT)
def smt_magnitude_data() -> Outcome:
    """T = 2: some ε-DP posterior projects outside K_Ω (PK ≠ K_Ω), found by z3, re-checked exactly."""
    evidence: dict[str, Any] = {}
    record = Record("N")
    for n in (2, 3):
        for alpha in (Fraction(1, 2), Fraction(1, 3)):
            prior = iid(n, [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
            solver, pi = projection_leaves_k_omega(prior, 2, alpha)
            answer, ev = run(solver)
            name = f"N={n}, T=2, α={format_fraction(alpha)}"
            if answer != z3.sat:
                return Outcome(
                    Verdict.UNKNOWN if answer == z3.unknown else Verdict.REFUTED, evidence, f"{name}: {answer}"
                )
            witness = _witness(solver, pi)
            if not recheck_witness(witness, prior, 2, alpha):
                return Outcome(Verdict.UNKNOWN, evidence, f"{name}: z3's witness does not re-check exactly")
            evidence[name] = {**ev, "witness": {"".join(map(str, k)): format_fraction(v) for k, v in witness.items()}}
            record.ran(n, alpha, "the i.i.d. prior (1/2, 1/3, 1/6), T = 2")
    return record.outcome(Outcome(Verdict.PROVED, evidence), "z3: a witness posterior (SAT), re-checked exactly")


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
    record = Record("N")
    for n, t in ((2, 2), (3, 2), (2, 3)):
        space = DatabaseSpace(n, t)
        priors = {"a seeded random prior": _random_prior(space, rng),
                  "the uniform i.i.d. prior": iid_prior(space, [Fraction(1, t + 1)] * (t + 1))}  # fmt: skip
        for label, prior in priors.items():
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
                record.ran(n, str(alpha), f"{label}, T = {t}")
    control = DatabaseSpace(3, 1)
    if projection_escapes(control, iid_prior(control, ["2/3", "1/3"]), ALPHAS[0]):
        failures.append({"control": "T=1, i.i.d.: a vertex of K projected outside K_Ω"})
    record.ran(control.n, str(ALPHAS[0]), "control: an i.i.d. prior, T = 1")
    outcome = decide(failures, {"instances": len(rows), "pairs": sorted({str(r["pair"]) for r in rows})})
    return record.outcome(outcome, "exact: the proof's π_θ̂ is in K and its projection breaks K_Ω")
