"""The Beta-binomial table and degree elevation against exact references.

`beta_binomial_pmf` runs products of term ratios from the end nearer the bulk and falls
back to log ratios summed from the mode where products would overflow; both routes,
the switch between them within one block, and the block boundaries are checked
against mpmath at 40 digits. `Credit.elevated` is checked against exact Fraction
arithmetic of the elevation formula.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from kpass._core.moments import kernels
from kpass._core.moments.credits import auc_credit, mg_credit, threshold_credit

mpmath.mp.dps = 40


def exact_pmf(degree, alpha, beta):
    # 320 digits for huge parameters: 1e270 + j must still differ from 1e270.
    with mpmath.workdps(320 if max(alpha, beta) > 1e20 else 40):
        a, b = mpmath.mpf(alpha), mpmath.mpf(beta)
        norm = mpmath.beta(a, b)
        return [mpmath.binomial(degree, j) * mpmath.beta(a + j, b + degree - j) / norm
                for j in range(degree + 1)]


def relative_errors(table, exact):
    """Largest error relative to each term, over terms above 1e-280 (far below any use)."""
    worst = 0.0
    for got, want in zip(table, exact, strict=True):
        if want > mpmath.mpf("1e-280"):
            worst = max(worst, float(abs(mpmath.mpf(float(got)) - want) / want))
    return worst


CASES = [
    (1, 1.0, 1.0), (7, 1.0, 1e6), (64, 0.5, 0.5), (64, 0.01, 3.0), (64, 3.0, 0.01),
    (64, 1.5, 3.2), (128, 1.0, 257.0), (128, 257.0, 1.0), (128, 129.0, 129.0),
    (128, 1e6, 3.0), (128, 3.5e5, 1.2e5), (300, 50.0, 1.0), (2000, 1.0, 257.0),
    # products would overflow (far end more than 1e308 below the mode): log route
    (1500, 2e5, 2e5), (3000, 1e4, 1e4),
    # extreme parameters: log route
    (64, 1e-260, 2.0), (32, 2.0, 1e260),
]


@pytest.mark.parametrize("degree,alpha,beta", CASES)
def test_pmf_matches_mpmath(degree, alpha, beta):
    table = kernels.beta_binomial_pmf(degree, np.array([alpha]), np.array([beta]))[0]
    exact = exact_pmf(degree, alpha, beta)
    # Products: a few ulps per step of the running product (7e-15 seen at d = 2000); the
    # log route (last four cases) loses ~eps x the log-term magnitude (5e-13 seen).
    products = (degree, alpha, beta) not in CASES[-4:]
    bound = (1e-14 if degree <= 300 else 1e-13) if products else 2e-12
    assert relative_errors(table, exact) < bound
    assert abs(table.sum() - 1.0) < 1e-14


def test_mixed_routes_and_blocks_match_rowwise_mpmath(monkeypatch):
    # Small blocks, so the table spans many of them, with flipped, unflipped and
    # log-route rows interleaved in each block.
    monkeypatch.setattr(kernels, "PMF_BLOCK_ENTRIES", 4096)
    rng = np.random.default_rng(12)
    degree = 40
    alpha = np.concatenate([rng.uniform(0.3, 400, 1400), [1e-270, 2e5, 7.0]])
    beta = np.concatenate([rng.uniform(0.3, 400, 1400), [3.0, 2e5, 1e270]])
    order = rng.permutation(alpha.size)
    alpha, beta = alpha[order], beta[order]
    assert alpha.size * (degree + 1) > 10 * kernels.PMF_BLOCK_ENTRIES
    table = kernels.beta_binomial_pmf(degree, alpha, beta)
    assert table.shape == (alpha.size, degree + 1)
    for row in list(range(0, alpha.size, 61)) + [int(np.argmin(alpha)), int(np.argmax(beta))]:
        exact = exact_pmf(degree, alpha[row], beta[row])
        logs = min(alpha[row], beta[row]) < 1e-250 or max(alpha[row], beta[row]) > 1e250
        bound = 2e-12 if logs else 1e-14
        assert relative_errors(table[row], exact) < bound, (alpha[row], beta[row])


def test_blocked_log1p_sums_match_mpmath(monkeypatch):
    monkeypatch.setattr(kernels, "PMF_BLOCK_ENTRIES", 512)
    rng = np.random.default_rng(8)
    alpha, beta = 10.0 ** rng.uniform(-3, 5, 90), 10.0 ** rng.uniform(-3, 5, 90)
    for k in (3, 40, 77):
        got = kernels.log_beta_power_moments(alpha, beta, k)
        ratio = kernels.log_power_variance_ratio(alpha, beta, k)
        cross = kernels.log_cross_ratio(alpha, beta, k)
        for s in range(0, 90, 7):
            a, b = mpmath.mpf(alpha[s]), mpmath.mpf(beta[s])
            moment = mpmath.rf(a, k) / mpmath.rf(a + b, k)  # E[p^k]
            want = mpmath.log(moment)
            want_ratio = mpmath.log(mpmath.rf(a, 2 * k) / mpmath.rf(a + b, 2 * k) / moment**2)
            want_cross = mpmath.log(mpmath.rf(a + b, k) ** 2 / mpmath.rf(a + b, 2 * k))
            assert abs(got[s] - float(want)) <= 1e-14 * abs(float(want)) + 1e-300
            assert abs(ratio[s] - float(want_ratio)) <= 1e-13 * abs(float(want_ratio))
            assert abs(cross[s] - float(want_cross)) <= 1e-13 * abs(float(want_cross))


def test_sum_log1p_matches_mpmath():
    rng = np.random.default_rng(0)
    for k in (5, 16, 64, 100, 1000):
        y = np.abs(rng.standard_cauchy((k, 20))) * 10.0 ** rng.uniform(-12, 3, (k, 20))
        y[0, 3] = np.inf
        got = kernels.sum_log1p(y)
        assert got[3] == np.inf
        want = [mpmath.fsum(mpmath.log1p(mpmath.mpf(v)) for v in column) for column in y.T]
        for g, w in zip(np.delete(got, 3), np.delete(np.array(want, dtype=object), 3),
                        strict=True):
            assert abs(g - float(w)) <= 1e-15 * float(w)


def test_log_route_agrees_with_product_route():
    rng = np.random.default_rng(3)
    alpha, beta = rng.uniform(1, 300, 200), rng.uniform(1, 300, 200)
    fast = kernels.beta_binomial_pmf(96, alpha, beta)
    logs = kernels._beta_binomial_pmf_logs(96, alpha, beta)
    big = logs > 1e-200
    assert np.max(np.abs(fast[big] - logs[big]) / logs[big]) < 1e-12


def exact_elevation(values, k):
    """h'_m = sum_i h_i C(k, i) C(k, m - i) / C(2k, m), exactly."""
    h = [Fraction(v) for v in values]
    return [sum(h[i] * math.comb(k, i) * math.comb(k, m - i)
                for i in range(max(0, m - k), min(k, m) + 1)) / math.comb(2 * k, m)
            for m in range(2 * k + 1)]


@pytest.mark.parametrize("credit", [threshold_credit(9, 4), mg_credit(12), auc_credit(10)],
                         ids=["threshold", "mg", "auc"])
def test_elevation_is_exact(credit):
    values = [Fraction(v) for v in credit.values]
    low, high = min(values), max(values)
    for side, shifted in ((1.0, [v - low for v in values]), (-1.0, [high - v for v in values])):
        got = credit.elevated(side)
        want = exact_elevation(shifted, credit.k)
        assert got.shape == (2 * credit.k + 1,)
        for g, w in zip(got, want, strict=True):
            assert abs(Fraction(float(g)) - w) <= Fraction(1, 10**14) * max(w, Fraction(1, 10**300))


def test_elevated_mean_equals_degree_k_mean():
    # E[h(p)] read from the degree-2k table through the elevated coefficients is the
    # same expectation as from the degree-k table, to rounding.
    credit = mg_credit(16)
    rng = np.random.default_rng(5)
    alpha, beta = rng.uniform(0.5, 80, 50), rng.uniform(0.5, 80, 50)
    up = credit.sides()[0]
    direct = kernels.beta_binomial_pmf(16, alpha, beta) @ up
    elevated = kernels.beta_binomial_pmf(32, alpha, beta) @ credit.elevated(1.0)
    assert np.max(np.abs(direct - elevated) / direct) < 1e-13


def test_elevation_declined_beyond_the_cached_size():
    assert threshold_credit(2000, 700).elevated(1.0) is None


@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (1e-6, 3.0), (40.0, 0.01)])
@pytest.mark.parametrize("n,k", [(20, 7), (256, 64), (2000, 300)])
def test_ladder_moments_match_mpmath(prior, n, k):
    # All n + 1 states of one n: Pass@k and Pass^k moments walked along c, against
    # mpmath's E[x^k] and Var[x^k] of each Beta posterior.
    from kpass._core.counting.states import BinaryStates
    from kpass._core.moments.credits import pass_credit, posterior_moments, unanimous_credit

    alpha0, beta0 = prior
    c = np.arange(n + 1)
    ns = np.full(n + 1, n)
    states = BinaryStates(n=ns, c=c, weight=np.ones(n + 1), kept=None, total=n + 1,
                          question_n=ns, question_c=c)
    alpha, beta = alpha0 + c.astype(float), beta0 + (n - c).astype(float)
    walked = [posterior_moments(alpha, beta, credit(k), states=states)
              for credit in (pass_credit, unanimous_credit)]
    for s in list(range(0, n + 1, max(1, n // 12))) + [n]:
        a, b = mpmath.mpf(alpha0) + int(c[s]), mpmath.mpf(beta0) + int(n - c[s])
        for moments, own in ((walked[0], b), (walked[1], a)):
            first = mpmath.rf(own, k) / mpmath.rf(a + b, k)
            variance = mpmath.rf(own, 2 * k) / mpmath.rf(a + b, 2 * k) - first**2
            shifted = float(first)
            assert abs(moments.shifted[s] - shifted) <= 1e-12 * shifted + 1e-300
            if variance > mpmath.mpf("1e-290"):
                assert abs(moments.variance[s] - float(variance)) <= 1e-11 * float(variance)
