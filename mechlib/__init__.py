"""mechlib: exact checks of differential-privacy mechanisms for count queries.

Ghosh–Roughgarden–Sundararajan (GRS), Gupte–Sundararajan (GS) and Schmutte–Yoder (SY):
mechanisms, users, remaps and privacy levels, decided in exact rational arithmetic.
"""

__version__ = "0.1.0"

from mechlib.core.exact import format_fraction, to_fraction
from mechlib.core.families import (
    constant,
    exponential,
    geometric,
    identity,
    randomized_response,
    rounded_laplace,
    rounded_laplace_bounds,
    truncated_geometric,
)
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap, posterior
from mechlib.core.privacy import DPLevel, DPWitness, dp_level, is_dp
from mechlib.core.remap import Remap
from mechlib.core.signature import Signature, signature
from mechlib.core.stochastic import StochasticMatrix, compose
from mechlib.core.users import (
    BayesUser,
    Loss,
    MinimaxUser,
    Prior,
    absolute_loss,
    binary_loss,
    power_loss,
    squared_loss,
)
from mechlib.errors import InputError

__all__ = [
    "BayesUser",
    "DPLevel",
    "DPWitness",
    "InputError",
    "Loss",
    "Mechanism",
    "MinimaxUser",
    "Prior",
    "Remap",
    "Signature",
    "StochasticMatrix",
    "__version__",
    "absolute_loss",
    "binary_loss",
    "compose",
    "constant",
    "dp_level",
    "expected_loss",
    "exponential",
    "format_fraction",
    "geometric",
    "identity",
    "is_dp",
    "optimal_remap",
    "posterior",
    "power_loss",
    "randomized_response",
    "rounded_laplace",
    "rounded_laplace_bounds",
    "signature",
    "squared_loss",
    "to_fraction",
    "truncated_geometric",
]
