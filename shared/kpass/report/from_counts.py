"""The report from counts in Python: the table ``kpass report`` prints, for counts made anywhere.

A Spark or Dask notebook that grouped its logs with :meth:`kpass.BinaryCounts.from_long`
ends with per-question counts and no file; :func:`report_table` gives the same rows and
renders the same table, Markdown, CSV or JSON as the command line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_choice,
    check_confidence,
    check_digits,
    check_names,
    check_short,
    check_taus,
    normalize_ks,
)
from .._core.counting.counts import BinaryCounts
from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from ..stats._common import metric_names
from ..stats.cost import CostSummary, cost_summary
from .cost import cost_ks, cost_lines
from .render import (
    RENDERERS,
    render_csv,
    render_json,
    render_markdown,
    render_sections,
    render_table,
)
from .rows import Report
from .table import (
    DEFAULT_K_MAX,
    check_ks,
    clusters_summary,
    compute_rows,
    default_ks,
    parse_metrics,
)


@dataclass(frozen=True)
class ReportTable:
    """The numbers of :func:`report_table`, renderable as the command line renders them.

    Attributes:
        report: the report (inputs, labels, rows per input, confidence, notes).
    """

    report: Report

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One plain dict per input, metric, k and tau (the fields of the CSV output).

        With ``group``: each input's aggregate rows (``group`` None, ``weights`` named),
        then every group's rows (``group`` its label).
        """
        if self.report.breakdowns:
            from .render import result_dicts

            return [{"input": fields.pop("file"), **fields}
                    for fields in result_dicts(self.report)]
        return [{"input": label, **row.as_dict()}
                for label, rows in zip(self.report.labels, self.report.rows, strict=True)
                for row in rows]

    @property
    def cost_rows(self) -> list[dict[str, Any]]:
        """With ``cost=``: one plain dict per input and k, the cost per question and per solved.

        The fields of :class:`kpass.CostSummary` (the costs with their intervals over
        questions; an infinite end as None), as the JSON output's ``cost``; empty without
        ``cost=``.
        """
        if self.report.costs is None:
            return []
        return [{"input": label, **summary.as_dict()}
                for label, summaries in zip(self.report.labels, self.report.costs, strict=True)
                for summary in summaries]

    def render(self, format: str = "table", digits: int = 3,  # noqa: A002
               explain: bool = False) -> str:
        """The report as ``kpass report --format FORMAT`` prints it.

        Args:
            format: ``table``, ``markdown``, ``csv`` or ``json``.
            digits: decimals of table and Markdown output.
            explain: add the legend and the notes in full (``kpass report --explain``).

        Raises:
            ValueError: an unknown format, ``digits`` outside [0, 17].
            TypeError: ``digits`` is not an int.
        """
        check_choice(format, "format", RENDERERS)
        digits = check_digits(digits)
        if not isinstance(explain, bool):
            raise ArgumentTypeError(f"`explain` must be a bool; got {_show(explain)}")
        report = replace(self.report, explain=explain)
        if format in ("table", "markdown") and report.by is not None:
            return render_sections(report, format, digits)
        if format == "table":
            return render_table(report, digits)
        if format == "markdown":
            return render_markdown(report, digits)
        return render_csv(self.report) if format == "csv" else render_json(self.report)

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame``.

        Raises:
            ImportError: pandas is not installed.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("ReportTable.to_pandas needs pandas (pip install pandas)") from None
        return pd.DataFrame.from_records(self.rows)

    def __str__(self) -> str:
        return self.render("table")


def _inputs(counts: Any) -> dict[str, BinaryCounts]:
    if isinstance(counts, Mapping):
        if not counts:
            raise InputError("`counts` maps no input; give at least one")
        named = dict(counts)
    else:
        named = {"counts": counts}
    out = {}
    for name, value in named.items():
        if not isinstance(name, str) or not name:
            raise ArgumentTypeError(f"`counts` must be keyed by non-empty names; got the key "
                                    f"{_show(name)}")
        if not isinstance(value, BinaryCounts):
            from .._core.counting.inputs import binary_counts

            try:
                value = binary_counts(value)
            except (TypeError, ValueError) as error:
                raise type(error)(f"`counts[{name!r}]`: {error}") from None
        out[name] = value
    return out


def check_options(metrics: Any, k: Any, tau: Any, confidence: Any, short: Any
                  ) -> tuple[str | None, list[int] | None, list[float], float, str]:
    """The options of :func:`report_table`, checked.

    By the validators of ``kpass._core.counting.checks``.

    Returns:
        ``(metrics text or None, sorted distinct ks or None, taus, confidence, short)``.

    Raises:
        TypeError / ValueError: naming the argument, the value and what was expected.
    """
    text = check_names(metric_names(metrics), "metrics")
    ks = None if k is None else sorted(set(normalize_ks(k)[0]))
    return text, ks, check_taus(tau), check_confidence(confidence), check_short(short)


def report_table(counts: Any, *, metrics: Any = None,
                 k: int | Sequence[int] | None = None, tau: float | Sequence[float] = 0.5,
                 confidence: float = 0.95, short: str = "error",
                 clusters: Any = None, by: str | None = None,
                 interval_method: str = "auto", group: Any = None,
                 weights: str = "questions", cost: Any = None) -> ReportTable:
    """The ``kpass report`` table from counts: the same rows, rendered the same way.

    Args:
        counts: a :class:`kpass.BinaryCounts` (e.g. from ``BinaryCounts.from_long`` on a
            Spark or Dask frame), anything :func:`kpass.binary_counts` takes, or a mapping
            name -> either, shown side by side.
        metrics: metric names as ``--metrics`` takes them (``"pass@k,pass^k"``, a list of
            names, or ``"all"``) or point functions (``kpass.pass_at_k``, one or a list);
            None for the report's defaults.
        k: one k or several; None for the report's default ladder (1..n for n <= 8, else
            powers of two, up to 512).
        tau: G-Pass@k threshold(s).
        confidence: level of the intervals.
        short: ``"error"`` (every question needs k samples) or ``"skip"``.
        clusters: a cluster label (str or int) per question, in question order, as
            ``kpass report --clusters COLUMN`` reads them (with a mapping of inputs: a
            mapping name -> labels, or one sequence for inputs of the same questions).
            Standard errors are then CR2 over clusters with Bell-McCaffrey degrees of
            freedom (Bell and McCaffrey 2002), and a note says when the effective number
            of clusters is under 10.
        by: the column a mapping of models was split by (``BinaryCounts.from_long(frame,
            ..., by="model")``): rendered as ``kpass report --by`` renders it, a section per
            model, JSON and CSV keyed by ``"model"``. Needs a mapping of at least 2 models.
        interval_method: the interval over questions of Pass@k and Pass^k, as
            ``--interval-method``: ``"auto"`` (default: the beta-binomial profile-likelihood
            interval of :mod:`kpass.stats.beta_binomial` near 0 or 1, by its ``RULE``; the
            se-based interval of :mod:`kpass.stats.intervals` elsewhere), ``"se-based"``
            (always the latter) or ``"beta-binomial"`` (wherever se > 0 without clusters).
            The row's ``se_method`` names the one used.
        group: a group (subtask) label (str or int) per question, in question order, as
            ``kpass report --group COLUMN`` reads them (with a mapping of inputs: a
            mapping name -> labels, or one sequence for inputs of the same questions).
            Each input's rows are then the aggregate over its groups (stratified SE,
            Satterthwaite df: :func:`kpass.stats.strata.stratified_mean`) and ``.rows``
            adds every group's rows, each with its ``group``.
        weights: with ``group``, the aggregate's weighting: ``"questions"`` (each question
            counts once, micro: the metric over all questions) or ``"groups"`` (each group
            once, macro).
        cost: each question's mean cost of one sample (x_i >= 0: money or tokens), in
            question order, as ``kpass report --cost COLUMN`` reads it (with a mapping of
            inputs: a mapping name -> costs; from a dataframe,
            :func:`kpass.from_long_with_costs` gives both in one scan). Adds the report's
            cost lines: the cost per question (of k samples, k x mean(x)) and per solved
            question (at Pass@k, k mean(x) / mean(Pass@k_i)) with their intervals over
            questions (t; Fieller's for the ratio), at k = 1 and the largest k every
            question has (:func:`kpass.cost_summary`); ``.cost_rows`` holds the numbers.

    Returns:
        A :class:`ReportTable`; ``str()`` of it is the terminal table, ``.render(format)``
        the Markdown, CSV or JSON output, ``.rows`` the numbers as dicts.

    Raises:
        TypeError / ValueError: bad counts or options, naming the argument (a k larger than
            a question's samples under ``short="error"`` names the question).

    Example:
        >>> import kpass
        >>> counts = kpass.BinaryCounts([4, 4, 4], [4, 1, 0])
        >>> table = kpass.report_table(counts, metrics="pass@k", k=[1, 4])
        >>> [(row["label"], round(row["estimate"], 4)) for row in table.rows]
        [('Pass@1', 0.4167), ('Pass@4', 0.6667)]
    """
    text, chosen, taus, confidence, short = check_options(metrics, k, tau, confidence, short)
    from ..stats.beta_binomial import INTERVAL_CHOICES

    if interval_method not in INTERVAL_CHOICES:
        raise InputError(f"`interval_method` must be one of {', '.join(INTERVAL_CHOICES)}; "
                         f"got {interval_method!r}")
    try:
        families = [fam for fam in parse_metrics(text) if not fam.answers]
    except ValueError as error:  # the CLI's parser speaks of --metrics
        raise InputError(f"`metrics`: {str(error).replace('`--metrics`', '`metrics`')}") \
            from None
    if not families:
        raise InputError("`metrics` names only answer-scored metrics (vote@k), which need the "
                         "answers: use kpass.vote_at_k")
    check_choice(weights, "weights", ("questions", "groups"))  # checked with or without group
    if by is not None:
        if not isinstance(by, str) or not by:
            raise ArgumentTypeError(f"`by` must be the name of the column the models were "
                                    f"split by; got {_show(by)}")
        if not isinstance(counts, Mapping) or len(counts) < 2:
            raise InputError("`by` needs `counts` as a mapping of at least 2 models (label -> "
                             "counts, as BinaryCounts.from_long(..., by=...) returns)")
    named = _inputs(counts)
    loaded = [LoadedFile(name, Path(name), None, value, "question 1")
              for name, value in named.items()]
    n_min = min(item.n_min for item in loaded)
    ks = default_ks(n_min) if chosen is None else chosen
    notes = []
    if k is None and n_min > DEFAULT_K_MAX:
        notes.append(f"k stops at {DEFAULT_K_MAX} by default; pass k= for larger k")
    try:
        for item in loaded:
            check_ks(item, ks, short)
    except ReportError as error:  # "<input>: k=... is larger than ..." (in the CLI's words)
        text = str(error).replace("choose --k up to", "choose k up to").replace(
            "pass --short skip", 'pass short="skip"')
        raise InputError(f"`k`: {text}") from None
    codes = _cluster_codes(clusters, named)
    breakdowns = None
    if group is not None:
        if clusters is not None:
            raise InputError("`group` and `clusters` do not go together: the groups are "
                             "strata of the aggregate's SE")
        for item, labels in zip(loaded, _group_labels(group, named), strict=True):
            item.groups = labels
    try:
        if group is not None:
            from .groups import grouped_rows

            rows, breakdowns = grouped_rows(loaded, families, ks, taus, confidence, short,
                                            weights, "group", interval_method=interval_method)
        else:
            rows = [compute_rows(item, families, ks, taus, confidence, short, clusters=code,
                                 interval_method=interval_method)
                    for item, code in zip(loaded, codes, strict=True)]
    except ReportError as error:
        raise InputError(f"`{'group' if group is not None else 'counts'}`: "
                         f"{str(error).replace('--group', '`group`')}") from None
    costs = None if cost is None else _cost_summaries(cost, counts, named, ks, confidence)
    summary = (None if clusters is None else
               [clusters_summary(item.counts, code) for item, code in zip(loaded, codes,
                                                                           strict=True)
                if code is not None])
    return ReportTable(Report(loaded, list(named), rows, confidence, short, notes, [],
                              clusters=summary, by=by, breakdowns=breakdowns, costs=costs,
                              cost_lines=[] if costs is None else cost_lines(list(named),
                                                                             costs)))


def _cost_summaries(cost: Any, counts: Any, named: dict[str, BinaryCounts], ks: list[int],
                    confidence: float) -> list[list[CostSummary]]:
    """Each input's :class:`kpass.CostSummary` list (``cost_ks``), its ``cost`` checked.

    Raises:
        TypeError: ``cost`` not a mapping with a mapping of inputs (or one with a single
            run), or values that are not numbers.
        ValueError: other names than the inputs', a length other than the questions', a
            negative or non-finite cost, fewer than 2 questions.
    """
    if isinstance(counts, Mapping) != isinstance(cost, Mapping):
        raise ArgumentTypeError(
            "`cost` must be a mapping name -> costs with a mapping of inputs, and a sequence "
            f"of costs (one per question) with one run; got {_show(cost)}")
    per_input = dict(cost) if isinstance(cost, Mapping) else {"counts": cost}
    if set(per_input) != set(named):
        raise InputError(f"`cost` must give costs for exactly the inputs ({', '.join(named)}); "
                         f"got {', '.join(map(repr, per_input))}")
    out = []
    for name, value in named.items():
        where = f"`cost[{name!r}]`" if len(per_input) > 1 or name != "counts" else "`cost`"
        values = per_input[name]
        if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
            raise ArgumentTypeError(f"{where} must be a sequence of numbers, each question's "
                                    f"mean cost of one sample; got {_show(values)}")
        try:
            array = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"{where} must hold numbers (each question's mean cost of "
                                    f"one sample); got {_show(values)}") from None
        if array.ndim != 1 or array.size != value.n_questions:
            raise InputError(f"{where} needs one cost per question ({value.n_questions}); got "
                             f"{array.size} values of shape {array.shape}")
        try:
            out.append([cost_summary(value.n_samples, value.n_correct, array, k, confidence)
                        for k in cost_ks(value, ks)])
        except ValueError as error:
            text = str(error).replace("`cost[", f"{where[:-1]}[") if where != "`cost`" \
                else str(error)
            raise InputError(text.replace("`cost` has", f"{where} has")) from None
    return out


def _group_labels(group: Any, named: dict[str, BinaryCounts]) -> list[list[Any]]:
    """The ``group`` labels per input: one str or int per question, checked."""
    per_input = (dict(group) if isinstance(group, Mapping) else dict.fromkeys(named, group))
    unknown = sorted(set(per_input) - set(named), key=str)
    missing = [name for name in named if name not in per_input]
    if unknown or missing:
        raise InputError(f"`group` must give labels for every input ({', '.join(named)}); "
                         + (f"unknown {unknown}" if unknown else f"missing {missing}"))
    out = []
    for name, value in named.items():
        labels = per_input[name]
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
            raise ArgumentTypeError(f"`group` must be a sequence of labels, one per question; "
                                    f"got {_show(labels)}")
        labels = [label.item() if hasattr(label, "item") else label for label in labels]
        where = f" of input {name!r}" if len(named) > 1 else ""
        if len(labels) != value.n_questions:
            raise InputError(f"`group` has {len(labels)} labels for {value.n_questions} "
                             f"questions{where}")
        for index, label in enumerate(labels):
            if isinstance(label, bool) or not isinstance(label, (str, int)):
                raise ArgumentTypeError(f"`group[{index}]` must be a str or int label; got "
                                        f"{_show(label)}{where}")
        out.append(labels)
    return out


def _cluster_codes(clusters: Any, named: dict[str, BinaryCounts]) -> list[Any]:
    """Cluster codes per input (None each without ``clusters``), checked by ``_labels``."""
    from ..stats._common import _labels

    if clusters is None:
        return [None] * len(named)
    per_input = (dict(clusters) if isinstance(clusters, Mapping)
                 else dict.fromkeys(named, clusters))
    unknown = sorted(set(per_input) - set(named), key=str)
    missing = [name for name in named if name not in per_input]
    if unknown or missing:
        raise InputError(f"`clusters` must give labels for every input ({', '.join(named)}); "
                         + (f"unknown {unknown}" if unknown else f"missing {missing}"))
    codes = []
    for name, value in named.items():
        try:
            code = _labels(per_input[name], value.n_questions)
        except (TypeError, ValueError) as error:
            where = f" of input {name!r}" if len(named) > 1 else ""
            raise type(error)(f"{error}{where}") from None
        if code is not None and np.unique(code).size < 2:
            raise InputError(f"`clusters` must name at least 2 clusters; got "
                             f"{np.unique(code).size}")
        codes.append(code)
    return codes


__all__ = ["ReportTable", "report_table"]
