"""SMT parts of the claims (z3). A proof is UNSAT of the claim's negation, with solver
statistics; a SAT answer's model is re-checked exactly before it counts as a counterexample;
``unknown`` or a timeout is UNKNOWN with z3's reason.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.privacy import dp_level
from mechlib.optimality.smt import dp_matrix, exact, q
from proofs.catalogue import SMT, Strength
from proofs.certified_examples import GS_APPENDIX_B
from proofs.registry import Outcome, Scope, Verdict, bounded, check, instances
from proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query

# -- T is α-DP for symbolic α (GRS-E2.2, GRS-E2.1) ---------------------------------------------


def geometric_window_is_dp(n: int, lo: int, hi: int, claimed: Any = None) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ α ∈ (0,1) breaking α-DP of the α-geometric mechanism on outputs lo..hi (lumped tails)?
    Entries are scaled by (1+α) > 0: α^|i−r| at the window's ends, α^|i−r|(1−α) inside.
    ``claimed(α)`` replaces the level checked (negative controls: a level it does not have)."""
    a = z3.Real("alpha")
    level = a if claimed is None else claimed(a)
    solver = smt_query("QF_NRA")
    solver.add(a > 0, a < 1)

    def entry(i: int, r: int) -> z3.ArithRef:
        return a ** abs(i - r) * (1 if r in (lo, hi) else 1 - a)

    violations = []
    for i in range(n):
        for r in range(lo, hi + 1):
            u, v = entry(i, r), entry(i + 1, r)
            violations += [level * u > v, level * v > u]
    solver.add(z3.Or(violations))
    return run(solver)


@check(
    "GRS-E2.1",
    kind=SMT,
    scope=Scope(
        Strength.ALL_N,
        "every n and every output r ∈ ℤ (patterns); windows −n..2n, n ∈ {1, 3, 10}, as cross-checks",
        "symbolic, 0 < α < 1",
        TWO_SOLVERS,
        covers="is α-DP",
    ),
)
def smt_geometric_is_dp() -> Outcome:
    """The α-geometric mechanism on ℤ is α-DP: the entries of rows i, i+1 in column r ∈ ℤ are
    c·α^|i−r| and c·α^|i+1−r| with c = (1−α)/(1+α) > 0 and |i+1−r| − |i−r| = ±1 for all integers —
    the same two patterns as T's (proofs.parametric) — cross-checked on lumped windows."""
    from proofs.parametric import column_factors_positive, exponent_lemma, neighbouring_entries_are_alpha_dp

    parts = {
        "integer lemma over ℤ": exponent_lemma(nonnegative=False),
        "c = (1−α)/(1+α) > 0": column_factors_positive(),
        "pattern r ≤ i": neighbouring_entries_are_alpha_dp(True),
        "pattern r ≥ i+1": neighbouring_entries_are_alpha_dp(False),
    }
    parts |= {f"n={n}, window -{n}..{2 * n}": geometric_window_is_dp(n, -n, 2 * n) for n in (1, 3, 10)}
    return proved_if_unsat(parts)


# -- GS Theorem 2 for symbolic columns --------------------------------------------------------


def derivability_equivalence(
    n: int, alpha: Fraction, middle: Fraction | None = None
) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ an α-DP column x ≥ 0 and y with T·y = x where (y ≥ 0) and (GS's conditions on x) differ?

    GS's conditions: x₀ ≥ αx₁, x_n ≥ αx_{n−1}, (1+α²)x_r ≥ α(x_{r−1}+x_{r+1}) inside; ``middle``
    replaces 1+α² (negative controls).
    """
    size = n + 1
    t = truncated_geometric(alpha, n).rows
    a = q(alpha)
    x = [z3.Real(f"x{i}") for i in range(size)]
    y = [z3.Real(f"y{r}") for r in range(size)]
    solver = smt_query("QF_LRA")
    for i in range(size):
        solver.add(x[i] >= 0, z3.Sum([q(t[i][r]) * y[r] for r in range(size)]) == x[i])
        if i + 1 < size:
            solver.add(a * x[i] <= x[i + 1], a * x[i + 1] <= x[i])
    conditions = [x[0] >= a * x[1], x[n] >= a * x[n - 1]]
    m = 1 + a * a if middle is None else q(middle)
    conditions += [m * x[r] >= a * (x[r - 1] + x[r + 1]) for r in range(1, n)]
    solver.add(z3.And([v >= 0 for v in y]) != z3.And(conditions))
    return run(solver)


@check(
    "GS-T2",
    kind=SMT,
    scope=instances("n ∈ {2, 5, 10, 20}", "α ∈ {1/2, 1/3, 2/3}", TWO_SOLVERS + " (symbolic columns)"),
)
def smt_gs_theorem_2() -> Outcome:
    return proved_if_unsat(
        {
            f"n={n}, α={format_fraction(a)}": derivability_equivalence(n, a)
            for a in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3))
            for n in (2, 5, 10, 20)
        }
    )


# -- GRS Theorem 3.2 ("if"), bounded: ∀X ∃Y dominance, with z3's qsat ---------------------------


def dominance_query(n: int, alpha: Fraction, base: Mechanism) -> tuple[z3.Solver, list[list[z3.ArithRef]]]:
    """Free X: α-DP and stochastic, and no stochastic Y with the error tails of Y∘base below X's
    (CLAIMS.md note 1). UNSAT proves that ``base`` dominates every α-DP mechanism on 0..n."""
    size = n + 1
    ys = [[z3.Real(f"y{r}_{j}") for j in range(size)] for r in range(len(base.outputs))]
    solver = smt_query("LRA")
    xs = dp_matrix(solver, size, alpha)
    solver.add(z3.Not(z3.Exists([v for row in ys for v in row], z3.And(dominated(n, base, xs, ys)))))
    return solver, xs


def dominated(n: int, base: Mechanism, xs: list[list[Any]], ys: list[list[z3.ArithRef]]) -> list[Any]:
    """Y stochastic and P_{Y∘base}(|j−i| ≥ k | i) ≤ P_X(|j−i| ≥ k | i) for all i, k ≥ 1."""
    size, outputs = n + 1, range(len(base.outputs))  # Y: base's outputs → guesses 0..n
    b = base.rows
    constraints: list[Any] = []
    for r in outputs:
        constraints.append(z3.Sum(ys[r]) == 1)
        constraints += [v >= 0 for v in ys[r]]
    for i in range(size):
        for k in range(1, max(i, n - i) + 1):
            tail_y = z3.Sum([q(b[i][r]) * ys[r][j] for r in outputs for j in range(size) if abs(j - i) >= k])
            constraints.append(tail_y <= sum(xs[i][j] for j in range(size) if abs(j - i) >= k))
    return constraints


def recheck_counterexample(n: int, alpha: Fraction, base: Mechanism, model: z3.ModelRef, xs: Any) -> str | None:
    """None if the model's X is exactly α-DP, stochastic and undominated by ``base`` (the last by
    an exact z3 LP with X fixed); else what fails."""
    x = Mechanism([[exact(model.eval(v, model_completion=True)) for v in row] for row in xs])
    if dp_level(x).alpha < alpha:
        return "the counterexample is not α-DP"
    ys = [[z3.Real(f"y{r}_{j}") for j in range(n + 1)] for r in range(len(base.outputs))]
    solver = z3.SolverFor("QF_LRA")  # a re-check of a counterexample, not a proof
    solver.add(dominated(n, base, [[q(v) for v in row] for row in x.rows], ys))
    return None if solver.check() == z3.unsat else "a dominating Y exists for the counterexample"


#: n proved by the claim check, per α: each query takes < 1 s in z3 and in cvc5. At n = 3 z3's
#: qsat answers in < 1 s but cvc5 does not answer in 60 s (its quantifier instantiation), so n = 3
#: has only one solver's word and is left to the benchmark (reports/bench.md), which measures
#: the frontier (n = 4: over 60 s in z3 at every α measured).
LARGEST_N = {Fraction(1, 2): 2, Fraction(1, 3): 2, Fraction(2, 3): 2}


def dominance_proofs(alphas: tuple[Fraction, ...], largest: int | None = None) -> Outcome:
    """UNSAT of the ∀X∃Y dominance query for T, n = 1..LARGEST_N[α] (capped by ``largest``),
    then the negative controls, whose counterexamples are re-checked exactly."""
    parts: dict[str, tuple[z3.CheckSatResult, dict[str, Any]]] = {}
    for alpha in alphas:
        for n in range(1, min(LARGEST_N[alpha], largest or LARGEST_N[alpha]) + 1):
            solver, _ = dominance_query(n, alpha, truncated_geometric(alpha, n))
            parts[f"T, n={n}, α={format_fraction(alpha)}"] = run(solver)
    outcome = proved_if_unsat(parts)
    controls = {
        "GS Appendix B in place of T (n=3)": (3, GS_APPENDIX_B),
        "randomized response in place of T (n=2)": (2, randomized_response(Fraction(1, 2), 3)),
    }
    evidence = dict(outcome.evidence)
    for name, (n, base) in controls.items():
        solver, xs = dominance_query(n, Fraction(1, 2), base)
        answer, ev = run(solver, recheck=lambda model: recheck_counterexample(n, Fraction(1, 2), base, model, xs))  # noqa: B023
        problem = None if answer == z3.sat else f"no counterexample ({ev.get('reason_unknown', ev['answer'])})"
        if problem is not None:
            return Outcome(Verdict.UNKNOWN, evidence, f"negative control {name!r} failed ({problem}): encoding suspect")
        evidence[f"negative control: {name}"] = {**ev, "counterexample": "re-checked exactly"}
    return Outcome(outcome.verdict, evidence, outcome.reason)


@check("GRS-T3.2", kind=SMT, scope=bounded(2, "α ∈ {1/2, 1/3, 2/3}", "z3 qsat + cvc5: ∀X∃Y (the if direction)"))
def smt_grs_theorem_3_2() -> Outcome:
    return dominance_proofs((Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)))


@check("DOM", kind=SMT, scope=bounded(2, "α = 1/2", "z3 qsat + cvc5: ∀X∃Y"))
def smt_dominance() -> Outcome:
    return dominance_proofs((Fraction(1, 2),))


@check("GRS-C3.3", kind=SMT, scope=bounded(2, "α ∈ {1/2, 1/3}", "z3 qsat + cvc5: ∀X∃Y, base = geometric on a window"))
def smt_geometric_dominates() -> Outcome:
    """GRS Cor. 3.3, bounded: the geometric mechanism (range ℤ, on the window −1..n+1 with lumped
    tails) has, for every α-DP X on 0..n, a remap Y whose error tails are nowhere above X's."""
    from mechlib.core.families import geometric

    parts = {}
    for alpha in (Fraction(1, 2), Fraction(1, 3)):
        for n in (1, 2):
            solver, _ = dominance_query(n, alpha, geometric(alpha, n, margin=1))
            parts[f"geometric, n={n}, α={format_fraction(alpha)}"] = run(solver)
    return proved_if_unsat(parts)


# -- GS Definition 2; non-derivability of the appendix matrices ----------------------------------


@check(
    "GS-D2",
    kind=SMT,
    scope=Scope(Strength.ALL_N, "any (one pair of entries)", "symbolic, 0 < α ≤ 1", TWO_SOLVERS),
)
def smt_dp_as_two_term_conditions() -> Outcome:
    """For u, v ≥ 0 and α ∈ (0,1]: the ratio definition (u = v = 0, or both positive with
    α ≤ u/v ≤ 1/α; GRS §2.1 reads 0/0 as 1) ⇔ GS's linear conditions αu ≤ v and αv ≤ u."""
    u, v, a = z3.Reals("u v alpha")
    ratio = z3.Or(z3.And(u == 0, v == 0), z3.And(u > 0, v > 0, u / v >= a, u / v <= 1 / a))
    solver = smt_query("QF_NRA")
    solver.add(u >= 0, v >= 0, a > 0, a <= 1)
    solver.add(ratio != z3.And(a * u <= v, a * v <= u))
    return proved_if_unsat({"pair of entries": run(solver)})


def not_derivable(m: Mechanism, alpha: Fraction) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ stochastic Y with Y∘T = M? (UNSAT: M is not derivable from T.)"""
    n = m.n
    t = truncated_geometric(alpha, n).rows
    ys = [[z3.Real(f"y{r}_{j}") for j in range(len(m.outputs))] for r in range(n + 1)]
    solver = smt_query("QF_LRA")
    for r in range(n + 1):
        solver.add(z3.Sum(ys[r]) == 1, *[v >= 0 for v in ys[r]])
    goal = [
        z3.Sum([q(t[i][r]) * ys[r][j] for r in range(n + 1)]) == q(m.rows[i][j])
        for i in range(n + 1)
        for j in range(len(m.outputs))
    ]
    solver.add(z3.And(goal))  # negated goal: Y∘T = M for a stochastic Y
    return run(solver)


def _dp_violation(m: Mechanism, alpha: Fraction) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """Is some 2-term condition violated (linear, with the exact entries)? A ground query."""
    solver = smt_query("QF_LRA")
    a = q(alpha)
    rows = [[q(x) for x in row] for row in m.rows]
    solver.add(
        z3.Or(
            [
                z3.Or(a * rows[i][j] > rows[i + 1][j], a * rows[i + 1][j] > rows[i][j])
                for i in range(m.n)
                for j in range(len(m.outputs))
            ]
        )
    )
    return run(solver)


@check("GS-AB", kind=SMT)
def smt_gs_appendix_b() -> Outcome:
    half = Fraction(1, 2)
    return proved_if_unsat(
        {"1/2-DP": _dp_violation(GS_APPENDIX_B, half), "not derivable": not_derivable(GS_APPENDIX_B, half)}
    )


@check("GRS-B", kind=SMT)
def smt_grs_appendix_b() -> Outcome:
    from proofs.certified_examples import GRS_FIGURE_5A

    half = Fraction(1, 2)
    return proved_if_unsat(
        {"1/2-DP": _dp_violation(GRS_FIGURE_5A, half), "not derivable": not_derivable(GRS_FIGURE_5A, half)}
    )


@check("GS-T1b", kind=SMT, scope=bounded(2, "α = 1/2", "z3 qsat + cvc5: ∀X∃Y tail dominance"))
def smt_minimax_users() -> Outcome:
    """Bounded: T dominates every α-DP mechanism in every error tail at every input (the
    ∀X∃Y query above), so for every side information S and legal loss the worst case over S
    with T and Y is no larger than with X — GS Theorem 1(b) for all minimax users at once."""
    outcome = dominance_proofs((Fraction(1, 2),))
    return Outcome(
        outcome.verdict, {**outcome.evidence, "why": "tail dominance at every input covers every S"}, outcome.reason
    )


# -- Uniqueness: GRS Lemma 5.12 and Corollary 3.4 (§5.8) ---------------------------------------


def unique_optimum(x: Mechanism, user: Any, alpha: Fraction) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ an α-DP mechanism X′ ≠ x on 0..n whose Bayes loss is ≤ x's? UNSAT: x is the user's
    unique optimal direct mechanism (exact linear arithmetic)."""
    size = len(x.rows)
    p, loss = user.prior.probabilities, user.loss.matrix
    value = sum((p[i] * x.rows[i][j] * loss[i][j] for i in range(size) for j in range(size)), Fraction(0))
    solver = smt_query("QF_LRA")
    xs = dp_matrix(solver, size, alpha)
    no_worse = z3.Sum([q(p[i] * loss[i][j]) * xs[i][j] for i in range(size) for j in range(size)]) <= q(value)
    solver.add(z3.And(no_worse, z3.Or([xs[i][j] != q(x.rows[i][j]) for i in range(size) for j in range(size)])))
    return run(solver)


def lemma_5_12_user(n: int, gamma: Fraction) -> Any:
    """Uniform prior; loss 0 if i = j else 1 + γ|j − i| (GRS Lemma 5.12)."""
    from mechlib.core.users import BayesUser, Loss, Prior

    return BayesUser(Prior.uniform(n), Loss.from_function(n, lambda i, j: 0 if i == j else 1 + gamma * abs(i - j)))


@check("GRS-L5.12", kind=SMT, scope=bounded(6, "α ∈ {1/2, 1/3, 4/5}, γ = 1/100", TWO_SOLVERS))
def smt_t_is_the_unique_optimum() -> Outcome:
    gamma = Fraction(1, 100)
    return proved_if_unsat(
        {
            f"n={n}, α={format_fraction(a)}, γ=1/100": unique_optimum(
                truncated_geometric(a, n), lemma_5_12_user(n, gamma), a
            )
            for a in (Fraction(1, 2), Fraction(1, 3), Fraction(4, 5))
            for n in (1, 2, 3, 4, 5, 6)  # n = 8 took 1.5 s to 13 s per α
        }
    )


@check("GRS-C3.4", kind=SMT, scope=bounded(3, "α ∈ {1/2, 1/3}", TWO_SOLVERS))
def smt_uniqueness_up_to_permutation() -> Outcome:
    """GRS §5.8, bounded, the step of the "only if": a universally optimal X with range N is
    optimal for Lemma 5.12's user, whose unique optimal direct mechanism is T (this part), so Y∘X = T
    for a deterministic Y: N → N; T being nonsingular, Y is a permutation (the EXACT part checks
    that, and the "if": every π∘T has every remap of T)."""
    gamma = Fraction(1, 100)
    parts = {
        f"T unique for Lemma 5.12's user, n={n}, α={format_fraction(a)}": unique_optimum(
            truncated_geometric(a, n), lemma_5_12_user(n, gamma), a
        )
        for a in (Fraction(1, 2), Fraction(1, 3))
        for n in (1, 2, 3)
    }
    return proved_if_unsat(parts)


# -- No mechanism serves two users at once: GRS Appendix C, Brenner–Nissim ----------------------
# If one mechanism X can be remapped (Y₁, Y₂) to serve two users, then Z = (Y₁, Y₂)∘X, a
# mechanism over *pairs* of guesses, is DP (post-processing) and its two marginals serve them;
# conversely such a Z is itself an X (remap by the coordinates). So "no X" is linear: no DP Z.


def pair_mechanism(
    inputs: list[Any], edges: list[tuple[Any, Any]], guesses: int, alpha: Fraction
) -> tuple[z3.Solver, Any]:
    """z3: a DP mechanism Z over (input, (g, h)) with the given neighbour edges (the hypotheses)."""
    solver = smt_query("QF_LRA")
    a = q(alpha)
    z = {d: [[z3.Real(f"z{d}_{g}_{h}") for h in range(guesses)] for g in range(guesses)] for d in inputs}
    for d in inputs:
        solver.add(z3.Sum([v for row in z[d] for v in row]) == 1, *[v >= 0 for row in z[d] for v in row])
    for u, v in edges:
        for g in range(guesses):
            for h in range(guesses):
                solver.add(a * z[u][g][h] <= z[v][g][h], a * z[v][g][h] <= z[u][g][h])
    return solver, z


FIGURE_6 = {  # GRS Appendix C: rows are the databases by the set of rows equal to 1; outputs 1, 2
    "a": {
        (1, 0, 0): ("11/12", "1/12"),
        (0, 1, 0): ("2/3", "1/3"),
        (1, 0, 1): ("5/6", "1/6"),
        (0, 1, 1): ("1/3", "2/3"),
    },
    "b": {
        (1, 0, 0): ("2/3", "1/3"),
        (0, 1, 0): ("11/12", "1/12"),
        (1, 0, 1): ("1/3", "2/3"),
        (0, 1, 1): ("5/6", "1/6"),
    },
}


def remapped_to_both(first: str, second: str) -> tuple[z3.CheckSatResult, dict[str, Any]]:
    """∃ a 1/2-DP mechanism on {0,1}³ (Hamming neighbours) remappable to Figure 6's ``first`` and
    ``second`` mechanisms (guesses 0..3; the figure puts its mass on 1 and 2)?"""
    from itertools import product

    databases = list(product((0, 1), repeat=3))
    edges = [(d, e) for d in databases for e in databases if d < e and sum(x != y for x, y in zip(d, e)) == 1]
    solver, z = pair_mechanism(databases, edges, 4, Fraction(1, 2))
    goal = []
    for d, probs in FIGURE_6[first].items():
        want = [Fraction(0), Fraction(probs[0]), Fraction(probs[1]), Fraction(0)]
        goal += [z3.Sum(z[d][g]) == q(want[g]) for g in range(4)]
    for d, probs in FIGURE_6[second].items():
        want = [Fraction(0), Fraction(probs[0]), Fraction(probs[1]), Fraction(0)]
        goal += [z3.Sum([z[d][g][h] for g in range(4)]) == q(want[h]) for h in range(4)]
    solver.add(z3.And(goal))
    return run(solver)


#: GRS App. C's users: loss |j − i|^(1−δ) and priors over the databases with ε "sufficiently
#: small"; checked at δ = 1/100 and ε = 1/1000.
FIGURE_6_DELTA = Fraction(1, 100)
FIGURE_6_EPSILON = Fraction(1, 1000)


def figure_6_prior(user: str) -> dict[tuple[int, int, int], Fraction]:
    """{1}: 1/4, {2}: 1/4, {1,3}: ε, {2,3}: 1/2 − ε for user a; {1,3} and {2,3} exchanged for b."""
    small, large = FIGURE_6_EPSILON, Fraction(1, 2) - FIGURE_6_EPSILON
    if user == "b":
        small, large = large, small
    return {(1, 0, 0): Fraction(1, 4), (0, 1, 0): Fraction(1, 4), (1, 0, 1): small, (0, 1, 1): large}


def loss_box(delta: Fraction, digits: int = 6) -> list[tuple[Fraction, Fraction]]:
    """Rational enclosures [lo, hi] of d^(1−δ) for d = 2, 3, each containment certified with arb."""
    import flint

    boxes = []
    for d in (2, 3):
        ball = flint.arb(d) ** (1 - flint.arb(delta.numerator) / delta.denominator)
        mid = Fraction(str(ball.mid().str(digits + 4, radius=False)))
        lo, hi = mid - Fraction(1, 10**digits), mid + Fraction(1, 10**digits)
        if not (flint.arb(lo.numerator) / lo.denominator < ball < flint.arb(hi.numerator) / hi.denominator):
            raise RuntimeError(f"the box around {d}^(1−δ) does not contain it")
        boxes.append((lo, hi))
    return boxes


def figure_6_unique_query(user: str, l2: Fraction, l3: Fraction) -> z3.Solver:
    """∃ a 1/2-DP direct mechanism on {0,1}³ with the user's loss ≤ Figure 6(user)'s and differing
    from it on an input of positive prior? (UNSAT: the figure is the unique optimum.)"""
    from itertools import product

    databases = list(product((0, 1), repeat=3))
    edges = [(d, e) for d in databases for e in databases if d < e and sum(x != y for x, y in zip(d, e)) == 1]
    solver = smt_query("QF_LRA")
    a = q(Fraction(1, 2))
    x = {d: [z3.Real(f"x{''.join(map(str, d))}_{j}") for j in range(4)] for d in databases}
    for d in databases:
        solver.add(z3.Sum(x[d]) == 1, *[v >= 0 for v in x[d]])
    for d, e in edges:
        for j in range(4):
            solver.add(a * x[d][j] <= x[e][j], a * x[e][j] <= x[d][j])
    loss = [Fraction(0), Fraction(1), l2, l3]
    prior = figure_6_prior(user)
    figure = {d: [Fraction(0), Fraction(p[0]), Fraction(p[1]), Fraction(0)] for d, p in FIGURE_6[user].items()}

    def expected(rows: Any) -> Any:
        return z3.Sum([q(p * loss[abs(j - sum(d))]) * rows[d][j] for d, p in prior.items() for j in range(4)])

    figure_loss = sum(
        (p * loss[abs(j - sum(d))] * figure[d][j] for d, p in prior.items() for j in range(4)), Fraction(0)
    )
    solver.add(expected(x) <= q(figure_loss))
    solver.add(z3.Or([x[d][j] != q(figure[d][j]) for d in prior for j in range(4)]))  # negated goal
    return solver


@check("GRS-C", kind=SMT)
def smt_no_non_oblivious_mechanism_serves_both() -> Outcome:
    """GRS App. C: Figure 6(a) and 6(b) are the unique optimal direct 1/2-DP mechanisms of their
    users (at δ = 1/100, ε = 1/1000: at the four corners of an arb-certified rational box around
    (2^(1−δ), 3^(1−δ)) — the costs are affine in the two loss values and "uniquely optimal" is a
    convex condition on the costs, so the corners cover the box); and no one mechanism on the
    databases can be remapped to both."""
    parts = {"Figure 6(a) and 6(b) from one mechanism": remapped_to_both("a", "b")}
    (lo2, hi2), (lo3, hi3) = loss_box(FIGURE_6_DELTA)
    for user in ("a", "b"):
        for l2 in (lo2, hi2):
            for l3 in (lo3, hi3):
                where = f"Figure 6({user}) unique optimum, l(2) = {format_fraction(l2)}, l(3) = {format_fraction(l3)}"
                parts[where] = run(figure_6_unique_query(user, l2, l3))
    outcome = proved_if_unsat(parts)
    for alone in ("a", "b"):  # controls: each alone is a DP mechanism on all databases
        answer, ev = remapped_to_both(alone, alone)
        if answer != z3.sat:
            return Outcome(Verdict.UNKNOWN, outcome.evidence, f"control: Figure 6({alone}) alone is not realizable")
        outcome.evidence[f"control: Figure 6({alone}) alone"] = ev
    return outcome


Graph = list[tuple[int, int]]

#: Every connected graph on 3 and 4 vertices, up to isomorphism (on 1 and 2 vertices every
#: connected graph is a path). Vertices are query values 0..k−1; an edge joins two values that
#: neighbouring databases can take (Brenner–Nissim's privacy-constraint graph).
BN_GRAPHS: dict[str, Graph] = {
    "path P3": [(0, 1), (1, 2)],
    "triangle K3": [(0, 1), (1, 2), (0, 2)],
    "path P4": [(0, 1), (1, 2), (2, 3)],
    "star K1,3": [(0, 1), (0, 2), (0, 3)],
    "cycle C4": [(0, 1), (1, 2), (2, 3), (0, 3)],
    "paw": [(0, 1), (1, 2), (0, 2), (2, 3)],
    "diamond": [(0, 1), (1, 2), (2, 3), (0, 3), (0, 2)],
    "complete K4": [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
}
BN_ALPHAS = (Fraction(1, 2), Fraction(1, 3))


def is_path(edges: Graph, k: int) -> bool:
    """Brenner–Nissim's condition: the graph on 0..k−1 is a path (connected, k − 1 edges, every
    degree ≤ 2) — as a set of edges, whatever the labels."""
    degree = [sum(v in e for e in edges) for v in range(k)]
    seen, stack = {0}, [0]
    while stack:
        u = stack.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == u and y not in seen:
                    seen.add(y)
                    stack.append(y)
    return len(seen) == k and len(edges) == k - 1 and max(degree) <= 2


#: The characterization checked (a mutant replaces it with a wrong one).
BN_CONDITION = is_path

User = tuple[list[Fraction], Any]


def bn_users(k: int, edges: Graph) -> list[tuple[str, User]]:
    """Candidate users on 0..k−1: priors uniform on all values or on one pair; losses binary,
    |i − j| and (i − j)² on the labels, and the graph distance."""
    far = k  # unreachable never happens on a connected graph
    dist = [[0 if i == j else far for j in range(k)] for i in range(k)]
    for a, b in edges:
        dist[a][b] = dist[b][a] = 1
    for m in range(k):
        for i in range(k):
            for j in range(k):
                dist[i][j] = min(dist[i][j], dist[i][m] + dist[m][j])
    priors = [("uniform", [Fraction(1, k)] * k)] + [
        (f"on {{{u},{v}}}", [Fraction(1, 2) if w in (u, v) else Fraction(0) for w in range(k)])
        for u in range(k)
        for v in range(u + 1, k)
    ]
    losses: list[tuple[str, Callable[[int, int], int]]] = [
        ("binary", lambda i, j: int(i != j)),
        ("|i−j|", lambda i, j: abs(i - j)),
        ("(i−j)²", lambda i, j: (i - j) ** 2),
        ("graph distance", lambda i, j: dist[i][j]),
    ]
    return [(f"{pn} prior, {ln} loss", (prior, loss)) for pn, prior in priors for ln, loss in losses]


def serves_both(
    edges: Graph, k: int, users: list[User], alpha: Fraction, optima: list[Fraction] | None = None
) -> z3.Solver:
    """The query: ∃ a DP Z on inputs 0..k−1 (the given privacy graph) whose two marginals reach
    each user's exact optimal loss over DP mechanisms on the same graph?"""
    solver, z = pair_mechanism(list(range(k)), edges, k, alpha)
    best = optima or [optimal_loss_on_graph(edges, k, prior, loss, alpha) for prior, loss in users]
    goal = []
    for which, ((prior, loss), value) in enumerate(zip(users, best)):
        cost = [q(prior[i] * loss(i, (g, h)[which])) * z[i][g][h] for i in range(k) for g in range(k) for h in range(k)]
        goal.append(z3.Sum(cost) <= q(value))
    solver.add(z3.And(goal))
    return solver


def optimal_loss_on_graph(edges: Graph, k: int, prior: list[Fraction], loss: Any, alpha: Fraction) -> Fraction:
    """The exact optimal Bayes loss over α-DP mechanisms on inputs 0..k−1 with this graph (z3)."""
    opt = z3.Optimize()
    xs = dp_matrix(opt, k, alpha, edges=edges)
    objective = z3.Sum([q(prior[i] * loss(i, j)) * xs[i][j] for i in range(k) for j in range(k)])
    opt.minimize(objective)
    if opt.check() != z3.sat:
        raise RuntimeError(f"z3 could not solve the {k}-input LP")
    return exact(opt.model().eval(objective))


def path_order(edges: Graph, k: int) -> list[int] | None:
    """The vertices of a path graph from one end to the other (None if the graph is not a path)."""
    ends = [v for v in range(k) if sum(v in e for e in edges) == 1]
    if len(edges) != k - 1 or len(ends) != 2:
        return None
    order = [ends[0]]
    while len(order) < k:
        step = [b if a == order[-1] else a for a, b in edges if order[-1] in (a, b)]
        fresh = [v for v in step if v not in order]
        if len(fresh) != 1:
            return None
        order.append(fresh[0])
    return order


def t_loss(order: list[int], prior: list[Fraction], loss: Any, alpha: Fraction) -> Fraction:
    """The loss of T (along the path's ``order``) with its optimal deterministic remap."""
    k = len(order)
    t = truncated_geometric(alpha, k - 1).rows
    position = {v: p for p, v in enumerate(order)}
    return sum(
        (min(sum((prior[i] * t[position[i]][r] * loss(i, g) for i in range(k)), Fraction(0)) for g in range(k))
         for r in range(k)),
        Fraction(0),
    )  # fmt: skip


@check("BN-path", kind=SMT, scope=instances("connected graphs on 3 and 4 vertices", "1/2, 1/3", TWO_SOLVERS))
def smt_only_paths_admit_universal_mechanisms() -> Outcome:
    """Brenner–Nissim on every connected graph with 3 or 4 vertices, α ∈ {1/2, 1/3}: where
    ``BN_CONDITION`` (a path) holds, T is optimal for every candidate user (its optimal remap's
    loss equals the exact optimum over DP mechanisms on the graph, GRS Thm 3.2); where it does
    not, two candidate users are found that no single DP mechanism serves both optimally (z3
    finds the pair, then the query is decided by both solvers, non-vacuous)."""
    parts: dict[str, tuple[z3.CheckSatResult, dict[str, Any]]] = {}
    failures: list[dict[str, Any]] = []
    separated: dict[str, dict[str, str]] = {}
    for name, edges in BN_GRAPHS.items():
        k = 1 + max(v for e in edges for v in e)
        users = bn_users(k, edges)
        universal = BN_CONDITION(edges, k)
        for alpha in BN_ALPHAS:
            where = f"{name}, α={format_fraction(alpha)}"
            optima = [optimal_loss_on_graph(edges, k, prior, loss, alpha) for _, (prior, loss) in users]
            order = path_order(edges, k)
            if universal and order is not None:
                worse = [
                    label
                    for (label, (prior, loss)), best in zip(users, optima)
                    if t_loss(order, prior, loss, alpha) != best
                ]
                if worse:
                    failures.append({"graph": where, "T is not optimal for": worse[:3]})
                continue
            pair = _separating_pair(edges, k, users, optima, alpha)
            if universal:  # said to admit one, yet not a path: no two candidate users may be separated
                if pair is not None:
                    found = [users[i][0] for i in pair[0]]
                    failures.append({"graph": where, "said universal, yet no mechanism serves both": found})
                continue
            if pair is None:
                failures.append({"graph": where, "problem": "no two candidate users are separated"})
                continue
            (first, second), query = pair
            separated[where] = {"first": users[first][0], "second": users[second][0]}
            parts[f"{where}: no mechanism serves both"] = run(query)
    outcome = proved_if_unsat(parts)
    outcome.evidence["separating users"] = separated
    outcome.evidence["paths: T optimal for every candidate user"] = [
        n for n, e in BN_GRAPHS.items() if BN_CONDITION(e, 1 + max(v for x in e for v in x))
    ]
    outcome.evidence["candidate users"] = "priors uniform or on one pair × losses binary, |i−j|, (i−j)², graph distance"
    if failures:
        return Outcome(Verdict.REFUTED, {**outcome.evidence, "failures": failures})
    return outcome


def _separating_pair(
    edges: Graph, k: int, users: list[tuple[str, User]], optima: list[Fraction], alpha: Fraction
) -> tuple[tuple[int, int], z3.Solver] | None:
    """The first pair of candidate users (in a fixed order) that z3 alone finds no common
    mechanism for, with its query still to be decided by :func:`run`."""
    for first in range(len(users)):
        for second in range(first + 1, len(users)):
            query = serves_both(edges, k, [users[first][1], users[second][1]], alpha, [optima[first], optima[second]])
            probe = z3.Solver()
            probe.add(*query.assertions())
            if probe.check() == z3.unsat:
                return (first, second), query
    return None
