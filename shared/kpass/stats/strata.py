r"""The aggregate of a breakdown by group (subtask): a stratified mean and its standard error.

A benchmark made of subtasks (MMLU's 57 subjects, an eval-set's tasks) reports each group's
mean of per-question values and an aggregate over the groups. The groups are **strata**, not
clusters: every group is in the benchmark by design (none is sampled), and the questions
are sampled within each group. The aggregate is the weighted mean of the group estimates,

    estimate = sum_g w_g x_g,    sum_g w_g = 1,

with the weighting named (``weights=``):

- ``"questions"`` (micro: w_g = n_g / N, each question counts once; lm-evaluation-harness's
  ``weight_by_size: true``, MMLU's reported average; equal to the metric over all
  questions pooled);
- ``"groups"`` (macro: w_g = 1 / G, each group counts once; HELM's mean over scenarios).

Its standard error is the stratified one (Cochran 1977, ch. 5), from each group's own
within-group standard error se_g:

    Var = sum_g w_g^2 se_g^2,

and the t quantile takes Satterthwaite's (1946) degrees of freedom (the Welch-Satterthwaite
approximation of a sum of independent scaled chi-squares, each with n_g - 1 df):

    df = (sum_g a_g)^2 / sum_g a_g^2 / (n_g - 1),    a_g = w_g^2 se_g^2.

A group of one question has no within-group SE. It is not dropped (its question is in the
estimate): its variance is taken as the pooled within-group variance of the groups of two
or more questions, s_p^2 = sum (n_g - 1) s_g^2 / sum (n_g - 1) with s_g^2 = n_g se_g^2,
over its one question (the "average variance" fix for strata with one unit; Cochran 1977,
5A.12; Rust and Kalton 1987), and those groups' terms share s_p^2's df in Satterthwaite's
formula. With no group of two or more questions there is no SE (None).

The interval is :func:`kpass.stats.intervals.interval` with that df, over the effective
number of questions N_eff = 1 / sum_g w_g^2 / n_g (Kish 1965: N with micro weights) for
its boundary rules.

References:
    Cochran, W. G. (1977). Sampling Techniques, 3rd ed., ch. 5 (stratified random sampling).
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
    components. Biometrics Bulletin 2(6).
    Rust, K. and Kalton, G. (1987). Strategies for collapsing strata for variance estimation.
    Journal of Official Statistics 3(1).
    Kish, L. (1965). Survey Sampling (the effective sample size).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._core.counting.checks import InputError

__all__ = ["WEIGHTS", "Stratified", "stratified_mean"]

#: The aggregate's weightings: each question equal (micro) or each group equal (macro).
WEIGHTS = ("questions", "groups")


@dataclass(frozen=True)
class Stratified:
    """The aggregate of group estimates (:func:`stratified_mean`).

    Attributes:
        estimate: sum_g w_g x_g.
        se: the stratified standard error (None: no group has two questions).
        df: Satterthwaite's degrees of freedom (None with ``se`` None).
        units: the effective number of questions 1 / sum_g w_g^2 / n_g.
        weights: w_g per group, in the order given.
        pooled: the number of one-question groups given the pooled variance.
    """

    estimate: float
    se: float | None
    df: float | None
    units: float
    weights: tuple[float, ...]
    pooled: int


def _check(estimates: Sequence[float], ses: Sequence[float | None], sizes: Sequence[int],
           weights: str) -> None:
    if weights not in WEIGHTS:
        raise InputError(f"weights={weights!r}: expected one of {', '.join(map(repr, WEIGHTS))}")
    if not (len(estimates) == len(ses) == len(sizes)) or not estimates:
        raise InputError(f"estimates, ses and sizes: expected one value per group each, got "
                         f"{len(estimates)}, {len(ses)} and {len(sizes)}")
    for index, (x, se, n) in enumerate(zip(estimates, ses, sizes, strict=True)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"sizes[{index}]={n!r}: expected a whole number of questions >= 1")
        if not math.isfinite(float(x)):
            raise InputError(f"estimates[{index}]={x!r}: expected a finite number")
        if n >= 2 and (se is None or not math.isfinite(float(se)) or float(se) < 0):
            raise InputError(f"ses[{index}]={se!r}: expected a finite SE >= 0 for a group of "
                             f"{n} questions")


def stratified_mean(estimates: Sequence[float], ses: Sequence[float | None],
                    sizes: Sequence[int], weights: str = "questions") -> Stratified:
    r"""The weighted mean of group estimates with its stratified SE and Satterthwaite df.

    Args:
        estimates: each group's estimate x_g (a mean of per-question values).
        ses: each group's standard error over its own questions (None for a group of one
            question).
        sizes: each group's number of questions n_g.
        weights: ``"questions"`` (w_g = n_g / N) or ``"groups"`` (w_g = 1 / G).

    Returns:
        A :class:`Stratified`: estimate = sum w_g x_g, se = sqrt(sum w_g^2 se_g^2) (a
        one-question group with the pooled within-group variance), df by Satterthwaite.

    Raises:
        InputError: unknown ``weights``, lengths that differ, a size below 1, a missing SE
            for a group of two or more questions.

    Example:
        >>> from kpass.stats.strata import stratified_mean
        >>> s = stratified_mean([0.5, 0.8], [0.1, 0.2], [10, 30], weights="questions")
        >>> round(s.estimate, 4), round(s.se, 4)   # 0.25 * 0.5 + 0.75 * 0.8
        (0.725, 0.1521)
    """
    _check(estimates, ses, sizes, weights)
    total = sum(sizes)
    groups = len(sizes)
    w = [n / total if weights == "questions" else 1.0 / groups for n in sizes]
    estimate = sum(wg * float(x) for wg, x in zip(w, estimates, strict=True))
    units = 1.0 / sum(wg * wg / n for wg, n in zip(w, sizes, strict=True))
    several = [g for g, n in enumerate(sizes) if n >= 2]
    single = [g for g, n in enumerate(sizes) if n < 2]
    if not several:
        return Stratified(estimate, None, None, units, tuple(w), 0)
    se2 = {g: float(ses[g] or 0.0) ** 2 for g in several}  # checked: given for these
    terms = [w[g] ** 2 * se2[g] for g in several]
    dfs = [sizes[g] - 1.0 for g in several]
    if single:
        df_pool = sum(dfs)
        s2_pool = sum((sizes[g] - 1) * sizes[g] * se2[g] for g in several) / df_pool
        terms.append(sum(w[g] ** 2 * s2_pool for g in single))  # s_p^2 / n_g, n_g = 1
        dfs.append(df_pool)
    variance = sum(terms)
    if variance > 0:
        df = variance ** 2 / sum(a * a / d for a, d in zip(terms, dfs, strict=True) if a > 0)
    else:
        df = float(total - groups) if total > groups else 1.0
    return Stratified(estimate, math.sqrt(variance), df, units, tuple(w), len(single))
