"""Plan.assume (a plan for one model from an assumed value and spread, no pilot),
Plan.questions_for_half_width and Plan.grow (new questions or more samples).

References independent of kpass: scipy quadrature and root finding for the logit-normal
moments, closed forms of the per-question estimators (math.comb), the t quantile searched
question by question, a brute-force search over samples per question, and seeded
simulation of the SE realised.
"""

import dataclasses
import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from scipy.special import expit

import kpass


def _g(name, k, p):
    return 1.0 - (1.0 - p) ** k if name == "pass_at_k" else p ** k  # p a float or an array


def _s_table(name, k, n):
    """The unbiased per-question estimate at c = 0..n correct of n (closed forms)."""
    total = math.comb(n, k)
    if name == "pass_at_k":
        return np.array([1.0 - math.comb(n - c, k) / total for c in range(n + 1)])
    return np.array([math.comb(c, k) / total for c in range(n + 1)])


def _phi(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _location(name, k, baseline, spread):
    def mean(mu):
        return integrate.quad(lambda z: _g(name, k, expit(mu + spread * z)) * _phi(z),
                              -12, 12, epsabs=1e-13, limit=200)[0]

    return optimize.brentq(lambda mu: mean(mu) - baseline, -30, 30, xtol=1e-13)


def _reference(name, k, baseline, spread, n):
    """(between, within(n)) by quadrature over z ~ N(0, 1), logit p = mu + spread z."""
    mu = _location(name, k, baseline, spread)
    table = _s_table(name, k, n) ** 2

    def expect(f):
        return integrate.quad(lambda z: f(expit(mu + spread * z)) * _phi(z), -12, 12,
                              epsabs=1e-14, limit=400)[0]

    g2 = expect(lambda p: _g(name, k, p) ** 2)
    c = np.arange(n + 1)
    choose = np.array([math.comb(n, j) for j in c], dtype=float)
    s2 = expect(lambda p: (choose * p ** c * (1.0 - p) ** (n - c)) @ table)
    return g2 - baseline ** 2, s2 - g2


METRICS = {"pass_at_k": kpass.pass_at_k, "pass_hat_k": kpass.pass_hat_k}


@pytest.mark.parametrize("name, k", [("pass_at_k", 1), ("pass_at_k", 4), ("pass_hat_k", 4)])
@pytest.mark.parametrize("spread", [0.5, 2.0, 4.0])
def test_between_and_within_match_quadrature(name, k, spread):
    plan = kpass.Plan.assume(METRICS[name], k, baseline=0.3, samples=8, spread=spread)
    between, within = _reference(name, k, 0.3, spread, 8)
    assert plan.between == pytest.approx(between, rel=1e-6, abs=1e-10)
    assert plan.within == pytest.approx(within, rel=1e-6, abs=1e-10)
    assert plan.within_at(40) == pytest.approx(_reference(name, k, 0.3, spread, 40)[1],
                                               rel=1e-6, abs=1e-10)
    assert (plan.distribution, plan.questions, plan.baseline, plan.spread) == (
        "logit-normal", 0, 0.3, spread)
    assert plan.se(400) == pytest.approx(math.sqrt((between + within) / 400), rel=1e-6)


def test_an_infinite_spread_is_the_ceiling_of_every_spread():
    """spread=inf: each question always or never solved; no spread gives more variance."""
    cautious = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, spread=math.inf)
    assert cautious.between == pytest.approx(0.21, abs=1e-15)
    assert cautious.within_at(4) == cautious.within_at(100) == 0.0
    for spread in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0):
        for n in (4, 8, 64):
            plan = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, spread=spread)
            assert plan.between + plan.within_at(n) <= 0.21 + 1e-9
    # at n = k a question's estimate is one Bernoulli draw: variance 0.21 whatever the spread
    assert kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, spread=1.0).se(100) == \
        pytest.approx(math.sqrt(0.21 / 100), rel=1e-9)


@pytest.mark.parametrize("half_width, confidence", [(0.05, 0.95), (0.02, 0.95), (0.1, 0.9),
                                                    (0.3, 0.95)])
def test_questions_for_half_width_is_the_smallest_by_search(half_width, confidence):
    plan = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, samples=8)
    variance = plan.between + plan.within
    found = plan.questions_for_half_width(half_width, confidence=confidence)
    m = 2
    while stats.t.ppf(0.5 + confidence / 2, m - 1) * math.sqrt(variance / m) > half_width:
        m += 1
    assert found == m


def test_half_width_from_a_pilot_uses_the_pilots_variance():
    rng = np.random.default_rng(5)
    R = (rng.random((80, 4)) < rng.beta(2, 3, 80)[:, None]).astype(int)
    plan = kpass.plan(kpass.pass_at_k, R, 1)
    found = plan.questions_for_half_width(0.04)
    sd = float(np.std(np.mean(R, axis=1), ddof=1))
    assert stats.t.ppf(0.975, found - 1) * sd / math.sqrt(found) <= 0.04
    assert stats.t.ppf(0.975, found - 2) * sd / math.sqrt(found - 1) > 0.04


@pytest.mark.parametrize("kwargs, error, needle", [
    ({"baseline": 0.0}, ValueError, "`baseline`"), ({"baseline": 1.0}, ValueError, "`baseline`"),
    ({"baseline": math.nan}, ValueError, "`baseline`"),
    ({"baseline": "x"}, TypeError, "`baseline`"),
    ({"baseline": 0.3, "spread": -1}, ValueError, "`spread`"),
    ({"baseline": 0.3, "spread": 11}, ValueError, "`spread`"),
    ({"baseline": 0.3, "spread": math.nan}, ValueError, "`spread`"),
    ({"baseline": 0.3, "samples": 2}, ValueError, "`samples`"),
    ({"baseline": 0.3, "samples": 4.5}, ValueError, "`samples`")])
def test_bad_assumptions_are_refused_by_name(kwargs, error, needle):
    with pytest.raises(error, match=needle):
        kpass.Plan.assume(kpass.pass_at_k, 4, **kwargs)


def test_bad_metric_k_and_calls_are_refused():
    with pytest.raises(TypeError, match="`metric`"):
        kpass.Plan.assume(kpass.avg, 4, baseline=0.3)
    with pytest.raises(TypeError, match="`k`"):
        kpass.Plan.assume(kpass.pass_at_k, [1, 2], baseline=0.3)
    plan = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3)
    with pytest.raises(ValueError, match="`questions`"):
        plan.se()
    with pytest.raises(ValueError, match="`half_width`"):
        plan.questions_for_half_width(0)
    with pytest.raises(ValueError, match="pilot"):
        plan.grow(100)
    assert "from assumed numbers" in str(plan)


# ----------------------------------------------------------------------------- Plan.grow


def _pilot(k, seed=1, questions=100, samples=4):
    rng = np.random.default_rng(seed)
    rates = rng.beta(2, 3, size=questions)
    R = (rng.random((questions, samples)) < rates[:, None]).astype(int)
    return kpass.plan(kpass.pass_at_k, R, k)


@pytest.mark.parametrize("budget, cost_question", [(400, 0.0), (400, 6.0), (2000, 40.0),
                                                   (30, 12.0)])
def test_grow_pass_at_1_is_the_brute_force_optimum(budget, cost_question):
    """Pass@1: within(n) = within(1) / n; every n' searched by hand."""
    plan = _pilot(1)
    w1, b, m = plan.within_at(1), plan.between, plan.questions
    now = b + w1 / 4
    best = (now / m, 0, 0)
    for n in range(1, budget + 1):
        added = math.floor(budget / (cost_question + n) + 1e-9)
        if added < 1:
            break
        variance = (m * now + added * (b + w1 / n)) / (m + added) ** 2
        if variance < best[0] * (1 - 1e-12):
            best = (variance, added, n)
    new, more = plan.grow(budget, cost_question=cost_question)
    assert (new.questions, new.samples) == best[1:]
    assert new.se == pytest.approx(math.sqrt(best[0]), rel=1e-9)
    extra = budget // m
    assert (more.questions, more.samples) == (m, 4 + extra)
    assert more.se == pytest.approx(math.sqrt((b + w1 / (4 + extra)) / m), rel=1e-9)
    assert new.spent <= budget and more.spent <= budget


def test_grow_refuses_bad_budgets_by_name():
    plan = _pilot(1)
    for kwargs, needle in (({"budget": 0}, "`budget`"), ({"budget": 9, "cost_sample": 0},
                                                         "`cost_sample`"),
                           ({"budget": 9, "cost_question": -1}, "`cost_question`")):
        with pytest.raises(ValueError, match=needle):
            plan.grow(**kwargs)


# ----------------------------------------------------------------------------- simulation


def _realised(name, k, baseline, spread, m, n, replications, rng):
    """sd over replications of the benchmark mean of M fresh questions x n samples."""
    mu = _location(name, k, baseline, spread)
    table = _s_table(name, k, n)
    p = expit(mu + spread * rng.standard_normal((replications, m)))
    estimates = table[rng.binomial(n, p)].mean(axis=1)
    return float(np.std(estimates, ddof=1)), float(np.mean(estimates))


DESIGNS = [("pass_at_k", 4, 0.3, 2.0, 400, 8), ("pass_at_k", 1, 0.6, 1.0, 200, 4),
           ("pass_hat_k", 4, 0.3, 2.0, 300, 8), ("pass_hat_k", 4, 0.1, 0.5, 500, 16),
           ("pass_at_k", 8, 0.8, 3.0, 100, 8)]


@pytest.mark.slow
@pytest.mark.parametrize("design", DESIGNS)
def test_the_se_promised_is_the_se_realised_when_the_assumption_holds(design):
    """4,000 simulated benchmarks drawn from the assumed population: the sd of their
    means is within 6% of Plan.assume's SE (Monte Carlo error of an sd from 4,000 draws:
    about 1.1%), and the means centre on the assumed value."""
    name, k, baseline, spread, m, n = design
    plan = kpass.Plan.assume(METRICS[name], k, baseline=baseline, samples=n, spread=spread)
    sd, mean = _realised(name, k, baseline, spread, m, n, 4000, np.random.default_rng(17))
    assert sd / plan.se(m) == pytest.approx(1.0, abs=0.06)
    assert mean == pytest.approx(baseline, abs=4 * plan.se(m) / math.sqrt(4000))


@pytest.mark.slow
@pytest.mark.parametrize("cost_question", [0.0, 10.0])
def test_the_split_from_assumed_numbers_keeps_its_promise(cost_question):
    """Plan.assume(...).split(6000): its promised SE is realised (within 6%), and the
    neighbouring splits (n - 1, n + 1 samples) realise no smaller SE beyond Monte Carlo error."""
    plan = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, spread=2.0)
    found = plan.split(6000, cost_question=cost_question)
    rng = np.random.default_rng(23)
    sd, _ = _realised("pass_at_k", 4, 0.3, 2.0, found.questions, found.samples, 4000, rng)
    assert sd / found.se == pytest.approx(1.0, abs=0.06)
    for n in (found.samples - 1, found.samples + 1):
        if n < 4:
            continue
        m = math.floor(6000 / (cost_question + n))
        other, _ = _realised("pass_at_k", 4, 0.3, 2.0, m, n, 4000, rng)
        assert other > sd * 0.96


@pytest.mark.slow
@pytest.mark.parametrize("k, budget, cost_question", [(1, 400, 0.0), (4, 400, 0.0),
                                                      (4, 800, 20.0)])
def test_grow_promises_what_each_choice_realises(k, budget, cost_question):
    """A Beta(2, 3) population. The plan's variances come from a 4,000-question pilot (so
    that the promise is tested, not the pilot's noise: Plan.pilot_spread covers that), set
    to keep a pilot of 100 questions x 4 samples. 3,000 replications draw those 100
    questions afresh, then run each choice on fresh draws: the sd of the final estimates is
    within 5% of the SE promised for each choice (Monte Carlo error about 1.3%), and the
    choice promised smaller is realised smaller."""
    rng = np.random.default_rng(41)
    rates = rng.beta(2, 3, size=4000)
    R = (rng.random((4000, 4)) < rates[:, None]).astype(int)
    big = kpass.plan(kpass.pass_at_k, R, k)
    plan = dataclasses.replace(big, questions=100)
    new, more = plan.grow(budget, cost_question=cost_question)
    reps = 3000
    pilot_rates = rng.beta(2, 3, size=(reps, 100))
    pilot_correct = rng.binomial(4, pilot_rates)
    pilot = _s_table("pass_at_k", k, 4)[pilot_correct]
    added = _s_table("pass_at_k", k, new.samples)[
        rng.binomial(new.samples, rng.beta(2, 3, size=(reps, new.questions)))]
    final_new = np.concatenate([pilot, added], axis=1).mean(axis=1)
    topped = pilot_correct + rng.binomial(more.samples - 4, pilot_rates)
    final_more = _s_table("pass_at_k", k, more.samples)[topped].mean(axis=1)
    sd_new, sd_more = float(np.std(final_new, ddof=1)), float(np.std(final_more, ddof=1))
    assert sd_new / new.se == pytest.approx(1.0, abs=0.05), (sd_new, new)
    assert sd_more / more.se == pytest.approx(1.0, abs=0.05), (sd_more, more)
    assert (new.se < more.se) == (sd_new < sd_more)
