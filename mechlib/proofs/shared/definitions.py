"""The one symbolic definition of each matrix the ALL-n parts reason about, as power terms of
:mod:`mechlib.proofs.shared.obligations` in symbolic integer indices, and the exact check that
each agrees with the library's own matrix at every index for small n.

* T (GRS Example 2.2): T[i][r] = c_r·α^|i−r|, c_r = 1/(1+α) at r ∈ {0, n}, (1−α)/(1+α) inside.
* The α-geometric mechanism on ℤ (GRS Example 2.1): (1−α)/(1+α)·α^|i−r|.
* G′ (GS Lemma 1, the Kac–Murdock–Szegő matrix): G′[r][j] = α^|r−j|.
* T⁻¹ (GS §3, the closed form behind Theorem 2): rows 0 and n are (1, −α)/(1−α) on the diagonal
  and its one neighbour, interior rows (−α, 1+α², −α)/(1−α)², zero elsewhere.
* Products whose inner index runs over T⁻¹'s band (|k − j| ≤ 1, itself an obligation:
  :func:`inverse_band`): (T·T⁻¹)[i][j] and (T_α⁻¹·T_β)[r][c].
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from mechlib.proofs.shared.obligations import (
    ALPHA,
    BASES,
    ZERO,
    Obligations,
    Region,
    Term,
    add,
    constant,
    evaluate,
    mul,
    power_of_distance,
    prove_for_every_index,
    where,
)

#: T⁻¹'s interior diagonal times (1−α)² (GS §3), as data: a mutant changes it for every check alike.
INTERIOR = ("the interior diagonal of T⁻¹, times (1−α)²", lambda a: 1 + a * a)

#: The scope of a proof with n a variable.
ALL_N = "every n ≥ 1"

N, I, J, K, R, C, M = z3.Ints("n i j k r c m")  # noqa: E741  (the papers' index names)
#: Every n ≥ 1 and every pair of indices in 0..n.
SQUARE = z3.And(N >= 1, I >= 0, I <= N, R >= 0, R <= N)


def t_entry(i: Any, r: Any, n: Any, base: str = "alpha") -> Term:
    """T[i][r] at α = ``base`` (GRS Example 2.2)."""
    a = BASES[base]
    factor = where(z3.Or(r == 0, r == n), constant(1 / (1 + a)), constant((1 - a) / (1 + a)))
    return mul(factor, power_of_distance(base, i - r))


def geometric_entry(i: Any, r: Any) -> Term:
    """The α-geometric mechanism on ℤ (GRS Example 2.1)."""
    return mul(constant((1 - ALPHA) / (1 + ALPHA)), power_of_distance("alpha", i - r))


def kms_entry(r: Any, j: Any) -> Term:
    """G′[r][j] = α^|r−j| (GS Lemma 1); no dependence on the size."""
    return power_of_distance("alpha", r - j)


def inverse_entry(k: Any, j: Any, n: Any, base: str = "alpha") -> Term:
    """T⁻¹[k][j] at α = ``base`` in GS's closed form."""
    a = BASES[base]
    edge, inside = 1 / (1 - a), 1 / ((1 - a) * (1 - a))
    first = where(j == 0, constant(edge), where(j == 1, constant(-a * edge), ZERO))
    last = where(j == n, constant(edge), where(j == n - 1, constant(-a * edge), ZERO))
    neighbour = where(z3.Or(j == k - 1, j == k + 1), constant(-a * inside), ZERO)
    middle = where(j == k, constant(INTERIOR[1](a) * inside), neighbour)
    return where(k == 0, first, where(k == n, last, middle))


def banded_product(left: Any, right: Any, centre: Any, n: Any) -> Term:
    """Σ_k left(k)·right(k) over the band k = centre−1, centre, centre+1 inside 0..n."""
    band = [(centre + d, z3.And(centre + d >= 0, centre + d <= n)) for d in (-1, 0, 1)]
    return add(*(where(inside, mul(left(k), right(k)), ZERO) for k, inside in band))


def t_times_inverse(i: Any, j: Any, n: Any) -> Term:
    """(T·T⁻¹)[i][j], summed over T⁻¹'s band in column j."""
    return banded_product(lambda k: t_entry(i, k, n), lambda k: inverse_entry(k, j, n), j, n)


def t_alpha_beta_entry(r: Any, c: Any, n: Any) -> Term:
    """(T_α⁻¹·T_β)[r][c] (GS Lemma 3), summed over T_α⁻¹'s band in row r."""
    return banded_product(lambda k: inverse_entry(r, k, n), lambda k: t_entry(k, c, n, "beta"), r, n)


def inverse_band() -> Obligations:
    """T⁻¹[k][j] = 0 whenever |k − j| ≥ 2 (so sums over k reduce to the band), every n."""
    domain = z3.And(N >= 1, K >= 0, K <= N, J >= 0, J <= N, z3.Or(K - J >= 2, J - K >= 2))
    return prove_for_every_index(
        "T⁻¹ vanishes off its band", domain, {"x": inverse_entry(K, J, N)}, [Region("|k−j| ≥ 2", True, _is_zero)]
    )


def _is_zero(values: Any) -> Any:
    return values["x"] == 0


# -- the definitions agree with the library's matrices ----------------------------------------------


def agreement(
    only: tuple[str, ...] = ("geometric on ℤ", "T", "T⁻¹", "G′", "T·T⁻¹", "T_α⁻¹·T_β"),
    largest: int = 4,
    alphas: tuple[Fraction, ...] = (Fraction(1, 2), Fraction(1, 3)),
) -> dict[str, bool]:
    """Each definition named in ``only`` evaluated exactly at every index equals the library's
    matrix, n ≤ ``largest``: the geometric mechanism (``geometric``'s exact columns), T
    (``truncated_geometric``), T⁻¹ (flint's exact inverse of T), G′ (``kms``), and the banded
    products (T·T⁻¹ = I, T_α⁻¹·T_β by flint, β = (1 + α)/2)."""
    import flint

    from mechlib.core.exact_linear import from_fmpq, to_fmpq
    from mechlib.core.families import geometric, truncated_geometric
    from mechlib.proofs.shared.symbolic import kms

    def exact(rows: Any) -> Any:
        return flint.fmpq_mat([[to_fmpq(v) for v in row] for row in rows])

    def entries(matrix: Any) -> list[list[Fraction]]:
        size = range(matrix.nrows())
        return [[from_fmpq(matrix[x, y]) for y in size] for x in size]

    definitions = {
        "T": (t_entry(I, R, N), I, R),
        "T⁻¹": (inverse_entry(K, J, N), K, J),
        "G′": (kms_entry(R, J), R, J),
        "T·T⁻¹": (t_times_inverse(I, J, N), I, J),
        "T_α⁻¹·T_β": (t_alpha_beta_entry(R, C, N), R, C),
    }
    found: dict[str, bool] = {}
    for a in alphas:
        b = (1 + a) / 2
        if "geometric on ℤ" in only:
            wide = geometric(a, largest, margin=2)  # columns −2..n+2; −1..n+1 are exact point masses
            columns = [c for c in wide.outputs if isinstance(c, int) and -1 <= c <= largest + 1]
            found[f"geometric on ℤ, α={a}"] = all(
                evaluate(geometric_entry(I, R), {I: i, R: c}, {"alpha": a}) == wide.entry(i, c)
                for i in range(largest + 1)
                for c in columns
            )
        for n in range(1, largest + 1):
            t = truncated_geometric(a, n).rows
            inverse = exact(t).inv()
            library = {
                "T": t,
                "T⁻¹": entries(inverse),
                "G′": kms(n + 1, a),
                "T·T⁻¹": [[Fraction(int(x == y)) for y in range(n + 1)] for x in range(n + 1)],
                "T_α⁻¹·T_β": entries(inverse * exact(truncated_geometric(b, n).rows)),
            }
            for name, (term, first, second) in definitions.items():
                if name not in only:
                    continue
                want = library[name]
                found[f"{name}, n={n}, α={a}"] = all(
                    evaluate(term, {first: x, second: y, N: n}, {"alpha": a, "beta": b}) == want[x][y]
                    for x in range(n + 1)
                    for y in range(n + 1)
                )
    return found
