from fractions import Fraction

import pytest

from mechlib import InputError, Mechanism, randomized_response, signature, truncated_geometric
from mechlib.proofs.grs.figure_3 import FIGURE_3A

FIGURE_3B = """↓ 0 ↑ ↑ ↑ ↑
↓ 0 S ↑ ↑ ↑
↓ 0 ↓ ↑ ↑ ↑
↓ 0 ↓ ↓ ↑ ↑
↓ 0 ↓ ↓ ↓ ↑"""
FIGURE_4 = """↓ ↑ ↑ ↑ ↑ ↑
↓ ↓ ↑ ↑ ↑ ↑
↓ ↓ ↓ ↑ ↑ ↑
↓ ↓ ↓ ↓ ↑ ↑
↓ ↓ ↓ ↓ ↓ ↑"""


def test_grs_figure_3b() -> None:
    assert str(signature(Mechanism(FIGURE_3A), "1/2")) == FIGURE_3B


def test_grs_figure_4() -> None:
    sig = signature(truncated_geometric("1/2", 5), "1/2")
    assert str(sig) == FIGURE_4
    assert sig.ascii().splitlines()[0] == "v ^ ^ ^ ^ ^"


def test_signature_depends_on_alpha() -> None:
    """At a smaller α every constraint of T_{1/2} is slack."""
    sig = signature(truncated_geometric("1/2", 3), "1/3")
    assert {s for row in sig.rows for s in row} == {"S"}


def test_randomized_response_signature() -> None:
    sig = signature(randomized_response("1/2", 3), Fraction(1, 2))
    assert sig.rows[0] == ("↓", "↑", "S")


def test_signature_errors() -> None:
    with pytest.raises(InputError, match=r"rows 0 and 1 break α-DP at output 0"):
        signature(truncated_geometric("1/2", 3), "2/3")
    with pytest.raises(InputError, match=r"0 < α < 1"):
        signature(truncated_geometric("1/2", 3), 1)
    with pytest.raises(InputError, match="count-query"):
        signature(Mechanism([[1, 0], [0, 1]], neighbours=[]), "1/2")
