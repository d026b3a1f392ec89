"""FUZZ parts of claims: Hypothesis over random users and mechanisms, every example decided
exactly. Seeded by the claim's ID (or by ``MECHLIB_FUZZ_SEED``, as a sweep does), no database;
``MECHLIB_FUZZ_SCALE`` (``mechlib verify --deep``, a sweep's depth) multiplies the number of
examples. A violation is shrunk by Hypothesis, printed in exact fractions and saved as a
replayable JSON case under ``reports/counterexamples/`` (or ``MECHLIB_COUNTEREXAMPLES``; empty:
not saved, as in mutant runs).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, reject, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from mechlib.audit.loading import write_atomic
from mechlib.core.exact import format_fraction
from mechlib.core.stochastic import StochasticMatrix
from mechlib.core.users import BayesUser, Loss, MinimaxUser, Prior
from mechlib.proofs.registry import Outcome, Record, Verdict


def jsonable(value: Any) -> Any:
    """Exact JSON for examples: Fractions as "p/q", matrices with their labels, users by parts."""
    if isinstance(value, Fraction):
        return format_fraction(value)
    if isinstance(value, StochasticMatrix):
        return {
            "matrix": value.to_strings(),
            "inputs": jsonable(list(value.inputs)),
            "outputs": jsonable(list(value.outputs)),
        }
    if isinstance(value, Prior):
        return jsonable(list(value.probabilities))
    if isinstance(value, Loss):
        return jsonable([list(r) for r in value.matrix])
    if isinstance(value, BayesUser):
        return {"prior": jsonable(value.prior), "loss": jsonable(value.loss)}
    if isinstance(value, MinimaxUser):
        return {"side_information": sorted(value.side_information), "loss": jsonable(value.loss)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def claim_seed(claim_id: str) -> int:
    """The claim's default Hypothesis seed: 64 bits of SHA-256 of its ID."""
    return int.from_bytes(hashlib.sha256(claim_id.encode()).digest()[:8], "big")


def _scale() -> float:
    return float(os.environ.get("MECHLIB_FUZZ_SCALE", "1"))


def examples(base: int) -> int:
    return max(1, int(base * _scale()))


def deep() -> bool:
    """The deep profile (``mechlib verify --deep``): more fuzz examples, and the SMT instances
    too large for every run (each part that has them records which ran)."""
    return _scale() > 1


#: A theorem's hypothesis on a drawn example: None when the example satisfies it, else why not.
Hypothesis = Callable[[Any], str | None]


#: How a FUZZ part reads an example's size and α (a text where the claim has no α), so that its
#: scope is the sizes and α actually drawn, not the generator's range.
Drawn = Callable[[Any], tuple[int, Fraction | str]]


def alpha_first(case: Any) -> tuple[int, Fraction]:
    """(α, …, X): α and the size of X, the mechanism drawn with it (``mechlib.strategies``)."""
    return case[-1].n, case[0]


def user_first(case: Any) -> tuple[int, Fraction]:
    """(user, α): the user's n."""
    return case[0].n, case[1]


def fuzz(
    claim_id: str,
    strategy: st.SearchStrategy[Any],
    prop: Callable[[Any], dict[str, Any] | None],
    base: int,
    *,
    drawn: Drawn,
    size: str = "n",
    hypothesis: Hypothesis | None = None,
) -> Outcome:
    """The property held on every generated example (scope SAMPLED, measured: the examples
    actually checked, with the sizes and α they had, read by ``drawn``; ``size``: what the sizes
    count), or REFUTED with the shrunk counterexample (saved).

    ``hypothesis``: the theorem's hypothesis, checked exactly on every draw before the property;
    a draw outside it (a non-supermodular payoff, an illegal loss, a mechanism that is not α-DP)
    is rejected (Hypothesis's ``reject``) and counted, never checked — the property tested is the
    theorem's. No example inside the hypothesis: UNKNOWN."""
    found: list[tuple[Any, dict[str, Any]]] = []
    rejected = 0  # draws outside the hypothesis
    record = Record(size)  # the examples checked; a failing or rejected draw is not recorded
    reasons: list[str] = []
    count = examples(base)
    chosen = os.environ.get("MECHLIB_FUZZ_SEED")
    # the default seed is the claim's own (stable when this module or the check's source changes,
    # unlike Hypothesis's derandomize, which hashes the test's source)
    run_seed = int(chosen) if chosen is not None else claim_seed(claim_id)

    @settings(
        max_examples=count,
        derandomize=False,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def check(example: Any) -> None:
        outside = None if hypothesis is None else hypothesis(example)
        if outside is not None:
            nonlocal rejected
            rejected += 1
            if len(reasons) < 3:
                reasons.append(outside)
            reject()
        problem = prop(example)
        if problem is not None:
            found.append((example, problem))
            raise AssertionError(problem)
        n, alpha = drawn(example)
        record.ran(n, alpha)

    check = seed(run_seed)(check)
    seeded = {"seed": run_seed, "seed_from": "the claim ID" if chosen is None else "MECHLIB_FUZZ_SEED"}

    try:
        check()
    except AssertionError:
        example, problem = found[-1]  # the last failure is Hypothesis's shrunk one
        case = {"claim": claim_id, **seeded, "example": jsonable(example), "violation": jsonable(problem)}
        path = _save(claim_id, case)
        saved = {"saved": str(path)} if path is not None else {}
        return Outcome(Verdict.REFUTED, {"examples": count, "counterexample": case, **saved})
    except Unsatisfiable:
        record = Record(size)  # too few examples satisfied the hypothesis: counted as none (UNKNOWN below)
    evidence: dict[str, Any] = {"examples": record.count, "max_examples": count, **seeded}
    if hypothesis is not None:
        evidence["rejected: outside the theorem's hypothesis"] = rejected
        doc = (hypothesis.__doc__ or hypothesis.__name__).strip().splitlines()[0]
        evidence["hypothesis"] = doc
        if reasons:
            evidence["rejected, e.g."] = reasons
    if record.count == 0:
        return Outcome(Verdict.UNKNOWN, evidence, "no drawn example satisfied the theorem's hypothesis")
    method = f"Hypothesis, seed {run_seed}" + (" (the claim's)" if chosen is None else "")
    if hypothesis is not None:
        method += "; the hypothesis checked exactly on every draw"
    return record.outcome(Outcome(Verdict.PROVED, evidence), method, sampled=True)


def _save(claim_id: str, case: dict[str, Any]) -> Path | None:
    """Write the case (not when ``MECHLIB_COUNTEREXAMPLES`` is empty: mutant runs, whose
    counterexamples are expected and stay in their evidence)."""
    where = os.environ.get("MECHLIB_COUNTEREXAMPLES", "reports/counterexamples")
    if not where:
        return None
    text = json.dumps(case, indent=2, ensure_ascii=False) + "\n"
    directory = Path(where)
    path = directory / f"{claim_id}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.json"
    write_atomic(path, text)
    return path
