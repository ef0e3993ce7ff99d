"""kpass.choose_questions and kpass.subset_estimate: the design's inclusion probabilities by
counting draws, the estimator's unbiasedness and its interval's coverage by seeded simulation
against the full run's value, and bad input."""

import numpy as np
import pytest

import kpass

N = 120


def world(seed, K=12, samples=1, shift=0.3, guess=0.0):
    rng = np.random.default_rng(seed)
    a = np.exp(rng.normal(0, 0.3, N))
    b = rng.normal(0, 1.2, N)
    ids = [f"q{i}" for i in range(N)]

    def probability(theta):
        return guess + (1 - guess) / (1 + np.exp(-a * (theta - b)))

    reference = {f"m{j}": kpass.BinaryCounts(np.full(N, samples),
                                             rng.binomial(samples, probability(theta)), ids=ids)
                 for j, theta in enumerate(rng.normal(0, 1, K))}
    return reference, probability(shift), ids


def test_choose_questions_is_reproducible_and_weights_add_up():
    reference, _, ids = world(0)
    for design in ("stratified", "simple"):
        one = kpass.choose_questions(reference, 30, seed=5, design=design)
        two = kpass.choose_questions(reference, 30, seed=5, design=design)
        other = kpass.choose_questions(reference, 30, seed=6, design=design)
        assert one.ids == two.ids and one.ids != other.ids
        assert len(set(one.ids)) == 30 and set(one.ids) <= set(ids)
        assert np.sum(1 / one.inclusion) == pytest.approx(N)  # Horvitz-Thompson count of N
        assert one.population == N and one.design == design


def test_inclusion_probabilities_match_the_frequencies():
    reference, _, ids = world(1)
    draws = 1500
    seen = dict.fromkeys(ids, 0)
    stated = {}
    for seed in range(draws):
        subset = kpass.choose_questions(reference, 20, seed=seed)
        for q, p in zip(subset.ids, subset.inclusion, strict=True):
            seen[q] += 1
            stated[q] = p  # the same for a question in every draw (strata are fixed)
    pi = np.array([stated[q] for q in ids])
    frequency = np.array([seen[q] for q in ids]) / draws
    z = (frequency - pi) / np.sqrt(pi * (1 - pi) / draws)
    assert np.max(np.abs(z)) < 4.5
    assert pi.min() < pi.max()  # Neyman: the strata are sampled at different rates


def test_estimate_on_one_draw():
    reference, p_new, ids = world(2, samples=4)
    rng = np.random.default_rng(3)
    new = kpass.BinaryCounts(np.full(N, 4), rng.binomial(4, p_new), ids=ids)
    subset = kpass.choose_questions(reference, 40, seed=1)
    result = kpass.subset_estimate(kpass.pass_at_k, new, 2, subset=subset, reference=reference)
    full = kpass.pass_at_k(new, 2)
    assert result.lo < full < result.hi
    assert result.questions == 40 and result.population == N
    assert 0 < result.se < result.srs_se
    assert 0 < result.explained < 1
    # the new model run on the chosen questions only (no other rows) gives the same numbers
    rows = [ids.index(q) for q in subset.ids]
    only = kpass.BinaryCounts(new.n_samples[rows], new.n_correct[rows], ids=list(subset.ids))
    again = kpass.subset_estimate("pass@k", only, 2, subset=subset, reference=reference)
    assert again.estimate == pytest.approx(result.estimate, abs=1e-12)
    # Pass^k too
    hat = kpass.subset_estimate(kpass.pass_hat_k, only, 2, subset=subset, reference=reference)
    assert hat.lo < kpass.pass_hat_k(new, 2) < hat.hi


@pytest.mark.slow
@pytest.mark.parametrize(("samples", "shift", "guess"), [(1, 0.3, 0.0), (4, 3.0, 0.25)])
def test_unbiased_and_covers(samples, shift, guess):
    """400 replications: the full run redrawn, then a stratified subset of 40 of 120."""
    reference, p_new, ids = world(4, samples=samples, shift=shift, guess=guess)
    rng = np.random.default_rng(11)
    errors, covered, ses = [], [], []
    for rep in range(400):
        new = kpass.BinaryCounts(np.full(N, samples), rng.binomial(samples, p_new), ids=ids)
        truth = kpass.pass_at_k(new, 1)
        subset = kpass.choose_questions(reference, 40, seed=rep)
        result = kpass.subset_estimate(kpass.pass_at_k, new, 1, subset=subset,
                                       reference=reference)
        errors.append(result.estimate - truth)
        covered.append(result.lo <= truth <= result.hi)
        ses.append(result.se)
    errors = np.array(errors)
    assert abs(errors.mean()) < 3 * errors.std() / np.sqrt(len(errors))
    assert 0.93 <= np.mean(covered) <= 0.97
    assert np.mean(ses) == pytest.approx(errors.std(), rel=0.15)


@pytest.mark.parametrize(("change", "words"), [
    ({"subset": "q1"}, "`subset` must be a Subset"),
    ({"metric": "nope"}, "`metric` must be"),
    ({"reference": [1, 2]}, "`reference` must map"),
    ({"irt": "3pl"}, "`irt` must be one of"),
    ({"k": 9}, "`k` must be an int"),
    ({"R_new": kpass.BinaryCounts([4, 4], [1, 2], ids=["q0", "q1"])}, "lacks"),
    ({"R_new": kpass.BinaryCounts([4, 4], [1, 2])}, "one row per chosen question"),
])
def test_bad_input(change, words):
    reference, p_new, ids = world(5, samples=4)
    new = kpass.BinaryCounts(np.full(N, 4), np.random.default_rng(0).binomial(4, p_new), ids=ids)
    arguments = {"metric": kpass.pass_at_k, "R_new": new, "k": 1,
                 "subset": kpass.choose_questions(reference, 20, seed=0),
                 "reference": reference, "irt": "2pl"}
    arguments.update(change)
    with pytest.raises((TypeError, ValueError), match=words):
        kpass.subset_estimate(arguments["metric"], arguments["R_new"], arguments["k"],
                              subset=arguments["subset"], reference=arguments["reference"],
                              irt=arguments["irt"])


@pytest.mark.parametrize(("m", "seed", "design", "words"), [
    (1, 0, "simple", r"`m` must lie in \[2, 120\]"),
    (3, 0, "stratified", r"`m` must lie in \[4, 120\]"),
    (500, 0, "simple", "got 500"),
    (10, 0, "pps", "`design` must be one of"),
    (10, 1.5, "simple", "`seed` must be an int"),
])
def test_choose_bad_input(m, seed, design, words):
    reference, _, _ = world(6)
    with pytest.raises((TypeError, ValueError), match=words):
        kpass.choose_questions(reference, m, seed=seed, design=design)


def test_explained_is_zero_when_every_chosen_value_is_equal():
    """All chosen answers right: S_y is 0 (up to rounding), the predictions explain nothing
    (formerly 1 - S_e / 1e-33, about -1e29)."""
    reference, _, ids = world(2)
    subset = kpass.choose_questions(reference, 30, seed=4)
    new = kpass.BinaryCounts(np.ones(N, dtype=int), np.ones(N, dtype=int), ids=ids)
    result = kpass.subset_estimate(kpass.pass_at_k, new, 1, subset=subset, reference=reference)
    assert result.explained == 0.0
    assert result.hi == 1.0 and result.lo < 1.0


def test_noise_moments_match_exact_enumeration():
    """V_0 and kappa_3 against the exact second and third moments of the estimator's error,
    enumerated over every stratified draw and every 0/1 outcome of a 7-question benchmark
    (independent Bernoulli(p_q) answers, predictions f_q = p_q): averaged over the draws, the
    formulas (linear in the chosen questions' moments) equal the exact moments."""
    from itertools import combinations, product

    from kpass.stats.subset import _noise, _noise_moments
    from kpass.stats.subset_design import Subset

    p = np.array([0.97, 0.9, 0.6, 0.85, 0.99, 0.3, 0.75])
    strata = [np.array([0, 1, 2, 3]), np.array([4, 5, 6])]
    take = [2, 2]
    N = len(p)
    noise_all = _noise(p, 1, np.array([0.0, 1.0]))
    draws = list(product(*[combinations(h, t) for h, t in zip(strata, take, strict=True)]))
    formula = np.zeros(2)
    exact = np.zeros(2)
    for draw in draws:
        chosen = np.concatenate([np.array(d) for d in draw])
        label = np.concatenate([np.full(t, h) for h, t in enumerate(take)])
        pi = np.concatenate([np.full(t, t / len(s)) for s, t in zip(strata, take, strict=True)])
        subset = Subset(ids=tuple(chosen.tolist()), inclusion=pi, stratum=label, population=N,
                        design="stratified")
        formula += np.array(_noise_moments(noise_all[:, chosen], subset)) / len(draws)
        # the estimator's error over every outcome y: HT mean of y - p minus the full mean
        for y in product((0, 1), repeat=N):
            y = np.array(y)
            weight = np.prod(np.where(y == 1, p, 1 - p))
            error = (1 / pi) @ (y - p)[chosen] / N - (y - p).mean()
            exact += weight * np.array([error ** 2, error ** 3]) / len(draws)
    assert formula == pytest.approx(exact, rel=1e-10)


def test_hall_inverse_and_interval():
    """g^{-1} against a numerical root of Hall's g; gamma = 0 gives estimate -/+ t se."""
    from scipy.optimize import brentq
    from scipy.stats import t as student

    from kpass.stats.subset import _hall_inverse, _skew_interval

    for gamma in (-1.2, -0.3, -1e-9, 0.0, 1e-9, 0.25, 0.9):
        def g(t, gamma=gamma):
            return t + gamma * t ** 2 / 3 + gamma ** 2 * t ** 3 / 27 + gamma / 6

        for x in (-2.5, -0.4, 0.0, 1.96, 3.0):
            root = brentq(lambda t, x=x, g=g: g(t) - x, -1e3, 1e3, xtol=1e-14)
            assert _hall_inverse(x, gamma) == pytest.approx(root, abs=1e-9)
    q = student.ppf(0.975, 40)
    assert _skew_interval(0.5, 0.05, 0.0, 40, 0.95) == pytest.approx((0.5 - q * 0.05,
                                                                      0.5 + q * 0.05))
    # left-skewed errors (a near-1 score): the interval reaches further down than up
    lo, hi = _skew_interval(0.9, 0.03, -0.4, 40, 0.95)
    assert 0.9 - lo > q * 0.03 > hi - 0.9 > 0
    # clipped to [0, 1] and holding the (clipped) estimate
    assert _skew_interval(1.02, 0.01, -0.4, 40, 0.95)[1] == 1.0
