"""Certificates re-checked instead of searched again (issue 33): the remap-cell proofs of GRS-T3.2
and DOM rest on stored ``mechlib.universal/2`` certificates that the independent checker
(:mod:`mechlib.checkers.universal_certificate`) re-verifies in seconds; the search runs only when a
certificate is missing, fails to check, or the search is forced.

**Where certificates live.** Committed with the package under ``mechlib/proofs/certificates/``
(gzip-compressed JSON, n ≤ 6 at α ∈ {1/2, 1/3, 2/3}: see that directory's README for the sizes),
and in a user cache — ``$MECHLIB_CACHE``, else ``$XDG_CACHE_HOME/mechlib``, else
``~/.cache/mechlib`` (subdirectory ``certificates``) — where every certificate a search makes is
written (atomically). The cache is read first, then the package.

**Trust.** A stored file is never trusted: it is read and re-checked for exactly the (n, α)
asked; one that is unreadable, stale (another n or α, another schema) or tampered fails the check
and is searched again (and the fresh certificate replaces it in the cache). A certificate states
only mathematics — (n, α) and the multipliers — so no code version makes it stale; versions are
unverified provenance. When the library's own T at (n, α) differs from the checker's definition
of T (a mutant that replaces T), the certificate says nothing about the library's T, and the
library's T is searched.

**Forcing the search.** ``MECHLIB_SEARCH=1`` (set by ``mechlib verify --search``), or
:data:`FORCE_SEARCH` set by a mutant of the search itself (its falsification must exercise the
search, not a stored certificate).
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from mechlib.proofs.registry import Outcome, Verdict

#: The environment variable that forces every search (``mechlib verify --search`` sets it to 1).
SEARCH_ENV = "MECHLIB_SEARCH"
#: Set (to True) by mutants of a search: they must run the search they mutate.
FORCE_SEARCH = False
#: The certificates committed with the package.
PACKAGED = Path(__file__).resolve().parent.parent / "certificates"


def search_forced() -> bool:
    """Whether searches run even when a stored certificate checks."""
    return FORCE_SEARCH or os.environ.get(SEARCH_ENV, "").strip() not in ("", "0")


def cache_dir() -> Path:
    """Where searched certificates are written: ``$MECHLIB_CACHE``, ``$XDG_CACHE_HOME/mechlib`` or
    ``~/.cache/mechlib``, subdirectory ``certificates``."""
    base = os.environ.get("MECHLIB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "mechlib"
    )
    return Path(base) / "certificates"


def read(path: Path) -> Any:
    """A stored certificate (gzip-compressed JSON, or plain JSON)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def write(path: Path, doc: dict[str, Any]) -> None:
    """``doc`` as gzip-compressed JSON at ``path`` (atomically: a reader sees the old file or the
    new one, never half of one; the gzip header carries no time, so equal documents give equal files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), compresslevel=9, mtime=0)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)  # readable like any other file of the package or cache
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def universal_name(n: int, alpha: Fraction) -> str:
    return f"universal-n{n}-alpha{alpha.numerator}_{alpha.denominator}.json.gz"


def _where(path: Path) -> str:
    return f"package: {path.name}" if path.parent == PACKAGED else f"cache: {path}"


def stored(name: str, check: Callable[[Any], list[str]]) -> tuple[dict[str, Any] | None, dict[str, Any], list[str]]:
    """The first stored certificate called ``name`` (cache, then package) that ``check`` (an
    independent checker, bound to what must be proved) accepts: (document, evidence of the
    re-check, notes on the files rejected). (None, {}, notes) when none does or the search is forced."""
    if search_forced():
        return None, {}, [f"search forced ({SEARCH_ENV} or a mutant of the search)"]
    notes = []
    for path in (cache_dir() / name, PACKAGED / name):
        if not path.is_file():
            continue
        start = time.perf_counter()
        try:
            doc = read(path)
        except (OSError, ValueError, EOFError) as err:  # gzip/JSON errors are ValueError/EOFError
            failures = [f"unreadable: {err}"]
        else:
            failures = check(doc)
        if not failures:
            return doc, {"certificate": _where(path), "re-check seconds": round(time.perf_counter() - start, 2)}, []
        notes.append(f"{_where(path)} rejected ({failures[0][:160]}): searched again")
    return None, {}, notes or ["no stored certificate: searched"]


def keep(name: str, doc: dict[str, Any]) -> str:
    """Write a certificate the checker accepted to the cache; where it went (or why not)."""
    try:
        write(cache_dir() / name, doc)
    except OSError as err:
        return f"not written: {err}"
    return str(cache_dir() / name)


def certified_outcome(n: int, alpha: Fraction) -> Outcome:
    """T's remap-cell proof at (n, α): a stored certificate accepted by the independent checker
    (PROVED, evidence naming it), else the search (:func:`remap_cells.prove`) judged on the
    certificate it makes (:func:`remap_cells.judged_document`), which is then cached."""
    from mechlib.checkers.universal_certificate import check_certificate, t_matrix
    from mechlib.core import families
    from mechlib.proofs.shared import remap_cells

    name = universal_name(n, alpha)
    if [list(row) for row in families.truncated_geometric(alpha, n).rows] != t_matrix(n, alpha):
        notes = ["the library's T is not T by definition: the certificates do not speak of it"]
    else:
        doc, shown, notes = stored(name, lambda doc: check_certificate(doc, n=n, alpha=alpha))
        if doc is not None:
            shown["re-checked by"] = "mechlib.checkers.universal_certificate"
            return Outcome(Verdict.PROVED, {**shown, **remap_cells.certificate_summary(doc)})
    start = time.perf_counter()
    counts = remap_cells.prove(n, alpha)
    seconds = round(time.perf_counter() - start, 2)
    outcome, doc = remap_cells.judged_document(n, alpha, counts, {"seconds": seconds})
    evidence = {**outcome.evidence, "certificate": "; ".join(notes), "search seconds": seconds}
    if doc is not None:
        evidence["cached"] = keep(name, doc)
    return Outcome(outcome.verdict, evidence, outcome.reason)


def refresh_packaged(smallest: int, largest: int, alphas: tuple[Fraction, ...]) -> None:
    """Search and write the packaged certificates for n = ``smallest``..``largest`` at each α (a
    maintainer's step, see ``mechlib/proofs/certificates/README.md``); each is checked before it
    is written."""
    from mechlib.proofs.shared import remap_cells

    for alpha in alphas:
        for n in range(smallest, largest + 1):
            start = time.perf_counter()
            counts = remap_cells.prove(n, alpha)
            seconds = round(time.perf_counter() - start, 2)
            outcome, doc = remap_cells.judged_document(n, alpha, counts, {"seconds": seconds})
            if doc is None:
                raise SystemExit(f"n={n}, α={alpha}: {outcome.verdict.value}: {outcome.reason}")
            path = PACKAGED / universal_name(n, alpha)
            write(path, doc)
            print(f"n={n} α={alpha}: {seconds} s, {path.stat().st_size} bytes", flush=True)
