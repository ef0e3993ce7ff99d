"""kpass.plan without a pilot: the variance model, the t test's sizes, bad input, simulation.

References: scipy.integrate (the Pass@1 variance written out as integrals over the
logit-normal questions), brute-force Monte Carlo of per-question values from the metric
functions, scipy.stats.nct (power of the t test), and seeded simulation of the design
run through kpass.compare (benchmarks/bench_plan.py).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate
from scipy import stats as sps
from scipy.special import expit

import kpass
from kpass.stats.design import DEFAULT_SPREAD, logit_normal_spread

ROOT = Path(__file__).resolve().parents[2]


def scratch(**overrides):
    options = dict(k=1, baseline=0.6, difference=0.05, samples=4)
    options.update(overrides)
    metric = options.pop("metric", kpass.pass_at_k)
    return kpass.plan(metric, **options)


def t_power(m, delta, sd, alpha=0.05):
    """Two-sided one-sample t test's power on m values (scipy.stats.nct)."""
    df = m - 1
    q = sps.t.ppf(1 - alpha / 2, df)
    nc = delta * math.sqrt(m) / sd
    return sps.nct.sf(q, df, nc) + sps.nct.cdf(-q, df, nc)


def locations(design):
    """mu_A, mu_B of Pass@1: E[expit(mu + spread Z)] = value (trapezoid rule, brentq)."""
    from scipy.optimize import brentq

    grid = np.linspace(-12, 12, 4001)
    weight = sps.norm.pdf(grid) * (grid[1] - grid[0])

    def mean(mu):
        return float(expit(mu + design.spread * grid) @ weight)

    targets = (design.baseline, design.baseline + design.difference)
    return [brentq(lambda mu, v=v: mean(mu) - v, -30, 30, xtol=1e-13) for v in targets]


@pytest.mark.parametrize("samples, correlation", [(1, 0.5), (4, 0.0), (8, 0.9)])
def test_pass_at_1_variance_against_integrals(samples, correlation):
    # s = c / n: Var(d) = Var(p_B - p_A) + E[p_A (1 - p_A)] / n + E[p_B (1 - p_B)] / n
    design = scratch(samples=samples, correlation=correlation, spread=1.5)
    mu_a, mu_b = locations(design)
    rho, rest, sd = correlation, math.sqrt(1 - correlation ** 2), design.spread

    def one(f):
        return integrate.quad(lambda z: f(z) * sps.norm.pdf(z), -12, 12, epsabs=1e-13)[0]

    pa = lambda z: expit(mu_a + sd * z)  # noqa: E731
    pb = lambda z: expit(mu_b + sd * z)  # noqa: E731
    grid = np.linspace(-9, 9, 1201)  # E[p_A p_B]: the trapezoid rule on a 2-D grid
    weight = sps.norm.pdf(grid) * (grid[1] - grid[0])
    inner = expit(mu_b + sd * (rho * grid[:, None] + rest * grid[None, :])) @ weight
    cross = float((pa(grid) * inner) @ weight)
    second_a, second_b = one(lambda z: pa(z) ** 2), one(lambda z: pb(z) ** 2)
    within = (design.baseline - second_a + design.baseline + design.difference
              - second_b) / samples
    variance = second_a + second_b - 2 * cross - design.difference ** 2 + within
    assert design.sd == pytest.approx(math.sqrt(variance), rel=1e-6)


@pytest.mark.parametrize("metric, k, kwargs", [
    (kpass.pass_hat_k, 4, {}), (kpass.maj_at_k, 3, {}), (kpass.g_pass_at_k_tau, 4, {"tau": 0.5}),
    (kpass.auc_at_k, 4, {}), (kpass.mg_pass_at_k, 4, {})])
def test_mean_and_sd_of_the_difference_against_brute_force(metric, k, kwargs):
    # 200,000 simulated questions, per-question values from the metric function itself
    design = kpass.plan(metric, k=k, baseline=0.45, difference=0.1, samples=6, spread=2.5,
                        correlation=0.6, **kwargs)
    from kpass.stats.design import _Population

    population = _Population(metric, k, 6, (), kwargs, design.spread, design.correlation)
    mu_a = population.location(design.baseline, "baseline", design.label)
    mu_b = population.location(design.baseline + design.difference, "b", design.label)
    rng = np.random.default_rng(5)
    m = 200_000
    z1, z2 = rng.standard_normal(m), rng.standard_normal(m)
    p_a = expit(mu_a + 2.5 * z1)
    p_b = expit(mu_b + 2.5 * (0.6 * z1 + 0.8 * z2))
    runs = [kpass.BinaryCounts(np.full(m, 6), rng.binomial(6, p)) for p in (p_a, p_b)]
    values = [np.asarray(metric(r, k, per_question=True, **kwargs)) for r in runs]
    d = values[1] - values[0]
    assert values[0].mean() == pytest.approx(0.45, abs=3e-3)
    assert d.mean() == pytest.approx(0.1, abs=3e-3)
    assert d.std() == pytest.approx(design.sd, rel=8e-3)


@pytest.mark.parametrize("difference, confidence, power", [
    (0.05, 0.95, 0.8), (0.15, 0.9, 0.9), (0.02, 0.99, 0.5)])
def test_questions_are_the_smallest_with_the_t_tests_power(difference, confidence, power):
    design = scratch(difference=difference, confidence=confidence, power=power)
    m = design.questions
    assert t_power(m, difference, design.sd, 1 - confidence) >= power
    assert t_power(m - 1, difference, design.sd, 1 - confidence) < power
    assert design.achieved == pytest.approx(t_power(m, difference, design.sd, 1 - confidence),
                                            abs=1e-9)


def test_detectable_difference_inverts_the_questions():
    design = scratch(difference=None, questions=300)
    assert design.solved == "difference" and design.questions == 300
    assert t_power(300, design.difference, design.sd) == pytest.approx(0.8, abs=1e-6)
    assert scratch(difference=design.difference * 1.001).questions <= 300
    assert scratch(difference=design.difference * 0.99).questions > 300
    curve = design.curve([50, 100, 300, 1000])
    assert [m for m, _ in curve] == [50, 100, 300, 1000]
    # more questions, a smaller detectable difference
    assert all(a[1] > b[1] for a, b in zip(curve, curve[1:], strict=False))
    assert curve[2][1] == pytest.approx(design.difference, rel=1e-8)


def test_more_correlation_and_more_samples_need_fewer_questions():
    sizes = [scratch(correlation=r).questions for r in (0.0, 0.5, 0.9)]
    assert sizes[0] > sizes[1] > sizes[2]
    sizes = [scratch(samples=n).questions for n in (1, 4, 16)]
    assert sizes[0] > sizes[1] > sizes[2]


def test_default_spread_is_the_tau_bench_fit():
    # the maximum-likelihood logit-normal fit, its likelihood by the trapezoid rule on a
    # fine grid (not kpass's Gauss-Hermite nodes) over the five distinct counts
    from scipy.optimize import minimize
    from scipy.special import comb

    correct = np.array([sum(r) for r in _tau_bench()])
    counts = np.bincount(correct, minlength=5)
    z = np.linspace(-14, 14, 8001)
    density = sps.norm.pdf(z) * (z[1] - z[0])

    def loss(theta):
        p = expit(theta[0] + math.exp(theta[1]) * z)
        like = [comb(4, c) * (p ** c * (1 - p) ** (4 - c)) @ density for c in range(5)]
        return -float(counts @ np.log(like))

    reference = minimize(loss, [0.0, 0.0], method="Nelder-Mead",
                         options={"xatol": 1e-9, "fatol": 1e-12}).x
    fitted = logit_normal_spread(kpass.BinaryCounts(np.full(50, 4), correct))
    assert fitted[0] == pytest.approx(reference[0], abs=2e-3)
    assert fitted[1] == pytest.approx(math.exp(reference[1]), abs=2e-3)
    assert fitted[1] == pytest.approx(2.04, abs=0.005)
    assert DEFAULT_SPREAD == round(fitted[1], 1)
    assert scratch().spread == DEFAULT_SPREAD and scratch().correlation == 0.5


def _tau_bench():
    from kpass.data import tau_bench_outcomes

    return [list(row) for row in tau_bench_outcomes()]


def test_str_and_dict():
    design = scratch()
    lines = str(design).splitlines()
    assert repr(design) == str(design)
    assert len(lines) == 2
    assert lines[0].startswith(f"Questions needed: {design.questions:,} (Pass@1 0.600 vs 0.650")
    assert "4 samples per question" in lines[1]
    other = str(scratch(difference=None, questions=200)).splitlines()[0]
    assert other.startswith("Detectable difference: 0.")
    assert "with 200 questions" in other
    fields = design.as_dict()
    assert fields["questions"] == design.questions and "_sd_at" not in fields


@pytest.mark.parametrize("overrides, error, words", [
    ({"baseline": 1.2}, ValueError, "baseline"),
    ({"baseline": None}, ValueError, "baseline"),
    ({"difference": 0.5}, ValueError, "baseline + difference"),
    ({"difference": 0}, ValueError, "difference"),
    ({"questions": 100}, ValueError, "one of `difference`"),
    ({"difference": None}, ValueError, "one of `difference`"),
    ({"samples": 0}, ValueError, "samples"),
    ({"k": 4, "samples": 2}, ValueError, "samples"),
    ({"samples": 2.5}, ValueError, "samples"),
    ({"correlation": 1.5}, ValueError, "correlation"),
    ({"spread": -1}, ValueError, "spread"),
    ({"power": 1.0}, ValueError, "power"),
    ({"confidence": 0}, ValueError, "confidence"),
    ({"k": 1.5}, TypeError, "k"),
    ({"k": 1, "metric": kpass.mg_pass_at_k}, ValueError, "does not depend"),
    ({"difference": None, "questions": 3}, ValueError, "questions"),
    ({"difference": None, "questions": 1}, ValueError, "questions"),
])
def test_bad_input_names_the_argument(overrides, error, words):
    with pytest.raises(error, match=words.replace("+", r"\+")):
        scratch(**overrides)


def test_a_pilot_and_assumed_numbers_are_not_mixed():
    R = np.random.default_rng(1).integers(0, 2, (40, 4))
    with pytest.raises(ValueError, match="`baseline` plans without a pilot \\(got baseline=0.5"):
        kpass.plan(kpass.pass_at_k, R, 1, baseline=0.5)
    assert isinstance(kpass.plan(kpass.pass_at_k, R, 1), kpass.Plan)


# ----------------------------------------------------------------------------- simulation


def _bench():
    spec = importlib.util.spec_from_file_location("bench_plan",
                                                  ROOT / "benchmarks" / "bench_plan.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("row, reps", [(0, 800), (4, 800), (2, 800)])
def test_simulated_power_keeps_the_promise(row, reps):
    # Seeded runs of the design through kpass.compare at the planned number of questions:
    # power within 5 points of the promise; benchmarks/bench_plan.py prints the full table
    bench = _bench()
    design = bench.plan_of(bench.DESIGNS[row])
    metric, kwargs = bench.DESIGNS[row][1], bench.DESIGNS[row][8]
    realised = bench.simulate(design, design.difference, reps, 1000 + row, metric, **kwargs)
    assert abs(realised - design.achieved) <= 0.05, (design.questions, realised)


@pytest.mark.slow
@pytest.mark.parametrize("row", [2, 4])  # 40 questions (the t reference's hardest), Pass^4
def test_simulated_type_one_error_is_near_the_level(row):
    bench = _bench()
    design = bench.plan_of(bench.DESIGNS[row])
    rate = bench.simulate(design, 0.0, 1000, 2000 + row, bench.DESIGNS[row][1])
    assert 0.03 <= rate <= 0.07, rate
