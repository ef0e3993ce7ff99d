"""``--cost COLUMN`` of a long file (one row per sample): each question's mean cost per sample.

Read with the long readers of :mod:`kpass.io.long.long_rows`, the same rows and lines as
the counts (as :mod:`kpass.io.long.long_labels` reads ``--clusters``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ReportError, describe_read_error, read_errors, show
from ..formats.base import detect_format
from ..rows import canonical_id
from ..shards import shard_parts
from .long_rows import _CHUNKS

__all__ = ["question_costs"]


def question_costs(source: str, id: str, column: str, ids: Any,  # noqa: A002
                   chunk_size: int = 65536) -> np.ndarray:
    """The mean of ``column`` over each question's rows, in the order of ``ids``.

    Args:
        source: the long file, folder of parts or pattern.
        id: the question-id column.
        column: the cost column (a number >= 0 per row: the cost of that sample).
        ids: the questions, in the order of the counts.
        chunk_size: rows read at a time.

    Raises:
        ReportError: a missing column, a value that is not a finite number >= 0 (naming
            the line), a question of ``ids`` with no row.
    """
    parts = shard_parts(source)
    files = ([(source, "")] if parts is None else
             list(zip(parts.paths, parts.labels, strict=True)))
    sums: dict[Any, list[float]] = {}
    for path, part in files:
        prefix = f"{part}, " if part else ""
        names: dict[str, Any] = {"id": id, "sample": None, "column": column}
        try:
            for where, qids, _, values in _CHUNKS[detect_format(Path(path))](
                    path, Path(path), names, chunk_size):
                assert qids is not None
                for at, raw, value in zip(where, qids, values, strict=True):
                    place = prefix + at
                    if isinstance(value, (list, tuple)) and len(value) == 1:
                        value = value[0]
                    if isinstance(value, str):  # a CSV/TSV cell
                        try:
                            value = float(value.strip())
                        except ValueError:
                            pass
                    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                            not math.isfinite(value) or value < 0:
                        raise ReportError(source, f"--cost {column}: {show(value)} is not a "
                                                  "cost (a finite number >= 0)", place)
                    total = sums.setdefault(canonical_id(raw, source, place), [0.0, 0])
                    total[0] += float(value)
                    total[1] += 1
        except read_errors() as error:
            raise ReportError(source, describe_read_error(error)) from None
    out = np.empty(len(ids))
    for index, question in enumerate(ids):
        if question not in sums:
            raise ReportError(source, f"--cost {column}: question {question!r} has no row")
        out[index] = sums[question][0] / sums[question][1]
    return out
