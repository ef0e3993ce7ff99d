"""Error bars that hold with few questions (issue 20): Student's t, the exact sign-flip test,
SmallSampleWarning. References: scipy.stats (ttest_rel, t), brute-force enumeration written
here, seeded simulation."""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats as sps

import kpass
from kpass.stats.small_sample import EXACT_UP_TO, sign_flip_p


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("m, seed", [(5, 0), (8, 1), (12, 2), (40, 3)])
def test_compare_at_k1_is_scipy_paired_t_test(m, seed):
    """At k = 1 the per-question values are the per-question means: p-value and interval
    are those of scipy.stats.ttest_rel on them."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 2, size=(m, 6))
    B = (rng.random((m, 6)) < 0.4).astype(int)
    c = quiet(kpass.compare, kpass.pass_at_k, A, B, 1, confidence=0.9)
    test = sps.ttest_rel(A.mean(axis=1), B.mean(axis=1))
    assert c.df == m - 1 and c.reference == "t"
    assert c.p_value == pytest.approx(test.pvalue, rel=1e-9)
    low, high = test.confidence_interval(0.9)
    if c.method == "t":
        assert (c.lo, c.hi) == pytest.approx((low, high), rel=1e-9)
    else:  # near -1 or 1 (issue 29): the hull of scipy's t interval and a score interval
        assert c.method == "score" and c.lo <= low + 1e-12 and c.hi >= high - 1e-12
    q, q80 = sps.t.ppf(0.95, m - 1), sps.t.ppf(0.8, m - 1)
    assert c.mde == pytest.approx((q + q80) * c.se, rel=1e-9)
    assert c.se_a == pytest.approx(np.std(A.mean(axis=1), ddof=1) / math.sqrt(m))
    assert c.se_b == pytest.approx(np.std(B.mean(axis=1), ddof=1) / math.sqrt(m))
    assert c.se_unpaired == pytest.approx(math.hypot(c.se_a, c.se_b))


def test_normal_reference_is_kept_by_keyword_and_t_tends_to_it():
    rng = np.random.default_rng(5)
    A, B = rng.integers(0, 2, size=(400, 4)), rng.integers(0, 2, size=(400, 4))
    t = kpass.compare(kpass.pass_at_k, A, B, 2)
    z = kpass.compare(kpass.pass_at_k, A, B, 2, reference="normal")
    assert z.df is None and z.reference == "normal"
    assert z.p_value == pytest.approx(2 * sps.norm.sf(abs(z.difference) / z.se))
    assert t.p_value == pytest.approx(z.p_value, rel=0.05)  # 399 df: nearly normal
    assert t.hi - t.lo > z.hi - z.lo
    with pytest.raises(ValueError, match="reference"):
        kpass.compare(kpass.pass_at_k, A, B, 2, reference="z")


def brute_sign_flip(d):
    d = [x for x in d if x != 0]
    observed = abs(sum(d))
    hits = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


@pytest.mark.parametrize("seed", range(6))
def test_sign_flip_p_is_the_enumeration(seed):
    rng = np.random.default_rng(seed)
    d = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5, 0.75], size=int(rng.integers(1, 12)))
    assert sign_flip_p(d) == pytest.approx(brute_sign_flip(list(d)))


def test_two_questions_both_plus_a_quarter():
    """se = 0: no t statistic; the exact test gives 0.5, never 0; the interval is the exact
    bound of 2 questions all alike (issue 29: never a point) and a SmallSampleWarning says
    so."""
    A = [[1, 1, 0, 0], [1, 1, 0, 0]]
    B = [[1, 0, 0, 0], [1, 0, 0, 0]]
    with pytest.warns(kpass.SmallSampleWarning, match="standard error of 0"):
        c = kpass.compare(kpass.pass_at_k, A, B, 1)
    assert c.se == 0 and c.difference == 0.25
    assert c.p_exact == 0.5 and c.p_value == 0.5
    # every d_q = 0.25 of [-1, 1]: 0.25 -/+ 1.25 (1 - 0.025^(1/2)), clipped to [-1, 1]
    assert c.method == "exact"
    assert (c.lo, c.hi) == pytest.approx((0.25 - 1.25 * (1 - 0.025 ** 0.5), 1.0))


def test_clusters_flip_together_and_df_counts_clusters():
    rng = np.random.default_rng(9)
    A, B = rng.integers(0, 2, size=(12, 4)), rng.integers(0, 2, size=(12, 4))
    labels = [q // 3 for q in range(12)]  # 4 clusters of 3
    c = quiet(kpass.compare, kpass.pass_at_k, A, B, 1, clusters=labels)
    d = A.mean(axis=1) - B.mean(axis=1)
    sums = [d[3 * g: 3 * g + 3].sum() for g in range(4)]
    assert c.df == 3
    assert c.p_exact == pytest.approx(brute_sign_flip(sums))


def test_monte_carlo_sign_flip_beyond_the_enumeration_is_seeded_and_never_zero():
    d = np.full(EXACT_UP_TO + 10, 0.3)
    p = sign_flip_p(d)
    assert p == sign_flip_p(d) and 0 < p < 1e-3


def enumerated_sign_flip(d):
    """The exact p by doubling the 2^M sums (as the definition), for M a little over 20."""
    d = np.asarray([x for x in d if x != 0], dtype=float)
    sums = np.zeros(1)
    for value in d:
        sums = np.concatenate([sums + value, sums - value])
    return np.count_nonzero(np.abs(sums) >= abs(d.sum()) - 1e-9) / sums.size


@pytest.mark.parametrize("seed", range(4))
def test_monte_carlo_sign_flip_agrees_with_the_enumeration(seed):
    """Beyond EXACT_UP_TO the p-value is (1 + hits) / (1 + 20000) over random patterns; at
    M = 21..23 (not multiples of 8, with zeros, discrete and continuous differences) it
    lies within 4 Monte Carlo standard errors of the exact p."""
    rng = np.random.default_rng(100 + seed)
    m = EXACT_UP_TO + 1 + seed % 3
    if seed % 2:
        d = rng.normal(0.15, 1.0, m)
    else:
        d = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5, 0.75], size=m)
    exact = enumerated_sign_flip(d)
    got = sign_flip_p(d)
    assert abs(got - exact) <= 4 * np.sqrt(exact * (1 - exact) / 20000) + 1 / 20000, (got, exact)


def test_sign_flip_type_one_error_is_at_most_alpha_by_enumeration():
    """Under the null (differences symmetric about 0) the test's size is <= alpha exactly:
    for fixed |d| the 2^M sign patterns are equally likely, so the rejection rate is the
    share of patterns with p <= alpha. Enumerated for M = 6..20 and several |d|: every
    pattern's p by the definition (sorting the 2^M sums), checked against sign_flip_p on
    a sample of patterns."""
    rng = np.random.default_rng(11)
    for m in range(6, 21):
        magnitudes = rng.choice([0.125, 0.25, 0.5, 1.0], size=m)
        signs = 1 - 2 * ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1)
        sums = np.abs(signs @ magnitudes)
        ranked = np.sort(sums)
        p = (ranked.size - np.searchsorted(ranked, sums - 1e-9, side="left")) / ranked.size
        assert np.mean(p <= 0.05) <= 0.05 + 1e-12, m
        for row in rng.integers(0, 2 ** m, size=5):
            assert sign_flip_p(signs[row] * magnitudes) == pytest.approx(p[row]), (m, row)


@pytest.mark.slow
@pytest.mark.parametrize("m", [10, 20, 30])
def test_t_interval_covers_at_the_nominal_rate(m):
    """Seeded simulation: questions drawn with Beta(0.7, 1.2) success rates, model B 0.05
    worse (floored at 0), 8 samples each; the 95% t interval of Pass@1 covers the population
    difference E[min(p, 0.05)] (the questions are a sample: the target is the population's)
    93-97% of 800 replications; the normal reference at M = 10 covers less."""
    from scipy import integrate

    truth = integrate.quad(lambda x: min(x, 0.05) * sps.beta.pdf(x, 0.7, 1.2), 0, 1,
                           points=[0.05])[0]
    rng = np.random.default_rng(2000 + m)
    covered, covered_normal, reps = 0, 0, 800
    for _ in range(reps):
        p = rng.beta(0.7, 1.2, size=m)
        q = np.clip(p - 0.05, 0, 1)
        A = (rng.random((m, 8)) < p[:, None]).astype(int)
        B = (rng.random((m, 8)) < q[:, None]).astype(int)
        c = quiet(kpass.compare, kpass.pass_at_k, A, B, 1)
        z = quiet(kpass.compare, kpass.pass_at_k, A, B, 1, reference="normal")
        covered += c.lo <= truth <= c.hi
        covered_normal += z.lo <= truth <= z.hi
    assert 0.93 <= covered / reps <= 0.97, covered / reps
    if m == 10:
        assert covered_normal < covered


@pytest.mark.slow
def test_clustered_t_interval_at_ten_clusters():
    """10 clusters of 5 questions sharing a cluster effect on B: the clustered t interval
    with G - 1 = 9 df covers the population difference 92-97.5% of 500 replications."""

    def draw(rng, clusters):
        labels = np.repeat(np.arange(clusters), 5)
        effect = rng.normal(0, 0.08, size=clusters)[labels]
        p = np.clip(rng.beta(2, 2, size=labels.size), 0.02, 0.98)
        return p, np.clip(p - 0.04 + effect, 0, 1)

    p, q = draw(np.random.default_rng(1), 200_000)  # the population difference, to 1e-4
    truth = float(np.mean(p - q))
    rng = np.random.default_rng(77)
    labels = [g for g in range(10) for _ in range(5)]
    covered, reps = 0, 500
    for _ in range(reps):
        p, q = draw(rng, 10)
        A = (rng.random((50, 6)) < p[:, None]).astype(int)
        B = (rng.random((50, 6)) < q[:, None]).astype(int)
        c = quiet(kpass.compare, kpass.pass_at_k, A, B, 1, clusters=labels)
        covered += c.lo <= truth <= c.hi
    assert c.df == 9
    assert 0.92 <= covered / reps <= 0.975, covered / reps


def test_small_sample_warning_fires_exactly_when_promised():
    rng = np.random.default_rng(3)
    big_a, big_b = rng.integers(0, 2, size=(30, 4)), rng.integers(0, 2, size=(30, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", kpass.SmallSampleWarning)
        kpass.compare(kpass.pass_at_k, big_a, big_b, 1)  # 30 questions, estimates mid-range
    with pytest.warns(kpass.SmallSampleWarning, match="only 29 questions"):
        kpass.compare(kpass.pass_at_k, big_a[:29], big_b[:29], 1)
    labels = [q % 29 for q in range(30)]
    with pytest.warns(kpass.SmallSampleWarning, match="only 29 clusters"):
        kpass.compare(kpass.pass_at_k, big_a, big_b, 1, clusters=labels)
    hard_a = np.zeros((60, 8), dtype=int)
    hard_a[:4, :] = 1  # Pass^8 = 4/60: within 5 questions of 0
    hard_a[4:34, :3] = 1  # (Pass@4 is about 0.53)
    hard_b = np.zeros((60, 8), dtype=int)
    hard_b[:2, :] = 1
    hard_b[10:40, :4] = 1
    with pytest.warns(kpass.SmallSampleWarning, match="within 5 questions' worth of 0 or 1"):
        kpass.compare(kpass.pass_hat_k, hard_a, hard_b, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kpass.SmallSampleWarning)
        kpass.compare(kpass.pass_at_k, hard_a, hard_b, 4)  # 0.53 and 0.53: not near


def test_shared_compares_on_the_common_questions():
    a = kpass.BinaryCounts([4] * 6, [1, 2, 3, 4, 0, 2], ids=list("abcdef"))
    b = kpass.BinaryCounts([4] * 5, [0, 2, 3, 1, 4], ids=list("fedcx"))
    with pytest.raises(ValueError, match="pass shared=True"):
        kpass.compare(kpass.pass_at_k, a, b, 1)
    c = quiet(kpass.compare, kpass.pass_at_k, a, b, 1, shared=True)
    common = {"c": (3, 1), "d": (4, 3), "e": (0, 2), "f": (2, 0)}
    assert c.questions == 4
    assert c.difference == pytest.approx(np.mean([(x - y) / 4 for x, y in common.values()]))
    with pytest.raises(ValueError, match="needs question ids"):
        kpass.compare(kpass.pass_at_k, [[1, 0]], [[0, 1]], 1, shared=True)


def pilot(rng, rates, n=8):
    return (rng.random((rates.size, n)) < rates[:, None]).astype(int)


def test_plan_says_what_rests_on_the_beta_model_and_refuses_instead_of_none():
    rng = np.random.default_rng(21)
    R = pilot(rng, rng.beta(1.5, 2.0, 200))
    with warnings.catch_warnings():
        warnings.simplefilter("error", kpass.SmallSampleWarning)  # 200 questions, Beta: quiet
        plan = kpass.plan(kpass.pass_at_k, R, 1)
    assert plan.distribution == "beta-binomial" and len(plan.fit_p_values) == 1
    assert plan.fit_p_values[0] is not None and plan.fit_p_values[0] > 0.01
    with pytest.raises(ValueError, match="questions_for"):
        plan.samples_for(0.001, questions=50)
    with pytest.raises(ValueError, match="largest=8"):
        plan.samples_for(0.05, questions=200, largest=8)
    n = plan.samples_for(0.05, questions=200)
    q = sps.t.ppf(0.975, 199)

    def power(se):  # the t test's power on 200 questions (scipy.stats.nct)
        return sps.nct.sf(q, 199, 0.05 / se) + sps.nct.cdf(-q, 199, 0.05 / se)

    assert n > 8 and power(plan.se(200, n)) >= 0.8 > power(plan.se(200, n - 1))
    with pytest.warns(kpass.SmallSampleWarning, match="only 20 questions"):
        kpass.plan(kpass.pass_at_k, R[:20], 1)


@pytest.mark.slow
def test_beta_binomial_fit_check_size_and_power():
    """Seeded: pilots from a Beta population are flagged (p < 0.01) in at most 4% of 150;
    pilots from an easy/impossible mixture (40% never solved, 40% always, 20% at 0.5) in at
    least 90% of 60."""
    rng = np.random.default_rng(8)
    flagged = 0
    for _ in range(150):
        plan = quiet(kpass.plan, kpass.pass_at_k, pilot(rng, rng.beta(0.8, 1.1, 200)), 1)
        flagged += plan.fit_p_values[0] is not None and plan.fit_p_values[0] < 0.01
    assert flagged / 150 <= 0.04
    caught = 0
    for _ in range(60):
        rates = rng.choice([0.0, 1.0, 0.5], p=[0.4, 0.4, 0.2], size=200)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            kpass.plan(kpass.pass_at_k, pilot(rng, rates), 1)
        caught += any("beta-binomial" in str(w.message) for w in seen)
    assert caught / 60 >= 0.9
