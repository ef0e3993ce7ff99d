"""Plan.split: the questions x samples a budget buys with the smallest SE; checked against a
brute-force search on Pass@1's closed form and, by seeded simulation, the SE realised."""

import math

import numpy as np
import pytest

import kpass


def _pilot(k, seed=1, questions=100, samples=4):
    rng = np.random.default_rng(seed)
    rates = rng.beta(2, 3, size=questions)
    R = (rng.random((questions, samples)) < rates[:, None]).astype(int)
    return kpass.plan(kpass.pass_at_k, R, k)


@pytest.mark.parametrize("budget, cost_question", [(4000, 0.0), (4000, 1.0), (4000, 10.0),
                                                   (900, 37.5), (60, 3.0)])
def test_pass_at_1_split_is_the_brute_force_optimum(budget, cost_question):
    """Pass@1's within(n) = within(1) / n: search every n by hand, compare."""
    plan = _pilot(1)
    w1 = plan.within_at(1)
    best = None
    for n in range(1, int(budget) + 1):
        m = math.floor(budget / (cost_question + n) + 1e-9)
        if m < 2:
            break
        variance = (plan.between + w1 / n) / m
        if best is None or variance < best[0] * (1 - 1e-12):
            best = (variance, m, n)
    found = plan.split(budget, cost_question=cost_question)
    assert (found.questions, found.samples) == (best[1], best[2])
    assert found.se == pytest.approx(math.sqrt(best[0]), rel=1e-9)
    assert found.spent <= budget and found.budget == budget


def test_without_a_cost_per_question_pass_at_1_takes_one_sample():
    found = _pilot(1).split(1000)
    assert (found.questions, found.samples) == (1000, 1)


def test_paired_split_pays_for_both_models():
    rng = np.random.default_rng(4)
    rates = rng.beta(2, 3, size=80)
    a = (rng.random((80, 4)) < rates[:, None]).astype(int)
    b = (rng.random((80, 4)) < np.clip(rates + 0.05, 0, 1)[:, None]).astype(int)
    plan = kpass.plan(kpass.pass_at_k, a, 1, R_b=b)
    found = plan.split(1000, cost_question=2.0)
    assert found.spent == found.questions * (2.0 + 2 * found.samples) <= 1000


@pytest.mark.parametrize("kwargs, needle", [
    ({"budget": 0}, "`budget`"), ({"budget": 5, "cost_question": 10}, "at least 2 questions"),
    ({"budget": 100, "cost_sample": 0}, "`cost_sample`"),
    ({"budget": 100, "cost_question": -1}, "`cost_question`"),
    ({"budget": math.nan}, "`budget`")])
def test_bad_budgets_are_refused_by_name(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        _pilot(1).split(**kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("k, cost_question", [(1, 5.0), (4, 0.0), (4, 20.0)])
def test_the_se_realised_matches_the_se_promised(k, cost_question):
    """A 3,000-question pilot from a Beta(2, 3) population plans a 6,000-sample budget; 1,000
    evaluations of the split drawn from the same population have an sd within 6% of the SE
    promised, and no neighbouring split (n - 1 or n + 1 samples) does better by more than
    the Monte Carlo error."""
    plan = _pilot(k, seed=7, questions=3000, samples=8)
    found = plan.split(6000, cost_question=cost_question)
    rng = np.random.default_rng(99)

    def realised(m, n):
        estimates = []
        for _ in range(1000):
            rates = rng.beta(2, 3, size=m)
            correct = rng.binomial(n, rates)
            counts = kpass.BinaryCounts(np.full(m, n), correct)
            estimates.append(kpass.pass_at_k(counts, k))
        return float(np.std(estimates, ddof=1))

    sd = realised(found.questions, found.samples)
    assert sd == pytest.approx(found.se, rel=0.06)
    for n in (found.samples - 1, found.samples + 1):
        if n < k:
            continue
        m = math.floor(6000 / (cost_question + n))
        assert realised(m, n) >= sd * (1 - 0.09)  # sd of an sd over 1,000 runs: ~2.2% each
