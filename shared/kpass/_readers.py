"""Outcome files -> validated per-question counts, read in chunks.

``kpass report`` reads JSONL, JSON, CSV/TSV (optionally gzipped), Parquet, NumPy
``.npy`` and saved Hugging Face ``datasets`` directories. Every reader yields
:class:`Batch` es of per-question outcome lists together with where each one came
from (``line 12``, ``row 7``); :func:`load_counts` validates and counts each batch
and keeps only the counts, so memory stays O(questions) whatever the file size.

A row whose outcome list cannot be read (bad JSON, a missing field, a value other
than 0/1, an empty list) is never dropped or guessed: it stops the run with a
:class:`ReportError` naming the file, the line and the problem, or, when the
caller asks to skip bad rows, it is left out and listed in ``LoadedFile.bad_rows``.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ._inputs import BinaryCounts
from ._progress import Progress

OUTCOME_COLUMNS = ("outcomes", "correct", "scores")
"""Columns searched, in this order, when ``--column`` is not given."""

FORMATS = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv",
    ".parquet": "parquet", ".pq": "parquet", ".npy": "npy",
}
"""File suffix -> format; ``.gz`` may follow the text formats; directories are datasets."""

INSTALL_HINT = "install kpass[report] (pip install 'kpass[report]')"


class ReportError(ValueError):
    """A file, row or argument ``kpass report`` cannot use; ``str()`` is a one-line message."""

    def __init__(self, source: str, problem: str, where: str | None = None) -> None:
        self.source = source
        self.where = where
        self.problem = problem
        super().__init__(f"{source}: {where}: {problem}" if where else f"{source}: {problem}")


class _BadRowError(Exception):
    """Row ``index`` of a batch cannot be read (internal; becomes a ReportError)."""

    def __init__(self, index: int, problem: str) -> None:
        super().__init__(problem)
        self.index = index
        self.problem = problem


@dataclass(frozen=True)
class _Unreadable:
    """Stands in for a row the reader could not parse; counting reports it."""

    problem: str


@dataclass
class Batch:
    """A chunk of per-question outcome lists and where each one came from.

    Attributes:
        rows: a list of outcome lists (text formats), a 2-D array (``.npy``) or a
            pyarrow list array (Parquet, datasets).
        first: 0-based index in the file of the first row of the chunk.
        unit: how rows are located in messages: ``line``, ``row``, ``question``.
        lines: the line of each row, for the text formats.
    """

    rows: Any
    first: int
    unit: str = "row"
    lines: list[int] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def where(self, index: int) -> str:
        """Where row ``index`` of this batch is in the file, e.g. ``line 12``."""
        if self.lines is not None:
            return f"{self.unit} {self.lines[index]}"
        return f"{self.unit} {self.first + index + 1}"

    def part(self, start: int, stop: int) -> Batch:
        """The rows ``start:stop`` of this batch."""
        lines = None if self.lines is None else self.lines[start:stop]
        return Batch(self.rows[start:stop], self.first + start, self.unit, lines)


@dataclass
class LoadedFile:
    """The counts of one outcome file and what was learnt reading it.

    Attributes:
        source: the path as given (or a label for the bundled sample).
        path: the file's path.
        column: the outcome column used (``None`` for a bare ``.npy`` matrix).
        counts: per-question ``(n_samples, n_correct)``.
        shortest: where the question with the fewest samples is, for messages.
        bad_rows: ``(where, problem)`` of each row left out (only with skip_bad).
    """

    source: str
    path: Path
    column: str | None
    counts: BinaryCounts
    shortest: str
    bad_rows: list[tuple[str, str]] = field(default_factory=list)

    @property
    def n_min(self) -> int:
        """The smallest number of samples of a question."""
        return int(self.counts.n_samples.min())

    @property
    def n_max(self) -> int:
        """The largest number of samples of a question."""
        return int(self.counts.n_samples.max())


# ----------------------------------------------------------------------------- entry point


def detect_format(path: Path) -> str:
    """The format of ``path`` from its suffix (``datasets`` for a directory).

    Args:
        path: an existing file or directory.

    Returns:
        One of ``jsonl``, ``json``, ``csv``, ``tsv``, ``parquet``, ``npy``, ``datasets``.

    Raises:
        ReportError: the suffix is not one kpass reads.
    """
    if path.is_dir():
        return "datasets"
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
        if suffixes and FORMATS.get(suffixes[-1]) in ("jsonl", "json", "csv", "tsv"):
            return FORMATS[suffixes[-1]]
    elif suffixes and suffixes[-1] in FORMATS:
        return FORMATS[suffixes[-1]]
    known = ", ".join(sorted(FORMATS)) + " (text formats also .gz), or a datasets directory"
    suffix = "".join(path.suffixes) or "(no suffix)"
    raise ReportError(str(path), f"unknown file type {suffix!r}; kpass reads {known}")


def load_counts(source: str, *, column: str | None = None, chunk_size: int = 65536,
                skip_bad: bool = False, progress: Progress | None = None) -> LoadedFile:
    """Read an outcome file chunk by chunk and count each question's outcomes.

    Args:
        source: path of a JSONL, JSON, CSV/TSV, Parquet or ``.npy`` file, or of a
            saved ``datasets`` directory.
        column: the outcome column; by default the first of ``outcomes``,
            ``correct``, ``scores`` that the file has.
        chunk_size: rows validated and counted at a time.
        skip_bad: leave unreadable rows out (listed in ``bad_rows``) instead of
            stopping at the first one.
        progress: a progress bar to drive, or None.

    Returns:
        The file's counts, its outcome column and any rows left out.

    Raises:
        ReportError: the file is missing, empty or unreadable, has no outcome
            column, or a row is unreadable and ``skip_bad`` is false.

    Example:
        >>> from kpass.data import sample_path
        >>> loaded = load_counts(str(sample_path()))
        >>> loaded.column, loaded.counts.n_questions, loaded.n_min
        ('outcomes', 50, 4)
    """
    path = Path(source)
    if not path.exists():
        raise ReportError(source, "no such file or directory")
    fmt = detect_format(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ReportError(source, "the file is empty; it holds no questions")
    reader = _READERS[fmt](source, path, column, max(1, chunk_size), progress)
    parts: list[BinaryCounts] = []
    bad_rows: list[tuple[str, str]] = []
    shortest: tuple[int, str] | None = None
    try:
        for batch in reader.batches():
            for counts, part in _count_batch(batch, reader.label, source, skip_bad, bad_rows):
                parts.append(counts)
                index = int(np.argmin(counts.n_samples))
                if shortest is None or counts.n_samples[index] < shortest[0]:
                    shortest = (int(counts.n_samples[index]), part.where(index))
    finally:
        if progress is not None:
            progress.close()
    if not parts:
        if bad_rows:
            raise ReportError(source, f"no readable question; all {len(bad_rows)} rows are bad "
                                      f"(first: {bad_rows[0][0]}: {bad_rows[0][1]})")
        raise ReportError(source, "the file holds no questions")
    assert shortest is not None
    return LoadedFile(source, path, reader.column, BinaryCounts.concat(parts), shortest[1],
                      bad_rows)


def _count_batch(batch: Batch, label: str, source: str, skip_bad: bool,
                 bad_rows: list[tuple[str, str]]) -> Iterator[tuple[BinaryCounts, Batch]]:
    """Count a batch; at a bad row raise, or (skip_bad) record it and count the rest."""
    start = 0
    while start < len(batch):
        part = batch.part(start, len(batch)) if start else batch
        try:
            yield count_rows(part.rows, label), part
            return
        except _BadRowError as bad:
            where = part.where(bad.index)
            if not skip_bad:
                raise ReportError(source, bad.problem, where) from None
            bad_rows.append((where, bad.problem))
            if bad.index:
                good = part.part(0, bad.index)
                yield count_rows(good.rows, label), good
            start += bad.index + 1


# ----------------------------------------------------------------------------- counting


def count_rows(rows: Any, label: str = "outcomes") -> BinaryCounts:
    """Validate one chunk of outcome lists and count them.

    Args:
        rows: a list of per-question outcome lists, a 2-D array or a pyarrow list array.
        label: the column name, for messages.

    Returns:
        The chunk's per-question counts.

    Raises:
        _BadRowError: a row that is not a non-empty list of 0/1 values (index and problem).
    """
    if isinstance(rows, np.ndarray):
        m, n = rows.shape
        values, lengths = np.asarray(rows).reshape(-1), np.full(m, n, dtype=np.int64)
    elif isinstance(rows, list):
        values, lengths = _python_flat(rows, label)
    else:
        values, lengths = _arrow_flat(rows, label)
    if values.dtype.kind == "b":
        ints = values.astype(np.int64)
    else:
        bad = (values != 0) & (values != 1)
        if bad.any():
            flat_index = int(np.flatnonzero(bad)[0])
            row, position = _locate(flat_index, lengths)
            value = _show(values[flat_index].item())
            raise _BadRowError(row, f"`{label}` must hold binary outcomes 0 or 1 for the pass "
                                    f"metrics; got {label}[{position}]={value}")
        ints = values.astype(np.int64)
    starts = np.cumsum(lengths) - lengths
    return BinaryCounts(lengths, np.add.reduceat(ints, starts).astype(np.int64))


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _locate(flat_index: int, lengths: np.ndarray) -> tuple[int, int]:
    ends = np.cumsum(lengths)
    row = int(np.searchsorted(ends, flat_index, side="right"))
    return row, flat_index - (int(ends[row - 1]) if row else 0)


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _python_flat(rows: list[Any], label: str) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.empty(len(rows), dtype=np.int64)
    for index, row in enumerate(rows):
        if isinstance(row, _Unreadable):
            raise _BadRowError(index, row.problem)
        if not isinstance(row, (list, tuple, np.ndarray)):
            raise _BadRowError(index, f"`{label}` must be a list of outcomes; got {_show(row)} "
                                 f"({type(row).__name__})")
        if len(row) == 0:
            raise _BadRowError(index, f"`{label}` is an empty list; a question needs at least one "
                                 "sample")
        lengths[index] = len(row)
    flat = list(chain.from_iterable(rows))
    try:
        values = np.asarray(flat)
    except (TypeError, ValueError):
        values = np.asarray(flat, dtype=object)
    if values.ndim != 1 or values.dtype.kind not in "biuf":
        for flat_index, value in enumerate(flat):
            if not _is_number(value):
                row, position = _locate(flat_index, lengths)
                raise _BadRowError(row, f"`{label}` must hold outcomes 0 or 1; got "
                                   f"{label}[{position}]={_show(value)} ({type(value).__name__})")
        values = np.asarray(flat, dtype=np.float64)  # huge integers: numbers, not 0/1
    return values, lengths


def _arrow_flat(array: Any, label: str) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        row = int(np.argmax(pc.is_null(array).to_numpy(zero_copy_only=False)))
        raise _BadRowError(row, f"`{label}` is missing (null)")
    lengths = pc.list_value_length(array).to_numpy(zero_copy_only=False).astype(np.int64)
    if lengths.size and lengths.min() == 0:
        raise _BadRowError(int(np.argmin(lengths)), f"`{label}` is an empty list; a question needs "
                                               "at least one sample")
    flat = pc.list_flatten(array)
    if flat.null_count:
        flat_index = int(np.argmax(pc.is_null(flat).to_numpy(zero_copy_only=False)))
        row, position = _locate(flat_index, lengths)
        raise _BadRowError(row, f"`{label}` must hold outcomes 0 or 1; got "
                                f"{label}[{position}]=null")
    return flat.to_numpy(zero_copy_only=False), lengths


def _check_arrow_type(arrow_type: Any, source: str, column: str) -> None:
    import pyarrow as pa

    is_list = (pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)
               or pa.types.is_fixed_size_list(arrow_type))
    if is_list:
        inner = arrow_type.value_type
        if pa.types.is_boolean(inner) or pa.types.is_integer(inner) or pa.types.is_floating(inner):
            return
        raise ReportError(source, f"column `{column}` holds lists of {inner}; expected lists of "
                                  "0/1 outcomes (bool, int or float)")
    raise ReportError(source, f"column `{column}` has type {arrow_type}; expected one list of "
                              "0/1 outcomes per question")


def pick_column(names: list[str], requested: str | None, source: str,
                where: str | None = None) -> str:
    """Choose the outcome column among ``names``.

    Args:
        names: the columns (fields) the file has.
        requested: the ``--column`` value, or None to search ``OUTCOME_COLUMNS``.
        source: the file, for messages.
        where: where the names were found (e.g. ``line 1``), for messages.

    Returns:
        The column to read.

    Raises:
        ReportError: the requested column is missing, or none of the default ones exists.
    """
    found = ", ".join(f"`{name}`" for name in names) or "none"
    if requested is not None:
        if requested in names:
            return requested
        raise ReportError(source, f"no column `{requested}`; the columns are {found}", where)
    for name in OUTCOME_COLUMNS:
        if name in names:
            return name
    raise ReportError(source, f"no outcome column (looked for `outcomes`, `correct`, `scores`); "
                              f"the columns are {found}; choose one with --column NAME", where)


# ----------------------------------------------------------------------------- readers


@contextmanager
def _open_bytes(path: Path) -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """Open a file for reading bytes (gunzipping ``.gz``); also yield the raw file for tell()."""
    with open(path, "rb") as raw:
        if path.suffix.lower() == ".gz":
            with gzip.GzipFile(fileobj=raw) as stream:
                yield stream, raw
        else:
            yield raw, raw


class _Reader:
    """Common state of a reader: the file, the column, the chunk size, the progress bar."""

    def __init__(self, source: str, path: Path, column: str | None, chunk_size: int,
                 progress: Progress | None) -> None:
        self.source = source
        self.path = path
        self.requested = column
        self.column: str | None = column
        self.chunk_size = chunk_size
        self.progress = progress

    @property
    def label(self) -> str:
        return self.column or "outcomes"

    def _start(self, total: float, unit: str) -> None:
        if self.progress is not None:
            self.progress.start(total, unit)

    def _update(self, done: float) -> None:
        if self.progress is not None:
            self.progress.update(done)

    def batches(self) -> Iterator[Batch]:  # pragma: no cover - every reader overrides it
        raise NotImplementedError


class _RecordReader(_Reader):
    """Shared by JSON and JSONL: a record is an object with the column, or a bare list."""

    def _value(self, record: Any, where: str) -> Any:
        if isinstance(record, dict):
            if self.column is None:
                self.column = pick_column(list(record), self.requested, self.source, where)
            if self.column not in record:
                return _Unreadable(f"the record has no `{self.column}` field")
            return record[self.column]
        if isinstance(record, list):
            if self.requested is not None:
                return _Unreadable(f"the record is a bare list, not an object with "
                                   f"`{self.requested}`")
            return record
        return _Unreadable(f"expected an object with the outcome list; got {_show(record)}")


class _JsonlReader(_RecordReader):
    def batches(self) -> Iterator[Batch]:
        self._start(self.path.stat().st_size, "bytes")
        rows: list[Any] = []
        lines: list[int] = []
        with _open_bytes(self.path) as (stream, raw):
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as error:
                    message = getattr(error, "msg", str(error))
                    rows.append(_Unreadable(f"not valid JSON ({message})"))
                else:
                    rows.append(self._value(record, f"line {number}"))
                lines.append(number)
                if len(rows) >= self.chunk_size:
                    yield Batch(rows, 0, "line", lines)
                    self._update(raw.tell())
                    rows, lines = [], []
            if rows:
                yield Batch(rows, 0, "line", lines)
            self._update(raw.tell())


class _JsonReader(_RecordReader):
    """A whole JSON document: a list of records or lists, or an object of columns."""

    def batches(self) -> Iterator[Batch]:
        with _open_bytes(self.path) as (stream, _):
            text = stream.read().decode("utf-8")
        decoder = json.JSONDecoder()
        start = _skip_space(text, 0)
        if start == len(text):
            raise ReportError(self.source, "the file holds no JSON value")
        try:
            document, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as error:
            raise ReportError(self.source, f"not valid JSON ({error.msg})",
                              f"line {error.lineno}") from None
        if _skip_space(text, end) < len(text):
            # More than one JSON value: it is JSON Lines with a .json name.
            lines_reader = _JsonlReader(self.source, self.path, self.requested, self.chunk_size,
                                        self.progress)
            for batch in lines_reader.batches():
                self.column = lines_reader.column
                yield batch
            return
        if isinstance(document, list):
            yield from self._records(document, _element_lines(text, start))
        elif isinstance(document, dict):
            yield from self._columns(document)
        else:
            raise ReportError(self.source, "expected a list of records or an object of columns; "
                                           f"got {_show(document)}", "line 1")

    def _records(self, document: list[Any], lines: list[int]) -> Iterator[Batch]:
        for first in range(0, len(document), self.chunk_size):
            chunk = document[first:first + self.chunk_size]
            where = lines[first:first + self.chunk_size]
            rows = [self._value(record, f"line {line}")
                    for record, line in zip(chunk, where, strict=True)]
            yield Batch(rows, first, "line", where)

    def _columns(self, document: dict[str, Any]) -> Iterator[Batch]:
        self.column = pick_column(list(document), self.requested, self.source)
        values = document[self.column]
        if not isinstance(values, list):
            raise ReportError(self.source, f"`{self.column}` must be a list of outcome lists (or "
                                           f"one question's outcomes); got {_show(values)}")
        if not any(isinstance(value, list) for value in values):
            values = [values]  # one question's outcomes, as in the AIME sample
        for first in range(0, len(values), self.chunk_size):
            yield Batch(values[first:first + self.chunk_size], first, "question")


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _element_lines(text: str, start: int) -> list[int]:
    """The line on which each element of the top-level JSON array starting at ``start`` begins."""
    decoder = json.JSONDecoder()
    lines = []
    line, counted = 1 + text.count("\n", 0, start), start
    index = _skip_space(text, start + 1)
    while index < len(text) and text[index] != "]":
        line += text.count("\n", counted, index)
        counted = index
        lines.append(line)
        _, end = decoder.raw_decode(text, index)
        index = _skip_space(text, end)
        if index < len(text) and text[index] == ",":
            index = _skip_space(text, index + 1)
    return lines


_CELL_SPLIT = re.compile(r"[\s,;|]+")


def parse_cell(text: str) -> list[Any] | _Unreadable:
    """Read one CSV cell holding a question's outcomes.

    Accepts ``[1, 0, 1]`` (JSON or Python list syntax, ``True``/``False`` too) and
    ``1 0 1``, ``1;0;1``, ``1|0|1``. Values stay as read, so ``0.5`` is reported
    later as not binary rather than rounded.

    Args:
        text: the cell.

    Returns:
        The outcomes, or an ``_Unreadable`` saying why they cannot be read.

    Example:
        >>> parse_cell("[True, False, 1]")
        [True, False, 1]
    """
    cell = text.strip()
    if not cell:
        return _Unreadable("the outcome cell is empty")
    if cell[0] in "[(":
        if cell[-1] not in "])":
            return _Unreadable(f"unbalanced brackets in {_show(cell)}")
        cell = cell[1:-1].strip()
    values: list[Any] = []
    for token in _CELL_SPLIT.split(cell):
        if not token:
            continue
        lower = token.lower()
        if lower in ("true", "false"):
            values.append(lower == "true")
            continue
        try:
            values.append(int(token))
        except ValueError:
            try:
                number = float(token)
            except ValueError:
                return _Unreadable(f"cannot read {_show(token)} as an outcome (0 or 1)")
            values.append(number if math.isfinite(number) else token)
    return values


class _CsvReader(_Reader):
    delimiter = ","

    def batches(self) -> Iterator[Batch]:
        self._start(self.path.stat().st_size, "bytes")
        with _open_bytes(self.path) as (stream, raw):
            text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
            reader = csv.reader(text, delimiter=self.delimiter)
            header = next(reader, None)
            while header is not None and not any(cell.strip() for cell in header):
                header = next(reader, None)
            if header is None:
                raise ReportError(self.source, "the file holds no header and no questions")
            names = [name.strip() for name in header]
            self.column = pick_column(names, self.requested, self.source,
                                      f"line {reader.line_num}")
            index = names.index(self.column)
            rows: list[Any] = []
            lines: list[int] = []
            for record in reader:
                if not record or not any(cell.strip() for cell in record):
                    continue
                if index >= len(record):
                    rows.append(_Unreadable(f"the row has {len(record)} fields; `{self.column}` "
                                            f"is field {index + 1}"))
                else:
                    rows.append(parse_cell(record[index]))
                lines.append(reader.line_num)
                if len(rows) >= self.chunk_size:
                    yield Batch(rows, 0, "line", lines)
                    self._update(raw.tell())
                    rows, lines = [], []
            if rows:
                yield Batch(rows, 0, "line", lines)
            self._update(raw.tell())


class _TsvReader(_CsvReader):
    delimiter = "\t"


def _need_pyarrow(what: str) -> Any:
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is installed in the test environment
        raise ReportError(what, f"reading this format needs pyarrow; {INSTALL_HINT}") from None
    return pa


class _ParquetReader(_Reader):
    def batches(self) -> Iterator[Batch]:
        _need_pyarrow(self.source)
        import pyarrow.parquet as pq

        try:
            handle = pq.ParquetFile(self.path)
        except Exception as error:  # noqa: BLE001 - pyarrow raises several types here
            raise ReportError(self.source, f"not a readable Parquet file ({error})") from None
        schema = handle.schema_arrow
        self.column = pick_column(schema.names, self.requested, self.source)
        _check_arrow_type(schema.field(self.column).type, self.source, self.column)
        self._start(handle.metadata.num_rows, "rows")
        first = 0
        for record_batch in handle.iter_batches(batch_size=self.chunk_size, columns=[self.column]):
            yield Batch(record_batch.column(0), first, "row")
            first += record_batch.num_rows
            self._update(first)


class _NpyReader(_Reader):
    def batches(self) -> Iterator[Batch]:
        if self.requested is not None:
            raise ReportError(self.source, "a .npy file is one matrix with no columns; "
                                           "drop --column")
        try:
            matrix = np.load(self.path, mmap_mode="r", allow_pickle=False)
        except ValueError as error:
            problem = ("it holds Python objects (ragged lists?); save a 2-D numeric array, or "
                       "use JSONL or Parquet for lists of different lengths"
                       if "allow_pickle" in str(error) else f"not a readable .npy file ({error})")
            raise ReportError(self.source, problem) from None
        if matrix.ndim != 2:
            raise ReportError(self.source, f"expected a 2-D array (questions x samples); got "
                                           f"shape {matrix.shape} (use shape (1, n) for one "
                                           "question)")
        if matrix.shape[0] == 0:
            raise ReportError(self.source, "the array holds no questions (shape "
                                           f"{matrix.shape})")
        if matrix.shape[1] == 0:
            raise ReportError(self.source, "a question needs at least one sample; the array "
                                           f"has shape {matrix.shape}", "row 1")
        if matrix.dtype.kind not in "biuf":
            raise ReportError(self.source, f"expected 0/1 outcomes; the array has dtype "
                                           f"{matrix.dtype}")
        self._start(matrix.shape[0], "rows")
        for first in range(0, matrix.shape[0], self.chunk_size):
            chunk = np.asarray(matrix[first:first + self.chunk_size])
            yield Batch(chunk, first, "row")
            self._update(first + len(chunk))


class _DatasetReader(_Reader):
    """A directory written by ``datasets.Dataset.save_to_disk``: Arrow stream files."""

    def batches(self) -> Iterator[Batch]:
        pa = _need_pyarrow(self.source)
        directory = self.path
        splits_file = directory / "dataset_dict.json"
        if splits_file.exists():
            splits = json.loads(splits_file.read_text(encoding="utf-8")).get("splits", [])
            if len(splits) != 1:
                names = ", ".join(splits) or "none"
                raise ReportError(self.source, f"a DatasetDict with splits {names}; pass one "
                                               f"split's directory, e.g. {directory / splits[0]}"
                                  if splits else f"a DatasetDict with splits {names}")
            directory = directory / splits[0]
        state_file = directory / "state.json"
        if not state_file.exists():
            raise ReportError(self.source, "a directory, but not a saved datasets dataset (no "
                                           "state.json); kpass reads files or "
                                           "Dataset.save_to_disk directories")
        state = json.loads(state_file.read_text(encoding="utf-8"))
        files = [directory / entry["filename"] for entry in state.get("_data_files", [])]
        self._start(sum(path.stat().st_size for path in files), "bytes")
        first, done, checked = 0, 0, False
        for path in files:
            with pa.memory_map(str(path)) as handle:
                stream = pa.ipc.open_stream(handle)
                if not checked:
                    checked = True
                    self.column = pick_column(stream.schema.names, self.requested, self.source)
                    _check_arrow_type(stream.schema.field(self.column).type, self.source,
                                      self.column)
                for record_batch in stream:
                    column = record_batch.column(self.column)
                    for start in range(0, record_batch.num_rows, self.chunk_size):
                        part = column.slice(start, self.chunk_size)
                        yield Batch(part, first, "row")
                        first += len(part)
                    self._update(done + handle.tell())
            done += path.stat().st_size


_READERS = {
    "jsonl": _JsonlReader, "json": _JsonReader, "csv": _CsvReader, "tsv": _TsvReader,
    "parquet": _ParquetReader, "npy": _NpyReader, "datasets": _DatasetReader,
}
