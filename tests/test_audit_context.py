"""One audit context: α is parsed once and T (with T⁻¹) is built once per audit, whatever the
number of analyses (derivation, dominance, users' remaps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mechlib.core.families as families
from mechlib.audit.loading import load_source
from mechlib.audit.whitebox import audit

SOURCE = "from mechlib import truncated_geometric\n\ndef make(n={n}):\n    return truncated_geometric('1/2', n)\n"


def _count_t_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every T goes through families._lumped_geometric(α, n, 0, n); count those calls."""
    builds: list[int] = []
    real = families._lumped_geometric

    def counting(alpha: Any, n: int, lo: int, hi: int) -> Any:
        if (lo, hi) == (0, n):
            builds.append(n)
        return real(alpha, n, lo, hi)

    monkeypatch.setattr(families, "_lumped_geometric", counting)
    return builds


@pytest.mark.parametrize(("n", "module"), [(12, "t_source_12"), (1000, "t_source_1000")])
def test_an_audit_of_t_builds_t_once(n: int, module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / f"{module}.py").write_text(SOURCE.format(n=n))
    monkeypatch.syspath_prepend(str(tmp_path))
    builds = _count_t_builds(monkeypatch)
    report = audit(load_source(f"{module}:make"))  # the source builds T once itself
    assert report["derivation"]["status"] == "derivable"
    # every finding ran (derivation, dominance, the three standard users: no LP at any n, their
    # duals built from T), one T among them; at n = 1000 dominance is the derivation itself
    assert report["dominance"]["status"] == "certified" and report["user_losses"]["status"] == "certified"
    if n > 150:
        assert report["dominance"] == {"status": "certified", "alpha": "1/2", "remap": "derivation"}
    assert builds == [n, n]  # the source's T, and the audit's one T


def _random_remap_of_t(alpha: str, n: int, seed: int) -> Any:
    import random
    from fractions import Fraction

    from mechlib import Remap, compose, truncated_geometric

    rng = random.Random(seed)
    width = rng.randint(2, n + 2)
    rows = []
    for _ in range(n + 1):
        weights = [rng.randint(0, 3) for _ in range(width)]
        weights[0] += not any(weights)
        rows.append([Fraction(w, sum(weights)) for w in weights])
    return compose(Remap(rows), truncated_geometric(alpha, n))


@pytest.mark.parametrize("alpha", ["1/1000", "1/100", "1/10"])
@pytest.mark.parametrize("n", [1, 5, 9, 12])
def test_dominance_is_decided_on_t_and_its_remaps_at_tiny_alpha(alpha: str, n: int) -> None:
    """The float LP used to fail here ("HiGHS reports the dominance LP infeasible") although the
    derivation itself is a witness: a remap of T is dominated by its own derivation (tails equal)."""
    from mechlib import truncated_geometric
    from mechlib.audit.whitebox import AuditContext, theory_findings

    for mech in (truncated_geometric(alpha, n), _random_remap_of_t(alpha, n, seed=n)):
        context = AuditContext.of(mech)
        found = theory_findings(context)
        if not 0 < context.alpha < 1:  # a remap may have equal rows (α = 1): nothing to decide
            assert found["dominance"]["status"] == "not applicable"
            continue
        assert found["derivation"]["status"] == "derivable"
        assert found["dominance"]["status"] == "certified", found["dominance"]
