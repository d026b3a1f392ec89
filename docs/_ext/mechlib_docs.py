"""Pages of mechlib's documentation generated from the code at build time, so that they cannot drift.

Directives (used from the Markdown pages as ```{name} … ```; those that generate reStructuredText from
within an ``{eval-rst}`` block, since a directive's content is parsed in the language of its page):

``mechlib-run``
    Runs ``mechlib ARGS`` (``mechlib.cli.main``, in-process) in a scratch directory per page laid out
    by :func:`make_scratch`, and shows the command with what it printed. The
    exit code must be ``:exit:`` (default 0), else the build warns (an error under ``-W``). ``:lines: N``
    shows the first N lines of the output. Files a command writes stay for the page's next commands.
``mechlib-file``
    Writes its content to the file named by its argument in the page's scratch directory (for the
    commands that follow) and shows it, captioned with the name.
``mechlib-claims``
    The claims table: every entry of ``mechlib.proofs.catalogue.CATALOGUE`` beside its verdict and
    strength in the committed ``reports/verify.json``, with that report's commit and date.
``mechlib-glossary``
    ``mechlib.glossary.TERMS`` (what ``mechlib explain`` prints) as a Sphinx glossary, so pages can
    link a term with ``{term}`` roles.
``mechlib-exit-codes``
    ``mechlib.errors.ExitCode``, each code with the meaning it carries there (one source for
    ``--help``, ``mechlib explain exit-codes`` and this page).
``mechlib-schemas``
    The JSON Schemas of ``mechlib.schemas.FILES``, with each schema's title.

It also renders the pages' formulas (``$…$``, ``$$…$$``) as MathML at build time, which browsers draw
natively: the pages need no script and no network.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
LOG = logging.getLogger(__name__)


#: The scratch directory of each page read in this build: a page gets a fresh one each time it is read.
SCRATCH: dict[str, Path] = {}


def _scratch(docname: str) -> Path:
    if docname not in SCRATCH:
        SCRATCH[docname] = make_scratch(Path(tempfile.mkdtemp(prefix="mechlib-docs-")))
    return SCRATCH[docname]


def _fresh_scratch(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname in SCRATCH:
        shutil.rmtree(SCRATCH.pop(docname))


def _remove_scratch(app: Sphinx, exception: Exception | None) -> None:
    for where in SCRATCH.values():
        shutil.rmtree(where, ignore_errors=True)
    SCRATCH.clear()


def make_scratch(where: Path) -> Path:
    """Lay out ``where`` as the pages assume the current directory is: a checkout's test fixtures,
    examples and committed verify report (linked, read only), and an empty ``reports/`` to write to."""
    (where / "tests").mkdir()
    (where / "tests" / "fixtures").symlink_to(ROOT / "tests" / "fixtures")
    (where / "examples").symlink_to(ROOT / "examples")
    (where / "reports").mkdir()
    (where / "reports" / "verify.json").symlink_to(ROOT / "reports" / "verify.json")
    return where


def run_mechlib(argv: list[str], cwd: Path) -> tuple[int, str]:
    """``mechlib ARGV`` in ``cwd``: the exit code and what it printed (stdout then stderr)."""
    from mechlib.cli import main

    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as stop:  # argparse: --help, --version, usage errors
                status = stop.code if isinstance(stop.code, int) else 2
    finally:
        os.chdir(before)
    return status, out.getvalue() + err.getvalue()


class MechlibRun(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {"exit": directives.nonnegative_int, "lines": directives.positive_int}

    def run(self) -> list[nodes.Node]:
        argv = shlex.split(self.arguments[0])
        status, output = run_mechlib(argv, _scratch(self.env.docname))
        want = self.options.get("exit", 0)
        if status != want:
            LOG.warning("mechlib %s: exit %s, expected %s:\n%s", self.arguments[0], status, want, output,
                        location=self.get_location())  # fmt: skip
        lines = output.rstrip().splitlines()
        if "lines" in self.options and len(lines) > self.options["lines"]:
            lines = [*lines[: self.options["lines"]], "…"]
        text = "\n".join([f"$ mechlib {self.arguments[0]}", *lines, f"[exit {status}]"])
        block = nodes.literal_block(text, text, language="console")
        block["classes"].append("mechlib-run")
        return [block]


class MechlibFile(SphinxDirective):
    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        text = "\n".join(self.content) + "\n"
        (_scratch(self.env.docname) / name).write_text(text)
        language = {".py": "python", ".json": "json", ".toml": "toml", ".csv": "text"}.get(Path(name).suffix, "text")
        block = nodes.literal_block(text, text, language=language)
        caption = nodes.caption(name, name)
        container = nodes.container("", caption, block, classes=["literal-block-wrapper"], literal_block=True)
        return [container]


class _Generated(SphinxDirective):
    """A directive whose content is reStructuredText generated from the code."""

    def rst(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(self.rst(), source="<generated>"), self.content_offset, container)
        return list(container.children)


def _escape(text: str) -> str:
    """Plain text as reStructuredText: `code` becomes a literal, markup characters are escaped."""
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(
        f"``{p[1:-1]}``" if p.startswith("`") and p.endswith("`") and len(p) > 1
        else re.sub(r"([\\*|_<>])", r"\\\1", p)
        for p in parts
    )  # fmt: skip


def _table(header: list[str], rows: list[list[str]], widths: str | None = None) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", *([f"   :widths: {widths}"] if widths else []), ""]
    for row in [header, *rows]:
        lines.append(f"   * - {row[0]}")
        lines.extend(f"     - {cell}" for cell in row[1:])
    return lines


class ClaimsTable(_Generated):
    def rst(self) -> list[str]:
        from mechlib.proofs.catalogue import CATALOGUE

        report_path = ROOT / "reports" / "verify.json"
        self.env.note_dependency(str(report_path))
        report = json.loads(report_path.read_text())
        found = {claim["id"]: claim for claim in report["claims"]}
        summary = report["summary"]
        counts = ", ".join(f"{summary[v]} {v}" for v in ("PROVED", "NO COUNTEREXAMPLE", "REFUTED", "UNKNOWN"))
        strengths = ", ".join(f"{k} {v}" for k, v in summary["strength"].items())
        intro = [
            f"Verdicts and strengths from the committed ``reports/verify.json`` (schema ``{report['schema']}``), "
            f"written by mechlib {report['tool']['version']} on {report['created']} at commit "
            f"``{report['git_commit'][:12]}``: {summary['claims']} claims, {counts}; strengths {strengths}. "
            "Refresh it with ``mechlib verify --reports reports``; the statements come from the code's "
            "catalogue at the time of this build.",
            "",
        ]
        rows = []
        for claim_id, info in CATALOGUE.items():
            ran = found.get(claim_id)
            verdict = ran["verdict"] if ran else "not in the report"
            strength = (ran["strength"] or "—") if ran else "—"
            rows.append([f"**{claim_id}**", _escape(f"{info.paper}: {info.location}"), _escape(info.statement),
                         " + ".join(info.kinds), f"{verdict}, {strength} (target {info.target})"])  # fmt: skip
        missing = sorted(set(found) - set(CATALOGUE))
        if missing:
            LOG.warning("reports/verify.json has claims not in the catalogue: %s", ", ".join(missing),
                        location=self.get_location())  # fmt: skip
        header = ["ID", "where", "statement", "checks", "verdict, strength"]
        return [*intro, *_table(header, rows, "10 12 48 10 20")]


class Glossary(_Generated):
    def rst(self) -> list[str]:
        from mechlib.glossary import TERMS

        lines = [".. glossary::", ""]
        for term in TERMS:
            lines.append(f"   {_escape(term.name)}")
            lines.extend(f"   {_escape(alias)}" for alias in term.aliases)
            lines.append(f"      {_escape(term.text)}")
            lines.append("")
        return lines


class ExitCodes(_Generated):
    def rst(self) -> list[str]:
        from mechlib.errors import ExitCode

        rows = [[f"**{int(code)}**", f"``ExitCode.{code.name}``", code.meaning] for code in ExitCode]
        return _table(["code", "in ``mechlib.errors``", "meaning"], rows, "6 20 74")


class Schemas(_Generated):
    def rst(self) -> list[str]:
        from mechlib import schemas

        rows = []
        for schema_id, file in schemas.FILES.items():
            doc = json.loads((Path(schemas.__file__).parent / file).read_text())
            title = doc.get("title") or doc.get("description") or ""
            rows.append([f"``{schema_id}``", f"``mechlib/schemas/{file}``", _escape(title)])
        return _table(["schema", "file", "what it describes"], rows, "20 30 50")


def escape_bars(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """The docstrings write |i − j| for an absolute value, which reStructuredText would read as a
    substitution: escape each bar outside ``literals``."""
    for k, line in enumerate(lines):
        parts = re.split(r"(``.*?``)", line)
        lines[k] = "".join(p if p.startswith("``") else p.replace("|", r"\|") for p in parts)


def _inline_math(self: Any, node: nodes.Element) -> None:
    from latex2mathml.converter import convert

    self.body.append(convert(node.astext(), display="inline"))
    raise nodes.SkipNode


def _block_math(self: Any, node: nodes.Element) -> None:
    from latex2mathml.converter import convert

    self.body.append(self.starttag(node, "div", CLASS="math"))
    self.body.append(convert(node.astext(), display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", escape_bars, priority=100)
    app.add_html_math_renderer("mathml", (_inline_math, None), (_block_math, None))
    app.connect("source-read", _fresh_scratch)
    app.connect("build-finished", _remove_scratch)
    app.add_directive("mechlib-run", MechlibRun)
    app.add_directive("mechlib-file", MechlibFile)
    app.add_directive("mechlib-claims", ClaimsTable)
    app.add_directive("mechlib-glossary", Glossary)
    app.add_directive("mechlib-exit-codes", ExitCodes)
    app.add_directive("mechlib-schemas", Schemas)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
