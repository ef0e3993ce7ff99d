"""The power of the two-sided t test on per-question values, and the questions it needs.

One home for the noncentral-t power, its inverse and the sample-size search, used by
:func:`kpass.plan` with a pilot (:mod:`kpass.stats.planning`) and without one
(:mod:`kpass.stats.design`): both plan for the paired t test :func:`kpass.compare` runs.
"""

from __future__ import annotations

import math

from scipy.special import nctdtr, ndtr, ndtri, stdtrit

from .._core.counting.checks import InputError

#: Past this many questions the normal approximation plus Guenther's correction is used.
_EXACT_QUESTIONS = 1_000_000

#: Plans past this many questions are refused (a difference far below any benchmark's).
MAX_QUESTIONS = 1e15


def _t_power(m: int, delta: float, sd: float, alpha: float) -> float:
    """Power of the two-sided one-sample t test on m questions at effect delta / sd.

    Where scipy's noncentral t gives NaN (noncentralities past ~10 at some df), the
    power is within 1e-15 of the normal one, Phi(nc - q) + Phi(-nc - q), which is returned.
    """
    df = m - 1
    nc = delta * math.sqrt(m) / sd
    quantile = float(stdtrit(df, 1.0 - alpha / 2.0))
    power = float(1.0 - nctdtr(df, nc, quantile) + nctdtr(df, nc, -quantile))
    if math.isfinite(power):
        return power
    return float(ndtr(nc - quantile) + ndtr(-nc - quantile))


def _noncentrality(df: int, power: float, alpha: float) -> float:
    """lambda* with P(|T| > t_{1-alpha/2, df}) = power for T ~ noncentral t(df, lambda*)."""
    from scipy.optimize import brentq

    quantile = float(stdtrit(df, 1.0 - alpha / 2.0))

    def gap(nc: float) -> float:
        return float(1.0 - nctdtr(df, nc, quantile) + nctdtr(df, nc, -quantile)) - power

    high = float(ndtri(1.0 - alpha / 2.0) + ndtri(power)) + 1.0
    while gap(high) < 0.0:
        high *= 2.0
    return float(brentq(gap, 0.0, high, xtol=1e-12))


def _questions(delta: float, variance: float, power: float, alpha: float) -> int:
    """The smallest M >= 2 whose t test has ``power`` (see :meth:`Plan.questions_for`)."""
    z_alpha = float(ndtri(1.0 - alpha / 2.0))
    z = z_alpha + float(ndtri(power))
    if variance <= 0.0:
        return 2
    normal = (z / delta) * (z / delta) * variance  # divided twice: no underflow of delta^2
    if not math.isfinite(normal) or normal > MAX_QUESTIONS:
        raise InputError(
            f"`difference` is too small to plan for: difference={delta:g} needs about "
            f"{normal:.3g} questions at this variance; expected a difference that at most "
            f"{MAX_QUESTIONS:.0e} questions detect")
    start = max(2, math.ceil(normal))
    if start > _EXACT_QUESTIONS:
        return math.ceil(normal + z_alpha * z_alpha / 2.0)
    sd = math.sqrt(variance)
    m = start
    while _t_power(m, delta, sd, alpha) < power:
        m += 1
    while m > 2 and _t_power(m - 1, delta, sd, alpha) >= power:
        m -= 1
    return m
