"""``--clusters`` labels of a long file (one row per sample), one per question id.

A long file read with ``--id`` may carry a cluster label on every row (``id,topic,correct``);
:func:`cluster_labels` reads that column with the long readers of
:mod:`kpass.io.long_rows`, the same rows and lines as the counts, and checks that the rows
of one question agree, naming both lines when they do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .formats import detect_format
from .long_rows import _CHUNKS
from .rows import ReportError, canonical_id, describe_read_error, read_errors
from .shards import shard_parts

__all__ = ["cluster_labels"]


def cluster_labels(source: str, id: str, clusters: str,  # noqa: A002
                    ids: Any, chunk_size: int) -> list[Any]:
    """The ``clusters`` column's label of each question (``ids``), read by the long readers.

    Labels are compared as ids are (:func:`kpass.io.rows.canonical_id`: ``7`` and ``"7"``
    are one label); the rows of one question must agree.
    """
    parts = shard_parts(source)
    files = ([(source, "")] if parts is None else
             list(zip(parts.paths, [f"{label}, " for label in parts.labels], strict=True)))
    names: dict[str, Any] = {"id": id, "sample": None, "column": clusters}
    label_of: dict[Any, tuple[Any, str]] = {}
    for path, prefix in files:
        fmt = detect_format(Path(path))
        try:
            for where, qids, _, values in _CHUNKS[fmt](path, Path(path), names, chunk_size):
                assert qids is not None
                for at, raw, value in zip(where, qids, values, strict=True):
                    place = prefix + at
                    if isinstance(value, (list, tuple)) and len(value) == 1:
                        value = value[0]  # a CSV cell such as [3] is read as a list
                    question = canonical_id(raw, source, place)
                    label = canonical_id(value, source, place, "--clusters label")
                    known = label_of.setdefault(question, (label, place))
                    if known[0] != label:
                        raise ReportError(source, f"question {question!r} has two --clusters "
                                                  f"labels: {known[0]!r} at {known[1]} and "
                                                  f"{label!r} at {place}; every row of a "
                                                  "question must carry its cluster")
        except read_errors() as error:
            raise ReportError(source, describe_read_error(error)) from None
    return [label_of[question][0] for question in ids]
