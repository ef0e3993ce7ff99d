r"""Long tables read row by row: each format's rows as chunks for :mod:`kpass.io.long.load`.

:func:`kpass.io.long.load.load_long` tallies a long file (one row per sample) chunk by
chunk; the readers here turn each format -- CSV, TSV, JSONL, JSON, Parquet, a saved
``datasets`` directory -- into those chunks. A chunk is ``(where, ids, samples,
values, costs)``: the place of each row (``line 12``, ``record 3``, ``row 7``), its
question id and sample id as read (``None`` when no such column was named), its outcome
value or list, and its ``names["cost"]`` cell (``--cost COLUMN``; ``costs`` is None when no
cost column was named). With ``names["by"]`` (``--by COLUMN``) each id is a pair ``(by value,
question id)``, so one tally groups on both. Nothing is checked or counted here beyond
the columns being present (:func:`_need` picks the outcome column); the tally refuses
bad values with their place.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "long.csv"
    >>> _ = path.write_text("id,correct\nq1,1\nq1,0\n")
    >>> names = {"id": "id", "sample": None, "column": None}
    >>> list(_CHUNKS["csv"](str(path), path, names, 10))
    [(['line 2', 'line 3'], ['q1', 'q1'], [None, None], ['1', '0'], None)]
    >>> names["column"]
    'correct'
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ReportError, show
from ..formats.parsers import _open_bytes, dataset_files, parse_cell
from ..formats.scalar_cells import _is_scalar_cell
from ..rows import MAX_NESTING, Unreadable, check_nesting, json_problem, pick_column

# ----------------------------------------------------------------------------- formats
# Each yields chunks (where, ids, samples or None, outcome values, costs or None) and fills
# names["column"] with the outcome column it picked.

Chunk = tuple[list[str], list[Any] | None, list[Any] | None, list[Any], list[Any] | None]


def _need(names: dict[str, Any], present: list[str], source: str, where: str | None) -> None:
    found = ", ".join(f"`{n}`" for n in present) or "none"
    for option in ("id", "sample", "by", "cost"):
        if names.get(option) is not None and names[option] not in present:
            raise ReportError(source, f"no column `{names[option]}` (--{option}); the columns "
                                      f"are {found}", where)
    names["column"] = pick_column(present, names["column"], source, where)


def _csv_chunks(source: str, path: Path, names: dict[str, Any], size: int,
                delimiter: str = ",") -> Iterator[Chunk]:
    with _open_bytes(path) as (stream, _raw):
        # utf-8-sig: a BOM (Excel, Notepad) is not part of the first column's name
        # Bad bytes are kept as surrogates: an error in the cells read (id, sample,
        # outcome), with their line; ignored elsewhere, as the fast path ignores them.
        reader = csv.reader(io.TextIOWrapper(stream, encoding="utf-8-sig",
                                             errors="surrogateescape", newline=""),
                            delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise ReportError(source, "the file holds no header and no questions")
        header = [name.strip() for name in header]
        _need(names, header, source, "line 1")
        cols = [header.index(names[key]) if names[key] else None
                for key in ("id", "sample", "column")]
        value_col = header.index(names["column"])  # set by _need
        by_col = header.index(names["by"]) if names.get("by") else None
        cost_col = header.index(names["cost"]) if names.get("cost") else None
        width = max(c for c in [*cols, by_col, cost_col] if c is not None)
        where: list[str] = []
        ids: list[Any] = []
        samples: list[Any] = []
        values: list[Any] = []
        costs: list[Any] = []
        start = reader.line_num
        for record in reader:
            line, start = f"line {start + 1}", reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if width >= len(record):
                raise ReportError(source, f"the row has {len(record)} fields; expected at least "
                                          f"{width + 1}", line)
            for key, col in zip(("id", "sample", "column", "by", "cost"),
                                [*cols, by_col, cost_col], strict=True):
                if col is not None and _SURROGATE.search(record[col]):
                    raise ReportError(source, not_utf8(names[key]), line)
            where.append(line)
            qid = record[cols[0]] if cols[0] is not None else None
            ids.append(qid if by_col is None else (record[by_col], qid))
            samples.append(record[cols[1]] if cols[1] is not None else None)
            values.append(_text_cell(record[value_col], source, line))
            if cost_col is not None:
                costs.append(record[cost_col].strip())
            if len(where) >= size:
                yield (where, None if cols[0] is None else ids, samples, values,
                       None if cost_col is None else costs)
                where, ids, samples, values, costs = [], [], [], [], []
        if where:
            yield (where, None if cols[0] is None else ids, samples, values,
                   None if cost_col is None else costs)


_SURROGATE = re.compile("[\udc80-\udcff]")


def not_utf8(column: str) -> str:
    """The message for bytes that are not UTF-8 in a cell kpass reads."""
    return f"not UTF-8 text (bytes that are not UTF-8 in the `{column}` cell)"


def _has_bad_bytes(value: Any) -> bool:
    """Whether a decoded value holds bytes that were not UTF-8 (kept as surrogates)."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, (list, tuple)):
        return any(_has_bad_bytes(item) for item in value)
    if isinstance(value, dict):
        return any(_has_bad_bytes(item) for item in value.values())
    return False


def _loads(data: bytes) -> Any:
    """JSON text parsed; bytes that are not UTF-8 kept as surrogates (judged where read).

    UTF-8 text (the rule for JSON) is parsed as before; only text with a bad byte is
    decoded here, so that a bad byte in a field kpass does not read is ignored.
    """
    try:
        return json.loads(data)
    except UnicodeDecodeError:
        return json.loads(data.decode("utf-8", "surrogateescape").lstrip("\ufeff"))


def _text_cell(text: str, source: str, where: str) -> Any:
    """A CSV cell: a list (``[1, 0]``, ``1 0 1``) for wide rows, else the scalar text."""
    cell = text.strip()
    if _is_scalar_cell(cell):
        return cell
    values = parse_cell(cell)
    if isinstance(values, Unreadable):
        raise ReportError(source, values.problem, where)
    return values


def _tsv_chunks(source: str, path: Path, names: dict[str, Any], size: int) -> Iterator[Chunk]:
    return _csv_chunks(source, path, names, size, "\t")


def _record_chunks(records: Iterator[tuple[str, Any]], source: str, names: dict[str, Any],
                   size: int) -> Iterator[Chunk]:
    where: list[str] = []
    ids: list[Any] = []
    samples: list[Any] = []
    values: list[Any] = []
    costs: list[Any] = []
    cost = names.get("cost")
    checked = False
    for line, record in records:
        if not isinstance(record, dict):
            raise ReportError(source, f"expected an object with fields; got {show(record)}", line)
        if not checked:
            checked = True
            _need(names, list(record), source, line)
        for key in ("id", "sample", "column", "by", "cost"):
            if names.get(key) is not None and names[key] not in record:
                raise ReportError(source, f"the record has no `{names[key]}` field", line)
        for key in ("id", "sample", "column", "by", "cost"):
            if names.get(key) is not None and _has_bad_bytes(record[names[key]]):
                raise ReportError(source, not_utf8(names[key]), line)
        where.append(line)
        qid = record[names["id"]] if names["id"] else None
        ids.append((record[names["by"]], qid) if names.get("by") else qid)
        samples.append(record[names["sample"]] if names["sample"] else None)
        values.append(record[names["column"]])
        if cost:
            costs.append(record[cost])
        if len(where) >= size:
            yield where, ids if names["id"] else None, samples, values, costs if cost else None
            where, ids, samples, values, costs = [], [], [], [], []
    if where:
        yield where, ids if names["id"] else None, samples, values, costs if cost else None


def _jsonl_chunks(source: str, path: Path, names: dict[str, Any], size: int) -> Iterator[Chunk]:
    def records() -> Iterator[tuple[str, Any]]:
        with _open_bytes(path) as (stream, _raw):
            for number, raw_line in enumerate(stream, 1):
                if not raw_line.strip():
                    continue
                if raw_line.count(b"[") + raw_line.count(b"{") > MAX_NESTING:  # cheap bound
                    check_nesting(raw_line, source, f"line {number}")  # before json recurses
                try:
                    record = _loads(raw_line)
                except json.JSONDecodeError as error:
                    raise ReportError(source, f"not valid JSON ({error.msg})",
                                      f"line {number}") from None
                except (ValueError, RecursionError) as error:  # e.g. a 5000-digit number
                    raise ReportError(source, json_problem(error), f"line {number}") from None
                yield f"line {number}", record

    return _record_chunks(records(), source, names, size)


def _json_chunks(source: str, path: Path, names: dict[str, Any], size: int) -> Iterator[Chunk]:
    with _open_bytes(path) as (stream, _raw):
        data = stream.read()
    check_nesting(data, source)  # before the parser recurses
    try:
        document = _loads(data)
    except json.JSONDecodeError as error:
        raise ReportError(source, f"not valid JSON ({error.msg})",
                          f"line {error.lineno}") from None
    except (ValueError, RecursionError) as error:  # e.g. a 5000-digit number
        raise ReportError(source, json_problem(error)) from None
    if isinstance(document, dict):  # columns: {"id": [...], "correct": [...]}
        keys = list(document)
        lengths = {len(v) for v in document.values() if isinstance(v, list)}
        if len(lengths) != 1 or not all(isinstance(v, list) for v in document.values()):
            raise ReportError(source, "a JSON object must map each column to a list of one "
                                      "length")
        document = [dict(zip(keys, row, strict=True)) for row in zip(*document.values(),
                                                                     strict=True)]
    if not isinstance(document, list):
        raise ReportError(source, "expected a list of records or an object of columns")
    return _record_chunks(((f"record {i}", r) for i, r in enumerate(document, 1)), source,
                          names, size)


def _arrow_chunks(batches: Iterator[Any], names: dict[str, Any]) -> Iterator[Chunk]:
    first = 0
    for batch in batches:
        where = [f"row {first + i + 1}" for i in range(batch.num_rows)]
        first += batch.num_rows
        samples = batch.column(names["sample"]).to_pylist() if names["sample"] else None
        ids = batch.column(names["id"]).to_pylist() if names["id"] else None
        if names.get("by") and ids is not None:
            ids = list(zip(batch.column(names["by"]).to_pylist(), ids, strict=True))
        costs = batch.column(names["cost"]).to_pylist() if names.get("cost") else None
        yield where, ids, samples, batch.column(names["column"]).to_pylist(), costs


def _parquet_chunks(source: str, path: Path, names: dict[str, Any], size: int
                    ) -> Iterator[Chunk]:
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
    except Exception as error:  # noqa: BLE001 - pyarrow raises several types here
        raise ReportError(source, f"not a readable Parquet file ({error})") from None
    present = handle.schema_arrow.names
    _need(names, present, source, None)
    wanted = list(dict.fromkeys(n for n in (names["id"], names["sample"], names["column"],
                                            names.get("by"), names.get("cost")) if n))
    return _arrow_chunks(handle.iter_batches(batch_size=size, columns=wanted), names)


def _datasets_chunks(source: str, path: Path, names: dict[str, Any], size: int
                     ) -> Iterator[Chunk]:
    import pyarrow as pa

    # the checked list of Arrow files (a broken state.json or empty _data_files is refused)
    files = dataset_files(source, path)

    def batches() -> Iterator[Any]:
        for file in files:
            with pa.memory_map(str(file)) as handle:
                for record_batch in pa.ipc.open_stream(handle):
                    for start in range(0, record_batch.num_rows, size):
                        yield record_batch.slice(start, size)

    with pa.memory_map(str(files[0])) as handle:
        _need(names, pa.ipc.open_stream(handle).schema.names, source, None)
    return _arrow_chunks(batches(), names)


_CHUNKS = {"csv": _csv_chunks, "tsv": _tsv_chunks, "jsonl": _jsonl_chunks,
           "json": _json_chunks, "parquet": _parquet_chunks, "datasets": _datasets_chunks}
