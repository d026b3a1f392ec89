"""Layer 3, the audit face: loading mechanism files and ``module:function`` sources, the white-box
audit (:mod:`~mechlib.audit.whitebox`), black-box tests of samplers and their adapters, reports,
the committed example audits.

Produces certificates; never imports :mod:`mechlib.checkers` (the trusted base checks them).
"""
