"""Every function against the reference library (scorio 0.2.3) on seeded random matrices.

scorio is a test-only oracle: the package never imports it.
"""

import numpy as np
import pytest

import kpass

se = pytest.importorskip("scorio.eval")

RTOL = 1e-9
ATOL = 1e-12


def close(ours, theirs):
    np.testing.assert_allclose(np.asarray(ours, float), np.asarray(theirs, float), rtol=RTOL,
                               atol=ATOL)


def matrices():
    rng = np.random.default_rng(20261121)
    for m, n in [(1, 1), (3, 4), (25, 8), (40, 13)]:
        R = rng.integers(0, 2, (m, n))
        if m > 3:
            R[0] = 1
            R[1] = 0
        yield R


MATRICES = list(matrices())
PRIORS = [dict(), dict(alpha0=0.5, beta0=2.0), dict(confidence=0.8, bounds=(0.1, 0.9))]
TAUS = [0.0, 0.25, 0.5, 0.7, 1.0]

POINT = ["pass_at_k", "pass_hat_k", "unanimous_at_k", "g_pass_at_k", "mg_pass_at_k", "maj_at_k",
         "auc_at_k", "geom_at_k", "geom_ds_at_k", "geo_spectrum_at_k", "geo_spectrum_star_at_k"]
INTERVAL = ["pass_at_k_ci", "pass_hat_k_ci", "unanimous_at_k_ci", "g_pass_at_k_ci",
            "mg_pass_at_k_ci", "maj_at_k_ci", "auc_at_k_ci", "geom_at_k_ci", "geom_ds_at_k_ci",
            "geo_spectrum_at_k_ci", "geo_spectrum_star_at_k_ci"]


@pytest.mark.parametrize("name", POINT)
@pytest.mark.parametrize("index", range(len(MATRICES)))
def test_point_estimators_match_reference_for_every_k(name, index):
    R = MATRICES[index]
    for k in range(1, R.shape[1] + 1):
        close(getattr(kpass, name)(R, k), getattr(se, name)(R, k))


@pytest.mark.parametrize("name", INTERVAL)
@pytest.mark.parametrize("index", range(len(MATRICES)))
@pytest.mark.parametrize("extra", PRIORS)
def test_intervals_match_reference_for_every_k(name, index, extra):
    R = MATRICES[index]
    for k in range(1, R.shape[1] + 1):
        close(getattr(kpass, name)(R, k, **extra), getattr(se, name)(R, k, **extra))


@pytest.mark.parametrize("index", range(len(MATRICES)))
def test_g_pass_tau_matches_reference(index):
    R = MATRICES[index]
    for k in range(1, R.shape[1] + 1):
        for tau in TAUS:
            close(kpass.g_pass_at_k_tau(R, k, tau), se.g_pass_at_k_tau(R, k, tau))
            for extra in PRIORS:
                close(kpass.g_pass_at_k_tau_ci(R, k, tau, **extra),
                      se.g_pass_at_k_tau_ci(R, k, tau, **extra))


@pytest.mark.parametrize("index", range(len(MATRICES)))
def test_geometric_powers_lam_and_weights_match_reference(index):
    R = MATRICES[index]
    rng = np.random.default_rng(index)
    for k in range(1, R.shape[1] + 1):
        for a, b in [(0.5, 0.5), (1.0, 0.0), (0.0, 1.0), (0.3, 1.7)]:
            close(kpass.geom_at_k(R, k, a, b), se.geom_at_k(R, k, a, b))
            close(kpass.geom_ds_at_k(R, k, a, b), se.geom_ds_at_k(R, k, a, b))
            close(kpass.geom_at_k_ci(R, k, a, b), se.geom_at_k_ci(R, k, a, b))
            close(kpass.geom_ds_at_k_ci(R, k, a, b, alpha0=2.0),
                  se.geom_ds_at_k_ci(R, k, a, b, alpha0=2.0))
        weights = rng.dirichlet(np.ones(k)) * rng.uniform(0.3, 1.0)
        close(kpass.threshold_spectrum_at_k(R, k, weights),
              se.threshold_spectrum_at_k(R, k, weights))
        close(kpass.threshold_spectrum_at_k_ci(R, k, weights, beta0=3.0),
              se.threshold_spectrum_at_k_ci(R, k, weights, beta0=3.0))
        for lam in [0.0, 0.25, 0.5, 1.0]:
            close(kpass.geo_spectrum_at_k(R, k, lam, weights),
                  se.geo_spectrum_at_k(R, k, lam, weights))
            close(kpass.geo_spectrum_at_k_ci(R, k, lam, weights),
                  se.geo_spectrum_at_k_ci(R, k, lam, weights))
            close(kpass.geo_spectrum_at_k(R, k, lam=lam),  # kpass has one name: lam
                  se.geo_spectrum_at_k(R, k, lambda_=lam))


@pytest.mark.parametrize("name", ["geom_at_k_ci", "geom_ds_at_k_ci", "geo_spectrum_at_k_ci",
                                  "geo_spectrum_star_at_k_ci"])
def test_latent_k_beyond_n_matches_reference(name):
    R = MATRICES[2]
    for k in [R.shape[1] + 1, 2 * R.shape[1]]:
        close(getattr(kpass, name)(R, k), getattr(se, name)(R, k))


def categorical_cases():
    rng = np.random.default_rng(7)
    for m, n, c in [(1, 3, 3), (12, 6, 4), (30, 9, 5)]:
        R = rng.integers(0, c, (m, n))
        R0 = rng.integers(0, c, (m, 2))
        w = rng.normal(size=c)
        if c > 3:
            w[2] = w[0]  # tied reward levels
        yield R, R0, w


CATEGORICAL = list(categorical_cases())


@pytest.mark.parametrize("index", range(len(CATEGORICAL)))
def test_categorical_families_match_reference(index):
    R, R0, w = CATEGORICAL[index]
    close(kpass.bayes(R, w, R0), se.bayes(R, w, R0))
    close(kpass.bayes(R, w), se.bayes(R, w))
    close(kpass.bayes_ci(R, w, R0, confidence=0.9, bounds=(-1, 1)),
          se.bayes_ci(R, w, R0, confidence=0.9, bounds=(-1, 1)))
    close(kpass.avg(R, w), se.avg(R, w))
    close(kpass.avg_ci(R, w, confidence=0.7), se.avg_ci(R, w, confidence=0.7))
    for k in range(1, R.shape[1] + 1):
        close(kpass.max_at_k(R, k, w), se.max_at_k(R, k, w))
        close(kpass.max_at_k_ci(R, k, w, R0), se.max_at_k_ci(R, k, w, R0))
        close(kpass.max_at_k_ci(R, k, w, bounds=(0, 0.5)), se.max_at_k_ci(R, k, w, bounds=(0, 0.5)))
    close(kpass.max_at_k_ci(R, R.shape[1] + 3, w), se.max_at_k_ci(R, R.shape[1] + 3, w))


def test_binary_categorical_defaults_match_reference():
    R = MATRICES[3]
    close(kpass.bayes(R), se.bayes(R))
    close(kpass.avg_ci(R), se.avg_ci(R))
    for k in [1, 2, 7]:
        close(kpass.max_at_k(R, k), se.max_at_k(R, k))
        close(kpass.max_at_k_ci(R, k), se.max_at_k_ci(R, k))


BAD_RECTANGULAR = [
    ("pass_at_k", (np.array([[0, 2]]), 1)),
    ("pass_at_k", (np.array([[0, 1]]), 0)),
    ("pass_at_k", (np.array([[0, 1]]), 3)),
    ("pass_at_k", (np.array([[0, 1]]), 1.5)),
    ("pass_at_k", (np.array([[0, 1]]), True)),
    ("pass_at_k", (np.zeros((0, 3)), 1)),
    ("pass_at_k_ci", (np.array([[0, 1]]), 1, 1.5)),
    ("pass_at_k_ci", (np.array([[0, 1]]), 1, 0.95, (0.0, 1.0), 0.0)),
    ("g_pass_at_k_tau", (np.array([[0, 1]]), 1, 1.5)),
    ("threshold_spectrum_at_k", (np.array([[0, 1]]), 2, [0.7, 0.7])),
    ("threshold_spectrum_at_k", (np.array([[0, 1]]), 2, [1.0])),
    ("geo_spectrum_at_k", (np.array([[0, 1]]), 2, 1.5)),
    ("geom_at_k", (np.array([[0, 1]]), 1, 0.0, 0.0)),
    ("bayes", (np.array([[0, 3]]), np.array([0.0, 1.0]))),
    ("bayes", (np.array([[0, 2]]),)),
    ("bayes", (np.array([[0, 1]]), None, np.array([[0], [1]]))),
    ("max_at_k", (np.array([[0, 1]]), 3)),
]


@pytest.mark.parametrize(("name", "args"), BAD_RECTANGULAR)
def test_raises_value_error_where_reference_raises(name, args):
    with pytest.raises(ValueError):
        getattr(se, name)(*args)
    with pytest.raises(ValueError):
        getattr(kpass, name)(*args)
