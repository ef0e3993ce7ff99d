"""Planning an evaluation from a pilot run.

:func:`plan` and :class:`Plan` (Miller 2024, section 5; the beta-binomial model of the
split between and within questions).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_confidence,
    check_real,
)
from .._core.counting.counts import BinaryCounts
from .._core.moments.prior import fit_beta_prior, fit_check
from ..families import function
from ._common import (
    _CREDIT_METRICS,
    Metric,
    MetricLike,
    _check_metric,
    _counts_of,
    _need_two,
)
from .align import align_runs
from .design import Design, plan_from_scratch
from .power import _noncentrality, _questions
from .small_sample import (
    small_sample_problems,
    warn_small,
)

# ----------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class Split:
    r"""How to spend a budget: questions x samples per question with the smallest SE.

    Attributes:
        questions: questions to run (M).
        samples: samples per question and model (n >= k).
        se: the SE promised: sqrt((between + within(n)) / M) from the pilot's split
            (for a paired plan, of the difference).
        spent: what the split costs, M (cost_question + runs n cost_sample), runs = 2
            for a paired plan (both models sample each question), else 1.
        budget: the budget given.
    """

    questions: int
    samples: int
    se: float
    spent: float
    budget: float

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


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
        questions: questions in the pilot (0: a plan from assumed numbers, :meth:`assume`).
        samples: the pilot's samples per question (the mean, for ragged pilots).
        between: between-question variance (of g(p_q), or of g_A - g_B when paired).
        within: within-question variance at the pilot's n (averaged over questions).
        paired: whether this plans a comparison of two models.
        populations: the Beta(alpha0, beta0) prior of each run's success rates (fitted to
            the pilot unless given).
        distribution: the distribution of the questions' success rates the split into
            ``between`` and ``within`` rests on: ``"beta-binomial"`` (from a pilot), each
            run's success rates drawn from the Beta population of ``populations``;
            ``se()`` and ``questions_for()`` at the pilot's samples use only the pilot's
            total variance (no model); ``within_at``, ``samples_for`` and any ``samples=``
            other than the pilot's extrapolate through the model. ``"logit-normal"`` (a
            plan from assumed numbers, :meth:`assume`): logit p = mu + ``spread`` Z.
        fit_p_values: per run, the p-value of a chi-square goodness-of-fit test of the
            pilot's per-question correct counts against the fitted beta-binomial (cells with
            expected counts below 5 pooled; None where too few cells remain to test). A small
            value (below 0.01 a :class:`SmallSampleWarning` is issued) says the population is
            not Beta-like (easy and impossible questions mixed, say), and the extrapolation
            to other sample sizes may be off by large factors.
        pilot_spread: how noisy the pilot's variance is, as the factors (low, high) by
            which the true variance (and so the questions truly needed) may differ from the
            pilot's: the 80% interval (M - 1) / chi2_{M-1}(0.9 and 0.1) of a variance
            estimated from M questions (normal theory). At 30 questions it is
            (0.74, 1.47): a plan from a 30-question pilot that says 200 questions is
            consistent with a truth of about 150-290. Measured (paired Pass@1, Beta(3, 3)
            question rates, B shifted by 0.6 logit, 8 samples, 1,000 pilots of 30 questions,
            seed 31): ``questions_for`` at the true difference had 10th/50th/90th
            percentiles 0.96/1.07/1.36 times the population's 28 questions (27-38); the
            clipping of ``between`` at 0 cuts the low tail, so these factors are wider than
            what binary pilots show, on the cautious side.
        baseline: a plan from assumed numbers (:meth:`assume`): the metric's assumed value
            (NaN for a pilot's plan).
        spread: a plan from assumed numbers: the assumed sd of the questions' success
            logits (NaN for a pilot's plan).
    """

    metric: str
    k: int
    questions: int
    samples: float
    between: float
    within: float
    paired: bool
    _within_at: Callable[[int], float] = field(repr=False)
    populations: tuple[tuple[float, float], ...] = ()
    distribution: str = "beta-binomial"
    fit_p_values: tuple[float | None, ...] = ()
    pilot_spread: tuple[float, float] = (math.nan, math.nan)
    baseline: float = math.nan
    spread: float = math.nan

    @classmethod
    def assume(cls, metric: MetricLike, k: int, *args: Any, baseline: float,
               samples: int | None = None, spread: float | None = None,
               **kwargs: Any) -> Plan:
        r"""A plan for one model from assumed numbers, no pilot: the metric's value and spread.

        The questions' success rates are assumed logit-normal: logit p_q = mu + spread Z_q,
        Z_q ~ N(0, 1), mu set so that the population value E[g(p)] is ``baseline`` (g the
        metric's Bernstein polynomial). Then between = Var(g(p)) and within(n) =
        E[sum_c Binom(n, p)(c) s(n, c)^2] - E[g(p)^2] (Gauss-Hermite quadrature over Z,
        exact binomial sums), and ``se``, ``questions_for_half_width``, ``questions_for``,
        ``samples_for`` and ``split`` work as on a pilot's plan (``se`` needs
        ``questions``: there is no pilot to default to).

        The default ``spread`` is 2.0 (:data:`kpass.stats.design.DEFAULT_SPREAD`, the one
        of ``kpass.plan`` without a pilot): the maximum-likelihood logit-normal sd of the
        bundled tau-bench sample (50 tasks x 4 trials: 2.04). It is a typical value, not a
        bound. ``spread=math.inf`` is the most cautious plan: every question always or never
        solved, so within(n) = 0 and between = baseline (1 - baseline) for the metrics
        whose g(0) = 0 and g(1) = 1. No population with this ``baseline`` gives a larger
        SE at any number of samples (each per-question value lies in [0, 1]), and more
        samples per question never pay under it. docs/how-to/adaptive.md shows what a
        wrong spread costs.

        Args:
            metric: a credit metric, as :func:`plan`.
            k: the metric's k.
            *args: the metric's other positional arguments (tau, weights).
            baseline: the metric's assumed population value, in (0, 1).
            samples: the samples per question ``se`` and ``questions_for_half_width``
                default to (default k); ``split`` chooses its own.
            spread: sd of the questions' success logits, in [0, 10] or inf (default 2.0).
            **kwargs: the metric's keyword arguments.

        Returns:
            A :class:`Plan` with ``distribution="logit-normal"``, ``questions=0`` (no
            pilot), ``baseline`` and ``spread`` set.

        Raises:
            TypeError: a metric that is not a credit metric, or a k that is not one int.
            ValueError: ``baseline``, ``samples`` or ``spread`` out of range.

        Example:
            >>> import kpass
            >>> p = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, samples=8)
            >>> round(p.se(500), 4), p.questions_for_half_width(0.02)
            (0.0171, 1404)
        """
        from ..registry import of_function
        from .design import DEFAULT_SPREAD, one_model_variances

        name, point = _check_metric(metric, "plan", (k, *args), kwargs)
        if name not in _CREDIT_METRICS:
            raise ArgumentTypeError(f"`metric` must be one of kpass."
                                    f"{', kpass.'.join(_CREDIT_METRICS)} for planning; got "
                                    f"kpass.{name}")
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
            raise ArgumentTypeError(f"`k` must be one int >= 1 for planning; got k={_show(k)}")
        if "short" in kwargs:
            raise InputError("`short` is not supported by plan: every question needs k "
                             "samples")
        base = check_real(baseline, "baseline", low=0.0, high=1.0, low_open=True,
                          high_open=True)
        n = _check_samples(int(k) if samples is None else samples, int(k))
        if spread is not None and isinstance(spread, numbers.Real) \
                and not isinstance(spread, bool) and float(spread) == math.inf:
            sd_logit = math.inf
        else:
            sd_logit = check_real(DEFAULT_SPREAD if spread is None else spread, "spread",
                                  low=0.0, high=10.0)
        label = of_function(name).title.format(k=k, tau=kwargs.get("tau",
                                                                   args[0] if args else ""))
        between, within = one_model_variances(point, int(k), args, kwargs, base, sd_logit,
                                              label)
        cached = functools.lru_cache(maxsize=64)(within)
        return cls(metric=name, k=int(k), questions=0, samples=float(n), between=between,
                   within=cached(n), paired=False, _within_at=cached,
                   distribution="logit-normal", baseline=base, spread=sd_logit)

    def __str__(self) -> str:
        """Two lines: what the pilot measured (or what was assumed), then how far to trust it."""
        what = "difference" if self.paired else "value"
        sd = math.sqrt(self.between + self.within)
        if self.questions == 0:
            return (f"Plan for {self.metric} at k={self.k} from assumed numbers: value "
                    f"{self.baseline:.3f}, spread {self.spread:g} (sd of question logits), "
                    f"{self.samples:g} samples; a question's value has sd {sd:.3f} (between "
                    f"{self.between:.4g} + within {self.within:.4g})\nse(questions), "
                    "questions_for_half_width(half_width) and split(budget) give the plan")
        low, high = self.pilot_spread
        return (f"Plan for {self.metric} at k={self.k}{' (paired)' if self.paired else ''}: "
                f"pilot of {self.questions:,} questions x {self.samples:g} samples; a "
                f"question's {what} has sd {sd:.3f} (between {self.between:.4g} + within "
                f"{self.within:.4g})\nFrom a pilot this size the questions needed may be off "
                f"by a factor {low:.2f}-{high:.2f} (80%); questions_for(difference) and "
                "samples_for(difference, questions) give the plan")

    __repr__ = __str__

    def within_at(self, samples: int) -> float:
        """Within-question variance of the per-question estimate at ``samples`` per question."""
        n = _check_samples(samples, self.k)
        return self._within_at(n)

    def se(self, questions: int | None = None, samples: int | None = None) -> float:
        """Predicted standard error over questions at ``questions`` and ``samples``.

        SE(M', n') = sqrt((between + within(n')) / M'); defaults are the pilot's (a plan
        from assumed numbers has no pilot: give ``questions``).
        """
        if questions is None and self.questions == 0:
            raise InputError("`questions` must be given: a plan from assumed numbers has no "
                             "pilot to default to; got questions=None")
        m = self.questions if questions is None else _check_questions(questions)
        within = self.within if samples is None else self.within_at(samples)
        return math.sqrt((self.between + within) / m)

    def split(self, budget: float, *, cost_question: float = 0.0, cost_sample: float = 1.0,
              largest: int | None = None) -> Split:
        r"""The questions and samples per question that a ``budget`` buys with the smallest SE.

        The evaluation run with the budget has M questions of n samples each (per model;
        a paired plan samples both models), costing M (``cost_question`` + runs n
        ``cost_sample``): with the defaults (0, 1) the budget counts samples. For each n
        from k the most questions the budget buys is M(n) = floor(budget / (cost_question
        + runs n cost_sample)), and the split minimises

            SE(M, n)^2 = (between + within(n)) / M(n)

        over the integers n >= k with M(n) >= 2 (every n up to 256, then n growing by 2%
        to the largest the budget allows, at most ``largest``, default
        :data:`MAX_SAMPLES`). within(n) is the variance
        of the metric's unbiased per-question estimator at n samples (the beta-binomial
        model of the pilot; for Pass@k not p(1-p)/n but the U-statistic's own variance).
        Without a cost per question more samples never pay (for Pass@1, SE^2 =
        (between n + within(1)) / budget grows with n): the answer is n = k; with one,
        n* ~ sqrt(cost_question within(1) / (cost_sample between)) for Pass@1.
        The pilot's own questions are not counted: the split plans the whole run.

        Raises:
            ValueError: a budget, cost or ``largest`` that is not a finite number in range,
                or a budget too small for 2 questions of k samples.
        """
        money = check_real(budget, "budget", low=0.0, low_open=True)
        per_question = check_real(cost_question, "cost_question", low=0.0)
        per_sample = check_real(cost_sample, "cost_sample", low=0.0, low_open=True)
        top = _check_samples(MAX_SAMPLES if largest is None else largest, self.k, "largest")
        runs = 2 if self.paired else 1
        most = int(math.floor((money / 2.0 - per_question) / (runs * per_sample) + 1e-9))
        if most < self.k:
            raise InputError(
                f"`budget` must buy at least 2 questions of k={self.k} samples (cost "
                f"{2 * (per_question + runs * self.k * per_sample):g}); got budget={money:g}")
        stop = min(most, top)
        candidates = list(range(self.k, min(stop, 256) + 1))
        while candidates[-1] < stop:
            candidates.append(min(stop, max(candidates[-1] + 1,
                                            int(candidates[-1] * 1.02))))
        best: tuple[float, int, int] | None = None
        for n in candidates:
            m = int(math.floor(money / (per_question + runs * n * per_sample) + 1e-9))
            variance = (self.between + self.within_at(n)) / m
            if best is None or variance < best[0] * (1.0 - 1e-12):
                best = (variance, m, n)
        assert best is not None
        variance, m, n = best
        return Split(questions=m, samples=n, se=math.sqrt(variance),
                     spent=m * (per_question + runs * n * per_sample), budget=money)

    def grow(self, budget: float, *, cost_question: float = 0.0,
             cost_sample: float = 1.0) -> tuple[Split, Split]:
        r"""New questions or more samples: what ``budget`` buys on top of the pilot each way.

        The pilot's M questions of n samples are kept (n: the pilot's mean, rounded) and
        ``budget`` is spent either on new questions or on more samples of the pilot's:

        - new questions: M' = floor(``budget`` / (``cost_question`` + runs n'
          ``cost_sample``)) new questions of n' samples each (runs = 2 for a paired plan),
          n' >= k chosen as :meth:`split` chooses it, for the smallest SE of the mean over
          all M + M' questions:
          SE^2 = (M (between + within(n)) + M' (between + within(n'))) / (M + M')^2;
        - more samples: e = floor(``budget`` / (M runs ``cost_sample``)) more samples on
          each pilot question (spread evenly): SE^2 = (between + within(n + e)) / M.
          :func:`kpass.allocate` (``kpass next``) spreads them unevenly and expects a
          within-question part no larger than the even spread's.

        Mixing the two (some new questions, some more samples) is not considered: the
        answer is which of the two pure choices gives the smaller SE. Between-question
        variance only falls with more questions, so new questions win unless the
        within-question part dominates or questions are dear.

        Returns:
            ``(new, more)``, two :class:`Split`\ s: ``new.questions`` new questions of
            ``new.samples`` samples (``questions=0`` and the pilot's SE if the budget buys
            none), and ``more.questions`` (the pilot's) of ``more.samples`` samples each
            after the top-up; each ``se`` is the SE of the estimate over every question.

        Raises:
            ValueError: a plan from assumed numbers (no pilot questions to keep), or a bad
                budget or cost.
        """
        if self.questions == 0:
            raise InputError("grow needs a pilot's plan: a plan from assumed numbers has no "
                             "questions to add to (use split)")
        money = check_real(budget, "budget", low=0.0, low_open=True)
        per_question = check_real(cost_question, "cost_question", low=0.0)
        per_sample = check_real(cost_sample, "cost_sample", low=0.0, low_open=True)
        runs = 2 if self.paired else 1
        m, n = self.questions, max(self.k, int(round(self.samples)))
        now = self.between + self.within
        extra = int(math.floor(money / (m * runs * per_sample) + 1e-9))
        top = min(n + extra, MAX_SAMPLES)
        more = Split(questions=m, samples=top, se=math.sqrt((self.between + self.within_at(top))
                                                            / m),
                     spent=m * runs * (top - n) * per_sample, budget=money)
        most = min(int(math.floor((money - per_question) / (runs * per_sample) + 1e-9)),
                   MAX_SAMPLES)
        best = (now / m, 0, 0)
        if most >= self.k:
            candidates = list(range(self.k, min(most, 256) + 1))
            while candidates[-1] < most:
                candidates.append(min(most, max(candidates[-1] + 1,
                                                int(candidates[-1] * 1.02))))
            for size in candidates:
                added = int(math.floor(money / (per_question + runs * size * per_sample)
                                       + 1e-9))
                variance = ((m * now + added * (self.between + self.within_at(size)))
                            / (m + added) ** 2)
                if variance < best[0] * (1.0 - 1e-12):
                    best = (variance, added, size)
        variance, added, size = best
        new = Split(questions=added, samples=size, se=math.sqrt(variance),
                    spent=added * (per_question + runs * size * per_sample), budget=money)
        return new, more

    def questions_for_half_width(self, half_width: float, samples: int | None = None, *,
                                 confidence: float = 0.95) -> int:
        r"""Questions needed for an interval over questions of half-width ``half_width``.

        The smallest M >= 2 with t_{1-alpha/2, M-1} sqrt((between + within(n)) / M) <=
        ``half_width``, alpha = 1 - ``confidence``: the half-width of the interval
        ``kpass report`` prints (estimate -/+ t se) for one model, or ``kpass compare``'s
        for a paired plan, at n = ``samples`` (default the pilot's, or the assumed plan's).

        Raises:
            ValueError: ``half_width`` not in (0, 1], the answer above 1e15 questions, or a
                bad ``samples`` or ``confidence``.
        """
        from scipy.stats import t as student

        alpha = 1.0 - check_confidence(confidence)
        h = check_real(half_width, "half_width", low=0.0, high=1.0, low_open=True)
        variance = self.between + (self.within if samples is None else self.within_at(samples))
        z = float(ndtri(1.0 - alpha / 2.0))
        start = max(2, math.ceil(z * z * variance / (h * h)))
        if start > 1e15:
            raise InputError(f"`half_width` needs over 1e15 questions; got half_width={h:g}")

        def wide(m: int) -> bool:
            return float(student.ppf(1.0 - alpha / 2.0, m - 1)) * math.sqrt(variance / m) > h

        low, high = start - 1, start
        while wide(high):  # t > z: the answer is at or above the normal one
            low, high = high, 2 * high
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if wide(middle) else (low, middle)
        return max(2, high)

    def questions_for(self, difference: float, samples: int | None = None, *,
                      power: float = 0.8, confidence: float = 0.95) -> int:
        """Questions needed to detect ``difference`` (two-sided t test, ``confidence``, ``power``).

        The test's level is alpha = 1 - ``confidence``.

        The smallest M' >= 2 whose paired (or one-sample) t test on M' questions has
        the power asked for: with sigma^2 = between + within(n'), df = M' - 1 and
        lambda = |difference| sqrt(M') / sigma, power(M') = P(|T| > t_{1-alpha/2, df})
        for T noncentral t(df, lambda) (Guenther 1981). It starts from the normal
        approximation M_z = ceil((z_{1-alpha/2} + z_power)^2 sigma^2 / difference^2),
        which falls short by a few questions under ~25 questions (the t test's power at
        M_z is then 2-6 points below the target); past a million questions the t and
        normal answers differ by under a question and Guenther's M_z + z_{1-alpha/2}^2 / 2
        is returned.

        Raises:
            ValueError: ``difference`` so small that the answer exceeds 1e15 questions
                (or overflows), or a bad ``power``, ``confidence`` or ``samples``.
        """
        alpha = 1.0 - check_confidence(confidence)
        delta, _ = _effect(difference, power, alpha)
        variance = self.between + (self.within if samples is None else self.within_at(samples))
        return _questions(delta, variance, float(power), float(alpha))

    def samples_for(self, difference: float, questions: int, *, power: float = 0.8,
                    confidence: float = 0.95, largest: int = 4096) -> int:
        """Samples per question needed to detect ``difference`` with ``questions`` questions.

        The smallest n' >= k whose t test on ``questions`` questions (df = questions - 1)
        has the power asked for: lambda* solves power(lambda*) = ``power`` for the
        noncentral t, and n' is the smallest with SE(M', n') <= |difference| / lambda*
        (through the beta-binomial model: see ``distribution`` and ``fit_p_values``).

        Raises:
            ValueError: no n' up to ``largest`` (at most ``MAX_SAMPLES``) reaches it; the
                message says why (the between-question variance alone is too large at
                ``questions``, or ``largest`` is too small) and how many questions would do;
                a ``largest`` below k or above ``MAX_SAMPLES``.
        """
        alpha = 1.0 - check_confidence(confidence)
        delta, _ = _effect(difference, power, alpha)
        m = _check_questions(questions)
        top = _check_samples(largest, self.k, "largest")
        factor = _noncentrality(m - 1, float(power), float(alpha))
        target = delta * delta * m / (factor * factor) - self.between
        if target <= 0:
            raise InputError(
                f"no number of samples detects difference={delta:g} with {m} questions: the "
                f"between-question variance alone gives SE {math.sqrt(self.between / m):.4g} "
                f"there, and {delta:g} needs SE <= {delta / factor:.4g}; with the pilot's "
                f"samples it takes {self.questions_for(delta, power=power, confidence=confidence)} "
                "questions (questions_for)")
        if self.within_at(top) > target:
            raise InputError(
                f"more than largest={top} samples per question are needed to detect "
                f"difference={delta:g} with {m} questions; pass a larger `largest` (up to "
                f"{MAX_SAMPLES}) or use more questions "
                f"({self.questions_for(delta, top, power=power, confidence=confidence)} at {top} "
                "samples)")
        low, high = self.k, top
        if self.within_at(low) <= target:
            return low
        while high - low > 1:  # within(n) decreases in n
            middle = (low + high) // 2
            if self.within_at(middle) <= target:
                high = middle
            else:
                low = middle
        return high


#: The most samples per question a plan extrapolates to: within(n) costs O(n) time and
#: memory per distinct pilot count, and past ~10^4 samples it is below 10^-4 of the
#: per-question variance for every metric here (it shrinks as 1/n).
MAX_SAMPLES = 10_000

def _pilot_spread(m: int) -> tuple[float, float]:
    """80% interval of sigma^2 / s^2 for a variance estimated from m values: (M-1)/chi2."""
    from scipy.special import chdtri

    df = m - 1
    return float(df / chdtri(df, 0.1)), float(df / chdtri(df, 0.9))


def _check_samples(samples: Any, k: int, name: str = "samples") -> int:
    if isinstance(samples, (bool, np.bool_)) or not isinstance(samples, numbers.Real):
        raise ArgumentTypeError(f"`{name}` must be a whole number in [k={k}, {MAX_SAMPLES}]; "
                                f"got {name}={_show(samples)}")
    value = float(samples)
    if not (math.isfinite(value) and value == int(value) and k <= value <= MAX_SAMPLES):
        raise InputError(f"`{name}` must be a whole number in [k={k}, {MAX_SAMPLES}] (samples "
                         f"per question a plan extrapolates to); got {name}={_show(samples)}")
    return int(value)


def _check_questions(questions: Any) -> int:
    value = check_real(questions, "questions", low=2)
    if value != int(value):
        raise InputError(f"`questions` must be a whole number >= 2; got questions={questions}")
    return int(value)


def _effect(difference: Any, power: Any, alpha: Any) -> tuple[float, float]:
    delta = abs(check_real(difference, "difference"))
    if delta == 0.0:
        raise InputError("`difference` must be non-zero; got difference=0")
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
    companion = function(name + "_ci")
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
    """E[s(n, X)^2] with X ~ BetaBinomial(n, alpha, beta), per question.

    pmf(c) = C(n, c) B(c + alpha, n - c + beta) / B(alpha, beta), on the log scale; the
    distinct (alpha, beta) are taken in blocks of at most ~2^20 cells, so memory stays
    O(n) whatever the pilot's size.
    """
    from scipy.special import betaln, gammaln

    table = _state_table(metric, n, args, kwargs)
    squares = table * table
    states, inverse = np.unique(np.stack([alpha, beta], axis=1), axis=0, return_inverse=True)
    support = np.arange(n + 1, dtype=float)
    log_choose = gammaln(n + 1.0) - gammaln(support + 1.0) - gammaln(n - support + 1.0)
    out = np.empty(len(states))
    block = max(1, (1 << 20) // (n + 1))
    for start in range(0, len(states), block):
        a = states[start:start + block, :1]
        b = states[start:start + block, 1:]
        log_pmf = log_choose + betaln(support + a, n - support + b) - betaln(a, b)
        pmf = np.exp(log_pmf)
        # renormalised: the log-gamma terms of large n carry ~1e-11 relative error, and
        # within(n) is a small difference of two such expectations
        out[start:start + block] = (pmf @ squares) / pmf.sum(axis=1)
    return out[inverse.ravel()]


def _need_variance(counts: BinaryCounts, name: str) -> None:
    """Refuse a pilot whose outcomes are all 0 or all 1: it has no variance to plan from.

    Such a pilot estimates the between- and within-question variances as (nearly) 0,
    whatever the true spread, so every plan it gave would be the smallest one (2
    questions to detect any difference); there is no conservative answer it supports.
    """
    total = int(counts.n_samples.sum())
    correct = int(counts.n_correct.sum())
    if correct in (0, total):
        raise InputError(
            f"the pilot `{name}` has no variance: all {total} of its outcomes are "
            f"{0 if correct == 0 else 1}, so it cannot estimate the spread a plan needs; "
            "plan from a pilot on which the model is sometimes right and sometimes wrong")


def plan(metric: MetricLike, R: Any = None, k: int | None = None, *args: Any, R_b: Any = None,
         alpha0: float | None = None, beta0: float | None = None,
         baseline: float | None = None, difference: float | None = None,
         samples: int | None = None, questions: int | None = None,
         spread: float | None = None, correlation: float | None = None,
         power: float | None = None, confidence: float | None = None,
         **kwargs: Any) -> Plan | Design:
    r"""Plan an evaluation, from a pilot run or from scratch: questions or samples needed.

    Without a pilot (``R`` None) it plans a paired comparison of two models from assumed
    numbers (:mod:`kpass.stats.design`): give ``baseline``, ``samples`` and one of
    ``difference`` (get the questions needed) or ``questions`` (get the smallest
    improvement they detect), with ``spread``, ``correlation``, ``power`` and
    ``confidence``; it returns a :class:`kpass.Design`. With a pilot it returns a
    :class:`Plan`, as below.

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
        baseline: without a pilot: model A's population value of the metric (the value
            ``kpass report`` would print on many questions), in (0, 1).
        difference: without a pilot: B - A to detect, in the metric's units.
        samples: without a pilot: samples per question and model (>= k).
        questions: without a pilot: the questions available (instead of ``difference``).
        spread: without a pilot: sd of the question success rates' logits (default
            :data:`kpass.stats.design.DEFAULT_SPREAD` = 2.0, fitted to the bundled
            tau-bench sample).
        correlation: without a pilot: correlation of the two models' question logits in
            [0, 1] (default 0.5, :data:`kpass.stats.design.DEFAULT_CORRELATION`).
        power: without a pilot: the power asked for (None: 0.8).
        confidence: without a pilot: the two-sided test's level is 1 - confidence (None:
            0.95).
        **kwargs: the metric's keyword arguments (``short`` is not supported: planning
            needs every question at k).

    Returns:
        Without a pilot a :class:`kpass.Design` (``questions``, ``difference``,
        ``power_at``, ``questions_for``, ``detectable``, ``curve``). With one a
        :class:`Plan`: ``se(questions, samples)``, ``questions_for(difference, samples)``,
        ``samples_for(difference, questions)``, ``within_at(samples)``, the pilot's
        ``between`` and ``within``, the ``distribution`` the split rests on and its
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
        A pilot of 100 questions x 4 samples, each question's success rate drawn from a
        Beta(2, 3) population:

        >>> import numpy as np
        >>> import kpass
        >>> rng = np.random.default_rng(1)
        >>> R = (rng.random((100, 4)) < rng.beta(2, 3, size=100)[:, None]).astype(int)
        >>> p = kpass.plan(kpass.pass_at_k, R, 1)
        >>> round(p.se(), 6) == round(kpass.standard_error(kpass.pass_at_k, R, 1), 6)
        True
        >>> round(p.se(questions=400), 4), round(p.se(samples=64), 4)
        (0.0146, 0.0203)
        >>> p.questions_for(0.05), p.samples_for(0.1, questions=400)
        (271, 1)
        >>> p.distribution, [round(x, 3) for x in p.fit_p_values]
        ('beta-binomial', [0.648])
    """
    name, metric = _check_metric(metric, "plan", (k, *args), kwargs)
    if R is None:
        return plan_from_scratch(metric, name, k, args, kwargs, baseline=baseline,
                                 difference=difference, samples=samples, questions=questions,
                                 spread=spread, correlation=correlation, power=power,
                                 confidence=confidence)
    scratch = {"baseline": baseline, "difference": difference, "samples": samples,
               "questions": questions, "spread": spread, "correlation": correlation,
               "power": power, "confidence": confidence}
    given = [(key, value) for key, value in scratch.items() if value is not None]
    if given:
        raise InputError(f"`{given[0][0]}` plans without a pilot (got {given[0][0]}="
                         f"{_show(given[0][1])} with a pilot `R`); with a pilot, pass it to "
                         "the Plan's questions_for or samples_for instead")
    if name not in _CREDIT_METRICS:
        raise ArgumentTypeError(f"`metric` must be one of kpass.{', kpass.'.join(_CREDIT_METRICS)} "
                                f"for planning; got kpass.{name}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise ArgumentTypeError(f"`k` must be one int for planning; got k={_show(k)}")
    if "short" in kwargs:
        raise InputError("`short` is not supported by plan: every question needs k samples")
    args = (int(k), *args)
    runs = [R] if R_b is None else [R, R_b]
    parts = []
    populations = []
    fits: list[float | None] = []
    if (alpha0 is None) != (beta0 is None):
        raise InputError(f"`alpha0` and `beta0` must be given together (or both None to fit "
                         f"them); got alpha0={_show(alpha0)}, beta0={_show(beta0)}")
    pilots = [_counts_of(run) for run in runs]
    if R_b is not None:  # matched by question id when both carry ids, else by row
        pilots = list(align_runs(pilots, ["`R`", "`R_b`"], verb="").runs)
    for label, counts in zip(("R", "R_b"), pilots, strict=False):
        _need_variance(counts, label)
        values = np.asarray(metric(counts, *args, per_question=True, **kwargs), dtype=float)
        if alpha0 is None:
            a0, b0 = fit_beta_prior(counts)
        else:
            a0 = check_real(alpha0, "alpha0", low=0.0, low_open=True)
            b0 = check_real(beta0, "beta0", low=0.0, low_open=True)
        populations.append((float(a0), float(b0)))
        fits.append(fit_check(counts, float(a0), float(b0)))
        mean, second = _posterior_g(metric, name, counts, args, a0, b0)
        alpha = a0 + counts.n_correct
        beta = b0 + counts.n_samples - counts.n_correct
        parts.append((counts, values, second, alpha, beta))
    m = parts[0][0].n_questions
    _need_two(m, "the pilot `R`")

    @functools.lru_cache(maxsize=64)
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
    pilot_samples = float(np.mean(parts[0][0].n_samples))
    problems = small_sample_problems(m, False, [], [])
    misfit = [f"{label} (p = {value:.2g})" for label, value in zip(("R", "R_b"), fits,
                                                                   strict=False)
              if value is not None and value < 0.01]
    if misfit:
        problems.append("the pilot's per-question counts do not fit a beta-binomial population "
                        f"({', '.join(misfit)}): within_at, samples_for and any other "
                        "samples= extrapolate through that model and may be far off")
    warn_small(f"kpass.plan({name})", problems)
    return Plan(metric=name, k=int(k), questions=m, samples=pilot_samples, between=between,
                within=within, paired=R_b is not None, _within_at=within_at,
                populations=tuple(populations), fit_p_values=tuple(fits),
                pilot_spread=_pilot_spread(m))
