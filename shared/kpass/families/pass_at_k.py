"""Pass@k and Pass^k (Unanimous@k), with their Bayesian companions.

References:
    Chen, M., Tworek, J., Jun, H., et al. (2021). Evaluating Large Language Models
    Trained on Code. arXiv:2107.03374.
    Yao, S., Shinn, N., Razavi, P., & Narasimhan, K. (2024). tau-bench: A Benchmark
    for Tool-Agent-User Interaction in Real-World Domains. arXiv:2406.12045.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.moments import driver as _driver
from .._core.moments.credits import pass_credit, unanimous_credit
from .ci_doc import ci_doc

Interval = tuple[float, float, float, float]


def pass_at_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""Unbiased Pass@k, averaged over questions.

    The probability that at least one of k samples drawn without replacement from
    a question's n samples is correct.

    Formula:
        Pass@k_q = 1 - C(n_q - c_q, k) / C(n_q, k); Pass@k = (1/M) sum_q Pass@k_q,
        computed as a sum of hypergeometric probabilities (never a floating binomial).

    Args:
        R: (M, N) binary matrix, a list of per-question 0/1 lists (lengths may
            differ), or :class:`kpass.BinaryCounts`.
        k: samples drawn, 1 <= k <= n; or a sequence of k (returns a list).
        short: ``"error"`` (default) refuses questions with fewer than k samples;
            ``"skip"`` leaves them out for that k.
        per_question: return the per-question values (numpy array, input order,
            NaN where skipped) instead of their mean.

    Returns:
        float (or array with ``per_question``); a list of them for several k.

    Raises:
        ValueError: non-binary outcomes, an empty question, k out of range.
        ArgumentTypeError: k not an int, or non-numeric outcomes.

    References:
        Chen et al. (2021), arXiv:2107.03374.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(pass_at_k(R, 1), 6)
        0.7
        >>> round(pass_at_k(R, 2), 6)
        0.95
        >>> [round(v, 4) for v in pass_at_k([[1, 0, 0], [0, 1]], [1, 2])]
        [0.4167, 0.8333]
    """
    return _driver.point(R, k, pass_credit, short=short, per_question=per_question)


def pass_hat_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""Pass^k (Unanimous@k, G-Pass@k): probability that all k drawn samples are correct.

    Formula:
        Pass^k_q = C(c_q, k) / C(n_q, k); Pass^k = (1/M) sum_q Pass^k_q.

    Args:
        R: (M, N) binary matrix, ragged per-question lists, or BinaryCounts.
        k: samples drawn, 1 <= k <= n; or a sequence of k.
        short: ``"error"`` or ``"skip"`` for questions with fewer than k samples.
        per_question: return per-question values instead of their mean.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: non-binary outcomes, an empty question, k out of range.

    References:
        Yao et al. (2024), tau-bench, arXiv:2406.12045.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(pass_hat_k(R, 1), 6)
        0.7
        >>> round(pass_hat_k(R, 2), 6)
        0.45
    """
    return _driver.point(R, k, unanimous_credit, short=short, per_question=per_question)


@ci_doc
def pass_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                 bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                 beta0: float = 1.0, *, short: str = "error",
                 prior: str = "uniform") -> Any:
    r"""Bayesian mean, sd and credible interval of i.i.d. Pass@k.

    Each question's success rate has posterior p_q ~ Beta(alpha0 + c_q, beta0 + n_q - c_q);
    the target is g(p) = 1 - (1 - p)^k.

    Formula:
        E[g(p_q)] = 1 - B(a_q, b_q + k) / B(a_q, b_q);
        Var[g(p_q)] = E[(1-p)^k]^2 (E[(1-p)^{2k}] / E[(1-p)^k]^2 - 1), evaluated as
        exp(2 log E) * expm1(sum_i log1p(k a / ((a+b+k+i)(b+i)))), free of cancellation;
        mu = (1/M) sum_q E[g], sigma = (1/M) sqrt(sum_q Var[g]);
        lo, hi = mu -/+ z sigma clipped to ``bounds``, z = Phi^{-1}((1+confidence)/2).

    Args:
        R: binary outcomes (matrix, ragged lists, or BinaryCounts).
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

    References:
        Hariri et al. (2026), Don't Pass@k: A Bayesian Framework for LLM Evaluation,
        ICLR 2026, arXiv:2510.04265.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mean, sd, cred_lo, cred_hi = pass_at_k_ci(R, 1)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.642857, 0.118451, 0.4107, 0.875)
        >>> mean, sd, cred_lo, cred_hi = pass_at_k_ci(R, 2)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.839286, 0.097263, 0.6487, 1.0)
    """
    return _driver.posterior(R, k, pass_credit, confidence=confidence, bounds=bounds,
                             alpha0=alpha0, beta0=beta0, short=short,
                             prior=prior)


@ci_doc
def pass_hat_k_ci(R: Any, k: Any, confidence: float = 0.95,
                  bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                  beta0: float = 1.0, *, short: str = "error",
                  prior: str = "uniform") -> Any:
    r"""Bayesian mean, sd and credible interval of i.i.d. Pass^k.

    Formula:
        g(p) = p^k; E[g(p_q)] = B(a_q + k, b_q) / B(a_q, b_q);
        Var[g] = E[p^k]^2 expm1(sum_{i<k} log1p(k b / ((a+b+k+i)(a+i)))).

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

    References:
        Yao et al. (2024), arXiv:2406.12045; Hariri et al. (2026), arXiv:2510.04265.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mean, sd, cred_lo, cred_hi = pass_hat_k_ci(R, 2)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.446429, 0.146167, 0.1599, 0.7329)
    """
    return _driver.posterior(R, k, unanimous_credit, confidence=confidence, bounds=bounds,
                             alpha0=alpha0, beta0=beta0, short=short,
                             prior=prior)


unanimous_at_k = pass_hat_k
unanimous_at_k_ci = pass_hat_k_ci

__all__ = ["pass_at_k", "pass_at_k_ci", "pass_hat_k", "pass_hat_k_ci", "unanimous_at_k",
           "unanimous_at_k_ci"]

_ = np  # numpy is used in the examples
