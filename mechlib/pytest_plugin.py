"""mechlib's pytest plugin (entry point ``pytest11``), loaded by pytest wherever mechlib is installed.

* Hypothesis **profiles** ``mechlib-dev`` (100 examples), ``mechlib-ci`` (derandomized, no example
  database, 60 examples) and ``mechlib-deep`` (3000 examples), selected with Hypothesis's own
  ``--hypothesis-profile`` or, when that is not given, the environment's ``HYPOTHESIS_PROFILE``
  (loaded here, at ``pytest_configure``: after the conftest files, so it wins over theirs);
* ``st.from_type`` knows mechlib's types (:func:`mechlib.strategies.register_type_strategies`):
  ``Mechanism`` (an α-DP mechanism), ``Prior``, ``Loss`` (legal), ``BayesUser``, ``MinimaxUser``;
* **fixtures**: ``truncated_geometric_half`` (T at α = 1/2, n = 5, GRS Figure 1(b)),
  ``randomized_response_half`` (4-ary, α = 1/2), ``gs_appendix_b`` (GS App. B's matrix, 1/2-DP and
  not derivable from T), ``uniform_absolute_user`` (n = 5), and ``mechlib_t`` (a factory
  ``mechlib_t(alpha, n)`` for T).
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.errors import InvalidArgument

from mechlib.core.families import gs_appendix_b as gs_appendix_b_matrix
from mechlib.core.families import randomized_response, truncated_geometric
from mechlib.core.mechanism import Mechanism
from mechlib.core.users import BayesUser, Prior, absolute_loss
from mechlib.strategies import register_type_strategies

settings.register_profile("mechlib-dev", max_examples=100, deadline=None)
settings.register_profile(
    "mechlib-ci",
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("mechlib-deep", max_examples=3000, deadline=None)
register_type_strategies()


def pytest_configure(config: pytest.Config) -> None:
    """``HYPOTHESIS_PROFILE`` selects a registered profile when ``--hypothesis-profile`` does not
    (Hypothesis's own plugin loads that one)."""
    wanted = os.environ.get("HYPOTHESIS_PROFILE")
    given = config.getoption("hypothesis_profile", default=None)
    if wanted and not given:
        try:
            settings.load_profile(wanted)
        except InvalidArgument:
            raise pytest.UsageError(f"HYPOTHESIS_PROFILE={wanted!r} names no registered Hypothesis profile") from None


HALF = Fraction(1, 2)


@pytest.fixture
def truncated_geometric_half() -> Mechanism:
    """T at α = 1/2 on counts 0..5 (GRS Figure 1(b))."""
    return truncated_geometric(HALF, 5)


@pytest.fixture
def randomized_response_half() -> Mechanism:
    """4-ary randomized response, exactly 1/2-DP (not derivable from T)."""
    return randomized_response(HALF, 4)


@pytest.fixture
def gs_appendix_b() -> Mechanism:
    """GS Appendix B's matrix: 1/2-DP, not derivable from T."""
    return gs_appendix_b_matrix()


@pytest.fixture
def uniform_absolute_user() -> BayesUser:
    """A Bayesian user on 0..5 with a uniform prior and the absolute loss |i − j|."""
    return BayesUser(Prior.uniform(5), absolute_loss(5))


@pytest.fixture
def mechlib_t() -> Any:
    """A factory: ``mechlib_t(alpha, n)`` is the truncated α-geometric mechanism on 0..n."""
    return truncated_geometric
