"""Last-bit precision of the finite-sample estimators, against exact rationals.

* Pass^k, Pass@k and G-Pass@k_tau on tiny values: C(c, k) / C(N, k) and the
  hypergeometric tails computed exactly with ``fractions.Fraction``, within 1e-12
  relative (the README's promise) at every N from 500 to 5000.
* k = 1: every metric whose one-draw value is the draw itself returns the sample mean.
  Per question that is c / n rounded once, ``float(Fraction(c, n))``; for the dataset
  "the sample mean" is the exact mean of those per-question floats rounded once:
  ``statistics.mean`` (exact fractions), equivalently ``float(Fraction(math.fsum-exact
  sum, M))``. ``statistics.fmean`` (``math.fsum(values) / M``) rounds twice and can be
  one ulp off: the fmean of three copies of 0.9995 is 0.9994999999999999.
"""

import math
import statistics
from fractions import Fraction

import numpy as np
import pytest

import kpass
from kpass._core.counting.states import exact_weighted_mean
from kpass._core.moments.tails import scaled_cumprod

TINY = Fraction(1, 10**300)  # below this, float64 has no relative precision to promise


def _rectangular(n, cs):
    R = np.zeros((len(cs), n), dtype=np.int8)
    for row, c in enumerate(cs):
        R[row, :c] = 1
    return R


def _relative(value, exact):
    return abs(Fraction(float(value)) - exact) / exact


def test_issue_example_pass_hat_k_1668_of_2000_k_1000():
    exact = Fraction(math.comb(1668, 1000), math.comb(2000, 1000))
    value = kpass.pass_hat_k(_rectangular(2000, [1668]), 1000)
    assert _relative(value, exact) < 1e-13  # was 1.7e-12


@pytest.mark.parametrize("n", [500, 1000, 1500, 2000, 2048, 2049, 2500, 3000, 4000, 5000])
def test_pass_hat_k_and_pass_at_k_exact_on_tiny_values(n):
    worst_hat = worst_at = Fraction(0)
    for share in (0.01, 0.1, 0.3, 0.5, 0.7, 0.95):
        k = max(1, int(n * share))
        cs = sorted({int(c) for c in np.linspace(k, n, 15)} | {min(n, k + 1)})
        R = _rectangular(n, cs)
        hat = kpass.pass_hat_k(R, k, per_question=True)
        at = kpass.pass_at_k(R, k, per_question=True)
        for c, v_hat, v_at in zip(cs, hat, at, strict=True):
            exact = Fraction(math.comb(c, k), math.comb(n, k))
            if exact > TINY:
                worst_hat = max(worst_hat, _relative(v_hat, exact))
            else:
                assert v_hat < 1e-299
            worst_at = max(worst_at, _relative(v_at, 1 - Fraction(math.comb(n - c, k),
                                                                   math.comb(n, k))))
    assert worst_hat < 1e-12, float(worst_hat)
    assert worst_at < 1e-12, float(worst_at)


@pytest.mark.parametrize("n", [500, 2000, 2048])
@pytest.mark.parametrize("tau", [0.3, 0.5, 0.8])
def test_g_pass_at_k_tau_tails_exact(n, tau):
    k = n // 2
    need = max(1, math.ceil(tau * k))
    cs = sorted({int(c) for c in np.linspace(need, n, 12)})
    values = kpass.g_pass_at_k_tau(_rectangular(n, cs), k, tau, per_question=True)
    total = math.comb(n, k)
    for c, value in zip(cs, values, strict=True):
        exact = Fraction(sum(math.comb(c, j) * math.comb(n - c, k - j)
                             for j in range(need, min(c, k) + 1)), total)
        if exact > TINY:
            assert _relative(value, exact) < 1e-12, (c, float(_relative(value, exact)))


@pytest.mark.slow
def test_scaled_cumprod_survives_a_tiny_prefix():
    """A running product that dips below 1e-308 and comes back is still exact to ~n eps."""
    factors = np.concatenate((np.full(600, 1 / 3), np.full(600, 3.0 - 1e-9), [7.0]))
    products = scaled_cumprod(factors)
    exact = Fraction(1)
    for index, factor in enumerate(factors):
        exact *= Fraction(float(factor))
        if exact > TINY:
            assert _relative(products[index], exact) < 1e-13
    assert products[-1] > 1.0 and np.all(np.isfinite(products))
    plain = np.array([1.5, 0.25, 8.0])
    assert scaled_cumprod(plain).tolist() == np.cumprod(plain).tolist()


# ----------------------------------------------------------------------------- k = 1


K1_METRICS = {
    "pass_at_k": lambda R, **kw: kpass.pass_at_k(R, 1, **kw),
    "pass_hat_k": lambda R, **kw: kpass.pass_hat_k(R, 1, **kw),
    "unanimous_at_k": lambda R, **kw: kpass.unanimous_at_k(R, 1, **kw),
    "g_pass_at_k": lambda R, **kw: kpass.g_pass_at_k(R, 1, **kw),
    "g_pass_at_k_tau": lambda R, **kw: kpass.g_pass_at_k_tau(R, 1, 0.7, **kw),
    "maj_at_k": lambda R, **kw: kpass.maj_at_k(R, 1, **kw),
    "cons_at_k": lambda R, **kw: kpass.cons_at_k(R, 1, **kw),
}

DATASETS = {
    "issue": [[1] * 1999 + [0]],
    "rectangular": [[1] * c + [0] * (2000 - c) for c in (0, 1, 1999, 1667, 3, 1999, 1000)],
    "ragged": [[1] * 1999 + [0], [1, 1, 0], [1] * 1666 + [0] * 1335, [0] * 7, [1] * 49 + [0] * 2,
               [1] * 3 + [0] * 7, [1] * 1666 + [0] * 1335],
    "large_n": [[1] * c + [0] * (4099 - c) for c in (4098, 1, 2049, 3333)],
}


def _exact_per_question(rows):
    return [float(Fraction(sum(row), len(row))) for row in rows]


@pytest.mark.parametrize("metric", sorted(K1_METRICS))
@pytest.mark.parametrize("data", sorted(DATASETS))
def test_k1_is_the_sample_mean_to_the_last_bit(metric, data):
    rows = DATASETS[data]
    fn = K1_METRICS[metric]
    R = np.array(rows) if len({len(r) for r in rows}) == 1 else rows
    expected = _exact_per_question(rows)
    per_question = fn(R, per_question=True)
    assert per_question.tolist() == expected
    _is_the_sample_mean(fn(R), expected)


def _is_the_sample_mean(value, per_question):
    exact = sum(map(Fraction, per_question), Fraction(0)) / len(per_question)
    assert value == float(exact) == statistics.mean(per_question)
    fmean = statistics.fmean(per_question)
    assert abs(value - fmean) <= math.ulp(fmean)


def test_k1_issue_example_prints_the_mean():
    assert repr(kpass.pass_at_k(np.array([[1] * 1999 + [0]]), 1)) == "0.9995"
    assert kpass.pass_at_k(kpass.binary_counts([[1] * 1999 + [0]] * 3), [1, 2])[0] == 0.9995
    assert statistics.fmean([0.9995] * 3) != 0.9995  # why fmean is not "the sample mean"


def test_k1_mean_over_many_questions_is_fmean():
    rng = np.random.default_rng(7)
    R = (rng.random((3001, 77)) < rng.random((3001, 1))).astype(np.int64)
    _is_the_sample_mean(kpass.pass_at_k(R, 1), _exact_per_question(R.tolist()))
    ragged = [row[: 1 + i % 77] for i, row in enumerate(R.tolist())]
    _is_the_sample_mean(kpass.pass_hat_k(ragged, 1), _exact_per_question(ragged))
    _is_the_sample_mean(kpass.pass_at_k(R[:, :64], 1), _exact_per_question(R[:, :64].tolist()))


@pytest.mark.parametrize("weights", [[1.0, 3.0, 2.0**26, 5.0], [1.0, 2.0, 3.0],
                                     [7.0, 2.0**40, 1.0, 1.0], [1e6, 1e6, 3.0, 1.0]])
def test_exact_weighted_mean_is_the_exact_mean_rounded_once(weights):
    values = np.array([0.1, 1 / 3, 2 / 3, 1e-300])[: len(weights)]
    weight = np.array(weights)
    total = int(weight.sum())
    exact = sum(Fraction(int(w)) * Fraction(float(v))
                for w, v in zip(weight, values, strict=True)) / total
    assert exact_weighted_mean(weight, values, total) == float(exact)


@pytest.mark.parametrize("data", sorted(DATASETS))
def test_k1_tailpass_empirical_is_the_sample_mean(data):
    rows = DATASETS[data]
    expected = _exact_per_question(rows)
    profile = kpass.tailpass_empirical(rows, 1)
    assert profile.shape == (1,)
    _is_the_sample_mean(float(profile[0]), expected)
    assert kpass.tailpass_empirical(rows, 1, per_question=True)[:, 0].tolist() == expected


def test_k1_tailpass_empirical_rubric_shares():
    rows = [[0, 1, 2, 2, 2, 1, 0], [2, 2, 1], [1] * 2999 + [2]]
    thresholds = [0.0, 0.25, 0.5, 0.75, 1.0]
    w = [0.0, 0.5, 1.0]
    per_question = kpass.tailpass_empirical(rows, 1, w=w, thresholds=thresholds,
                                            per_question=True)
    profile = kpass.tailpass_empirical(rows, 1, w=w, thresholds=thresholds)
    for column, t in enumerate(thresholds):
        shares = [float(Fraction(sum(w[c] >= t for c in row), len(row))) for row in rows]
        assert per_question[:, column].tolist() == shares
        _is_the_sample_mean(float(profile[column]), shares)
