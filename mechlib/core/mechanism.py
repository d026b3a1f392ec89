"""A privacy mechanism: an exact row-stochastic matrix over inputs with a neighbour graph.

GRS §2.1: an oblivious mechanism for a count query is given by x[i][r], the probability of
output r when the true count is i ∈ N = {0, …, n}; neighbouring databases have counts that
differ by at most one, so the neighbour graph is the path 0–1–…–n (the default). Any finite
input set with any neighbour graph is allowed (e.g. databases, GRS §6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mechlib.core.stochastic import Label, StochasticMatrix
from mechlib.errors import InputError


class Mechanism(StochasticMatrix):
    """An exact mechanism x[i][r] = P(output r | input i) with a neighbour graph on inputs.

    Parameters
    ----------
    matrix
        Rows of exact numbers, one row per input, one column per output.
    inputs, outputs
        Labels (default ``0..``). Output labels may lie outside ``0..n`` (e.g. a window of ℤ).
    neighbours
        Pairs of input labels that are neighbours. Default: the path ``inputs[0]–inputs[1]–…``,
        i.e. counts differing by one (GRS §2.1, GS Definition 2).
    from_float
        Accept floats as their exact binary value.
    """

    __slots__ = ("_neighbours",)

    _neighbours: tuple[tuple[int, int], ...]

    def __init__(
        self,
        matrix: Sequence[Sequence[Any]],
        *,
        inputs: Sequence[Label] | None = None,
        outputs: Sequence[Label] | None = None,
        neighbours: Sequence[tuple[Label, Label]] | None = None,
        from_float: bool = False,
    ) -> None:
        super().__init__(matrix, inputs=inputs, outputs=outputs, from_float=from_float)
        self._setup_extra(neighbours)

    def _setup_extra(self, neighbours: Sequence[tuple[Label, Label]] | None = None) -> None:
        if neighbours is None:
            self._set(_neighbours=tuple((k, k + 1) for k in range(len(self._inputs) - 1)))
            return
        pairs: list[tuple[int, int]] = []
        seen: set[frozenset[int]] = set()
        for pair in neighbours:
            if len(pair) != 2:
                raise InputError(f"neighbour pair {pair!r} does not have two labels", field="neighbours")
            a, b = (self._index_or_error(x) for x in pair)
            if a == b:
                raise InputError(f"input {pair[0]!r} is listed as its own neighbour", field="neighbours")
            key = frozenset((a, b))
            if key not in seen:
                seen.add(key)
                pairs.append((a, b))
        self._set(_neighbours=tuple(pairs))

    def _index_or_error(self, label: Label) -> int:
        if label not in self._input_pos:
            raise InputError(f"neighbour {label!r} is not an input label", field="neighbours")
        return self._input_pos[label]

    def _extra(self) -> dict[str, Any]:
        if self._neighbours == tuple((k, k + 1) for k in range(len(self._inputs) - 1)):
            return {}
        return {"neighbours": tuple((self._inputs[a], self._inputs[b]) for a, b in self._neighbours)}

    @property
    def neighbour_positions(self) -> tuple[tuple[int, int], ...]:
        """Neighbouring pairs as row positions."""
        return self._neighbours

    @property
    def ordered_neighbour_positions(self) -> tuple[tuple[int, int], ...]:
        """Both directions (i, i′) and (i′, i) of every neighbouring pair, as row positions."""
        return tuple(pair for i, j in self._neighbours for pair in ((i, j), (j, i)))

    @property
    def neighbours(self) -> tuple[tuple[Label, Label], ...]:
        return tuple((self._inputs[a], self._inputs[b]) for a, b in self._neighbours)

    @property
    def n(self) -> int:
        """The number of inputs − 1 (for a count query on N = {0..n}, n itself)."""
        return len(self._inputs) - 1

    def is_count_query(self) -> bool:
        """Inputs are 0..n with the path neighbour graph (the setting of GRS and GS)."""
        return self._inputs == tuple(range(len(self._inputs))) and not self._extra()
