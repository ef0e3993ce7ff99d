"""Standard errors over questions.

:func:`standard_error` and the per-k helpers the report and the metric modules use
(Miller 2024, sections 2-3).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.counting.counts import BinaryCounts, CategoricalCounts
from ._common import (
    _CREDIT_METRICS,
    _DATASET_LEVEL,
    _PER_STATE,
    _STATE_METRICS,
    Metric,
    MetricLike,
    TooFewQuestionsError,
    _check_metric,
    _clt_se,
    _counts_of,
    _dataset_statistic,
    _jackknife,
    _labels,
    _need_two,
    _per_question,
    _standard_errors_by_state,
    _state_keys,
    _state_values,
    _weighted_se,
    check_options,
)
from .intervals import interval
from .small_sample import (
    small_sample_problems,
    warn_small,
)


def estimates_and_standard_errors(metric: Metric, counts: BinaryCounts, ks: list[int] | None,
                                  *args: Any) -> tuple[list[float], list[float]] | None:
    """A state metric's estimate and standard error at every k, from one evaluation per state.

    ``kpass report`` wants both ``metric(counts, ks, *args)`` and
    :func:`standard_errors_by_k` of it; both average the metric's per-state values
    (the point function as ``states.mean``, the SE by weights), so one evaluation on
    the distinct states gives both, with the same floats as the two calls for the
    metrics with k. (``avg``, without k, averages per question: its estimate here may
    differ from ``kpass.avg``'s in the last bit; take that one from ``avg`` itself.)

    Args:
        metric: a point function of :data:`_PER_STATE`, e.g. ``kpass.pass_at_k``.
        counts: the counts; every question must have at least max(ks) samples.
        ks: the budgets, or None for a metric without k.
        *args: the metric's arguments after k (tau).

    Returns:
        (estimates, standard errors), one per k (one in all without k); None wherever
        the two calls must answer instead (another metric, a refusal, a question short
        of k, fewer than 2 questions).
    """
    if getattr(metric, "__name__", None) not in _PER_STATE or ks == [] or (
            type(counts) is not BinaryCounts or (ks and max(ks) > counts.smallest_n)):
        return None
    evaluated = _state_values(metric, counts, args if ks is None else (list(ks), *args),
                              {})
    if evaluated is None:
        return None
    states, values, _ = evaluated
    if len(values) != (1 if ks is None else len(ks)) or not all(
            np.isfinite(v).all() for v in values):
        return None
    ses = [_weighted_se(states.weight, per_state) for per_state in values]
    if any(se is None for se in ses):
        return None
    estimates = [states.mean(per_state) + 0.0 for per_state in values]  # as the point function
    return estimates, [float(se) for se in ses]  # type: ignore[arg-type]


def standard_error(metric: MetricLike, R: Any, *args: Any, clusters: Any = None,
                   **kwargs: Any) -> float | list[float]:
    r"""Standard error of a metric over questions (questions as a sample; Miller 2024).

    Formula:
        SE = sqrt( sum_q (s_q - s_bar)^2 / (M (M - 1)) ) over the M questions used, where
        s_q is question q's unbiased per-question value (``metric(..., per_question=True)``;
        questions left out by ``short="skip"`` do not count). With ``clusters`` (one label
        per question, G clusters of n_g questions), the CR2 sandwich of Bell and McCaffrey
        (2002): SE^2 = (1/M^2) sum_g (sum_{q in g}(s_q - s_bar))^2 / (1 - n_g/M), which is
        the G/(G-1) formula for equal sizes (its Bell-McCaffrey degrees of freedom are
        ``kpass.stats._common._cluster_df``).
        Dataset-level blends (``geom_ds_at_k``, ``geo_spectrum_at_k``,
        ``geo_spectrum_star_at_k``) have no per-question value: their SE is the delete-one
        jackknife over questions (or clusters), SE^2 = (G-1)/G sum_g (theta_(-g) -
        theta_bar)^2.

    Args:
        metric: the point function itself, e.g. ``kpass.pass_at_k`` or
            ``kpass.g_pass_at_k_tau``.
        R: the outcomes, as ``metric`` takes them (for ``vote_at_k``: the answers).
        *args: ``metric``'s other positional arguments (k, tau, w, references, ...).
        clusters: optional label per question (same length as the questions) for the
            clustered standard error.
        **kwargs: ``metric``'s keyword arguments (``short``, ``ties``, ...).

    Returns:
        The SE (a float), or a list of floats when ``k`` is a sequence.

    Raises:
        TypeError: ``metric`` is not a point function of the family (a ``_ci`` function
            is refused too), or ``clusters`` is not a sequence.
        ValueError: fewer than 2 questions (or clusters) used, ``clusters`` of the wrong
            length, or any error of ``metric`` itself.

    Warns:
        SmallSampleWarning: fewer than 30 questions (or clusters), an SE of 0, or (from 30
            questions) an estimate within 5 questions' worth of 0 or 1, where the SE cannot
            carry a confidence level (one warning per call).

    References:
        Miller (2024), arXiv:2411.00640, sections 2 (CLT) and 3 (clustered SE); Bell and
        McCaffrey (2002), Survey Methodology 28(2) (CR2).

    Example:
        >>> import kpass, warnings
        >>> warnings.simplefilter("ignore", kpass.SmallSampleWarning)  # 4 questions
        >>> R = [[1, 1, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]]
        >>> round(kpass.standard_error(kpass.pass_at_k, R, 1), 6)     # sd(0.75,.25,1,.25)/2
        0.1875
        >>> [round(x, 4) for x in kpass.standard_error(kpass.pass_at_k, R, [1, 2])]
        [0.1875, 0.1443]
        >>> round(kpass.standard_error(kpass.pass_at_k, R, 1, clusters=["a", "a", "b", "b"]), 4)
        0.0625
    """
    metric = _check_metric(metric, "standard_error", args, kwargs)[1]
    ses = _standard_error(metric, R, *args, clusters=clusters, **kwargs)
    _warn_standard_error(metric, R, args, kwargs, clusters, ses)
    return ses


def _warn_standard_error(metric: Metric, R: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                         clusters: Any, ses: float | list[float]) -> None:
    """The SmallSampleWarning of :func:`standard_error` (questions counted as rows of R)."""
    name = metric.__name__
    many = isinstance(ses, list)
    values: list[float] = list(ses) if isinstance(ses, list) else [ses]
    if clusters is not None:
        units, clustered = len({label for label in clusters}), True
    else:
        units = R.n_questions if isinstance(R, (BinaryCounts, CategoricalCounts)) else len(R)
        clustered = False
    estimates: list[float] = []
    if units >= 30 and name in _CREDIT_METRICS:
        point = metric(R, *args, **kwargs)
        estimates = [float(x) for x in (point if many else [point])]
    warn_small(f"kpass.standard_error({name})",
               small_sample_problems(units, clustered, values, estimates))


def _standard_error(metric: Metric, R: Any, *args: Any, clusters: Any = None,
                    **kwargs: Any) -> float | list[float]:
    """:func:`standard_error` without its warning (for the report and the modules)."""
    name, metric = _check_metric(metric)
    check_options(clusters=clusters)
    if name in _DATASET_LEVEL:
        statistic, m = _dataset_statistic(metric, R, args, kwargs)
        codes = _labels(clusters, m)
        _need_two(m, "`R`")
        ses = _jackknife(statistic, _state_keys(_counts_of(R)), codes)
        value = metric(_counts_of(R), *args, **kwargs)
        return ses if isinstance(value, list) else ses[0]
    if clusters is None and name in _STATE_METRICS:
        fast = _standard_errors_by_state(metric, R, args, kwargs)
        if fast is not None:
            return fast
    per_k, many = _per_question(metric, name, R, args, kwargs)
    codes = _labels(clusters, per_k[0].size)
    ses = []
    for values in per_k:
        used = np.isfinite(values)
        _need_two(int(used.sum()), "`R`")
        ses.append(_clt_se(values[used], None if codes is None else codes[used]))
    return ses if many else ses[0]


def standard_errors_by_k(point: Callable[..., Any], state: Any, ks: list[int] | None,
                         *args: Any, before_k: tuple[Any, ...] = (),
                         **kwargs: Any) -> list[float | None]:
    """:func:`standard_error` of every k, None where fewer than 2 questions were used.

    What the metric modules report as ``_se`` and ``kpass report`` as ``se``: one k with
    too few questions (``short="skip"``) does not take the other k down with it.

    ``ks`` is the list of budgets, or None for the families without k; ``before_k`` are
    positional arguments that come before k (the references of ``vote_at_k``).
    """
    if ks is None:
        try:
            return [_one_se(_standard_error(point, state, *before_k, *args, **kwargs))]
        except TooFewQuestionsError:
            return [None]
    try:
        every = _standard_error(point, state, *before_k, ks, *args, **kwargs)
        return list(every) if isinstance(every, list) else [every]
    except TooFewQuestionsError:
        pass
    values: list[float | None] = []
    for budget in ks:
        try:
            values.append(_one_se(_standard_error(point, state, *before_k, budget, *args,
                                                 **kwargs)))
        except TooFewQuestionsError:  # short="skip" left fewer than 2 questions at this k
            values.append(None)
    return values


def _one_se(value: float | list[float]) -> float:
    """The standard error of a call made with one k (or none): a float, not a list."""
    if isinstance(value, list):  # pragma: no cover - one k gives one value
        raise TypeError(f"expected one standard error; got {len(value)}")
    return value




def summary(estimate: float, se: float | None, questions: int,
            confidence: float = 0.95) -> dict[str, float]:
    """An estimate over questions with its standard error and interval, as a harness shows it.

    The interval is the one of ``kpass report``'s ``95% interval``
    (:func:`kpass.stats.intervals.interval`: estimate -/+ t se with questions - 1 degrees of
    freedom mid-range, a score interval near 0 or 1, an exact bound when se = 0), clipped to
    [0, 1] and never of width 0. What kpass's harness plugins report (the Inspect metric
    ``kpass.inspect.interval()``, the lighteval recipe :mod:`kpass.lighteval`).

    Args:
        estimate: the mean of the per-question values.
        se: its standard error over questions; None when fewer than 2 questions were used.
        questions: the number of questions used (M).
        confidence: the interval's level, in (0, 1).

    Returns:
        ``{"estimate", "se", "lo", "hi", "questions"}``; ``se``, ``lo`` and ``hi`` are NaN
        when ``se`` is None.

    Example:
        >>> s = summary(0.5, 0.1, 30)
        >>> round(s["lo"], 4), round(s["hi"], 4)   # 0.5 -/+ t_{29, 0.975} 0.1
        (0.2955, 0.7045)
    """
    if se is None:
        return {"estimate": estimate, "se": math.nan, "lo": math.nan, "hi": math.nan,
                "questions": float(questions)}
    ends = interval(estimate, se, questions - 1, questions, confidence)
    return {"estimate": estimate, "se": se, "lo": ends.lo, "hi": ends.hi,
            "questions": float(questions)}


def summary_of_values(values: Any, confidence: float = 0.95) -> dict[str, float]:
    r""":func:`summary` of per-question values: their mean, CLT standard error and interval.

    Formula:
        estimate = s_bar, SE = sqrt( sum_q (s_q - s_bar)^2 / (M (M - 1)) ) over the M
        values that are not NaN (NaN: a question without a value, left out): the standard
        error :func:`standard_error` gives a metric whose per-question values these are
        (Miller 2024, eq. 2), and the same number as a harness's standard error of a mean
        (lighteval's ``mean_stderr``, Inspect's ``stderr()``).

    Args:
        values: one value per question (floats in [0, 1]; NaN for none).
        confidence: the interval's level, in (0, 1).

    Returns:
        As :func:`summary`; an ``estimate`` of NaN when no value is left.

    Example:
        >>> s = summary_of_values([0.75, 0.25, 1.0, 0.25])   # standard_error's example
        >>> s["estimate"], s["se"], s["questions"]
        (0.5625, 0.1875, 4.0)
    """
    array = np.asarray(values, dtype=float).ravel()
    array = array[~np.isnan(array)]
    if array.size == 0:
        return summary(math.nan, None, 0, confidence)
    if array.size < 2:
        return summary(float(array.mean()), None, 1, confidence)
    return summary(float(array.mean()), _clt_se(array, None), int(array.size), confidence)
