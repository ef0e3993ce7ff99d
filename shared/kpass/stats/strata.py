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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._core.counting.checks import InputError

__all__ = ["WEIGHTS", "GroupDifference", "Stratified", "StratifiedCovariance", "residual_factors",
           "group_difference_rows", "group_differences", "stratified_covariance",
           "stratified_mean"]

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
    w = group_weights(np.asarray(sizes), weights).tolist()
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


@dataclass(frozen=True)
class StratifiedCovariance:
    """Several models' aggregates on the same grouped questions (:func:`stratified_covariance`).

    Attributes:
        estimates: (K,) sum_g w_g x_jg per model j.
        sigma: (K, K) the stratified covariance of the estimates; its diagonal is each
            model's :func:`stratified_mean` SE squared, and sigma_jj + sigma_kk - 2 sigma_jk
            the paired difference's.
        df: (K,) each model's Satterthwaite degrees of freedom (:func:`stratified_mean`).
        units: the effective number of questions 1 / sum_g w_g^2 / n_g.
        weights: (G,) w_g per group code.
        sizes: (G,) n_g per group code.
    """

    estimates: np.ndarray
    sigma: np.ndarray
    df: np.ndarray
    units: float
    weights: np.ndarray
    sizes: np.ndarray


def group_weights(sizes: np.ndarray, weights: str) -> np.ndarray:
    """w_g: n_g / N (``"questions"``) or 1 / G (``"groups"``), per group."""
    if weights not in WEIGHTS:
        raise InputError(f"weights={weights!r}: expected one of {', '.join(map(repr, WEIGHTS))}")
    sizes = np.asarray(sizes, dtype=float)
    return sizes / sizes.sum() if weights == "questions" else np.full(sizes.size, 1 / sizes.size)


def residual_factors(weights: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    r"""b_g: the stratified variance as sum_g b_g (sum of group g's squared residuals).

    b_g = w_g^2 / (n_g (n_g - 1)) + (sum_{h: n_h = 1} w_h^2) / sum_h (n_h - 1) for a group of
    two or more questions (its own term and its share of the pooled variance that the
    one-question groups take), 0 for a group of one (its residual is 0). One formula for
    :func:`stratified_covariance` and the sign flips of
    :func:`kpass.stats.rank_sets._max_t_strata`, so the identity flip gives the observed T.
    """
    sizes = np.asarray(sizes, dtype=float)
    several = sizes >= 2
    pooled = float(np.sum(sizes[several] - 1))
    alone = float(np.sum(np.asarray(weights)[~several] ** 2))
    own = weights ** 2 / (sizes * np.maximum(sizes - 1, 1))
    return np.where(several, own + alone / pooled, 0.0)


def stratified_covariance(values: np.ndarray, codes: np.ndarray, weights: str = "questions"
                          ) -> StratifiedCovariance:
    r"""The stratified covariance of K models' aggregates over the same grouped questions.

    Model j's aggregate is theta_j = sum_g w_g x_jg (x_jg its mean over group g's n_g
    questions), and its covariance with model k's the sum over groups of the within-group
    sample covariances, as :func:`stratified_mean` takes each group's SE:

        Sigma_jk = sum_{g: n_g >= 2} w_g^2 S_g,jk / n_g + (sum_{g: n_g = 1} w_g^2) P_jk,
        S_g,jk = sum_{q in g} r_jq r_kq / (n_g - 1),    r_jq = s_jq - x_jg,

    with P = sum_g (n_g - 1) S_g / sum_g (n_g - 1) the pooled within-group covariance that
    a one-question group takes (Cochran 1977, 5A.12). The diagonal is each model's
    :func:`stratified_mean` SE squared (and its ``df``), and Sigma_jj + Sigma_kk -
    2 Sigma_jk the SE squared of the paired differences s_jq - s_kq broken down the same way.

    Args:
        values: (K, M) per-question values of K models.
        codes: (M,) group codes 0..G-1, every code present.
        weights: ``"questions"`` (w_g = n_g / N) or ``"groups"`` (w_g = 1 / G).

    Returns:
        A :class:`StratifiedCovariance`.

    Raises:
        InputError: unknown ``weights``, fewer than 2 groups, or no group of 2 questions.

    Example:
        >>> import numpy as np
        >>> from kpass.stats.strata import stratified_covariance
        >>> v = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0]])
        >>> s = stratified_covariance(v, np.array([0, 0, 1, 1]), weights="groups")
        >>> s.estimates.tolist(), s.sigma.round(4).tolist()
        ([0.75, 0.25], [[0.0625, 0.0], [0.0, 0.0625]])
    """
    values = np.atleast_2d(np.asarray(values, dtype=float))
    codes = np.asarray(codes, dtype=np.intp)
    sizes = np.bincount(codes)
    if sizes.size < 2 or (sizes == 0).any():
        raise InputError(f"group: a breakdown needs at least 2 groups, each with a question; "
                         f"got {sizes.size} group(s)")
    several = sizes >= 2
    if not several.any():
        raise InputError("group: every group has one question; the stratified SE needs a "
                         "group of 2 or more")
    w = group_weights(sizes, weights)
    means = np.array([np.bincount(codes, weights=row, minlength=sizes.size) for row in values]
                     ) / sizes
    residuals = values - means[:, codes]
    sigma = (residuals * residual_factors(w, sizes)[codes]) @ residuals.T
    df = np.empty(values.shape[0])
    for j in range(values.shape[0]):
        spread = np.bincount(codes, weights=residuals[j] ** 2, minlength=sizes.size)
        ses = [math.sqrt(spread[g] / (n - 1) / n) if n >= 2 else None
               for g, n in enumerate(sizes.tolist())]
        found = stratified_mean(means[j].tolist(), ses, sizes.tolist(), weights)
        df[j] = found.df if found.df is not None else 1.0
    return StratifiedCovariance(means @ w, sigma, df, float(1.0 / np.sum(w * w / sizes)), w,
                                sizes)


@dataclass(frozen=True)
class GroupDifference:
    """A paired difference of two models, broken down by group (:func:`group_differences`).

    Attributes:
        group: the group's label (None for the aggregate).
        questions: its questions.
        difference: mean of A - B over its questions (the aggregate: sum_g w_g d_g).
        se: its standard error (the aggregate's: stratified; None below 2 questions).
        df: degrees of freedom of its t quantile (the aggregate's: Satterthwaite).
        lo: lower end of its interval (None without se).
        hi: upper end of its interval (None without se).
        p_value: the aggregate's two-sided sign-flip p-value (tested alone at the level:
            the primary row); a group's min-P stepdown p adjusted jointly over the groups.
    """

    group: object
    questions: int
    difference: float
    se: float | None
    df: float | None
    lo: float | None
    hi: float | None
    p_value: float


def group_differences(differences: Sequence[float], groups: Sequence[object],
                      weights: str = "questions", confidence: float = 0.95
                      ) -> list[GroupDifference]:
    r"""The aggregate difference first (the primary row), then each group's, jointly adjusted.

    With d_q = (A's value - B's value) on question q (paired, the same questions), group g's
    difference is the mean of its d_q, and the aggregate sum_g w_g d_g with its stratified
    SE and Satterthwaite df (:func:`stratified_mean`); its p-value is the sign-flip test of
    the aggregate alone (question q carries w_g / n_g d_q; exact under symmetric
    differences, where the t test with Satterthwaite df rejected 6.8% at 5% with 4 groups
    of 6-15 questions), stated first: the one verdict tested at the level. The groups'
    verdicts are adjusted jointly by the min-P stepdown over sign flips
    (:func:`kpass.stats.multiplicity.minp_stepdown`): row g carries d_q on its own
    questions and 0 elsewhere, every row flipped with the same question signs, so the
    family-wise error over the groups is controlled whatever their number; on the p-value
    scale a group of 6 questions is not drowned by one of 30, as it is on max-T's T scale
    (400 seeded replications, 4 groups of 6-15 questions: family-wise error 3.5%, a
    0.3 shift in the 15-question group found 77% of the time against max-T's 68%).

    Args:
        differences: d_q per question.
        groups: a label per question (str or int).
        weights: the aggregate's weighting, ``"questions"`` or ``"groups"``.
        confidence: the level of the intervals.

    Returns:
        The aggregate (``group`` None), then one :class:`GroupDifference` per group,
        groups sorted by label.

    Raises:
        InputError: lengths that differ, non-finite differences, fewer than 2 groups.
    """
    d = np.asarray(differences, dtype=float)
    labels: list[Any] = list(groups)
    if d.ndim != 1 or d.size != len(labels) or d.size == 0 or not np.isfinite(d).all():
        raise InputError(f"differences and groups: expected one finite difference and one "
                         f"label per question; got {d.size} and {len(labels)}")
    return group_difference_rows(d[None, :], labels, weights, confidence)[0]


def group_difference_rows(differences: np.ndarray | Sequence[Sequence[float]],
                          groups: Sequence[object], weights: str = "questions",
                          confidence: float = 0.95) -> list[list[GroupDifference]]:
    r"""Several rows (metrics) of paired differences broken down by group, jointly adjusted.

    Row r's differences d_rq (NaN where the row leaves question q out) are broken down as
    :func:`group_differences` does for one row, with the p-values in three families:

    - row 0's aggregate (the primary row): its own sign-flip test, tested alone at the
      level (question q carries w_g / n_g d_0q);
    - the other rows' aggregates: the studentised max-T stepdown over those rows
      (:func:`kpass.stats.multiplicity.maxt_stepdown`; with ``weights="questions"`` and
      every question kept, the table's ``p_adjusted`` of those rows, as a constant weight
      per row does not change a studentised statistic);
    - every row's every group: one min-P stepdown over all R x G cells
      (:func:`kpass.stats.multiplicity.minp_stepdown`), cell (r, g) carrying d_rq on
      group g's questions and 0 elsewhere, every cell flipped with the same question
      signs, so the family-wise error over all rows and groups holds at the level
      whatever their number and correlation (Westfall and Young 1993, algorithm 2.8).

    Args:
        differences: an (R, M) array, row r's d_rq per question (NaN: left out).
        groups: a label per question (str or int).
        weights: the aggregates' weighting, ``"questions"`` or ``"groups"``.
        confidence: the level of the intervals.

    Returns:
        Per row: its aggregate (``group`` None), then one :class:`GroupDifference` per
        group, groups sorted by label.

    Raises:
        InputError: not one label per question, infinite differences, fewer than 2
            groups, or a row that leaves every question of a group out.
    """
    from .intervals import interval
    from .multiplicity import maxt_stepdown, minp_stepdown

    d = np.atleast_2d(np.asarray(differences, dtype=float))
    labels: list[Any] = list(groups)
    if d.ndim != 2 or d.shape[1] != len(labels) or d.shape[1] == 0 or np.isinf(d).any():
        raise InputError(f"differences and groups: expected rows of one difference (NaN: "
                         f"left out) per labelled question; got shape {d.shape} and "
                         f"{len(labels)} labels")
    names = sorted(set(labels), key=lambda label: (str(type(label)), label))
    if len(names) < 2:
        raise InputError(f"groups: every question is in group {names[0]!r}; a breakdown needs "
                         "at least 2 groups")
    index = {name: i for i, name in enumerate(names)}
    codes = np.asarray([index[label] for label in labels])
    kept = np.isfinite(d)
    zeroed = np.where(kept, d, 0.0)
    out: list[list[GroupDifference]] = []
    aggregate_rows, cells = [], []
    for r in range(d.shape[0]):
        means, ses, sizes = [], [], []
        for g, name in enumerate(names):
            x = d[r, (codes == g) & kept[r]]
            if x.size == 0:
                raise InputError(f"differences[{r}]: no question of group {name!r} is kept; "
                                 "every group needs one to be broken down")
            means.append(float(x.mean()))
            ses.append(float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else None)
            sizes.append(int(x.size))
        total = stratified_mean(means, ses, sizes, weights)
        lo = hi = None
        if total.se is not None and total.df is not None:
            bounds = interval(total.estimate, total.se, total.df, max(1, round(total.units)),
                              confidence, bounds=(-1.0, 1.0), cap=False)
            lo, hi = bounds.lo, bounds.hi
        share = np.asarray(total.weights)[codes] / np.asarray(sizes)[codes]
        aggregate_rows.append(share * zeroed[r])
        rows = [GroupDifference(None, sum(sizes), total.estimate, total.se, total.df, lo, hi,
                                1.0)]
        for g, name in enumerate(names):
            se, n = ses[g], sizes[g]
            lo = hi = None
            if se is not None:
                bounds = interval(means[g], se, n - 1, n, confidence, bounds=(-1.0, 1.0),
                                  cap=False)
                lo, hi = bounds.lo, bounds.hi
            rows.append(GroupDifference(name, n, means[g], se, None if se is None else n - 1.0,
                                        lo, hi, 1.0))
            cell = np.zeros(d.shape[1])
            mask = codes == g
            cell[mask] = zeroed[r, mask]
            cells.append(cell)
        out.append(rows)
    # the primary aggregate alone; the other aggregates jointly; every (row, group) jointly
    p_first = [float(maxt_stepdown(aggregate_rows[0][None, :])[0])]
    p_rest = ([float(p) for p in maxt_stepdown(np.array(aggregate_rows[1:]))]
              if len(aggregate_rows) > 1 else [])
    p_cells = minp_stepdown(np.array(cells))
    groups_count = len(names)
    for r, rows in enumerate(out):
        rows[0] = replace(rows[0], p_value=(p_first + p_rest)[r])
        for g in range(groups_count):
            rows[g + 1] = replace(rows[g + 1], p_value=float(p_cells[r * groups_count + g]))
    return out
