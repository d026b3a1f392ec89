"""Remaps (GRS §2.3, GS §2.4.2): how a user reinterprets a mechanism's output.

A remap Y is a stochastic matrix from the mechanism's outputs to guesses; y[r][j] is the
probability of reading output r as j. Deterministic remaps map each output to one guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mechlib.core.stochastic import Label, StochasticMatrix, _check_shape
from mechlib.errors import InputError


class Remap(StochasticMatrix):
    """A (possibly randomized) exact remap y[r][j] = P(guess j | output r)."""

    __slots__ = ("_images",)

    @classmethod
    def deterministic(
        cls,
        mapping: Mapping[Label, Label] | Callable[[Label], Label],
        inputs: Sequence[Label],
        outputs: Sequence[Label] | None = None,
    ) -> Remap:
        """The remap sending each output r in ``inputs`` to ``mapping[r]`` with probability 1.

        ``outputs`` (the guesses) defaults to the sorted distinct images; if given, every image
        must be one of them.
        """
        func = mapping.__getitem__ if isinstance(mapping, Mapping) else mapping
        images = []
        for r in inputs:
            try:
                images.append(func(r))
            except (KeyError, IndexError):
                raise InputError(f"the mapping has no image for output {r!r}", field="mapping") from None
        targets = tuple(outputs) if outputs is not None else tuple(sorted(set(images), key=_sort_key))
        position = {label: k for k, label in enumerate(targets)}
        zeros = (0,) * len(targets)
        rows = []
        for r, j in zip(inputs, images):
            if j not in position:
                raise InputError(f"output {r!r} maps to {j!r}, which is not a listed guess", field="mapping")
            k = position[j]
            rows.append((*zeros[:k], 1, *zeros[k + 1 :]))
        # one 1 a row over denominator 1: stochastic by construction, so no re-validation pass
        _check_shape(rows)
        remap = cls.__new__(cls)
        remap._setup(tuple(rows), (1,) * len(rows), inputs, targets, validated=True)
        remap._set(_images=tuple(images))  # as_mapping without a scan of the rows
        return remap

    @classmethod
    def identity(cls, labels: Sequence[Label]) -> Remap:
        """Accept every output at face value."""
        return cls.deterministic(lambda r: r, labels, labels)

    def is_identity(self) -> bool:
        """Every input r goes to the output labelled r with probability 1."""
        num, den = self.scaled()
        where = {label: k for k, label in enumerate(self.outputs)}
        return all(r in where and row[where[r]] == d for r, row, d in zip(self.inputs, num, den))

    def as_mapping(self) -> dict[Label, Label]:
        """For a deterministic remap: output ↦ guess."""
        images = getattr(self, "_images", None)  # set by ``deterministic`` (not carried by pickling)
        if images is not None:
            return dict(zip(self.inputs, images))
        if not self.is_deterministic():
            raise InputError("the remap is randomized, so it is not a function of the output")
        num, den = self.scaled()
        return {r: self.outputs[row.index(d)] for r, row, d in zip(self.inputs, num, den)}


def _sort_key(label: Label) -> tuple[str, object]:
    return (type(label).__name__, label)
