"""``--cost COLUMN`` and ``--cost-per-1k-tokens X``: what a model costs, beside what it scores.

Each question's mean cost of one sample, x_i, comes from a long file's cost column
(``--cost COLUMN``, read with ``--id``; times the price per 1k tokens when one is given, the
column then counting tokens) or from an Inspect log's per-sample token usage times
``--cost-per-1k-tokens``: ``X`` prices every token the log counts (its total), ``IN,OUT``
its input and output tokens apart, as providers bill them. The numbers are
:func:`kpass.stats.cost.cost_summary`'s (cost per question and per solved question, with
intervals over questions), on the leaderboard :func:`kpass.stats.cost.cost_front`'s and in
``kpass compare`` :func:`kpass.stats.cost.cost_difference`'s (A - B, paired, as compare's
difference).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from ..stats.cost import CostDifference, CostSummary, cost_summary

__all__ = ["add_cost_options", "board_costs", "cost_ks", "cost_lines",
           "cost_summaries", "cost_unit", "difference_line", "difference_records",
           "question_costs", "summary_records", "wants_cost"]


def _price(text: str) -> tuple[float, float]:
    """``X`` (one price for every token) or ``IN,OUT`` (input and output tokens apart)."""
    parts = text.split(",")
    try:
        values = [float(part) for part in parts]
    except ValueError:
        values = []
    if len(parts) not in (1, 2) or len(values) != len(parts) or not all(
            0 < value < float("inf") for value in values):
        raise argparse.ArgumentTypeError(f"expected a price per 1k tokens, X or IN,OUT (finite "
                                         f"numbers > 0); got {text!r}")
    return (values[0], values[-1])


def _shown(price: tuple[float, float]) -> str:
    return f"{price[0]:g}" if price[0] == price[1] else f"{price[0]:g} in, {price[1]:g} out"


def add_cost_options(command: argparse.ArgumentParser) -> None:
    """``--cost COLUMN`` and ``--cost-per-1k-tokens X`` (report, compare and leaderboard)."""
    command.add_argument("--cost", metavar="COLUMN",
                         help="a long file's cost of each sample (with --id; tokens when "
                              "--cost-per-1k-tokens is given too): adds the cost per "
                              "question and per solved question, with intervals")
    command.add_argument("--cost-per-1k-tokens", type=_price, metavar="X|IN,OUT",
                         help="price of 1,000 tokens (X for every token, or IN,OUT for input "
                              "and output tokens apart): the cost of an Inspect log's "
                              "samples from their token usage, or of --cost's token counts")


def wants_cost(args: argparse.Namespace) -> bool:
    """Whether the command line asks for costs."""
    return getattr(args, "cost", None) is not None or getattr(
        args, "cost_per_1k_tokens", None) is not None


def question_costs(item: LoadedFile, args: argparse.Namespace) -> np.ndarray:
    """Each question's mean cost of one sample (in the order of ``item.counts``).

    A ``--cost`` column was read with the counts, in the same scan (per model under
    ``--by COLUMN``: :attr:`kpass.io.long.load.LongFile.costs`); token usage comes from an
    Inspect log.

    Raises:
        ReportError: ``--cost`` without ``--id``, IN,OUT prices for a token column, or an
            input with no cost (no ``--cost`` column and no token usage recorded).
    """
    price = getattr(args, "cost_per_1k_tokens", None)
    column = getattr(args, "cost", None)
    if column is not None:
        costs = getattr(item, "costs", None)
        if costs is None:  # read by the long readers with the counts (InputOptions.cost)
            raise ReportError(item.source, f"--cost {column} needs --id COLUMN (the costs "
                                           "are averaged over each question's rows)")
        if price is not None and price[0] != price[1]:
            raise ReportError(item.source, f"--cost {column} counts tokens of one kind: give "
                                           "one price (--cost-per-1k-tokens X), not IN,OUT")
        scale = 1.0 if price is None else price[0] / 1000.0
        return scale * np.asarray(costs, dtype=float)
    usage = getattr(item, "usage", None)
    if usage is None or price is None:
        raise ReportError(item.source, "no token usage recorded for its samples: "
                                       "--cost-per-1k-tokens prices an Inspect log's "
                                       "per-sample usage; give a long file's cost column "
                                       "with --cost COLUMN")
    tokens = np.asarray(usage, dtype=float)
    if price[0] == price[1]:  # one price: every token the log counts (its total)
        spent = price[0] * tokens[:, 2]
    else:
        spent = price[0] * tokens[:, 0] + price[1] * tokens[:, 1]
    return spent / 1000.0 / item.counts.n_samples


def cost_ks(counts: Any, ks: list[int]) -> list[int]:
    """The ks a report's costs are given at: 1 and the largest of ``ks`` every question has."""
    n_min = int(counts.n_samples.min())
    return sorted({1, *[k for k in ks if k <= n_min][-1:]})


def cost_summaries(item: LoadedFile, costs: np.ndarray, ks: list[int], confidence: float
                   ) -> list[CostSummary]:
    """The cost summary at k = 1 and at the largest k (when above 1) the questions allow."""
    try:
        return [cost_summary(item.counts.n_samples, item.counts.n_correct, costs, k,
                             confidence) for k in cost_ks(item.counts, ks)]
    except ValueError as error:
        raise ReportError(item.source, f"cost: {error}") from None


def _number(value: float) -> str:
    return f"{value:.4g}"  # inf and -inf as they are


def cost_unit(args: argparse.Namespace) -> str:
    """What the costs are: ``at 3 in, 15 out per 1k tokens``, ```usd```, ```tokens` x 2 / 1k``."""
    price = getattr(args, "cost_per_1k_tokens", None)
    return (f"at {_shown(price)} per 1k tokens" if price is not None and args.cost is None else
            f"`{args.cost}` x {_shown(price)} / 1k" if price is not None else f"`{args.cost}`")


def cost_lines(labels: list[str], summaries: list[list[CostSummary]], unit: str = ""
               ) -> list[str]:
    """One line per input and k: cost per question and per solved question, intervals.

    ``unit`` says what the costs are (:func:`cost_unit`; empty: not said).
    """
    level = f"{summaries[0][0].confidence * 100:g}%" if summaries and summaries[0] else ""
    out = [f"cost ({f'{unit}; ' if unit else ''}{level} intervals over questions):"]
    for label, rows in zip(labels, summaries, strict=True):
        for row in rows:
            samples = f"{row.k} sample{'s' * (row.k != 1)}"
            out.append(f"  {label}: per question ({samples}) {_number(row.cost)} "
                       f"[{_number(row.cost_lo)}, {_number(row.cost_hi)}]; per solved "
                       f"question (Pass@{row.k}) {_number(row.per_solved)} "
                       f"[{_number(row.per_solved_lo)}, {_number(row.per_solved_hi)}]")
    return out


def board_costs(names: list[str], counts: list[Any], costs: list[np.ndarray], function: str,
                k: int | None, confidence: float, shared: bool) -> dict[str, Any]:
    """One leaderboard's cost view: each model's cost summary and the cost front.

    The questions are aligned as the leaderboard aligns them (by id, ``--shared`` keeping
    those every model has); the metric's per-question values and each question's cost of
    k samples (k x the mean cost of one) feed :func:`kpass.stats.cost.cost_front`.

    Returns:
        ``{"cost": {name: CostSummary}, "front": CostFront}``.
    """
    from ..families import function as metric_function
    from ..stats.align import align_runs
    from ..stats.cost import cost_front

    aligned = align_runs(counts, [f"'{name}'" for name in names], shared=shared, verb="rank")
    point = metric_function(function)
    size = 1 if k is None else k
    values: dict[str, Any] = {}
    per_question: dict[str, Any] = {}
    summaries: dict[str, CostSummary] = {}
    for index, name in enumerate(names):
        run = aligned.runs[index]
        cost = np.asarray(aligned.take(index, list(costs[index])), dtype=float)
        values[name] = (point(run, per_question=True) if k is None
                        else point(run, k, per_question=True))
        per_question[name] = size * cost
        summaries[name] = cost_summary(run.n_samples, run.n_correct, cost, size, confidence)
    return {"cost": summaries, "front": cost_front(values, per_question, confidence)}


def _signed(value: float | None) -> str:
    """An estimate with its sign (+0.012), an interval's end without (-inf, 0.3, inf)."""
    return "n/a" if value is None else f"{value:+.4g}"


def difference_line(differences: tuple[CostDifference, CostDifference], unit: str = "") -> str:
    """``kpass compare``'s one cost line: A - B per question and per solved question.

    ``unit`` says what the costs are (:func:`cost_unit`; empty: not said). The differences
    carry a sign (+: A costs more); an unbounded end is -inf or inf.

    Example:
        >>> from kpass import BinaryCounts, cost_difference
        >>> found = cost_difference(BinaryCounts([2] * 3, [2, 1, 1]),
        ...                         BinaryCounts([2] * 3, [2, 2, 1]), [1.0, 2.0, 3.0],
        ...                         [2.0, 2.0, 5.0])
        >>> for part in difference_line(found, "`usd`").split("; "):
        ...     print(part)
        cost A - B (`usd`
        95% intervals): per question (1 sample) -1 [-3.484, 1.484]
        per solved question (Pass@1) -0.6 [-inf, inf]
    """
    cost, solved = differences
    level = f"{cost.confidence * 100:g}% intervals"
    samples = f"{cost.k} sample{'s' * (cost.k != 1)}"
    return (f"cost A - B ({f'{unit}; ' if unit else ''}{level}): per question ({samples}) "
            f"{_signed(cost.difference)} [{_number(cost.lo)}, {_number(cost.hi)}]; per solved "
            f"question (Pass@{solved.k}) {_signed(solved.difference)} [{_number(solved.lo)}, "
            f"{_number(solved.hi)}]")


def difference_records(differences: Any, labels: list[str] | tuple[str, ...]
                 ) -> list[dict[str, Any]]:
    """``kpass compare``'s cost differences as CSV records: per question, then per solved.

    Each is :class:`kpass.CostDifference`'s fields (``quantity`` ``cost`` or ``per_solved``;
    ``a``, ``b``, ``difference`` = A - B, ``se``, ``lo``, ``hi``; an unbounded end -inf or inf,
    a difference that does not exist None) under the files' names, with the ``label`` of the
    table's cost line. None: no records.
    """
    if differences is None:
        return []
    out = []
    for row in differences:
        what = (f"cost per question ({row.k} sample{'s' * (row.k != 1)})"
                if row.quantity == "cost" else f"cost per solved question (Pass@{row.k})")
        out.append({"a_file": labels[0], "b_file": labels[1], "label": what,
                    **{key: getattr(row, key) for key in row.__dataclass_fields__}})
    return out


def summary_records(labels: list[str], summaries: list[list[CostSummary]] | None,
                    key: str = "file") -> list[dict[str, Any]]:
    """``kpass report``'s cost summaries as CSV records, in the metric lines' columns.

    Per input and k, two records: ``quantity`` ``cost`` (the cost per question of k samples)
    and ``per_solved`` (per solved question at Pass@k), each with its ``estimate``, ``se``,
    ``lo`` and ``hi`` (an unbounded end inf; an se that does not exist None), the ``label``
    of the report's cost line, ``k``, ``questions`` and ``confidence``; ``key`` names the
    input's column (``file``, or ``model`` with ``--by``). None: no records.
    """
    out: list[dict[str, Any]] = []
    for label, rows in zip(labels, summaries or [], strict=False):
        for row in rows:
            samples = f"{row.k} sample{'s' * (row.k != 1)}"
            common = {"k": row.k, "questions": row.questions, "confidence": row.confidence}
            out.append({key: label, "label": f"cost per question ({samples})", **common,
                        "estimate": row.cost, "se": row.cost_se, "lo": row.cost_lo,
                        "hi": row.cost_hi, "quantity": "cost"})
            out.append({key: label, "label": f"cost per solved question (Pass@{row.k})",
                        **common, "estimate": row.per_solved, "se": row.per_solved_se,
                        "lo": row.per_solved_lo, "hi": row.per_solved_hi,
                        "quantity": "per_solved"})
    return out
