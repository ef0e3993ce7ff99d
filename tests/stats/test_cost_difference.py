"""``cost_difference``: the paired A - B of the cost per question and per solved question.

A small case is worked by hand in exact fractions (the means, the ratios, the delta
method's influence values and their variance); the intervals' coverage is checked by seeded
simulation against the population values, which the simulation model gives in closed form.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm, t

from kpass import BinaryCounts, cost_difference


def _var(values):
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def test_a_small_case_by_hand_in_fractions():
    # 4 questions, 2 samples each; A and B's correct counts and mean costs of one sample
    n = [2, 2, 2, 2]
    ca, cb = [2, 1, 0, 1], [2, 2, 1, 0]
    xa = [Fraction(1, 10), Fraction(3, 10), Fraction(5, 10), Fraction(2, 10)]
    xb = [Fraction(2, 10), Fraction(2, 10), Fraction(7, 10), Fraction(4, 10)]
    for k in (1, 2):
        # unbiased Pass@k per question: 1 - C(n - c, k) / C(n, k)
        sa = [1 - Fraction(math.comb(2 - c, k), math.comb(2, k)) for c in ca]
        sb = [1 - Fraction(math.comb(2 - c, k), math.comb(2, k)) for c in cb]
        ka, kb = [k * v for v in xa], [k * v for v in xb]
        d = [a - b for a, b in zip(ka, kb, strict=True)]
        mean_d = sum(d) / 4
        ra = (sum(ka) / 4) / (sum(sa) / 4)
        rb = (sum(kb) / 4) / (sum(sb) / 4)
        psi = [(ka[i] - ra * sa[i]) / (sum(sa) / 4) - (kb[i] - rb * sb[i]) / (sum(sb) / 4)
               for i in range(4)]
        q = t.ppf(0.975, 3)
        cost, solved = cost_difference(BinaryCounts(n, ca), BinaryCounts(n, cb),
                                       [float(v) for v in xa], [float(v) for v in xb], k=k)
        assert cost.quantity == "cost" and solved.quantity == "per_solved"
        assert cost.a == pytest.approx(float(sum(ka) / 4), rel=1e-12)
        assert cost.b == pytest.approx(float(sum(kb) / 4), rel=1e-12)
        assert cost.difference == pytest.approx(float(mean_d), rel=1e-12)
        assert cost.se ** 2 == pytest.approx(float(_var(d) / 4), rel=1e-12)
        assert cost.lo == pytest.approx(float(mean_d) - q * cost.se, rel=1e-12)
        assert solved.a == pytest.approx(float(ra), rel=1e-12)
        assert solved.b == pytest.approx(float(rb), rel=1e-12)
        assert solved.difference == pytest.approx(float(ra - rb), rel=1e-12)
        assert solved.se ** 2 == pytest.approx(float(_var(psi) / 4), rel=1e-12)
        # 4 questions: the solved rates are not told apart from 0 at 95%? by Fieller's rule
        guard = any(float(sum(s) / 4) ** 2 <= q * q * float(_var(s) / 4) for s in (sa, sb))
        if guard:
            assert (solved.lo, solved.hi) == (-math.inf, math.inf)
        else:  # the delta interval: the normal quantile
            assert solved.hi - solved.lo == pytest.approx(2 * norm.ppf(0.975) * solved.se,
                                                          rel=1e-12)


def test_told_apart_solved_rates_give_a_finite_interval_and_none_solved_none():
    n = [4] * 6
    cost, solved = cost_difference(BinaryCounts(n, [4, 3, 4, 3, 4, 4]),
                                   BinaryCounts(n, [3, 4, 4, 2, 3, 4]), [1, 2, 1, 2, 1, 1],
                                   [2, 2, 3, 2, 2, 3])
    assert math.isfinite(solved.lo) and solved.lo < solved.difference < solved.hi
    assert cost.difference == pytest.approx(-np.mean([1, 0, 2, 0, 1, 2]), rel=1e-12)
    _, solved = cost_difference(BinaryCounts(n, [0] * 6), BinaryCounts(n, [1] * 6), [1.0] * 6,
                                [1.0] * 6)
    assert solved.a == math.inf and solved.difference is None and solved.se is None
    assert solved.as_dict()["a"] is None and solved.as_dict()["lo"] is None


def test_questions_are_matched_by_id_and_shared_keeps_those_both_have():
    a = BinaryCounts([2, 2, 2], [2, 1, 0], ids=["q1", "q2", "q3"])
    b = BinaryCounts([2, 2, 2, 2], [0, 2, 2, 1], ids=["q9", "q3", "q1", "q2"])
    with pytest.raises(ValueError, match="shared"):
        cost_difference(a, b, [1.0, 2.0, 3.0], [9.0, 4.0, 2.0, 3.0])
    cost, _ = cost_difference(a, b, [1.0, 2.0, 3.0], [9.0, 4.0, 2.0, 3.0], shared=True)
    assert cost.questions == 3 and cost.difference == pytest.approx(-1.0, rel=1e-12)


@pytest.mark.parametrize("change, error, message", [
    ({"cost_a": [0.1, -0.2, 0.3]}, ValueError, "`cost_a[1]` = -0.2"),
    ({"cost_b": [0.1, float("nan"), 0.3]}, ValueError, "`cost_b[1]` = nan"),
    ({"cost_b": [0.1, "x", 0.3]}, TypeError, "`cost_b` must hold numbers"),
    ({"cost_b": [0.1, 0.2]}, ValueError, "`cost_b` needs one cost per question of `b` (3)"),
    ({"k": 3}, ValueError, "question 0 of `a`: `n_samples`=2"),
    ({"k": 0}, ValueError, "`k` must be >= 1"),
    ({"confidence": 1.5}, ValueError, "confidence"),
    ({"b": [[1, 0], [2, 1], [1, 1]]}, ValueError, "`b`"),
])
def test_bad_input_names_the_argument_and_value(change, error, message):
    arguments = {"a": BinaryCounts([2, 2, 2], [1, 2, 0]), "b": BinaryCounts([2, 2, 2], [1, 1, 1]),
                 "cost_a": [0.1, 0.2, 0.3], "cost_b": [0.1, 0.2, 0.3], **change}
    with pytest.raises(error) as raised:
        cost_difference(**arguments)
    assert message in str(raised.value)


def _coverage(m, reps, alpha_a, alpha_b, seed, n=4, spread=0.3):
    """Coverage of both intervals; questions' difficulty z shared by A and B (paired).

    p_A = Phi(alpha_a + z), p_B = Phi(alpha_b + 0.7 z + 0.71 e): E p = Phi(alpha / sqrt 2).
    A sample's cost is mu_i times Gamma(4, 1/4) noise; mu_A = exp(spread z), mu_B =
    exp(0.3 + spread z + 0.2 u): E mu_A = exp(spread^2 / 2), E mu_B = exp(0.3 + spread^2 / 2
    + 0.02). Costs that grow with the question (z) are lognormal across questions.
    """
    rng = np.random.default_rng(seed)
    mean_a = math.exp(spread ** 2 / 2)
    mean_b = math.exp(0.3 + spread ** 2 / 2 + 0.02)
    solved_a, solved_b = norm.cdf(alpha_a / math.sqrt(2)), norm.cdf(alpha_b / math.sqrt(2))
    truth = (mean_a - mean_b, mean_a / solved_a - mean_b / solved_b)  # A - B
    hits = np.zeros(2)
    for _ in range(reps):
        z, e, u = rng.standard_normal((3, m))
        p_a = norm.cdf(alpha_a + z)
        p_b = norm.cdf(alpha_b + 0.7 * z + math.sqrt(1 - 0.49) * e)
        x_a = np.exp(spread * z) * rng.gamma(4 * n, 0.25, m) / n
        x_b = np.exp(0.3 + spread * z + 0.2 * u) * rng.gamma(4 * n, 0.25, m) / n
        found = cost_difference(BinaryCounts([n] * m, rng.binomial(n, p_a)),
                                BinaryCounts([n] * m, rng.binomial(n, p_b)), x_a, x_b)
        hits += [row.lo <= value <= row.hi for row, value in zip(found, truth, strict=True)]
    return hits / reps


@pytest.mark.slow  # 4 x 600 replications: about 6 s
@pytest.mark.parametrize("m", [30, 200])
@pytest.mark.parametrize("alpha_a, alpha_b", [(0.0, 0.3), (-0.5, -0.2)])
def test_coverage_by_seeded_simulation(m, alpha_a, alpha_b):
    """Measured (600 replications, seed 39 + M): cost 0.937 (M = 30), 0.945 (M = 200); per
    solved question 0.963 and 0.957 (M = 30, solved rates 0.5/0.58 and 0.36/0.44), 0.958
    and 0.943 (M = 200). A small solved rate (0.14, alpha -1.5) is conservative: 0.977
    (M = 30), 0.953 (M = 200)."""
    cost, per_solved = _coverage(m, 600, alpha_a, alpha_b, seed=39 + m)
    assert 0.93 <= cost <= 0.97, cost
    assert 0.93 <= per_solved <= 0.97, per_solved
