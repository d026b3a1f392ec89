"""The uniform-peaked relative risk (UPRR) order on information structures (SY §5.2).

τ ⪰_UPRR τ′ iff every posterior μ ∈ supp τ has a peak ω*(μ) such that for every μ′ ∈ supp τ′
the relative risk μ(ω)/μ′(ω) is nondecreasing on ω ≤ ω*(μ) and nonincreasing on ω ≥ ω*(μ).
Ratios are compared cross-multiplied — μ(ω)·μ′(ω−1) vs μ(ω−1)·μ′(ω) — so zero entries are
fine and scale does not matter. The answer carries its witness: the peaks, or for a posterior
with no valid peak, one violating (μ′, ω) per candidate peak.
"""

from __future__ import annotations

from dataclasses import dataclass

from mechlib.infodesign.alpha import Alpha, Poly
from mechlib.infodesign.info_structure import InformationStructure


@dataclass(frozen=True)
class UPRRVerdict:
    """``peaks[s]`` for each signal s of τ if τ ⪰_UPRR τ′; else ``failure``."""

    dominates: bool
    peaks: dict[int, int]
    #: (signal s of τ, {candidate peak p: (signal s′ of τ′, ω) where monotonicity breaks})
    failure: tuple[int, dict[int, tuple[int, int]]] | None = None


def _step(mu: tuple[Poly, ...], nu: tuple[Poly, ...], w: int, alpha: Alpha) -> int:
    """Sign of μ(ω)/ν(ω) − μ(ω−1)/ν(ω−1), cross-multiplied: μ(ω)ν(ω−1) − μ(ω−1)ν(ω)."""
    return alpha.sign(mu[w] * nu[w - 1] - mu[w - 1] * nu[w])


def _breaks(step: int, rising: bool) -> bool:
    return step < 0 if rising else step > 0


def violated_peak(
    mu: tuple[Poly, ...], others: list[tuple[int, tuple[Poly, ...]]], peak: int, alpha: Alpha
) -> tuple[int, int] | None:
    """(s′, ω) where μ/μ′_s′ breaks single-peakedness at ``peak``, or None if the peak is valid."""
    for k, nu in others:
        for w in range(1, len(mu)):
            if _breaks(_step(mu, nu, w, alpha), w <= peak):
                return k, w
    return None


def uprr_dominates(tau: InformationStructure, other: InformationStructure, alpha: Alpha) -> UPRRVerdict:
    """Decide τ ⪰_UPRR τ′ exactly (the smallest valid peak of each posterior is reported)."""
    others = [(k, other.columns[k]) for k in other.support(alpha)]
    peaks: dict[int, int] = {}
    for s in tau.support(alpha):
        bad: dict[int, tuple[int, int]] = {}
        for peak in range(tau.states):
            broken = violated_peak(tau.columns[s], others, peak, alpha)
            if broken is None:
                peaks[s] = peak
                break
            bad[peak] = broken
        else:
            return UPRRVerdict(False, peaks, (s, bad))
    return UPRRVerdict(True, peaks)
