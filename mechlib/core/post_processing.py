"""Post-processing by a user: posteriors, the optimal remap and expected losses (GRS §2.2–2.3).

For a Bayesian user the optimal remap is deterministic (GRS §2.3): after output r, take the
posterior q_i ∝ p_i·x[i][r] and guess the j minimising Σ_i q_i·l(i, j). All exact.
"""

from __future__ import annotations

import math
from fractions import Fraction

from mechlib.core.remap import Remap
from mechlib.core.stochastic import Label, StochasticMatrix, compose, integer_product
from mechlib.core.users import BayesUser, MinimaxUser, Prior
from mechlib.errors import InputError


def posterior(mechanism: StochasticMatrix, prior: Prior, output: Label) -> tuple[Fraction, ...] | None:
    """The Bayes posterior over inputs after seeing ``output``, or None if it has probability 0."""
    r = mechanism.output_index(output)
    joint = [p * row[r] for p, row in zip(prior.probabilities, mechanism.rows)]
    total = sum(joint)
    return None if total == 0 else tuple(x / total for x in joint)


def guess_costs(mechanism: StochasticMatrix, user: BayesUser) -> tuple[tuple[int, ...], ...]:
    """C[r][j] ∝ Σ_i p_i·x[i][r]·l(i, j): the user's expected loss, jointly with output r, of
    guessing j, scaled by one positive integer so the whole matrix is integral.

    One exact integer matrix product (python-flint for large sizes).
    """
    _check_inputs(mechanism, user.n)
    num, den = mechanism.scaled()
    loss_rows = user.loss.matrix
    loss_den = [math.lcm(*(v.denominator for v in row)) for row in loss_rows]
    weights = [p / (d * ld) for p, d, ld in zip(user.prior.probabilities, den, loss_den)]
    common = math.lcm(*(w.denominator for w in weights))
    scale = [w.numerator * (common // w.denominator) for w in weights]
    right = [[k * (v.numerator * (ld // v.denominator)) for v in row] for k, ld, row in zip(scale, loss_den, loss_rows)]
    return integer_product(list(zip(*num)), right)


def optimal_remap(mechanism: StochasticMatrix, user: BayesUser) -> Remap:
    """The optimal deterministic remap of ``mechanism`` for a Bayesian user (GRS §2.3).

    Output r is read as a guess j ∈ 0..n minimising Σ_i p_i·x[i][r]·l(i, j). Ties (including
    outputs of probability 0, where every guess ties) are broken by a fixed rule: keep r
    itself if it is a minimiser (accept at face value), else the minimiser nearest to r, the
    smaller on equal distance (for non-integer labels, the smallest minimiser).
    """
    costs = guess_costs(mechanism, user)
    guesses = range(user.n + 1)
    mapping = {}
    for label, row in zip(mechanism.outputs, costs):
        best = min(row)
        winners = [j for j in guesses if row[j] == best]
        if label in winners:
            mapping[label] = label
        elif isinstance(label, int) and not isinstance(label, bool):
            mapping[label] = min(winners, key=lambda j: (abs(j - label), j))
        else:
            mapping[label] = winners[0]
    return Remap.deterministic(mapping, mechanism.outputs, list(guesses))


def expected_loss(
    mechanism: StochasticMatrix, user: BayesUser | MinimaxUser, remap: StochasticMatrix | None = None
) -> Fraction:
    """The user's exact loss with ``remap`` (default: outputs taken at face value).

    Bayesian (GRS eq. 2): Σ_i p_i Σ_j z[i][j]·l(i, j). Minimax (GS eq. 1):
    max_{i ∈ S} Σ_j z[i][j]·l(i, j). Here z = remap∘mechanism, whose outputs must be guesses
    in 0..n.
    """
    z = mechanism if remap is None else compose(remap, mechanism)
    _check_inputs(z, user.n)
    bad = [r for r in z.outputs if not (isinstance(r, int) and 0 <= r <= user.n)]
    if bad:
        raise InputError(
            f"outputs {bad[:5]} are not guesses in 0..{user.n}",
            hint="remap the mechanism's outputs onto 0..n first (e.g. with optimal_remap)",
        )
    loss = user.loss.matrix
    per_input = [
        sum((x * loss[i][r] for x, r in zip(row, z.outputs) if x), Fraction(0)) for i, row in enumerate(z.rows)
    ]
    if isinstance(user, BayesUser):
        return sum((p * v for p, v in zip(user.prior.probabilities, per_input) if p), Fraction(0))
    return max(per_input[i] for i in user.side_information)


def _check_inputs(mechanism: StochasticMatrix, n: int) -> None:
    if mechanism.inputs != tuple(range(n + 1)):
        raise InputError(
            f"the mechanism's inputs are {list(mechanism.inputs)[:6]}…, the user's counts are 0..{n}",
            hint="the user and the mechanism must share the same n",
        )
