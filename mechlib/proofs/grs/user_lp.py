"""GRS-LP (GRS §5.2, LP (3)–(7)): The user LP's optimum equals the loss of the optimal remap of T
for every legal user.

Every check part of this claim is here (``mechlib verify --only GRS-LP``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechlib import strategies
from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.privacy import is_dp
from mechlib.core.users import BayesUser
from mechlib.optimality.optimal import optimal_bayes_mechanism
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import fuzz, user_first
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check
from mechlib.proofs.shared.generators import USERS_AND_ALPHAS, best_remap_loss
from mechlib.proofs.shared.remap_cells import ALPHAS, cell_proofs

#: Every n up to this at the three α (about 1.6 s on one core; n ≤ 4 takes about 10 s — GRS-T3.2
#: runs the same cell proof to n = 5).
LP_LARGEST_N = 3


def lp_matches_t(case: tuple[BayesUser, Fraction]) -> dict[str, Any] | None:
    """GRS-LP / Thm 3.2: the certified LP optimum equals the loss of T's optimal remap."""
    user, alpha = case
    optimum = optimal_bayes_mechanism(user, alpha).value
    mine = best_remap_loss(truncated_geometric(alpha, user.n), user)
    return None if mine == optimum else {"lp_optimum": optimum, "T_with_optimal_remap": mine}


@check("GRS-LP", kind=FUZZ)
def fuzz_lp() -> Outcome:
    # 1000 examples: an illegal loss breaks the claim in about 1 draw in 130 (measured: 3 of 400),
    # so at 300 the illegal-loss mutant died for only about half of the seeds tried
    return fuzz("GRS-LP", USERS_AND_ALPHAS, lp_matches_t, 1000, drawn=user_first)


@check("GRS-LP", kind=EXACT)
def exact_lp_equals_t() -> Outcome:
    """Every legal Bayesian user at n ≤ 3: a remap of T attains the user LP's optimum — every remap
    cell of the users' weights proved by exact Farkas certificates that the forced dual of σ∘T is
    feasible (:mod:`mechlib.proofs.shared.remap_cells`). Since every Y∘T is feasible for the LP, its
    optimum then equals the loss of T's optimal remap — once T is checked α-DP (in the LP's feasible
    region), which the cells' duals do not show."""
    infeasible = [
        f"n={n}, α={format_fraction(alpha)}"
        for alpha in ALPHAS
        for n in range(1, LP_LARGEST_N + 1)
        if not is_dp(truncated_geometric(alpha, n), alpha)
    ]
    if infeasible:
        return Outcome(Verdict.REFUTED, {"T not α-DP": infeasible}, "T is outside the user LP's feasible region")
    return cell_proofs(LP_LARGEST_N)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _illegal_losses_strategy() -> list[Any]:
    """Legal losses replaced by illegal ones (some row cheaper farther from the truth, GRS §2.2),
    drawn from the real legal strategy (so the replacement does not call itself)."""
    from hypothesis import strategies as st

    real = strategies.legal_losses

    @st.composite
    def illegal(draw: st.DrawFn, n: int, strict: bool = False) -> Any:
        rows = [list(r) for r in draw(real(n, strict)).matrix]
        i = draw(st.integers(0, n))
        j = draw(st.sampled_from([k for k in range(n + 1) if k != i]))
        nearer = j - 1 if j > i else j + 1
        rows[i][nearer] = rows[i][j] + draw(st.integers(1, 3))
        from mechlib.core.users import Loss

        return Loss(rows)

    return [(real, illegal)]


# Only GRS-LP's check (1000 examples) kills this reliably: GRS-L5.5, L5.10 and TA.2 caught it for
# some Hypothesis seeds only (measured over four seeds at 1× and 5× their examples), so they are
# not listed — an illegal loss rarely breaks those properties on random instances.
register("legal losses → illegal losses", "illegal loss", ("GRS-LP",), _illegal_losses_strategy)


def _t_at_alpha_squared(real: Any) -> Any:
    def t(alpha: Any, n: int) -> Any:
        return real(Fraction(alpha) ** 2, n)  # less private: not α-DP, and better than every α-DP mechanism

    return t


register("T → T at α²", "wrong α", ("GRS-LP",),
         module_constant("mechlib.core.families", "truncated_geometric", _t_at_alpha_squared))  # fmt: skip
