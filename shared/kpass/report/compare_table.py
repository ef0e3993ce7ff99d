"""The comparison from counts in Python: the ``kpass compare`` table for counts made anywhere.

:func:`compare_table` is to ``kpass compare`` what :func:`kpass.report_table` is to
``kpass report``: the same rows (built by :func:`kpass.report.compare_rows.compare_lines`, the
command line's own path: merged equal rows, the primary row tested alone, the secondary
rows adjusted jointly, a verdict per row), rendered the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_choice,
    check_names,
    check_short,
)
from .._core.counting.counts import BinaryCounts
from ..stats._common import check_options, metric_names
from ..stats.comparison import check_margin
from ..stats.cost import CostDifference, cost_difference
from .compare_render import RENDERERS, CompareRequest, Line
from .compare_rows import compare_lines
from .cost import difference_line
from .output import cli_words
from .table import default_ks, parse_metrics


@dataclass(frozen=True)
class CompareTable:
    """The numbers of :func:`compare_table`, renderable as ``kpass compare`` renders them.

    Attributes:
        lines: the judged rows (primary first).
        labels: the names of A and B.
        questions: how many questions were compared.
        options: confidence, clusters, shared, adjust, notes and how questions were matched.
        cost_difference: with ``cost_a`` and ``cost_b``, A - B of the cost per question and
            per solved question (:func:`kpass.cost_difference`), else None.
    """

    lines: list[Line]
    labels: tuple[str, str]
    questions: int
    options: dict[str, Any]
    cost_difference: tuple[CostDifference, CostDifference] | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One plain dict per row (the CSV output's fields, plus ``names``), primary first.

        A row merged into another (equal on every question) keeps its own dict, with its
        own label and numbers, ``same_as`` naming the row shown, and that row's
        ``role``, ``p_adjusted`` and ``verdict``. The cost differences (``cost_a``,
        ``cost_b``) are in :attr:`cost_difference` (the CSV adds them as two more lines).
        """
        return [{"a_file": self.labels[0], "b_file": self.labels[1], **record}
                for line in self.lines for record in line.records()]

    @property
    def notes(self) -> list[str]:
        """The notes printed under the table."""
        return list(self.options["notes"])

    def _request(self, digits: int, explain: bool = False) -> CompareRequest:
        return CompareRequest(files=self.labels, confidence=self.options["confidence"],
                              digits=digits, matched_by=self.options["id"],
                              clusters=self.options["clusters"], short=self.options["short"],
                              shared=self.options["shared"], adjust=self.options["adjust"],
                              notes=tuple(self.notes), explain=explain,
                              cost_difference=self.cost_difference,
                              cost_line=None if self.cost_difference is None
                              else difference_line(self.cost_difference))

    def render(self, format: str = "table", digits: int = 3,  # noqa: A002
               explain: bool = False) -> str:
        """The comparison as ``kpass compare --format FORMAT`` prints it.

        Args:
            format: ``table``, ``markdown``, ``csv`` or ``json``.
            digits: decimals of table, Markdown and verdict lines.
            explain: add the full columns, notes, what pairing bought and the legend
                (``kpass compare --explain``).

        Raises:
            ValueError: an unknown format or a bad ``digits``.
        """
        check_choice(format, "format", RENDERERS)
        if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or not (
                0 <= digits <= 12):
            raise InputError(f"`digits` must be an int in [0, 12]; got {_show(digits)}")
        if not isinstance(explain, bool):
            raise ArgumentTypeError(f"`explain` must be a bool; got {_show(explain)}")
        return RENDERERS[format](self.lines, list(self.labels), self.questions,
                                 self._request(int(digits), explain))

    def __str__(self) -> str:
        return self.render("table")


def _counts(value: Any, name: str) -> BinaryCounts:
    if isinstance(value, BinaryCounts):
        return value
    from .._core.counting.inputs import binary_counts

    try:
        return binary_counts(value)
    except (TypeError, ValueError) as error:
        raise type(error)(f"`{name}`: {error}") from None


def _ks(k: Any) -> list[int] | None:
    if k is None:
        return None
    values = [k] if not isinstance(k, (Sequence, np.ndarray)) or isinstance(k, str) else list(k)
    if not values or any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
                         or v < 1 for v in values):
        raise ArgumentTypeError(f"`k` must be a positive int or a non-empty sequence of them; "
                                f"got {_show(k)}")
    return sorted({int(v) for v in values})


def _taus(tau: Any) -> list[float]:
    values = [tau] if not isinstance(tau, (Sequence, np.ndarray)) or isinstance(tau, str) \
        else list(tau)
    if not values or any(isinstance(v, (bool, np.bool_, str)) or not isinstance(
            v, (int, float, np.integer, np.floating)) or not 0.0 <= float(v) <= 1.0
            for v in values):
        raise ArgumentTypeError(f"`tau` must be a number in [0, 1] or a non-empty sequence of "
                                f"them; got {_show(tau)}")
    return [float(v) + 0.0 for v in values]


def compare_table(a: Any, b: Any, *, metrics: Any = None,
                  k: int | Sequence[int] | None = None, tau: float | Sequence[float] = 0.5,
                  confidence: float = 0.95, clusters: Sequence[Any] | None = None,
                  shared: bool = False, primary: str | None = None, adjust: str = "max-t",
                  short: str = "error", margin: float | None = None,
                  equivalence: bool = False, cost_a: Sequence[float] | None = None,
                  cost_b: Sequence[float] | None = None) -> CompareTable:
    r"""The ``kpass compare`` table from counts: the same rows and verdicts, rendered the same.

    Rows equal on every question for both runs are one row carrying all their names; rows
    constant by definition (mG-Pass@1, GeoSpectrum*@1) are left out with a note. The
    primary row is tested alone at alpha = 1 - confidence; the other rows are secondary,
    adjusted jointly by the studentised max-T stepdown over the same sign flips of the
    per-question differences (or cluster totals) for every row
    (:func:`kpass.stats.multiplicity.maxt_stepdown`), or by Holm. Each row carries
    ``p_adjusted`` (the p its verdict uses) and ``verdict``.

    Args:
        a: model A's :class:`kpass.BinaryCounts` (with ids to match by id), or anything
            :func:`kpass.binary_counts` takes.
        b: model B's, on the same questions.
        metrics: metric names as ``--metrics`` takes them, or point functions
            (``kpass.pass_at_k``), one or a list; None for the defaults.
        k: one k or several; None for the default ladder.
        tau: G-Pass@k threshold(s).
        confidence: level of the intervals; alpha = 1 - confidence for the verdicts.
        clusters: a label per question of ``a`` (in its order) for clustered SEs, with the
            sign flips applied to whole clusters.
        shared: True to compare on the questions both carry (ids needed).
        primary: the primary row: a label as the table prints it (``"Pass@1"``,
            ``"G-Pass@4_0.5"``) or ``"METRIC:K"`` (``"pass@k:1"``); None for the first
            row (Pass@1 by default); ``"none"``: no primary row, every row adjusted
            jointly (the whole table then holds alpha).
        adjust: ``"max-t"`` (default) or ``"holm"`` for the secondary rows.
        short: ``"error"`` or ``"skip"`` (questions with fewer than k samples).
        margin: a non-inferiority margin in (0, 1) (``--margin``): every row tests "b (the
            new model) is not worse than a by more than ``margin``"; verdicts ``"shown"``
            / ``"not shown"`` (:func:`kpass.report.compare_rows.judge`).
        equivalence: with ``margin``, every row tests |a - b| < margin (``--equivalence``).
        cost_a: A's mean cost of one sample of each question (in ``a``'s order; tokens or
            money, >= 0), with ``cost_b``: adds A - B of the cost per question and per solved
            question, paired over the compared questions (``kpass compare --cost``;
            :func:`kpass.cost_difference`, at k = 1).
        cost_b: B's, in ``b``'s order.

    Returns:
        A :class:`CompareTable`: ``.rows`` the rows as dicts (primary first),
        ``.cost_difference`` the cost differences (with ``cost_a`` and ``cost_b``),
        ``str()`` the terminal table, ``.render(format)`` Markdown, CSV or JSON.

    Raises:
        TypeError / ValueError: bad counts or options, naming the argument.

    Example:
        >>> import kpass, warnings
        >>> A = kpass.BinaryCounts([4] * 5, [3, 1, 4, 1, 3])
        >>> B = kpass.BinaryCounts([4] * 5, [2, 0, 4, 1, 1])
        >>> table = kpass.compare_table(A, B, metrics="pass@k", k=[1, 4])
        >>> [(row["label"], row["role"], round(row["p_adjusted"], 3)) for row in table.rows]
        [('Pass@1', 'primary', 0.099), ('Pass@4', 'secondary', 1.0)]
        >>> table.rows[0]["verdict"]
        'no detectable difference'
    """
    from ..stats.multiplicity import ADJUSTMENTS

    checked = check_options(confidence=confidence, shared=shared, clusters=clusters)
    confidence, shared = checked["confidence"], checked["shared"]
    check_choice(adjust, "adjust", ADJUSTMENTS)
    if primary is not None and not isinstance(primary, str):
        raise ArgumentTypeError(f"`primary` must be a row name (str) or None; got "
                                f"{_show(primary)}")
    short = check_short(short)
    margin = check_margin(margin, equivalence)
    text = check_names(metric_names(metrics))
    try:
        families = [fam for fam in parse_metrics(text) if not fam.answers]
    except ValueError as error:
        raise InputError(f"`metrics`: {error}".replace("`--metrics` ", "")) from None
    if not families:
        raise InputError("`metrics` names only answer-scored metrics (vote@k), which need the "
                         "answers: use kpass.compare(kpass.vote_at_k, ...)")
    first, second = _counts(a, "a"), _counts(b, "b")
    ks = _ks(k)
    taus = _taus(tau)
    n_min = min(int(first.n_samples.min()), int(second.n_samples.min()))
    ks = default_ks(n_min) if ks is None else ks
    notes: list[str] = []
    m = first.n_questions
    if first.ids is None:
        notes.append("rows were paired by order (no ids): row q of a and row q of b must be the "
                      "same question; give BinaryCounts(..., ids=...) to match them by id")
    elif shared and second.ids is not None:
        m = len(set(first.ids) & set(second.ids))
    try:
        lines = compare_lines(first, second, families, ks, taus, confidence, short,
                              None if clusters is None else list(clusters), notes=notes,
                              shared=bool(shared), primary=primary, adjust=adjust,
                              margin=margin, equivalence=bool(equivalence))
    except ValueError as error:  # speak the argument's name, not the flag's
        raise InputError(str(error).replace("--primary ", "`primary` ")) from None
    costs = None
    if (cost_a is None) != (cost_b is None):
        raise InputError("give both `cost_a` and `cost_b` (each model's cost per sample of "
                         "each question), or neither")
    if cost_a is not None and cost_b is not None:
        for name, values in (("cost_a", cost_a), ("cost_b", cost_b)):
            bad = [v for v in np.ravel(np.asarray(values, dtype=object))
                   if isinstance(v, (bool, np.bool_)) or
                   not isinstance(v, (int, float, np.integer, np.floating))]
            if bad:
                raise ArgumentTypeError(f"`{name}` must hold numbers (a cost per question); "
                                        f"got {_show(bad[0])}")
        try:
            costs = cost_difference(first, second, cost_a, cost_b, confidence=confidence,
                                    shared=bool(shared))
        except ValueError as error:
            raise InputError(str(error)) from None
    options = {"confidence": confidence, "clusters": None if clusters is None else "clusters",
               "shared": bool(shared), "adjust": adjust, "short": short,
               "id": None if first.ids is None else "question id",
               "notes": [cli_words(note) for note in notes]}
    return CompareTable(lines, ("a", "b"), m, options, costs)


__all__ = ["CompareTable", "compare_table"]
