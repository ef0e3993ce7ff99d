r"""Convex threshold weights for binary TailPass utilities.

Entry ``t - 1`` of a weight vector values reaching at least t successes among k
attempts, so ``profile.linear(weights)`` on the default thresholds 1/k, ..., 1 is
sum_t weights_t P(J >= t), J the successes of k fresh attempts. Weights describe
preferences, independently of the evaluation prior. For categorical (rubric)
moment utilities use ``profile.moment(lam)``: a categorical bank can score between
the binary thresholds.

Same names, signatures and values as the reference library (scorio 0.2.3,
``scorio.eval.tailpass_weights``); arguments are validated with kpass's messages
(``ArgumentTypeError`` for a wrong type, ``ValueError`` for a bad value, each naming
the argument, the value and what was expected).

References:
    Hariri, M., Hinczewski, M., Ayday, E., & Chaudhary, V. (2026). Success Has a Shape:
    TailPass@k for Repeated Sampling Evaluation (Section 3 and Appendix C.8).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.special import betainc, betaincc

from ..._core.counting.checks import InputError, _show, check_int, check_real
from ..._core.tailpass.checks import real_array

FloatArray = npt.NDArray[np.float64]

#: Longest weight vector made (k entries of 8 bytes: 80 MB).
MAX_WEIGHTS = 10_000_000


def _budget(k: Any) -> int:
    """The reporting budget k, an int in [1, MAX_WEIGHTS]."""
    k = check_int(k, "k")
    if not 1 <= k <= MAX_WEIGHTS:
        raise InputError(f"`k` must be an int in [1, {MAX_WEIGHTS}] (one weight per "
                         f"threshold); got k={k}")
    return k


def _open_unit(value: Any, name: str) -> float:
    """A finite real strictly between 0 and 1."""
    return check_real(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


def uniform_weights(k: int) -> FloatArray:
    """Weight 1/k at every threshold: the binary accuracy utility.

    Formula:
        w_t = 1/k, t = 1..k; sum_t w_t P(J >= t) = E[J] / k.

    Args:
        k: reporting budget, an int >= 1.

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: k is not an int.
        ValueError: k < 1 or beyond :data:`MAX_WEIGHTS`.

    Example:
        >>> import kpass
        >>> kpass.uniform_weights(4).tolist()
        [0.25, 0.25, 0.25, 0.25]
    """
    k = _budget(k)
    return np.full(k, 1.0 / k)


def threshold_weights(k: int, threshold: int) -> FloatArray:
    """All the value on reaching ``threshold`` successes among k.

    Formula:
        w_t = 1 if t = threshold else 0; the utility is P(J >= threshold).

    Args:
        k: reporting budget, an int >= 1.
        threshold: required successes, an int in [1, k].

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: k or threshold is not an int.
        ValueError: k < 1, or threshold outside [1, k].

    Example:
        >>> import kpass
        >>> kpass.threshold_weights(4, 3).tolist()
        [0.0, 0.0, 1.0, 0.0]
    """
    k = _budget(k)
    threshold = check_int(threshold, "threshold")
    if not 1 <= threshold <= k:
        raise InputError(f"`threshold` must be an int in [1, k] = [1, {k}]; got "
                         f"threshold={threshold}")
    weights = np.zeros(k)
    weights[threshold - 1] = 1.0
    return weights


def discovery_weights(k: int) -> FloatArray:
    """All the value on at least one success (Pass@k's utility): threshold 1.

    Args:
        k: reporting budget, an int >= 1.

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: k is not an int.
        ValueError: k < 1.

    Example:
        >>> import kpass
        >>> kpass.discovery_weights(3).tolist()
        [1.0, 0.0, 0.0]
    """
    return threshold_weights(k, 1)


def stability_weights(k: int) -> FloatArray:
    """All the value on every one of the k attempts succeeding (Pass^k's utility).

    Args:
        k: reporting budget, an int >= 1.

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: k is not an int.
        ValueError: k < 1.

    Example:
        >>> import kpass
        >>> kpass.stability_weights(3).tolist()
        [0.0, 0.0, 1.0]
    """
    k = _budget(k)
    return threshold_weights(k, k)


def moment_weights(k: int, lam: float) -> FloatArray:
    r"""Threshold weights of the moment utility E[(J/k)^lam].

    Formula:
        w_t = (t/k)^lam - ((t - 1)/k)^lam, evaluated as
        exp(lam log(t/k)) (-expm1(lam log1p(-1/t))) (no subtraction of close powers),
        then normalised to sum 1. lam = 1 gives uniform weights; lam -> 0 tends to
        :func:`discovery_weights`, lam -> infinity to :func:`stability_weights`.

    Args:
        k: reporting budget, an int >= 1.
        lam: finite exponent > 0.

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: k is not an int or lam not a real number.
        ValueError: k < 1, or lam not finite and > 0.

    Example:
        >>> import kpass
        >>> kpass.moment_weights(4, 2.0).round(4).tolist()
        [0.0625, 0.1875, 0.3125, 0.4375]
    """
    k = _budget(k)
    lam = check_real(lam, "lam", low=0.0, low_open=True)
    t = np.arange(1, k + 1, dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        weights = np.exp(lam * np.log(t / k)) * -np.expm1(lam * np.log1p(-1.0 / t))
    return weights / weights.sum()


def beta_weights(k: int, theta: float, kappa: float) -> FloatArray:
    r"""Beta-distributed threshold mass, binned onto the k thresholds.

    Formula:
        rho ~ Beta(theta kappa, (1 - theta) kappa) a fractional threshold;
        w_t = P((t - 1)/k < rho <= t/k), from the CDF where it is <= 1/2 and from the
        survival function beyond (no cancellation in the upper bins); normalised.

    Args:
        k: reporting budget, an int >= 1.
        theta: mean fractional threshold, in (0, 1).
        kappa: finite concentration > 0.

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: a wrong type.
        ValueError: k < 1, theta outside (0, 1), kappa not finite and > 0, or Beta
            parameters that underflow to zero in float64.

    Example:
        >>> import kpass
        >>> kpass.beta_weights(4, 0.5, 2.0).round(4).tolist()
        [0.25, 0.25, 0.25, 0.25]
    """
    k = _budget(k)
    theta = check_real(theta, "theta", low=0.0, low_open=True)
    if theta >= 1.0:
        raise InputError(f"`theta` must be a real number in (0, 1); got theta={_show(theta)}")
    kappa = check_real(kappa, "kappa", low=0.0, low_open=True)
    a, b = theta * kappa, (1.0 - theta) * kappa
    if a == 0.0 or b == 0.0 or not (math.isfinite(a) and math.isfinite(b)):
        raise InputError(
            "`theta` and `kappa` must give positive, finite Beta parameters "
            f"theta * kappa and (1 - theta) * kappa in float64; got theta={theta!r}, "
            f"kappa={kappa!r} (parameters {a!r}, {b!r})")
    grid = np.arange(k + 1, dtype=np.float64) / k
    cdf, sf = betainc(a, b, grid), betaincc(a, b, grid)
    weights = np.where(cdf[1:] <= 0.5, np.diff(cdf), -np.diff(sf))
    total = float(weights.sum())
    if not np.all(np.isfinite(weights)) or np.any(weights < 0.0) or not total > 0.0:
        raise InputError(
            "`theta` and `kappa` give Beta threshold weights that are not finite in "
            f"float64; got theta={theta!r}, kappa={kappa!r}")
    return weights / total


def _lower_mean(tau: float) -> float:
    """Mean of the density proportional to exp(-tau rho) on [0, 1], tau >= 0."""
    if tau < 1e-3:
        return 0.5 - tau / 12.0 + tau**3 / 720.0
    return 1.0 / tau - math.exp(-tau) / -math.expm1(-tau)


def maxent_weights(k: int, mean_threshold: float) -> FloatArray:
    r"""Maximum-entropy threshold weights with a given mean fractional threshold.

    Formula:
        density proportional to exp(tau rho) on [0, 1], tau chosen (Brent's method)
        so that its mean is ``mean_threshold``; integrated over ((t - 1)/k, t/k].
        A mean of 0.5 gives uniform weights (Appendix C.8 of the reference).

    Args:
        k: reporting budget, an int >= 1.
        mean_threshold: mean of the threshold density, in (0, 1).

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: a wrong type.
        ValueError: k < 1, or mean_threshold outside (0, 1).

    Example:
        >>> import kpass
        >>> kpass.maxent_weights(3, 0.5).round(4).tolist()
        [0.3333, 0.3333, 0.3333]
    """
    k = _budget(k)
    target = _open_unit(mean_threshold, "mean_threshold")
    if target == 0.5:
        return uniform_weights(k)
    distance = min(target, 1.0 - target)
    upper = 1.0 / distance
    if not math.isfinite(upper):
        # At this scale all representable threshold mass is at an endpoint.
        return discovery_weights(k) if target < 0.5 else stability_weights(k)
    from scipy.optimize import brentq  # scipy.optimize costs ~0.1 s to import: only here

    tau = float(brentq(lambda value: _lower_mean(value) - distance, 0.0, upper))
    if tau == 0.0:
        return uniform_weights(k)
    positions = np.arange(k, dtype=np.float64) / k
    weights = np.exp(-tau * positions) * (-math.expm1(-tau / k)) / (-math.expm1(-tau))
    weights /= weights.sum()
    return weights if target < 0.5 else weights[::-1].copy()


def payoff_weights(payoff: Any) -> FloatArray:
    """Marginal threshold weights of a monotone payoff u(0), ..., u(k).

    Formula:
        w_t = u(t) - u(t - 1); the utility sum_t w_t P(J >= t) is E[u(J)].

    Args:
        payoff: 1-D non-decreasing sequence of at least two reals with u(0) = 0 and
            u(k) = 1; its length minus one is k.

    Returns:
        (k,) weights.

    Raises:
        ArgumentTypeError: payoff is not numeric.
        ValueError: not finite, not 1-D with >= 2 entries, decreasing somewhere, or
            not from 0 to 1.

    Example:
        >>> import kpass
        >>> kpass.payoff_weights([0.0, 0.5, 0.75, 1.0]).tolist()
        [0.5, 0.25, 0.25]
    """
    values = real_array(payoff, "payoff")
    if values.ndim != 1 or values.size < 2:
        raise InputError("`payoff` must be a 1-D sequence of at least two payoffs "
                         f"u(0), ..., u(k); got payoff={_show(payoff)}")
    if values[0] != 0.0 or values[-1] != 1.0 or np.any(np.diff(values) < 0.0):
        raise InputError("`payoff` must be non-decreasing from u(0) = 0 to u(k) = 1; got "
                         f"payoff={_show(payoff)}")
    return np.diff(values)


__all__ = [
    "beta_weights",
    "discovery_weights",
    "maxent_weights",
    "moment_weights",
    "payoff_weights",
    "stability_weights",
    "threshold_weights",
    "uniform_weights",
]
