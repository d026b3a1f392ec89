"""The terms mechlib's output uses, each explained once: ``mechlib explain [TERM]`` prints them and
every HTML report ends with the ones its page uses.

Each entry is (term, aliases, explanation); the explanation names the paper it comes from.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from mechlib.errors import exit_codes_text


@dataclass(frozen=True)
class Term:
    name: str
    aliases: tuple[str, ...]
    text: str


TERMS: tuple[Term, ...] = (
    Term("ε and α", ("epsilon", "alpha", "dp", "differential privacy"),
         "A mechanism x[i][r] = P(output r | true count i) is ε-differentially private when "
         "x[i][r] ≤ e^ε · x[i′][r] for neighbouring counts i, i′ and every output r. mechlib also writes "
         "α = e^−ε ∈ [0, 1] (the papers' notation): α = 1 is perfect privacy (ε = 0), α = 0 no guarantee "
         "(ε = ∞, 'not DP for any ε')."),
    Term("DP level", ("level", "witness"),
         "The smallest ε (largest α) for which the mechanism is ε-DP, computed exactly, with its witness: "
         "the neighbouring inputs and the output where the ratio of probabilities is exactly e^ε."),
    Term("T", ("truncated geometric", "geometric mechanism"),
         "The truncated geometric mechanism (GRS Example 2.2): add two-sided geometric noise "
         "P(Z = z) ∝ e^(−ε|z|) to the count and clamp the result to 0..n. GRS Theorem 3.1: for every "
         "legal user, the best ε-DP mechanism is T followed by a remap."),
    Term("remap", ("post-processing", "y", "remap of t"),
         "A row-stochastic matrix Y applied to a mechanism's output, M ↦ Y∘M (the user's own "
         "interpretation of what they see). Post-processing never weakens privacy."),
    Term("derivable", ("derivability", "three-term condition", "gs theorem 2", "t·y", "t_alpha"),
         "M is derivable from T when M = Y∘T for some remap Y. GS Theorem 2: for an ε-DP M this holds iff "
         "T⁻¹M ≥ 0 entrywise — per column, (1+α²)·x[i][r] − α·(x[i−1][r] + x[i+1][r]) ≥ 0 in the interior "
         "(with GS Lemma 2's boundary rows). The witness is Y, or the row and output where T⁻¹M < 0. "
         "A certificate writes a mechanism with a sparse Y (T itself, clamps, banded remaps) as T·Y — "
         "\"t_alpha\" and \"remap\" — which the checker multiplies out from T's formula."),
    Term("legal user", ("legal loss", "user", "loss", "prior", "bayesian", "minimax"),
         "A user is a loss ℓ(i, r) for answering r when the truth is i, legal when it depends on i and r "
         "only and does not decrease as r moves away from i (GRS §2.2), with a prior over the counts "
         "(Bayesian, GRS) or the worst case over counts (minimax, GS)."),
    Term("dominance", ("dominance certified", "dominated", "tails"),
         "Certified when a remap of T has error tails P(|output − i| ≥ k | i) no larger than the "
         "mechanism's for every count i and distance k, so every legal user, Bayesian or minimax, does at "
         "least as well with T (GRS Theorem 3.2 in the form of claim DOM, mechlib/proofs/catalogue.py)."),
    Term("remap cell", ("remap cells", "farkas certificate", "gordan certificate"),
         "How verify proves GRS Theorem 3.2's 'if' direction and DOM for a given n: the legal Bayesian users "
         "(weights w ≥ 0) for whom one deterministic remap σ of T is optimal form a polyhedral cone, a remap "
         "cell. In each, the dual of GRS LP (3)–(7) is forced by complementary slackness, and its feasibility "
         "is proved for every user of the cell at once by Farkas certificates (checked in exact rationals); "
         "a branch of the search over σ is dropped only on an exact Gordan certificate that it has no "
         "interior. The verdict is the independent checker's: the search writes every certificate into one "
         "file (mechlib.universal/2) that `mechlib check` re-verifies, coverage of the search tree included."),
    Term("certified optimum", ("optimum", "optimal", "ratio"),
         "The least expected loss any ε-DP mechanism on counts 0..n achieves for the user (GRS LP (3)–(7)): "
         "T then the user's best remap (GRS Theorem 3.1), with an exact dual built from T's columns that "
         "proves no mechanism does better (HiGHS's LP only when that dual fails, up to n = 150). 'ratio' is "
         "the mechanism's loss (with its best remap) over it. Where the numbers at the mechanism's own α are "
         "too long to write (the exponential mechanism), the optimum is bracketed between the certified "
         "optimum at a short α_lo ≤ α and T's loss at a short α_hi ≥ α (α-DP with a larger α is a subset), "
         "and the report says it shows a bracket."),
    Term("standard users", ("absolute loss", "squared loss", "binary loss", "weighted median", "posterior mode"),
         "The audit's three users: uniform prior and absolute |i − j|, squared (i − j)² or binary [i ≠ j] loss. "
         "Their best guess for an output is a weighted median, an integer nearest the posterior mean, or a "
         "posterior mode, so their optima are certified in O(n²) integer work up to n = 5000 and the "
         "certificate names the loss instead of writing its (n + 1)² entries."),
    Term("signature", ("sig", "tight"),
         "GRS §5.3: for each pair of adjacent rows i, i+1 and each output r, ↓ when x[i+1][r] = α·x[i][r], "
         "↑ when x[i][r] = α·x[i+1][r] (the DP constraint is tight), S for neither, 0 when both are zero."),
    Term("privacy profile", ("approximate dp", "delta", "δ", "(ε, δ)", "hockey-stick", "--delta"),
         "A mechanism is (ε, δ)-DP when P(output ∈ S | i) ≤ e^ε·P(output ∈ S | i′) + δ for neighbours and "
         "every output set S. Its privacy profile δ(ε) is the least such δ: the largest hockey-stick "
         "divergence Σ_r max(0, x[i][r] − e^ε·x[i′][r]) over ordered neighbours. In t = e^ε it is piecewise "
         "linear, so mechlib gives it exactly: vertices, and per piece the pair and set S attaining it; "
         "'tightest ε at δ' is the least ε with δ(ε) ≤ δ."),
    Term("zCDP", ("rényi", "renyi", "rho", "ρ", "--renyi"),
         "Zero-concentrated DP (Bun–Steinke 2016): ρ-zCDP when the Rényi divergence D_λ between neighbouring "
         "rows is at most ρ·λ for every order λ > 1. `--renyi LO:HI` brackets the least such ρ over that "
         "range of orders with arb balls (lower end: a computed D_λ/λ; upper end: D_λ grows with λ, so each "
         "grid cell [a, b] is bounded by D_b/a)."),
    Term("UNKNOWN", ("not certified", "skipped", "undecided"),
         "A finding mechlib could not decide exactly (a solver timed out, an LP could not be certified), or "
         "SKIPPED: a size or digit limit stopped it, and the report names the option that would decide it. "
         "It is neither a pass nor a fail; the command says why and exits non-zero (an audit exits 3)."),
    Term("PROVED", ("no counterexample", "refuted", "verdict", "strength", "all-n", "bounded", "instances", "sampled"),
         "`mechlib verify`'s verdicts: PROVED (a proof: SMT with two solvers, a symbolic identity, or an "
         "exact computation over the instances it checked), NO COUNTEREXAMPLE (random examples only), REFUTED "
         "(an exactly re-checked counterexample), UNKNOWN. The strength says for which n: ALL-n, BOUNDED "
         "(every n up to a bound), INSTANCES, SAMPLED — computed from the record of what each part ran, "
         "never declared beside it."),
    Term("ε lower bound", ("epsilon lower bound", "lower bound", "true epsilon"),
         "What a black-box sample proves about the true ε, whatever the claim: given the m hits of an event E "
         "under a pair of inputs, the k under the first are Bin(m, θ), θ = P_i(E)/(P_i(E) + P_i′(E)); with "
         "probability ≥ 1 − α_FA every Clopper–Pearson lower bound θ_L of the test holds at once, so "
         "e^ε ≥ θ_L/(1 − θ_L) for each (pair, event) — for a count against other counts J pooled, ε is at least "
         "the ε with Σ_J e^(−ε·d(i, j)) = (1 − θ_L)/θ_L; the largest of these, rounded down, is certified (what "
         "DP-Sniper reports)."),
    Term("pooled counts", ("pooled", "pooled neighbours", "pooled neighbors", "group privacy"),
         "A black-box hypothesis comparing one count i with every other count J of its component at once: ε-DP "
         "between neighbours gives P_i(E) ≤ e^(ε·d(i, j))·P_j(E) along a shortest path (group privacy), so given "
         "the pooled hits the hits under i are binomial with θ ≤ 1/(1 + Σ_J e^(−ε·d(i, j))). An output one count "
         "produces and the others never do then counts more than twice as much per hit as against one "
         "neighbour (at ε = 1 on a path)."),
    Term("summed hypotheses", ("sums", "summed", "sum of pairs", "weighted bonferroni"),
         "On a count query (the path on 0..n) the black-box test adds pairs' hits where no (count, output) is "
         "in two parts: the ends outward, and the pairs from even, then from odd counts, each on both tails. "
         "Their hits are independent, so the summed hits are at most Bin(m, e^ε/(1 + e^ε)) under ε-DP: one "
         "exact test with the evidence of many pairs, where a miscalibrated ε or a clamping shows. The sums "
         "share α_FA/4, the other hypotheses 3α_FA/4."),
    Term("one-sided output", ("one-sided", "one sided", "infinite epsilon"),
         "An output seen under one count and never under a neighbouring count. If the neighbour truly never "
         "produces it, ε is infinite; no finite sample can certify or rule that out, so it is reported as such "
         "and no 'this sample would have flagged' statement is made."),
    Term("neighbours", ("neighbors", "neighbour", "path", "complete"),
         "The pairs of inputs DP is claimed between: for a count query the path (i, i + 1); for a categorical "
         "mechanism such as randomized response every pair (complete); or any list of pairs (a file)."),
    Term("false alarm", ("alpha_fa", "α_fa", "clopper-pearson", "black-box", "conditional test", "poisson"),
         "A black-box audit reports a violation only when an exact conditional binomial test (sample sizes are "
         "Poisson, so the hits of an event under one input, given its hits under both, are exactly binomial) "
         "rejects P_i(E) ≤ e^ε·P_i′(E) at its level, a Bonferroni split of α_FA over the hypotheses tested: the "
         "chance that an ε-DP mechanism is reported violating is at most α_FA (default 0.01; T exactly at its ε, "
         "the correct mechanism benchmarked that draws the most, 8 in 2100 runs: reports/bench.md). The bound "
         "holds for the hypothesis named too: whatever the mechanism, the chance of rejecting one that it "
         "satisfies (a false alarm on a buggy mechanism) is at most the sum of their levels, ≤ α_FA."),
    Term("exit codes", ("exit code", "exit-codes", "exit status"),
         "Every mechlib command ends with one of these. " + exit_codes_text()),
)  # fmt: skip


def lookup(word: str) -> Term | None:
    """The term named or aliased ``word`` (case-insensitive), or None."""
    key = word.strip().lower()
    for term in TERMS:
        if key == term.name.lower() or key in term.aliases:
            return term
    return None


def explain(words: list[str] | None = None) -> str:
    """Plain text: the terms asked for (all when none)."""
    chosen = list(TERMS) if not words else [t for w in words if (t := lookup(w)) is not None]
    return "\n\n".join(t.name + "\n" + textwrap.fill(t.text, 100, initial_indent="    ", subsequent_indent="    ")
                         for t in chosen)  # fmt: skip
