"""Users of a count query (GRS §2.2, GS §2.3): priors, loss functions, Bayesian and minimax users.

A loss l(i, j) is the loss of guessing j when the true count is i. It is *legal* (GRS §2.2)
if it depends only on i and |j − i| and is nondecreasing in |j − i|; *strictly legal*
(GRS §5.3) if strictly increasing in |j − i|.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from mechlib.core.exact import format_fraction, to_fraction
from mechlib.errors import InputError


def _exact_vector(values: Iterable[object], what: str) -> tuple[Fraction, ...]:
    result = []
    for k, v in enumerate(values):
        try:
            result.append(to_fraction(v))
        except InputError as err:
            raise replace(err, field=what, column=k) from None
    if not result:
        raise InputError("is empty", field=what, hint="expected one value per count 0..n")
    return tuple(result)


@dataclass(frozen=True)
class Prior:
    """An exact prior p over N = {0..n} (GRS §2.2): p_i ≥ 0 summing to exactly 1."""

    probabilities: tuple[Fraction, ...]

    def __init__(self, probabilities: Iterable[object]) -> None:
        probs = _exact_vector(probabilities, "prior")
        for k, p in enumerate(probs):
            if p < 0:
                raise InputError(f"p[{k}] = {format_fraction(p)} is negative", field="prior", column=k)
        total = sum(probs)
        if total != 1:
            raise InputError(
                f"the prior sums to {format_fraction(total)}, not exactly 1",
                field="prior",
                hint="use Prior.from_weights to normalise",
            )
        object.__setattr__(self, "probabilities", probs)

    @classmethod
    def from_weights(cls, weights: Iterable[object]) -> Prior:
        """Normalise nonnegative exact weights (not all zero)."""
        w = _exact_vector(weights, "prior weights")
        total = sum(w)
        if total <= 0 or min(w) < 0:
            raise InputError("weights must be ≥ 0 and not all 0", field="prior weights")
        return cls(x / total for x in w)

    @classmethod
    def uniform(cls, n: int) -> Prior:
        return cls([Fraction(1, n + 1)] * (n + 1))

    @classmethod
    def point(cls, n: int, i: int) -> Prior:
        """All mass on the count i."""
        if not 0 <= i <= n:
            raise InputError(f"i={i}", hint=f"expected a count in 0..{n}")
        return cls([1 if k == i else 0 for k in range(n + 1)])

    @property
    def n(self) -> int:
        return len(self.probabilities) - 1

    def has_full_support(self) -> bool:
        return all(p > 0 for p in self.probabilities)


@dataclass(frozen=True)
class LegalityViolation:
    """Why a loss is not (strictly) legal: row i, distances d and d', and the values."""

    i: int
    guesses: tuple[int, int]
    values: tuple[Fraction, Fraction]
    reason: str

    def describe(self) -> str:
        (j, k), (a, b) = self.guesses, self.values
        return f"l({self.i}, {j}) = {format_fraction(a)} and l({self.i}, {k}) = {format_fraction(b)}: {self.reason}"


@dataclass(frozen=True)
class Loss:
    """An exact loss matrix l[i][j] on N × N (true count i, guess j)."""

    matrix: tuple[tuple[Fraction, ...], ...]

    def __init__(self, matrix: Sequence[Sequence[object]]) -> None:
        rows = []
        for i, row in enumerate(matrix):
            try:
                rows.append(_exact_vector(row, "loss"))
            except InputError as err:
                raise replace(err, row=i) from None
        size = len(rows)
        if size == 0:
            raise InputError("the loss matrix has no rows", field="loss")
        for i, row in enumerate(rows):
            if len(row) != size:
                raise InputError(
                    f"has {len(row)} entries, expected {size} (the loss is square on N × N)",
                    field="loss",
                    row=i,
                )
        object.__setattr__(self, "matrix", tuple(rows))

    @classmethod
    def from_function(cls, n: int, func: Callable[[int, int], object]) -> Loss:
        return cls([[func(i, j) for j in range(n + 1)] for i in range(n + 1)])

    @property
    def n(self) -> int:
        return len(self.matrix) - 1

    def __call__(self, i: int, j: int) -> Fraction:
        return self.matrix[i][j]

    def legality_violation(self, *, strict: bool = False) -> LegalityViolation | None:
        """The first place where the loss is not (strictly) legal, or None (GRS §2.2, §5.3)."""
        n = self.n
        for i, row in enumerate(self.matrix):
            for d in range(1, n + 1):
                if i - d >= 0 and i + d <= n and row[i - d] != row[i + d]:
                    return LegalityViolation(
                        i, (i - d, i + d), (row[i - d], row[i + d]), "depends on more than |j − i|"
                    )
            for d in range(max(i, n - i)):
                j, k = _at_distance(i, d, n), _at_distance(i, d + 1, n)
                if row[k] < row[j] or (strict and row[k] == row[j]):
                    word = "increasing" if strict else "nondecreasing"
                    return LegalityViolation(i, (j, k), (row[j], row[k]), f"not {word} in |j − i|")
        return None

    def is_legal(self) -> bool:
        return self.legality_violation() is None

    def is_strictly_legal(self) -> bool:
        return self.legality_violation(strict=True) is None


def _at_distance(i: int, d: int, n: int) -> int:
    return i + d if i + d <= n else i - d


def absolute_loss(n: int) -> Loss:
    """|j − i|: mean error."""
    return Loss.from_function(n, lambda i, j: abs(j - i))


def squared_loss(n: int) -> Loss:
    """(j − i)²."""
    return Loss.from_function(n, lambda i, j: (j - i) ** 2)


def binary_loss(n: int) -> Loss:
    """0 if j = i, else 1: frequency of error (GRS §2.2)."""
    return Loss.from_function(n, lambda i, j: int(i != j))


def power_loss(n: int, exponent: object) -> Loss:
    """|j − i|^s for an exact rational s > 0, exact when every |j − i|^s is rational.

    GRS Figure 3 uses s = 3/2, whose values √d³ are irrational for non-square d: that raises
    an InputError naming the first such d rather than rounding.
    """
    s = to_fraction(exponent)
    if s <= 0:
        raise InputError(f"exponent={format_fraction(s)}", hint="expected an exponent > 0 (use binary_loss for 0)")
    import gmpy2  # only here: its import (with importlib.metadata) costs every command ~25 ms

    values = [Fraction(0)]
    for d in range(1, n + 1):
        root, exact = gmpy2.iroot(gmpy2.mpz(d) ** s.numerator, s.denominator)
        if not exact:
            raise InputError(
                f"{d}^{format_fraction(s)} is irrational",
                hint="choose an integer exponent or one for which every |j − i|^s is rational",
            )
        values.append(Fraction(int(root)))
    return Loss.from_function(n, lambda i, j: values[abs(j - i)])


def _check_size(what: str, size: int, loss: Loss) -> None:
    if size != loss.n:
        raise InputError(f"{what} is on 0..{size} but the loss is on 0..{loss.n}", hint="both must use the same n")


@dataclass(frozen=True)
class BayesUser:
    """A Bayesian user (GRS §2.2): minimises Σ_i p_i Σ_j z[i][j]·l(i, j)."""

    prior: Prior
    loss: Loss

    def __post_init__(self) -> None:
        _check_size("the prior", self.prior.n, self.loss)

    @property
    def n(self) -> int:
        return self.loss.n


@dataclass(frozen=True)
class MinimaxUser:
    """A minimax user (GS §2.3): knows the count lies in S ⊆ N and minimises
    max_{i ∈ S} Σ_j z[i][j]·l(i, j)."""

    side_information: frozenset[int]
    loss: Loss

    def __init__(self, side_information: Iterable[int], loss: Loss) -> None:
        s = frozenset(side_information)
        if not s:
            raise InputError("the side information S is empty", hint="expected a nonempty subset of 0..n")
        outside = sorted(i for i in s if not (isinstance(i, int) and 0 <= i <= loss.n))
        if outside:
            raise InputError(f"S contains {outside}", hint=f"expected counts in 0..{loss.n}")
        object.__setattr__(self, "side_information", s)
        object.__setattr__(self, "loss", loss)

    @property
    def n(self) -> int:
        return self.loss.n
