"""DOM (CLAIMS.md note 1): Every α-DP mechanism on N is dominated, for every legal user, by a post-
processing of T.

Every check part of this claim is here (``mechlib verify --only DOM``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.families import exponential, randomized_response
from mechlib.core.mechanism import Mechanism
from mechlib.core.stochastic import compose
from mechlib.optimality.derivability import TBasis
from mechlib.optimality.dominance import check_dominance, dominance_certificate, planted_violations
from mechlib.proofs.catalogue import EXACT, FUZZ, SMT
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.mutants import Attr, module_constant, register
from mechlib.proofs.registry import Outcome, Verdict, check, decide, with_scope
from mechlib.proofs.shared import remap_cells, universal_cache
from mechlib.proofs.shared.encodings import dominance_proofs
from mechlib.proofs.shared.generators import dp_mechanisms
from mechlib.proofs.shared.printed import GRS_FIGURE_5A, GS_APPENDIX_B
from mechlib.proofs.shared.remap_cells import cell_proofs


@check("DOM", kind=EXACT)
def exact_every_mechanism() -> Outcome:
    """Every α-DP mechanism on 0..n, n ≤ 6, is dominated by a remap of T: T is optimal for every
    legal Bayesian user, remap cell by remap cell (:mod:`mechlib.proofs.shared.remap_cells`), on a
    certificate the independent checker accepts; and four listed mechanisms with their dominating
    remaps, found and re-checked exactly."""
    proved = cell_proofs()
    if proved.verdict != Verdict.PROVED:
        return proved
    named = {
        "GS Appendix B": GS_APPENDIX_B,
        "randomized response k=6, α=1/3": randomized_response(Fraction(1, 3), 6),
        "exponential n=6, base 1/2": exponential(Fraction(1, 2), 6),
        "GRS Figure 5(a)": GRS_FIGURE_5A,
    }
    failures: list[dict[str, Any]] = []
    evidence: dict[str, Any] = {"every mechanism, by remap cells": proved.evidence}
    for name, x in named.items():
        certificate = dominance_certificate(x)
        violation = check_dominance(x, certificate.alpha, certificate.remap)
        if violation is not None:
            failures.append({name: violation.to_json()})
        evidence[name] = {"alpha": format_fraction(certificate.alpha), "remap": certificate.remap.to_strings()}
    return with_scope(decide(failures, evidence), *proved.scopes)


@check("DOM", kind=SMT)
def smt_dominance() -> Outcome:
    return dominance_proofs((Fraction(1, 2),))


def dominated(case: tuple[Fraction, Mechanism]) -> dict[str, Any] | None:
    """DOM: a remap Y of T whose error tails are nowhere above X's, found and re-checked exactly —
    by a check shown, on the same example, to catch a violation planted in each error tail (i, k)
    of Y∘T alone (:func:`planted_violations`): the verdict depends on every tail being compared."""
    alpha, x = case
    basis = TBasis(alpha, x.n)
    certificate = dominance_certificate(x, alpha, basis=basis)
    violation = check_dominance(x, alpha, certificate.remap, basis=basis)
    if violation is not None:
        return {"violation": violation.to_json(), "mechanism": x}
    z = Mechanism(compose(certificate.remap, basis.t).rows)
    for i, k, planted in planted_violations(z):
        caught = check_dominance(planted, alpha, certificate.remap, basis=basis)
        if caught is None or (caught.input, caught.k) != (i, k):
            return {"problem": f"the dominance check misses a violation planted in the error tail (i={i}, k={k})",
                    "caught": None if caught is None else caught.to_json(), "mechanism": x}  # fmt: skip
    return None


@check("DOM", kind=FUZZ)
def fuzz_dominance() -> Outcome:
    return fuzz("DOM", dp_mechanisms(max_n=5), dominated, 25, drawn=alpha_first)


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _skipping_tail_one(real: Any) -> Any:
    """check_dominance that never compares the error tail k = 1 (issue 32's reviewer's mutant)."""
    from mechlib.optimality.dominance import TailViolation, tail_profile

    def check(mechanism: Mechanism, alpha: Fraction, remap: Any, *, basis: TBasis | None = None) -> Any:
        basis = basis or TBasis(alpha, mechanism.n)
        ours, theirs = tail_profile(compose(remap, basis.t)), tail_profile(mechanism)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            for k in range(2, len(a)):
                bound = b[k] if k < len(b) else Fraction(0)
                if a[k] > bound:
                    return TailViolation(i, k, a[k], bound)
        return None

    return check


register("a dominance check that skips the tail k = 1", "incomplete check", ("DOM",),
         module_constant("mechlib.optimality.dominance", "check_dominance", _skipping_tail_one))  # fmt: skip


# The remap-cell proof's mutants falsify DOM and GRS-T3.2 alike. They are registered here, in a claim
# module (loaded by mechlib.proofs after every GRS claim), not in mechlib.proofs.falsifications:
# that module is imported by mechlib.verify, which must not reach a checker through remap_cells.

_REAL_CELL_ROWS = remap_cells._Problem._cell_rows


def _worst_remap_rows(self: Any, j: int, s: int) -> Any:
    """The remap cells with their inequalities reversed: σ(j) the *worst* guess for output j."""
    return [-row for row in _REAL_CELL_ROWS(self, j, s)]


def _step_at_alpha_squared(self: Any, v_i: Any, f: Any, nonnegative: bool) -> Any:
    """The cone test of the remap cells run at α²: T at α must then beat every α²-DP mechanism."""
    a = self.p.alpha * self.p.alpha
    return v_i.plus(a if nonnegative else 1 / a, f)


def _searched(*swaps: Any) -> Callable[[], list[Any]]:
    """Swaps of the remap-cell search, with the search forced: its verdict must come from the
    mutated search, not from a stored certificate (which the mutant does not touch)."""
    return lambda: [*swaps, (Attr(universal_cache, "FORCE_SEARCH"), True)]


def _without_certificate(self: Any, rows: Any, form: Any) -> list[int]:
    """A sign fact accepted with no Farkas multipliers at all ([L] = [1]: "form ≥ 0 as it stands")."""
    return [1]


def _rejecting_universal_checker(*_args: Any, **_kwargs: Any) -> list[str]:
    return ["the universal certificate is rejected (mutant)"]


BOTH = ("DOM", "GRS-T3.2")
register("remap cells: the worst remap of T read as the best", "flipped inequality", BOTH,
         _searched((Attr(remap_cells._Problem, "_cell_rows"), _worst_remap_rows)))  # fmt: skip
register("remap cells: the α-DP cone at α²", "wrong α", BOTH,
         _searched((Attr(remap_cells._Prover, "_step"), _step_at_alpha_squared)))  # fmt: skip
register("remap cells: a cell accepted without its Farkas certificate", "accepted without certificate", BOTH,
         _searched((Attr(remap_cells._Prover, "certified"), _without_certificate)))  # fmt: skip
register("the universal certificate checker rejects every certificate", "rejected certificate", (*BOTH, "GRS-TA.2"),
         module_constant("mechlib.checkers.universal_certificate", "check_certificate",
                         lambda _: _rejecting_universal_checker))  # fmt: skip
