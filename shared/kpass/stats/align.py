"""One rule for matching the questions of several runs: by question id, else by row.

:func:`align_runs` is what :func:`kpass.compare`, :func:`kpass.plan`,
:func:`kpass.leaderboard` and the CLI use to put 2..K runs on the same questions, and
:func:`subset_labels` carries per-question labels (``clusters``) through that selection.

The rule:

* Runs that all carry question ids (``BinaryCounts(..., ids=...)``,
  ``CategoricalCounts(..., ids=...)``) are matched by id, whatever their row order, in the
  first run's order. Different id sets are refused, naming the first ids one run has and
  another lacks, unless ``shared=True``, which keeps the questions every run has.
* Runs of which none carries ids are matched by row (row q of every run is question q),
  which needs equal numbers of rows; :attr:`Alignment.by_id` is False so callers can say so.
* Ids on some runs only are refused: matching by row would silently ignore them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import InputError, check_shared
from .._core.counting.counts import BinaryCounts, CategoricalCounts

#: How many of the unmatched ids a message lists.
SHOWN = 3


@dataclass(frozen=True)
class Alignment:
    """Runs put on the same questions, in the first run's question order.

    Attributes:
        runs: the runs, each restricted and reordered to the matched questions (the input
            objects themselves when nothing changed).
        rows: per run, the row indices taken from it (None: all rows, in order).
        keep: the positions of the first run's questions that were kept (None: all).
        by_id: True when questions were matched by id; False when by row.
        questions: the number of matched questions (None when a run's length is unknown).
        first_questions: the first run's number of questions before the alignment (None
            when unknown).
    """

    runs: tuple[Any, ...]
    rows: tuple[np.ndarray | None, ...]
    keep: np.ndarray | None
    by_id: bool
    questions: int | None
    first_questions: int | None = None

    def take(self, run: int, values: Sequence[Any]) -> list[Any]:
        """Per-question values of run ``run`` (in its own order), on the matched questions.

        Example:
            >>> a = BinaryCounts([2, 2], [1, 2], ids=["q1", "q2"])
            >>> b = BinaryCounts([2, 2, 2], [0, 1, 2], ids=["q3", "q2", "q1"])
            >>> align_runs([a, b], ["A", "B"], shared=True).take(1, ["x", "y", "z"])
            ['z', 'y']
        """
        rows = self.rows[run]
        return list(values) if rows is None else [values[i] for i in rows]


def question_ids(R: Any) -> list[Any] | None:
    """The question ids a run carries (counts with ``ids``), else None.

    Only counts carry ids; a masked array has an unrelated ``ids`` method.
    """
    ids = R.ids if isinstance(R, (BinaryCounts, CategoricalCounts)) else None
    return None if ids is None else list(ids)


def _length(R: Any) -> int | None:
    if isinstance(R, (BinaryCounts, CategoricalCounts)):
        return R.n_questions
    if isinstance(R, (str, bytes)) or not hasattr(R, "__len__"):
        return None
    try:
        return len(R)
    except TypeError:
        return None


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _first(ids: Sequence[Any], leaving: set[Any]) -> tuple[int, list[Any]]:
    """How many of ``ids`` are in ``leaving``, and the first few of them in run order."""
    found = [q for q in ids if q in leaving]
    return len(found), found[:SHOWN]


def align_runs(runs: Sequence[Any], names: Sequence[str], *, shared: Any = False,
               verb: str = "compare") -> Alignment:
    """Match the questions of 2..K runs: by question id when every run has ids, else by row.

    Args:
        runs: the runs (counts, arrays, lists of per-question outcomes).
        names: how messages name each run (``"A"``, ``"'model-1'"``, ``"`R_b`"``).
        shared: with ids on every run, keep the questions every run has (in the first
            run's order) instead of refusing different id sets.
        verb: what the caller does with the runs (``"compare"``, ``"rank"``, ``"plan"``),
            for the message that suggests ``shared=True``; ``""`` leaves that hint out
            (a caller without a ``shared`` option).

    Returns:
        An :class:`Alignment`.

    Raises:
        TypeError: ``shared`` is not True or False.
        ValueError: ids on some runs only; different id sets without ``shared`` (naming
            the first ids of each run the other lacks); no common id with ``shared``;
            ``shared=True`` without ids; runs without ids of different lengths.

    Example:
        >>> a = BinaryCounts([4, 4, 4], [1, 2, 3], ids=["q1", "q2", "q3"])
        >>> b = BinaryCounts([4, 4, 4], [0, 4, 2], ids=["q3", "q1", "q2"])
        >>> aligned = align_runs([a, b], ["A", "B"])
        >>> aligned.by_id, aligned.runs[1].ids, aligned.runs[1].n_correct.tolist()
        (True, ('q1', 'q2', 'q3'), [4, 2, 0])
    """
    shared = check_shared(shared)
    runs, names = list(runs), list(names)
    if len(runs) != len(names):
        raise InputError(f"align_runs needs one name per run; got {len(runs)} runs and "
                         f"{len(names)} names")
    ids = [question_ids(R) for R in runs]
    without = [name for name, own in zip(names, ids, strict=True) if own is None]
    if without and len(without) < len(runs):
        verb_of = "does" if len(without) == 1 else "do"
        raise InputError(f"only some runs carry question ids ({_listed(without)} {verb_of} "
                         "not); give ids to every run (to match questions by id) or to none "
                         "(to match them by row)")
    if without:
        return _by_row(runs, names, bool(shared))
    return _by_id(runs, names, [own for own in ids if own is not None], bool(shared), verb)


def _by_id(runs: list[Any], names: list[str], ids: list[list[Any]], shared: bool,
           verb: str) -> Alignment:
    sets = [set(own) for own in ids]
    common = set.intersection(*sets)
    if not shared:
        for name, own, found in zip(names[1:], ids[1:], sets[1:], strict=True):
            if found != sets[0]:
                raise InputError(_differ(names[0], ids[0], name, own, sets[0], found,
                                         len(common), len(runs), verb))
    kept = [q for q in ids[0] if q in common]
    if not kept:
        raise InputError(f"the runs {_listed(names)} share no question id")
    rows: list[np.ndarray | None] = []
    aligned = []
    for R, own in zip(runs, ids, strict=True):
        if own == kept:
            rows.append(None)
            aligned.append(R)
            continue
        position = {q: i for i, q in enumerate(own)}
        index = np.array([position[q] for q in kept], dtype=np.intp)
        rows.append(index)
        aligned.append(R.select(index))
    return Alignment(runs=tuple(aligned), rows=tuple(rows), keep=rows[0], by_id=True,
                     questions=len(kept), first_questions=len(ids[0]))


def _differ(first: str, first_ids: list[Any], name: str, own: list[Any], first_set: set[Any],
            found: set[Any], common: int, count: int, verb: str) -> str:
    parts = []
    missing, shown = _first(first_ids, first_set - found)
    if missing:
        parts.append(f"{missing} ids of {first} are not in {name} (e.g. {shown})")
    extra, shown = _first(own, found - first_set)
    if extra:
        parts.append(f"{extra} ids of {name} are not in {first} (e.g. {shown})")
    message = "the runs must score the same questions: " + "; ".join(parts)
    if verb:
        every = "both runs have" if count == 2 else "every run has"
        message += f"; pass shared=True to {verb} on the {common} questions {every}"
    return message


def _by_row(runs: list[Any], names: list[str], shared: bool) -> Alignment:
    if shared:
        raise InputError("shared=True needs question ids on every run, to match questions "
                         "by id (BinaryCounts(..., ids=...), or the CLI's --id COLUMN)")
    lengths = [_length(R) for R in runs]
    known = [m for m in lengths if m is not None]
    if len(set(known)) > 1:
        raise InputError(
            "without question ids, runs are matched by row (row q of every run is question "
            "q), so they must score the same questions; got "
            f"{_listed([str(m) if m is not None else '?' for m in lengths])} questions "
            f"({_listed(names)}); give question ids to match by id (BinaryCounts(..., "
            "ids=...), or the CLI's --id COLUMN)")
    questions = known[0] if known and len(known) == len(runs) else None
    return Alignment(runs=tuple(runs), rows=(None,) * len(runs), keep=None, by_id=False,
                     questions=questions, first_questions=lengths[0])


def subset_labels(labels: Any, alignment: Alignment, argument: str = "clusters") -> Any:
    """Per-question labels of the first run, carried through an alignment.

    Args:
        labels: one label per question of the first run, in its order (or None).
        alignment: what :func:`align_runs` returned for the runs.
        argument: the argument's name, for the message.

    Returns:
        The labels of the kept questions, in the aligned order (``labels`` as given when
        every question of the first run was kept in order: their length and type are then
        checked by whoever uses them).

    Raises:
        ValueError: questions were left out and ``labels`` do not have one label per
            question of the first run (labels for the kept questions only are refused:
            which question each belongs to would be a guess).

    Example:
        >>> a = BinaryCounts([2, 2, 2], [1, 2, 0], ids=["q1", "q2", "q3"])
        >>> b = BinaryCounts([2, 2], [0, 1], ids=["q3", "q1"])
        >>> subset_labels(["x", "y", "z"], align_runs([a, b], ["A", "B"], shared=True))
        ['x', 'z']
    """
    keep = alignment.keep
    if labels is None or keep is None:
        return labels
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        return labels  # the caller's label check says what is wrong
    listed = list(labels)
    if len(listed) != alignment.first_questions:
        raise InputError(f"`{argument}` must have one label per question of the first run, in "
                         "its order, before unmatched questions are left out "
                         f"(M={alignment.first_questions}); got {len(listed)} labels")
    return [listed[i] for i in keep]


__all__ = ["Alignment", "align_runs", "question_ids", "subset_labels"]
