"""Black-box audit: sample a mechanism on counts 0..n and test its claimed ε (and its pmf).

**Sampling.** Two independent phases per count, of Poisson sizes (``sample_phases``): the design
that makes the ε test's conditional binomial law exact (``mechlib.audit.ratio_test``, where the
test and its validity argument are).

**Conformance test.** Against a claimed exact pmf p_i(s): a two-sided Clopper–Pearson interval
per cell at level α_FA / (2·cells) must contain p_i(s); every cell outside is reported with its
counts and interval — so a sampler that does not implement its spec is caught even when DP happens to hold.

**Exactness.** The Clopper–Pearson bounds are verified in arb (``mechlib.audit.statistics``); the
verdicts compare rationals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mechlib.audit import DEFAULT_ALPHA_FA, false_alarm_rate
from mechlib.audit.statistics import Histograms, Phases, add_histograms, cp_lower, cp_upper
from mechlib.core.exact import format_fraction
from mechlib.errors import InputError

#: A sampler: (true count, number of samples, numpy Generator) -> list of int outputs.
Draw = Callable[[int, int, Any], list[int]]


@dataclass(frozen=True)
class Sampler:
    """A named sampler; ``configured``: what an adapter set in its library (recorded, provenance)."""

    name: str
    draw: Draw
    library: str = "mechlib"
    configured: dict[str, Any] | None = None


#: The result's schema id (``mechlib.checkers.blackbox_result`` spells its own).
SCHEMA = "mechlib.blackbox/9"

#: The Poisson mean of the selection phase's sample size, as a share of --samples (λ).
SELECTION_SHARE = Fraction(1, 4)


def poisson_sizes(samples: int, n: int, seed: int) -> tuple[list[int], list[int]]:
    """Per count 0..n, the (selection, test) sample sizes: Poisson(λ/4) and Poisson(3λ/4) for
    λ = ``samples``, from the numpy stream [seed, 0] (``mechlib.audit.ratio_test``: why Poisson)."""
    import numpy as np

    rng = np.random.default_rng([seed, 0])
    share = float(SELECTION_SHARE)
    selection = rng.poisson(samples * share, n + 1)
    test = rng.poisson(samples * (1 - share), n + 1)
    return [int(v) for v in selection], [int(v) for v in test]


def sample_phases(
    sampler: Sampler,
    n: int,
    samples: int,
    seed: int,
    progress: Callable[[int], Any] | None = None,
    outputs: range | None = None,
) -> Phases:
    """One run: the selection and the test phase, Poisson(λ/4) and Poisson(3λ/4) draws per count,
    sampled from the numpy streams [seed, 1] and [seed, 2]."""
    selection, test = (
        sample_counts(sampler, n, sizes, [seed, k], progress, outputs)
        for k, sizes in zip((1, 2), poisson_sizes(samples, n, seed), strict=True)
    )
    return selection, test


def sample_counts(
    sampler: Sampler,
    n: int,
    samples: int | Sequence[int],
    seed: int | list[int],
    progress: Callable[[int], Any] | None = None,
    outputs: range | None = None,
) -> list[dict[int, int]]:
    """Histograms of ``samples`` draws per input 0..n (or ``samples[i]`` for input i), validating
    every output (an integer, and in ``outputs`` when the mechanism declares its range)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = [samples] * (n + 1) if isinstance(samples, int) else list(samples)
    counts = []
    for i, size in enumerate(sizes):
        try:
            out = sampler.draw(i, size, rng) if size else []
        except InputError:
            raise
        except Exception as err:
            raise InputError(
                f"the sampler raised {type(err).__name__}: {err} (input {i})", source=sampler.name
            ) from None
        hist: dict[int, int] = {}
        for value in out:
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise InputError(
                    f"the sampler returned {value!r} for input {i}",
                    source=sampler.name,
                    hint="expected an integer output",
                )
            if outputs is not None and int(value) not in outputs:
                raise InputError(
                    f"the sampler returned {int(value)} for input {i}",
                    source=sampler.name,
                    hint=f"expected outputs in {outputs.start}..{outputs.stop - 1} (--range)",
                )
            hist[int(value)] = hist.get(int(value), 0) + 1
        if sum(hist.values()) != size:
            raise InputError(
                f"the sampler returned {sum(hist.values())} values for {size} requested", source=sampler.name
            )
        counts.append(hist)
        if progress is not None:
            progress(i)
    return counts


def path_neighbours(n: int) -> list[tuple[int, int]]:
    """The neighbours of a count query: i and i + 1."""
    return [(i, i + 1) for i in range(n)]


def complete_neighbours(n: int) -> list[tuple[int, int]]:
    """Every pair of inputs 0..n (a categorical mechanism such as randomized response)."""
    return [(i, j) for i in range(n + 1) for j in range(i + 1, n + 1)]


def approx(value: Fraction) -> str:
    """A probability for reading beside its exact value: 6 significant digits (display only)."""
    return f"{float(value):.6g}"


def conformance_test(
    counts: list[dict[int, int]], pmf: Sequence[dict[int, Fraction]], alpha_fa: Fraction | str = DEFAULT_ALPHA_FA
) -> dict[str, Any]:
    """Every claimed p_i(s) inside its two-sided Clopper–Pearson interval (Bonferroni over cells, at
    α_FA/(2·cells) exactly); every cell outside listed, in the order (input, output)."""
    if len(pmf) != len(counts):
        raise InputError(f"the claimed pmf has {len(pmf)} rows for {len(counts)} inputs")
    alpha, alpha_text = false_alarm_rate(alpha_fa)
    outputs = sorted({s for h in counts for s in h} | {s for row in pmf for s in row})
    cells = len(counts) * len(outputs)
    level = alpha / (2 * cells)
    outside = []
    for i, (h, row) in enumerate(zip(counts, pmf)):
        n = sum(h.values())
        for s in outputs:
            k, p = h.get(s, 0), row.get(s, Fraction(0))
            low, up = cp_lower(k, n, level), cp_upper(k, n, level)
            if not low <= p <= up:
                outside.append(
                    {
                        "input": i, "output": s, "count": k, "samples": n, "claimed": format_fraction(p),
                        "interval": [format_fraction(low), format_fraction(up)],
                        "approx": {"claimed": approx(p), "interval": [approx(low), approx(up)]},
                    }
                )  # fmt: skip
    return {  # everything the checker needs to redo the test
        "verdict": "nonconformant" if outside else "conformant",
        "alpha_fa": alpha_text,
        "cells": cells,
        "per_bound_level": format_fraction(level),
        "pmf": [{str(s): format_fraction(p) for s, p in sorted(row.items())} for row in pmf],
        "outside": outside,
    }


def blackbox_result(
    *,
    spec: str,
    library: str,
    n: int,
    samples: int,
    seed: int | list[int],
    seconds: float,
    phases: Phases,
    epsilon: Fraction,
    alpha_fa: Fraction | str,
    pmf: list[dict[int, Fraction]] | None = None,
    neighbours: Sequence[tuple[int, int]] | None = None,
    delta: Fraction | None = None,
    configured: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``mechlib.blackbox/9`` result (re-checked by ``mechlib check``) of the (selection,
    test) ``phases`` drawn with mean ``samples`` (λ) per count, at the exact false-alarm rate
    ``alpha_fa`` (a string is recorded as given, "1/100" or "0.01"): the ε test (``ratio_test``), given a
    claimed ``pmf`` the conformance test, and given ``delta`` the (ε, δ) test (``blackbox_delta``).
    ``seed`` is a list when the phases are several seeded runs added (a sweep)."""
    from mechlib.audit.blackbox_delta import delta_test
    from mechlib.audit.ratio_test import dp_test
    from mechlib.audit.whitebox import tool_versions

    neighbours = path_neighbours(n) if neighbours is None else neighbours
    counts = add_histograms(*phases)
    drawn = sum(sum(h.values()) for h in counts)

    def listed(histograms: Histograms) -> list[dict[str, int]]:
        return [{str(k): v for k, v in sorted(h.items())} for h in histograms]

    return {
        "schema": SCHEMA,
        "tool": tool_versions(),
        "sampler": {"spec": spec, "library": library, **({"configured": configured} if configured else {})},
        "n": n,
        "samples_per_count": samples,
        "sampling": "poisson",
        "seed": seed,
        "samples_per_second": round(drawn / seconds, 1) if seconds else None,
        "counts": listed(counts),
        "selection_counts": listed(phases[0]),
        "test_counts": listed(phases[1]),
        "neighbours": [list(pair) for pair in neighbours],
        "dp": dp_test(phases, epsilon, alpha_fa, neighbours),
        "conformance": conformance_test(counts, pmf, alpha_fa) if pmf is not None else None,
        "delta_test": None if delta is None else delta_test(phases, epsilon, delta, alpha_fa, neighbours),
    }
