"""Proof obligations derived from one symbolic definition of each object, for every n.

An ALL-n part states a property of matrices whose entries are *power terms*: piecewise sums of
monomials c(α, β)·α^e·β^f, where the pieces' conditions and the exponents e, f are linear integer
terms in the indices (n, i, r, …). Each object — T (GRS Example 2.2), the geometric mechanism
(GRS Example 2.1), G′ (GS Lemma 1), T⁻¹ (GS Theorem 2), T_α⁻¹·T_β (GS Lemma 3) — is written
once with the combinators below (:func:`where`, :func:`power_of_distance`, :func:`add`,
:func:`mul`), evaluated exactly at concrete indices to agree with the library's matrices, and
every obligation is derived from it:

1. **The case split** is the product of the pieces of every term in the property, cut by the
   caller's regions (e.g. j ≤ m−2 and j = m−1). Combinations one solver finds empty are
   dropped and counted as unreachable; then **the split itself is an obligation**, region by
   region: the domain and the region imply the disjunction of that region's kept cases (UNSAT of
   its negation over the integers, z3 and cvc5) — a dropped or weakened case fails here, even
   where regions overlap. A definition is single-valued by construction (each branch point splits
   on c and ¬c).
2. **Patterns.** In each case every exponent is a linear term; the differences between the
   exponents of one base are shown constant in the case (LIA, both solvers), so the term is
   P·(a polynomial in α, β) with P = α^e₀ > 0 the smallest power — or α^c exactly when e₀ is
   itself constant in the case. Nothing is transcribed: the constants are read off a model of
   the case and then proved.
3. **The goal** at each case is a real-arithmetic fact about the pattern (NRA, both solvers).

:class:`Induction` has a base and a step that are both mandatory; it refuses to run without
either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from mechlib.proofs.registry import Outcome, Verdict
from mechlib.proofs.smt import run, smt_query

#: The bases of the powers, each a real in (0, 1).
ALPHA = z3.Real("alpha")
BETA = z3.Real("beta")
BASES = {"alpha": ALPHA, "beta": BETA}


@dataclass(frozen=True)
class Monomial:
    """coefficient · Π base^exponent; the coefficient is a real term in the bases only, each
    exponent a linear integer term in the indices."""

    coefficient: Any
    powers: tuple[tuple[str, Any], ...] = ()


class Term:
    """A power term: :class:`Const`, :class:`Power`, :class:`Where`, :class:`Sum`, :class:`Product`."""


@dataclass(frozen=True)
class Const(Term):
    value: Any


@dataclass(frozen=True)
class Power(Term):
    base: str
    exponent: Any


@dataclass(frozen=True)
class Where(Term):
    """``then`` where ``condition`` holds, else ``otherwise``: the two branches are disjoint and
    cover everything by construction (c and ¬c)."""

    condition: Any
    then: Term
    otherwise: Term


@dataclass(frozen=True)
class Sum(Term):
    terms: tuple[Term, ...]


@dataclass(frozen=True)
class Product(Term):
    terms: tuple[Term, ...]


def constant(value: Any) -> Term:
    return Const(z3.RealVal(value) if isinstance(value, int) else value)


ZERO: Term = Sum(())


def power_of_distance(base: str, x: Any) -> Term:
    """base^|x| for an integer term x: split at x ≥ 0."""
    return Where(x >= 0, Power(base, x), Power(base, -x))


def where(condition: Any, then: Term, otherwise: Term) -> Term:
    return Where(condition, then, otherwise)


def mul(*terms: Term) -> Term:
    return Product(terms)


def add(*terms: Term) -> Term:
    return Sum(terms)


def scale(coefficient: Any, term: Term) -> Term:
    return Product((constant(coefficient), term))


# -- exact evaluation at concrete indices (the definitions agree with the library's matrices) ------


def evaluate(term: Term, indices: Mapping[Any, int], bases: Mapping[str, Fraction]) -> Fraction:
    """The term's exact value at integer ``indices`` (z3 Int → value) and rational ``bases``."""
    ints = [(v, z3.IntVal(x)) for v, x in indices.items()]
    reals = [(BASES[name], z3.RealVal(str(x))) for name, x in bases.items()]

    def value(t: Term) -> Fraction:
        if isinstance(t, Const):
            return _rational(z3.simplify(z3.substitute(t.value, *reals)))
        if isinstance(t, Power):
            exponent: int = z3.simplify(z3.substitute(t.exponent, *ints)).as_long()
            return Fraction(bases[t.base]) ** exponent
        if isinstance(t, Where):
            holds = z3.simplify(z3.substitute(t.condition, *ints))
            if not (z3.is_true(holds) or z3.is_false(holds)):
                raise ValueError(f"condition {t.condition} is not decided by the indices")
            return value(t.then if z3.is_true(holds) else t.otherwise)
        if isinstance(t, Sum):
            return sum((value(u) for u in t.terms), Fraction(0))
        if isinstance(t, Product):
            result = Fraction(1)
            for u in t.terms:
                result *= value(u)
            return result
        raise TypeError(f"not a power term: {t!r}")

    return value(term)


def to_z3(expression: Any) -> Any:
    """A sympy rational function of the symbols ``alpha``, ``beta`` as a z3 real term (numerator
    and denominator expanded as polynomials with exact rational coefficients)."""
    import sympy as sp

    numerator, denominator = sp.fraction(sp.together(sp.sympify(expression)))

    def polynomial(p: Any) -> Any:
        symbols = sorted(p.free_symbols, key=str)
        unknown = [x for x in symbols if str(x) not in BASES]
        if unknown:
            raise ValueError(f"{expression} has symbols other than α, β: {unknown}")
        poly = sp.Poly(sp.expand(p), *symbols) if symbols else None
        if poly is None:
            return z3.RealVal(str(sp.Rational(p)))
        terms = []
        for powers, coefficient in poly.terms():
            term = z3.RealVal(str(sp.Rational(coefficient)))
            for x, k in zip(symbols, powers):
                term = term * _pow(BASES[str(x)], int(k))
            terms.append(term)
        return z3.Sum(terms) if terms else z3.RealVal(0)

    top, bottom = polynomial(numerator), polynomial(denominator)
    return top if z3.is_rational_value(bottom) and bottom.as_fraction() == 1 else top / bottom


def _rational(value: Any) -> Fraction:
    fraction = value.as_fraction()
    return Fraction(fraction.numerator, fraction.denominator)


Polynomial = tuple[Monomial, ...]


def _pieces(term: Term, probe: z3.Solver, skipped: list[int]) -> Iterator[tuple[list[Any], Polynomial]]:
    """The term's pieces (conditions, polynomial) consistent with what ``probe`` holds: a
    depth-first walk that adds each branch's condition and skips (counts in ``skipped``) the
    branches the probe finds empty. Each piece is yielded while its conditions are on the probe
    (stack discipline)."""
    if isinstance(term, Const):
        yield [], (Monomial(term.value),)
    elif isinstance(term, Power):
        yield [], (Monomial(z3.RealVal(1), ((term.base, term.exponent),)),)
    elif isinstance(term, Where):
        for branch, condition in ((term.then, term.condition), (term.otherwise, z3.Not(term.condition))):
            probe.push()
            probe.add(condition)
            if probe.check() == z3.unsat:
                skipped[0] += 1
            else:
                for conditions, polynomial in _pieces(branch, probe, skipped):
                    yield [condition, *conditions], polynomial
            probe.pop()
    elif isinstance(term, Sum | Product):
        combine = _plus if isinstance(term, Sum) else _times
        yield from _joint(list(term.terms), probe, combine, skipped)
    else:
        raise TypeError(f"not a power term: {term!r}")


def _plus(p: Polynomial, q: Polynomial) -> Polynomial:
    return p + q


def _times(p: Polynomial, q: Polynomial) -> Polynomial:
    return tuple(Monomial(a.coefficient * b.coefficient, a.powers + b.powers) for a in p for b in q)


def _joint(
    terms: list[Term],
    probe: z3.Solver,
    combine: Callable[[Polynomial, Polynomial], Polynomial],
    skipped: list[int],
) -> Iterator[tuple[list[Any], Polynomial]]:
    if not terms:
        yield [], ((Monomial(z3.RealVal(1)),) if combine is _times else ())
        return
    for first_conditions, first in _pieces(terms[0], probe, skipped):
        for rest_conditions, rest in _joint(terms[1:], probe, combine, skipped):
            yield first_conditions + rest_conditions, combine(first, rest)


def _cases(terms: Sequence[Term], probe: z3.Solver, skipped: list[int]) -> Iterator[tuple[list[Any], list[Polynomial]]]:
    """Every reachable combination of the pieces of ``terms`` (jointly, so that conditions of one
    term prune the others)."""
    if not terms:
        yield [], []
        return
    for first_conditions, first in _pieces(terms[0], probe, skipped):
        for rest_conditions, rest in _cases(terms[1:], probe, skipped):
            yield first_conditions + rest_conditions, [first, *rest]


# -- deriving and discharging the obligations -------------------------------------------------------


@dataclass
class Obligations:
    """The discharged obligations of one property: each SMT query by name (z3 + cvc5 evidence),
    the number of cases proved and of piece combinations no index reaches."""

    name: str
    queries: dict[str, tuple[Any, dict[str, Any]]] = field(default_factory=dict)
    cases: int = 0
    unreachable: int = 0  # branches of the definitions' case splits that no index point reaches
    problems: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "cases proved": self.cases,
            "branches no index reaches (reported, not proved)": self.unreachable,
            "queries": len(self.queries),
            "problems": self.problems,
        }


@dataclass(frozen=True)
class Region:
    """A part of the domain and the goal there: ``goal(values)`` a real-arithmetic formula in
    the terms' values at an index point of the region."""

    label: str
    condition: Any
    goal: Callable[[Mapping[str, Any]], Any]


def prove_for_every_index(
    name: str,
    domain: Any,
    terms: Mapping[str, Term],
    regions: Sequence[Region],
    *,
    bases: Mapping[str, Any] | None = None,
) -> Obligations:
    """Derive and discharge: the goal of each region holds at every integer point of ``domain``
    (each base in (0, 1), or as ``bases`` constrains it: name → condition on the z3 real)."""
    found = Obligations(name)
    names = list(terms)
    constraints = bases or {b: z3.And(BASES[b] > 0, BASES[b] < 1) for b in _bases_of(terms.values())}

    def prove(label: str, logic: str, hypotheses: Sequence[Any], negated_goal: Any) -> bool:
        query = smt_query(logic)
        query.add(*hypotheses)
        query.add(negated_goal)
        answer, evidence = run(query)
        found.queries[f"{name}: {label}"] = (answer, evidence)
        if answer != z3.unsat:
            found.problems.append(f"{label}: {answer}")
        return bool(answer == z3.unsat)

    prove("the regions cover the domain", "QF_LIA", [domain], z3.Not(z3.Or([r.condition for r in regions])))
    kept: list[Any] = []
    probe = z3.SolverFor("QF_LIA")  # only prunes: the cover of the kept cases is proved by both solvers
    skipped = [0]
    for region in regions:
        probe.push()
        probe.add(domain, region.condition)
        in_region: list[Any] = []
        for conditions, polynomials in _cases([terms[t] for t in names], probe, skipped):
            if probe.check() != z3.sat:
                skipped[0] += 1
                continue
            model = probe.model()
            condition = z3.And(domain, region.condition, *conditions)
            kept.append(condition)
            in_region.append(condition)
            case = f"{region.label} / case {len(kept)}"
            patterns = _patterns(case, condition, dict(zip(names, polynomials)), model, prove)
            if patterns is None:
                continue
            values, positive = patterns
            hypotheses = [*constraints.values(), *(p > 0 for p in positive)]
            if prove(case, "QF_NRA", hypotheses, z3.Not(region.goal(values))):
                found.cases += 1
        probe.pop()
        covered = CASE_FILTER(in_region)
        prove(f"{region.label}: its cases cover it (the case split is exhaustive)", "QF_LIA",
              [domain, region.condition], z3.Not(z3.Or(covered)))  # fmt: skip
    found.unreachable = skipped[0]
    return found


def _keep_every_case(cases: list[Any]) -> list[Any]:
    return cases


#: The cases whose cover is proved (a mutant drops one: the cover must then fail).
CASE_FILTER: Callable[[list[Any]], list[Any]] = _keep_every_case


def _bases_of(terms: Iterable[Term]) -> set[str]:
    def walk(t: Term) -> Iterator[str]:
        if isinstance(t, Power):
            yield t.base
        elif isinstance(t, Where):
            yield from walk(t.then)
            yield from walk(t.otherwise)
        elif isinstance(t, Sum | Product):
            for u in t.terms:
                yield from walk(u)

    return {b for t in terms for b in walk(t)} | {"alpha"}


def _patterns(
    case: str, condition: Any, polynomials: Mapping[str, Polynomial], model: z3.ModelRef, prove: Callable[..., bool]
) -> tuple[dict[str, Any], list[Any]] | None:
    """Each term's value in the case as a real term: every power base^e becomes base^(e − e₀)·P
    with e − e₀ ≥ 0 a constant (proved) and P = base^e₀ a positive unknown — or base^c when e₀
    is itself a constant c in the case (proved). None when a difference is not constant."""

    def at(e: Any) -> int:
        value: int = model.eval(e, model_completion=True).as_long()
        return value

    exponents: dict[str, list[Any]] = {}
    for polynomial in polynomials.values():
        for m in polynomial:
            for b, e in m.powers:
                exponents.setdefault(b, []).append(e)
    facts, least = [], {}
    for b, es in exponents.items():
        low = min(es, key=at)
        facts += [e - low == at(e) - at(low) for e in es]
        least[b] = low
    if facts and not prove(f"{case}: exponent differences are constant", "QF_LIA", [condition], z3.Not(z3.And(facts))):
        return None
    scale_of, positive = {}, []
    for b, low in least.items():
        fixed = z3.Solver()
        fixed.add(condition, low != at(low))
        label = f"{case}: {b}'s least exponent is {at(low)}"
        if fixed.check() == z3.unsat and prove(label, "QF_LIA", [condition], low != at(low)):
            scale_of[b] = _pow(BASES[b], at(low))
        else:
            scale_of[b] = z3.Real(f"P_{b}")
            positive.append(scale_of[b])
    values: dict[str, Any] = {}
    for term_name, polynomial in polynomials.items():
        total = []
        for m in polynomial:
            value = m.coefficient
            for b, e in m.powers:
                value = value * _pow(BASES[b], at(e) - at(least[b])) * scale_of[b]
            total.append(value)
        values[term_name] = z3.Sum(total) if total else z3.RealVal(0)
    return values, positive


def _pow(base: Any, exponent: int) -> Any:
    if exponent < 0:
        return 1 / _pow(base, -exponent)
    return z3.RealVal(1) if exponent == 0 else base**exponent


def outcome(obligations: Sequence[Obligations], evidence: Mapping[str, Any] | None = None) -> Outcome:
    """PROVED when every obligation is discharged (both solvers, non-vacuous); else UNKNOWN with
    the obligations that fail. Never REFUTED: a SAT answer shows the *proof* does not go through
    (a missed case, or a pattern whose relaxation — P any positive real — fails), which is not by
    itself a counterexample to the claim; the claims' exact parts refute."""
    queries = {k: v for o in obligations for k, v in o.queries.items()}
    doc = {
        **(evidence or {}),
        "obligations": {o.name: o.summary() for o in obligations},
        "queries": {k: ev for k, (_, ev) in queries.items()},
    }
    failing = [k for k, (a, _) in queries.items() if a != z3.unsat]
    if failing or any(o.problems for o in obligations):
        sat = [k for k in failing if queries[k][0] == z3.sat]
        return Outcome(Verdict.UNKNOWN, doc, f"obligations not discharged ({len(sat)} SAT): {failing[:3]}")
    return Outcome(Verdict.PROVED, doc)


@dataclass(frozen=True)
class Induction:
    """A proof by induction on m ≥ ``start``: ``base`` and ``step`` are both mandatory, each a
    function of ``start`` returning its discharged obligations — the base at m = start, the step
    m−1 → m for every m ≥ start + 1 (so no m between them is left out)."""

    statement: str
    start: int
    base: Callable[[int], Obligations]
    step: Callable[[int], Obligations]

    def __post_init__(self) -> None:
        if not callable(self.base) or not callable(self.step):
            raise TypeError(f"induction for {self.statement!r} needs both a base and a step")

    def prove(self) -> list[Obligations]:
        base, step = self.base(self.start), self.step(self.start)
        if not base.queries or not step.queries:
            raise ValueError(f"induction for {self.statement!r}: the base or the step discharged no obligation")
        return [base, step]
