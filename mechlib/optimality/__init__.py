"""Layer 2a, GRS and GS: derivability from T (GS Thm 2), certified optimal mechanisms (GRS LP
(3)–(7); GS minimax), dominance (GRS Thm 3.2 per mechanism), multi-level release (GS Alg. 1).

Builds on :mod:`mechlib.core` only; independent of :mod:`mechlib.infodesign`.
"""
