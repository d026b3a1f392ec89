"""Certificates that cannot lie: every leaf of every certificate kind, mutated semantically (seeded),
is rejected by its independent checker — unless the test's own oracle shows the change keeps the
meaning (a provenance field, a free-text reason, a tie between equally good guesses).

The generator walks the whole JSON tree; each leaf gets the mutations of its type (a number moved
by a small rational or doubled or negated, an integer ±1, a boolean flipped, a label swapped for a
sibling value of the same field, null replaced), so a run makes several hundred tamperings."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from mechlib import randomized_response, truncated_geometric
from mechlib.audit.blackbox import Sampler, conformance_test, sample_phases
from mechlib.audit.blackbox import blackbox_result as blackbox_result_doc
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.ratio_test import dp_test
from mechlib.audit.whitebox import audit
from mechlib.checkers import audit_certificate, blackbox_result
from mechlib.core.approximate import privacy_profile
from mechlib.core.families import exponential
from mechlib.core.mechanism import Mechanism

Path = tuple[Any, ...]

#: Fields recorded for the reader, not re-checkable (the checkers list them as provenance).
PROVENANCE = (
    ("tool",),
    ("source", "path"),
    ("source", "format"),
    ("source", "name"),
    ("rows_normalized",),
    ("sampler",),
    ("seed",),
    ("samples_per_count",),  # the Poisson mean: the design, not re-checkable from the counts
    ("samples_per_second",),
    ("dp", "smallest_detectable_excess_epsilon"),
)
#: Labels a field can take, for swaps that keep the form but change the meaning.
LABELS = {
    "verdict": ["PASS", "FAIL", "NONE", "violation", "no violation found", "conformant", "nonconformant"],
    "status": ["derivable", "not derivable", "certified", "skipped", "UNKNOWN"],
    "loss_name": ["absolute", "squared", "binary"],
    "prior_name": ["uniform", "skewed"],
    "condition": ["x_r - a*x_nb", "(1+a^2)*x_r - a*(x_(r-1) + x_(r+1))"],
    "schema": ["mechlib.audit/1", "mechlib.blackbox/1", "mechlib.bracket/1"],
}


def leaves(node: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, (*path, k))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from leaves(v, (*path, i))
    else:
        yield path, node


def mutations(path: Path, value: Any, rng: random.Random) -> list[Any]:
    """Semantic changes of one leaf (never a rewrite of the same value)."""
    key = next((p for p in reversed(path) if isinstance(p, str)), "")
    if isinstance(value, bool):
        return [not value]
    if value is None:
        return [0, "0", "1/2"]
    if isinstance(value, int):
        return [value + 1, value - 1]
    if isinstance(value, float):
        return [value * 2, value / 3]
    if isinstance(value, str):
        if key in LABELS:
            return [v for v in LABELS[key] if v != value][:2]
        try:
            x = Fraction(value)
        except (ValueError, ZeroDivisionError):
            return [value + "x"]
        step = Fraction(1, rng.choice([3, 7, 10**6]))
        out = [x + step, -x if x else Fraction(1, 2), x * 2 if x else Fraction(-1, 9)]
        return [str(v) for v in out]
    return []


def _set(doc: Any, path: Path, value: Any) -> Any:
    out = copy.deepcopy(doc)
    node = out
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return out


def _provenance(path: Path) -> bool:
    return any(path[: len(p)] == p for p in PROVENANCE) or path[-1] == "reason"


def tamper_all(
    doc: dict[str, Any],
    check: Callable[[Any], list[str]],
    oracle: Callable[[Path, Any, Any], bool],
    seed: int,
    limit: int | None = None,
) -> tuple[int, int, list[str]]:
    """(tamperings, rejected, accepted-but-meaningful): every leaf × its mutations (or a seeded
    sample of ``limit`` leaves, for large certificates)."""
    assert check(doc) == [], check(doc)
    rng = random.Random(seed)
    total = rejected = 0
    wrong = []
    chosen = list(leaves(doc))
    if limit is not None and len(chosen) > limit:  # every shallow field, a sample of the deep ones
        shallow = [leaf for leaf in chosen if len(leaf[0]) <= 2]
        deep = [leaf for leaf in chosen if len(leaf[0]) > 2]
        chosen = shallow + rng.sample(deep, min(limit, len(deep)))
    for path, value in chosen:
        for new in mutations(path, value, rng):
            if _provenance(path):
                continue
            total += 1
            tampered = _set(doc, path, new)
            if check(tampered):
                rejected += 1
            elif not oracle(path, value, new):
                wrong.append(f"{'/'.join(map(str, path))}: {value!r} → {new!r}")
    return total, rejected, wrong


def _tie(doc: dict[str, Any]) -> Callable[[Path, Any, Any], bool]:
    """Meaning-preserving: a recorded optimal guess replaced by another guess with the same
    posterior expected loss (the checker recomputes the loss, which is unchanged)."""

    def oracle(path: Path, old: Any, new: Any) -> bool:
        if len(path) >= 2 and path[-2] in ("optimal_remap", "t_optimal_remap"):
            return True
        # another claimed level with the same verdict: still a true statement (with SOURCE given,
        # `mechlib check` also compares the claim with the file's)
        return path[0] == "claimed" and path[-1] in ("alpha", "epsilon", "delta")

    return oracle


def _audit_doc(mech: Mechanism, claimed: str | None, **approximate: Any) -> dict[str, Any]:
    delta = approximate.pop("claimed_delta", None)
    loaded = LoadedMechanism(
        mech,
        "test",
        "json",
        "0" * 64,
        claimed_alpha=None if claimed is None else Fraction(claimed),
        claimed_delta=delta,
    )
    doc: dict[str, Any] = json.loads(json.dumps(audit(loaded, **approximate)))
    return doc


GS_APPENDIX_B = Mechanism(
    [
        ["5/12", "1/6", "1/4", "1/6"],
        ["5/24", "1/3", "1/8", "1/3"],
        ["5/48", "1/6", "1/4", "23/48"],
        ["5/96", "1/12", "1/8", "71/96"],
    ]
)


@pytest.mark.parametrize(
    ("name", "mech", "claimed"),
    [
        ("T, α = 1/2, n = 3", truncated_geometric("1/2", 3), "1/2"),
        ("randomized response", randomized_response("1/3", 3), "1/2"),
        ("exponential", exponential("1/2", 3), None),
    ],
)
def test_every_audit_certificate_field_is_checked(name: str, mech: Mechanism, claimed: str | None) -> None:
    doc = _audit_doc(mech, claimed)
    total, rejected, wrong = tamper_all(doc, audit_certificate.check_certificate, _tie(doc), seed=len(name))
    assert total > 150, total
    assert wrong == [], f"{len(wrong)} harmful tamperings accepted: {wrong[:10]}"
    print(f"{name}: {rejected}/{total} tamperings rejected, the rest meaning-preserving")


def _same_statement(doc: dict[str, Any], mech: Mechanism) -> Callable[[Path, Any, Any], bool]:
    """Meaning-preserving in the approximate-DP section: another δ with the same tightest ε; in
    the zCDP bracket a wider interval (ρ_lo lower, ρ_hi higher), another
    interior grid point in order, or another attaining order λ whose D_λ/λ still reaches ρ_lo —
    each still a true statement."""
    from mechlib.core.privacy import arb_precision, to_arb
    from mechlib.core.renyi import renyi_divergence

    renyi = doc["approximate_dp"]["renyi"]
    tie = _tie(doc)

    def oracle(path: Path, old: Any, new: Any) -> bool:
        if tie(path, old, new):
            return True
        if path == ("approximate_dp", "at_delta", "delta"):  # another δ with the same tightest ε
            found = privacy_profile(mech).tightest_t(Fraction(new))
            return Fraction(doc["approximate_dp"]["at_delta"]["alpha"]) == (0 if found is None else 1 / found[0])
        if path[:2] != ("approximate_dp", "renyi") or renyi is None:
            return False
        field = path[2]
        if field == "rho_interval":
            return (Fraction(new) < Fraction(old)) if path[3] == 0 else (Fraction(new) > Fraction(old))
        if field == "grid":
            grid = [Fraction(x) for x in renyi["grid"]]
            k, value = path[3], Fraction(new)
            return bool(0 < k < len(grid) - 1 and grid[k - 1] < value < grid[k + 1])
        if path[2:] == ("attained", "lambda"):
            lo, hi = (Fraction(x) for x in renyi["lambda_range"])
            lam = Fraction(new)
            if not lo <= lam <= hi:
                return False
            i, j = renyi["attained"]["inputs"]
            with arb_precision(128):
                d = renyi_divergence(mech.rows[i], mech.rows[j], lam)
                return d is not None and bool(d / to_arb(lam) >= to_arb(Fraction(renyi["rho_interval"][0])))
        return False

    return oracle


@pytest.mark.parametrize(
    ("name", "mech", "claimed", "delta"),
    [
        ("T with (ε, δ) claimed", truncated_geometric("1/2", 3), "2/3", "1/10"),
        ("exponential, δ(∞) > 0", exponential("1/2", 2), "1/3", "1/2"),
    ],
)
def test_every_approximate_dp_field_is_checked(name: str, mech: Mechanism, claimed: str, delta: str) -> None:
    rows = [list(row) for row in mech.rows]
    if name.startswith("exponential"):  # an output one count never gives: δ(∞) > 0, ρ = ∞ would hide the grid
        rows[0] = [rows[0][0] + rows[0][-1], *rows[0][1:-1], Fraction(0)]
        mech = Mechanism(rows)
    renyi = None if name.startswith("exponential") else (Fraction(1), Fraction(16))
    doc = _audit_doc(mech, claimed, delta=Fraction(1, 20), renyi=renyi, claimed_delta=Fraction(delta))
    assert doc["approximate_dp"] is not None
    oracle = _same_statement(doc, mech)
    total, _, wrong = tamper_all(doc, audit_certificate.check_certificate, oracle, seed=len(name), limit=400)
    assert total > 150, total
    assert wrong == [], f"{len(wrong)} harmful tamperings accepted: {wrong[:10]}"


def _blackbox_doc(pmf_of: Mechanism | None, seed: int, samples: int, epsilon: str) -> dict[str, Any]:
    t = truncated_geometric("1/2", 3)

    def draw(i: int, size: int, rng: Any) -> list[int]:
        return [int(v) for v in rng.choice(4, size=size, p=[float(p) for p in t.rows[i]])]

    pmf = None if pmf_of is None else [dict(enumerate(row)) for row in pmf_of.rows]
    doc = blackbox_result_doc(
        spec="test",
        library="mechlib",
        n=3,
        samples=samples,
        seed=seed,
        seconds=1.0,
        phases=sample_phases(Sampler("t", draw), 3, samples, seed),
        epsilon=Fraction(epsilon),
        alpha_fa="0.05",
        pmf=pmf,
    )
    out: dict[str, Any] = json.loads(json.dumps(doc))
    return out


def _delta_doc(leak: float, delta: str, seed: int) -> dict[str, Any]:
    """A black-box result with an (ε, δ) test: T at α = 1/2 on 0..3 whose count 1 emits output 9
    with probability ``leak`` (never under its neighbours)."""
    t = truncated_geometric("1/2", 3)

    def draw(i: int, size: int, rng: Any) -> list[int]:
        out = [int(v) for v in rng.choice(4, size=size, p=[float(p) for p in t.rows[i]])]
        return [9 if i == 1 and rng.random() < leak else v for v in out]

    doc = blackbox_result_doc(
        spec="test",
        library="mechlib",
        n=3,
        samples=3000,
        seed=seed,
        seconds=1.0,
        phases=sample_phases(Sampler("t", draw), 3, 3000, seed),
        epsilon=Fraction(1),
        alpha_fa="0.05",
        delta=Fraction(delta),
    )
    out: dict[str, Any] = json.loads(json.dumps(doc))
    return out


@pytest.mark.parametrize(
    ("leak", "delta", "verdict"), [(0.05, "1/100", "violation"), (0.0, "1/100", "no violation found")]
)
def test_every_delta_test_field_is_checked(leak: float, delta: str, verdict: str) -> None:
    doc = _delta_doc(leak, delta, seed=5)
    assert doc["delta_test"]["verdict"] == verdict
    test = doc["delta_test"]

    def oracle(path: Path, old: Any, new: Any) -> bool:
        """Still true: another claimed δ with the same verdict."""
        if path == ("delta_test", "delta"):
            bound = test["delta_lower_bound"]
            return Fraction(new) >= 0 and (
                (bound is not None and Fraction(bound) > Fraction(new)) == (verdict == "violation")
            )
        return False

    total, _, wrong = tamper_all(doc, blackbox_result.check_result, oracle, seed=11, limit=300)
    assert total > 50, total
    assert wrong == [], f"{len(wrong)} harmful tamperings accepted: {wrong[:10]}"


def _same_verdict_on(phases: Any, doc: dict[str, Any], neighbours: Any) -> bool:
    """The producer's DP test between these (valid) neighbours gives the recorded verdict."""
    try:
        pairs = [(int(i), int(j)) for i, j in neighbours]
    except (TypeError, ValueError):
        return False
    repeated = len(set(map(frozenset, pairs))) < len(pairs)
    if repeated or any(i == j or not (0 <= i <= 3 and 0 <= j <= 3) for i, j in pairs):
        return False
    redo = dp_test(phases, Fraction(doc["dp"]["epsilon"]), "0.05", pairs)
    return bool(redo["verdict"] == doc["dp"]["verdict"] and redo["hypotheses"] == doc["dp"]["hypotheses"])


def _six_decimals(text: str) -> bool:
    import re

    return re.fullmatch(r"[0-9]+\.[0-9]{6}", text) is not None


def _still_a_failing_interval(doc: dict[str, Any], changed: dict[str, Any], x: int) -> bool:
    """A looser, still verified Clopper–Pearson interval of the x-th cell outside that still excludes
    the claimed value."""
    from mechlib.checkers.blackbox_result import lower_ok, upper_ok

    c, cell = changed["conformance"], doc["conformance"]["outside"][x]
    try:
        low, up = (Fraction(v) for v in c["outside"][x]["interval"])
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    k, n, delta = cell["count"], cell["samples"], Fraction(c["alpha_fa"]) / (2 * c["cells"])
    claimed = Fraction(cell["claimed"])
    return lower_ok(k, n, low, delta) and upper_ok(k, n, up, delta) and not low <= claimed <= up


@pytest.mark.parametrize(
    ("name", "pmf", "epsilon", "samples"),
    [
        ("violation (ε claimed 0.3), conformant", truncated_geometric("1/2", 3), "0.3", 2000),
        # 200 samples: 8 cells outside, each re-verified per tampering by arb's incomplete beta, whose
        # time grows with the samples (2000: 16 cells, 335 s)
        ("no violation, nonconformant pmf", randomized_response("1/2", 4), "1", 200),
    ],
)
def test_every_blackbox_result_field_is_checked(name: str, pmf: Mechanism, epsilon: str, samples: int) -> None:
    doc = _blackbox_doc(pmf, seed=3, samples=samples, epsilon=epsilon)
    assert (doc["dp"]["verdict"] == "violation") == (epsilon == "0.3")

    counts = [{int(k): v for k, v in h.items()} for h in doc["counts"]]
    phases = tuple([{int(k): v for k, v in h.items()} for h in doc[f"{p}_counts"]] for p in ("selection", "test"))

    def oracle(path: Path, old: Any, new: Any) -> bool:
        """Still true: the producer's own test on the same counts gives the recorded verdict at the
        changed ε or against the changed (valid) pmf."""
        if path[:2] == ("conformance", "pmf"):
            rows = [{int(s): Fraction(p) for s, p in row.items()} for row in _set(doc, path, new)["conformance"]["pmf"]]
            valid = all(min(r.values()) >= 0 and sum(r.values()) == 1 for r in rows)
            return valid and bool(conformance_test(counts, rows)["verdict"] == doc["conformance"]["verdict"])
        if path[:2] == ("conformance", "outside") and path[3] == "interval":
            return _still_a_failing_interval(doc, _set(doc, path, new), path[2])
        if path[0] == "neighbours":  # other pairs: still true if the test on them gives the same verdict
            return _same_verdict_on(phases, doc, _set(doc, path, new)["neighbours"])
        if path == ("dp", "epsilon_lower_bound", "epsilon"):  # a smaller (weaker) lower bound
            return isinstance(new, str) and _six_decimals(new) and Fraction(new) <= Fraction(old)
        return False

    total, rejected, wrong = tamper_all(doc, blackbox_result.check_result, oracle, seed=7)
    assert total > 50, total
    assert wrong == [], f"{len(wrong)} harmful tamperings accepted: {wrong[:10]}"
    print(f"{name}: {rejected}/{total} tamperings rejected")


def test_forged_blackbox_violations_are_rejected() -> None:
    """The adversary's cases from the issue: a fabricated violation with a negative index, faked
    sample sizes, a real violation deleted with the verdict set clean, a verdict with no object."""
    doc = _blackbox_doc(None, seed=3, samples=2000, epsilon="0.3")
    real = doc["dp"]["violation"]
    assert real is not None
    forged = copy.deepcopy(doc)
    forged["dp"]["violation"]["inputs"] = [0, -1]
    assert blackbox_result.check_result(forged)
    forged = copy.deepcopy(doc)
    forged["dp"]["violation"]["counts"] = [real["counts"][0] + 10**9, 0]
    assert blackbox_result.check_result(forged)
    forged = copy.deepcopy(doc)
    forged["dp"]["violation"], forged["dp"]["verdict"] = None, "no violation found"
    assert any("no violation" in f for f in blackbox_result.check_result(forged))
    forged = copy.deepcopy(doc)
    forged["dp"]["violation"] = None
    assert blackbox_result.check_result(forged)
    clean = _blackbox_doc(None, seed=3, samples=2000, epsilon="1")
    assert clean["dp"]["verdict"] == "no violation found" and blackbox_result.check_result(clean) == []
    glaring = copy.deepcopy(clean)
    for key in ("counts", "test_counts"):
        glaring[key][0] = {"0": 2000}
        glaring[key][1] = {"3": 2000}
    glaring["selection_counts"][0], glaring["selection_counts"][1] = {}, {}
    assert blackbox_result.check_result(glaring)  # counts with a glaring violation, verdict kept


def test_rng_is_numpy() -> None:  # the samplers above draw with numpy's Generator, as sample_counts does
    assert isinstance(np.random.default_rng(0), np.random.Generator)


def test_every_bracket_certificate_field_is_checked() -> None:
    """SY Example 1's bracket certificate (a small instance): every leaf tampered; accepted only
    when the oracle shows the certificate still true — a bound made weaker (a larger upper or a
    smaller lower bound is still a bound) or the duals changed into another witness of the bound
    (weak duality: the checker recomputes the bound from whatever nonnegative duals it is given)."""
    from mechlib.checkers import bracket_certificate
    from mechlib.infodesign.cell_lp import bracket
    from mechlib.infodesign.school_planning import Example, certificate, histogram_graph

    small = Example(households=6, probabilities=(Fraction("0.85"), Fraction("0.12"), Fraction("0.03")))
    doc = json.loads(json.dumps(certificate(small, (4, 2), bracket(histogram_graph(small, (4, 2)), Fraction(1, 2)))))

    def weaker(path: Path, old: Any, new: Any) -> bool:
        if path[0] == "duals":  # another dual witness; the checker recomputes the bound it proves
            return True
        if path == ("upper",):
            return Fraction(new) >= Fraction(old)
        if path == ("lower",):
            return Fraction(new) <= Fraction(old)
        return False

    total, rejected, wrong = tamper_all(doc, bracket_certificate.check_certificate, weaker, seed=11, limit=60)
    assert total > 50, total
    assert wrong == [], f"{len(wrong)} harmful tamperings accepted: {wrong[:10]}"
    print(f"bracket: {rejected}/{total} tamperings rejected, the rest weaker bounds or other dual witnesses")


def test_a_delta_tests_epsilon_and_delta_are_read_within_their_ranges() -> None:
    """δ = 0 and δ = 1 and ε = 0, 1/2 are read (other checks then decide); δ = 3/2, ε < 0 and a
    field too many are malformed, in one line naming delta_test."""
    doc = _delta_doc(0.0, "1/100", seed=5)
    assert blackbox_result.check_result(doc) == []
    ranges = "delta_test: expected ε ≥ 0 and δ in [0, 1]"
    for field, value in (("delta", "0"), ("delta", "1"), ("epsilon", "0"), ("epsilon", "1/2")):
        tampered = copy.deepcopy(doc)
        tampered["delta_test"][field] = value
        assert not any(ranges in f for f in blackbox_result.check_result(tampered)), (field, value)
    for field, value in (("delta", "3/2"), ("epsilon", "-1")):
        tampered = copy.deepcopy(doc)
        tampered["delta_test"][field] = value
        assert any(ranges in f for f in blackbox_result.check_result(tampered)), (field, value)
    tampered = copy.deepcopy(doc)
    tampered["delta_test"]["extra"] = 1
    assert any("delta_test" in f and "malformed" in f for f in blackbox_result.check_result(tampered))


def test_a_delta_tests_bound_on_e_to_the_epsilon_may_be_up_to_ten_to_the_minus_ten_above() -> None:
    """e^ε with ε = 1 is 2.718281828459045235360…: an upper bound 5·10⁻¹¹ above it is accepted, one
    2·10⁻¹⁰ above it or one below it is not."""
    doc = _delta_doc(0.0, "1/100", seed=5)
    bound = "delta_test.e_epsilon_upper is not an upper bound on e^ε within 10⁻¹⁰"
    cases = (("271828182850904523536", True), ("271828182865904523536", False), ("271828182800000000000", False))
    for digits, accepted in cases:
        value = f"{digits}/{10**20}"
        tampered = copy.deepcopy(doc)
        tampered["delta_test"]["e_epsilon_upper"] = value
        assert (bound not in blackbox_result.check_result(tampered)) is accepted, value


def test_a_delta_violation_needs_both_clopper_pearson_bounds_verified() -> None:
    """A forger raises the violating event's L (or lowers its U) and restates L − t·U to match: the
    verdict stays a violation, and only the check of each bound, alone, sees the forgery."""
    doc = _delta_doc(0.1, "1/100", seed=5)
    test = doc["delta_test"]
    assert test["verdict"] == "violation" and blackbox_result.check_result(doc) == []
    t = Fraction(test["e_epsilon_upper"])
    low, up = Fraction(test["event"]["lower_bound"]), Fraction(test["event"]["upper_bound"])
    for forged_low, forged_up in ((low + (1 - low) / 2, up), (low, up / 2)):
        tampered = copy.deepcopy(doc)
        tampered["delta_test"]["event"].update(lower_bound=str(forged_low), upper_bound=str(forged_up))
        tampered["delta_test"]["delta_lower_bound"] = str(forged_low - t * forged_up)
        assert blackbox_result.check_result(tampered) == [
            "delta_test.event: L or U is not a verified Clopper–Pearson bound at α_FA/2"
        ], (forged_low, forged_up)
