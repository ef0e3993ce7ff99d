r"""Many models on the same questions: a leaderboard whose rank intervals hold jointly.

A ranked table of models invites two readings: "A is better than B" for a pair, and "A is
somewhere in the top 3" for a model. Per-model error bars answer neither, and marginal rank
intervals (a bootstrap interval per model, as on public arenas) cover the ranks of *all*
models together less often than their label says. :func:`leaderboard` gives, from the
paired per-question values of every model:

- per model: the estimate, its standard error over questions and a ``confidence``
  interval (t reference with M - 1 degrees of freedom, or the Bell-McCaffrey df of the CR2
  SE with clusters, clipped
  to [0, 1]);
- per model: a rank set ``[rank_lo, rank_hi]``; the sets of all models cover the true ranks
  of all models *jointly* with probability >= ``confidence`` (Mogstad, Romano, Shaikh and
  Wilhelm 2024, the stepwise procedure for simultaneous confidence sets for all ranks);
- per pair: the paired difference, its SE, a two-sided p-value and the p-value adjusted by
  the very procedure of the rank sets (``better`` is ``p_adjusted <= 1 - confidence``);
- per model, the Bayesian companion on these very questions (questions held fixed, not a
  verdict): P(best) and P(in the top j) from the models' ``<metric>_ci`` posteriors.

The true value of a model is its metric over the population of questions the benchmark's
questions are a sample of (as for :func:`kpass.compare`); its true rank is
``1 + #{models with a larger true value}`` (tied models share a rank).

Formula:
    s_jq: model j's unbiased value on question q, over the M questions every model was
    scored on; theta_j = mean_q s_jq; Sigma = R R^T / (M (M - 1)) with residuals
    R_jq = s_jq - theta_j (clustered: CR2, sum_g C_g C_g^T / (1 - n_g/M) / M^2 with C_g the
    residual sums per cluster, Bell-McCaffrey df, as report and compare; dataset-level
    metrics: the delete-one jackknife covariance). The pair (j, k)
    has difference d_jk = theta_j - theta_k and se_jk^2 = Sigma_jj + Sigma_kk - 2 Sigma_jk,
    the paired SE of :func:`kpass.compare`.

    Rank sets: every unordered pair is tested two-sided by T_jk = d_jk / se_jk against a
    studentised randomisation reference (sign patterns flip whole questions or clusters
    for all pairs at once, each pair studentised by its own flipped SE) with the
    Westfall-Young stepdown over max |T*|; se = 0 pairs by the exact sign test; Holm over
    t tests with too few units or for dataset-level metrics (:mod:`kpass.stats.rank_sets`).
    A pair told apart says the model with the larger estimate is better; then
    rank_lo_j = 1 + #{k: k better than j} and rank_hi_j = K - #{k: j better than k}.
    The family-wise error of the verdicts is <= 1 - ``confidence`` (Romano and Wolf 2005),
    so all rank sets hold together. Estimates equal up to 1e-12 of the largest tie.

What the rank set does not say: it is about the population of questions, not about these
questions with more samples (that is P(best), P(top j)); and a rank set [1, 3] does not
mean the model is "probably second".

References:
    Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024). Inference for Ranks
    with Applications to Mobility across Neighbourhoods and Academic Achievement across
    Countries. Review of Economic Studies 91(1), 476-518.
    Romano, J. P. and Wolf, M. (2005). Exact and Approximate Stepdown Methods for Multiple
    Hypothesis Testing. Journal of the American Statistical Association 100, 94-108.
    Westfall, P. H. and Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley.
    Holm, S. (1979). A Simple Sequentially Rejective Multiple Test Procedure. Scandinavian
    Journal of Statistics 6, 65-70.
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_choice
from ._common import (
    _DATASET_LEVEL,
    MetricLike,
    _check_metric,
    _counts_of,
    _dataset_statistic,
    _labels,
    _per_question,
    _state_keys,
    check_options,
)
from .align import align_runs, subset_labels
from .comparison import _budgets, _one_k, _posterior_pair
from .intervals import intervals
from .rank_sets import (
    MAX_MODELS,
    StrataUnits,
    _covariance,
    _jackknife_covariance,
    _pair_verdicts,
    _problems,
    _rank_probabilities,
    _tie_groups,
    _unit_totals,
    noise_free_se,
    pair_se,
)
from .small_sample import warn_small
from .strata import WEIGHTS
from .winners import best_set, winner_inference


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
        prob_top: ``prob_top[j - 1]`` = posterior probability of a rank <= j, for j up to
            min(K, 10) (:data:`~kpass.stats.rank_sets.TOP_RANKS`).
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
        p_adjusted: the p-value adjusted over all pairs of the leaderboard by the
            procedure of the rank sets (``Leaderboard.adjustment``): ``better`` is exactly
            ``p_adjusted <= 1 - confidence``.
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
class Winner:
    """The model ranked first of a :class:`Leaderboard`, corrected for having won.

    Its estimate is the largest of the models' estimates and so biased upward (the
    winner's curse); ``corrected`` and [``lo``, ``hi``] condition on the model having won
    (hybrid inference on winners, Andrews, Kitagawa and McCloskey 2024;
    :mod:`kpass.stats.winners`).

    Attributes:
        name: the model ranked first.
        estimate: its estimate (as in its :class:`Standing`; biased upward as a winner).
        corrected: the hybrid median-unbiased estimate given that it won (median bias at
            most beta / 2, beta = (1 - confidence) / 10), clipped to [0, 1].
        conditional: the conditional median-unbiased estimate given that it won (exactly
            median-unbiased; unstable when the winner barely wins).
        lo: lower end of the hybrid ``confidence`` interval for its true value.
        hi: upper end.
    """

    name: str
    estimate: float
    corrected: float
    conditional: float
    lo: float
    hi: float

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True, repr=False)
class Leaderboard:
    """Models ranked on the same questions, best first; see :func:`leaderboard`.

    Attributes:
        metric: the metric's name (e.g. ``"pass_at_k"``).
        k: the budget (None for metrics without k).
        confidence: the level of the intervals and of the joint rank sets.
        questions: the questions used (scored by every model; clusters with clusters).
        df: degrees of freedom of the t reference (questions - 1; with clusters the
            Bell-McCaffrey df of the CR2 SE, as report and compare use; G - 1 for the
            jackknife of a dataset-level metric).
        units: the units the SE is over (questions, or clusters).
        rows: one :class:`Standing` per model, best first.
        pairs: one :class:`RankedPair` per pair of models, in the order of the rows.
        adjustment: ``"max-t"`` (studentised sign-flip max-|T| stepdown) or ``"holm"``
            (with fewer than 8 questions or clusters, or a dataset-level metric);
            ``"min-p"`` for boards ranked jointly over groups (:func:`group_leaderboards`).
        best: the ``confidence`` set for the best model, in the order of the rows: every
            model not shown worse than the best by the stepdown over one-sided max-T
            comparisons (:func:`kpass.stats.winners.best_set`); it holds every model tied
            for the true best with probability >= ``confidence``.
        winner: the model ranked first with its estimate and interval corrected for having
            won (:class:`Winner`).
        weights: with ``group``, the aggregate's weighting of the groups (strata):
            ``"questions"`` (micro) or ``"groups"`` (macro); None without groups.
    """

    metric: str
    k: int | None
    confidence: float
    questions: int
    df: int | float
    units: int
    rows: tuple[Standing, ...]
    pairs: tuple[RankedPair, ...]
    adjustment: str = "max-t"
    best: tuple[str, ...] = ()
    winner: Winner | None = None
    weights: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The leaderboard as plain dicts and lists (JSON-safe)."""
        return {"metric": self.metric, "k": self.k, "confidence": self.confidence,
                "questions": self.questions, "df": self.df, "units": self.units,
                "weights": self.weights,
                "adjustment": self.adjustment, "best": list(self.best),
                "winner": None if self.winner is None else self.winner.as_dict(),
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
                 + f" on {self.questions} questions{strata_title(self.weights)}"
                 + f"; {level} intervals, {level} joint rank sets")
        header = ["rank", "model", "estimate", "se", f"{level} interval", "rank set",
                  "P(best)"]
        lines = [[str(row.rank), row.name, f"{row.estimate:.3f}", f"{row.se:.3f}",
                  f"[{row.lo:.3f}, {row.hi:.3f}]",
                  str(row.rank_lo) if row.rank_lo == row.rank_hi
                  else f"{row.rank_lo}-{row.rank_hi}", f"{row.prob_best:.3f}"]
                 for row in self.rows]
        widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
        text = [title, best_line(self.best, self.confidence)]
        if self.winner is not None:
            text.append(winner_line(self.winner, self.confidence))
        for line in [header, *lines]:
            cells = [cell.ljust(width) if i == 1 else cell.rjust(width)
                     for i, (cell, width) in enumerate(zip(line, widths, strict=True))]
            text.append("  ".join(cells).rstrip())
        better = [f"{pair.a} > {pair.b}" for pair in self.pairs if pair.better]
        text.append("told apart: " + (", ".join(better) if better else "no pair")
                    + f" ({self.adjustment} over all pairs)")
        return "\n".join(text)

    __repr__ = __str__


def strata_title(weights: str | None) -> str:
    """`` (groups as strata, each group counts once)`` for a board's title; '' without groups."""
    return "" if weights is None else f" (groups as strata, each {weights[:-1]} counts once)"


def best_line(best: tuple[str, ...], confidence: float) -> str:
    """``best: A (or B, C) at 95%`` (the confidence set for the best model, in words)."""
    if not best:
        return "best: no model"
    rest = f" (or {', '.join(best[1:])})" if len(best) > 1 else ""
    return f"best: {best[0]}{rest} at {confidence:.0%}"


def winner_line(winner: Winner, confidence: float, digits: int = 3) -> str:
    """``winner A: 0.812 as ranked, 0.795 corrected for winning, 95% interval [..]``."""
    return (f"winner {winner.name}: {winner.estimate:.{digits}f} as ranked, "
            f"{winner.corrected:.{digits}f} corrected for winning, {confidence:.0%} "
            f"interval [{winner.lo:.{digits}f}, {winner.hi:.{digits}f}]")


def _check_runs(runs: Any) -> dict[str, Any]:
    if not isinstance(runs, Mapping):
        raise ArgumentTypeError(f"`runs` must map each model's name to its outcomes (a dict); "
                                f"got {_show(runs)}")
    for name in runs:
        if not isinstance(name, str) or not name.strip():
            raise ArgumentTypeError(f"`runs` must be keyed by model names (non-empty strings);"
                                    f" got the key {_show(name)}")
    if len(runs) < 2:
        raise InputError(f"`runs` must hold at least 2 models to rank; got {len(runs)}")
    if len(runs) > MAX_MODELS:
        raise InputError(f"`runs` holds {len(runs)} models; a leaderboard ranks at most "
                         f"{MAX_MODELS} (its pairs grow as the square of the models): rank a "
                         "shortlist, or split the models into boards")
    return dict(runs)


def _pairs(estimates: np.ndarray) -> tuple[np.ndarray, list[int], np.ndarray, np.ndarray,
                                           np.ndarray]:
    """Ties snapped, the ranked order, the unordered pairs (higher first), their differences."""
    size = estimates.size
    tied = _tie_groups(estimates)
    order = sorted(range(size), key=lambda j: (-tied[j], j))
    firsts, seconds = zip(*[(order[a], order[b]) for a in range(size)
                            for b in range(a + 1, size)], strict=True)
    a_index, b_index = np.array(firsts), np.array(seconds)
    return tied, order, a_index, b_index, tied[a_index] - tied[b_index]


def _board(name: str, k: int | None, names: list[str], estimates: np.ndarray,
           sigma: np.ndarray, df: int | float, count: int, questions: int,
           posteriors: list[tuple[float, float]], confidence: float,
           units: tuple[np.ndarray, np.ndarray] | None = None,
           verdicts: tuple[np.ndarray, np.ndarray, np.ndarray, str] | None = None,
           weights: str | None = None) -> Leaderboard:
    """One board; ``verdicts`` (p, p_adjusted, told, method) when judged jointly elsewhere."""
    size = len(names)
    se = noise_free_se(np.diag(sigma), estimates)
    tied, order, a_index, b_index, difference = _pairs(estimates)
    rank = np.array([1 + int(np.sum(tied > e)) for e in tied])
    p, adjusted, told, method = verdicts if verdicts is not None else _pair_verdicts(
        tied, sigma, df, confidence, units, a_index, b_index, difference, count)
    better = np.zeros((size, size), dtype=bool)
    better[a_index[told], b_index[told]] = True  # a is ranked above b: d >= 0, told => d > 0
    rank_lo = 1 + better.sum(axis=0)
    rank_hi = size - better.sum(axis=1)
    mu = np.array([q[0] for q in posteriors])
    sd = np.array([q[1] for q in posteriors])
    top = _rank_probabilities(mu, sd)
    ends = intervals(estimates, se, df, count, confidence)  # kpass.stats.intervals
    rows = tuple(Standing(
        name=names[j], estimate=float(estimates[j]) + 0.0, se=float(se[j]),
        lo=float(ends[0][j]), hi=float(ends[1][j]),
        rank=int(rank[j]), rank_lo=int(rank_lo[j]), rank_hi=int(rank_hi[j]),
        mean=float(mu[j]), sd=float(sd[j]), prob_best=float(top[j, 0]),
        prob_top=tuple(float(q) for q in top[j])) for j in order)
    pair_ses = pair_se(sigma, a_index, b_index, estimates)
    pairs = tuple(RankedPair(a=names[a], b=names[b], difference=float(d) + 0.0, se=float(s),
                             p_value=float(pv), p_adjusted=float(pa), better=bool(t))
                  for a, b, d, s, pv, pa, t in zip(a_index, b_index, difference, pair_ses, p,
                                                   adjusted, told, strict=True))
    inside = best_set(tied, sigma, float(df), confidence, count)
    first = order[0]
    corrected, conditional, lo, hi = winner_inference(tied, sigma, first, confidence)
    if se[first] == 0:  # no spread to condition on: the row's own (exact) interval
        lo, hi = float(ends[0][first]), float(ends[1][first])
    winner = Winner(name=names[first], estimate=float(estimates[first]) + 0.0, corrected=corrected,
                    conditional=conditional, lo=lo, hi=hi)
    return Leaderboard(metric=name, k=k, confidence=confidence, questions=questions, df=df,
                       units=count, rows=rows, pairs=pairs, adjustment=method,
                       best=tuple(names[j] for j in order if inside[j]), winner=winner,
                       weights=weights)


def leaderboard(metric: MetricLike, runs: Mapping[str, Any], *args: Any, clusters: Any = None,
                confidence: float = 0.95, shared: bool = False, prior: str = "uniform",
                group: Any = None, weights: str = "questions",
                **kwargs: Any) -> Leaderboard | list[Leaderboard]:
    r"""Rank models on the same questions, with rank sets that hold jointly.

    See the module docstring for the formulas: per-model estimates and SEs over questions,
    paired differences, the stepwise joint rank sets of Mogstad, Romano, Shaikh and Wilhelm
    (2024) with a studentised sign-flip max-|T| reference (the pairs' adjusted p-values are
    the same procedure), and P(best) / P(top j) from the posteriors on these very questions
    with unlimited samples (not verdicts).

    Args:
        metric: the point function, e.g. ``kpass.pass_at_k``.
        runs: model name -> outcomes (anything ``metric`` takes; counts with question ids are
            matched by id, other inputs by row).
        *args: ``metric``'s other positional arguments (k, tau, references, ...).
        clusters: optional label per question (in the first run's order) for clustered SEs.
        confidence: level of the intervals and of the joint rank sets, in [0.5, 1).
        shared: with ids, rank on the questions every run has instead of refusing runs that
            score different questions.
        prior: the Beta prior behind each model's posterior and P(best): ``"uniform"``
            (Beta(1, 1), the default) or ``"empirical"`` (a Beta fitted to each model's
            questions, as :func:`kpass.plan` fits one). P(best) is about these questions
            with unlimited samples either way.
        group: optional group (subtask) label per question (str or int, in the first run's
            order, as ``clusters``): the groups are strata. Each model's estimate is then
            the weighted mean of its group means, sum_g w_g x_jg, its SE and the pairs'
            the stratified ones (:func:`kpass.stats.strata.stratified_covariance`; df: the
            smallest of the models' Satterthwaite df), P(best) from the same weighting of
            the groups' posteriors, and the rank sets' sign-flip reference studentises each
            flip by its stratified SE. Not with ``clusters``.
        weights: with ``group``, the aggregate's weighting: ``"questions"`` (w_g = n_g / N,
            each question counts once, micro: the estimate over all questions) or
            ``"groups"`` (w_g = 1 / G, each group counts once, macro).
        **kwargs: ``metric``'s keyword arguments (``short``, ``ties``, ...).

    Returns:
        A :class:`Leaderboard`, or a list of them when ``k`` is a sequence.

    Raises:
        TypeError: ``metric`` is not a point function of the family, ``runs`` is not a
            mapping of names.
        ValueError: fewer than 2 models or 2 questions, more than
            :data:`~kpass.stats.rank_sets.MAX_MODELS` models, ``confidence`` below 0.5,
            runs that score different questions (without ``shared=True``), ``clusters`` of
            the wrong length, ``group`` with ``clusters``, fewer than 2 groups, no group
            of 2 questions, any error of ``metric`` itself (the message names the model).

    Warns:
        SmallSampleWarning: fewer than 30 questions (or clusters), a standard error of 0,
            or (credit metrics) an estimate within 5 questions' worth of 0 or 1.

    References:
        Mogstad, Romano, Shaikh and Wilhelm (2024), Review of Economic Studies 91(1),
        sections 3-4; Romano and Wolf (2005); Holm (1979).

    Example:
        >>> import kpass, warnings
        >>> runs = {"a": [[1, 1, 1], [1, 1, 0], [1, 1, 1], [0, 1, 1]],
        ...         "b": [[0, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 0]]}
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", kpass.SmallSampleWarning)  # 4 questions
        ...     board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
        >>> [(row.name, round(row.estimate, 3), row.rank) for row in board.rows]
        [('a', 0.833, 1), ('b', 0.25, 2)]
        >>> round(board.pairs[0].difference, 3), board.questions, board.adjustment
        (0.583, 4, 'holm')
    """
    name, inputs, many, clustered = _board_inputs(metric, runs, args, kwargs, clusters,
                                                  confidence, shared, prior, group, weights)
    boards = [_board(**{key: value for key, value in item.items() if key != "values"})
              for item in inputs]
    warn_small(f"kpass.leaderboard({name})", _problems(name, boards, clustered))
    return boards if many else boards[0]


def _board_inputs(metric: MetricLike, runs: Mapping[str, Any], args: tuple[Any, ...],
                  kwargs: dict[str, Any], clusters: Any, confidence: float, shared: bool,
                  prior: str, group: Any = None, weights: str = "questions"
                  ) -> tuple[str, list[dict[str, Any]], bool, bool]:
    """What :func:`leaderboard` checks and computes before its boards are judged.

    Returns:
        The metric's name; per k the keyword arguments of :func:`_board` plus ``values``
        (the (K, M) per-question values, NaN where a question is left out; None for a
        dataset-level metric); whether ``k`` was a sequence; whether clusters were given.
    """
    name, metric = _check_metric(metric, "leaderboard", args, kwargs)
    options = check_options(confidence=confidence, shared=shared, prior=prior,
                            clusters=clusters)
    confidence = options["confidence"]
    if confidence < 0.5:
        raise InputError(f"`confidence` must be at least 0.5 for joint rank sets (two-sided "
                         f"tests at level 1 - confidence); got {confidence!r}")
    runs = _check_runs(runs)  # `shared` is checked by align_runs, the one alignment
    names = list(runs)
    alignment = align_runs(list(runs.values()), [repr(model) for model in names],
                           shared=shared, verb="rank")
    aligned = list(alignment.runs)
    clusters = subset_labels(clusters, alignment)
    check_choice(weights, "weights", WEIGHTS)
    if group is not None and clusters is not None:
        raise InputError("`group` and `clusters` do not go together: the groups are strata "
                         "(every group is in the benchmark), clusters are sampled")
    group = subset_labels(group, alignment, "group")

    def of(model: str, call: Any) -> Any:
        try:
            return call()
        except (TypeError, ValueError) as error:
            raise type(error)(f"model {model!r}: {error}") from None

    def posteriors(used: np.ndarray, budget: int | None, strata: Any = None
                   ) -> list[tuple[float, float]]:
        """(mu, sigma) of every model's ``_ci`` posterior at one k, over the questions used.

        With ``strata`` (a :class:`~kpass.stats.strata.StratifiedCovariance` and the used
        questions' group codes): sum_g w_g mu_g and sqrt(sum_g w_g^2 sigma_g^2) over the
        groups' posteriors (independent questions, independent posteriors).
        """
        k_args = _one_k(args, budget, name)
        if strata is None:
            return [of(model, lambda R=R: _posterior_pair(metric, name, R, used, k_args,
                                                          kwargs, prior)[0])
                    for model, R in zip(names, aligned, strict=True)]
        found, codes = strata
        out = []
        where = np.flatnonzero(used)
        for model, R in zip(names, aligned, strict=True):
            parts = []
            for g in range(found.sizes.size):
                mask = np.zeros(used.size, dtype=bool)
                mask[where[codes == g]] = True
                parts.append(of(model, lambda R=R, mask=mask: _posterior_pair(
                    metric, name, R, mask, k_args, kwargs, prior)[0]))
            mu = float(sum(w * part[0] for w, part in zip(found.weights, parts, strict=True)))
            sd = math.sqrt(sum((w * part[1]) ** 2
                               for w, part in zip(found.weights, parts, strict=True)))
            out.append((mu, sd))
        return out

    if name in _DATASET_LEVEL and group is not None:
        raise InputError(f"`group`: {name} is a dataset-level metric (not a mean over "
                         "questions), so it has no per-group breakdown to weight")
    if name in _DATASET_LEVEL:
        statistics, sizes = zip(*[of(model, lambda R=R: _dataset_statistic(metric, R, args,
                                                                           kwargs))
                                  for model, R in zip(names, aligned, strict=True)],
                                strict=True)
        if len(set(sizes)) != 1:
            raise InputError(f"the `runs` must score the same questions, row q of every run "
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
        inputs = [dict(name=name, k=budget, names=names, estimates=values[:, index],
                       sigma=sigmas[index], df=df, count=df + 1, questions=m,
                       posteriors=posteriors(everything, budget), confidence=confidence,
                       values=None) for index, budget in enumerate(budgets)]
        return name, inputs, many, codes is not None

    per_model = [of(model, lambda R=R: _per_question(metric, name, R, args, kwargs))
                 for model, R in zip(names, aligned, strict=True)]
    counted = {model: found[0][0].size for model, found in zip(names, per_model, strict=True)}
    if len(set(counted.values())) != 1:
        raise InputError(f"the `runs` must score the same questions, row q of every run being "
                         f"question q; got {counted} questions (give question ids to match by "
                         "id: BinaryCounts(..., ids=...) or the CLI's --id COLUMN)")
    m = next(iter(counted.values()))
    codes = _labels(clusters, m)
    labels = _labels(group, m, "group")
    many = per_model[0][1]
    budgets = _budgets(args, len(per_model[0][0]), name)
    inputs = []
    for index, budget in enumerate(budgets):
        matrix = np.array([found[index] for found, _ in per_model])  # (K, M)
        used = np.isfinite(matrix).all(axis=0)
        questions = int(used.sum())
        if questions < 2:
            raise InputError(f"ranking needs at least 2 questions scored by every model of "
                             f"`runs`; got {questions}"
                             + ("" if budget is None else f" at k={budget}"))
        if labels is not None:
            inputs.append(_strata_inputs(name, budget, names, matrix, used, labels, weights,
                                         posteriors, confidence))
            continue
        used_codes = None if codes is None else codes[used]
        sigma, cluster_df, count = _covariance(matrix[:, used], used_codes)
        units = _unit_totals(matrix[:, used], used_codes)
        inputs.append(dict(name=name, k=budget, names=names,
                           estimates=matrix[:, used].mean(axis=1), sigma=sigma, df=cluster_df,
                           count=count, questions=questions,
                           posteriors=posteriors(used, budget), confidence=confidence,
                           units=units, values=np.where(used[None, :], matrix, np.nan)))
    return name, inputs, many, codes is not None


def _strata_inputs(name: str, budget: int | None, names: list[str], matrix: np.ndarray,
                   used: np.ndarray, labels: np.ndarray, weights: str, posteriors: Any,
                   confidence: float) -> dict[str, Any]:
    """:func:`_board`'s keyword arguments (and ``values``) of a board with groups as strata."""
    from .strata import stratified_covariance

    _, codes = np.unique(labels[used], return_inverse=True)
    codes = codes.ravel()
    values = matrix[:, used]
    found = stratified_covariance(values, codes, weights)
    df = float(found.df.min())
    return dict(name=name, k=budget, names=names, estimates=found.estimates,
                sigma=found.sigma, df=int(df) if df == int(df) else df,
                count=max(2, int(round(found.units))), questions=int(used.sum()),
                posteriors=posteriors(used, budget, (found, codes)), confidence=confidence,
                units=StrataUnits(values, codes, found.weights, found.sizes),
                values=np.where(used[None, :], matrix, np.nan), weights=weights)


def group_leaderboards(calls: Sequence[tuple[MetricLike, tuple[Any, ...], dict[str, Any]]],
                       strata: Mapping[Any, Mapping[str, Any]], *, confidence: float = 0.95,
                       shared: bool = False, prior: str = "uniform"
                       ) -> dict[Any, list[Leaderboard]]:
    r"""Rank the models within each group, every group's rank sets holding jointly.

    Each group's boards are :func:`leaderboard`'s on that group's questions alone
    (estimates, SEs, intervals, P(best) unchanged), but the pairs of every board of every
    group are told apart by one stepdown over all of them
    (:func:`kpass.stats.rank_sets.joint_pair_verdicts`): each pair's studentised |T|
    against its sign-flip distribution (each group flips the signs of its own questions,
    every board of a group the same ones), on the p-value scale, and the Westfall-Young
    min-P stepdown over all the pairs at once (``adjustment`` ``"min-p"``). So the rank
    sets of all groups and all rows hold their true ranks
    together with probability >= ``confidence``, not each group's alone (G groups ranked
    alone at 95% each hold together only about 0.95^G of the time). With a dataset-level
    metric among the calls, Holm over every pair's t test.

    Args:
        calls: the rows, each ``(metric, args, kwargs)`` as :func:`leaderboard` takes them
            (``kwargs`` without ``clusters``, with ``prior`` where that row's differs; a
            list of k gives a board per k).
        strata: group label -> runs (model name -> that group's outcomes).
        confidence: the joint level.
        shared: as :func:`leaderboard`, within each group.
        prior: as :func:`leaderboard`.

    Returns:
        group -> its boards, in the order of ``calls`` (and of their k).

    Raises:
        ValueError: fewer than 2 groups, and whatever :func:`leaderboard` refuses for a
            group (the message names the group).

    Example:
        >>> import kpass, warnings
        >>> from kpass.stats.ranking import group_leaderboards
        >>> a = {"x": [[1, 1], [1, 0], [1, 1]], "y": [[0, 1], [1, 1], [1, 1]]}
        >>> b = {"x": [[0, 0], [0, 1], [0, 0]], "y": [[1, 1], [0, 1], [1, 0]]}
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        ...     boards = group_leaderboards([(kpass.pass_at_k, (1,), {})],
        ...                                 {g: {"a": a[g], "b": b[g]} for g in "xy"})
        >>> [(g, [round(row.estimate, 3) for row in boards[g][0].rows]) for g in boards]
        [('x', [0.833, 0.167]), ('y', [0.833, 0.667])]
    """
    from .rank_sets import PairFamily, joint_pair_verdicts

    if not isinstance(strata, Mapping) or len(strata) < 2:
        raise InputError(f"`strata` must map at least 2 groups to their runs; got "
                         f"{_show(strata)}")
    inputs: list[tuple[Any, str, dict[str, Any]]] = []
    for stratum, (group, runs) in enumerate(strata.items()):
        for metric, args, kwargs in calls:
            options = dict(kwargs)
            own_prior = options.pop("prior", prior)  # a family without a Beta prior: uniform
            try:
                name, found, _, _ = _board_inputs(metric, runs, tuple(args), options, None,
                                                  confidence, shared, own_prior)
            except (TypeError, ValueError) as error:
                raise type(error)(f"group {group!r}: {error}") from None
            inputs.extend((group, name, {**item, "stratum": stratum}) for item in found)
    families = []
    for _, _, item in inputs:
        tied, _, rows, cols, difference = _pairs(item["estimates"])
        families.append(PairFamily(tied, item["sigma"], item["df"], item["count"], rows, cols,
                                   difference, item["values"], item["stratum"]))
    verdicts, method = joint_pair_verdicts(families, inputs[0][2]["confidence"])
    out: dict[Any, list[Leaderboard]] = {group: [] for group in strata}
    for (group, _, item), (p, adjusted, told) in zip(inputs, verdicts, strict=True):
        kept = {key: value for key, value in item.items() if key not in ("values", "stratum")}
        out[group].append(_board(**kept, verdicts=(p, adjusted, told, method)))
    for group, boards in out.items():
        for board in boards:
            warn_small(f"kpass.leaderboard({board.metric}) in group {group!r}",
                       _problems(board.metric, [board], False))
    return out


__all__ = ["Leaderboard", "RankedPair", "Standing", "Winner", "group_leaderboards", "leaderboard"]
