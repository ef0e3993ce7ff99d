"""``kpass leaderboard --group COLUMN``: each model's estimate and rank set per group.

The aggregate boards are the leaderboard's own with the groups as strata
(``kpass.leaderboard(..., group=, weights=)``: each question counts once, micro, or each
group once, macro; the SE stratified). Below them, every board's metric and k is ranked
on each group's questions alone (each model's own ``--group`` labels; harness logs: their
task), and the rank sets of every group and every board hold jointly
(:func:`kpass.stats.ranking.group_leaderboards`: one min-P stepdown over all their pairs),
so the whole breakdown holds at the level: one line per group and board with each model's
estimate and its rank set.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..io.errors import ReportError

__all__ = ["GroupBoards", "group_board_lines", "group_boards", "group_masks"]


@dataclass(frozen=True)
class GroupBoards:
    """Every board ranked within each group, the rank sets joint over groups and boards.

    Attributes:
        column: the group column (``--group``).
        groups: the group labels, sorted.
        boards: per group, its boards (in the order of the aggregate boards); each a
            :class:`kpass.report.leaderboard.Board`.
        adjustment: ``"min-p"`` or ``"holm"`` (the joint stepdown).
        weights: the aggregate's weighting, ``"questions"`` or ``"groups"``.
    """

    column: str
    groups: tuple[Any, ...]
    boards: tuple[tuple[Any, ...], ...]
    adjustment: str = "min-p"
    weights: str = "questions"

    def records(self) -> list[dict[str, Any]]:
        """One JSON/CSV record per group, board and model."""
        return [{"group": group, "metric": board.metric, "label": board.label, "k": board.k,
                 "tau": board.tau, "questions": board.result.questions,
                 "confidence": board.result.confidence, **row.as_dict()}
                for group, boards in zip(self.groups, self.boards, strict=True)
                for board in boards for row in board.result.rows]


def group_masks(loaded: list[Any], names: list[str], column: str
                ) -> tuple[list[Any], dict[Any, list[np.ndarray]]]:
    """The group labels (sorted) and, per group, each model's mask of its questions.

    Raises:
        ReportError: a model without labels, fewer than 2 groups, a group some model has
            no question in.
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
    masks: dict[Any, list[np.ndarray]] = {}
    for group in labels:
        masks[group] = []
        for name, item in zip(names, loaded, strict=True):
            mask = np.asarray([label == group for label in item.groups])
            if not mask.any():
                raise ReportError(f"--group {column} = {group}", f"model {name} has no "
                                  "question in this group; every model must answer every "
                                  "group to be ranked in it")
            masks[group].append(mask)
    return labels, masks


def group_boards(loaded: list[Any], names: list[str], boards: list[Any], families: list[Any],
                 column: str, confidence: float, short: str, shared: bool, prior: str,
                 weights: str = "questions") -> GroupBoards:
    """Rank the models on each group's questions alone at every board's metric, k and tau.

    Raises:
        ReportError: a model without labels, fewer than 2 groups, a group some model has
            no question in, or what the ranking refuses (naming the group).
    """
    from ..families import function
    from ..stats.ranking import group_leaderboards
    from .output import family_options

    labels, masks = group_masks(loaded, names, column)
    strata = {group: {name: item.counts.select(mask)
                      for name, item, mask in zip(names, loaded, masks[group], strict=True)}
              for group in labels}
    calls, shapes = [], []
    for fam in families:  # the rows of the aggregate boards, in their order
        mine = [board for board in boards if board.metric == fam.key]
        if not mine:
            continue
        options = family_options(fam.function, None, confidence, shared, prior)
        kwargs = {key: value for key, value in options.items()
                  if key not in ("clusters", "confidence", "shared")}
        if fam.per_k and short != "error":
            kwargs["short"] = short
        point = function(fam.function)
        if not fam.per_k:
            calls.append((point, (), kwargs))
            shapes.append(mine[:1])
            continue
        for tau in dict.fromkeys(board.tau for board in mine):
            those = [board for board in mine if board.tau == tau]
            head = () if tau is None else (tau,)
            calls.append((point, ([board.k for board in those], *head), kwargs))
            shapes.append(those)
    try:
        ranked = group_leaderboards(calls, strata, confidence=confidence, shared=shared,
                                    prior=prior)
    except (TypeError, ValueError) as error:
        raise ReportError(f"--group {column}", str(error)) from None
    template = [board for shape in shapes for board in shape]
    out = tuple(tuple(replace(board, result=result, costs=None)
                      for board, result in zip(template, ranked[group], strict=True))
                for group in labels)
    adjustment = out[0][0].result.adjustment if out and out[0] else "min-p"
    return GroupBoards(column, tuple(labels), out, adjustment, weights)


def group_board_lines(grouped: GroupBoards, names: list[str], digits: int,
                      markdown: bool = False) -> list[str]:
    """One line per board and group: questions, then each model's estimate and rank set."""
    from .groups import weights_phrase

    rows = len(grouped.boards[0])
    how = ("min-P stepdown" if grouped.adjustment == "min-p" else "Holm")
    title = [f"by {grouped.column}: each model's estimate (rank set); the aggregate above: "
             f"{weights_phrase(grouped.weights)}, its SE stratified by group",
             f"rank sets joint over the {len(grouped.groups)} groups"
             + (f" x {rows} rows" if rows > 1 else "") + f" ({how} over all their pairs):"]
    out = list(title) if not markdown else [f"{title[0]}  ", title[1]]
    for index in range(rows):
        header = [grouped.boards[0][index].label, "questions", *names]
        body = []
        for group, boards in zip(grouped.groups, grouped.boards, strict=True):
            board = boards[index]
            found = {row.name: row for row in board.result.rows}
            cells = [str(group), str(board.result.questions)]
            for name in names:
                row = found[name]
                ranks = (str(row.rank_lo) if row.rank_lo == row.rank_hi
                         else f"{row.rank_lo}-{row.rank_hi}")
                cells.append(f"{row.estimate:.{digits}f} ({ranks})")
            body.append(cells)
        if markdown:
            align = [":---"] + ["---:"] * (len(header) - 1)
            out += ["", "| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |",
                    *("| " + " | ".join(cells) + " |" for cells in body)]
            continue
        widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
        out += ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                          for i, cell in enumerate(cells)).rstrip()
                for cells in [header] + body]
    return out
