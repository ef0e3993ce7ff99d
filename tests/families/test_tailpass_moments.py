"""TailPassProfile.moment(lam) against mpmath at 50 digits, near p = 1, near p = 0 and between.

The reference is computed from the definition, independently of kpass: for one question
with posterior p ~ Dirichlet(alpha) over reward levels s, a bank of k fresh attempts
has counts x ~ Multinomial(k, p) and average reward B = x . s / k, and

    g(p) = E[B^lam | p] = sum_x mult(x) p^x (x . s / k)^lam,
    E[g] = sum_x mult(x) (x . s / k)^lam E[p^x],
    E[g^2] = sum_{x,y} mult(x) mult(y) (x . s / k)^lam (y . s / k)^lam E[p^(x+y)],

E[p^a] = prod_c alpha_c^(a_c) / A^(|a|) (rising factorials), at 50 digits, so
Var[g] = E[g^2] - E[g]^2 keeps ~35 digits even where it cancels 15. The dataset sd
is sqrt(sum_q Var_q) / M. Wanted (README): 1e-10 relative for the mean and the sd.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import kpass

RTOL = 1e-10


def _banks(k, levels):
    if levels == 1:
        yield (k,)
        return
    for first in range(k + 1):
        for rest in _banks(k - first, levels - 1):
            yield (first, *rest)


def reference_moment(alpha, rewards, k, lam):
    """(E[g], Var[g]) at 50 digits for one question, from the definition above."""
    with mpmath.workdps(50):
        alpha = [mpmath.mpf(float(a)) for a in alpha]
        rewards = [mpmath.mpf(float(s)) for s in rewards]
        total = mpmath.fsum(alpha)
        lam = mpmath.mpf(lam)
        memo = {}

        def expectation(exponents):
            if exponents not in memo:
                value = mpmath.mpf(1)
                for a, e in zip(alpha, exponents, strict=True):
                    value *= mpmath.rf(a, e)
                memo[exponents] = value / mpmath.rf(total, sum(exponents))
            return memo[exponents]

        weighted = []
        for x in _banks(k, len(alpha)):
            score = mpmath.fsum(c * s for c, s in zip(x, rewards, strict=True)) / k
            if score > 0:
                count = mpmath.factorial(k)
                for c in x:
                    count /= mpmath.factorial(c)
                weighted.append((x, count * score**lam))
        mean = mpmath.fsum(w * expectation(x) for x, w in weighted)
        second = mpmath.fsum(
            wx * wy * expectation(tuple(a + b for a, b in zip(x, y, strict=True)))
            for x, wx in weighted for y, wy in weighted)
        return mean, second - mean**2


def reference_dataset(alphas, rewards, k, lam):
    with mpmath.workdps(50):
        parts = [reference_moment(alpha, rewards, k, lam) for alpha in alphas]
        mean = mpmath.fsum(m for m, _ in parts) / len(parts)
        sd = mpmath.sqrt(mpmath.fsum(v for _, v in parts)) / len(parts)
        return float(mean), float(sd)


def assert_close(mine, reference):
    for value, expected in zip(mine, reference, strict=True):
        assert value == pytest.approx(expected, rel=RTOL, abs=1e-300), (mine, reference)


def test_issue_example_moment_2_near_p_1():
    """Issue 18: the sd was 1.745248528768043e-06 (1.6e-5 off), mpmath 1.7452209151839292e-06."""
    profile = kpass.tailpass(np.ones((1, 30), int), 5, prior=[1e-6, 1000.0])
    expected = reference_dataset([[1e-6, 1030.0]], [0.0, 1.0], 5, 2)
    assert expected[1] == pytest.approx(1.7452209151839292e-06, rel=1e-15)
    assert_close(profile.moment(2), expected)
    mean, sd, lo, hi = profile.moment_ci(2, method="normal")
    assert_close((mean, sd), expected)
    assert lo < mean <= hi


# Beta priors (level 0, level 1): near p = 1, near p = 0, flat, Jeffreys, a very strong
# interior prior and one concentrated at p = 1 - 2e-8.
PRIORS = [[1e-6, 1000.0], [1000.0, 1e-6], [1e-3, 1e5], [1e5, 1e-3], [1.0, 1.0], [0.5, 0.5],
          [1e6, 1e6], [2.0, 1e8]]
STATES = [(30, 30), (30, 0), (200, 199), (5, 1)]  # (N, correct)


@pytest.mark.parametrize("prior", PRIORS, ids=str)
@pytest.mark.parametrize("state", STATES, ids=str)
@pytest.mark.parametrize("lam", [2, 4, 1])
def test_polynomial_moments_binary(prior, state, lam):
    n, c = state
    R = np.zeros((1, n), int)
    R[0, :c] = 1
    alpha = [prior[0] + (n - c), prior[1] + c]
    for k in (1, 2, 5, 16, 1000):
        if k > 16 and lam not in (2, 4):
            continue  # the reference is a sum over k + 1 banks squared
        profile = kpass.tailpass(R, k, prior=prior)
        expected = (reference_dataset([alpha], [0.0, 1.0], k, lam) if k <= 16
                    else _binary_polynomial_reference(alpha, k, lam))
        assert_close(profile.moment(lam), expected)


def _binary_polynomial_reference(alpha, k, lam):
    """E[B^lam | p] for B = Bin(k, p) / k through its falling-factorial moments (large k)."""
    with mpmath.workdps(50):
        b, a = (mpmath.mpf(float(v)) for v in alpha)
        total = a + b
        # E[B^lam | p] = sum_j S(lam, j) k^(j falling) p^j / k^lam, S the Stirling numbers
        stirling = {2: {1: 1, 2: 1}, 4: {1: 1, 2: 7, 3: 6, 4: 1}}[lam]
        coefficients = {j: mpmath.mpf(s) * mpmath.ff(k, j) / mpmath.mpf(k) ** lam
                        for j, s in stirling.items()}

        def moment(j):
            return mpmath.rf(a, j) / mpmath.rf(total, j)

        mean = mpmath.fsum(c * moment(j) for j, c in coefficients.items())
        second = mpmath.fsum(ci * cj * moment(i + j) for i, ci in coefficients.items()
                             for j, cj in coefficients.items())
        return float(mean), float(mpmath.sqrt(second - mean**2))


@pytest.mark.parametrize("prior", [[1e-6, 1000.0], [1000.0, 1e-6], [1.0, 1.0], [1e-3, 1e5]],
                         ids=str)
@pytest.mark.parametrize("lam", [0.5, 3])
def test_other_moments_binary_near_the_ends(prior, lam):
    for n, c in ((30, 30), (30, 0), (200, 199)):
        R = np.zeros((1, n), int)
        R[0, :c] = 1
        for k in (1, 5, 16):
            expected = reference_dataset([[prior[0] + (n - c), prior[1] + c]], [0.0, 1.0], k,
                                         lam)
            assert_close(kpass.tailpass(R, k, prior=prior).moment(lam), expected)


def test_dataset_of_questions_near_both_ends():
    R = np.array([[1] * 40, [1] * 39 + [0], [0] * 40, [1] * 20 + [0] * 20, [1] * 40])
    prior = [1e-4, 50.0]
    alphas = [[prior[0] + 40 - sum(row), prior[1] + sum(row)] for row in R.tolist()]
    for k in (1, 3, 8):
        profile = kpass.tailpass(R, k, prior=prior)
        for lam in (1, 2, 4):
            assert_close(profile.moment(lam), reference_dataset(alphas, [0.0, 1.0], k, lam))


RUBRICS = [[0.0, 0.5, 1.0], [0.2, 1.0], [0.0, 0.3, 0.7, 1.0]]


@pytest.mark.parametrize("w", RUBRICS, ids=str)
@pytest.mark.parametrize("lam", [2, 4, 1])
@pytest.mark.slow
def test_polynomial_moments_rubric_near_each_vertex(w, lam):
    levels = len(w)
    priors = [1.0, [1e-6] * (levels - 1) + [1000.0], [1000.0] + [1e-6] * (levels - 1),
              [1e-3] * (levels - 1) + [1e5], [1e6] * levels]
    for prior in priors:
        for counts in ([0] * (levels - 1) + [30], [30] + [0] * (levels - 1), [3] * levels):
            row = [category for category, many in enumerate(counts) for _ in range(many)]
            concentrations = np.broadcast_to(np.asarray(prior, float), (levels,)) + counts
            for k in (1, 2, 4):
                profile = kpass.tailpass([row], k, w=w, prior=prior)
                expected = reference_dataset([concentrations], w, k, lam)
                assert_close(profile.moment(lam), expected)


def test_moment_ci_normal_uses_the_exact_moments():
    profile = kpass.tailpass(np.ones((3, 30), int), 4, prior=[2.0, 1e8])
    for lam in (2, 4):
        mean, sd, _, _ = profile.moment_ci(lam, method="normal")
        assert (mean, sd) == profile.moment(lam)
        expected = reference_dataset([[2.0, 1e8 + 30]] * 3, [0.0, 1.0], 4, lam)
        assert_close((mean, sd), expected)
        assert math.isfinite(sd) and sd > 0.0


@pytest.mark.parametrize("prior", [[1e6, 1e6], [2.0, 1e8], [1e8, 2.0]], ids=str)
@pytest.mark.parametrize("lam", [0.5, 3])
def test_other_moments_binary_narrow_posteriors(prior, lam):
    """Strong priors: the credits' variance refinement stops at ~6 lost digits; these need more."""
    for n, c in ((30, 30), (200, 199), (5, 1)):
        R = np.zeros((1, n), int)
        R[0, :c] = 1
        for k in (2, 5, 16):
            expected = reference_dataset([[prior[0] + (n - c), prior[1] + c]], [0.0, 1.0], k,
                                         lam)
            assert_close(kpass.tailpass(R, k, prior=prior).moment(lam), expected)


@pytest.mark.parametrize("w", RUBRICS[::2], ids=str)
@pytest.mark.parametrize("lam", [0.5, 3])
def test_other_moments_rubric_narrow_posteriors(w, lam):
    levels = len(w)
    for prior in ([1e6] * levels, [1e-6] * (levels - 1) + [1000.0]):
        for counts in ([0] * (levels - 1) + [30], [3] * levels):
            row = [category for category, many in enumerate(counts) for _ in range(many)]
            concentrations = np.broadcast_to(np.asarray(prior, float), (levels,)) + counts
            for k in (1, 2, 4):
                expected = reference_dataset([concentrations], w, k, lam)
                assert_close(kpass.tailpass([row], k, w=w, prior=prior).moment(lam), expected)
