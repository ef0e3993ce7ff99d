"""The one loop every binary metric runs: validate once, then for each k, states -> value.

Family modules describe a metric by the credit vector it gives at each k; this
module owns counting, the short-question policy, several k in one call,
per-question vectors and the credible interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from scipy.special import ndtri

from ..counting.checks import check_bounds, check_confidence, check_flag, check_short, normalize_ks
from ..counting.counts import BinaryCounts
from ..counting.inputs import binary_counts
from ..counting.states import BinaryStates, states_for
from .credits import Credit, posterior_moments, posterior_parameters, state_values
from .prior import resolve_prior

CreditFactory = Callable[[int], Credit]


class Posterior(NamedTuple):
    """What every ``*_ci`` returns: posterior mean, sd and the credible interval.

    A tuple: it unpacks as ``mean, sd, cred_lo, cred_hi = pass_at_k_ci(R, 2)`` and compares
    equal to the 4-tuple the reference library (scorio) returns; the fields name it.

    Its fields, in order: ``mean``, the posterior mean of the metric; ``sd``, its posterior
    standard deviation; ``cred_lo`` and ``cred_hi``, the ends of the central credible
    interval (mean -/+ z sd, clipped). (Not an ``Attributes:`` section: the docs site lists
    a NamedTuple's fields itself, and would list them twice.)
    """

    mean: float
    sd: float
    cred_lo: float
    cred_hi: float


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


def credible(mu: float, sigma: float, confidence: float,
             bounds: tuple[float, float] | None) -> Posterior:
    """:class:`Posterior` (mean, sd, cred_lo, cred_hi) from a posterior mean and sd."""
    return Posterior(float(mu), float(sigma), *normal_interval(float(mu), float(sigma),
                                                                  confidence, bounds))


def summary(mu: float, variance: float, confidence: float,
            bounds: tuple[float, float] | None) -> Posterior:
    """:class:`Posterior` (mean, sd, cred_lo, cred_hi) from a posterior mean and variance."""
    return credible(mu, math.sqrt(max(variance, 0.0)), confidence, bounds)


def finish(values: list[Any], many: bool) -> Any:
    """A list for several k, the single result otherwise; every public result passes here.

    Zeros are made positive on the way out (``x + 0.0`` turns -0.0 into 0.0 and leaves
    every other number, NaN included, unchanged), so no public function returns -0.0
    whatever sign an intermediate ``-expm1(...)`` left on it.
    """
    cleaned = [_positive_zeros(value) for value in values]
    return cleaned if many else cleaned[0]


def _positive_zeros(value: Any) -> Any:
    if isinstance(value, Posterior):
        return Posterior(*(_positive_zeros(item) for item in value))
    if isinstance(value, tuple):
        return tuple(_positive_zeros(item) for item in value)
    if isinstance(value, np.ndarray):
        return value + 0.0
    if isinstance(value, float):
        return value + 0.0
    return value


def over_k(R: Any, k: Any, short: str,
           evaluate: Callable[[BinaryStates, int, int], Any]) -> Any:
    """Validate once, then ``evaluate(states, k, index)`` for each requested k.

    The states are those of the questions with at least k samples (``short``
    decides whether fewer is an error); ``index`` is the position of k in the
    request, for arguments given per k.

    Returns:
        The single result, or a list of them for several k.
    """
    counts = binary_counts(R)
    ks, many = normalize_ks(k)
    short = check_short(short)
    return finish([evaluate(states_for(counts, budget, short), budget, index)
                   for index, budget in enumerate(ks)], many)


def point_values(R: Any, k: Any, values_for: Callable[[BinaryStates, int, int], Any], *,
                 short: str = "error", per_question: bool = False) -> Any:
    """A per-question quantity averaged over questions (or returned per question), per k.

    Args:
        R: outcomes (array, ragged lists or BinaryCounts).
        k: an int or a sequence of ints.
        values_for: per-state values of the quantity, given (states, k, index of k).
        short: policy for questions with fewer than k samples.
        per_question: return per-question vectors instead of the average.

    Returns:
        float, or numpy array with per_question; a list of them for several k.
    """
    per_question = check_flag(per_question, "per_question")

    def evaluate(states: BinaryStates, budget: int, index: int) -> Any:
        values = values_for(states, budget, index)
        return states.per_question(values) if per_question else states.mean(values)

    return over_k(R, k, short, evaluate)


def point(R: Any, k: Any, credit_for: CreditFactory, *, short: str = "error",
          per_question: bool = False) -> Any:
    """Finite-sample estimator E[A_X] of a binary metric given by its credit, per k.

    Args:
        R: outcomes (array, ragged lists or BinaryCounts).
        k: an int or a sequence of ints.
        credit_for: the credit vector at each k.
        short: policy for questions with fewer than k samples.
        per_question: return per-question vectors instead of the average.

    Returns:
        float, or numpy array with per_question; a list of them for several k.
    """
    return point_values(R, k, lambda states, budget, _: state_values(states, credit_for(budget)),
                        short=short, per_question=per_question)


def prepare_posterior(R: Any, confidence: Any, bounds: Any, alpha0: Any, beta0: Any,
                      prior: Any = "uniform"
                      ) -> tuple[BinaryCounts, float, tuple[float, float] | None, float, float]:
    """Validate the arguments every binary ``_ci`` function shares.

    The one place the Beta prior is settled: ``alpha0``/``beta0`` as given, or with
    ``prior="empirical"`` the Beta fitted to the questions (:func:`resolve_prior`).
    """
    counts = binary_counts(R)
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    alpha0, beta0 = resolve_prior(prior, counts, alpha0, beta0)
    return counts, confidence, bounds, alpha0, beta0


def posterior(R: Any, k: Any, credit_for: CreditFactory, *, confidence: Any, bounds: Any,
              alpha0: Any, beta0: Any, short: str = "error", latent: bool = False,
              credit_list: list[Credit] | None = None, prior: Any = "uniform") -> Any:
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
        credit_list: one credit per requested k, in order (instead of ``credit_for``),
            for metrics whose credit also depends on arguments given per k.
        prior: ``"uniform"`` (``alpha0``, ``beta0`` as given) or ``"empirical"`` (fitted).

    Returns:
        (mu, sigma, lo, hi), or a list of them for several k.
    """
    counts, confidence, bounds, alpha0, beta0 = prepare_posterior(R, confidence, bounds,
                                                                   alpha0, beta0, prior)
    ks, many = normalize_ks(k)
    short = check_short(short)
    results = []
    for index, budget in enumerate(ks):
        states = states_for(counts, None if latent else budget, short)
        alpha, beta = posterior_parameters(states, alpha0, beta0)
        credit = credit_list[index] if credit_list is not None else credit_for(budget)
        moments = posterior_moments(alpha, beta, credit, states=states)
        results.append(summary(states.mean(moments.mean),
                               states.sum_of_variances(moments.variance), confidence, bounds))
    return finish(results, many)


def all_states(R: Any) -> tuple[BinaryCounts, BinaryStates]:
    """Counts and states with no k requirement."""
    counts = binary_counts(R)
    return counts, states_for(counts, None, "error")
