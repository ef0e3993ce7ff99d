"""The fast path of long CSV, TSV, JSONL and Parquet files: pyarrow parses and groups by id.

``kpass report FILE --id q --column correct`` on millions of rows spent its time in Python's
``csv`` loop. Here pyarrow reads only the id, sample and outcome columns, checks them with
vectorised kernels and numbers the question ids in C++ (dictionary encoding); only the
distinct ids come back to Python.
Like :mod:`kpass.io.formats.fast`, this path only ever agrees with the line-by-line reader: anything
it does not fully understand (a null, a value other than 0/1, a blank id, ids of two types,
a repeated (id, sample) pair, a parse error) returns None, and the line-by-line
reader reads the file again and names the line.

Memory and time: the file is streamed in batches; each batch's ids and samples are
dictionary-encoded by pyarrow and their distinct values numbered through one growing table
(:class:`Codes`), so every row gets a question code and the counts are ``np.bincount`` sums
into arrays as long as the questions. Batches are gathered to at least
:data:`ROWS_PER_DISTINCT` rows per distinct id seen so far (chunking chosen from the data):
the work per batch that grows with the questions (looking the batch's distinct ids up among
the known ones) stays a fixed fraction of the rows read, so time is linear in the rows at
every size. With ``--sample`` the check that no (id, sample) pair repeats also keeps one
64-bit key per row (question code << 32 | sample code), checked once at the end against a
bitmap of questions x samples (one byte per cell) when that grid is no larger than a few
bytes a row, else by one sort: 8 bytes a row, against 20-30 bytes a row of Arrow columns
(and about 220 bytes a row of Python pairs on the line-by-line path). Less is not possible
for an exact answer: deciding whether a stream holds a repeated element needs memory linear
in its length (the element-distinctness lower bound of streaming algorithms; Alon, Matias
and Szegedy, "The space complexity of approximating the frequency moments", JCSS 58, 1999),
so a repeat-free guarantee in memory bounded by the questions would have to be
probabilistic.

Ids are grouped as written and the id rule (:func:`kpass.io.rows.canonical_id`: spaces
stripped, integer text is the integer) is applied once per distinct id at the end; ids that
the rule merges (``" q1"`` and ``"q1"``, ``"-0"`` and ``"0"``) are added up there, so a padded
id does not send the file to the line-by-line reader. A categorical (dictionary) Parquet
column is read by its values.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.counts import BinaryCounts
from ..arrow_numpy import index_array, to_numpy
from ..errors import ReportError
from ..formats.fast import NestingScan
from ..rows import MAX_NESTING, OUTCOME_COLUMNS, canonical_id
from .long_codes import Codes, canonical_codes, grown, repeated_pairs, split_pairs
from .long_duckdb import duckdb_long_counts, duckdb_stream_counts, use_duckdb

__all__ = ["fast_long_counts"]

#: Rows gathered per batch for each distinct id (and sample) seen so far: the per-batch work
#: that grows with the distinct ids (a hash lookup of the batch's distinct values among the
#: known ones, the count arrays) is then at most about 1/ROWS_PER_DISTINCT of the rows read.
ROWS_PER_DISTINCT = 16

#: Most rows gathered into one batch (unless ``chunk_size`` asks for more): bounds the
#: batch's Arrow columns and numpy codes (about 40 bytes a row) when the ids are many.
MAX_BATCH_ROWS = 1 << 21

#: Bytes of CSV/JSONL text pyarrow parses at a time (its blocks; a batch per block). pyarrow's
#: streaming readers parse ahead of the consumer; with 1 MB blocks (its default) the peak
#: memory stayed flat as the file grew (15,625 questions: 276 MB at 5M and 20M rows of CSV),
#: with 4 MB blocks it grew with the file (314 MB, 390-412 MB) at the same speed (4.2-6.4 s).
READ_BLOCK = 1 << 20


def _header(path: Path, delimiter: str) -> list[str] | None:
    """The header's names, or None when it is not plain (the slow path decides).

    A byte-order mark (Excel's "CSV UTF-8") is dropped, as pyarrow's reader drops it.
    """
    opener: Any = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            line = handle.readline(1 << 16)
    except (OSError, EOFError):
        return None
    try:
        text = line.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        return None
    text = text.removeprefix("\ufeff")  # Excel's "CSV UTF-8"; pyarrow skips it too
    if not text:
        return None
    try:
        return next(csv.reader([text], delimiter=delimiter, strict=True))
    except (csv.Error, StopIteration):
        return None


def _first_record(path: Path) -> dict[str, Any] | None:
    """The first object of a JSON Lines file, or None (the slow path decides what is wrong)."""
    opener: Any = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            for line in handle:
                if line.strip():
                    if line.count(b"[") + line.count(b"{") > MAX_NESTING:
                        return None
                    record = json.loads(line)
                    return record if isinstance(record, dict) else None
    except (OSError, EOFError, ValueError, RecursionError):
        return None
    return None


def _json_type(value: Any, pa: Any, outcome: bool) -> Any | None:
    """The Arrow type a JSON value of the first record fixes for its column (None: unsure).

    An outcome first written as an integer is read as a float, so that ``1.0`` among
    integers (which the line-by-line reader reads as 1) stays on the fast path.
    """
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        if outcome:
            return pa.float64()
        return pa.int64() if -(1 << 63) <= value < (1 << 63) else None
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, str):
        return pa.string()
    return None


def _columns(names: dict[str, Any], present: list[str]) -> dict[str, str] | None:
    """The id, sample and outcome columns, or None where the slow path must speak."""
    if len(set(present)) != len(present) or any(name != name.strip() for name in present):
        return None
    column = names["column"]
    if column is None:
        column = next((name for name in OUTCOME_COLUMNS if name in present), None)
    wanted = {"id": names["id"], "sample": names["sample"], "column": column,
              "by": names.get("by"), "cost": names.get("cost")}
    if column is None or any(value is not None and value not in present
                             for value in wanted.values()):
        return None
    return {role: value for role, value in wanted.items() if value is not None}


def _id_values(column: Any, pa: Any) -> Any | None:
    """An id (or sample) column as plain integers or strings, or None (the slow path).

    A dictionary column (e.g. a categorical Parquet column, its chunks' dictionaries unified)
    is kept as one when its values are integers or strings; nulls, floats, booleans and other
    types are left to the line-by-line reader, which refuses them with their line.
    """
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()  # dictionaries of several chunks are unified
    if pa.types.is_dictionary(column.type):
        values = column.type.value_type
        if column.null_count or column.dictionary.null_count:
            return None
        if pa.types.is_integer(values) or pa.types.is_string(values):
            return column  # numbered by its indices (Codes.encode), no hashing per row
        column = column.dictionary_decode()
    if column.null_count:
        return None
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_string(kind):
        return column
    if pa.types.is_large_string(kind):
        return column.cast(pa.string())
    return None


def _binary(column: Any, pc: Any, pa: Any) -> Any | None:
    """The outcomes as int64 when every one is 0 or 1 (int, bool or float), else None.

    No Python number reaches pyarrow (that would import pandas, :mod:`kpass.io.arrow_numpy`):
    floats go through a safe cast to int64, which refuses a fraction, NaN or inf (an Arrow
    error: the slow path), then the least and greatest value must be 0 and 1 or within.
    """
    if column.null_count:
        return None
    kind = column.type
    if pa.types.is_boolean(kind):
        return pc.cast(column, pa.int64())
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return None
    column = pc.cast(column, pa.int64())
    if len(column):
        bounds = pc.min_max(column).as_py()
        if bounds["min"] < 0 or bounds["max"] > 1:
            return None
    return column


def _spent(column: Any, pc: Any, pa: Any) -> np.ndarray | None:
    """A ``--cost`` column as float64 when every value is a finite number >= 0, else None.

    Integer and floating columns only (text, booleans, nulls: the line reader decides and
    names the line of a bad one).
    """
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type) or column.null_count:
        return None
    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        return None
    values = to_numpy(pc.cast(column, pa.float64())).astype(np.float64, copy=False)
    if not np.isfinite(values).all() or (values < 0).any():
        return None
    return values


class _TooDeepError(ValueError):
    """A JSON line nests deeper than pyarrow's parser may be given (the slow path says where)."""


class _CheckedStream:
    """A binary file whose bytes are scanned for too deep JSON lines as pyarrow reads them.

    pyarrow's JSON parser recurses on nesting (a segfault at 20000 levels), so no byte it
    parses may belong to a line with more than :data:`kpass.io.rows.MAX_NESTING` openers;
    checking the bytes on their way in costs no second read of the file.
    """

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.scan = NestingScan(MAX_NESTING)
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        if self.scan.too_deep(data):
            raise _TooDeepError("a line nests too deep for pyarrow's parser")
        return bytes(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True
        self.handle.close()


def _batches(path: Path, fmt: str, columns: list[str], text: list[str],
             chunk_size: int, types: dict[str, Any] | None = None) -> Any:
    import pyarrow as pa

    # Each format imports only its own reader (pyarrow.parquet brings pyarrow.fs and ssl).
    if fmt == "parquet":
        import pyarrow.parquet as pq

        # A batch per row group (up to MAX_BATCH_ROWS): a categorical column's every batch
        # carries its row group's whole dictionary, so the dictionaries hashed add up to at
        # most the rows. (Text ids are not read as dictionaries, read_dictionary: where the
        # writer's dictionary page overflowed, pyarrow then hashes every row, measured 4.9 s
        # against 0.9 s to read 20M rows of 312,500 ids, more than dictionary_encode after.)
        handle = pq.ParquetFile(path)
        groups = [handle.metadata.row_group(i).num_rows
                  for i in range(handle.metadata.num_row_groups)]
        size = max(chunk_size, 65536, min(max(groups, default=0), MAX_BATCH_ROWS))
        yield from handle.iter_batches(batch_size=size, columns=columns)
        return
    if fmt == "jsonl":
        import pyarrow.json as pajson

        # Only the wanted fields are converted, to the types of the first record: a value of
        # another type later ("q1" then 7) is an Arrow error, and the slow path reads the
        # file again.
        opener: Any = gzip.open if path.suffix.lower() == ".gz" else open
        with opener(path, "rb") as handle:
            stream = pa.PythonFile(_CheckedStream(handle), mode="r")
            yield from pajson.open_json(
                stream, read_options=pajson.ReadOptions(block_size=READ_BLOCK),
                parse_options=pajson.ParseOptions(
                    explicit_schema=pa.schema([(name, (types or {})[name]) for name in columns]),
                    unexpected_field_behavior="ignore"))
        return
    import pyarrow.csv as pacsv

    reader = pacsv.open_csv(
        str(path),
        read_options=pacsv.ReadOptions(block_size=READ_BLOCK),
        parse_options=pacsv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
        convert_options=pacsv.ConvertOptions(
            include_columns=columns, strings_can_be_null=False,
            # Ids as written ("07" is not 7): the id rule is applied to each question's id.
            column_types={name: pa.string() for name in text}))
    yield from reader


def _checked_columns(rows: Any, roles: dict[str, str], text: list[str], pa: Any, pc: Any
                     ) -> tuple[Any, Any] | None:
    """A table's or batch's ids (:func:`_id_values`) and outcomes (:func:`_binary`), or None.

    pyarrow's JSON reader does not check that strings are UTF-8: a bad byte in a cell read
    (id, sample) raises here, and the line-by-line reader names its line.
    """
    for name in text:
        rows.column(name).validate(full=True)
    outcomes = rows.column(roles["column"])
    if isinstance(outcomes, pa.ChunkedArray):
        outcomes = outcomes.combine_chunks()
    found = _id_values(rows.column(roles["id"]), pa), _binary(outcomes, pc, pa)
    return None if found[0] is None or found[1] is None else found


class _Checked:
    """pyarrow's batches of a text input, checked as on its own route, for DuckDB to group.

    Each batch becomes ``id`` (:func:`_id_values`), ``ok`` (:func:`_binary`) and ``row`` (its
    rows' places in the input, numbered across parts, so DuckDB keeps the first-seen order);
    text columns are checked for UTF-8 as on pyarrow's route. A batch pyarrow's route would
    doubt (a null id, an outcome other than 0/1, ids that change type) stops the stream:
    :attr:`doubted` is then set and the line reader decides.
    """

    def __init__(self, paths: list[Path], fmt: str, roles: dict[str, str], wanted: list[str],
                 text: list[str], chunk_size: int, types: dict[str, Any]) -> None:
        self.paths, self.fmt, self.roles, self.wanted = paths, fmt, roles, wanted
        self.text, self.chunk_size, self.types = text, chunk_size, types
        self.doubted = False

    def counts(self) -> tuple[BinaryCounts | dict[str, BinaryCounts], str,
                              np.ndarray | dict[str, np.ndarray] | None] | None:
        """The counts grouped by DuckDB, or None (a doubt, or a DuckDB failure)."""
        rows = self._rows()
        first = next(rows, None)
        if first is None:
            return None
        return duckdb_stream_counts(first, rows, str(self.paths[0]), self.roles["column"])

    def _rows(self) -> Iterator[Any]:
        try:
            yield from self._checked()
        except Exception:
            # A parse error, a too deep line, a doubt: pyarrow's route would meet it too.
            self.doubted = True
            raise

    def _checked(self) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        offset = 0
        schema = None
        for part in self.paths:
            for batch in _batches(part, self.fmt, self.wanted, self.text, self.chunk_size,
                                  self.types):
                columns = _checked_columns(batch, self.roles, self.text, pa, pc)
                rows = index_array(np.arange(offset, offset + batch.num_rows))
                offset += batch.num_rows
                checked = None if columns is None else pa.RecordBatch.from_arrays(
                    [*columns, rows], names=["id", "ok", "row"])
                if checked is None or checked.schema != (schema or checked.schema):
                    raise _DoubtError("pyarrow's route would stop here")
                schema = checked.schema
                yield checked


class _DoubtError(ValueError):
    """A batch the pyarrow route would not count (the line reader decides)."""


def _gathered(batches: Iterator[Any], target: Any, pa: Any) -> Iterator[Any]:
    """Batches gathered into tables of at least ``target()`` rows (the last may be fewer)."""
    pending: list[Any] = []
    rows = 0
    for batch in batches:
        pending.append(batch)
        rows += batch.num_rows
        if rows >= target():
            yield pa.Table.from_batches(pending)
            pending, rows = [], 0
    if pending:
        yield pa.Table.from_batches(pending)


def _layout(path: Path, fmt: str, names: dict[str, Any], pa: Any
            ) -> tuple[dict[str, str], dict[str, Any]] | None:
    """The roles (id, sample, column -> field) of one file, and the JSON field types."""
    types: dict[str, Any] = {}
    first: dict[str, Any] | None = None
    if fmt == "parquet":
        import pyarrow.parquet as pq

        present = pq.read_schema(path).names
    elif fmt == "jsonl":
        import pyarrow.json as pajson

        # pyarrow < 18 has no streaming JSON reader; too deep lines are caught on the way
        # into pyarrow's parser (_CheckedStream).
        first = _first_record(path) if hasattr(pajson, "open_json") else None
        if first is None:
            return None
        present = list(first)
    else:
        header = _header(path, "\t" if fmt == "tsv" else ",")
        if header is None:
            return None
        present = header
    roles = _columns(names, present)
    if roles is None:
        return None
    if first is not None:  # JSON Lines
        keys = {roles[role] for role in ("id", "sample", "by") if role in roles}
        for name in roles.values():
            # a cost first written as an integer is read as a float, as an outcome is
            kind = _json_type(first[name], pa, name not in keys)
            if kind is None:
                return None
            types[name] = kind
    return roles, {name: types[name] for name in roles.values() if name in types}


def fast_long_counts(path: Path | list[Path], fmt: str, names: dict[str, Any],
                     threshold: float | None, chunk_size: int
                     ) -> tuple[BinaryCounts | dict[str, BinaryCounts], str,
                np.ndarray | dict[str, np.ndarray] | None] | None:
    """Counts of a long CSV/TSV/JSONL/Parquet file grouped by pyarrow, or None (the slow path).

    Args:
        path: the file, or the part files of one sharded input (pooled: a question's rows
            may lie in several parts, and a repeated (id, sample) is found across parts).
        fmt: its format (``csv``, ``tsv``, ``jsonl`` or ``parquet``; others return None).
        names: ``id``, ``sample`` and ``column`` as given (``column`` may be None).
        threshold: soft scores go through the slow path (None here).
        chunk_size: rows per Parquet batch, and the fewest rows gathered per batch.

    Returns:
        The counts with question ids in first-seen order, and the outcome column used; with
        ``names["by"]`` (``--by``) one count per model label instead (labels sorted): each
        row is numbered by the pair (model code, id code), one more hash lookup a row. With
        ``names["cost"]`` (``--cost``) a third item: each question's sum of the cost column
        (per label with ``--by``), summed by the same codes as the counts; else None.
    """
    if (threshold is not None or names["id"] is None
            or fmt not in ("csv", "tsv", "parquet", "jsonl")
            or importlib.util.find_spec("pyarrow") is None):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    paths = path if isinstance(path, list) else [path]
    try:
        layouts = [_layout(part, fmt, names, pa) for part in paths]
        first = layouts[0] if layouts else None
        if first is None or any(layout != first for layout in layouts):
            return None  # a part without the columns, or of other types: the slow path says
        roles, types = first
        wanted = list(dict.fromkeys(roles.values()))
        text = list(dict.fromkeys(roles[role] for role in ("id", "sample", "by")
                                  if role in roles))
        # large, no --sample, DuckDB installed (text with --by or --cost stays here: one pair
        # code a row, the cost sums on the same codes; Parquet's --cost is summed by DuckDB)
        if ((fmt == "parquet" or ("by" not in roles and "cost" not in roles))
                and use_duckdb(paths, fmt, roles)):
            if fmt == "parquet":
                grouped = duckdb_long_counts(paths, roles)
            else:
                stream = _Checked(paths, fmt, roles, wanted, text, chunk_size, types)
                grouped = stream.counts()
                if grouped is None and stream.doubted:
                    return None  # pyarrow's route would stop at the same row
            if grouped is not None:
                return grouped
        ids = Codes(pa, pc)
        samples = Codes(pa, pc) if "sample" in roles else None
        models = Codes(pa, pc) if "by" in roles else None
        pairs = Codes(pa, pc)  # with --by: (model code << 32 | id code), numbered
        n = np.zeros(0, dtype=np.int64)
        c = np.zeros(0, dtype=np.int64)
        x = np.zeros(0, dtype=np.float64)  # --cost: each code's sum of the cost column
        keys: list[np.ndarray] = []

        def target() -> int:
            distinct = ids.size + (0 if samples is None else samples.size)
            return min(max(chunk_size, ROWS_PER_DISTINCT * distinct),
                       max(chunk_size, MAX_BATCH_ROWS))

        batches = (batch for part in paths
                   for batch in _batches(part, fmt, wanted, text, chunk_size, types))
        for table in _gathered(batches, target, pa):
            checked = _checked_columns(table, roles, text, pa, pc)
            if checked is None:
                return None
            id_values, outcomes = checked
            codes = ids.encode(id_values)
            if models is not None:
                model_values = _id_values(table.column(roles["by"]), pa)
                if model_values is None:
                    return None  # a null or odd model: the line reader names its line
                paired = (models.encode(model_values) << 32) | codes
                codes = pairs.encode(pa.array(paired, type=pa.int64()))
            if samples is not None:
                sample_values = _id_values(table.column(roles["sample"]), pa)
                if sample_values is None:
                    return None
                keys.append((codes << 32) | samples.encode(sample_values))
            size = ids.size if models is None else pairs.size
            n = grown(n, size)
            c = grown(c, size)
            n += np.bincount(codes, minlength=size)
            ok = to_numpy(outcomes).astype(bool)
            c += np.bincount(codes[ok], minlength=size)
            if "cost" in roles:
                spent = _spent(table.column(roles["cost"]), pc, pa)
                if spent is None:
                    return None  # text, a null, a negative cost: the line reader names it
                x = np.concatenate([x, np.zeros(size - x.size)]) if x.size < size else x
                x += np.bincount(codes, weights=spent, minlength=size)
    except (pa.ArrowException, OSError, EOFError, ValueError, KeyError):
        return None  # a parse error, a type that changed between blocks, a too deep line, ...
    if ids.size == 0:
        return None  # no rows: the slow path says so
    try:
        question_ids, id_map = canonical_codes(ids.values(), ids.canonical(), str(paths[0]),
                                                 "question id")
        if samples is not None:
            _, sample_map = canonical_codes(samples.values(), samples.canonical(),
                                           str(paths[0]), "sample id")
        if models is not None:
            label_of = [str(canonical_id(value, str(paths[0]), None, "model"))
                        for value in models.values()]
    except (ReportError, UnicodeDecodeError):
        return None  # a blank id, ...: the slow path names its line
    if models is not None:
        labels = sorted(set(label_of))
        number = {label: index for index, label in enumerate(labels)}
        model_map = np.asarray([number[label] for label in label_of], dtype=np.int64)
        raw = np.asarray(pairs.values(), dtype=np.int64)
        split, pair_map, split_costs = split_pairs(
            model_map[raw >> 32], id_map[raw & 0xFFFFFFFF], n, c, labels, question_ids,
            x if "cost" in roles else None)
        if samples is not None and repeated_pairs(keys, pair_map, sample_map,
                                                  int(pair_map.max()) + 1):
            return None
        return split, roles["column"], split_costs
    if samples is not None and repeated_pairs(keys, id_map, sample_map, len(question_ids)):
        return None  # a repeated (id, sample): the slow path names both lines
    size = len(question_ids)
    return (BinaryCounts(np.bincount(id_map, weights=n, minlength=size).astype(np.int64),
                         np.bincount(id_map, weights=c, minlength=size).astype(np.int64),
                         ids=question_ids), roles["column"],
            np.bincount(id_map, weights=x[: id_map.size], minlength=size)
            if "cost" in roles else None)
