"""What the standard errors, comparisons and plans share.

The metric families' kinds, per-question values, cluster labels, the CLT and jackknife
SEs (see :mod:`kpass.stats`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_confidence,
    check_labels,
    check_reference,
    check_shared,
)
from .._core.counting.counts import BinaryCounts
from .._core.counting.inputs import binary_counts, categorical_counts
from .._core.counting.states import states_for
from .._core.moments.prior import check_prior_option
from ..families import functions
from ..registry import FAMILIES, names, of_function

Metric = Callable[..., Any]
#: How a public function takes a metric: the point function (``kpass.pass_at_k``), its
#: name (``"pass_at_k"``) or its registry key (``"pass@k"``), resolved by
#: :func:`_check_metric`.
MetricLike = Callable[..., Any] | str

#: Dataset-level blends: no per-question value exists, so their SE is a jackknife.
_DATASET_LEVEL = names(values="dataset")

#: Point functions whose value is the mean of a per-question U-statistic of a binary
#: credit (E[s_q | p_q] = g(p_q), the Bernstein polynomial): what :func:`plan` decomposes.
_CREDIT_METRICS = names(credit=True)


#: Point functions with k whose per-question value depends on a question only through its
#: state (n, c): their SE over M questions is a weighted sum over the distinct states.
_STATE_METRICS = names(values="state", per_k=True)


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


ROUNDING = 1e-12
"""An SE at most this share of the largest value it is computed from is floating-point
noise (the mean of 25 equal values 0.1 differs from 0.1 by 1.4e-17): it is read as 0,
so that identical values give se = 0 and the exact bound and p of se = 0, never
se = 2.7e-16 with p = 0 and a 1e-15-wide interval."""


def _noise_free(se: float, scale: float) -> float:
    """``se``, or 0.0 where it is within :data:`ROUNDING` of 0 relative to ``scale``."""
    return 0.0 if se <= ROUNDING * scale else se


def _weighted_se(weights: np.ndarray, per_state: np.ndarray) -> float | None:
    """The CLT SE of questions with these per-state values and weights, or None below 2."""
    used = np.isfinite(per_state)
    w, v = weights[used], per_state[used]
    m = float(w.sum())
    if m < 2:
        return None
    mean = float((w * v).sum() / m)
    se = math.sqrt(float((w * np.square(v - mean)).sum()) / (m * (m - 1)))
    return _noise_free(se, float(np.abs(v).max()))


#: Point functions whose per-question value on binary counts depends on the state alone,
#: for :func:`estimates_and_standard_errors` (with avg@N: c / n).
_PER_STATE = names(values="state")


def _check_metric(metric: Any, caller: str | None = None, args: tuple[Any, ...] = (),
                  kwargs: dict[str, Any] | None = None) -> tuple[str, Callable[..., Any]]:
    """The one resolver of a metric argument: (function name, point function), or a TypeError.

    A metric is named by its point function (``kpass.pass_at_k``), the function's name
    (``"pass_at_k"``) or its registry key (``"pass@k"``), wherever one is taken. With
    ``caller``, the arguments the public function ``caller`` forwards to the metric
    (``args``, ``kwargs``) are checked against its signature here, so a mistyped keyword is
    reported by the function the user called, not by the metric deep inside.
    """
    known: dict[str, Callable[..., Any]] = {**functions(), "binary_counts": binary_counts,
                                            "categorical_counts": categorical_counts}
    if isinstance(metric, str):
        by_key = {fam.key: fam.function for fam in FAMILIES}
        if by_key.get(metric, metric) not in known:
            raise ArgumentTypeError(
                f"`metric` must be a kpass point function, its name or its registry key "
                f"(kpass.pass_at_k, 'pass_at_k' or 'pass@k'); got metric={_show(metric)}")
        metric = known[by_key.get(metric, metric)]
    name = getattr(metric, "__name__", None)
    exported = known.get(name) if isinstance(name, str) else None
    if (not callable(metric) or not isinstance(name, str) or exported is None
            or exported is not metric):
        raise ArgumentTypeError(
            f"`metric` must be a kpass point function such as kpass.pass_at_k (or its name "
            f"'pass_at_k', or its key 'pass@k'); got metric={_show(metric)}")
    if name.endswith("_ci"):
        raise ArgumentTypeError(
            f"`metric` must be a point function, not the posterior `{name}`; pass "
            f"kpass.{name[:-3]} (its `_ci` companion is used for prob_a_better)")
    if name not in names():
        raise ArgumentTypeError(f"`metric` must be a metric of the family; got kpass.{name}")
    if caller is not None:
        _check_forwarded(caller, name, metric, args, kwargs or {})
    return name, metric


def _check_forwarded(caller: str, name: str, metric: Callable[..., Any], args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> None:
    """Refuse, in ``caller``'s name, arguments ``metric`` would not accept."""
    import inspect

    signature = inspect.signature(metric)
    try:
        signature.bind_partial(None, *args, **kwargs)
    except TypeError as error:
        takes = [p.name for p in list(signature.parameters.values())[1:]]
        reason = str(error).replace(f"{name}() ", "")
        raise ArgumentTypeError(
            f"kpass.{caller}() passes its extra arguments to kpass.{name}, which refuses "
            f"them: {reason} (kpass.{name} takes {', '.join(takes)} after the outcomes)"
        ) from None


def metric_names(metrics: Any) -> Any:
    """``metrics`` of the tables, every function given as its name (through _check_metric).

    ``kpass.pass_at_k`` -> ``"pass_at_k"``; strings and None pass unchanged. So
    ``report_table`` and ``compare_table`` take a metric as its function or its name, as
    ``compare`` and the others do.
    """
    if callable(metrics):
        return _check_metric(metrics)[0]
    if isinstance(metrics, (list, tuple)):
        return [_check_metric(item)[0] if callable(item) else item for item in metrics]
    return metrics


#: The options :func:`standard_error`, :func:`compare`, :func:`leaderboard` and
#: :func:`confidence_sequence` share, each checked by one validator (one message shape:
#: the argument, the value received, what was expected).
_OPTION_CHECKS: dict[str, Callable[[Any], Any]] = {
    "confidence": check_confidence,
    "reference": check_reference,
    "shared": check_shared,
    "prior": check_prior_option,
    "clusters": check_labels,  # an ordered sequence; its length is checked by _labels
}


def check_options(**options: Any) -> dict[str, Any]:
    """The shared options of the statistics functions, validated, by name.

    Every function taking one of ``confidence``, ``reference``, ``shared``, ``prior`` or
    ``clusters`` checks it here, before any data is read, so a bad value gets the same
    message from each (``clusters`` is checked for being an ordered sequence; its length
    once the questions are known).

    Returns:
        The options as given, ``confidence`` as a float and ``shared`` as a bool.

    Raises:
        TypeError: an option of the wrong type (``ArgumentTypeError``, also a ValueError).
        ValueError: an option outside its range.

    Example:
        >>> check_options(confidence=0.9, shared=False)
        {'confidence': 0.9, 'shared': False}
    """
    return {name: _OPTION_CHECKS[name](value) for name, value in options.items()}


def _per_question(metric: Metric, name: str, R: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[list[np.ndarray], bool]:
    """Per-question values of every k (NaN where a question was skipped), and 'several k'."""
    values = metric(R, *args, per_question=True, **kwargs)
    if not of_function(name).per_k:
        return [np.asarray(values, dtype=float)], False
    if isinstance(values, list):
        return [np.asarray(v, dtype=float) for v in values], True
    return [np.asarray(values, dtype=float)], False


def _labels(clusters: Any, m: int, argument: str = "clusters") -> np.ndarray | None:
    """Cluster codes 0..G-1, one per question, from labels validated as ``--clusters`` is.

    A label is a str or an int (numpy ones included), as ``kpass compare --clusters``
    reads them from a file; None, NaN, floats and bools are refused by position, and
    1 and "1" are different clusters (no label is converted). ``clusters`` itself must
    be ordered (a list, tuple, array or Series): a set or a dict has no question order.
    """
    if clusters is None:
        return None
    check_labels(clusters, argument)
    labels = clusters if isinstance(clusters, np.ndarray) else np.asarray(
        clusters if hasattr(clusters, "__array__") and not isinstance(clusters, Sequence)
        else list(clusters), dtype=object)
    if labels.ndim != 1 or labels.size != m:
        raise InputError(f"`{argument}` must have one label per question (M={m}); got "
                         f"{labels.size if labels.ndim == 1 else labels.shape} labels")
    if labels.dtype.kind in "iuU":
        _, codes = np.unique(labels, return_inverse=True)
        return codes.ravel()
    keys: dict[tuple[int, Any], int] = {}
    codes = np.empty(m, dtype=np.intp)
    for position, label in enumerate(labels.tolist()):
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, (str, int, np.integer)):
            raise ArgumentTypeError(
                f"`{argument}` must hold a str or int label per question; got "
                f"{argument}[{position}]={_show(label)} ({type(label).__name__})")
        key = (0, int(label)) if isinstance(label, (int, np.integer)) else (1, str(label))
        codes[position] = keys.setdefault(key, len(keys))
    return codes


def _clt_se(values: np.ndarray, codes: np.ndarray | None) -> float:
    """sqrt(sum (s - mean)^2 / (M (M - 1))), or its clustered (CR2) form over cluster codes.

    Clustered: the CR2 sandwich of Bell and McCaffrey (2002) for a mean, which for the
    intercept-only model has the closed form
    Var = (1/M^2) sum_g (sum_{q in g} (s_q - mean))^2 / (1 - n_g / M)
    over G clusters of n_g questions (the hat matrix's block of cluster g is J / M, and
    (I - J_{n_g} / M)^{-1/2} scales the cluster's residual sum by 1 / sqrt(1 - n_g / M)).
    With G clusters of equal size this is the G/(G-1) formula of Miller (2024, eq. 4);
    with one question per cluster it equals the plain formula exactly. Its degrees of
    freedom are :func:`_cluster_df`.

    References:
        Bell and McCaffrey (2002), "Bias reduction in standard errors for linear
        regression with multi-stage samples", Survey Methodology 28(2).
        Pustejovsky and Tipton (2018), "Small-sample methods for cluster-robust variance
        estimation and hypothesis testing in fixed effects models", JBES 36(4).
    """
    m = values.size
    residuals = values - values.mean()
    if codes is None:
        # A plain reduction, not a BLAS dot: on a busy machine OpenBLAS's threads made the
        # dot of 100000 values take 4 ms instead of 0.1 ms.
        se = math.sqrt(float(np.square(residuals).sum()) / (m * (m - 1)))
        return _noise_free(se, float(np.abs(values).max()))
    sums = np.bincount(codes, weights=residuals)
    sizes = np.bincount(codes, minlength=sums.size).astype(float)
    present = sizes > 0
    groups = int(np.count_nonzero(present))
    if groups < 2:
        raise TooFewQuestionsError("the clustered standard error needs at least 2 clusters "
                                   f"among the questions used; got {groups}")
    factor = 1.0 / (1.0 - sizes[present] / m)
    se = math.sqrt(float((factor * np.square(sums[present])).sum()) / (m * m))
    return _noise_free(se, float(np.abs(values).max()))


def _cluster_df(codes: np.ndarray | None, m: int) -> float:
    """Bell-McCaffrey degrees of freedom of the CR2 variance of a mean (M - 1 unclustered).

    The CR2 variance is e' B e with e = (I - J/M) y and B = sum_g a_g a_g',
    a_g = 1_g / sqrt(1 - n_g/M); under y ~ N(mu, sigma^2 I) it is sigma^2 sum_i lambda_i
    chi^2_1 over the eigenvalues of G'G, G = (I - J/M)[a_1 ... a_G], and the Satterthwaite
    df is (sum lambda)^2 / sum lambda^2 = tr(G'G)^2 / ||G'G||_F^2. Here
    G'G = D - u u'/M with D = diag(n_g / (1 - n_g/M)), u_g = n_g / sqrt(1 - n_g/M). Equal
    clusters give exactly G - 1; one question per cluster M - 1.

    References:
        Bell and McCaffrey (2002), section 3; Imbens and Kolesar (2016), "Robust standard
        errors in small samples: some practical advice", Rev. Econ. Stat. 98(4).
    """
    if codes is None:
        return float(m - 1)
    sizes = np.bincount(codes).astype(float)
    sizes = sizes[sizes > 0]
    total = float(sizes.sum())
    c2 = 1.0 / (1.0 - sizes / total)
    d = c2 * sizes
    u = np.sqrt(c2) * sizes
    gram = np.diag(d) - np.outer(u, u) / total
    trace = float(np.trace(gram))
    frobenius = float(np.square(gram).sum())
    return trace * trace / frobenius


class TooFewQuestionsError(InputError):
    """Fewer than 2 questions (or clusters) for a standard error over questions."""


def _need_two(m: int, what: str) -> None:
    if m < 2:
        raise TooFewQuestionsError(f"the standard error over questions needs at least 2 questions; "
                         f"{what} has {m}")


def _counts_of(R: Any) -> BinaryCounts:
    return R if isinstance(R, BinaryCounts) else binary_counts(R)


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
    return [_noise_free(math.sqrt((groups - 1) / groups * float(weights @ (col * col))),
                        float(np.abs(values).max()))
            for col, values in zip(spread.T, leave_out.T, strict=True)]


def _state_keys(*counts: BinaryCounts) -> np.ndarray:
    return np.stack([column for c in counts for column in (c.n_samples, c.n_correct)], axis=1)


def _dataset_statistic(metric: Metric, R: Any, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> tuple[Callable[[np.ndarray], list[float]], int]:
    counts = _counts_of(R)

    def statistic(mask: np.ndarray) -> list[float]:
        value = metric(counts.select(mask), *args, **kwargs)
        return [float(v) for v in (value if isinstance(value, list) else [value])]

    return statistic, counts.n_questions


