"""kpass.allocate: the greedy split of extra samples, against brute force and simulation.

The objective is recomputed here independently: the expected within-question variance of
the estimator after N samples, integrated over each question's Beta posterior by
quadrature, with the estimator written from its binomial-coefficient formula. Every
allocation of a tiny budget is enumerated and the greedy split must reach the minimum.
"""

import functools
import heapq
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
    # ... not what a 4-sample pilot can give: one shot about 0.97, the Bayes-optimal one
    # shot (greedy under the true prior) about 0.95, 3 rounds about 0.92.
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
        greedy = kpass.allocate(kpass.pass_at_k, kpass.BinaryCounts(n, c), 4, 2400)
        assert greedy.max() <= 96
        value = table[np.arange(200), greedy].sum()
        optimum = min_plus_optimum(table, 2400)
        assert value == pytest.approx(optimum, rel=1e-9)
        assert value / 200 ** 2 == pytest.approx(
            expected_within_variance(kpass.pass_at_k, kpass.BinaryCounts(n, c), 4, greedy),
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
