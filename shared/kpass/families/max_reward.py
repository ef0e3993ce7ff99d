"""Max@k: expected best reward among k sampled traces, with a Dirichlet posterior summary.

References:
    Bagirov, F., et al. (2025). The Best of N Worlds: Aligning Reinforcement Learning
    with Best-of-N Sampling via max@k Optimization. arXiv:2510.23393 (App. C.1).
    Walder, C., & Karkhanis, D. (2025). Pass@K Policy Optimization: Solving Harder
    Reinforcement Learning Problems. arXiv:2505.15201.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._core.counting.checks import (
    InputError,
    check_bounds,
    check_confidence,
    check_flag,
    check_short,
    normalize_ks,
)
from .._core.counting.counts import BinaryCounts, CategoricalCounts
from .._core.counting.states import states_for
from .._core.dirichlet.rewards import distinct_rows, prepare
from .._core.moments.credits import power_variance
from .._core.moments.driver import credible, finish
from .._core.moments.kernels import (
    log_beta_power_moments,
    log_draw_all_from,
    log_power_variance_ratio,
)
from .bayes import bayes_ci
from .ci_doc import ci_doc

FloatArray = npt.NDArray[np.float64]

#: Most distinct reward levels max_at_k_ci accepts: its variance is O(levels^2) per question.
MAX_LEVELS = 1024


def _levels(counts: CategoricalCounts, weights: FloatArray, prior: bool
            ) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """Counts grouped by distinct reward level (ascending), and the levels."""
    levels = np.unique(weights)
    order = np.argsort(weights, kind="stable")
    starts = np.searchsorted(weights[order], levels)
    matrix = counts.counts + (counts.prior_counts + 1 if prior else 0)
    # Columns sorted by reward, then summed per run of equal rewards: O(M C), no C x L table.
    return np.add.reduceat(matrix[:, order], starts, axis=1), levels


def max_at_k(R: Any, k: Any, w: Any = None, *, short: str = "error",
             per_question: bool = False) -> Any:
    r"""Max@k: the expected best reward of k samples drawn without replacement.

    Formula:
        with sorted rewards g_(1) <= ... <= g_(N) of a question,
        Max@k = (1/C(N, k)) sum_{i=k}^{N} C(i-1, k-1) g_(i); computed as
        r_1 + sum_l (r_{l+1} - r_l) P(some draw exceeds r_l) over the distinct reward
        levels r_l, each probability a hypergeometric Pass@k. w = (0, 1) gives Pass@k.

    Args:
        R: (M, N) categories {0..C}, ragged lists, or CategoricalCounts.
        k: 1 <= k <= n, or a sequence of k.
        w: reward of each category; None means binary R and w = (0, 1).
        short: ``"error"`` or ``"skip"`` for questions with fewer than k samples.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad categories, w or k.

    References:
        Bagirov et al. (2025), arXiv:2510.23393.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(max_at_k(R, 2), 6)
        0.95
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> round(max_at_k(R, 2, w=np.array([0.0, 0.5, 1.0])), 6)
        0.85
    """
    counts, weights = prepare(R, w)
    ks, many = normalize_ks(k)
    short = check_short(short)
    per_question = check_flag(per_question, "per_question")
    grouped, levels = _levels(counts, weights, prior=False)
    n = grouped.sum(axis=1)
    results: list[Any] = []  # per-question arrays or dataset means
    for budget in ks:
        states = states_for(BinaryCounts(n, np.zeros_like(n)), budget, short)
        kept = states.kept if states.kept is not None else np.ones(n.size, dtype=bool)
        anchor = _anchor(levels)
        values = np.full(int(kept.sum()), levels[anchor])
        if levels.size > 1:
            at_most = np.cumsum(grouped[kept], axis=1)[:, :-1]
            pairs, _, inverse = distinct_rows(
                np.stack([np.repeat(n[kept], levels.size - 1), at_most.ravel()], axis=1))
            # log P(every draw has reward <= r_l) = log(C(m_l, k) / C(n, k))
            log_all = log_draw_all_from(pairs[:, 0], pairs[:, 1], budget)[inverse].reshape(
                at_most.shape)
            gaps = np.diff(levels)
            values = (values + (-np.expm1(log_all[:, anchor:])) @ gaps[anchor:]
                      - np.exp(log_all[:, :anchor]) @ gaps[:anchor])
        if per_question:
            out = np.full(n.size, np.nan)
            out[kept] = values
            results.append(out)
        else:
            results.append(float(values.mean()))
    return finish(results, many)


def _anchor(levels: FloatArray) -> int:
    """The reward level nearest 0, from which Max@k is written as up minus down moves.

    max = r_a + sum_{l>=a} gap_l [max > r_l] - sum_{l<a} gap_l [max <= r_l]: both sums are
    non-negative, so rewards far below 0 (-1e300) do not swamp small positive ones
    (1e155) as they do in r_1 + sum_l gap_l [max > r_l].
    """
    return int(np.argmin(np.abs(levels)))


def _posterior_rows(gamma: npt.NDArray[np.int64], gaps: FloatArray, k: int, anchor: int
                    ) -> tuple[FloatArray, FloatArray]:
    """Posterior mean move from level ``anchor`` and the variance of the Max@k target.

    The target is r_a + sum_{l>=a} gap_l (1 - A_l^k) - sum_{l<a} gap_l A_l^k, A_l ~ Beta
    (see :func:`_anchor`).
    """
    total = gamma.sum(axis=1).astype(np.float64)
    cumulative = np.cumsum(gamma, axis=1)[:, :-1].astype(np.float64)
    levels = cumulative.shape[1]
    log_ak = np.empty_like(cumulative)
    for level in range(levels):
        a = cumulative[:, level]
        log_ak[:, level] = log_beta_power_moments(a, total - a, k)
    mean = ((-np.expm1(log_ak[:, anchor:])) @ gaps[anchor:]
            - np.exp(log_ak[:, :anchor]) @ gaps[:anchor])
    log_a2k = np.stack([log_beta_power_moments(cumulative[:, level], total - cumulative[:, level],
                                               2 * k) for level in range(levels)], axis=1)
    variance = np.zeros(total.size)
    for i in range(levels):
        a = cumulative[:, i]
        var_i = power_variance(log_ak[:, i], log_power_variance_ratio(a, total - a, k))
        variance += gaps[i] * gaps[i] * var_i
        if i + 1 == levels:
            continue
        # E[A_i^k A_j^k] = E[A_j^{2k}] E[(A_i / A_j)^k], A_i / A_j ~ Beta(a_i, a_j - a_i),
        # for every j > i at once.
        outer = cumulative[:, i + 1 :]
        inner = log_beta_power_moments(np.repeat(a, outer.shape[1]),
                                       (outer - a[:, None]).ravel(), k).reshape(outer.shape)
        log_cross = log_a2k[:, i + 1 :] + inner
        covariance = np.exp(log_cross) * -np.expm1(log_ak[:, i, None] + log_ak[:, i + 1 :]
                                                    - log_cross)
        variance += 2.0 * gaps[i] * (covariance @ gaps[i + 1 :])
    return mean, np.maximum(variance, 0.0)


@ci_doc
def max_at_k_ci(R: Any, k: Any, w: Any = None, R0: Any = None, confidence: float = 0.95,
                bounds: tuple[float, float] | None = None) -> Any:
    r"""Posterior summary of Max@k under the Dirichlet(+1) posterior of Bayes@N; k may exceed n.

    Formula:
        gamma_ql = posterior pseudo-counts of reward level l (counts + prior outcomes +
        one per category), A_ql = P(reward <= r_l) ~ Beta(sum_{m<=l} gamma_qm, T_q - ...);
        g_q = r_L - sum_l (r_{l+1} - r_l) A_ql^k, with closed-form E and Var (nested Beta
        moments for the covariances). k = 1 is :func:`bayes_ci`. Without ``bounds`` the
        interval (k > 1) is clipped to [min w, max w].

    Args:
        R: categorical outcomes.
        k: latent k >= 1, or a sequence of k.
        w: reward vector; None means binary R and w = (0, 1).
        R0: optional prior outcomes.
        confidence: %(confidence)s
        bounds: %(bounds)s

    Returns:
        %(returns)s

    Note:
        %(dirichlet)s
        %(latent)s

    Raises:
        ValueError: bad categories, w, R0, k, confidence or bounds.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mean, sd, cred_lo, cred_hi = max_at_k_ci(R, 2)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.839286, 0.097263, 0.6487, 1.0)
        >>> R = np.array([[0, 1, 2, 2, 1],
        ...               [1, 1, 0, 2, 2]])
        >>> mean, sd, cred_lo, cred_hi = max_at_k_ci(R, 2, w=np.array([0.0, 0.5, 1.0]))
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.75, 0.08812, 0.5773, 0.9227)
    """
    ks, many = normalize_ks(k)
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    counts, weights = prepare(R, w, R0)
    gamma, levels = _levels(counts, weights, prior=True)
    if levels.size > MAX_LEVELS:
        raise InputError(
            f"`w` must hold at most {MAX_LEVELS} distinct rewards for max_at_k_ci (its variance "
            f"sums over pairs of reward levels); got {levels.size}"
        )
    rows, multiplicity, _ = distinct_rows(gamma)
    m = float(gamma.shape[0])
    clip = bounds if bounds is not None else (float(weights.min()), float(weights.max()))
    results = []
    for budget in ks:
        if budget == 1:
            results.append(bayes_ci(counts, weights, None, confidence, bounds))
            continue
        if levels.size == 1:
            mu, sigma = float(levels[0]), 0.0
        else:
            # On gaps / s (s = the reward range), so squared gaps stay finite; scaled back.
            gaps = np.diff(levels)
            scale = float(gaps.sum())
            anchor = _anchor(levels)
            increment, variance = _posterior_rows(rows, gaps / scale, budget, anchor)
            mu = float(levels[anchor] + scale * (np.dot(multiplicity, increment) / m))
            sigma = scale * (math.sqrt(float(np.dot(multiplicity, variance))) / m)
        results.append(credible(mu, sigma, confidence, clip))
    return finish(results, many)


__all__ = ["max_at_k", "max_at_k_ci"]
