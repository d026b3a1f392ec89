"""The checker's limits are the producers' (file size, cells, digits), checked before any
arithmetic; and a mechanism near α = 1 (rows ⅓ ± 10⁻³⁰⁰) audits and checks without a traceback."""

from __future__ import annotations

import copy
import json
import re
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import mechlib.audit.approximate_dp
import mechlib.audit.loading
import mechlib.audit.whitebox
import mechlib.checkers.approximate_dp
import mechlib.checkers.audit_certificate
import mechlib.core.approximate
import mechlib.core.stochastic
from mechlib.audit.loading import LoadedMechanism
from mechlib.audit.whitebox import audit
from mechlib.checkers.audit_certificate import check_certificate
from mechlib.cli import main
from mechlib.core.families import truncated_geometric
from mechlib.core.mechanism import Mechanism


def test_the_checker_limits_are_the_producers() -> None:
    assert mechlib.checkers.audit_certificate.MAX_CELLS == mechlib.core.stochastic.MAX_CELLS
    assert mechlib.checkers.audit_certificate.LP_CHECK_MAX_N == mechlib.audit.whitebox.LP_MAX_N_CAP
    for name in (
        "PROFILE_MAX_CELLS",
        "DENSE_PROFILE_MAX_CELLS",
        "RENYI_MAX_CELLS",
        "RENYI_MAX_TERMS",
        "PROFILE_MAX_SCANS",
    ):
        assert getattr(mechlib.checkers.approximate_dp, name) == getattr(mechlib.audit.approximate_dp, name)
    assert mechlib.checkers.approximate_dp.INT64_DENOMINATOR == mechlib.core.approximate.INT64_DENOMINATOR


def test_check_refuses_a_file_over_the_size_limit_before_reading_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as out:  # sparse: no gigabyte written, none read
        out.truncate(mechlib.audit.loading.MAX_FILE_BYTES + 1)
    started = time.perf_counter()
    code = main(["check", str(big)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "bytes" in err and str(big) in err
    assert time.perf_counter() - started < 5


def _t_certificate(n: int, alpha: str) -> dict[str, Any]:
    """T's certificate at n = 2 (written as T·Y), its declared size then raised to ``n`` at ``alpha``."""
    cert = json.loads(json.dumps(audit(LoadedMechanism(truncated_geometric("1/2", 2), "t", "python", "0" * 64))))
    assert "t_alpha" in cert["mechanism"]["matrix"]
    labels = list(range(n + 1))
    forged: dict[str, Any] = copy.deepcopy(cert)
    forged.update(n=n, inputs=labels, outputs=labels)
    forged["mechanism"].update(inputs=labels, outputs=labels, neighbours=[[i, i + 1] for i in range(n)])
    forged["mechanism"]["matrix"] = {
        "t_alpha": alpha,
        "remap": {"denominators": ["1"] * (n + 1), "numerators": [["1"]] * (n + 1), "columns": [[i] for i in labels]},
    }
    return forged


@pytest.mark.parametrize(
    ("n", "alpha", "message"),
    [(20_000, "1/2", "cells"), (2000, "1/1024", "hexadecimal digits")],
)
def test_a_declared_size_past_the_limits_is_refused_before_the_arithmetic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, n: int, alpha: str, message: str
) -> None:
    """T·Y is a few kilobytes for any n; rebuilding T at n = 20,000 would be 4·10⁸ cells of
    20,000-bit numbers (it ran > 400 s at 1.26 GB before)."""
    forged = _t_certificate(n, alpha)
    started = time.perf_counter()
    failures = check_certificate(forged)
    assert len(failures) == 1 and failures[0].startswith("malformed") and message in failures[0]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    code = main(["check", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err
    assert time.perf_counter() - started < 20


def test_a_mechanism_next_to_alpha_one_audits_and_checks(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Rows ⅓ ± 10⁻³⁰⁰: T⁻¹ has entries near 10⁶⁰⁰, past a float — the LP's finding is UNKNOWN
    (it used to be an OverflowError traceback); ε's bracket starts at 0, not below."""
    third, tiny = Fraction(1, 3), Fraction(1, 10**300)
    rows = [
        [third + tiny, third - tiny, third],
        [third - tiny, third + tiny, third],
        [third, third + tiny, third - tiny],
    ]
    source = tmp_path / "third.json"
    source.write_text(json.dumps({"matrix": [[str(v) for v in row] for row in rows]}))
    code = main(["audit", str(source), "-o", str(tmp_path / "third.cert.json")])
    out, err = capsys.readouterr()
    assert code == 3 and "Traceback" not in err and "dominance  UNKNOWN" in out
    cert = json.loads((tmp_path / "third.cert.json").read_text())
    assert cert["unknown"] == ["dominance"] and cert["epsilon_interval"][0] == "0.000000000000000"
    assert check_certificate(cert, source.read_bytes()) == []


@pytest.mark.parametrize("tamper", [False, True])
def test_source_rows_over_other_denominators_compare_by_cross_products(tamper: bool) -> None:
    """T read from a file in lowest terms has rows over 3·2^(n−1); the certificate's T·Y over
    2^n·3: equal values, compared without a gcd per row, and one changed entry is caught."""
    t = truncated_geometric("1/2", 6)
    cert = json.loads(json.dumps(audit(LoadedMechanism(t, "t", "python", "0" * 64))))
    assert "t_alpha" in cert["mechanism"]["matrix"]
    cells = t.to_strings()
    if tamper:  # another stochastic matrix: two entries of row 2 swapped
        cells[2][0], cells[2][2] = cells[2][2], cells[2][0]
    num, den = Mechanism(cells).scaled()
    assert den[0] == 3 * 2**5  # T·Y's rows are over b^n·(a + b) = 2^6·3
    parsed = {"matrix": {"denominators": list(den), "numerators": [list(r) for r in num]}, "inputs": cert["inputs"],
              "outputs": cert["outputs"], "neighbours": cert["mechanism"]["neighbours"], "claimed": None}  # fmt: skip
    failures = check_certificate(cert, None, parsed)
    assert failures == (["mechanism.matrix differs from SOURCE's"] if tamper else [])


def test_the_checkers_read_exact_numbers_to_their_limits_and_name_what_is_wrong() -> None:
    """The checkers' own reader (mechlib/checkers/numbers.py): each form, and each limit at its edge."""
    from mechlib.checkers.numbers import MAX_DIGITS, MAX_EXPONENT, exact, exact_ratio

    assert exact(" -3/4 ") == Fraction(-3, 4) and exact_ratio("+3/4") == (3, 4) and exact_ratio("0/7") == (0, 7)
    assert exact_ratio("-0.25") == (-25, 100) and exact_ratio(".5") == (5, 10) and exact_ratio("7.") == (7, 1)
    assert exact_ratio("1.5e-2") == (15, 1000) and exact_ratio("-2E3") == (-2000, 1) and exact_ratio("12") == (12, 1)
    assert exact_ratio("0.5e1") == (5, 1) and exact_ratio("5e-1") == (5, 10) and exact_ratio(-7) == (-7, 1)
    bits = int(MAX_DIGITS * 3.33 + 4)  # the most bits of an integer of MAX_DIGITS digits, and a little more
    assert exact_ratio(2 ** (bits - 1)) == (2 ** (bits - 1), 1)
    for big in (2**bits, -(2**bits)):
        with pytest.raises(ValueError, match=f"^an integer of more than {MAX_DIGITS} digits$"):
            exact_ratio(big)
    for wrong in (True, 0.5, None, [1]):
        with pytest.raises(ValueError, match=rf"^expected an exact number as a string, got {re.escape(repr(wrong))}$"):
            exact_ratio(wrong)
    for text in ("", ".", "e5", "-", "1/", "/2", "1/2/3", "0x10", "1e1234567890", "½"):
        with pytest.raises(ValueError, match=rf"^{re.escape(repr(text[:40]))} is not an exact number$"):
            exact_ratio(text)
    long = "x" * 50
    with pytest.raises(ValueError, match=rf"^'{'x' * 40}' is not an exact number$"):
        exact_ratio(long)
    with pytest.raises(ValueError, match=r"^'3/0' has denominator 0$"):
        exact_ratio("3/0")
    nines = "9" * MAX_DIGITS
    for text in (nines, f"{nines}/1", f"1/{nines}", f"{nines[:-1]}.5", f"1e{MAX_EXPONENT}", f"1e-{MAX_EXPONENT}"):
        exact_ratio(text)  # at the limits: read
    beyond = rf" is beyond the limits \({MAX_DIGITS} digits, exponent ±{MAX_EXPONENT}\)$"
    past = MAX_EXPONENT + 1
    for text in (f"9{nines}", f"9{nines}/1", f"1/9{nines}", f"{nines}.5", f"1e{past}", f"1e-{past}"):
        with pytest.raises(ValueError, match=f"^{re.escape(repr(text[:40]))}{beyond}"):
            exact_ratio(text)
