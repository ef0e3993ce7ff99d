"""Seeded simulations from a super-population: the statistical claims of kpass.stats.

Questions have success rates p_q drawn from a population; each replication draws M new
questions and n samples of each. The population value of a metric is computed
independently (Beta-binomial expectation of its credit, or quadrature), never with kpass.
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats

import kpass

REPLICATIONS = 1000  # coverage sd about 0.7 points: 93-97% is +/- 2.9 sd around 95%


def population_value(credit, a, b):
    """E[g(p)] for p ~ Beta(a, b): g's credit A_j against BetaBinomial(k, a, b)."""
    k = len(credit) - 1
    return float(np.dot(credit, stats.betabinom.pmf(np.arange(k + 1), k, a, b)))


def simulate_counts(rng, p, n):
    return kpass.BinaryCounts(np.full(p.size, n), rng.binomial(n, p))


CASES = [  # (metric, k, extra args, credit A_0..A_k)
    (kpass.pass_at_k, 4, (), [0, 1, 1, 1, 1]),
    (kpass.g_pass_at_k_tau, 4, (0.5,), [0, 0, 1, 1, 1]),
    (kpass.maj_at_k, 5, (), [0, 0, 0, 1, 1, 1]),
]


@pytest.mark.slow
@pytest.mark.parametrize("metric, k, extra, credit", CASES,
                         ids=lambda x: getattr(x, "__name__", ""))
def test_intervals_over_questions_cover_the_population_value(metric, k, extra, credit):
    a, b, m, n = 1.2, 1.8, 150, 8
    truth = population_value(credit, a, b)
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(REPLICATIONS):
        counts = simulate_counts(rng, rng.beta(a, b, size=m), n)
        estimate = metric(counts, k, *extra)
        se = kpass.standard_error(metric, counts, k, *extra)
        covered += abs(estimate - truth) <= 1.959964 * se
    assert 0.93 <= covered / REPLICATIONS <= 0.97


def logit_normal_population(mu, sd):
    """Pass@1 population value: E[expit(mu + z)], z ~ N(0, sd^2), by quadrature."""
    def integrand(z):
        return stats.norm.pdf(z, scale=sd) / (1.0 + math.exp(-(mu + z)))

    return integrate.quad(integrand, -12 * sd, 12 * sd)[0]


@pytest.mark.slow
def test_clustered_se_restores_coverage_when_questions_come_in_groups():
    # 60 passages of 5 questions each; the passage carries most of the difficulty.
    groups, size, n = 60, 5, 4
    mu, sd_group, sd_question = -0.2, 1.4, 0.3
    truth = logit_normal_population(mu, math.hypot(sd_group, sd_question))
    labels = np.repeat(np.arange(groups), size)
    rng = np.random.default_rng(5)
    plain = clustered = 0
    for _ in range(REPLICATIONS):
        logits = (mu + np.repeat(rng.normal(0, sd_group, groups), size)
                  + rng.normal(0, sd_question, groups * size))
        counts = simulate_counts(rng, 1 / (1 + np.exp(-logits)), n)
        estimate = kpass.pass_at_k(counts, 1)
        plain += abs(estimate - truth) <= 1.959964 * kpass.standard_error(kpass.pass_at_k,
                                                                        counts, 1)
        clustered += abs(estimate - truth) <= 1.959964 * kpass.standard_error(
            kpass.pass_at_k, counts, 1, clusters=labels)
    assert plain / REPLICATIONS < 0.85  # the plain SE under-covers badly
    assert 0.93 <= clustered / REPLICATIONS <= 0.97


def paired_runs(rng, m, n, shift):
    """Two models on the same questions: B's logit is A's minus `shift`."""
    logits = rng.normal(0.0, 1.5, size=m)
    p_a = 1 / (1 + np.exp(-logits))
    p_b = 1 / (1 + np.exp(-(logits - shift)))
    return simulate_counts(rng, p_a, n), simulate_counts(rng, p_b, n)


@pytest.mark.slow
def test_paired_test_has_its_nominal_type_one_error_under_a_paired_null():
    rng = np.random.default_rng(17)
    rejections = 0
    for _ in range(REPLICATIONS):
        run_a, run_b = paired_runs(rng, 120, 4, shift=0.0)
        rejections += kpass.compare(kpass.pass_at_k, run_a, run_b, 2).p_value < 0.05
    assert 0.03 <= rejections / REPLICATIONS <= 0.07


@pytest.mark.slow
def test_paired_test_is_more_powerful_than_the_unpaired_one():
    rng = np.random.default_rng(23)
    paired = unpaired = 0
    for _ in range(REPLICATIONS):
        run_a, run_b = paired_runs(rng, 120, 4, shift=0.5)
        c = kpass.compare(kpass.pass_at_k, run_a, run_b, 2)
        paired += c.p_value < 0.05
        unpaired += abs(c.difference) / c.se_unpaired > 1.959964
    assert paired / REPLICATIONS > unpaired / REPLICATIONS + 0.15
    assert paired / REPLICATIONS > 0.5


@pytest.mark.slow
@pytest.mark.parametrize("metric, k, extra", [(kpass.pass_at_k, 4, ()), (kpass.maj_at_k, 3, ()),
                                               (kpass.pass_at_k, 1, ())])
@pytest.mark.parametrize("questions, samples", [(300, 16), (1200, 6)])
def test_plan_predicts_the_se_at_another_size(metric, k, extra, questions, samples):
    a, b = 0.8, 1.1
    rng = np.random.default_rng(29)
    pilot = simulate_counts(rng, rng.beta(a, b, size=1500), 8)
    predicted = kpass.plan(metric, pilot, k, *extra).se(questions, samples)
    estimates = [metric(simulate_counts(rng, rng.beta(a, b, size=questions), samples), k, *extra)
                 for _ in range(REPLICATIONS)]
    assert predicted == pytest.approx(float(np.std(estimates, ddof=1)), rel=0.10)


@pytest.mark.slow
@pytest.mark.parametrize("a, b", [(2.0, 3.0), (0.3, 0.5)])
def test_plan_extrapolates_from_a_few_sample_pilot(a, b):
    """Pilot with 4 samples per question, plan at 16 and 64: the fitted population keeps the
    prediction within 10% (a uniform prior per question was 13-16% off at (2, 3))."""
    from scipy.special import comb

    rng = np.random.default_rng(101)
    pilot = simulate_counts(rng, rng.beta(a, b, size=3000), 4)
    plan = kpass.plan(kpass.pass_at_k, pilot, 3)
    for questions, samples in ((500, 16), (300, 64)):
        c = rng.binomial(samples, rng.beta(a, b, size=(2000, questions)))
        estimates = (1 - comb(samples - c, 3) / comb(samples, 3)).mean(axis=1)
        assert plan.se(questions, samples) == pytest.approx(float(np.std(estimates, ddof=1)),
                                                            rel=0.10)


@pytest.mark.slow
def test_paired_plan_predicts_the_se_of_the_difference():
    rng = np.random.default_rng(31)
    pilot_a, pilot_b = paired_runs(rng, 1500, 8, shift=0.3)
    predicted = kpass.plan(kpass.pass_at_k, pilot_a, 2, R_b=pilot_b).se(400, 4)
    differences = []
    for _ in range(REPLICATIONS):
        run_a, run_b = paired_runs(rng, 400, 4, shift=0.3)
        differences.append(kpass.pass_at_k(run_a, 2) - kpass.pass_at_k(run_b, 2))
    assert predicted == pytest.approx(float(np.std(differences, ddof=1)), rel=0.10)
