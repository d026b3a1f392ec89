"""The documentation site (docs/): every example on it runs, and the built site renders with no broken link.

Each page is replayed in order in a scratch directory laid out as the build lays it out: its
``{mechlib-file}`` blocks are written, its ``{mechlib-run}`` commands run (with the exit code the page
expects), its ``python`` blocks executed (a block headed ``# test_….py`` is a test file, run with
pytest), its ``pycon`` blocks run as doctests, and every ``mechlib …`` line of a ``sh`` or ``console``
block is parsed by the command's own parser (``python3 dev.py TASK`` lines name a real task).
"""

from __future__ import annotations

import doctest
import html
import html.parser
import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

import mechlib
from mechlib.cli import build_parser
from tests.test_audit_certificate import _chromium

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if "_build" not in p.parts)
FENCE = re.compile(
    r"^(?P<fence>`{3,})\{?(?P<kind>[\w-]*)\}?[ \t]*(?P<arg>.*?)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)
SHELL_OPERATORS = {">", ">>", "2>", "2>&1", "|", "||", "&&", ";", "&"}


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def blocks(page: str, root: Path = DOCS) -> list[tuple[str, str, dict[str, str], str, int]]:
    """The fenced blocks of a page in order: (kind, argument, options, body, line)."""
    text = (root / page).read_text()
    found = []
    for m in FENCE.finditer(text):
        options: dict[str, str] = {}
        body = m["body"]
        while (option := re.match(r":([\w-]+):[ \t]*(.*)\n", body)) is not None:
            options[option[1]] = option[2]
            body = body[option.end() :]
        found.append((m["kind"], m["arg"].strip(), options, body, text.count("\n", 0, m.start()) + 1))
    return found


def _parse_shell_line(line: str, where: str) -> None:
    words = shlex.split(line.removeprefix("$ "), comments=True)
    for k, word in enumerate(words):
        if word in SHELL_OPERATORS:
            words = words[:k]
            break
    if words[:1] in (["mechlib"], [".venv/bin/mechlib"]):
        try:
            build_parser().parse_args(words[1:])
        except SystemExit as stop:
            pytest.fail(f"{where}: `{line}` is not a valid mechlib command (argparse exit {stop.code})")
    elif words[:2] == ["python3", "dev.py"]:
        dev_doc = _load(ROOT / "dev.py").__doc__ or ""
        assert f"python3 dev.py {words[2]} " in dev_doc, f"{where}: dev.py has no task {words[2]!r}"


@pytest.mark.parametrize("page", PAGES)
def test_every_example_on_the_page_runs(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ext = _load(DOCS / "_ext" / "mechlib_docs.py")
    scratch = ext.make_scratch(tmp_path)
    monkeypatch.chdir(scratch)
    monkeypatch.syspath_prepend(str(scratch))
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for kind, arg, options, body, line in blocks(page):
        where = f"docs/{page}:{line}"
        if kind == "mechlib-file":
            (scratch / arg).write_text(body)
        elif kind == "mechlib-run":
            status, output = ext.run_mechlib(shlex.split(arg), scratch)
            assert status == int(options.get("exit", 0)), f"{where}: mechlib {arg}: exit {status}\n{output}"
        elif kind == "python" and (name := re.match(r"# (test_\w+\.py)\n", body)):
            (scratch / name[1]).write_text(body)
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-profile", "mechlib-ci",
                 name[1]],
                cwd=scratch, capture_output=True, text=True, timeout=600, check=False,
            )  # fmt: skip
            assert done.returncode == 0, f"{where}: {name[1]} fails\n{done.stdout}{done.stderr}"
        elif kind == "python":
            exec(compile(body, where, "exec"), namespace)
        elif kind == "pycon":
            test = doctest.DocTestParser().get_doctest(body, namespace, where, str(DOCS / page), line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            report: list[str] = []
            runner.run(test, out=report.append, clear_globs=False)
            assert runner.failures == 0, "".join(report)
            namespace.update(test.globs)  # a DocTest runs in a copy of its globals
        elif kind in ("sh", "console", "bash"):
            for command in body.splitlines():
                _parse_shell_line(command, where)


def test_the_pages_have_examples_of_every_kind() -> None:
    """The replay above is not vacuous: the kinds it runs occur, and every page's fences are read."""
    kinds = {kind for page in PAGES for kind, *_ in blocks(page)}
    assert {"mechlib-file", "mechlib-run", "python", "pycon", "sh"} <= kinds
    for page in PAGES:
        assert (DOCS / page).read_text().count("```") == 2 * len(blocks(page)), page


def test_the_readme_commands_are_real() -> None:
    readme = blocks("README.md", ROOT)
    assert sum(kind == "sh" for kind, *_ in readme) >= 3
    for kind, _, _, body, line in readme:
        for command in body.splitlines() if kind == "sh" else []:
            _parse_shell_line(command, f"README.md:{line}")


def test_every_public_name_is_in_the_api_reference() -> None:
    api = (DOCS / "reference" / "api.md").read_text()
    documented = set(re.findall(r"^\.\. auto\w+:: mechlib\.(\w+)$", api, re.M))
    assert documented == set(mechlib.__all__), set(mechlib.__all__) ^ documented


def test_the_command_reference_reads_the_parser_the_command_uses() -> None:
    cli = (DOCS / "reference" / "cli.md").read_text()
    assert ":module: mechlib.cli" in cli and ":func: build_parser" in cli
    import mechlib.cli

    assert mechlib.cli.build_parser is build_parser


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def broken_links(site: Path) -> list[str]:
    """Every internal href or src of the site's pages that names no file, or a fragment that names no
    element of its page (external links are left alone: the pages load nothing from them)."""
    pages = {page: _Links() for page in site.rglob("*.html")}
    for page, links in pages.items():
        links.feed(page.read_text())
    broken = []
    for page, links in pages.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return sorted(broken)


def test_broken_links_finds_a_missing_page_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="a/b.html#here">ok</a> <a href="#top" id="top">ok</a> <img src="a/">'
        '<a href="a/b.html#there">no anchor</a> <a href="c.html">no page</a> <a href="https://x.org/">out</a>'
    )
    (tmp_path / "a" / "b.html").write_text('<h1 id="here">b</h1>')
    (tmp_path / "a" / "index.html").write_text("")
    assert broken_links(tmp_path) == ["index.html: a/b.html#there (no such anchor)", "index.html: c.html"]


@pytest.mark.browser
@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None, reason="the docs extra (Sphinx) is not installed")
@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="headless Chromium (Debian package chromium) is not installed"
)
def test_the_site_builds_renders_in_headless_chromium_and_has_no_broken_link(tmp_path: Path) -> None:
    """Builds the site as `python3 dev.py docs` does (incrementally: in CI that build ran just before),
    follows every internal href and src of every page to a file and, for a fragment, to an element with
    that id; then renders the landing page, a tutorial and a page of formulas headless."""
    dev = _load(ROOT / "dev.py")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q", *dev.DOCS_BUILD],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    site = ROOT / dev.DOCS_BUILD[1]
    assert broken_links(site) == []
    assert len(list(site.rglob("*.html"))) > 20
    for generated in ("claims", "exit-codes", "formats"):  # reStructuredText rendered, not shown as text
        page = (site / "reference" / f"{generated}.html").read_text()
        assert "<table" in page and "list-table" not in page, generated
    assert 'class="simple glossary"' in (site / "reference" / "glossary.html").read_text()
    for page, texts in [
        ("index.html", ["Exact proof-checking and audits", "Tutorials", "How-to guides", "Reference"]),
        ("tutorials/first-audit.html", ["Audit your first mechanism", "$ mechlib audit", "derivable", "[exit 0]"]),
        ("explanation/theory.html", ["Universal optimality", "<math"]),
    ]:
        shot = tmp_path / "shot.png"
        done = _chromium(site / page, f"--screenshot={shot}", "--window-size=1200,1400")
        assert done.returncode == 0 and shot.stat().st_size > 1000, done.stderr
        assert "Uncaught" not in done.stderr and ":ERROR:CONSOLE" not in done.stderr, done.stderr
        dom = _chromium(site / page, "--dump-dom").stdout
        shown = dom + html.unescape(re.sub(r"<[^>]+>", "", dom))  # the markup, and the text it shows
        assert all(text in shown for text in texts), (page, [t for t in texts if t not in shown])
