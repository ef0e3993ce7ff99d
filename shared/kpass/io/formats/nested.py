"""Nested column paths and the rows of JSONL, JSON, Parquet files and datasets folders.

:func:`get_path` follows a column path into a record: names joined by dots reach into
objects and structs (``metrics.correct``), a name ending in ``[]`` visits every element
of a list of records (``details[].correct``). :func:`read_rows` yields ``(where, record)``
for each row of a JSONL, JSON or Parquet file or a saved ``datasets`` folder, and
:func:`path_records` turns the values at a nested ``--column`` path into
:class:`LongRecord` (question id, sample index, value, where). The harnesses' own layouts
are read by :mod:`kpass.io.harness.harness_rows` on top of these.

Example:
    >>> document = {"details": [{"correct": 1}, {"correct": 0}]}
    >>> [(r.question, r.value) for r in
    ...  path_records([("the document", document)], "details[].correct", "r.json")]
    [('the document details[0]', 1), ('the document details[1]', 0)]
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ReportError, describe_read_error, show
from ..rows import check_nesting, json_problem
from .base import _need_pyarrow, detect_format
from .parsers import dataset_files

_EACH = "[]"


@dataclass(frozen=True)
class LongRecord:
    """One sample of one question: ``question`` id, ``sample`` index, ``value``, ``where``."""

    question: Any
    sample: int
    value: Any
    where: str


def is_path(column: str | None) -> bool:
    """Whether ``column`` is a nested path (has a dot or ``[]``) rather than a plain name."""
    return column is not None and ("." in column or _EACH in column)


def _segments(path: str, source: str) -> list[str]:
    """``details[].correct`` -> ``["details", "[]", "correct"]``; an empty segment is an error."""
    out: list[str] = []
    for part in path.split("."):
        name, each = (part[:-2], True) if part.endswith(_EACH) else (part, False)
        if not name or "[" in name or "]" in name:
            raise ReportError(source, f"`--column {path}` is not a column path; expected names "
                                      "joined by dots, a name ending in [] for a list of "
                                      "records (e.g. metrics.correct or details[].correct)")
        out.append(name)
        if each:
            out.append(_EACH)
    return out


def _prefix(at: str, segments: list[str]) -> str:
    """``details[2].correct`` cut after the ``[]`` that ends ``segments`` -> ``details[2]``."""
    names = sum(1 for segment in segments if segment != _EACH)
    parts, count = [], 0
    for part in at.split("."):
        count += 1
        parts.append(part)
        if count == names:
            break
    return ".".join(parts)


def field_names(value: Any) -> str:
    """The first 20 field names of ``value`` in backticks, for messages."""
    if isinstance(value, dict):
        return ", ".join(f"`{key}`" for key in list(value)[:20]) or "none"
    return f"none ({show(value)} is not an object)"


def get_path(record: Any, path: str, *, source: str = "<data>",
             where: str = "") -> list[tuple[str, Any]]:
    """The values at ``path`` in ``record``, one per element of each ``[]`` list.

    Args:
        record: a decoded JSON object or Arrow struct (a dict).
        path: names joined by dots; a name ending in ``[]`` is a list (or an object
            keyed by index) whose every element is followed on.
        source: the file, for messages.
        where: where ``record`` is (``line 3``), for messages.

    Returns:
        ``(suffix, value)`` pairs: ``suffix`` locates the element (``details[2]``),
        empty when the path has no ``[]``.

    Raises:
        ReportError: a name is missing (the message names the path and the keys
            that are there) or a ``[]`` is not a list.

    Example:
        >>> get_path({"details": [{"correct": [1, 0]}, {"correct": [1, 1]}]},
        ...          "details[].correct")
        [('details[0]', [1, 0]), ('details[1]', [1, 1])]
    """
    segments = _segments(path, source)
    found: list[tuple[str, Any]] = [("", record)]
    for segment in segments:
        step: list[tuple[str, Any]] = []
        for at, value in found:
            if segment == _EACH:
                items = value.items() if isinstance(value, dict) else enumerate(value) \
                    if isinstance(value, list) else None
                if items is None:
                    raise ReportError(source, f"`{at}[]` of `--column {path}` must be a list of "
                                              f"records; got {show(value)}", where or None)
                step.extend((f"{at}[{key}]", item) for key, item in items)
            elif isinstance(value, dict) and segment in value:
                step.append((f"{at}.{segment}" if at else segment, value[segment]))
            else:
                raise ReportError(source, f"`--column {path}`: {at or 'the record'} has no field "
                                          f"`{segment}`; its fields: {field_names(value)}",
                                  where or None)
        found = step
    if _EACH not in segments:
        return [("", value) for _, value in found]
    # the place of each element: the path up to its last [] with the indices filled in
    depth = len(segments) - segments[::-1].index(_EACH)
    return [(_prefix(at, segments[:depth]), value) for at, value in found]


# ----------------------------------------------------------------------------- rows


def read_rows(source: str) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each row of a JSONL, JSON, Parquet file or datasets folder.

    A JSON document that is one object (an OpenCompass results file) is one row.
    Parquet and datasets rows come as dicts, struct columns as nested dicts.
    """
    path = Path(source)
    if not path.exists():
        raise ReportError(source, "no such file or directory")
    fmt = detect_format(path)
    if fmt in ("jsonl", "json"):
        try:
            yield from _text_rows(source, path, fmt)
        except UnicodeDecodeError as error:
            raise ReportError(source, f"not UTF-8 text ({error.reason})") from None
        except (EOFError, OSError) as error:  # a truncated or fake .gz, an unreadable file
            raise ReportError(source, describe_read_error(error)) from None
        return
    yield from _binary_rows(source, path, fmt)


def _text_rows(source: str, path: Path, fmt: str) -> Iterator[tuple[str, Any]]:
    """The records of a JSONL or JSON file (see :func:`read_rows`)."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    # bytes that are not UTF-8 (in a model response, say) are kept as surrogates: fields
    # kpass does not read are not judged, as the other readers do not judge them
    with opener(path, "rt", encoding="utf-8-sig", errors="surrogateescape") as stream:
        if fmt == "json":
            text = stream.read()
            check_nesting(text, source)  # before the parser, whose recursion it would break
            try:
                document = json.loads(text)
            except json.JSONDecodeError as error:
                raise ReportError(source, f"not valid JSON ({error})") from None
            except (ValueError, RecursionError) as error:
                raise ReportError(source, json_problem(error)) from None
            if isinstance(document, list):
                yield from ((f"element {i}", item) for i, item in enumerate(document))
            else:
                yield "the document", document
            return
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            check_nesting(line, source, f"line {number}")
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ReportError(source, f"not valid JSON ({error})", f"line {number}") from None
            except (ValueError, RecursionError) as error:
                raise ReportError(source, json_problem(error), f"line {number}") from None
            yield f"line {number}", record


def _binary_rows(source: str, path: Path, fmt: str) -> Iterator[tuple[str, Any]]:
    """The rows of a Parquet file or datasets folder as dicts (see :func:`read_rows`)."""
    if fmt not in ("parquet", "datasets"):
        raise ReportError(source, f"nested column paths and --from read JSONL, JSON, Parquet "
                                  f"or a datasets folder; this is {fmt}")
    pa = _need_pyarrow(source)
    import pyarrow.parquet as pq

    first = 0
    if fmt == "parquet":
        batches: Iterable[Any] = pq.ParquetFile(path).iter_batches(batch_size=4096)
    else:
        batches = (batch for file in dataset_files(source, path)
                   for batch in pa.ipc.open_stream(pa.memory_map(str(file))))
    for batch in batches:
        for offset, row in enumerate(batch.to_pylist()):
            yield f"row {first + offset}", row
        first += batch.num_rows


def sample_records(question: Any, value: Any, where: str, source: str = "<data>",
             name: str = "outcomes") -> Iterator[LongRecord]:
    """A list value is one sample per element; a scalar is sample 0; an empty list an error."""
    if isinstance(value, (list, tuple)):
        if not value:  # never a question silently left out
            raise ReportError(source, f"`{name}` is an empty list; a question needs at least "
                                      "one sample", where)
        yield from (LongRecord(question, i, item, where) for i, item in enumerate(value))
    else:
        yield LongRecord(question, 0, value, where)


def path_records(rows: Iterable[tuple[str, Any]], column: str, source: str) -> Iterator[LongRecord]:
    """Generic nested reading: each value at ``column`` is one question (``where`` its id)."""
    for where, row in rows:
        for suffix, value in get_path(row, column, source=source, where=where):
            question = f"{where} {suffix}".strip()
            yield from sample_records(question, value, question, source, column)
