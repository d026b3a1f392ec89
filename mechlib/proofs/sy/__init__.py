"""Schmutte–Yoder (SY): one module per claim, named after the paper's numbering."""
