"""The trusted base: independent re-checks of every certificate kind.

Each checker imports nothing of mechlib (only the standard library and python-flint), so a bug in
a producer cannot hide in shared code; import-linter enforces it (``[tool.importlinter]``).
"""
