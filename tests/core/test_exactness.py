"""Exactness at large N against exact integer/Fraction arithmetic and mpmath.

Point estimators: 1e-12 relative to the exact rational value at N up to 100000.
Posterior means and standard deviations: 1e-10 relative to mpmath at N up to
100000 (k up to 2000 for the closed-form endpoints, up to 300 for general credits,
whose exact reference is a double sum).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import kpass
from kpass._core.moments.credits import mg_credit, tau_threshold

mpmath.mp.dps = 40


def exact_tail(n, c, k, j0):
    # Consecutive hypergeometric terms by their exact rational ratio: no huge binomials
    # beyond the first term, so sums of thousands of terms stay cheap.
    low, high = max(j0, 0, k - (n - c)), min(c, k)
    if low > high:
        return Fraction(0)
    term = Fraction(math.comb(c, low) * math.comb(n - c, k - low), math.comb(n, k))
    total = term
    for j in range(low, high):
        term *= Fraction((c - j) * (k - j), (j + 1) * (n - c - k + j + 1))
        total += term
    return total


def exact_credit_mean(n, c, k, credit):
    total = sum(Fraction(credit[j]) * math.comb(c, j) * math.comb(n - c, k - j)
                for j in range(max(0, k - (n - c)), min(c, k) + 1))
    return total / math.comb(n, k)


def counts(n, cs):
    cs = np.asarray(cs)
    return kpass.BinaryCounts(np.full(cs.size, n), cs)


def rel(a, b):
    return abs(a - b) / abs(b)


@pytest.mark.parametrize("k", [1, 7, 1000, pytest.param(50000, marks=pytest.mark.slow),  # 2.1 s
                               99999, 100000])
def test_pass_at_k_and_pass_hat_k_exact_at_n_100000(k):
    n = 100000
    for c in [1, 17, 50000, 99990, 100000]:
        exact_pass = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        got = kpass.pass_at_k(counts(n, [c]), k)
        if exact_pass:
            assert rel(got, float(exact_pass)) < 1e-12
        else:
            assert got == 0.0
        exact_hat = Fraction(math.comb(c, k), math.comb(n, k))
        if float(exact_hat) > 1e-300:
            assert rel(kpass.pass_hat_k(counts(n, [c]), k), float(exact_hat)) < 1e-12


@pytest.mark.parametrize(("n", "k"), [(100000, 20), (100000, 99990), (3000, 1500)])
def test_threshold_and_majority_exact_at_large_n(n, k):
    for c in sorted({1, 700, n - 5, n} if n > 10000 else {1, n // 3, n // 2, n - 5, n}):
        for tau in [0.25, 0.5, 0.7]:
            exact = exact_tail(n, c, k, tau_threshold(tau, k))
            got = kpass.g_pass_at_k_tau(counts(n, [c]), k, tau)
            if float(exact) > 1e-290:
                assert rel(got, float(exact)) < 1e-12
            else:
                assert got < 1e-280
        exact = exact_tail(n, c, k, k // 2 + 1)
        if float(exact) > 1e-290:
            assert rel(kpass.maj_at_k(counts(n, [c]), k), float(exact)) < 1e-12


def test_mg_pass_exact_at_large_n():
    n, k = 20000, 64
    credit = [Fraction(2, k) * max(0, j - (k + 1) // 2) for j in range(k + 1)]
    for c in [10000, 15000, 19990]:
        exact = exact_credit_mean(n, c, k, credit)
        assert rel(kpass.mg_pass_at_k(counts(n, [c]), k), float(exact)) < 1e-12


def test_auc_exact_at_large_n():
    n, k = 100000, 50
    coefficients = [Fraction(1, 2 * (k - 1))] + [Fraction(1, k - 1)] * (k - 2) + \
        [Fraction(1, 2 * (k - 1))]
    for c in [1, 300, 99000]:
        exact = sum(coef * (1 - Fraction(math.comb(n - c, j), math.comb(n, j)))
                    for j, coef in enumerate(coefficients, start=1))
        assert rel(kpass.auc_at_k(counts(n, [c]), k), float(exact)) < 1e-12


def mp_beta_ratio(a, b, i, j):
    return mpmath.beta(a + i, b + j) / mpmath.beta(a, b)


@pytest.mark.parametrize("k", [1, 64, 2000])
@pytest.mark.parametrize("c", [3, 50000, 99999])
def test_endpoint_posteriors_exact_at_n_100000(k, c):
    n = 100000
    a, b = mpmath.mpf(1 + c), mpmath.mpf(1 + n - c)
    q1, q2 = mp_beta_ratio(a, b, 0, k), mp_beta_ratio(a, b, 0, 2 * k)
    p1, p2 = mp_beta_ratio(a, b, k, 0), mp_beta_ratio(a, b, 2 * k, 0)
    for fn, mean, var in [(kpass.pass_at_k_ci, 1 - q1, q2 - q1 * q1),
                          (kpass.pass_hat_k_ci, p1, p2 - p1 * p1)]:
        mu, sigma, _, _ = fn(counts(n, [c]), k)
        if mean > mpmath.mpf("1e-290"):
            assert rel(mu, float(mean)) < 1e-10
        if var > mpmath.mpf("1e-290"):
            assert rel(sigma, float(mpmath.sqrt(var))) < 1e-10


def mp_moments(a, b, credit):
    mean, var = mp_raw_moments(a, b, credit)
    if mean > 0.5:  # the complement 1 - g has the same variance and no cancellation
        complement_mean, var = mp_raw_moments(a, b, [1 - x for x in credit])
        mean = 1 - complement_mean
    return mean, var


def mp_raw_moments(a, b, credit):
    k = len(credit) - 1
    support = [j for j in range(k + 1) if credit[j]]
    weight = {j: credit[j] * mpmath.binomial(k, j) for j in support}
    mean = sum(weight[j] * mp_beta_ratio(a, b, j, k - j) for j in support)
    second = sum(weight[i] * weight[j] * mp_beta_ratio(a, b, i + j, 2 * k - i - j)
                 for i in support for j in support)
    return mean, second - mean * mean


@pytest.mark.parametrize(("n", "c", "k"), [(100000, 50000, 100), (100000, 70000, 300),
                                          (2000, 1200, 300), (5000, 4900, 150)])
@pytest.mark.slow
def test_general_credit_posteriors_exact(n, c, k):
    a, b = mpmath.mpf(1 + c), mpmath.mpf(1 + n - c)
    j0 = tau_threshold(0.7, k)
    threshold = [mpmath.mpf(1 if j >= j0 else 0) for j in range(k + 1)]
    mg = [mpmath.mpf(2) / k * max(0, j - (k + 1) // 2) for j in range(k + 1)]
    for fn, credit in [(lambda R, kk: kpass.g_pass_at_k_tau_ci(R, kk, 0.7), threshold),
                       (kpass.mg_pass_at_k_ci, mg)]:
        mean, var = mp_moments(a, b, credit)
        mu, sigma, _, _ = fn(counts(n, [c]), k)
        assert rel(mu, float(mean)) < 1e-10
        assert rel(sigma, float(mpmath.sqrt(var))) < 1e-10
    assert np.allclose(mg_credit(k).values, [float(x) for x in mg])


@pytest.mark.slow
def test_posterior_at_k_2000_against_quadrature():
    # G-Pass@k_tau at k = 2000, N = 4000: the target is the regularized incomplete beta
    # function g(p) = I_p(j0, k - j0 + 1); integrate g and g^2 against the posterior.
    n, c, k, tau = 4000, 2100, 2000, 0.5
    j0 = tau_threshold(tau, k)
    a, b = mpmath.mpf(1 + c), mpmath.mpf(1 + n - c)

    def g(p):
        return mpmath.betainc(j0, k - j0 + 1, 0, p, regularized=True)

    def density(p):
        return p ** (a - 1) * (1 - p) ** (b - 1) / mpmath.beta(a, b)

    mpmath.mp.dps = 30
    centre = a / (a + b)
    spread = mpmath.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    points = [0] + [centre + t * spread for t in range(-12, 13, 2)] + [1]
    points = sorted(min(max(x, 0), 1) for x in points)
    mean = mpmath.quad(lambda p: g(p) * density(p), points)
    second = mpmath.quad(lambda p: g(p) ** 2 * density(p), points)
    mpmath.mp.dps = 40
    mu, sigma, _, _ = kpass.g_pass_at_k_tau_ci(counts(n, [c]), k, tau)
    assert rel(mu, float(mean)) < 1e-10
    assert rel(sigma, float(mpmath.sqrt(second - mean * mean))) < 1e-8


def test_brute_force_k_subsets_small():
    from itertools import combinations

    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(1, 8))
        row = rng.integers(0, 2, n).tolist()
        for k in range(1, n + 1):
            subsets = list(combinations(row, k))
            expected = {
                "pass": Fraction(sum(any(s) for s in subsets), len(subsets)),
                "hat": Fraction(sum(all(s) for s in subsets), len(subsets)),
                "maj": Fraction(sum(sum(s) > k / 2 for s in subsets), len(subsets)),
                "mg": sum(Fraction(2, k) * max(0, sum(s) - (k + 1) // 2) for s in subsets)
                / len(subsets),
            }
            assert kpass.pass_at_k([row], k) == pytest.approx(float(expected["pass"]), abs=1e-15)
            assert kpass.pass_hat_k([row], k) == pytest.approx(float(expected["hat"]), abs=1e-15)
            assert kpass.maj_at_k([row], k) == pytest.approx(float(expected["maj"]), abs=1e-15)
            assert kpass.mg_pass_at_k([row], k) == pytest.approx(float(expected["mg"]), abs=1e-15)
            for tau in [0.25, 0.5, 0.7]:
                j0 = max(1, math.ceil(tau * k - 1e-12))
                exp = Fraction(sum(sum(s) >= j0 for s in subsets), len(subsets))
                assert kpass.g_pass_at_k_tau([row], k, tau) == pytest.approx(float(exp),
                                                                              abs=1e-15)


def test_max_at_k_brute_force_subsets():
    from itertools import combinations

    rng = np.random.default_rng(9)
    w = [0.0, 0.3, 1.0, -0.5]
    for _ in range(10):
        row = rng.integers(0, 4, int(rng.integers(1, 7))).tolist()
        for k in range(1, len(row) + 1):
            subsets = list(combinations(row, k))
            exp = sum(max(w[x] for x in s) for s in subsets) / len(subsets)
            assert kpass.max_at_k([row], k, w) == pytest.approx(exp, abs=1e-14)


def mp_hypergeom_pmf(n, c, k, j):
    lg = mpmath.loggamma
    return mpmath.exp(lg(c + 1) - lg(j + 1) - lg(c - j + 1) + lg(n - c + 1) - lg(k - j + 1)
                      - lg(n - c - k + j + 1) - lg(n + 1) + lg(k + 1) + lg(n - k + 1))


@pytest.mark.parametrize(("n", "c", "k", "tau"), [
    (100000, 50000, 50000, 0.5), (100000, 50000, 50000, 0.502), (100000, 70000, 30000, 0.71),
    (100000, 99000, 60000, 0.9905),
])
def test_wide_support_tails_at_n_100000_against_mpmath(n, c, k, tau):
    # Supports tens of thousands wide: sum the exact terms within 60 sd of the mean
    # (the rest is below 1e-700 of the total) at 40 digits.
    j0 = tau_threshold(tau, k)
    mean = k * c / n
    sd = (k * (c / n) * (1 - c / n) * (n - k) / (n - 1)) ** 0.5
    low, high = max(j0, int(mean - 60 * sd)), min(c, k, int(mean + 60 * sd))
    exact = mpmath.fsum(mp_hypergeom_pmf(n, c, k, j) for j in range(low, high + 1))
    assert rel(kpass.g_pass_at_k_tau(counts(n, [c]), k, tau), float(exact)) < 1e-12
