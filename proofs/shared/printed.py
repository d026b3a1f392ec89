"""Claims decided by the certified LPs, derivability and the release chain (EXACT parts).

The SMT, symbolic and fuzz parts of these IDs belong to the proofs and fuzzing work.
"""

from __future__ import annotations

from mechlib.core.mechanism import Mechanism

GS_APPENDIX_B = Mechanism(
    [
        ["1/9", "2/9", "4/9", "2/9"],
        ["2/9", "1/9", "2/9", "4/9"],
        ["4/9", "2/9", "1/9", "2/9"],
        ["13/18", "1/9", "1/18", "1/9"],
    ]
)
GRS_FIGURE_5A = Mechanism(
    [
        ["1/3", "1/3", "1/3", 0],
        ["2/3", "1/6", "1/6", 0],
        ["1/3", "1/3", "1/3", 0],
        ["1/6", "1/6", "2/3", 0],
    ]
)
