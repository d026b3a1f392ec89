"""Layer 3, the audit face: loading mechanism files and ``module:function`` sources, the white-box
audit (:mod:`~mechlib.audit.whitebox`), black-box tests of samplers and their adapters, reports,
the committed example audits.

Produces certificates; never imports :mod:`mechlib.checkers` (the trusted base checks them).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

#: The default false-alarm rate of every black-box test (``--alpha-fa``): a violation verdict accuses a
#: library, so at most 1 in 100 audits of an ε-DP sampler may raise one (T exactly at ε: about 0.4 %,
#: reports/bench.md). Here, not in ``blackbox``, so that the CLI reads it without importing flint.
DEFAULT_ALPHA_FA = "0.01"
#: The black-box limits, checked before any sampling (``--n``, ``--samples``; a sweep's entries): the mean
#: sample size per count (numpy's Poisson sampler stops near 10¹⁹; 10⁹ samples already take hours) and the
#: largest count.
MAX_SAMPLES = 10**9
MAX_COUNT = 100_000


def false_alarm_rate(value: Fraction | str) -> tuple[Fraction, str]:
    """α_FA exact, and as a result records it: a string as typed ("1/100", "0.01"; spaces dropped), a
    Fraction as p/q.
    InputError unless 0 < α_FA < 1/2 (every level of a test is then below 1/2, where its tails are
    decided; a false-alarm rate of 1/2 or more flags by coin toss)."""
    from mechlib.core.exact import format_fraction, to_fraction
    from mechlib.errors import InputError

    exact = to_fraction(value)
    if not 0 < exact < Fraction(1, 2):
        raise InputError(f"α_FA = {value}", hint="expected 0 < α_FA < 1/2, e.g. 0.01 or 1/100")
    return exact, "".join(value.split()) if isinstance(value, str) else format_fraction(exact)


def confidence(alpha_fa: str | float) -> str:
    """ "99% confidence" for a recorded α_FA (/9's exact string, or an earlier result's number); display."""
    return f"{100 * (1 - float(Fraction(alpha_fa))):g}% confidence"


def outside_in_words(cell: dict[str, Any]) -> str:
    """A nonconformant cell of a result in words, decimals beside the exact values."""
    approx, (low, up) = cell["approx"], cell["interval"]
    return (
        f"input {cell['input']}, output {cell['output']}: {cell['count']} of {cell['samples']} samples; claimed "
        f"p = {cell['claimed']} ≈ {approx['claimed']} outside [{approx['interval'][0]}, {approx['interval'][1]}] "
        f"(exactly [{low}, {up}])"
    )


#: The nonconformant cells a text or Markdown report lists (the JSON lists every one).
OUTSIDE_SHOWN = 20
