"""``kpass leaderboard --group COLUMN``: each model's estimate and joint rank set per group.

The aggregate boards are the leaderboard's own, over all questions. Below them, for the
first board's metric and k only, each group's questions (each model's own ``--group``
labels) are ranked alone by :func:`kpass.report.leaderboard.leaderboard_boards`: one line
per group with each model's estimate and its joint rank set within the group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..io.errors import ReportError

__all__ = ["GroupBoards", "group_boards", "group_board_lines"]


@dataclass(frozen=True)
class GroupBoards:
    """The first board's metric and k, ranked within each group.

    Attributes:
        column: the group column (``--group``).
        label: the board's row name (``Pass@1``).
        groups: the group labels, sorted.
        boards: each group's :class:`kpass.report.leaderboard.Board`.
    """

    column: str
    label: str
    groups: tuple[Any, ...]
    boards: tuple[Any, ...]

    def records(self) -> list[dict[str, Any]]:
        """One JSON/CSV record per group and model."""
        return [{"group": group, "metric": board.metric, "label": board.label, "k": board.k,
                 "tau": board.tau, "questions": board.result.questions,
                 "confidence": board.result.confidence, **row.as_dict()}
                for group, board in zip(self.groups, self.boards, strict=True)
                for row in board.result.rows]


def group_boards(loaded: list[Any], names: list[str], first: Any, family: Any, column: str,
                 confidence: float, short: str, shared: bool, prior: str,
                 boards_of: Callable[..., list[Any]]) -> GroupBoards:
    """Rank the models on each group's questions alone, at ``first``'s metric, k and tau.

    ``boards_of`` is :func:`kpass.report.leaderboard.leaderboard_boards` (passed in: that
    module imports this one).

    Raises:
        ReportError: a model without labels, or fewer than 2 groups.
    """
    for item in loaded:
        if item.groups is None:
            raise ReportError(item.source, f"--group {column}: no group labels were read")
    labels = sorted({label for item in loaded for label in item.groups},
                    key=lambda label: (str(type(label)), label))
    if len(labels) < 2:
        raise ReportError(loaded[0].source, f"--group {column}: every question is in group "
                                            f"{labels[0]!r}; a breakdown needs at least 2 "
                                            "groups")
    boards = []
    for group in labels:
        runs = {name: item.counts.select(np.asarray([label == group for label in item.groups]))
                for name, item in zip(names, loaded, strict=True)}
        try:
            board, = boards_of(runs, [family], [first.k] if first.k else [1],
                                        [first.tau] if first.tau is not None else [0.5],
                                        confidence, short, None, shared, prior)[:1]
        except ValueError as error:
            raise ReportError(f"--group {column} = {group}", str(error)) from None
        boards.append(board)
    return GroupBoards(column, first.label, tuple(labels), tuple(boards))


def group_board_lines(grouped: GroupBoards, names: list[str], digits: int,
                      markdown: bool = False) -> list[str]:
    """One line per group: questions, then each model's estimate and joint rank set."""
    header = ["group", "questions", *names]
    body = []
    for group, board in zip(grouped.groups, grouped.boards, strict=True):
        rows = {row.name: row for row in board.result.rows}
        cells = [str(group), str(board.result.questions)]
        for name in names:
            row = rows[name]
            ranks = (str(row.rank_lo) if row.rank_lo == row.rank_hi
                     else f"{row.rank_lo}-{row.rank_hi}")
            cells.append(f"{row.estimate:.{digits}f} ({ranks})")
        body.append(cells)
    title = (f"by {grouped.column}, {grouped.label} only: each model's estimate (its joint "
             "rank set within the group):")
    if markdown:
        align = [":---"] + ["---:"] * (len(header) - 1)
        return [title, "", "| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |",
                *("| " + " | ".join(cells) + " |" for cells in body)]
    widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
    return [title] + ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                                for i, cell in enumerate(cells)).rstrip()
                      for cells in [header] + body]
