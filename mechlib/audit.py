"""White-box audit of one mechanism: exact DP level, its witness, and the claimed level.

Later issues add derivability, dominance and user losses; every finding is exact.
"""

from __future__ import annotations

from typing import Any

from mechlib import __version__
from mechlib.exact import format_decimal, format_fraction
from mechlib.loading import LoadedMechanism
from mechlib.privacy import alpha_at_least_exp_minus, dp_level

SCHEMA = "mechlib.audit/1"


def audit(loaded: LoadedMechanism) -> dict[str, Any]:
    """The audit report as a JSON-ready dict; ``report["verdict"]`` is PASS, FAIL or NONE
    (no claimed level to check)."""
    mech = loaded.mechanism
    level = dp_level(mech)
    bounds = level.epsilon_bounds()
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "tool": {"name": "mechlib", "version": __version__},
        "source": {"path": loaded.path, "format": loaded.format, "sha256": loaded.sha256, "name": loaded.name},
        "rows_normalized": loaded.rows_normalized,
        "n": mech.n,
        "inputs": list(mech.inputs),
        "outputs": list(mech.outputs),
        "count_query": mech.is_count_query(),
        "dp_level": format_fraction(level.alpha),
        # exact bounds on ε = ln(1/α), rounded outward to 15 decimals; null when α = 0 (ε = ∞)
        "epsilon_interval": None
        if bounds is None
        else [format_decimal(bounds[0], 15, up=False), format_decimal(bounds[1], 15, up=True)],
        "witness": None if level.witness is None else level.witness.to_json(),
        "claimed": None,
        "verdict": "NONE",
    }
    if loaded.claimed_alpha is not None:
        ok = level.alpha >= loaded.claimed_alpha
        report["claimed"] = {"alpha": format_fraction(loaded.claimed_alpha), "holds": ok}
    elif loaded.claimed_epsilon is not None:
        ok = alpha_at_least_exp_minus(level.alpha, loaded.claimed_epsilon)
        report["claimed"] = {"epsilon": format_fraction(loaded.claimed_epsilon), "holds": ok}
    if report["claimed"] is not None:
        report["verdict"] = "PASS" if report["claimed"]["holds"] else "FAIL"
    return report


def render_text(report: dict[str, Any]) -> str:
    """A short human-readable account of an audit report."""
    outs, src = report["outputs"], report["source"]
    lines = [
        f"mechanism  {src['path']} ({src['format']}, sha256 {src['sha256'][:12]}…)",
        f"shape      {len(report['inputs'])} inputs × {len(outs)} outputs ({outs[0]}..{outs[-1]})"
        + ("" if report["count_query"] else ", custom inputs/neighbours"),
    ]
    if report["rows_normalized"]:
        lines.append("note       rows were normalised to sum to 1 (--normalize-rows)")
    eps = report["epsilon_interval"]
    eps_text = "ε = ∞" if eps is None else f"ε = ln(1/α) ∈ [{eps[0]}, {eps[1]}]"
    lines.append(f"dp level   α = {report['dp_level']}  ({eps_text})")
    w = report["witness"]
    if w is not None:
        (big, small), (pbig, psmall), r, ratio = w["inputs"], w["probabilities"], w["output"], w["ratio"]
        lines.append(f"witness    x[{small}][{r}] = {psmall} = {ratio} · x[{big}][{r}] = {ratio} · {pbig}")
    claimed = report["claimed"]
    if claimed is not None:
        what = f"α = {claimed['alpha']}" if "alpha" in claimed else f"ε = {claimed['epsilon']}"
        lines.append(f"claimed    {what}: {report['verdict']}")
    return "\n".join(lines)
