"""Reports rendered from the Jinja2 templates in ``mechlib/templates/``.

``*.md`` templates give Markdown (for a repository or a terminal); ``*.html`` templates extend
``page.html``: one self-contained page, inline CSS, no script, no external resource, every value
HTML-escaped (autoescape), Markdown parts rendered by markdown-it-py with raw HTML disabled.
Numbers are the reports' exact strings; the ``approx`` filter adds a decimal for display only.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from mechlib.glossary import Term, lookup

#: The colour class of each verdict word: FAIL and violations red, UNKNOWN orange, a pass green.
VERDICT_CLASS = {
    "PASS": "good", "FAIL": "bad", "NONE": "none", "UNKNOWN": "unknown",
    "PROVED": "good", "NO COUNTEREXAMPLE": "sampled", "REFUTED": "bad",
    "no violation found": "good", "violation": "bad", "conformant": "good", "nonconformant": "bad",
}  # fmt: skip


def approx(exact: str | Fraction | int) -> str:
    """A decimal for display beside an exact value (never used to decide anything)."""
    try:
        return f"{float(Fraction(exact)):.4g}"
    except (OverflowError, ValueError, ZeroDivisionError):
        return str(exact)


def decimal(exact: str | Fraction | int, places: int = 4) -> str:
    """An exact value rounded to ``places`` decimals, for display only."""
    return f"{float(Fraction(exact)):.{places}f}"


def cell(value: object) -> str:
    """A Markdown table cell: '|' would end the cell, so it becomes '∣'; None is a dash."""
    return "—" if value is None else str(value).replace("|", "∣").replace("\n", " ")


def _markdown_to_html(text: str) -> Markup:
    from markdown_it import MarkdownIt

    return Markup(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


def _terms(words: list[str]) -> list[Term]:
    """The glossary entries a page lists (a word with no entry is a template bug)."""
    found = {word: lookup(word) for word in words}
    missing = [word for word, term in found.items() if term is None]
    if missing:
        raise KeyError(f"no glossary entry for {missing}")
    return [term for term in found.values() if term is not None]


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("mechlib", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(approx=approx, decimal=decimal, cell=cell, markdown=_markdown_to_html)
    env.globals.update(verdict_class=lambda word: VERDICT_CLASS.get(str(word), "none"), terms=_terms)
    return env


def render(template: str, **context: Any) -> str:
    """``template`` (a file name under mechlib/templates/) with ``context``."""
    return environment().get_template(template).render(**context)
