r"""``kpass compare A B --group COLUMN``: the primary row's difference broken down by group.

The primary row (the first row ``kpass compare`` shows, or ``--primary``) is split by each
question's group label (A's ``--group`` column, carried through the pairing by id): its
per-question differences d_q = A's value - B's value go to
:func:`kpass.stats.strata.group_differences`, which gives the aggregate first (sum_g w_g d_g,
its stratified SE, and the sign-flip p of the aggregate alone: the verdict tested at the
level) and then each group's mean difference with its p adjusted jointly over the groups
(the studentised max-T stepdown), so the family-wise error over the groups holds whatever
their number. Only the primary row is broken down (one metric at one k).
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
    """The primary row of a comparison broken down by group.

    Attributes:
        column: the group column (``--group``).
        weights: the aggregate's weighting, ``"questions"`` or ``"groups"``.
        line: the broken-down row (the primary).
        rows: the aggregate (``group`` None), then each group (sorted by label).
        a: A's mean per row (the aggregate's: weighted as its difference).
        b: B's mean per row.
        verdicts: each row's verdict at alpha = 1 - confidence.
    """

    column: str
    weights: str
    line: Any  # the compare_render.Line broken down
    rows: tuple[GroupDifference, ...]
    a: tuple[float, ...]
    b: tuple[float, ...]
    verdicts: tuple[str, ...]

    def records(self) -> list[dict[str, Any]]:
        """One JSON/CSV record per row: the aggregate (``group`` None), then each group."""
        out = []
        for index, (row, verdict) in enumerate(zip(self.rows, self.verdicts, strict=True)):
            out.append({"metric": self.line.metric, "label": self.line.label, "k": self.line.k,
                        "tau": self.line.tau, "group": row.group, "weights": self.weights,
                        "questions": row.questions, "a": self.a[index], "b": self.b[index],
                        "difference": row.difference, "se": row.se, "df": row.df,
                        "lo": row.lo, "hi": row.hi, "p_value": row.p_value,
                        "p_adjusted": row.p_value,
                        "adjust": None if row.group is None else "max-t",
                        "role": "aggregate" if row.group is None else "group",
                        "verdict": verdict})
        return out


def group_comparison(line: Any, groups: list[Any], column: str, weights: str,
                     confidence: float) -> GroupComparison:
    """The breakdown of ``line`` by ``groups`` (one label per compared question, A's order).

    Questions a row leaves out (``--short skip``: NaN values) are left out of every group.

    Raises:
        ReportError: a row without per-question values (a dataset-level metric), labels
            not one per question, or fewer than 2 groups among the compared questions.
    """
    from ..stats.strata import group_differences

    values = line.values
    if values is None or values.a.size != len(groups) or values.units.size != len(groups):
        raise ReportError(f"--group {column}", f"{line.title} has no per-question difference "
                                               "to break down by group (a dataset-level "
                                               "metric); choose another row with --primary")
    used = np.isfinite(values.a) & np.isfinite(values.b)
    a, b = values.a[used], values.b[used]
    labels = [label for label, keep in zip(groups, used, strict=True) if keep]
    try:
        rows = group_differences(a - b, labels, weights, confidence)
    except ValueError as error:
        raise ReportError(f"--group {column}", str(error)) from None
    names = [row.group for row in rows[1:]]
    codes = np.asarray([names.index(label) for label in labels])
    sizes = np.bincount(codes, minlength=len(names)).astype(float)
    mean_a = np.bincount(codes, weights=a, minlength=len(names)) / sizes
    mean_b = np.bincount(codes, weights=b, minlength=len(names)) / sizes
    w = sizes / sizes.sum() if weights == "questions" else np.full(len(names), 1 / len(names))
    alpha = 1.0 - confidence
    verdicts = tuple("A better" if row.p_value < alpha and row.difference > 0 else
                     "B better" if row.p_value < alpha and row.difference < 0 else
                     "no detectable difference" for row in rows)
    return GroupComparison(column, weights, line, tuple(rows),
                           (float(w @ mean_a), *map(float, mean_a)),
                           (float(w @ mean_b), *map(float, mean_b)), verdicts)


def group_text(breakdown: GroupComparison, digits: int, confidence: float,
               markdown: bool = False, percent: bool = False) -> list[str]:
    """The breakdown's lines under the compare table: the aggregate first, then each group.

    With ``percent`` the values, differences and interval ends are x 100 (p stays a
    probability), as the table above them.
    """
    from .groups import weights_phrase

    scale = 100.0 if percent else 1.0

    def number(value: float | None) -> str:
        return "n/a" if value is None else f"{scale * value:.{digits}f}"

    def p(value: float) -> str:
        return "<0.001" if value < 0.001 else f"{value:.3f}"

    level = f"{100 * confidence:g}% interval"
    header = ["group", "questions", "A", "B", "A - B", level, "p", "verdict"]
    body = []
    for index, row in enumerate(breakdown.rows):
        interval = ("n/a" if row.lo is None or row.hi is None
                    else f"[{number(row.lo)}, {number(row.hi)}]")
        body.append(["(aggregate)" if row.group is None else str(row.group),
                     str(row.questions), number(breakdown.a[index]), number(breakdown.b[index]),
                     number(row.difference), interval, p(row.p_value),
                     breakdown.verdicts[index]])
    title = [f"by {breakdown.column}, {breakdown.line.label} only; the aggregate: "
             f"{weights_phrase(breakdown.weights)}",
             "p: the aggregate's alone (sign flips), each group's adjusted jointly over the "
             f"{len(breakdown.rows) - 1} groups (max-T stepdown):"]
    if markdown:
        align = [":---", "---:", "---:", "---:", "---:", ":---", "---:", ":---"]
        return [f"{title[0]}  ", title[1], "", "| " + " | ".join(header) + " |",
                "| " + " | ".join(align) + " |",
                *("| " + " | ".join(cells) + " |" for cells in body)]
    widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
    left = {0, 5, 7}
    return title + ["  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
                                for i, cell in enumerate(cells)).rstrip()
                      for cells in [header] + body]
