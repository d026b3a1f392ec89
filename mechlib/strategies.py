"""Public Hypothesis strategies for fuzzing DP mechanisms and their users, all exact.

Use them in your own test suite to check your mechanisms against the theory::

    from hypothesis import given
    from mechlib import dp_level
    from mechlib.strategies import alphas, dp_mixtures

    @given(dp_mixtures())
    def test_my_property(case):
        alpha, mechanism = case
        assert dp_level(mechanism).alpha >= alpha

Every value is a ``Fraction`` (or an exact mechanism, prior, loss); draws shrink towards small
n and small denominators. Legal losses follow GRS §2.2; DP mechanisms are α-DP by construction
(remaps of T, GRS Lemma 5.2, mixed with randomized response, which is not derivable from T).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.users import BayesUser, Loss, MinimaxUser, Prior

__all__ = [
    "alphas", "bayes_users", "boundary_payoffs", "dp_mechanisms", "dp_mixtures", "dp_vertices", "extreme_alphas",
    "illegal_losses", "legal_losses", "mechanisms", "minimax_users", "oblivious_dp_cases", "payoffs", "priors",
    "refinements_of_t", "register_type_strategies", "remaps", "side_information", "stochastic_rows",
]  # fmt: skip


def _integer(name: str, value: object, low: int) -> None:
    """An argument's check, as Hypothesis's own strategies do it: InvalidArgument naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidArgument(f"{name}={value!r}: expected an integer ≥ {low}")


@st.composite
def alphas(draw: st.DrawFn, max_denominator: int = 12) -> Fraction:
    """Exact α in (0, 1)."""
    _integer("max_denominator", max_denominator, 2)
    q = draw(st.integers(2, max_denominator))
    p = draw(st.integers(1, q - 1))
    return Fraction(p, q)


@st.composite
def stochastic_rows(draw: st.DrawFn, rows: int, columns: int, sparse: bool = True) -> list[list[Fraction]]:
    """Exact probability rows (zeros allowed when ``sparse``)."""
    _integer("rows", rows, 0)
    _integer("columns", columns, 1)
    low = 0 if sparse else 1
    result = []
    for _ in range(rows):
        weights = draw(st.lists(st.integers(low, 9), min_size=columns, max_size=columns).filter(any))
        total = sum(weights)
        result.append([Fraction(w, total) for w in weights])
    return result


@st.composite
def remaps(draw: st.DrawFn, inputs: tuple[int, ...], guesses: int) -> Remap:
    """A randomized remap from ``inputs`` (a mechanism's outputs) to guesses 0..guesses−1."""
    _integer("guesses", guesses, 1)
    return Remap(draw(stochastic_rows(len(inputs), guesses)), inputs=inputs)


@st.composite
def mechanisms(draw: st.DrawFn, max_n: int = 5, positive: bool = False) -> Mechanism:
    """Any row-stochastic matrix on inputs 0..n (DP level anywhere in [0, 1])."""
    _integer("max_n", max_n, 1)
    n = draw(st.integers(1, max_n))
    width = draw(st.integers(1, max_n + 2))
    return Mechanism(draw(stochastic_rows(n + 1, width, sparse=not positive)))


@st.composite
def dp_mechanisms(draw: st.DrawFn, max_n: int = 5) -> tuple[Fraction, Mechanism]:
    """(α, X) with X = Y∘T an α-DP mechanism (GRS Lemma 5.2)."""
    _integer("max_n", max_n, 1)
    alpha = draw(alphas())
    n = draw(st.integers(1, max_n))
    t = truncated_geometric(alpha, n)
    from mechlib.core.stochastic import compose

    return alpha, compose(draw(remaps(t.outputs, draw(st.integers(1, n + 2)))), t)


@st.composite
def legal_losses(draw: st.DrawFn, n: int, strict: bool = False) -> Loss:
    """l(i, j) = profile_i(|j − i|) with each profile nondecreasing (strictly if ``strict``)."""
    _integer("n", n, 0)
    low = 1 if strict else 0
    rows = []
    for _ in range(n + 1):
        steps = draw(st.lists(st.integers(low, 4), min_size=n, max_size=n))
        profile = [sum(steps[:d]) for d in range(n + 1)]
        rows.append(profile)
    return Loss.from_function(n, lambda i, j: rows[i][abs(j - i)])


@st.composite
def priors(draw: st.DrawFn, n: int, full_support: bool = False) -> Prior:
    """Exact priors on 0..n (sparse, point masses and uniform included unless ``full_support``)."""
    _integer("n", n, 0)
    low = 1 if full_support else 0
    weights = draw(st.lists(st.integers(low, 6), min_size=n + 1, max_size=n + 1).filter(any))
    return Prior.from_weights(weights)


@st.composite
def bayes_users(draw: st.DrawFn, max_n: int = 6) -> BayesUser:
    """A Bayesian user (prior, legal loss) on 0..n, n ≤ max_n."""
    _integer("max_n", max_n, 1)
    n = draw(st.integers(1, max_n))
    return BayesUser(draw(priors(n)), draw(legal_losses(n)))


@st.composite
def minimax_users(draw: st.DrawFn, max_n: int = 5) -> MinimaxUser:
    """A minimax user (nonempty side information S, legal loss) on 0..n, n ≤ max_n."""
    _integer("max_n", max_n, 1)
    n = draw(st.integers(1, max_n))
    side = draw(st.sets(st.integers(0, n), min_size=1))
    return MinimaxUser(side, draw(legal_losses(n)))


@st.composite
def dp_mixtures(draw: st.DrawFn, max_n: int = 6) -> tuple[Fraction, Mechanism]:
    """(α, λ·RR + (1−λ)·Y∘T): α-DP (a mixture of α-DP mechanisms), derivable from T or not
    depending on λ (randomized response is not derivable for k ≥ 3)."""
    _integer("max_n", max_n, 2)
    from mechlib.core.families import randomized_response
    from mechlib.core.stochastic import compose

    alpha = draw(alphas(max_denominator=6))
    n = draw(st.integers(2, max_n))
    t = truncated_geometric(alpha, n)
    mixed = compose(draw(remaps(t.outputs, n + 1)), t)
    lam = Fraction(draw(st.integers(0, 8)), 8)
    rr = randomized_response(alpha, n + 1)
    return alpha, Mechanism([[lam * a + (1 - lam) * b for a, b in zip(r, s)] for r, s in zip(rr.rows, mixed.rows)])


@st.composite
def payoffs(draw: st.DrawFn, states: int, supermodular: bool | None = True) -> list[list[Fraction]]:
    """u[a][ω] for 2–4 ordered actions: u(a, ω) = r(a) + c(ω) + Σ_{i<a, j<ω} d(i, j).

    d ≥ 0 makes u supermodular (SY §5); ``supermodular=False`` forces one d < 0 (a negative
    control: then u is not supermodular); None lets d take any sign."""
    _integer("states", states, 2 if supermodular is False else 1)
    actions = draw(st.integers(2, 4))
    low = 0 if supermodular else -4
    d = [[draw(st.integers(low, 4)) for _ in range(states - 1)] for _ in range(actions - 1)]
    if supermodular is False:
        i, j = draw(st.integers(0, actions - 2)), draw(st.integers(0, states - 2))
        d[i][j] = -draw(st.integers(1, 4))
    r = [draw(st.integers(-6, 6)) for _ in range(actions)]
    c = [draw(st.integers(-3, 3)) for _ in range(states)]
    return [
        [Fraction(r[a] + c[w] + sum(d[i][j] for i in range(a) for j in range(w))) for w in range(states)]
        for a in range(actions)
    ]


def boundary_payoffs(states: int) -> st.SearchStrategy[list[list[Fraction]]]:
    """Supermodular payoffs on the boundary of supermodularity: every increment d(i, j) is 0 (a
    modular payoff, u(a, ω) = r(a) + c(ω)) except at most one, which is 1."""
    _integer("states", states, 1)

    @st.composite
    def draw_one(draw: st.DrawFn) -> list[list[Fraction]]:
        actions = draw(st.integers(2, 4))
        d = [[0] * (states - 1) for _ in range(actions - 1)]
        if states > 1 and draw(st.booleans()):
            d[draw(st.integers(0, actions - 2))][draw(st.integers(0, states - 2))] = 1
        r = [draw(st.integers(-6, 6)) for _ in range(actions)]
        c = [draw(st.integers(-3, 3)) for _ in range(states)]
        return [
            [Fraction(r[a] + c[w] + sum(d[i][j] for i in range(a) for j in range(w))) for w in range(states)]
            for a in range(actions)
        ]

    return draw_one()


@st.composite
def oblivious_dp_cases(draw: st.DrawFn, max_n: int = 5) -> tuple[Fraction, list[Fraction], Mechanism]:
    """(α, μ₀, σ): a full-support prior on ω = 0..N and an oblivious α-DP mechanism σ(s | ω) for
    categorical data (T = 1, so SY's DP is GRS's on 0..N): DP mixtures, derivable or not."""
    _integer("max_n", max_n, 2)
    alpha, sigma = draw(dp_mixtures(max_n=max_n))
    return alpha, list(draw(priors(sigma.n, full_support=True)).probabilities), sigma


@st.composite
def extreme_alphas(draw: st.DrawFn) -> Fraction:
    """α in (0, 1) including values near 0 and near 1 (1/1000, 999/1000, …)."""
    near_zero = st.integers(2, 1000).map(lambda q: Fraction(1, q))
    near_one = st.integers(2, 1000).map(lambda q: Fraction(q - 1, q))
    return draw(st.one_of(alphas(), near_zero, near_one))


@st.composite
def illegal_losses(draw: st.DrawFn, n: int) -> Loss:
    """A loss that is *not* legal (GRS §2.2): some row decreases away from the truth — for negative
    controls. Needs n ≥ 1."""
    _integer("n", n, 1)
    rows = [list(r) for r in draw(legal_losses(n)).matrix]
    i = draw(st.integers(0, n))
    j = draw(st.sampled_from([k for k in range(n + 1) if k != i]))
    nearer = j - 1 if j > i else j + 1
    rows[i][nearer] = rows[i][j] + draw(st.integers(1, 3))  # j is farther from i, yet cheaper
    return Loss(rows)


@st.composite
def side_information(draw: st.DrawFn, n: int) -> frozenset[int]:
    """A nonempty side-information set S ⊆ {0..n} (GS §2.4): singletons, intervals, anything."""
    _integer("n", n, 0)
    return frozenset(draw(st.sets(st.integers(0, n), min_size=1)))


@st.composite
def refinements_of_t(draw: st.DrawFn, max_n: int = 8) -> tuple[Fraction, Mechanism, Remap]:
    """(α, X, Y) with X = T split into finer outputs and Y∘X = T exactly (GRS Thm 3.2's "if"):
    each output r of T becomes 1–3 outputs with random exact weights; Y merges them back."""
    _integer("max_n", max_n, 1)
    alpha = draw(alphas())
    n = draw(st.integers(1, max_n))
    t = truncated_geometric(alpha, n)
    parts = [draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)) for _ in t.outputs]
    weights = [[Fraction(w, sum(p)) for w in p] for p in parts]
    x = Mechanism([[v * w for v, ws in zip(row, weights) for w in ws] for row in t.rows])
    owner = [r for r, ws in enumerate(weights) for _ in ws]
    y = Remap.deterministic(lambda k: owner[k], tuple(range(len(owner))), tuple(t.outputs))
    return alpha, x, y


@st.composite
def dp_vertices(draw: st.DrawFn, max_n: int = 5) -> tuple[Fraction, Mechanism]:
    """(α, X): X a certified optimal vertex of the α-DP polytope for a random objective — a random
    prior and an arbitrary (usually illegal) loss, so X is often *not* derivable from T."""
    _integer("max_n", max_n, 1)
    from mechlib.optimality.optimal import optimal_bayes_mechanism

    alpha = draw(alphas(max_denominator=6))
    n = draw(st.integers(1, max_n))
    loss = Loss([[draw(st.integers(0, 9)) for _ in range(n + 1)] for _ in range(n + 1)])
    return alpha, optimal_bayes_mechanism(BayesUser(draw(priors(n, full_support=True)), loss), alpha).mechanism


def register_type_strategies() -> None:
    """Teach ``st.from_type`` mechlib's types (done by the pytest plugin): ``Mechanism`` → an α-DP
    mechanism (:func:`dp_mixtures`), ``Prior`` → :func:`priors`, ``Loss`` → :func:`legal_losses`,
    ``BayesUser`` → :func:`bayes_users`, ``MinimaxUser`` → :func:`minimax_users` (n ≤ 5)."""
    # functions of the type, so that nothing is built while pytest loads its plugins
    st.register_type_strategy(Mechanism, lambda _: dp_mixtures(max_n=5).map(lambda case: case[1]))
    st.register_type_strategy(Prior, lambda _: st.integers(1, 5).flatmap(priors))
    st.register_type_strategy(Loss, lambda _: st.integers(1, 5).flatmap(legal_losses))
    st.register_type_strategy(BayesUser, lambda _: bayes_users(max_n=5))
    st.register_type_strategy(MinimaxUser, lambda _: minimax_users(max_n=5))
