"""The seeds' worked examples, as explicit test vectors (independent of the docstrings)."""

import numpy as np
import pytest

import kpass

R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
RC = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
W = np.array([0.0, 0.5, 1.0])


def r(values, digits):
    return tuple(round(v, d) for v, d in zip(values, digits, strict=True))


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: kpass.pass_at_k(R, 1), 0.7),
        (lambda: kpass.pass_at_k(R, 2), 0.95),
        (lambda: kpass.pass_hat_k(R, 1), 0.7),
        (lambda: kpass.pass_hat_k(R, 2), 0.45),
        (lambda: kpass.g_pass_at_k(R, 2), 0.45),
        (lambda: kpass.g_pass_at_k_tau(R, 2, 0.5), 0.95),
        (lambda: kpass.g_pass_at_k_tau(R, 2, 1.0), 0.45),
        (lambda: kpass.mg_pass_at_k(R, 2), 0.45),
        (lambda: kpass.mg_pass_at_k(R, 3), 0.166667),
        (lambda: kpass.maj_at_k(R, 1), 0.7),
        (lambda: kpass.maj_at_k(R, 2), 0.45),
        (lambda: kpass.maj_at_k(R, 3), 0.85),
        (lambda: kpass.auc_at_k(R, 1), 0.7),
        (lambda: kpass.auc_at_k(R, 2), 0.825),
        (lambda: kpass.auc_at_k(R, 3), 0.9),
        (lambda: kpass.geom_at_k(R, 2), 0.647106),
        (lambda: kpass.geom_ds_at_k(R, 2), 0.653835),
        (lambda: kpass.geo_spectrum_at_k(R, 3), 0.408248),
        (lambda: kpass.geo_spectrum_at_k(R, 3, lam=1.0), 1.0),
        (lambda: kpass.max_at_k(R, 2), 0.95),
        (lambda: kpass.max_at_k(RC, 2, w=W), 0.85),
    ],
)
def test_point_vectors(call, expected):
    assert round(call(), 6) == expected


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: kpass.pass_at_k_ci(R, 1), (0.642857, 0.118451, 0.4107, 0.875)),
        (lambda: kpass.pass_at_k_ci(R, 2), (0.839286, 0.097263, 0.6487, 1.0)),
        (lambda: kpass.pass_hat_k_ci(R, 1), (0.642857, 0.118451, 0.4107, 0.875)),
        (lambda: kpass.pass_hat_k_ci(R, 2), (0.446429, 0.146167, 0.1599, 0.7329)),
        (lambda: kpass.maj_at_k_ci(R, 2), (0.446429, 0.146167, 0.1599, 0.7329)),
        (lambda: kpass.maj_at_k_ci(R, 3), (0.684524, 0.151958, 0.3867, 0.9824)),
        (lambda: kpass.geom_at_k_ci(R, 2), (0.610666, 0.133107, 0.3498, 0.8716)),
        (lambda: kpass.geom_ds_at_k_ci(R, 2), (0.612112, 0.132755, 0.3519, 0.8723)),
        (lambda: kpass.max_at_k_ci(R, 2), (0.839286, 0.097263, 0.6487, 1.0)),
        (lambda: kpass.max_at_k_ci(RC, 2, w=W), (0.75, 0.08812, 0.5773, 0.9227)),
        (lambda: kpass.bayes_ci(R, bounds=(0.0, 1.0)), (0.642857, 0.118451, 0.4107, 0.875)),
    ],
)
def test_interval_vectors(call, expected):
    assert r(call(), (6, 6, 4, 4)) == expected


def test_bayes_vectors():
    R0 = np.array([[0, 2], [1, 2]])
    assert r(kpass.bayes(RC, W, R0), (6, 6)) == (0.575, 0.084275)
    assert r(kpass.bayes(RC, W), (6, 6)) == (0.5625, 0.091998)


def test_avg_vectors():
    assert r(kpass.avg(R), (6, 6)) == (0.7, 0.165831)
    assert r(kpass.avg(RC, W), (6, 6)) == (0.6, 0.147196)
    assert r(kpass.avg_ci(R, bounds=(0.0, 1.0)), (4,) * 4) == (0.7, 0.1658, 0.375, 1.0)
    assert r(kpass.avg_ci(RC, W, confidence=0.95), (4,) * 4) == (0.6, 0.1472, 0.3115, 0.8885)


def test_seed_002_cons_pass_avg_example():
    # Problems with 2, 2, 1 and 0 correct of n = k = 3 (seed 002, section 2.3).
    outcomes = [[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]]
    assert kpass.cons_at_k(outcomes, 3) == pytest.approx(0.5, abs=1e-15)
    assert kpass.pass_at_k(outcomes, 3) == pytest.approx(0.75, abs=1e-15)
    assert round(kpass.avg(outcomes)[0], 4) == 0.4167


def test_seed_002_pass_at_k_product_example():
    # n = 5, c = 3, k = 2: pass@2 = 1 - C(2,2)/C(5,2) = 0.9.
    assert kpass.pass_at_k([[1, 1, 1, 0, 0]], 2) == pytest.approx(0.9, abs=1e-15)


def test_seed_003_skip_semantics():
    # Seed 003: tasks with fewer than k samples are skipped for that k.
    tasks = [[True, False, True], [False] * 10, [True] * 6]
    got = kpass.pass_at_k(tasks, [1, 5, 10], short="skip")
    from math import comb

    def ref(n, c, k):
        return 1 - comb(n - c, k) / comb(n, k)

    assert got[0] == pytest.approx((ref(3, 2, 1) + ref(10, 0, 1) + ref(6, 6, 1)) / 3)
    assert got[1] == pytest.approx((ref(10, 0, 5) + ref(6, 6, 5)) / 2)
    assert got[2] == pytest.approx(ref(10, 0, 10))


def test_tau_bench_published_pass_hat_figures():
    from kpass.data import tau_bench_outcomes

    got = kpass.pass_hat_k(tau_bench_outcomes(), [1, 2, 3, 4])
    assert [round(v, 3) for v in got] == [0.420, 0.273, 0.220, 0.200]
