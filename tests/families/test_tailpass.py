"""TailPass: scorio 0.2.3 as oracle (values, draws, errors), exact references, Monte Carlo.

Exact references: Fraction arithmetic over every bank of k attempts (and every pair of
banks, for the covariance), brute-force k-subsets for the finite-bank profile, mpmath
quadrature over the Beta posterior for non-integer moments.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import mpmath
import numpy as np
import pytest

import kpass

se = pytest.importorskip("scorio.eval")

RTOL = 1e-12


def close(mine, reference, rtol=RTOL, atol=1e-15):
    """Every entry agrees to ``rtol`` relative (``atol`` absolute near zero)."""
    mine = np.asarray(mine, dtype=float)
    reference = np.asarray(reference, dtype=float)
    assert mine.shape == reference.shape
    np.testing.assert_allclose(mine, reference, rtol=rtol, atol=atol)


def random_case(seed: int):
    """A random input: binary or categorical, with or without R0, eta, prior, thresholds."""
    rng = np.random.default_rng(seed)
    m, n, k = int(rng.integers(1, 7)), int(rng.integers(1, 9)), int(rng.integers(1, 7))
    kind = seed % 4
    if kind == 0:
        categories, w = 2, None
    elif kind == 1:
        categories, w = 3, [0.0, 0.5, 1.0]
    elif kind == 2:
        categories, w = 4, [0.25, 0.0, 0.25, 1.0]  # equal scores are merged
    else:
        categories, w = 2, [0.3, 0.8]  # binary outcomes, a rubric without 0 or 1
    p = rng.dirichlet(np.ones(categories), size=m)
    R = np.array([rng.choice(categories, size=n, p=row) for row in p])
    kwargs = {}
    if seed % 3 == 1:
        kwargs["R0"] = rng.integers(0, categories, size=(m, int(rng.integers(1, 4))))
        kwargs["eta"] = float(rng.uniform(0, 1))
    prior_kind = seed % 5
    if prior_kind == 1:
        kwargs["prior"] = float(rng.uniform(0.2, 3.0))
    elif prior_kind == 2:
        kwargs["prior"] = rng.uniform(0.2, 3.0, size=categories)
    elif prior_kind == 3:
        kwargs["prior"] = rng.uniform(0.2, 3.0, size=(m, categories))
    if seed % 7 == 3:
        kwargs["thresholds"] = np.sort(rng.choice(np.linspace(0, 1, 21), size=3, replace=False))
    return R, k, w, kwargs


SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
def test_profile_moments_match_scorio(seed):
    R, k, w, kwargs = random_case(seed)
    mine, ref = kpass.tailpass(R, k, w, **kwargs), se.tailpass(R, k, w, **kwargs)
    assert mine.k == ref.k and mine.question_count == ref.question_count
    close(mine.thresholds, ref.thresholds, rtol=0)
    close(mine.mean, ref.mean)
    close(mine.question_mean, ref.question_mean)
    close(mine.covariance, ref.covariance, atol=1e-16)
    close(mine.std, ref.std, atol=1e-14)
    size = mine.thresholds.size
    weights = np.random.default_rng(seed).dirichlet(np.ones(size))
    weights[-1] = 1.0 - weights[:-1].sum()
    close(mine.linear(weights), ref.linear(weights), atol=1e-14)
    for lam in (0.3, 1.0, 2.0, 2.5, 4.0):
        close(mine.moment(lam), ref.moment(lam), atol=1e-14)
    close(mine.discovery(), ref.discovery(), atol=1e-14)
    close(mine.stability(), ref.stability(), atol=1e-14)
    other = mine.at_k(k + 2)
    close(other.mean, ref.at_k(k + 2).mean)
    close(other.covariance, ref.at_k(k + 2).covariance, atol=1e-16)


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_draws_and_their_utilities_match_scorio_with_the_same_seed(seed):
    R, k, w, kwargs = random_case(seed)
    mine = kpass.tailpass(R, k, w, **kwargs).sample(64, rng=seed)
    ref = se.tailpass(R, k, w, **kwargs).sample(64, rng=seed)
    size = mine.profile.shape[1]
    weights = np.full(size, 1.0 / size)
    target = np.linspace(0.9, 0.1, size)
    close(mine.profile, ref.profile, atol=1e-14)
    close(mine.linear(weights), ref.linear(weights), atol=1e-14)
    for lam in (0.5, 1.0, 2.0, 4.0):
        close(mine.moment(lam), ref.moment(lam), atol=1e-14)
    for q in (0.5, 1.0, 3.0):
        for aggregation in ("question", "profile"):
            close(mine.power_mean(q, aggregation=aggregation),
                  ref.power_mean(q, aggregation=aggregation), atol=1e-14)
    close(mine.qrs(weights), ref.qrs(weights), atol=1e-14)
    close(mine.rollout(3), ref.rollout(3), atol=1e-14)
    for alpha in (0.0, 0.3, 1.0):
        close(mine.harmonic(alpha), ref.harmonic(alpha), atol=1e-14)
    close(mine.discovery(), ref.discovery(), atol=1e-14)
    close(mine.stability(), ref.stability(), atol=1e-14)
    close(mine.shortfall(target, epsilon=0.1), ref.shortfall(target, epsilon=0.1), atol=1e-14)
    close(mine.at_k(k + 1).profile, ref.at_k(k + 1).profile, atol=1e-14)
    for a, b in zip(mine.summary(), ref.summary(), strict=True):
        close(a, b, atol=1e-14)
    for a, b in zip(mine.summary(mine.discovery() - mine.stability(), confidence=0.8),
                    ref.summary(ref.discovery() - ref.stability(), confidence=0.8), strict=True):
        close(a, b, atol=1e-14)


@pytest.mark.parametrize("seed", range(1, 40, 4))
def test_intervals_match_scorio(seed):
    R, k, w, kwargs = random_case(seed)
    mine, ref = kpass.tailpass(R, k, w, **kwargs), se.tailpass(R, k, w, **kwargs)
    size = mine.thresholds.size
    weights = np.full(size, 1.0 / size)
    for method in ("mc", "normal"):
        for a, b in zip(mine.ci(0.9, method=method, n_draws=50, rng=seed),
                        ref.ci(0.9, method=method, n_draws=50, rng=seed), strict=True):
            close(a, b, atol=1e-14)
        close(mine.linear_ci(weights, 0.8, method=method, n_draws=50, rng=seed),
              ref.linear_ci(weights, 0.8, method=method, n_draws=50, rng=seed), atol=1e-14)
        close(mine.moment_ci(1.5, method=method, n_draws=50, rng=seed),
              ref.moment_ci(1.5, method=method, n_draws=50, rng=seed), atol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
def test_empirical_matches_scorio(seed):
    R, k, w, kwargs = random_case(seed)
    k = min(k, R.shape[1])
    thresholds = kwargs.get("thresholds")
    close(kpass.tailpass_empirical(R, k, w, thresholds=thresholds),
          se.tailpass_empirical(R, k, w, thresholds=thresholds))


def test_large_binary_bank_matches_scorio():
    rng = np.random.default_rng(7)
    R = (rng.random((300, 64)) < rng.random((300, 1))).astype(np.int64)
    mine, ref = kpass.tailpass(R, 16), se.tailpass(R, 16)
    close(mine.mean, ref.mean, rtol=1e-11)
    close(mine.covariance, ref.covariance, rtol=1e-9, atol=1e-18)
    for lam in (0.5, 2.0, 4.0):
        close(mine.moment(lam), ref.moment(lam), rtol=1e-11)
    close(kpass.tailpass_empirical(R, 16), se.tailpass_empirical(R, 16), rtol=1e-11)


# ----------------------------------------------------------------------------- extensions


def test_ragged_questions_are_independent_single_question_profiles():
    rng = np.random.default_rng(3)
    rows = [list(rng.integers(0, 3, size=int(n))) for n in (2, 7, 4, 5)]
    w = [0.0, 0.4, 1.0]
    prior = [0.5, 1.0, 2.0]
    mine = kpass.tailpass(rows, 3, w, prior=prior)
    singles = [se.tailpass(np.array([row]), 3, w, prior=prior) for row in rows]
    m = len(rows)
    close(mine.mean, np.mean([s.mean for s in singles], axis=0))
    close(mine.question_mean, np.concatenate([s.question_mean for s in singles]))
    close(mine.covariance, sum(s.covariance for s in singles) / m**2, atol=1e-17)
    close(mine.moment(2.0), (np.mean([s.moment(2.0)[0] for s in singles]),
                             math.sqrt(sum(s.moment(2.0)[1] ** 2 for s in singles)) / m))
    empirical = kpass.tailpass_empirical(rows, 2, w)
    close(empirical, np.mean([se.tailpass_empirical(np.array([row]), 2, w) for row in rows],
                             axis=0))


def test_ragged_r0_and_counts_inputs_agree_with_the_matrix():
    rng = np.random.default_rng(4)
    R = rng.integers(0, 3, size=(5, 6))
    R0 = rng.integers(0, 3, size=(5, 2))
    w = [0.0, 0.5, 1.0]
    reference = se.tailpass(R, 4, w, R0, eta=0.5)
    as_lists = kpass.tailpass(R.tolist(), 4, w, [list(r) for r in R0], eta=0.5)
    counts = kpass.categorical_counts(R, R0, n_categories=3)
    from_counts = kpass.tailpass(counts, 4, w, eta=0.5)
    for profile in (as_lists, from_counts):
        close(profile.mean, reference.mean)
        close(profile.covariance, reference.covariance, atol=1e-17)


def test_short_questions_are_refused_or_skipped_by_the_empirical_profile():
    rows = [[1, 0, 1], [1], [0, 1]]
    with pytest.raises(ValueError, match=r"`k` must be an int in \[1, n\]; got k=2"):
        kpass.tailpass_empirical(rows, 2)
    kept = kpass.tailpass_empirical(rows, 2, short="skip")
    close(kept, se.tailpass_empirical([[1, 0, 1]], 2) / 2 + se.tailpass_empirical([[0, 1]], 2) / 2)


def test_several_k_give_a_list_of_single_k_results():
    R = [[0, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1]]
    profiles = kpass.tailpass(R, [1, 3, 5])
    assert isinstance(profiles, list) and [p.k for p in profiles] == [1, 3, 5]
    for profile, k in zip(profiles, [1, 3, 5], strict=True):
        close(profile.mean, se.tailpass(R, k).mean)
    empirical = kpass.tailpass_empirical(R, [2, 4])
    assert isinstance(empirical, list)
    for values, k in zip(empirical, [2, 4], strict=True):
        close(values, se.tailpass_empirical(R, k))


def test_binary_endpoints_are_pass_at_k_and_pass_hat_k():
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 0, 0, 1]])
    profile = kpass.tailpass(R, 3)
    close(profile.discovery(), kpass.pass_at_k_ci(R, 3)[:2])
    close(profile.stability(), kpass.pass_hat_k_ci(R, 3)[:2])
    close(profile.mean[[0, -1]], [kpass.pass_at_k_ci(R, 3)[0], kpass.pass_hat_k_ci(R, 3)[0]])
    empirical = kpass.tailpass_empirical(R, 3)
    close(empirical[[0, -1]], [kpass.pass_at_k(R, 3), kpass.pass_hat_k(R, 3)])
    close(profile.moment(1.0), kpass.bayes(R))


# ----------------------------------------------------------------------------- exact


def _rising(a: Fraction, n: int) -> Fraction:
    out = Fraction(1)
    for i in range(n):
        out *= a + i
    return out


def _banks(k: int, levels: int):
    return [x for x in product(range(k + 1), repeat=levels) if sum(x) == k]


def _dirmult(x, alpha) -> Fraction:
    k = sum(x)
    coefficient = Fraction(math.factorial(k))
    for count in x:
        coefficient /= math.factorial(count)
    out = coefficient / _rising(sum(alpha), k)
    for count, a in zip(x, alpha, strict=True):
        out *= _rising(a, count)
    return out


def _exact_question(alpha, levels, k, thresholds):
    """Exact mean profile and covariance of one question, by every bank and pair of banks."""
    banks = _banks(k, len(levels))
    score = {x: sum(c * s for c, s in zip(x, levels, strict=True)) / k for x in banks}
    mean = [sum(_dirmult(x, alpha) for x in banks if score[x] >= t) for t in thresholds]
    covariance = [[Fraction(0)] * len(thresholds) for _ in thresholds]
    for x in banks:
        px = _dirmult(x, alpha)
        posterior = [a + c for a, c in zip(alpha, x, strict=True)]
        for y in banks:
            joint = px * _dirmult(y, posterior)
            for i, s in enumerate(thresholds):
                for j, t in enumerate(thresholds):
                    if score[x] >= s and score[y] >= t:
                        covariance[i][j] += joint
    for i in range(len(thresholds)):
        for j in range(len(thresholds)):
            covariance[i][j] -= mean[i] * mean[j]
    return mean, covariance


@pytest.mark.parametrize(("rows", "w", "k", "prior"), [
    ([[0, 1, 1], [1, 1, 1], [0, 0, 1, 0]], None, 3, Fraction(1)),
    ([[0, 2, 1], [2, 2], [1, 0, 0, 1]], [Fraction(0), Fraction(1, 2), Fraction(1)], 3,
     Fraction(1, 2)),
    ([[0, 1, 2, 3], [3, 3, 1]], [Fraction(0), Fraction(1, 4), Fraction(3, 4), Fraction(1)], 2,
     Fraction(2)),
])
def test_profile_moments_equal_fraction_enumeration(rows, w, k, prior):
    levels = w if w is not None else [Fraction(0), Fraction(1)]
    thresholds = [Fraction(t, k) for t in range(1, k + 1)]
    m = len(rows)
    mean = [Fraction(0)] * k
    covariance = [[Fraction(0)] * k for _ in range(k)]
    for row in rows:
        alpha = [prior + row.count(c) for c in range(len(levels))]
        q_mean, q_cov = _exact_question(alpha, levels, k, thresholds)
        mean = [a + b / m for a, b in zip(mean, q_mean, strict=True)]
        covariance = [[a + b / m**2 for a, b in zip(r1, r2, strict=True)]
                      for r1, r2 in zip(covariance, q_cov, strict=True)]
    profile = kpass.tailpass(rows, k, None if w is None else [float(x) for x in w],
                             prior=float(prior))
    close(profile.mean, [float(x) for x in mean], rtol=2e-15)
    close(profile.covariance, [[float(x) for x in r] for r in covariance], rtol=1e-13,
          atol=1e-17)
    # linear utility: same enumeration with the cumulative payoff
    weights = [Fraction(1, k)] * k
    expected = sum(weights[i] * mean[i] for i in range(k))
    variance = sum(weights[i] * weights[j] * covariance[i][j] for i in range(k)
                   for j in range(k))
    close(profile.linear([1.0 / k] * k), (float(expected), math.sqrt(variance)), rtol=1e-13)


def test_integer_moments_equal_fraction_enumeration():
    rows = [[0, 2, 1, 1], [2, 2, 0]]
    levels = [Fraction(0), Fraction(1, 3), Fraction(1)]
    k, m = 3, 2
    profile = kpass.tailpass(rows, k, [float(x) for x in levels])
    for lam in (1, 2, 3, 4):
        mean, variance = Fraction(0), Fraction(0)
        for row in rows:
            alpha = [1 + row.count(c) for c in range(3)]
            banks = _banks(k, 3)
            value = {x: (sum(c * s for c, s in zip(x, levels, strict=True)) / k) ** lam
                     for x in banks}
            q_mean = sum(_dirmult(x, alpha) * value[x] for x in banks)
            second = Fraction(0)
            for x in banks:
                posterior = [a + c for a, c in zip(alpha, x, strict=True)]
                second += _dirmult(x, alpha) * value[x] * sum(
                    _dirmult(y, posterior) * value[y] for y in banks)
            mean += q_mean / m
            variance += (second - q_mean**2) / m**2
        close(profile.moment(float(lam)), (float(mean), math.sqrt(variance)), rtol=1e-13)


def test_fractional_moment_equals_mpmath_quadrature():
    rows = [[0, 1, 1, 0, 1, 1, 1], [0, 0, 1]]
    k, lam = 5, 0.7
    mpmath.mp.dps = 30
    means, variances = [], []
    for row in rows:
        a, b = 1 + sum(row), 1 + len(row) - sum(row)

        def g(p):
            return mpmath.fsum(mpmath.binomial(k, j) * p**j * (1 - p) ** (k - j)
                               * (mpmath.mpf(j) / k) ** lam for j in range(k + 1))

        def density(p, a=a, b=b):
            return p ** (a - 1) * (1 - p) ** (b - 1) / mpmath.beta(a, b)

        first = mpmath.quad(lambda p, d=density: g(p) * d(p), [0, 1])
        second = mpmath.quad(lambda p, d=density: g(p) ** 2 * d(p), [0, 1])
        means.append(first)
        variances.append(second - first**2)
    expected = (float(sum(means) / 2), float(mpmath.sqrt(sum(variances)) / 2))
    close(kpass.tailpass(rows, k).moment(lam), expected, rtol=1e-13)


def test_empirical_equals_brute_force_k_subsets():
    rows = [[0, 2, 1, 1, 2], [2, 2, 0, 1], [1, 1, 1]]
    w = [0.0, 0.5, 1.0]
    k = 3
    thresholds = [0.2, 0.5, 0.8, 1.0]
    expected = np.zeros(len(thresholds))
    for row in rows:
        subsets = list(combinations(row, k))
        for i, t in enumerate(thresholds):
            hits = sum(Fraction(sum(Fraction(w[c]) for c in s), k) >= Fraction(t)
                       for s in subsets)
            expected[i] += hits / len(subsets) / len(rows)
    close(kpass.tailpass_empirical(rows, k, w, thresholds=thresholds), expected, rtol=2e-15)


def test_draws_agree_with_the_exact_moments_by_long_monte_carlo():
    R = [[0, 2, 1, 1, 2], [2, 2, 0, 1], [1, 1, 1], [0, 0, 2]]
    profile = kpass.tailpass(R, 3, [0.0, 0.5, 1.0])
    n = 40_000
    draws = profile.sample(n, rng=12345)
    mean, sd, lo, hi = draws.summary()
    # Monte Carlo error of a mean is sd / sqrt(n); 5 of them is a 1-in-a-million miss.
    assert np.all(np.abs(mean - profile.mean) < 5 * profile.std / math.sqrt(n))
    assert np.all(np.abs(sd - profile.std) < 0.02 * profile.std)
    assert np.all((lo < profile.mean) & (profile.mean < hi))
    for values, (mu, sigma) in ((draws.moment(2.0), profile.moment(2.0)),
                                (draws.moment(0.5), profile.moment(0.5)),
                                (draws.discovery(), profile.discovery()),
                                (draws.stability(), profile.stability()),
                                (draws.linear([0.2, 0.3, 0.5]), profile.linear([0.2, 0.3, 0.5]))):
        assert abs(values.mean() - mu) < 5 * sigma / math.sqrt(n)
        assert abs(values.std(ddof=1) - sigma) < 0.02 * sigma
    empirical = np.cov(draws.profile, rowvar=False)
    assert np.allclose(empirical, profile.covariance, atol=0.03 * profile.std.max() ** 2)


def test_draw_utilities_equal_their_formulas_on_the_draws():
    profile = kpass.tailpass([[0, 1, 1, 1], [1, 0, 0, 1], [1, 1, 1, 1]], 3)
    draws = profile.sample(500, rng=1)
    values = draws.profile
    weights = np.array([0.2, 0.3, 0.5])
    close(draws.power_mean(2.5, weights, aggregation="profile"),
          (values**2.5 @ weights) ** (1 / 2.5))
    close(draws.qrs(aggregation="profile"), np.sqrt((values**2).mean(axis=1)))
    close(draws.linear(weights), values @ weights)
    lo, hi = np.quantile(draws.discovery(), [0.05, 0.95])
    close(draws.summary(draws.discovery(), confidence=0.9)[2:], (lo, hi))
    # harmonic of one question from its latent draws: 1 / (a / D + (1 - a) / S)
    single = kpass.tailpass([[0, 1, 1]], 4).sample(300, rng=2)
    p = single._probabilities[:, 0, 1]
    discovery, stability = 1 - (1 - p) ** 4, p**4
    close(single.harmonic(0.25), 1 / (0.25 / discovery + 0.75 / stability), rtol=1e-12)


# ----------------------------------------------------------------------------- errors

BAD_PROFILE_CALLS = [
    ("k=0", lambda f: f.tailpass([[0, 1]], 0)),
    ("k float", lambda f: f.tailpass([[0, 1]], 2.0)),
    ("k bool", lambda f: f.tailpass([[0, 1]], True)),
    ("R not binary", lambda f: f.tailpass([[0, 2]], 2)),
    ("R category beyond w", lambda f: f.tailpass([[0, 3]], 2, [0.0, 0.5, 1.0])),
    ("R negative", lambda f: f.tailpass([[0, -1]], 2)),
    ("R strings", lambda f: f.tailpass([["a", "b"]], 2)),
    ("w above 1", lambda f: f.tailpass([[0, 1]], 2, [0.0, 1.5])),
    ("w negative", lambda f: f.tailpass([[0, 1]], 2, [-0.1, 1.0])),
    ("w nan", lambda f: f.tailpass([[0, 1]], 2, [float("nan"), 1.0])),
    ("eta above 1", lambda f: f.tailpass([[0, 1]], 2, R0=[[1]], eta=1.5)),
    ("eta negative", lambda f: f.tailpass([[0, 1]], 2, eta=-0.1)),
    ("prior zero", lambda f: f.tailpass([[0, 1]], 2, prior=0.0)),
    ("prior negative entry", lambda f: f.tailpass([[0, 1]], 2, prior=[1.0, -1.0])),
    ("prior wrong length", lambda f: f.tailpass([[0, 1]], 2, prior=[1.0, 1.0, 1.0])),
    ("prior 3-d", lambda f: f.tailpass([[0, 1]], 2, prior=np.ones((1, 1, 2)))),
    ("prior inf", lambda f: f.tailpass([[0, 1]], 2, prior=float("inf"))),
    ("R0 rows", lambda f: f.tailpass([[0, 1], [1, 1]], 2, R0=[[1]])),
    ("thresholds decreasing", lambda f: f.tailpass([[0, 1]], 2, thresholds=[0.5, 0.2])),
    ("thresholds above 1", lambda f: f.tailpass([[0, 1]], 2, thresholds=[0.5, 1.2])),
    ("thresholds empty", lambda f: f.tailpass([[0, 1]], 2, thresholds=[])),
    ("thresholds 2-d", lambda f: f.tailpass([[0, 1]], 2, thresholds=[[0.5]])),
    ("thresholds repeated", lambda f: f.tailpass([[0, 1]], 2, thresholds=[0.5, 0.5])),
    ("default grid too big", lambda f: f.tailpass([[0, 1]], 20_001)),
    ("grid too big", lambda f: f.tailpass([[0, 1, 2]], 300, [0, 0.5, 1]).mean),
    ("weights length", lambda f: f.tailpass([[0, 1]], 2).linear([1.0])),
    ("weights sum", lambda f: f.tailpass([[0, 1]], 2).linear([0.5, 0.4])),
    ("weights negative", lambda f: f.tailpass([[0, 1]], 2).linear([1.5, -0.5])),
    ("lam zero", lambda f: f.tailpass([[0, 1]], 2).moment(0.0)),
    ("lam inf", lambda f: f.tailpass([[0, 1]], 2).moment(float("inf"))),
    ("lam string", lambda f: f.tailpass([[0, 1]], 2).moment("1")),
    ("at_k zero", lambda f: f.tailpass([[0, 1]], 2).at_k(0)),
    ("n_draws one", lambda f: f.tailpass([[0, 1]], 2).sample(1)),
    ("n_draws float", lambda f: f.tailpass([[0, 1]], 2).sample(10.0)),
    ("confidence one", lambda f: f.tailpass([[0, 1]], 2).ci(1.0)),
    ("method", lambda f: f.tailpass([[0, 1]], 2).ci(method="exact")),
    ("linear_ci method", lambda f: f.tailpass([[0, 1]], 2).linear_ci([0.5, 0.5], method="x")),
    ("moment_ci confidence", lambda f: f.tailpass([[0, 1]], 2).moment_ci(1.0, 0.0)),
    ("q zero", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0).power_mean(0.0)),
    ("aggregation", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0).qrs(aggregation="x")),
    ("rollout m=1", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0).rollout(1)),
    ("harmonic alpha", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0).harmonic(1.5)),
    ("shortfall increasing", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0)
     .shortfall([0.2, 0.5])),
    ("shortfall weights", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0)
     .shortfall([0.5, 0.2], [1.0, 0.0])),
    ("shortfall epsilon", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0)
     .shortfall([0.5, 0.2], epsilon=0.0)),
    ("summary shape", lambda f: f.tailpass([[0, 1]], 2).sample(5, rng=0).summary(np.ones(4))),
    ("empirical k > n", lambda f: f.tailpass_empirical([[0, 1]], 3)),
    ("empirical k=0", lambda f: f.tailpass_empirical([[0, 1]], 0)),
    ("empirical w", lambda f: f.tailpass_empirical([[0, 1]], 1, [0.0, 2.0])),
    ("empirical thresholds", lambda f: f.tailpass_empirical([[0, 1]], 1, thresholds=[2.0])),
]


@pytest.mark.parametrize(("label", "call"), BAD_PROFILE_CALLS,
                         ids=[c[0] for c in BAD_PROFILE_CALLS])
def test_bad_input_is_refused_as_by_scorio(label, call):
    with pytest.raises(ValueError) as reference_error:
        call(se)
    with pytest.raises(type(reference_error.value)) as error:
        call(kpass)
    assert "`" in str(error.value), f"{label}: the message names no argument: {error.value}"


def test_messages_use_kpass_shape():
    with pytest.raises(ValueError, match=r"^`k` must be an int >= 1; got k=0$"):
        kpass.tailpass([[0, 1]], 0)
    with pytest.raises(ValueError, match=r"`eta` must be a finite number in \[0, 1\]; got eta=2"):
        kpass.tailpass([[0, 1]], 2, eta=2)
    with pytest.raises(ValueError, match=r"`w` must hold rubric scores in \[0, 1\]"):
        kpass.tailpass([[0, 1]], 2, [0.0, 2.0])
    with pytest.raises(TypeError, match="`rng` must be None, an int seed or a numpy Generator"):
        kpass.tailpass([[0, 1]], 2).sample(3, rng="seed")


@pytest.mark.parametrize("w", [[0.5, 0.5], [1.0, 1.0], [0.0, 0.0]])
def test_a_single_reward_level_matches_scorio(w):
    R = [[0, 1, 1], [1, 0, 0]]
    mine, ref = kpass.tailpass(R, 3, w), se.tailpass(R, 3, w)
    close(mine.mean, ref.mean)
    close(mine.covariance, ref.covariance)
    for utility in ("discovery", "stability"):
        close(getattr(mine, utility)(), getattr(ref, utility)())
    for lam in (1.0, 2.0, 2.5):
        close(mine.moment(lam), ref.moment(lam))
    close(mine.sample(5, rng=1).harmonic(), ref.sample(5, rng=1).harmonic())
    close(kpass.tailpass_empirical(R, 2, w), se.tailpass_empirical(R, 2, w))


@pytest.mark.slow
def test_a_large_k_binary_moment_matches_scorio():
    R = np.random.default_rng(0).integers(0, 2, size=(50, 40))
    mine, ref = kpass.tailpass(R, 1200), se.tailpass(R, 1200)
    close(mine.mean, ref.mean, rtol=1e-11, atol=1e-15)
    for lam in (1.5, 2.0, 4.0):
        close(mine.moment(lam), ref.moment(lam), rtol=1e-11)


def test_per_question_empirical_profiles_average_to_the_profile():
    rows = [[0, 2, 1, 1, 2], [2, 2, 0, 1], [1, 1], [0, 0, 2]]
    w = [0.0, 0.5, 1.0]
    each = kpass.tailpass_empirical(rows, 3, w, per_question=True, short="skip")
    assert each.shape == (4, 3) and np.isnan(each[2]).all()
    for row, values in zip(rows, each, strict=True):
        if len(row) >= 3:
            close(values, se.tailpass_empirical([row], 3, w))
    close(np.nanmean(each, axis=0), kpass.tailpass_empirical(rows, 3, w, short="skip"))


@pytest.mark.parametrize(("n", "c", "k", "prior"), [(256, 250, 16, 1.0), (256, 100, 16, 1.0),
                                                    (30, 12, 8, 1e6), (40, 1, 12, 0.01)])
def test_binary_profile_sd_equals_mpmath_at_extreme_tails_and_narrow_posteriors(n, c, k, prior):
    """Tiny variances (P(J >= 1) near 1, a 1e6 prior) keep full relative precision."""
    mpmath.mp.dps = 50
    a, b = mpmath.mpf(prior) + c, mpmath.mpf(prior) + n - c

    def beta_binomial(alpha, beta):
        return [mpmath.binomial(k, j) * mpmath.beta(alpha + j, beta + k - j)
                / mpmath.beta(alpha, beta) for j in range(k + 1)]

    first = beta_binomial(a, b)
    ahead = [beta_binomial(a + x, b + k - x) for x in range(k + 1)]
    expected = []
    for t in range(1, k + 1):
        mean = mpmath.fsum(first[t:])
        second = mpmath.fsum(first[x] * mpmath.fsum(ahead[x][t:]) for x in range(t, k + 1))
        expected.append(float(mpmath.sqrt(second - mean**2)))
    profile = kpass.tailpass([[1] * c + [0] * (n - c)], k, prior=prior)
    close(profile.std, expected, rtol=1e-12, atol=0.0)
