"""The papers' printed matrices that several claims' checks use: GS Appendix B's (as reconstructed
in CLAIMS.md, the library's :func:`mechlib.core.families.gs_appendix_b`) and GRS Figure 5."""

from __future__ import annotations

from mechlib.core.families import gs_appendix_b
from mechlib.core.mechanism import Mechanism

GS_APPENDIX_B = gs_appendix_b()
GRS_FIGURE_5A = Mechanism(
    [
        ["1/3", "1/3", "1/3", 0],
        ["2/3", "1/6", "1/6", 0],
        ["1/3", "1/3", "1/3", 0],
        ["1/6", "1/6", "2/3", 0],
    ]
)
