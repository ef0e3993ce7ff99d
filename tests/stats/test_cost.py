"""Cost per question and per solved question (issue 39, item 3).

A small case is computed by hand with exact fractions (and Fieller's roots with numpy's
polynomial roots); the intervals' coverage is checked by seeded simulation.
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy import stats

from kpass.stats.cost import cost_summary

N = [4, 4, 4, 4, 4, 4]
C = [4, 3, 0, 2, 1, 4]
X = [10, 30, 50, 20, 40, 10]  # mean cost of one sample of each question


def _by_hand(k: int, confidence: float = 0.95):
    m = len(X)
    kx = [Fraction(k * x) for x in X]
    s = [1 - Fraction(comb(n - c, k), comb(n, k)) for n, c in zip(N, C, strict=True)]
    mx, ms = sum(kx) / m, sum(s) / m
    var_x = sum((v - mx) ** 2 for v in kx) / (m - 1)
    var_s = sum((v - ms) ** 2 for v in s) / (m - 1)
    cov = sum((a - mx) * (b - ms) for a, b in zip(kx, s, strict=True)) / (m - 1)
    ratio = mx / ms
    d = [a - ratio * b for a, b in zip(kx, s, strict=True)]
    md = sum(d) / m
    var_d = sum((v - md) ** 2 for v in d) / (m - 1)
    t = stats.t.ppf(0.5 + confidence / 2, m - 1)
    coefficients = [float(ms * ms) - t * t * float(var_s) / m,
                    -2 * (float(mx * ms) - t * t * float(cov) / m),
                    float(mx * mx) - t * t * float(var_x) / m]
    roots = sorted(np.roots(coefficients).real)
    return {"cost": float(mx), "cost_se": math.sqrt(var_x / m), "solved": float(ms),
            "per_solved": float(ratio), "per_solved_se": math.sqrt(var_d / m) / float(ms),
            "t": t, "roots": roots, "bounded": coefficients[0] > 0}


@pytest.mark.parametrize("k", [1, 2, 4])
def test_small_case_by_hand(k):
    got = cost_summary(N, C, X, k=k)
    want = _by_hand(k)
    assert got.cost == pytest.approx(want["cost"], rel=1e-12)
    assert got.cost_se == pytest.approx(want["cost_se"], rel=1e-12)
    assert got.cost_lo == pytest.approx(max(0.0, want["cost"] - want["t"] * want["cost_se"]))
    assert got.cost_hi == pytest.approx(want["cost"] + want["t"] * want["cost_se"])
    assert got.solved_rate == pytest.approx(want["solved"], rel=1e-12)
    assert got.per_solved == pytest.approx(want["per_solved"], rel=1e-12)
    assert got.per_solved_se == pytest.approx(want["per_solved_se"], rel=1e-12)
    assert want["bounded"]
    assert (got.per_solved_lo, got.per_solved_hi) == pytest.approx(tuple(want["roots"]),
                                                                    rel=1e-9)
    assert got.per_solved_lo < got.per_solved < got.per_solved_hi


def test_values_of_the_hand_case():
    # k = 1: mean cost 160/6, solved 14/24 = 7/12, per solved (80/3) / (7/12) = 320/7
    got = cost_summary(N, C, X)
    assert got.cost == pytest.approx(80 / 3) and got.solved_rate == pytest.approx(7 / 12)
    assert got.per_solved == pytest.approx(320 / 7)


def test_nothing_solved_is_unbounded_not_nan():
    got = cost_summary([4, 4, 4], [0, 0, 0], [1.0, 2.0, 3.0])
    assert got.per_solved == math.inf and got.per_solved_se is None
    assert (got.per_solved_lo, got.per_solved_hi) == (0.0, math.inf)
    assert got.as_dict()["per_solved"] is None and got.as_dict()["per_solved_hi"] is None


@pytest.mark.parametrize(("args", "match"), [
    (([4], [1], [1.0]), "at least 2 questions"),
    (([4, 4], [1, 1], [1.0, -1.0]), r"`cost\[1\]` = -1.0"),
    (([4, 4], [1, 1], [1.0, math.nan]), r"`cost\[1\]` = nan"),
    (([4, 4], [1, 5], [1.0, 1.0]), "question 1: `n_samples`=4, `n_correct`=5"),
    (([4, 4], [1, 1], [1.0]), "one value per question"),
])
def test_bad_input_names_the_argument(args, match):
    with pytest.raises(ValueError, match=match):
        cost_summary(*args)


def test_k_above_the_samples_is_refused():
    with pytest.raises(ValueError, match="n_samples >= k=8"):
        cost_summary([4, 4], [1, 1], [1.0, 1.0], k=8)


def _coverage(m: int, a: float, b: float, k: int, reps: int, seed: int) -> tuple[float, float]:
    """Coverage of the cost and per-solved intervals; costs depend on difficulty."""
    rng = np.random.default_rng(seed)
    n = 4
    mean_p = a / (a + b)
    # x = 5 + 20 (1 - p) + Gamma(2, 1.5): E[x] = 5 + 20 (1 - E p) + 3
    true_cost = k * (5 + 20 * (1 - mean_p) + 3)
    # E[Pass@k of a question] = 1 - E[(1 - p)^k] = 1 - B(a, b + k) / B(a, b)
    from scipy.special import beta as beta_fn

    true_solved = 1 - beta_fn(a, b + k) / beta_fn(a, b)
    true_ratio = true_cost / true_solved
    cost_hits = ratio_hits = 0
    for _ in range(reps):
        p = rng.beta(a, b, m)
        c = rng.binomial(n, p)
        x = 5 + 20 * (1 - p) + rng.gamma(2.0, 1.5, m)
        got = cost_summary(np.full(m, n), c, x, k=k)
        cost_hits += got.cost_lo <= true_cost <= got.cost_hi
        ratio_hits += got.per_solved_lo <= true_ratio <= got.per_solved_hi
    return cost_hits / reps, ratio_hits / reps


@pytest.mark.slow
@pytest.mark.parametrize(("m", "a", "b", "k"), [(100, 2.0, 3.0, 1), (40, 0.3, 3.0, 1),
                                                (60, 1.0, 2.0, 2)])
def test_coverage_by_seeded_simulation(m, a, b, k):
    cost, ratio = _coverage(m, a, b, k, reps=600, seed=20261128 + m)
    assert 0.93 <= cost <= 0.97, cost
    assert 0.93 <= ratio <= 0.97, ratio


# ---- the estimate-vs-cost front

VALUES = {"a": [1.0, 1.0, 0.75, 1.0, 0.5, 1.0, 0.75, 1.0],
          "b": [0.25, 0.5, 0.0, 0.25, 0.0, 0.5, 0.25, 0.0],
          "c": [1.0, 0.75, 1.0, 1.0, 0.75, 1.0, 1.0, 0.75]}
COSTS = {"a": [2.0, 3.0, 2.5, 2.0, 3.5, 2.0, 2.5, 3.0],
         "b": [6.0, 7.0, 6.5, 8.0, 7.5, 6.0, 7.0, 6.5],
         "c": [9.0, 8.0, 9.5, 8.5, 9.0, 9.5, 8.0, 9.0]}


def test_front_by_hand_with_scipy_and_statsmodels():
    from statsmodels.stats.multitest import multipletests

    from kpass.stats.cost import cost_front

    names = list(VALUES)
    pairs, raw = [], []
    for i in names:
        for j in names:
            if i != j:
                better = stats.ttest_1samp(np.subtract(VALUES[i], VALUES[j]), 0.0,
                                           alternative="greater").pvalue
                cheaper = stats.ttest_1samp(np.subtract(COSTS[j], COSTS[i]), 0.0,
                                            alternative="greater").pvalue
                pairs.append((i, j))
                raw.append(max(better, cheaper))
    adjusted = multipletests(raw, alpha=0.05, method="holm")[1]
    dominated = {j: sorted(i for (i, jj), p in zip(pairs, adjusted, strict=True)
                           if jj == j and p <= 0.05) for j in names}
    want_front = [name for name in names if not dominated[name]]
    got = cost_front(VALUES, COSTS, 0.95)
    assert list(got.front) == want_front == ["a", "c"]
    assert {name: sorted(by) for name, by in got.dominated_by.items()} == {"b": ["a"]}
    for (i, j), p in zip(pairs, adjusted, strict=True):
        assert got.p_adjusted[names.index(i), names.index(j)] == pytest.approx(p, rel=1e-9)


def test_front_keeps_models_not_told_apart():
    from kpass.stats.cost import cost_front

    same = {"a": [1.0, 0.0, 1.0, 0.0], "b": [1.0, 0.0, 1.0, 0.0]}
    got = cost_front(same, {"a": [1.0, 1.0, 1.0, 1.0], "b": [5.0, 5.0, 5.0, 5.0]})
    assert got.front == ("a", "b") and got.dominated_by == {}


def test_front_refuses_bad_input():
    from kpass.stats.cost import cost_front

    with pytest.raises(ValueError, match="at least 2 models"):
        cost_front({"a": [1, 0]}, {"a": [1, 1]})
    with pytest.raises(ValueError, match="same models"):
        cost_front({"a": [1, 0], "b": [0, 1]}, {"a": [1, 1], "c": [1, 1]})
    with pytest.raises(ValueError, match="same questions"):
        cost_front({"a": [1, 0], "b": [0, 1, 1]}, {"a": [1, 1], "b": [1, 1, 1]})


def _front_errors(dominating: bool, reps: int, seed: int) -> float:
    """Share of replications with a model put off the front (wrongly when not dominating)."""
    from kpass.stats.cost import cost_front

    rng = np.random.default_rng(seed)
    m, n = 60, 4
    off = 0
    for _ in range(reps):
        difficulty = rng.beta(2, 2, m)
        values, costs = {}, {}
        for index, name in enumerate(("a", "b", "c")):
            lift = 0.15 if dominating and name == "a" else 0.0
            p = np.clip(difficulty + lift, 0, 1)
            values[name] = rng.binomial(n, p) / n
            # a is the cheapest in both settings; b and c cost more
            costs[name] = rng.gamma(4.0, 1.0 + 0.5 * index, m)
        off += bool(cost_front(values, costs, 0.95).dominated_by)
    return off / reps


@pytest.mark.slow
def test_front_family_wise_error_and_power_by_simulation():
    # equal metrics, a cheaper: no model is truly dominated; removing one is an error
    assert _front_errors(False, reps=400, seed=11) <= 0.05
    # a better by 0.15 and cheaper: the front should lose b and c most of the time
    assert _front_errors(True, reps=200, seed=12) >= 0.8
