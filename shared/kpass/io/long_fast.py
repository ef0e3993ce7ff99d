"""The fast path of long CSV, TSV, JSONL and Parquet files: pyarrow parses and groups by id.

``kpass report FILE --id q --column correct`` on millions of rows spent its time in Python's
``csv`` loop. Here pyarrow reads only the id, sample and outcome columns, checks them with
vectorised kernels and groups by question id in C++; only one row per question comes back.
Like :mod:`kpass.io.fast`, this path only ever agrees with the line-by-line reader: anything
it does not fully understand (a null, a value other than 0/1, an id that the id rule would
rewrite, a repeated (id, sample) pair, a parse error) returns None, and the line-by-line
reader reads the file again and names the line.

Memory: the file is streamed in blocks and only per-question partial counts are kept
(bounded by the number of questions). With ``--sample`` the check that no (id, sample) pair
repeats also keeps one 64-bit key per row (question code << 32 | sample code), sorted once at
the end: 8 bytes a row, against 20-30 bytes a row of Arrow columns before (and about 220
bytes a row of Python pairs on the line-by-line path). Less is not possible for an exact
answer: deciding whether a stream holds a repeated element needs memory linear in its length
(the element-distinctness lower bound of streaming algorithms; Alon, Matias and Szegedy,
"The space complexity of approximating the frequency moments", JCSS 58, 1999), so a
repeat-free guarantee in memory bounded by the questions would have to be probabilistic.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np

from .._core.counting.counts import BinaryCounts
from .fast import _may_nest_deeper
from .rows import MAX_NESTING, OUTCOME_COLUMNS, ReportError, canonical_id

__all__ = ["fast_long_counts"]

#: Partial per-question tables merged once this many have piled up (memory stays bounded by
#: a few times the number of questions).
MERGE_EVERY = 16

#: Bytes of CSV/JSONL text pyarrow parses at a time (its blocks; a batch per block).
READ_BLOCK = 1 << 24


def _header(path: Path, delimiter: str) -> list[str] | None:
    """The header's names, or None when it is not plain (quotes, a BOM: the slow path decides)."""
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
    if not text or text.startswith("\ufeff"):
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


def _json_type(value: Any, pa: Any) -> Any | None:
    """The Arrow type a JSON value of the first record fixes for its column (None: unsure)."""
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
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
    wanted = {"id": names["id"], "sample": names["sample"], "column": column}
    if column is None or any(value is not None and value not in present
                             for value in wanted.values()):
        return None
    return {role: value for role, value in wanted.items() if value is not None}


def _clean_ids(column: Any, pc: Any, pa: Any) -> bool:
    """Whether these ids can be grouped as they are.

    Integers, or strings neither blank nor padded: the id rule strips spaces, and on
    unpadded strings it is one-to-one, so grouping the raw strings and applying the rule to
    each question's id gives the same questions.
    """
    if column.null_count:
        return False
    kind = column.type
    if pa.types.is_integer(kind):
        return True
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return False
    if len(column) == 0:
        return True
    trimmed = pc.utf8_trim_whitespace(column)
    if not pc.all(pc.equal(trimmed, column)).as_py():
        return False
    return not pc.any(pc.equal(pc.utf8_length(column), 0)).as_py()


def _binary(column: Any, pc: Any, pa: Any) -> Any | None:
    """The outcomes as int64 when every one is 0 or 1 (int, bool or float), else None."""
    if column.null_count:
        return None
    kind = column.type
    if pa.types.is_boolean(kind):
        return pc.cast(column, pa.int64())
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return None
    if len(column) and not pc.all(pc.or_(pc.equal(column, 0), pc.equal(column, 1))).as_py():
        return None  # NaN compares unequal too
    return pc.cast(column, pa.int64())


def _batches(path: Path, fmt: str, columns: list[str], text: list[str],
             chunk_size: int, types: dict[str, Any] | None = None) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.json as pajson
    import pyarrow.parquet as pq

    if fmt == "parquet":
        yield from pq.ParquetFile(path).iter_batches(batch_size=max(chunk_size, 65536),
                                                     columns=columns)
        return
    if fmt == "jsonl":
        # Only the wanted fields are converted, to the types of the first record: a value of
        # another type later (1 then 1.0, "q1" then 7) is an Arrow error, and the slow path
        # reads the file again.
        raw = pa.OSFile(str(path), "rb")
        stream = pa.CompressedInputStream(raw, "gzip") if path.suffix.lower() == ".gz" else raw
        with raw:
            yield from pajson.open_json(
                stream, read_options=pajson.ReadOptions(block_size=READ_BLOCK),
                parse_options=pajson.ParseOptions(
                    explicit_schema=pa.schema([(name, (types or {})[name]) for name in columns]),
                    unexpected_field_behavior="ignore"))
        return
    reader = pacsv.open_csv(
        str(path),
        read_options=pacsv.ReadOptions(block_size=READ_BLOCK),
        parse_options=pacsv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
        convert_options=pacsv.ConvertOptions(
            include_columns=columns, strings_can_be_null=False,
            # Ids as written ("07" is not 7): the id rule is applied to each question's id.
            column_types={name: pa.string() for name in text}))
    yield from reader


def _layout(path: Path, fmt: str, names: dict[str, Any], pa: Any
            ) -> tuple[dict[str, str], dict[str, Any]] | None:
    """The roles (id, sample, column -> field) of one file, and the JSON field types."""
    types: dict[str, Any] = {}
    if fmt == "parquet":
        import pyarrow.parquet as pq

        present = pq.read_schema(path).names
    elif fmt == "jsonl":
        import pyarrow.json as pajson

        # pyarrow < 18 has no streaming JSON reader; pyarrow's parser recurses on deep
        # nesting (a segfault at 20000 levels), so such files go to the measuring reader.
        first = _first_record(path) if hasattr(pajson, "open_json") else None
        if first is None or _may_nest_deeper(path, MAX_NESTING):
            return None
        present = list(first)
        for name, value in first.items():
            kind = _json_type(value, pa)
            if kind is not None:
                types[name] = kind
    else:
        header = _header(path, "\t" if fmt == "tsv" else ",")
        if header is None:
            return None
        present = header
    roles = _columns(names, present)
    if roles is None or (fmt == "jsonl" and any(name not in types for name in roles.values())):
        return None
    return roles, {name: types[name] for name in roles.values() if name in types}


def fast_long_counts(path: Path | list[Path], fmt: str, names: dict[str, Any],
                     threshold: float | None, chunk_size: int
                     ) -> tuple[BinaryCounts, str] | None:
    """Counts of a long CSV/TSV/JSONL/Parquet file grouped by pyarrow, or None (the slow path).

    Args:
        path: the file, or the part files of one sharded input (pooled: a question's rows
            may lie in several parts, and a repeated (id, sample) is found across parts).
        fmt: its format (``csv``, ``tsv``, ``jsonl`` or ``parquet``; others return None).
        names: ``id``, ``sample`` and ``column`` as given (``column`` may be None).
        threshold: soft scores go through the slow path (None here).
        chunk_size: rows per Parquet batch.

    Returns:
        The counts with question ids in first-seen order, and the outcome column used.
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
        partials: list[Any] = []
        pairs = _Pairs(pa, pc) if "sample" in roles else None
        text = [roles[role] for role in ("id", "sample") if role in roles]
        batches = (batch for part in paths
                   for batch in _batches(part, fmt, wanted, text, chunk_size, types))
        for batch in batches:
            # pyarrow's JSON reader does not check that strings are UTF-8: a bad byte in a
            # cell read (id, sample) goes to the line-by-line reader, which names its line.
            for name in text:
                batch.column(name).validate(full=True)
            ids = batch.column(roles["id"])
            outcomes = _binary(batch.column(roles["column"]), pc, pa)
            if outcomes is None or not _clean_ids(ids, pc, pa):
                return None
            if pairs is not None:
                samples = batch.column(roles["sample"])
                if not _clean_ids(samples, pc, pa) or (
                        pa.types.is_string(samples.type)
                        and pc.any(pc.equal(samples, "-0")).as_py()):
                    return None  # "-0" is the sample 0 by the id rule: the slow path decides
                pairs.add(ids, samples)
            part = pa.table({"id": ids, "ok": outcomes}).group_by("id", use_threads=False)
            partials.append(part.aggregate([("ok", "sum"), ("ok", "count")]).select(
                ["id", "ok_sum", "ok_count"]).rename_columns(["id", "c", "n"]))
            if len(partials) >= MERGE_EVERY:
                partials = [_merge(partials, pa)]
        if not partials or (pairs is not None and pairs.repeated()):
            return None  # no rows, or a repeated (id, sample): the slow path names both lines
        result = _merge(partials, pa) if len(partials) > 1 else partials[0]
    except (pa.ArrowException, OSError, EOFError, ValueError, KeyError):
        return None  # a parse error, a type that changed between blocks, ...
    if result.num_rows == 0:
        return None
    try:
        raw = result.column("id").to_pylist()
        canonical = [canonical_id(value, str(paths[0]), None) for value in raw]
    except (ReportError, UnicodeDecodeError):
        return None
    if len(set(canonical)) != len(canonical):  # e.g. "-0" and "0": the slow path merges them
        return None
    question_ids = np.empty(result.num_rows, dtype=object)
    question_ids[:] = canonical
    n = result.column("n").to_numpy().astype(np.int64)
    c = result.column("c").to_numpy().astype(np.int64)
    return BinaryCounts(n, c, ids=question_ids), roles["column"]


def _merge(partials: list[Any], pa: Any) -> Any:
    """Per-question partial counts added up, ids in first-seen order."""
    table = pa.concat_tables(partials)
    merged = table.group_by("id", use_threads=False).aggregate([("c", "sum"), ("n", "sum")])
    return merged.select(["id", "c_sum", "n_sum"]).rename_columns(["id", "c", "n"])


class _Pairs:
    """The (id, sample) pairs seen so far, as one int64 key per row; is any pair repeated?

    Ids and samples are numbered in first-seen order (a dictionary per column, as long as
    the distinct values: bounded by the questions and samples); a row's key is
    ``id_code << 32 | sample_code``. At the end the keys are sorted once and neighbours
    compared: 8 bytes a row, and a sort of O(rows log rows).
    """

    def __init__(self, pa: Any, pc: Any) -> None:
        self.pa, self.pc = pa, pc
        self.ids: Any = None
        self.samples: Any = None
        self.keys: list[np.ndarray] = []

    def _codes(self, values: Any, known: Any) -> tuple[np.ndarray, Any]:
        pa, pc = self.pa, self.pc
        values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        if known is None:
            known = pc.unique(values)
        else:
            if known.type != values.type:
                raise ValueError("a column changed type between blocks")
            fresh = pc.unique(values)
            fresh = fresh.filter(pc.invert(pc.is_in(fresh, value_set=known)))
            if len(fresh):
                known = pa.concat_arrays([known, fresh])
        if len(known) >= 1 << 31:
            raise ValueError("more than 2**31 distinct ids")
        codes = pc.index_in(values, value_set=known).to_numpy(zero_copy_only=False)
        return codes.astype(np.int64), known

    def add(self, ids: Any, samples: Any) -> None:
        """Number the rows' ids and samples and keep their keys."""
        id_codes, self.ids = self._codes(ids, self.ids)
        sample_codes, self.samples = self._codes(samples, self.samples)
        self.keys.append((id_codes << 32) | sample_codes)

    def repeated(self) -> bool:
        """Whether some (id, sample) pair occurs on two rows."""
        if not self.keys:
            return False
        keys = np.concatenate(self.keys)
        self.keys = []
        keys.sort()
        return bool(np.any(keys[1:] == keys[:-1]))
