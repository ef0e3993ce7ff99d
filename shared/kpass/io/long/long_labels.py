"""Per-question labels of a long file (one row per sample): ``--clusters``, ``--group``.

A long file read with ``--id`` may carry a label on every row (``id,topic,correct``): a
cluster (``--clusters``), a group or subtask (``--group``), a model or run column.
:func:`question_labels` reads that column with the long readers of
:mod:`kpass.io.long.long_rows`, the same rows and lines as the counts, and checks that the rows
of one question agree, naming the question and both lines when they do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ReportError, describe_read_error, read_errors
from ..formats.base import detect_format
from ..rows import canonical_id
from ..shards import shard_parts
from .long_rows import _CHUNKS

__all__ = ["question_labels"]


def question_labels(source: str, id: str, clusters: str,  # noqa: A002
                    ids: Any, chunk_size: int, column: str | None = None,
                    option: str = "--clusters") -> list[Any]:
    """The ``clusters`` column's label of each question (``ids``), read by the long readers.

    Labels are compared as ids are (:func:`kpass.io.rows.canonical_id`: ``7`` and ``"7"``
    are one label); the rows of one question must agree. In a folder of Hive-style
    partitions (``h/lang=en/part-0.csv``), a partition key is a column too: ``--clusters
    lang`` labels every row of a part by its folder's value, when the part has no such
    column of its own.

    Args:
        source: the file, folder or pattern.
        id: the question-id column.
        clusters: the label column (or partition key).
        ids: the questions, in the order of the counts.
        chunk_size: rows read at a time.
        column: the outcome column the counts used (read beside the ids for a partition
            key, so that the same rows are read).
        option: the option the labels are for, in messages (``--clusters``, ``--group``).
    """
    parts = shard_parts(source)
    files = ([(source, "")] if parts is None else
             list(zip(parts.paths, parts.labels, strict=True)))
    label_of: dict[Any, tuple[Any, str]] = {}
    for path, part in files:
        prefix = f"{part}, " if part else ""
        keys = dict(component.split("=", 1) for component in Path(part).parts[:-1]
                    if "=" in component)
        fmt = detect_format(Path(path))
        names: dict[str, Any] = {"id": id, "sample": None, "column": clusters}
        fixed = None
        if clusters in keys and not _has_column(path, fmt, names, chunk_size):
            fixed = keys[clusters]
            names = {"id": id, "sample": None, "column": column}
        try:
            for where, qids, _, values, _ in _CHUNKS[fmt](path, Path(path), names,
                                                          chunk_size):
                assert qids is not None
                for at, raw, value in zip(where, qids, values, strict=True):
                    place = prefix + at
                    if fixed is not None:
                        value = fixed
                    elif isinstance(value, (list, tuple)) and len(value) == 1:
                        value = value[0]  # a CSV cell such as [3] is read as a list
                    question = canonical_id(raw, source, place)
                    label = canonical_id(value, source, place, f"{option} label")
                    known = label_of.setdefault(question, (label, place))
                    if known[0] != label:
                        raise ReportError(source, f"question {question!r} has two {option} "
                                                  f"labels: {known[0]!r} at {known[1]} and "
                                                  f"{label!r} at {place}; every row of a "
                                                  "question must carry the same one")
        except read_errors() as error:
            raise ReportError(source, describe_read_error(error)) from None
    return [label_of[question][0] for question in ids]


def _has_column(path: str, fmt: str, names: dict[str, Any], chunk_size: int) -> bool:
    """Whether a part has the ``names["column"]`` column (a missing one is a ReportError)."""
    try:
        next(iter(_CHUNKS[fmt](path, Path(path), dict(names), chunk_size)), None)
    except ReportError as error:
        if f"`{names['column']}`" in str(error) and "no column" in str(error):
            return False
        raise
    return True
