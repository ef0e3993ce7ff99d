"""Regression tests for the core hardening (issue 13): one class of defect per section.

Each test would have failed before the fix: masked/NA samples counted as wrong, NaN for
accepted priors, -0.0, counts aliasing the caller's arrays, infinite sigma for large
rewards, memory and time bombs, and raw numpy errors for odd arguments. References are
independent: ragged lists, exact Fractions, mpmath Beta-binomial sums, brute force.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import kpass
from kpass._core.moments.credits import (
    auc_credit,
    majority_threshold,
    mg_credit,
    mg_spectrum_weights,
    pass_credit,
    spectrum_credit,
    tau_threshold,
    threshold_credit,
    unanimous_credit,
)

pd = pytest.importorskip("pandas")

BINARY_POINT = [kpass.pass_at_k, kpass.pass_hat_k, kpass.g_pass_at_k, kpass.mg_pass_at_k,
                kpass.maj_at_k, kpass.auc_at_k, kpass.geom_at_k, kpass.geom_ds_at_k,
                kpass.geo_spectrum_at_k, kpass.geo_spectrum_star_at_k]
BINARY_CI = [kpass.pass_at_k_ci, kpass.pass_hat_k_ci, kpass.g_pass_at_k_ci, kpass.mg_pass_at_k_ci,
             kpass.maj_at_k_ci, kpass.auc_at_k_ci, kpass.geom_at_k_ci, kpass.geom_ds_at_k_ci,
             kpass.geo_spectrum_at_k_ci, kpass.geo_spectrum_star_at_k_ci]


def same(a, b, tol=1e-12):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


# ----------------------------------------------------------------------------- 1. masks, NA

MATRIX = [[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 1, 1, 1]]
MASK = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 0], [1, 0, 0, 1, 0]]
RAGGED = [[0, 1, 1, 0], [1, 1, 0, 1, 1], [0, 1, 1]]


def test_masked_pass_at_k_of_the_issue_equals_its_ragged_lists():
    masked = np.ma.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], mask=[[0, 0, 0, 0, 1], [0] * 5])
    assert kpass.pass_at_k(masked, 2) == pytest.approx(
        kpass.pass_at_k([[0, 1, 1, 0], [1, 1, 0, 1, 1]], 2), abs=1e-15)
    assert kpass.pass_at_k(masked, 2) != pytest.approx(0.85)


@pytest.mark.parametrize("fn", BINARY_POINT + BINARY_CI, ids=lambda f: f.__name__)
def test_masked_binary_input_equals_ragged_lists(fn):
    masked = np.ma.array(MATRIX, mask=MASK)
    assert same(fn(masked, [1, 3]), fn(RAGGED, [1, 3]))


@pytest.mark.parametrize("fn", [kpass.bayes, kpass.avg, kpass.bayes_ci, kpass.avg_ci])
def test_masked_categorical_input_equals_ragged_lists(fn):
    masked = np.ma.array([[0, 2, 1, 2], [1, 1, 2, 0]], mask=[[0, 0, 1, 0], [0, 0, 0, 0]])
    ragged = [[0, 2, 2], [1, 1, 2, 0]]
    assert same(fn(masked, [0.0, 0.5, 1.0]), fn(ragged, [0.0, 0.5, 1.0]))


def test_masked_max_at_k_and_prior_outcomes_equal_ragged_lists():
    masked = np.ma.array([[0, 2, 1, 2], [1, 1, 2, 0]], mask=[[0, 0, 1, 0], [0, 0, 0, 0]])
    ragged = [[0, 2, 2], [1, 1, 2, 0]]
    prior = np.ma.array([[2, 9], [1, 0]], mask=[[0, 1], [0, 0]])
    w = [0.0, 0.5, 1.0]
    assert same(kpass.max_at_k(masked, [1, 3], w), kpass.max_at_k(ragged, [1, 3], w))
    assert same(kpass.max_at_k_ci(masked, 2, w, prior),
                kpass.max_at_k_ci(ragged, 2, w, [[2], [1, 0]]))
    assert same(kpass.bayes(masked, w, prior), kpass.bayes(ragged, w, [[2], [1, 0]]))


def test_a_masked_bad_value_is_left_out_and_an_unmasked_one_is_named_by_its_column():
    assert kpass.pass_at_k(np.ma.array([[0, 7, 1]], mask=[[0, 1, 0]]), 1) == 0.5
    with pytest.raises(ValueError, match=r"R\[0\]\[2\]=7"):
        kpass.pass_at_k(np.ma.array([[0, 1, 7]], mask=[[1, 0, 0]]), 1)
    with pytest.raises(ValueError, match=r"R\[1\]\[3\]=5"):
        kpass.bayes(np.ma.array([[0, 1, 1, 1], [0, 1, 1, 5]], mask=[[0, 0, 0, 0], [1, 0, 0, 0]]),
                    [0, 1])


def test_a_question_with_every_sample_masked_is_refused_by_name():
    with pytest.raises(ValueError, match=r"R\[1\] has none \(every entry is masked or missing\)"):
        kpass.pass_at_k(np.ma.array([[0, 1], [1, 1]], mask=[[0, 0], [1, 1]]), 1)


def test_pandas_nullable_columns_honour_na():
    frame = pd.DataFrame({
        "a": pd.array([1, 0, 1], dtype="Int8"),
        "b": pd.array([pd.NA, 1, 0], dtype="Int8"),
        "c": pd.array([True, pd.NA, pd.NA], dtype="boolean"),
        "d": [1.0, 0.0, np.nan],
    })
    ragged = [[1, 1, 1], [0, 1, 0], [1, 0]]
    for fn in (kpass.pass_at_k, kpass.maj_at_k_ci, kpass.auc_at_k):
        assert same(fn(frame, [1, 2]), fn(ragged, [1, 2]))
    assert same(kpass.bayes(frame), kpass.bayes(ragged))


def test_pandas_categorical_columns_are_their_values():
    frame = pd.DataFrame({"a": pd.Categorical([0, 1, 2]), "b": pd.Categorical([2, None, 1])})
    assert same(kpass.bayes(frame, [0, 0.5, 1]), kpass.bayes([[0, 2], [1], [2, 1]], [0, 0.5, 1]))
    assert same(kpass.pass_at_k(frame.iloc[:2].replace(2, 1), 1), kpass.pass_at_k([[0, 1], [1]], 1))


def test_pandas_series_of_per_question_lists_still_works():
    assert kpass.pass_at_k(pd.Series([[1, 0], [1]]), 1) == 0.75


def test_none_in_plain_lists_and_object_arrays_is_refused_with_a_hint():
    for R in ([[0, 1, None]], np.array([[0, 1, None]], dtype=object)):
        with pytest.raises(TypeError, match=r"R\[0\]\[2\]=None .*masked array"):
            kpass.pass_at_k(R, 1)


# ----------------------------------------------------------------------------- 2. priors


def rising(x, m):
    out = Fraction(1)
    for t in range(m):
        out *= x + t
    return out


@functools.cache
def _moments(a0, b0, n, c, credit):
    # Exact rationals: the floats a0, b0 and the credits are exact Fractions, and the Beta
    # moments E[p^i (1 - p)^(m - i)] are ratios of rising factorials.
    k = len(credit) - 1
    a, b = Fraction(a0) + c, Fraction(b0) + (n - c)
    weights = [Fraction(x) * math.comb(k, j) for j, x in enumerate(credit)]
    one = [rising(a, i) * rising(b, k - i) / rising(a + b, k) for i in range(k + 1)]
    two = [rising(a, i) * rising(b, 2 * k - i) / rising(a + b, 2 * k) for i in range(2 * k + 1)]
    mean = sum(w * p for w, p in zip(weights, one, strict=True))
    second = sum(weights[i] * weights[j] * two[i + j] for i in range(k + 1) for j in range(k + 1))
    return mean, second - mean * mean


def to_mpf(value):
    with mp.workdps(40):
        return mp.mpf(value.numerator) / value.denominator


def beta_binomial_moments(a0, b0, n, c, credit):
    """Exact mean and variance of the Bernstein target under Beta(a0 + c, b0 + n - c), as mpf."""
    return tuple(map(to_mpf, _moments(a0, b0, n, c, tuple(float(x) for x in credit))))


CREDITS = {
    kpass.pass_at_k_ci: pass_credit,
    kpass.pass_hat_k_ci: unanimous_credit,
    kpass.maj_at_k_ci: lambda k: threshold_credit(k, majority_threshold(k)),
    kpass.mg_pass_at_k_ci: mg_credit,
    kpass.auc_at_k_ci: lambda k: pass_credit(1) if k == 1 else auc_credit(k),
    (lambda R, k, **kw: kpass.g_pass_at_k_tau_ci(R, k, 0.6, **kw)):
        lambda k: threshold_credit(k, tau_threshold(0.6, k)),
}
PRIORS = [(1.0, 1.0), (1.0, 1e-16), (1e-16, 1.0), (1e-30, 1e-30), (1e-300, 2.0), (1e12, 1e12),
          (1e300, 1e300), (1e30, 1.0), (0.5, 1e20), (1e300, 1e-300), (1e-300, 1e300)]
STATES = [(6, 6), (6, 0), (6, 3), (5, 1)]


def check_against_reference(mu, sigma, lo, hi, mean, variance):
    assert all(math.isfinite(x) for x in (mu, sigma, lo, hi))
    assert abs(mu - mean) <= 1e-12 * max(abs(mean), 1e-300)
    s = mp.sqrt(max(variance, 0))
    if variance > mp.mpf(10) ** -290:  # normal floats: relative accuracy
        assert abs(sigma - s) <= 1e-8 * s
    else:  # below the normal range only absolute accuracy is possible
        assert abs(sigma - s) <= 1e-150


@pytest.mark.parametrize("fn", list(CREDITS), ids=lambda f: getattr(f, "__name__", "tau"))
def test_binary_posteriors_match_exact_sums_for_extreme_priors(fn):
    credit_for = CREDITS[fn]
    for (a0, b0), (n, c), k in itertools.product(PRIORS, STATES, [1, 2, 3, 5]):
        result = fn([[1] * c + [0] * (n - c)], k, alpha0=a0, beta0=b0)
        mean, variance = beta_binomial_moments(a0, b0, n, c, credit_for(k).values)
        check_against_reference(*result, mean, variance)


def test_issue_example_maj_ci_with_tiny_beta0_is_finite_and_exact():
    mu, sigma, lo, hi = kpass.maj_at_k_ci([[1] * 6], 3, beta0=1e-16)
    mean, variance = beta_binomial_moments(1.0, 1e-16, 6, 6, threshold_credit(3, 2).values)
    check_against_reference(mu, sigma, lo, hi, mean, variance)


def test_geo_spectrum_covariance_matches_mpmath_for_extreme_priors():
    for (a0, b0), (n, c), k in itertools.product(PRIORS, [(6, 6), (6, 3), (5, 1)], [2, 3, 5]):
        x_credit = pass_credit(k).values
        y_credit = spectrum_credit(mg_spectrum_weights(k)).values
        mu, sigma, lo, hi = kpass.geo_spectrum_star_at_k_ci([[1] * c + [0] * (n - c)], k,
                                                            alpha0=a0, beta0=b0)
        exact = [_moments(a0, b0, n, c, tuple(float(x) for x in credit))
                 for credit in (x_credit, y_credit, x_credit + y_credit)]
        (mx, vx), (my, vy) = map(to_mpf, exact[0]), map(to_mpf, exact[1])
        cov = to_mpf((exact[2][1] - exact[0][1] - exact[1][1]) / 2)
        if my == 0:
            assert mu == 0.0
            continue
        with mp.workdps(40):
            gx, gy = mp.sqrt(my / mx) / 2, mp.sqrt(mx / my) / 2
            check_against_reference(mu, sigma, lo, hi, mp.sqrt(mx * my),
                                    gx * gx * vx + gy * gy * vy + 2 * gx * gy * cov)


@pytest.mark.parametrize("prior", [0.0, 5e-324, 1e-320, 2e300, math.inf])
def test_priors_outside_the_supported_range_are_refused_by_name(prior):
    for name in ("alpha0", "beta0"):
        with pytest.raises(ValueError,
                           match=rf"`{name}` must be a finite number in \[1e-300, 1e\+300\]"):
            kpass.maj_at_k_ci([[1, 0, 1]], 2, **{name: prior})


def test_vote_prior_in_range_is_exact_and_beyond_is_refused():
    answers, references = [["A", "A", "B", "C"], ["B", "B", "A"]], ["A", "A"]
    for prior in (1e-300, 1.0, 1e6, 1e12):
        p = Fraction(prior)
        exact = (Fraction(2) + p) / (4 + 4 * p) / 2 + (1 + p) / (3 + 3 * p) / 2
        mu, sigma, lo, hi = kpass.vote_at_k_ci(answers, references, 1, concentration=prior)
        assert mu == pytest.approx(float(exact), rel=1e-12)
        assert all(math.isfinite(x) for x in (sigma, lo, hi))
    for prior in (1e20, 1e-320):
        with pytest.raises(ValueError,
                           match=r"`concentration` must be a finite number in "
                                 r"\[1e-300, 1e\+12\]"):
            kpass.vote_at_k_ci(answers, references, 2, concentration=prior)


# ----------------------------------------------------------------------------- 3. no -0.0


def positive_zeros(value):
    values = np.ravel(np.asarray(value, dtype=float))
    return all(math.copysign(1.0, x) > 0 for x in values if x == 0.0)


@pytest.mark.parametrize("fn", BINARY_POINT + BINARY_CI, ids=lambda f: f.__name__)
def test_no_binary_function_returns_negative_zero(fn):
    for R in ([[0, 0, 0]], [[1, 1, 1]], [[0, 0, 0], [0, 0]]):
        assert positive_zeros(fn(R, [1, 2]))
    if "per_question" in fn.__code__.co_varnames:
        assert positive_zeros(fn([[0, 0, 0]], [1, 2], per_question=True))


def test_issue_example_pass_at_k_of_all_wrong_is_positive_zero():
    assert math.copysign(1.0, kpass.pass_at_k([[0, 0, 0]], 1)) == 1.0


@pytest.mark.parametrize("fn", [kpass.bayes, kpass.bayes_ci, kpass.avg, kpass.avg_ci])
def test_no_rewarded_function_returns_negative_zero(fn):
    assert positive_zeros(fn([[0, 0, 0]], [-0.0, 1.0]))
    assert positive_zeros(kpass.max_at_k([[0, 0]], [1, 2], [-0.0, 1.0]))
    assert positive_zeros(kpass.max_at_k_ci([[0, 0]], [1, 2], [-0.0, 1.0]))
    assert positive_zeros(kpass.vote_at_k([["B", "B"]], ["A"], [1, 2]))
    assert positive_zeros(kpass.vote_at_k_ci([["B", "B"]], ["A"], [1, 2], bounds=(-0.0, 1.0)))


# ----------------------------------------------------------------------------- 4. counts


def test_binary_counts_copy_the_callers_arrays():
    n, c = np.array([5, 5]), np.array([2, 3])
    counts = kpass.BinaryCounts(n, c)
    before = (kpass.pass_at_k(counts, 2), kpass.pass_at_k_ci(counts, 2))
    c[0], n[1] = 7, 1
    assert (kpass.pass_at_k(counts, 2), kpass.pass_at_k_ci(counts, 2)) == before
    assert counts.n_correct.tolist() == [2, 3]
    with pytest.raises(ValueError, match="read-only"):
        counts.n_correct[0] = 1


def test_categorical_counts_copy_the_callers_arrays():
    table, prior = np.array([[1, 2, 0], [0, 1, 3]]), np.zeros((2, 3), dtype=np.int64)
    counts = kpass.CategoricalCounts(table, prior)
    before = kpass.bayes(counts, [0, 0.5, 1])
    table[0, 0], prior[1, 2] = 100, 100
    assert kpass.bayes(counts, [0, 0.5, 1]) == before
    with pytest.raises(ValueError, match="read-only"):
        counts.counts[0, 0] = 1


@pytest.mark.parametrize(("n", "c", "fragment"), [
    ([3], [4], r"`n_correct` must be in \[0, n\]; got c=4 with n=3"),
    ([3], [-1], r"`n_correct` must hold whole-number counts .*n_correct\[0\]=-1"),
    ([3.0], [2.5], r"n_correct\[0\]=2.5"),
    ([3.0], [math.nan], r"n_correct\[0\]=nan"),
    (np.array([2**63 + 5], dtype=np.uint64), np.array([1], dtype=np.uint64),
     r"`n_samples` must hold whole-number counts in \[0, 2\*\*53\]; "
     r"got n_samples\[0\]=9223372036854775813"),
    ([2**53 + 2], [1], r"n_samples\[0\]=9007199254740994"),
])
def test_binary_counts_validate_values(n, c, fragment):
    with pytest.raises(ValueError, match=fragment):
        kpass.BinaryCounts(np.asarray(n), np.asarray(c))


def test_binary_counts_accept_whole_floats_and_refuse_non_numbers():
    assert kpass.pass_at_k(kpass.BinaryCounts(np.array([4.0]), np.array([2.0])), 2) == \
        pytest.approx(5 / 6, abs=1e-15)
    with pytest.raises(TypeError, match="`n_samples` must hold integer counts"):
        kpass.BinaryCounts(np.array([True]), np.array([1]))
    with pytest.raises(ValueError,
                       match=r"`counts` must hold whole-number counts .*counts\[0\]\[1\]=-2"):
        kpass.CategoricalCounts(np.array([[1, -2]]), np.zeros((1, 2), dtype=int))


def test_huge_sample_counts_need_no_table_of_size_n():
    n = np.array([10**11, 10**11, 5, 2**53])
    c = np.array([5, 10**10, 2, 2**52])
    counts = kpass.BinaryCounts(n, c)
    exact = [Fraction(int(ci), int(ni)) for ni, ci in zip(n, c, strict=True)]
    assert kpass.pass_at_k(counts, 1) == pytest.approx(float(sum(exact) / 4), rel=1e-14)
    assert same(kpass.pass_at_k(counts, 1, per_question=True), [float(x) for x in exact])
    rect = kpass.BinaryCounts(np.full(3, 10**11), np.array([1, 2, 10**11]))
    assert kpass.pass_hat_k(rect, 1) == pytest.approx((3e-11 + 1) / 3, rel=1e-14)
    mu, sigma, lo, hi = kpass.pass_at_k_ci(rect, 2)
    assert all(math.isfinite(x) for x in (mu, sigma, lo, hi))


# ----------------------------------------------------------------------------- 5. rewards


def bayes_exact(rows, w):
    """Bayes@N mean and variance from the docstring formula in exact rationals."""
    w = [Fraction(x) for x in w]
    means, variances = [], []
    for row in rows:
        nu = [Fraction(row.count(j) + 1) for j in range(len(w))]
        total = sum(nu)
        mean = sum(v * x for v, x in zip(nu, w, strict=True)) / total
        second = sum(v * x * x for v, x in zip(nu, w, strict=True)) / total
        means.append(mean)
        variances.append((second - mean * mean) / (total + 1))
    m = len(rows)
    return sum(means) / m, sum(variances) / (m * m)


@pytest.mark.parametrize("w", [[0.0, 1e155], [0.0, 1e300], [-1e300, 1e300], [1e300, -3e299, 0.0],
                               [1e-300, 2e-300]])
def test_bayes_and_avg_are_finite_and_exact_for_rewards_near_the_float_limit(w):
    rows = [[0, 1, 1, 0], [1, 1, 1, 1], [0, 0, 0, 1]]
    width = len(w)
    rows = [[x % width for x in row] for row in rows]
    mean, variance = bayes_exact(rows, w)
    mu, sigma = kpass.bayes(rows, w)
    assert mu == pytest.approx(float(mean), rel=1e-12, abs=1e-300)
    assert sigma == pytest.approx(math.sqrt(float(variance / Fraction(max(abs(x) for x in w)) ** 2))
                                  * max(abs(x) for x in w), rel=1e-12)
    assert all(math.isfinite(x) for x in kpass.bayes_ci(rows, w))
    averages = [sum(Fraction(w[x]) for x in row) / len(row) for row in rows]
    a, sigma_a = kpass.avg(rows, w)
    assert a == pytest.approx(float(sum(averages) / len(rows)), rel=1e-12, abs=1e-300)
    assert math.isfinite(sigma_a) and sigma_a > 0
    assert all(math.isfinite(x) for x in kpass.avg_ci(rows, w))


def test_max_at_k_with_rewards_near_the_float_limit_matches_brute_force():
    rows, w = [[0, 1, 2, 1], [2, 2, 0, 0]], [0.0, 1e155, -1e300]
    for k in (1, 2, 3):
        exact = sum(
            sum(Fraction(max(w[row[i]] for i in subset))
                for subset in itertools.combinations(range(4), k))
            / math.comb(4, k) for row in rows) / 2
        assert kpass.max_at_k(rows, k, w) == pytest.approx(float(exact), rel=1e-12)
    for k in (2, 5):
        mu, sigma, lo, hi = kpass.max_at_k_ci(rows, k, w)
        assert all(math.isfinite(x) for x in (mu, sigma, lo, hi))
        scaled = kpass.max_at_k_ci(rows, k, [x / 1e300 for x in w])
        assert mu == pytest.approx(scaled[0] * 1e300, rel=1e-12)
        assert sigma == pytest.approx(scaled[1] * 1e300, rel=1e-12)


def test_rewards_beyond_1e300_are_refused_by_name():
    with pytest.raises(ValueError,
                       match=r"`w` must hold finite rewards in \[-1e300, 1e300\]; got w\[1\]="):
        kpass.bayes([[0, 1]], [0, 1e301])


# ----------------------------------------------------------------------------- 6. bombs


def test_a_huge_category_without_w_is_refused_before_any_table():
    with pytest.raises(ValueError, match=r"`R` is not binary \(R\[0\]\[1\]=10000000\), so "
                                         r"the reward vector `w` must be given"):
        kpass.bayes([[0, 10**7]] * 100)
    with pytest.raises(ValueError, match=r"`R` is not binary \(R\[0\]\[1\]=9223372036854775807\)"):
        kpass.bayes([[0, 2**63 - 1]])
    with pytest.raises(ValueError,
                       match=r"per category\); got R\[0\]\[1\]=9223372036854775807"):
        kpass.bayes([[0, 2**63 - 1]], [0, 1])
    with pytest.raises(ValueError, match=r"at most 65536 categories"):
        kpass.categorical_counts([[0, 10**7]])
    with pytest.raises(ValueError, match=r"`w` must have at most 65536 entries"):
        kpass.bayes([[0, 1]], np.zeros(10**6))
    with pytest.raises(ValueError, match=r"more than the 134217728 entries"):
        kpass.categorical_counts(np.full((5000, 2), 60000))


def test_max_at_k_ci_caps_distinct_reward_levels():
    with pytest.raises(ValueError, match="`w` must hold at most 1024 distinct rewards"):
        kpass.max_at_k_ci([[0, 1]], 2, np.arange(2000.0))


def test_auc_point_estimate_at_large_k_matches_pass_at_i_closed_forms():
    rng = np.random.default_rng(3)
    R = rng.integers(0, 2, (3, 40000)).astype(np.int8)
    R[2] = 0
    R[2, :3] = 1
    k = 40000
    n, c = 40000, R.sum(axis=1)

    def pass_at(i, ci):  # 1 - C(n - c, i) / C(n, i) with lgamma, an independent route
        if n - ci < i:
            return 1.0
        return -math.expm1(math.lgamma(n - ci + 1) - math.lgamma(n - ci - i + 1)
                           - math.lgamma(n + 1) + math.lgamma(n - i + 1))

    for ci in c:
        curve = [pass_at(i, int(ci)) for i in range(1, k + 1)]
        expected = (sum(curve) - (curve[0] + curve[-1]) / 2) / (k - 1)
        got = kpass.auc_at_k(R[c == ci][:1], k)
        assert got == pytest.approx(expected, rel=1e-10)


# ----------------------------------------------------------------------------- 7. odd arguments


def test_numpy_k_of_any_shape_is_an_int_or_a_list():
    R = [[0, 1, 1], [1, 0, 0]]
    assert kpass.pass_at_k(R, np.array(2)) == kpass.pass_at_k(R, 2)
    assert kpass.pass_at_k(R, np.int32(2)) == kpass.pass_at_k(R, 2)
    assert kpass.pass_at_k_ci(R, np.uint8(2)) == kpass.pass_at_k_ci(R, 2)
    assert kpass.pass_at_k(R, np.array([1, 2])) == kpass.pass_at_k(R, [1, 2])
    with pytest.raises(TypeError, match="`k` must be an int"):
        kpass.pass_at_k(R, np.array(2.0))
    with pytest.raises(TypeError, match="`k` must be an int"):
        kpass.pass_at_k(R, np.array([[1, 2]]))


def test_negative_seed_is_refused_by_name():
    with pytest.raises(ValueError, match=r"`seed` must be an int >= 0; got seed=-1"):
        kpass.vote_at_k_ci([["A", "A", "B"]], ["A"], 2, seed=-1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.uint64, np.int8, np.uint8, bool,
                                   object])
def test_every_numeric_dtype_gives_the_int_result(dtype):
    R = np.array(MATRIX).astype(dtype)
    for fn in (kpass.pass_at_k, kpass.maj_at_k_ci, kpass.auc_at_k):
        assert same(fn(R, [1, 3]), fn(MATRIX, [1, 3]))
    assert same(kpass.bayes(R), kpass.bayes(MATRIX))


@pytest.mark.parametrize("R", [[], [[]], np.zeros((0, 3)), np.zeros((2, 0)),
                               np.ma.array(np.zeros((0, 2))), pd.DataFrame()])
def test_empty_inputs_are_refused_by_name(R):
    with pytest.raises(ValueError, match=r"`R` must contain at least one question|R\[0\]"):
        kpass.pass_at_k(R, 1)
    with pytest.raises(ValueError, match=r"`R` must contain at least one question|R\[0\]"):
        kpass.bayes(R)
