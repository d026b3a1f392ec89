"""The signature of a DP mechanism (GRS §5.3): which privacy constraints bind.

For 0 < α < 1 and an α-DP mechanism on N = {0..n}, the signature is the n × (outputs) matrix
with σ[i][r] = ↓ if x[i+1][r] = α·x[i][r] > 0, ↑ if x[i+1][r] = x[i][r]/α > 0, S if both are
positive with α·x[i][r] < x[i+1][r] < x[i][r]/α, and 0 if both are zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from mechlib.core.exact import format_fraction, parse_probability
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import Label
from mechlib.errors import InputError

DOWN, UP, SLACK, ZERO = "↓", "↑", "S", "0"
_ASCII = {DOWN: "v", UP: "^", SLACK: "S", ZERO: "0"}


@dataclass(frozen=True)
class Signature:
    """σ[i][r] for i = 0..n−1 (rows i and i+1 of the mechanism) and every output r."""

    alpha: Fraction
    outputs: tuple[Label, ...]
    rows: tuple[tuple[str, ...], ...]

    def __str__(self) -> str:
        return "\n".join(" ".join(row) for row in self.rows)

    def ascii(self) -> str:
        """The same table with ↓ ↑ written as v ^."""
        return "\n".join(" ".join(_ASCII[s] for s in row) for row in self.rows)


def signature(mechanism: Mechanism, alpha: object) -> Signature:
    """The signature Σ of an α-DP count-query mechanism, 0 < α < 1 (GRS §5.3).

    Raises
    ------
    InputError
        If α is not in (0, 1), the mechanism is not on the path 0..n, or it is not α-DP
        (naming the pair of rows and the output).
    """
    a = parse_probability(alpha)
    if not 0 < a < 1:
        raise InputError(f"alpha={format_fraction(a)}", hint="the signature is defined for 0 < α < 1")
    if not mechanism.is_count_query():
        raise InputError("the signature needs a count-query mechanism (inputs 0..n, path neighbours)")
    p, q = a.numerator, a.denominator
    num, den = mechanism.scaled()
    rows = []
    for i in range(len(num) - 1):
        upper, lower = num[i], num[i + 1]
        if den[i] != den[i + 1]:
            upper = tuple(x * den[i + 1] for x in upper)
            lower = tuple(y * den[i] for y in lower)
        row = []
        for r, (u, v) in enumerate(zip(upper, lower)):
            if u == 0 and v == 0:
                row.append(ZERO)
            elif q * v == p * u:
                row.append(DOWN)
            elif q * u == p * v:
                row.append(UP)
            elif p * u < q * v and p * v < q * u:
                row.append(SLACK)
            else:
                raise InputError(
                    f"rows {i} and {i + 1} break α-DP at output {mechanism.outputs[r]!r} (α = {format_fraction(a)})",
                    row=i,
                    column=r,
                )
        rows.append(tuple(row))
    return Signature(a, mechanism.outputs, tuple(rows))


def remap_from_signature(sig: Signature) -> Remap:
    """GRS Lemma 5.10's deterministic remap Y of T, built from a signature Σ.

    For the nonzero columns j_1 < … < j_m of Σ: a_k is the first row where column j_k has S or
    ↓ (n if none), b_k the first row where it has ↓ (n if none); Y sends T's outputs
    a_k..b_k to j_k. When Σ satisfies GRS Lemma 5.9 (P1–P3), the blocks partition N and
    Y∘T has signature Σ; for an optimal vertex X of the user LP, Y∘T = X.

    Raises
    ------
    InputError
        If the blocks a_k..b_k do not partition 0..n (Σ is not of Lemma 5.9's form).
    """
    n = len(sig.rows)
    columns = [[row[c] for row in sig.rows] for c in range(len(sig.outputs))]
    mapping: dict[int, Label] = {}
    expected_start = 0
    for c, column in enumerate(columns):
        if all(s == ZERO for s in column):
            continue
        a = next((i for i, s in enumerate(column) if s in (SLACK, DOWN)), n)
        b = next((i for i, s in enumerate(column) if s == DOWN), n)
        if a != expected_start or b < a:
            raise InputError(
                f"column {sig.outputs[c]!r} starts its block at row {a} (ends {b}); expected {expected_start}",
                hint="the signature is not of GRS Lemma 5.9's form (P1–P3)",
            )
        mapping.update({r: sig.outputs[c] for r in range(a, b + 1)})
        expected_start = b + 1
    if expected_start != n + 1:
        raise InputError(f"the blocks cover 0..{expected_start - 1}, not 0..{n}", hint="not of GRS Lemma 5.9's form")
    return Remap.deterministic(mapping, list(range(n + 1)), sig.outputs)
