"""Generalized pass family: G-Pass@k, G-Pass@k_tau and mG-Pass@k, with Bayesian companions.

References:
    Liu, J., Liu, H., Xiao, L., et al. (2024). Are Your LLMs Capable of Stable
    Reasoning? arXiv:2412.13147.
"""

from __future__ import annotations

from typing import Any

from .._core.counting.checks import check_tau
from .._core.moments import driver as _driver
from .._core.moments.credits import mg_credit, pass_credit, tau_threshold, threshold_credit
from .ci_doc import ci_doc
from .pass_at_k import pass_hat_k, pass_hat_k_ci


def _tau_credit(tau: float):
    def credit_for(k: int):
        if tau <= 0.0:
            return pass_credit(k)
        return threshold_credit(k, tau_threshold(tau, k))

    return credit_for


def g_pass_at_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""G-Pass@k: all k drawn samples are correct (the tau = 1 threshold; same as Pass^k).

    Formula:
        G-Pass@k_q = C(c_q, k) / C(n_q, k), averaged over questions.

    Args:
        R: binary outcomes (matrix, ragged lists, or BinaryCounts).
        k: 1 <= k <= n, or a sequence of k.
        short: ``"error"`` or ``"skip"`` for questions with fewer than k samples.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad outcomes or k.

    References:
        Liu et al. (2024), arXiv:2412.13147.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(g_pass_at_k(R, 1), 6)
        0.7
        >>> round(g_pass_at_k(R, 2), 6)
        0.45
    """
    return pass_hat_k(R, k, short=short, per_question=per_question)


def g_pass_at_k_tau(R: Any, k: Any, tau: float, *, short: str = "error",
                    per_question: bool = False) -> Any:
    r"""G-Pass@k_tau: at least ceil(tau k) of k drawn samples are correct.

    Formula:
        j0 = max(1, ceil(tau k));
        G-Pass@k_tau,q = sum_{j=j0}^{k} C(c_q, j) C(n_q - c_q, k - j) / C(n_q, k).
        tau = 0 gives Pass@k, tau = 1 gives Pass^k.

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        tau: threshold in [0, 1].
        short: ``"error"`` or ``"skip"``.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad outcomes, k, or tau outside [0, 1].

    References:
        Liu et al. (2024), arXiv:2412.13147.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(g_pass_at_k_tau(R, 2, 0.5), 6)
        0.95
        >>> round(g_pass_at_k_tau(R, 2, 1.0), 6)
        0.45
    """
    tau = check_tau(tau)
    return _driver.point(R, k, _tau_credit(tau), short=short, per_question=per_question)


def mg_pass_at_k(R: Any, k: Any, *, short: str = "error", per_question: bool = False) -> Any:
    r"""mG-Pass@k: G-Pass@k_tau averaged over tau in [0.5, 1].

    Formula:
        m = ceil(k/2), X_q ~ Hypergeometric(n_q, c_q, k);
        mG-Pass@k_q = 2 int_{0.5}^{1} G-Pass@k_tau,q dtau
                    = (2/k) sum_{j=m+1}^{k} (j - m) P(X_q = j).

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        short: ``"error"`` or ``"skip"``.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad outcomes or k.

    References:
        Liu et al. (2024), arXiv:2412.13147.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(mg_pass_at_k(R, 2), 6)
        0.45
        >>> round(mg_pass_at_k(R, 3), 6)
        0.166667
    """
    return _driver.point(R, k, mg_credit, short=short, per_question=per_question)


@ci_doc
def g_pass_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                   bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                   beta0: float = 1.0, *, short: str = "error",
                   prior: str = "uniform") -> Any:
    r"""Bayesian summary of G-Pass@k: the same posterior target as :func:`pass_hat_k_ci`.

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
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> [round(x, 6) for x in g_pass_at_k_ci(R, 2)]
        [0.446429, 0.146167, 0.159946, 0.732911]
    """
    return pass_hat_k_ci(R, k, confidence=confidence, bounds=bounds, alpha0=alpha0,
                         beta0=beta0, short=short, prior=prior)


@ci_doc
def g_pass_at_k_tau_ci(R: Any, k: Any, tau: float, confidence: float = 0.95,
                       bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                       beta0: float = 1.0, *, short: str = "error",
                       prior: str = "uniform") -> Any:
    r"""Bayesian summary of G-Pass@k_tau: at least j0 of k i.i.d. samples are correct.

    Formula:
        j0 = max(1, ceil(tau k)); g(p) = sum_{j >= j0} C(k, j) p^j (1-p)^(k-j);
        E[g] and E[g^2] are Beta-binomial sums over the Bernstein coefficients of g and g^2.

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        tau: threshold in [0, 1].
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s
        short: %(short)s

    Returns:
        %(returns)s

    Raises:
        ValueError: bad outcomes, k, tau, confidence, bounds or prior.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> [round(x, 6) for x in g_pass_at_k_tau_ci(R, 3, 0.5)]
        [0.684524, 0.151958, 0.386692, 0.982356]
    """
    tau = check_tau(tau)
    credit_for = _tau_credit(0.0 if tau <= 0.0 else tau)
    return _driver.posterior(R, k, credit_for, confidence=confidence, bounds=bounds,
                             alpha0=alpha0, beta0=beta0, short=short,
                             prior=prior)


@ci_doc
def mg_pass_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                    bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                    beta0: float = 1.0, *, short: str = "error",
                    prior: str = "uniform") -> Any:
    r"""Bayesian summary of mG-Pass@k.

    Formula:
        g(p) = sum_j (2/k) max(0, j - ceil(k/2)) C(k, j) p^j (1-p)^(k-j).

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
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> round(mg_pass_at_k_ci(R, 1)[0], 6)
        0.0
    """
    return _driver.posterior(R, k, mg_credit, confidence=confidence, bounds=bounds,
                             alpha0=alpha0, beta0=beta0, short=short,
                             prior=prior)


__all__ = ["g_pass_at_k", "g_pass_at_k_ci", "g_pass_at_k_tau", "g_pass_at_k_tau_ci",
           "mg_pass_at_k", "mg_pass_at_k_ci"]
