"""The Dirichlet posterior machinery of :func:`kpass.families.vote.vote_at_k_ci`.

Posterior means by negative-binomial and Poisson tables, posterior draws of the vote,
exact and control-variate variances (see :mod:`kpass.families.vote`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .kernel import (
    _Clusters,
    _floats,
    _ints,
    _vote_sums,
)
from .pairs import second_moment
from .poisson import control_means, control_products, control_values

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Interval = tuple[float, float, float, float]

#: Vote of one posterior sample: answers and reference counts whose weight is below this
#: fraction of the normaliser are left out (see :func:`_draw_votes`).
_DRAW_TOLERANCE = 1e-12


# ----------------------------------------------------------------------------- posterior


def _negative_binomial_table(alpha: FloatArray, top: int, q: FloatArray) -> FloatArray:
    """NB(y; alpha, q) = Gamma(alpha + y) / (Gamma(alpha) y!) q^y (1 - q)^alpha, y <= top.

    Entries with alpha = 0 (padding) are the point mass at y = 0.
    """
    from scipy.stats import nbinom

    y = np.arange(top + 1)
    success = 1.0 - q.reshape(q.shape + (1,) * (alpha.ndim - q.ndim + 1))
    safe = np.where(alpha > 0, alpha, 1.0)[..., None]
    table = nbinom.pmf(y, safe, success)
    return np.where((alpha > 0)[..., None], table, (y == 0).astype(float))


def _posterior_mean(states: _Clusters, k: int, ties: str, concentration: float) -> FloatArray:
    """Exact E[g(pi)] under Dir(counts + concentration): the vote of k Polya-urn draws, (S,)."""
    return _posterior_means(states, [k], ties, concentration)[:, 0]


def _k_groups(ks: list[int]) -> list[list[int]]:
    """The distinct k, largest first, in groups within a factor 2 of their largest."""
    groups: list[list[int]] = []
    for k in sorted(set(ks), reverse=True):
        if groups and 2 * k >= groups[-1][0]:
            groups[-1].append(k)
        else:
            groups.append([k])
    return [sorted(group) for group in groups]


def _posterior_means(states: _Clusters, ks: list[int], ties: str, concentration: float
                     ) -> FloatArray:
    """Exact E[g_k(pi)] for every k in ``ks``, (S, len(ks)).

    The draws of each answer are NegativeBinomial(alpha_i, q) conditioned on their
    total; any q gives the same Polya urn, so k within a factor 2 share one DP with
    q = m / (A + m), m their largest (the smaller k read lower coefficients), each
    divided by the probability of its own total.
    """
    alpha_ref = _floats(states.ref + concentration)
    alpha_other = np.where(states.sizes > 0, states.sizes + concentration, 0.0)
    alpha_pool = _floats(states.none + concentration)
    total = alpha_ref + alpha_other.sum(axis=1) + alpha_pool
    width = (states.sizes > 0).sum(axis=1)
    out = np.empty((states.n.size, len(ks)))
    for group in _k_groups(ks):
        top = group[-1]
        q = top / (total + top)
        ref_table = _negative_binomial_table(alpha_ref, top, q)
        other_table = _negative_binomial_table(alpha_other, top, q)
        pool_table = _negative_binomial_table(alpha_pool, top, q)

        def active(x: int) -> IntArray:
            return width

        def column(rows: IntArray, j: int, o: FloatArray = other_table) -> FloatArray:
            return o[rows, j]

        def free(rows: IntArray, d: IntArray, p: FloatArray = pool_table) -> FloatArray:
            return p[rows]

        sums = _vote_sums(ref_table, active, column, free, group, ties)
        norms = _negative_binomial_table(total, top, q)[:, group]
        for index, k in enumerate(ks):
            if k in group:
                out[:, index] = sums[:, group.index(k)] / norms[:, group.index(k)]
    # A probability: rounding can leave it a few ulps outside [0, 1] (as in _subset_vote).
    return np.clip(out, 0.0, 1.0, out=out)


def _poisson_table(mean: FloatArray, top: int) -> FloatArray:
    """Poisson(mean) pmf at 0..top per row, by the ratio recurrence p(y) = p(y-1) mean / y.

    Every partial product is a pmf value (no overflow); scipy takes over where e^-mean
    would underflow. The vote of each posterior sample needs this table for every
    reference count x, and the recurrence is several times cheaper than scipy's
    log-gamma evaluation.
    """
    if mean.size and float(mean.max()) > 700.0:
        from scipy.stats import poisson

        return poisson.pmf(np.arange(top + 1), mean[:, None])
    steps = np.empty((mean.size, top + 1))
    steps[:, 0] = np.exp(-mean)
    steps[:, 1:] = mean[:, None] / np.arange(1, top + 1)
    return _floats(np.cumprod(steps, axis=1))


def _draw_votes(pi_ref: FloatArray, pi_other: FloatArray, pi_pool: FloatArray, ks: list[int],
                ties: str) -> FloatArray:
    """g_k(pi): the vote of k i.i.d. draws from pi, per row of probabilities and k, (R, K).

    Multinomial weights are Poisson(m pi_i) pmfs conditioned on k draws in total; k
    values within a factor 2 share one DP with m their largest (the products of the
    smaller k are its lower coefficients), normalised by Poisson(m) at each k.
    To keep posterior sampling fast, an answer whose chance of reaching x draws is
    below 1e-12 times the normaliser is not constrained at x (it joins the
    never-winning pool, whose Poisson mean it adds to), and reference counts x of
    weight below 1e-12 times the normaliser are skipped: each answer or x changes g
    by at most ~1e-11 (measured against a 1e-16 cut on 784 posterior samples at
    k = 64: 5e-14 at most, in half the time with fractional ties).
    """
    from scipy.stats import poisson

    order = np.argsort(-pi_other, axis=1, kind="stable")
    pi_other = np.take_along_axis(pi_other, order, axis=1)
    # beyond[r, d] = pool + sum of the columns from d on
    beyond = pi_pool[:, None] + np.concatenate(
        [np.cumsum(pi_other[:, ::-1], axis=1)[:, ::-1], np.zeros((pi_ref.size, 1))], axis=1)
    out = np.empty((pi_ref.size, len(ks)))
    for group in _k_groups(ks):
        top = group[-1]
        norms = poisson.pmf(group, top)
        cut = _DRAW_TOLERANCE * float(norms.min()) / float(norms[-1])
        ref_table = _poisson_table(top * pi_ref, top)
        other_table = _poisson_table((top * pi_other).ravel(), top).reshape(
            pi_other.shape + (top + 1,))
        # tails[r, j, x] = P(Poisson(m pi_j) >= x); leading columns reach x most easily.
        tails = np.cumsum(other_table[..., ::-1], axis=-1)[..., ::-1] + poisson.sf(
            top, top * pi_other)[..., None]

        def active(x: int, t: FloatArray = tails, c: float = cut) -> IntArray:
            return _ints((t[:, :, x] > c).sum(axis=1))

        def column(rows: IntArray, j: int, o: FloatArray = other_table) -> FloatArray:
            return o[rows, j]

        def free(rows: IntArray, d: IntArray, m: int = top) -> FloatArray:
            return _poisson_table(m * beyond[rows, d], m)

        sums = _vote_sums(ref_table, active, column, free, group, ties,
                          floor=_DRAW_TOLERANCE * float(norms.min())) / norms
        for index, k in enumerate(ks):
            if k in group:
                out[:, index] = sums[:, group.index(k)]
    return out


def _single_draw_variance(states: _Clusters, concentration: float) -> FloatArray:
    """Exact Var[g_1(pi)]: one draw votes for itself, so g_1(pi) = pi_ref ~ Beta(a, A - a).

    Var = a (A - a) / (A^2 (A + 1)), a = ref + concentration, A = the sum of all concentrations.
    """
    a = states.ref + concentration
    total = a + np.where(states.sizes > 0, states.sizes + concentration, 0.0).sum(axis=1) + (
        states.none + concentration)
    return a * (total - a) / (total * total * (total + 1.0))


def _cross_moment(states: _Clusters, k: int, other_k: int, ties: str,
                  concentration: float) -> FloatArray:
    """Exact E[g_k(pi) g_l(pi)], l = ``other_k`` (see :mod:`kpass._core.vote.pairs`)."""
    from scipy.stats import binom

    alpha_ref = _floats(states.ref + concentration)
    alpha_other = np.where(states.sizes > 0, states.sizes + concentration, 0.0)
    alpha_pool = _floats(states.none + concentration)
    total = alpha_ref + alpha_other.sum(axis=1) + alpha_pool
    size = k + other_k
    q = size / (total + size)
    norm = _negative_binomial_table(total, size, q)[:, size] * binom.pmf(k, size, 0.5)
    return second_moment(
        _negative_binomial_table(alpha_ref, size, q),
        _negative_binomial_table(alpha_other, size, q),
        _negative_binomial_table(alpha_pool, size, q),
        (states.sizes > 0).sum(axis=1), norm, k, ties, other_k)


def _exact_variance(states: _Clusters, k: int, ties: str, concentration: float,
                    means: FloatArray) -> FloatArray:
    """Exact Var[g_k(pi)] = E[g_k(pi)^2] - E[g_k(pi)]^2."""
    return np.maximum(_cross_moment(states, k, k, ties, concentration) - means * means, 0.0)


def _control_rate(k: int) -> int:
    """Draws per vote of the Poissonised controls for k: the nearest power of two (log scale).

    Several k of one call share a few rates (and their exact moments); at k = 64 the rate
    is k itself.
    """
    return 1 << max(0, round(math.log2(k)))


def _control_moments(states: _Clusters, rate: int, concentration: float
                     ) -> tuple[FloatArray, FloatArray]:
    """Exact means (S, 3) and covariances (S, 3, 3) of the controls (G_ref, c_strict, c_weak).

    The controls are functions of the Gamma variates G (pi = G / sum G) with the
    Poisson rate tau = rate / A per unit of G, A the total concentration
    (:mod:`kpass._core.vote.poisson`): E[G_ref] = Var[G_ref] = a, and
    E[G_ref c] = a E[c | a + 1] (size bias of a Gamma variate).
    """
    alpha_ref = _floats(states.ref + concentration)
    alpha_other = np.where(states.sizes > 0, states.sizes + concentration, 0.0)
    total = alpha_ref + alpha_other.sum(axis=1) + states.none + concentration
    tau = rate / total
    means = control_means(alpha_ref, alpha_other, tau)
    biased = control_means(alpha_ref + 1.0, alpha_other, tau)
    products = control_products(alpha_ref, alpha_other, tau)
    covariance = np.empty((alpha_ref.size, 3, 3))
    covariance[:, 0, 0] = alpha_ref
    covariance[:, 0, 1:] = covariance[:, 1:, 0] = alpha_ref[:, None] * (biased - means)
    covariance[:, 1:, 1:] = products - means[:, :, None] * means[:, None, :]
    return np.concatenate([alpha_ref[:, None], means], axis=1), covariance


@dataclass(frozen=True)
class _Samples:
    """Seeded posterior samples of a set of states: votes, controls and their moments.

    Attributes:
        votes: k -> (S, draws) g_k on each sample, for the sampled k.
        controls: rate -> (S, draws, 3) the controls (G_ref, c_strict, c_weak) on each
            sample minus their exact means, scaled by their exact sd.
        covariance: rate -> (S, 3, 3) their exact correlation matrix (same scaling).
    """

    votes: dict[int, FloatArray]
    controls: dict[int, FloatArray]
    covariance: dict[int, FloatArray]


def _samples(states: _Clusters, ks: list[int], ties: str, concentration: float, draws: int,
             seed: int) -> _Samples:
    """Seeded Dirichlet samples per state with g_k on them for every k in ``ks``.

    Also the controls of :func:`_posterior_variance` on the same samples, all in one
    pass (:func:`_draw_votes` shares a DP among k within a factor 2; k of the same
    :func:`_control_rate` share the controls).
    """
    rng = np.random.default_rng(seed)
    width = states.sizes.shape[1]
    alpha = np.concatenate([
        (states.ref + concentration)[:, None],
        np.where(states.sizes > 0, states.sizes + concentration, 0.0),
        (states.none + concentration)[:, None],
    ], axis=1)
    # Gamma variates normalised per row are Dirichlet samples; padding columns stay 0.
    shape = np.repeat(alpha, draws, axis=0)
    gammas = np.where(shape > 0, rng.standard_gamma(np.where(shape > 0, shape, 1.0)), 0.0)
    pi = gammas / gammas.sum(axis=1, keepdims=True)
    wanted = sorted(set(ks))
    values = _draw_votes(pi[:, 0], pi[:, 1 : 1 + width], pi[:, -1], wanted, ties)
    votes = {k: values[:, i].reshape(-1, draws) for i, k in enumerate(wanted)}
    controls, correlations = {}, {}
    for rate in sorted({_control_rate(k) for k in wanted}):
        means, covariance = _control_moments(states, rate, concentration)
        tau = np.repeat(rate / alpha.sum(axis=1), draws)
        columns = np.concatenate([
            gammas[:, :1],
            control_values(tau * gammas[:, 0], tau[:, None] * gammas[:, 1 : 1 + width]),
        ], axis=1).reshape(-1, draws, 3) - means[:, None, :]
        # Scaled by the exact sd (1 where a control is constant): the least squares of
        # :func:`_posterior_variance` then see numbers of one size at any concentration.
        sd = np.sqrt(np.maximum(np.diagonal(covariance, axis1=1, axis2=2), 0.0))
        sd = np.where(sd > 0, sd, 1.0)
        controls[rate] = columns / sd[:, None, :]
        correlations[rate] = covariance / (sd[:, :, None] * sd[:, None, :])
    return _Samples(votes, controls, correlations)


def _posterior_variance(states: _Clusters, k: int, ties: str, concentration: float,
                        means: FloatArray, draws: int, seed: int,
                        samples: _Samples | None = None) -> FloatArray:
    """Var[g_k(pi)] per state from ``draws`` seeded Dirichlet samples, with control variates.

    Each sample pi_i = G_i / sum(G_i) gives y_i = g_k(pi_i) - E[g_k] (exact g_k, exact
    mean) and the controls h_i = (G_ref, c_strict(G_i), c_weak(G_i)), the Poissonised
    votes of :mod:`kpass._core.vote.poisson` at the rate :func:`_control_rate` (k),
    minus their exact means; their covariance Sigma is exact too. With b the
    least-squares fit of y on h over the D samples of a state,
    Var = b' Sigma b + sum((y - h b)^2) / (D - 3): only the part of g_k that the
    controls leave unexplained (about 0.4% of its variance at k = 64 on typical data)
    is left to sampling, with the residual's degrees of freedom.
    ``samples``: the result of :func:`_samples` for the same states, draws and seed,
    with k among its votes (shared by every sampled k of one call).
    """
    samples = samples or _samples(states, [k], ties, concentration, draws, seed)
    rate = _control_rate(k)
    controls, covariance = samples.controls[rate], samples.covariance[rate]
    deviations = samples.votes[k] - means[:, None]
    # Least squares per state; pinv keeps a degenerate state (a constant control) finite.
    gram = np.einsum("sdi,sdj->sij", controls, controls)
    slope = np.einsum("sij,sj->si", np.linalg.pinv(gram),
                      np.einsum("sdi,sd->si", controls, deviations))
    residual = deviations - np.einsum("sdi,si->sd", controls, slope)
    explained = np.einsum("si,sij,sj->s", slope, covariance, slope)
    freedom = max(draws - controls.shape[2], 1)
    return explained + np.sum(residual**2, axis=1) / freedom

