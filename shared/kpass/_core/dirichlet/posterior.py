"""Dirichlet-multinomial machinery of TailPass: count grids, predictive tables, covariances.

A question with reward levels s_0 < ... < s_{L-1} and posterior Dirichlet(alpha) over
them sends k fresh attempts to a count vector x (a weak composition of k into L
parts) with the Dirichlet-multinomial probability

    P(x) = k! / prod_c x_c! * prod_c alpha_c^(x_c) / A^(k),   A = sum_c alpha_c,

a^(x) the rising factorial a (a+1) ... (a+x-1). The average reward of the bank is
x . s / k. A payoff u(x) of the bank has posterior mean E[u] = sum_x P(x) u(x) and,
as a function of the latent probabilities p, posterior (co)variance

    Cov[f_u(p), f_v(p)] = sum_x P(x) (u(x) - E u) E[v(Y) - E v | x],

where f_u(p) = E[u(X) | p] and Y | x is Dirichlet-multinomial with alpha + x (two
banks drawn from the same p): the "conditional" form, O(G^2) for a grid of G banks,
used for three or more reward levels (as in the reference library). With two levels
f_u is a polynomial of degree k in p, and the covariance of threshold events is a
(k + 1)-node Gauss rule for the Beta posterior, centred node by node: it keeps full
relative precision for near-sure events and narrow posteriors, where the difference
of two separately summed tails in the conditional form loses it.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import numpy.typing as npt
from scipy.special import gammaln, logsumexp, xlogy

from ..counting.checks import InputError
from ..moments.kernels import CHUNK_ENTRIES

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Most bank count vectors enumerated (weak compositions of k into L levels).
MAX_COUNT_STATES = 20_000
#: Most (bank, bank) pairs in one exact covariance: G^2 for a grid of G banks.
MAX_COVARIANCE_PAIRS = 4_000_000


def grid_size(k: int, levels: int) -> int:
    """Number of weak compositions of k into ``levels`` parts, C(k + L - 1, L - 1)."""
    return math.comb(k + levels - 1, levels - 1)


def count_grid(k: int, levels: int) -> IntArray:
    """Every count vector of k attempts over ``levels`` reward levels, (G, L).

    Raises:
        ValueError: more than :data:`MAX_COUNT_STATES` vectors.
    """
    size = grid_size(k, levels)
    if size > MAX_COUNT_STATES:
        raise InputError(
            f"`k` is too large for an exact TailPass profile over {levels} reward levels: "
            f"it needs {size} bank count vectors, more than {MAX_COUNT_STATES}; got k={k}. "
            "Use a smaller k, fewer distinct rewards in `w`, or moment(lam) with lam 1, 2 or 4"
        )
    if levels == 1:
        return np.array([[k]], dtype=np.int64)
    if levels == 2:
        high = np.arange(k + 1, dtype=np.int64)
        return np.column_stack((k - high, high))
    # Stars and bars: L - 1 bar positions among k + L - 1 slots.
    bars = np.array(list(combinations(range(k + levels - 1), levels - 1)), dtype=np.int64)
    edges = np.column_stack((np.full(len(bars), -1), bars, np.full(len(bars), k + levels - 1)))
    return np.diff(edges, axis=1) - 1


def bank_scores(counts: IntArray, levels: FloatArray, k: int) -> FloatArray:
    """Average reward x . s / k of each bank, rounded once to float64 (extended precision first).

    Rounded once, a bank of j successes in k scores exactly j / k, the default threshold.
    """
    exact = counts.astype(np.longdouble) @ levels.astype(np.longdouble) / k
    return np.asarray(exact, dtype=np.float64)


def log_multinomial(counts: IntArray) -> FloatArray:
    """log(k! / prod_c x_c!) per count vector."""
    return gammaln(counts.sum(axis=1) + 1.0) - gammaln(counts + 1.0).sum(axis=1)


def _log_rising(alpha: FloatArray, top: int) -> FloatArray:
    """Log a^(n) for n = 0..top, one row per entry of ``alpha`` (shape (..., top + 1))."""
    steps = np.log(alpha[..., None] + np.arange(top, dtype=np.float64))
    out = np.zeros((*alpha.shape, top + 1))
    np.cumsum(steps, axis=-1, out=out[..., 1:])
    return out


def predictive_pmf(counts: IntArray, alpha: FloatArray) -> FloatArray:
    """Dirichlet-multinomial probabilities of every bank, one row per state, (S, G).

    Args:
        counts: (G, L) count grid of k attempts.
        alpha: (S, L) posterior concentrations.
    """
    k = int(counts[0].sum())
    alpha = np.atleast_2d(alpha)
    rising = _log_rising(alpha, k)  # (S, L, k + 1)
    out = np.empty((alpha.shape[0], len(counts)))
    step = max(1, CHUNK_ENTRIES // (4 * len(counts)))  # blocks that stay in cache
    for start in range(0, alpha.shape[0], step):
        block = out[start:start + step]
        block[:] = log_multinomial(counts)
        for level in range(counts.shape[1]):
            block += rising[start:start + step, level, counts[:, level]]
        # Every term is <= 0 after subtracting log A^(k); the sum is renormalised.
        block -= _log_rising(alpha[start:start + step].sum(axis=1), k)[:, -1:]
        np.exp(block, out=block)
        block /= block.sum(axis=1, keepdims=True)
    return out


def conditional_pmf(counts: IntArray, alpha: FloatArray) -> FloatArray:
    """P(Y = y | X = x) for two banks from the same latent p, (G, G), rows x, columns y.

    Y | x is Dirichlet-multinomial with alpha + x: log (alpha_c + x_c)^(y_c) is
    log alpha_c^(x_c + y_c) - log alpha_c^(x_c).
    """
    k = int(counts[0].sum())
    rising = _log_rising(alpha, 2 * k)  # (L, 2k + 1)
    logs = np.broadcast_to(log_multinomial(counts), (len(counts), len(counts))).copy()
    for level in range(counts.shape[1]):
        x = counts[:, level]
        logs += rising[level, x[:, None] + x[None, :]] - rising[level, x][:, None]
    return np.exp(logs - logsumexp(logs, axis=1, keepdims=True))


def payoff_covariance(counts: IntArray, alpha: FloatArray, values: FloatArray) -> FloatArray:
    """Posterior covariance of the payoff columns of ``values`` (G, P) for one state, (P, P).

    Raises:
        ValueError: the grid has more than sqrt(:data:`MAX_COVARIANCE_PAIRS`) banks.
    """
    check_pairs(len(counts))
    pmf = predictive_pmf(counts, alpha[None, :])[0]
    centered = values - pmf @ values
    covariance = (centered * pmf[:, None]).T @ (conditional_pmf(counts, alpha) @ centered)
    return (covariance + covariance.T) / 2.0


def check_pairs(size: int) -> None:
    """Refuse an exact covariance over more than :data:`MAX_COVARIANCE_PAIRS` bank pairs."""
    if size * size > MAX_COVARIANCE_PAIRS:
        raise InputError(
            f"the exact TailPass covariance needs {size}^2 pairs of banks, more than "
            f"{MAX_COVARIANCE_PAIRS}; use a smaller `k` or the posterior draws (sample())"
        )


def beta_quadrature(degree: int, alpha: float, beta: float) -> tuple[FloatArray, FloatArray]:
    """Gauss rule of degree + 1 nodes for p ~ Beta(alpha, beta) (Golub-Welsch).

    Exact for polynomials of degree <= 2 degree + 1.
    The Jacobi matrix of the Beta measure on [0, 1] has diagonal A_n + C_n and squared
    off-diagonal A_{n-1} C_n, with s = alpha + beta,
    A_n = (n + alpha)(n + s - 1) / ((2n + s)(2n + s - 1)),
    C_n = n (n + beta - 1) / ((2n + s - 1)(2n + s - 2))   (C_0 = 0),
    every factor a ratio of moderate numbers (no Beta function, no overflow). The weights
    are the squared first components of the eigenvectors.
    """
    from scipy.linalg import eigh_tridiagonal

    s = alpha + beta
    n = np.arange(degree + 1, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        a_n = (n + alpha) / (2.0 * n + s) * ((n + s - 1.0) / (2.0 * n + s - 1.0))
    a_n[0] = alpha / s  # the second factor is 1 at n = 0 (0/0 when s rounds to 1)
    c_n = np.zeros(degree + 1)
    m = n[1:]
    c_n[1:] = m / (2.0 * m + s - 1.0) * ((m + beta - 1.0) / (2.0 * m + s - 2.0))
    nodes, vectors = eigh_tridiagonal(a_n + c_n, np.sqrt(a_n[:-1] * c_n[1:]))
    weights = vectors[0] ** 2
    return np.clip(nodes, 0.0, 1.0), weights / weights.sum()


def binary_event_covariance(k: int, high: FloatArray, low: FloatArray, weight: FloatArray,
                            cut: IntArray) -> FloatArray:
    """sum_s weight_s Cov_s of f_t(p) = P(J >= cut_t | p), J ~ Binomial(k, p), (T, T).

    f_t is a polynomial of degree k in p, so a (k + 1)-node Gauss rule for each state's
    Beta(high, low) posterior gives Cov exactly as sum_i w_i h_s(x_i) h_t(x_i), h = f - E f.
    Each f_t is taken from whichever tail is smaller at the posterior mean (h = f - E f =
    (1 - E f) - (1 - f)), so a near-sure event keeps its tiny variance to full relative
    precision; the binomial tails at a node are sums of its pmf from the smaller side.
    """
    size = k + 1
    check_pairs(size)
    success = np.arange(size, dtype=np.float64)
    coefficients = log_multinomial(np.column_stack((k - success, success)).astype(np.int64))
    # Nodes of the smaller of p and 1 - p, where they keep their relative precision.
    reflect = high > low
    rules = [beta_quadrature(k, float(min(a, b)), float(max(a, b)))
             for a, b in zip(high, low, strict=True)]
    nodes = np.array([rule[0] for rule in rules])[:, :, None]  # (S, G, 1)
    node_weights = np.array([rule[1] for rule in rules])       # (S, G)
    with np.errstate(divide="ignore"):
        log_small, log_large = np.log(nodes), np.log1p(-nodes)
    flip = reflect[:, None, None]
    log_p = np.where(flip, log_large, log_small)
    log_q = np.where(flip, log_small, log_large)
    pmf = np.exp(coefficients + _times(success, log_p) + _times(k - success, log_q))
    # Both tails as sums of positive terms from their own end: each keeps its relative
    # precision, however small.
    running = np.zeros((*pmf.shape[:-1], size + 1))
    np.cumsum(pmf, axis=-1, out=running[..., 1:])
    lower = running[..., cut]                                    # P(J < cut_t), (S, G, T)
    np.cumsum(pmf[..., ::-1], axis=-1, out=running[..., 1:])
    upper = running[..., size - cut]                             # P(J >= cut_t)
    likely = np.einsum("sg,sgt->st", node_weights, upper) > 0.5
    tails = np.where(likely[:, None, :], -lower, upper)
    tails -= np.einsum("sg,sgt->st", node_weights, tails)[:, None, :]
    tails *= np.sqrt(node_weights * weight[:, None])[:, :, None]
    stacked = tails.reshape(-1, cut.size)
    covariance = np.einsum("gp,gq->pq", stacked, stacked)
    return (covariance + covariance.T) / 2.0


def _times(count: FloatArray, log_value: FloatArray) -> FloatArray:
    """Count * log_value with 0 * log 0 = 0 (the probability of no draw at p = 0 is 1)."""
    with np.errstate(invalid="ignore"):
        return np.where(count == 0.0, 0.0, count * log_value)


def upper_sums(pmf: FloatArray, cut: IntArray) -> FloatArray:
    """sum_{j >= cut_t} pmf[..., j] for each cut, from the smaller side of the split.

    Where the upper part is the larger, 1 - (lower part): a sure event comes out exactly 1
    and a likely one keeps its small complement's precision.
    """
    width = pmf.shape[-1]
    upper = np.zeros((*pmf.shape[:-1], width + 1))
    upper[..., :-1] = np.cumsum(pmf[..., ::-1], axis=-1)[..., ::-1]
    lower = np.zeros_like(upper)
    lower[..., 1:] = np.cumsum(pmf, axis=-1)
    upper, lower = upper[..., cut], lower[..., cut]
    return np.where(upper > 0.5, 1.0 - lower, upper)


def multinomial_pmf(counts: IntArray, probabilities: FloatArray) -> FloatArray:
    """Multinomial probabilities of every bank given latent probabilities, (D, G).

    Every log-probability is <= 0 and the largest is >= -log G, so the terms are
    exponentiated as they are and renormalised (the p rows sum to 1 up to rounding).
    """
    logs = np.empty((len(probabilities), len(counts)))
    logs[:] = log_multinomial(counts)
    for level in range(counts.shape[1]):
        logs += xlogy(counts[:, level], probabilities[:, level, None])
    pmf = np.exp(logs, out=logs)
    pmf /= pmf.sum(axis=1, keepdims=True)
    return pmf


def hypergeometric_pmf(counts: IntArray, population: IntArray) -> FloatArray:
    """Multivariate hypergeometric probabilities of every bank, one row per population.

    P(x) = prod_c C(n_c, x_c) / C(n, k); banks asking for more than n_c of a level get 0.

    Args:
        counts: (G, L) count grid of k draws.
        population: (S, L) level counts of each question (each with n >= k).

    Returns:
        (S, G) probabilities.
    """
    population = np.atleast_2d(population)
    out = np.empty((population.shape[0], len(counts)))
    step = max(1, CHUNK_ENTRIES // (4 * len(counts)))
    lgamma_x = gammaln(counts + 1.0)
    for start in range(0, population.shape[0], step):
        block = out[start:start + step]
        block[:] = 0.0
        for level in range(counts.shape[1]):
            n = population[start:start + step, level, None].astype(np.float64)
            rest = n - counts[None, :, level]
            with np.errstate(invalid="ignore"):
                block += gammaln(n + 1.0) - lgamma_x[:, level] - gammaln(np.maximum(rest, 0) + 1.0)
            block[rest < 0] = -np.inf
        block -= block.max(axis=1, keepdims=True)
        np.exp(block, out=block)
        block /= block.sum(axis=1, keepdims=True)
    return out


# ----------------------------------------------------------------------------- moments


def power_mean_terms(k: int, power: int) -> list[tuple[float, tuple[int, ...]]]:
    """E[(mean of k i.i.d. rewards)^power | p] as sum coefficient * prod_r m_r, power 1, 2, 4.

    m_r = sum_c p_c s_c^r is the r-th raw moment of one reward. Expanding
    (S / k)^power for S a sum of k i.i.d. rewards and grouping the attempts by
    which coincide gives, for power 4,
    E[S^4] = k m4 + 4k(k-1) m3 m1 + 3k(k-1) m2^2 + 6k(k-1)(k-2) m2 m1^2 + k(k-1)(k-2)(k-3) m1^4.
    """
    if power == 1:
        return [(1.0, (1,))]
    if power == 2:
        return [(1.0 / k, (2,)), ((k - 1) / k, (1, 1))]
    f1, f2, f3 = (k - 1) / k, (k - 2) / k, (k - 3) / k
    return [
        (1.0 / k**3, (4,)),
        (4.0 * f1 / k**2, (3, 1)),
        (3.0 * f1 / k**2, (2, 2)),
        (6.0 * f1 * f2 / k, (2, 1, 1)),
        (f1 * f2 * f3, (1, 1, 1, 1)),
    ]


def power_mean_polynomial(levels: FloatArray, k: int, power: int
                          ) -> tuple[IntArray, FloatArray]:
    """The same expectation as a polynomial in p: (exponents (T, L), coefficients (T,))."""
    polynomial: dict[tuple[int, ...], float] = {}
    zero = (0,) * len(levels)
    for coefficient, factors in power_mean_terms(k, power):
        terms = {zero: coefficient}
        for order in factors:
            expanded: dict[tuple[int, ...], float] = {}
            for exponents, value in terms.items():
                for level, reward in enumerate(levels):
                    if reward == 0.0:
                        continue
                    key = exponents[:level] + (exponents[level] + 1,) + exponents[level + 1:]
                    expanded[key] = expanded.get(key, 0.0) + value * reward**order
            terms = expanded
        for exponents, value in terms.items():
            polynomial[exponents] = polynomial.get(exponents, 0.0) + value
    if not polynomial:
        return np.zeros((1, len(levels)), dtype=np.int64), np.zeros(1)
    return (np.array(list(polynomial), dtype=np.int64),
            np.array(list(polynomial.values()), dtype=np.float64))


def dirichlet_monomials(exponents: IntArray, alpha: FloatArray) -> FloatArray:
    """E[prod_c p_c^{a_c}] = prod_c alpha_c^(a_c) / A^(|a|) per state, as products of ratios.

    Args:
        exponents: (..., L) exponent vectors a.
        alpha: (S, L) concentrations.

    Returns:
        (S, ...) expectations.
    """
    shape = exponents.shape[:-1]
    flat = exponents.reshape(-1, exponents.shape[-1])
    out = np.ones((alpha.shape[0], flat.shape[0]))
    used = np.zeros(flat.shape[0])
    total = alpha.sum(axis=1)[:, None]
    for level in range(alpha.shape[1]):
        for step in range(int(flat[:, level].max(initial=0))):
            active = flat[:, level] > step
            out[:, active] *= (alpha[:, level, None] + step) / (total + used[active])
            used[active] += 1.0
    return out.reshape((alpha.shape[0], *shape))


def polynomial_moments(exponents: IntArray, coefficients: FloatArray, alpha: FloatArray
                       ) -> tuple[FloatArray, FloatArray]:
    """Posterior mean and variance of a polynomial in p under Dirichlet(alpha), per state."""
    first = dirichlet_monomials(exponents, alpha)  # (S, T)
    second = dirichlet_monomials(exponents[:, None, :] + exponents[None, :, :], alpha)
    mean = first @ coefficients
    spread = second - first[:, :, None] * first[:, None, :]
    variance = np.einsum("t,stu,u->s", coefficients, spread, coefficients)
    return mean, np.maximum(variance, 0.0)


def raw_power_mean(probabilities: FloatArray, levels: FloatArray, k: int, power: int
                   ) -> FloatArray:
    """E[(mean of k rewards)^power | p] for latent probability rows p (D, L), power 1, 2, 4."""
    raw = {order: probabilities @ levels**order for order in range(1, power + 1)}
    out = np.zeros(len(probabilities))
    for coefficient, factors in power_mean_terms(k, power):
        term = np.full(len(probabilities), coefficient)
        for order in factors:
            term = term * raw[order]
        out += term
    return out
