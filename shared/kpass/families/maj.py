"""Maj@k (cons@k): a strict majority of k drawn samples is correct, with its Bayesian companion.

This is the binary-outcome proxy for majority voting: it asks whether more than
half of k samples are correct, which differs from a plurality vote over answers
(see :func:`kpass.vote_at_k` for that).
"""

from __future__ import annotations

from typing import Any

from .._core.moments import driver as _driver
from .._core.moments.credits import majority_threshold, threshold_credit
from .ci_doc import ci_doc


def _majority_credit(k: int):
    return threshold_credit(k, majority_threshold(k))


def maj_at_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""Maj@k: probability that more than k/2 of k drawn samples are correct.

    Formula:
        j0 = floor(k/2) + 1; Maj@k_q = sum_{j=j0}^{k} C(c_q, j) C(n_q - c_q, k - j) / C(n_q, k);
        with n = k this is the indicator I(c > k/2) of cons@k.

    Args:
        R: binary outcomes (matrix, ragged lists, or BinaryCounts).
        k: 1 <= k <= n, or a sequence of k.
        short: ``"error"`` or ``"skip"`` for questions with fewer than k samples.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad outcomes or k.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(maj_at_k(R, 1), 6)
        0.7
        >>> round(maj_at_k(R, 2), 6)
        0.45
        >>> round(maj_at_k(R, 3), 6)
        0.85
    """
    return _driver.point(R, k, _majority_credit, short=short, per_question=per_question)


@ci_doc
def maj_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                beta0: float = 1.0, *, short: str = "error",
                prior: str = "uniform") -> Any:
    r"""Bayesian summary of Maj@k: G-Pass@k_tau's posterior at tau = (floor(k/2) + 1) / k.

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s
        short: %(short)s

    Returns:
        %(returns)s

    Raises:
        ValueError: bad outcomes, k, confidence, bounds or prior.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mean, sd, cred_lo, cred_hi = maj_at_k_ci(R, 2)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.446429, 0.146167, 0.1599, 0.7329)
        >>> mean, sd, cred_lo, cred_hi = maj_at_k_ci(R, 3)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.684524, 0.151958, 0.3867, 0.9824)
    """
    return _driver.posterior(R, k, _majority_credit, confidence=confidence, bounds=bounds,
                             alpha0=alpha0, beta0=beta0, short=short,
                             prior=prior)


def cons_at_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""cons@k: the name benchmark tools use for :func:`maj_at_k` (strict majority of k correct).

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        short: ``"error"`` or ``"skip"``.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Example:
        Problems with 2, 2, 1 and 0 correct of n = k = 3 samples:

        >>> R = [[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]]
        >>> cons_at_k(R, 3)
        0.5
    """
    return maj_at_k(R, k, short=short, per_question=per_question)


@ci_doc
def cons_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                 bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                 beta0: float = 1.0, *, short: str = "error",
                 prior: str = "uniform") -> Any:
    """Bayesian summary of cons@k (same as :func:`maj_at_k_ci`).

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s
        short: %(short)s

    Returns:
        %(returns)s
    """
    return maj_at_k_ci(R, k, confidence=confidence, bounds=bounds, alpha0=alpha0, beta0=beta0,
                       short=short, prior=prior)


__all__ = ["cons_at_k", "cons_at_k_ci", "maj_at_k", "maj_at_k_ci"]
