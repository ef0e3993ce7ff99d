"""Vote@k and the Vote@k posterior mean are probabilities: never outside [0, 1] (issue 18).

Rounding of the scaled polynomial sums used to leave them a few ulps above 1
(``vote_at_k([["1"] * 5 + ["2"] * 3], ["1"], 7)`` was 1.0000000000000007). Every small
answer state is enumerated here and compared with the estimator computed exactly in
``Fraction`` arithmetic: by brute force over all k-subsets for :func:`kpass.vote_at_k`,
and over all Dirichlet-multinomial count vectors for the mean of :func:`kpass.vote_at_k_ci`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb, factorial

import pytest

import kpass


def partitions(n: int, largest: int | None = None):
    """Cluster-size multisets of n answers, largest first."""
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    for part in range(min(n, largest), 0, -1):
        for rest in partitions(n - part, part):
            yield (part, *rest)


def states(n_max: int):
    """Every answer state up to n_max answers: a right, z None, wrong clusters of given sizes."""
    for n in range(1, n_max + 1):
        for right in range(n + 1):
            for none in range(n - right + 1):
                for wrong in partitions(n - right - none):
                    row = (["r"] * right + [None] * none
                           + [f"w{i}" for i, size in enumerate(wrong) for _ in range(size)])
                    yield row


def credit(tally: dict, ties: str) -> Fraction:
    """Score of one vote: the reference must have the most votes; ties per ``ties``."""
    top = max(tally.values(), default=0)
    if top == 0 or tally.get("r", 0) != top:
        return Fraction(0)
    tied = sum(1 for count in tally.values() if count == top) - 1
    if ties == "fractional":
        return Fraction(1, tied + 1)
    return Fraction(int(tied == 0))


def exact_vote(row: list, k: int, ties: str) -> Fraction:
    """The mean vote score over every k-subset of positions (the estimator's definition)."""
    total = Fraction(0)
    for subset in combinations(row, k):
        tally: dict = {}
        for answer in subset:
            if answer is not None:
                tally[answer] = tally.get(answer, 0) + 1
        total += credit(tally, ties)
    return total / comb(len(row), k)


def rising(x: Fraction, m: int) -> Fraction:
    out = Fraction(1)
    for i in range(m):
        out *= x + i
    return out


def compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


def exact_posterior_mean(row: list, k: int, ties: str, prior: Fraction) -> Fraction:
    """E[g_k(pi)], pi ~ Dirichlet(counts + prior) over (reference, each wrong answer, pool).

    k draws from a Dirichlet-distributed pi are Dirichlet-multinomial: enumerate every
    count vector with its exact probability; the pooled category (None and unseen
    answers) never wins.
    """
    wrong = sorted({a for a in row if a is not None and a != "r"})
    alphas = ([row.count("r") + prior] + [row.count(a) + prior for a in wrong]
              + [row.count(None) + prior])
    total_alpha = sum(alphas)
    mean = Fraction(0)
    for counts in compositions(k, len(alphas)):
        weight = Fraction(factorial(k))
        for alpha, y in zip(alphas, counts, strict=True):
            weight *= rising(alpha, y) / factorial(y)
        weight /= rising(total_alpha, k)
        tally = {"r": counts[0], **{a: y for a, y in zip(wrong, counts[1:-1], strict=True)}}
        mean += weight * credit({a: c for a, c in tally.items() if c}, ties)
    return mean


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_at_k_inside_unit_interval_and_exact_on_every_small_state(ties):
    outside = []
    for row in states(8):
        ks = list(range(1, len(row) + 1))
        values = kpass.vote_at_k([row], ["r"], ks, ties=ties)
        per_question = kpass.vote_at_k([row, row], ["r", "r"], ks, ties=ties, per_question=True)
        for k, value, per in zip(ks, values, per_question, strict=True):
            exact = exact_vote(row, k, ties)
            if not 0.0 <= value <= 1.0 or not 0.0 <= per.max() <= 1.0:
                outside.append((row, k, value))
            assert value == pytest.approx(float(exact), abs=1e-12), (row, k)
    assert outside == []


def test_the_issue_case_is_one_and_not_above():
    # 5 right, 3 wrong, k = 7: every 7-subset holds >= 4 right answers of 7. It was
    # 1.0000000000000007 on the issue's machine (the last ulps depend on the BLAS).
    for ties in ("fractional", "wrong"):
        value = kpass.vote_at_k([["1"] * 5 + ["2"] * 3], ["1"], 7, ties=ties)
        assert 1.0 - 1e-12 <= value <= 1.0


@pytest.mark.parametrize("prior", [Fraction(1), Fraction(1, 2)])
@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_at_k_ci_mean_inside_unit_interval_and_exact(ties, prior):
    outside = []
    for row in states(5):
        ks = list(range(1, min(len(row), 4) + 1))
        results = kpass.vote_at_k_ci([row], ["r"], ks, ties=ties,
                                        concentration=float(prior))
        for k, (mu, sigma, lo, hi) in zip(ks, results, strict=True):
            if not 0.0 <= lo <= mu <= hi <= 1.0 or not sigma >= 0.0:
                outside.append((row, k, mu, lo, hi))
            assert mu == pytest.approx(float(exact_posterior_mean(row, k, ties, prior)),
                                       abs=1e-12), (row, k)
    assert outside == []


@pytest.mark.slow  # over 2 s of CPU in the fast run (make check)
def test_vote_at_k_ci_mean_of_a_certain_vote_is_at_most_one():
    # A strong prior-free majority: the posterior mean is near 1 and must not pass it.
    for n in range(2, 40):
        row = ["r"] * n
        for mu, _, lo, hi in kpass.vote_at_k_ci([row], ["r"], list(range(1, min(n, 12) + 1)),
                                                concentration=1e-300):
            assert 0.0 <= lo <= mu <= hi <= 1.0
