"""Very large k: O(k) routes for threshold posteriors, a named limit for the others."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, special, stats

import kpass
from kpass._core.moments.credits import MAX_PRODUCT_K, auc_coefficients, auc_credit, tau_threshold
from kpass._core.moments.tails import threshold_square_coefficients


def exact_interval(population, marked, draws, low, high):
    """P(low <= H <= high), H ~ Hypergeometric(population, marked, draws), as a fraction."""
    total = sum(math.comb(marked, h) * math.comb(population - marked, draws - h)
                for h in range(max(low, 0), min(high, marked, draws) + 1))
    return Fraction(total, math.comb(population, draws))


@pytest.mark.parametrize("k", [1, 2, 3, 7, 16, 41])
def test_squared_threshold_coefficients_are_the_exact_interval_probabilities(k):
    # g^2 = P(J1 >= j0, J2 >= j0 | p): given J1 + J2 = s, J1 ~ Hypergeometric(2k, s, k).
    for j0 in sorted({1, 2, (k + 1) // 2, k // 2 + 1, k} - {0}):
        if j0 > k:
            continue
        up, down = threshold_square_coefficients(k, j0)
        for s in range(2 * k + 1):
            for got, (low, high) in ((up[s], (j0, s - j0)), (down[s], (s - j0 + 1, j0 - 1))):
                exact = exact_interval(2 * k, s, k, low, high) if low <= high else Fraction(0)
                if exact == 0:
                    assert got == 0.0
                else:
                    assert abs(got - float(exact)) <= 1e-13 * float(exact), (k, j0, s)


def _quadrature_moments(n, c, k, j0):
    """Posterior mean and sd of g(p) = I_p(j0, k - j0 + 1) under Beta(1 + c, 1 + n - c).

    Adaptive quadrature of the regularized incomplete beta against the Beta density,
    over 40 posterior sds around the centre with breakpoints at the centre, every
    2 sds and the threshold (mpmath's takes many minutes at these k).
    """
    a, b = 1.0 + c, 1.0 + n - c
    posterior = stats.beta(a, b)
    centre, spread = a / (a + b), posterior.std()
    low, high = max(0.0, centre - 40 * spread), min(1.0, centre + 40 * spread)
    points = [p for p in [*(centre + t * spread for t in range(-12, 13, 2)), (j0 - 0.5) / k]
              if low < p < high]

    def moment(power):
        def integrand(p):
            return special.betainc(j0, k - j0 + 1, p) ** power * posterior.pdf(p)

        return integrate.quad(integrand, low, high, points=points, epsabs=0.0, epsrel=1e-13,
                              limit=500)[0]

    mean, second = moment(1), moment(2)
    return mean, math.sqrt(second - mean * mean)


@pytest.mark.parametrize(("n", "c", "k", "tau"), [
    (12000, 6200, 6000, 0.5), (8000, 2000, 5000, 0.3), (100000, 50300, 100000, 0.5),
    (200000, 90000, 100000, 0.45)])
def test_threshold_posterior_beyond_the_product_limit_against_quadrature(n, c, k, tau):
    assert k > MAX_PRODUCT_K
    mean, sd = _quadrature_moments(n, c, k, tau_threshold(tau, k))
    mu, sigma, _, _ = kpass.g_pass_at_k_tau_ci(kpass.BinaryCounts([n], [c]), k, tau)
    assert abs(mu - mean) <= 1e-12 * mean
    assert abs(sigma - sd) <= 1e-8 * sd


def test_every_posterior_at_n_equal_k_100000_answers_or_names_its_limit():
    n = 100_000
    rng = np.random.default_rng(4)
    counts = kpass.BinaryCounts(np.full(5, n), rng.integers(0, n + 1, 5))
    answered = []
    for name in [f for f in kpass.__all__ if f.endswith("_ci") and f not in
                 ("bayes_ci", "avg_ci", "vote_at_k_ci")]:
        function = getattr(kpass, name)
        if "tau" in name:
            args = (counts, n, 0.5)
        elif "threshold_spectrum" in name:
            args = (counts, n, np.full(n, 1.0 / n))
        else:
            args = (counts, n)
        try:
            mu, sigma, lo, hi = function(*args)
        except ValueError as error:
            assert f"`k` must be an int in [1, {MAX_PRODUCT_K}]" in str(error)
            assert f"got k={n}" in str(error)
            continue
        assert all(math.isfinite(x) for x in (mu, sigma, lo, hi)) and sigma >= 0, name
        answered.append(name)
    assert {"g_pass_at_k_tau_ci", "maj_at_k_ci", "pass_at_k_ci"} <= set(answered)


def test_auc_credit_closed_form_against_the_sum_of_pass_at_i():
    for k in [2, 3, 5, 64]:
        coefficients = [Fraction(x).limit_denominator(10 * k) for x in auc_coefficients(k)]
        for j in range(k + 1):
            exact = sum(w * (1 - Fraction(math.comb(k - j, i), math.comb(k, i)))
                        for i, w in enumerate(coefficients, start=1))
            assert abs(auc_credit(k).values[j] - float(exact)) <= 1e-15 + 1e-14 * float(exact)
