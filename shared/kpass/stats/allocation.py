r"""Where the next samples go: allocating a sampling budget across questions.

:func:`allocate` splits a budget of extra samples across questions so that the expected
within-question variance of a metric's estimate over these questions is smallest, from
each question's posterior; :func:`expected_within_variance` is that variance for a given
split (to compare a split with spreading the budget evenly).

The per-question estimate s(N, X) of every credit metric (Pass@k, Pass^k, G-Pass@k, ...)
is a U-statistic of order k of the N binary outcomes (Hoeffding 1948), so its variance
given p, V(N; p) = sum_{j=1}^{k} C(k, j) C(N - k, k - j) / C(N, k) zeta_j(p), is a
sum of terms decreasing and convex in N; averaged over a posterior it stays so, and a
greedy allocation of one sample at a time to the question whose expected variance drops
most is then optimal for the sum (separable convex objective under a sum constraint:
Fox 1966). ``tests/stats/test_allocation.py`` checks it against enumerating every allocation.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_int
from .._core.counting.counts import BinaryCounts
from .._core.moments.prior import resolve_prior
from ._common import _CREDIT_METRICS, Metric, MetricLike, _check_metric, _counts_of
from .planning import _posterior_g


def _prior(prior: Any, counts: BinaryCounts) -> tuple[float, float]:
    """``prior=``'s one meaning: "uniform" (Beta(1, 1)), "empirical" or an (a, b) pair."""
    return resolve_prior(prior, counts)


class _Objective:
    """E[s(N, X)^2] under X ~ BetaBinomial(N, a, b), cached per (state, N), for one metric."""

    def __init__(self, metric: Metric, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.metric, self.args, self.kwargs = metric, args, kwargs
        self.tables: dict[int, np.ndarray] = {}
        self.values: dict[tuple[float, float, int], float] = {}

    def table(self, n: int) -> np.ndarray:
        """s(n, c)^2 for c = 0..n, from the metric itself."""
        squares = self.tables.get(n)
        if squares is None:
            counts = BinaryCounts(np.full(n + 1, n), np.arange(n + 1))
            values = np.asarray(self.metric(counts, *self.args, per_question=True,
                                            **self.kwargs), dtype=float)
            squares = self.tables[n] = values * values
        return squares

    def second_moment(self, a: float, b: float, n: int) -> float:
        key = (a, b, n)
        value = self.values.get(key)
        if value is None:
            from scipy.stats import betabinom

            pmf = betabinom.pmf(np.arange(n + 1), n, a, b)
            value = self.values[key] = float(pmf @ self.table(n))
        return value


def _check_inputs(metrics: list[Metric], counts: Any, k: Any, budget: Any
                  ) -> tuple[list[str], BinaryCounts, int, int]:
    names = []
    for metric in metrics:
        name, metric = _check_metric(metric)
        if name not in _CREDIT_METRICS:
            raise ArgumentTypeError(
                f"`metric` must be one of kpass.{', kpass.'.join(_CREDIT_METRICS)} (a mean of "
                f"per-question U-statistics) for allocation; got kpass.{name}")
        names.append(name)
    k = check_int(k, "k")
    if k < 1:
        raise InputError(f"`k` must be >= 1; got k={k}")
    budget = check_int(budget, "budget")
    if budget < 0:
        raise InputError(f"`budget` must be >= 0 extra samples; got budget={budget}")
    return names, _counts_of(counts), k, budget


def allocate(metric: MetricLike | Sequence[MetricLike], counts: Any, k: int, budget: int,
             *args: Any, prior: Any = "uniform", **kwargs: Any) -> np.ndarray:
    r"""How many extra samples each question should get, to estimate a metric most precisely.

    Formula:
        Question q has n_q samples, c_q correct, and posterior p_q ~ Beta(a + c_q,
        b + n_q - c_q). After m_q more samples its estimate is s(N, X) with N = n_q + m_q,
        whose sampling variance given p is V(N; p) = E[s(N, X)^2 | p] - g(p)^2; averaged
        over the posterior, W_q(N) = sum_x BetaBinom(N; a + c_q, b + n_q - c_q)(x)
        s(N, x)^2 - E[g(p)^2] (exact, from the metric's own values s(N, x)). The split
        minimises sum_q W_q(n_q + m_q) subject to sum_q m_q = ``budget``: greedily, one
        sample at a time to the question whose W_q drops most. W_q is decreasing and
        convex in N (a U-statistic's variance), so the greedy split is optimal (Fox 1966).
        Questions with fewer than k samples are first topped up to k (the estimator needs
        k). With several metrics the objective is sum_metric sum_q W_q / sum_q W_q(n_q):
        each metric's variance relative to its current one.

    Questions the metric cannot learn more from get none: a question whose expected
    variance barely moves (Pass@k of a question already solved every time, Pass^k of one
    never solved) loses to every question that still has something to tell.

    Args:
        metric: a credit point function (``kpass.pass_at_k``, ``kpass.pass_hat_k``,
            ``kpass.g_pass_at_k_tau``, ...) or a list of them (all at this k, sharing
            ``*args``).
        counts: the outcomes so far (binary lists or ``BinaryCounts``; ragged n allowed).
        k: the metric's budget (one int).
        budget: the extra samples to spread (an int >= 0).
        *args: the metric's positional arguments after k (tau, ...).
        prior: the Beta(a, b) prior of every question's success rate: ``"uniform"``
            (Beta(1, 1), the default) or an ``(a, b)`` pair, e.g. a population fitted to
            the benchmark. The posterior is the metric's own (``<metric>_ci``).
        **kwargs: the metric's keyword arguments.

    Returns:
        An int array of extra samples per question (in the questions' order), summing to
        ``budget``.

    Raises:
        TypeError: a metric that is not a mean of per-question U-statistics (avg, Vote@k,
            dataset-level blends), a bad ``prior``, ``k`` or ``budget`` type.
        ValueError: ``budget`` too small to bring every question to k samples, a negative
            budget, a bad prior.

    References:
        Hoeffding (1948), Ann. Math. Statist. 19, 293-325 (U-statistics); Fox (1966),
        Management Science 13, 210-216 (greedy marginal allocation).

    Example:
        >>> import kpass
        >>> R = [[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0], [1, 1, 1, 0]]
        >>> kpass.allocate(kpass.pass_at_k, R, 4, 12).tolist()
        [0, 7, 3, 2]
    """
    metrics: list[Metric] = (list(metric) if isinstance(metric, (list, tuple))
                             else [metric])  # type: ignore[list-item]
    if not metrics:
        raise InputError("`metric` must name at least one metric")
    metrics = [_check_metric(m, "allocate", (k, *args), kwargs)[1] for m in metrics]
    _, counts, k, budget = _check_inputs(metrics, counts, k, budget)
    a0, b0 = _prior(prior, counts)
    return _greedy([(m, (k, *args), dict(kwargs)) for m in metrics], counts, k, budget, a0, b0)


def _greedy(objectives: list[tuple[Metric, tuple[Any, ...], dict[str, Any]]],
            counts: BinaryCounts, k: int, budget: int, a0: float, b0: float) -> np.ndarray:
    """The greedy split over one or more (metric, args, kwargs) objectives."""
    n = counts.n_samples.astype(np.int64)
    c = counts.n_correct.astype(np.int64)
    extra = np.maximum(k - n, 0)
    needed = int(extra.sum())
    if needed > budget:
        raise InputError(f"`budget`={budget} cannot bring every question to k={k} samples: "
                         f"{int((extra > 0).sum())} questions need {needed} more")
    remaining = budget - needed
    alphas = a0 + c
    betas = b0 + n - c
    models = [_Objective(metric, args, kwargs) for metric, args, kwargs in objectives]
    scales = [1.0] * len(models)
    if len(models) > 1:
        scales = [1.0 / max(expected_within_variance(metric, counts, args[0], extra, *args[1:],
                                                     prior=(a0, b0), **kwargs) * n.size,
                            1e-300)
                  for metric, args, kwargs in objectives]

    def value(q: int, total: int) -> float:
        return sum(scale * model.second_moment(float(alphas[q]), float(betas[q]), total)
                   for scale, model in zip(scales, models, strict=True))

    heap: list[tuple[float, int]] = []
    current = [0.0] * n.size
    for q in range(n.size):
        total = int(n[q] + extra[q])
        current[q] = value(q, total)
        heap.append((-(current[q] - value(q, total + 1)), q))
    heapq.heapify(heap)
    for _ in range(remaining):
        _, q = heapq.heappop(heap)
        extra[q] += 1
        total = int(n[q] + extra[q])
        current[q] = value(q, total)
        heapq.heappush(heap, (-(current[q] - value(q, total + 1)), q))
    return extra.astype(np.int64)


def expected_within_variance(metric: Metric, counts: Any, k: int, extra: Any, *args: Any,
                             prior: Any = "uniform", **kwargs: Any) -> float:
    r"""The posterior-expected within-question variance of the metric after ``extra`` samples.

    Formula:
        (1 / M^2) sum_q W_q(n_q + m_q), W_q as in :func:`allocate`: the part of the squared
        standard error of the metric over these M questions that sampling leaves (the
        variance of the mean of the per-question estimates given the success rates,
        averaged over each question's posterior).

    Args:
        metric: a credit point function (as :func:`allocate`).
        counts: the outcomes so far.
        k: the metric's budget.
        extra: extra samples per question (ints >= 0; each n_q + m_q must be >= k).
        *args: the metric's positional arguments after k.
        prior: ``"uniform"`` or an ``(a, b)`` pair, as :func:`allocate`.
        **kwargs: the metric's keyword arguments.

    Returns:
        The variance (a float >= 0).

    Example:
        >>> import kpass
        >>> from kpass.stats.allocation import expected_within_variance
        >>> R = [[1, 0], [0, 0]]
        >>> round(expected_within_variance(kpass.pass_at_k, R, 1, [0, 0]), 6)  # E[p(1-p)]/2 /4
        0.04375
    """
    metric = _check_metric(metric)[1]
    _, counts, k, _ = _check_inputs([metric], counts, k, 0)
    a0, b0 = _prior(prior, counts)
    m = np.asarray(extra)
    if m.shape != (counts.n_questions,) or m.dtype.kind not in "iu":
        raise InputError(f"`extra` must hold one int per question ({counts.n_questions}); got "
                         f"{_show(extra)}")
    if (m < 0).any():
        raise InputError("`extra` must be >= 0 for every question")
    totals = counts.n_samples + m
    if (totals < k).any():
        raise InputError(f"every question needs at least k={k} samples after `extra`; "
                         f"{int((totals < k).sum())} would have fewer")
    name, metric = _check_metric(metric)
    args = (k, *args)
    _, second_g = _posterior_g(metric, name, counts, args, a0, b0)
    model = _Objective(metric, args, kwargs)
    alphas = a0 + counts.n_correct
    betas = b0 + counts.n_samples - counts.n_correct
    total = sum(model.second_moment(float(alphas[q]), float(betas[q]), int(totals[q]))
                - float(second_g[q]) for q in range(counts.n_questions))
    return max(total, 0.0) / counts.n_questions ** 2
