"""One test per registered claim (parametrised from the registry, so xdist spreads them), checks
that can fail, and a guard on what the registry holds."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

import mechlib.proofs.grs.figure_3
from mechlib import Mechanism, truncated_geometric
from mechlib.core.remap import Remap
from mechlib.proofs import REGISTRY, Verdict
from mechlib.proofs.catalogue import CATALOGUE, ClaimInfo, Strength
from mechlib.proofs.grs.appendix_b import check_grs_appendix_b
from mechlib.proofs.grs.example_2_2 import check_truncated_geometric
from mechlib.proofs.grs.example_2_3 import check_post_processing_example
from mechlib.proofs.grs.figure_3 import check_figure_3
from mechlib.proofs.grs.figure_4 import check_signature_of_t
from mechlib.proofs.gs.appendix_b import check_gs_appendix_b
from mechlib.proofs.registry import Claim, Outcome, claim_strength, run_claim
from tests.conftest import patch_everywhere

INFO = ClaimInfo("X-1", "GRS", "nowhere", "a test claim", ("EXACT",), "nobody", Strength.INSTANCES)

#: Every claim of CLAIMS.md has a check now (the guard: a lost registration fails here).
EXPECTED_IDS = {
    "BN-path",
    "DOM",
    "GRS-B",
    "GRS-C",
    "GRS-C3.3",
    "GRS-C3.4",
    "GRS-E2.1",
    "GRS-E2.2",
    "GRS-E2.3",
    "GRS-EA.1",
    "GRS-F3",
    "GRS-F4",
    "GRS-L5.10",
    "GRS-L5.12",
    "GRS-L5.2",
    "GRS-L5.3",
    "GRS-L5.4",
    "GRS-L5.5",
    "GRS-L5.6",
    "GRS-L5.8",
    "GRS-L5.9",
    "GRS-LP",
    "GRS-P6.1",
    "GRS-R2.3",
    "GRS-T3.2",
    "GRS-TA.2",
    "GS-AA",
    "GS-AB",
    "GS-D2",
    "GS-L1",
    "GS-L2",
    "GS-L3",
    "GS-L5",
    "GS-LP",
    "GS-T1a",
    "GS-T1b",
    "GS-T2",
    "GS-Tab1",
    "SY-AA",
    "SY-E1",
    "SY-E2",
    "SY-E4",
    "SY-F1",
    "SY-L1",
    "SY-L2",
    "SY-P2",
    "SY-P3",
    "SY-P4",
    "SY-P5",
    "SY-T1",
    "SY-T2",
    "SY-T3",
    "SY-T4",
}
CLAIMS_MD = Path(__file__).resolve().parents[2] / "shared" / "CLAIMS.md"


def test_the_expected_claims_are_implemented() -> None:
    assert {cid for cid, c in REGISTRY.items() if c.implemented} == EXPECTED_IDS
    assert set(REGISTRY) == set(CATALOGUE)


@pytest.mark.skipif(not CLAIMS_MD.exists(), reason="../shared/CLAIMS.md is not beside this checkout")
def test_every_registered_id_is_in_claims_md() -> None:
    ids = set(re.findall(r"^\| ([A-Z]+-[A-Za-z0-9.]+|DOM) \|", CLAIMS_MD.read_text(), flags=re.M))
    assert len(ids) == 53
    assert set(REGISTRY) == ids  # every claim of CLAIMS.md is registered, implemented or not


@pytest.mark.parametrize(
    "claim_id", [pytest.param(i, marks=[pytest.mark.slow] if REGISTRY[i].slow else []) for i in sorted(EXPECTED_IDS)]
)
def test_claim_has_its_expected_verdict(claim_id: str) -> None:
    claim = REGISTRY[claim_id]
    result = run_claim(claim)
    assert result.as_expected, (result.outcome.verdict, result.outcome.reason)
    assert result.outcome.evidence
    assert len(result.scopes) >= len(claim.parts)  # every part states what it established
    if result.outcome.verdict == Verdict.PROVED:  # computed from what it ran, none declared
        assert all(s.measured for s in result.scopes)
    sampled = claim_strength(result.scopes) == Strength.SAMPLED
    if result.outcome.verdict != Verdict.REFUTED:  # a claim (or a half of it) only sampled never reads PROVED
        assert (result.outcome.verdict == Verdict.NO_COUNTEREXAMPLE) == sampled


def test_a_wrong_t_refutes_e2_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation: if T were built with α perturbed, GRS-E2.2 must come back REFUTED."""
    patch_everywhere(monkeypatch, truncated_geometric, lambda a, n: truncated_geometric(Fraction(a) * 99 / 100, n))
    outcome = check_truncated_geometric()
    assert outcome.verdict == Verdict.REFUTED and outcome.evidence["failures"]


def test_an_off_by_one_threshold_refutes_e2_3(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Remap.deterministic

    def shifted(mapping, inputs, outputs=None):  # type: ignore[no-untyped-def]
        if callable(mapping):  # the check's threshold remap, not optimal_remap's dict
            return real(lambda r: mapping(r + 1), inputs, outputs)
        return real(mapping, inputs, outputs)

    monkeypatch.setattr(Remap, "deterministic", shifted)
    assert check_post_processing_example().verdict == Verdict.REFUTED


def test_a_different_mechanism_refutes_f4(monkeypatch: pytest.MonkeyPatch) -> None:
    from mechlib import randomized_response

    patch_everywhere(monkeypatch, truncated_geometric, lambda a, n: randomized_response(a, n + 1))
    assert check_signature_of_t().verdict == Verdict.REFUTED


def test_a_check_that_raises_is_unknown_never_a_pass() -> None:
    def broken() -> Outcome:
        Mechanism([["1/2", "1/3"]])
        return Outcome(Verdict.PROVED)

    result = run_claim(Claim(INFO, (("EXACT", broken),)))
    assert result.outcome.verdict == Verdict.UNKNOWN
    assert result.outcome.reason is not None and "InputError" in result.outcome.reason
    assert not result.as_expected


def test_a_check_returning_garbage_is_unknown() -> None:
    result = run_claim(Claim(INFO, (("EXACT", lambda: True),)))  # type: ignore[arg-type, return-value]
    assert result.outcome.verdict == Verdict.UNKNOWN


def test_mutated_inputs_refute_the_certified_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    from mechlib.proofs.shared.printed import GRS_FIGURE_5A, GS_APPENDIX_B

    # GS-AB with a derivable matrix in place of the appendix's: REFUTED
    patch_everywhere(monkeypatch, GS_APPENDIX_B, truncated_geometric(Fraction(1, 2), 3))
    assert check_gs_appendix_b().verdict == Verdict.REFUTED
    # GRS-B with T in place of Figure 5(a): T is derivable and not optimal for the illegal loss
    patch_everywhere(monkeypatch, GRS_FIGURE_5A, truncated_geometric(Fraction(1, 2), 3))
    assert check_grs_appendix_b().verdict == Verdict.REFUTED


def test_vertex_check() -> None:
    from mechlib.proofs.grs.appendix_b import _is_vertex
    from mechlib.proofs.shared.printed import GRS_FIGURE_5A

    half = Fraction(1, 2)
    t = truncated_geometric(half, 3)
    assert _is_vertex(t, half) and _is_vertex(GRS_FIGURE_5A, half)
    midpoint = Mechanism([[(a + b) / 2 for a, b in zip(r, s)] for r, s in zip(t.rows, GRS_FIGURE_5A.rows)])
    assert not _is_vertex(midpoint, half)


def test_a_non_optimal_matrix_refutes_figure_3(monkeypatch: pytest.MonkeyPatch) -> None:
    """T itself is not optimal for Figure 3's user: no corner certificate exists."""
    monkeypatch.setattr(
        mechlib.proofs.grs.figure_3, "FIGURE_3A", [list(r) for r in truncated_geometric(Fraction(1, 2), 5).rows]
    )
    outcome = check_figure_3()
    assert outcome.verdict == Verdict.REFUTED and outcome.evidence["failures"]


def test_parallel_runner_agrees_with_sequential_and_keeps_order() -> None:
    from mechlib import verify

    claims = [REGISTRY["GS-AB"], REGISTRY["GRS-F4"], Claim(INFO), REGISTRY["GRS-E2.2"]]  # INFO: no check
    sequential = verify.run(claims)
    parallel = verify.run(claims, jobs=2, timeout=300)
    assert [r.claim.id for r in parallel] == [c.id for c in claims]
    assert [r.outcome.verdict for r in parallel] == [r.outcome.verdict for r in sequential]
    assert parallel[2].outcome.verdict == Verdict.UNKNOWN and "not implemented" in (parallel[2].outcome.reason or "")


def test_a_claim_over_its_timeout_is_unknown_never_a_pass() -> None:
    from mechlib import verify

    (result,) = verify.run([REGISTRY["GS-T1b"]], jobs=1, timeout=0.01)
    assert result.outcome.verdict == Verdict.UNKNOWN
    reason = result.outcome.reason or ""
    assert reason.startswith("machine too slow") and "timed out after 0.01 s" in reason


def test_parts_combine_refuted_first_then_unknown() -> None:
    from mechlib.proofs.registry import combine

    proved, refuted, unknown = (
        Outcome(Verdict.PROVED),
        Outcome(Verdict.REFUTED),
        Outcome(Verdict.UNKNOWN, reason="z3: unknown"),
    )
    assert combine([("EXACT", proved), ("SMT", proved)]).verdict == Verdict.PROVED
    assert combine([("EXACT", proved), ("SMT", unknown)]).verdict == Verdict.UNKNOWN
    assert combine([("EXACT", unknown), ("SMT", refuted)]).verdict == Verdict.REFUTED


def test_a_scope_is_computed_from_what_ran() -> None:
    """The strength follows the record: BOUNDED needs every n in a range and every object,
    ALL-n a symbolic n; listed sizes or listed objects are INSTANCES."""
    from mechlib.proofs.registry import measured

    ran = measured("exact", n=[1, 2, 3], alphas=[Fraction(1, 2)], every_object=True)
    assert ran.strength == Strength.BOUNDED and ran.measured and ran.n == "1 ≤ n ≤ 3 (every n)"
    assert measured("exact", n=[1, 3], alphas="symbolic", every_object=True).strength == Strength.INSTANCES
    assert measured("exact", n=[1, 2], alphas="symbolic", every_object=False).strength == Strength.INSTANCES
    assert measured("z3", n="every n ≥ 1", alphas="symbolic", every_object=True).strength == Strength.ALL_N
    figures = ["Fig. 1", "Fig. 2, T = 2", "Fig. 1"]
    named = measured("exact", n=[3, 3, 3], alphas=[Fraction(1, 2)], every_object=False, objects=figures)
    assert named.n == "n ∈ {3}: Fig. 1 ×2; Fig. 2, T = 2"
    assert measured("exact", n=[2], alphas=["e^-1"], every_object=False, size="N").n == "N ∈ {2}"


def test_a_proved_part_without_a_measured_scope_is_unknown() -> None:
    """No scope is declared beside a check: a PROVED part that returns no record of what it ran,
    or a scope typed by hand (not computed by ``measured``), is UNKNOWN; a refutation needs none."""
    from mechlib.proofs.registry import Scope, measured, run_part

    bare = run_part(lambda: Outcome(Verdict.PROVED))
    assert bare.verdict == Verdict.UNKNOWN and "no record of what it ran" in (bare.reason or "")
    typed = Scope(Strength.BOUNDED, "1 ≤ n ≤ 6 (every n)", "1/2", "typed by hand")
    assert run_part(lambda: Outcome(Verdict.PROVED, scopes=(typed,))).verdict == Verdict.UNKNOWN
    ran = measured("exact", n=[5], alphas=[Fraction(1, 2)], every_object=False)
    assert run_part(lambda: Outcome(Verdict.PROVED, scopes=(ran, typed))).verdict == Verdict.UNKNOWN
    assert run_part(lambda: Outcome(Verdict.PROVED, scopes=(ran,))).verdict == Verdict.PROVED
    assert run_part(lambda: Outcome(Verdict.REFUTED)).verdict == Verdict.REFUTED


def test_a_record_holds_what_the_loop_checked() -> None:
    """A part that stops early records less; a part that checked nothing is UNKNOWN, never a
    vacuous PROVED; a sampling part's example count is the number of instances it recorded."""
    from mechlib.proofs.registry import Record

    def part(stop_after: int) -> Outcome:
        record = Record()
        for n in (1, 2, 3, 4):
            if n > stop_after:
                break
            record.ran(n, Fraction(1, 2), "T")
        return record.outcome(Outcome(Verdict.PROVED), "exact", every_object=True)

    (whole,) = part(4).scopes
    assert whole.strength == Strength.BOUNDED and whole.n == "1 ≤ n ≤ 4 (every n): T ×4"
    (early,) = part(2).scopes
    assert early.n == "1 ≤ n ≤ 2 (every n): T ×2"
    nothing = part(0)
    assert nothing.verdict == Verdict.UNKNOWN and "checked no instance" in (nothing.reason or "")
    assert not nothing.scopes
    refuted = Record().outcome(Outcome(Verdict.REFUTED), "exact")
    assert refuted.verdict == Verdict.REFUTED
    sample = Record("N")
    for n in (1, 2, 2):
        sample.ran(n, "e^-1")
    drawn = sample.scope("seeded random", sampled=True)
    assert drawn.strength == Strength.SAMPLED and drawn.examples == 3 and drawn.n == "N ∈ {1, 2}"
    assert drawn.alpha == "e^-1"


def test_a_half_only_sampled_makes_the_claim_no_counterexample() -> None:
    from mechlib.proofs.registry import combine, measured

    proof = measured("z3", n="every n ≥ 1", alphas="symbolic", every_object=True, covers="lemma")
    sample = measured("Hypothesis", n="n ≤ 4", alphas="drawn", every_object=False, covers="theorem", examples=30)
    figure = measured("exact", n=[5], alphas=[Fraction(1, 2)], every_object=True, covers="figure", complete=True)
    lemma = ("SYM", Outcome(Verdict.PROVED, scopes=(proof,)))
    both = combine([lemma, ("FUZZ", Outcome(Verdict.PROVED, scopes=(sample,)))])
    assert both.verdict == Verdict.NO_COUNTEREXAMPLE
    with_figure = combine([lemma, ("EXACT", Outcome(Verdict.PROVED, scopes=(figure,)))])
    assert with_figure.verdict == Verdict.PROVED and claim_strength(with_figure.scopes) == Strength.ALL_N


def test_a_part_with_one_scope_per_half_shows_both() -> None:
    """A part that checks two halves (GRS-T3.2's EXACT: "if" and "only if") reports a scope for
    each; the report lists both, under EXACT and EXACT #2, and later parts keep their own kinds."""
    from mechlib.proofs.registry import Result, combine, measured

    half = [
        measured("exact", n=[1, 2], alphas=[Fraction(1, 2)], every_object=True, covers=c) for c in ["if", "only if"]
    ]
    sample = measured("Hypothesis", n="n ≤ 4", alphas="drawn", every_object=False, examples=3)
    outcome = combine([("EXACT", Outcome(Verdict.PROVED, scopes=tuple(half))),
                       ("FUZZ", Outcome(Verdict.PROVED, scopes=(sample,)))])  # fmt: skip
    shown = Result(REGISTRY["GRS-T3.2"], outcome, 0.0).to_json()["scope"]
    assert list(shown) == ["EXACT", "EXACT #2", "FUZZ"]
    assert [shown["EXACT"]["covers"], shown["EXACT #2"]["covers"]] == ["if", "only if"]
    assert shown["FUZZ"]["examples"] == 3
