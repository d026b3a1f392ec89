"""GRS-L5.4 (GRS Lemma 5.4): Same signature ⇔ same binding constraints.

Every check part of this claim is here (``mechlib verify --only GRS-L5.4``), and so are the mutants
that falsify it alone; those that falsify several claims are in :mod:`mechlib.proofs.falsifications`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.signature import DOWN, UP, ZERO, Signature, signature
from mechlib.core.stochastic import compose
from mechlib.optimality.optimal import dp_constraint_rows
from mechlib.proofs.catalogue import EXACT, FUZZ
from mechlib.proofs.fuzz import alpha_first, fuzz
from mechlib.proofs.registry import Outcome, check
from mechlib.proofs.shared.dp_polytope import VertexSet, decide_on_every_vertex
from mechlib.strategies import dp_mixtures, remaps


def binding_set(x: Mechanism, alpha: Fraction) -> frozenset[tuple[str, int]]:
    """The constraints of GRS LP (3)–(7) tight at x, read off the LP's own rows
    (:func:`mechlib.optimality.optimal.dp_constraint_rows`, the encoding HiGHS solves) evaluated
    exactly — not from the signature: ("dp", k) for a tight α-DP row k, ("x ≥ 0", v) for a zero
    variable."""
    flat = [v for row in x.rows for v in row]
    tight = {("x ≥ 0", v) for v, value in enumerate(flat) if value == 0}
    rows = dp_constraint_rows(len(x.rows), len(x.outputs), alpha)
    tight |= {("dp", k) for k, terms in enumerate(rows) if sum(c * flat[v] for v, c in terms) == 0}
    return frozenset(tight)


def signature_iff_binding(case: tuple[tuple[Fraction, Mechanism], Mechanism]) -> dict[str, Any] | None:
    """GRS-L5.4: two α-DP mechanisms have the same signature ⇔ the same binding constraints."""
    (alpha, x), other = case
    same_signature = signature(x, alpha).rows == signature(other, alpha).rows
    same_binding = binding_set(x, alpha) == binding_set(other, alpha)
    return None if same_signature == same_binding else {"same_signature": same_signature, "same_binding": same_binding}


@st.composite
def pairs_of_dp_mechanisms(draw: st.DrawFn) -> tuple[tuple[Fraction, Mechanism], Mechanism]:
    """Two α-DP mechanisms of the same shape: a DP mixture X and X itself, T, or X mixed with a
    random remap of T."""
    alpha, x = draw(dp_mixtures(max_n=4))
    choice = draw(st.sampled_from(["same", "T", "mixture"]))
    if choice == "same":
        return (alpha, x), x
    t = truncated_geometric(alpha, x.n)
    if choice == "T" and len(x.outputs) == len(t.outputs):
        return (alpha, x), t
    other = compose(draw(remaps(t.outputs, len(x.outputs))), t)  # α-DP, same shape as x
    lam = Fraction(draw(st.integers(1, 3)), 4)
    return (alpha, x), Mechanism([[lam * a + (1 - lam) * b for a, b in zip(r, s)] for r, s in zip(x.rows, other.rows)])


@check("GRS-L5.4", kind=FUZZ)
def fuzz_signature_binding() -> Outcome:
    return fuzz("GRS-L5.4", pairs_of_dp_mechanisms(), signature_iff_binding, 80, drawn=lambda c: alpha_first(c[0]))


def binding_of_signature(sig: Signature) -> frozenset[tuple[str, int]]:
    """The constraints of LP (3)–(7) a signature says are tight (in :func:`binding_set`'s names):
    ↓ its pair's first DP row, ↑ the second, 0 both and both entries' x ≥ 0, S none."""
    m = len(sig.outputs)
    tight: set[tuple[str, int]] = set()
    for i, row in enumerate(sig.rows):
        for j, symbol in enumerate(row):
            k = 2 * (i * m + j)
            if symbol == DOWN:
                tight.add(("dp", k))
            elif symbol == UP:
                tight.add(("dp", k + 1))
            elif symbol == ZERO:
                tight |= {("dp", k), ("dp", k + 1), ("x ≥ 0", i * m + j), ("x ≥ 0", (i + 1) * m + j)}
    return frozenset(tight)


#: How the exact part decides, as its scope states it.
EXACT_METHOD = (
    "every feasible X: exact Farkas identities on the LP's rows fix each entry pair's tight constraints to "
    "one of four patterns, one per symbol; every vertex cross-checks the two readings"
)


@check("GRS-L5.4", kind=EXACT)
def exact_signature_binding() -> Outcome:
    """Both the signature and the binding set of X are read entry pair by entry pair (rows i, i+1,
    column j; every constraint of LP (4)–(7) but the always-tight row sums belongs to one). The exact
    identities of :func:`zero_chain_certificates` leave each pair four possible tight sets — none
    (S), the ↓ row (↓), the ↑ row (↑), all four (0) — so signature and binding set determine each
    other for every feasible X. On every vertex the binding set read off the LP's rows
    (:func:`binding_set`) must be the one the signature gives."""

    def violations(vertex_set: VertexSet) -> list[dict[str, Any]]:
        return [
            {"instance": vertex_set.name, "vertex": x.to_strings()}
            for x in vertex_set.vertices
            if binding_set(x, vertex_set.alpha) != binding_of_signature(signature(x, vertex_set.alpha))
        ][:1]

    return decide_on_every_vertex(violations, EXACT_METHOD)
