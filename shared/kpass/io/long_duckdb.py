"""Large long Parquet files grouped by DuckDB, when it is installed (no ``--sample``).

pyarrow's route (:mod:`kpass.io.long_fast`) hashes every row's id on one core (``index_in``,
about 120 ns a row at 312,500 ids, plus 60 ms to build the table of known ids per batch);
DuckDB reads and groups on every core. For a Parquet file (or the parts of one sharded input)
of at least :data:`DUCKDB_ROWS` rows, with DuckDB importable, one query does the group-by::

    SELECT id, count(*), count(*) FILTER (WHERE outcome = 1),
           min(part << 40 | file_row_number),           -- where the id is first seen
           count(*) FILTER (WHERE outcome IS NULL OR outcome NOT IN (0, 1))
    FROM read_parquet(parts, file_row_number = true, filename = true) GROUP BY id
    ORDER BY 4

(then, on the distinct ids only, whether each matches ``PLAIN_ID`` and not ``INTEGER_TEXT``)

so the questions come in first-seen order across the parts, as on every other route. The
checks are those of the pyarrow route: the id and outcome columns' Parquet types (ids of
integer or text type, outcomes of integer, float or boolean type), every outcome 0 or 1 (a
NaN, a null or a 0.5 fails), no null id; ids the rule would change (padded, integer text)
go through :func:`kpass.io.long_codes.canonical_codes`. Anything else, and any DuckDB error,
returns None and the pyarrow route reads the file (and, in doubt, the line reader names the
line). ``--sample`` keeps the pyarrow route: its repeat check is already within 1.5x of
DuckDB's own (``benchmarks/README.md``).

Measured (``benchmarks/README.md``, issue 31): 20M rows in one file, whole ``kpass report``
process, wall clock on 2 cores: see the table there.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from .._core.counting.counts import BinaryCounts
from .long_codes import INTEGER_TEXT, PLAIN_ID, canonical_codes
from .rows import ReportError

__all__ = ["DUCKDB_ROWS", "duckdb_long_counts"]

#: Parquet inputs of at least this many rows (all parts) are grouped by DuckDB when it is
#: installed; below, importing DuckDB (about 0.15 s) costs more than it saves.
DUCKDB_ROWS = 1 << 22


def _kinds(kind: Any, pa: Any) -> Any:
    """A column's value type (a dictionary column's values)."""
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def duckdb_long_counts(paths: list[Path], roles: dict[str, str]
                       ) -> tuple[BinaryCounts, str] | None:
    """Counts of long Parquet parts grouped by DuckDB, or None (the pyarrow route decides).

    Args:
        paths: the Parquet file, or the parts of one sharded input, in order.
        roles: the columns of ``id`` and ``column`` (no ``sample``: the pyarrow route checks
            repeats).

    Returns:
        The counts with question ids in first-seen order, and the outcome column; None when
        DuckDB is not installed, the input is small, a type or value is one the pyarrow
        route would refuse or doubt, or DuckDB fails.
    """
    if "sample" in roles or importlib.util.find_spec("duckdb") is None:
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 0
    kinds = set()
    for part in paths:
        schema = pq.read_schema(part)
        kinds.add((_kinds(schema.field(roles["id"]).type, pa),
                   _kinds(schema.field(roles["column"]).type, pa)))
        rows += pq.read_metadata(part).num_rows
    if rows < DUCKDB_ROWS or len(kinds) != 1:
        return None  # small, or parts of other types (the pyarrow route refuses them)
    ((id_kind, outcome_kind),) = kinds
    texts = pa.types.is_string(id_kind) or pa.types.is_large_string(id_kind)
    if not (texts or pa.types.is_integer(id_kind)) or not (
            pa.types.is_boolean(outcome_kind) or pa.types.is_integer(outcome_kind)
            or pa.types.is_floating(outcome_kind)):
        return None  # ids or outcomes of a type the pyarrow route leaves to the line reader
    found = _grouped(paths, roles, texts)
    if found is None:
        return None
    ids, n, c, plain = found
    try:
        question_ids, id_map = canonical_codes(ids, plain, str(paths[0]), "question id")
    except (ReportError, UnicodeDecodeError):
        return None  # a blank id, ...: the line reader names its line
    size = len(question_ids)
    return BinaryCounts(np.bincount(id_map, weights=n, minlength=size).astype(np.int64),
                        np.bincount(id_map, weights=c, minlength=size).astype(np.int64),
                        ids=question_ids), roles["column"]


def _grouped(paths: list[Path], roles: dict[str, str], texts: bool
             ) -> tuple[list[Any], np.ndarray, np.ndarray, bool] | None:
    """The distinct ids in first-seen order, their rows and successes, and whether they are plain.

    Plain: every id is its own canonical id. None on a null id, an outcome other than 0 or 1,
    or a DuckDB error.
    """
    import duckdb

    def quoted(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    key, outcome = quoted(roles["id"]), quoted(roles["column"])
    value = f"{outcome}::DOUBLE"
    # The id rule's test runs on the distinct ids, after the group-by (not on every row).
    plain = ("regexp_full_match(id, $plain) AND NOT regexp_full_match(id, $number)" if texts
             else "true")
    query = f"""
        WITH grouped AS (
            SELECT {key} AS id, count(*) AS n, count(*) FILTER (WHERE {value} = 1) AS c,
                   min(((list_position($paths, filename) - 1)::BIGINT << 40)
                       | file_row_number) AS first,
                   count(*) FILTER (WHERE {outcome} IS NULL OR {value} NOT IN (0, 1)) AS bad
            FROM read_parquet($paths, file_row_number = true, filename = true)
            GROUP BY {key})
        SELECT id, n, c, first, bad, {plain} AS plain FROM grouped ORDER BY first"""
    names = [str(part) for part in paths]
    try:
        with duckdb.connect() as con:
            result = con.execute(query, {"paths": names, "plain": PLAIN_ID,
                                         "number": INTEGER_TEXT} if texts
                                 else {"paths": names}).fetchnumpy()
    except (duckdb.Error, ValueError, UnicodeError, OverflowError):
        return None  # e.g. text that is not UTF-8: the pyarrow route and line reader say
    ids = result["id"]
    if (np.ma.isMaskedArray(ids) and ids.mask.any()) or int(np.sum(result["bad"])):
        return None  # a null id, or an outcome that is not 0 or 1: the line reader says
    first = result["first"]
    if (np.ma.isMaskedArray(first) and first.mask.any()) or np.any(np.asarray(first) < 0):
        return None  # a file DuckDB names otherwise than it was given
    return (np.asarray(ids).tolist(), np.asarray(result["n"], dtype=np.int64),
            np.asarray(result["c"], dtype=np.int64), bool(np.all(result["plain"])))
