"""Outcome files in long form: one row per sample (or per batch of samples) with a question id.

``kpass report FILE --id question_id [--sample sample]`` groups rows by question id,
wherever a question's rows lie in the file; the counts keep their ids, so ``kpass
compare`` matches two runs by id and shards of one run add up. Each row's outcome is a
0/1 scalar (``1``, ``true``, ``"0"`` in a CSV) or a list of them (several samples in one
row). A repeated ``(id, sample)`` pair is an error naming both rows. Long files are read
whole (ids and outcomes only); for files larger than memory, group them in the engine that
holds them and pass counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .._core.counts import BinaryCounts
from .formats import parse_cell
from .labels import column_names, label, read_columns
from .readers import LoadedFile
from .rows import ReportError, Unreadable, pick_column, show

_WORDS = {"0": 0, "1": 1, "false": 0, "true": 1, "0.0": 0, "1.0": 1}


def _outcomes(value: Any, column: str, source: str, place: str) -> tuple[int, int]:
    """(samples, correct) of one row's outcome cell: a 0/1 scalar or a list of them."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in _WORDS:
            return 1, _WORDS[text.lower()]
        parsed = parse_cell(text)
        if isinstance(parsed, Unreadable):
            raise ReportError(source, f"`{column}`: {parsed.problem}", place)
        value = parsed
    if isinstance(value, (list, tuple)):
        if not value:
            raise ReportError(source, f"`{column}` is an empty list", place)
        pairs = [_outcomes(item, column, source, place) for item in value]
        return len(pairs), sum(correct for _, correct in pairs)
    if isinstance(value, (bool, int, float)) and not isinstance(value, str) and value in (0, 1):
        return 1, int(value)
    raise ReportError(source, f"`{column}` must hold binary outcomes 0 or 1; got {show(value)}",
                      place)


def load_long(source: str, id_column: str, *, column: str | None = None,
              sample_column: str | None = None) -> LoadedFile:
    r"""Read a long outcome file and count each question's samples, grouped by id.

    Args:
        source: a JSONL, JSON, CSV/TSV (or .gz) or Parquet file, or a datasets directory.
        id_column: the question id column.
        column: the outcome column (default: the first of ``outcomes``, ``correct``,
            ``scores`` the file has).
        sample_column: optional sample index column; a repeated (id, sample) pair is
            refused.

    Returns:
        The counts, one question per distinct id in first-seen order, carrying the ids.

    Raises:
        ReportError: a missing column, a bad id or outcome (named with its row), or a
            repeated (id, sample) pair (both rows named).

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "long.csv"
        >>> _ = path.write_text("qid,sample,correct\\nq1,0,1\\nq2,0,0\\nq1,1,0\\n")
        >>> loaded = load_long(str(path), "qid", sample_column="sample")
        >>> loaded.counts.ids, loaded.counts.n_samples.tolist(), loaded.counts.n_correct.tolist()
        (('q1', 'q2'), [2, 1], [1, 0])
    """
    outcome = column if column is not None else pick_column(column_names(source), None, source)
    wanted = [id_column, outcome] + ([sample_column] if sample_column else [])
    values, where = read_columns(source, wanted)
    if not where:
        raise ReportError(source, "the file holds no rows")
    order: dict[Any, int] = {}
    question = np.empty(len(where), dtype=np.int64)
    samples = np.empty(len(where), dtype=np.int64)
    correct = np.empty(len(where), dtype=np.int64)
    first_seen: dict[tuple[Any, Any], str] = {}
    for row, place in enumerate(where):
        identity = label(source, id_column, values[id_column][row], place)
        if sample_column is not None:
            key = (identity, values[sample_column][row])
            if key in first_seen:
                raise ReportError(source, f"question {identity!r}, sample "
                                          f"{show(values[sample_column][row])} appears twice: "
                                          f"{first_seen[key]} and {place}")
            first_seen[key] = place
        question[row] = order.setdefault(identity, len(order))
        samples[row], correct[row] = _outcomes(values[outcome][row], outcome, source, place)
    n = np.bincount(question, weights=samples, minlength=len(order)).astype(np.int64)
    c = np.bincount(question, weights=correct, minlength=len(order)).astype(np.int64)
    counts = BinaryCounts(n, c, ids=tuple(order))
    shortest = int(np.argmin(n))
    return LoadedFile(source, Path(source), outcome, counts,
                      f"question {counts.ids[shortest]!r}")
