"""Hypergeometric probability tables, built from their term ratios in log space.

P(X = low + t) of X ~ Hypergeometric(n, c, k) for one row per state, without forming a
binomial coefficient in floating point (C(N, k) overflows a double near N = 1030): the
ratios P(j + 1) / P(j) = (c - j)(k - j) / ((j + 1)(n - c - k + j + 1)) are summed as logs,
anchored at the largest term and normalised to sum to one
(:func:`normalized_from_log_ratios`), so every term is accurate relative to the mode at
any N. The Beta-binomial tables of :mod:`kpass._core.moments.kernels` use the same
normalisation.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def normalized_from_log_ratios(log_ratios: FloatArray, length: IntArray, *,
                               log_concave: bool = False, mode: IntArray | None = None
                               ) -> FloatArray:
    """Probability vectors from the logs of their consecutive term ratios.

    Row ``s`` describes a distribution with ``length[s]`` terms t_0..t_{L-1} through
    ``log_ratios[s, i] = log(t_{i+1} / t_i)`` for ``i < L - 1`` (entries beyond are
    ignored). The log terms are summed from the largest term outwards, so the
    rounding error of each term is relative to the mode, then normalised.

    Args:
        log_ratios: (S, W - 1) array.
        length: (S,) number of terms of each row, 1 <= length <= W.
        log_concave: the ratios decrease along each row (hypergeometric; Beta-binomial
            with alpha, beta >= 1), so the mode is the number of ratios above 1.
        mode: the column of each row's largest term, when known in closed form.

    Returns:
        (S, W) array; row s holds the probabilities in its first ``length[s]``
        columns and zeros after them.
    """
    rows, width_minus_one = log_ratios.shape
    width = width_minus_one + 1
    columns = np.arange(width_minus_one)
    valid = columns[None, :] < (length[:, None] - 1)
    steps = np.where(valid, log_ratios, 0.0)
    if mode is not None:
        pass
    elif log_concave:
        mode = np.count_nonzero(steps > 0.0, axis=1)
    else:
        # The prefix-sum maximum; its rounding does not matter, only its position.
        prefix = np.zeros((rows, width))
        np.cumsum(steps, axis=1, out=prefix[:, 1:])
        prefix[:, 1:][~valid] = -np.inf
        mode = np.argmax(prefix, axis=1)
    # Sums that start at the mode: forwards after it, backwards before it.
    after_mode = np.where(columns[None, :] >= mode[:, None], steps, 0.0)
    before_mode = steps - after_mode
    # Running sums by cumsum, not by products with triangular 0/1 matrices: those are
    # BLAS calls whose worker threads, on a busy machine, made a 0.3 ms table take 40 ms.
    log_terms = np.zeros((rows, width))
    np.cumsum(after_mode, axis=1, out=log_terms[:, 1:])
    log_terms[:, :-1] -= np.cumsum(before_mode[:, ::-1], axis=1)[:, ::-1]
    terms = np.exp(log_terms, out=log_terms)
    terms[:, 1:][~valid] = 0.0
    terms /= terms.sum(axis=1, keepdims=True)
    return terms


def hypergeom_support(population: IntArray, successes: IntArray, draws: IntArray | int
                      ) -> tuple[IntArray, IntArray]:
    """First value and number of values of X ~ Hypergeometric(population, successes, draws)."""
    draws = np.broadcast_to(np.asarray(draws, dtype=np.int64), population.shape)
    low = np.maximum(0, draws - (population - successes))
    high = np.minimum(successes, draws)
    return low, high - low + 1


def hypergeom_pmf(population: IntArray, successes: IntArray, draws: IntArray | int
                  ) -> tuple[IntArray, FloatArray]:
    """Hypergeometric probabilities P(X = low + t), one row per state.

    Args:
        population: (S,) population sizes n.
        successes: (S,) successes c in the population.
        draws: (S,) or scalar number of draws k (<= n).

    Returns:
        ``(low, pmf)``: the support's first value per row, and an (S, W) table
        with ``pmf[s, t] = P(X_s = low[s] + t)`` (zero beyond the support).
    """
    population = np.asarray(population, dtype=np.int64)
    successes = np.asarray(successes, dtype=np.int64)
    draws_arr = np.broadcast_to(np.asarray(draws, dtype=np.int64), population.shape)
    low, length = hypergeom_support(population, successes, draws_arr)
    width = int(length.max())
    j = low[:, None].astype(np.float64) + np.arange(max(width - 1, 0), dtype=np.float64)
    # ratio P(j+1)/P(j) = (c - j)(k - j) / ((j + 1)(n - c - k + j + 1)), built in place
    numerator = successes[:, None] - j
    numerator *= draws_arr[:, None] - j
    denominator = j + (population - successes - draws_arr + 1)[:, None]
    j += 1.0
    denominator *= j
    with np.errstate(divide="ignore", invalid="ignore"):
        numerator /= denominator
        log_ratios = np.log(numerator, out=numerator)
    # The hypergeometric mode is floor((k + 1)(c + 1) / (n + 2)).
    mode = (draws_arr + 1) * (successes + 1) // (population + 2) - low
    np.clip(mode, 0, length - 1, out=mode)
    return low, normalized_from_log_ratios(log_ratios, length, mode=mode)
