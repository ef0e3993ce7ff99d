"""The rank sets of :func:`kpass.leaderboard`: pair covariances and the stepdown max-t test.

Also Holm's adjustment of the pairs' p-values and the Bayesian rank probabilities.

Formula:
    Sigma, the covariance of the K model means over questions: R R^T / (M (M - 1)) with
    residuals R_jq = s_jq - theta_j (clustered: G/(G - 1) C C^T / M^2, C the residual sums
    per cluster; dataset-level metrics: the delete-one jackknife covariance). For the pairs
    I not yet rejected, c(I) is the ``confidence`` quantile of
    max_{(j,k) in I} (W_j - W_k) / se_jk, W a multivariate t vector (scale Sigma, df
    degrees of freedom, :data:`DRAWS` draws from :data:`SEED`); pairs with
    T_jk = d_jk / se_jk > c(I) are rejected and the step repeats on the rest (Romano and
    Wolf 2005), giving rank sets that hold jointly (Mogstad, Romano, Shaikh and Wilhelm
    2024). See :mod:`kpass.stats.ranking` for the whole procedure and its references.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr, stdtr

from ._common import _jackknife_units

#: Draws of the multivariate t behind the rank sets' critical values, from a fixed seed so
#: that a leaderboard is reproducible. The Monte Carlo error of a 95% quantile's coverage
#: is about 0.0015 (sqrt(0.05 * 0.95 / 20000)).
DRAWS = 20000
SEED = 20240601
#: Draws handled at a time when forming pair statistics (memory: CHUNK x pairs floats).
CHUNK = 2000
#: Points of the quadrature for P(best) / P(top j) (uniform in z over +-8.5 sd).
GRID = 2001



def _covariance(values: np.ndarray, codes: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Covariance matrix of the K model means over questions (or clusters), and its df."""
    m = values.shape[1]
    residuals = values - values.mean(axis=1, keepdims=True)
    if codes is None:
        return residuals @ residuals.T / (m * (m - 1)), m - 1
    _, dense = np.unique(codes, return_inverse=True)
    dense = dense.ravel()
    groups = int(dense.max()) + 1
    if groups < 2:
        raise ValueError(f"`clusters`: the clustered standard errors need at least 2 "
                         f"clusters among the questions used; got {groups}")
    sums = np.zeros((values.shape[0], groups))
    for j in range(values.shape[0]):
        sums[j] = np.bincount(dense, weights=residuals[j], minlength=groups)
    return groups / (groups - 1) * (sums @ sums.T) / (m * m), groups - 1


def _jackknife_covariance(statistics: list[Any], keys: np.ndarray,
                          codes: np.ndarray | None) -> tuple[list[np.ndarray], int]:
    """Delete-one-group jackknife covariance of K dataset-level statistics, per k.

    Cov = (G-1)/G sum_g w_g (theta_(-g) - theta_bar)(theta_(-g) - theta_bar)^T, with the
    weights w_g counting the questions that share a row of ``keys`` (the same
    leave-one-out value) when there are no clusters; the diagonal is the jackknife SE^2 of
    :func:`kpass.standard_error`.
    """
    try:
        masks, w, groups = _jackknife_units(keys, codes)
    except ValueError as error:
        raise ValueError(f"`runs`: {error}") from None
    # leave_out[u, j, k]: statistic of model j at the k-th budget without unit u.
    leave_out = np.array([[statistic(mask) for statistic in statistics] for mask in masks])
    spread = leave_out - np.einsum("u,ujk->jk", w, leave_out) / w.sum()
    return [(groups - 1) / groups * np.einsum("u,uj,ui->ji", w, spread[:, :, index],
                                               spread[:, :, index])
            for index in range(leave_out.shape[2])], groups - 1


def _p_values(difference: np.ndarray, se: np.ndarray, df: int) -> np.ndarray:
    """Two-sided t p-values; where se = 0 the exact sign test of df + 1 equal differences."""
    p = np.ones_like(difference)
    positive = se > 0
    p[positive] = 2.0 * stdtr(df, -np.abs(difference[positive] / se[positive]))
    # Every question (cluster) shows the same non-zero difference: all df + 1 signs agree.
    constant = ~positive & (difference != 0)
    p[constant] = min(1.0, 2.0 * 0.5 ** (df + 1))
    return np.minimum(p, 1.0)


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: max_{j<=i} min(1, (P - j + 1) p_(j))."""
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def _better_pairs(estimates: np.ndarray, sigma: np.ndarray, df: int,
                  confidence: float) -> np.ndarray:
    """``better[j, k]``: the stepdown procedure finds model j better than model k."""
    size = estimates.size
    variance = np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2.0 * sigma
    se = np.sqrt(np.maximum(variance, 0.0))
    rows, cols = np.nonzero(~np.eye(size, dtype=bool) & (se > 0))
    better = np.zeros((size, size), dtype=bool)
    if rows.size == 0:
        return better  # no pair has a positive SE: nothing can be told apart
    scale = se[rows, cols]
    statistic = (estimates[rows] - estimates[cols]) / scale
    # W ~ multivariate t: N(0, Sigma) / sqrt(chi2_df / df), from eigh (Sigma is PSD).
    rng = np.random.default_rng(SEED)
    eigenvalues, vectors = np.linalg.eigh(sigma)
    root = vectors * np.sqrt(np.maximum(eigenvalues, 0.0))
    normal = rng.standard_normal((DRAWS, size)) @ root.T
    draws = normal / np.sqrt(rng.chisquare(df, DRAWS) / df)[:, None]
    active = np.ones(rows.size, dtype=bool)
    while active.any():
        index = np.nonzero(active)[0]
        maxima = np.empty(DRAWS)
        for start in range(0, DRAWS, CHUNK):
            block = draws[start:start + CHUNK]
            maxima[start:start + CHUNK] = (
                (block[:, rows[index]] - block[:, cols[index]]) / scale[index]).max(axis=1)
        critical = float(np.quantile(maxima, confidence))
        rejected = index[statistic[index] > critical]
        if rejected.size == 0:
            break
        better[rows[rejected], cols[rejected]] = True
        active[rejected] = False
    return better


def _rank_probabilities(mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``top[i, j]`` = P(rank of model i <= j + 1) for independent normal posteriors.

    P(rank_i <= j+1) = integral of f_i(x) P(#{l != i: X_l > x} <= j) dx, the count being
    Poisson-binomial with P(X_l > x) = Phi((mu_l - x) / sd_l) (a point mass where sd_l = 0,
    a tie counting one half). The integral is a trapezoid rule on GRID points over
    mu_i -/+ 8.5 sd_i (a point where sd_i = 0).
    """
    size = mu.size
    top = np.zeros((size, size))
    z = np.linspace(-8.5, 8.5, GRID)
    density = np.exp(-0.5 * z * z)
    density[[0, -1]] *= 0.5
    density /= density.sum()
    for i in range(size):
        x, weight = ((mu[i] + sd[i] * z, density) if sd[i] > 0
                     else (np.array([mu[i]]), np.ones(1)))
        # counts[:, c] = P(exactly c of the other models lie above x).
        counts = np.zeros((x.size, size))
        counts[:, 0] = 1.0
        for other in range(size):
            if other == i:
                continue
            if sd[other] > 0:
                above = ndtr((mu[other] - x) / sd[other])
            else:
                above = np.where(mu[other] > x, 1.0, np.where(mu[other] == x, 0.5, 0.0))
            shifted = np.zeros_like(counts)
            shifted[:, 1:] = counts[:, :-1] * above[:, None]
            counts = counts * (1.0 - above)[:, None] + shifted
        top[i] = np.clip(weight @ np.cumsum(counts, axis=1), 0.0, 1.0)
    return top
