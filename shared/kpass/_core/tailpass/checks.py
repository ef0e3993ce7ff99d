"""Validation of TailPass's arguments, with kpass's message shape (`name` must ...; got ...).

Outcomes are validated and counted by :mod:`kpass._core.counting.inputs`; this checks the
rest: thresholds, rubric scores, Dirichlet priors, convex threshold weights and the
options of the posterior draws.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..counting.checks import ArgumentTypeError, InputError, _show, check_choice, check_int
from ..dirichlet.posterior import MAX_COUNT_STATES

FloatArray = npt.NDArray[np.float64]
METHODS = ("mc", "normal")


def check_thresholds(k: int, thresholds: Any) -> FloatArray:
    """Required average rewards: default 1/k, ..., 1; else strictly increasing, in [0, 1]."""
    if thresholds is None:
        if k > MAX_COUNT_STATES:
            raise InputError(
                f"`k` must be at most {MAX_COUNT_STATES} for the default thresholds 1/k, ..., 1; "
                f"got k={k}. Pass explicit `thresholds`"
            )
        values = np.arange(1, k + 1, dtype=np.float64) / k
    else:
        values = real_array(thresholds, "thresholds")
        if values.ndim != 1 or values.size == 0:
            raise InputError(
                "`thresholds` must be a non-empty 1-D sequence of required scores in [0, 1]; "
                f"got thresholds={_show(thresholds)}"
            )
        if np.any((values < 0.0) | (values > 1.0)) or np.any(np.diff(values) <= 0.0):
            raise InputError(
                "`thresholds` must be strictly increasing scores in [0, 1]; got "
                f"thresholds={_show(thresholds)}"
            )
    values.setflags(write=False)
    return values


def check_rewards(weights: FloatArray) -> None:
    bad = np.flatnonzero((weights < 0.0) | (weights > 1.0))
    if bad.size:
        raise InputError(
            f"`w` must hold rubric scores in [0, 1] for TailPass; got w[{int(bad[0])}]="
            f"{weights[bad[0]]!r}"
        )


def check_prior_concentrations(prior: Any, shape: tuple[int, int]) -> FloatArray:
    if np.asarray(prior).dtype.kind == "b":  # True is not a concentration of 1
        raise ArgumentTypeError("`prior` must be positive Dirichlet concentrations (numbers, "
                                f"not bools); got prior={_show(prior)}")
    values = real_array(prior, "prior")
    if values.ndim > 2 or np.any(values <= 0.0):
        raise InputError(
            "`prior` must hold positive Dirichlet concentrations (a scalar, one per category "
            f"or a questions x categories matrix); got prior={_show(prior)}"
        )
    try:
        return np.broadcast_to(values, shape)
    except ValueError:
        raise InputError(
            f"`prior` must be a scalar, a vector of {shape[1]} (one per category) or a "
            f"{shape[0]} x {shape[1]} matrix (questions x categories); got shape "
            f"{values.shape}"
        ) from None


def real_array(value: Any, name: str) -> FloatArray:
    """A finite float64 array from numbers or bools; the message names ``name``."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"`{name}` must be numbers; got {name}={_show(value)}") from None
    if array.dtype.kind not in "biuf":
        raise ArgumentTypeError(f"`{name}` must be real numbers; got {name}={_show(value)}")
    with np.errstate(over="ignore", invalid="ignore"):
        result = np.array(array, dtype=np.float64)
    if not np.all(np.isfinite(result)):
        raise InputError(f"`{name}` must be finite; got {name}={_show(value)}")
    return result


def check_convex_weights(weights: Any, size: int, name: str = "weights") -> FloatArray:
    """One non-negative weight per threshold, summing to 1 (to 1e-12)."""
    values = real_array(weights, name)
    if values.shape != (size,):
        raise InputError(f"`{name}` must have one weight per threshold ({size}); got shape "
                         f"{values.shape}")
    if np.any(values < 0.0) or not math.isclose(float(values.sum()), 1.0, rel_tol=0.0,
                                                 abs_tol=1e-12):
        raise InputError(f"`{name}` must be non-negative and sum to 1; got "
                         f"{name}={_show(weights)}")
    return values


def check_method(method: Any) -> str:
    """``"mc"`` (posterior draws) or ``"normal"`` (exact moments, normal interval)."""
    return check_choice(method, "method", METHODS)


def check_n_draws(n_draws: Any) -> int:
    """Number of posterior draws, an int >= 2."""
    n_draws = check_int(n_draws, "n_draws")
    if n_draws < 2:
        raise InputError(f"`n_draws` must be an int >= 2; got n_draws={n_draws}")
    return n_draws


def check_aggregation(aggregation: Any) -> str:
    return check_choice(aggregation, "aggregation", ("question", "profile"))
