r"""Many models on the same questions: a leaderboard whose rank intervals hold jointly.

A ranked table of models invites two readings: "A is better than B" for a pair, and "A is
somewhere in the top 3" for a model. Per-model error bars answer neither, and marginal rank
intervals (a bootstrap interval per model, as on public arenas) cover the ranks of *all*
models together less often than their label says. :func:`leaderboard` gives, from the
paired per-question values of every model:

- per model: the estimate, its standard error over questions and a ``confidence``
  interval (t reference with M - 1 degrees of freedom, or G - 1 with G clusters);
- per model: a rank set ``[rank_lo, rank_hi]``; the sets of all models cover the true ranks
  of all models *jointly* with probability >= ``confidence`` (Mogstad, Romano, Shaikh and
  Wilhelm 2024, the stepwise procedure for simultaneous confidence sets for all ranks);
- per pair: the paired difference, its SE, a two-sided p-value and the Holm-adjusted
  p-value over all pairs;
- per model, the Bayesian companion on these very questions (questions held fixed):
  P(best) and P(in the top j) from the models' ``<metric>_ci`` posteriors.

The true value of a model is its metric over the population of questions the benchmark's
questions are a sample of (as for :func:`kpass.compare`); its true rank is
``1 + #{models with a larger true value}`` (tied models share a rank).

Formula:
    s_jq: model j's unbiased value on question q, over the M questions every model was
    scored on; theta_j = mean_q s_jq; Sigma = R R^T / (M (M - 1)) with residuals
    R_jq = s_jq - theta_j (clustered: G/(G - 1) C C^T / M^2 with C the residual sums per
    cluster; dataset-level metrics: the delete-one jackknife covariance). The pair (j, k)
    has difference d_jk = theta_j - theta_k and se_jk^2 = Sigma_jj + Sigma_kk - 2 Sigma_jk,
    the paired SE of :func:`kpass.compare`.

    Rank sets: for every ordered pair (j, k) the one-sided hypothesis theta_j <= theta_k
    is tested by T_jk = d_jk / se_jk. Stepdown: with I the pairs not yet rejected, c(I) is
    the ``confidence`` quantile of max_{(j,k) in I} (W_j - W_k) / se_jk, W a multivariate t
    vector (scale Sigma, M - 1 or G - 1 degrees of freedom; 20000 draws from a fixed seed);
    every pair of I with T_jk > c(I) is rejected ("j is better than k"), and the step is
    repeated on the rest until nothing more is rejected. Then
    rank_lo_j = 1 + #{k: k better than j} and rank_hi_j = K - #{k: j better than k}.
    The family-wise error of the rejections is <= 1 - ``confidence`` (Romano and Wolf
    2005), so all rank sets hold together with probability >= ``confidence``; the first
    step alone is the max-|t| (Tukey-like) procedure, already sharper than Bonferroni as it
    uses the correlation of the pairs.

What the rank set does not say: it is about the population of questions, not about these
questions with more samples (that is P(best), P(top j)); and a rank set [1, 3] does not
mean the model is "probably second".

References:
    Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024). Inference for Ranks
    with Applications to Mobility across Neighbourhoods and Academic Achievement across
    Countries. Review of Economic Studies 91(1), 476-518.
    Romano, J. P. and Wolf, M. (2005). Exact and Approximate Stepdown Methods for Multiple
    Hypothesis Testing. Journal of the American Statistical Association 100, 94-108.
    Holm, S. (1979). A Simple Sequentially Rejective Multiple Test Procedure. Scandinavian
    Journal of Statistics 6, 65-70.
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.checks import ArgumentTypeError, _show, check_confidence
from ._common import (
    _DATASET_LEVEL,
    Metric,
    _check_metric,
    _counts_of,
    _dataset_statistic,
    _labels,
    _per_question,
    _state_keys,
)
from .comparison import _budgets, _ids, _one_k, _posterior_pair
from .intervals import intervals
from .rank_sets import (  # noqa: F401 - the rank-set machinery, as this module always had it
    CHUNK,
    DRAWS,
    GRID,
    SEED,
    _better_pairs,
    _covariance,
    _holm,
    _jackknife_covariance,
    _p_values,
    _rank_probabilities,
)


@dataclass(frozen=True)
class Standing:
    """One model's line of a :class:`Leaderboard`.

    Attributes:
        name: the model's name (a key of ``runs``).
        estimate: its metric over the questions every model was scored on.
        se: standard error of ``estimate`` over questions (clustered where given).
        lo: lower end of the ``confidence`` interval (:func:`kpass.stats.intervals.interval`).
        hi: upper end.
        rank: 1 + the number of models with a larger estimate (ties share a rank).
        rank_lo: best rank of the joint rank set.
        rank_hi: worst rank of the joint rank set.
        mean: posterior mean on these very questions (``<metric>_ci``).
        sd: posterior standard deviation on these very questions.
        prob_best: posterior probability that this model is the best on these questions.
        prob_top: ``prob_top[j - 1]`` = posterior probability of a rank <= j.
    """

    name: str
    estimate: float
    se: float
    lo: float
    hi: float
    rank: int
    rank_lo: int
    rank_hi: int
    mean: float
    sd: float
    prob_best: float
    prob_top: tuple[float, ...]

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["prob_top"] = list(self.prob_top)
        return out


@dataclass(frozen=True)
class RankedPair:
    """A paired comparison of two models of a :class:`Leaderboard` (``a`` ranked above).

    Attributes:
        a: the model with the larger estimate.
        b: the other model.
        difference: estimate of a - estimate of b (>= 0).
        se: paired standard error of the difference over questions.
        p_value: two-sided p-value of "no difference" (t reference; an exact sign test
            when every question shows the same difference, so that se = 0).
        p_adjusted: the Holm-adjusted p-value over all pairs of the leaderboard.
        better: True when the joint procedure of the rank sets finds a better than b.
    """

    a: str
    b: str
    difference: float
    se: float
    p_value: float
    p_adjusted: float
    better: bool

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class Leaderboard:
    """Models ranked on the same questions, best first; see :func:`leaderboard`.

    Attributes:
        metric: the metric's name (e.g. ``"pass_at_k"``).
        k: the budget (None for metrics without k).
        confidence: the level of the intervals and of the joint rank sets.
        questions: the questions used (scored by every model; clusters with clusters).
        df: degrees of freedom of the t reference (questions or clusters - 1).
        rows: one :class:`Standing` per model, best first.
        pairs: one :class:`RankedPair` per pair of models, in the order of the rows.
    """

    metric: str
    k: int | None
    confidence: float
    questions: int
    df: int
    rows: tuple[Standing, ...]
    pairs: tuple[RankedPair, ...]

    def as_dict(self) -> dict[str, Any]:
        """The leaderboard as plain dicts and lists (JSON-safe)."""
        return {"metric": self.metric, "k": self.k, "confidence": self.confidence,
                "questions": self.questions, "df": self.df,
                "rows": [row.as_dict() for row in self.rows],
                "pairs": [pair.as_dict() for pair in self.pairs]}

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame`` (``prob_top`` as columns ``p_top1``, ...).

        Raises:
            ImportError: pandas is not installed.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Leaderboard.to_pandas needs pandas (pip install pandas)"
                              ) from None
        records = []
        for row in self.rows:
            record = row.as_dict()
            tops = record.pop("prob_top")
            record.update({f"p_top{j}": p for j, p in enumerate(tops, start=1)})
            records.append(record)
        return pd.DataFrame.from_records(records)

    def __str__(self) -> str:
        level = f"{self.confidence:.0%}"
        title = (f"{self.metric}" + ("" if self.k is None else f" at k={self.k}")
                 + f" on {self.questions} questions; {level} intervals, {level} joint rank "
                 "sets")
        header = ["rank", "model", "estimate", "se", f"{level} interval", "rank set",
                  "P(best)"]
        lines = [[str(row.rank), row.name, f"{row.estimate:.3f}", f"{row.se:.3f}",
                  f"[{row.lo:.3f}, {row.hi:.3f}]",
                  str(row.rank_lo) if row.rank_lo == row.rank_hi
                  else f"{row.rank_lo}-{row.rank_hi}", f"{row.prob_best:.3f}"]
                 for row in self.rows]
        widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
        text = [title, ""]
        for line in [header, *lines]:
            cells = [cell.ljust(width) if i == 1 else cell.rjust(width)
                     for i, (cell, width) in enumerate(zip(line, widths, strict=True))]
            text.append("  ".join(cells).rstrip())
        return "\n".join(text)


def _check_runs(runs: Any) -> dict[str, Any]:
    if not isinstance(runs, Mapping):
        raise ArgumentTypeError(f"`runs` must map each model's name to its outcomes (a dict); "
                                f"got {_show(runs)}")
    for name in runs:
        if not isinstance(name, str) or not name.strip():
            raise ArgumentTypeError(f"`runs` must be keyed by model names (non-empty strings);"
                                    f" got the key {_show(name)}")
    if len(runs) < 2:
        raise ValueError(f"`runs` must hold at least 2 models to rank; got {len(runs)}")
    return dict(runs)


def _align_all(runs: dict[str, Any], shared: bool) -> tuple[list[Any], np.ndarray | None]:
    """Every run in the first run's question order; positions into the first run's questions.

    Runs that carry question ids (counts with ids) are matched by id; runs without ids by
    row. Returns the aligned runs and, when ids were used, the positions of the questions
    kept in the first run (None: every row kept, in order).
    """
    names = list(runs)
    ids = [_ids(R) for R in runs.values()]
    with_ids = [name for name, i in zip(names, ids, strict=True) if i is not None]
    if not with_ids:
        if shared:
            raise ValueError("`shared=True` matches questions by id, but no run carries "
                             "question ids (give counts with ids, e.g. BinaryCounts(..., "
                             "ids=...) or the CLI's --id COLUMN)")
        return list(runs.values()), None
    if len(with_ids) != len(names):
        without = [name for name in names if name not in with_ids]
        raise ValueError(f"only some `runs` carry question ids ({', '.join(without)} do not); "
                         "give ids to every run (to match by id) or to none (to match by row)")
    sets = [set(i) for i in ids]
    common = set.intersection(*sets)
    if not shared:
        for name, found in zip(names[1:], sets[1:], strict=True):
            if found != sets[0]:
                missing, extra = sets[0] - found, found - sets[0]
                parts = ([f"{len(missing)} ids of {names[0]!r} are not in {name!r} (e.g. "
                          f"{sorted(missing, key=str)[:3]})"] if missing else [])
                parts += ([f"{len(extra)} ids of {name!r} are not in {names[0]!r} (e.g. "
                           f"{sorted(extra, key=str)[:3]})"] if extra else [])
                raise ValueError("the `runs` must score the same questions: " + "; ".join(parts)
                                 + f"; pass shared=True to rank on the {len(common)} "
                                 "questions every run has")
    first = [q for q in ids[0] if q in common]
    if len(first) < 2:
        raise ValueError(f"the `runs` share {len(first)} question ids; ranking needs at least 2")
    keep = np.array([i for i, q in enumerate(ids[0]) if q in common], dtype=np.int64)
    aligned = []
    for R, own in zip(runs.values(), ids, strict=True):
        position = {q: i for i, q in enumerate(own)}
        aligned.append(R.select(np.array([position[q] for q in first], dtype=np.int64)))
    return aligned, keep


def _board(name: str, k: int | None, names: list[str], estimates: np.ndarray,
           sigma: np.ndarray, df: int, questions: int, posteriors: list[tuple[float, float]],
           confidence: float) -> Leaderboard:
    size = len(names)
    se = np.sqrt(np.maximum(np.diag(sigma), 0.0))
    rank = np.array([1 + int(np.sum(estimates > e)) for e in estimates])
    better = _better_pairs(estimates, sigma, df, confidence)
    rank_lo = 1 + better.sum(axis=0)
    rank_hi = size - better.sum(axis=1)
    mu = np.array([p[0] for p in posteriors])
    sd = np.array([p[1] for p in posteriors])
    top = _rank_probabilities(mu, sd)
    order = sorted(range(size), key=lambda j: (-estimates[j], j))
    ends = intervals(estimates, se, df, df + 1, confidence)  # kpass.stats.intervals
    rows = tuple(Standing(
        name=names[j], estimate=float(estimates[j]) + 0.0, se=float(se[j]),
        lo=float(ends[0][j]), hi=float(ends[1][j]),
        rank=int(rank[j]), rank_lo=int(rank_lo[j]), rank_hi=int(rank_hi[j]),
        mean=float(mu[j]), sd=float(sd[j]), prob_best=float(top[j, 0]),
        prob_top=tuple(float(p) for p in top[j])) for j in order)
    firsts, seconds = zip(*[(order[a], order[b]) for a in range(size)
                            for b in range(a + 1, size)], strict=True)
    a_index, b_index = np.array(firsts), np.array(seconds)
    difference = estimates[a_index] - estimates[b_index]
    pair_se = np.sqrt(np.maximum(sigma[a_index, a_index] + sigma[b_index, b_index]
                                 - 2.0 * sigma[a_index, b_index], 0.0))
    p = _p_values(difference, pair_se, df)
    adjusted = _holm(p)
    pairs = tuple(RankedPair(a=names[a], b=names[b], difference=float(d) + 0.0, se=float(s),
                             p_value=float(pv), p_adjusted=float(pa), better=bool(better[a, b]))
                  for a, b, d, s, pv, pa in zip(a_index, b_index, difference, pair_se, p,
                                                adjusted, strict=True))
    return Leaderboard(metric=name, k=k, confidence=confidence, questions=questions, df=df,
                       rows=rows, pairs=pairs)


def _clusters_for(clusters: Any, keep: np.ndarray | None, m: int) -> Any:
    if clusters is None or keep is None:
        return clusters
    if isinstance(clusters, (str, bytes)) or not hasattr(clusters, "__len__"):
        return clusters  # _labels says what is wrong
    labels = list(clusters)
    if len(labels) != m:
        raise ValueError(f"`clusters` must have one label per question of the first run "
                         f"(M={m}); got {len(labels)} labels")
    return [labels[i] for i in keep]


def leaderboard(metric: Metric, runs: Mapping[str, Any], *args: Any, clusters: Any = None,
                confidence: float = 0.95, shared: bool = False,
                **kwargs: Any) -> Leaderboard | list[Leaderboard]:
    r"""Rank models on the same questions, with rank sets that hold jointly.

    See the module docstring for the formulas: per-model estimates and SEs over questions,
    paired differences, Holm-adjusted p-values, the stepwise joint rank sets of Mogstad,
    Romano, Shaikh and Wilhelm (2024) with a multivariate t reference, and P(best) / P(top
    j) from the posteriors on these very questions.

    Args:
        metric: the point function, e.g. ``kpass.pass_at_k``.
        runs: model name -> outcomes (anything ``metric`` takes; counts with question ids are
            matched by id, other inputs by row).
        *args: ``metric``'s other positional arguments (k, tau, references, ...).
        clusters: optional label per question (in the first run's order) for clustered SEs.
        confidence: level of the intervals and of the joint rank sets, in (0, 1).
        shared: with ids, rank on the questions every run has instead of refusing runs that
            score different questions.
        **kwargs: ``metric``'s keyword arguments (``short``, ``ties``, ...).

    Returns:
        A :class:`Leaderboard`, or a list of them when ``k`` is a sequence.

    Raises:
        TypeError: ``metric`` is not a point function of the family, ``runs`` is not a
            mapping of names.
        ValueError: fewer than 2 models or 2 questions, runs that score different questions
            (without ``shared=True``), ``clusters`` of the wrong length, any error of
            ``metric`` itself (the message names the model).

    References:
        Mogstad, Romano, Shaikh and Wilhelm (2024), Review of Economic Studies 91(1),
        sections 3-4; Romano and Wolf (2005); Holm (1979).

    Example:
        >>> import kpass
        >>> runs = {"a": [[1, 1, 1], [1, 1, 0], [1, 1, 1], [0, 1, 1]],
        ...         "b": [[0, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 0]]}
        >>> board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
        >>> [(row.name, round(row.estimate, 3), row.rank) for row in board.rows]
        [('a', 0.833, 1), ('b', 0.25, 2)]
        >>> round(board.pairs[0].difference, 3), board.questions
        (0.583, 4)
    """
    name = _check_metric(metric)
    confidence = check_confidence(confidence)
    if not isinstance(shared, (bool, np.bool_)):
        raise ArgumentTypeError(f"`shared` must be True or False; got {_show(shared)}")
    runs = _check_runs(runs)
    names = list(runs)
    aligned, keep = _align_all(runs, bool(shared))
    first_m = len(_ids(runs[names[0]])) if keep is not None else None
    clusters = _clusters_for(clusters, keep, first_m or 0)

    def of(model: str, call: Any) -> Any:
        try:
            return call()
        except (TypeError, ValueError) as error:
            raise type(error)(f"model {model!r}: {error}") from None

    if name in _DATASET_LEVEL:
        statistics, sizes = zip(*[of(model, lambda R=R: _dataset_statistic(metric, R, args,
                                                                           kwargs))
                                  for model, R in zip(names, aligned, strict=True)],
                                strict=True)
        if len(set(sizes)) != 1:
            raise ValueError(f"the `runs` must score the same questions, row q of every run "
                             f"being question q; got {dict(zip(names, sizes, strict=True))} "
                             "questions (give question ids to match by id)")
        m = sizes[0]
        codes = _labels(clusters, m)
        everything = np.ones(m, dtype=bool)
        values = np.array([statistic(everything) for statistic in statistics])  # (K, budgets)
        keys = _state_keys(*[_counts_of(R) for R in aligned])
        sigmas, df = _jackknife_covariance(list(statistics), keys, codes)
        budgets = _budgets(args, values.shape[1], name)
        many = isinstance(metric(_counts_of(aligned[0]), *args, **kwargs), list)
        boards = []
        for index, budget in enumerate(budgets):
            k_args = _one_k(args, budget, name)
            posteriors = [of(model, lambda R=R, k_args=k_args: _posterior_pair(
                              metric, name, R, everything, k_args, kwargs)[0])
                          for model, R in zip(names, aligned, strict=True)]
            boards.append(_board(name, budget, names, values[:, index], sigmas[index], df, m,
                                 posteriors, confidence))
        return boards if many else boards[0]

    per_model = [of(model, lambda R=R: _per_question(metric, name, R, args, kwargs))
                 for model, R in zip(names, aligned, strict=True)]
    counted = {model: found[0][0].size for model, found in zip(names, per_model, strict=True)}
    if len(set(counted.values())) != 1:
        raise ValueError(f"the `runs` must score the same questions, row q of every run being "
                         f"question q; got {counted} questions (give question ids to match by "
                         "id: BinaryCounts(..., ids=...) or the CLI's --id COLUMN)")
    m = next(iter(counted.values()))
    codes = _labels(clusters, m)
    many = per_model[0][1]
    budgets = _budgets(args, len(per_model[0][0]), name)
    boards = []
    for index, budget in enumerate(budgets):
        matrix = np.array([found[index] for found, _ in per_model])  # (K, M)
        used = np.isfinite(matrix).all(axis=0)
        questions = int(used.sum())
        if questions < 2:
            raise ValueError(f"ranking needs at least 2 questions scored by every model of "
                             f"`runs`; got {questions}"
                             + ("" if budget is None else f" at k={budget}"))
        used_codes = None if codes is None else codes[used]
        sigma, df = _covariance(matrix[:, used], used_codes)
        k_args = _one_k(args, budget, name)
        posteriors = [of(model, lambda R=R, used=used, k_args=k_args: _posterior_pair(
                          metric, name, R, used, k_args, kwargs)[0])
                      for model, R in zip(names, aligned, strict=True)]
        boards.append(_board(name, budget, names, matrix[:, used].mean(axis=1), sigma, df,
                             questions, posteriors, confidence))
    return boards if many else boards[0]


__all__ = ["Leaderboard", "RankedPair", "Standing", "leaderboard"]
