"""The interval over questions (kpass.stats.intervals), CR2 clustered SEs, and their use.

Formulas are pinned against independent references (scipy's Wilson interval, explicit-matrix
CR2 sandwich and Bell-McCaffrey df, exact enumeration of the se = 0 bound); the coverage
claims are checked by seeded simulation (benchmarks/bench_coverage.py's designs) in the
slow tests.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as sps
from scipy.linalg import eigh

import kpass
from kpass.report.cli import main
from kpass.report.from_counts import report_table
from kpass.stats._common import _clt_se, _cluster_df
from kpass.stats.intervals import METHODS, interval, intervals

ROOT = Path(__file__).resolve().parents[2]


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------- formulas


@pytest.mark.parametrize("successes, n", [(2, 20), (1, 30), (28, 30), (1, 12), (5, 40),
                                          (56, 60), (4, 30), (94, 100)])
def test_score_interval_is_scipys_wilson_interval_with_garwood_end(successes, n):
    """Binary values: se^2 = x(1-x)/n makes n_eff = n; with the normal quantile (df=None)
    and no pull towards M (cap=False) the interval is scipy's Wilson interval, except that
    with at most 3 events on the near side its end towards the bound reaches the exact
    Poisson (Garwood) bound chi2_{alpha/2}(2e) / (2n) (Brown, Cai and DasGupta 2001)."""
    x = successes / n
    se = math.sqrt(x * (1 - x) / n)
    lo, hi, method = intervals(x, se, None, n, 0.95, cap=False)
    wilson = sps.binomtest(successes, n).proportion_ci(0.95, method="wilson")
    events = min(successes, n - successes)
    garwood = sps.chi2.ppf(0.025, 2 * events) / (2 * n)
    assert METHODS[int(method)] == "score"
    if x < 0.5:
        assert float(hi) == pytest.approx(wilson.high, rel=1e-12)
        expected = min(wilson.low, garwood) if events <= 3 else wilson.low
        assert float(lo) == pytest.approx(expected, rel=1e-10)
    else:
        assert float(lo) == pytest.approx(wilson.low, rel=1e-12)
        expected = max(wilson.high, 1 - garwood) if events <= 3 else wilson.high
        assert float(hi) == pytest.approx(expected, rel=1e-10)


def test_binary_coverage_by_exact_enumeration():
    """0/1 values at M questions, as kpass sees them (se with the M - 1 divisor, t_{M-1}):
    the coverage of the interval, summed exactly over Binomial(M, p) outcomes on a grid of p
    in [0.5, 0.999], averages 0.95-0.99 and never falls below 0.90 (plain Wilson: 0.85
    near p = 1; estimate -/+ t se: far lower)."""
    ps = np.linspace(0.5, 0.999, 999)
    for m in (10, 20, 30, 40, 100):
        k = np.arange(m + 1)
        x = k / m
        se = np.sqrt(x * (1 - x) / (m - 1))
        lo, hi, _ = intervals(x, se, m - 1, m)
        pmf = sps.binom.pmf(k[None, :], m, ps[:, None])
        covered = (lo[None, :] <= ps[:, None]) & (ps[:, None] <= hi[None, :])
        coverage = (pmf * covered).sum(axis=1)
        assert 0.95 <= coverage.mean() <= 0.99, (m, coverage.mean())
        assert coverage.min() >= 0.90, (m, coverage.min(), ps[coverage.argmin()])
        near_one = coverage[ps >= 0.8].mean()
        assert 0.95 <= near_one <= 0.993, (m, near_one)


def test_mid_range_is_estimate_plus_minus_t_se():
    result = interval(0.5, 0.05, 29, 30)
    q = sps.t.ppf(0.975, 29)
    assert result.method == "t"
    assert (result.lo, result.hi) == pytest.approx((0.5 - q * 0.05, 0.5 + q * 0.05), rel=1e-12)


@pytest.mark.parametrize("estimate, bounds", [(0.0, (0.0, 1.0)), (1.0, (0.0, 1.0)),
                                             (-1.0, (-1.0, 1.0))])
def test_an_estimate_at_a_bound_with_se_gets_the_clipped_t_interval(estimate, bounds):
    """A clipped estimator can sit on a bound with se > 0 (n_eff = 0): not [L, U], but
    estimate -/+ t se clipped (scipy's t quantile)."""
    from scipy.stats import t

    got = interval(estimate, 0.01, 49, 50, 0.95, bounds=bounds)
    half = t.ppf(0.975, 49) * 0.01
    assert (got.lo, got.hi) == pytest.approx((max(bounds[0], estimate - half),
                                              min(bounds[1], estimate + half)), abs=1e-12)
    assert got.method == "t"


@pytest.mark.parametrize("m", [2, 5, 10, 30, 100])
def test_se_zero_bound_at_one_is_exact_binomial(m):
    """All M values 1: lo is the mu at which P(all M Bernoulli(mu) succeed) = alpha/2, by
    the binomial pmf (and Clopper-Pearson's bound of M in M); symmetric at 0."""
    result = interval(1.0, 0.0, m - 1, m)
    assert result.method == "exact" and result.hi == 1.0
    assert sps.binom.pmf(m, m, result.lo) == pytest.approx(0.025, rel=1e-10)
    assert sps.binom.pmf(m, m, result.lo * (1 - 1e-6)) < 0.025
    assert result.lo == pytest.approx(sps.beta.ppf(0.025, m, 1), rel=1e-10)
    zero = interval(0.0, 0.0, m - 1, m)
    assert (zero.lo, zero.hi) == pytest.approx((0.0, 1 - result.lo), rel=1e-10)


def test_se_zero_difference_bound_is_the_share_of_questions_that_differ():
    """Every d_q = 0 in [-1, 1]: over a grid of distributions on {-1, 0, 1}, P(all M zero)
    = (1 - P(-1) - P(1))^M; its largest value among means >= hi is alpha/2, reached by
    mass hi on +1 (the bound is exact), and below hi some distribution exceeds alpha/2."""
    m = 6
    result = interval(0.0, 0.0, m - 1, m, bounds=(-1.0, 1.0))
    pi = result.hi
    assert result.lo == pytest.approx(-pi) and result.method == "exact"
    grid = np.linspace(0.0, 1.0, 401)
    minus, plus = np.meshgrid(grid, grid)
    valid = minus + plus <= 1.0
    all_zero = np.where(valid, (1.0 - minus - plus) ** m, 0.0)
    mean = plus - minus
    assert all_zero[valid & (mean >= pi)].max() <= 0.025 + 1e-12
    assert (1.0 - pi) ** m == pytest.approx(0.025, rel=1e-10)
    assert all_zero[valid & (mean >= pi - 0.01)].max() > 0.025


def test_never_zero_width_always_clipped_and_named():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.random(3000), [0.0, 1.0, 0.0, 1.0, 0.5]])
    se = np.concatenate([rng.random(3000) * 0.2 * (rng.random(3000) > 0.1),
                         [0.0, 0.0, 1e-18, 1e-18, 0.0]])
    m = rng.integers(2, 200, size=x.size)
    lo, hi, method = intervals(x, se, m - 1, m)
    assert np.all(lo < hi) and np.all(lo >= 0) and np.all(hi <= 1)
    assert np.all(lo <= x) and np.all(x <= hi)
    assert set(np.unique(method)) <= {0, 1, 2}
    # the exact bound: se = 0, or an estimate at 0 or 1 whose se is rounding noise
    assert np.all((method == 2) == ((se == 0) | ((x * (1 - x) == 0) & (se < 1e-15))))


def test_interval_refuses_nan_and_negative_se():
    with pytest.raises(ValueError, match="se >= 0"):
        interval(0.5, -0.1, 9, 10)
    with pytest.raises(ValueError, match="finite"):
        interval(float("nan"), 0.1, 9, 10)


@pytest.mark.parametrize("m", [6, 10, 12, 20])
def test_exact_mde_is_the_sign_tests_80_percent_power_difference(m):
    """se = 0: the MDE is the delta at which a share delta of questions with d_q = 1 makes
    kpass's own sign-flip test (sign_flip_p, exact up to 20 questions) reject at 5% with
    probability 0.8, summed exactly over Binomial(m, delta) counts of non-zero d_q; above
    the exact interval's half-width."""
    from kpass.stats.small_sample import exact_mde, sign_flip_p

    def p_value(plus, minus):
        d = np.array([1.0] * plus + [-1.0] * minus + [0.0] * (m - plus - minus))
        return sign_flip_p(d)

    def power(delta, minus_share=0.0):
        total = 0.0
        for plus in range(m + 1):
            for minus in range(m + 1 - plus):
                chance = sps.multinomial.pmf([plus, minus, m - plus - minus], m,
                                             [delta + minus_share, minus_share,
                                              1 - delta - 2 * minus_share])
                total += chance * (p_value(plus, minus) <= 0.05)
        return total

    delta = exact_mde(m, 0.95)
    assert 0 < delta < 1
    assert power(delta) == pytest.approx(0.8, abs=1e-9)
    assert power(delta * 0.98) < 0.8
    assert delta > 1 - 0.025 ** (1 / m)


def test_compare_mde_is_never_zero_when_every_question_agrees():
    from kpass.stats.small_sample import exact_mde

    ones = np.ones((10, 4), dtype=int)
    c = quiet(kpass.compare, kpass.pass_at_k, ones, ones, 1)
    assert c.se == 0.0 and c.method == "exact"
    assert c.mde == pytest.approx(exact_mde(10, 0.95)) and c.mde > 0.6
    assert c.lo < 0 < c.hi and c.hi == pytest.approx(1 - 0.025 ** 0.1)
    assert math.isinf(exact_mde(5, 0.95))  # 2 / 2^5 > 0.05: no sign test rejects
    rng = np.random.default_rng(8)
    a, b = rng.integers(0, 2, size=(10, 4)), rng.integers(0, 2, size=(10, 4))
    c = quiet(kpass.compare, kpass.pass_at_k, a, b, 1)
    q, q80 = sps.t.ppf(0.975, 9), sps.t.ppf(0.8, 9)
    assert c.se > 0 and c.mde == pytest.approx((q + q80) * c.se, rel=1e-12)


def test_cli_compare_json_stays_strict_when_no_difference_is_detectable(tmp_path, capsys):
    """5 questions all alike: no MDE (null in JSON, no Infinity token; the verdict says in
    words that no difference was detectable, not "MDE inf")."""
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text('{"outcomes": [1, 1]}\n' * 5)
    assert main(["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--metrics",
                 "pass@k", "--k", "1", "--format", "json"]) == 0

    def refuse(token):
        raise AssertionError(f"non-standard JSON token {token}")

    document = json.loads(capsys.readouterr().out, parse_constant=refuse)
    row, = document["results"]
    assert row["mde"] is None and row["se"] == 0.0
    assert main(["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--metrics",
                 "pass@k", "--k", "1"]) == 0
    text = capsys.readouterr().out
    assert "no difference is detectable at 5 questions" in text and "inf" not in text


# ----------------------------------------------------------------------------- CR2


def _cr2_reference(values, codes):
    """CR2 SE of the mean and Bell-McCaffrey df with explicit matrices."""
    m = values.size
    X = np.ones((m, 1))
    bread = np.linalg.inv(X.T @ X)
    H = X @ bread @ X.T
    e = values - values.mean()
    meat = np.zeros((1, 1))
    columns = []
    for g in np.unique(codes):
        idx = np.flatnonzero(codes == g)
        block = np.eye(idx.size) - H[np.ix_(idx, idx)]
        w, v = eigh(block)
        A = v @ np.diag(w ** -0.5) @ v.T
        Xg = X[idx]
        score = Xg.T @ A @ e[idx]
        meat += np.outer(score, score)
        a = np.zeros(m)  # the weight vector of cluster g in the contrast's variance
        a[idx] = (A @ Xg @ bread).ravel()
        columns.append((np.eye(m) - H) @ a)
    V = bread @ meat @ bread
    G = np.stack(columns, axis=1)
    lam = np.linalg.eigvalsh(G.T @ G)
    return math.sqrt(V[0, 0]), lam.sum() ** 2 / (lam ** 2).sum()


@pytest.mark.parametrize("sizes", [(13, 5, 3, 2, 2, 1, 1, 1, 1, 1), (4, 4, 4), (1,) * 7,
                                   (10, 1), (3, 7, 2, 8)])
def test_cr2_and_bell_mccaffrey_df_match_explicit_matrices(sizes):
    rng = np.random.default_rng(sum(sizes))
    codes = np.repeat(np.arange(len(sizes)), sizes)
    values = rng.random(codes.size)
    se, df = _cr2_reference(values, codes)
    assert _clt_se(values, codes) == pytest.approx(se, rel=1e-10)
    assert _cluster_df(codes, codes.size) == pytest.approx(df, rel=1e-10)


def test_equal_clusters_keep_the_g_over_g_minus_1_formula_and_g_minus_1_df():
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(6), 5)
    values = rng.random(30)
    sums = np.bincount(codes, weights=values - values.mean())
    old = math.sqrt(6 / 5 * float(sums @ sums) / 30 ** 2)
    assert _clt_se(values, codes) == pytest.approx(old, rel=1e-12)
    assert _cluster_df(codes, 30) == pytest.approx(5.0, rel=1e-12)
    plain = np.arange(30)
    assert _clt_se(values, plain) == pytest.approx(np.std(values, ddof=1) / math.sqrt(30))
    assert _cluster_df(plain, 30) == pytest.approx(29.0)


def test_compare_with_unequal_clusters_uses_bell_mccaffrey_df():
    rng = np.random.default_rng(4)
    sizes = (13, 5, 3, 2, 2, 1, 1, 1, 1, 1)
    codes = np.repeat(np.arange(10), sizes)
    A, B = rng.integers(0, 2, size=(30, 4)), rng.integers(0, 2, size=(30, 4))
    c = quiet(kpass.compare, kpass.pass_at_k, A, B, 1, clusters=list(codes))
    d = A.mean(axis=1) - B.mean(axis=1)
    se, df = _cr2_reference(d, codes)
    assert c.se == pytest.approx(se, rel=1e-10) and c.df == pytest.approx(df, rel=1e-10)
    assert df < 9  # unequal sizes: fewer effective clusters than G - 1
    if c.method == "t":
        q = sps.t.ppf(0.975, df)
        assert (c.lo, c.hi) == pytest.approx((c.difference - q * se, c.difference + q * se))


# ----------------------------------------------------------------------------- report


def test_report_table_clusters_give_cr2_ses_and_a_note_on_few_effective_clusters():
    rng = np.random.default_rng(5)
    sizes = (13, 5, 3, 2, 2, 1, 1, 1, 1, 1)
    labels = [f"c{g}" for g, size in enumerate(sizes) for _ in range(size)]
    counts = kpass.BinaryCounts(np.full(30, 4), rng.integers(0, 5, size=30))
    table = quiet(report_table, counts, metrics="pass@k", k=[1, 2], clusters=labels)
    for row, k in zip(table.rows, [1, 2], strict=True):
        expected = quiet(kpass.standard_error, kpass.pass_at_k, counts, k, clusters=labels)
        assert row["se"] == pytest.approx(expected, rel=1e-12)
        assert row["se_method"] in METHODS
    assert "note: 10 clusters, effectively 4.5: the clustered intervals are rough (--explain)" \
        in str(table).splitlines()  # one short line; in full with explain
    text = " ".join(table.render(explain=True).split())
    assert "effectively" in text and "fewer than 10" in text
    assert "Bell-McCaffrey" in text
    plain = quiet(report_table, counts, metrics="pass@k", k=[1, 2])
    assert "effectively" not in str(plain)
    with pytest.raises(ValueError, match="one label per question"):
        report_table(counts, metrics="pass@k", k=1, clusters=labels[:-1])
    with pytest.raises(ValueError, match="at least 2 clusters"):
        report_table(counts, metrics="pass@k", k=1, clusters=["a"] * 30)


def test_report_all_correct_prints_the_exact_bound_and_names_it():
    counts = kpass.BinaryCounts(np.full(10, 1), np.full(10, 1))
    table = quiet(report_table, counts, metrics="pass@k", k=1)
    row, = table.rows
    assert row["se"] == 0.0 and row["se_method"] == "exact"
    assert row["lo"] == pytest.approx(0.025 ** 0.1) and row["hi"] == 1.0
    text = str(table)
    assert "[0.692, 1.000]" in text
    assert "note: se = 0 for Pass@1: exact bound shown (--explain)" in text.splitlines()
    assert "exact bound (se = 0) for Pass@1" in table.render(explain=True)
    assert "se_method" in table.render("csv").splitlines()[0]


def test_no_note_advises_the_bayesian_interval_for_coverage():
    from kpass.stats.small_sample import small_sample_problems

    words = " ".join(small_sample_problems(40, False, [0.0, 0.01], [0.02, 0.5]))
    assert "_ci" not in words and "Bayesian" not in words
    rng = np.random.default_rng(6)
    counts = kpass.BinaryCounts(np.full(40, 8), (rng.random(40) < 0.05) * rng.integers(0, 3, 40))
    text = quiet(report_table, counts, metrics="pass^k", k=[1, 4]).render(explain=True)
    assert "prefer the credible" not in text and "_ci" not in text
    assert "these very questions with unlimited samples" in text


def test_cli_report_clusters_reads_the_column(tmp_path, capsys):
    rng = np.random.default_rng(7)
    sizes = (6, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2)
    path = tmp_path / "runs.jsonl"
    rows = [{"outcomes": [int(v) for v in rng.integers(0, 2, 4)], "topic": f"t{g}"}
            for g, size in enumerate(sizes) for _ in range(size)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(["report", str(path), "--clusters", "topic", "--metrics", "pass@k", "--k", "1",
                 "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    outcomes = [row["outcomes"] for row in rows]
    expected = quiet(kpass.standard_error, kpass.pass_at_k, outcomes, 1,
                     clusters=[row["topic"] for row in rows])
    assert document["results"][0]["se"] == pytest.approx(expected, rel=1e-12)
    assert document["clusters"][0]["clusters"] == 12
    assert main(["report", str(path), "--clusters", "nope"]) == 1
    assert "nope" in capsys.readouterr().err


def test_soft_accuracy_credible_interval_is_clipped(tmp_path, capsys):
    """Issue 28 item 15: 'accuracy (n runs average)' printed [-0.160, 0.493]."""
    path = tmp_path / "soft.jsonl"
    scores = [[0.0, 0.0]] * 5 + [[1.0, 0.9]]
    path.write_text("".join(json.dumps({"id": q, "score": s}) + "\n"
                            for q, pair in enumerate(scores) for s in pair))
    assert main(["report", str(path), "--id", "id", "--column", "score", "--threshold", "0.5",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    accuracy, = [row for row in rows if row["metric"] == "accuracy"]
    assert 0.0 <= accuracy["cred_lo"] < accuracy["cred_hi"] <= 1.0
    assert accuracy["cred_lo"] == 0.0  # mean 0.158 - z sd is below 0: clipped
    assert 0.0 <= accuracy["lo"] < accuracy["hi"] <= 1.0


# ----------------------------------------------------------------------------- coverage


def _bench():
    spec = importlib.util.spec_from_file_location("bench_coverage",
                                                  ROOT / "benchmarks" / "bench_coverage.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


REPS = 2000
"""Replications per design: binomial Monte Carlo SE 0.005 at 0.95."""


def _limits(name: str, m: int) -> tuple[float, float] | None:
    """(floor, ceiling) of the interval's coverage in a design of bench_coverage.py.

    Floors are issue 29's targets; ceilings keep the interval from throwing data away
    (0.985 where the design's outcomes are continuous enough; 0.99 where the exact binomial
    coverage next to 0.95 lies at 0.978-0.98 (accuracy 0.98 at 30 questions) or the rare
    Pass^4 at 30 questions measured 0.980-0.987). Designs whose discreteness admits only
    coverages far from 0.95 carry no ceiling: one-sample accuracy at 10 questions (0.914 or
    0.988 at p = 0.95), Pass@8 with 8 samples (0/1 per question; t mid-range covers 0.85
    from 5 of 10), Pass^4 at 10 questions (15-24% of runs have se = 0), the paired
    difference at 10 questions (48% with every d_q = 0).
    """
    if name.startswith("Pass@8 = 0.85") and name.endswith("n=16"):
        return (0.93, 0.985) if m == 10 else (0.90, 0.985)
    if name.startswith("Pass@8 = 0.85") and m == 10:
        return (0.93, 1.0)
    if name.startswith("accuracy 0.95") and m == 30:
        return (0.93, 0.985)
    if name.startswith("accuracy 0.98") and m == 30:
        return (0.93, 0.99)
    if name.startswith("Pass^4") and m in (30, 40):
        return (0.90, 0.99)
    if name.startswith("Pass^4") and m == 100:
        return (0.93, 0.985)
    if "unequal clusters" in name:
        return (0.90, 0.985)
    if "equal clusters" in name or name.startswith("Pass@1 = 0.5, Beta(1,1), n=8"):
        return (0.93, 0.97)
    if name.startswith("Pass@8 A - B") and m == 30:
        return (0.92, 0.97)
    return None


@pytest.mark.slow
def test_coverage_targets_of_issue_29():
    """Seeded simulation of benchmarks/bench_coverage.py's designs (2000 replications,
    seed 29; Monte Carlo SE 0.005 at 0.95): issue 29's floors (Pass@8 near 0.85 at 10
    questions and accuracy 0.95 at 30 questions with one sample >= 0.93; Pass^4 near 0.02 at
    30-40 questions >= 0.90; 10 unequal clusters >= 0.90; mid-range 0.94-0.96 within Monte
    Carlo error and no wider than 1.1x the t interval) and ceilings (:func:`_limits`)."""
    bench = _bench()
    checked = 0
    for index, design in enumerate(bench.designs(29)):
        result = bench.simulate(design, REPS, 29 + index)
        coverage, width = result["kpass"]
        name, m = design.name, design.questions
        limits = _limits(name, m)
        if limits is None:
            continue
        floor, ceiling = limits
        assert floor <= coverage <= ceiling, (name, m, coverage, limits)
        if name.startswith("Pass@1 = 0.5, Beta(1,1), n=8"):
            assert width <= 1.1 * result["t"][1], (name, m, width)
        checked += 1
    assert checked == 19


def test_report_plot_names_the_interval_and_keeps_tau_out_of_the_value(tmp_path, monkeypatch):
    """Issue 28 item 21: the title said "z se" for a t-based band, and the ylabel
    "G-Pass@k_tau = 0.5" read as a value."""
    from kpass.io.formats.readers import LoadedFile
    from kpass.report import plot
    from kpass.report.table import PLOTTED, compute_rows, family

    counts = kpass.BinaryCounts(np.full(12, 4), np.array([4, 3, 0, 1, 2, 4, 4, 0, 1, 3, 2, 4]))
    loaded = LoadedFile("x", Path("x"), None, counts, "question 1")
    rows = quiet(compute_rows, loaded, [family(key) for key in PLOTTED], [1, 2, 4], [0.5],
                 0.95)
    seen = {}
    monkeypatch.setattr(plot, "_save", lambda figure, path: seen.update(figure=figure))
    plot.plot_curves(str(tmp_path / "x.png"), ["x"], [rows], 0.95)
    figure = seen["figure"]
    title = figure._suptitle.get_text()
    assert "z se" not in title and "confidence interval over questions" in title
    labels = [ax.get_ylabel() for ax in figure.axes]
    titles = [ax.get_title() for ax in figure.axes]
    assert not any("=" in label for label in labels)
    assert any("G-Pass" in t and "= 0.5" in t for t in titles)
    band = figure.axes[0].collections[0].get_paths()[0].vertices[:, 1]
    pass_rows = [row for row in rows if row.metric == "pass@k"]
    assert min(band) == pytest.approx(min(row.lo for row in pass_rows))
    assert max(band) == pytest.approx(max(row.hi for row in pass_rows))
