"""GRS Theorem A.2's approximate half decided for every legal user with a nonnegative loss at
every n ≤ 5 (three α), by the paper's proof: the pointwise noise bound for every integer d
(symbolic), T as the clamped geometric mechanism (exact), T's universal optimality (the remap-cell
certificates). Each step can fail, and the hypothesis it needs (a nonnegative loss) is necessary."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from mechlib.core.families import truncated_geometric
from mechlib.core.users import BayesUser, Loss, Prior
from mechlib.proofs.catalogue import Strength
from mechlib.proofs.grs import theorem_a_2
from mechlib.proofs.registry import Verdict, run_part
from mechlib.proofs.shared.remap_cells import ALPHAS


def test_the_pointwise_bound_holds_for_every_integer_d() -> None:
    outcome = theorem_a_2.pointwise_bound()
    assert outcome.verdict == Verdict.PROVED, outcome.evidence


def test_noise_rounded_down_breaks_the_pointwise_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(theorem_a_2, "rounding_cell", lambda d: (d, d + 1))
    outcome = theorem_a_2.pointwise_bound()
    assert outcome.verdict == Verdict.REFUTED
    assert {next(iter(f)) for f in outcome.evidence["failures"]} == {
        "d ≥ 1: equality",
        "d ≤ −1: equality",
        "d = 0: the gap is (1−√α)²/(2√α) ≥ 0",
    }


def test_t_is_the_clamped_geometric_mechanism_and_a_noisier_t_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    assert theorem_a_2.t_is_clamped_geometric(3, ALPHAS) == []

    def noisier(alpha: Any, n: int) -> Any:
        return truncated_geometric((1 + Fraction(alpha)) / 2, n)

    monkeypatch.setattr(theorem_a_2, "truncated_geometric", noisier)
    assert theorem_a_2.t_is_clamped_geometric(2, ALPHAS)


def test_a_negative_legal_loss_breaks_the_factor() -> None:
    """The paper's proof needs ℓ ≥ 0: the constant loss −1 is legal and the bound fails."""
    control = theorem_a_2.negative_loss_control()
    assert control["legal"] and control["fails"]


def test_the_fuzz_hypothesis_rejects_a_negative_loss() -> None:
    negative = BayesUser(Prior.uniform(1), Loss.from_function(1, lambda i, j: -1))
    assert "negative loss" in (theorem_a_2._legal((Fraction(1, 2), negative)) or "")
    zero_one = BayesUser(Prior.uniform(1), Loss.from_function(1, lambda i, j: int(i != j)))
    assert theorem_a_2._legal((Fraction(1, 2), zero_one)) is None


def test_the_approximate_half_is_bounded_and_measured() -> None:
    outcome = run_part(theorem_a_2.exact_laplace_within_factor)
    assert outcome.verdict == Verdict.PROVED, outcome.reason
    (scope,) = outcome.scopes
    assert scope.measured and scope.strength == Strength.BOUNDED and scope.covers == theorem_a_2.APPROXIMATE
    assert scope.n == f"1 ≤ n ≤ {theorem_a_2.LARGEST_N} (every n)"
