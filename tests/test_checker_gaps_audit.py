"""Tests that kill mutants of mechlib/checkers/audit_certificate.py (the independent checker of
white-box audit certificates) which tests/test_audit_certificate.py and tests/test_tampering.py
leave alive (``python3 dev.py mutate``, reports/checker_mutation.md): GS Lemma 2's rows of T⁻¹
and the derivability test Y = T⁻¹·M recomputed in Fractions from the producer's T (n = 1, long
α, Y over unreduced denominators), row comparisons over long denominators, the tails by distance
at an input outside the outputs, T's digit limit at its boundary, a SOURCE whose claim differs or
whose neighbours are tuples, sparse remaps one row short or long or with a repeated column, and the
standard users written with their loss matrices. benchmarks/checker_mutation_equivalent.json
argues why each mutant these tests leave alive changes nothing."""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mechlib import randomized_response, truncated_geometric
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit
from mechlib.checkers import numbers
from mechlib.checkers.audit_certificate import (
    _int_tails,
    _is_inverse_t_times,
    _same_values,
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


def _audit(mech: Mechanism, claimed: Fraction | None = None) -> dict[str, Any]:
    loaded = LoadedMechanism(mech, "test", "json", "0" * 64, claimed_alpha=claimed)
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
    doc = _audit(mech, claimed=Fraction(1, 2))
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
