"""The fast path of long CSV/TSV/Parquet files: pyarrow parses and groups, Python never sees a row.

``kpass report FILE --id q --column correct`` on millions of rows spent its time in Python's
``csv`` loop. Here pyarrow reads only the id, sample and outcome columns, checks them with
vectorised kernels and groups by question id in C++; only one row per question comes back.
Like :mod:`kpass.io.fast`, this path only ever agrees with the line-by-line reader: anything
it does not fully understand (a null, a value other than 0/1, an id that the id rule would
rewrite, a repeated (id, sample) pair, a parse error) returns None, and the line-by-line
reader reads the file again and names the line.

Memory: without ``--sample`` the file is streamed in blocks and only per-question partial
counts are kept (bounded by the number of questions); with ``--sample`` the three columns
are held in Arrow memory (about 20-30 bytes a row) for the per-question distinct count.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from .._core.counts import BinaryCounts
from .rows import OUTCOME_COLUMNS, ReportError, canonical_id

__all__ = ["fast_long_counts"]

#: Partial per-question tables merged once this many have piled up (memory stays bounded by
#: a few times the number of questions).
MERGE_EVERY = 16


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
             chunk_size: int) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    if fmt == "parquet":
        yield from pq.ParquetFile(path).iter_batches(batch_size=max(chunk_size, 65536),
                                                     columns=columns)
        return
    reader = pacsv.open_csv(
        str(path),
        read_options=pacsv.ReadOptions(block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
        convert_options=pacsv.ConvertOptions(
            include_columns=columns, strings_can_be_null=False,
            # Ids as written ("07" is not 7): the id rule is applied to each question's id.
            column_types={name: pa.string() for name in text}))
    yield from reader


def fast_long_counts(path: Path, fmt: str, names: dict[str, Any], threshold: float | None,
                     chunk_size: int) -> tuple[BinaryCounts, str] | None:
    """Counts of a long CSV/TSV/Parquet file grouped by pyarrow, or None (the slow path reads it).

    Args:
        path: the file.
        fmt: its format (``csv``, ``tsv`` or ``parquet``; others return None).
        names: ``id``, ``sample`` and ``column`` as given (``column`` may be None).
        threshold: soft scores go through the slow path (None here).
        chunk_size: rows per Parquet batch.

    Returns:
        The counts with question ids in first-seen order, and the outcome column used.
    """
    if (threshold is not None or names["id"] is None or fmt not in ("csv", "tsv", "parquet")
            or importlib.util.find_spec("pyarrow") is None):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            present = pq.read_schema(path).names
        else:
            header = _header(path, "\t" if fmt == "tsv" else ",")
            if header is None:
                return None
            present = header
        roles = _columns(names, present)
        if roles is None:
            return None
        wanted = list(dict.fromkeys(roles.values()))
        partials: list[Any] = []
        whole: list[Any] = []
        text = [roles[role] for role in ("id", "sample") if role in roles]
        for batch in _batches(path, fmt, wanted, text, chunk_size):
            ids = batch.column(roles["id"])
            outcomes = _binary(batch.column(roles["column"]), pc, pa)
            if outcomes is None or not _clean_ids(ids, pc, pa):
                return None
            if "sample" in roles:
                samples = batch.column(roles["sample"])
                if not _clean_ids(samples, pc, pa) or (
                        pa.types.is_string(samples.type)
                        and pc.any(pc.equal(samples, "-0")).as_py()):
                    return None  # "-0" is the sample 0 by the id rule: the slow path decides
                whole.append(pa.table({"id": ids, "sample": samples, "ok": outcomes}))
                continue
            part = pa.table({"id": ids, "ok": outcomes}).group_by("id", use_threads=False)
            partials.append(part.aggregate([("ok", "sum"), ("ok", "count")]).select(
                ["id", "ok_sum", "ok_count"]).rename_columns(["id", "c", "n"]))
            if len(partials) >= MERGE_EVERY:
                partials = [_merge(partials, pa)]
        if "sample" in roles:
            if not whole:
                return None
            table = pa.concat_tables(whole)
            grouped = table.group_by("id", use_threads=False).aggregate(
                [("ok", "sum"), ("ok", "count"), ("sample", "count_distinct")])
            if not pc.all(pc.equal(grouped.column("ok_count"),
                                   grouped.column("sample_count_distinct"))).as_py():
                return None  # a repeated (id, sample): the slow path names both lines
            result = grouped.select(["id", "ok_sum", "ok_count"]).rename_columns(["id", "c", "n"])
        else:
            if not partials:
                return None
            result = _merge(partials, pa) if len(partials) > 1 else partials[0]
    except (pa.ArrowException, OSError, EOFError, ValueError, KeyError):
        return None  # a parse error, a type that changed between blocks, ...
    if result.num_rows == 0:
        return None
    raw = result.column("id").to_pylist()
    try:
        canonical = [canonical_id(value, str(path), None) for value in raw]
    except ReportError:
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
