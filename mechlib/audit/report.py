"""Markdown and a self-contained HTML page for an audit report and a black-box result, rendered
from the templates in ``mechlib/templates/`` (no network, no scripts).

The HTML shows the mechanism as a heatmap, its signature at the DP level (GRS §5.3), every
finding with its witness, each user's loss beside the certified optimum as bars, and, when
asked for, the privacy profile δ(ε) as a plot. Every
number printed is the report's exact value (decimals are only for display, marked ≈).
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from mechlib.audit.approximate_dp import findings as approximate_lines
from mechlib.audit.approximate_dp import plot_points
from mechlib.core.exact import format_fraction
from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.remap import Remap
from mechlib.core.stochastic import compose
from mechlib.rendering import render


def _mechanism(report: dict[str, Any]) -> Mechanism:
    """The certificate's matrix (integer rows, or T·Y: T at ``t_alpha`` then the remap Y) as a Mechanism."""
    m, form = report["mechanism"], report["mechanism"]["matrix"]
    if "t_alpha" not in form:
        return Mechanism.from_integer_rows(form, inputs=m["inputs"], outputs=m["outputs"])
    t = truncated_geometric(form["t_alpha"], report["n"])
    return compose(Remap.from_integer_rows(form["remap"], inputs=t.outputs, outputs=m["outputs"]), t)


def _signature_rows(report: dict[str, Any], mech: Mechanism) -> list[list[str]] | None:
    from mechlib.core.signature import signature

    alpha = Fraction(report["dp_level"])
    if not report["count_query"] or not 0 < alpha < 1:
        return None
    return [list(row) for row in signature(mech, alpha).rows]


def _findings(report: dict[str, Any]) -> list[tuple[str, str]]:
    eps = report["epsilon_interval"]
    level = (
        f"ε = ln 1/α ∈ [{eps[0]}, {eps[1]}] (α = e^−ε = {report['dp_level']})"
        if eps
        else f"not DP for any ε (α = {report['dp_level']})"
    )
    out = [("DP level", level)]
    w = report["witness"]
    if w:
        out.append(
            (
                "witness",
                f"inputs {w['inputs']}, output {w['output']}: "
                f"{w['probabilities'][1]} = {w['ratio']} · {w['probabilities'][0]}",
            )
        )
    if report["claimed"]:
        what = (
            f"α = {report['claimed']['alpha']}"
            if "alpha" in report["claimed"]
            else f"ε = {report['claimed']['epsilon']}"
        )
        what += f", δ = {report['claimed']['delta']}" if "delta" in report["claimed"] else ""
        out.append(("claimed", f"{what}: {report['verdict']}"))
    out += approximate_lines(report["approximate_dp"])
    d = report["derivation"]
    if d["status"] == "not derivable":
        v = d["violation"]
        out.append(("derivable from T", f"no — T⁻¹M[{v['row']}][{v['output']}] = {v['entry']} < 0 (GS Thm 2)"))
    else:
        out.append(
            ("derivable from T", {"derivable": "yes — M = Y∘T, Y in the certificate"}.get(d["status"], d["status"]))
        )
    dom = report["dominance"]
    out.append(
        (
            "dominance",
            "a remap of T is at least as good for every legal user"
            if dom["status"] == "certified"
            else f"{dom['status']} {dom.get('reason', '')}",
        )
    )
    return out


def _today() -> str:
    """The date a page is rendered (certificates carry no date: the page says when it was made)."""
    return datetime.now(UTC).strftime("%Y-%m-%d")


def _context(report: dict[str, Any]) -> dict[str, Any]:
    src = report["source"]
    users = report["user_losses"]["users"] if report["user_losses"]["status"] == "certified" else []
    return {
        **report,
        "title": str(src.get("name") or src["path"]),
        "findings": _findings(report),
        "users": users,
        "recheck": f"mechlib check CERTIFICATE.json {src['path']}",
        "created": _today(),
        "glossary": ["ε and α", "DP level", "T", "derivable", "dominance", "legal user", "certified optimum",
                     "signature", "UNKNOWN"] + (["privacy profile", "zCDP"] if report["approximate_dp"] else []),
    }  # fmt: skip


def render_markdown(report: dict[str, Any]) -> str:
    """The audit as Markdown (``templates/audit.md``)."""
    return render("audit.md", **_context(report))


def _heatmap(mech: Mechanism) -> dict[str, Any]:
    """Each cell's exact text and its shade relative to the largest entry."""
    values = mech.rows
    top = max((v for row in values for v in row), default=Fraction(1)) or Fraction(1)
    rows = [
        (i, [(text, float(v / top)) for v, text in zip(row, texts)])
        for i, row, texts in zip(mech.inputs, values, mech.to_strings())
    ]
    return {"rows": rows, "top": format_fraction(top)}


def render_html(report: dict[str, Any]) -> str:
    """One HTML file (``templates/audit.html``): inline CSS only, no script, no external resource."""
    context = _context(report)
    worst = max((Fraction(u["mechanism"]) for u in context["users"]), default=Fraction(1)) or Fraction(1)
    context["users"] = [
        {**u, "mechanism_width": 12 * float(Fraction(u["mechanism"]) / worst),
         "optimum_width": 12 * float(Fraction(u["optimum"]) / worst)}
        for u in context["users"]
    ]  # fmt: skip
    mech = _mechanism(report)
    section = report["approximate_dp"]
    plot = None if section is None else plot_points(section)
    return render(
        "audit.html", **context, heatmap=_heatmap(mech), signature=_signature_rows(report, mech), profile_plot=plot
    )


#: The glossary terms a black-box page explains.
BLACKBOX_TERMS = [
    "ε and α", "neighbours", "pooled counts", "summed hypotheses", "false alarm", "ε lower bound", "one-sided output",
]  # fmt: skip


def _blackbox_context(result: dict[str, Any]) -> dict[str, Any]:
    """The result, and its tests' events in words (``s ≥ 7``, ``s ∈ {…}``), not as JSON."""
    from mechlib.audit import OUTSIDE_SHOWN, confidence, outside_in_words
    from mechlib.audit.blackbox_delta import event_name
    from mechlib.audit.ratio_test import hypothesis_in_words

    test, dp, conformance = result.get("delta_test"), result["dp"], result.get("conformance") or {}
    outside = conformance.get("outside", [])
    event = test.get("event") if isinstance(test, dict) else None
    keys = ("violation", "epsilon_lower_bound")
    worded = {key: hypothesis_in_words(dp[key]) if dp.get(key) else None for key in keys}
    violation = dp["violation"]
    level = violation and dp["per_bound_level"]["summed" if "parts" in violation else "single"]
    return {
        **result,
        "delta_event": event_name(event["set"]) if event else None,
        # (inputs and event(s) in words, θ₀ in words, the level it was rejected at)
        "dp_violation": worded["violation"] and (*worded["violation"], level),
        "dp_bound": worded["epsilon_lower_bound"] and worded["epsilon_lower_bound"][0],
        "confidence": confidence(dp["alpha_fa"]),
        # the nonconformant cells in words, the first OUTSIDE_SHOWN (all of them in the JSON)
        "outside": [outside_in_words(c) for c in outside[:OUTSIDE_SHOWN]]
        + ([f"… and {len(outside) - OUTSIDE_SHOWN} more"] if len(outside) > OUTSIDE_SHOWN else []),
        "without_headline": False,  # the HTML page shows the headline on its own, above the verdicts
    }


def render_blackbox_markdown(result: dict[str, Any]) -> str:
    """The black-box result as Markdown (``templates/blackbox.md``)."""
    return render("blackbox.md", **_blackbox_context(result))


def render_blackbox_html(result: dict[str, Any], pmf: list[dict[int, Fraction]] | None) -> str:
    """Empirical pmf per count (bars), beside the claimed pmf when given (grey bars)."""
    histograms = []
    for i, hist in enumerate(result["counts"]):
        total = sum(hist.values())
        outputs = sorted({int(s) for s in hist} | (set(pmf[i]) if pmf else set()))
        histograms.append(
            [(s, hist.get(str(s), 0) / total, float(pmf[i].get(s, Fraction(0))) if pmf else 0.0) for s in outputs]
        )
    context = _blackbox_context(result)
    return render(
        "blackbox.html",
        **context,
        headline=render("blackbox_headline.md", **context),
        summary=render("blackbox_summary.md", **(context | {"without_headline": True})),
        histograms=histograms,
        claimed=pmf is not None,
        recheck="mechlib check RESULT.json",
        created=_today(),
        glossary=BLACKBOX_TERMS,
    )
