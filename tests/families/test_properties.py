"""Property tests (hypothesis): invariances, ranges, monotonicity, ragged = union of blocks."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kpass

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def binary_matrices(draw, max_m=8, max_n=10):
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, max_n))
    bits = draw(st.lists(st.integers(0, 1), min_size=m * n, max_size=m * n))
    return np.array(bits, dtype=np.int64).reshape(m, n)


@st.composite
def ragged_lists(draw, max_m=8, max_n=10):
    m = draw(st.integers(1, max_m))
    return [draw(st.lists(st.integers(0, 1), min_size=1, max_size=max_n)) for _ in range(m)]


POINT = [kpass.pass_at_k, kpass.pass_hat_k, kpass.mg_pass_at_k, kpass.maj_at_k, kpass.auc_at_k,
         kpass.geom_at_k, lambda R, k: kpass.g_pass_at_k_tau(R, k, 0.6)]
INTERVAL = [kpass.pass_at_k_ci, kpass.pass_hat_k_ci, kpass.mg_pass_at_k_ci, kpass.maj_at_k_ci,
            kpass.auc_at_k_ci, kpass.geom_at_k_ci, kpass.geo_spectrum_at_k_ci,
            lambda R, k: kpass.g_pass_at_k_tau_ci(R, k, 0.6)]


@pytest.mark.slow
@SETTINGS
@given(binary_matrices(), st.randoms(use_true_random=False))
def test_invariant_to_question_and_sample_order(R, rnd):
    m, n = R.shape
    rows = list(range(m))
    rnd.shuffle(rows)
    shuffled = np.array([rnd.sample(list(R[i]), n) for i in rows])
    for k in range(1, n + 1):
        for fn in POINT + INTERVAL:
            np.testing.assert_allclose(fn(shuffled, k), fn(R, k), rtol=1e-12, atol=1e-14)


@SETTINGS
@given(binary_matrices())
def test_values_in_range_and_interval_brackets_mean(R):
    for k in range(1, R.shape[1] + 1):
        for fn in POINT:
            assert -1e-15 <= fn(R, k) <= 1 + 1e-15
        for fn in INTERVAL:
            mu, sigma, lo, hi = fn(R, k)
            assert 0.0 <= lo <= mu + 1e-15 and mu - 1e-15 <= hi <= 1.0
            assert sigma >= 0.0


@SETTINGS
@given(binary_matrices())
def test_pass_at_k_rises_and_pass_hat_k_falls_with_k(R):
    ks = list(range(1, R.shape[1] + 1))
    up = kpass.pass_at_k(R, ks)
    down = kpass.pass_hat_k(R, ks)
    assert all(b >= a - 1e-14 for a, b in zip(up, up[1:], strict=False))
    assert all(b <= a + 1e-14 for a, b in zip(down, down[1:], strict=False))
    mu_up = [t[0] for t in kpass.pass_at_k_ci(R, ks)]
    mu_down = [t[0] for t in kpass.pass_hat_k_ci(R, ks)]
    assert all(b >= a - 1e-14 for a, b in zip(mu_up, mu_up[1:], strict=False))
    assert all(b <= a + 1e-14 for a, b in zip(mu_down, mu_down[1:], strict=False))


@SETTINGS
@given(ragged_lists(), st.integers(1, 4))
def test_ragged_equals_union_of_rectangular_blocks_weighted_by_size(R, k):
    R = [row for row in R if len(row) >= k]
    if not R:
        return
    blocks = {}
    for row in R:
        blocks.setdefault(len(row), []).append(row)
    m = len(R)
    for point in (kpass.pass_at_k, kpass.pass_hat_k, kpass.mg_pass_at_k, kpass.auc_at_k):
        pooled = sum(len(rows) * point(np.array(rows), k) for rows in blocks.values()) / m
        assert abs(point(R, k) - pooled) < 1e-13
    for interval in (kpass.pass_at_k_ci, kpass.maj_at_k_ci):
        mu = sum(len(rows) * interval(np.array(rows), k)[0] for rows in blocks.values()) / m
        variance = sum((len(rows) * interval(np.array(rows), k)[1]) ** 2
                       for rows in blocks.values()) / m**2
        got = interval(R, k)
        assert abs(got[0] - mu) < 1e-13
        assert abs(got[1] - variance**0.5) < 1e-13


@SETTINGS
@given(ragged_lists(), st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_several_k_equal_one_call_each(R, ks):
    ks = [k for k in ks if k <= max(map(len, R))] or [1]
    got = kpass.pass_at_k_ci(R, ks, short="skip")
    for k, result in zip(ks, got, strict=True):
        kept = [row for row in R if len(row) >= k]
        assert result == kpass.pass_at_k_ci(kept, k)
    assert kpass.mg_pass_at_k(R, ks, short="skip") == [
        kpass.mg_pass_at_k([row for row in R if len(row) >= k], k) for k in ks]


@SETTINGS
@given(ragged_lists())
def test_per_question_values_average_to_the_metric(R):
    k = min(map(len, R))
    for fn in (kpass.pass_at_k, kpass.maj_at_k, kpass.auc_at_k, kpass.max_at_k):
        values = fn(R, k, per_question=True)
        assert isinstance(values, np.ndarray) and values.shape == (len(R),)
        assert abs(float(values.mean()) - fn(R, k)) < 1e-13
        for i, row in enumerate(R):
            assert abs(values[i] - fn([row], k)) < 1e-13
