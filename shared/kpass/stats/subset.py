r"""A new model's full-benchmark score from a random subset: the model-assisted estimator.

**Estimand.** The value a full run of the new model would report: the mean over all N
questions of the benchmark of the per-question metric value :math:`y_q` (the per-question
unbiased estimator of Pass@k, Pass^k, ... from the model's samples of question q), a finite
population mean :math:`\bar Y = N^{-1} \sum_{q \in U} y_q`.

**Estimator.** The questions were drawn by :func:`kpass.choose_questions` (stratified or
simple random sampling, inclusion probabilities :math:`\pi_q`). A 2PL (or Rasch) model fitted
on the reference runs (:mod:`kpass.stats.irt`) gives each question's intercept and slope; the
new model's ability :math:`\hat\theta` is fitted from its own answers on the subset, and the
prediction of question q is the metric's expectation at :math:`p_q = \sigma(a_q \hat\theta
+ d_q)`: :math:`f_q = E_{c \sim \mathrm{Bin}(n, p_q)}[\text{metric}(n, c)]` (for Pass@k's
unbiased estimator :math:`1 - (1 - p_q)^k`, for Pass^k :math:`p_q^k`). The difference
(GREG-type) estimator with cross-fitting over F folds of the subset (the ability that
predicts a question is fitted without its fold, so the residual it corrects with does not
depend on its own outcome) is

.. math::

    \hat Y = \frac1F \sum_{f=1}^F \frac1N \sum_{q \in U} f^{(-f)}_q
           + \frac1N \sum_{i \in s} \frac{y_i - f^{(-f(i))}_i}{\pi_i}.

Whatever the IRT model's fit, the second term corrects the first in expectation over the
draw (Särndal, Swensson and Wretman 1992, ch. 6; cross-fitting as in Zrnic and Candès
2024); a good prediction only makes the residuals, hence the variance, small.

**Standard error.** Stratified simple random sampling's variance with the finite-population
correction, on the residuals :math:`e_i = y_i - f_i`:

.. math::

    \widehat{V} = \sum_h \Big(\frac{N_h}{N}\Big)^2 \Big(1 - \frac{m_h}{N_h}\Big)
                  \frac{s^2_{e,h}}{m_h}.

**Interval: two small-sample corrections from the IRT model's sampling noise.** With one
sample per question a model near 1 (or 0) leaves residuals that are mostly small and now
and then large (a rare wrong answer, :math:`e = -f`), strongly skewed; a subset of 50
questions often holds none of the rare ones, and then :math:`\widehat V` is far too small
and the estimate too high at once (the t interval covered 0.898 for a new model better than
every reference, one sample, m = 50). Under the fitted model question q's value has
variance :math:`v_q = \mathrm{Var}_{c \sim \mathrm{Bin}(n, p_q)}[\text{metric}(n, c)]` and
third central moment :math:`\mu_{3,q}` (its own sampling noise, which no prediction
removes), which give the estimator's variance and third cumulant under independent
per-question noise (exactly, with the noise of the questions not drawn):

.. math::

    V_0 = \sum_h \Big(\frac{N_h}{N}\Big)^2 \Big(1 - \frac{m_h}{N_h}\Big)
          \frac{\bar v_h}{m_h}, \qquad
    \kappa_3 = \sum_h \Big(\frac{N_h}{N}\Big)^3 \Big(1 - \frac{m_h}{N_h}\Big)
          \Big(1 - \frac{2 m_h}{N_h}\Big) \frac{\bar\mu_{3,h}}{m_h^2}

(:math:`\bar v_h, \bar\mu_{3,h}` the means over the stratum's chosen questions).

1. *Variance.* The residuals' variance cannot be far below that noise: where
   :math:`\widehat V < V_0` it is pooled with :data:`NOISE_QUESTIONS` (c) pseudo-questions of
   variance :math:`V_0`, :math:`\widetilde V = \widehat V + \frac{c}{m - H + c}
   \max(V_0 - \widehat V, 0)`; ``se`` is :math:`\sqrt{\widetilde V}`.
2. *Skewness.* With :math:`\gamma = \kappa_3 / V_0^{3/2}` (the estimator's skewness under
   the model; about :math:`\gamma_1 / \sqrt m` for a per-question skewness :math:`\gamma_1`)
   the studentised estimate :math:`T = (\hat Y - \bar Y) / se` is made nearly symmetric by
   Hall's (1992) monotone transformation
   :math:`g(t) = t + \gamma t^2 / 3 + \gamma^2 t^3 / 27 + \gamma / 6`, and the interval is
   :math:`[\hat Y - se\, g^{-1}(q), \hat Y - se\, g^{-1}(-q)]`,
   :math:`g^{-1}(x) = ((1 + \gamma (x - \gamma / 6))^{1/3} - 1) / (\gamma / 3)`,
   :math:`q = t_{m - H}` quantile, clipped to [0, 1].

Both vanish as m grows (:math:`c / (m + c)`, :math:`\gamma \propto m^{-1/2}`), so the interval
keeps its design-based validity whatever the model; mid-range (:math:`\gamma \approx 0`,
:math:`\widehat V \geq V_0`) it is :math:`\hat Y \pm t_{m - H}\, se`. Beside
it: the SE the plain mean of a simple random subset of m questions would have had,
:math:`\sqrt{(1 - m/N) \hat S_y^2 / m}` (:math:`\hat S_y^2` the design-weighted estimate of the
population variance of y), and the share of that variance the predictions explained,
:math:`1 - \hat S_e^2 / \hat S_y^2`.

References:
    Särndal, Swensson and Wretman (1992), Model Assisted Survey Sampling, sections 6.3-6.5;
    Cochran (1977), Sampling Techniques, ch. 5; Zrnic and Candès (2024), Cross-prediction-
    powered inference, PNAS 121(15); Polo et al. (2024), tinyBenchmarks, ICML; Hall (1992),
    On the removal of skewness by transformation, JRSS B 54(1), 221-228; Johnson (1978),
    Modified t tests and confidence intervals for asymmetrical populations, JASA 73(363).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import InputError, check_confidence
from .._core.counting.counts import BinaryCounts
from ._common import _check_metric, _counts_of, _per_question
from .align import question_ids
from .intervals import _quantile
from .irt import MODELS, IRTFit, fit_ability, fit_irt
from .subset_design import Subset, reference_tables

#: Folds of the cross-fitting (fewer when the subset is smaller).
FOLDS = 10

#: c, the pseudo-questions of the model's noise variance the residual variance is pooled
#: with where it falls below it (module docstring; chosen by ``benchmarks/bench_subset.py``
#: between 4 and 8 on seeds 7 and 21, validated on seed 22).
NOISE_QUESTIONS = 6


@dataclass(frozen=True)
class SubsetEstimate:
    """A new model's full-benchmark score estimated from a subset of questions.

    Attributes:
        estimate: the estimate of the mean over all N questions (clipped to [0, 1]).
        se: its standard error over the draw of the subset (the residuals' design variance,
            kept from falling far below the IRT model's own sampling noise; module docstring).
        lo: lower end of the interval (skewness-corrected near 0 and 1; module docstring).
        hi: upper end of the interval.
        confidence: the interval's level.
        df: the t reference's degrees of freedom (m - H).
        srs_se: the SE the plain mean of a simple random subset of m questions would have had.
        explained: the share of the questions' variance the predictions explained.
        prediction: the IRT prediction alone (the mean of the predictions over all N).
        ability: the new model's ability fitted on the whole subset.
        questions: m, the questions run.
        population: N, the benchmark's questions.
        design: the subset's design.
    """

    estimate: float
    se: float
    lo: float
    hi: float
    confidence: float
    df: float
    srs_se: float
    explained: float
    prediction: float
    ability: float
    questions: int
    population: int
    design: str


def _expectation_table(metric: Any, name: str, n: int, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> np.ndarray:
    """The metric's per-question value at c = 0..n correct of n samples."""
    counts = BinaryCounts(np.full(n + 1, n), np.arange(n + 1))
    values = _per_question(metric, name, counts, args, kwargs)[0]
    if len(values) != 1:
        raise InputError("`subset_estimate` takes one k (a number, not a list)")
    table = np.asarray(values[0], dtype=float)
    if not np.all(np.isfinite(table)):
        raise InputError(f"the metric is undefined with {n} samples per question (too few for "
                         "its k); run more samples or lower k")
    return table


def _predict(p: np.ndarray, n: int, table: np.ndarray) -> np.ndarray:
    """E over c ~ Bin(n, p) of the metric's per-question value (vectorised over p)."""
    from scipy.stats import binom  # not at import: `import kpass` loads no scipy.stats

    return np.asarray(binom.pmf(np.arange(n + 1)[:, None], n, p[None, :]).T @ table)


def _noise(p: np.ndarray, n: int, table: np.ndarray) -> np.ndarray:
    """(2, len(p)): variance and third central moment over c ~ Bin(n, p) of the metric's value."""
    from scipy.stats import binom

    pmf = binom.pmf(np.arange(n + 1)[:, None], n, p[None, :]).T
    deviation = table[None, :] - (pmf @ table)[:, None]
    return np.array([(pmf * deviation ** 2).sum(axis=1), (pmf * deviation ** 3).sum(axis=1)])


def _noise_moments(noise: np.ndarray, subset: Subset) -> tuple[float, float]:
    r"""(V_0, kappa_3): the estimator's variance and third cumulant under the model's noise.

    ``noise``: :func:`_noise` of the chosen questions, in the subset's order. For
    independent per-question errors of variance :math:`v_q` and third moment
    :math:`\mu_{3,q}`, the error of a stratum's mean against its full mean (the unrun
    questions' noise included) has variance :math:`(1 - f) \bar v / m_h` and third cumulant
    :math:`(1 - f)(1 - 2f) \bar\mu_3 / m_h^2`, :math:`f = m_h / N_h`.
    """
    N = subset.population
    variance = third = 0.0
    for h in np.unique(subset.stratum):
        inside = subset.stratum == h
        m_h = int(inside.sum())
        N_h = m_h / float(subset.inclusion[inside][0])
        W, f = N_h / N, m_h / N_h
        variance += W ** 2 * (1 - f) * float(noise[0, inside].mean()) / m_h
        third += W ** 3 * (1 - f) * (1 - 2 * f) * float(noise[1, inside].mean()) / m_h ** 2
    return variance, third


def _hall_inverse(x: float, gamma: float) -> float:
    """g^{-1}(x) of Hall's g(t) = t + gamma t^2/3 + gamma^2 t^3/27 + gamma/6 (module docstring).

    g(t) = ((1 + a t)^3 - 1) / (3 a) + b with a = gamma/3, b = gamma/6: increasing in t
    (g'(t) = (1 + a t)^2), so the inverse is the real cube root's.
    """
    a, b = gamma / 3.0, gamma / 6.0
    if a == 0.0:
        return x - b
    u = 3.0 * a * (x - b)
    if u > -1.0:  # (1 + u)^(1/3) - 1 without cancellation for small u
        return float(np.expm1(np.log1p(u) / 3.0) / a)
    return float((np.cbrt(1.0 + u) - 1.0) / a)


def _skew_interval(estimate: float, se: float, gamma: float, df: float,
                   confidence: float) -> tuple[float, float]:
    """Hall's (1992) skewness-corrected interval, clipped to [0, 1] and holding the estimate.

    ``gamma``: the estimator's standardised third cumulant; 0 gives estimate -/+ t se.
    """
    q = float(_quantile(df, confidence))
    lo = estimate - se * _hall_inverse(q, gamma)
    hi = estimate - se * _hall_inverse(-q, gamma)
    inside = min(max(estimate, 0.0), 1.0)
    return min(max(lo, 0.0), inside), max(min(hi, 1.0), inside)


def _population_variance(values: np.ndarray, weights: np.ndarray, N: int) -> float:
    """The design-weighted (Hajek) estimate of the population variance S^2 (divisor N - 1)."""
    total = weights.sum()
    mean = float(weights @ values / total)
    return float(weights @ (values - mean) ** 2 / total) * N / max(N - 1, 1)


def _stratified_variance(residuals: np.ndarray, subset: Subset) -> float:
    N = subset.population
    variance = 0.0
    for h in np.unique(subset.stratum):
        inside = subset.stratum == h
        m_h = int(inside.sum())
        N_h = m_h / float(subset.inclusion[inside][0])
        if m_h < 2:
            raise InputError(f"stratum {int(h)} holds {m_h} question; every stratum needs at "
                             "least 2 for its variance")
        variance += (N_h / N) ** 2 * (1 - m_h / N_h) * np.var(residuals[inside], ddof=1) / m_h
    return float(variance)


def _subset_counts(R_new: Any, subset: Subset, argument: str = "R_new") -> BinaryCounts:
    """A model's counts in the subset's order (by id, or row i = chosen question i)."""
    counts = _counts_of(R_new)
    ids = question_ids(counts)
    if ids is None:
        if counts.n_questions != subset.questions:
            raise InputError(f"`{argument}` without question ids must hold one row per chosen "
                             f"question ({subset.questions}); got {counts.n_questions} (give "
                             "ids to match by id)")
        return counts
    where = {q: i for i, q in enumerate(ids)}
    missing = [q for q in subset.ids if q not in where]
    if missing:
        raise InputError(f"`{argument}` lacks {len(missing)} of the subset's questions, e.g. "
                         f"{missing[:3]!r}; run the new model on every chosen id")
    rows = np.array([where[q] for q in subset.ids])
    return BinaryCounts(counts.n_samples[rows], counts.n_correct[rows], ids=list(subset.ids))


def subset_estimate(metric: Any, R_new: Any, *args: Any, subset: Subset,
                    reference: Mapping[str, Any], confidence: float = 0.95, irt: str = "2pl",
                    **kwargs: Any) -> SubsetEstimate:
    r"""Estimate a new model's score on the whole benchmark from its outcomes on a subset.

    See the module docstring for the estimand, the cross-fitted model-assisted estimator, its
    standard error and the interval's small-sample corrections. The interval's validity
    comes from the random draw of the subset (:func:`kpass.choose_questions`), whatever the
    IRT model's fit; how well the reference models predict the new one only sets its width.

    Args:
        metric: a binary pass-family point function (``kpass.pass_at_k``, ``kpass.pass_hat_k``,
            ...), its name or registry key.
        R_new: the new model's outcomes on the chosen questions (counts with ids, matched to
            ``subset.ids``; without ids, row i is the subset's question i).
        *args: ``metric``'s positional arguments (k, ...); one k.
        subset: the :class:`~kpass.stats.subset_design.Subset` the questions were drawn by.
        reference: model name -> outcomes on every question (as :func:`kpass.leaderboard`
            takes), the runs the IRT model is fitted on; the subset's ids must be theirs.
        confidence: the interval's level.
        irt: the IRT model, ``"2pl"`` (the default) or ``"rasch"``.
        **kwargs: ``metric``'s keyword arguments.

    Returns:
        A :class:`SubsetEstimate`.

    Raises:
        TypeError: ``metric`` is not a point function of the family, ``reference`` not a
            mapping.
        ValueError: a subset that is not of the references' benchmark, ``R_new`` lacking
            chosen questions, too few samples for k, a stratum with fewer than 2 questions.

    Example:
        >>> import kpass, numpy as np
        >>> rng = np.random.default_rng(0)
        >>> easy = rng.uniform(-2, 2, 300)
        >>> def run(skill):
        ...     return kpass.BinaryCounts(np.full(300, 4), rng.binomial(4, 1 / (1 + np.exp(
        ...         -(skill + easy)))), ids=[f"q{i}" for i in range(300)])
        >>> reference = {f"m{j}": run(skill) for j, skill in enumerate(np.linspace(-1, 1, 8))}
        >>> chosen = kpass.choose_questions(reference, 60, seed=3)
        >>> new = run(0.5)  # the full run, for the check; only the 60 chosen are used
        >>> result = kpass.subset_estimate(kpass.pass_at_k, new, 1, subset=chosen,
        ...                                reference=reference)
        >>> full = kpass.pass_at_k(new, 1)
        >>> bool(result.lo < full < result.hi), bool(result.se < result.srs_se)
        (True, True)
    """
    name, metric = _check_metric(metric, "subset_estimate", args, kwargs)
    confidence = check_confidence(confidence)
    _check_subset(subset, "subset")
    fit, ids = _reference_fit(reference, irt)
    chosen, counts, y = _on_subset(metric, name, args, kwargs, R_new, "R_new", subset, ids)
    return _estimate(metric, name, args, kwargs, fit, chosen, counts, y, subset, confidence)


def _check_subset(subset: Any, argument: str) -> None:
    if not isinstance(subset, Subset):
        raise InputError(f"`{argument}` must be a Subset (kpass.choose_questions); got "
                         f"{type(subset).__name__}")


def _reference_fit(reference: Mapping[str, Any], irt: str) -> tuple[IRTFit, list[Any]]:
    """The IRT fit on the reference runs and their question ids."""
    if irt not in MODELS:
        raise InputError(f"`irt` must be one of {', '.join(map(repr, MODELS))}; got irt={irt!r}")
    ids, n_ref, c_ref = reference_tables(reference)
    return fit_irt(n_ref, c_ref, model=irt), list(ids)


def _on_subset(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
               R: Any, argument: str, subset: Subset, ids: list[Any]
               ) -> tuple[np.ndarray, BinaryCounts, np.ndarray]:
    """The subset's positions among ``ids``, ``R``'s counts on it and their metric values."""
    N = len(ids)
    if N != subset.population:
        raise InputError(f"the subset was drawn from {subset.population} questions but the "
                         f"`reference` runs score {N}")
    where = {q: i for i, q in enumerate(ids)}
    unknown = [q for q in subset.ids if q not in where]
    if unknown:
        raise InputError(f"{len(unknown)} of the subset's ids are not the references' questions,"
                         f" e.g. {unknown[:3]!r}")
    chosen = np.array([where[q] for q in subset.ids])
    counts = _subset_counts(R, subset, argument)
    y = _per_question(metric, name, counts, args, kwargs)[0][0]
    if not np.all(np.isfinite(y)):
        raise InputError(f"the metric is undefined on some chosen questions of `{argument}` "
                         "(fewer samples than k); run more samples or lower k")
    return chosen, counts, np.asarray(y, dtype=float)


def _assisted(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
              fit: IRTFit, chosen: np.ndarray, counts: BinaryCounts, y: np.ndarray,
              subset: Subset) -> tuple[float, np.ndarray, int, np.ndarray, np.ndarray]:
    """The cross-fitted difference estimator (unclipped) and its residuals on the subset.

    Returns (estimate, residuals e_i = y_i - f_i in the subset's order, the typical number of
    samples, the metric's expectation table at that number, :func:`_noise` of the chosen
    questions at their cross-fitted probabilities).
    """
    N = subset.population
    m = subset.questions
    n_new = counts.n_samples.astype(float)
    c_new = counts.n_correct.astype(float)
    typical = int(np.bincount(counts.n_samples).argmax())
    table = _expectation_table(metric, name, typical, args, kwargs)
    items = dataclasses.replace(fit, intercept=fit.intercept[chosen], slope=fit.slope[chosen])
    F = min(FOLDS, m)
    fold = np.arange(m) % F
    mask = (fold[None, :] != np.arange(F)[:, None]).astype(float)
    abilities = fit_ability(n_new, c_new, items, mask=mask)
    population = np.array([_predict(_probabilities(fit, theta), typical, table).mean()
                           for theta in abilities])
    p_own = 1.0 / (1.0 + np.exp(-(fit.slope[chosen] * abilities[fold] + fit.intercept[chosen])))
    residuals = y - _predict(p_own, typical, table)
    return (float(population.mean() + (1.0 / subset.inclusion) @ residuals / N), residuals,
            typical, table, _noise(p_own, typical, table))


def _estimate(metric: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
              fit: IRTFit, chosen: np.ndarray, counts: BinaryCounts, y: np.ndarray,
              subset: Subset, confidence: float,
              parts: tuple[float, np.ndarray, int, np.ndarray, np.ndarray] | None = None
              ) -> SubsetEstimate:
    """The estimator of the module docstring, given the reference fit and the subset's data.

    ``chosen``: the subset's positions among the fit's questions; ``y``: the metric's
    per-question values of ``counts`` (the new model on the subset, in its order);
    ``parts``: :func:`_assisted`'s result when the caller has it already.
    """
    N = subset.population
    m = subset.questions
    estimate, residuals, typical, table, noise = parts if parts is not None else _assisted(
        metric, name, args, kwargs, fit, chosen, counts, y, subset)
    weights = 1.0 / subset.inclusion
    H = len(np.unique(subset.stratum))
    df = float(m - H)
    variance = _stratified_variance(residuals, subset)
    floor, third = _noise_moments(noise, subset)
    variance += NOISE_QUESTIONS / (df + NOISE_QUESTIONS) * max(floor - variance, 0.0)
    se = float(np.sqrt(variance))
    gamma = third / floor ** 1.5 if floor > 0 else 0.0
    lo, hi = _skew_interval(estimate, se, gamma, df, confidence)
    # The difference estimator can leave [0, 1] where predictions overshoot on a tiny or
    # odd subset; a pass-family value cannot: the estimate is clipped like its interval.
    estimate = min(max(estimate, 0.0), 1.0)
    S_y = _population_variance(y, weights, N)
    S_e = _population_variance(residuals, weights, N)
    items = dataclasses.replace(fit, intercept=fit.intercept[chosen], slope=fit.slope[chosen])
    theta = float(fit_ability(counts.n_samples.astype(float), counts.n_correct.astype(float),
                              items)[0])
    prediction = float(_predict(_probabilities(fit, theta), typical, table).mean())
    return SubsetEstimate(
        estimate=estimate, se=se, lo=float(lo), hi=float(hi), confidence=confidence, df=df,
        srs_se=float(np.sqrt(max(1 - m / N, 0.0) * S_y / m)),
        # every y equal on the subset (S_y is 0 up to rounding): nothing to explain
        explained=float(1 - S_e / S_y) if np.ptp(y) > 0 else 0.0, prediction=prediction,
        ability=theta, questions=m, population=N, design=subset.design)


def _probabilities(fit: IRTFit, theta: float) -> np.ndarray:
    return np.asarray(fit.probabilities(np.array([theta]))[0])
