"""Layer 3, the audit face: loading mechanism files and ``module:function`` sources, the white-box
audit (:mod:`~mechlib.audit.whitebox`), black-box tests of samplers and their adapters, reports,
the committed example audits.

Produces certificates; never imports :mod:`mechlib.checkers` (the trusted base checks them).
"""

#: The default false-alarm rate of every black-box test (``--alpha-fa``): a violation verdict accuses a
#: library, so at most 1 in 100 audits of an ε-DP sampler may raise one (T exactly at ε: about 0.4 %,
#: reports/bench.md). Here, not in ``blackbox``, so that the CLI reads it without importing flint.
DEFAULT_ALPHA_FA = 0.01
#: The black-box limits, checked before any sampling (``--n``, ``--samples``; a sweep's entries): the mean
#: sample size per count (numpy's Poisson sampler stops near 10¹⁹; 10⁹ samples already take hours) and the
#: largest count.
MAX_SAMPLES = 10**9
MAX_COUNT = 100_000
