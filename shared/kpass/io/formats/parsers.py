"""The file formats ``kpass report`` reads, each as a reader yielding :class:`Batch` es.

JSONL, JSON, CSV/TSV (optionally gzipped) are read as text, line numbers kept;
Parquet and saved ``datasets`` directories through pyarrow, in record batches;
``.npy`` memory-mapped. Rows the reader cannot parse become :class:`Unreadable`
placeholders, so counting reports them with their line like any other bad row.
Format detection and the reader base classes live in :mod:`kpass.io.formats.base`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import json.scanner
import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.counts import BinaryCounts
from ..errors import ReportError, show
from ..rows import (
    MAX_NESTING,
    Batch,
    Unreadable,
    check_arrow_type,
    check_nesting,
    json_problem,
    nesting_problem,
    pick_column,
    too_deep,
)
from .base import (
    BOM,
    _element_lines,
    _need_pyarrow,
    _Reader,
    _RecordReader,
    _skip_space,
)

# A question with a million samples is a ~3 MB CSV cell; the csv module's default limit is
# 128 kB. Raised once to the largest value every platform's C long holds.
csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))


# ----------------------------------------------------------------------------- readers


_Bytes = gzip.GzipFile | io.BufferedReader
"""A stream of a file's bytes: the file itself, or its gunzipped content."""


@contextmanager
def _open_bytes(path: Path) -> Iterator[tuple[_Bytes, io.BufferedReader]]:
    """Open a file for reading bytes (gunzipping ``.gz``); also yield the raw file for tell()."""
    with open(path, "rb") as raw:
        if path.suffix.lower() == ".gz":
            with gzip.GzipFile(fileobj=raw) as stream:
                yield stream, raw
        else:
            yield raw, raw


class _JsonlReader(_RecordReader):
    def batches(self) -> Iterator[Batch]:
        self._start(self.path.stat().st_size, "bytes")
        rows: list[Any] = []
        lines: list[int] = []
        # The C scanner behind json.loads, called directly: a third of the cost per line.
        # typeshed types make_scanner's context as a make_scanner; CPython's json.decoder
        # passes a JSONDecoder, as here
        scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
        with _open_bytes(self.path) as (stream, raw):
            for number, line in self._lines(stream):
                if not line.strip():
                    continue
                # never handed to the parser, whose recursion it would break (the count is
                # a cheap bound: a line with fewer openers cannot nest deeper)
                deep = (too_deep(line) if line.count(b"[") + line.count(b"{") > MAX_NESTING
                        else None)
                if deep is not None:
                    rows.append(Unreadable(nesting_problem(deep[0])))
                    lines.append(number)
                    continue
                try:
                    rows.append(self._parse(scan, line.decode("utf-8").strip(), number))
                except UnicodeDecodeError as error:
                    # Bad bytes in another field are not ours to judge (pyarrow's fast path
                    # ignores them too); in the outcomes they are an error.
                    value = self._parse(scan, line.decode("utf-8", "surrogateescape").strip(),
                                        number)
                    if isinstance(value, Unreadable) or (
                            isinstance(value, list) and any(isinstance(v, str) for v in value)):
                        value = Unreadable(f"not UTF-8 text ({error.reason} at byte "
                                           f"{error.start + 1} of the line)")
                    rows.append(value)
                lines.append(number)
                if len(rows) >= self.chunk_size:
                    yield Batch(rows, 0, "line", lines)
                    self._update(raw.tell())
                    rows, lines = [], []
            if rows:
                yield Batch(rows, 0, "line", lines)
            self._update(raw.tell())

    def fast_counts(self) -> list[BinaryCounts]:
        """The counts by pyarrow's JSON reader (:mod:`~kpass.io.formats.fast`); FallbackError."""
        from .fast import jsonl_counts

        self._start(self.path.stat().st_size, "bytes")
        self.column, parts = jsonl_counts(self.path, self.requested, self.source,
                                          self.chunk_size, self.progress)
        return parts

    def locate(self, index: int) -> str:
        """The line of question ``index`` (0-based): the index-th non-blank line."""
        with _open_bytes(self.path) as (stream, _):
            seen = -1
            for number, line in enumerate(stream, 1):
                seen += bool(line.strip())
                if seen == index:
                    return f"line {number}"
        return f"question {index + 1}"  # pragma: no cover - index is a question of the file

    def _parse(self, scan: Any, body: str, number: int) -> Any:
        try:
            record, end = scan(body, 0)
        except StopIteration:
            return Unreadable("not valid JSON (Expecting value)")
        except (ValueError, RecursionError) as error:
            return Unreadable(json_problem(error))
        if end != len(body):
            return Unreadable("not valid JSON (Extra data)")
        return self._value(record, f"line {number}")


class _JsonReader(_RecordReader):
    """A whole JSON document: a list of records or lists, or an object of columns."""

    def batches(self) -> Iterator[Batch]:
        text = read_text(self.source, self.path)
        decoder = json.JSONDecoder()
        start = _skip_space(text, 0)
        if start == len(text):
            raise ReportError(self.source, "the file holds no JSON value")
        check_nesting(text, self.source)
        try:
            document, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as error:
            raise ReportError(self.source, f"not valid JSON ({error.msg})",
                              f"line {error.lineno}") from None
        except (ValueError, RecursionError) as error:  # a number past the int-str limit
            raise ReportError(self.source, json_problem(error)) from None
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
                                           f"got {show(document)}", "line 1")

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
                                           f"one question's outcomes); got {show(values)}")
        if not any(isinstance(value, list) for value in values):
            values = [values]  # one question's outcomes, as in the AIME sample
        for first in range(0, len(values), self.chunk_size):
            yield Batch(values[first:first + self.chunk_size], first, "question")


def read_text(source: str, path: Path) -> str:
    """A whole (optionally gzipped) UTF-8 text file, BOM dropped; bad bytes located by line.

    Raises:
        ReportError: the bytes are not UTF-8 (the message names the line).
    """
    with _open_bytes(path) as (stream, _):
        data = stream.read()
    if data.startswith(BOM):
        data = data[len(BOM):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise ReportError(source, f"not UTF-8 text ({error.reason} at byte {column} of the "
                                  "line)", f"line {line}") from None


_CELL_SPLIT = re.compile(r"[\s,;|]+")


def parse_cell(text: str) -> list[Any] | Unreadable:
    """Read one CSV cell holding a question's outcomes.

    Accepts ``[1, 0, 1]`` (JSON or Python list syntax, ``True``/``False`` too) and
    ``1 0 1``, ``1;0;1``, ``1|0|1``. Values stay as read, so ``0.5`` is reported
    later as not binary rather than rounded.

    Args:
        text: the cell.

    Returns:
        The outcomes, or an ``Unreadable`` saying why they cannot be read.

    Example:
        >>> parse_cell("[True, False, 1]")
        [True, False, 1]
    """
    cell = text.strip()
    if not cell:
        return Unreadable("the outcome cell is empty")
    if cell[0] in "[(":
        if cell[-1] not in "])":
            return Unreadable(f"unbalanced brackets in {show(cell)}")
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
                number = math.nan
            if not math.isfinite(number):
                return Unreadable(f"cannot read {show(token)} as an outcome (0 or 1)")
            values.append(number)
    return values


class _CsvReader(_Reader):
    delimiter = ","

    def batches(self) -> Iterator[Batch]:
        self._start(self.path.stat().st_size, "bytes")
        with _open_bytes(self.path) as (stream, raw):
            reader = csv.reader(self._decoded(stream), delimiter=self.delimiter)
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
                    rows.append(Unreadable(f"the row has {len(record)} fields; `{self.column}` "
                                            f"is field {index + 1}"))
                else:
                    rows.append(_parse_text_cell(record[index]))
                lines.append(reader.line_num)
                if len(rows) >= self.chunk_size:
                    yield Batch(rows, 0, "line", lines)
                    self._update(raw.tell())
                    rows, lines = [], []
            if rows:
                yield Batch(rows, 0, "line", lines)
            self._update(raw.tell())


    def _decoded(self, stream: Iterable[bytes]) -> Iterator[str]:
        # Decoded line by line (not by io.TextIOWrapper) so bad bytes are located by line;
        # kept as surrogates, so only bad bytes in the outcome cell are an error.
        for _, line in self._lines(stream):
            yield line.decode("utf-8", "surrogateescape")

    def fast_counts(self) -> list[BinaryCounts]:
        """The counts by pyarrow's CSV reader (:mod:`~kpass.io.formats.fast`); FallbackError."""
        from .fast import csv_counts

        self._start(self.path.stat().st_size, "bytes")
        self.column, parts = csv_counts(self.path, self.requested, self.source, self.delimiter,
                                        self.chunk_size, self.progress)
        return parts

    def locate(self, index: int) -> str:
        """The line of question ``index`` (0-based): where its non-blank record ends."""
        with _open_bytes(self.path) as (stream, _):
            reader = csv.reader(self._decoded(stream), delimiter=self.delimiter)
            seen = -2  # the header is the first non-blank record
            for record in reader:
                seen += any(cell.strip() for cell in record)
                if seen == index:
                    return f"line {reader.line_num}"
        return f"question {index + 1}"  # pragma: no cover - index is a question of the file


_SURROGATE = re.compile("[\udc80-\udcff]")


def _parse_text_cell(cell: str) -> list[Any] | Unreadable:
    """:func:`parse_cell`, saying "not UTF-8" when the cell holds bytes that are not UTF-8."""
    values = parse_cell(cell)
    if isinstance(values, Unreadable) and _SURROGATE.search(cell):
        return Unreadable("not UTF-8 text (bytes that are not UTF-8 in the outcome cell)")
    return values


class _TsvReader(_CsvReader):
    delimiter = "\t"


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
        check_arrow_type(schema.field(self.column).type, self.source, self.column)
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
        except Exception as error:  # noqa: BLE001 - a broken header raises ValueError, OSError,
            # EOFError, SyntaxError (numpy parses it with ast.literal_eval), ...
            pickled = "allow_pickle" in str(error) or "Python objects" in str(error)
            problem = ("it holds Python objects (ragged lists?); save a 2-D numeric array, or "
                       "use JSONL or Parquet for lists of different lengths" if pickled
                       else f"not a readable .npy file ({error})")
            raise ReportError(self.source, problem) from None
        if not isinstance(matrix, np.ndarray):  # np.load opens a .npz archive whatever its name
            matrix.close()
            raise ReportError(self.source, "a .npz archive (several arrays), not a .npy array; "
                                           "save one 2-D array with numpy.save")
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
        files = dataset_files(self.source, self.path)
        self._start(sum(path.stat().st_size for path in files), "bytes")
        first, done, checked = 0, 0, False
        for path in files:
            with pa.memory_map(str(path)) as handle:
                stream = pa.ipc.open_stream(handle)
                if not checked:
                    checked = True
                    self.column = pick_column(stream.schema.names, self.requested, self.source)
                    check_arrow_type(stream.schema.field(self.column).type, self.source,
                                      self.column)
                for record_batch in stream:
                    column = record_batch.column(self.column)
                    for start in range(0, record_batch.num_rows, self.chunk_size):
                        part = column.slice(start, self.chunk_size)
                        yield Batch(part, first, "row")
                        first += len(part)
                    self._update(done + handle.tell())
            done += path.stat().st_size


def _json_file(source: str, path: Path, shape: type) -> Any:
    """A small JSON file of a datasets folder (``state.json``), checked to be ``shape``."""
    try:
        text = read_text(source, path)
        deep = too_deep(text)
        document = None if deep is not None else json.loads(text)
    except (ValueError, RecursionError) as error:  # bad bytes, a JSONDecodeError, a long number
        raise ReportError(source, f"{path.name} of the dataset is not valid JSON "
                                  f"({getattr(error, 'msg', error)})") from None
    if deep is not None:
        raise ReportError(source, f"{path.name} of the dataset: {nesting_problem(deep[0])}")
    if not isinstance(document, shape):
        raise ReportError(source, f"{path.name} of the dataset holds {show(document)}; "
                                  f"expected a JSON {'object' if shape is dict else 'list'}")
    return document


def dataset_files(source: str, directory: Path) -> list[Path]:
    """The Arrow files of a ``Dataset.save_to_disk`` folder (or of its one split).

    Raises:
        ReportError: not a dataset folder, several splits, a broken ``state.json``, or
            a listed Arrow file that is missing.
    """
    splits_file = directory / "dataset_dict.json"
    if splits_file.exists():
        splits = _json_file(source, splits_file, dict).get("splits", [])
        if not isinstance(splits, list) or len(splits) != 1:
            names = ", ".join(map(str, splits)) if isinstance(splits, list) else show(splits)
            raise ReportError(source, f"a DatasetDict with splits {names or 'none'}; pass one "
                                      f"split's directory, e.g. {directory / str(splits[0])}"
                              if isinstance(splits, list) and splits
                              else f"a DatasetDict with splits {names or 'none'}")
        directory = directory / str(splits[0])
    state_file = directory / "state.json"
    if not state_file.exists():
        raise ReportError(source, "a directory, but not a saved datasets dataset (no "
                                  "state.json); kpass reads files or "
                                  "Dataset.save_to_disk directories")
    entries = _json_file(source, state_file, dict).get("_data_files")
    if (not isinstance(entries, list) or not entries
            or not all(isinstance(entry, dict) and isinstance(entry.get("filename"), str)
                       for entry in entries)):
        raise ReportError(source, f"{state_file.name} of the dataset lists no data files "
                                  f"(`_data_files` is {show(entries)})")
    files = [directory / entry["filename"] for entry in entries]
    for path in files:
        if not path.is_file():
            raise ReportError(source, f"the dataset's data file {path.name} is missing "
                                      f"(listed in {state_file.name})")
    return files


READERS = {
    "jsonl": _JsonlReader, "json": _JsonReader, "csv": _CsvReader, "tsv": _TsvReader,
    "parquet": _ParquetReader, "npy": _NpyReader, "datasets": _DatasetReader,
}
