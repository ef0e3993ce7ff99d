"""AUC@K: trapezoidal area under the Pass@1..Pass@K curve, with its Bayesian companion.

References:
    Hu, Z., et al. (2026). Rewarding the Rare: Uniqueness-Aware RL for Creative
    Problem Solving in LLMs. arXiv:2601.08763.
"""

from __future__ import annotations

from typing import Any

from .._core.counting.states import BinaryStates
from .._core.moments import driver as _driver
from .._core.moments.credits import auc_coefficients, auc_credit, pass_credit, pass_curve
from .ci_doc import ci_doc


def _auc_credit(k: int):
    return pass_credit(1) if k == 1 else auc_credit(k)


def _auc_values(states: BinaryStates, k: int, _: int):
    # The point estimate needs only Pass@1..Pass@K of each state, O(S K); the credit
    # vector (an O(K^2) table) is built only by the posterior, which needs it.
    return pass_curve(states.n, states.c, k, auc_coefficients(k))


def auc_at_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""AUC@K: (1/(K-1)) sum_{j=1}^{K-1} (Pass@j + Pass@(j+1)) / 2; AUC@1 = Pass@1.

    Formula:
        c_1 = c_K = 1/(2(K-1)), c_j = 1/(K-1) otherwise; AUC@K_q = sum_j c_j Pass@j_q,
        with all Pass@j_q from one running sum of log1p terms.

    Args:
        R: binary outcomes (matrix, ragged lists, or BinaryCounts).
        k: K, 1 <= K <= n, or a sequence of K.
        short: ``"error"`` or ``"skip"``.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several K.

    Raises:
        ValueError: bad outcomes or K.

    References:
        Hu et al. (2026), arXiv:2601.08763.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(auc_at_k(R, 1), 6)
        0.7
        >>> round(auc_at_k(R, 2), 6)
        0.825
        >>> round(auc_at_k(R, 3), 6)
        0.9
    """
    return _driver.point_values(R, k, _auc_values, short=short, per_question=per_question)


@ci_doc
def auc_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                beta0: float = 1.0, *, short: str = "error",
                prior: str = "uniform") -> Any:
    r"""Bayesian summary of AUC@K: g(p) = sum_j c_j (1 - (1 - p)^j) under the Beta posterior.

    Formula:
        g is written in the degree-K Bernstein basis (credit A_i = AUC@K of a bank of K
        samples with i correct), and E[g], E[g^2] are Beta-binomial sums; K = 1 is
        :func:`pass_at_k_ci` with k = 1.

    Args:
        R: binary outcomes.
        k: K, 1 <= K <= n, or a sequence of K.
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s
        short: %(short)s

    Returns:
        %(returns)s

    Raises:
        ValueError: bad outcomes, K, confidence, bounds or prior.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> [round(x, 6) for x in auc_at_k_ci(R, 1)]
        [0.642857, 0.118451, 0.410698, 0.875017]
    """
    return _driver.posterior(R, k, _auc_credit, confidence=confidence, bounds=bounds,
                             alpha0=alpha0, beta0=beta0, short=short,
                             prior=prior)


__all__ = ["auc_at_k", "auc_at_k_ci"]
