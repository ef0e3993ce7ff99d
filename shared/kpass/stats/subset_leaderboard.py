r"""A leaderboard with some models run on every question and some on random subsets.

**Estimand.** Each model's full-benchmark value :math:`\bar Y_j` (the mean over all N
questions of its per-question metric values: what its full run reports, or would report;
:mod:`kpass.stats.subset`), and the ranks of those values: the table every model's full
run would give. A fully run model's value is its run's; a model run on a subset
(:func:`kpass.choose_questions`) gets :func:`kpass.subset_estimate`'s model-assisted
estimate, SE and interval over the random draw of its questions.

**Rows.** A full run's row is what :func:`kpass.leaderboard` prints for it among the full
runs: its value with the SE and interval over questions (the questions as a sample), so
adding subset models never changes what the full runs say. A subset model's row is its
:class:`~kpass.stats.subset.SubsetEstimate` (estimate, SE and interval over the draw, of its
full-benchmark value).

**Pairs, and which are paired.**

- Two full runs: :func:`kpass.leaderboard`'s verdict on the full runs alone (paired over
  all questions, the studentised sign-flip max-|T| stepdown). For the full-benchmark values
  such a verdict is never wrong: the difference of two full runs *is* the difference of
  their values, and a pair is told apart only in the direction of its estimate.
- A subset model and a full run: the full run's value is known exactly (SE 0 over the
  draw), so the difference's SE is the subset model's (as :func:`kpass.subset_compare`
  with ``subset_b=None``), df = m - H.
- Two subset models on the same subset (the same draw): paired per question, the
  stratified, finite-population-corrected variance of the difference of their residuals
  (as :func:`kpass.subset_compare`); df = m - H.
- Two subset models on different subsets: independent draws, variance
  :math:`\widehat V_a + \widehat V_b`, Welch-Satterthwaite df.

**Joint rank sets.** Over the draws, the subset models' estimation errors
:math:`\varepsilon = \hat Y - \bar Y` are approximately normal with the covariance

.. math::

    D_{ab} = \sum_h \Big(\frac{N_h}{N}\Big)^2 \Big(1 - \frac{m_h}{N_h}\Big)
             \frac{\widehat{\mathrm{cov}}_h(e_a, e_b)}{m_h}

for two models on one subset (the residuals :math:`e` of the difference estimator, per
stratum h), 0 between different subsets (independent draws) and for full runs. Every pair
with a subset model is tested two-sided by :math:`T_{ab} = \hat d_{ab} / \widehat{se}_{ab}`,
:math:`\widehat{se}^2_{ab} = D_{aa} + D_{bb} - 2 D_{ab}`, through its t p-value
(df as above) turned into the normal quantile of the same two-sided p-value; the joint
reference is the Gaussian max-|Z| over those pairs with the correlation D implies
(:data:`DRAWS` seeded draws of :math:`\varepsilon \sim N(0, D)`), with the Westfall-Young
stepdown (Romano and Wolf 2005). Their family-wise error is at most
:math:`1 - \text{confidence}` (asymptotically in m); the full runs' pairs add no error for
the full-benchmark values (above), so all rank sets
:math:`[1 + \#\{\text{told better}\}, K - \#\{\text{told worse}\}]` hold together with
probability >= ``confidence`` (Mogstad, Romano, Shaikh and Wilhelm 2024).

References:
    Särndal, Swensson and Wretman (1992), Model Assisted Survey Sampling, sections 6.3-6.5
    and 7.5; Romano, J. P. and Wolf, M. (2005), JASA 100, 94-108; Westfall and Young
    (1993), Resampling-Based Multiple Testing; Mogstad, Romano, Shaikh and Wilhelm (2024),
    Review of Economic Studies 91(1), 476-518; Satterthwaite (1946), Biometrics Bulletin 2(6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_confidence
from ._common import _check_metric
from .intervals import intervals
from .rank_sets import _tie_groups
from .ranking import RankedPair, _check_runs, leaderboard
from .subset import _assisted, _check_subset, _estimate, _on_subset, _reference_fit
from .subset_compare import _full_values, _same
from .subset_design import Subset

#: Seeded normal draws behind the joint (max-|Z|) reference of the pairs with a subset model.
DRAWS = 20000
SEED = 20240601
#: Pairs handled at a time by the stepdown (memory: about DRAWS x CHUNK floats).
CHUNK = 256


@dataclass(frozen=True)
class SubsetStanding:
    """One model's line of a :class:`SubsetLeaderboard`.

    Attributes:
        name: the model's name (a key of ``runs``).
        estimate: its full-benchmark value: its full run's, or its estimate from its subset.
        se: a full run's SE over questions; a subset model's SE over the draw of its subset.
        lo: lower end of the ``confidence`` interval (over questions for a full run, over
            the draw for a subset model).
        hi: upper end.
        rank: 1 + the number of models with a larger estimate (ties share a rank).
        rank_lo: best rank of the joint rank set.
        rank_hi: worst rank of the joint rank set.
        questions: the questions the model was run on (m of a subset, or N).
        population: N, the benchmark's questions.
    """

    name: str
    estimate: float
    se: float
    lo: float
    hi: float
    rank: int
    rank_lo: int
    rank_hi: int
    questions: int
    population: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True, repr=False)
class SubsetLeaderboard:
    """Models ranked by their full-benchmark values, some on subsets (:func:`subset_leaderboard`).

    Attributes:
        metric: the metric's name (e.g. ``"pass_at_k"``).
        k: the budget (None for metrics without k).
        confidence: the level of the intervals and of the joint rank sets.
        population: N, the benchmark's questions.
        rows: one :class:`SubsetStanding` per model, best first.
        pairs: one :class:`~kpass.stats.ranking.RankedPair` per pair of models, in the order
            of the rows (``a`` ranked above ``b``); ``se`` is over questions for two full
            runs and over the draw(s) for a pair with a subset model.
    """

    metric: str
    k: int | None
    confidence: float
    population: int
    rows: tuple[SubsetStanding, ...]
    pairs: tuple[RankedPair, ...]

    def as_dict(self) -> dict[str, Any]:
        """The leaderboard as plain dicts and lists (JSON-safe)."""
        return {"metric": self.metric, "k": self.k, "confidence": self.confidence,
                "population": self.population, "rows": [row.as_dict() for row in self.rows],
                "pairs": [pair.as_dict() for pair in self.pairs]}

    def __str__(self) -> str:
        return table_text(self) + "\n" + SUBSET_NOTE

    __repr__ = __str__


#: The one line under a mixed table saying what a subset model's row means.
SUBSET_NOTE = ("A model on a subset: estimate and interval of its score on all the questions, "
               "over the random draw.")


def table_text(board: SubsetLeaderboard, digits: int = 3, label: str | None = None) -> str:
    """The board as text: a title, a line per model, the pairs told apart.

    A subset model's line ends "on m of N questions"; ``label`` names the metric (default:
    its function's name).
    """
    level = f"{board.confidence:.0%}"
    title = ((label or board.metric) + ("" if board.k is None else f" at k={board.k}")
             + f" on {board.population:,} questions; {level} intervals, {level} joint rank "
             "sets")
    header = ["rank", "model", "estimate", "se", f"{level} interval", "rank set", ""]
    lines = [[str(row.rank), row.name, f"{row.estimate:.{digits}f}", f"{row.se:.{digits}f}",
              f"[{row.lo:.{digits}f}, {row.hi:.{digits}f}]",
              str(row.rank_lo) if row.rank_lo == row.rank_hi
              else f"{row.rank_lo}-{row.rank_hi}",
              "" if row.questions == row.population
              else f"on {row.questions:,} of {row.population:,} questions"]
             for row in board.rows]
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    text = [title]
    for line in [header, *lines]:
        cells = [cell.ljust(width) if i in (1, 6) else cell.rjust(width)
                 for i, (cell, width) in enumerate(zip(line, widths, strict=True))]
        text.append("  ".join(cells).rstrip())
    better = [f"{pair.a} > {pair.b}" for pair in board.pairs if pair.better]
    text.append("told apart: " + (", ".join(better) if better else "no pair"))
    return "\n".join(text)


def _stratified_covariance(residuals: np.ndarray, subset: Subset) -> np.ndarray:
    """D of the module docstring for models on one subset; ``residuals`` is (J, m)."""
    N = subset.population
    size = residuals.shape[0]
    covariance = np.zeros((size, size))
    for h in np.unique(subset.stratum):
        inside = subset.stratum == h
        m_h = int(inside.sum())
        N_h = m_h / float(subset.inclusion[inside][0])
        block = np.atleast_2d(np.cov(residuals[:, inside], ddof=1))
        covariance += (N_h / N) ** 2 * (1 - m_h / N_h) * block / m_h
    return covariance


def _stepdown(z: np.ndarray, rows: np.ndarray, cols: np.ndarray, D: np.ndarray
              ) -> np.ndarray:
    """Westfall-Young adjusted p-values of |z| against the Gaussian max-|Z| under N(0, D).

    ``z``: each pair's normal-scale statistic; pair p's null draw is
    (eps_a - eps_b) / se_ab with eps ~ N(0, D) shared by all pairs; p-values (1 + count) /
    (1 + DRAWS) (Phipson and Smyth 2010).
    """
    values, vectors = np.linalg.eigh(D)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))[None, :]
    eps = np.random.default_rng(SEED).standard_normal((DRAWS, D.shape[0])) @ root.T
    se = np.sqrt(np.maximum(D[rows, rows] + D[cols, cols] - 2.0 * D[rows, cols], 0.0))
    order = np.argsort(-np.abs(z), kind="stable")
    observed = np.abs(z[order])
    r, c, s = rows[order], cols[order], se[order]
    raw = np.empty(order.size)
    running = np.zeros(DRAWS)
    for stop in range(order.size, 0, -CHUNK):
        start = max(0, stop - CHUNK)
        block = np.abs(eps[:, r[start:stop]] - eps[:, c[start:stop]]) / s[start:stop]
        suffix = np.maximum.accumulate(block[:, ::-1], axis=1)[:, ::-1]
        np.maximum(suffix, running[:, None], out=suffix)
        hits = np.count_nonzero(suffix >= observed[None, start:stop] * (1.0 - 1e-9), axis=0)
        raw[start:stop] = (1.0 + hits) / (1.0 + DRAWS)
        running = suffix[:, 0].copy()
    adjusted = np.empty(order.size)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(raw))
    return adjusted


def _check_subsets(subsets: Any, names: list[str]) -> dict[str, Subset]:
    if not isinstance(subsets, Mapping):
        raise ArgumentTypeError(f"`subsets` must map the names of the models run on a subset "
                                f"to their Subset (a dict); got {_show(subsets)}")
    if not subsets:
        raise InputError("`subsets` is empty: with every model run on every question, use "
                         "kpass.leaderboard")
    for model, subset in subsets.items():
        if model not in names:
            raise InputError(f"`subsets` names {model!r}, not a model of `runs` (its models: "
                             f"{', '.join(map(repr, names))})")
        _check_subset(subset, f"subsets[{model!r}]")
    return dict(subsets)


def subset_leaderboard(metric: Any, runs: Mapping[str, Any], *args: Any,
                       subsets: Mapping[str, Subset], reference: Mapping[str, Any],
                       confidence: float = 0.95, irt: str = "2pl",
                       **kwargs: Any) -> SubsetLeaderboard:
    r"""Rank models by their full-benchmark values, some run on every question, some on subsets.

    See the module docstring for the estimand (the table every model's full run would give),
    the rows, which differences are paired and the joint rank sets (the full runs' pairs as
    :func:`kpass.leaderboard` tells them apart; the pairs with a subset model by a Gaussian
    max-|T| stepdown over the draws' covariance).

    Args:
        metric: a binary pass-family point function (``kpass.pass_at_k``, ...), its name or
            registry key.
        runs: model name -> outcomes: on every question for a full run, on its subset's
            questions (matched by id) for a model in ``subsets``.
        *args: ``metric``'s positional arguments (k, ...); one k.
        subsets: the name of each model run on a subset -> its
            :class:`~kpass.stats.subset_design.Subset`; the other models are full runs.
            Models given the same subset (the same draw) are paired per question.
        reference: model name -> outcomes on every question, the runs the IRT model is
            fitted on (as :func:`kpass.subset_estimate` takes); the full runs may be among
            them.
        confidence: level of the intervals and of the joint rank sets, in [0.5, 1).
        irt: the IRT model, ``"2pl"`` (the default) or ``"rasch"``.
        **kwargs: ``metric``'s keyword arguments.

    Returns:
        A :class:`SubsetLeaderboard`.

    Raises:
        TypeError: ``metric`` not a point function of the family, ``runs``, ``subsets`` or
            ``reference`` not a mapping, a subset that is not a Subset.
        ValueError: fewer than 2 models, ``subsets`` empty or naming a model not in
            ``runs``, a subset not of the references' benchmark, a run lacking its
            questions, too few samples for k, ``confidence`` below 0.5.

    Example:
        >>> import kpass, numpy as np
        >>> rng = np.random.default_rng(0)
        >>> easy = rng.uniform(-2, 2, 300)
        >>> def run(skill):
        ...     return kpass.BinaryCounts(np.full(300, 4), rng.binomial(4, 1 / (1 + np.exp(
        ...         -(skill + easy)))), ids=[f"q{i}" for i in range(300)])
        >>> reference = {f"m{j}": run(skill) for j, skill in enumerate(np.linspace(-1, 1, 8))}
        >>> chosen = kpass.choose_questions(reference, 60, seed=3)
        >>> runs = {"old": reference["m7"], "new": run(2.5)}  # new: only the 60 chosen used
        >>> board = kpass.subset_leaderboard(kpass.pass_at_k, runs, 1,
        ...                                  subsets={"new": chosen}, reference=reference)
        >>> [(row.name, row.questions, row.rank_lo, row.rank_hi) for row in board.rows]
        [('new', 60, 1, 1), ('old', 300, 2, 2)]
    """
    name, metric = _check_metric(metric, "subset_leaderboard", args, kwargs)
    confidence = check_confidence(confidence)
    if confidence < 0.5:
        raise InputError(f"`confidence` must be at least 0.5 for joint rank sets (two-sided "
                         f"tests at level 1 - confidence); got {confidence!r}")
    runs = _check_runs(runs)
    names = list(runs)
    subsets = _check_subsets(subsets, names)
    fit, ids = _reference_fit(reference, irt)
    N = len(ids)
    size = len(names)
    estimate = np.zeros(size)  # as reported (a subset estimate clipped to [0, 1])
    raw = np.zeros(size)  # unclipped: the differences are formed from these
    se = np.zeros(size)
    lo = np.zeros(size)
    hi = np.zeros(size)
    df = np.full(size, np.inf)
    questions = np.full(size, N)
    residuals: dict[int, np.ndarray] = {}
    full: dict[str, Any] = {}
    values: dict[str, np.ndarray] = {}
    for j, model in enumerate(names):
        argument = f"runs[{model!r}]"
        if model not in subsets:
            full[model], values[model] = _full_values(metric, name, args, kwargs, runs[model],
                                                      argument, ids)
            estimate[j] = raw[j] = values[model].mean()
            continue
        subset = subsets[model]
        chosen, counts, y = _on_subset(metric, name, args, kwargs, runs[model], argument,
                                       subset, ids)
        parts = _assisted(metric, name, args, kwargs, fit, chosen, counts, y, subset)
        result = _estimate(metric, name, args, kwargs, fit, chosen, counts, y, subset,
                           confidence, parts)
        estimate[j], raw[j], se[j], df[j] = result.estimate, parts[0], result.se, result.df
        lo[j], hi[j], questions[j] = result.lo, result.hi, subset.questions
        residuals[j] = parts[1]
    told_full = _full_rows(metric, args, kwargs, full, values, names, confidence, se, lo, hi)
    D = _draw_covariance(names, subsets, residuals)
    tied = _tie_groups(estimate)
    rank = np.array([1 + int(np.sum(tied > e)) for e in tied])
    order = sorted(range(size), key=lambda j: (-tied[j], j))
    pairs_a = np.array([order[a] for a in range(size) for b in range(a + 1, size)])
    pairs_b = np.array([order[b] for a in range(size) for b in range(a + 1, size)])
    difference = raw[pairs_a] - raw[pairs_b]
    pair_se = np.sqrt(np.maximum(D[pairs_a, pairs_a] + D[pairs_b, pairs_b]
                                 - 2.0 * D[pairs_a, pairs_b], 0.0))
    p = np.ones(pairs_a.size)
    adjusted = np.ones(pairs_a.size)
    better = np.zeros(pairs_a.size, dtype=bool)
    drawn = np.array([names[a] in subsets or names[b] in subsets
                      for a, b in zip(pairs_a, pairs_b, strict=True)], dtype=bool)
    for index in np.flatnonzero(~drawn):  # two full runs: kpass.leaderboard's verdict
        pair = told_full[frozenset((names[pairs_a[index]], names[pairs_b[index]]))]
        pair_se[index], p[index], adjusted[index] = pair.se, pair.p_value, pair.p_adjusted
        better[index] = pair.better and difference[index] > 0
    testable = drawn & (pair_se > 0)
    if testable.any():
        from scipy.special import ndtri, stdtr

        pair_df = _pair_df(se, df, D, pairs_a, pairs_b, subsets, names)[testable]
        t = np.abs(difference[testable]) / pair_se[testable]
        p[testable] = np.minimum(1.0, 2.0 * stdtr(pair_df, -t))
        z = -ndtri(np.maximum(p[testable] / 2.0, 1e-300))
        # never below the pair's own p-value (the Monte Carlo max can fall a hair short)
        adjusted[testable] = np.maximum(_stepdown(z, pairs_a[testable], pairs_b[testable], D),
                                        p[testable])
        better[testable] = (adjusted[testable] <= 1.0 - confidence) & (difference[testable] > 0)
    above = np.zeros((size, size), dtype=bool)
    above[pairs_a[better], pairs_b[better]] = True
    rank_lo = 1 + above.sum(axis=0)
    rank_hi = size - above.sum(axis=1)
    rows = tuple(SubsetStanding(
        name=names[j], estimate=float(estimate[j]) + 0.0, se=float(se[j]), lo=float(lo[j]),
        hi=float(hi[j]), rank=int(rank[j]), rank_lo=int(rank_lo[j]), rank_hi=int(rank_hi[j]),
        questions=int(questions[j]), population=N) for j in order)
    pairs = tuple(RankedPair(a=names[a], b=names[b], difference=float(d) + 0.0, se=float(s),
                             p_value=float(pv), p_adjusted=float(pa), better=bool(t))
                  for a, b, d, s, pv, pa, t in zip(pairs_a, pairs_b, difference, pair_se, p,
                                                   adjusted, better, strict=True))
    k = next((a for a in args if isinstance(a, (int, np.integer))), None)
    return SubsetLeaderboard(metric=name, k=None if k is None else int(k),
                             confidence=confidence, population=N, rows=rows, pairs=pairs)


def _full_rows(metric: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
               full: dict[str, Any], values: dict[str, np.ndarray], names: list[str],
               confidence: float, se: np.ndarray, lo: np.ndarray, hi: np.ndarray
               ) -> dict[frozenset[str], RankedPair]:
    """Fill the full runs' SE and interval over questions; their pairs' verdicts.

    Two or more full runs: :func:`kpass.leaderboard` of them alone (its rows and pairs).
    One: its SE over questions and :func:`kpass.stats.intervals.intervals`.
    """
    if len(full) >= 2:
        board = leaderboard(metric, full, *args, confidence=confidence, **kwargs)
        assert not isinstance(board, list)  # one k
        for row in board.rows:
            j = names.index(row.name)
            se[j], lo[j], hi[j] = row.se, row.lo, row.hi
        return {frozenset((pair.a, pair.b)): pair for pair in board.pairs}
    for model, y in values.items():
        j = names.index(model)
        se[j] = float(np.std(y, ddof=1) / np.sqrt(y.size))
        ends = intervals(np.array([y.mean()]), np.array([se[j]]), y.size - 1, y.size,
                         confidence)
        lo[j], hi[j] = float(ends[0][0]), float(ends[1][0])
    return {}


def _draw_covariance(names: list[str], subsets: dict[str, Subset],
                     residuals: dict[int, np.ndarray]) -> np.ndarray:
    """D: the subset models' covariance over the draws (0 for full runs, across draws)."""
    D = np.zeros((len(names), len(names)))
    groups: list[list[int]] = []
    for j in sorted(residuals):
        home = next((group for group in groups
                     if _same(subsets[names[group[0]]], subsets[names[j]])), None)
        if home is None:
            groups.append([j])
        else:
            home.append(j)
    for group in groups:
        block = _stratified_covariance(np.array([residuals[j] for j in group]),
                                       subsets[names[group[0]]])
        D[np.ix_(group, group)] = block
    return D


def _pair_df(se: np.ndarray, df: np.ndarray, D: np.ndarray, rows: np.ndarray,
             cols: np.ndarray, subsets: dict[str, Subset], names: list[str]) -> np.ndarray:
    """Each pair's t df: m - H on one subset (or against a full run), else Welch."""
    out = np.empty(rows.size)
    for index, (a, b) in enumerate(zip(rows, cols, strict=True)):
        one, two = subsets.get(names[a]), subsets.get(names[b])
        if one is None or two is None or _same(one, two):
            out[index] = min(df[a], df[b])
            continue
        v_a, v_b = se[a] ** 2, se[b] ** 2
        out[index] = ((v_a + v_b) ** 2 / (v_a**2 / df[a] + v_b**2 / df[b])
                      if v_a + v_b > 0 else min(df[a], df[b]))
    return out


__all__ = ["SubsetLeaderboard", "SubsetStanding", "subset_leaderboard"]
