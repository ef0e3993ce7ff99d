"""The beta-binomial profile-likelihood interval (kpass.stats.beta_binomial) and its use.

The fit is checked against independent references: scipy.stats.betabinom's likelihood
maximised by scipy.optimize (the maximum and the profile at each end: the drop is
q^2 / 2), the binomial likelihood-ratio interval for one sample per question (root-finding
on the binomial log-likelihood), and mpmath's quadrature of E[p^k] under a Beta density
(the estimand's closed form). Coverage is checked by seeded simulation in the slow tests
(benchmarks/bench_coverage_betabin.py's held-out designs).
"""

from __future__ import annotations

import importlib.util
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.special import stdtrit
from scipy.stats import betabinom, chi2

import kpass
from kpass.report.from_counts import report_table
from kpass.stats.beta_binomial import (
    INTERVAL_CHOICES,
    NEVER_SOLVED_SHARE,
    ZERO_INFLATION_LR,
    beta_binomial_interval,
    profile_ends,
    uses_beta_binomial,
    zero_inflation_lr,
)

ROOT = Path(__file__).resolve().parents[2]


def _scipy_profile(n, c, k, metric):
    """(l_max, profile(theta)) from scipy.stats.betabinom, by scipy.optimize."""
    n, c = np.asarray(n), np.asarray(c)

    def loglik(a, b):
        return float(betabinom.logpmf(c, n, a, b).sum())

    fits = [minimize(lambda t: -loglik(*np.exp(t)), start, method="Nelder-Mead",
                     options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})
            for start in ([0.0, 0.0], [-2.0, 1.0], [1.0, -2.0], [3.0, 3.0])]
    l_max = max(-fit.fun for fit in fits)

    def profile(theta):
        def negative(log_s):
            s = math.exp(log_s)
            if metric == "pass^k":  # prod (a + j) / (s + j) = theta, solved for a
                def gap(a):
                    return sum(math.log((a + j) / (s + j)) for j in range(k)) - math.log(theta)
                a = brentq(gap, 1e-300, s * (1 - 1e-15), xtol=1e-300, rtol=1e-14)
                return -loglik(a, s - a)

            def gap_b(b):  # 1 - prod (b + j) / (s + j) = theta, solved for b
                return (sum(math.log((b + j) / (s + j)) for j in range(k))
                        - math.log(1.0 - theta))
            b = brentq(gap_b, 1e-300, s * (1 - 1e-15), xtol=1e-300, rtol=1e-14)
            return -loglik(s - b, b)

        grid = np.arange(-6.0, 12.01, 0.25)
        values = [negative(x) for x in grid]
        best = int(np.argmin(values))
        low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
        return -minimize_scalar(negative, bounds=(low, high), method="bounded",
                                options={"xatol": 1e-10}).fun

    return l_max, profile


@pytest.mark.parametrize("n, c, k, metric", [
    ([8] * 12, [0] * 9 + [3, 5, 8], 4, "pass^k"),
    ([4] * 10, [0, 0, 1, 0, 2, 0, 0, 4, 1, 0], 2, "pass^k"),
    ([4] * 10, [4, 4, 3, 4, 4, 0, 4, 2, 4, 4], 4, "pass@k"),
    ([6, 6, 4, 4, 4, 5, 6, 4], [6, 5, 4, 4, 3, 5, 0, 4], 1, "pass@k"),
])
def test_the_ends_are_where_scipys_profile_likelihood_drops_by_q_squared_over_two(n, c, k,
                                                                                metric):
    lo, hi = beta_binomial_interval(n, c, k, metric)
    q = stdtrit(len(n) - 1, 0.975)
    l_max, profile = _scipy_profile(n, c, k, metric)
    for end in (lo, hi):
        assert 0.0 < end < 1.0
        assert l_max - profile(end) == pytest.approx(q * q / 2, abs=5e-3)
    # and just inside / outside the ends the profile is above / below the level
    level = l_max - q * q / 2
    assert profile(lo * 1.02) > level > profile(lo * 0.98)
    assert profile(hi * 0.99) > level > profile(min(hi * 1.01, 1 - 1e-9))


@pytest.mark.parametrize("successes, m", [(2, 20), (28, 30), (197, 200), (5, 12)])
def test_one_sample_per_question_gives_the_binomial_likelihood_ratio_interval(successes, m):
    """n = 1: a and b are not identified; the profile over a + b is flat and the interval is
    {p : 2 (l(p_hat) - l(p)) <= q^2} of Binomial(m, p), found here by root-finding."""
    lo, hi = beta_binomial_interval([1] * m, [1] * successes + [0] * (m - successes), 1,
                                    "pass@k")
    q = stdtrit(m - 1, 0.975)
    p_hat = successes / m

    def loglik(p):
        return successes * math.log(p) + (m - successes) * math.log1p(-p)

    def gap(p):
        return loglik(p_hat) - loglik(p) - q * q / 2

    assert lo == pytest.approx(brentq(gap, 1e-12, p_hat), rel=2e-3)
    assert hi == pytest.approx(brentq(gap, p_hat, 1 - 1e-12), rel=2e-3)


@pytest.mark.parametrize("a, b, k", [(0.5, 1.6, 4), (2.0, 0.3, 8), (1.0, 1.0, 1)])
def test_the_estimand_closed_form_is_the_beta_mean_of_p_to_the_k(a, b, k):
    """E[p^k] = prod_{j<k} (a + j) / (a + b + j) (the profile's constraint), by mpmath."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(40):
        exact = mpmath.quad(lambda p: p ** (a - 1 + k) * (1 - p) ** (b - 1),
                            [0, 0.5, 0.9, 0.99, 1]) / mpmath.beta(a, b)
    closed = math.prod((a + j) / (a + b + j) for j in range(k))
    assert closed == pytest.approx(float(exact), rel=1e-10)


def test_many_data_sets_at_once_give_each_ones_interval():
    cells_n, cells_c = np.full(5, 4), np.arange(5)
    weights = np.array([[10, 3, 1, 0, 1], [5, 2, 2, 2, 4], [0, 1, 2, 5, 12]], dtype=float)
    lo, hi = profile_ends(cells_n, cells_c, weights, 2, False)
    for row, (low, high) in zip(weights, zip(lo, hi, strict=True), strict=True):
        c = np.repeat(cells_c, row.astype(int))
        alone = beta_binomial_interval(np.full(c.size, 4), c, 2, "pass^k")
        assert (low, high) == pytest.approx(alone, rel=1e-12)


def test_the_interval_holds_the_unbiased_estimate_when_asked():
    n, c = [8] * 30, [0] * 26 + [3, 5, 8, 2]
    estimate = float(np.mean([math.comb(x, 4) / math.comb(8, 4) for x in c]))
    lo, hi = beta_binomial_interval(n, c, 4, "pass_hat_k", estimate=estimate)
    assert lo <= estimate <= hi
    assert hi - lo < 0.2


#: per-question counts with a few never-solved questions and no zero inflation (the rule's
#: count conditions hold: 2 of 10 never solved; scipy's statistic 0 in the test below)
SOME = {"n_samples": [8] * 10, "n_correct": [1, 2, 3, 0, 1, 2, 4, 1, 0, 2]}


def test_the_auto_rule_is_the_written_one():
    assert INTERVAL_CHOICES == ("auto", "se-based", "beta-binomial")
    # near a bound: share <= 0.2 and questions' worth <= 25
    assert uses_beta_binomial("auto", "pass^k", 4, 0.05, 0.01, 200, False, **SOME)      # 10 worth
    # Pass@1 = Pass^1: never under auto (taken out after the generated held-out designs)
    assert not uses_beta_binomial("auto", "pass@k", 1, 0.97, 0.01, 200, False, **SOME)
    assert not uses_beta_binomial("auto", "pass^k", 1, 0.03, 0.01, 200, False, **SOME)
    assert uses_beta_binomial("beta-binomial", "pass^k", 1, 0.03, 0.01, 200, False, **SOME)
    assert uses_beta_binomial("auto", "pass^k", 2, 0.03, 0.01, 200, False, **SOME)      # 6 worth
    # Pass@k with k >= 2: never under auto (taken out after the held-out designs)
    assert not uses_beta_binomial("auto", "pass@k", 2, 0.97, 0.01, 200, False, **SOME)
    assert uses_beta_binomial("beta-binomial", "pass@k", 2, 0.97, 0.01, 200, False, **SOME)
    assert not uses_beta_binomial("auto", "pass^k", 4, 0.15, 0.01, 200, False, **SOME)  # 30 worth
    assert not uses_beta_binomial("auto", "pass^k", 4, 0.3, 0.05, 20, False, **SOME)    # share 0.3
    assert uses_beta_binomial("auto", "pass^k", 4, 0.2, 0.05, 50, False, **SOME)  # both limits
    # never: another metric, clusters, se = 0 or None, se-based
    assert not uses_beta_binomial("auto", "maj@k", 4, 0.05, 0.01, 200, False, **SOME)
    assert not uses_beta_binomial("auto", "pass^k", 4, 0.05, 0.01, 200, True, **SOME)
    assert not uses_beta_binomial("auto", "pass^k", 4, 0.05, 0.0, 200, False, **SOME)
    assert not uses_beta_binomial("auto", "pass^k", 4, 0.05, None, 200, False, **SOME)
    assert not uses_beta_binomial("se-based", "pass^k", 4, 0.05, 0.01, 200, False, **SOME)
    # beta-binomial: wherever it applies, mid-range too
    assert uses_beta_binomial("beta-binomial", "pass@k", 4, 0.5, 0.05, 50, False, **SOME)
    # fewer than 20 questions: never under auto (MIN_QUESTIONS)
    assert not uses_beta_binomial("auto", "pass^k", 4, 0.1, 0.05, 19, False, **SOME)
    assert uses_beta_binomial("auto", "pass^k", 4, 0.1, 0.05, 20, False, **SOME)


def _scipy_zero_inflation_lr(n, c):
    """2 (l_ZI - l) from scipy.stats.betabinom, each maximum by Nelder-Mead from 4 starts."""
    n, c = np.asarray(n), np.asarray(c)
    zero = c == 0

    def plain(t):  # log a, log b kept in [-15, 15] (Nelder-Mead can overflow them)
        return -float(betabinom.logpmf(c, n, *np.exp(np.clip(t, -15.0, 15.0))).sum())

    def inflated(t):
        w = 1.0 / (1.0 + math.exp(-t[0]))
        f = betabinom.pmf(c, n, *np.exp(np.clip(t[1:], -15.0, 15.0)))
        return -float(np.log(np.where(zero, w + (1.0 - w) * f, (1.0 - w) * f)).sum())

    options = {"xatol": 1e-9, "fatol": 1e-11, "maxiter": 40000, "maxfev": 40000}
    starts = ([0.0, 0.0], [-2.0, 1.0], [1.0, -2.0], [3.0, 3.0])
    l_plain = max(-minimize(plain, s, method="Nelder-Mead", options=options).fun
                  for s in starts)
    l_inflated = max(-minimize(inflated, [w0, *s], method="Nelder-Mead", options=options).fun
                     for s in starts for w0 in (-6.0, 0.0))
    return max(2.0 * (l_inflated - l_plain), 0.0)


def _cells(n, c):
    keys, weight = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    return keys[:, 0], keys[:, 1], weight


@pytest.mark.parametrize("n, c", [
    ([16] * 40, [0] * 12 + [1] * 7 + [6] * 7 + [7] * 7 + [8] * 7),   # about 5.6
    ([16] * 40, [0] * 12 + [1] * 6 + [6] * 8 + [7] * 7 + [8] * 7),   # inflated: about 9.0
    ([4] * 30 + [8] * 20 + [16] * 10,                                  # mixed n, 3 zero cells
     [0] * 14 + [1, 2, 3, 4] * 4 + [0] * 8 + [5, 6, 7, 8] * 3 + [0] * 4 + [9, 12] * 3),
    ([8] * 10, [1, 2, 3, 0, 1, 2, 4, 1, 0, 2]),                        # SOME: no inflation
])
def test_zero_inflation_lr_matches_scipy(n, c):
    ours = zero_inflation_lr(*_cells(np.asarray(n), np.asarray(c)))[0]
    assert ours == pytest.approx(_scipy_zero_inflation_lr(n, c), abs=2e-3)


def test_zero_inflation_lr_is_zero_without_zeros_or_with_only_zeros():
    assert zero_inflation_lr([4, 4], [1, 3], [[5, 5], [3, 0]]).tolist() == [0.0, 0.0]
    assert zero_inflation_lr([4], [0], [7]).tolist() == [0.0]


def test_the_auto_rule_leaves_zero_inflated_questions_on_the_se_based_interval():
    def auto(n, c):
        n, c = np.asarray(n), np.asarray(c)
        return uses_beta_binomial("auto", "pass^k", 2, 0.05, 0.01, n.size, False,
                                  n_samples=n, n_correct=c)

    # the share of never-solved questions: 70 of 100 keeps the interval, 71 of 100 does not
    # (the zero-inflation statistic, checked against scipy above, is 0 for both: only the
    # share decides)
    at, over = ([0] * 70 + [1] * 20 + [2] * 7 + [3] * 2 + [4],
                [0] * 71 + [1] * 19 + [2] * 7 + [3] * 2 + [4])
    assert NEVER_SOLVED_SHARE == 0.7
    for c in (at, over):
        assert zero_inflation_lr(*_cells(np.full(100, 4), np.asarray(c)))[0] < 0.01
    assert auto([4] * 100, at)
    assert not auto([4] * 100, over)
    # the statistic: one question moved from c = 6 to c = 1 takes it over 6.635 (30% never
    # solved, the share far from 0.7): 12 impossible questions beside a middle of c = 6-8
    below = [0] * 12 + [1] * 7 + [6] * 7 + [7] * 7 + [8] * 7
    above = [0] * 12 + [1] * 6 + [6] * 8 + [7] * 7 + [8] * 7
    assert ZERO_INFLATION_LR == pytest.approx(chi2.isf(0.01, 1), abs=5e-4)
    # (both vectors are test_zero_inflation_lr_matches_scipy's first two: scipy gives 5.6
    # and 9.0, far from 6.635 against the 0.002 agreement asserted there)
    lrs = [zero_inflation_lr(*_cells(np.full(40, 16), np.asarray(c)))[0] for c in (below, above)]
    assert lrs[0] < ZERO_INFLATION_LR - 0.5 and lrs[1] > ZERO_INFLATION_LR + 0.5
    assert auto([16] * 40, below)
    assert not auto([16] * 40, above)
    # the count checks are auto's only: beta-binomial asks for the interval regardless
    assert uses_beta_binomial("beta-binomial", "pass^k", 2, 0.05, 0.01, 100, False,
                              n_samples=[4] * 100, n_correct=over)


@pytest.mark.parametrize("call, words", [
    (lambda: beta_binomial_interval([4, 4], [1, 2], 2, "maj@k"), "`metric`"),
    (lambda: beta_binomial_interval([4, 4], [1, 2], 2, "pass@k", confidence=1.5),
     "`confidence`"),
    (lambda: beta_binomial_interval([4, 4], [1, 2], 0, "pass@k"), "`k`"),
    (lambda: beta_binomial_interval([4], [1], 2, "pass@k"), "at least 2"),
    (lambda: beta_binomial_interval([4, 1], [1, 1], 2, "pass@k"), "k <= n"),
    (lambda: beta_binomial_interval([4, 4], [1, 5], 2, "pass@k"), "0 <= c <= n"),
])
def test_bad_input_is_refused_naming_it(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# ----------------------------------------------------------------------------- its use


def _table(counts, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        return report_table(counts, metrics="pass@k,pass^k", **options)


def test_the_report_gives_rare_pass_hat_k_the_beta_binomial_interval_and_says_so():
    rng = np.random.default_rng(7)
    counts = kpass.BinaryCounts([8] * 60, rng.binomial(8, rng.beta(0.5, 2.4, 60)))
    auto = {row["label"]: row for row in _table(counts, k=[1, 4]).rows}
    plain = {row["label"]: row for row in _table(counts, k=[1, 4],
                                                 interval_method="se-based").rows}
    row = auto["Pass^4"]
    assert row["se_method"] == "beta-binomial"
    expected = beta_binomial_interval(counts.n_samples, counts.n_correct, 4, "pass^k",
                                      row["estimate"])
    assert (row["lo"], row["hi"]) == pytest.approx(expected, rel=1e-12)
    assert plain["Pass^4"]["se_method"] in ("t", "score")
    assert row["estimate"] == plain["Pass^4"]["estimate"] and row["se"] == plain["Pass^4"]["se"]
    # mid-range rows keep the se-based interval under auto
    assert auto["Pass@4"]["se_method"] == plain["Pass@4"]["se_method"]
    assert "beta-binomial profile likelihood" in _table(counts, k=[4]).render("markdown") or \
        "beta-binomial" in _table(counts, k=[4]).render("json")


def test_the_report_keeps_mostly_never_solved_questions_on_the_se_based_interval():
    """71 of 100 questions never solved (the share condition), and 12 of 40 impossible
    beside a middle of c = 6-8 (the zero-inflation statistic, about 9.0 by scipy above):
    Pass^2 prints the se-based interval under auto, the beta-binomial one when asked."""
    cases = ((4, [0] * 71 + [1] * 19 + [2] * 7 + [3] * 2 + [4]),
             (16, [0] * 12 + [1] * 6 + [6] * 8 + [7] * 7 + [8] * 7))
    for n, c in cases:
        counts = kpass.BinaryCounts([n] * len(c), c)
        auto = {row["label"]: row for row in _table(counts, k=[2]).rows}["Pass^2"]
        plain = {row["label"]: row for row in _table(counts, k=[2],
                                                     interval_method="se-based").rows}["Pass^2"]
        asked = {row["label"]: row for row in _table(counts, k=[2],
                                                     interval_method="beta-binomial").rows}
        assert auto["estimate"] <= 0.2 and auto["questions"] >= 20  # inside the rest of the rule
        assert auto["se_method"] == plain["se_method"] != "beta-binomial"
        assert (auto["lo"], auto["hi"]) == (plain["lo"], plain["hi"])
        assert asked["Pass^2"]["se_method"] == "beta-binomial"


def test_interval_method_beta_binomial_applies_mid_range_and_never_with_clusters():
    rng = np.random.default_rng(3)
    counts = kpass.BinaryCounts([4] * 40, rng.binomial(4, rng.beta(2, 2, 40)))
    rows = _table(counts, k=[2], interval_method="beta-binomial").rows
    assert {row["se_method"] for row in rows} == {"beta-binomial"}
    clustered = _table(counts, k=[2], interval_method="beta-binomial",
                       clusters=[q // 4 for q in range(40)]).rows
    assert "beta-binomial" not in {row["se_method"] for row in clustered}


def test_a_bad_interval_method_is_refused_naming_it():
    counts = kpass.BinaryCounts([4, 4, 4], [1, 2, 3])
    with pytest.raises(ValueError, match="`interval_method`.*'wilson'"):
        report_table(counts, interval_method="wilson")


def test_the_cli_option_chooses_and_json_names_the_method(tmp_path, capsys):
    from kpass.report.cli import main

    path = tmp_path / "run.jsonl"
    rng = np.random.default_rng(11)
    c = rng.binomial(8, rng.beta(0.5, 2.4, 60))
    path.write_text("".join(f'{{"outcomes": {[1] * int(x) + [0] * (8 - int(x))}}}\n'
                            for x in c))
    import json

    methods = {}
    for choice in ("auto", "se-based"):
        assert main(["report", str(path), "--metrics", "pass^k", "--k", "4", "--format", "json",
                     "--interval-method", choice]) == 0
        methods[choice] = json.loads(capsys.readouterr().out)
    found = json.dumps(methods["auto"])
    assert '"se_method": "beta-binomial"' in found
    assert '"se_method": "beta-binomial"' not in json.dumps(methods["se-based"])
    assert main(["report", str(path), "--interval-method", "wilson"]) == 2
    assert "invalid choice" in capsys.readouterr().err


# ----------------------------------------------------------------------------- coverage


def _bench():
    path = ROOT / "benchmarks" / "bench_coverage_betabin.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("bench_coverage_betabin", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _design(bench, name, questions):
    found = [d for d in bench.designs() if d.name.startswith(name) and d.questions == questions]
    assert len(found) == 1, (name, questions)
    return found[0]


@pytest.mark.slow
@pytest.mark.parametrize("name, questions, narrower", [
    ("Pass^8 = 0.004, Beta(0.5,2.5), n=16", 200, True),
    ("Pass^2 = 0.073, logit N(-2, 1.5), n=4", 200, False),
    ("Pass^8 = 0.063, logit N(-1, 2), n=16", 30, True),
])
def test_held_out_rare_pass_hat_k_is_covered_in_both_tails_and_narrower(name, questions,
                                                                        narrower):
    """Held-out designs (not used to fix the rule), 600 seeded replications: coverage
    0.93-0.97 allowing Monte Carlo error (SE 0.009), each tail at most 3.5% + 2 SE of
    0.0064, and, where the benchmark measured it (docs/explanation/statistics.md), the
    interval at least 15% narrower than the se-based one (logit-normal Pass^2 at 200
    questions is 2% narrower: not asserted)."""
    bench = _bench()
    design = _design(bench, name, questions)
    assert design.held_out
    result = bench.simulate(design, 600, 20261128)
    cover, low, high, width = result["auto"]
    assert 0.93 - 0.018 <= cover <= 0.97 + 0.018, result
    assert low <= 0.035 + 0.013 and high <= 0.035 + 0.013, result
    assert width <= (0.85 if narrower else 1.0) * result["se-based"][3], result
    assert result["used"][0] > 0.9


@pytest.mark.slow
@pytest.mark.parametrize("name, questions", [
    ("accuracy 0.97, one sample", 200),
    ("Pass@4 = 0.", 200),
    ("Pass@8 = 0.", 200),
    ("Pass^2 = 0.", 30),
])
def test_held_out_elsewhere_auto_covers_no_worse_than_se_based(name, questions):
    """Near 1 and mid-range (held-out): the auto choice's coverage is not below the
    se-based interval's by more than Monte Carlo error (2 SE of a difference of paired
    shares: at most 0.02 at 600 replications)."""
    bench = _bench()
    design = _design(bench, name, questions)
    assert design.held_out
    result = bench.simulate(design, 600, 20261128)
    assert result["auto"][0] >= result["se-based"][0] - 0.02, result
    assert result["auto"][0] >= 0.93 - 0.018, result


# ------------------------------------------------- generated held-out designs (issue 38/40)


def _generated():
    _bench()  # bench_coverage_generated imports it
    path = ROOT / "benchmarks" / "bench_coverage_generated.py"
    spec = importlib.util.spec_from_file_location("bench_coverage_generated", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_generated_held_out_rare_pass_hat_k_meets_the_targets():
    """The second generated set (seed 20261130: its designs never changed the rule), design
    0: Pass^4 = 0.096 at 30 questions of 16 samples, 500 replications seeded as the
    benchmark: auto covers 0.93-0.97 with each tail 2-3.5% (Monte Carlo SE of a tail 0.0066:
    2 SE allowed), while the se-based interval over-covers (0.994, tails under 0.5%)."""
    gen = _generated()
    design = gen.generate(20261130, 1)[0]
    assert design.k == 4 and design.questions == 30
    result = _bench().simulate(design, 500, 20261130 * 100)
    cover, low, high, _ = result["auto"]
    assert 0.93 <= cover <= 0.97, result
    assert 0.02 - 0.013 <= low <= 0.035 + 0.013 and 0.02 - 0.013 <= high <= 0.035 + 0.013
    assert result["se-based"][0] > 0.98, result


@pytest.mark.slow
def test_generated_held_out_few_questions_no_interval_holds_its_level():
    """What the 10-15-question note says (kpass.stats.small_sample.DISCRETE_COVERAGE), on the
    second generated set: Pass^8 = 0.028 at 10 questions covers under 0.9 (12% of intervals
    below the value) and Pass^2 = 0.128 at 15 questions over 0.97; both inside the range
    the note prints."""
    from kpass.stats.small_sample import DISCRETE_COVERAGE

    gen = _generated()
    designs = gen.generate(20261130, 11)
    bench = _bench()
    low_design, high_design = designs[10], designs[8]
    assert (low_design.questions, high_design.questions) == (10, 15)
    under = bench.simulate(low_design, 500, 20261130 * 100 + 10)["auto"][0]
    over = bench.simulate(high_design, 500, 20261130 * 100 + 8)["auto"][0]
    assert DISCRETE_COVERAGE[0] <= under < 0.9
    assert 0.97 < over <= DISCRETE_COVERAGE[1]


@pytest.mark.slow
def test_third_generated_set_many_never_solved_questions_get_the_se_based_interval():
    """The third generated set (``--mix never-solved``, seed 20261203, held out: run once
    after the never-solved conditions were fixed), design 0: Pass^8 = 0.024 with 57%
    impossible questions, 16 samples, 100 questions, 500 replications seeded as the
    benchmark. Without the conditions the beta-binomial interval covered 0.734 (26% of
    intervals below the value); with them auto takes it in at most 5% of replications and
    covers 0.93-0.97 with each tail at most 3.5% + 2 SE (0.013)."""
    gen = _generated()
    design = gen.generate(20261203, 1, "never-solved")[0]
    assert design.k == 8 and design.questions == 100
    result = _bench().simulate(design, 500, 20261203 * 100)
    cover, low, high, _ = result["auto"]
    assert result["before"][0] < 0.8 and result["used before"][0] > 0.9, result
    assert result["used"][0] <= 0.05, result
    assert 0.93 <= cover <= 0.97 and low <= 0.048 and high <= 0.048, result
