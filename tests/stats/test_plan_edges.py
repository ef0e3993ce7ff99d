"""kpass.plan at its edges: ids, sizes a user may type, the t reference, a pilot's noise.

References: scipy.stats.nct (power of the t test), exact Pass@1 variances written out,
scipy.stats.chi2, and seeded simulation of the t test the plan is for.
"""

from __future__ import annotations

import math
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy import stats as sps
from scipy.special import expit, logit

import kpass
from kpass._core.counting.counts import BinaryCounts
from kpass.stats.planning import MAX_SAMPLES

RNG = np.random.default_rng(2028)


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        return call(*args, **kwargs)


def pilot_pair(rng, m, n=8, shift=0.6):
    rates = rng.beta(3, 3, m)
    return rng.binomial(n, rates), rng.binomial(n, expit(logit(rates) - shift))


def t_power(m, delta, sd, alpha=0.05):
    """Two-sided one-sample t test's power on m values (scipy.stats.nct)."""
    df = m - 1
    q = sps.t.ppf(1 - alpha / 2, df)
    nc = delta * math.sqrt(m) / sd
    return sps.nct.sf(q, df, nc) + sps.nct.cdf(-q, df, nc)


@pytest.fixture(scope="module")
def paired():
    ca, cb = pilot_pair(np.random.default_rng(1), 200)
    ids = [f"q{i:03d}" for i in range(200)]
    a = BinaryCounts(np.full(200, 8), ca, ids=ids)
    b = BinaryCounts(np.full(200, 8), cb, ids=ids)
    return a, b


def test_a_paired_plan_matches_by_id_not_by_row(paired):
    a, b = paired
    order = np.random.default_rng(2).permutation(200)
    reference = kpass.plan(kpass.pass_at_k, a, 1, R_b=b)
    shuffled = kpass.plan(kpass.pass_at_k, a, 1, R_b=b.select(order))
    assert shuffled.questions_for(0.05) == reference.questions_for(0.05)
    # the paired between + within is the variance of d_q = (c_a - c_b) / 8, by law of total
    # variance: pilot se^2 * M equals the sample variance of d_q
    d = (a.n_correct - b.n_correct) / 8
    assert shuffled.se() ** 2 * 200 == pytest.approx(np.var(d, ddof=1), rel=1e-9)
    def rows(counts):  # the same outcomes as a 0/1 array, which carries no ids
        return (counts.n_correct[:, None] >= np.arange(1, 9)).astype(int)

    rows_only = kpass.plan(kpass.pass_at_k, rows(a), 1, R_b=rows(b.select(order)))
    assert rows_only.questions_for(0.05) != reference.questions_for(0.05)  # by row: wrong
    other = BinaryCounts(b.n_samples, b.n_correct, ids=[f"x{i}" for i in range(200)])
    with pytest.raises(ValueError, match=r"200 ids of `R` are not in `R_b` \(e.g. \['q000'"):
        kpass.plan(kpass.pass_at_k, a, 1, R_b=other)
    with pytest.raises(ValueError, match="only some runs carry question ids"):
        kpass.plan(kpass.pass_at_k, a, 1, R_b=BinaryCounts(b.n_samples, b.n_correct))


@pytest.mark.parametrize("call, argument, value", [
    (lambda p: p.questions_for(0.05, samples=10**9), "samples", "1000000000"),
    (lambda p: p.questions_for(0.05, samples=math.inf), "samples", "inf"),
    (lambda p: p.se(questions=100, samples=10**7), "samples", "10000000"),
    (lambda p: p.se(samples=2.5), "samples", "2.5"),
    (lambda p: p.within_at(MAX_SAMPLES + 1), "samples", str(MAX_SAMPLES + 1)),
    (lambda p: p.samples_for(0.1, 100, largest=0), "largest", "0"),
    (lambda p: p.samples_for(0.1, 100, largest=10**12), "largest", "1000000000000"),
    (lambda p: p.questions_for(1e-300), "difference", "1e-300"),
    (lambda p: p.questions_for(1e-9), "difference", "1e-09"),
])
def test_out_of_range_sizes_are_refused_naming_the_argument(paired, call, argument, value):
    plan = kpass.plan(kpass.pass_at_k, *paired[:1], 1)
    with pytest.raises(ValueError) as error:
        call(plan)
    message = str(error.value)
    assert message.startswith(f"`{argument}`") and value in message


def test_the_largest_accepted_samples_stays_small_in_memory(paired):
    plan = kpass.plan(kpass.pass_at_k, paired[0], 4)
    tracemalloc.start()
    se = plan.se(questions=100, samples=MAX_SAMPLES)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 2**20  # bounded: O(MAX_SAMPLES) per block of pilot states
    assert 0 < se < plan.se(questions=100)
    # Pass@1's within(n) = mean E[p(1-p)] / n under each question's fitted posterior
    p1 = kpass.plan(kpass.pass_at_k, paired[0], 1)
    a0, b0 = p1.populations[0]
    a = a0 + paired[0].n_correct
    b = b0 + paired[0].n_samples - paired[0].n_correct
    expected = float(np.mean(a * b / ((a + b) * (a + b + 1)))) / MAX_SAMPLES
    assert p1.within_at(MAX_SAMPLES) == pytest.approx(expected, rel=1e-8)


def test_questions_for_is_the_smallest_m_whose_t_test_has_the_power(paired):
    plan = kpass.plan(kpass.pass_at_k, *paired[:1], 1, R_b=paired[1])
    sd = math.sqrt(plan.between + plan.within)
    for difference, power, alpha in [(0.3, 0.8, 0.05), (0.2, 0.9, 0.05), (0.15, 0.8, 0.01),
                                     (0.05, 0.8, 0.05), (0.5, 0.8, 0.05)]:
        m = plan.questions_for(difference, power=power, confidence=1 - alpha)
        assert t_power(m, difference, sd, alpha) >= power
        if m > 2:
            assert t_power(m - 1, difference, sd, alpha) < power
        z = sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power)
        assert m >= math.ceil(z * z * sd * sd / difference ** 2)  # t never asks for fewer


def test_past_a_million_questions_guenthers_correction_is_used(paired):
    plan = kpass.plan(kpass.pass_at_k, *paired[:1], 1, R_b=paired[1])
    sd2 = plan.between + plan.within
    z_a, z = sps.norm.ppf(0.975), sps.norm.ppf(0.975) + sps.norm.ppf(0.8)
    m = plan.questions_for(2e-4)
    assert m > 10**6 and m == math.ceil(z * z * sd2 / 2e-4 ** 2 + z_a ** 2 / 2)


def test_samples_for_names_largest_and_meets_the_t_power(paired):
    plan = kpass.plan(kpass.pass_at_k, paired[0], 1, R_b=paired[1])
    n = plan.samples_for(0.12, questions=40)
    assert n >= 1
    q = sps.t.ppf(0.975, 39)

    def power(se):
        return sps.nct.sf(q, 39, 0.12 / se) + sps.nct.cdf(-q, 39, 0.12 / se)

    assert power(plan.se(40, n)) >= 0.8
    if n > 1:
        assert power(plan.se(40, n - 1)) < 0.8


def test_pilot_spread_is_the_chi_square_interval_of_a_variance():
    rng = np.random.default_rng(3)
    for m in (10, 30, 200):
        ca, _ = pilot_pair(rng, m)
        plan = quiet(kpass.plan, kpass.pass_at_k, BinaryCounts(np.full(m, 8), ca), 1)
        low, high = plan.pilot_spread
        assert low == pytest.approx((m - 1) / sps.chi2.ppf(0.9, m - 1), rel=1e-10)
        assert high == pytest.approx((m - 1) / sps.chi2.ppf(0.1, m - 1), rel=1e-10)
    text = repr(plan)
    assert text == str(plan) and "_within_at" not in text
    lines = text.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"Plan for pass_at_k at k=1: pilot of {m} questions x 8 samples")
    sd = math.sqrt(plan.between + plan.within)  # the per-question sd the line reports
    assert f"has sd {sd:.3f}" in lines[0]
    assert f"factor {low:.2f}-{high:.2f} (80%)" in lines[1]
    ca, cb = pilot_pair(rng, 30)
    paired = quiet(kpass.plan, kpass.pass_at_k, BinaryCounts(np.full(30, 8), ca), 1,
                   R_b=BinaryCounts(np.full(30, 8), cb))
    assert repr(paired).startswith("Plan for pass_at_k at k=1 (paired): pilot of 30 questions")
    assert "a question's difference has sd" in repr(paired)


@pytest.mark.slow
def test_the_planned_questions_give_the_power_by_simulation():
    """Seeded: the t plan's M achieves its power (nct's value +-2.5 points, >= target - 2) and
    the z plan falls short at small M; the t test's error rate under the null stays 3-7%."""
    rng = np.random.default_rng(2029)
    reps = 3000
    for shift in (0.9, 0.6):  # planned M = 14 and 28
        ca, cb = pilot_pair(rng, 400_000, shift=shift)
        d = (ca - cb) / 8
        delta, sd = float(d.mean()), float(d.std())
        a = BinaryCounts(np.full(d.size, 8), ca)
        b = BinaryCounts(np.full(d.size, 8), cb)
        plan = kpass.plan(kpass.pass_at_k, a, 1, R_b=b)
        m = plan.questions_for(delta)
        z = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)
        m_z = math.ceil(z * z * sd * sd / delta ** 2)
        assert m > m_z
        for size, expected in ((m, t_power(m, delta, sd)), (m_z, t_power(m_z, delta, sd))):
            ca, cb = pilot_pair(rng, size * reps, shift=shift)
            diffs = ((ca - cb) / 8).reshape(reps, size)
            rejected = float(np.mean(sps.ttest_1samp(diffs, 0.0, axis=1).pvalue < 0.05))
            assert abs(rejected - expected) < 0.025, (shift, size, rejected, expected)
            if size == m:
                assert rejected >= 0.78
            else:
                assert rejected < 0.8  # the normal plan misses its power at small M
        ca, cb = pilot_pair(rng, m * reps, shift=0.0)
        null = ((ca - cb) / 8).reshape(reps, m)
        assert 0.03 <= float(np.mean(sps.ttest_1samp(null, 0.0, axis=1).pvalue < 0.05)) <= 0.07
