r"""Uncertainty over questions, paired comparison of two models, and planning an eval.

The Bayesian ``*_ci`` functions hold the benchmark's questions fixed: their sigma is the
uncertainty left by having only n samples of each question ("how would this model do on
*these* questions with unlimited samples"). The functions here treat the questions as a
sample from a super-population ("how would it do on questions like these"), as
lm-evaluation-harness and lighteval do when they print a stderr (Miller 2024):

- :func:`standard_error`: the CLT standard error of a metric from its per-question
  unbiased values, clustered when questions come in groups; a jackknife over questions
  for the dataset-level blends (Geom@k over the dataset, GeoSpectrum).
- :func:`compare`: two models on the same questions, from per-question differences
  (paired): difference, its SE, interval, p-value, minimum detectable effect, and the
  posterior probability that A beats B on these very questions.
- :func:`plan`: from a pilot run, the standard error at another number of questions and
  samples, and the questions or samples needed to detect a difference.

The law of total variance links the two views: the variance of a per-question estimate
s_q is the between-question variance of the true values g(p_q) plus the within-question
sampling variance of s_q given p_q, so the SE over questions already contains the noise
of the n samples.

References:
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language
    Model Evaluations. arXiv:2411.00640.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ._core.checks import ArgumentTypeError, _show, check_confidence, check_real
from ._core.counts import BinaryCounts, CategoricalCounts
from ._core.small_sample import (
    SmallSampleWarning,
    sign_flip_p,
    small_sample_problems,
    t_test,
    warn_small,
)
from ._core.states import states_for

Metric = Callable[..., Any]

#: Dataset-level blends: no per-question value exists, so their SE is a jackknife.
_DATASET_LEVEL = ("geom_ds_at_k", "geo_spectrum_at_k", "geo_spectrum_star_at_k")

#: Point functions whose value is the mean of a per-question U-statistic of a binary
#: credit (E[s_q | p_q] = g(p_q), the Bernstein polynomial): what :func:`plan` decomposes.
_CREDIT_METRICS = ("pass_at_k", "pass_hat_k", "unanimous_at_k", "g_pass_at_k",
                   "g_pass_at_k_tau", "mg_pass_at_k", "maj_at_k", "cons_at_k", "auc_at_k",
                   "threshold_spectrum_at_k")


#: Point functions whose per-question value depends on a question only through its state
#: (n, c): their SE over M questions is a weighted sum over the distinct states.
_STATE_METRICS = (*_CREDIT_METRICS, "geom_at_k")


def _standard_errors_by_state(metric: Metric, R: Any, args: tuple[Any, ...],
                              kwargs: dict[str, Any]) -> float | list[float] | None:
    """The CLT SE from the metric's values on the distinct (n, c) states, weighted.

    sum_q (s_q - s_bar)^2 = sum_s w_s (v_s - s_bar)^2 over states s with w_s questions,
    so M questions cost one evaluation per state (<= N + 1 of them) instead of a
    per-question vector per k. Returns None where the per-question path must answer
    instead: any refusal, so that its message counts questions, not states.
    """
    evaluated = _state_values(metric, R, args, kwargs)
    if evaluated is None:
        return None
    states, values, many = evaluated
    ses: list[float] = []
    for per_state in values:
        se = _weighted_se(states.weight, per_state)
        if se is None:
            return None
        ses.append(se)
    return ses if many else ses[0]


def _state_values(metric: Metric, R: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[Any, list[np.ndarray], bool] | None:
    """The distinct states of all questions, the metric's value on each (per k), 'several k'.

    None where ``R`` is not binary outcomes or the metric refuses the states (the
    callers' per-question paths then answer, with messages that count questions).
    """
    try:
        counts = _counts_of(R)
        states = states_for(counts, None, "error")  # cached on the counts
        values = metric(_state_counts(counts, states), *args, per_question=True, **kwargs)
    except (TypeError, ValueError):
        return None
    many = isinstance(values, list)
    return states, [np.asarray(v, dtype=float) for v in (values if many else [values])], many


def _state_counts(counts: BinaryCounts, states: Any) -> BinaryCounts:
    """One question per distinct state of ``counts``, cached on the counts (read-only arrays).

    Cached so that its own states (and their map back to questions) are built once for
    every metric and k a report asks, not once per call.
    """
    cached = counts.__dict__.get("_state_counts")
    if cached is None or cached[0] is not states:
        cached = (states, BinaryCounts(states.n, states.c))
        counts.__dict__["_state_counts"] = cached
    return cached[1]


def _weighted_se(weights: np.ndarray, per_state: np.ndarray) -> float | None:
    """The CLT SE of questions with these per-state values and weights, or None below 2."""
    used = np.isfinite(per_state)
    w, v = weights[used], per_state[used]
    m = float(w.sum())
    if m < 2:
        return None
    mean = float((w * v).sum() / m)
    return math.sqrt(float((w * np.square(v - mean)).sum()) / (m * (m - 1)))


#: Point functions whose per-question value on binary counts depends on the state alone,
#: for :func:`estimates_and_standard_errors` (avg@N: c / n).
_PER_STATE = (*_STATE_METRICS, "avg")


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


def _kpass() -> Any:
    import kpass  # the public functions; imported late, as kpass imports this module

    return kpass


def _check_metric(metric: Any) -> str:
    """The public name of a point function of the family, or a TypeError."""
    name = getattr(metric, "__name__", None)
    kp = _kpass()
    exported = getattr(kp, name, None) if isinstance(name, str) else None
    if not callable(metric) or not isinstance(name, str) or exported is not metric:
        raise ArgumentTypeError(
            f"`metric` must be a kpass point function such as kpass.pass_at_k; got "
            f"metric={_show(metric)}")
    if name.endswith("_ci"):
        raise ArgumentTypeError(
            f"`metric` must be a point function, not the posterior `{name}`; pass "
            f"kpass.{name[:-3]} (its `_ci` companion is used for prob_a_better)")
    if name in ("binary_counts", "categorical_counts") or not (
            name in _DATASET_LEVEL or "per_question" in inspect.signature(exported).parameters
            or name == "bayes"):
        raise ArgumentTypeError(f"`metric` must be a metric of the family; got kpass.{name}")
    return name


def _per_question(metric: Metric, name: str, R: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[list[np.ndarray], bool]:
    """Per-question values of every k (NaN where a question was skipped), and 'several k'."""
    values = metric(R, *args, per_question=True, **kwargs)
    if name in ("avg", "bayes"):
        return [np.asarray(values, dtype=float)], False
    if isinstance(values, list):
        return [np.asarray(v, dtype=float) for v in values], True
    return [np.asarray(values, dtype=float)], False


def _labels(clusters: Any, m: int) -> np.ndarray | None:
    """Cluster codes 0..G-1, one per question, from labels validated as ``--clusters`` is.

    A label is a str or an int (numpy ones included), as ``kpass compare --clusters``
    reads them from a file; None, NaN, floats and bools are refused by position, and
    1 and "1" are different clusters (no label is converted). ``clusters`` itself must
    be ordered (a list, tuple, array or Series): a set or a dict has no question order.
    """
    if clusters is None:
        return None
    if isinstance(clusters, (str, bytes)) or not (
            isinstance(clusters, (Sequence, np.ndarray)) or hasattr(clusters, "__array__")):
        raise ArgumentTypeError(
            f"`clusters` must be a sequence of labels (list, tuple or array), one per question "
            f"in question order; got {_show(clusters)} ({type(clusters).__name__})")
    labels = clusters if isinstance(clusters, np.ndarray) else np.asarray(
        clusters if hasattr(clusters, "__array__") and not isinstance(clusters, Sequence)
        else list(clusters), dtype=object)
    if labels.ndim != 1 or labels.size != m:
        raise ValueError(f"`clusters` must have one label per question (M={m}); got "
                         f"{labels.size if labels.ndim == 1 else labels.shape} labels")
    if labels.dtype.kind in "iuU":
        _, codes = np.unique(labels, return_inverse=True)
        return codes.ravel()
    keys: dict[tuple[int, Any], int] = {}
    codes = np.empty(m, dtype=np.intp)
    for position, label in enumerate(labels.tolist()):
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, (str, int, np.integer)):
            raise ArgumentTypeError(
                f"`clusters` must hold a str or int label per question; got "
                f"clusters[{position}]={_show(label)} ({type(label).__name__})")
        key = (0, int(label)) if isinstance(label, (int, np.integer)) else (1, str(label))
        codes[position] = keys.setdefault(key, len(keys))
    return codes


def _clt_se(values: np.ndarray, codes: np.ndarray | None) -> float:
    """sqrt(sum (s - mean)^2 / (M (M - 1))), or its clustered form over cluster codes.

    Clustered (Miller 2024, eq. 4, with the small-sample factor G/(G-1) of G clusters):
    Var = G/(G-1) * (1/M^2) * sum_g (sum_{q in g} (s_q - mean))^2. With one question per
    cluster it equals the plain formula exactly.
    """
    m = values.size
    residuals = values - values.mean()
    if codes is None:
        # A plain reduction, not a BLAS dot: on a busy machine OpenBLAS's threads made the
        # dot of 100000 values take 4 ms instead of 0.1 ms.
        return math.sqrt(float(np.square(residuals).sum()) / (m * (m - 1)))
    sums = np.bincount(codes, weights=residuals)
    groups = int(np.count_nonzero(np.bincount(codes)))
    if groups < 2:
        raise TooFewQuestionsError("the clustered standard error needs at least 2 clusters "
                                   f"among the questions used; got {groups}")
    return math.sqrt(groups / (groups - 1) * float(sums @ sums) / (m * m))


class TooFewQuestionsError(ValueError):
    """Fewer than 2 questions (or clusters) for a standard error over questions."""


def _need_two(m: int, what: str) -> None:
    if m < 2:
        raise TooFewQuestionsError(f"the standard error over questions needs at least 2 questions; "
                         f"{what} has {m}")


def _counts_of(R: Any) -> BinaryCounts:
    return R if isinstance(R, BinaryCounts) else _kpass().binary_counts(R)


def _jackknife_units(keys: np.ndarray, codes: np.ndarray | None
                     ) -> tuple[list[np.ndarray], np.ndarray, int]:
    """The leave-one-out masks of a jackknife over questions or clusters, their weights, G.

    Without clusters every question is a group, and leaving out any of the questions that
    share a row of ``keys`` (their counts) gives the same statistic, so one mask stands for
    each distinct row, weighted by how many questions share it.
    """
    m = keys.shape[0]
    if codes is None:
        _, first, weights = np.unique(keys, axis=0, return_index=True, return_counts=True)
        masks = [np.arange(m) != i for i in first]
        groups = m
    else:
        labels = np.unique(codes)
        masks = [codes != label for label in labels]
        weights = np.ones(labels.size, dtype=np.int64)
        groups = labels.size
    if groups < 2:
        raise TooFewQuestionsError(
            f"the jackknife needs at least 2 questions or clusters; got {groups}")
    return masks, weights.astype(float), groups


def _jackknife(statistic: Callable[[np.ndarray], list[float]], keys: np.ndarray,
               codes: np.ndarray | None) -> list[float]:
    """Delete-one-group jackknife SE of a vector statistic (groups: questions or clusters).

    SE^2 = (G-1)/G sum_g (theta_(-g) - theta_bar)^2, evaluated once per distinct unit
    (:func:`_jackknife_units`).
    """
    masks, weights, groups = _jackknife_units(keys, codes)
    leave_out = np.array([statistic(mask) for mask in masks])  # (units, K)
    spread = leave_out - weights @ leave_out / weights.sum()
    return [math.sqrt((groups - 1) / groups * float(weights @ (col * col))) for col in spread.T]


def _state_keys(*counts: BinaryCounts) -> np.ndarray:
    return np.stack([column for c in counts for column in (c.n_samples, c.n_correct)], axis=1)


def _dataset_statistic(metric: Metric, R: Any, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> tuple[Callable[[np.ndarray], list[float]], int]:
    counts = _counts_of(R)

    def statistic(mask: np.ndarray) -> list[float]:
        value = metric(counts.select(mask), *args, **kwargs)
        return [float(v) for v in (value if isinstance(value, list) else [value])]

    return statistic, counts.n_questions


def standard_error(metric: Metric, R: Any, *args: Any, clusters: Any = None,
                   **kwargs: Any) -> float | list[float]:
    r"""Standard error of a metric over questions (questions as a sample; Miller 2024).

    Formula:
        SE = sqrt( sum_q (s_q - s_bar)^2 / (M (M - 1)) ) over the M questions used, where
        s_q is question q's unbiased per-question value (``metric(..., per_question=True)``;
        questions left out by ``short="skip"`` do not count). With ``clusters`` (one label
        per question, G clusters): SE^2 = G/(G-1) (1/M^2) sum_g (sum_{q in g}(s_q - s_bar))^2.
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
        Miller (2024), arXiv:2411.00640, sections 2 (CLT) and 3 (clustered SE).

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
    name = _check_metric(metric)
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


# ----------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Comparison:
    """Paired comparison of two models on the same questions, for one metric and k.

    Attributes:
        metric: the metric's name (e.g. ``"pass_at_k"``).
        k: the budget (None for metrics without k).
        a: metric of model A over the questions both were scored on.
        b: metric of model B over the same questions.
        difference: a - b (the mean of the per-question differences).
        se: paired standard error of the difference over questions (clustered when
            clusters were given; jackknife for dataset-level blends).
        lo: lower end of the ``confidence`` interval difference -/+ q se, q the quantile of
            Student's t with ``df`` degrees of freedom (of the normal when ``reference``
            is ``"normal"``).
        hi: upper end.
        p_value: two-sided p-value of "no difference" (t test on difference / se; when
            se = 0 and the difference is not 0, the exact sign-flip p-value).
        se_unpaired: sqrt(se_a^2 + se_b^2), what treating the runs as independent gives.
        correlation: Pearson correlation of the two models' per-question values (None
            when one of them is constant, or for dataset-level blends).
        prob_a_better: posterior probability that A's metric exceeds B's on these very
            questions (questions fixed; from the two ``_ci`` posteriors).
        mde: minimum detectable effect: (q_{1-alpha/2} + q_{0.8}) se with t (or normal)
            quantiles, the smallest true difference this comparison detects with 80% power
            at alpha = 1 - confidence.
        questions: how many questions the comparison used.
        confidence: the interval's level.
        se_a: model A's standard error over the same questions (clustered like ``se``).
        se_b: model B's.
        df: degrees of freedom of the t reference: questions - 1, or clusters - 1 when
            clustered (None for the normal reference).
        p_exact: two-sided sign-flip permutation p-value of the per-question (per-cluster)
            differences, exact up to 20 units and Monte Carlo (20000 flips, fixed seed)
            beyond (:func:`kpass._core.small_sample.sign_flip_p`); None for dataset-level
            blends, which have no per-question differences.
        reference: ``"t"`` or ``"normal"``, the reference distribution of lo, hi, p_value
            and mde.
    """

    metric: str
    k: int | None
    a: float
    b: float
    difference: float
    se: float
    lo: float
    hi: float
    p_value: float
    se_unpaired: float
    correlation: float | None
    prob_a_better: float
    mde: float
    questions: int
    confidence: float
    se_a: float | None = None
    se_b: float | None = None
    df: int | None = None
    p_exact: float | None = None
    reference: str = "t"

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _ids(R: Any) -> Any:
    # Only counts carry question ids (a masked array has an unrelated `ids` method).
    ids = R.ids if isinstance(R, (BinaryCounts, CategoricalCounts)) else None
    return None if ids is None else list(ids)


def _align(R_a: Any, R_b: Any, shared: bool = False) -> tuple[Any, Any]:
    """Put B's questions in A's order when both carry question ids; else keep row order.

    With ``shared``, only the questions both carry are kept (A's order).
    """
    ids_a, ids_b = _ids(R_a), _ids(R_b)
    if ids_a is None or ids_b is None:
        if (ids_a is None) != (ids_b is None):
            raise ValueError("only one of `R_a`, `R_b` carries question ids; give both ids "
                             "(to match questions by id) or neither (to match by row)")
        if shared:
            raise ValueError("shared=True needs question ids on both runs "
                             "(BinaryCounts(..., ids=...) or `kpass compare --id COLUMN`)")
        return R_a, R_b
    position = {question: i for i, question in enumerate(ids_b)}
    missing_b = [q for q in ids_a if q not in position]
    missing_a = sorted(set(ids_b) - set(ids_a), key=str)
    if shared and (missing_a or missing_b):
        keep = np.array([q in position for q in ids_a])
        if not keep.any():
            raise ValueError("the two runs share no question id")
        R_a = R_a.select(keep)
        ids_a = [q for q in ids_a if q in position]
    elif missing_b or missing_a:
        raise ValueError(
            "the two runs must score the same questions; "
            + (f"{len(missing_b)} ids of A are not in B (e.g. {missing_b[:3]})" if missing_b
               else "")
            + ("; " if missing_b and missing_a else "")
            + (f"{len(missing_a)} ids of B are not in A (e.g. {missing_a[:3]})" if missing_a
               else "") + "; pass shared=True to compare on the questions both have")
    order = np.array([position[q] for q in ids_a])
    return R_a, R_b.select(order)


def _posterior_pair(metric: Metric, name: str, R: Any, used: np.ndarray, args: tuple[Any, ...],
                    kwargs: dict[str, Any]) -> list[tuple[float, float]]:
    """(mu, sigma) per k from the metric's ``_ci`` companion, over the questions used."""
    companion = getattr(_kpass(), name + "_ci")
    accepted = inspect.signature(companion).parameters
    options = {key: value for key, value in kwargs.items() if key in accepted}
    if not used.all():
        R = _counts_of(R).select(used)
    result = companion(R, *args, **options)
    rows = result if isinstance(result, list) else [result]
    return [(float(row[0]), float(row[1])) for row in rows]


def _prob_greater(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    spread = math.hypot(sigma_a, sigma_b)
    if spread == 0.0:
        return 1.0 if mu_a > mu_b else 0.0 if mu_a < mu_b else 0.5
    return float(ndtr((mu_a - mu_b) / spread))


def _budgets(args: tuple[Any, ...], count: int, name: str) -> list[int | None]:
    if name in ("avg", "bayes", "vote_at_k") or not args:
        ks = args[1] if name == "vote_at_k" and len(args) > 1 else None
    else:
        ks = args[0]
    if ks is None:
        return [None] * count
    values = list(ks) if isinstance(ks, (Sequence, np.ndarray)) else [ks]
    return [int(v) for v in values] if len(values) == count else [None] * count


def compare(metric: Metric, R_a: Any, R_b: Any, *args: Any, clusters: Any = None,
            confidence: float = 0.95, reference: str = "t", shared: bool = False,
            **kwargs: Any) -> Comparison | list[Comparison]:
    r"""Is model A better than model B on the same questions? A paired comparison.

    Row q of ``R_a`` and of ``R_b`` is question q; when both are counts carrying
    question ids (``BinaryCounts(..., ids=...)``), questions are matched by id.

    Formula:
        d_q = s_q(A) - s_q(B) over the M questions both were scored on;
        difference = mean(d); se = sqrt(sum (d_q - mean d)^2 / (M (M-1))) (clustered with
        ``clusters`` as in :func:`standard_error`; for dataset-level blends, a paired
        jackknife); df = M - 1 (G - 1 with G clusters); interval difference -/+ q se with
        q = T_df^{-1}((1 + confidence)/2); p_value = 2 T_df(-|difference| / se);
        mde = (q + T_df^{-1}(0.8)) se (``reference="normal"``: Phi in place of T_df);
        p_exact = the sign-flip permutation p-value of the d_q (clusters flip together);
        se_unpaired = sqrt(se_A^2 + se_B^2); prob_a_better = Phi((mu_A - mu_B) /
        sqrt(sigma_A^2 + sigma_B^2)) from the two Bayesian posteriors (``<metric>_ci``),
        independent given the questions.

    Args:
        metric: the point function, e.g. ``kpass.pass_at_k``.
        R_a: model A's outcomes (as ``metric`` takes them).
        R_b: model B's outcomes on the same questions.
        *args: ``metric``'s other positional arguments (k, tau, ...).
        clusters: optional label per question for clustered standard errors.
        confidence: level of the interval in (0, 1) (alpha = 1 - confidence for the MDE).
        reference: ``"t"`` (Student's t with ``df`` degrees of freedom, the default: it
            holds its level with 10-30 questions) or ``"normal"`` (the large-sample
            reference of earlier releases).
        shared: with question ids on both runs, compare on the questions both have (B's
            extra questions and A's missing ones left out) instead of refusing; ``clusters``
            then labels A's questions before the selection.
        **kwargs: ``metric``'s keyword arguments (``short``, ...).

    Returns:
        A :class:`Comparison`, or a list of them when ``k`` is a sequence.

    Warns:
        SmallSampleWarning: fewer than 30 questions (or clusters), a standard error of 0,
            or an estimate within 5 questions' worth of 0 or 1 (one warning per call).

    Raises:
        ValueError: different numbers of questions without ids, different id sets, fewer
            than 2 questions, ``clusters`` of the wrong length, a bad ``confidence``.
        TypeError: ``metric`` is not a point function of the family.

    References:
        Miller (2024), arXiv:2411.00640, section 4 (paired differences) and 5 (power);
        Student (1908); Fisher (1935) for the sign-flip test.

    Example:
        >>> import kpass, warnings
        >>> A = [[1, 1, 0, 1], [0, 1, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]]
        >>> B = [[1, 0, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]]
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", kpass.SmallSampleWarning)  # 4 questions
        ...     c = kpass.compare(kpass.pass_at_k, A, B, 1)  # d_q = .25, .25, 0, .25
        >>> round(c.difference, 4), round(c.se, 4), round(c.se_unpaired, 4)
        (0.1875, 0.0625, 0.2676)
        >>> c.questions, c.df, round(c.p_value, 4), c.p_exact, round(c.correlation, 3)
        (4, 3, 0.0577, 0.25, 0.983)
    """
    name = _check_metric(metric)
    confidence = check_confidence(confidence)
    if reference not in ("t", "normal"):
        raise ValueError(f'`reference` must be "t" or "normal"; got reference={reference!r}')
    if shared and clusters is not None:
        ids_a = _ids(R_a)
        if ids_a is not None:
            labels = list(clusters) if isinstance(clusters, (Sequence, np.ndarray)) else clusters
            kept = set(_ids(R_b) or ())
            if isinstance(labels, list) and len(labels) == len(ids_a):
                clusters = [label for q, label in zip(ids_a, labels, strict=True) if q in kept]
    R_a, R_b = _align(R_a, R_b, shared)
    if name in _DATASET_LEVEL:
        return _compare_dataset(metric, name, R_a, R_b, args, kwargs, clusters, confidence,
                                reference)
    per_a, many = _per_question(metric, name, R_a, args, kwargs)
    per_b, _ = _per_question(metric, name, R_b, args, kwargs)
    if per_a[0].size != per_b[0].size:
        raise ValueError(
            f"`R_a` and `R_b` must score the same questions, row q of both being question q; "
            f"got {per_a[0].size} and {per_b[0].size} questions (give question ids to match "
            "by id: BinaryCounts(..., ids=...) or `kpass compare --id COLUMN`)")
    codes = _labels(clusters, per_a[0].size)
    budgets = _budgets(args, len(per_a), name)
    results = []
    problems: list[str] = []
    for index, (values_a, values_b) in enumerate(zip(per_a, per_b, strict=True)):
        used = np.isfinite(values_a) & np.isfinite(values_b)
        m = int(used.sum())
        _need_two(m, "`R_a`/`R_b` (questions scored in both)")
        sa, sb = values_a[used], values_b[used]
        used_codes = None if codes is None else np.unique(codes[used], return_inverse=True)[1]
        units = m if used_codes is None else int(used_codes.max()) + 1
        se = _clt_se(sa - sb, used_codes)
        se_a, se_b = _clt_se(sa, used_codes), _clt_se(sb, used_codes)
        difference = float(sa.mean() - sb.mean())
        df = units - 1 if reference == "t" else None
        lo, hi, p_value, mde = t_test(difference, se, confidence, df)
        p_exact = sign_flip_p(sa - sb, used_codes)
        if math.isnan(p_value):  # se = 0 with a difference: no t statistic, the exact test
            p_value = p_exact
        spread = float(sa.std() * sb.std())
        correlation = (float(np.mean((sa - sa.mean()) * (sb - sb.mean())) / spread)
                       if spread > 0 else None)
        k_args = _one_k(args, budgets[index], name)
        (mu_a, sd_a), = _posterior_pair(metric, name, R_a, used, k_args, kwargs)
        (mu_b, sd_b), = _posterior_pair(metric, name, R_b, used, k_args, kwargs)
        a, b = float(sa.mean()) + 0.0, float(sb.mean()) + 0.0
        problems += small_sample_problems(units, codes is not None, [se],
                                          [a, b] if name in _CREDIT_METRICS else [])
        results.append(Comparison(
            metric=name, k=budgets[index], a=a, b=b,
            difference=difference + 0.0, se=se, lo=lo, hi=hi, p_value=p_value,
            se_unpaired=math.hypot(se_a, se_b), correlation=correlation,
            prob_a_better=_prob_greater(mu_a, sd_a, mu_b, sd_b), mde=mde, questions=m,
            confidence=confidence, se_a=se_a, se_b=se_b, df=df, p_exact=p_exact,
            reference=reference))
    warn_small(f"kpass.compare({name})", list(dict.fromkeys(problems)))
    return results if many else results[0]


def _one_k(args: tuple[Any, ...], budget: int | None, name: str) -> tuple[Any, ...]:
    """``args`` with the sequence of k replaced by one k (for the per-k posterior call)."""
    if budget is None:
        return args
    position = 1 if name == "vote_at_k" else 0
    return (*args[:position], budget, *args[position + 1:])


def _compare_dataset(metric: Metric, name: str, R_a: Any, R_b: Any, args: tuple[Any, ...],
                     kwargs: dict[str, Any], clusters: Any, confidence: float,
                     reference: str) -> Comparison | list[Comparison]:
    stat_a, m = _dataset_statistic(metric, R_a, args, kwargs)
    stat_b, m_b = _dataset_statistic(metric, R_b, args, kwargs)
    if m != m_b:
        raise ValueError(f"`R_a` and `R_b` must score the same questions; got {m} and {m_b} "
                         "questions (give question ids to match by id)")
    _need_two(m, "`R_a`/`R_b`")
    codes = _labels(clusters, m)
    everything = np.ones(m, dtype=bool)
    values_a, values_b = stat_a(everything), stat_b(everything)
    keys = _state_keys(_counts_of(R_a), _counts_of(R_b))
    ses = _jackknife(lambda mask: [x - y for x, y in zip(stat_a(mask), stat_b(mask),
                                                         strict=True)], keys, codes)
    ses_a, ses_b = _jackknife(stat_a, keys, codes), _jackknife(stat_b, keys, codes)
    value = metric(_counts_of(R_a), *args, **kwargs)
    many = isinstance(value, list)
    budgets = _budgets(args, len(values_a), name)
    units = m if codes is None else int(np.unique(codes).size)
    df = units - 1 if reference == "t" else None
    results = []
    problems: list[str] = []
    for index, (a, b) in enumerate(zip(values_a, values_b, strict=True)):
        lo, hi, p_value, mde = t_test(a - b, ses[index], confidence, df)
        if math.isnan(p_value):  # se = 0 with a difference: nothing to test it against
            p_value = 1.0
        problems += small_sample_problems(units, codes is not None, [ses[index]], [])
        k_args = _one_k(args, budgets[index], name)
        (mu_a, sd_a), = _posterior_pair(metric, name, R_a, everything, k_args, kwargs)
        (mu_b, sd_b), = _posterior_pair(metric, name, R_b, everything, k_args, kwargs)
        results.append(Comparison(
            metric=name, k=budgets[index], a=a, b=b, difference=a - b + 0.0, se=ses[index],
            lo=lo, hi=hi, p_value=p_value, se_unpaired=math.hypot(ses_a[index], ses_b[index]),
            correlation=None, prob_a_better=_prob_greater(mu_a, sd_a, mu_b, sd_b), mde=mde,
            questions=m, confidence=confidence, se_a=ses_a[index], se_b=ses_b[index], df=df,
            p_exact=None, reference=reference))
    warn_small(f"kpass.compare({name})", list(dict.fromkeys(problems)))
    return results if many else results[0]


# ----------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class Plan:
    r"""A pilot run's variance of a metric, split into what more questions and more samples shrink.

    The per-question estimate s_q of a question with success rate p_q has
    Var(s_q) = Var_q(g(p_q)) + E_q[Var(s_q | p_q, n)]: ``between`` (the spread of the true
    per-question values, which only more questions average away) plus the within-question
    sampling variance at n samples (which more samples shrink). For a paired plan the
    same holds for the per-question differences.

    Attributes:
        metric: the metric's name.
        k: the budget.
        questions: questions in the pilot.
        samples: the pilot's samples per question (the mean, for ragged pilots).
        between: between-question variance (of g(p_q), or of g_A - g_B when paired).
        within: within-question variance at the pilot's n (averaged over questions).
        paired: whether this plans a comparison of two models.
        populations: the Beta(alpha0, beta0) prior of each run's success rates (fitted to
            the pilot unless given).
        model: what the split into ``between`` and ``within`` rests on:
            ``"beta-binomial"``, each run's success rates drawn from the Beta population of
            ``populations``. ``se()`` and ``questions_for()`` at the pilot's samples use only
            the pilot's total variance (no model); ``within_at``, ``samples_for`` and any
            ``samples=`` other than the pilot's extrapolate through the model.
        fit_p_values: per run, the p-value of a chi-square goodness-of-fit test of the
            pilot's per-question correct counts against the fitted beta-binomial (cells with
            expected counts below 5 pooled; None where too few cells remain to test). A small
            value (below 0.01 a :class:`SmallSampleWarning` is issued) says the population is
            not Beta-like (easy and impossible questions mixed, say), and the extrapolation
            to other sample sizes may be off by large factors.
    """

    metric: str
    k: int
    questions: int
    samples: float
    between: float
    within: float
    paired: bool
    _within_at: Callable[[int], float]
    populations: tuple[tuple[float, float], ...] = ()
    model: str = "beta-binomial"
    fit_p_values: tuple[float | None, ...] = ()

    def within_at(self, samples: int) -> float:
        """Within-question variance of the per-question estimate at ``samples`` per question."""
        n = _check_samples(samples, self.k)
        return self._within_at(n)

    def se(self, questions: int | None = None, samples: int | None = None) -> float:
        """Predicted standard error over questions at ``questions`` and ``samples``.

        SE(M', n') = sqrt((between + within(n')) / M'); defaults are the pilot's.
        """
        m = self.questions if questions is None else _check_questions(questions)
        within = self.within if samples is None else self.within_at(samples)
        return math.sqrt((self.between + within) / m)

    def questions_for(self, difference: float, samples: int | None = None, *,
                      power: float = 0.8, alpha: float = 0.05) -> int:
        """Questions needed to detect ``difference`` (two-sided test at ``alpha``, ``power``).

        M' = ceil((z_{1-alpha/2} + z_power)^2 (between + within(n')) / difference^2), the
        normal approximation (at M' of a few dozen and up the t reference differs by a few
        percent). The smallest budget meeting the target; at least 2.
        """
        delta, z = _effect(difference, power, alpha)
        within = self.within if samples is None else self.within_at(samples)
        return max(2, math.ceil(z * z * (self.between + within) / (delta * delta)))

    def samples_for(self, difference: float, questions: int, *, power: float = 0.8,
                    alpha: float = 0.05, largest: int = 4096) -> int:
        """Samples per question needed to detect ``difference`` with ``questions`` questions.

        The smallest n' >= k with (z_{1-alpha/2} + z_power) SE(M', n') <= |difference|
        (through the beta-binomial model: see ``model`` and ``fit_p_values``).

        Raises:
            ValueError: no n' up to ``largest`` reaches it; the message says why (the
                between-question variance alone is too large at ``questions``, or
                ``largest`` is too small) and how many questions would do.
        """
        delta, z = _effect(difference, power, alpha)
        m = _check_questions(questions)
        target = delta * delta * m / (z * z) - self.between
        if target <= 0:
            raise ValueError(
                f"no number of samples detects difference={delta:g} with {m} questions: the "
                f"between-question variance alone gives SE {math.sqrt(self.between / m):.4g} "
                f"there, and {delta:g} needs SE <= {delta / z:.4g}; with the pilot's samples "
                f"it takes {self.questions_for(delta, power=power, alpha=alpha)} questions "
                "(questions_for)")
        if self.within_at(largest) > target:
            raise ValueError(
                f"more than largest={largest} samples per question are needed to detect "
                f"difference={delta:g} with {m} questions; pass a larger `largest` or use "
                f"more questions ({self.questions_for(delta, largest, power=power, alpha=alpha)}"
                f" at {largest} samples)")
        low, high = self.k, largest
        if self.within_at(low) <= target:
            return low
        while high - low > 1:  # within(n) decreases in n
            middle = (low + high) // 2
            if self.within_at(middle) <= target:
                high = middle
            else:
                low = middle
        return high


def _check_samples(samples: Any, k: int) -> int:
    value = check_real(samples, "samples", low=k)
    if value != int(value):
        raise ValueError(f"`samples` must be a whole number >= k={k}; got samples={samples}")
    return int(value)


def _check_questions(questions: Any) -> int:
    value = check_real(questions, "questions", low=2)
    if value != int(value):
        raise ValueError(f"`questions` must be a whole number >= 2; got questions={questions}")
    return int(value)


def _effect(difference: Any, power: Any, alpha: Any) -> tuple[float, float]:
    delta = abs(check_real(difference, "difference"))
    if delta == 0.0:
        raise ValueError("`difference` must be non-zero; got difference=0")
    power = check_real(power, "power", low=0.0, high=1.0, low_open=True, high_open=True)
    alpha = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    return delta, float(ndtri(1.0 - alpha / 2.0) + ndtri(power))


def _state_table(metric: Metric, n: int, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> np.ndarray:
    """s(n, c) for c = 0..n: the estimator's value at every count, from the metric itself."""
    counts = BinaryCounts(np.full(n + 1, n), np.arange(n + 1))
    return np.asarray(metric(counts, *args, per_question=True, **kwargs), dtype=float)


def _posterior_g(metric: Metric, name: str, counts: BinaryCounts, args: tuple[Any, ...],
                 alpha0: float, beta0: float) -> tuple[np.ndarray, np.ndarray]:
    """Per question: posterior E[g(p)] and E[g(p)^2] under Beta(alpha0 + c, beta0 + n - c)."""
    companion = getattr(_kpass(), name + "_ci")
    pairs = np.stack([counts.n_samples, counts.n_correct], axis=1)
    states, inverse = np.unique(pairs, axis=0, return_inverse=True)
    mean = np.empty(len(states))
    second = np.empty(len(states))
    for i, (n, c) in enumerate(states):
        mu, sigma, *_ = companion(BinaryCounts(np.array([n]), np.array([c])), *args,
                                  alpha0=alpha0, beta0=beta0)
        mean[i], second[i] = mu, sigma * sigma + mu * mu
    inverse = inverse.ravel()
    return mean[inverse], second[inverse]


def _expected_square(metric: Metric, n: int, args: tuple[Any, ...], kwargs: dict[str, Any],
                     alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """E[s(n, X)^2] with X ~ BetaBinomial(n, alpha, beta), per question."""
    from scipy.stats import betabinom

    table = _state_table(metric, n, args, kwargs)
    states, inverse = np.unique(np.stack([alpha, beta], axis=1), axis=0, return_inverse=True)
    support = np.arange(n + 1)
    pmf = betabinom.pmf(support[None, :], n, states[:, :1], states[:, 1:])
    return (pmf @ (table * table))[inverse.ravel()]


def _fit_population(counts: BinaryCounts) -> tuple[float, float]:
    """Maximum-likelihood Beta(a, b) population of success rates (Beta-binomial fit).

    Parameters are searched on the log scale within [e^-7, e^9]: an all-correct or
    all-wrong pilot drives one of them to the bound, which stays a proper prior.
    """
    from scipy.optimize import minimize
    from scipy.stats import betabinom

    keys, weight = np.unique(np.stack([counts.n_samples, counts.n_correct], axis=1), axis=0,
                             return_counts=True)
    n, c = keys[:, 0], keys[:, 1]

    def loss(theta: np.ndarray) -> float:
        a, b = np.exp(theta)
        return -float(weight @ betabinom.logpmf(c, n, a, b))

    mean = float(np.clip(counts.n_correct.sum() / counts.n_samples.sum(), 0.01, 0.99))
    fit = minimize(loss, np.log([2 * mean, 2 * (1 - mean)]), method="L-BFGS-B",
                   bounds=[(-7.0, 9.0)] * 2)
    a, b = np.exp(fit.x)
    return float(a), float(b)


def _need_variance(counts: BinaryCounts, name: str) -> None:
    """Refuse a pilot whose outcomes are all 0 or all 1: it has no variance to plan from.

    Such a pilot estimates the between- and within-question variances as (nearly) 0,
    whatever the true spread, so every plan it gave would be the smallest one (2
    questions to detect any difference); there is no conservative answer it supports.
    """
    total = int(counts.n_samples.sum())
    correct = int(counts.n_correct.sum())
    if correct in (0, total):
        raise ValueError(
            f"the pilot `{name}` has no variance: all {total} of its outcomes are "
            f"{0 if correct == 0 else 1}, so it cannot estimate the spread a plan needs; "
            "plan from a pilot on which the model is sometimes right and sometimes wrong")


def plan(metric: Metric, R: Any, k: int, *args: Any, R_b: Any = None,
         alpha0: float | None = None, beta0: float | None = None, **kwargs: Any) -> Plan:
    r"""Plan an evaluation from a pilot run: SE at other sizes, questions or samples needed.

    Formula:
        For question q with success rate p_q and n samples, the unbiased estimate s_q has
        E[s_q | p_q] = g(p_q) (the metric's Bernstein polynomial) and sampling variance
        V_q(n) = sum_c Binom(n, p_q)(c) s(n, c)^2 - g(p_q)^2. Not knowing p_q, each
        question's V_q(n) is averaged over its posterior Beta(alpha0 + c_q, beta0 + n_q -
        c_q): E[V_q(n)] = sum_c BetaBinom(n; alpha, beta)(c) s(n, c)^2 - E[g(p)^2] (for
        Pass@1 this is the familiar E[p(1-p)]/n). By default (empirical Bayes) the prior
        Beta(alpha0, beta0) is the population of success rates fitted to the pilot by
        maximum likelihood (Beta-binomial), one per run: then mean_q E[V_q(n) | c_q] is
        unbiased for E_q[V_q(n)] when the population is Beta (law of total expectation),
        where a fixed uniform prior over-smooths a few-sample pilot and mispredicts other
        n (by up to 15% from n = 4 to n' = 64 at k = 3 in simulation; 4% fitted).
        within(n) = mean_q E[V_q(n)];
        between = sample variance of the pilot's s_q - within(pilot n) (law of total
        variance; clipped at 0); SE(M', n') = sqrt((between + within(n')) / M').
        Paired (``R_b`` given): the same for d_q = s_q(A) - s_q(B), the two runs'
        sampling noise independent given the questions: within = within_A + within_B.

    Args:
        metric: a point function whose value is a mean of per-question U-statistics:
            ``pass_at_k``, ``pass_hat_k``, ``unanimous_at_k``, ``g_pass_at_k``,
            ``g_pass_at_k_tau``, ``mg_pass_at_k``, ``maj_at_k``, ``cons_at_k``,
            ``auc_at_k``, ``threshold_spectrum_at_k``.
        R: the pilot's binary outcomes (model A).
        k: the budget (one int).
        *args: the metric's other positional arguments (tau, weights).
        R_b: a second model's pilot on the same questions, for a paired plan.
        alpha0: Beta prior alpha of each question's success rate; None (default) fits it
            to the pilot with ``beta0`` (empirical Bayes).
        beta0: Beta prior beta; None (default) fits it.
        **kwargs: the metric's keyword arguments (``short`` is not supported: planning
            needs every question at k).

    Returns:
        A :class:`Plan`: ``se(questions, samples)``, ``questions_for(difference, samples)``,
        ``samples_for(difference, questions)``, ``within_at(samples)``, the pilot's
        ``between`` and ``within``, the ``model`` the split rests on and its
        ``fit_p_values``.

    Warns:
        SmallSampleWarning: a pilot of fewer than 30 questions, or one whose counts do not
            fit the beta-binomial model (goodness-of-fit p < 0.01).

    Raises:
        TypeError: a metric outside the list above.
        ValueError: fewer than 2 questions, a question with fewer than k samples, bad k,
            or a pilot with no variance (every outcome of ``R`` or of ``R_b`` is 0, or every
            one is 1): its variances would be estimated as 0 and any plan would say that
            2 questions detect any difference.

    References:
        Miller (2024), arXiv:2411.00640, section 5 (power analysis) and the law of total
        variance of section 2.2.

    Example:
        >>> import kpass
        >>> R = [[1, 1, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]] * 25
        >>> p = kpass.plan(kpass.pass_at_k, R, 1)
        >>> round(p.se(), 6) == round(kpass.standard_error(kpass.pass_at_k, R, 1), 6)
        True
        >>> round(p.se(questions=400), 4), round(p.se(samples=64), 4)
        (0.0163, 0.025)
        >>> p.questions_for(0.05), p.samples_for(0.1, questions=400)
        (335, 1)
        >>> p.model, [round(x, 3) for x in p.fit_p_values]
        ('beta-binomial', [0.0])
    """
    name = _check_metric(metric)
    if name not in _CREDIT_METRICS:
        raise ArgumentTypeError(f"`metric` must be one of kpass.{', kpass.'.join(_CREDIT_METRICS)} "
                                f"for planning; got kpass.{name}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise ArgumentTypeError(f"`k` must be one int for planning; got k={_show(k)}")
    if "short" in kwargs:
        raise ValueError("`short` is not supported by plan: every question needs k samples")
    args = (int(k), *args)
    runs = [R] if R_b is None else [R, R_b]
    parts = []
    populations = []
    fits: list[float | None] = []
    if (alpha0 is None) != (beta0 is None):
        raise ValueError(f"`alpha0` and `beta0` must be given together (or both None to fit "
                         f"them); got alpha0={_show(alpha0)}, beta0={_show(beta0)}")
    for label, run in zip(("R", "R_b"), runs, strict=False):
        counts = _counts_of(run)
        _need_variance(counts, label)
        values = np.asarray(metric(counts, *args, per_question=True, **kwargs), dtype=float)
        if alpha0 is None:
            a0, b0 = _fit_population(counts)
        else:
            a0 = check_real(alpha0, "alpha0", low=0.0, low_open=True)
            b0 = check_real(beta0, "beta0", low=0.0, low_open=True)
        populations.append((float(a0), float(b0)))
        fits.append(_fit_check(counts, float(a0), float(b0)))
        mean, second = _posterior_g(metric, name, counts, args, a0, b0)
        alpha = a0 + counts.n_correct
        beta = b0 + counts.n_samples - counts.n_correct
        parts.append((counts, values, second, alpha, beta))
    m = parts[0][0].n_questions
    if any(part[0].n_questions != m for part in parts):
        raise ValueError(f"`R` and `R_b` must score the same questions; got {m} and "
                         f"{parts[1][0].n_questions} questions")
    _need_two(m, "the pilot `R`")

    def within_at(n: int) -> float:
        total = 0.0
        for _, _, second, alpha, beta in parts:
            total += float(np.mean(_expected_square(metric, n, args, kwargs, alpha, beta)
                                   - second))
        return max(total, 0.0)

    def pilot_within() -> float:
        total = 0.0
        for counts, _, second, alpha, beta in parts:
            per_question = np.empty(m)
            for n in np.unique(counts.n_samples):
                rows = counts.n_samples == n
                per_question[rows] = _expected_square(metric, int(n), args, kwargs,
                                                      alpha[rows], beta[rows]) - second[rows]
            total += float(per_question.mean())
        return max(total, 0.0)

    scores = parts[0][1] if R_b is None else parts[0][1] - parts[1][1]
    within = pilot_within()
    between = max(float(np.var(scores, ddof=1)) - within, 0.0)
    samples = float(np.mean(parts[0][0].n_samples))
    problems = small_sample_problems(m, False, [], [])
    misfit = [f"{label} (p = {value:.2g})" for label, value in zip(("R", "R_b"), fits,
                                                                   strict=False)
              if value is not None and value < 0.01]
    if misfit:
        problems.append("the pilot's per-question counts do not fit a beta-binomial population "
                        f"({', '.join(misfit)}): within_at, samples_for and any other "
                        "samples= extrapolate through that model and may be far off")
    warn_small(f"kpass.plan({name})", problems)
    return Plan(metric=name, k=int(k), questions=m, samples=samples, between=between,
                within=within, paired=R_b is not None, _within_at=within_at,
                populations=tuple(populations), fit_p_values=tuple(fits))


def _fit_check(counts: BinaryCounts, a: float, b: float) -> float | None:
    """Chi-square goodness-of-fit p-value of the counts against BetaBinomial(n, a, b).

    Per sample size n, cells c = 0..n with expected count E_c = M_n pmf(c); cells are
    pooled left to right until each expects at least 5; X^2 = sum (O - E)^2 / E over the
    pooled cells of every n, with (cells - groups - 2) degrees of freedom (two fitted
    parameters). None when fewer than one degree of freedom remains.
    """
    from scipy.special import chdtrc
    from scipy.stats import betabinom

    statistic, cells, groups = 0.0, 0, 0
    for n in np.unique(counts.n_samples):
        rows = counts.n_samples == n
        observed = np.bincount(counts.n_correct[rows], minlength=int(n) + 1).astype(float)
        expected = rows.sum() * betabinom.pmf(np.arange(int(n) + 1), int(n), a, b)
        pooled_o, pooled_e, run_o, run_e = [], [], 0.0, 0.0
        for o, e in zip(observed, expected, strict=True):
            run_o, run_e = run_o + o, run_e + e
            if run_e >= 5.0:
                pooled_o.append(run_o)
                pooled_e.append(run_e)
                run_o, run_e = 0.0, 0.0
        if pooled_e:
            pooled_o[-1] += run_o
            pooled_e[-1] += run_e
        else:
            continue
        statistic += sum((o - e) ** 2 / e for o, e in zip(pooled_o, pooled_e, strict=True))
        cells += len(pooled_e)
        groups += 1
    df = cells - groups - 2
    if df < 1:
        return None
    return float(chdtrc(df, statistic))


__all__ = ["Comparison", "Plan", "SmallSampleWarning", "compare", "plan", "standard_error"]
