"""The IRT fit (kpass.stats.irt) against its penalised log-likelihood written out by brute force
and maximised by scipy.optimize with numerical gradients, and its recovery of a simulated truth."""

import math

import numpy as np
import pytest
from scipy.optimize import approx_fprime, minimize
from scipy.special import expit, log_expit

from kpass.stats.irt import (
    ABILITY_SD,
    INTERCEPT_SD,
    RASCH_ABILITY_SD,
    SLOPE_SD,
    fit_ability,
    fit_irt,
)


def brute_log_posterior(n, c, theta, d, a, sd_theta):
    """The binomial log-likelihood (without the constant binomial coefficients) plus priors,
    term by term in plain floats."""
    total = 0.0
    for j in range(len(theta)):
        for q in range(len(d)):
            p = 1.0 / (1.0 + math.exp(-(a[q] * theta[j] + d[q])))
            total += c[j][q] * math.log(p) + (n[j][q] - c[j][q]) * math.log(1.0 - p)
    total -= sum(t * t for t in theta) / (2 * sd_theta ** 2)
    total -= sum(x * x for x in d) / (2 * INTERCEPT_SD ** 2)
    total -= sum((x - 1.0) ** 2 for x in a) / (2 * SLOPE_SD ** 2)
    return total


N = [[4, 4, 4, 4, 2], [4, 4, 4, 4, 2], [4, 4, 4, 4, 0], [4, 4, 4, 4, 2]]
C = [[4, 3, 1, 0, 1], [4, 4, 2, 1, 2], [3, 1, 0, 0, 0], [4, 2, 2, 1, 0]]


@pytest.mark.parametrize("model", ["rasch", "2pl"])
def test_fit_matches_brute_force_maximum(model):
    K, Q = 4, 5
    two = model == "2pl"
    sd = ABILITY_SD if two else RASCH_ABILITY_SD

    def negative(x):
        a = x[K + Q:] if two else [1.0] * Q
        return -brute_log_posterior(N, C, x[:K], x[K:K + Q], a, sd)

    start = np.zeros(K + Q + (Q if two else 0))
    if two:
        start[K + Q:] = 1.0
    reference = minimize(negative, start, method="BFGS", options={"gtol": 1e-9})
    fit = fit_irt(np.array(N), np.array(C), model=model, tolerance=1e-15, max_iterations=100_000)
    assert fit.converged
    assert fit.log_posterior == pytest.approx(-reference.fun, abs=1e-7)
    assert fit.ability == pytest.approx(reference.x[:K], abs=1e-3)
    assert fit.intercept == pytest.approx(reference.x[K:K + Q], abs=1e-3)
    if two:
        assert fit.slope == pytest.approx(reference.x[K + Q:], abs=1e-3)
    else:
        assert np.all(fit.slope == 1.0)
    # an unrun cell (n = 0) contributes nothing: the fit is the brute force's on the others
    assert fit.log_posterior == pytest.approx(
        brute_log_posterior(N, C, fit.ability, fit.intercept, fit.slope, sd), abs=1e-9)


def test_ability_matches_brute_force_with_items_fixed():
    fit = fit_irt(np.array(N), np.array(C), model="2pl", tolerance=1e-15, max_iterations=100_000)
    n, c = np.array([4, 4, 4, 0, 3]), np.array([4, 2, 2, 0, 1])
    mask = np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1], [1, 1, 0, 1, 1]])

    def negative(t, keep):
        total = -t * t / (2 * ABILITY_SD ** 2)
        for q in range(5):
            if keep[q]:
                p = 1.0 / (1.0 + math.exp(-(fit.slope[q] * t + fit.intercept[q])))
                total += c[q] * math.log(p) + (n[q] - c[q]) * math.log(1.0 - p)
        return -total

    theta = fit_ability(n, c, fit, mask=mask)
    for row, keep in enumerate(mask):
        reference = minimize(lambda x, keep=keep: negative(x[0], keep), [0.0], method="BFGS",
                             options={"gtol": 1e-10})
        assert theta[row] == pytest.approx(reference.x[0], abs=1e-5)


def vector_log_posterior(x, n, c, K, Q, two, sd_theta):
    """The penalised log-likelihood and its gradient in x = (theta, d[, a]), vectorised
    (scipy's log_expit), for scipy.optimize on a moderate case."""
    theta, d = x[:K], x[K:K + Q]
    a = x[K + Q:] if two else np.ones(Q)
    eta = np.outer(theta, a) + d
    value = np.sum(c * log_expit(eta) + (n - c) * log_expit(-eta))
    value -= (theta @ theta / sd_theta ** 2 + d @ d / INTERCEPT_SD ** 2
              + (a - 1) @ (a - 1) / SLOPE_SD ** 2) / 2
    residual = c - n * expit(eta)
    gradient = [residual @ a - theta / sd_theta ** 2, residual.sum(axis=0) - d / INTERCEPT_SD ** 2]
    if two:
        gradient.append(theta @ residual - (a - 1) / SLOPE_SD ** 2)
    return value, np.concatenate(gradient)


@pytest.mark.parametrize("model", ["rasch", "2pl"])
def test_fit_matches_scipy_on_a_moderate_case(model):
    """8 models x 60 questions, 0 to 16 samples per cell (some not run): the Newton fit at its
    default tolerance reaches the maximum scipy's L-BFGS-B finds on the full penalised likelihood
    to 1e-6 in the objective, and the same parameters."""
    rng = np.random.default_rng(7)
    K, Q = 8, 60
    two = model == "2pl"
    sd = ABILITY_SD if two else RASCH_ABILITY_SD
    truth = rng.normal(size=K)
    p = expit(np.outer(truth, np.exp(rng.normal(0, 0.4, Q))) + rng.normal(0, 1.5, Q))
    n = rng.choice([0, 1, 4, 16], size=(K, Q), p=[0.1, 0.3, 0.3, 0.3])
    c = rng.binomial(n, p)
    start = np.concatenate([np.zeros(K + Q), np.ones(Q if two else 0)])
    x = start + rng.normal(0, 0.3, start.size)  # the analytic gradient against differences
    numeric = approx_fprime(x, lambda x: vector_log_posterior(x, n, c, K, Q, two, sd)[0], 1e-7)
    assert vector_log_posterior(x, n, c, K, Q, two, sd)[1] == pytest.approx(numeric, abs=1e-4)

    def negative(x):
        value, gradient = vector_log_posterior(x, n, c, K, Q, two, sd)
        return -value, -gradient

    reference = minimize(negative, start, jac=True, method="L-BFGS-B",
                         options={"gtol": 1e-10, "ftol": 1e-15, "maxcor": 50})
    fit = fit_irt(n, c, model=model)
    assert fit.converged and fit.iterations <= 20
    assert fit.log_posterior == pytest.approx(-reference.fun, abs=1e-6)
    assert fit.log_posterior >= -reference.fun - 1e-8
    assert fit.log_posterior == pytest.approx(
        brute_log_posterior(n, c, fit.ability, fit.intercept, fit.slope, sd), abs=1e-8)
    assert fit.ability == pytest.approx(reference.x[:K], abs=1e-4)
    assert fit.intercept == pytest.approx(reference.x[K:K + Q], abs=1e-4)
    if two:
        assert fit.slope == pytest.approx(reference.x[K + Q:], abs=1e-4)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("model", ["rasch", "2pl"])
def test_fit_is_a_stationary_point_on_extreme_tables(model, seed):
    """Random small tables with extreme cells (200 samples, unrun cells, a model that solves
    everything, a question nobody solves, widely spread abilities): the fit converges to a
    point where the independent gradient vanishes and its log-posterior is the objective's,
    and a fit to a far tighter tolerance gains nothing."""
    rng = np.random.default_rng(100 + seed)
    K, Q = int(rng.integers(1, 12)), int(rng.integers(2, 40))
    two = model == "2pl"
    sd = ABILITY_SD if two else RASCH_ABILITY_SD
    truth = rng.normal(0, [0.5, 2.0, 5.0][seed % 3], size=K)
    p = expit(np.outer(truth, np.exp(rng.normal(0, 0.8, Q))) + rng.normal(0, 3, Q))
    n = rng.choice([0, 1, 4, 16, 200], size=(K, Q))
    n[:, 0] = np.maximum(n[:, 0], 1)
    c = rng.binomial(n, p)
    c[0] = n[0]
    c[:, -1] = 0
    fit = fit_irt(n, c, model=model)
    x = np.concatenate([fit.ability, fit.intercept, fit.slope if two else []])
    value, gradient = vector_log_posterior(x, n, c, K, Q, two, sd)
    assert fit.converged and fit.iterations <= 30
    assert fit.log_posterior == pytest.approx(value, abs=1e-9 * (1 + abs(value)))
    assert np.max(np.abs(gradient)) < 1e-4
    # stopping at the default tolerance left nothing for a tighter fit to gain
    tight = fit_irt(n, c, model=model, tolerance=1e-14)
    assert tight.log_posterior - fit.log_posterior < 1e-9 * (1 + abs(value))
    assert np.max(np.abs(tight.ability - fit.ability)) < 1e-4


def test_everyone_solves_stays_finite():
    c = np.array([[3, 3, 0], [3, 2, 0], [3, 1, 0]])
    fit = fit_irt(3, c, model="2pl")
    assert np.all(np.isfinite(fit.intercept)) and np.all(np.isfinite(fit.slope))
    assert fit.intercept[0] > 2 and fit.intercept[2] < -2


def test_recovers_simulated_2pl():
    rng = np.random.default_rng(1)
    theta = rng.normal(size=30)
    a = np.exp(rng.normal(0, 0.3, 200))
    d = rng.normal(0, 1.5, 200)
    c = rng.binomial(8, 1 / (1 + np.exp(-(np.multiply.outer(theta, a) + d))))
    fit = fit_irt(8, c, model="2pl")
    assert np.corrcoef(fit.ability, theta)[0, 1] > 0.97
    assert np.corrcoef(fit.intercept, d)[0, 1] > 0.95
    assert np.corrcoef(fit.slope, a)[0, 1] > 0.4


@pytest.mark.parametrize(("n", "c", "model", "words"), [
    (np.ones((2, 3)), np.ones((2, 2)), "2pl", "one shape"),
    (np.ones((2, 3)), np.full((2, 3), 2), "2pl", "0 <= n_correct <= n_samples"),
    (np.array([[0, 0], [1, 1]]), np.zeros((2, 2)), "2pl", "model 0 has none"),
    (np.ones((2, 3)), np.ones((2, 3)), "3pl", "`model` must be one of"),
])
def test_bad_input(n, c, model, words):
    with pytest.raises(ValueError, match=words):
        fit_irt(n, c, model=model)
