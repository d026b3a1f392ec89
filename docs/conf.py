"""Sphinx configuration of mechlib's documentation site (``python3 dev.py docs``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import mechlib  # noqa: E402  (after the path: the local extension lives beside this file)

project = "mechlib"
author = "the mechlib authors"
copyright = "the mechlib authors, MIT licence"
release = version = mechlib.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinxarg.ext",
    "mechlib_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["deflist", "colon_fence", "dollarmath"]
html_math_renderer = "mathml"  # docs/_ext/mechlib_docs.py: MathML written at build time
myst_heading_anchors = 3

# No "smart" quotes and dashes: the command's help text (and docstrings) name options such as --from-float,
# which would print as –from-float.
smartquotes = False

html_theme = "furo"
html_title = f"mechlib {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = False
napoleon_numpy_docstring = True

nitpicky = True
# Names in signatures that are internal to mechlib (a type alias, a TypeVar, result records of helpers):
# shown as text, not linked.
nitpick_ignore = [
    ("py:class", "Label"),
    ("py:class", "mechlib.core.stochastic._S"),
    ("py:class", "mechlib.core.families.EntryBounds"),
    ("py:class", "mechlib.core.users.LegalityViolation"),
    ("py:class", "_pytest.config.Config"),  # pytest's own name for pytest.Config (no pytest inventory offline)
]

# Intersphinx: this build must work without a network (CI here has none), and a failed inventory download
# is a warning, which -W turns into an error. So a project is linked only when its inventory is at hand:
# docs/_inventories/NAME.inv (none is committed), or MECHLIB_DOCS_ONLINE=1 to download them all. The names of
# a project left out are then not links, and nitpicky mode is told so below instead of failing.
INVENTORIES = {
    "python": "https://docs.python.org/3",
    "hypothesis": "https://hypothesis.readthedocs.io/en/latest",
    "numpy": "https://numpy.org/doc/stable",
    "dask": "https://docs.dask.org/en/stable",
    "distributed": "https://distributed.dask.org/en/stable",
}
ONLINE = os.environ.get("MECHLIB_DOCS_ONLINE") == "1"
intersphinx_mapping = {
    name: (url, str(local) if (local := DOCS / "_inventories" / f"{name}.inv").exists() else None)
    for name, url in INVENTORIES.items()
    if ONLINE or (DOCS / "_inventories" / f"{name}.inv").exists()
}
#: Top-level modules documented by each inventory: their names are not nitpicked when it is absent.
EXTERNAL = {
    "python": "fractions collections typing pathlib argparse random enum dataclasses abc types decimal",
    "hypothesis": "hypothesis",
    "numpy": "numpy np",
    "dask": "dask",
    "distributed": "distributed",
}
#: Builtins and typing names, which resolve only through Python's inventory.
BUILTINS = "int str bytes bool float dict list tuple set frozenset object None Any Callable Iterable Iterator "
BUILTINS += "Sequence Mapping Fraction Path TypeVar Enum StrEnum Exception ValueError"
offline = [name for name in EXTERNAL if name not in intersphinx_mapping]
nitpick_ignore_regex = [
    (r"py:.*", re.escape(module) + r"(\..*)?") for name in offline for module in EXTERNAL[name].split()
]
if "python" in offline:
    nitpick_ignore_regex.append((r"py:.*", "|".join(BUILTINS.split())))
