"""Layer 1, the exact kernel: numbers, stochastic matrices, mechanisms, remaps, the families
(T among them), DP levels, users and post-processing, signatures, exact linear algebra.

Imports nothing of mechlib above it (checked by import-linter, ``[tool.importlinter]``).
"""
