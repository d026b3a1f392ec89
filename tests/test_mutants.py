"""Every check is shown to fail: the registered falsifying mutants are killed (REFUTED or UNKNOWN;
for a claim the paper gets wrong, no longer REFUTED).

A bounded set runs here in CI; ``mechlib verify --mutants`` (and the slow test) runs them all."""

from __future__ import annotations

import pytest

import mechlib.proofs.falsifications  # noqa: F401  (registers the mutants)
from mechlib.proofs.mutants import KINDS, MUTANTS, pairs, run_mutant, score
from mechlib.proofs.registry import REGISTRY

#: The guard: a lost registration (or a mutant quietly dropped) changes these numbers.
EXPECTED_MUTANTS = 76
EXPECTED_PAIRS = 177

#: Fast (mutant, claim) pairs run on every CI run, among them the five survivors the "What PROVED
#: means" review found: T's loss hard-coded in GRS-EA.1, GRS-LP's illegal losses, SY-F1's prior,
#: SY-T3 and SY-T4 with a non-supermodular payoff.
CI_PAIRS = [
    ("T → T at (1+α)/2", "GRS-EA.1"),
    ("T → T at (1+α)/2", "GRS-E2.2"),
    ("T → randomized response", "GRS-F4"),
    ("T → randomized response", "GS-Tab1"),
    ("legal losses → illegal losses", "GRS-LP"),
    ("SY Figure 1's prior → uniform", "SY-F1"),
    ("GS App. B perturbed", "GS-AB"),
    ("GRS Figure 5(a) perturbed", "GRS-B"),
    ("Brenner–Nissim's paths → trees", "BN-path"),
    ("signature read upside down", "GRS-F3"),
    ("optimal vertex → randomized response", "GRS-L5.8"),
    ("τ^g → randomized response on Ω", "SY-L1"),
    ("privacy sets without their inequality", "SY-P4"),
    ("G′ with α^(|i−j|+1) off the diagonal", "GS-L1"),
    ("T_{α,β} with α and β swapped", "GS-L3"),
    ("G′'s row operation: row m−1 minus α² × row m−2", "GS-L1"),
    ("T⁻¹'s interior diagonal → (1+α)/(1−α)²", "GS-T2"),
    ("Figure 6(b) → Figure 6(a)", "GRS-C"),
    ("the average over databases → the exact count", "GRS-P6.1"),
    ("the signature's S read as ↓", "GRS-L5.4"),
    ("supermodular payoffs → GRS App. B's payoff", "SY-T3"),
    ("supermodular payoffs → GRS App. B's payoff", "SY-T4"),
    ("posteriors never leave K", "SY-E4"),
    ("φ → 1 (π̂ = π₀)", "SY-AA"),
    ("the symmetrisation → the mechanism itself", "SY-P5"),
    # the proofs' own structure: a broken ALL-n proof must not read PROVED
    ("GS-L1's induction without its base case", "GS-L1"),
    ("the case split of an ALL-n proof with its last case dropped", "GRS-E2.1"),
    ("exactly α: the witness moved to column 1, where T[1][1] = T[0][1]/α", "GRS-E2.2"),
    ("remap cells: a cell accepted without its Farkas certificate", "GRS-T3.2"),
    ("a dominance check that skips the tail k = 1", "DOM"),
    ("#S ≤ #zero columns → no S at all", "GRS-L5.8"),
    ("the LP's DP rows at α² (zero chains)", "GRS-L5.3"),
    ("GS-L5: no free column between adjacent rows (c₂ = c₁ + 1)", "GS-L5"),
    ("τ^g → randomized response on Ω, UPRR dominance taken for granted", "SY-T4"),
    ("Laplace rounded down instead of to the nearest integer", "GRS-TA.2"),
    ("T → T at (1+α)/2", "GRS-TA.2"),
    # scopes measured: a verdict without its record of what ran, or with an empty one, is not PROVED
    ("a part's verdict returned without the record of what it ran", "GRS-B"),
    ("a part's verdict returned without the record of what it ran", "SY-E2"),
    ("GRS-F4's α emptied: the part checks nothing", "GRS-F4"),
]


def test_the_expected_mutants_are_registered() -> None:
    assert len(MUTANTS) == EXPECTED_MUTANTS
    assert len(pairs()) == EXPECTED_PAIRS
    assert all(m.kind in KINDS and m.claims for m in MUTANTS.values())
    assert set(CI_PAIRS) <= set(pairs())


def test_every_claim_has_two_mutants() -> None:
    """The issue's bar: at least two registered falsifying mutants per claim."""
    per_claim = {cid: sum(cid in m.claims for m in MUTANTS.values()) for cid in REGISTRY}
    assert {cid: k for cid, k in per_claim.items() if k < 2} == {}


@pytest.mark.parametrize(("mutant", "claim"), CI_PAIRS)
def test_mutant_is_killed(mutant: str, claim: str) -> None:
    result = run_mutant(mutant, claim)
    assert result.killed, (result.result.outcome.verdict, result.result.outcome.reason)


def test_a_surviving_mutant_is_reported() -> None:
    """The score names survivors: a mutant that does not falsify its claim's check is visible."""
    from mechlib.proofs.mutants import register

    register("identity (test)", "changed statement", ("GS-D2",), lambda: [])
    try:
        result = run_mutant("identity (test)", "GS-D2")
        assert not result.killed and score([result])["survivors"] == ["identity (test) on GS-D2"]
    finally:
        del MUTANTS["identity (test)"]


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "claim"), [p for p in pairs() if p not in CI_PAIRS])
def test_every_mutant_is_killed(mutant: str, claim: str) -> None:
    result = run_mutant(mutant, claim)
    assert result.killed, (result.result.outcome.verdict, result.result.outcome.reason)
