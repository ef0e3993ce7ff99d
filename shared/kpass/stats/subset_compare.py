r"""Two models compared on a budget: each run on a random subset of the benchmark, or on all of it.

**Estimand.** :math:`\bar Y_A - \bar Y_B`, the difference of the two models' full-benchmark
values (the means over all N questions of the per-question metric values; the value two full
runs would report; see :mod:`kpass.stats.subset`). The questions are the finite population;
the randomness the interval accounts for is the draw of the subset(s), not a resampling of
the benchmark's questions (for that, run both models fully and use :func:`kpass.compare`).

**Same subset (paired).** When both models ran on the same draw, each model's cross-fitted
model-assisted estimate :math:`\hat Y_A, \hat Y_B` is computed on it and the difference
:math:`\hat D = \hat Y_A - \hat Y_B` is the difference estimator of :math:`\bar Y_A - \bar
Y_B` with the prediction :math:`f_{A,q} - f_{B,q}` and the residuals :math:`d_i = e_{A,i} -
e_{B,i}` paired per question. Its variance is the stratified formula with the
finite-population correction on those paired residuals,

.. math::

    \widehat{V}(\hat D) = \sum_h \Big(\frac{N_h}{N}\Big)^2 \Big(1 - \frac{m_h}{N_h}\Big)
                          \frac{s^2_{d,h}}{m_h},

with :math:`t_{m - H}` as reference. Where the two models' residuals are positively
correlated (a question both models get more wrong than predicted), this is smaller than
:math:`\widehat V_A + \widehat V_B`, which the result reports beside it as ``se_unpaired``.

**Independent subsets.** Two different (independent) draws: :math:`\hat D = \hat Y_A -
\hat Y_B` with :math:`\widehat V = \widehat V_A + \widehat V_B` and the Welch-Satterthwaite
degrees of freedom :math:`(\widehat V_A + \widehat V_B)^2 / (\widehat V_A^2 / \nu_A +
\widehat V_B^2 / \nu_B)`.

**A full run.** A model run on all N questions is a subset with every inclusion probability
1 (``subset_a=None`` or ``subset_b=None``): its value :math:`\bar Y` is known exactly, so its
SE is 0 for this finite-population estimand, and the comparison's SE and df are the other
model's. (Both runs full: the difference is known exactly and there is nothing to estimate
over a draw; :func:`kpass.compare` gives the inference over questions instead.)

The difference is formed from the unclipped estimates (so it stays design-unbiased); ``a``
and ``b`` are the two estimates as :func:`kpass.subset_estimate` reports them (clipped to
[0, 1]), so ``a - b`` can differ from ``difference`` in the rare case one was clipped.
The interval :math:`\hat D \pm t_\nu \sqrt{\widehat V}` is clipped to [-1, 1]; the
p-value is the two-sided t test of no difference.

References:
    Särndal, Swensson and Wretman (1992), Model Assisted Survey Sampling, sections 6.3-6.5
    and 7.5 (differences of estimators on one sample); Cochran (1977), Sampling Techniques,
    ch. 5; Satterthwaite (1946), Biometrics Bulletin 2(6); Welch (1947), Biometrika 34.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import InputError, check_confidence
from ._common import _check_metric, _counts_of, _per_question
from .align import question_ids
from .intervals import t_interval
from .irt import IRTFit
from .subset import (
    _assisted,
    _check_subset,
    _estimate,
    _on_subset,
    _reference_fit,
    _stratified_variance,
)
from .subset_design import Subset


@dataclass(frozen=True)
class SubsetComparison:
    """The difference A - B of two models' full-benchmark values, from subsets.

    Attributes:
        a: model A's full-benchmark value: its estimate from its subset, or its full run's
            value.
        b: model B's.
        difference: the estimate of A - B over all N questions.
        se: its standard error over the draw(s) of the subset(s).
        lo: lower end of the interval (clipped to [-1, 1]).
        hi: upper end.
        confidence: the interval's level.
        df: the t reference's degrees of freedom (m - H on one subset; Welch-Satterthwaite
            on two).
        p_value: two-sided p-value of no difference (t reference).
        se_a: model A's own SE (0 for a full run).
        se_b: model B's.
        se_unpaired: sqrt(se_a^2 + se_b^2), what treating the two estimates as independent
            gives (equal to ``se`` unless ``same_subset``).
        same_subset: whether both models ran on the same subset (the paired estimator).
    """

    a: float
    b: float
    difference: float
    se: float
    lo: float
    hi: float
    confidence: float
    df: float
    p_value: float
    se_a: float
    se_b: float
    se_unpaired: float
    same_subset: bool


def _same(one: Subset, other: Subset) -> bool:
    return (one is other or (one.ids == other.ids and one.population == other.population
                             and np.array_equal(one.inclusion, other.inclusion)
                             and np.array_equal(one.stratum, other.stratum)))


def _full_value(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], R: Any,
                argument: str, ids: list[Any]) -> float:
    """The full run's value: the mean of the metric's per-question values over all N."""
    return float(_full_values(metric, name, args, kwargs, R, argument, ids)[1].mean())


def _full_values(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], R: Any,
                 argument: str, ids: list[Any]) -> tuple[Any, np.ndarray]:
    """A full run's counts in the order of ``ids`` and its metric values per question."""
    counts = _counts_of(R)
    own = question_ids(counts)
    if own is None:
        if counts.n_questions != len(ids):
            raise InputError(f"`{argument}` is a full run (no subset given) without question "
                             f"ids, so it must hold one row per benchmark question "
                             f"({len(ids)}); got {counts.n_questions}")
    else:
        where = {q: i for i, q in enumerate(own)}
        missing = [q for q in ids if q not in where]
        if missing:
            raise InputError(f"`{argument}` is a full run (no subset given) but lacks "
                             f"{len(missing)} of the benchmark's questions, e.g. "
                             f"{missing[:3]!r}; give its subset, or run every question")
        rows = np.array([where[q] for q in ids])
        counts = type(counts)(counts.n_samples[rows], counts.n_correct[rows], ids=list(ids))
    y = np.asarray(_per_question(metric, name, counts, args, kwargs)[0][0], dtype=float)
    if not np.all(np.isfinite(y)):
        raise InputError(f"the metric is undefined on some questions of `{argument}` (fewer "
                         "samples than k); run more samples or lower k")
    return counts, y


def _one(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], R: Any,
         argument: str, subset: Subset | None, fit: IRTFit, ids: list[Any], confidence: float
         ) -> tuple[float, float, float, float]:
    """(reported value, unclipped value, se, df) of one model; a full run has se 0."""
    if subset is None:
        value = _full_value(metric, name, args, kwargs, R, argument, ids)
        return value, value, 0.0, float("inf")
    chosen, counts, y = _on_subset(metric, name, args, kwargs, R, argument, subset, ids)
    parts = _assisted(metric, name, args, kwargs, fit, chosen, counts, y, subset)
    result = _estimate(metric, name, args, kwargs, fit, chosen, counts, y, subset, confidence,
                       parts)
    return result.estimate, parts[0], result.se, result.df


def subset_compare(metric: Any, R_a: Any, R_b: Any, *args: Any, subset_a: Subset | None,
                   subset_b: Subset | None, reference: Mapping[str, Any],
                   confidence: float = 0.95, irt: str = "2pl",
                   **kwargs: Any) -> SubsetComparison:
    r"""Compare two models' full-benchmark values, each run on a random subset or on all of it.

    See the module docstring for the estimand (the difference two full runs would report),
    the paired estimator on one subset, the independent one on two, and a full run as a
    subset of inclusion probability 1.

    Args:
        metric: a binary pass-family point function (``kpass.pass_at_k``, ...), its name or
            registry key.
        R_a: model A's outcomes on its subset's questions (matched by id, as
            :func:`kpass.subset_estimate` takes ``R_new``), or on every question when
            ``subset_a`` is None.
        R_b: model B's.
        *args: ``metric``'s positional arguments (k, ...); one k.
        subset_a: the :class:`~kpass.stats.subset_design.Subset` model A ran on, or None for
            a full run (every question, SE 0).
        subset_b: model B's; the same subset as ``subset_a`` (the same draw) gives the paired
            estimator, a different one is taken as an independent draw.
        reference: model name -> outcomes on every question, the runs the IRT model is fitted
            on (as :func:`kpass.subset_estimate` takes).
        confidence: the interval's level.
        irt: the IRT model, ``"2pl"`` (the default) or ``"rasch"``.
        **kwargs: ``metric``'s keyword arguments.

    Returns:
        A :class:`SubsetComparison`.

    Raises:
        TypeError: ``metric`` not a point function of the family, ``reference`` not a
            mapping, a subset that is neither a Subset nor None.
        ValueError: both subsets None (use :func:`kpass.compare`), a subset not of the
            references' benchmark, a run lacking its questions, too few samples for k.

    Example:
        >>> import kpass, numpy as np
        >>> rng = np.random.default_rng(0)
        >>> easy = rng.uniform(-2, 2, 300)
        >>> def run(skill):
        ...     return kpass.BinaryCounts(np.full(300, 4), rng.binomial(4, 1 / (1 + np.exp(
        ...         -(skill + easy)))), ids=[f"q{i}" for i in range(300)])
        >>> reference = {f"m{j}": run(skill) for j, skill in enumerate(np.linspace(-1, 1, 8))}
        >>> chosen = kpass.choose_questions(reference, 60, seed=3)
        >>> A, B = run(0.8), run(0.2)  # full runs, for the check; only the 60 chosen are used
        >>> result = kpass.subset_compare(kpass.pass_at_k, A, B, 1, subset_a=chosen,
        ...                               subset_b=chosen, reference=reference)
        >>> full = kpass.pass_at_k(A, 1) - kpass.pass_at_k(B, 1)
        >>> bool(result.lo < full < result.hi), bool(result.se < result.se_unpaired)
        (True, True)
    """
    name, metric = _check_metric(metric, "subset_compare", args, kwargs)
    confidence = check_confidence(confidence)
    if subset_a is None and subset_b is None:
        raise InputError("`subset_a` and `subset_b` are both None (two full runs): the "
                         "difference is known exactly; use kpass.compare for the inference "
                         "over questions")
    for argument, subset in (("subset_a", subset_a), ("subset_b", subset_b)):
        if subset is not None:
            _check_subset(subset, argument)
    fit, ids = _reference_fit(reference, irt)
    if subset_a is not None and subset_b is not None and _same(subset_a, subset_b):
        return _paired(metric, name, args, kwargs, R_a, R_b, subset_a, fit, ids, confidence)
    a, raw_a, se_a, df_a = _one(metric, name, args, kwargs, R_a, "R_a", subset_a, fit, ids,
                                confidence)
    b, raw_b, se_b, df_b = _one(metric, name, args, kwargs, R_b, "R_b", subset_b, fit, ids,
                                confidence)
    v_a, v_b = se_a**2, se_b**2
    variance = v_a + v_b
    if variance > 0:
        df = variance**2 / ((v_a**2 / df_a if v_a > 0 else 0.0)
                            + (v_b**2 / df_b if v_b > 0 else 0.0))
    else:  # both residual sets constant: no spread to estimate; the larger subset's df
        df = min(df_a, df_b)
    se = float(np.sqrt(variance))
    return _result(a, b, raw_a - raw_b, se, float(df), se_a, se_b, se, False, confidence)


def _paired(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], R_a: Any,
            R_b: Any, subset: Subset, fit: IRTFit, ids: list[Any], confidence: float
            ) -> SubsetComparison:
    """Both models on one subset: the paired difference estimator (module docstring)."""
    values = []
    for R, argument in ((R_a, "R_a"), (R_b, "R_b")):
        chosen, counts, y = _on_subset(metric, name, args, kwargs, R, argument, subset, ids)
        parts = _assisted(metric, name, args, kwargs, fit, chosen, counts, y, subset)
        result = _estimate(metric, name, args, kwargs, fit, chosen, counts, y, subset,
                           confidence, parts)
        values.append((result, parts[0], parts[1]))
    (one, raw_a, e_a), (two, raw_b, e_b) = values
    se = float(np.sqrt(_stratified_variance(e_a - e_b, subset)))
    return _result(one.estimate, two.estimate, raw_a - raw_b, se, one.df, one.se, two.se,
                   float(np.hypot(one.se, two.se)), True, confidence)


def _result(a: float, b: float, difference: float, se: float, df: float, se_a: float,
            se_b: float, se_unpaired: float, same_subset: bool, confidence: float
            ) -> SubsetComparison:
    from scipy.special import stdtr  # not at import: `import kpass` loads no scipy.stats

    lo, hi = t_interval(difference, se, df, confidence, bounds=(-1.0, 1.0))
    if se > 0:
        p_value = float(2 * stdtr(df, -abs(difference) / se))
    else:  # no spread over the draw: the difference is what it is
        p_value = 1.0 if difference == 0 else 0.0
    return SubsetComparison(
        a=float(a), b=float(b), difference=float(min(max(difference, -1.0), 1.0)), se=se,
        lo=float(lo), hi=float(hi), confidence=confidence, df=df, p_value=min(p_value, 1.0),
        se_a=float(se_a), se_b=float(se_b), se_unpaired=float(se_unpaired),
        same_subset=same_subset)
