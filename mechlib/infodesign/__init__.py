"""Layer 2b, Schmutte–Yoder's information design: α = e^−ε exactly, databases, privacy sets
K and K_Ω with their vertices, mechanisms on databases, information structures, the UPRR order,
decision problems, the designer's certified optimum and SY Example 1.

Builds on :mod:`mechlib.core` only; independent of :mod:`mechlib.optimality`.
"""
