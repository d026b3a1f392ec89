"""Claims decided by the certified LPs, derivability and the release chain (EXACT parts).

The SMT, symbolic and fuzz parts of these IDs belong to the proofs and fuzzing work.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Any

import flint

from mechlib.core.exact import format_fraction
from mechlib.core.exact_linear import to_fmpq
from mechlib.core.families import exponential, randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import dp_level
from mechlib.core.stochastic import compose
from mechlib.core.users import BayesUser, Loss, MinimaxUser, Prior, absolute_loss
from mechlib.optimality.derivability import derivation_witness
from mechlib.optimality.dominance import check_dominance, dominance_certificate
from mechlib.optimality.minimax import derived_minimax_loss, optimal_interaction, optimal_minimax_mechanism
from mechlib.optimality.multilevel import joint_release
from mechlib.optimality.optimal import optimal_bayes_mechanism
from proofs.registry import Outcome, check, decide

GS_APPENDIX_B = Mechanism(
    [
        ["1/9", "2/9", "4/9", "2/9"],
        ["2/9", "1/9", "2/9", "4/9"],
        ["4/9", "2/9", "1/9", "2/9"],
        ["13/18", "1/9", "1/18", "1/9"],
    ]
)
GRS_FIGURE_5A = Mechanism(
    [
        ["1/3", "1/3", "1/3", 0],
        ["2/3", "1/6", "1/6", 0],
        ["1/3", "1/3", "1/3", 0],
        ["1/6", "1/6", "2/3", 0],
    ]
)
GRS_FIGURE_5B = Loss([[1, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]])


@check("GS-AB", kind="EXACT")
def check_gs_appendix_b() -> Outcome:
    level = dp_level(GS_APPENDIX_B).alpha
    found = derivation_witness(GS_APPENDIX_B, Fraction(1, 2))
    failures: list[dict[str, Any]] = []
    if level != Fraction(1, 2):
        failures.append({"dp_level": format_fraction(level)})
    v = found.violation
    if v is None or (v.row, v.output, v.value) != (1, 1, Fraction(-3, 4) / 9):
        failures.append({"derivation": None if v is None else v.to_json()})
    evidence = {"dp_level": format_fraction(level), "violation": None if v is None else v.to_json()}
    return decide(failures, evidence)


@check("GS-Tab1", kind="EXACT")
def check_gs_table_1() -> Outcome:
    user = MinimaxUser(range(4), absolute_loss(3))
    best = optimal_minimax_mechanism(user, Fraction(1, 4))
    t = truncated_geometric(Fraction(1, 4), 3)
    interaction = optimal_interaction(t, user)
    derivation = derivation_witness(best.mechanism, Fraction(1, 4))
    failures = []
    if derivation.remap is None or derivation.remap.is_deterministic():
        failures.append({"derivation": "not a randomized remap of G"})
    if interaction.value != best.value or compose(interaction.remap, t) != best.mechanism:
        failures.append({"interaction": format_fraction(interaction.value), "optimum": format_fraction(best.value)})
    evidence = {
        "optimum": format_fraction(best.value),
        "mechanism": best.mechanism.to_strings(),
        "remap_of_G": None if derivation.remap is None else derivation.remap.to_strings(),
        "certificate_weights": [format_fraction(w) for w in best.weights],
    }
    return decide(failures, evidence)


def _is_vertex(x: Mechanism, alpha: Fraction) -> bool:
    """The constraints (4)–(7) binding at x have rank (n+1)², so they meet in one point."""
    size = len(x.rows)
    rows: list[list[Fraction]] = []

    def unit(*pairs: tuple[int, int, Fraction]) -> list[Fraction]:
        row = [Fraction(0)] * size * size
        for i, j, v in pairs:
            row[i * size + j] = v
        return row

    for i in range(size):
        rows.append(unit(*[(i, j, Fraction(1)) for j in range(size)]))
        for j in range(size):
            if x.rows[i][j] == 0:
                rows.append(unit((i, j, Fraction(1))))
            if i + 1 < size and x.rows[i + 1][j] == alpha * x.rows[i][j]:
                rows.append(unit((i + 1, j, Fraction(1)), (i, j, -alpha)))
            if i + 1 < size and x.rows[i][j] == alpha * x.rows[i + 1][j]:
                rows.append(unit((i, j, Fraction(1)), (i + 1, j, -alpha)))
    matrix = flint.fmpq_mat(len(rows), size * size, [to_fmpq(v) for row in rows for v in row])
    return bool(matrix.rank() == size * size)


@check("GRS-B", kind="EXACT")
def check_grs_appendix_b() -> Outcome:
    alpha = Fraction(1, 2)
    user = BayesUser(Prior.uniform(3), GRS_FIGURE_5B)
    t = truncated_geometric(alpha, 3)
    facts = {
        "dp": dp_level(GRS_FIGURE_5A).alpha >= alpha,
        "vertex": _is_vertex(GRS_FIGURE_5A, alpha),
        "not_derivable": not derivation_witness(GRS_FIGURE_5A, alpha).derivable,
        "loss_is_lp_optimum": expected_loss(GRS_FIGURE_5A, user)
        == optimal_bayes_mechanism(user, alpha).value
        == Fraction(1, 3),
        "best_remap_of_T": expected_loss(t, user, optimal_remap(t, user)) == Fraction(17, 48),
        "loss_is_illegal": not GRS_FIGURE_5B.is_legal(),
    }
    return decide([{k: v} for k, v in facts.items() if not v], {"checked": sorted(facts)})


@check("GS-T1a", kind="EXACT")
def check_multilevel_release() -> Outcome:
    levels = [Fraction(1, 5), Fraction(1, 3), Fraction(1, 2)]
    failures: list[dict[str, Any]] = []
    for n in (1, 2, 3):
        for i, alpha in enumerate(levels):
            if joint_release(n, levels, [i]).rows != truncated_geometric(alpha, n).rows:
                failures.append({"n": n, "marginal": i})
        for size in (2, 3):
            for coalition in combinations(range(3), size):
                level = dp_level(joint_release(n, levels, coalition)).alpha
                if level != min(levels[i] for i in coalition):
                    failures.append({"n": n, "coalition": list(coalition), "dp_level": format_fraction(level)})
    return decide(failures, {"levels": [format_fraction(a) for a in levels], "n": [1, 2, 3], "coalitions": "all"})


@check("DOM", kind="EXACT")
def check_dominance_examples() -> Outcome:
    named = {
        "GS Appendix B": GS_APPENDIX_B,
        "randomized response k=6, α=1/3": randomized_response(Fraction(1, 3), 6),
        "exponential n=6, base 1/2": exponential(Fraction(1, 2), 6),
        "GRS Figure 5(a)": GRS_FIGURE_5A,
    }
    failures: list[dict[str, Any]] = []
    evidence: dict[str, Any] = {}
    for name, x in named.items():
        certificate = dominance_certificate(x)
        violation = check_dominance(x, certificate.alpha, certificate.remap)
        if violation is not None:
            failures.append({name: violation.to_json()})
        evidence[name] = {"alpha": format_fraction(certificate.alpha), "remap": certificate.remap.to_strings()}
    return decide(failures, evidence)


@check("GS-T1b", kind="EXACT")
def check_minimax_instances() -> Outcome:
    failures: list[dict[str, Any]] = []
    cases = 0
    for n in (1, 2, 3, 4):
        for alpha in (Fraction(1, 4), Fraction(1, 2), Fraction(4, 5)):
            for side in (range(n + 1), [0], [0, n], range(1, n + 1)):
                user = MinimaxUser(side, absolute_loss(n))
                best, derived = optimal_minimax_mechanism(user, alpha).value, derived_minimax_loss(user, alpha)
                cases += 1
                if best != derived:
                    failures.append(
                        {
                            "n": n,
                            "alpha": format_fraction(alpha),
                            "S": list(side),
                            "optimum": format_fraction(best),
                            "from_G": format_fraction(derived),
                        }
                    )
    return decide(failures, {"instances": cases, "loss": "|i−j|", "certified": "both sides by exact λ-certificates"})


#: GS Definition 2's two-term conditions on neighbouring entries u (count i), v (count i+1).
TWO_TERM = ("αu ≤ v and αv ≤ u", lambda a, u, v: a * u <= v and a * v <= u)


@check("GS-D2", kind="EXACT")
def exact_two_term_conditions() -> Outcome:
    """On instances: dp_level (ratio definition) ≥ α ⇔ every 2-term condition holds exactly."""
    failures: list[dict[str, Any]] = []
    one_sided = Mechanism([[1, 0], [Fraction(1, 2), Fraction(1, 2)]])  # αu ≤ v holds, αv ≤ u does not
    instances = [
        GS_APPENDIX_B,
        GRS_FIGURE_5A,
        randomized_response(Fraction(1, 3), 4),
        exponential(Fraction(1, 2), 4),
        one_sided,
    ]
    for x in instances:
        for alpha in (Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3)):
            linear = all(
                TWO_TERM[1](alpha, x.rows[i][j], x.rows[i + 1][j]) for i in range(x.n) for j in range(len(x.outputs))
            )
            if linear != (dp_level(x).alpha >= alpha):
                failures.append({"mechanism": x.to_strings(), "alpha": format_fraction(alpha)})
    return decide(failures, {"instances": len(instances), "alphas": ["1/4", "1/3", "1/2", "2/3"]})


@check("GS-LP", kind="EXACT")
def exact_gs_lps_certified() -> Outcome:
    """Both GS LPs solved and exactly certified (λ-certificates re-checked) on instances."""
    from mechlib.optimality.minimax import check_interaction_certificate, check_minimax_certificate

    failures: list[dict[str, Any]] = []
    cases = []
    for n, alpha, side in ((3, Fraction(1, 4), range(4)), (4, Fraction(1, 2), [0, 2]), (5, Fraction(2, 3), [1, 4, 5])):
        user = MinimaxUser(side, absolute_loss(n))
        best = optimal_minimax_mechanism(user, alpha)
        t = truncated_geometric(alpha, n)
        interaction = optimal_interaction(t, user)
        if check_minimax_certificate(best.mechanism, user, alpha, best.weights, best.dual) is not None:
            failures.append({"n": n, "lp": "optimal mechanism"})
        if check_interaction_certificate(t, user, interaction.remap, interaction.weights) is not None:
            failures.append({"n": n, "lp": "optimal interaction"})
        cases.append({"n": n, "alpha": format_fraction(alpha), "S": list(side), "optimum": format_fraction(best.value)})
    return decide(failures, {"instances": cases})
