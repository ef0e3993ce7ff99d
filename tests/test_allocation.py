"""kpass.allocate: the greedy split of extra samples, against brute force and simulation.

The objective is recomputed here independently: the expected within-question variance of
the estimator after N samples, integrated over each question's Beta posterior by
quadrature, with the estimator written from its binomial-coefficient formula. Every
allocation of a tiny budget is enumerated and the greedy split must reach the minimum.
"""

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import kpass
from kpass.stats.allocation import expected_within_variance


def rising(a, j):
    out = Fraction(1)
    for i in range(j):
        out *= a + i
    return out


def beta_moment(a, b, i, j):
    """E[p^i (1-p)^j] for p ~ Beta(a, b), exactly: (a)_i (b)_j / (a + b)_{i+j}."""
    return rising(a, i) * rising(b, j) / rising(a + b, i + j)


ESTIMATORS = {  # name: (kpass metric, s(N, x, k), E[g(p)^2] under Beta(a, b))
    "pass_at_k": (kpass.pass_at_k,
                  lambda N, x, k: 1 - Fraction(math.comb(N - x, k), math.comb(N, k)),
                  lambda a, b, k: 1 - 2 * beta_moment(a, b, 0, k) + beta_moment(a, b, 0, 2 * k)),
    "pass_hat_k": (kpass.pass_hat_k,
                   lambda N, x, k: Fraction(math.comb(x, k), math.comb(N, k)),
                   lambda a, b, k: beta_moment(a, b, 2 * k, 0)),
}


@functools.cache
def within(name, N, k, a, b):
    """E over p ~ Beta(a, b) of Var(s(N, X) | p), X ~ Bin(N, p), in exact fractions."""
    _, value, second_g = ESTIMATORS[name]
    second = sum(math.comb(N, x) * beta_moment(a, b, x, N - x) * value(N, x, k) ** 2
                 for x in range(N + 1))
    return second - second_g(a, b, k)


def objective(name, n, c, k, extra, prior=(1, 1)):
    a0, b0 = Fraction(prior[0]), Fraction(prior[1])
    return float(sum(within(name, int(ni + mi), k, a0 + ci, b0 + ni - ci)
                     for ni, ci, mi in zip(n, c, extra, strict=True)))


CASES = [  # (metric, k, n, c, budget, prior)
    ("pass_at_k", 2, [2, 3, 4], [0, 2, 4], 5, (1, 1)),
    ("pass_at_k", 3, [3, 5, 3], [1, 1, 3], 6, (1, 1)),
    ("pass_at_k", 1, [4, 4, 2, 6], [2, 0, 1, 6], 5, (Fraction(1, 2), Fraction(3, 2))),
    ("pass_at_k", 4, [4, 4, 4, 4], [0, 1, 3, 4], 8, (Fraction(1, 2), Fraction(3, 2))),
    ("pass_hat_k", 2, [2, 4, 3], [2, 2, 0], 6, (1, 1)),
    ("pass_hat_k", 3, [4, 3, 5], [4, 2, 1], 5, (2, Fraction(7, 10))),
]


@pytest.mark.parametrize("name, k, n, c, budget, prior", CASES)
def test_greedy_reaches_the_brute_force_minimum(name, k, n, c, budget, prior):
    metric = ESTIMATORS[name][0]
    counts = kpass.BinaryCounts(np.array(n), np.array(c))
    greedy = kpass.allocate(metric, counts, k, budget, prior=tuple(float(v) for v in prior))
    assert greedy.sum() == budget and (greedy >= 0).all()
    values = {split: objective(name, n, c, k, split, prior)
              for split in itertools.product(range(budget + 1), repeat=len(n))
              if sum(split) == budget}
    best = min(values.values())
    assert values[tuple(greedy.tolist())] == pytest.approx(best, rel=1e-9)
    even_split = min(values, key=lambda s: (max(s) - min(s), s))
    assert values[tuple(greedy.tolist())] <= values[even_split] + 1e-15


def test_expected_within_variance_is_the_exact_fraction():
    counts = kpass.BinaryCounts(np.array([3, 5, 4]), np.array([1, 5, 0]))
    for name, k in (("pass_at_k", 2), ("pass_hat_k", 3)):
        metric = ESTIMATORS[name][0]
        got = expected_within_variance(metric, counts, k, np.array([2, 0, 7]),
                                       prior=(0.8, 1.3))
        want = objective(name, [3, 5, 4], [1, 5, 0], k, [2, 0, 7],
                         (Fraction(4, 5), Fraction(13, 10))) / 9
        assert got == pytest.approx(want, rel=1e-9)


def test_questions_with_nothing_left_to_tell_get_none():
    # Pass@4 of a question solved 40 times out of 40; Pass^4 of one never solved in 40.
    counts = kpass.BinaryCounts(np.array([40, 4, 4, 40]), np.array([40, 2, 1, 0]))
    at = kpass.allocate(kpass.pass_at_k, counts, 4, 30)
    hat = kpass.allocate(kpass.pass_hat_k, counts, 4, 30)
    assert at[0] == 0 and at.sum() == 30 and at[1] > 0 and at[2] > 0
    assert hat[3] == 0 and hat.sum() == 30 and hat[1] > 0


def test_tops_questions_up_to_k_first():
    counts = kpass.BinaryCounts(np.array([1, 6]), np.array([0, 3]))
    split = kpass.allocate(kpass.pass_at_k, counts, 4, 3)
    assert split.tolist() == [3, 0]
    with pytest.raises(ValueError, match="budget.*cannot bring"):
        kpass.allocate(kpass.pass_at_k, counts, 4, 2)


def test_several_metrics_weigh_each_relative_to_its_current_variance():
    counts = kpass.BinaryCounts(np.array([4, 4, 4, 4]), np.array([4, 0, 2, 3]))
    both = kpass.allocate([kpass.pass_at_k, kpass.pass_hat_k], counts, 4, 12)
    assert both.sum() == 12
    # the split minimises the sum of the two relative variances (brute force, exact)
    n, c = [4, 4, 4, 4], [4, 0, 2, 3]
    base = [objective(name, n, c, 4, [0] * 4) for name in ESTIMATORS]

    def relative(split):
        return sum(objective(name, n, c, 4, split) / b
                   for name, b in zip(ESTIMATORS, base, strict=True))

    best = min(relative(s) for s in itertools.product(range(13), repeat=4) if sum(s) == 12)
    assert relative(both.tolist()) == pytest.approx(best, rel=1e-9)


@pytest.mark.parametrize("call, error, message", [
    (lambda: kpass.allocate(kpass.avg, [[1, 0]], 1, 3), TypeError, "allocation"),
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]], 1, -1), ValueError, "budget"),
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]], 1, 2.5), TypeError, "budget"),
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]], 1, 2, prior="jeffreys"), ValueError,
     "prior"),
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]], 1, 2, prior=(1, -1)), ValueError,
     "prior"),
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]], 0, 2), ValueError, "k"),
])
def test_bad_input_is_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ----------------------------------------------------------------------------- simulation


def realised_within(metric, k, N, p):
    """sum_q Var(s(N_q, X) | p_q) with the true p_q (exact binomial sums)."""
    total = 0.0
    for Nq, pq in zip(N, p, strict=True):
        s = np.asarray(metric(kpass.BinaryCounts(np.full(Nq + 1, Nq), np.arange(Nq + 1)), k,
                              per_question=True))
        w = stats.binom.pmf(np.arange(Nq + 1), Nq, pq)
        total += w @ s ** 2 - (w @ s) ** 2
    return total


@pytest.mark.slow
def test_issue_design_ratios_against_an_even_spread():
    """200 questions, p ~ Beta(0.5, 1.5), n = 4, 12 more per question on average.

    docs/adaptive.md reports 20 replications; 3 here (seeds 1000-1002). The realised
    within-question variance (true p) after the greedy split, over that of the even one.
    """
    ratios: dict[str, list[float]] = {"Pass@1": [], "Pass@4": [], "Pass^4": []}
    for seed in range(1000, 1003):
        rng = np.random.default_rng(seed)
        p = rng.beta(0.5, 1.5, 200)
        counts = kpass.BinaryCounts(np.full(200, 4), rng.binomial(4, p))
        for label, metric, k in (("Pass@1", kpass.pass_at_k, 1),
                                 ("Pass@4", kpass.pass_at_k, 4),
                                 ("Pass^4", kpass.pass_hat_k, 4)):
            split = kpass.allocate(metric, counts, k, 2400)
            ratios[label].append(realised_within(metric, k, 4 + split, p)
                                 / realised_within(metric, k, np.full(200, 16), p))
    mean = {label: float(np.mean(values)) for label, values in ratios.items()}
    assert mean["Pass^4"] <= 0.85  # measured about 0.53: allocation pays
    # Pass@1 and Pass@4: about 0.96 and 0.98, the issue's 0.85 target is NOT met (see
    # docs/adaptive.md, "where allocation does not pay"); never worse than spreading evenly.
    assert mean["Pass@1"] <= 1.0 and mean["Pass@4"] <= 1.0


# ----------------------------------------------------------------------------- kpass next


def test_cli_next_writes_the_allocation(tmp_path, capsys):
    import json

    from kpass.data import sample_path
    from kpass.report.cli import main

    sample = str(sample_path())
    assert main(["next", sample, "--budget", "60", "--k", "4", "--id", "task_id"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in open(sample)]
    counts = kpass.BinaryCounts(np.array([len(r["outcomes"]) for r in rows]),
                                np.array([sum(r["outcomes"]) for r in rows]))
    split = kpass.allocate(kpass.pass_at_k, counts, 4, 60)
    assert lines[0] == "id,extra_samples"
    assert lines[1:] == [f"{r['task_id']},{m}" for r, m in zip(rows, split, strict=True)]
    out = tmp_path / "next.jsonl"
    assert main(["next", sample, "--budget", "60", "--k", "2", "--metrics", "pass@k,pass^k",
                 "--out", str(out)]) == 0
    both = kpass.allocate([kpass.pass_at_k, kpass.pass_hat_k], counts, 2, 60)
    assert [json.loads(line) for line in out.read_text().splitlines()] == [
        {"id": q, "extra_samples": int(m)} for q, m in enumerate(both)]


@pytest.mark.parametrize("argv, needle", [
    (["--budget", "10", "--k", "4", "--metrics", "avg@n"], "--metrics avg@n"),
    (["--budget", "10", "--k", "8"], "--budget=10 cannot bring"),
    (["--budget", "-1", "--k", "4"], "--budget"),
    (["--budget", "10", "--k", "4", "--out", "x.txt"], "--out"),
    (["--budget", "10", "--k", "4", "--prior", "0,1"], "--prior"),
])
def test_cli_next_bad_input_is_one_line(argv, needle, capsys):
    from kpass.data import sample_path
    from kpass.report.cli import main

    assert main(["next", str(sample_path()), *argv]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err


@pytest.mark.parametrize("name", ["kpass.stats.allocation", "kpass.stats.sequential",
                                  "kpass.hf.sequential"])
def test_docstring_examples_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
