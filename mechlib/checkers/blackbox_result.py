"""Independent re-check of a black-box audit result (schema ``mechlib.blackbox/1``).

From the recorded counts alone, with arb's rigorous regularised incomplete beta:
* every count histogram has the recorded number of samples;
* a reported violation holds: its counts are the histograms' counts of the event, the lower
  bound L satisfies P(Bin(N, L) ≥ k) ≤ δ, the upper bound U satisfies P(Bin(N, U) ≤ k) ≤ δ at the
  recorded per-bound level δ = α_FA/(2H), and L > E·U with a rational E ≥ e^ε proved by arb;
* a nonconformant cell's claimed probability lies outside its verified interval.
"No violation found" is a statement about power, not a witness: nothing beyond the counts to
re-check.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint

SCHEMA = "mechlib.blackbox/1"


def _q(text: str) -> flint.arb:
    f = Fraction(text)
    return flint.arb(flint.fmpq(f.numerator, f.denominator))


def _in_event(s: int, event: str) -> bool:
    op, value = event.split()[1], int(event.split()[2])
    return s == value if op == "=" else s <= value if op == "≤" else s >= value


def check_result(result: dict[str, Any]) -> list[str]:
    """The failed checks (empty: the recorded findings hold)."""
    if result.get("schema") != SCHEMA:
        return [f"schema {result.get('schema')!r} is not {SCHEMA!r}"]
    flint.ctx.prec = 256
    failures = []
    counts = [{int(k): int(v) for k, v in h.items()} for h in result["counts"]]
    if any(sum(h.values()) != result["samples_per_count"] for h in counts):
        failures.append("a histogram does not have samples_per_count samples")
    dp = result["dp"]
    v = dp.get("violation")
    if v is not None:
        delta = dp["per_bound_level"]
        (i, j), (ki, kj), (ni, nj) = v["inputs"], v["counts"], v["samples"]
        if [sum(c for s, c in counts[x].items() if _in_event(s, v["event"])) for x in (i, j)] != [ki, kj]:
            failures.append("the violation's counts are not the histograms' counts of its event")
        low, up = _q(v["lower_bound"]), _q(v["upper_bound"])
        if ki == 0 or not low.beta_lower(ki, ni - ki + 1, regularized=True) <= delta:
            failures.append("the lower bound is not a verified Clopper–Pearson bound")
        if kj < nj and not 1 - up.beta_lower(kj + 1, nj - kj, regularized=True) <= delta:
            failures.append("the upper bound is not a verified Clopper–Pearson bound")
        eps = Fraction(dp["epsilon"])
        e = flint.arb(flint.fmpq(eps.numerator, eps.denominator)).exp()
        if not low > e * up:
            failures.append("L > e^ε·U does not hold")
        if abs(i - j) != 1:
            failures.append("the violation's inputs are not neighbours")
    conformance = result.get("conformance") or {}
    cell = conformance.get("cell")
    if cell is not None:
        low, up = (_q(x) for x in conformance["interval"])
        claimed = _q(cell["claimed"])
        if counts[cell["input"]].get(cell["output"], 0) != cell["count"] or (low <= claimed and claimed <= up):
            failures.append("the nonconformant cell does not lie outside its interval")
    return failures
