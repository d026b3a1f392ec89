"""The layout's promises that import-linter cannot see: producers and checkers agree on schema ids
without sharing code (each spells its own), and the public API is the same as before the move."""

from __future__ import annotations

import mechlib
from mechlib.audit import blackbox, whitebox
from mechlib.checkers import audit_certificate, blackbox_result, bracket_certificate
from mechlib.infodesign import school_planning


def test_producer_and_checker_spell_the_same_schema() -> None:
    assert whitebox.SCHEMA == audit_certificate.SCHEMA
    assert school_planning.SCHEMA == bracket_certificate.SCHEMA
    assert blackbox.SCHEMA == blackbox_result.SCHEMA == "mechlib.blackbox/9"


def test_public_api_is_importable_from_the_top() -> None:
    for name in mechlib.__all__:
        assert hasattr(mechlib, name), name
