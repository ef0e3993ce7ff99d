"""kpass.allocate: the greedy split of extra samples, against brute force and simulation.

The objective is recomputed here independently: the expected within-question variance of
the estimator after N samples, integrated over each question's Beta posterior by
quadrature, with the estimator written from its binomial-coefficient formula. Every
allocation of a tiny budget is enumerated and the greedy split must reach the minimum.
"""

import functools
import heapq
import itertools
import json
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
    both = kpass.allocate([kpass.pass_at_k, kpass.pass_hat_k], counts, 4, 12, prior="uniform")
    assert both.sum() == 12
    # the split minimises the sum of the two relative variances (brute force, exact)
    n, c = [4, 4, 4, 4], [4, 0, 2, 3]
    base = [objective(name, n, c, 4, [0] * 4) for name in ESTIMATORS]

    def relative(split):
        return sum(objective(name, n, c, 4, split) / b
                   for name, b in zip(ESTIMATORS, base, strict=True))

    best = min(relative(s) for s in itertools.product(range(13), repeat=4) if sum(s) == 12)
    assert relative(both.tolist()) == pytest.approx(best, rel=1e-9)


def test_the_default_prior_is_the_beta_binomial_fit():
    """The default is prior="empirical": the maximum-likelihood Beta population of the run's
    questions, here found independently by a grid over (log a, log b) of scipy's likelihood."""
    from scipy.stats import betabinom

    rng = np.random.default_rng(5)
    n = np.full(60, 4)
    c = rng.binomial(4, rng.beta(0.4, 1.2, 60))
    grid = np.exp(np.linspace(-3, 3, 241))
    tally = np.bincount(c, minlength=5)  # every question has n = 4
    loglik = np.einsum("x,xab->ab", tally, betabinom.logpmf(
        np.arange(5)[:, None, None], 4, grid[None, :, None], grid[None, None, :]))
    i, j = np.unravel_index(np.argmax(loglik), loglik.shape)
    a, b = grid[i], grid[j]
    counts = kpass.BinaryCounts(n, c)
    for metric in (kpass.pass_at_k, kpass.pass_hat_k):
        default = kpass.allocate(metric, counts, 4, 300)
        assert default.tolist() == kpass.allocate(metric, counts, 4, 300, prior=(a, b)).tolist()
        assert default.tolist() != kpass.allocate(metric, counts, 4, 300,
                                                  prior="uniform").tolist()


@pytest.mark.parametrize("c", [[0, 0, 0, 0], [4, 4, 4, 4], [2]])
def test_a_degenerate_fit_falls_back_to_the_uniform_prior_and_says_so(c):
    counts = kpass.BinaryCounts(np.full(len(c), 4), np.array(c))
    with pytest.warns(UserWarning, match=r"degenerate .*uses the uniform prior Beta\(1, 1\)"):
        split = kpass.allocate(kpass.pass_at_k, counts, 4, 10)
    assert split.tolist() == kpass.allocate(kpass.pass_at_k, counts, 4, 10,
                                            prior="uniform").tolist()


@pytest.mark.parametrize("name, k", [("pass_at_k", 2), ("pass_hat_k", 3)])
def test_the_outlook_against_exact_fractions(name, k):
    """allocation_outlook's ratio (split over even spread) and within-question share, with
    the within-question variances recomputed in exact fractions and the between part from
    the per-question values written out."""
    from kpass.stats.allocation import allocation_outlook

    n, c, budget = [4, 4, 4, 4, 4], [4, 0, 2, 3, 1], 11
    metric, value, _ = ESTIMATORS[name]
    split = kpass.allocate(metric, kpass.BinaryCounts(n, c), k, budget, prior="uniform")
    ratio, share = allocation_outlook(metric, kpass.BinaryCounts(n, c), k, split,
                                      prior="uniform")
    even = [3, 2, 2, 2, 2]  # 11 over 5 questions, the remainder to the first
    m = len(n)
    w_even = objective(name, n, c, k, even) / m**2
    assert ratio == pytest.approx(objective(name, n, c, k, split) / m**2 / w_even, rel=1e-9)
    values = [float(value(ni, ci, k)) for ni, ci in zip(n, c, strict=True)]
    between = max(np.var(values, ddof=1) / m - objective(name, n, c, k, [0] * m) / m**2, 0.0)
    assert share == pytest.approx(w_even / (w_even + between), rel=1e-9)
    assert 0.0 < share < 1.0 and ratio <= 1.0 + 1e-12


@pytest.mark.slow
def test_the_default_prior_is_not_worse_than_an_even_spread_on_rare_successes():
    """Issue 38 item 16, the audit's design: 200 questions, p ~ Beta(0.05, 1), 4 samples each,
    2400 more for Pass@4. The realised within-question variance (exact from the true p's,
    enumerated here) with the uniform prior was 1.09x the even spread's in 20 of 20 seeds;
    with the default (fitted) prior it is below the even spread in every seed."""
    from scipy.stats import binom

    def realised(N, p, k=4):
        total = 0.0
        for n_q, p_q in zip(N, p, strict=True):
            x = np.arange(n_q + 1)
            s = np.asarray(kpass.pass_at_k(kpass.BinaryCounts(np.full(n_q + 1, n_q), x), k,
                                           per_question=True), float)
            w = binom.pmf(x, n_q, p_q)
            total += w @ s**2 - (w @ s) ** 2
        return total

    ratios = {"uniform": [], "empirical": []}
    for seed in range(1000, 1006):
        rng = np.random.default_rng(seed)
        p = rng.beta(0.05, 1.0, 200)
        counts = kpass.BinaryCounts(np.full(200, 4), rng.binomial(4, p))
        even = realised(np.full(200, 16), p)
        for prior in ratios:
            split = kpass.allocate(kpass.pass_at_k, counts, 4, 2400, prior=prior)
            ratios[prior].append(realised(4 + split, p) / even)
    assert min(ratios["uniform"]) > 1.0          # the audit's finding, reproduced
    assert max(ratios["empirical"]) < 1.0        # the default fixes it
    assert np.mean(ratios["empirical"]) < 0.95


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


@functools.cache
def _values(metric, k, N):
    """The metric's own per-question values s(N, x), x = 0..N."""
    return np.asarray(metric(kpass.BinaryCounts(np.full(N + 1, N), np.arange(N + 1)), k,
                             per_question=True), dtype=float)


def variance_given_p(metric, k, N, p):
    """Var(s(N, X) | p), X ~ Bin(N, p): an exact binomial sum of the metric's own values."""
    s = _values(metric, k, int(N))
    w = stats.binom.pmf(np.arange(N + 1), N, p)
    return max(w @ s ** 2 - (w @ s) ** 2, 0.0)


def realised_within(metric, k, N, p):
    """sum_q Var(s(N_q, X) | p_q) with the true p_q (exact binomial sums)."""
    return sum(variance_given_p(metric, k, Nq, pq) for Nq, pq in zip(N, p, strict=True))


@pytest.mark.parametrize("metric, k", [(kpass.pass_at_k, 1), (kpass.pass_at_k, 4),
                                       (kpass.pass_hat_k, 4)])
def test_the_simulations_variance_is_brute_force_enumeration(metric, k):
    """The measure of the slow tests, against all 2^N outcome sequences in exact fractions."""
    for N in range(k, 9):
        for p in (Fraction(1, 7), Fraction(1, 3), Fraction(4, 5)):
            mean = second = Fraction(0)
            for seq in itertools.product((0, 1), repeat=N):
                x = sum(seq)
                if metric is kpass.pass_at_k:
                    s = 1 - Fraction(math.comb(N - x, k), math.comb(N, k))
                else:
                    s = Fraction(math.comb(x, k), math.comb(N, k))
                weight = p ** x * (1 - p) ** (N - x)
                mean += weight * s
                second += weight * s * s
            assert mean == (1 - (1 - p) ** k if metric is kpass.pass_at_k else p ** k)
            assert variance_given_p(metric, k, N, float(p)) == pytest.approx(
                float(second - mean * mean), abs=1e-14)


def oracle_within(metric, k, n0, budget, p):
    """The best split for known p: greedy on the true V(N; p_q), convex decreasing in N."""
    N = np.full(p.size, n0)
    heap = [(variance_given_p(metric, k, n0 + 1, q) - variance_given_p(metric, k, n0, q), i)
            for i, q in enumerate(p)]
    heapq.heapify(heap)
    for _ in range(budget):
        _, i = heapq.heappop(heap)
        N[i] += 1
        heapq.heappush(heap, (variance_given_p(metric, k, N[i] + 1, p[i])
                              - variance_given_p(metric, k, N[i], p[i]), i))
    return realised_within(metric, k, N, p)


def in_rounds(metric, k, stream, budget, rounds, prior="uniform"):
    """Allocate budget / rounds, draw those samples from the stream, repeat; the final N."""
    n = np.full(stream.shape[0], 4)
    for _ in range(rounds):
        c = np.array([row[:m].sum() for row, m in zip(stream, n, strict=True)])
        n = n + kpass.allocate(metric, kpass.BinaryCounts(n, c), k, budget // rounds,
                               prior=prior)
    assert n.sum() == 4 * n.size + budget
    return n


@pytest.mark.slow
def test_issue_design_ratios_against_an_even_spread():
    """200 questions, p ~ Beta(0.5, 1.5), n = 4, 12 more per question on average.

    docs/how-to/adaptive.md reports 20 replications (seeds 1000-1019); 3 here (1000-1002). Each
    ratio is the exact within-question variance given the true p's at the final N, greedy
    over even (16 samples each). Bands: the 20-replication ranges of docs/how-to/adaptive.md,
    widened for a mean of 3.
    """
    designs = ("one shot", "true prior", "3 rounds", "oracle")
    ratios = {(label, d): [] for label in ("Pass@1", "Pass@4", "Pass^4") for d in designs}
    for seed in range(1000, 1003):
        rng = np.random.default_rng(seed)
        p = rng.beta(0.5, 1.5, 200)
        stream = (rng.random((200, 2404)) < p[:, None]).astype(np.int64)
        counts = kpass.BinaryCounts(np.full(200, 4), stream[:, :4].sum(axis=1))
        for label, metric, k in (("Pass@1", kpass.pass_at_k, 1),
                                 ("Pass@4", kpass.pass_at_k, 4),
                                 ("Pass^4", kpass.pass_hat_k, 4)):
            even = realised_within(metric, k, np.full(200, 16), p)
            finals = {"one shot": 4 + kpass.allocate(metric, counts, k, 2400),
                      "true prior": 4 + kpass.allocate(metric, counts, k, 2400,
                                                       prior=(0.5, 1.5)),
                      "3 rounds": in_rounds(metric, k, stream, 2400, 3)}
            for design, N in finals.items():
                ratios[label, design].append(realised_within(metric, k, N, p) / even)
            ratios[label, "oracle"].append(oracle_within(metric, k, 4, 2400, p) / even)
    mean = {key: float(np.mean(values)) for key, values in ratios.items()}
    # Pass^k pays at once, and more in rounds.
    assert mean["Pass^4", "one shot"] <= 0.60
    assert mean["Pass^4", "3 rounds"] <= 0.45
    # Pass@4: the issue's 0.85 is what knowing every p gives (the oracle, about 0.78) ...
    assert mean["Pass@4", "oracle"] <= 0.85
    # ... not what a 4-sample pilot can give: one shot (fitted prior) about 0.96, the
    # Bayes-optimal one shot (greedy under the true prior) about 0.95, 3 rounds about 0.92.
    assert 0.93 <= mean["Pass@4", "one shot"] <= 1.0
    assert 0.90 <= mean["Pass@4", "true prior"] <= 0.99
    assert 0.87 <= mean["Pass@4", "3 rounds"] <= 0.96
    assert mean["Pass@1", "3 rounds"] <= mean["Pass@1", "one shot"] <= 1.0


def posterior_within_table(metric, k, n, c, max_extra):
    """W_q(n_q + m), m = 0..max_extra: E_post Var(s(N, X) | p) under Beta(1 + c, 1 + n - c),
    from beta-binomial weights, the estimator's binomial-coefficient formula and Beta
    moments of g(p)^2 (floats; the same quantity as `within`, which is exact but slow)."""
    from scipy import special

    rows = {}
    out = np.empty((n.size, max_extra + 1))
    for q in range(n.size):
        key = (int(n[q]), int(c[q]))
        if key not in rows:
            a, b = 1.0 + key[1], 1.0 + key[0] - key[1]

            def moment(da, db, a=a, b=b):
                return math.exp(special.betaln(a + da, b + db) - special.betaln(a, b))

            g2 = (1 - 2 * moment(0, k) + moment(0, 2 * k) if metric is kpass.pass_at_k
                  else moment(2 * k, 0))
            values = []
            for N in range(key[0], key[0] + max_extra + 1):
                x = np.arange(N + 1)
                s = (1 - special.comb(N - x, k) / special.comb(N, k) if metric is kpass.pass_at_k
                     else special.comb(x, k) / special.comb(N, k))
                values.append(stats.betabinom.pmf(x, N, a, b) @ (s * s) - g2)
            rows[key] = np.array(values)
        out[q] = rows[key]
    return out


def min_plus_optimum(table, budget):
    """min sum_q table[q, m_q] over sum_q m_q = budget: exact dynamic programming over
    questions (no convexity assumed)."""
    best = np.full(budget + 1, np.inf)
    best[0] = 0.0
    for row in table:
        new = np.full(budget + 1, np.inf)
        for m in range(min(row.size, budget + 1)):
            np.minimum(new[m:], best[:budget + 1 - m] + row[m], out=new[m:])
        best = new
    return float(best[budget])


@pytest.mark.slow
def test_on_the_issue_design_the_greedy_is_the_exact_optimum_of_the_issue_criterion():
    """The issue's criterion (posterior-expected within-question variance after the
    allocation, uniform prior) on its design, seeds 1000-1002: the greedy split reaches the
    exact optimum over all splits of 2400 samples, and that optimum is about 0.91 of the
    even spread's for Pass@4, so no one-shot allocation meets the issue's 0.85 there."""
    ratios = []
    for seed in range(1000, 1003):
        rng = np.random.default_rng(seed)
        p = rng.beta(0.5, 1.5, 200)
        n, c = np.full(200, 4), rng.binomial(4, p)
        table = posterior_within_table(kpass.pass_at_k, 4, n, c, 96)
        greedy = kpass.allocate(kpass.pass_at_k, kpass.BinaryCounts(n, c), 4, 2400,
                                prior="uniform")  # the criterion's prior
        assert greedy.max() <= 96
        value = table[np.arange(200), greedy].sum()
        optimum = min_plus_optimum(table, 2400)
        assert value == pytest.approx(optimum, rel=1e-9)
        assert value / 200 ** 2 == pytest.approx(
            expected_within_variance(kpass.pass_at_k, kpass.BinaryCounts(n, c), 4, greedy,
                                     prior="uniform"),
            rel=1e-9)
        ratios.append(optimum / table[:, 12].sum())
    assert 0.85 < np.mean(ratios) < 0.95  # measured 0.914 over seeds 1000-1019


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
                                  "kpass.stats.monitor"])
def test_docstring_examples_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_cli_next_refuses_a_metric_it_cannot_plan_in_one_line(tmp_path, capsys):
    """vote@k (answers) and a dataset-level blend are refused naming the plannable metrics,
    with one line on stderr and exit 2 (vote@k gave a traceback)."""
    from kpass.report.cli import main

    path = tmp_path / "run.jsonl"
    path.write_text('{"outcomes": [1, 0, 1]}\n{"outcomes": [0, 0, 1]}\n')
    for metrics in ("vote@k", "geo-spectrum*@k"):
        assert main(["next", str(path), "--budget", "3", "--k", "2", "--metrics", metrics]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "kpass next: error:" in err
        assert "allocation plans for pass@k, pass^k" in err and "cons@k" in err


# ----------------------------------------------------------------------------- issue 38, item 5


def test_a_budget_of_a_trillion_is_split_without_stepping(monkeypatch):
    """The split is found by a threshold on the gains, not one sample at a time: the gain
    is evaluated O(log^2 budget) times (counted), and one question takes the whole budget."""
    from kpass.stats import allocation

    calls = []
    real = allocation._gain
    monkeypatch.setattr(allocation, "_gain",
                        lambda *a: calls.append(a[2].size) or real(*a))
    assert kpass.allocate(kpass.pass_at_k, [[1, 0, 1, 1]], 4, 10 ** 12,
                          prior="uniform").tolist() == [10 ** 12]
    assert len(calls) < 10_000  # stepping would be 10^12 evaluations
    calls.clear()
    counts = kpass.BinaryCounts(np.array([8, 8]), np.array([2, 2]))
    assert kpass.allocate(kpass.pass_at_k, counts, 4, 10 ** 9,
                          prior="uniform").tolist() == [500_000_000] * 2
    assert len(calls) < 10_000


def test_large_budgets_equal_the_one_at_a_time_greedy_written_plainly():
    """Against a plain heap greedy over the exact W_q(N) of the beta-binomial sums."""
    from scipy.stats import betabinom

    def within(metric, k, n, c, N, a=1.0, b=1.0):
        s = np.asarray(metric(kpass.BinaryCounts(np.full(N + 1, N), np.arange(N + 1)), k,
                              per_question=True), dtype=float)
        return float(betabinom.pmf(np.arange(N + 1), N, a + c, b + n - c) @ (s * s))

    n, c = [4, 6, 5, 8], [1, 5, 0, 4]
    for metric, k, budget in ((kpass.pass_at_k, 2, 300), (kpass.pass_hat_k, 3, 250)):
        heap = [(within(metric, k, nq, cq, nq + 1) - within(metric, k, nq, cq, nq), q)
                for q, (nq, cq) in enumerate(zip(n, c, strict=True))]
        heapq.heapify(heap)
        plain = [0] * 4
        for _ in range(budget):
            _, q = heapq.heappop(heap)
            plain[q] += 1
            N = n[q] + plain[q]
            heapq.heappush(heap, (within(metric, k, n[q], c[q], N + 1)
                                  - within(metric, k, n[q], c[q], N), q))
        got = kpass.allocate(metric, kpass.BinaryCounts(np.array(n), np.array(c)), k, budget,
                             prior="uniform")  # the plain greedy's Beta(1, 1)
        assert got.tolist() == plain


@pytest.mark.parametrize("call, message", [
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]], 1, 2 ** 53), "budget.*2\\*\\*52"),
    (lambda: kpass.allocate(kpass.pass_at_k, [[1, 0]] * 2, 10 ** 4, 10 ** 5), "k.*200"),
])
def test_allocation_bounds_are_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----------------------------------------------------------------------------- issue 38, item 7


@pytest.mark.parametrize("a, b", [(1e10, 3e10), (1e12, 1e12), (2.5e15, 1e15), (0.3, 0.7)])
def test_within_variance_of_huge_priors_against_mpmath(a, b):
    """E_post[Var(s(N, X) | p)] = E_x[s(N, x)^2] - E[g(p)^2], each in 60-digit arithmetic."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    n, c, extra, k = [4, 6], [1, 6], [3, 0], 2
    got = expected_within_variance(kpass.pass_at_k, kpass.BinaryCounts(np.array(n),
                                   np.array(c)), k, np.array(extra), prior=(a, b))
    total = mpmath.mpf(0)
    for nq, cq, mq in zip(n, c, extra, strict=True):
        A, B, N = mpmath.mpf(a) + cq, mpmath.mpf(b) + nq - cq, nq + mq

        def moment(r, s, A=A, B=B):  # E[p^r (1-p)^s] under Beta(A, B)
            return mpmath.exp(mpmath.loggamma(A + r) + mpmath.loggamma(B + s)
                              - mpmath.loggamma(A + B + r + s) - mpmath.loggamma(A)
                              - mpmath.loggamma(B) + mpmath.loggamma(A + B))

        square = sum(mpmath.binomial(N, x) * moment(x, N - x)
                     * (1 - mpmath.binomial(N - x, k) / mpmath.binomial(N, k)) ** 2
                     for x in range(N + 1))
        g2 = 1 - 2 * moment(0, k) + moment(0, 2 * k)  # g = 1 - (1 - p)^k
        total += square - g2
    want = float(total / len(n) ** 2)
    assert got == pytest.approx(want, rel=1e-6)
    assert np.isfinite(got) and got > 0


def test_huge_priors_allocate_as_a_known_rate():
    # Beta(1e12, 1e12): every p is 1/2 whatever was seen, so equal questions share evenly
    counts = kpass.BinaryCounts(np.array([4, 4, 4]), np.array([0, 2, 4]))
    split = kpass.allocate(kpass.pass_at_k, counts, 2, 30, prior=(1e12, 1e12))
    assert split.tolist() == [10, 10, 10]


# ----------------------------------------------------------------------------- issue 38, item 16


def test_empirical_prior_is_the_beta_binomial_maximum_likelihood():
    from scipy.optimize import minimize
    from scipy.stats import betabinom

    rng = np.random.default_rng(16)
    p = rng.beta(0.05, 1.0, 120)  # rare successes, where the uniform prior misleads
    n = np.full(120, 8)
    c = rng.binomial(8, p)
    counts = kpass.BinaryCounts(n, c)

    def loss(theta):
        return -float(betabinom.logpmf(c, n, *np.exp(theta)).sum())

    ref = np.exp(minimize(loss, np.log([0.5, 2.0]), method="Nelder-Mead",
                          options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000}).x)
    fitted = kpass.allocate(kpass.pass_at_k, counts, 4, 600, prior="empirical")
    by_ref = kpass.allocate(kpass.pass_at_k, counts, 4, 600, prior=tuple(ref))
    assert fitted.sum() == 600
    value = expected_within_variance(kpass.pass_at_k, counts, 4, fitted, prior=tuple(ref))
    best = expected_within_variance(kpass.pass_at_k, counts, 4, by_ref, prior=tuple(ref))
    assert value == pytest.approx(best, rel=1e-6)
    assert expected_within_variance(kpass.pass_at_k, counts, 4, fitted,
                                    prior="empirical") == pytest.approx(value, rel=1e-4)


def test_cli_next_takes_the_empirical_prior_and_every_tau(monkeypatch, capsys):
    from kpass.data import sample_path
    from kpass.report import next as next_module
    from kpass.report.cli import main
    from kpass.stats import allocation

    sample = str(sample_path())
    assert main(["next", sample, "--budget", "40", "--k", "2", "--prior", "empirical"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in open(sample)]
    counts = kpass.BinaryCounts(np.array([len(r["outcomes"]) for r in rows]),
                                np.array([sum(r["outcomes"]) for r in rows]))
    split = kpass.allocate(kpass.pass_at_k, counts, 2, 40, prior="empirical")
    assert [int(line.split(",")[1]) for line in lines[1:]] == split.tolist()
    seen = []
    real = allocation._greedy
    monkeypatch.setattr(allocation, "_greedy",
                        lambda objectives, *a: seen.append([o[1] for o in objectives])
                        or real(objectives, *a))
    assert next_module is not None
    assert main(["next", sample, "--budget", "40", "--k", "2", "--metrics", "g-pass@k",
                 "--tau", "0.5,1.0"]) == 0
    assert seen == [[(2, 0.5), (2, 1.0)]]


def test_cli_next_with_a_question_short_of_k_says_which(tmp_path, capsys):
    """Issue 38 item 10: with several metrics a question short of k is topped up first (the
    split is the brute-force optimum of the relative criterion), and a budget too small names
    the short questions and their count (never 'every question has fewer than k')."""
    import json

    from kpass.report.cli import main

    n, c = [4, 2, 4, 4], [3, 1, 2, 1]
    path = tmp_path / "short.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "outcomes": [1] * ci + [0] * (ni - ci)})
                            + "\n" for i, (ni, ci) in enumerate(zip(n, c, strict=True))))
    assert main(["next", str(path), "--id", "id", "--k", "4", "--budget", "8",
                 "--metrics", "pass@k,pass^k"]) == 0
    out, err = capsys.readouterr()
    split = [int(line.split(",")[1]) for line in out.splitlines()[1:]]
    topped = [max(4 - ni, 0) for ni in n]
    base = [objective(name, n, c, 4, topped) for name in ESTIMATORS]

    def relative(extra):
        return sum(objective(name, n, c, 4, extra) / b
                   for name, b in zip(ESTIMATORS, base, strict=True))

    best = min(relative(s) for s in itertools.product(range(9), repeat=4)
               if sum(s) == 8 and all(m >= t for m, t in zip(s, topped, strict=True)))
    assert sum(split) == 8 and split[1] >= 2
    assert relative(split) == pytest.approx(best, rel=1e-9)
    assert main(["next", str(path), "--id", "id", "--k", "4", "--budget", "1",
                 "--metrics", "pass@k,pass^k"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "1 of 4 questions ('q1': n=2) short, 2 samples needed" in err, err
    assert "every question has" not in err
