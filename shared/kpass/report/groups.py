r"""A report broken down by group (subtask): ``kpass report --group COLUMN``.

Each question belongs to one group (its ``--group`` label). Every metric row is computed
on each group's questions alone, and the aggregate row is their stratified mean
(:func:`kpass.stats.strata.stratified_mean`): the estimate sum_g w_g x_g with the weighting
named (``--weights questions``: each question counts once, the metric over all questions,
lm-evaluation-harness's ``weight_by_size``; ``--weights groups``: each group counts once,
as HELM averages scenarios), its SE sqrt(sum_g w_g^2 se_g^2) from each group's own SE
(groups are strata, not clusters) and Satterthwaite's degrees of freedom.

The posterior columns of the aggregate are the weighted sum of the groups' independent
posteriors: mean sum_g w_g mean_g, sd sqrt(sum_g w_g^2 sd_g^2), and the credible interval
mean -/+ z sd (a normal approximation to the sum, clipped to [0, 1]).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from .rows import Breakdown, Row

__all__ = ["DEFAULT_WEIGHTS", "aggregate_rows", "grouped_rows", "split_groups", "weights_phrase"]

#: The default aggregate weighting: each question counts once (micro).
DEFAULT_WEIGHTS = "questions"


def weights_phrase(weights: str) -> str:
    """How the aggregate weighs its groups, in words (headers and legends)."""
    return ("each question counts once (micro)" if weights == "questions"
            else "each group counts once (macro)")


def split_groups(loaded: LoadedFile) -> list[tuple[Any, LoadedFile]]:
    """``loaded`` cut into one input per group label (sorted by label), each with its questions.

    Raises:
        ReportError: no labels, or a single group (a breakdown needs two).
    """
    if loaded.groups is None:
        raise ReportError(loaded.source, "no --group labels were read")
    labels = list(loaded.groups)
    names = sorted(dict.fromkeys(labels), key=lambda label: (str(type(label)), label))
    if len(names) < 2:
        raise ReportError(loaded.source, f"--group: every question is in group {names[0]!r}; "
                                         "a breakdown needs at least 2 groups")
    codes = np.asarray([names.index(label) for label in labels]) if len(names) < 64 else (
        np.asarray([{name: i for i, name in enumerate(names)}[label] for label in labels]))
    parts = []
    for index, name in enumerate(names):
        mask = codes == index
        counts = loaded.counts.select(mask)
        parts.append((name, replace(loaded, counts=counts, groups=None, clusters=None,
                                    notes=[], bad_rows=[])))
    return parts


def aggregate_rows(per_group: list[list[Row]], weights: str, confidence: float) -> list[Row]:
    """The aggregate of each row over the groups (module docstring), rows aligned.

    A group with no question at a row's k (``--short skip``) is left out of that row; a
    row constant by definition (mG-Pass@1) stays constant.
    """
    from scipy.special import ndtri

    from ..stats.strata import stratified_mean

    z = float(ndtri(0.5 + 0.5 * confidence))
    out = []
    for index, first in enumerate(per_group[0]):
        rows = [group[index] for group in per_group if group[index].questions > 0]
        sizes = [row.questions for row in rows]
        if first.se_method == "constant" or any(row.se is None and row.questions > 1
                                                for row in rows):
            # constant by definition (mG-Pass@1), or a group without an SE: no interval
            estimate = sum(n * row.estimate for n, row in zip(sizes, rows, strict=True)) / sum(
                sizes) if weights == "questions" else sum(row.estimate for row in rows) / len(rows)
            out.append(replace(first, questions=sum(sizes), estimate=estimate, se=None, lo=None,
                               hi=None))
            continue
        try:
            result = stratified_mean([row.estimate for row in rows],
                                     [row.se if row.questions > 1 else None for row in rows],
                                     sizes, weights)
        except ValueError as error:
            raise ReportError(first.metric, f"--group: {error}") from None
        w = result.weights
        mean = sum(wg * row.mean for wg, row in zip(w, rows, strict=True))
        sd = math.sqrt(sum(wg * wg * row.sd ** 2 for wg, row in zip(w, rows, strict=True)))
        row = Row(first.metric, first.label, first.k, first.tau, sum(sizes), result.estimate,
                  mean, sd, max(0.0, mean - z * sd), min(1.0, mean + z * sd))
        out.append(row.with_se(result.se, confidence, max(1, round(result.units)), result.df))
    return out


def grouped_rows(loaded: list[LoadedFile], families: list[Any], ks: list[int],
                 taus: list[float], confidence: float, short: str, weights: str, column: str,
                 ties: str = "fractional", prior: str = "uniform",
                 interval_method: str = "auto") -> tuple[list[list[Row]], list[Breakdown]]:
    """Each input's aggregate rows and its :class:`~kpass.report.rows.Breakdown` by group.

    Every metric row is computed on each group's questions alone (:func:`split_groups`,
    :func:`kpass.report.table.compute_rows`) and aggregated by :func:`aggregate_rows`.
    """
    from .table import compute_rows

    rows, breakdowns = [], []
    for item in loaded:
        parts = split_groups(item)
        per_group = [compute_rows(part, families, ks, taus, confidence, short, ties=ties,
                                  prior=prior, interval_method=interval_method)
                     for _, part in parts]
        rows.append(aggregate_rows(per_group, weights, confidence))
        breakdowns.append(Breakdown(weights, [name for name, _ in parts], per_group,
                                    [part.counts.n_questions for _, part in parts], column))
    return rows, breakdowns
