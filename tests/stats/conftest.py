"""Fixtures the stats tests share, each defined once: the simulated 2PL benchmark the subset
tests (subset_compare, subset_leaderboard) draw their reference models and new runs from."""

from collections.abc import Callable

import numpy as np
import pytest

import kpass


@pytest.fixture(scope="session")
def subset_world() -> Callable:
    """``subset_world(seed, N=300, K=20)``: a 2PL benchmark and its reference runs.

    Question i has discrimination a_i = exp(N(0, 0.3)) and difficulty b_i ~ N(0, 1.2); a
    model of ability theta answers it with probability 1 / (1 + exp(-a_i (theta - b_i))).
    Returns ``(reference, probability, ids, rng)``: K reference models ``m0 .. m{K-1}``
    (abilities ~ N(0, 1), one sample a question), ``probability(theta)`` (the N per-question
    probabilities), the ids ``q0 .. q{N-1}`` and the generator, to draw new runs from next.
    """
    def world(seed, N=300, K=20):
        rng = np.random.default_rng(seed)
        a = np.exp(rng.normal(0, 0.3, N))
        b = rng.normal(0, 1.2, N)
        ids = [f"q{i}" for i in range(N)]

        def probability(theta):
            return 1 / (1 + np.exp(-a * (theta - b)))

        reference = {f"m{j}": kpass.BinaryCounts(np.full(N, 1),
                                                 rng.binomial(1, probability(theta)), ids=ids)
                     for j, theta in enumerate(rng.normal(0, 1, K))}
        return reference, probability, ids, rng

    return world


@pytest.fixture(scope="session")
def subset_run() -> Callable:
    """``subset_run(rng, p, ids, samples)``: a new model's full run, ``samples`` draws of each
    question with the per-question probabilities ``p`` (Binomial(samples, p_i) correct)."""
    def run(rng, p, ids, samples):
        return kpass.BinaryCounts(np.full(len(ids), samples), rng.binomial(samples, p), ids=ids)

    return run
