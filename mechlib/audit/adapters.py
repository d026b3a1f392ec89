"""Samplers for the black-box audit: a Python callable, or an adapter to a DP library.

``module:function`` — ``function(count, rng) -> int`` is called once per sample (rng is a
``numpy.random.Generator``). Adapters, each configured for counts 0..n at the claimed ε
(sensitivity 1), import their library lazily; without it the error names the extra to install
(``pip install 'mechlib[adapters]'``):

* ``mechlib:truncated_geometric`` — T at α = e^−ε (GRS), sampled from its exact pmf (reference);
* ``diffprivlib:GeometricTruncated``, ``diffprivlib:GeometricFolded`` (bounds 0..n),
  ``diffprivlib:Exponential`` (candidates 0..n, utility −|i − j|);
* ``opendp:make_geometric`` (scale 1/ε, integer output; vectorised), ``opendp:make_randomized_response``
  (categories 0..n, truth probability e^ε/(e^ε + n));
* ``pydp:LaplaceMechanism`` (integer in, integer out; PyDP has no truncated geometric, and its
  RNG is its own: results are not reproducible by ``--seed``).

For an (ε, δ) claim (``--delta``), configured at the claimed (ε, δ) with sensitivity 1:

* ``pydp:GaussianMechanism`` (integer in, integer out; PyDP's own unseeded RNG);
* ``opendp:make_gaussian`` — OpenDP's discrete Gaussian on integers, its scale the smallest for which
  OpenDP's own privacy map (zCDP, converted with ``make_zCDP_to_approxDP``) gives δ(ε) ≤ the
  claimed δ; the scale and the map's δ(ε) are recorded. OpenDP draws from its own RNG: unseeded.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mechlib.audit.blackbox import Draw, Sampler
from mechlib.audit.loading import import_callable
from mechlib.errors import InputError

#: How to install each adapter's library (or all of them: pip install -e '.[adapters]').
INSTALL = {
    "diffprivlib": "pip install diffprivlib==0.6.6 'scikit-learn<1.9'",
    "opendp": "pip install 'opendp>=0.16'",
    "pydp": "pip install 'python-dp>=1.1'",
}


def _library(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        top = name.split(".")[0]
        hint = f"{INSTALL.get(top, f'pip install {top}')} (or all adapters: pip install -e '.[adapters]')"
        raise InputError(f"the adapter needs {top!r}, which is not installed ({err})", hint=hint) from None


def _per_call(one: Callable[[int, Any], Any]) -> Callable[[int, int, Any], list[Any]]:
    return lambda count, size, rng: [one(count, rng) for _ in range(size)]


def _mechlib_t(n: int, epsilon: Fraction) -> Callable[[int, int, Any], list[Any]]:
    a = math.exp(-float(epsilon))
    rows = [[(1 if r in (0, n) else 1 - a) / (1 + a) * a ** abs(i - r) for r in range(n + 1)] for i in range(n + 1)]
    return lambda count, size, rng: [int(v) for v in rng.choice(n + 1, size=size, p=rows[count])]


def _diffprivlib(kind: str, n: int, epsilon: Fraction) -> Callable[[int, int, Any], list[Any]]:
    mechanisms = _library("diffprivlib.mechanisms")
    eps = float(epsilon)

    def draw(count: int, size: int, rng: Any) -> list[Any]:
        seed = int(rng.integers(2**31))
        if kind == "Exponential":
            mech = mechanisms.Exponential(
                epsilon=eps, sensitivity=1, utility=[-abs(count - j) for j in range(n + 1)], random_state=seed
            )
            return [mech.randomise() for _ in range(size)]
        cls = getattr(mechanisms, kind)
        mech = cls(epsilon=eps, sensitivity=1, lower=0, upper=n, random_state=seed)
        return [mech.randomise(count) for _ in range(size)]

    return draw


def _opendp(kind: str, n: int, epsilon: Fraction) -> Callable[[int, int, Any], list[Any]]:
    dp = _library("opendp.prelude")
    dp.enable_features("contrib")
    eps = float(epsilon)
    if kind == "make_geometric":
        # vectorised: one call adds independent noise to `size` copies of the count — each
        # coordinate has exactly the scalar mechanism's distribution (10× the scalar rate)
        vector = dp.m.make_geometric(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=1 / eps)
        return lambda count, size, _rng: list(vector([count] * size))
    prob = math.exp(eps) / (math.exp(eps) + n)
    meas = dp.m.make_randomized_response(categories=list(range(n + 1)), prob=prob)
    return _per_call(lambda count, _rng: meas(count))


def _needs_delta(spec: str, delta: Fraction | None) -> float:
    if delta is None or delta == 0:
        raise InputError(f"{spec} is (ε, δ)-DP", hint="give --delta, the δ of the claim (e.g. 1e-5)")
    return float(delta)


def _pydp_gaussian(n: int, epsilon: Fraction, delta: Fraction | None, config: dict[str, Any]) -> Draw:
    """PyDP's GaussianMechanism at the claimed (ε, δ), l2 sensitivity 1, on an integer input."""
    mechanisms = _library("pydp.algorithms.numerical_mechanisms")
    mech = mechanisms.GaussianMechanism(float(epsilon), _needs_delta("pydp:GaussianMechanism", delta), 1.0)
    config["std"] = mech.std
    return _per_call(lambda count, _rng: mech.add_noise(count))


def _opendp_gaussian(n: int, epsilon: Fraction, delta: Fraction | None, config: dict[str, Any]) -> Draw:
    """OpenDP's discrete Gaussian: the smallest scale (bisection, to 10⁻⁶ relative) whose own
    privacy map gives δ(ε) ≤ the claimed δ; sampled vectorised (each coordinate has the scalar
    mechanism's distribution)."""
    target = _needs_delta("opendp:make_gaussian", delta)
    dp = _library("opendp.prelude")
    dp.enable_features("contrib")
    scalar = (dp.atom_domain(T=int), dp.absolute_distance(T=int))

    def delta_at(scale: float) -> float:
        profile = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*scalar, scale=scale)).map(1)
        return float(profile.delta(float(epsilon)))

    lo, hi = 1e-3, 1e6
    while hi / lo > 1 + 1e-6:
        mid = (lo * hi) ** 0.5
        lo, hi = (lo, mid) if delta_at(mid) <= target else (mid, hi)
    config.update(scale=hi, library_delta_at_epsilon=delta_at(hi))
    vector = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=hi)
    return lambda count, size, _rng: list(vector([count] * size))


def _pydp(n: int, epsilon: Fraction) -> Callable[[int, int, Any], list[Any]]:
    """PyDP's LaplaceMechanism on an integer input (it returns an integer: discretised noise).
    PyDP 1.1.5 has no GeometricTruncated and draws from its own unseeded RNG."""
    mechanisms = _library("pydp.algorithms.numerical_mechanisms")
    mech = mechanisms.LaplaceMechanism(float(epsilon), 1.0)
    return _per_call(lambda count, _rng: mech.add_noise(count))


ADAPTERS: dict[str, Callable[[int, Fraction], Callable[[int, int, Any], list[Any]]]] = {
    "mechlib:truncated_geometric": _mechlib_t,
    "diffprivlib:GeometricTruncated": lambda n, e: _diffprivlib("GeometricTruncated", n, e),
    "diffprivlib:GeometricFolded": lambda n, e: _diffprivlib("GeometricFolded", n, e),
    "diffprivlib:Exponential": lambda n, e: _diffprivlib("Exponential", n, e),
    "opendp:make_geometric": lambda n, e: _opendp("make_geometric", n, e),
    "opendp:make_randomized_response": lambda n, e: _opendp("make_randomized_response", n, e),
    "pydp:LaplaceMechanism": _pydp,
}
#: Adapters of (ε, δ)-DP mechanisms: (n, ε, δ, config to fill with what was configured) -> draw.
APPROXIMATE_ADAPTERS: dict[str, Callable[[int, Fraction, Fraction | None, dict[str, Any]], Draw]] = {
    "pydp:GaussianMechanism": _pydp_gaussian,
    "opendp:make_gaussian": _opendp_gaussian,
}
LIBRARIES = ("mechlib", "diffprivlib", "opendp", "pydp")
#: Adapters whose library draws from its own RNG: ``--seed`` does not make their runs reproducible.
UNSEEDED = ("pydp:LaplaceMechanism", "pydp:GaussianMechanism", "opendp:make_gaussian")


def sampler(spec: str, n: int, epsilon: Fraction, delta: Fraction | None = None) -> Sampler:
    """The sampler named by ``spec`` (an adapter or ``module:function``); ``delta``: the claim's δ,
    which the (ε, δ) adapters are configured with."""
    if spec in APPROXIMATE_ADAPTERS:
        config: dict[str, Any] = {}
        draw = APPROXIMATE_ADAPTERS[spec](n, epsilon, delta, config)
        return Sampler(spec, draw, spec.split(":")[0], config)
    if spec in ADAPTERS:
        return Sampler(spec, ADAPTERS[spec](n, epsilon), spec.split(":")[0])
    library = spec.split(":")[0]
    if library in LIBRARIES:
        known = ", ".join([*ADAPTERS, *APPROXIMATE_ADAPTERS])
        raise InputError(f"unknown adapter {spec!r}", hint=f"known adapters: {known}")
    if not spec.partition(":")[2]:
        raise InputError(
            f"sampler {spec!r}", hint="expected module:function or an adapter such as " + next(iter(ADAPTERS))
        )
    _, func = import_callable(spec)
    return Sampler(spec, _per_call(func), "python")
