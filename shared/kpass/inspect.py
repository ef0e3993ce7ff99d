r"""kpass inside Inspect AI: epoch reducers for the pass family and an interval metric.

Needs the ``[inspect]`` extra (``pip install 'kpass[inspect]'``): this module imports
``inspect_ai`` when it is imported, and ``import kpass`` never imports it (``kpass.inspect``
is loaded on first use). Use it in a task::

    from inspect_ai import Epochs, Task
    import kpass.inspect

    Task(dataset=..., solver=..., scorer=match(),
         epochs=Epochs(8, kpass.inspect.pass_at(4)),
         metrics=[kpass.inspect.interval()])

and ``inspect eval`` prints kpass's numbers in its own report.

Reducers (one value per sample from its epochs; ``n`` epochs, ``c`` of them correct):
    * :func:`pass_at` ``(k)``: the unbiased Pass@k of the sample, 1 - C(n-c, k) / C(n, k)
      (Chen et al. 2021), as :func:`kpass.pass_at_k` computes it.
    * :func:`pass_hat` ``(k)``: Pass^k, C(c, k) / C(n, k) (Yao et al. 2024), as
      :func:`kpass.pass_hat_k`.
    * :func:`g_pass_at` ``(k, tau)``: G-Pass@k_tau, P(at least ceil(tau k) of k draws
      without replacement are correct) (Liu et al. 2024), as :func:`kpass.g_pass_at_k_tau`.

    An epoch is correct when Inspect's ``value_to_float`` of its score is >= ``value``
    (1.0 by default), as for Inspect's own ``pass_at``. A sample with fewer than ``k``
    scored epochs gets NaN, Inspect's "unscored" value, and ``interval()`` leaves it out.
    Each reduced score keeps ``n`` and ``c`` in ``metadata["kpass"]``.

Metric:
    :func:`interval` ``(confidence=0.95)``: over the samples (the questions), the estimate
    (the mean of the per-sample values: the dataset's Pass@k), its standard error over
    questions (:func:`kpass.standard_error`, Miller 2024) and the interval over questions
    that ``kpass report`` prints as ``95% interval`` (estimate -/+ t se with questions - 1
    degrees of freedom mid-range; a score interval near 0 or 1; an exact bound when se = 0;
    :mod:`kpass.stats.intervals`). Inspect's own ``stderr()`` on the same reduced values
    is the same standard error (sample SD / sqrt(M)); Inspect prints no interval.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

try:
    from inspect_ai.scorer import (
        Metric,
        SampleScore,
        Score,
        ScoreReducer,
        ValueToFloat,
        metric,
        score_reducer,
        value_to_float,
    )
except ImportError:  # pragma: no cover - the tests run with the extra installed
    raise ImportError("kpass.inspect needs inspect-ai: pip install 'kpass[inspect]'") from None

import numpy as np

from ._core.counting.checks import InputError
from ._core.counting.counts import BinaryCounts
from .families import function as family_function
from .stats.errors import standard_error, summary, summary_of_values
from .stats.small_sample import SmallSampleWarning

__all__ = ["g_pass_at", "interval", "pass_at", "pass_hat"]



def _check_k(k: Any, name: str) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"{name}(k): k must be a positive integer; got {k!r}")
    return int(k)


def _outcomes(scores: list[Score], value: float, to_float: ValueToFloat, name: str
              ) -> tuple[int, int]:
    """(n, c): the scored epochs and those with value_to_float(score) >= value."""
    n = c = 0
    for score in scores:
        if isinstance(score.value, (dict, list)):
            raise InputError(f"kpass.inspect.{name} reduces one value per epoch; the scorer "
                             f"gives a {type(score.value).__name__} ({score.value!r}): reduce "
                             "one key per scorer")
        number = to_float(score.value)
        if math.isnan(number):
            continue  # Inspect's unscored epoch
        n += 1
        c += number >= value
    return n, c


def _reducer(name: str, function: str, k: int, tau: float | None, value: float,
             to_float: ValueToFloat) -> ScoreReducer:
    point = family_function(function)  # kpass.families: the registry's functions by name
    extra = () if tau is None else (tau,)

    def reduce(scores: list[Score]) -> Score:
        n, c = _outcomes(scores, value, to_float, name)
        info = {"metric": function, "k": k, "tau": tau, "n": n, "c": c}
        if n < k:
            estimate = math.nan
        else:
            counts = BinaryCounts(np.array([n]), np.array([c]))
            estimate = float(point(counts, k, *extra))
        return Score(value=estimate, explanation=f"{c} of {n} epochs correct",
                     metadata={"kpass": info})

    return reduce


@score_reducer(name="kpass_pass_at")
def pass_at(k: int, value: float = 1.0,
            value_to_float: ValueToFloat = value_to_float()) -> ScoreReducer:  # noqa: B008
    """Unbiased Pass@k of each sample from its epochs: 1 - C(n - c, k) / C(n, k).

    Args:
        k: the budget (at most the number of epochs).
        value: an epoch is correct when its score (as a float) is >= value.
        value_to_float: Inspect's mapping of score values to floats (C -> 1, I -> 0, ...).

    Returns:
        An Inspect score reducer (``Epochs(n, kpass.inspect.pass_at(k))``).

    References:
        Chen et al. (2021), "Evaluating Large Language Models Trained on Code", eq. (1).
    """
    return _reducer("pass_at", "pass_at_k", _check_k(k, "pass_at"), None, value, value_to_float)


@score_reducer(name="kpass_pass_hat")
def pass_hat(k: int, value: float = 1.0,
             value_to_float: ValueToFloat = value_to_float()) -> ScoreReducer:  # noqa: B008
    """Unbiased Pass^k of each sample from its epochs: C(c, k) / C(n, k).

    Args:
        k: the budget (at most the number of epochs).
        value: an epoch is correct when its score (as a float) is >= value.
        value_to_float: Inspect's mapping of score values to floats.

    Returns:
        An Inspect score reducer.

    References:
        Yao et al. (2024), "tau-bench", section 4 (pass^k).
    """
    return _reducer("pass_hat", "pass_hat_k", _check_k(k, "pass_hat"), None, value,
                    value_to_float)


_TO_FLOAT = value_to_float()
"""Inspect's default mapping of score values to floats."""
_G_PASS: dict[float, Callable[..., ScoreReducer]] = {}
"""tau -> the registered reducer of G-Pass@k at that tau (one registry name per tau)."""


def g_pass_at(k: int, tau: float, value: float = 1.0,
              value_to_float: ValueToFloat = value_to_float()) -> ScoreReducer:  # noqa: B008
    """Unbiased G-Pass@k_tau of each sample: sum_{j >= ceil(tau k)} C(c, j) C(n-c, k-j) / C(n, k).

    Each tau is its own registered reducer, ``kpass_g_pass_at_tau{tau}``, so Inspect's
    results name ``g_pass_at(4, 0.5)`` and ``g_pass_at(4, 1.0)`` apart
    (``kpass_g_pass_at_tau0.5_4``, ``kpass_g_pass_at_tau1.0_4``: Inspect appends ``_k``),
    and a log's reducer name rebuilds the same reducer (``inspect eval-retry``).

    Args:
        k: the budget (at most the number of epochs).
        tau: the share of the k draws that must be correct, in (0, 1].
        value: an epoch is correct when its score (as a float) is >= value.
        value_to_float: Inspect's mapping of score values to floats.

    Returns:
        An Inspect score reducer.

    References:
        Liu et al. (2024), "Are Your LLMs Capable of Stable Reasoning?", eq. (3).
    """
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0.0 < tau <= 1.0:
        raise InputError(f"g_pass_at(k, tau): tau must be in (0, 1]; got {tau!r}")
    tau = float(tau)
    made = _G_PASS.get(tau)
    if made is None:
        def at_tau(k: int, value: float = 1.0,
                   value_to_float: ValueToFloat = _TO_FLOAT) -> ScoreReducer:
            return _reducer("g_pass_at", "g_pass_at_k_tau", _check_k(k, "g_pass_at"), tau,
                            value, value_to_float)

        made = _G_PASS[tau] = score_reducer(name=f"kpass_g_pass_at_tau{tau!r}")(at_tau)
    return made(_check_k(k, "g_pass_at"), value=value, value_to_float=value_to_float)


@metric(name="kpass_interval")
def interval(confidence: float = 0.95) -> Metric:
    """The estimate over samples with its standard error and interval over questions.

    Reads the ``n`` and ``c`` a kpass reducer stored with each sample, rebuilds the
    per-question counts and calls :func:`kpass.standard_error` and the interval of
    ``kpass report``'s ``95% interval`` (:func:`kpass.stats.intervals.interval`: estimate -/+
    t se mid-range, a score interval near 0 or 1, an exact bound when se = 0). Samples
    without a value (fewer than k epochs) are left out. With another reducer, each sample's
    value is its per-question value (Inspect's ``mean`` reducer: Avg@n; its
    ``pass_at``: Pass@k) and the standard error is the same formula over those values.

    Args:
        confidence: the interval's level, in (0, 1).

    Returns:
        An Inspect metric whose value is ``{"estimate", "se", "lo", "hi", "questions"}``.
    """
    if not 0.0 < confidence < 1.0:
        raise InputError(f"interval(confidence): expected a level in (0, 1); got {confidence!r}")

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        infos = [(s.score.metadata or {}).get("kpass") for s in scores]
        kept = [info for info in infos if isinstance(info, dict)]
        if kept and len(kept) == len(infos):
            return _kpass_interval(kept, confidence)
        return _values_interval(scores, confidence)

    return compute


def _kpass_interval(infos: list[dict[str, Any]], confidence: float) -> dict[str, float]:
    """Samples reduced by a kpass reducer: counts rebuilt, kpass.standard_error of the metric."""
    kinds = {(info["metric"], info["k"], info["tau"]) for info in infos}
    if len(kinds) != 1:
        raise InputError(f"kpass.inspect.interval(): the samples were reduced by several kpass "
                         f"reducers {sorted(kinds, key=str)}; use one")
    function, k, tau = kinds.pop()
    used = [info for info in infos if info["n"] >= k]  # fewer than k epochs: no value (NaN)
    if not used:
        return summary(math.nan, None, 0, confidence)
    point = family_function(function)  # kpass.families: the registry's functions by name
    args: tuple[Any, ...] = (k,) if tau is None else (k, tau)
    counts = BinaryCounts(np.array([u["n"] for u in used]), np.array([u["c"] for u in used]))
    estimate = float(point(counts, *args))
    if len(used) < 2:
        return summary(estimate, None, len(used), confidence)
    with warnings.catch_warnings():
        # Inspect prints warnings in the middle of its display; the number of questions is
        # in the result for the reader to judge
        warnings.simplefilter("ignore", SmallSampleWarning)
        se = standard_error(point, counts, *args)
    assert isinstance(se, float)  # one k: one standard error
    return summary(estimate, float(se), len(used), confidence)


def _values_interval(scores: list[SampleScore], confidence: float) -> dict[str, float]:
    """Samples reduced by another reducer (Inspect's mean, pass_at, ...).

    Their values are the per-question values; the same standard error over questions
    (Miller 2024).
    """
    to_float = value_to_float()
    return summary_of_values([to_float(s.score.value) for s in scores], confidence)
