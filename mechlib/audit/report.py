"""Markdown and a self-contained HTML page for an audit report (no network, no scripts).

The HTML shows the mechanism as a heatmap, its signature at the DP level (GRS §5.3), every
finding with its witness, and each user's loss beside the certified optimum as bars. Every
number printed is the report's exact value (decimals are only for display, marked ≈).
"""

from __future__ import annotations

import html
from fractions import Fraction
from typing import Any

from mechlib.core.exact import format_fraction
from mechlib.core.mechanism import Mechanism


def _approx(text: str) -> str:
    return f"{float(Fraction(text)):.4g}"


def _signature_rows(report: dict[str, Any]) -> list[list[str]] | None:
    from mechlib.core.signature import signature

    alpha = Fraction(report["dp_level"])
    if not report["count_query"] or not 0 < alpha < 1:
        return None
    m = report["mechanism"]
    mech = Mechanism(m["matrix"], inputs=m["inputs"], outputs=m["outputs"])
    return [list(row) for row in signature(mech, alpha).rows]


def _findings(report: dict[str, Any]) -> list[tuple[str, str]]:
    eps = report["epsilon_interval"]
    out = [("DP level", f"α = {report['dp_level']} (ε = ln 1/α ∈ [{eps[0]}, {eps[1]}])" if eps else "α = 0 (ε = ∞)")]
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
        out.append(("claimed", f"{what}: {report['verdict']}"))
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


def render_markdown(report: dict[str, Any]) -> str:
    src = report["source"]
    lines = [
        f"# Audit of {src.get('name') or src['path']}",
        "",
        f"Source `{src['path']}` ({src['format']}), SHA-256 `{src['sha256']}`.",
        "",
    ]
    lines += ["| finding | result |", "|---|---|"] + [f"| {k} | {v.replace('|', '∣')} |" for k, v in _findings(report)]
    users = report["user_losses"]
    if users["status"] == "certified":
        lines += [
            "",
            "| prior | loss | mechanism + optimal remap | certified optimum | ratio |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {u['prior_name']} | {u['loss_name']} | {u['mechanism']} (≈{_approx(u['mechanism'])}) "
            f"| {u['optimum']} (≈{_approx(u['optimum'])}) | {u['ratio']} |"
            for u in users["users"]
        ]
    lines += ["", f"Re-check: `mechlib check CERT.json {src['path']}` (schema {report['schema']})."]
    return "\n".join(lines) + "\n"


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right}
th{background:#f3f3f3}.heat td{min-width:3.5em;font-size:.8em}.bar{height:1em;background:#4a7bd0;display:inline-block}
.opt{background:#999}code{background:#f3f3f3;padding:0 .2em}
.verdict{display:inline-block;padding:.2em .6em;border-radius:.3em;font-weight:bold;color:#fff}
.good{background:#2e7d32}.bad{background:#c62828}.unknown{background:#ef6c00}.none{background:#757575}
.legend span{display:inline-block;width:2em;height:1em;vertical-align:middle;border:1px solid #ccc}
footer{margin-top:2em;color:#555;font-size:.9em}"""

#: The colour class of each verdict word: FAIL and violations red, UNKNOWN orange, a pass green.
_VERDICT_CLASS = {
    "PASS": "good", "FAIL": "bad", "NONE": "none", "UNKNOWN": "unknown",
    "no violation found": "good", "violation": "bad", "conformant": "good", "nonconformant": "bad",
}  # fmt: skip


def _verdict(word: str) -> str:
    return f"<span class='verdict {_VERDICT_CLASS.get(word, 'none')}'>{html.escape(word)}</span>"


def _footer(tool: dict[str, Any], recheck: str, created: str | None = None) -> str:
    versions = ", ".join(f"{html.escape(k)} {html.escape(str(v))}" for k, v in tool.items() if k != "name")
    when = f" on {html.escape(created)}" if created else ""
    return (
        f"<footer>Produced by mechlib{when} ({versions}). Re-check every finding independently: "
        f"<code>{html.escape(recheck)}</code></footer>"
    )


def _row(*cells: str, head: str | None = None) -> str:
    return "<tr>" + (f"<th>{head}</th>" if head is not None else "") + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _heatmap(m: dict[str, Any]) -> str:
    values = [[Fraction(v) for v in row] for row in m["matrix"]]
    top = max((v for row in values for v in row), default=Fraction(1)) or Fraction(1)
    head = "<tr><th>i \\ r</th>" + "".join(f"<th>{o}</th>" for o in m["outputs"]) + "</tr>"
    rows = []
    for i, row, texts in zip(m["inputs"], values, m["matrix"]):
        cells = "".join(
            f"<td title='{html.escape(t)}' style='background:rgba(74,123,208,{float(v / top):.3f})'>{_approx(t)}</td>"
            for v, t in zip(row, texts)
        )
        rows.append(f"<tr><th>{i}</th>{cells}</tr>")
    legend = (
        "<p class='legend'>Shade: the probability relative to the largest entry "
        f"({_approx(format_fraction(top))}): <span style='background:rgba(74,123,208,0.05)'></span> near 0 … "
        "<span style='background:rgba(74,123,208,1)'></span> the largest.</p>"
    )
    return f"<table class='heat'>{head}{''.join(rows)}</table>{legend}"


def _bar(value: str, worst: Fraction, cls: str) -> str:
    width = 12 * float(Fraction(value) / worst)
    return f"<span class='bar {cls}' style='width:{width:.2f}em'></span> {html.escape(value)}"


def render_html(report: dict[str, Any]) -> str:
    """One HTML file: inline CSS only, no script, no external resource."""
    src, esc = report["source"], html.escape
    title = esc(str(src.get("name") or src["path"]))
    parts = [
        f"<h1>Audit of {title}</h1>",
        f"<p>Claimed privacy: {_verdict(report['verdict'])}"
        + (
            f" &nbsp; Findings not certified: {_verdict('UNKNOWN')} {esc(', '.join(report['unknown']))}"
            if report["unknown"]
            else ""
        )
        + "</p>",
        f"<p>SHA-256 <code>{esc(src['sha256'])}</code></p>",
    ]
    parts.append("<table>" + "".join(_row(esc(v), head=esc(k)) for k, v in _findings(report)) + "</table>")
    parts.append(f"<h2>Mechanism x[i][r] (exact value on hover)</h2>{_heatmap(report['mechanism'])}")
    sig = _signature_rows(report)
    if sig:
        head = "<tr><th>rows i, i+1 \\ output r</th>" + "".join(f"<th>{o}</th>" for o in report["outputs"]) + "</tr>"
        rows = "".join(_row(*map(esc, row), head=f"{i}, {i + 1}") for i, row in enumerate(sig))
        legend = (
            "<p class='legend'>↓: x[i+1][r] = α·x[i][r]; ↑: x[i][r] = α·x[i+1][r] (the DP constraint is tight); "
            "S: neither; 0: both zero.</p>"
        )
        parts.append(
            f"<h2>Signature at α = {esc(report['dp_level'])} (GRS §5.3)</h2><table>{head}{rows}</table>{legend}"
        )
    users = report["user_losses"]
    if users["status"] == "certified":
        worst = max(Fraction(u["mechanism"]) for u in users["users"]) or Fraction(1)
        rows = "".join(
            _row(
                esc(u["prior_name"]),
                esc(u["loss_name"]),
                _bar(u["mechanism"], worst, ""),
                _bar(u["optimum"], worst, "opt"),
            )
            for u in users["users"]
        )
        head = "<tr><th>prior</th><th>loss</th><th>mechanism</th><th>optimum</th></tr>"
        parts.append(f"<h2>Loss per user: mechanism (blue) vs certified optimum (grey)</h2><table>{head}{rows}</table>")
    parts.append(_footer(report["tool"], f"mechlib check CERTIFICATE.json {src['path']}"))
    body = "".join(parts)
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Audit: {title}</title>"
        f"<style>{_STYLE}</style></head><body>{body}</body></html>\n"
    )


def render_blackbox_markdown(result: dict[str, Any]) -> str:
    dp = result["dp"]
    lines = [
        f"# Black-box audit of {result['sampler']['spec']}",
        "",
        f"Counts 0..{result['n']}, {result['samples_per_count']} samples each (seed {result['seed']}), "
        f"{result['samples_per_second']} samples/s.",
        "",
        f"DP test at ε = {dp['epsilon']}, α_FA = {dp['alpha_fa']} ({dp['hypotheses']} hypotheses): "
        f"**{dp['verdict']}**.",
    ]
    if dp["violation"]:
        v = dp["violation"]
        lines.append(
            f"Inputs {v['inputs']}, event {v['event']}: counts {v['counts']} of {v['samples']}; "
            f"P ≥ {_approx(v['lower_bound'])} vs P ≤ {_approx(v['upper_bound'])} (exact bounds in the JSON)."
        )
    else:
        lines.append(f"Smallest excess ε this sample would have flagged: ≈ {dp['smallest_detectable_excess_epsilon']}.")
    if result["conformance"]:
        lines.append(f"Conformance to the claimed pmf: **{result['conformance']['verdict']}**.")
    return "\n".join(lines) + "\n"


def render_blackbox_html(result: dict[str, Any], pmf: list[dict[int, Fraction]] | None) -> str:
    """Empirical pmf per count (bars), beside the claimed pmf when given (grey bars)."""
    rows = []
    for i, hist in enumerate(result["counts"]):
        total = sum(hist.values())
        outputs = sorted({int(s) for s in hist} | (set(pmf[i]) if pmf else set()))
        cells = []
        for s in outputs:
            emp = hist.get(str(s), 0) / total
            bar = f"<span class='bar' style='width:{12 * emp:.2f}em'></span> {emp:.4f}"
            if pmf:
                claimed = float(pmf[i].get(s, Fraction(0)))
                bar += f"<br><span class='bar opt' style='width:{12 * claimed:.2f}em'></span> {claimed:.4f}"
            cells.append(_row(bar, head=str(s)))
        rows.append(f"<h3>count {i}</h3><table>{''.join(cells)}</table>")
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).render(render_blackbox_markdown(result))
    title = html.escape(result["sampler"]["spec"])
    verdicts = f"<p>DP test: {_verdict(result['dp']['verdict'])}"
    if result["conformance"]:
        verdicts += f" &nbsp; pmf: {_verdict(result['conformance']['verdict'])}"
    legend = "<p>Empirical (blue)" + (" vs claimed (grey)" if pmf else "") + " probability of each output.</p>"
    footer = _footer(result["tool"], "mechlib check RESULT.json")
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Black-box audit: {title}</title>"
        f"<style>{_STYLE}</style></head><body>{body.replace('</h1>', '</h1>' + verdicts, 1)}{legend}"
        f"{''.join(rows)}{footer}</body></html>\n"
    )
