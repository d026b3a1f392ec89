"""Samplers for the black-box audit: a Python callable, or an adapter to a DP library.

``module:function`` — ``function(count, rng) -> int`` is called once per sample (rng is a
``numpy.random.Generator``). Adapters configure their library for counts 0..n with sensitivity 1
at the *library's* ε — ``--library-epsilon``, by default the claimed ε — so that a wrong claim can
be tested through them; OpenDP's adapters also record what OpenDP's own privacy map says the
configured measurement satisfies (``map_epsilon``; ``--epsilon map`` tests exactly that claim).
Each imports its library lazily; without it the error names the extra to install
(``pip install 'mechlib[adapters]'``):

* ``mechlib:truncated_geometric`` — T at α = e^−ε (GRS), sampled from its exact pmf (reference);
* ``diffprivlib:GeometricTruncated``, ``diffprivlib:GeometricFolded`` (bounds 0..n),
  ``diffprivlib:Exponential`` (candidates 0..n, utility −|i − j|) — seeded from ``--seed``;
* ``opendp:make_geometric`` (scale 1/ε, integer output; vectorised), ``opendp:make_laplace`` (the
  discrete Laplace on integers, scale 1/ε; vectorised), ``opendp:make_randomized_response``
  (categories 0..n, truth probability e^ε/(e^ε + n); use ``--neighbours complete``),
  ``opendp:make_randomized_response_bool`` (counts 0..1 as False/True, truth probability
  e^ε/(1 + e^ε));
* ``pydp:LaplaceMechanism`` (integer in, integer out; PyDP has no truncated geometric).

For an (ε, δ) claim (``--delta``), configured at (ε, the claimed δ):

* ``pydp:GaussianMechanism`` (integer in, integer out);
* ``opendp:make_gaussian`` — OpenDP's discrete Gaussian on integers, its scale the smallest for which
  OpenDP's own privacy map (zCDP, converted with ``make_zCDP_to_approxDP``) gives δ(ε) ≤ the
  claimed δ; the scale and the map's δ(ε) are recorded.

OpenDP and PyDP draw from their own RNGs (``UNSEEDED``): ``--seed`` does not repeat their runs.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mechlib.audit.blackbox import Draw, Sampler
from mechlib.audit.loading import import_callable
from mechlib.core.exact import format_fraction
from mechlib.errors import InputError

#: How to install each adapter's library (all of them: pip install 'mechlib[adapters]').
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
        hint = f"{INSTALL.get(top, f'pip install {top}')} (or all adapters: pip install 'mechlib[adapters]')"
        raise InputError(f"the adapter needs {top!r}, which is not installed ({err})", hint=hint) from None


def _per_call(one: Callable[[int, Any], Any]) -> Callable[[int, int, Any], list[Any]]:
    return lambda count, size, rng: [one(count, rng) for _ in range(size)]


#: An adapter: (n, the library's ε, the claim's δ, a dict it fills with what it configured) -> draw.
Adapter = Callable[[int, Fraction, Fraction | None, dict[str, Any]], Draw]


def _mechlib_t(n: int, epsilon: Fraction, _delta: Fraction | None, _config: dict[str, Any]) -> Draw:
    a = math.exp(-float(epsilon))
    rows = [[(1 if r in (0, n) else 1 - a) / (1 + a) * a ** abs(i - r) for r in range(n + 1)] for i in range(n + 1)]
    return lambda count, size, rng: [int(v) for v in rng.choice(n + 1, size=size, p=rows[count])]


def _diffprivlib(kind: str) -> Adapter:
    def adapter(n: int, epsilon: Fraction, _delta: Fraction | None, _config: dict[str, Any]) -> Draw:
        mechanisms = _library("diffprivlib.mechanisms")
        eps = float(epsilon)

        def draw(count: int, size: int, rng: Any) -> list[Any]:
            seed = int(rng.integers(2**31))
            if kind == "Exponential":
                utility = [-abs(count - j) for j in range(n + 1)]
                mech = mechanisms.Exponential(epsilon=eps, sensitivity=1, utility=utility, random_state=seed)
                return [mech.randomise() for _ in range(size)]
            mech = getattr(mechanisms, kind)(epsilon=eps, sensitivity=1, lower=0, upper=n, random_state=seed)
            return [mech.randomise(count) for _ in range(size)]

        return draw

    return adapter


def _opendp(kind: str) -> Adapter:
    """OpenDP's pure-DP measurements; ``map_epsilon``: OpenDP's own privacy map at distance 1."""

    def adapter(n: int, epsilon: Fraction, _delta: Fraction | None, config: dict[str, Any]) -> Draw:
        dp = _library("opendp.prelude")
        dp.enable_features("contrib")
        eps = float(epsilon)
        scalar = (dp.atom_domain(T=int), dp.absolute_distance(T=int))
        if kind in ("make_geometric", "make_laplace"):
            # vectorised: one call adds independent noise to `size` copies of the count — each
            # coordinate has exactly the scalar mechanism's distribution (10× the scalar rate)
            config.update(scale=1 / eps, map_epsilon=getattr(dp.m, kind)(*scalar, scale=1 / eps).map(1))
            vector = getattr(dp.m, kind)(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=1 / eps)
            return lambda count, size, _rng: list(vector([count] * size))
        if kind == "make_randomized_response_bool":
            if n != 1:
                raise InputError(f"opendp:make_randomized_response_bool answers one bit: --n {n}", hint="use --n 1")
            prob = math.exp(eps) / (1 + math.exp(eps))
            meas = dp.m.make_randomized_response_bool(prob=prob)
            config.update(prob=prob, map_epsilon=meas.map(1))
            return _per_call(lambda count, _rng: int(meas(bool(count))))
        prob = math.exp(eps) / (math.exp(eps) + n)
        meas = dp.m.make_randomized_response(categories=list(range(n + 1)), prob=prob)
        config.update(prob=prob, map_epsilon=meas.map(1))
        return _per_call(lambda count, _rng: meas(count))

    return adapter


def _pydp(n: int, epsilon: Fraction, _delta: Fraction | None, _config: dict[str, Any]) -> Draw:
    """PyDP's LaplaceMechanism on an integer input (it returns an integer: discretised noise).
    PyDP 1.1.5 has no GeometricTruncated."""
    mechanisms = _library("pydp.algorithms.numerical_mechanisms")
    mech = mechanisms.LaplaceMechanism(float(epsilon), 1.0)
    return _per_call(lambda count, _rng: mech.add_noise(count))


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


ADAPTERS: dict[str, Adapter] = {
    "mechlib:truncated_geometric": _mechlib_t,
    "diffprivlib:GeometricTruncated": _diffprivlib("GeometricTruncated"),
    "diffprivlib:GeometricFolded": _diffprivlib("GeometricFolded"),
    "diffprivlib:Exponential": _diffprivlib("Exponential"),
    "opendp:make_geometric": _opendp("make_geometric"),
    "opendp:make_laplace": _opendp("make_laplace"),
    "opendp:make_randomized_response": _opendp("make_randomized_response"),
    "opendp:make_randomized_response_bool": _opendp("make_randomized_response_bool"),
    "pydp:LaplaceMechanism": _pydp,
    # (ε, δ) mechanisms: need the claim's δ
    "pydp:GaussianMechanism": _pydp_gaussian,
    "opendp:make_gaussian": _opendp_gaussian,
}
LIBRARIES = ("mechlib", "diffprivlib", "opendp", "pydp")
#: Adapters whose library draws from its own RNG: ``--seed`` does not make their runs reproducible.
UNSEEDED = tuple(spec for spec in ADAPTERS if spec.split(":")[0] in ("opendp", "pydp"))


def sampler(spec: str, n: int, epsilon: Fraction, delta: Fraction | None = None) -> Sampler:
    """The sampler named by ``spec`` (an adapter configured at ``epsilon`` — the library's ε — and,
    for an (ε, δ) mechanism, the claim's ``delta``; or ``module:function``)."""
    if spec in ADAPTERS:
        config: dict[str, Any] = {"epsilon": format_fraction(epsilon)}
        draw = ADAPTERS[spec](n, epsilon, delta, config)
        return Sampler(spec, draw, spec.split(":")[0], config)
    library = spec.split(":")[0]
    if library in LIBRARIES:
        raise InputError(f"unknown adapter {spec!r}", hint=f"known adapters: {', '.join(ADAPTERS)}")
    if not spec.partition(":")[2]:
        raise InputError(
            f"sampler {spec!r}", hint="expected module:function or an adapter such as " + next(iter(ADAPTERS))
        )
    _, func = import_callable(spec)
    return Sampler(spec, _per_call(func), "python")
