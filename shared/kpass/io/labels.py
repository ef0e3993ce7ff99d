"""Per-question labels beside the outcomes: question ids (``--id``) and clusters (``--clusters``).

One value per row, in the order :func:`kpass.io.formats.readers.load_counts` counts the rows,
so the labels line up with the counts question by question. Labels are short, so a
file's label column is read whole (the outcomes themselves are still streamed).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from .errors import ReportError, show
from .formats.base import _need_pyarrow, detect_format
from .formats.parsers import dataset_files, read_text
from .rows import canonical_id, check_nesting, json_problem


def read_labels(source: str, column: str) -> list[Any]:
    """The values of a scalar column, one per question row.

    Args:
        source: an outcome file (JSONL, JSON, CSV/TSV, .gz of those, Parquet) or a saved
            ``datasets`` directory.
        column: the label column, e.g. ``question_id``.

    Returns:
        One str or int per row (other JSON scalars are refused), by the rule of
        :func:`kpass.io.rows.canonical_id`: strings stripped, integer text as the
        integer, so ``7`` in one file and ``"7"`` in another are the same label.

    Raises:
        ReportError: a ``.npy`` file (no columns), a missing column (the message lists
            the columns there are), a row without the column, or a label that is not a
            string or an integer.
    """
    path = Path(source)
    fmt = detect_format(path)
    if fmt == "npy":
        raise ReportError(source, f"a .npy matrix has no `{column}` column; save the runs as "
                                  "JSONL, CSV or Parquet with the ids beside the outcomes")
    if fmt in ("parquet", "datasets"):
        values, where = _arrow_column(source, path, fmt, column), "row"
    elif fmt == "jsonl":
        values, where = _jsonl_column(source, path, column), "line"
    elif fmt == "json":
        values, where = _json_column(source, path, column), "question"
    else:
        values, where = _csv_column(source, path, column, "\t" if fmt == "tsv" else ","), "line"
    return [_label(source, column, value, where, position)
            for position, value in enumerate(values, 1)]


def _label(source: str, column: str, value: Any, where: str, position: int) -> Any:
    place = f"{where} {position + 1 if where == 'line' else position}"
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ReportError(source, f"`{column}` must hold a string or integer label per "
                                  f"question; got {show(value)}", place)
    return canonical_id(value, source, place, f"`{column}` label")


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


def _jsonl_column(source: str, path: Path, column: str) -> list[Any]:
    values = []
    for number, line in enumerate(read_text(source, path).splitlines(), 1):
        if not line.strip():
            continue
        check_nesting(line, source, f"line {number}")  # before the parser recurses
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as error:
            raise ReportError(source, json_problem(error), f"line {number}") from None
        if not isinstance(record, dict) or column not in record:
            names = list(record) if isinstance(record, dict) else []
            raise _missing(source, column, names, f"line {number}")
        values.append(record[column])
    return values


def _json_column(source: str, path: Path, column: str) -> list[Any]:
    text = read_text(source, path)
    check_nesting(text, source)  # before the parser recurses
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ReportError(source, json_problem(error)) from None
    if isinstance(document, dict):
        if not isinstance(document.get(column), list):
            raise _missing(source, column, list(document))
        return document[column]
    if not isinstance(document, list):
        raise ReportError(source, f"a JSON {type(document).__name__}; expected a list of "
                                  "records or an object of columns")
    values = []
    for position, record in enumerate(document, 1):
        if not isinstance(record, dict) or column not in record:
            raise _missing(source, column, list(record) if isinstance(record, dict) else [],
                           f"question {position}")
        values.append(record[column])
    return values


def _csv_column(source: str, path: Path, column: str, delimiter: str) -> list[Any]:
    reader = csv.DictReader(io.StringIO(read_text(source, path), newline=""),
                            delimiter=delimiter)
    names = [name.strip() for name in reader.fieldnames or []]
    if column not in names:
        raise _missing(source, column, names)
    key = (reader.fieldnames or [])[names.index(column)]
    values = []
    for record in reader:
        value = record.get(key)
        if value is None:
            raise ReportError(source, f"the row has no `{column}` cell",
                              f"line {reader.line_num}")
        values.append(value.strip())
    return values
