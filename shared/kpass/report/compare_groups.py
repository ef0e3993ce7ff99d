r"""``kpass compare A B --group COLUMN``: every row's difference broken down by group.

Every row the table shows (primary first) is split by each question's group label (A's
``--group`` column, carried through the pairing by id): its per-question differences
d_q = A's value - B's value (NaN where the row leaves a question out) go to
:func:`kpass.stats.strata.group_difference_rows`, which gives per row the aggregate
(sum_g w_g d_g, its stratified SE) and each group's mean difference. The p-values: the
primary row's aggregate alone (sign flips: the verdict tested at the level), the other
rows' aggregates jointly over those rows, and every row's every group in one min-P
stepdown over all rows x groups (:func:`kpass.stats.multiplicity.minp_stepdown`), so the
family-wise error of the whole breakdown holds whatever the number of rows and groups. A
row without per-question values (a dataset-level metric) is left out of the breakdown,
with a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..io.errors import ReportError
from ..stats.strata import GroupDifference

__all__ = ["GroupComparison", "group_comparison", "group_text"]


@dataclass(frozen=True)
class GroupComparison:
    """The rows of a comparison broken down by group.

    Attributes:
        column: the group column (``--group``).
        weights: the aggregate's weighting, ``"questions"`` or ``"groups"``.
        lines: the broken-down rows (``compare_render.Line``), the primary first.
        rows: per line, the aggregate (``group`` None), then each group (sorted by label).
        a: per line, A's mean per row (the aggregate's: weighted as its difference).
        b: per line, B's mean per row.
        verdicts: per line, each row's verdict at alpha = 1 - confidence.
        left_out: the rows not broken down (no per-question values).
    """

    column: str
    weights: str
    lines: tuple[Any, ...]
    rows: tuple[tuple[GroupDifference, ...], ...]
    a: tuple[tuple[float, ...], ...]
    b: tuple[tuple[float, ...], ...]
    verdicts: tuple[tuple[str, ...], ...]
    left_out: tuple[str, ...] = ()

    def records(self) -> list[dict[str, Any]]:
        """One JSON/CSV record per line and row: the aggregate (``group`` None), then each group."""
        out = []
        for number, line in enumerate(self.lines):
            for index, (row, verdict) in enumerate(zip(self.rows[number], self.verdicts[number],
                                                       strict=True)):
                adjust = ("min-p" if row.group is not None
                          else "max-t" if number > 0 else None)
                out.append({"metric": line.metric, "label": line.label, "k": line.k,
                            "tau": line.tau, "group": row.group, "weights": self.weights,
                            "questions": row.questions, "a": self.a[number][index],
                            "b": self.b[number][index], "difference": row.difference,
                            "se": row.se, "df": row.df, "lo": row.lo, "hi": row.hi,
                            "p_value": row.p_value, "p_adjusted": row.p_value,
                            "adjust": adjust,
                            "role": "aggregate" if row.group is None else "group",
                            "verdict": verdict})
        return out


def _verdict(row: GroupDifference, alpha: float) -> str:
    return ("A better" if row.p_value < alpha and row.difference > 0 else
            "B better" if row.p_value < alpha and row.difference < 0 else
            "no detectable difference")


def group_comparison(lines: list[Any], groups: list[Any], column: str, weights: str,
                     confidence: float) -> GroupComparison:
    """The breakdown of ``lines`` (primary first) by ``groups``.

    ``groups`` holds one label per compared question, in A's order.

    Raises:
        ReportError: the primary row without per-question values (a dataset-level
            metric), labels not one per question, fewer than 2 groups, or a row that
            leaves a group's every question out.
    """
    from ..stats.strata import group_difference_rows

    def usable(line: Any) -> bool:
        values = line.values
        return (values is not None and values.a.size == len(groups)
                and values.units.size == len(groups))

    if not usable(lines[0]):
        raise ReportError(f"--group {column}", f"{lines[0].title} has no per-question "
                                               "difference to break down by group (a "
                                               "dataset-level metric); choose another row "
                                               "with --primary")
    chosen = [line for line in lines if usable(line)]
    left_out = tuple(line.title for line in lines if not usable(line))
    a = np.array([line.values.a for line in chosen], dtype=float)
    b = np.array([line.values.b for line in chosen], dtype=float)
    kept = np.isfinite(a) & np.isfinite(b)
    differences = np.where(kept, a - b, np.nan)
    try:
        rows = group_difference_rows(differences, groups, weights, confidence)
    except ValueError as error:
        raise ReportError(f"--group {column}", str(error)) from None
    names = [row.group for row in rows[0][1:]]
    index = {name: i for i, name in enumerate(names)}
    codes = np.asarray([index[label] for label in groups])
    alpha = 1.0 - confidence
    means_a, means_b, verdicts = [], [], []
    for r in range(len(chosen)):
        sizes = np.bincount(codes[kept[r]], minlength=len(names)).astype(float)
        mean_a = np.bincount(codes[kept[r]], weights=a[r][kept[r]], minlength=len(names)) / sizes
        mean_b = np.bincount(codes[kept[r]], weights=b[r][kept[r]], minlength=len(names)) / sizes
        w = sizes / sizes.sum() if weights == "questions" else np.full(len(names),
                                                                         1 / len(names))
        means_a.append((float(w @ mean_a), *map(float, mean_a)))
        means_b.append((float(w @ mean_b), *map(float, mean_b)))
        verdicts.append(tuple(_verdict(row, alpha) for row in rows[r]))
    return GroupComparison(column, weights, tuple(chosen), tuple(map(tuple, rows)),
                           tuple(means_a), tuple(means_b), tuple(verdicts), left_out)


def group_text(breakdown: GroupComparison, digits: int, confidence: float,
               markdown: bool = False, percent: bool = False) -> list[str]:
    """The breakdown under the compare table: the primary row in full, then the other rows.

    The primary row: the aggregate first, then one line per group (A, B, A - B, interval,
    p, verdict). The other rows: one line each, its aggregate and every group's A - B,
    marked ``A`` / ``B`` where that model is better (the verdicts of the joint p). With
    ``percent`` the values, differences and interval ends are x 100 (p stays a
    probability), as the table above them.
    """
    from .groups import weights_phrase

    scale = 100.0 if percent else 1.0

    def number(value: float | None) -> str:
        return "n/a" if value is None else f"{scale * value:.{digits}f}"

    def p(value: float) -> str:
        return "<0.001" if value < 0.001 else f"{value:.3f}"

    groups = len(breakdown.rows[0]) - 1
    lines = len(breakdown.lines)
    level = f"{100 * confidence:g}% interval"
    header = ["group", "questions", "A", "B", "A - B", level, "p", "verdict"]
    body = []
    for index, row in enumerate(breakdown.rows[0]):
        interval = ("n/a" if row.lo is None or row.hi is None
                    else f"[{number(row.lo)}, {number(row.hi)}]")
        body.append(["(aggregate)" if row.group is None else str(row.group),
                     str(row.questions), number(breakdown.a[0][index]),
                     number(breakdown.b[0][index]), number(row.difference), interval,
                     p(row.p_value), breakdown.verdicts[0][index]])
    family = f"{groups} groups" + (f" x {lines} rows" if lines > 1 else "")
    title = [f"by {breakdown.column}, {breakdown.lines[0].label}"
             + (" only" if lines == 1 else " (the primary row)")
             + f"; the aggregate: {weights_phrase(breakdown.weights)}",
             "p: the aggregate's alone (sign flips), each group's adjusted jointly over the "
             f"{family} (min-P stepdown):"]
    tables = [(header, body, [":---", "---:", "---:", "---:", "---:", ":---", "---:", ":---"],
               {0, 5, 7})]
    if lines > 1:
        names = [str(row.group) for row in breakdown.rows[0][1:]]
        other_header = ["row", "(aggregate)", *names]
        other_body = []
        for number_, line in enumerate(breakdown.lines[1:], start=1):
            cells = [line.label]
            for row, verdict in zip(breakdown.rows[number_], breakdown.verdicts[number_],
                                    strict=True):
                mark = {"A better": " A", "B better": " B"}.get(verdict, "")
                cells.append(number(row.difference) + mark)
            other_body.append(cells)
        title_other = ("the other rows, A - B (A, B: that model better; p adjusted "
                       "jointly as above):")
        tables.append((other_header, other_body, [":---"] + ["---:"] * (len(names) + 1),
                       {0}))
    out: list[str] = []
    for number_, (head, rows_, align, left) in enumerate(tables):
        if number_ == 0:
            out += ([f"{title[0]}  ", title[1], ""] if markdown else list(title))
        else:
            out += ["", title_other] + ([""] if markdown else [])
        if markdown:
            out += ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |",
                    *("| " + " | ".join(cells) + " |" for cells in rows_)]
            continue
        widths = [max(len(cells[i]) for cells in [head] + rows_) for i in range(len(head))]
        out += ["  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
                          for i, cell in enumerate(cells)).rstrip()
                for cells in [head] + rows_]
    if breakdown.left_out:
        out += ["", f"not broken down (no per-question values): "
                    f"{', '.join(breakdown.left_out)}"]
    return out
