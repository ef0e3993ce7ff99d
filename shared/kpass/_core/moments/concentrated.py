"""Posterior covariances of Bernstein targets that stay accurate when the posterior is narrow.

The usual route, Var[g] = E[g^2] - E[g]^2 from two Beta-binomial sums, cancels when
the posterior Beta(a, b) is concentrated (a + b large: a strong prior such as
alpha0 = beta0 = 1e12, or very many samples): both terms are O(1) while the
variance is O(1/(a + b)), so ~16 digits of E[g^2] buy fewer and fewer digits of
Var[g] (a prior of 1e300 leaves none).

Here the covariance is written as a sum with the cancellation taken out
analytically. With J, J' two Beta-binomial(k, a, b) counts sharing one p,
P_i = P(J = i) and Q_ij = P(J = i, J' = j),

    Cov[g_A(p), g_B(p)] = sum_ij A_i B_j (Q_ij - P_i P_j)
                        = sum_ij A_i B_j P_i P_j expm1(log R_ij),
    R_ij = Q_ij / (P_i P_j)
         = prod_{t<j} (1 + i/(a+t)) prod_{t<k-j} (1 + (k-i)/(b+t)) / prod_{t<k} (1 + k/(a+b+t)),

so log R_ij is a sum of ``log1p`` terms (each accurate, none cancelling) and
``expm1`` keeps Q_ij - P_i P_j accurate however small it is. The cost is
O(k^2) per state, so :func:`posterior_moments` uses it only for the states
where the cheap route lost digits, and only up to :data:`MAX_DEGREE`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .kernels import CHUNK_ENTRIES, beta_binomial_pmf

FloatArray = npt.NDArray[np.float64]

#: Largest k computed this way (k^2 entries per state); beyond it the cheap route stands.
MAX_DEGREE = 512
#: The cheap route is trusted while Var >= LOST_DIGITS * E[h^2] (it then loses < 6 digits).
LOST_DIGITS = 1e-6


def covariance(alpha: FloatArray, beta: FloatArray, pmf: FloatArray, left: FloatArray,
               right: FloatArray) -> FloatArray:
    """Cov[g_left(p), g_right(p)] per state, p ~ Beta(alpha, beta), free of cancellation.

    Args:
        alpha: (S,) Beta parameters.
        beta: (S,) Beta parameters.
        pmf: (S, k + 1) Beta-binomial(k, alpha, beta) probabilities.
        left: (k + 1,) Bernstein coefficients of the first target.
        right: (k + 1,) Bernstein coefficients of the second target.

    Returns:
        (S,) covariances; NaN for a state whose log R overflows (a or b below ~1e-300),
        for the caller to keep its other value.
    """
    k = left.size - 1
    out = np.empty(alpha.size)
    i = np.arange(k + 1, dtype=np.float64)[None, :, None]
    t = np.arange(k, dtype=np.float64)[None, None, :]
    step = max(1, CHUNK_ENTRIES // ((k + 1) * (k + 1)))
    for start in range(0, alpha.size, step):
        a = alpha[start : start + step, None, None]
        b = beta[start : start + step, None, None]
        rows = a.shape[0]
        # F[i, j] = sum_{t<j} log1p(i / (a + t)); G[i, j] = sum_{t<k-j} log1p((k - i) / (b + t)).
        log_r = np.zeros((rows, k + 1, k + 1))
        np.cumsum(np.log1p(i / (a + t)), axis=2, out=log_r[:, :, 1:])
        tail = np.zeros((rows, k + 1, k + 1))
        np.cumsum(np.log1p((k - i) / (b + t)), axis=2, out=tail[:, :, 1:])
        log_r += tail[:, :, ::-1]
        log_r -= np.sum(np.log1p(k / (a[:, :, 0] + b[:, :, 0] + t[:, 0])), axis=1)[:, None, None]
        with np.errstate(over="ignore", invalid="ignore"):
            excess = np.expm1(log_r)
            weights = pmf[start : start + step]
            value = np.einsum("ri,rij,rj->r", weights * left, excess, weights * right)
        out[start : start + step] = np.where(np.isfinite(value), value, np.nan)
    return out


def refine_variance(alpha: FloatArray, beta: FloatArray, pmf: FloatArray | None,
                    values: FloatArray, variance: FloatArray, second: FloatArray) -> FloatArray:
    """Recompute, by :func:`covariance`, the variances that E[h^2] - E[h]^2 left inaccurate.

    Args:
        alpha: (S,) posterior parameters.
        beta: (S,) posterior parameters.
        pmf: (S, k + 1) Beta-binomial table, or None to build it for the states concerned.
        values: (k + 1,) credit (any shift: the covariance does not see constants).
        variance: (S,) cheap variances, E[h^2] - E[h]^2 (clipped at 0).
        second: (S,) the E[h^2] they came from.

    Returns:
        (S,) variances, refined where they had lost more than ~6 digits.
    """
    k = values.size - 1
    lost = variance < LOST_DIGITS * second
    if k > MAX_DEGREE or not lost.any():
        return variance
    table = (pmf[lost] if pmf is not None
             else beta_binomial_pmf(k, alpha[lost], beta[lost]))
    refined = covariance(alpha[lost], beta[lost], table, values, values)
    out = variance.copy()
    out[lost] = np.where(np.isnan(refined), variance[lost], np.maximum(refined, 0.0))
    return out


def refine_covariance(alpha: FloatArray, beta: FloatArray, left: FloatArray, right: FloatArray,
                      cheap: FloatArray, second: FloatArray) -> FloatArray:
    """Recompute the covariances E[h h'] - E[h] E[h'] that lost digits (as :func:`refine_variance`).

    Args:
        alpha: (S,) posterior parameters.
        beta: (S,) posterior parameters.
        left: (k + 1,) first credit.
        right: (k + 1,) second credit (same k; otherwise nothing is refined).
        cheap: (S,) covariances by the two-sums route.
        second: (S,) the E[h h'] they came from.

    Returns:
        (S,) covariances, refined where they had lost more than ~6 digits.
    """
    k = left.size - 1
    lost = np.abs(cheap) < LOST_DIGITS * np.abs(second)
    if right.size != left.size or k > MAX_DEGREE or not lost.any():
        return cheap
    table = beta_binomial_pmf(k, alpha[lost], beta[lost])
    refined = covariance(alpha[lost], beta[lost], table, left, right)
    out = cheap.copy()
    out[lost] = np.where(np.isnan(refined), cheap[lost], refined)
    return out
