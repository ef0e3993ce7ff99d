"""avg@N: the plain (weighted) sample average, with a Bayesian uncertainty on its scale.

References:
    Hariri et al. (2026), Don't Pass@k, ICLR 2026, arXiv:2510.04265 (Eq. 20).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core.counting.checks import check_bounds, check_confidence, check_flag
from .._core.dirichlet.rewards import (
    binary_dirichlet_summary,
    binary_rows,
    dirichlet_summary,
    prepare,
)
from .._core.moments.driver import Posterior, credible, finish
from .ci_doc import ci_doc


def avg(R: Any, w: Any = None, *, per_question: bool = False) -> Any:
    r"""avg@N and its Bayesian sigma rescaled to the average's scale (uniform prior).

    Formula:
        a_q = (1/N_q) sum_i w_{R_qi}; a = (1/M) sum_q a_q (each question weighs the same,
        whatever its N_q); sigma_a^2 = (1/M^2) sum_q (T_q/N_q)^2 Var_q with T_q = C + 1 + N_q
        and Var_q the Bayes@N posterior variance of question q; for equal N this is
        sigma_a = (T/N) sigma_Bayes (Eq. 20).

    Args:
        R: (M, N) outcomes in {0..C}, ragged lists, or CategoricalCounts.
        w: reward vector (w_0..w_C); None means binary R and w = (0, 1).
        per_question: return the per-question averages (numpy array) instead.

    Returns:
        (a, sigma_a), or the per-question averages with ``per_question=True``.

    Raises:
        ValueError: bad categories, or non-binary R without w.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> a, sigma = avg(R)
        >>> round(a, 6), round(sigma, 6)
        (0.7, 0.165831)
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> a, sigma = avg(R, np.array([0.0, 0.5, 1.0]))
        >>> round(a, 6), round(sigma, 6)
        (0.6, 0.147196)
    """
    per_question = check_flag(per_question, "per_question")
    rows = binary_rows(R) if w is None else None
    if rows is not None:  # binary: a_q = c_q / n_q, the same floats as the general path
        n, ones = rows
        summary = binary_dirichlet_summary(R, rows)
        assert summary is not None  # given binary rows, the summary exists
        scale, _, variances, total = summary
        averages = ones / n
    else:
        counts, weights = prepare(R, w)
        n = counts.n_samples.astype(np.float64)
        scale, _, variances, total = dirichlet_summary(counts, weights)
        # On rewards u = w / s (s = max|w|), so sums of counts times rewards stay finite.
        normalized = weights / scale
        offset = float(normalized[0])
        averages = offset + (counts.counts @ (normalized - offset)) / n
    if per_question:
        return finish([scale * averages], False)
    m = n.size
    sigma = scale * (math.sqrt(float(np.sum((total / n) ** 2 * variances))) / m)
    return finish([(scale * float(averages.mean()), sigma)], False)


@ci_doc
def avg_ci(R: Any, w: Any = None, confidence: float = 0.95,
           bounds: tuple[float, float] | None = None) -> Posterior:
    r"""avg@N with its Bayesian sigma and a normal-approximation credible interval.

    Formula:
        lo, hi = a -/+ z sigma_a (clipped to ``bounds``), z = Phi^{-1}((1 + confidence)/2).

    Args:
        R: outcomes (see :func:`avg`).
        w: reward vector or None.
        confidence: %(confidence)s
        bounds: %(bounds)s

    Returns:
        %(returns_one)s

    Note:
        %(dirichlet)s %(no_k)s

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> a, sigma, lo, hi = avg_ci(R, bounds=(0.0, 1.0))
        >>> round(a, 4), round(sigma, 4), round(lo, 4), round(hi, 4)
        (0.7, 0.1658, 0.375, 1.0)
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> a, sigma, lo, hi = avg_ci(R, np.array([0.0, 0.5, 1.0]), confidence=0.95)
        >>> round(a, 4), round(sigma, 4), round(lo, 4), round(hi, 4)
        (0.6, 0.1472, 0.3115, 0.8885)
    """
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    a, sigma = avg(R, w)
    return finish([credible(a, sigma, confidence, bounds)], False)


__all__ = ["avg", "avg_ci"]
