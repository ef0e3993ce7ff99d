r"""Geometric blends x^a y^b and their delta-method moments, for Geom@k and GeoSpectrum.

Geom@k blends Pass@k (x) with Unanimous@k (y); GeoSpectrum blends Pass@k with a
threshold spectrum S_w (y), a = lambda and b = 1 - lambda. :func:`_blend` is
g(x, y) = x^a y^b elementwise with the reference library's rules for zeros: a
negative power of a zero is refused unless the other factor is a zero with a
positive power, and then g = 0.

Posterior summaries propagate the exact posterior means, variances and covariance
of x and y through g by the first-order delta method (an approximation, as in the
reference library), :func:`_delta`:

    mu = mu_x^a mu_y^b,
    Var = u_x^2 + u_y^2 + 2 u_x u_y rho,  u_x = a (mu / mu_x) sd_x,  u_y = b (mu / mu_y) sd_y,

rho the posterior correlation of x and y (0 where an sd is 0), and Var = 0 where
mu = 0. The ratio mu / mu_x is taken first, so that x^(a-1) of a tiny x cannot
overflow. :func:`_joint` gives the per-question posterior moments and covariance of
two credits under Beta(alpha0 + c, beta0 + n - c) (see :mod:`kpass._core.moments.credits`);
:func:`_dataset_delta` applies the delta method to the dataset averages, whose
variances are (1/M^2) sums of the per-question ones.

The checks: the powers (not both 0) and spectrum weights w_1..w_k (real, non-negative,
finite, sum <= 1; the upper-half mG weights when none are given); the coupling ``lam`` is
checked where it is taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..counting.checks import ArgumentTypeError, InputError, _show, check_real
from ..counting.states import BinaryStates
from .credits import (
    Credit,
    mg_spectrum_weights,
    posterior_covariance,
    posterior_moments,
    posterior_parameters,
    spectrum_credit,
)

FloatArray = npt.NDArray[np.float64]


# ----------------------------------------------------------------------------- checks and blends


def _check_powers(pass_power: Any, unanimous_power: Any) -> tuple[float, float]:
    a = check_real(pass_power, "pass_power")
    b = check_real(unanimous_power, "unanimous_power")
    if a == 0.0 and b == 0.0:
        raise InputError("`pass_power` and `unanimous_power` must not both be 0; got 0 and 0")
    return a, b


def _blend(x_in: npt.ArrayLike, y_in: npt.ArrayLike, a: float, b: float) -> FloatArray:
    """x^a y^b elementwise, with the reference library's rules for zeros and negative powers."""
    x = np.asarray(x_in, dtype=np.float64)
    y = np.asarray(y_in, dtype=np.float64)
    for base, power, other, other_power, name in ((x, a, y, b, "pass_power"),
                                                  (y, b, x, a, "unanimous_power")):
        if power < 0.0:
            trouble = (base == 0.0) & ~((other == 0.0) & (other_power > 0.0))
            if trouble.any():
                raise InputError(
                    f"`{name}` must be non-negative where its quantity is 0; got {name}={power}"
                )
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.power(x, a) * np.power(y, b)
    zero = ((x == 0.0) & (a < 0.0)) | ((y == 0.0) & (b < 0.0))
    return np.where(zero, 0.0, out)


def _delta(mx: FloatArray, vx: FloatArray, my: FloatArray, vy: FloatArray, cov: FloatArray,
           a: float, b: float) -> tuple[FloatArray, FloatArray]:
    """Mean x^a y^b and first-order delta-method variance, elementwise."""
    mean = _blend(mx, my, a, b)
    zeros = np.zeros_like(mean)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # g_x sd_x = a x^(a-1) y^b sd_x = a (mean / x) sd_x: the ratio first, so that
        # x^(a-1) of a tiny x (a strong prior against success) cannot overflow.
        sx, sy = np.sqrt(np.maximum(vx, 0.0)), np.sqrt(np.maximum(vy, 0.0))
        ux = a * (mean / mx) * sx if a != 0.0 else zeros
        uy = b * (mean / my) * sy if b != 0.0 else zeros
        correlation = np.where((sx > 0.0) & (sy > 0.0), cov / sx / sy, 0.0)
        variance = ux * ux + uy * uy + 2.0 * ux * uy * correlation
    variance = np.where(mean == 0.0, 0.0, np.maximum(variance, 0.0))
    return mean, variance


def _check_weights(weights: Any, k: int) -> FloatArray:
    """Length-k real weights (bool, int or float), non-negative, finite, summing to <= 1.

    As the reference library: complex weights (whose imaginary part a float cast would
    drop) and strings or other non-numbers are refused, not converted.
    """
    try:
        array = np.asarray(weights)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"`weights` must be a length-{k} sequence of numbers; got weights={_show(weights)}"
        ) from None
    if array.dtype.kind not in "biuf":
        what = "complex numbers" if array.dtype.kind == "c" else f"dtype {array.dtype}"
        raise ArgumentTypeError(
            f"`weights` must be a length-{k} sequence of real numbers; got {what} "
            f"(weights={_show(weights)})"
        )
    if array.ndim != 1 or array.size != k:
        raise InputError(
            f"`weights` must have one weight per threshold r = 1..k (length {k}); got shape "
            f"{array.shape}"
        )
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)) or np.any(array < 0.0):
        raise InputError(f"`weights` must be non-negative and finite; got {array.tolist()}")
    total = float(np.sum(array))
    if total > 1.0 + 1e-12:
        raise InputError(f"`weights` must sum to at most 1; got sum={total}")
    return array


def _weights_per_k(weights: Any, ks: list[int], many: bool) -> list[Any]:
    """One weight vector per k: a single vector for one k, or a list of vectors for several."""
    if weights is None:
        return [None] * len(ks)
    if not many:
        return [weights]
    if len(ks) == 1 and np.ndim(weights) == 1:
        return [weights]
    if not isinstance(weights, Sequence) or len(weights) != len(ks):
        raise InputError(
            f"with several k, `weights` must be a list of {len(ks)} weight vectors, one per k"
        )
    return list(weights)


def _spectrum_for(weights: Any, k: int) -> Credit:
    chosen = mg_spectrum_weights(k) if weights is None else _check_weights(weights, k)
    return spectrum_credit(chosen)


# ----------------------------------------------------------------------------- posterior moments


def _joint(states: BinaryStates, alpha0: float, beta0: float, left: Credit, right: Credit):
    alpha, beta = posterior_parameters(states, alpha0, beta0)
    left_m = posterior_moments(alpha, beta, left, states=states)
    right_m = posterior_moments(alpha, beta, right, states=states)
    cov = posterior_covariance(alpha, beta, left, right, left_m, right_m)
    return left_m, right_m, cov


def _dataset_delta(states: BinaryStates, alpha0: float, beta0: float, left: Credit,
                   right: Credit, a: float, b: float) -> tuple[float, float]:
    left_m, right_m, cov = _joint(states, alpha0, beta0, left, right)
    mean, variance = _delta(
        np.array(states.mean(left_m.mean)), np.array(states.sum_of_variances(left_m.variance)),
        np.array(states.mean(right_m.mean)), np.array(states.sum_of_variances(right_m.variance)),
        np.array(states.sum_of_variances(cov)), a, b)
    return float(mean), float(variance)
