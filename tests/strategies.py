"""Small Hypothesis strategies for the kernel's tests (exact values, shrinking to small n)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from mechlib import BayesUser, Loss, Mechanism, MinimaxUser, Prior, Remap, truncated_geometric


@st.composite
def alphas(draw: st.DrawFn, max_denominator: int = 12) -> Fraction:
    """Exact α in (0, 1)."""
    q = draw(st.integers(2, max_denominator))
    p = draw(st.integers(1, q - 1))
    return Fraction(p, q)


@st.composite
def stochastic_rows(draw: st.DrawFn, rows: int, columns: int, sparse: bool = True) -> list[list[Fraction]]:
    low = 0 if sparse else 1
    result = []
    for _ in range(rows):
        weights = draw(st.lists(st.integers(low, 9), min_size=columns, max_size=columns).filter(any))
        total = sum(weights)
        result.append([Fraction(w, total) for w in weights])
    return result


@st.composite
def remaps(draw: st.DrawFn, inputs: tuple[int, ...], guesses: int) -> Remap:
    return Remap(draw(stochastic_rows(len(inputs), guesses)), inputs=inputs)


@st.composite
def mechanisms(draw: st.DrawFn, max_n: int = 5, positive: bool = False) -> Mechanism:
    """Any row-stochastic matrix on inputs 0..n (DP level anywhere in [0, 1])."""
    n = draw(st.integers(1, max_n))
    width = draw(st.integers(1, max_n + 2))
    return Mechanism(draw(stochastic_rows(n + 1, width, sparse=not positive)))


@st.composite
def dp_mechanisms(draw: st.DrawFn, max_n: int = 5) -> tuple[Fraction, Mechanism]:
    """(α, X) with X = Y∘T an α-DP mechanism (GRS Lemma 5.2)."""
    alpha = draw(alphas())
    n = draw(st.integers(1, max_n))
    t = truncated_geometric(alpha, n)
    from mechlib import compose

    return alpha, compose(draw(remaps(t.outputs, draw(st.integers(1, n + 2)))), t)


@st.composite
def legal_losses(draw: st.DrawFn, n: int, strict: bool = False) -> Loss:
    """l(i, j) = profile_i(|j − i|) with each profile nondecreasing (strictly if ``strict``)."""
    low = 1 if strict else 0
    rows = []
    for _ in range(n + 1):
        steps = draw(st.lists(st.integers(low, 4), min_size=n, max_size=n))
        profile = [sum(steps[:d]) for d in range(n + 1)]
        rows.append(profile)
    return Loss.from_function(n, lambda i, j: rows[i][abs(j - i)])


@st.composite
def priors(draw: st.DrawFn, n: int, full_support: bool = False) -> Prior:
    low = 1 if full_support else 0
    weights = draw(st.lists(st.integers(low, 6), min_size=n + 1, max_size=n + 1).filter(any))
    return Prior.from_weights(weights)


@st.composite
def bayes_users(draw: st.DrawFn, max_n: int = 6) -> BayesUser:
    n = draw(st.integers(1, max_n))
    return BayesUser(draw(priors(n)), draw(legal_losses(n)))


@st.composite
def minimax_users(draw: st.DrawFn, max_n: int = 5) -> MinimaxUser:
    n = draw(st.integers(1, max_n))
    side = draw(st.sets(st.integers(0, n), min_size=1))
    return MinimaxUser(side, draw(legal_losses(n)))


@st.composite
def dp_mixtures(draw: st.DrawFn, max_n: int = 6) -> tuple[Fraction, Mechanism]:
    """(α, λ·RR + (1−λ)·Y∘T): α-DP (a mixture of α-DP mechanisms), derivable from T or not
    depending on λ (randomized response is not derivable for k ≥ 3)."""
    from mechlib import compose, randomized_response

    alpha = draw(alphas(max_denominator=6))
    n = draw(st.integers(2, max_n))
    t = truncated_geometric(alpha, n)
    mixed = compose(draw(remaps(t.outputs, n + 1)), t)
    lam = Fraction(draw(st.integers(0, 8)), 8)
    rr = randomized_response(alpha, n + 1)
    return alpha, Mechanism([[lam * a + (1 - lam) * b for a, b in zip(r, s)] for r, s in zip(rr.rows, mixed.rows)])
