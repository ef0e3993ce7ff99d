"""The metric modules' per-question state to and from Arrow: what ``evaluate`` stores.

``evaluate`` keeps added rows in Arrow tables (one file per process in a distributed
run); a kpass module stores per-question counts, not outcome matrices, and rebuilds the
state (``BinaryCounts``, ``CategoricalCounts``, answer lists, or a pair of counts) from
them. Here: the schemas (:data:`INPUT_FEATURES`, what the user passes;
:data:`STORED_FEATURES`, what is written) and the conversions.
Used by :mod:`kpass.hf.evaluate_module`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._core.counting.checks import ArgumentTypeError, InputError, _show
from .._core.counting.counts import BinaryCounts, CategoricalCounts
from .._core.counting.inputs import binary_counts
from .vocabulary import PairedCounts

#: Marks the questions passed to ``compute`` itself (not added by ``add_batch``): a failed
#: ``compute`` drops them, in every process, and keeps only what ``add_batch`` added.
_INLINE = "inline"

_INT = datasets.Value("int64")

#: What the user passes, per kind of module (shown as the module's ``features``).
INPUT_FEATURES = {
    "binary": datasets.Features({"predictions": datasets.List(_INT)}),
    "categorical": datasets.Features({"predictions": datasets.List(_INT),
                                      "R0": datasets.List(_INT)}),
    "answers": datasets.Features({"predictions": datasets.List(datasets.Value("string")),
                                  "references": datasets.Value("string")}),
    "binary_pair": datasets.Features({"predictions1": datasets.List(_INT),
                                      "predictions2": datasets.List(_INT)}),
}

#: A question id as stored: the id's text and whether it was an int (``7`` and ``"7"`` are
#: different ids to :class:`~kpass.BinaryCounts`, so the type is kept, not guessed back).
_ID = datasets.Value("string")

#: What is written to Arrow: per-question counts (answers stay strings, validated first),
#: and whether the question came with the ``compute`` call (:data:`_INLINE`).
STORED_FEATURES = {
    "binary": datasets.Features({"n_samples": _INT, "n_correct": _INT}),
    "categorical": datasets.Features({"counts": datasets.List(_INT),
                                      "prior_counts": datasets.List(_INT)}),
    "answers": datasets.Features(dict(INPUT_FEATURES["answers"])),
    "binary_pair": datasets.Features({"n_samples1": _INT, "n_correct1": _INT,
                                      "n_samples2": _INT, "n_correct2": _INT,
                                      "id1": _ID, "id_int1": datasets.Value("bool"),
                                      "id2": _ID, "id_int2": datasets.Value("bool")}),
}
for _features in STORED_FEATURES.values():
    _features[_INLINE] = datasets.Value("bool")
del _features


def _is_empty(value: Any) -> bool:
    try:
        return len(value) == 0
    except TypeError:
        return False


def _list_column(matrix: np.ndarray) -> pa.ListArray:
    """An (M, K) int64 matrix as an Arrow list column of M rows of K counts."""
    m, width = matrix.shape
    offsets = np.arange(0, m * width + 1, width, dtype=np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(matrix.ravel()))


def _matrix(column: pa.ChunkedArray) -> np.ndarray:
    """An Arrow list column of count rows (widths may differ by batch) as a padded matrix."""
    array = column.combine_chunks()
    offsets = array.offsets.to_numpy()
    values = array.flatten().to_numpy(zero_copy_only=False).astype(np.int64)
    lengths = np.diff(offsets)
    m = lengths.size
    width = int(lengths.max()) if m else 1
    matrix = np.zeros((m, max(width, 1)), dtype=np.int64)
    rows = np.repeat(np.arange(m), lengths)
    cols = np.arange(values.size) - np.repeat(offsets[:-1] - offsets[0], lengths)
    matrix[rows, cols] = values
    return matrix


def _pair_table(pair: Any) -> pa.Table:
    """Both models' counts of one batch, stored side by side.

    Without ids, row q of both runs is question q (paired by position). With ``ids1`` and
    ``ids2``, each run's rows are its own questions, named: the runs may list them in any
    order and in different numbers, row r holds A's r-th and B's r-th question (an absent
    side has a null id) and :func:`_state_from_table` matches them by id.
    """
    if not isinstance(pair, _Paired):
        raise ArgumentTypeError("a comparison takes `predictions1` and `predictions2`, one list "
                                "of outcomes per question for each model")
    first = binary_counts(pair.first, name="predictions1")
    second = binary_counts(pair.second, name="predictions2")
    if pair.ids1 is None and pair.ids2 is None:
        if first.n_questions != second.n_questions:
            raise InputError("`predictions1` and `predictions2` must hold the same questions, "
                             f"row q of both being question q; got {first.n_questions} and "
                             f"{second.n_questions} questions (or give `ids1` and `ids2` to "
                             "match them by question id)")
        m = first.n_questions
        no_ids = pa.nulls(m, pa.string())
        return pa.table({"n_samples1": first.n_samples, "n_correct1": first.n_correct,
                         "n_samples2": second.n_samples, "n_correct2": second.n_correct,
                         "id1": no_ids, "id_int1": pa.nulls(m, pa.bool_()),
                         "id2": no_ids, "id_int2": pa.nulls(m, pa.bool_())})
    if pair.ids1 is None or pair.ids2 is None:
        missing = "ids1" if pair.ids1 is None else "ids2"
        raise InputError(f"`{missing}` is missing: give question ids for both models "
                         "(`ids1` and `ids2`) or for neither (then row q of both is question q)")
    ids1 = _named(first, pair.ids1, "ids1")
    ids2 = _named(second, pair.ids2, "ids2")
    rows = max(first.n_questions, second.n_questions)
    columns: dict[str, Any] = {}
    for side, counts, ids in (("1", first, ids1), ("2", second, ids2)):
        pad = rows - counts.n_questions
        columns[f"n_samples{side}"] = np.concatenate([counts.n_samples, np.zeros(pad, np.int64)])
        columns[f"n_correct{side}"] = np.concatenate([counts.n_correct, np.zeros(pad, np.int64)])
        columns[f"id{side}"] = pa.array([str(i) for i in ids] + [None] * pad, pa.string())
        columns[f"id_int{side}"] = pa.array([isinstance(i, int) for i in ids] + [None] * pad,
                                            pa.bool_())
    return pa.table(columns)


def _named(counts: BinaryCounts, ids: Any, name: str) -> tuple[Any, ...]:
    """``ids1``/``ids2`` checked against their run's rows, the argument named on a bad value."""
    try:
        named = BinaryCounts(counts.n_samples, counts.n_correct, ids=ids).ids
        assert named is not None  # ids were given
        return named
    except (TypeError, ValueError) as error:
        raise type(error)(f"`{name}`: {error}") from None


class _Paired:
    """One batch of a comparison: model A's and model B's outcome lists (and their ids)."""

    def __init__(self, first: Any, second: Any, ids1: Any = None, ids2: Any = None) -> None:
        if first is None or second is None:
            raise InputError("a comparison needs both `predictions1` (model A) and "
                             "`predictions2` (model B)")
        self.first, self.second = first, second
        self.ids1, self.ids2 = ids1, ids2

    def __len__(self) -> int:
        return max(_length(self.first), _length(self.second))


def _length(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 1


def _side(table: pa.Table, side: str) -> BinaryCounts:
    """One model's questions of a stored comparison (with their ids when it has them)."""
    ids = table.column(f"id{side}")
    n = np.array(table.column(f"n_samples{side}").to_numpy(), dtype=np.int64)
    c = np.array(table.column(f"n_correct{side}").to_numpy(), dtype=np.int64)
    if ids.null_count == table.num_rows:
        return BinaryCounts(n, c)
    present = ids.is_valid().to_numpy(zero_copy_only=False)
    texts = ids.to_pylist()
    ints = table.column(f"id_int{side}").to_pylist()
    named = [int(text) if as_int else text for text, as_int, there
             in zip(texts, ints, present, strict=True) if there]
    return BinaryCounts(n[present], c[present], ids=named)


def _state_from_table(kind: str, table: pa.Table) -> Any:
    if table.num_rows == 0:
        raise InputError("no questions to compute on")
    if kind == "binary_pair":
        id1, id2 = table.column("id1"), table.column("id2")
        named = id1.null_count < table.num_rows
        if named and pc.any(pc.and_(id1.is_null(), id2.is_null())).as_py():
            raise InputError("some batches gave `ids1`/`ids2` and others did not: questions "
                             "are matched by id or by position, not both")
        return PairedCounts(_side(table, "1"), _side(table, "2"))
    if kind == "binary":
        return BinaryCounts(np.array(table.column("n_samples").to_numpy(), dtype=np.int64),
                            np.array(table.column("n_correct").to_numpy(), dtype=np.int64))
    if kind == "categorical":
        return CategoricalCounts(_matrix(table.column("counts")),
                                 _matrix(table.column("prior_counts")))
    return (table.column("predictions").to_pylist(), table.column("references").to_pylist())


def _split_inline(table: pa.Table) -> tuple[pa.Table, pa.Table]:
    """The rows added by ``add_batch`` and the rows passed to ``compute``, without the mark."""
    inline = table.column(_INLINE)
    table = table.drop_columns([_INLINE])
    return table.filter(pc.invert(inline)), table.filter(inline)


def _join(kind: str, parts: list[Any]) -> Any:
    """The parts that hold questions, concatenated; None when none does."""
    parts = [part for part in parts if part is not None and _n_questions(part) > 0]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else _concat(kind, parts)


def _concat(kind: str, parts: list[Any]) -> Any:
    if kind == "binary_pair":
        return PairedCounts(BinaryCounts.concat([part.a for part in parts]),
                            BinaryCounts.concat([part.b for part in parts]))
    if kind == "binary":
        return BinaryCounts.concat(parts)
    if kind == "categorical":
        return CategoricalCounts.concat(parts)
    return ([row for part in parts for row in part[0]], [g for part in parts for g in part[1]])


def _n_questions(state: Any) -> int:
    return len(state[0]) if isinstance(state, tuple) else int(state.n_questions)


def _check_answers(predictions: Any, references: Any) -> tuple[list[list[str]], list[str]]:
    """Answer strings per question and one gold string per question, or a clear error."""
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, (Sequence, np.ndarray)):
        raise ArgumentTypeError("`predictions` must be a list of per-question answer lists; got "
                                f"{type(predictions).__name__}")
    if references is None:
        raise InputError("`references` is required: one gold answer per question")
    if isinstance(references, (str, bytes)) or not isinstance(references, (Sequence, np.ndarray)):
        raise ArgumentTypeError("`references` must be a list of gold answers, one per question; "
                                f"got {_show(references)}")
    if len(references) != len(predictions):
        raise InputError(f"`references` must have one gold answer per question; got "
                         f"{len(references)} references for {len(predictions)} questions")
    answers = []
    for i, row in enumerate(predictions):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
            raise ArgumentTypeError(f"`predictions[{i}]` must be a list of answer strings; got "
                                    f"{_show(row)}")
        if len(row) == 0:
            raise InputError(f"every question needs at least one answer; predictions[{i}] is empty")
        for j, answer in enumerate(row):
            if not isinstance(answer, str):
                raise ArgumentTypeError(f"answers must be strings; got predictions[{i}][{j}]="
                                        f"{_show(answer)} ({type(answer).__name__})")
        answers.append([str(answer) for answer in row])
    golds = []
    for i, gold in enumerate(references):
        if not isinstance(gold, str):
            raise ArgumentTypeError(f"gold answers must be strings; got references[{i}]="
                                    f"{_show(gold)} ({type(gold).__name__})")
        golds.append(str(gold))
    return answers, golds
