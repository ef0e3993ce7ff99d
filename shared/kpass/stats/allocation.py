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
Fox 1966). kpass finds that greedy split without stepping: the variance at any N is a
closed form in N (:class:`_Kernel`), and a threshold on the drops is bisected.
``tests/stats/test_allocation.py`` checks it against enumerating every allocation.
"""

from __future__ import annotations

import heapq
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_int
from .._core.counting.counts import BinaryCounts
from .._core.moments.prior import beta_prior_fit, check_prior_option, resolve_prior
from ._common import _CREDIT_METRICS, Metric, MetricLike, _check_metric, _counts_of


def _prior(prior: Any, counts: BinaryCounts) -> tuple[float, float]:
    """``prior=``'s one meaning: "uniform" (Beta(1, 1)), "empirical" or an (a, b) pair.

    A degenerate empirical fit (one question, every question with the same share correct,
    a parameter at the fit's bound) would steer the split by nothing the run showed: the
    uniform prior is used instead, with a warning that says so.
    """
    if check_prior_option(prior) == "empirical":
        a, b, reason = beta_prior_fit(counts)
        if not reason:
            return a, b
        warnings.warn(f'prior="empirical": the Beta fit to these questions is degenerate '
                      f"({reason}); the split uses the uniform prior Beta(1, 1) instead",
                      UserWarning, stacklevel=3)
        return 1.0, 1.0
    return resolve_prior(prior, counts)


MAX_BUDGET = 2**52
"""The largest budget :func:`allocate` takes: sample counts stay exact in a float."""

MAX_K = 200
"""The largest k :func:`allocate` takes (its kernel's binomial weights stay finite)."""


class _Kernel:
    r"""The Hoeffding decomposition of one credit metric at k, for any posterior and any N.

    The per-question estimate s(N, X) is a U-statistic of order k with kernel
    f(i) = s(k, i) (i successes among k outcomes). Its variance given p is
    V(N; p) = sum_{j=1}^{k} w_j(N) zeta_j(p), w_j(N) = C(k, j) C(N - k, k - j) / C(N, k)
    (Hoeffding 1948), zeta_j(p) = xi_j(p) - xi_0(p), xi_j(p) = E[h_j(I; p)^2] with
    I ~ Bin(j, p) and h_j(i; p) = sum_t Bin(k - j, p)(t) f(i + t). xi_j is a polynomial
    of degree 2k - j, sum_r A_jr p^r (1 - p)^(2k - j - r), so under a Beta(alpha, beta)
    posterior E[xi_j] = sum_r A_jr E[p^r (1 - p)^(2k-j-r)] with the exact moments
    E[p^r (1 - p)^s] = prod_{i<r} (alpha + i) prod_{i<s} (beta + i) / prod_{i<r+s}
    (alpha + beta + i), summed on the log scale (no beta-binomial pmf: any alpha, beta).
    Then W_q(N) = sum_j w_j(N) Z_qj with Z_qj = E[zeta_j] fixed per question: every N
    costs O(k), whatever the samples a question already has.
    """

    def __init__(self, metric: Metric, args: tuple[Any, ...], kwargs: dict[str, Any],
                 k: int) -> None:
        from scipy.special import comb

        counts = BinaryCounts(np.full(k + 1, k), np.arange(k + 1))
        f = np.asarray(metric(counts, *args, per_question=True, **kwargs), dtype=float)
        self.k = k
        self.coefficients = np.zeros((k + 1, 2 * k + 1))
        for j in range(k + 1):
            weights = comb(k - j, np.arange(k - j + 1))
            for i in range(j + 1):
                u = weights * f[i:i + k - j + 1]
                self.coefficients[j, i:i + 2 * (k - j) + 1] += comb(j, i) * np.convolve(u, u)

    def zetas(self, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        """E[zeta_j(p)] under Beta(alpha_q, beta_q), shape (questions, k), j = 1..k."""
        k = self.k
        steps = np.arange(2 * k)
        with np.errstate(divide="ignore"):
            def prefix(x: np.ndarray) -> np.ndarray:  # [sum_{i<r} log(x + i)] for r=0..2k
                logs = np.log(x[:, None] + steps[None, :])
                return np.concatenate([np.zeros((x.size, 1)), np.cumsum(logs, axis=1)], 1)
            log_a, log_b, log_ab = prefix(alpha), prefix(beta), prefix(alpha + beta)
        xi = np.empty((alpha.size, k + 1))
        for j in range(k + 1):
            degree = 2 * k - j
            r = np.arange(degree + 1)
            moments = np.exp(log_a[:, r] + log_b[:, degree - r] - log_ab[:, [degree]])
            xi[:, j] = moments @ self.coefficients[j, :degree + 1]
        return np.maximum(xi[:, 1:] - xi[:, :1], 0.0)


def _weights(k: int, total: np.ndarray) -> np.ndarray:
    """w_j(N) = C(k, j) C(N - k, k - j) / C(N, k) for j = 1..k, shape (questions, k).

    As k!/(k-j)! C(k, j) prod_{i<k-j} (1 - k/(N - i)) prod_{i=k-j}^{k-1} 1/(N - i), on the
    log scale with log1p (exact to rounding at any N); 0 where N - k < k - j.
    """
    from scipy.special import gammaln

    N = np.asarray(total, dtype=float)[:, None]
    i = np.arange(k, dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.log1p(-k / (N - i))
        far = np.log(N - i)
    first = np.concatenate([np.zeros((N.shape[0], 1)), np.cumsum(near, axis=1)], axis=1)
    second = np.concatenate([np.zeros((N.shape[0], 1)), np.cumsum(far, axis=1)], axis=1)
    j = np.arange(1, k + 1)
    rest = k - j  # k - j terms of the first product, j of the second
    log_w = (gammaln(k + 1.0) - gammaln(rest + 1.0) + gammaln(k + 1.0) - gammaln(j + 1.0)
             - gammaln(rest + 1.0) + first[:, rest] - (second[:, [k]] - second[:, rest]))
    valid = (N - k) >= rest[None, :]
    return np.where(valid, np.exp(np.where(valid, log_w, 0.0)), 0.0)


def _within(k: int, zetas: np.ndarray, total: np.ndarray) -> np.ndarray:
    """W_q(N_q) = sum_j w_j(N_q) Z_qj, per question."""
    return (_weights(k, total) * zetas).sum(axis=1)


def _gain(k: int, zetas: np.ndarray, total: np.ndarray) -> np.ndarray:
    """W_q(N) - W_q(N + 1) per question, without cancellation at large N.

    w_j(N + 1) / w_j(N) = (N + 1 - k)^2 / ((N + 1 - 2k + j)(N + 1)), so
    w_j(N) - w_j(N + 1) = w_j(N) (j (N + 1) - k^2) / ((N + 1 - 2k + j)(N + 1)) where
    w_j(N) > 0, and -w_j(N + 1) where w_j(N) = 0.
    """
    N = np.asarray(total, dtype=float)
    now = _weights(k, N)
    after = _weights(k, N + 1.0)
    j = np.arange(1, k + 1, dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = (j * (N[:, None] + 1.0) - k * k) / ((N[:, None] + 1.0 - 2 * k + j)
                                                     * (N[:, None] + 1.0))
        drop = np.where(now > 0, now * factor, -after)
    return (drop * zetas).sum(axis=1)


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
    if not 1 <= k <= MAX_K:
        raise InputError(f"`k` must be an int in [1, {MAX_K}] for allocation; got "
                         f"k={_show(k)}")
    budget = check_int(budget, "budget")
    if budget < 0:
        raise InputError(f"`budget` must be >= 0 extra samples; got budget={budget}")
    if budget > MAX_BUDGET:
        raise InputError(f"`budget` must be at most 2**52 = {MAX_BUDGET} extra samples; got "
                         f"budget={_show(budget)}")
    return names, _counts_of(counts), k, budget


def allocate(metric: MetricLike | Sequence[MetricLike], counts: Any, k: int, budget: int,
             *args: Any, prior: Any = "empirical", **kwargs: Any) -> np.ndarray:
    r"""How many extra samples each question should get, to estimate a metric most precisely.

    Formula:
        Question q has n_q samples, c_q correct, and posterior p_q ~ Beta(a + c_q,
        b + n_q - c_q). After m_q more samples its estimate is s(N, X) with N = n_q + m_q,
        whose sampling variance given p is V(N; p) = E[s(N, X)^2 | p] - g(p)^2; averaged
        over the posterior, W_q(N) = sum_x BetaBinom(N; a + c_q, b + n_q - c_q)(x)
        s(N, x)^2 - E[g(p)^2] (exact, from the metric's own values s(N, x)). The split
        minimises sum_q W_q(n_q + m_q) subject to sum_q m_q = ``budget``: the greedy
        split, each sample to the question whose W_q drops most. W_q is decreasing and
        convex in N (a U-statistic's variance), so the greedy split is optimal (Fox 1966).
        It is computed without stepping one sample at a time: W_q(N) = sum_j w_j(N) Z_qj
        (Hoeffding's decomposition, Z_qj fixed per question, exact Beta moments) costs
        O(k) at any N, and a threshold on the drop is bisected; time grows with the log of
        the budget and memory not at all (``benchmarks/bench_allocation.py``).
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
        prior: the Beta(a, b) prior of every question's success rate: ``"empirical"``
            (the default: the Beta population fitted to these questions by beta-binomial
            maximum likelihood, as :func:`kpass.plan` fits it; a degenerate fit, e.g. every
            question with the same share correct, falls back to the uniform prior with a
            warning), ``"uniform"`` (Beta(1, 1)) or an ``(a, b)`` pair. The fitted prior is
            the default because the uniform one pulls every rate towards 1/2 and on
            rare-success benchmarks makes the split worse than spreading evenly (Pass@4,
            p ~ Beta(0.05, 1): 1.09x the even spread's variance, fitted 0.88x), and the
            fitted one was as good or better on every design simulated
            (``benchmarks/sim_allocation_prior.py``, docs/how-to/adaptive.md). The
            posterior is the metric's own (``<metric>_ci``).
        **kwargs: the metric's keyword arguments.

    Returns:
        An int array of extra samples per question (in the questions' order), summing to
        ``budget``.

    Raises:
        TypeError: a metric that is not a mean of per-question U-statistics (avg, Vote@k,
            dataset-level blends), a bad ``prior``, ``k`` or ``budget`` type.
        ValueError: ``budget`` too small to bring every question to k samples, a negative
            budget or one above 2**52, k above :data:`MAX_K`, a bad prior.

    References:
        Hoeffding (1948), Ann. Math. Statist. 19, 293-325 (U-statistics); Fox (1966),
        Management Science 13, 210-216 (greedy marginal allocation).

    Example:
        >>> import kpass
        >>> R = [[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0], [1, 1, 1, 0]]
        >>> kpass.allocate(kpass.pass_at_k, R, 4, 12).tolist()  # prior fitted: Beta(0.76, 0.63)
        [0, 7, 4, 1]
        >>> kpass.allocate(kpass.pass_at_k, R, 4, 12, prior="uniform").tolist()
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
    """The greedy split over one or more (metric, args, kwargs) objectives.

    The greedy gives the ``budget`` steps with the largest gains W_q(N) - W_q(N + 1)
    (decreasing in N for each question); it is found without stepping one sample at a
    time: a threshold lambda on the gain is bisected (each question's count of gains
    above lambda is itself a bisection over N, :func:`_gain` costing O(k) at any N), and
    the few steps left at the threshold go one by one, largest gain first (ties to the
    first question), as the one-at-a-time greedy would take them. Time O(M k^2 log^2
    budget), memory O(M k), at any budget.
    """
    n = counts.n_samples.astype(np.int64)
    c = counts.n_correct.astype(np.int64)
    extra = np.maximum(k - n, 0)
    needed = int(extra.sum())
    if needed > budget:
        raise InputError(f"`budget`={budget} cannot bring every question to k={k} samples: "
                         f"{_short_of(counts, n, k)} short, {needed} samples needed")
    remaining = budget - needed
    start = (n + extra).astype(np.int64)
    alphas = a0 + c.astype(float)
    betas = b0 + (n - c).astype(float)
    zetas = np.zeros((n.size, k))
    for metric, args, kwargs in objectives:
        part = _Kernel(metric, args, kwargs, k).zetas(alphas, betas)
        if len(objectives) > 1:  # each metric relative to its current variance
            part = part / max(float(_within(k, part, start).sum()), 1e-300)
        zetas += part
    return (extra + _take(k, zetas, start, remaining)).astype(np.int64)


def _short_of(counts: BinaryCounts, n: np.ndarray, k: int, shown: int = 3) -> str:
    """The questions with fewer than k samples, counted and named (the first ``shown``).

    Example:
        >>> import numpy as np
        >>> counts = BinaryCounts([4, 2, 4, 1], [1, 1, 0, 0], ids=["a", "b", "c", "d"])
        >>> _short_of(counts, counts.n_samples, 4)
        "2 of 4 questions ('b': n=2, 'd': n=1)"
    """
    short = np.flatnonzero(n < k)
    ids = counts.ids
    named = ", ".join(f"{ids[q]!r}: n={int(n[q])}" if ids is not None else
                      f"question {int(q)}: n={int(n[q])}" for q in short[:shown])
    more = f", {short.size - shown} more" if short.size > shown else ""
    return f"{short.size} of {n.size} questions ({named}{more})"


def _count_above(k: int, zetas: np.ndarray, start: np.ndarray, level: float,
                 cap: int) -> np.ndarray:
    """Per question: how many of its next ``cap`` gains exceed ``level`` (gains decrease)."""
    low = np.zeros(start.size, dtype=np.int64)  # gains before start + low all exceed level
    high = np.full(start.size, cap, dtype=np.int64)
    high_ok = _gain(k, zetas, start + cap - 1) > level
    low = np.where(high_ok, cap, low)
    high = np.where(high_ok, cap, high)
    first_ok = _gain(k, zetas, start) > level
    high = np.where(first_ok, high, 0)
    low = np.where(first_ok, np.where(high_ok, cap, 1), 0)
    while True:
        open_ = high > low
        if not open_.any():
            return low
        middle = (low + high) // 2
        above = _gain(k, zetas, start + np.where(open_, middle, 0)) > level
        low = np.where(open_ & above, middle + 1, low)
        high = np.where(open_ & ~above, middle, high)


def _take(k: int, zetas: np.ndarray, start: np.ndarray, budget: int) -> np.ndarray:
    """The ``budget`` largest gains over all questions: extra samples per question."""
    taken = np.zeros(start.size, dtype=np.int64)
    if budget == 0 or start.size == 0:
        return taken
    top = float(_gain(k, zetas, start).max())
    floor = float(_gain(k, zetas, start + budget).min())
    high, taken = top, taken  # nothing above the top gain: 0 <= budget taken
    low = floor / 2.0 if floor > 0 else 0.0
    enough = 2 * start.size + 16  # steps left for the one-by-one phase
    if _count_above(k, zetas, start, low, budget).sum() >= budget:
        for _ in range(400):
            if budget - int(taken.sum()) <= enough:
                break
            middle = math.sqrt(low * high) if low > 0 else high / 2.0 ** 64
            if not low < middle < high:
                break
            count = _count_above(k, zetas, start, middle, budget)
            if count.sum() >= budget:
                low = middle
            else:
                high, taken = middle, count
    left = budget - int(taken.sum())
    if left > 4 * start.size + 64:
        # no gain left to separate the questions (every gain 0 to rounding): as the
        # one-at-a-time greedy, the rest goes to the first question with the largest gain
        best = int(np.argmax(_gain(k, zetas, start + taken)))
        taken[best] += left
        return taken
    heap = [(-float(g), q) for q, g in enumerate(_gain(k, zetas, start + taken))]
    heapq.heapify(heap)
    for _ in range(left):
        _, q = heapq.heappop(heap)
        taken[q] += 1
        gain = _gain(k, zetas[q:q + 1], start[q:q + 1] + taken[q:q + 1])
        heapq.heappush(heap, (-float(gain[0]), q))
    return taken


def expected_within_variance(metric: Metric, counts: Any, k: int, extra: Any, *args: Any,
                             prior: Any = "empirical", **kwargs: Any) -> float:
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
        prior: ``"empirical"`` (default), ``"uniform"`` or an ``(a, b)`` pair, as
            :func:`allocate`.
        **kwargs: the metric's keyword arguments.

    Returns:
        The variance (a float >= 0).

    Example:
        >>> import kpass
        >>> from kpass.stats.allocation import expected_within_variance
        >>> R = [[1, 0], [0, 0]]
        >>> # uniform prior: E[p(1-p)] / 2 over the two questions' Beta posteriors, / 2^2
        >>> round(expected_within_variance(kpass.pass_at_k, R, 1, [0, 0], prior="uniform"), 6)
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
                         f"{_short_of(counts, totals, k)} would have fewer")
    alphas = a0 + counts.n_correct.astype(float)
    betas = b0 + (counts.n_samples - counts.n_correct).astype(float)
    zetas = _Kernel(metric, (k, *args), kwargs, k).zetas(alphas, betas)
    total = float(_within(k, zetas, totals.astype(np.int64)).sum())
    return max(total, 0.0) / counts.n_questions ** 2


def allocation_outlook(metric: Metric, counts: Any, k: int, extra: Any, *args: Any,
                       prior: Any = "empirical", **kwargs: Any) -> tuple[float, float]:
    r"""What a split is expected to buy, and how much of the estimate's variance it can touch.

    Formula:
        ratio = W(n + m) / W(n + e), with W the posterior-expected within-question variance
        (:func:`expected_within_variance`) and e the even spread of the same budget (each
        question first brought up to k, the rest in equal shares); share = W(n + e) /
        (W(n + e) + B), with B = max(var(s_q) / M - W(n), 0) the between-question part of
        the squared SE over questions (var over questions of the per-question values s_q,
        ddof 1): the part more samples per question cannot lower.

    Args:
        metric: a credit point function (as :func:`allocate`).
        counts: the outcomes so far.
        k: the metric's budget.
        extra: the split (extra samples per question), e.g. from :func:`allocate`.
        *args: the metric's positional arguments after k.
        prior: as :func:`allocate`.
        **kwargs: the metric's keyword arguments.

    Returns:
        (ratio, share): the split's expected within-question variance over the even
        spread's (below 1: the split helps), and the within-question share of the
        estimate's variance after the even spread (what any allocation can move at all).
    """
    metric = _check_metric(metric)[1]
    _, counts, k, _ = _check_inputs([metric], counts, k, 0)
    m = np.asarray(extra, dtype=np.int64)
    n = counts.n_samples.astype(np.int64)
    top_up = np.maximum(k - n, 0)
    rest = int(m.sum() - top_up.sum())
    even = top_up + rest // n.size + (np.arange(n.size) < rest % n.size)
    a0, b0 = _prior(prior, counts)

    def within(split: np.ndarray) -> float:
        return expected_within_variance(metric, counts, k, split, *args, prior=(a0, b0),
                                        **kwargs)

    w_even = within(even)
    ratio = within(m) / w_even if w_even > 0 else 1.0
    values = np.asarray(metric(counts.select(n >= k), k, *args, per_question=True, **kwargs),
                        dtype=float)
    now = within(top_up) if top_up.any() else within(np.zeros(n.size, np.int64))
    between = max(float(np.var(values, ddof=1)) / values.size - now, 0.0) if values.size > 1 \
        else 0.0
    total = w_even + between
    return ratio, (w_even / total if total > 0 else 0.0)
