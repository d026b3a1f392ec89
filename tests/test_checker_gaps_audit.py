"""Tests that kill mutants of mechlib/checkers/audit_certificate.py (the independent checker of
white-box audit certificates) which tests/test_audit_certificate.py and tests/test_tampering.py
leave alive (``python3 dev.py mutate``, reports/checker_mutation.md): GS Lemma 2's rows of T⁻¹
and the derivability test Y = T⁻¹·M recomputed in Fractions from the producer's T (n = 1, long
α, Y over unreduced denominators), row comparisons over long denominators, the tails by distance
at an input outside the outputs, T's digit limit at its boundary, a SOURCE whose claim differs or
whose neighbours are tuples, sparse remaps one row short or long or with a repeated column, and the
standard users written with their loss matrices; then (second round) claims of α, ε and δ at
the ends of their ranges and past them, ε against e^−ε in balls (256 bits, touching balls), the
witness (none, labels the mechanism lacks, an output neither input gives) and the mechanism's
matrix sparse or a row off; then (third round) GS Theorem 2's non-derivability witness at every
entry of T⁻¹·I (negative, zero, positive; end rows and inner ones), witnesses outside the mechanism
or malformed, the one-pass hexadecimal row reader and the applicability failure's wording.
benchmarks/checker_mutation_equivalent.json argues why each mutant
these tests leave alive changes nothing."""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import flint
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mechlib.core.exact
from mechlib import exponential, randomized_response, truncated_geometric
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit
from mechlib.checkers import numbers
from mechlib.checkers.audit_certificate import (
    BOUNDARY,
    INTERIOR,
    _check_claim,
    _check_derivation,
    _hex_row,
    _int_tails,
    _is_inverse_t_times,
    _same_values,
    _status,
    _t_fits,
    _t_inverse_row,
    check_certificate,
)
from mechlib.checkers.fields import IntRows, Malformed, Q
from mechlib.checkers.standard_users import t_rows
from mechlib.core.mechanism import Mechanism
from mechlib.core.users import absolute_loss, binary_loss, squared_loss

#: α = p/q with short and long p, q (past 2⁶⁴: a float quotient or product of them is inexact)
ALPHAS = st.integers(2, 2**90).flatmap(lambda q: st.integers(1, q - 1).map(lambda p: Fraction(p, q)))
LONG_ALPHA = Fraction(2**70 + 1, 3**45)


def _audit(
    mech: Mechanism, *, alpha: Fraction | None = None, epsilon: Fraction | None = None, delta: Fraction | None = None
) -> dict[str, Any]:
    """The producer's certificate of ``mech`` with the claimed level given (α or ε, and δ), checked clean."""
    loaded = LoadedMechanism(
        mech, "test", "json", "0" * 64, claimed_alpha=alpha, claimed_epsilon=epsilon, claimed_delta=delta
    )
    doc: dict[str, Any] = json.loads(json.dumps(audit(loaded, ())))
    assert check_certificate(doc) == []
    return doc


def _t(alpha: Fraction, n: int) -> list[list[Fraction]]:
    """T from the producer (mechlib.core.families), not from the checker."""
    return [[Fraction(x) for x in row] for row in truncated_geometric(alpha, n).rows]


def _rows(matrix: list[list[Fraction]], factor: int = 1) -> IntRows:
    """Integer rows over each row's least common denominator times ``factor`` (unreduced when > 1)."""
    den = [math.lcm(*(x.denominator for x in row)) * factor for row in matrix]
    return IntRows(den, [[int(x * d) for x in row] for row, d in zip(matrix, den)])


def _fraction(x: Any) -> Fraction:
    return Fraction(int(x.p), int(x.q))


@settings(max_examples=40, deadline=None)
@given(alpha=ALPHAS, n=st.integers(1, 5))
@example(alpha=Fraction(2, 7), n=1)
@example(alpha=Fraction(2, 7), n=3)
def test_each_row_of_t_inverse_times_t_is_a_row_of_the_identity(alpha: Fraction, n: int) -> None:
    """GS Lemma 2's row r of T⁻¹ (the non-derivability witness's ``inverse_row``, recomputed by the
    checker) times the producer's T is e_r exactly, at the end rows (n = 1: both rows are ends) too."""
    t = _t(alpha, n)
    for r in range(n + 1):
        w = list(map(_fraction, _t_inverse_row(Q(alpha.numerator, alpha.denominator), n, r)))
        assert [sum(w[k] * t[k][j] for k in range(n + 1)) for j in range(n + 1)] == [int(j == r) for j in range(n + 1)]


@settings(max_examples=40, deadline=None)
@given(
    alpha=ALPHAS,
    n=st.integers(1, 4),
    weights=st.lists(st.lists(st.integers(0, 5), min_size=2, max_size=3), min_size=5, max_size=5),
    factor=st.sampled_from([1, 2, 1_000_003]),
    wrong=st.integers(0, 4),
)
@example(alpha=Fraction(2, 7), n=1, weights=[[1, 2]] * 5, factor=1, wrong=1)  # n = 1: row 1 alone is wrong
@example(alpha=Fraction(2, 7), n=3, weights=[[1, 2, 0]] * 5, factor=1_000_003, wrong=0)  # Y unreduced
@example(alpha=LONG_ALPHA, n=2, weights=[[1, 2, 3]] * 5, factor=1, wrong=2)  # multipliers past 2⁵³
def test_derivability_accepts_t_inverse_m_and_nothing_else(
    alpha: Fraction, n: int, weights: list[list[int]], factor: int, wrong: int
) -> None:
    """``_is_inverse_t_times``: M = T·Y (T the producer's) with Y stochastic, its rows written over
    their least denominators times ``factor`` (1,000,003: a prime in Y's denominators that T's lack),
    is recognised as Y = T⁻¹M at any α (long ones: every integer product past a float's 53 bits);
    a Y differing from it in one row (row n at n = 1: an end row) is not."""
    width = len(weights[0])
    padded = [(row + [0] * width)[:width] for row in weights[: n + 1]]
    y = [[Fraction(v + (c == 0), sum(row) + 1) for c, v in enumerate(row)] for row in padded]
    t = _t(alpha, n)
    m = [[sum((t[i][s] * y[s][r] for s in range(n + 1)), Fraction(0)) for r in range(width)] for i in range(n + 1)]
    q_alpha = Q(alpha.numerator, alpha.denominator)
    assert _is_inverse_t_times(_rows(y, factor), _rows(m), q_alpha)
    s = min(wrong, n)
    other = [Fraction(int(c == (0 if y[s][0] != 1 else 1))) for c in range(width)]
    assert not _is_inverse_t_times(_rows([*y[:s], other, *y[s + 1 :]], factor), _rows(m), q_alpha)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(st.lists(st.integers(0, 2**70), min_size=1, max_size=3).filter(any), min_size=1, max_size=3),
    factors=st.tuples(*[st.sampled_from([1, 3, 2**64 + 13, 10**30 + 7])] * 2),
)
@example(rows=[[1, 2]], factors=(1, 2**64 + 13))
@example(rows=[[1, 2]], factors=(2**64 + 13, 1))
def test_rows_over_other_denominators_compare_exactly(rows: list[list[int]], factors: tuple[int, int]) -> None:
    """``_same_values`` (SOURCE's matrix against the certificate's): the same rational rows over
    denominators scaled by long factors are equal, and one numerator more in one row is not."""
    matrix = [[Fraction(v, sum(row)) for v in row] for row in rows]
    a, b = _rows(matrix, factors[0]), _rows(matrix, factors[1])
    assert _same_values(a, b) and _same_values(b, a)
    off = IntRows(b.den, [[b.num[0][0] + 1, *b.num[0][1:]], *b.num[1:]])
    assert not _same_values(a, off) and not _same_values(off, a)


@settings(max_examples=60, deadline=None)
@given(row=st.lists(st.integers(0, 9), min_size=1, max_size=5), i=st.integers(-2, 7), shift=st.sampled_from([0, -1, 2]))
@example(row=[1, 2], i=2, shift=0)  # input 2 just past the outputs 0..1
def test_tails_by_distance_are_the_suffix_sums_up_to_top(row: list[int], i: int, shift: int) -> None:
    """``_int_tails``: den·P(|o − i| ≥ k) for k = 0..top, as many as that, against a direct sum —
    for outputs 0..L−1 (the sliced fast path) with i inside, at an end, or past them, and shifted."""
    labels = list(range(shift, shift + len(row)))
    top = max(max(labels) - i, i - min(labels)) + 1
    expected = [sum(x for o, x in zip(labels, row) if abs(o - i) >= k) for k in range(top + 1)]
    assert _int_tails(row, i, labels, top) == expected


def test_t_at_a_level_is_read_up_to_exactly_the_digit_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_t_fits``: T's row denominators b^n·(a + b) at exactly ``MAX_DIGITS`` hexadecimal digits
    are read; at one digit fewer allowed, refused."""
    alpha, n = Q(2, 7), 5
    digits = max(len(format(d, "x")) for d in t_rows(alpha, n).den)
    monkeypatch.setattr(numbers, "MAX_DIGITS", digits)
    _t_fits(alpha, n)
    monkeypatch.setattr(numbers, "MAX_DIGITS", digits - 1)
    with pytest.raises(Malformed, match="T at t_alpha"):
        _t_fits(alpha, n)


def _parsed(mech: Mechanism, claimed: dict[str, str] | None) -> dict[str, Any]:
    """SOURCE as ``mechlib check`` loads it (mechlib/cli/check.py)."""
    num, den = mech.scaled()
    return {
        "matrix": {"denominators": list(den), "numerators": [list(row) for row in num]},
        "inputs": list(mech.inputs),
        "outputs": list(mech.outputs),
        "neighbours": [list(pair) for pair in mech.neighbours],
        "claimed": claimed,
    }


def test_source_is_compared_by_value_its_pairs_as_any_sequence_its_claim_by_value() -> None:
    """``_compare_source``: SOURCE's neighbours as tuples (``Mechanism.neighbours`` as it is) and
    its rows over denominators 2⁶⁴ + 13 times longer are the certificate's; a claimed α of 1/3
    where the certificate claims 1/2 is not (both present, same key: only the values differ)."""
    mech = randomized_response("1/2", 2)
    doc = _audit(mech, alpha=Fraction(1, 2))
    parsed = _parsed(mech, {"alpha": "1/2"})
    assert check_certificate(doc, None, parsed) == []
    assert check_certificate(doc, None, {**parsed, "neighbours": list(mech.neighbours)}) == []
    k = 2**64 + 13
    source = parsed["matrix"]
    longer = {"denominators": [d * k for d in source["denominators"]],
              "numerators": [[v * k for v in row] for row in source["numerators"]]}  # fmt: skip
    assert check_certificate(doc, None, {**parsed, "matrix": longer}) == []
    assert check_certificate(doc, None, {**parsed, "claimed": {"alpha": "1/3"}}) == [
        "the claimed level differs from SOURCE's"
    ]


@pytest.mark.parametrize("field", ["numerators", "columns"])
def test_a_sparse_remap_has_exactly_a_row_per_input_in_each_field(field: str) -> None:
    """M = T(1/2)·Y on 0..3 with Y sparse: the denominators right (4) but the numerators or the
    columns one row short (Y's last row read as zero: M sub-stochastic) or one row long is refused,
    naming that field; so is a column repeated in a row (its two entries summed into one cell)."""
    doc = _audit(truncated_geometric("1/2", 3))
    remap = doc["mechanism"]["matrix"]["remap"]
    assert "columns" in remap and len(remap["denominators"]) == 4
    where = "malformed certificate: mechanism.matrix.remap"
    for rows in (remap[field][:-1], [*remap[field], remap[field][-1]]):
        forged = copy.deepcopy(doc)
        forged["mechanism"]["matrix"]["remap"][field] = rows
        assert check_certificate(forged) == [f"{where}.{field}: expected a list of 4"]
    forged = copy.deepcopy(doc)
    y = forged["mechanism"]["matrix"]["remap"]
    y["denominators"][0], y["numerators"][0], y["columns"][0] = "2", ["1", "1"], [0, 0]
    assert check_certificate(forged) == [f"{where}.columns[0]: expected increasing columns in 0..3, one each"]


def test_the_standard_users_check_with_their_loss_matrices_written_out() -> None:
    """The three standard users (uniform; absolute, squared, binary) with ``loss`` written as the
    matrix (the producer's) instead of by name go through the general user check, which compares it
    with the named loss entry by entry (distances 0..3 tell the three losses apart)."""
    doc = _audit(randomized_response("1/2", 4))
    n = doc["n"]
    users = doc["user_losses"]["users"]
    assert doc["user_losses"]["status"] == "certified" and [u["loss"] for u in users[:3]] == [
        "absolute", "squared", "binary"
    ]  # fmt: skip
    for k, loss in enumerate((absolute_loss(n), squared_loss(n), binary_loss(n))):
        users[k]["loss"] = [[str(loss(i, j)) for j in range(n + 1)] for i in range(n + 1)]
    assert check_certificate(doc) == []
    swapped = copy.deepcopy(doc)  # the squared user with the absolute loss: named wrongly
    swapped["user_losses"]["users"][1]["loss"] = users[0]["loss"]
    assert "user (uniform, squared): the loss is not the squared loss" in check_certificate(swapped)


# Second round: mutants of _check_claim, _check_witness and _int_rows the tests above leave alive.


def _verdict_failures(holds: bool) -> list[str]:
    """What the checker says of a certificate whose claim holds (``holds``) but is recorded the
    other way round, with the other verdict."""
    verdict, claim = ("FAIL", "holds") if holds else ("PASS", "fails")
    return [f"claimed.holds is {not holds}, recomputed {holds}", f"verdict is {verdict!r}, the claim {claim}"]


def _flipped(doc: dict[str, Any]) -> dict[str, Any]:
    forged = copy.deepcopy(doc)
    forged["claimed"]["holds"] = not doc["claimed"]["holds"]
    forged["verdict"] = "FAIL" if doc["verdict"] == "PASS" else "PASS"
    return forged


#: Mechanisms at the DP levels 1/2 (randomized response, no zero), 1/3 (T) and 1 (T at 1: every row
#: (1/2, 0, 1/2), so an output no input gives)
LEVELS = {"1/2": randomized_response("1/2", 3), "1/3": truncated_geometric("1/3", 2), "1": truncated_geometric(1, 2)}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("epsilon", ["0", "1/2", "1", "3/2", "3"])
def test_a_claimed_epsilon_holds_exactly_when_alpha_is_at_least_e_to_the_minus_epsilon(
    level: str, epsilon: str
) -> None:
    """A claimed ε (0: holds at α = 1 alone; 1/2 and 1: below 1; up to 3) holds iff α ≥ e^−ε, recomputed
    here in 50-digit decimals (ε = 0 exactly: e^0 = 1); the checker accepts the producer's verdict
    and refuses it reversed, naming both fields."""
    alpha, eps = Fraction(level), Fraction(epsilon)
    with localcontext() as ctx:
        ctx.prec = 50
        holds = Decimal(alpha.numerator) / alpha.denominator >= (-Decimal(eps.numerator) / eps.denominator).exp()
    doc = _audit(LEVELS[level], epsilon=eps)
    assert doc["dp_level"] == level and doc["claimed"] == {"epsilon": epsilon, "holds": holds}
    assert check_certificate(_flipped(doc)) == _verdict_failures(holds)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("claimed", ["0", "1/3", "1/2", "1"])
def test_a_claimed_alpha_holds_exactly_when_the_level_is_at_least_it(level: str, claimed: str) -> None:
    """A claimed α anywhere in [0, 1], both ends included, holds iff the DP level is at least it."""
    holds = Fraction(level) >= Fraction(claimed)
    doc = _audit(LEVELS[level], alpha=Fraction(claimed))
    assert doc["claimed"] == {"alpha": claimed, "holds": holds}
    assert check_certificate(_flipped(doc)) == _verdict_failures(holds)


@pytest.mark.parametrize("which", ["alpha", "epsilon"])
@pytest.mark.parametrize("delta", ["0", "1/8", "1"])
def test_a_claimed_delta_anywhere_in_0_1_is_decided_by_the_profile(which: str, delta: str) -> None:
    """(ε, δ) and (α, δ) claims with δ = 0, 1/8 or 1 (both ends of [0, 1] are claims) are read and
    decided at the profile's tightest α at δ; reversed, they fail; without the approximate_dp
    section (the profile) a claimed δ is a failure, not silently passed."""
    mech = randomized_response("1/2", 3)
    doc = _audit(mech, **{which: Fraction(1, 3) if which == "alpha" else Fraction(1)}, delta=Fraction(delta))
    assert doc["claimed"]["delta"] == delta
    assert check_certificate(_flipped(doc)) == _verdict_failures(doc["claimed"]["holds"])
    bare = copy.deepcopy(doc)
    bare["approximate_dp"] = None
    assert check_certificate(bare) == ["a claimed δ needs the approximate_dp section (the privacy profile)"]


@pytest.mark.parametrize(
    ("field", "text", "problem"),
    [("alpha", "3/2", "is not in [0, 1]"), ("delta", "3/2", "is not in [0, 1]"), ("epsilon", "-1", "is negative")],
)
def test_a_claimed_level_out_of_its_range_is_refused_naming_it(field: str, text: str, problem: str) -> None:
    """α and δ past 1 (by half: not a near miss) and a negative ε are malformed, the field named."""
    level = "epsilon" if field == "epsilon" else "alpha"
    doc = _audit(randomized_response("1/2", 3), **{level: Fraction(1, 3)}, delta=Fraction(1, 8))
    doc["claimed"][field] = text
    assert check_certificate(doc) == [f"malformed certificate: claimed.{field}: {text} {problem}"]


def test_the_epsilon_claim_is_decided_at_256_bits_and_undecided_inside_that_ball(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """α = e^−ε·(1 ± 3·2⁻²⁵⁶) is within the 256-bit balls' reach of e^−ε (not separated: the
    failure says so, as the checker's message promises 256 bits — at 257 these are separated),
    α = e^−ε·(1 ± 2⁻²⁴⁰) is decided (above: holds). e^−ε is taken from arb at 1000 bits, far
    closer than either offset."""
    for eps in (Fraction(1), Fraction(1, 3), Fraction(5, 2)):
        monkeypatch.setattr(flint.ctx, "prec", 1000)
        mid = _fraction((-flint.arb(Q(eps.numerator, eps.denominator))).exp().mid().fmpq())
        for sign in (1, -1):
            claim = {"epsilon": str(eps), "holds": sign > 0}
            near = mid * (1 + sign * Fraction(3, 2**256))
            assert _check_claim(claim, "PASS", Q(near.numerator, near.denominator), False, None) == [
                "could not separate α from e^-ε at 256 bits"
            ]
            far = mid * (1 + sign * Fraction(1, 2**240))
            verdict = "PASS" if sign > 0 else "FAIL"
            assert _check_claim(claim, verdict, Q(far.numerator, far.denominator), False, None) == []


class _Ball:
    """An exact interval with arb's comparisons (true iff true for every pair of points), for
    ``flint.arb`` in ``_check_claim``: ``exp`` gives ``_Ball.exp_of``, a chosen enclosure of e^−ε."""

    exp_of: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0))

    def __init__(self, value: Any) -> None:
        self.lo = self.hi = _fraction(Q(value))

    def __neg__(self) -> _Ball:
        return self

    def exp(self) -> _Ball:
        ball = _Ball(0)
        ball.lo, ball.hi = _Ball.exp_of
        return ball

    def __gt__(self, other: _Ball) -> bool:
        return self.lo > other.hi

    def __ge__(self, other: _Ball) -> bool:
        return self.lo >= other.hi

    def __lt__(self, other: _Ball) -> bool:
        return self.hi < other.lo

    def __le__(self, other: _Ball) -> bool:
        return self.hi <= other.lo


@pytest.mark.parametrize("side", [1, -1])
def test_balls_that_touch_leave_the_epsilon_claim_undecided(monkeypatch: pytest.MonkeyPatch, side: int) -> None:
    """α's ball touching e^−ε's (arb: α ≥ e^−ε, or ≤, is then certain but > and < are not) decides
    nothing: α at the top of e^−ε's enclosure must not be read as α < e^−ε (a FAIL for a claim that
    holds), nor at its bottom as decided; strictly outside it, the claim is decided."""
    alpha = Fraction(1, 2)
    width = Fraction(1, 2**40)
    monkeypatch.setattr(flint, "arb", _Ball)
    monkeypatch.setattr(_Ball, "exp_of", (alpha - width, alpha) if side > 0 else (alpha, alpha + width))
    for verdict in ("PASS", "FAIL"):
        claim = {"epsilon": "1", "holds": verdict == "PASS"}
        assert _check_claim(claim, verdict, Q(1, 2), False, None) == ["could not separate α from e^-ε at 256 bits"]
    monkeypatch.setattr(
        _Ball, "exp_of", (alpha - 2 * width, alpha - width) if side > 0 else (alpha + width, alpha + 2 * width)
    )
    verdict = "PASS" if side > 0 else "FAIL"
    assert _check_claim({"epsilon": "1", "holds": side > 0}, verdict, Q(1, 2), False, None) == []


def test_a_mechanism_with_neighbours_needs_a_witness_with_labels_it_has() -> None:
    """No witness, or one naming an input (alone) or an output (alone) the mechanism lacks, fails
    with its own message (never a KeyError read as malformed)."""
    doc = _audit(randomized_response("1/2", 3))
    missing = {**doc, "witness": None}
    assert check_certificate(missing) == ["a mechanism with neighbouring inputs needs a DP witness"]
    for field, value in (("inputs", [0, 7]), ("inputs", [7, 0]), ("output", 7)):
        forged = copy.deepcopy(doc)
        forged["witness"][field] = value
        assert check_certificate(forged) == ["the witness names an input or output the mechanism does not have"]


def test_a_witness_at_an_output_neither_input_gives_attains_level_1() -> None:
    """At T(1) (every row (1/2, 0, 1/2): the DP level 1), a witness at output 1, which both inputs
    give with probability 0, has the ratio 0/0 read as 1: it attains the level; a ratio of 0 or 2
    recorded there is not the matrix's."""
    doc = _audit(truncated_geometric(1, 2))
    assert doc["dp_level"] == "1"
    doc["witness"] = {"inputs": [1, 0], "output": 1, "probabilities": ["0", "0"], "ratio": "1"}
    assert check_certificate(doc) == []
    for ratio in ("0", "2"):
        forged = copy.deepcopy(doc)
        forged["witness"]["ratio"] = ratio
        assert check_certificate(forged) == ["the witness's probabilities or ratio are not the matrix's"]


def _with_zero_output() -> dict[str, Any]:
    """Randomized response (α = 1/2) on 0..2 with a fourth output no input gives: count query, so
    every finding reads M, and a zero in every row."""
    rows = [[Fraction(v, 4) for v in row] for row in ([2, 1, 1, 0], [1, 2, 1, 0], [1, 1, 2, 0])]
    return _audit(Mechanism(rows))


def test_a_sparse_mechanism_matrix_reads_its_unlisted_entries_as_zero() -> None:
    """The mechanism's matrix written sparse (each row's nonzeros and their columns) is the same
    M: the certificate checks as it does dense."""
    doc = _with_zero_output()
    dense = doc["mechanism"]["matrix"]
    assert all(row[-1] == "0" for row in dense["numerators"])
    doc["mechanism"]["matrix"] = {
        "denominators": dense["denominators"],
        "numerators": [[v for v in row if v != "0"] for row in dense["numerators"]],
        "columns": [[c for c, v in enumerate(row) if v != "0"] for row in dense["numerators"]],
    }
    assert check_certificate(doc) == []


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("extra", [-1, 1])
def test_a_mechanism_matrix_has_exactly_a_row_per_input(sparse: bool, extra: int) -> None:
    """The matrix with a row fewer or one more than the 3 inputs (a stochastic copy of the last
    row; dense: in its numerators alone, sparse: in every field) is malformed, the field named."""
    doc = _with_zero_output()
    matrix = doc["mechanism"]["matrix"]
    if sparse:
        matrix["columns"] = [list(range(4))] * 3
    fields = ["denominators", "numerators", "columns"] if sparse else ["numerators"]
    for field in fields:
        rows = matrix[field]
        matrix[field] = rows[:-1] if extra < 0 else [*rows, rows[-1]]
    where = "mechanism.matrix" if sparse else "mechanism.matrix.numerators"
    assert check_certificate(doc) == [f"malformed certificate: {where}: expected a list of 3"]


def _text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _derivation(level: Fraction, n: int, violation: dict[str, Any] | None = None, **fields: Any) -> list[str]:
    """``_check_derivation`` on M = I (n + 1 outputs): T⁻¹M = T⁻¹, negative beside the diagonal,
    positive on it and 0 elsewhere (n ≥ 2), so every kind of entry is at hand."""
    eye = IntRows([1] * (n + 1), [[int(i == j) for j in range(n + 1)] for i in range(n + 1)])
    d = {"status": "not derivable", "alpha": _text(level), "violation": violation, **fields}
    q_alpha = Q(level.numerator, level.denominator)
    return _check_derivation(d, eye, list(range(n + 1)), {o: o for o in range(n + 1)}, q_alpha, n, True, None)


def _witness(alpha: Fraction, n: int, row: int, output: int) -> dict[str, Any]:
    """The witness of GS Theorem 2 at (row, output) of T⁻¹·I, T⁻¹ inverted from the producer's T."""
    inv = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in _t(alpha, n)]).inv()
    w = [_fraction(inv[row, k]) for k in range(n + 1)]
    boundary = row in (0, n)
    entry = w[output]  # (T⁻¹·I)[row][output]
    return {
        "row": row,
        "output": output,
        "condition": BOUNDARY if boundary else INTERIOR,
        "value": _text(entry * ((1 - alpha) if boundary else (1 - alpha) ** 2)),
        "entry": _text(entry),
        "inverse_row": list(map(_text, w)),
    }


NOT_GIVEN = "the non-derivability witness does not give its negative entry of T⁻¹M"


@settings(max_examples=15, deadline=None)
@given(alpha=ALPHAS, n=st.integers(1, 4))
@example(alpha=Fraction(2, 7), n=3)
def test_a_non_derivability_witness_holds_exactly_at_a_negative_entry_with_its_own_condition(
    alpha: Fraction, n: int
) -> None:
    """Every (row, output) of T⁻¹·I, the end rows 0 and n included: the witness recomputed exactly is
    accepted iff its entry is negative (0 and positive entries are not witnesses); the boundary
    factor and condition swapped for the interior ones (and back) are refused."""
    for row in range(n + 1):
        for output in range(n + 1):
            v = _witness(alpha, n, row, output)
            negative = Fraction(v["entry"]) < 0
            assert _derivation(alpha, n, v) == ([] if negative else [NOT_GIVEN]), (row, output)
            boundary = row in (0, n)
            swapped = {
                **v,
                "condition": INTERIOR if boundary else BOUNDARY,
                "value": _text(Fraction(v["entry"]) * ((1 - alpha) ** 2 if boundary else (1 - alpha))),
            }
            assert _derivation(alpha, n, swapped) == [NOT_GIVEN]
            for field in ("condition", "value"):
                assert _derivation(alpha, n, {**v, field: swapped[field]}) == [NOT_GIVEN]


def test_a_non_derivability_witness_outside_the_mechanism_or_malformed_is_refused_naming_it() -> None:
    """A row outside 0..n (-1 indexes T⁻¹ from the end, n + 1 past it) or an output the mechanism does
    not have is named as such; a wrong α is named; an inverse_row of another length and an entry or
    value that is not a number are bad input naming the field."""
    alpha, n = Fraction(2, 7), 3
    v = _witness(alpha, n, 1, 0)
    outside = "the non-derivability witness names a row or output the mechanism does not have"
    for bad in ({"row": -1}, {"row": n + 1}, {"output": n + 1}):
        assert _derivation(alpha, n, {**v, **bad}) == [outside]
    assert _derivation(alpha, n, v, alpha="1/3") == ["derivation.alpha is not the DP level"]
    with pytest.raises(Malformed, match=r"^inverse_row: expected a list of 4$"):
        _derivation(alpha, n, {**v, "inverse_row": [*v["inverse_row"], "0"]})
    with pytest.raises(Malformed, match=r"^inverse_row: expected a list of 4$"):
        _derivation(alpha, n, {**v, "inverse_row": "0"})
    for field in ("entry", "value"):
        with pytest.raises(Malformed, match=rf"^derivation\.violation\.{field}: "):
            _derivation(alpha, n, {**v, field: "x"})


def test_a_derivation_of_another_form_is_bad_input() -> None:
    """An unknown status or a derivation that is not an object, and a remap Y with a row more than
    the mechanism's inputs, are refused as bad input naming the field."""
    alpha, n = Fraction(2, 7), 2
    for d in ({"status": "maybe", "reason": "r"}, ["derivable"]):
        with pytest.raises(Malformed, match=r"^derivation: expected a status of"):
            _check_derivation(d, IntRows([1], [[1]]), [0], {0: 0}, Q(2, 7), n, True, None)
    identity = [[str(int(i == j)) for j in range(n + 1)] for i in range(n + 2)]  # Y = I of M = T, a row more
    remap = {"denominators": ["1"] * (n + 2), "numerators": identity}
    derivable = {"status": "derivable", "alpha": _text(alpha), "remap": remap}
    with pytest.raises(Malformed, match=r"^derivation\.remap: expected a list of 3$"):
        _check_derivation(derivable, _rows(_t(alpha, n)), [0, 1, 2], {0: 0, 1: 1, 2: 2}, Q(2, 7), n, True, None)


def test_a_hex_row_takes_exactly_comma_free_non_empty_entries_and_names_the_bad_one() -> None:
    """The one-pass reader of a row of hexadecimal integers: an empty row is empty; an entry with
    commas inside or an empty entry between others is refused as the entry-by-entry reader refuses it,
    naming the first bad entry by its index."""
    assert _hex_row([], "w") == []
    assert _hex_row(["1f", "0", "a"], "w") == [31, 0, 10]
    for texts, k in ((["1,2,3"], 0), (["1,2", "3,4"], 0), (["1", "", "2"], 1), (["1", "g"], 1)):
        with pytest.raises(Malformed, match=rf"^w\[{k}\]: expected at most"):
            _hex_row(texts, "w")


@pytest.mark.parametrize("applicable", [True, False])
def test_a_finding_reported_against_its_applicability_says_which_way(applicable: bool) -> None:
    """'not applicable' where the finding is defined, or certified where it is not, is a failure
    saying whether the finding is defined for this mechanism."""
    failures: list[str] = []
    status = "not applicable" if applicable else "certified"
    finding = {"status": status, "reason": "r"} if applicable else {"status": status}
    assert _status(finding, "dominance", applicable, True, failures) != "certified"
    defined = "defined" if applicable else "not defined"
    assert failures == [f"dominance is reported {status} although it is {defined} for this mechanism"]


# fourth round (issue 32 item 5): a bracketed user whose guess the floats leave open


def test_a_bracketed_users_column_left_open_by_the_floats_is_decided_on_the_mechanisms_integers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The exponential mechanism on 0..12 (α = 8191/20476) with a 14th output no input gives, under
    a digit limit of 60: the exact optima do not fit, so each user is bracketed; at the zero
    column every guess loses 0, a tie M's float bounds (one ulp about 0) cannot prove, so that column
    is decided on M's integer rows (``_enclosed_loss``) — and the certificate checks."""
    monkeypatch.setattr(mechlib.core.exact, "MAX_DIGITS", 60)
    monkeypatch.setattr(numbers, "MAX_DIGITS", 60)
    rows = [[*row, Fraction(0)] for row in exponential("1/2", 12).rows]
    doc = _audit(Mechanism(rows))
    assert [isinstance(u["optimum"], dict) for u in doc["user_losses"]["users"]] == [True] * 3
