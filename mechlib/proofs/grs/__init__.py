"""Ghosh–Roughgarden–Sundararajan (GRS): one module per claim, named after the paper's numbering."""
