"""Categorical outcomes: reward weights, Dirichlet posteriors and grouped reward levels.

Bayes@N, avg@N and Max@k see a question through its category counts; questions
with identical count rows are evaluated once (their distinct states).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..counting.checks import ArgumentTypeError, CategoryValueError, InputError, _show
from ..counting.counts import BinaryCounts, CategoricalCounts
from ..counting.inputs import MAX_CATEGORIES, categorical_counts
from ..counting.rowcount import binary_row_counts

FloatArray = npt.NDArray[np.float64]


#: Largest reward magnitude accepted: results are computed on w / max|w| and scaled
#: back, and an interval mu -/+ z sigma must stay finite (z < 9 for any confidence).
MAX_REWARD = 1e300


def check_weights(w: Any, *, name: str = "w") -> FloatArray | None:
    """Validate a reward vector (w_0..w_C): 1-D, non-empty, finite, |w_j| <= 1e300, C < 65536."""
    if w is None:
        return None
    try:
        array = np.asarray(w)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"`{name}` must be a 1-D sequence of numbers; got {w!r}") from None
    if array.dtype.kind not in "biuf":
        raise ArgumentTypeError(f"`{name}` must be a 1-D sequence of numbers; got {_show(w)}")
    if array.ndim != 1 or array.size == 0:
        raise InputError(f"`{name}` must be a non-empty 1-D sequence; got shape {array.shape}")
    if array.size > MAX_CATEGORIES:
        raise InputError(
            f"`{name}` must have at most {MAX_CATEGORIES} entries (one per category); got "
            f"len({name})={array.size}"
        )
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)) or np.any(np.abs(array) > MAX_REWARD):
        bad = int(np.flatnonzero(~(np.abs(array) <= MAX_REWARD))[0])
        raise InputError(
            f"`{name}` must hold finite rewards in [-1e300, 1e300]; got {name}[{bad}]="
            f"{_show(w[bad] if isinstance(w, Sequence) else array[bad].item())}"
        )
    return array


def prepare(R: Any, w: Any, R0: Any = None) -> tuple[CategoricalCounts, FloatArray]:
    """Counts with one column per weight, and the weights (default [0, 1] for binary R).

    Categories are checked against ``len(w)`` (or against {0, 1} without ``w``) before
    any table is built, so a stray huge category costs nothing.
    """
    weights = check_weights(w)
    if weights is None:
        try:
            counts = categorical_counts(R, R0, n_categories=2)
        except CategoryValueError as error:
            raise CategoryValueError(
                f"`{error.name}` is not binary ({error.name}{error.where}={_show(error.value)}), "
                "so the reward vector `w` must be given"
            ) from None
        return counts, np.array([0.0, 1.0])
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


def scaled(weights: FloatArray) -> tuple[float, FloatArray]:
    """Scale s = max|w| (1 when every reward is 0) and the rewards w / s, all in [-1, 1].

    Computing on w / s and multiplying results back by s keeps squares of rewards
    (variances) finite for rewards up to the float limit.
    """
    scale = float(np.max(np.abs(weights)))
    if scale == 0.0:
        return 1.0, weights.copy()
    return scale, weights / scale


def dirichlet_summary(counts: CategoricalCounts, weights: FloatArray
                      ) -> tuple[float, FloatArray, FloatArray, FloatArray]:
    """Per-question posterior mean, variance and T of the expected reward, in units of s.

    nu_j = n_j + n0_j + 1 (Dirichlet(+1) prior plus prior outcomes), T = sum_j nu_j =
    (C+1) + D + N per question; with u = w / s, s = max|w|: mean = sum_j nu_j u_j / T;
    Var = (sum_j nu_j/T (u_j - u_0)^2 - (sum_j nu_j/T (u_j - u_0))^2) / (T + 1) (on rewards
    shifted by u_0, to keep the subtraction well conditioned).

    Returns:
        ``(s, mean, variance, T)``: the reward's mean is ``s * mean`` and its sd
        ``s * sqrt(variance)`` (multiply after any averaging or square root).
    """
    scale, normalized = scaled(weights)
    offset = float(normalized[0])
    centered = normalized - offset
    nu = (counts.counts + counts.prior_counts + 1).astype(np.float64)
    total = nu.sum(axis=1)
    probabilities = nu / total[:, None]
    row_means = probabilities @ centered
    row_second = probabilities @ (centered * centered)
    row_variance = np.maximum(row_second - row_means * row_means, 0.0) / (total + 1.0)
    return scale, offset + row_means, row_variance, total


def binary_rows(R: Any) -> tuple[FloatArray, npt.NDArray[np.int64]] | None:
    """(n, c) of every question for binary outcomes given as counts or a plain 0/1 array.

    A ``BinaryCounts`` (what ``kpass report`` and the modules hold) or a numeric (M, N)
    array of 0/1 values (one blocked pass, :func:`binary_row_counts`); None for any
    other input (lists, tables, masked arrays, non-binary values), which then takes the
    general path and its messages.
    """
    if type(R) is BinaryCounts:
        return R.n_samples.astype(np.float64), R.n_correct
    if type(R) is not np.ndarray or R.ndim != 2 or R.size == 0:
        return None
    ones = binary_row_counts(R)
    if ones is None:
        return None
    return np.full(ones.size, float(R.shape[1])), ones


def binary_dirichlet_summary(R: Any, rows: tuple[FloatArray, npt.NDArray[np.int64]] | None = None
                             ) -> tuple[float, FloatArray, FloatArray, FloatArray] | None:
    """:func:`dirichlet_summary` of binary outcomes with w = (0, 1) and no R0, or None.

    The common Bayes@N / avg@N call needs only each question's (n, c)
    (:func:`binary_rows`), then the Beta(c + 1, n - c + 1) moments, with the same
    float operations as :func:`dirichlet_summary` takes on the (M, 2) table (so
    results are identical), without building the table, the Dirichlet weights or the
    matrix products. Returns None where :func:`binary_rows` does; ``rows``, when the
    caller already has them, saves reading R again.
    """
    rows = binary_rows(R) if rows is None else rows
    if rows is None:
        return None
    n, ones = rows
    total = n + 2.0  # nu_0 + nu_1 = (n - c + 1) + (c + 1)
    means = np.add(ones, 1.0)
    means /= total
    # p - p * p >= 0 for p in [0, 1] (the rounded p * p never exceeds p), so the
    # general path's clip at 0 never applies here.
    variances = np.multiply(means, means)
    np.subtract(means, variances, out=variances)
    variances /= total + 1.0
    return 1.0, means, variances, total
