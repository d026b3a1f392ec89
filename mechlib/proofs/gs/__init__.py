"""Gupte–Sundararajan (GS): one module per claim, named after the paper's numbering."""
