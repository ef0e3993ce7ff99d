"""Per-question labels beside the outcomes: question ids (``--id``) and clusters (``--clusters``).

One value per row, in the order :func:`kpass.io.readers.load_counts` counts the rows,
so the labels line up with the counts question by question. Labels are short, so a
file's label column is read whole (the outcomes themselves are still streamed).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from .formats import _need_pyarrow, dataset_files, detect_format, read_text
from .rows import ReportError, show


def read_columns(source: str, columns: list[str]) -> tuple[dict[str, list[Any]], list[str]]:
    """The values of some columns, row by row, and where each row is (``line 7``, ``row 3``).

    Args:
        source: an outcome file (JSONL, JSON, CSV/TSV, .gz of those, Parquet) or a saved
            ``datasets`` directory.
        columns: the column names.

    Returns:
        ``{column: values}`` (one value per row, as the file holds it) and the rows'
        locations, for messages.

    Raises:
        ReportError: a ``.npy`` file (no columns), a missing column (the message lists
            the columns there are), or a row without one of the columns.
    """
    path = Path(source)
    fmt = detect_format(path)
    if fmt == "npy":
        raise ReportError(source, f"a .npy matrix has no `{columns[0]}` column; save the runs "
                                  "as JSONL, CSV or Parquet with the ids beside the outcomes")
    if fmt in ("parquet", "datasets"):
        values = {name: _arrow_column(source, path, fmt, name) for name in columns}
        size = len(values[columns[0]])
        return values, [f"row {i}" for i in range(1, size + 1)]
    if fmt == "jsonl":
        records, where = _jsonl_records(source, path)
    elif fmt == "json":
        records, where = _json_records(source, path, columns)
    else:
        records, where = _csv_records(source, path, "\t" if fmt == "tsv" else ",")
    values = {name: [] for name in columns}
    for record, place in zip(records, where, strict=True):
        for name in columns:
            if not isinstance(record, dict) or name not in record:
                names = list(record) if isinstance(record, dict) else []
                raise _missing(source, name, names, place)
            values[name].append(record[name])
    return values, where


def column_names(source: str) -> list[str]:
    """The columns of a file (those of its first record for JSONL and JSON lists)."""
    path = Path(source)
    fmt = detect_format(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        _need_pyarrow(source)
        return list(pq.read_schema(str(path)).names)
    if fmt == "datasets":
        pa = _need_pyarrow(source)
        with pa.memory_map(str(dataset_files(source, path)[0])) as handle:
            return list(pa.ipc.open_stream(handle).schema.names)
    if fmt == "npy":
        return []
    if fmt == "jsonl":
        records, _ = _jsonl_records(source, path)
    elif fmt == "json":
        document = json.loads(read_text(source, path))
        records = [document] if isinstance(document, dict) else document
    else:
        text = read_text(source, path)
        header = next(csv.reader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ","), [])
        return [name.strip() for name in header]
    first = records[0] if records else {}
    return list(first) if isinstance(first, dict) else []


def read_labels(source: str, column: str) -> list[Any]:
    """The values of a scalar label column (question ids, clusters), one per row.

    Args:
        source: an outcome file or a saved ``datasets`` directory.
        column: the label column, e.g. ``question_id``.

    Returns:
        One str or int per row.

    Raises:
        ReportError: no such column, or a label that is not a string or an integer.
    """
    values, where = read_columns(source, [column])
    return [label(source, column, value, place)
            for value, place in zip(values[column], where, strict=True)]


def label(source: str, column: str, value: Any, place: str) -> Any:
    """A question id or cluster label: a str or an int, or a ReportError naming the row."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ReportError(source, f"`{column}` must hold a string or integer label; got "
                                  f"{show(value)}", place)
    return value


def _missing(source: str, column: str, names: list[str], where: str | None = None) -> ReportError:
    return ReportError(source, f"no `{column}` column; the columns are "
                               f"{', '.join(f'`{name}`' for name in names) or 'none'}", where)


def _arrow_column(source: str, path: Path, fmt: str, column: str) -> list[Any]:
    pa = _need_pyarrow(source)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        names = pq.read_schema(str(path)).names
        if column not in names:
            raise _missing(source, column, names)
        return pq.read_table(str(path), columns=[column]).column(column).to_pylist()
    values: list[Any] = []
    for file in dataset_files(source, path):
        with pa.memory_map(str(file)) as handle:
            table = pa.ipc.open_stream(handle).read_all()
        if column not in table.column_names:
            raise _missing(source, column, table.column_names)
        values.extend(table.column(column).to_pylist())
    return values


def _jsonl_records(source: str, path: Path) -> tuple[list[Any], list[str]]:
    records, where = [], []
    for number, line in enumerate(read_text(source, path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            raise ReportError(source, "not valid JSON", f"line {number}") from None
        where.append(f"line {number}")
    return records, where


def _json_records(source: str, path: Path, columns: list[str]) -> tuple[list[Any], list[str]]:
    try:
        document = json.loads(read_text(source, path))
    except ValueError as error:
        raise ReportError(source, f"not valid JSON ({getattr(error, 'msg', error)})") from None
    if isinstance(document, dict):  # an object of columns
        for name in columns:
            if not isinstance(document.get(name), list):
                raise _missing(source, name, list(document))
        size = len(document[columns[0]])
        if any(len(document[name]) != size for name in columns):
            raise ReportError(source, f"the columns {', '.join(columns)} have different lengths")
        records = [{name: document[name][i] for name in columns} for i in range(size)]
        return records, [f"row {i}" for i in range(1, size + 1)]
    if not isinstance(document, list):
        raise ReportError(source, f"a JSON {type(document).__name__}; expected a list of "
                                  "records or an object of columns")
    return document, [f"record {i}" for i in range(1, len(document) + 1)]


def _csv_records(source: str, path: Path, delimiter: str) -> tuple[list[Any], list[str]]:
    reader = csv.DictReader(io.StringIO(read_text(source, path), newline=""),
                            delimiter=delimiter)
    records, where = [], []
    for record in reader:
        records.append({(key or "").strip(): (value.strip() if isinstance(value, str) else value)
                        for key, value in record.items()})
        where.append(f"line {reader.line_num}")
    if reader.fieldnames is None:
        raise ReportError(source, "no header line; a CSV needs column names")
    return records, where
