r"""One confidence interval over questions, that covers at the boundaries and is never zero-width.

Every interval over questions kpass prints (``kpass report``'s ``se`` interval, the paired
difference of :func:`kpass.compare`, each model's interval on the leaderboard) comes from
:func:`interval` (scalar) or :func:`intervals` (arrays). The mean of M per-question values
in a range [L, U] (``bounds``: [0, 1] for a metric, [-1, 1] for a paired difference) with
standard error se and ``df`` degrees of freedom gets:

- **t** (mid-range, as before): estimate -/+ q se, q = T_df^{-1}((1 + confidence) / 2).
- **score** (near L or U): the Wilson score interval at the effective number of
  questions. With y = (estimate - L) / (U - L) and s = se / (U - L),
  n_eff = y (1 - y) / s^2 (the number of Bernoulli questions whose binomial SE is this
  SE: 0/1 values give n_eff = M - 1, values inside (0, 1) spread less and give more),
  and the Wilson interval of n Bernoulli trials with the same t quantile q,

      (y + q^2 / (2 n)) / (1 + q^2 / n) -/+ q / (1 + q^2 / n) sqrt(y (1 - y) / n + q^2 / (4 n^2)),

  mapped back to [L, U], with n = n_eff, except near a bound: there the observed spread
  understates the possible one (a rare Pass^k has a few large per-question values that a
  30-question sample mostly misses; a near-1 Pass@k a few zeros), so n is pulled towards
  the number of units M: with e = M min(y, 1 - y) (questions' worth of the estimate from
  the nearer bound) and the limit N = M max(1, (e / 1.5)^2), an n_eff above N becomes
  n = n_eff^0.4 N^0.6 (1.5 and 0.6 chosen by the coverage simulation of
  ``benchmarks/bench_coverage.py``; without the pull a rare Pass^4 is covered 0.74-0.82 at
  30-40 questions). 0/1 values (n_eff <= 1.25 M) with at most 3 events on the near side
  (e <= 3) get the end towards the bound at least as far as the exact Poisson (Garwood)
  bound G^{-1}_e(alpha/2) / M (the gamma quantile; chi2_{alpha/2}(2e) / (2M)), as Brown,
  Cai and DasGupta (2001) modify the Wilson interval for x <= 3: without it coverage of a
  binomial proportion dips to 0.85 next to p = 1. Paired differences
  (:func:`kpass.compare`) go without the pull (``cap=False``).

  The score interval is used where the t interval reaches past L or U (where it would be
  clipped), or where a score end reaches more than 30% of q se (:data:`MATERIAL`) beyond
  the t end; elsewhere, mid-range, the interval is the t interval itself. (The first
  version took the hull of the two, keeping the t end on the side of the bound; it covered
  0.97-1.00 near 0 and 1: accuracy 0.95 at 30 questions 0.999, a rare Pass^4 1.000.)
  On 0/1 values, by exact enumeration over Binomial(M, p), p in [0.5, 0.999], coverage
  averages 0.955-0.988 at M = 10-100 and its minimum is 0.915-0.957.
- **exact** (se = 0: every unit has the same value c): no spread is observed, so no
  SE-based interval exists. For i.i.d. units V in [L, U] with mean mu, w = max(c - L,
  U - c) and P(V = c) <= 1 - |mu - c| / w (Markov's inequality on |V - c| <= w), so the
  M units all equal c with probability at most (1 - |mu - c| / w)^M; the interval keeps
  every mu for which that is at least alpha / 2:

      c -/+ w (1 - (alpha / 2)^(1 / M)), clipped to [L, U].

  All values 1 of [0, 1]: mu >= (alpha/2)^(1/M), the Clopper-Pearson bound of M
  successes in M (0.69 at M = 10, 95%). A paired difference with every d_q = 0 in
  [-1, 1]: |mu| <= 1 - (alpha/2)^(1/M), the Clopper-Pearson upper bound on the share of
  questions on which the two models differ (0.31 at M = 10). With clusters the units are
  the clusters (an SE of 0 then means every cluster has the same mean).

Every interval is clipped to [L, U] and has positive width.

Coverage of each method, measured by ``benchmarks/bench_coverage.py``, is in
``docs/explanation/statistics.md``.

References:
    Wilson (1927), "Probable inference, the law of succession, and statistical
    inference", JASA 22(158).
    Agresti and Coull (1998), "Approximate is better than 'exact' for interval estimation
    of binomial proportions", The American Statistician 52(2).
    Kish (1965), Survey Sampling (the effective sample size n_eff).
    Clopper and Pearson (1934), Biometrika 26(4) (the bound of M successes in M).
    Garwood (1936), "Fiducial limits for the Poisson distribution", Biometrika 28(3/4).
    Brown, Cai and DasGupta (2001), "Interval estimation for a binomial proportion",
    Statistical Science 16(2) (the Wilson interval's dip near 0/1 and its Poisson fix).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaincinv, stdtrit

from .._core.counting.checks import InputError
from ._common import ROUNDING

__all__ = ["Interval", "METHODS", "interval", "intervals", "t_interval", "exact_half_width"]

EVENTS_TRUSTED = 1.5
"""Scale of e (questions' worth of the estimate from the nearer bound) in the limit
N = M max(1, (e / EVENTS_TRUSTED)^2) on n_eff (module docstring)."""

SHRINK = 0.6
"""An n_eff above the limit N becomes n_eff^(1 - SHRINK) N^SHRINK (module docstring)."""

MATERIAL = 0.3
"""The score end replaces the t end only where it reaches beyond it by more than this share
of the t half-width q se; below that the interval is estimate -/+ t se, as mid-range."""

BINARY = 1.25
"""Values count as (nearly) 0/1 when n_eff <= BINARY M (0/1 values give n_eff = M - 1;
values inside (0, 1) spread less and give a larger n_eff)."""

POISSON_EVENTS = 3.0
"""Up to this many events on the near side (M min(y, 1 - y)) of (nearly) 0/1 values, the
end towards the bound is at least the Garwood bound (Brown, Cai and DasGupta 2001)."""

METHODS = ("t", "score", "exact")
"""The methods :func:`intervals` reports, by code 0, 1, 2."""

METHOD_WORDS = {
    "t": "estimate -/+ t se",
    "score": "Wilson score interval on the effective number of questions",
    "exact": "exact bound for se = 0 (every question agrees)",
}
"""One phrase per method, for legends."""


@dataclass(frozen=True)
class Interval:
    """A confidence interval over questions and the method that produced it.

    Attributes:
        lo: lower end (>= the range's lower bound).
        hi: upper end (<= the range's upper bound), hi > lo.
        method: ``"t"``, ``"score"`` or ``"exact"`` (see the module docstring).
    """

    lo: float
    hi: float
    method: str


def _quantile(df: Any, confidence: float) -> np.ndarray:
    """T_df^{-1}((1 + confidence)/2); the normal quantile where df is None, inf or NaN."""
    from scipy.special import ndtri

    level = 0.5 + 0.5 * confidence
    df = np.asarray(np.nan if df is None else df, dtype=float)
    normal = float(ndtri(level))
    finite = np.isfinite(df) & (df > 0)
    return np.where(finite, stdtrit(np.where(finite, df, 1.0), level), normal)


def exact_half_width(units: Any, confidence: float) -> np.ndarray:
    """1 - (alpha/2)^(1/units): the se = 0 half-width per unit of room w (module docstring)."""
    alpha = 1.0 - confidence
    return 1.0 - np.power(alpha / 2.0, 1.0 / np.asarray(units, dtype=float))


def t_interval(estimate: Any, se: Any, df: Any, confidence: float = 0.95,
               bounds: tuple[float, float] = (0.0, 1.0)) -> tuple[np.ndarray, np.ndarray]:
    """The interval estimate -/+ t se clipped to ``bounds`` (that of earlier releases)."""
    x = np.asarray(estimate, dtype=float)
    half = _quantile(df, confidence) * np.asarray(se, dtype=float)
    return np.clip(x - half, *bounds), np.clip(x + half, *bounds)


def intervals(estimate: Any, se: Any, df: Any, units: Any, confidence: float = 0.95,
              bounds: tuple[float, float] = (0.0, 1.0), cap: bool = True
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The interval of the module docstring for arrays of estimates (vectorised).

    Args:
        estimate: means of the per-question values, in ``bounds``.
        se: their standard errors over questions (>= 0).
        df: degrees of freedom of the t quantile (questions - 1, or the Bell-McCaffrey
            df with clusters); None or inf for the normal quantile.
        units: questions (or clusters) the mean is over, for the se = 0 bound.
        confidence: the level in (0, 1).
        bounds: (L, U), the range of a per-question value.
        cap: pull n_eff towards ``units`` near a bound (the default; False gives the plain
            score interval on n_eff, as :func:`kpass.compare` uses for differences).

    Returns:
        (lo, hi, method code) arrays; the code indexes :data:`METHODS`.
    """
    low, high = float(bounds[0]), float(bounds[1])
    room = high - low
    x = np.clip(np.asarray(estimate, dtype=float), low, high)
    s = np.asarray(se, dtype=float)
    x, s = np.broadcast_arrays(x, s)
    q = _quantile(df, confidence)
    t_lo, t_hi = x - q * s, x + q * s
    y = (x - low) / room
    sy = s / room
    spread = y * (1.0 - y)
    positive = sy > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(positive, spread / np.where(positive, sy * sy, 1.0), np.inf)
        n_raw = n
        base = np.asarray(units, dtype=float)
        if cap:
            events = base * np.minimum(y, 1.0 - y)
            limit = base * np.maximum(1.0, np.square(events / EVENTS_TRUSTED))
            n = np.where(n > limit, n ** (1.0 - SHRINK) * limit ** SHRINK, n)
        # the Wilson interval of n Bernoulli trials with success share y
        r = np.where(n > 0, q * q / n, np.inf)  # q^2 / n
        finite = np.isfinite(r)
        centre = np.where(finite, (y + r / 2.0) / (1.0 + r), 0.5)
        trials = np.where(finite, n, 1.0)
        half = np.where(finite, q / (1.0 + r) * np.sqrt(spread / trials + r / (4.0 * trials)),
                        0.5)
        w_lo, w_hi = centre - half, centre + half
        # (nearly) 0/1 values with at most POISSON_EVENTS events on the near side: the
        # end towards the bound reaches at least the exact Poisson (Garwood) bound
        near = base * np.minimum(y, 1.0 - y)
        poisson = ((n_raw <= BINARY * base) & (near > 0) & (near <= POISSON_EVENTS)
                   & positive)
        if poisson.any():
            garwood = gammaincinv(np.where(poisson, near, 1.0), (1.0 - confidence) / 2.0) / base
            w_lo = np.where(poisson & (y < 0.5), np.minimum(w_lo, garwood), w_lo)
            w_hi = np.where(poisson & (y >= 0.5), np.maximum(w_hi, 1.0 - garwood), w_hi)
    w_lo, w_hi = low + room * w_lo, low + room * w_hi
    # The score interval replaces t where t reaches past a bound (it is clipped there), or
    # where the score end reaches more than MATERIAL of the t half-width beyond the t end;
    # mid-range neither happens and the interval stays estimate -/+ t se.
    reach = np.maximum(t_lo - w_lo, w_hi - t_hi)
    score = (reach > MATERIAL * q * s) | (t_lo < low) | (t_hi > high)
    lo = np.where(score, w_lo, t_lo)
    hi = np.where(score, w_hi, t_hi)
    # An estimate at a bound with se > 0 (a clipped estimator, e.g. a difference estimator's
    # clipped to [0, 1]) has n_eff = 0 and no score interval: the t interval, clipped.
    edge = positive & (spread == 0.0)
    score &= ~edge
    lo = np.where(edge, t_lo, lo)
    hi = np.where(edge, t_hi, hi)
    method = score.astype(int)
    # se = 0: the exact bound (and an estimate at a bound whose se is rounding noise)
    zero = ~positive | (edge & (s <= ROUNDING * room))
    if zero.any():
        width = np.maximum(x - low, high - x) * exact_half_width(units, confidence)
        width = np.broadcast_to(width, x.shape)
        lo = np.where(zero, x - width, lo)
        hi = np.where(zero, x + width, hi)
        method = np.where(zero, 2, method)
    return np.clip(lo, low, high), np.clip(hi, low, high), method


def interval(estimate: float, se: float, df: float | None, units: int,
             confidence: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0),
             cap: bool = True) -> Interval:
    r"""The confidence interval over questions of a mean of per-question values.

    See the module docstring for the three methods (t mid-range; the Wilson score
    interval on n_eff = y(1 - y)/s^2 near the boundaries; an exact bound when se = 0).

    Args:
        estimate: the mean of the per-question values.
        se: its standard error over questions (clustered or not), >= 0.
        df: degrees of freedom of the t quantile; None for the normal quantile.
        units: the number of questions (clusters with clusters) the mean is over.
        confidence: the level in (0, 1).
        bounds: the range (L, U) of a per-question value: (0, 1) for a metric, (-1, 1)
            for a paired difference of two metrics.
        cap: pull n_eff towards ``units`` near a bound (rare events of one metric).
            :func:`kpass.compare` passes False: a difference is near -1 or 1 only when one
            model is right and the other wrong on nearly every question, and the pull
            would widen every difference at a handful of questions (e at most M/2) past
            the t test its p-value comes from.

    Returns:
        An :class:`Interval` (lo, hi, method), clipped to ``bounds``, hi > lo.

    Example:
        >>> from kpass.stats.intervals import interval
        >>> i = interval(1.0, 0.0, 9, 10)          # 10 questions, all 1
        >>> round(i.lo, 4), i.hi, i.method         # (0.025)^(1/10)
        (0.6915, 1.0, 'exact')
        >>> i = interval(0.5, 0.05, 29, 30)        # mid-range: estimate -/+ t se
        >>> round(i.lo, 4), round(i.hi, 4), i.method
        (0.3977, 0.6023, 't')
    """
    if not (math.isfinite(estimate) and math.isfinite(se)) or se < 0:
        raise InputError(f"an interval needs a finite estimate and se >= 0; got "
                         f"estimate={estimate!r}, se={se!r}")
    lo, hi, code = intervals(estimate, se, df, units, confidence, bounds, cap)
    return Interval(float(lo) + 0.0, float(hi) + 0.0, METHODS[int(code)])
