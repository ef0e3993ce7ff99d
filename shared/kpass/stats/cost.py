r"""What a model costs per question and per solved question, with intervals over questions.

Question i has n_i samples, c_i of them correct, and x_i, the mean cost of one of its samples
(tokens times a price, or a cost column averaged over the question's samples). Questions are
drawn from a population and samples within a question are exchangeable, as for every kpass
metric.

Cost per question (of k samples):
    C_k = k * E[x], estimated by k * mean_i x_i: the expected cost of running one question
    k times. Its se is k * sd(x) / sqrt(M) and its interval the t interval with M - 1
    degrees of freedom.

Cost per solved question (at Pass@k):
    R_k = k E[x] / E[s_i], a ratio of means over questions, with s_i the unbiased per-question
    Pass@k, 1 - C(n_i - c_i, k) / C(n_i, k): what is spent per question solved when every
    question is run k times and counted solved if any of the k samples is correct (at k = 1:
    the cost of one correct sample). Its se is the delta method's over questions,
    sd(k x_i - R s_i) / (sqrt(M) mean(s)), and its interval Fieller's (1954): the R for which
    the t test of k mean(x) - R mean(s) = 0 does not reject, the roots of

        (S^2 - t^2 v_ss) R^2 - 2 (X S - t^2 v_xs) R + (X^2 - t^2 v_xx) <= 0

    with X = k mean(x), S = mean(s) and v the (co)variances of the means. When the solved rate
    is not told apart from 0 (S^2 <= t^2 v_ss) the interval is [0, inf): Fieller's set is
    then unbounded (two rays or the whole line) and kpass reports it whole. Fieller's
    interval is asymmetric, as the ratio's spread is when the solved rate is small, and
    never reaches below 0; ``tests/stats/test_cost.py`` checks its coverage by seeded
    simulation (600 replications each: 0.948 at M = 100, p ~ Beta(2, 3); 0.948 at M = 40,
    p ~ Beta(0.3, 3), a solved rate near 0.08; 0.958 at M = 60, k = 2).

Two models on the same questions (:func:`cost_difference`, ``kpass compare``): the paired
difference A - B of each (as compare's), with a delta-method interval over questions.

References:
    Fieller, E. C. (1954). Some problems in interval estimation. JRSS B 16(2), 175-185.
    Chen et al. (2021), arXiv:2107.03374 (the unbiased Pass@k).
    Hirschberg, J. and Lye, J. (2010). A geometric comparison of the delta and Fieller
    confidence intervals. The American Statistician 64(3), 234-241.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.special import comb, ndtri, stdtrit

from .._core.counting.checks import InputError, check_confidence, check_int

__all__ = ["CostDifference", "CostFront", "CostSummary", "cost_difference", "cost_front",
           "cost_summary"]


@dataclass(frozen=True)
class CostSummary:
    """Cost per question and per solved question at one k, with intervals over questions.

    Attributes:
        k: samples per question.
        questions: questions M.
        cost: k * mean cost of one sample of a question (cost per question of k samples).
        cost_se: its standard error over questions.
        cost_lo: the t interval's lower end.
        cost_hi: its upper end.
        solved_rate: the mean per-question Pass@k (the solved rate the ratio divides by).
        per_solved: k mean(x) / mean(Pass@k): cost per solved question (inf if none solved).
        per_solved_se: the delta method's se over questions (None: none solved).
        per_solved_lo: Fieller's interval's lower end (0 when unbounded).
        per_solved_hi: its upper end (inf: the solved rate is not told apart from 0).
        confidence: the level.
    """

    k: int
    questions: int
    cost: float
    cost_se: float
    cost_lo: float
    cost_hi: float
    solved_rate: float
    per_solved: float
    per_solved_se: float | None
    per_solved_lo: float
    per_solved_hi: float
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields (an infinite end is None: strict JSON has no inf)."""
        return {key: None if isinstance(value, float) and not math.isfinite(value) else value
                for key, value in asdict(self).items()}


def _solved(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Per-question unbiased Pass@k, 1 - C(n - c, k) / C(n, k)."""
    return 1.0 - comb(n - c, k) / comb(n, k)


def cost_summary(n_samples: Any, n_correct: Any, cost: Any, k: int = 1,
                 confidence: float = 0.95) -> CostSummary:
    """Cost per question (of k samples) and per solved question (at Pass@k), over questions.

    Args:
        n_samples: samples per question (n_i >= k).
        n_correct: correct samples per question.
        cost: the mean cost of one sample of each question (x_i >= 0: tokens, or money).
        k: samples per question the costs are for (Pass@k counts a question solved).
        confidence: the level of both intervals.

    Returns:
        The :class:`CostSummary`.

    Raises:
        ValueError: arrays of different lengths, fewer than 2 questions, a negative or
            non-finite cost, n_i < k, c_i outside [0, n_i], k < 1, or confidence not in
            (0, 1).

    Example:
        >>> s = cost_summary([2, 2, 2, 2], [2, 1, 0, 1], [10.0, 20.0, 30.0, 20.0])
        >>> s.cost, s.solved_rate, s.per_solved
        (20.0, 0.5, 40.0)
    """
    k = check_int(k, "k")
    if k < 1:
        raise InputError(f"`k` must be >= 1; got k={k}")
    kx, s = _checked(n_samples, n_correct, cost, k)
    confidence = check_confidence(confidence)
    m = int(kx.size)
    t = float(stdtrit(m - 1, 0.5 + confidence / 2.0))
    mean_x, mean_s = float(kx.mean()), float(s.mean())
    cost_se = float(kx.std(ddof=1) / math.sqrt(m))
    v_xx = float(np.var(kx, ddof=1) / m)
    v_ss = float(np.var(s, ddof=1) / m)
    v_xs = float(np.cov(kx, s, ddof=1)[0, 1] / m)
    if mean_s > 0:
        ratio = mean_x / mean_s
        spread = float(np.std(kx - ratio * s, ddof=1))
        ratio_se: float | None = spread / (math.sqrt(m) * mean_s)
    else:
        ratio, ratio_se = math.inf, None
    lo, hi = _fieller(mean_x, mean_s, v_xx, v_ss, v_xs, t)
    return CostSummary(k=int(k), questions=m, cost=mean_x, cost_se=cost_se,
                       cost_lo=max(0.0, mean_x - t * cost_se), cost_hi=mean_x + t * cost_se,
                       solved_rate=mean_s, per_solved=ratio, per_solved_se=ratio_se,
                       per_solved_lo=lo, per_solved_hi=hi, confidence=float(confidence))


def _checked(n_samples: Any, n_correct: Any, cost: Any, k: int, side: str = ""
             ) -> tuple[np.ndarray, np.ndarray]:
    """One model's k x_i and per-question Pass@k s_i, its arguments checked.

    ``side`` (``"_a"``, ``"_b"``) names the cost argument in messages (``cost_a[3]``).
    """
    n = np.asarray(n_samples, dtype=float)
    c = np.asarray(n_correct, dtype=float)
    try:
        x = np.asarray(cost, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`cost{side}` must hold numbers (a cost per question); got "
                        f"{cost!r:.80}") from None
    if not (n.ndim == c.ndim == x.ndim == 1 and n.size == c.size == x.size):
        raise ValueError(f"`n_samples`, `n_correct` and `cost{side}` need one value per "
                         f"question; got {n.size}, {c.size} and {x.size}")
    if x.size < 2:
        raise ValueError(f"a cost interval over questions needs at least 2 questions; "
                         f"`cost{side}` has {x.size}")
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        bad = int(np.flatnonzero(~np.isfinite(x) | (x < 0))[0])
        raise ValueError(f"`cost{side}[{bad}]` = {float(x[bad])!r}: a cost must be a finite "
                         "number >= 0")
    if np.any(n < k) or np.any(c < 0) or np.any(c > n):
        bad = int(np.flatnonzero((n < k) | (c < 0) | (c > n))[0])
        raise ValueError(f"question {bad}{' of `' + side[1:] + '`' if side else ''}: "
                         f"`n_samples`={n[bad]:g}, `n_correct`={c[bad]:g}; need n_samples "
                         f">= k={k} and 0 <= n_correct <= n_samples")
    return k * x, _solved(n, c, k)


@dataclass(frozen=True)
class CostDifference:
    """The paired difference A - B of one cost quantity over the same questions.

    Attributes:
        quantity: ``"cost"`` (cost per question of k samples) or ``"per_solved"`` (cost per
            solved question at Pass@k).
        k: samples per question.
        questions: the paired questions M.
        a: model A's value.
        b: model B's value.
        difference: a - b, as :func:`kpass.compare`'s (negative: B costs more). None when a
            model solved no question
            (its cost per solved question is infinite).
        se: the delta method's se over questions (None with ``difference``).
        lo: the interval's lower end (-inf: a solved rate not told apart from 0).
        hi: its upper end (inf: likewise).
        confidence: the level.
    """

    quantity: str
    k: int
    questions: int
    a: float
    b: float
    difference: float | None
    se: float | None
    lo: float
    hi: float
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields (an infinite value is None: strict JSON has no inf)."""
        return {key: None if isinstance(value, float) and not math.isfinite(value) else value
                for key, value in asdict(self).items()}


def cost_difference(a: Any, b: Any, cost_a: Any, cost_b: Any, *, k: int = 1,
                    confidence: float = 0.95, shared: bool = False
                    ) -> tuple[CostDifference, CostDifference]:
    r"""Paired differences A - B of the cost per question and per solved question.

    The questions are matched as :func:`kpass.compare` matches them
    (:func:`kpass.stats.align.align_runs`: by id when both runs carry ids, ``shared``
    keeping those both have; else by row). With X_i = k x_i (the cost of k samples of
    question i) and s_i its unbiased Pass@k, for each model:

    * cost per question: D = mean(X^A_i - X^B_i), se = sd(X^A_i - X^B_i) / sqrt(M): the
      paired t interval (the delta method is exact here: D is linear in the means);
    * cost per solved question: Delta = R_A - R_B with R = mean(X) / mean(s). The delta
      method linearises each ratio around its means, so Delta's influence on question i is

          psi_i = (X^A_i - R_A s^A_i) / mean(s^A) - (X^B_i - R_B s^B_i) / mean(s^B)

      and se = sd(psi) / sqrt(M), the interval Delta -/+ z se (the normal quantile: the delta
      method's reference is asymptotic, and with Student's t_{M-1} the interval
      over-covered, 0.96-0.97 at M = 30). Pairing enters through psi: a question that is
      costly or hard for both models moves both terms alike.

    Why the delta method and not Fieller's: Fieller's interval for one ratio inverts the
    t test of the linear pivot mean(X) - R mean(s); a difference of two ratios has no pivot
    linear in the means (R_A - R_B = d0 is a quadratic surface in the four means), so its
    test inversion has no closed form, and the delta interval is the standard choice; it
    agrees with Fieller's where the denominators are well away from 0 (Hirschberg and Lye
    2010) and fails where they are not. kpass therefore uses Fieller's own condition as the
    guard: when either model's solved rate is not told apart from 0 (mean(s)^2 <= t^2
    var(mean(s)), where Fieller's set for its R is unbounded) the interval is
    (-inf, inf) rather than a delta interval that would be too narrow.

    Coverage by seeded simulation (``tests/stats/test_cost_difference.py``; questions of
    shared difficulty, lognormal costs across questions, 4 samples each, solved rates
    0.36-0.58; 600 replications): the cost difference 0.937 at M = 30 and 0.945 at M = 200,
    the per-solved difference 0.957-0.963 at M = 30 and 0.943-0.958 at M = 200. Where a
    solved rate is small (0.14) the per-solved interval is conservative (0.977 at M = 30,
    0.953 at M = 200), never short.

    Args:
        a: model A's :class:`kpass.BinaryCounts` (or anything :func:`kpass.binary_counts`
            takes); n_i >= k.
        b: model B's, on the same questions.
        cost_a: A's mean cost of one sample of each question, in ``a``'s order (>= 0:
            tokens or money).
        cost_b: B's, in ``b``'s order.
        k: samples per question the costs are for (Pass@k counts a question solved).
        confidence: the level of both intervals.
        shared: with ids on both runs, keep the questions both have.

    Returns:
        The per-question difference and the per-solved-question difference.

    Raises:
        ValueError: questions that do not match (as :func:`kpass.compare` says), a cost
            array of another length than its run, fewer than 2 questions, a negative or
            non-finite cost, n_i < k, k < 1, or confidence not in (0, 1).

    Example:
        >>> from kpass import BinaryCounts
        >>> cost, solved = cost_difference(BinaryCounts([2, 2], [2, 0]),
        ...                                BinaryCounts([2, 2], [2, 2]), [1.0, 3.0],
        ...                                [2.0, 4.0])
        >>> cost.a, cost.b, cost.difference, solved.a, solved.b, solved.difference
        (2.0, 3.0, -1.0, 4.0, 3.0, 1.0)
    """
    from .._core.counting.inputs import binary_counts
    from .align import align_runs

    first = binary_counts(a, name="a")
    second = binary_counts(b, name="b")
    for name, values, run in (("cost_a", cost_a, first), ("cost_b", cost_b, second)):
        if np.ndim(values) != 1 or len(values) != run.n_questions:
            raise ValueError(f"`{name}` needs one cost per question of `{name[-1]}` "
                             f"({run.n_questions}); got {np.size(values)}")
    aligned = align_runs([first, second], ["`a`", "`b`"], shared=shared, verb="compare")
    a, b = aligned.runs
    cost_a, cost_b = aligned.take(0, list(cost_a)), aligned.take(1, list(cost_b))
    k = check_int(k, "k")
    if k < 1:
        raise InputError(f"`k` must be >= 1; got k={k}")
    confidence = check_confidence(confidence)
    xa, sa = _checked(a.n_samples, a.n_correct, cost_a, k, "_a")
    xb, sb = _checked(b.n_samples, b.n_correct, cost_b, k, "_b")
    m = int(xa.size)
    t = float(stdtrit(m - 1, 0.5 + confidence / 2.0))
    root = math.sqrt(m)
    d = xa - xb
    mean_d, se_d = float(d.mean()), float(d.std(ddof=1) / root)
    cost = CostDifference("cost", int(k), m, float(xa.mean()), float(xb.mean()), mean_d, se_d,
                          mean_d - t * se_d, mean_d + t * se_d, float(confidence))
    ma, mb = float(sa.mean()), float(sb.mean())
    ra = float(xa.mean()) / ma if ma > 0 else math.inf
    rb = float(xb.mean()) / mb if mb > 0 else math.inf
    if ma <= 0 or mb <= 0:
        solved = CostDifference("per_solved", int(k), m, ra, rb, None, None, -math.inf,
                                math.inf, float(confidence))
        return cost, solved
    psi = (xa - ra * sa) / ma - (xb - rb * sb) / mb
    delta, se = ra - rb, float(psi.std(ddof=1) / root)
    z = float(ndtri(0.5 + confidence / 2.0))
    lo, hi = delta - z * se, delta + z * se
    if any(mean * mean <= t * t * float(np.var(s, ddof=1)) / m
           for mean, s in ((ma, sa), (mb, sb))):
        lo, hi = -math.inf, math.inf  # a solved rate not told apart from 0 (Fieller's guard)
    solved = CostDifference("per_solved", int(k), m, ra, rb, delta, se, lo, hi,
                            float(confidence))
    return cost, solved


def _fieller(x: float, s: float, v_xx: float, v_ss: float, v_xs: float, t: float
             ) -> tuple[float, float]:
    """Fieller's interval for x / s (x >= 0, s >= 0); (0, inf) where s is not told from 0.

    Example:
        >>> _fieller(10.0, 0.5, 0.0, 0.0, 0.0, 2.0)
        (20.0, 20.0)
    """
    a = s * s - t * t * v_ss
    b = x * s - t * t * v_xs
    cc = x * x - t * t * v_xx
    if a <= 0.0:  # the solved rate is not told apart from 0: no ratio is excluded
        return 0.0, math.inf  # (for a < 0 the set is two rays, [0, r1] and [r2, inf))
    disc = max(0.0, b * b - a * cc)
    root = math.sqrt(disc)
    return max(0.0, (b - root) / a), (b + root) / a


@dataclass(frozen=True)
class CostFront:
    """The estimate-vs-cost Pareto set with its uncertainty (:func:`cost_front`).

    Attributes:
        names: the models, in the order given.
        front: the models no other is told apart from as both better and cheaper.
        dominated_by: for each model off the front, the models told apart as better and
            cheaper than it.
        p_adjusted: Holm-adjusted p-value of "row dominates column" (an intersection-union
            test: the larger of the two one-sided p-values), over every ordered pair.
        confidence: the level (a wrong "off the front" anywhere has chance <= 1 -
            confidence).
    """

    names: tuple[str, ...]
    front: tuple[str, ...]
    dominated_by: dict[str, tuple[str, ...]]
    p_adjusted: np.ndarray
    confidence: float


def _one_sided(difference: np.ndarray) -> float:
    """The paired t test's p-value of mean(difference) > 0 (over questions, df M - 1).

    Every question showing the same positive difference gives 0.5^M (a sign test's floor);
    no positive mean gives 1.
    """
    m = difference.size
    mean = float(difference.mean())
    sd = float(difference.std(ddof=1)) if m > 1 else 0.0
    if sd == 0.0:
        return 0.5 ** m if mean > 0 else 1.0
    from scipy.special import stdtr

    return float(stdtr(m - 1, -mean / (sd / math.sqrt(m))))


def cost_front(values: dict[str, Any], costs: dict[str, Any], confidence: float = 0.95
               ) -> CostFront:
    r"""The Pareto set of models by a metric (higher better) and a cost (lower better).

    Model i dominates model j when i is told apart as both better and cheaper: the
    one-sided paired t tests over questions of mean(v_i - v_j) > 0 (the metric's
    per-question values) and mean(x_j - x_i) > 0 (the per-question costs) both reject. As an
    intersection-union test (Berger 1982) its p-value is the larger of the two, with no
    adjustment between the two parts; Holm's step-down then adjusts over all M(M - 1)
    ordered pairs, so the chance of any model wrongly put off the front is at most
    1 - confidence. A model is off the front when some model dominates it at that level;
    the front is every other model. Two models that are not told apart on either count
    both stay on the front: the rule never removes a model on point estimates alone.

    Args:
        values: per-question metric values of each model (aligned: question q is the same
            question in every array).
        costs: per-question cost (of the samples the metric uses) of each model, aligned.
        confidence: the level.

    Returns:
        The :class:`CostFront`.

    Raises:
        ValueError: fewer than 2 models, different model names in ``values`` and
            ``costs``, arrays of different lengths or fewer than 2 questions.

    References:
        Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
        Technometrics 24(4), 295-300. Holm, S. (1979). Scand. J. Statist. 6, 65-70.
    """
    from .rank_sets import _holm

    confidence = check_confidence(confidence)
    names = list(values)
    if len(names) < 2:
        raise ValueError(f"a cost front needs at least 2 models; got {len(names)}")
    if set(costs) != set(names):
        raise ValueError(f"values and costs must name the same models; got {sorted(names)} "
                         f"and {sorted(costs)}")
    v = [np.asarray(values[name], dtype=float) for name in names]
    x = [np.asarray(costs[name], dtype=float) for name in names]
    m = v[0].size
    if m < 2 or any(a.size != m for a in v + x):
        raise ValueError(f"values and costs need the same questions (at least 2) for every "
                         f"model; got sizes {[a.size for a in v]} and {[a.size for a in x]}")
    count = len(names)
    raw = np.ones((count, count))
    for i in range(count):
        for j in range(count):
            if i != j:
                raw[i, j] = max(_one_sided(v[i] - v[j]), _one_sided(x[j] - x[i]))
    off = ~np.eye(count, dtype=bool)
    adjusted = np.ones((count, count))
    adjusted[off] = _holm(raw[off])
    alpha = 1.0 - confidence
    dominated = {names[j]: tuple(names[i] for i in range(count)
                                 if i != j and adjusted[i, j] <= alpha)
                 for j in range(count)}
    dominated = {name: by for name, by in dominated.items() if by}
    front = tuple(name for name in names if name not in dominated)
    return CostFront(tuple(names), front, dominated, adjusted, float(confidence))
