"""The exchangeable null of the confidence sequence (issue 40, item 1).

Checked against the capital written out plainly, an exact enumeration of every sign
pattern (the test martingale's mean is exactly 1), and seeded simulation of the targets:
crossing <= alpha with a look after every question to 1,000, and questions to decide a
0.5-logit shift (N(0, 1.5^2) difficulty) <= 40 at 16 samples, no more than the bounded
sequence at 1 and 4.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

import kpass
from kpass.stats.sequential import (
    SYMMETRIC_PRIOR,
    SYMMETRIC_TRUNCATION,
    betting_bounds,
    log_capital,
)

THRESHOLD = math.log(1 / 0.05)


def plain_capital(x, m, cap=SYMMETRIC_TRUNCATION):
    """log prod (1 + c tanh(theta_t (x_t - m))), theta_t from the past, one step at a time."""
    out, total = [], 0.0
    for t, value in enumerate(x):
        past = [v - m for v in x[:t]]
        mean = sum(past) / (t + 1)
        second = (SYMMETRIC_PRIOR + sum(v * v for v in past)) / (t + 1)
        total += math.log(1 + cap * math.tanh(mean / second * (value - m)))
        out.append(total)
    return out


def test_exchangeable_capital_is_the_plain_product():
    x = [0.9, 0.7, 0.55, 0.4, 0.8, 0.65, 0.5, 1.0, 0.3]
    for m in (0.3, 0.5, 0.62):
        assert log_capital(np.array(x), m, null="exchangeable").tolist() == pytest.approx(
            plain_capital(x, m), rel=1e-12, abs=1e-14)


def test_the_capital_is_a_martingale_over_every_sign_pattern():
    # |x_t - m| fixed, signs fair coins: the mean of K_T over all 2^T patterns is exactly 1,
    # although each bet depends on the signs before it
    sizes = np.array([0.3, 0.05, 0.2, 0.45, 0.1, 0.25, 0.15, 0.35, 0.4, 0.2])
    m = 0.5
    patterns = np.array(list(itertools.product([-1.0, 1.0], repeat=sizes.size)))
    x = m + patterns * sizes
    final = np.exp(log_capital(x, m, null="exchangeable")[:, -1])
    assert final.mean() == pytest.approx(1.0, rel=1e-12)
    assert final.min() > 0.0


def test_bounds_are_the_centres_whose_capital_stays_below_one_over_alpha():
    rng = np.random.default_rng(4)
    x = np.clip(0.6 + 0.15 * rng.standard_normal(40), 0, 1)
    steps = 200
    lo, hi = betting_bounds(x, 0.05, steps=steps, null="exchangeable")
    grid = np.arange(1, steps) / steps
    capital = np.array([log_capital(x, m, null="exchangeable") for m in grid])  # (grid, T)
    low, high = 0.0, 1.0
    for t in range(x.size):
        kept = grid[capital[:, t] < THRESHOLD]
        below = grid[grid < kept.min()]
        above = grid[grid > kept.max()]
        low = max(low, below.max() if below.size else 0.0)
        high = min(high, above.min() if above.size else 1.0)
        assert (lo[t], hi[t]) == pytest.approx((low, high))
    assert lo[-1] < x.mean() < hi[-1]


def test_the_default_for_a_pair_is_exchangeable_and_one_model_stays_bounded():
    A = [[1, 1, 1, 1], [0, 1, 1, 1]] * 30
    B = [[0, 0, 0, 1], [0, 0, 1, 0]] * 30
    pair = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1)
    bounded = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, null="bounded")
    assert pair.null == "exchangeable" and bounded.null == "bounded"
    d = (np.array([0.75, 0.5] * 30) + 1) / 2
    lo, _ = betting_bounds(d, 0.05, null="exchangeable")
    assert pair.lo.tolist() == pytest.approx((2 * lo - 1).tolist())
    assert pair.stop_at < bounded.stop_at  # same data, the stronger null decides sooner
    one = kpass.confidence_sequence(kpass.pass_at_k, A, None, 1)
    assert one.null == "bounded"
    with pytest.raises(ValueError, match="null='bounded'"):
        kpass.confidence_sequence(kpass.pass_at_k, A, None, 1, null="exchangeable")
    with pytest.raises(ValueError, match="null"):
        kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, null="symmetric")


def test_a_margin_decides_the_claim_or_its_opposite():
    rng = np.random.default_rng(11)
    theta = rng.normal(0, 1.5, 400)
    A = rng.binomial(1, expit(theta)[:, None], (400, 16))
    B = rng.binomial(1, expit(theta)[:, None], (400, 16))  # B as good as A
    cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, margin=0.05)
    assert cs.decided and cs.verdict == "B is not worse than A by more than 0.05"
    at = cs.stop_at - 1
    assert cs.hi[at] < 0.05 and (at == 0 or cs.hi[at - 1] >= 0.05)
    worse = kpass.confidence_sequence(kpass.pass_at_k, A, np.zeros_like(B), 1, margin=0.05)
    assert worse.verdict == "B is worse than A by more than 0.05" and worse.lo[
        worse.stop_at - 1] > 0.05
    same = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, margin=0.1, equivalence=True)
    assert same.verdict == "A and B are within +-0.1 of each other"
    assert -0.1 < same.lo[same.stop_at - 1] and same.hi[same.stop_at - 1] < 0.1
    assert "B is not worse than A" in str(cs) and cs.margin == 0.05
    for bad, word in ((dict(margin=0.0), "margin"), (dict(margin=1.0), "margin"),
                      (dict(margin=float("nan")), "margin"), (dict(equivalence=True), "margin"),
                      (dict(margin=0.1, equivalence=1), "equivalence")):
        with pytest.raises((ValueError, TypeError), match=word):
            kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, **bad)
    with pytest.raises(ValueError, match="margin"):
        kpass.confidence_sequence(kpass.pass_at_k, A, None, 1, margin=0.1)


def test_monitor_passes_the_null_and_the_margin():
    A = [[1, 1, 1, 1], [0, 1, 1, 1]] * 20
    B = [[0, 0, 0, 1], [0, 0, 1, 0]] * 20
    monitor = kpass.SequentialMonitor("pass@k", k=1, null="bounded", margin=0.1)
    monitor.update(A, B)
    cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, null="bounded", margin=0.1)
    assert monitor.sequence.lo.tolist() == cs.lo.tolist() and monitor.sequence.null == "bounded"
    assert monitor.sequence.verdict == cs.verdict == "B is worse than A by more than 0.1"
    with pytest.raises(ValueError, match="null"):
        kpass.SequentialMonitor("pass@k", k=1, null="symmetric")
    with pytest.raises(ValueError, match="margin"):
        kpass.SequentialMonitor("pass@k", k=1, equivalence=True)


# ----------------------------------------------------------------------------- the targets


def differences(rng, reps, T, n, shift):
    theta = rng.normal(0, 1.5, (reps, T))
    return (rng.binomial(n, expit(theta + shift)) - rng.binomial(n, expit(theta))) / n


def first_crossing(log_k, horizon):
    hit = log_k >= THRESHOLD
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, horizon)


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 4, 16])
def test_crossing_under_the_null_with_a_look_after_every_question(n):
    reps = 800
    d = differences(np.random.default_rng(900 + n), reps, 1000, n, 0.0)
    crossed = int((log_capital((d + 1) / 2, 0.5, null="exchangeable") >= THRESHOLD)
                  .any(axis=1).sum())
    ci = stats.binomtest(crossed, reps).proportion_ci(method="exact")
    assert ci.low < 0.05 and crossed / reps <= 0.06, (crossed, reps)


@pytest.mark.slow
def test_decides_a_half_logit_shift_in_fewer_questions_than_the_bounded_sequence():
    means = {}
    for n, horizon in ((1, 4000), (4, 1500), (16, 600)):
        d = differences(np.random.default_rng(300 + n), 200, horizon, n, 0.5)
        x = (d + 1) / 2
        exchangeable = first_crossing(log_capital(x, 0.5, null="exchangeable"), horizon)
        bounded = first_crossing(log_capital(x, 0.5, null="bounded"), horizon)
        means[n] = (exchangeable.mean(), bounded.mean())
    assert means[16][0] <= 40, means  # the target (bounded: about 72)
    assert means[16][0] < 0.6 * means[16][1], means
    assert means[4][0] <= means[4][1] and means[1][0] <= means[1][1], means


@pytest.mark.slow
def test_the_interval_still_covers_the_mean_difference_under_a_logit_shift():
    # the differences of a logit shift are not exactly symmetric; the interval is measured
    # on them: it should still miss the true mean difference at most about alpha
    z, w = np.polynomial.hermite_e.hermegauss(120)
    true = float((w / w.sum()) @ (expit(1.5 * z + 0.5) - expit(1.5 * z)))
    reps = 600
    d = differences(np.random.default_rng(77), reps, 1000, 4, 0.5)
    missed = int((log_capital((d + 1) / 2, (true + 1) / 2, null="exchangeable") >= THRESHOLD)
                 .any(axis=1).sum())
    assert missed / reps <= 0.065, missed
