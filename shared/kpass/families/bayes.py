"""Bayes@N: posterior mean and uncertainty of the expected reward under a Dirichlet model.

References:
    Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V. (2026). Don't Pass@k:
    A Bayesian Framework for Large Language Model Evaluation. ICLR 2026, arXiv:2510.04265.
"""

from __future__ import annotations

import math
from typing import Any

from .._core.counting.checks import check_bounds, check_confidence, check_flag
from .._core.dirichlet.rewards import binary_dirichlet_summary, dirichlet_summary, prepare
from .._core.moments.driver import Posterior, credible, finish
from .ci_doc import ci_doc


def bayes(R: Any, w: Any = None, R0: Any = None, *, per_question: bool = False) -> Any:
    r"""Bayes@N: (mu, sigma) of the expected reward under a Dirichlet(+1) posterior.

    Formula:
        nu_qj = n_qj + n0_qj + 1, T_q = (C + 1) + D_q + N_q;
        mu = w_0 + (1/M) sum_q sum_j nu_qj (w_j - w_0) / T_q;
        sigma^2 = (1/M^2) sum_q [sum_j nu_qj/T_q (w_j - w_0)^2 - (sum_j nu_qj/T_q (w_j - w_0))^2]
        / (T_q + 1). With equal N and D this is the reference formula with scalar T.

    Args:
        R: (M, N) int matrix with entries in {0..C}, or ragged per-question lists, or
            :class:`kpass.CategoricalCounts`.
        w: length C+1 reward vector; None means R must be binary and w = (0, 1).
        R0: optional prior outcomes, (M, D) or one list per question.
        per_question: return each question's posterior mean of its expected reward
            instead (a numpy array; their average is mu).

    Returns:
        (mu, sigma), or the per-question posterior means.

    Raises:
        ValueError: categories outside [0, len(w) - 1], non-binary R without w, R0 with
            a different number of questions.

    References:
        Hariri et al. (2026), arXiv:2510.04265.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> w = np.array([0.0, 0.5, 1.0])
        >>> R0 = np.array([[0, 2],
        ...                [1, 2]])
        >>> mu, sigma = bayes(R, w, R0)
        >>> round(mu, 6), round(sigma, 6)
        (0.575, 0.084275)
        >>> mu2, sigma2 = bayes(R, w)
        >>> round(mu2, 6), round(sigma2, 6)
        (0.5625, 0.091998)
    """
    scale, means, variances, _ = _summary(R, w, R0)
    if check_flag(per_question, "per_question"):
        return scale * means + 0.0
    return finish([_mu_sigma(scale, means, variances)], False)


def _summary(R: Any, w: Any, R0: Any) -> tuple[float, Any, Any, Any]:
    """Per-question posterior moments: straight from row counts for a plain 0/1 array."""
    summary = binary_dirichlet_summary(R) if w is None and R0 is None else None
    if summary is None:
        counts, weights = prepare(R, w, R0)
        summary = dirichlet_summary(counts, weights)
    return summary


def _mu_sigma(scale: float, means: Any, variances: Any) -> tuple[float, float]:
    m = means.size
    mu = scale * (float(means.sum()) / m)  # the float np.mean gives, without its overhead
    sigma = scale * (math.sqrt(float(variances.sum())) / m)
    return mu, sigma


@ci_doc
def bayes_ci(R: Any, w: Any = None, R0: Any = None, confidence: float = 0.95,
             bounds: tuple[float, float] | None = None) -> Posterior:
    r"""Bayes@N posterior mean, sd and normal-approximation credible interval.

    Formula:
        lo, hi = mu -/+ z sigma (clipped to ``bounds``), z = Phi^{-1}((1 + confidence)/2).

    Args:
        R: categorical outcomes (see :func:`bayes`).
        w: reward vector or None (binary R).
        R0: optional prior outcomes.
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
        >>> mean, sd, cred_lo, cred_hi = bayes_ci(R, bounds=(0.0, 1.0))
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.642857, 0.118451, 0.4107, 0.875)
    """
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    mu, sigma = _mu_sigma(*_summary(R, w, R0)[:3])
    return finish([credible(mu, sigma, confidence, bounds)], False)


__all__ = ["bayes", "bayes_ci"]
