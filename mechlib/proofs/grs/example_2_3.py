"""GRS-E2.3 (GRS Example 2.3): n odd, binary loss, prior p0=pn=1/2: face value loses 2α/(1+α); the
threshold remap α^((n+1)/2)/(1+α).

Every check part of this claim is here (``mechlib verify --only GRS-E2.3``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy as sp
import z3

from mechlib.core.exact import format_fraction
from mechlib.core.families import geometric
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.remap import Remap
from mechlib.core.users import BayesUser, Prior, binary_loss
from mechlib.proofs.catalogue import SYM
from mechlib.proofs.mutants import module_constant, register
from mechlib.proofs.registry import Outcome, Record, Verdict, check, decide, measured
from mechlib.proofs.shared.grs_instances import ALPHAS
from mechlib.proofs.smt import TWO_SOLVERS, proved_if_unsat, run, smt_query


def threshold_remap(r: Any, n: Any, half: Any) -> Any:
    """Ex 2.3's remap, one definition for the exact and the symbolic parts: outputs ≥ (n+1)/2
    read as n, all others as 0 (``r``, ``n``, ``half`` integers or z3 integer terms)."""
    if isinstance(r, int) and isinstance(n, int):
        return n if r >= half else 0
    return z3.If(r >= half, n, 0)


def _threshold(n: int, half: int) -> Callable[[int], int]:
    return lambda r: threshold_remap(r, n, half)


#: The paper's values (GRS Example 2.3), n odd: what each remap loses at the prior p₀ = p_n = ½.
PAPER = {
    "face_value": lambda a, n: 2 * a / (1 + a),
    "threshold": lambda a, n: a ** ((n + 1) / 2) / (1 + a),
}


@check("GRS-E2.3", kind="EXACT")
def check_post_processing_example() -> Outcome:
    failures: list[dict[str, Any]] = []
    sizes = (1, 3, 5, 7, 9)
    record = Record()
    for alpha in ALPHAS:
        for n in sizes:
            mech = geometric(alpha, n)  # window −n..2n; interior columns are exact point masses
            user = BayesUser(Prior([Fraction(1, 2)] + [0] * (n - 1) + [Fraction(1, 2)]), binary_loss(n))
            # Face value on ℤ: the guess is right iff the output equals the count, P[Δ = 0].
            face = sum(p * (1 - mech.entry(i, i)) for i, p in enumerate(user.prior.probabilities))
            half = (n + 1) // 2
            threshold = Remap.deterministic(_threshold(n, half), mech.outputs, range(n + 1))
            got = {
                "face_value": face,
                "threshold": expected_loss(mech, user, threshold),
                "optimal_remap": expected_loss(mech, user, optimal_remap(mech, user)),
            }
            paper_threshold = _paper_value("threshold", alpha, n)
            face_value = _paper_value("face_value", alpha, n)
            want = {"face_value": face_value, "threshold": paper_threshold, "optimal_remap": paper_threshold}
            for key in got:
                if got[key] != want[key]:
                    failures.append(
                        {
                            "alpha": format_fraction(alpha),
                            "n": n,
                            "remap": key,
                            "computed": format_fraction(got[key]),
                            "paper": format_fraction(want[key]),
                        }
                    )
            record.ran(n, alpha)
    outcome = decide(failures, {"alphas": [format_fraction(a) for a in ALPHAS], "n": list(sizes)})
    method = "exact rationals: the face value, threshold and optimal remaps' losses against the paper's values"
    return record.outcome(outcome, method)


def _paper_value(name: str, alpha: Fraction, n: int) -> Fraction:
    """The paper's value at a rational α and odd n, exactly ((n + 1)/2 is an integer)."""
    value = sp.nsimplify(PAPER[name](sp.Rational(alpha.numerator, alpha.denominator), sp.Integer(n)))
    return Fraction(int(sp.numer(value)), int(sp.denom(value)))


def _odd(k: Any) -> Any:
    return 2 * k + 1


def _half(k: Any) -> Any:
    return k + 1  # (n + 1)/2 at n = 2k + 1


#: Each input the prior weighs, and the noise values Δ on which the threshold remap's guess
#: differs from it, as bounds (low, high; None: unbounded) in k — for z3 and sympy alike.
EVENTS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], tuple[Any, Any]]]] = {
    "at input 0": (lambda k: 0, lambda k: (_half(k), None)),
    "at input n": (_odd, lambda k: (None, _half(k) - _odd(k) - 1)),
}


def error_events() -> dict[str, tuple[Any, dict[str, Any]]]:
    """Each event of ``EVENTS`` is exactly where the remap's definition errs: for every k ≥ 0
    and Δ ∈ ℤ, remap(x + Δ) ≠ x ⇔ low ≤ Δ ≤ high (LIA, both solvers); and it lies on the side of
    0 its tail sum assumes (Δ ≥ 1 when bounded below, Δ ≤ −1 when bounded above), so |Δ| = ±Δ."""
    k, delta = z3.Ints("k delta")
    found = {}
    for name, (x, bounds) in EVENTS.items():
        low, high = bounds(k)
        event = z3.And(*([delta >= low] if low is not None else []), *([delta <= high] if high is not None else []))
        query = smt_query("QF_LIA")
        query.add(k >= 0)
        query.add((threshold_remap(x(k) + delta, _odd(k), _half(k)) != x(k)) != event)
        found[name] = run(query)
        side = smt_query("QF_LIA")
        side.add(k >= 0, event)
        side.add(delta <= 0 if low is not None else delta >= 0)
        found[f"{name}: on one side of 0"] = run(side)
    return found


@check("GRS-E2.3", kind=SYM)
def sym_post_processing_every_odd_n() -> Outcome:
    """GRS Example 2.3 for every odd n = 2k + 1 and symbolic α ∈ (0, 1) (written α = 1/(1+t),
    t > 0, so that the infinite sums converge for sympy): with the geometric noise c·α^|Δ|
    (c = (1−α)/(1+α)) and p₀ = p_n = ½, face value errs with P[Δ ≠ 0] = Σ_{Δ≠0} c·α^|Δ|, and the
    threshold remap errs on the events :func:`error_events` derives from its definition, each an
    infinite tail sum — compared with the paper's values (``PAPER``) symbolically."""
    k = sp.Symbol("k", integer=True, nonnegative=True)
    t = sp.Symbol("t", positive=True)
    d = sp.Symbol("d", integer=True)
    a = 1 / (1 + t)
    c = (1 - a) / (1 + a)
    n = _odd(k)
    tails = []
    for _, bounds in EVENTS.values():
        low, high = bounds(k)
        noise = c * a**d if low is not None else c * a ** (-d)  # c·α^|Δ| on the event's side of 0
        tails.append(sp.summation(noise, (d, -sp.oo if low is None else low, sp.oo if high is None else high)))
    threshold = sp.Rational(1, 2) * tails[0] + sp.Rational(1, 2) * tails[1]
    face = sp.summation(c * a**d, (d, 1, sp.oo)) * 2  # Δ ≠ 0, both tails

    def equal(x: Any, y: Any) -> bool:
        return bool(sp.simplify(sp.powsimp(sp.expand(x - y), force=True)) == 0)  # bases are t + 1 > 0

    facts = {
        "face value: P[Δ ≠ 0] equals the paper's value": equal(face, PAPER["face_value"](a, n)),
        "threshold: ½ P[error at 0] + ½ P[error at n] = the paper's value": equal(threshold, PAPER["threshold"](a, n)),
    }
    outcome = proved_if_unsat({f"error event {name}": answer for name, answer in error_events().items()})
    failed = [key for key, ok in facts.items() if not ok]
    evidence = {
        **outcome.evidence,
        "events (low, high)": {name: [str(b) for b in bounds(k)] for name, (_, bounds) in EVENTS.items()},
        "facts": facts,
        "paper": "face value 2α/(1+α); threshold α^((n+1)/2)/(1+α)",
    }
    if outcome.verdict != Verdict.PROVED:  # the events differ from the remap's: the proof does not apply
        return Outcome(Verdict.UNKNOWN, evidence, outcome.reason)
    result = (  # sympy not showing an identity is no counterexample (the EXACT part refutes)
        Outcome(Verdict.UNKNOWN, evidence, f"not shown: {failed}") if failed else Outcome(Verdict.PROVED, evidence)
    )
    scope = measured(
        "the remap's error events (LIA, " + TWO_SOLVERS + ") and infinite tail sums (sympy)",
        n="every odd n = 2k+1 (k symbolic)" if result.verdict == Verdict.PROVED else [],
        alphas="symbolic, 0 < α < 1",
        every_object=True,
    )
    return replace(result, scopes=(scope,))


# -- mutants: falsifications this claim's checks must refute ---------------------------------


def _threshold_one_step_later(real: Any) -> Any:
    return {**real, "threshold": lambda a, n: a ** ((n + 3) / 2) / (1 + a)}


register("the threshold remap loses α^((n+3)/2)/(1+α)", "wrong paper value", ("GRS-E2.3",),
         module_constant(__name__, "PAPER", _threshold_one_step_later))  # fmt: skip


def _later_error_at_zero(real: Any) -> Any:
    return {**real, "at input 0": (lambda k: 0, lambda k: (_half(k) + 1, None))}


register("the threshold remap's error at input 0 read as Δ ≥ half + 1", "weakened case lemma", ("GRS-E2.3",),
         module_constant(__name__, "EVENTS", _later_error_at_zero))  # fmt: skip
