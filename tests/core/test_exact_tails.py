"""Threshold tails summed along c (rectangular data, n <= 2048) against exact fractions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import kpass
from kpass._core.moments.credits import tau_threshold
from kpass._core.moments.tails import TAIL_RECURRENCE_MAX_N, hypergeom_upper_tails


def exact_tail(n, c, k, j0):
    low, high = max(j0, k - (n - c)), min(c, k)
    if low > high:
        return Fraction(0)
    total = Fraction(0)
    for j in range(low, high + 1):
        total += math.comb(c, j) * math.comb(n - c, k - j)
    return total / math.comb(n, k)


@pytest.mark.parametrize(("n", "k", "j0"), [
    (1, 1, 1), (5, 3, 2), (10, 10, 5), (10, 10, 10), (10, 1, 1), (64, 64, 33), (256, 64, 1),
    (256, 64, 32), (256, 64, 64), (300, 299, 150),
    pytest.param(1000, 500, 251, marks=pytest.mark.slow),  # 2.7 s of CPU
    (1000, 3, 2),
])
def test_every_tail_along_c_is_exact(n, k, j0):
    tails = hypergeom_upper_tails(n, k, j0)
    assert tails.shape == (n + 1,)
    for c in range(n + 1):
        exact = exact_tail(n, c, k, j0)
        if exact == 0:
            assert tails[c] == 0.0
        elif exact == 1:
            assert tails[c] == 1.0
        elif float(exact) > 1e-300:
            assert abs(tails[c] - float(exact)) <= 1e-12 * float(exact)


@pytest.mark.slow
def test_tails_at_the_recurrence_limit():
    n, k, j0 = TAIL_RECURRENCE_MAX_N, 1024, 513
    tails = hypergeom_upper_tails(n, k, j0)
    for c in range(0, n + 1, 97):
        exact = float(exact_tail(n, c, k, j0))
        if exact > 1e-300:
            assert abs(tails[c] - exact) <= 1e-12 * exact


def test_public_estimators_use_exact_tails_on_every_state():
    rng = np.random.default_rng(5)
    n, k = 200, 40
    c = np.arange(n + 1)
    counts = kpass.BinaryCounts(np.full(c.size, n), c)
    for name, j0, values in [
        ("pass", 1, kpass.pass_at_k(counts, k, per_question=True)),
        ("hat", k, kpass.pass_hat_k(counts, k, per_question=True)),
        ("maj", k // 2 + 1, kpass.maj_at_k(counts, k, per_question=True)),
        ("tau", tau_threshold(0.3, k), kpass.g_pass_at_k_tau(counts, k, 0.3, per_question=True)),
    ]:
        for state in rng.choice(c, 40, replace=False):
            exact = float(exact_tail(n, int(state), k, j0))
            assert abs(values[state] - exact) <= 1e-12 * exact or exact < 1e-300, (name, state)
