"""Categorical outcomes: reward weights, Dirichlet posteriors and grouped reward levels.

Bayes@N, avg@N and Max@k see a question through its category counts; questions
with identical count rows are evaluated once (their distinct states).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .inputs import ArgumentTypeError, CategoricalCounts, categorical_counts

FloatArray = npt.NDArray[np.float64]


def check_weights(w: Any, *, name: str = "w") -> FloatArray | None:
    """Validate a reward vector (w_0..w_C): 1-D, non-empty, finite numbers."""
    if w is None:
        return None
    try:
        array = np.asarray(w)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"`{name}` must be a 1-D sequence of numbers; got {w!r}") from None
    if array.dtype.kind not in "biuf":
        raise ArgumentTypeError(f"`{name}` must be a 1-D sequence of numbers; got {w!r}")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"`{name}` must be a non-empty 1-D sequence; got shape {array.shape}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"`{name}` must contain finite numbers; got {array.tolist()}")
    return array


def prepare(R: Any, w: Any, R0: Any = None) -> tuple[CategoricalCounts, FloatArray]:
    """Counts with one column per weight, and the weights (default [0, 1] for binary R)."""
    weights = check_weights(w)
    if weights is None:
        counts = categorical_counts(R, R0)
        if not counts.is_binary():
            seen = np.flatnonzero(counts.counts.sum(axis=0) + counts.prior_counts.sum(axis=0))
            raise ValueError(
                f"`R` is not binary (categories {seen.tolist()} occur), so the reward vector "
                "`w` must be given"
            )
        weights = np.array([0.0, 1.0])
        return counts.with_categories(2), weights
    counts = categorical_counts(R, R0, n_categories=weights.size)
    return counts, weights


def distinct_rows(matrix: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64],
                                                          FloatArray, npt.NDArray[np.int64]]:
    """Distinct rows of an integer matrix, their multiplicities and each row's index."""
    span = matrix.max(axis=0) - matrix.min(axis=0) + 1 if matrix.size else np.ones(0, np.int64)
    if matrix.size and np.all(matrix >= 0) and float(np.prod(span.astype(np.float64))) < 2.0**62:
        # One integer key per row (mixed-radix digits), so a 1-D unique suffices.
        offset = matrix - matrix.min(axis=0)
        radix = np.concatenate(([1], np.cumprod(span[:-1]))).astype(np.int64)
        keys = offset @ radix
        _, first, inverse, multiplicity = np.unique(keys, return_index=True,
                                                    return_inverse=True, return_counts=True)
        return matrix[first], multiplicity.astype(np.float64), inverse.reshape(-1)
    unique, inverse, multiplicity = np.unique(matrix, axis=0, return_inverse=True,
                                              return_counts=True)
    return unique, multiplicity.astype(np.float64), inverse.reshape(-1)


def scaled(weights: FloatArray) -> tuple[float, float, FloatArray]:
    """Offset w_0, scale max|w - w_0| and the normalised rewards (w - w_0) / scale."""
    offset = float(weights[0])
    centered = weights - offset
    scale = float(np.max(np.abs(centered)))
    if scale == 0.0:
        return offset, 0.0, np.zeros_like(weights)
    return offset, scale, centered / scale


def dirichlet_summary(counts: CategoricalCounts, weights: FloatArray
                      ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per-question posterior mean, variance and T of the expected reward.

    nu_j = n_j + n0_j + 1 (Dirichlet(+1) prior plus prior outcomes), T = sum_j nu_j =
    (C+1) + D + N per question; mean = sum_j nu_j w_j / T;
    Var = (sum_j nu_j/T w_j^2 - mean^2) / (T + 1) (computed on rewards shifted by w_0
    and scaled, to keep the subtraction well conditioned).
    """
    offset, scale, normalized = scaled(weights)
    nu = (counts.counts + counts.prior_counts + 1).astype(np.float64)
    total = nu.sum(axis=1)
    probabilities = nu / total[:, None]
    row_means = probabilities @ normalized
    row_second = probabilities @ (normalized * normalized)
    row_variance = np.maximum(row_second - row_means * row_means, 0.0) / (total + 1.0)
    return offset + scale * row_means, scale * scale * row_variance, total
