"""White-box audit of one mechanism, every finding exact.

At the mechanism's exact DP level α: its witness and the claimed level; derivability from T
(GS Theorem 2, the exact remap or the violating entry); the dominance certificate (CLAIMS.md
note 1); and, for standard users, its loss with the optimal remap beside the certified optimum
(GRS LP (3)–(7)) — or, where the optimum's numbers at α are too long to write, an exact bracket on
it from short α_lo ≤ α ≤ α_hi (``bracketed_users``). A check that cannot be certified is UNKNOWN,
never a pass.
"""

from __future__ import annotations

import json
import math
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from mechlib import __version__
from mechlib.audit.approximate_dp import approximate_section, tightest_alpha
from mechlib.audit.approximate_dp import findings as approximate_lines
from mechlib.audit.loading import LoadedMechanism
from mechlib.core import exact
from mechlib.core.exact import format_fraction
from mechlib.core.mechanism import Mechanism
from mechlib.core.post_processing import expected_loss, optimal_remap
from mechlib.core.privacy import DPLevel, alpha_at_least_exp_minus, dp_level, epsilon_interval
from mechlib.core.users import BayesUser, Prior
from mechlib.errors import InputError
from mechlib.optimality import standard_users
from mechlib.optimality.derivability import TBasis, derivation_witness
from mechlib.optimality.dominance import (
    ROUNDINGS,
    T_ITSELF_MAX_BITS,
    dominance_certificate,
    dominating_t,
    t_itself_bits,
)
from mechlib.optimality.optimal import CertificationError, OptimumOfT, optimal_bayes_mechanism, optimum_of_t
from mechlib.optimality.standard_users import STANDARD_LOSSES, StandardUser
from mechlib.provenance import package_versions

#: /3: integer rows; /4: approximate_dp, claimed δ; /5: named losses; /6: M as T·Y; /7: a finding is
#: "not applicable" or, when a limit stopped it, "skipped" with what would decide it — and every skipped
#: or UNKNOWN finding is in ``unknown`` (an audit with one exits 3, undecided); /8: dominance by T at a
#: short α′ ≥ α (``{"t_at": α′}``) and a user's optimum bracketed by the exact optima at short
#: α_lo ≤ α ≤ α_hi where the one at α is too long to write (``bracketed_users``)
SCHEMA = "mechlib.audit/8"

#: The LP-based findings (dominance of a mechanism that is not derivable, a user whose dual from T does
#: not check) run up to this n by default (``MECHLIB_LP_MAX_N`` raises it); larger is "skipped".
LP_MAX_N = 150
LP_MAX_N_ENV = "MECHLIB_LP_MAX_N"
#: The most ``MECHLIB_LP_MAX_N`` may ask for (the checker re-checks an LP certificate up to this n).
LP_MAX_N_CAP = 1000
#: The standard users' certified optima (T then its optimal remap, with a dual built from T: no
#: LP; O(n²) integer work each, ``optimality.standard_users``) run up to this n.
USERS_MAX_N = 5000
#: A user given by a loss matrix (--prior/--loss) costs O(n³) (every guess of every output): up to this n.
MATRIX_USERS_MAX_N = 400


@dataclass(frozen=True)
class AuditContext:
    """What every analysis of one audit shares, each computed once: the mechanism, its exact DP
    level (α, a ``Fraction``), and T with its closed-form inverse at that α (``basis``; None
    when α ∉ [0, 1) or the mechanism is not a count query on 0..n, n ≥ 1)."""

    mechanism: Mechanism
    level: DPLevel
    basis: TBasis | None = field(init=False)

    def __post_init__(self) -> None:
        basis = TBasis(self.alpha, self.mechanism.n) if self.count_query and self.alpha < 1 else None
        object.__setattr__(self, "basis", basis)

    @classmethod
    def of(cls, mechanism: Mechanism) -> AuditContext:
        return cls(mechanism, dp_level(mechanism))

    @property
    def alpha(self) -> Fraction:
        return self.level.alpha

    @property
    def count_query(self) -> bool:
        return self.mechanism.is_count_query() and self.mechanism.n >= 1


def audit(
    loaded: LoadedMechanism,
    users: Sequence[tuple[str, str, BayesUser]] = (),
    *,
    delta: Fraction | None = None,
    renyi: tuple[Fraction, Fraction] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The audit report — also its certificate — as a JSON-ready dict; ``report["verdict"]`` is
    PASS, FAIL or NONE (no claimed level to check). ``users``: extra (prior name, loss name,
    user) beside the standard ones (uniform prior; absolute, squared, binary loss). ``delta``:
    also the exact privacy profile and the tightest ε at that δ; ``renyi``: also the tightest
    zCDP ρ over that range of Rényi orders (both also run for a claimed (ε, δ)). ``progress``
    is told each step as it starts."""
    say = progress or _silent
    mech = loaded.mechanism
    if users and mech.n > MATRIX_USERS_MAX_N:
        raise InputError(
            f"a user with a loss matrix is certified up to n = {MATRIX_USERS_MAX_N} (every guess of every "
            f"output: O(n³)); this mechanism has n = {mech.n}",
            hint=f"drop --prior/--loss (the absolute, squared and binary users run up to n = {USERS_MAX_N})",
        )
    if delta is not None or renyi is not None or loaded.claimed_delta is not None:
        say("the approximate-DP section")
    approximate, profile = approximate_section(
        mech, delta=delta, renyi=renyi, claimed_delta=loaded.claimed_delta, progress=say
    )
    say(f"the exact DP level ({mech.shape[0]} × {mech.shape[1]})")
    context = AuditContext.of(mech)
    level = context.level
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "tool": tool_versions(),
        "source": {"path": loaded.path, "format": loaded.format, "sha256": loaded.sha256, "name": loaded.name},
        "rows_normalized": loaded.rows_normalized,
        "n": mech.n,
        "inputs": list(mech.inputs),
        "outputs": list(mech.outputs),
        "count_query": mech.is_count_query(),
        "mechanism": {
            "inputs": list(mech.inputs),
            "outputs": list(mech.outputs),
            "neighbours": [list(p) for p in mech.neighbours],
            "matrix": None,  # after the findings: T·Y when M has a sparse derivation Y (matrix_form)
        },
        "dp_level": format_fraction(level.alpha),
        # exact bounds on ε = ln(1/α), rounded outward to 15 decimals; null when α = 0 (ε = ∞)
        "epsilon_interval": epsilon_interval(level.alpha),
        "witness": None if level.witness is None else level.witness.to_json(),
        "claimed": None,
        "verdict": "NONE",
    }
    claim = {"alpha": loaded.claimed_alpha, "epsilon": loaded.claimed_epsilon, "delta": loaded.claimed_delta}
    stated = {key: value for key, value in claim.items() if value is not None}
    if "alpha" in stated or "epsilon" in stated:
        # the mechanism's α for this claim: its DP level, or for (ε, δ) the tightest α at δ (exact profile)
        achieved = (
            level.alpha if profile is None or "delta" not in stated else tightest_alpha(profile, stated["delta"])[0]
        )
        ok = achieved >= stated["alpha"] if "alpha" in stated else alpha_at_least_exp_minus(achieved, stated["epsilon"])
        report["claimed"] = {key: format_fraction(value) for key, value in stated.items()} | {"holds": ok}
        report["verdict"] = "PASS" if ok else "FAIL"
    report["approximate_dp"] = approximate
    report.update(theory_findings(context, users, say))
    report["mechanism"]["matrix"] = matrix_form(mech, report["derivation"])
    report["unknown"] = [k for k in FINDINGS if report[k]["status"] in UNDECIDED]
    return report


#: M is written as T·Y when its derivation Y has at most this many nonzero entries a row on average.
PRODUCT_NONZEROS_PER_ROW = 4


def matrix_form(mech: Mechanism, derivation: dict[str, Any]) -> dict[str, Any]:
    """M's form in the certificate: ``{"t_alpha": α, "remap": Y}`` — M = T(α)·Y exactly (GS Thm 2)
    — when the derivation found a Y with at most ``PRODUCT_NONZEROS_PER_ROW`` nonzero entries a
    row on average (the identity, clamps, banded remaps): the checker rebuilds T from α, so the
    certificate holds O(n) numbers instead of (n + 1)² numerators of up to n·log₂(1/α) bits.
    Otherwise M's integer rows."""
    remap = derivation.get("remap")
    if derivation["status"] == "derivable" and isinstance(remap, dict):
        rows = remap["columns"] if "columns" in remap else [[v for v in row if v != "0"] for row in remap["numerators"]]
        if sum(map(len, rows)) <= PRODUCT_NONZEROS_PER_ROW * len(rows):
            return {"t_alpha": derivation["alpha"], "remap": remap}
    return mech.to_integer_rows()


class CertificateText:
    """The report as JSON, produced piece by piece each time it is iterated (to a file, to stdout),
    never held whole: its structure indented, each matrix (integer rows) compact with one row a line
    — written by the json module's C encoder (``indent`` alone makes every one of a million entries
    a line, through the pure-Python encoder). A dense matrix at n = 1000 is ~100 MB of text (T
    itself is written as T·Y, ``matrix_form``)."""

    def __init__(self, report: dict[str, Any]) -> None:
        token = f"@@matrix-{uuid.uuid4().hex}-"
        self._matrices: list[dict[str, Any]] = []

        def pull(node: Any) -> Any:
            if isinstance(node, dict):
                if set(node) in ({"denominators", "numerators"}, {"denominators", "numerators", "columns"}):
                    self._matrices.append(node)
                    return f"{token}{len(self._matrices) - 1}"
                return {key: pull(value) for key, value in node.items()}
            if isinstance(node, list):
                return [pull(value) for value in node]
            return node

        self._parts = json.dumps(pull(report), indent=2, ensure_ascii=False).split(f'"{token}')

    def __iter__(self) -> Iterator[str]:
        yield self._parts[0]
        for part in self._parts[1:]:
            index, rest = part.split('"', 1)
            form = self._matrices[int(index)]
            yield f'{{"denominators": {json.dumps(form["denominators"])}, "numerators": [\n'
            rows = form["numerators"]
            for k, row in enumerate(rows):
                yield _hex_list(row) + (",\n" if k + 1 < len(rows) else "]")
            if "columns" in form:
                yield ', "columns": [\n' + ",\n".join(json.dumps(row) for row in form["columns"]) + "]"
            yield "}"
            yield rest
        yield "\n"

    def __str__(self) -> str:
        return "".join(self)


def certificate_text(report: dict[str, Any]) -> str:
    """The report as one JSON text (``CertificateText``, joined)."""
    return str(CertificateText(report))


def _hex_list(row: list[str]) -> str:
    """``json.dumps(row)`` for a list of hexadecimal digit strings (nothing to escape), 6× faster."""
    return '["' + '", "'.join(row) + '"]' if row else "[]"


def tool_versions() -> dict[str, str]:
    """The versions a certificate was produced with (mechlib, Python, the exact/LP libraries)."""
    return {
        "name": "mechlib",
        "version": __version__,
        **package_versions("python-flint", "scipy", "numpy", "z3-solver"),
    }


def lp_max_n() -> int:
    """The size the LP findings run to: ``LP_MAX_N``, or more when ``MECHLIB_LP_MAX_N`` says so."""
    text = os.environ.get(LP_MAX_N_ENV, "")
    if not text:
        return LP_MAX_N
    if not (text.isascii() and text.isdigit()) or int(text) > LP_MAX_N_CAP:
        raise InputError(f"{LP_MAX_N_ENV}={text!r}", hint=f"expected a whole number up to {LP_MAX_N_CAP}, or unset it")
    return max(LP_MAX_N, int(text))


def skipped(reason: str, decide: str) -> dict[str, Any]:
    """A finding a limit stopped: undecided (listed in ``unknown``), with what would decide it."""
    return {"status": "skipped", "reason": reason, "decide": decide}


def not_applicable(reason: str) -> dict[str, Any]:
    """A finding that does not exist for this mechanism (nothing to decide)."""
    return {"status": "not applicable", "reason": reason}


#: The findings in a report, in order; those skipped or UNKNOWN are listed in ``unknown``.
FINDINGS = ("derivation", "dominance", "user_losses")
UNDECIDED = ("skipped", "UNKNOWN")


def _attempt(action: Callable[[], dict[str, Any]], *, skip: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one finding: the ``skip`` finding, a result, or UNKNOWN with the reason it failed."""
    if skip is not None:
        return skip
    try:
        return action()
    except _Limit as limit:
        return limit.finding
    except (CertificationError, InputError) as err:
        return {"status": "UNKNOWN", "reason": str(err), "decide": "none known: please report it (the mechanism, "
                "the command and this reason)"}  # fmt: skip


class _Limit(Exception):
    """A finding stopped part-way by a size limit: ``finding`` is its skipped entry."""

    def __init__(self, finding: dict[str, Any]) -> None:
        super().__init__(finding["reason"])
        self.finding = finding


def _silent(_step: str) -> None:
    """No progress report."""


def theory_findings(
    context: AuditContext, extra: Sequence[tuple[str, str, BayesUser]] = (), say: Callable[[str], None] = _silent
) -> dict[str, Any]:
    """Derivability, dominance and user losses at the exact DP level α, sharing one T (``say`` is
    told each step as it starts)."""
    mech, alpha, basis = context.mechanism, context.alpha, context.basis
    count_query = context.count_query
    inside = 0 < alpha < 1
    unfit = (
        "needs a count-query mechanism (inputs 0..n, path neighbours)"
        if not count_query
        else f"needs 0 < α < 1 (α = {format_fraction(alpha)})"
        if not inside
        else None
    )
    lp_max = lp_max_n()
    too_big = (
        skipped(
            f"n = {mech.n} is above {lp_max}, the size the LP findings run to",
            f"set {LP_MAX_N_ENV}={mech.n} to run the LP ((n + 1)² unknowns: minutes to hours past n = {LP_MAX_N})",
        )
        if mech.n > lp_max
        else None
    )
    if too_big is not None and mech.n > LP_MAX_N_CAP:
        too_big["decide"] = f"none yet: the LP findings run up to n = {LP_MAX_N_CAP}"
    fits = unfit is None and mech.n <= USERS_MAX_N and standard_users.numbers_fit(alpha, mech.n)
    # the exact optimum at α too long to write: bracketed by the exact optima at short α_lo ≤ α ≤ α_hi
    ends = [] if unfit or fits or extra or mech.n > USERS_MAX_N else bracket_ends(alpha, mech.n)
    users_skip = (
        not_applicable(unfit)
        if unfit
        else skipped(
            f"n = {mech.n} is above {USERS_MAX_N}, the size the users' optima run to",
            f"none yet: the users' optima are certified up to n = {USERS_MAX_N}",
        )
        if mech.n > USERS_MAX_N
        else skipped(
            f"at α = {_readable(format_fraction(alpha))} and n = {mech.n} the optima's numbers can pass "
            f"{exact.MAX_DIGITS} digits"
            + ("; a user with a loss matrix (--prior/--loss) is not bracketed" if extra else ""),
            f"raise MECHLIB_MAX_DIGITS (to {standard_users.digits_needed(alpha, mech.n)} for this mechanism) for the "
            "audit and for `mechlib check`"
            + (", or drop --prior/--loss (the standard users are then bracketed)" if extra else ""),
        )
        if not fits and not ends
        else None
    )

    derived: list[Any] = []  # the derivation remap, once found: dominance's first candidate

    def derivation() -> dict[str, Any]:
        say("derivability from T (GS Theorem 2)")
        found = derivation_witness(mech, alpha)
        derived.append(found.remap)
        if found.remap is not None:
            return {"status": "derivable", "alpha": format_fraction(alpha), "remap": found.remap.to_integer_rows()}
        assert found.violation is not None
        violation = found.violation.to_json()
        assert basis is not None
        violation["inverse_row"] = [format_fraction(v) for v in basis.inverse[found.violation.row]]
        return {"status": "not derivable", "alpha": format_fraction(alpha), "violation": violation}

    def dominance() -> dict[str, Any]:
        say("dominance by a remap of T")
        derivation = derived[0] if derived else None
        if derivation is not None and list(mech.outputs) == list(range(len(mech.outputs))):
            # Y∘T = M exactly (GS Thm 2, closed-form T⁻¹): the tails are equal, no LP and no
            # product needed at any n; the certificate points at the derivation's remap
            return {"status": "certified", "alpha": format_fraction(alpha), "remap": "derivation"}
        if too_big is not None:
            at = dominating_t(mech, alpha)  # T itself or at a short α′ ≥ α, at any n (O(n²) integers)
            if at is None:
                bits = t_itself_bits(mech, alpha)
                tried = (
                    "T itself has heavier error tails somewhere"
                    if bits <= T_ITSELF_MAX_BITS
                    else f"T at α rounded up to k/2^{min(ROUNDINGS)} … k/2^{max(ROUNDINGS)} (remaps of T) has heavier "
                    f"error tails or numbers past {T_ITSELF_MAX_BITS:,} bits, and T itself was not tried (its numbers "
                    f"and M's have {bits:,} bits)"
                )
                return too_big | {"reason": f"{too_big['reason']}; {tried}"}
            return {"status": "certified", "alpha": format_fraction(alpha), "remap": {"t_at": format_fraction(at)}}
        found = dominance_certificate(mech, alpha, level=alpha, basis=basis)
        return {"status": "certified", "alpha": format_fraction(alpha), "remap": found.remap.to_integer_rows()}

    def user_losses() -> dict[str, Any]:
        n = mech.n
        if ends:
            return {"status": "certified", "alpha": format_fraction(alpha), "users": bracketed_users(mech, ends, say)}
        assert basis is not None
        t = basis.t
        rows = []
        # M = T exactly iff its derivation is the identity (Y = T⁻¹M: O(n²) look-ups, not a comparison
        # of 10⁶ entries cross-multiplied when M's rows have other denominators than T's)
        derivation = derived[0] if derived else None
        is_t = derivation is not None and mech.outputs == t.outputs and derivation.is_identity()
        geometric = standard_users.GeometricColumns.of(alpha, n)  # T's columns in closed form
        for kind in STANDARD_LOSSES:  # O(n) guesses per output, integer duals (standard_users)
            say(f"the certified optimum of the user with a uniform prior and the {kind} loss")
            user = StandardUser(kind, Prior.uniform(n))
            if is_t:  # M's probabilities are T's: its remap from T's closed-form columns
                remap = standard_users.optimal_remap_of_t(geometric, user, mech.outputs)
            else:
                remap = standard_users.optimal_remap(mech, user)
            of_t = standard_users.optimum_of_t(user, alpha, t, basis.inverse, remap if is_t else None, geometric)
            if of_t is not None:  # M = T: its loss with this remap is the optimum's value, computed there
                mine = of_t.value if is_t else standard_users.remapped_loss(mech, user, remap)
                rows.append(_row("uniform", kind, user.prior, kind, mine, remap, of_t.value, of_t.dual, of_t.remap, {}))
                continue
            rows.append(_user_row("uniform", kind, user.as_bayes_user(), remap, t, is_t, kind))  # the LP, up to lp_max
        for prior_name, loss_name, extra_user in extra:
            say(f"the certified optimum of the user {prior_name}/{loss_name}")
            if extra_user.n != n:
                raise InputError(f"the user {prior_name}/{loss_name} is on 0..{extra_user.n}", hint=f"expected 0..{n}")
            rows.append(_user_row(prior_name, loss_name, extra_user, optimal_remap(mech, extra_user), t, is_t, None))
        return {"status": "certified", "alpha": format_fraction(alpha), "users": rows}

    def _user_row(
        prior_name: str, loss_name: str, user: BayesUser, remap: Any, t: Any, is_t: bool, named: str | None
    ) -> dict[str, Any]:
        """A user's row by the general code: T's dual (no LP), else the LP up to ``lp_max`` (a skip above)."""
        mine = expected_loss(mech, user, remap)
        # GRS Thm 3.1: T then its optimal remap, with a dual built from T's columns (no LP);
        # the LP (with its own optimal mechanism) only if that dual does not check
        of_t = optimum_of_t(user, alpha, t, basis.inverse, remap if is_t else None)  # type: ignore[union-attr]
        if of_t is not None:
            value, dual, t_remap, primal = of_t.value, of_t.dual, of_t.remap, {}
        elif too_big is not None:
            raise _Limit(too_big | {"reason": f"{prior_name}/{loss_name}: the dual built from T does not check and "
                                    + too_big["reason"]})  # fmt: skip
        else:
            best = optimal_bayes_mechanism(user, alpha)
            value, dual, t_remap = best.value, best.dual, optimal_remap(t, user)
            primal = {"optimum_mechanism": best.mechanism.to_integer_rows()}
        loss = named if named is not None else [[format_fraction(v) for v in row] for row in user.loss.matrix]
        return _row(prior_name, loss_name, user.prior, loss, mine, remap, value, dual, t_remap, primal)

    skip = (
        None
        if count_query and 0 < alpha < 1
        else not_applicable("the mechanism is not DP for any ε (α = 0): every mechanism is a remap of T at α = 0")
        if count_query and alpha == 0
        else not_applicable(unfit or "needs a count-query mechanism, 0 < α < 1")
    )
    found = _attempt(derivation, skip=skip)
    status = found["status"]
    return {
        "derivable": status == "derivable" if status in ("derivable", "not derivable") else None,
        "derivation": found,
        "dominance": _attempt(dominance, skip=not_applicable(unfit) if unfit else None),  # a derivable M: at any n
        "user_losses": _attempt(user_losses, skip=users_skip),
    }


#: The bracketed users' optima are first tried at α's Farey neighbours whose numbers have at most
#: this many digits (n = 1000: denominators up to 31, ~0.2 s a user); a user whose bracket leaves M's
#: optimality open is redone at the ``MAX_DIGITS`` limit (n = 1000: up to ~9000, ~1 s a user).
BRACKET_FIRST_DIGITS = 1500


def bracket_ends(alpha: Fraction, n: int) -> list[tuple[Fraction, Fraction]]:
    """The pairs α_lo ≤ α ≤ α_hi to bracket the users' optima with, coarse then fine (none: the
    optimum is skipped)."""
    found = [standard_users.bracket_alphas(alpha, n, digits) for digits in (BRACKET_FIRST_DIGITS, None)]
    return [ends for k, ends in enumerate(found) if ends is not None and ends not in found[:k]]


def bracketed_users(
    mech: Mechanism, tries: Sequence[tuple[Fraction, Fraction]], say: Callable[[str], None] = _silent
) -> list[dict[str, Any]]:
    """The standard users' rows when the exact optimum at M's level α is too long to write: the
    optimum L*(α) bracketed by short α_lo ≤ α ≤ α_hi (α′-DP ⊆ α-DP for α ≤ α′, so L*(α_lo) ≤ L*(α) ≤
    L*(α_hi)): below by the certified optimum at α_lo (T's dual, GRS Thm 3.1), above by the loss of
    T at α_hi with its optimal remap (an α_hi-DP, so α-DP, mechanism). M's loss with its optimal
    remap is enclosed on rigorous intervals (``enclosed_optimal_remap``). ``tries``: the pairs of
    ``bracket_ends``, each next one used for a user whose bracket leaves M's optimality open."""
    n = mech.n
    weights = standard_users.weight_enclosure(mech, Prior.uniform(n))
    bases: dict[Fraction, tuple[TBasis, standard_users.GeometricColumns]] = {}

    def basis(end: Fraction) -> tuple[TBasis, standard_users.GeometricColumns]:
        if end not in bases:
            bases[end] = (TBasis(end, n), standard_users.GeometricColumns.of(end, n))
        return bases[end]

    def certified(user: StandardUser, end: Fraction) -> OptimumOfT:
        t_end, geometric = basis(end)
        found = standard_users.optimum_of_t(user, end, t_end.t, t_end.inverse, None, geometric)
        if found is None:
            raise CertificationError(
                f"the {user.kind} user's dual built from T at α = {format_fraction(end)} does not check"
            )
        return found

    rows = []
    for kind in STANDARD_LOSSES:
        say(f"the bracketed optimum of the user with a uniform prior and the {kind} loss")
        user = StandardUser(kind, Prior.uniform(n))
        mine = standard_users.enclosed_optimal_remap(mech, user, weights)
        for low_alpha, high_alpha in tries:
            low = certified(user, low_alpha)
            high_remap, high = standard_users.t_with_optimal_remap(user, high_alpha, basis(high_alpha)[1])
            if mine.lower > high:  # M is shown not optimal: no finer bracket needed
                break
        rows.append({
            "prior_name": "uniform",
            "loss_name": kind,
            "prior": [format_fraction(p) for p in user.prior.probabilities],
            "loss": kind,
            "mechanism": {"lower": format_fraction(mine.lower), "upper": format_fraction(mine.upper)},
            "optimal_remap": _remap_text(mine.remap),
            "optimum": {
                "lower": {"alpha": format_fraction(low_alpha), "value": format_fraction(low.value),
                          "dual": [format_fraction(u) for u in low.dual], "t_optimal_remap": _remap_text(low.remap)},
                "upper": {"alpha": format_fraction(high_alpha), "value": format_fraction(high),
                          "t_optimal_remap": _remap_text(high_remap)},
            },
            # M's loss minus the optimum (≥ 0: M is α-DP) and M's loss over the optimum, bracketed
            "excess": {"lower": format_fraction(max(mine.lower - high, Fraction(0))),
                       "upper": format_fraction(mine.upper - low.value)},
            "ratio": None if low.value == 0 else {"lower": format_fraction(mine.lower / high),
                                                  "upper": format_fraction(mine.upper / low.value)},
        })  # fmt: skip
    return rows


def _remap_text(remap: Any) -> dict[str, Any]:
    return {str(r): g for r, g in remap.as_mapping().items()}


def _row(
    prior_name: str, loss_name: str, prior: Prior, loss: Any, mine: Fraction, remap: Any, value: Fraction,
    dual: Sequence[Fraction], t_remap: Any, primal: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """One user's certificate row; ``loss`` is a standard loss's name or the matrix as exact text."""
    return {
        "prior_name": prior_name,
        "loss_name": loss_name,
        "prior": [format_fraction(p) for p in prior.probabilities],
        "loss": loss,
        "mechanism": format_fraction(mine),
        "optimal_remap": {str(r): g for r, g in remap.as_mapping().items()},
        "optimum": format_fraction(value),
        "ratio": format_fraction(mine / value) if value else None,
        **primal,
        "dual": [format_fraction(u) for u in dual],
        "t_optimal_remap": {str(r): g for r, g in t_remap.as_mapping().items()},
    }


def render_text(report: dict[str, Any]) -> str:
    """A short human-readable account of an audit report."""
    outs, src = report["outputs"], report["source"]
    lines = [
        f"mechanism  {src['path']} ({src['format']}, sha256 {src['sha256'][:12]}…)",
        f"shape      {len(report['inputs'])} inputs × {len(outs)} outputs ({outs[0]}..{outs[-1]})"
        + ("" if report["count_query"] else ", custom inputs/neighbours"),
    ]
    if report["rows_normalized"]:
        lines.append("note       rows were normalised to sum to 1 (--normalize-rows)")
    eps = report["epsilon_interval"]
    if eps is None:
        lines.append(
            f"privacy    not DP for any ε (α = {report['dp_level']}: some output has probability 0 for one input only)"
        )
    else:
        lines.append(f"privacy    ε = ln(1/α) ∈ [{eps[0]}, {eps[1]}]  (α = e^−ε = {_readable(report['dp_level'])})")
    w = report["witness"]
    if w is not None:
        (big, small), (pbig, psmall), r, ratio = w["inputs"], w["probabilities"], w["output"], w["ratio"]
        psmall, ratio, pbig = (_readable(v) for v in (psmall, ratio, pbig))
        lines.append(f"witness    x[{small}][{r}] = {psmall} = {ratio} · x[{big}][{r}] = {ratio} · {pbig}")
    claimed = report["claimed"]
    if claimed is not None:
        what = f"α = {claimed['alpha']}" if "alpha" in claimed else f"ε = {claimed['epsilon']}"
        what += f", δ = {claimed['delta']}" if "delta" in claimed else ""
        lines.append(f"claimed    {what}: {report['verdict']}")
    lines += [f"{name:<10} {text}" for name, text in approximate_lines(report["approximate_dp"])]
    d = report["derivation"]
    if d["status"] == "not derivable":
        v = d["violation"]
        lines.append(
            f"derivable  no: row {v['row']} of T⁻¹M is {_readable(v['entry'])} at output {v['output']} "
            f"({v['condition']} = {_readable(v['value'])}, GS Thm 2)"
        )
    else:
        shown = "yes: M = Y∘T, Y in the JSON report" if d["status"] == "derivable" else undecided_text(d)
        lines.append(f"derivable  {shown}")
    dom = report["dominance"]
    shown = "certified: a remap of T at least as good for every legal user"
    lines.append(f"dominance  {shown if dom['status'] == 'certified' else undecided_text(dom)}")
    losses = report["user_losses"]
    if losses["status"] == "certified":
        for row in losses["users"]:
            words = user_in_words(row)
            lines.append(f"user       {row['prior_name']} prior, {row['loss_name']} loss: {words['mechanism']} "
                         f"(optimum over all ε-DP mechanisms {words['optimum']}){words['verdict']}")  # fmt: skip
    else:
        lines.append(f"users      {undecided_text(losses)}")
    if report["unknown"]:
        code = "" if report["verdict"] == "FAIL" else " (exit 3)"  # a failed claim exits 1
        lines.append(f"undecided  {', '.join(report['unknown'])}: the audit is incomplete{code}")
    lines.append("terms      mechlib explain [T | derivable | dominance | legal user | …]")
    return "\n".join(lines)


def user_in_words(row: dict[str, Any]) -> dict[str, str]:
    """A user row's ``mechanism`` (M's loss), ``optimum`` and ``verdict`` as printed (the verdict
    empty for an exact optimum, whose ratio says it all). A bracketed row (the optimum at α too long
    to write) also its ``ratio``: what is shown is a bracket, not the exact optimum — M's loss
    enclosed, the optimum between the certified optimum at α_lo and T's loss at α_hi, and M optimal
    or not by how much."""
    if not isinstance(row["optimum"], dict):
        return {"mechanism": _readable(row["mechanism"]), "optimum": _readable(row["optimum"]), "verdict": ""}
    low, high = row["optimum"]["lower"], row["optimum"]["upper"]
    excess = row["excess"]
    verdict = (
        f"M is not optimal for this user: its loss is at least {_decimal(excess['lower'], 'floor')} above the optimum"
        if Fraction(excess["lower"]) > 0
        else f"M's loss is within {_decimal(excess['upper'], 'ceiling')} of the optimum (not shown optimal or not)"
    )
    mine = row["mechanism"]
    return {
        "mechanism": f"in [{_decimal(mine['lower'], 'floor')}, {_decimal(mine['upper'], 'ceiling')}]",
        "optimum": f"in [{_decimal(low['value'], 'floor')}, {_decimal(high['value'], 'ceiling')}] — a bracket, not the "
        f"exact optimum: the certified optimum at α_lo = {_readable(low['alpha'])} ≤ α below, T's loss at "
        f"α_hi = {_readable(high['alpha'])} ≥ α above",
        "verdict": f"; {verdict}",
        "ratio": "unbounded (the optimum's lower end is 0)" if row["ratio"] is None else
        f"in [{_decimal(row['ratio']['lower'], 'floor')}, {_decimal(row['ratio']['upper'], 'ceiling')}]",
    }  # fmt: skip


def _decimal(exact: str, rounding: str) -> str:
    """An exact value as 7 significant digits rounded the given way ("floor" or "ceiling"), so a
    printed bracket still contains what the certificate's exact bracket does."""
    value = Fraction(exact)
    if value == 0:
        return "0"
    rounded = standard_users.significant_digits(value, 7, up=rounding == "ceiling")
    places = max(6 - math.floor(math.log10(abs(value))), 0)
    whole = rounded * 10**places  # an integer: rounded is k/10^m with m ≤ places
    digits = str(abs(whole.numerator)).rjust(places + 1, "0")
    sign = "-" if whole < 0 else ""
    return f"{sign}{digits[: len(digits) - places]}.{digits[len(digits) - places :]}" if places else f"{sign}{digits}"


def undecided_text(finding: dict[str, Any]) -> str:
    """A finding not certified, in words: its status in capitals when undecided, why, and what would decide it."""
    status = finding["status"]
    shown = status.upper() if status in UNDECIDED else status
    decide = f"; to decide it: {finding['decide']}" if "decide" in finding else ""
    return f"{shown} ({finding.get('reason', '')}{decide})"


def _readable(exact: str) -> str:
    """An exact value as printed: itself when short, with a decimal beside it when longer, and the
    decimal alone (exact in the JSON) past 60 characters (a loss at n = 1000 has 600 digits)."""
    if len(exact) <= 20:
        return exact
    try:
        approx = f"≈ {float(Fraction(exact)):.6g}"
    except (OverflowError, ValueError, ZeroDivisionError):
        return exact
    return f"{exact} ({approx})" if len(exact) <= 60 else f"{approx} (exact in the JSON)"
