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
from itertools import pairwise
from typing import Any

from mechlib.audit.approximate_dp import findings as approximate_lines
from mechlib.audit.approximate_dp import plot_points
from mechlib.audit.whitebox import undecided_text, user_in_words
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
        out.append(("derivable from T", "yes — M = Y∘T, Y in the certificate" if d["status"] == "derivable" else
                    undecided_text(d)))  # fmt: skip
    dom = report["dominance"]
    certified = dom["status"] == "certified"
    out.append(("dominance", "a remap of T is at least as good for every legal user" if certified else
                undecided_text(dom)))  # fmt: skip
    losses = report["user_losses"]
    if losses["status"] != "certified":
        out.append(("users' certified optima", undecided_text(losses)))
    return out


def _today() -> str:
    """The date a page is rendered (certificates carry no date: the page says when it was made)."""
    return datetime.now(UTC).strftime("%Y-%m-%d")


def _context(report: dict[str, Any], certificate: str = "CERTIFICATE.json") -> dict[str, Any]:
    src = report["source"]
    users = report["user_losses"]["users"] if report["user_losses"]["status"] == "certified" else []
    # a bracketed row (the optimum at α too long to write) is shown in words: brackets, not exact values
    users = [{**u, "bracketed": isinstance(u["optimum"], dict), "shown": user_in_words(u)} for u in users]
    return {
        **report,
        "title": str(src.get("name") or src["path"]),
        "findings": _findings(report),
        "users": users,
        "recheck": f"mechlib check {certificate} {src['path']}",
        "created": _today(),
        "glossary": ["ε and α", "DP level", "T", "derivable", "dominance", "legal user", "certified optimum",
                     "signature", "UNKNOWN"] + (["privacy profile", "zCDP"] if report["approximate_dp"] else []),
    }  # fmt: skip


def render_markdown(report: dict[str, Any], certificate: str = "CERTIFICATE.json") -> str:
    """The audit as Markdown (``templates/audit.md``); ``certificate``: the JSON report's file name,
    for the re-check command it shows."""
    return render("audit.md", **_context(report, certificate))


def _heatmap(mech: Mechanism) -> dict[str, Any]:
    """Each cell's exact text and its shade relative to the largest entry."""
    values = mech.rows
    top = max((v for row in values for v in row), default=Fraction(1)) or Fraction(1)
    rows = [
        (i, [(text, float(v / top)) for v, text in zip(row, texts)])
        for i, row, texts in zip(mech.inputs, values, mech.to_strings())
    ]
    return {"rows": rows, "top": format_fraction(top)}


#: Up to this n the HTML page draws every cell (with its exact value) and the signature; above, it
#: summarises the matrix: a downsampled heatmap, the error tails and the worst rows.
FULL_PAGE_MAX_N = 100
#: The summary reads at most this many input rows (evenly spaced, the witness's among them) ...
SUMMARY_ROWS = 400
#: ... and draws a heatmap of at most this many rows × output bins.
HEATMAP_SIDE = 64
#: The worst rows listed (largest expected |output − input|).
WORST_ROWS = 10


class _FloatRows:
    """Rows of the certificate's matrix as floats, for display only (never to decide anything),
    one row at a time and without the rest: from integer rows (each scaled to 64 significant bits
    before the division, so numbers of thousands of digits do not overflow), or from T·Y (T's row
    from its formula at α as a float, times Y's nonzeros)."""

    def __init__(self, report: dict[str, Any]) -> None:
        import numpy as np

        form = report["mechanism"]["matrix"]
        self.width = len(report["outputs"])
        self.t_alpha = float(Fraction(form["t_alpha"])) if "t_alpha" in form else None
        if self.t_alpha is None:
            self.form = form
            return
        entries = [(s, c, v) for s, row in enumerate(_sparse(form["remap"])) for c, v in row]  # Y's nonzeros
        self.y_rows = np.array([s for s, _, _ in entries], dtype=np.intp)
        self.y_cols = np.array([c for _, c, _ in entries], dtype=np.intp)
        self.y_values = np.array([v for _, _, v in entries], dtype=float)
        self.n = report["n"]

    def row(self, i: int) -> Any:
        import numpy as np

        if self.t_alpha is not None:  # T[i][s] = α^|i−s|·(1 at s ∈ {0, n}, else 1 − α)/(1 + α)
            a, steps = self.t_alpha, np.arange(self.n + 1)
            t = a ** np.abs(i - steps) / (1 + a)
            t[1:-1] *= 1 - a
            weights = t[self.y_rows] * self.y_values
            return np.bincount(self.y_cols, weights=weights, minlength=self.width)
        out = np.zeros(self.width)
        ((columns, values),) = _sparse_rows(self.form, [i])
        out[columns] = values
        return out


def _sparse(form: dict[str, Any]) -> list[list[tuple[int, float]]]:
    """Every row of integer rows as (column, float value) pairs, zeros left out."""
    return [list(zip(c, v)) for c, v in _sparse_rows(form, range(len(form["denominators"])))]


def _sparse_rows(form: dict[str, Any], picks: Any) -> list[tuple[list[int], list[float]]]:
    """Rows ``picks`` of integer rows as (columns, float values), each scaled to 64 significant bits."""
    out = []
    for i in picks:
        den, texts = int(form["denominators"][i], 16), form["numerators"][i]
        shift = max(den.bit_length() - 64, 0)
        scale = float(den >> shift)
        columns = form["columns"][i] if "columns" in form else list(range(len(texts)))
        kept = [(c, int(t, 16) >> shift) for c, t in zip(columns, texts) if t != "0"]
        out.append(([c for c, _ in kept], [v / scale for _, v in kept]))
    return out


def _spaced(count: int, most: int) -> list[int]:
    """At most ``most`` of 0..count − 1, evenly spaced, first and last included."""
    if count <= most:
        return list(range(count))
    return sorted({round(k * (count - 1) / (most - 1)) for k in range(most)})


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """The matrix of a large audit in brief, in floats for display: a heatmap of at most
    ``HEATMAP_SIDE`` sampled inputs × output bins (each bin's probability mass), the error tails
    max_i P(|output − i| ≥ k | i) at a few distances k, and the ``WORST_ROWS`` inputs with the
    largest expected |output − i| — over every input up to ``SUMMARY_ROWS``, else over that many
    evenly spaced (said on the page)."""
    import numpy as np

    inputs, outputs = report["inputs"], np.array(report["outputs"])
    rows = _FloatRows(report)
    witness = report["witness"]
    picks = set(_spaced(len(inputs), SUMMARY_ROWS))
    if witness is not None:
        picks |= {inputs.index(v) for v in witness["inputs"]}
    values = {i: rows.row(i) for i in sorted(picks)}
    top = int(max(abs(outputs.max() - min(inputs)), abs(max(inputs) - outputs.min())))  # the largest |output − input|
    ks = [k for k in (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000) if k <= top]
    tails, errors = [], []
    for i, row in values.items():
        distance = np.abs(outputs - inputs[i])
        tails.append([float(row[distance >= k].sum()) for k in ks])
        errors.append((float(row @ distance), float(row[distance == 0].sum()), inputs[i]))
    worst_tail = [max(((t[c], inputs[i]) for t, i in zip(tails, values)), default=(0.0, 0)) for c in range(len(ks))]
    ordered = sorted(values)
    shown = [ordered[k] for k in _spaced(len(ordered), HEATMAP_SIDE)]
    edges = np.linspace(0, len(outputs), min(HEATMAP_SIDE, len(outputs)) + 1).astype(int)
    cells = [np.add.reduceat(values[i], edges[:-1]) for i in shown]
    peak = max((float(c.max()) for c in cells), default=1.0) or 1.0
    labels = [f"{outputs[a]}–{outputs[b - 1]}" if b - a > 1 else str(outputs[a]) for a, b in pairwise(edges)]
    return {
        "rows_read": len(values),
        "inputs": len(inputs),
        "heatmap": {
            "columns": labels,
            "rows": [(inputs[i], [(float(v), float(v) / peak) for v in c]) for i, c in zip(shown, cells)],
            "top": peak,
        },
        "tails": [(k, p, i) for k, (p, i) in zip(ks, worst_tail)],
        "worst": sorted(errors, reverse=True)[:WORST_ROWS],
    }


def render_html(report: dict[str, Any], certificate: str = "CERTIFICATE.json") -> str:
    """One HTML file (``templates/audit.html``): inline CSS only, no script, no external resource.
    Above ``FULL_PAGE_MAX_N`` the matrix is summarised (``summary``), not drawn cell by cell."""
    context = _context(report, certificate)
    # bars: exact values, or a bracket's upper end
    mine = [Fraction(u["mechanism"]["upper"] if u["bracketed"] else u["mechanism"]) for u in context["users"]]
    best = [Fraction(u["optimum"]["upper"]["value"] if u["bracketed"] else u["optimum"]) for u in context["users"]]
    worst = max(mine, default=Fraction(1)) or Fraction(1)
    context["users"] = [
        {**u, "mechanism_width": 12 * float(m / worst), "optimum_width": 12 * float(b / worst)}
        for u, m, b in zip(context["users"], mine, best, strict=True)
    ]
    section = report["approximate_dp"]
    plot = None if section is None else plot_points(section)
    if report["n"] > FULL_PAGE_MAX_N or len(report["outputs"]) > FULL_PAGE_MAX_N + 1:
        brief = summary(report)
        return render("audit.html", **context, heatmap=None, signature=None, summary=brief, profile_plot=plot)
    mech = _mechanism(report)
    return render(
        "audit.html", **context, heatmap=_heatmap(mech), signature=_signature_rows(report, mech), summary=None,
        profile_plot=plot,
    )  # fmt: skip


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


def render_blackbox_html(
    result: dict[str, Any], pmf: list[dict[int, Fraction]] | None, certificate: str = "RESULT.json"
) -> str:
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
        recheck=f"mechlib check {certificate}",
        created=_today(),
        glossary=BLACKBOX_TERMS,
    )
