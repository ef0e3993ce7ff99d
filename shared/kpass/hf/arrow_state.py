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

#: What is written to Arrow: per-question counts (answers stay strings, validated first),
#: and whether the question came with the ``compute`` call (:data:`_INLINE`).
STORED_FEATURES = {
    "binary": datasets.Features({"n_samples": _INT, "n_correct": _INT}),
    "categorical": datasets.Features({"counts": datasets.List(_INT),
                                      "prior_counts": datasets.List(_INT)}),
    "answers": datasets.Features(dict(INPUT_FEATURES["answers"])),
    "binary_pair": datasets.Features({"n_samples1": _INT, "n_correct1": _INT,
                                      "n_samples2": _INT, "n_correct2": _INT}),
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
    """Both models' counts of one batch, question by question."""
    if not isinstance(pair, _Paired):
        raise ArgumentTypeError("a comparison takes `predictions1` and `predictions2`, one list "
                                "of outcomes per question for each model")
    first = binary_counts(pair.first, name="predictions1")
    second = binary_counts(pair.second, name="predictions2")
    if first.n_questions != second.n_questions:
        raise InputError("`predictions1` and `predictions2` must hold the same questions, row q "
                         f"of both being question q; got {first.n_questions} and "
                         f"{second.n_questions} questions")
    return pa.table({"n_samples1": first.n_samples, "n_correct1": first.n_correct,
                     "n_samples2": second.n_samples, "n_correct2": second.n_correct})


class _Paired:
    """One batch of a comparison: model A's and model B's outcome lists."""

    def __init__(self, first: Any, second: Any) -> None:
        if first is None or second is None:
            raise InputError("a comparison needs both `predictions1` (model A) and "
                             "`predictions2` (model B)")
        self.first, self.second = first, second

    def __len__(self) -> int:
        return max(_length(self.first), _length(self.second))


def _length(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 1


def _state_from_table(kind: str, table: pa.Table) -> Any:
    if table.num_rows == 0:
        raise InputError("no questions to compute on")
    if kind == "binary_pair":
        def column(name: str) -> np.ndarray:
            return np.array(table.column(name).to_numpy(), dtype=np.int64)

        return PairedCounts(BinaryCounts(column("n_samples1"), column("n_correct1")),
                            BinaryCounts(column("n_samples2"), column("n_correct2")))
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
