"""The one loop every binary metric runs: validate once, then for each k, states -> value.

Family modules describe a metric by the credit vector it gives at each k; this
module owns counting, the short-question policy, several k in one call,
per-question vectors and the credible interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from scipy.special import ndtri

from ._credits import Credit, posterior_moments, posterior_parameters, state_values
from ._inputs import (
    BinaryCounts,
    binary_counts,
    check_bounds,
    check_confidence,
    check_flag,
    check_prior,
    check_short,
    normalize_ks,
)
from ._states import BinaryStates, states_for

CreditFactory = Callable[[int], Credit]


def normal_interval(mu: float, sigma: float, confidence: float,
                    bounds: tuple[float, float] | None) -> tuple[float, float]:
    """Central normal-approximation credible interval mu -/+ z sigma, clipped into bounds.

    z = Phi^{-1}((1 + confidence) / 2). Both ends are clipped into ``bounds`` (so the
    interval never inverts, even when mu lies outside them).
    """
    z = float(ndtri(0.5 + 0.5 * confidence))
    lo, hi = mu - z * sigma, mu + z * sigma
    if bounds is not None:
        b_lo, b_hi = bounds
        lo = min(max(lo, b_lo), b_hi)
        hi = min(max(hi, b_lo), b_hi)
    return float(lo), float(hi)


def finish(values: list[Any], many: bool) -> Any:
    """A list for several k, the single result otherwise."""
    return values if many else values[0]


def point(R: Any, k: Any, credit_for: CreditFactory, *, short: str = "error",
          per_question: bool = False, check_k: Callable[[int], None] | None = None) -> Any:
    """Finite-sample estimator of a binary metric for one or several k.

    Args:
        R: outcomes (array, ragged lists or BinaryCounts).
        k: an int or a sequence of ints.
        credit_for: the credit vector at each k.
        short: policy for questions with fewer than k samples.
        per_question: return per-question vectors instead of the average.
        check_k: extra validation of each k (raise ValueError).

    Returns:
        float, or numpy array with per_question; a list of them for several k.
    """
    counts = binary_counts(R)
    ks, many = normalize_ks(k)
    short = check_short(short)
    per_question = check_flag(per_question, "per_question")
    results = []
    for budget in ks:
        if check_k is not None:
            check_k(budget)
        states = states_for(counts, budget, short)
        values = state_values(states, credit_for(budget))
        results.append(states.per_question(values) if per_question else states.mean(values))
    return finish(results, many)


def prepare_posterior(R: Any, confidence: Any, bounds: Any, alpha0: Any, beta0: Any
                      ) -> tuple[BinaryCounts, float, tuple[float, float] | None, float, float]:
    """Validate the arguments every binary ``_ci`` function shares."""
    counts = binary_counts(R)
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    alpha0, beta0 = check_prior(alpha0, beta0)
    return counts, confidence, bounds, alpha0, beta0


def posterior(R: Any, k: Any, credit_for: CreditFactory, *, confidence: Any, bounds: Any,
              alpha0: Any, beta0: Any, short: str = "error", latent: bool = False,
              check_k: Callable[[int], None] | None = None) -> Any:
    """Posterior mean, sd and credible interval of a binary metric for one or several k.

    mu = (1/M) sum_q E[g(p_q)], sigma = (1/M) sqrt(sum_q Var[g(p_q)]), with
    p_q ~ Beta(alpha0 + c_q, beta0 + n_q - c_q).

    Args:
        R: outcomes.
        k: an int or a sequence of ints.
        credit_for: the credit vector at each k.
        confidence: credibility of the interval.
        bounds: clipping bounds or None.
        alpha0: Beta prior.
        beta0: Beta prior.
        short: policy for questions with fewer than k samples.
        latent: k may exceed the sample counts (the target is defined for any k).
        check_k: extra validation of each k.

    Returns:
        (mu, sigma, lo, hi), or a list of them for several k.
    """
    counts, confidence, bounds, alpha0, beta0 = prepare_posterior(R, confidence, bounds,
                                                                   alpha0, beta0)
    ks, many = normalize_ks(k)
    short = check_short(short)
    results = []
    for budget in ks:
        if check_k is not None:
            check_k(budget)
        states = states_for(counts, None if latent else budget, short)
        alpha, beta = posterior_parameters(states, alpha0, beta0)
        moments = posterior_moments(alpha, beta, credit_for(budget))
        mu = states.mean(moments.mean)
        sigma = math.sqrt(states.sum_of_variances(moments.variance))
        results.append((mu, sigma, *normal_interval(mu, sigma, confidence, bounds)))
    return finish(results, many)


def all_states(R: Any) -> tuple[BinaryCounts, BinaryStates]:
    """Counts and states with no k requirement."""
    counts = binary_counts(R)
    return counts, states_for(counts, None, "error")
