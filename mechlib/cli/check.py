"""``mechlib check CERTIFICATE [SOURCE]``: re-verify a certificate with the independent checker."""

from __future__ import annotations

import argparse
from typing import Any

from mechlib.cli import options
from mechlib.errors import ExitCode, InputError


def add_parser(sub: Any, name: str) -> None:
    check = sub.add_parser(
        name,
        help="re-verify a certificate with the independent checker",
        description="Re-verify every witness of a certificate (schemas mechlib.audit/8, "
        "mechlib.blackbox/9 (and /8, /7, /6), mechlib.bracket/1 and mechlib.universal/2) without trusting the "
        "code that produced it; a gzip-compressed certificate is read as is. "
        "Exit 0 if it holds, 1 if any check fails, 2 if the file is not a certificate.",
        epilog=options.EPILOG,
    )
    check.add_argument(
        "certificate", help="certificate JSON: an audit report, a black-box result, SY Example 1's bracket"
    )
    check.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="the audited file or module:function (which runs that Python code): its SHA-256, matrix, "
        "labels, neighbours and claim must match the certificate's",
    )


def run(args: argparse.Namespace) -> int:
    from mechlib.audit.loading import read_json, read_limited, uncompressed
    from mechlib.checkers import audit_certificate, blackbox_result, bracket_certificate, universal_certificate
    from mechlib.schemas import older_note

    try:  # read_limited: the size limit checked before reading (a 1 GiB file is refused in one line)
        cert = read_json(uncompressed(read_limited(args.certificate), args.certificate))
    except InputError as err:
        raise err.at(args.certificate) from None
    found = cert.get("schema") if isinstance(cert, dict) else type(cert).__name__
    known = (audit_certificate.SCHEMA, bracket_certificate.SCHEMA, universal_certificate.SCHEMA, blackbox_result.SCHEMA,
             *blackbox_result.EARLIER)  # fmt: skip
    if found not in known:
        older = older_note(found, audit_certificate.SCHEMA)  # a mechlib.audit/7 file: say so, and what to do
        raise InputError(
            f"schema {found!r}",
            source=args.certificate,
            field="schema",
            hint=older or f"expected {' or '.join(map(repr, known))}",
        )
    provenance: tuple[str, ...] = ()
    try:
        if found == audit_certificate.SCHEMA:
            source, parsed = _certificate_source(args.source, cert)
            failures = audit_certificate.check_certificate(cert, source, parsed)
            provenance = audit_certificate.PROVENANCE
        elif args.source is not None:
            raise InputError("SOURCE is only for audit certificates", field="SOURCE", hint=f"drop {args.source}")
        elif found in (blackbox_result.SCHEMA, *blackbox_result.EARLIER):
            failures, provenance = blackbox_result.check_result(cert), blackbox_result.PROVENANCE
        elif found == universal_certificate.SCHEMA:
            failures, provenance = universal_certificate.check_certificate(cert), universal_certificate.PROVENANCE
        else:
            failures = bracket_certificate.check_certificate(cert)
    except (KeyError, ValueError, TypeError, IndexError, ZeroDivisionError, AttributeError) as err:
        raise InputError(f"malformed certificate: {type(err).__name__}: {err}", source=args.certificate) from None
    if failures and failures[0].startswith("malformed"):
        raise InputError(failures[0], source=args.certificate)
    if provenance and not failures:
        print("unverified provenance (recorded, not re-checkable): " + "; ".join(provenance))
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{args.certificate}: {'holds' if not failures else f'{len(failures)} check(s) failed'}")
    return ExitCode.HOLDS if not failures else ExitCode.FAILS


def _certificate_source(spec: str | None, cert: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """SOURCE (a file or ``module:function``) read as the audit read it: its SHA-256 and the
    mechanism (its matrix as integer rows of Python ints, no text), for a field-by-field comparison."""
    if spec is None:
        return None, None
    from mechlib.audit.loading import load_source
    from mechlib.checkers.audit_certificate import source_digest
    from mechlib.core.exact import format_fraction

    src: dict[str, Any] = cert["source"] if isinstance(cert.get("source"), dict) else {}
    # a file's bytes are hashed by the checker's own function as the loader reads them (once);
    # a module's source file is hashed by the loader
    loaded = load_source(
        spec,
        from_float=src.get("format") == "npy",
        normalize_rows=cert.get("rows_normalized") is True,
        checksum=source_digest,
    )
    mech = loaded.mechanism
    claimed = (
        {"alpha": format_fraction(loaded.claimed_alpha)}
        if loaded.claimed_alpha is not None
        else {"epsilon": format_fraction(loaded.claimed_epsilon)}
        if loaded.claimed_epsilon is not None
        else None
    )
    if claimed is not None and loaded.claimed_delta is not None:
        claimed["delta"] = format_fraction(loaded.claimed_delta)
    num, den = mech.scaled()
    parsed = {
        "matrix": {"denominators": list(den), "numerators": [list(row) for row in num]},  # Python ints
        "inputs": list(mech.inputs),
        "outputs": list(mech.outputs),
        "neighbours": [list(pair) for pair in mech.neighbours],
        "claimed": claimed,
    }
    return loaded.sha256, parsed
