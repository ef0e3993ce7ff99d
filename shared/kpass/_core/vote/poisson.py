r"""Poissonised votes: control variates with exact, cheap moments under a Dirichlet posterior.

For pi ~ Dirichlet(alpha), write pi = G / S with independent G_i ~ Gamma(alpha_i) and
S = sum_i G_i. Given G, let the answers get independent X_i ~ Poisson(tau G_i) votes
(tau > 0 a rate). The Poissonised votes of the reference are

    c_strict(G) = P(X_ref > X_j for every wrong answer j | G)
                = sum_{x >= 1} Poisson(x; tau G_ref) prod_j P(Poisson(tau G_j) <= x - 1),
    c_weak(G)   = P(X_ref >= X_j for every j, X_ref >= 1 | G)
                = sum_{x >= 1} Poisson(x; tau G_ref) prod_j P(Poisson(tau G_j) <= x),

a strict win and a win that takes every tie (the pooled category never wins, so it
drops out). With tau A = k (A = sum alpha) these are the plurality vote of about k
draws, blurred in the number of draws and in the scale S: about 99.6% of the posterior
variance of the vote g_k(pi) of exactly k draws is linear in them at k = 64.

Their moments are exact sums of a few thousand terms, because without a fixed number
of draws the answers are independent. Unconditionally X_i ~ NegativeBinomial(alpha_i,
p = tau / (1 + tau)), so

    E[c_strict] = sum_{x >= 1} NB_ref(x) prod_j F_j(x - 1),   F_j the NB cdf,

and two groups of votes (X, Y) given the same G (rates tau_1, tau_2) have the joint law
X_i + Y_i = m ~ NegativeBinomial(alpha_i, (tau_1 + tau_2) / (1 + tau_1 + tau_2)), split
Binomial(m, tau_1 / (tau_1 + tau_2)), again independent over answers:

    E[c_a c_b] = sum_{s, t >= 1} W_ref(s, t) prod_j F_j(s - 1 + a, t - 1 + b),

F_j(u, v) = P(X_j <= u, Y_j <= v), a = 1 for the weak control. The reference's share
is entered as G_ref (not pi_ref = G_ref / S, which has no product form):
E[G_ref c] = alpha_ref E[c | alpha_ref + 1] (a Gamma variate's size bias). Every sum is
truncated where the reference's negative-binomial tail falls below 1e-18; all terms
are probabilities (no cancellation). Cost per state: about C T^2 for C wrong answers
and T ~ 40-160 the reference's largest vote count, against C k^6 / 24 for the exact
second moment of g_k.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Tail mass of the reference's votes left out of every sum.
_TAIL = 1e-18
#: Largest working table (states x answers x T x T) built at once.
_CHUNK_ENTRIES = 1 << 20


def _nb_pmf(alpha: FloatArray, top: int, p: FloatArray) -> FloatArray:
    """NB(y; alpha, p) = Gamma(alpha + y) / (Gamma(alpha) y!) p^y (1 - p)^alpha, y <= top.

    ``alpha`` (S, ...) with ``p`` (S,); entries with alpha = 0 (padding) are the point
    mass at 0. By the ratio recurrence NB(y) = NB(y - 1) p (alpha + y - 1) / y (every
    partial product a pmf value) while NB(0) = (1 - p)^alpha is a normal float; scipy
    otherwise.
    """
    p = p.reshape(p.shape + (1,) * (alpha.ndim - p.ndim))
    start = alpha * np.log1p(-p)
    if alpha.size and float(start.min()) < -700.0:
        from scipy.stats import nbinom

        safe = np.where(alpha > 0, alpha, 1.0)[..., None]
        table = nbinom.pmf(np.arange(top + 1), safe, (1.0 - p)[..., None])
        return np.where((alpha > 0)[..., None], table, (np.arange(top + 1) == 0) * 1.0)
    y = np.arange(1, top + 1)
    steps = np.empty(alpha.shape + (top + 1,))
    steps[..., 0] = np.exp(start)
    steps[..., 1:] = (p * 1.0)[..., None] * (alpha[..., None] + (y - 1)) / y
    return np.cumprod(steps, axis=-1, dtype=np.float64)


def _reach(alpha_ref: FloatArray, p: FloatArray) -> IntArray:
    """Per state, the reference's largest vote count kept: its NB tail beyond is < ``_TAIL``."""
    from scipy.stats import nbinom

    return np.maximum(nbinom.isf(_TAIL, alpha_ref, 1.0 - p).astype(np.int64) + 1, 2)


def _halves(top: int) -> FloatArray:
    """H[x, y] = C(x + y, x) / 2^(x + y), the Binomial(x + y, 1/2) pmf at x, x, y <= top."""
    from scipy.stats import binom

    grid = np.arange(top + 1)
    return binom.pmf(grid[:, None], grid[:, None] + grid[None, :], 0.5)


def _joint(alpha: FloatArray, top: int, p: FloatArray, halves: FloatArray) -> FloatArray:
    """W(x, y) = NB(x + y; alpha, p) H[x, y] for x, y <= top, (S, top + 1, top + 1)."""
    grid = np.arange(top + 1)
    plus = grid[:, None] + grid[None, :]
    return _nb_pmf(alpha, 2 * top, p)[:, plus] * halves[: top + 1, : top + 1]


def control_means(alpha_ref: FloatArray, alpha_other: FloatArray, tau: FloatArray
                  ) -> FloatArray:
    """Exact (E[c_strict], E[c_weak]) per state, (S, 2).

    Args:
        alpha_ref: (S,) the reference's concentration.
        alpha_other: (S, C) the wrong answers' (0: padding).
        tau: (S,) the Poisson rate per unit of G.
    """
    p = tau / (1.0 + tau)
    top = int(_reach(alpha_ref, p).max())
    ref = _nb_pmf(alpha_ref, top, p)
    cdf = np.cumsum(_nb_pmf(alpha_other, top, p), axis=-1)
    weak = np.prod(cdf, axis=1)  # (S, top + 1)
    out = np.empty((alpha_ref.size, 2))
    out[:, 0] = np.einsum("sx,sx->s", ref[:, 1:], weak[:, :-1])
    out[:, 1] = np.einsum("sx,sx->s", ref[:, 1:], weak[:, 1:])
    return out


def control_products(alpha_ref: FloatArray, alpha_other: FloatArray, tau: FloatArray
                     ) -> FloatArray:
    """Exact E[c_a(G) c_b(G)] for a, b in (strict, weak) per state, (S, 2, 2).

    Both groups of votes have the rate ``tau``: X_i + Y_i ~ NB(alpha_i, 2 tau / (1 + 2 tau)),
    split Binomial(m, 1/2). Each group alone is NB(alpha_i, tau / (1 + tau)), so the
    reference's counts s, t stop at its one-group reach T.
    """
    p = 2.0 * tau / (1.0 + 2.0 * tau)
    out = np.empty((alpha_ref.size, 2, 2))
    reach = _reach(alpha_ref, tau / (1.0 + tau))
    widths = (alpha_other > 0).sum(axis=1)
    order = np.lexsort((widths, reach))
    start = 0
    while start < order.size:
        first = order[start]
        step = max(1, _CHUNK_ENTRIES // ((widths[first] + 1) * (reach[first] + 1) ** 2))
        chunk = order[start : start + step]
        top, width = int(reach[chunk].max()), int(widths[chunk].max())
        start += chunk.size
        halves = _halves(top)
        ref = _joint(alpha_ref[chunk], top, p[chunk], halves)
        both = np.ones((chunk.size, top + 1, top + 1))
        # Wrong answers are sorted by size, so their reach falls with j: F_j(u, v) is
        # computed up to its own reach R and extended by its last row and column
        # (P(X_j > R) < 1e-18 for every state of the chunk).
        one_group = float(tau[chunk].max() / (1.0 + tau[chunk].max()))
        reach_j = _reach(alpha_other[chunk, :width].max(axis=0), np.full(width, one_group))
        for j in range(width):
            small = int(min(reach_j[j], top))
            joint = _joint(alpha_other[chunk, j], small, p[chunk], halves)
            cdf = np.cumsum(np.cumsum(joint, axis=2), axis=1)  # F_j(u, v)
            both[:, : small + 1, : small + 1] *= cdf
            if small < top:
                both[:, small + 1 :, : small + 1] *= cdf[:, -1:, :]
                both[:, : small + 1, small + 1 :] *= cdf[:, :, -1:]
                both[:, small + 1 :, small + 1 :] *= cdf[:, -1:, -1:]
        inner = ref[:, 1:, 1:]
        for a in (0, 1):
            for b in (0, 1):
                out[chunk, a, b] = np.einsum("sxy,sxy->s", inner,
                                             both[:, a : top + a, b : top + b])
    return out


def _poisson_pmf(mean: FloatArray, top: int) -> FloatArray:
    """Poisson(mean) pmf at 0..top per entry (..., top + 1), by p(y) = p(y - 1) mean / y.

    Every partial product is a pmf value; scipy takes over where e^-mean underflows.
    """
    if mean.size and float(mean.max()) > 700.0:
        from scipy.stats import poisson

        return poisson.pmf(np.arange(top + 1), mean[..., None])
    steps = np.empty(mean.shape + (top + 1,))
    steps[..., 0] = np.exp(-mean)
    steps[..., 1:] = mean[..., None] / np.arange(1, top + 1)
    return np.cumprod(steps, axis=-1, dtype=np.float64)


def control_values(rate_ref: FloatArray, rate_other: FloatArray) -> FloatArray:
    """(c_strict, c_weak) on given Poisson rates tau G, per row, (R, 2).

    Args:
        rate_ref: (R,) tau G_ref.
        rate_other: (R, C) tau G_j of the wrong answers (0: padding or absent).
    """
    # P(Poisson(m) >= m + d) <= exp(-d^2 / (2 (m + d / 3))) < 1e-20 at d = 10 sqrt(m) + 30
    largest = float(rate_ref.max(initial=0.0))
    top = int(largest + 10.0 * np.sqrt(largest) + 30.0)
    weak = np.ones((rate_ref.size, top + 1))
    for j in range(rate_other.shape[1]):
        live = np.flatnonzero(rate_other[:, j] > 0)
        if live.size:
            weak[live] *= np.minimum(np.cumsum(_poisson_pmf(rate_other[live, j], top), axis=1),
                                     1.0)
    ref = _poisson_pmf(rate_ref, top)
    out = np.empty((rate_ref.size, 2))
    out[:, 0] = np.einsum("rx,rx->r", ref[:, 1:], weak[:, :-1])
    out[:, 1] = np.einsum("rx,rx->r", ref[:, 1:], weak[:, 1:])
    return out
