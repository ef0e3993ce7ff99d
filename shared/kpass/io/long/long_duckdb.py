"""Large long inputs grouped by DuckDB, when it is installed (no ``--sample``).

pyarrow's route (:mod:`kpass.io.long.long_fast`) hashes every row's id on one core (``index_in``,
about 150-220 ns a row at 312,500 ids, plus 60 ms to build the table of known ids per
batch); DuckDB groups on every core. Two routes, both ending in one group-by::

    SELECT id, count(*), count(*) FILTER (WHERE outcome = 1),
           min(row)                                     -- where the id is first seen
    FROM rows GROUP BY id ORDER BY 4

(then, on the distinct ids only, whether each matches ``PLAIN_ID`` and not ``INTEGER_TEXT``),
so the questions come in first-seen order, as on every other route; with ``--by`` the
Parquet route groups by (model, id) in the same one query and the groups are split per model
(:func:`kpass.io.long.long_codes.split_pairs`):

* Parquet (one file or the parts of a sharded input, at least :data:`DUCKDB_ROWS` rows):
  DuckDB reads the files itself; ``row`` is ``part << 40 | file_row_number``, and the outcome
  check (null, NaN, 0.5, 2: not 0 or 1) is a ``count(*) FILTER`` of the same query; a
  ``--cost`` column is ``sum(cost)`` there too (a null, negative or non-finite cost: a doubt).
* CSV, TSV and JSON Lines (at least :data:`DUCKDB_BYTES` bytes): pyarrow parses, exactly as on
  its own route (its readers are the ones whose answers the line reader's agree with: DuckDB's
  own JSON reader keeps no row number and accepts lines that are not JSON), and DuckDB groups
  the batches as they come (:func:`duckdb_stream_counts`; ``row`` is numbered by the caller,
  which checks each batch's ids and outcomes as the pyarrow route does and stops the stream
  on a doubt).

The checks are those of the pyarrow route: ids of integer or text type, outcomes of integer,
float or boolean type, every outcome 0 or 1, no null id; ids the rule would change (padded,
integer text) go through :func:`kpass.io.long.long_codes.canonical_codes`. Anything else, and any
DuckDB error, returns None and the pyarrow route reads the input (and, in doubt, the line
reader names the line). ``--sample`` keeps the pyarrow route: its repeat check is already
within 1.6x of DuckDB's own (``benchmarks/README.md``).

Measured (``benchmarks/README.md``, issue 31; whole ``kpass report`` processes, wall clock, 2
idle cores, 20M rows): Parquet 2.7-2.9 s against 7.1-8.0 s on pyarrow's route, CSV 4.5-4.9 s
against 6.8 s; 1.1-1.6x the best engine process doing the bare group-by.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.counts import BinaryCounts
from ..errors import ReportError
from ..rows import canonical_id
from .long_codes import INTEGER_TEXT, PLAIN_ID, canonical_codes, split_pairs

__all__ = ["DUCKDB_BYTES", "DUCKDB_ROWS", "DUCKDB_VERSION", "duckdb_long_counts",
           "duckdb_stream_counts", "use_duckdb"]

#: Parquet inputs of at least this many rows (all parts) are grouped by DuckDB when it is
#: installed; below, importing DuckDB (about 0.15 s) costs more than it saves.
DUCKDB_ROWS = 1 << 22

#: Text inputs (CSV, TSV, JSON Lines) of at least this many bytes are grouped by DuckDB.
DUCKDB_BYTES = 32 << 20


#: The oldest DuckDB whose SQL and Python API the routes use (``file_row_number``, named
#: parameters in table functions, ``fetchnumpy``, registering an Arrow stream): the
#: ``report`` extra's pin. An older DuckDB installed by hand is left alone.
DUCKDB_VERSION = (1, 1)


def use_duckdb(paths: list[Path], fmt: str, roles: dict[str, str]) -> bool:
    """Whether DuckDB may group this input: installed (recent enough), no ``--sample``.

    Text must be at least :data:`DUCKDB_BYTES`; a Parquet input's rows are counted by
    :func:`duckdb_long_counts`, from the footers it reads anyway.
    """
    if "sample" in roles or importlib.util.find_spec("duckdb") is None:
        return False
    try:
        version = tuple(int(part) for part in
                        importlib.metadata.version("duckdb").split(".")[:2])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    if version < DUCKDB_VERSION:
        return False
    return fmt == "parquet" or sum(part.stat().st_size for part in paths) >= DUCKDB_BYTES


def _value_type(kind: Any, pa: Any) -> Any:
    """A column's value type (a dictionary column's values)."""
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def duckdb_long_counts(paths: list[Path], roles: dict[str, str]
                       ) -> tuple[BinaryCounts | dict[str, BinaryCounts], str,
                                  np.ndarray | dict[str, np.ndarray] | None] | None:
    """Counts of long Parquet parts read and grouped by DuckDB, or None (pyarrow's route).

    Args:
        paths: the Parquet file, or the parts of one sharded input, in order.
        roles: the columns of ``id`` and ``column`` (``sample`` is the pyarrow route's),
            ``by`` (``--by``: grouped by (model, id), one count per model label, sorted) and
            ``cost`` (``--cost``: ``sum(cost)`` in the same group-by; a null, negative or
            non-finite cost is a bad row, for the line reader to name).

    Returns:
        The counts with question ids in first-seen order, the outcome column, and each
        question's cost sum (per label with ``by``; None without ``cost``); None when
        the parts hold fewer than :data:`DUCKDB_ROWS` rows, a type or value is one the pyarrow
        route would refuse or doubt, or DuckDB fails.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds = set()
    rows = 0
    for part in paths:
        footer = pq.ParquetFile(part)  # the rows and the schema, one read of the footer
        schema = footer.schema_arrow
        rows += footer.metadata.num_rows
        kinds.add((_value_type(schema.field(roles["id"]).type, pa),
                   _value_type(schema.field(roles["column"]).type, pa),
                   _value_type(schema.field(roles["by"]).type, pa) if "by" in roles else None,
                   schema.field(roles["cost"]).type if "cost" in roles else None))
    if rows < DUCKDB_ROWS:
        return None  # small: importing DuckDB costs more than it saves
    if len(kinds) != 1:
        return None  # parts of other types (the pyarrow route refuses them)
    ((id_kind, outcome_kind, by_kind, cost_kind),) = kinds
    if cost_kind is not None and not (pa.types.is_integer(cost_kind)
                                      or pa.types.is_floating(cost_kind)):
        return None  # text or booleans as costs: the pyarrow route and the line reader say
    texts = pa.types.is_string(id_kind) or pa.types.is_large_string(id_kind)
    if by_kind is not None and not (pa.types.is_string(by_kind) or pa.types.is_integer(by_kind)
                                    or pa.types.is_large_string(by_kind)):
        return None  # models of another type: the pyarrow route and the line reader say
    if not (texts or pa.types.is_integer(id_kind)) or not (
            pa.types.is_boolean(outcome_kind) or pa.types.is_integer(outcome_kind)
            or pa.types.is_floating(outcome_kind)):
        return None  # ids or outcomes of a type the pyarrow route leaves to the line reader
    key, outcome = _quoted(roles["id"]), _quoted(roles["column"])
    value = f"{outcome}::DOUBLE"
    model = _quoted(roles["by"]) if "by" in roles else None
    # --by: grouped by (model, id); a null model is a bad row (the line reader names it)
    select, group, null_model = ((f"{model}::VARCHAR AS model, ", f"{model}, ",
                                  f" OR {model} IS NULL") if model else ("", "", ""))
    # --cost: summed in the same group-by; a null, negative or non-finite cost is a bad row
    spent = f"{_quoted(roles['cost'])}::DOUBLE" if "cost" in roles else None
    cost_sum, bad_cost = ((f", sum({spent}) AS x",
                           f" OR {spent} IS NULL OR {spent} < 0 OR NOT isfinite({spent})")
                          if spent else ("", ""))
    grouped = f"""
            SELECT {select}{key} AS id, count(*) AS n,
                   count(*) FILTER (WHERE {value} = 1) AS c,
                   min(((list_position($paths, filename) - 1)::BIGINT << 40)
                       | file_row_number) AS first,
                   count(*) FILTER (WHERE {outcome} IS NULL OR {value} NOT IN (0, 1)
                                    {null_model}{bad_cost}) AS bad{cost_sum}
            FROM read_parquet($paths, file_row_number = true, filename = true)
            GROUP BY {group}{key}"""
    return _counted(grouped, {"paths": [str(part) for part in paths]}, texts,
                    str(paths[0]), roles["column"], None, model is not None, spent is not None)


def duckdb_stream_counts(first: Any, batches: Iterator[Any], source: str, column: str
                         ) -> tuple[BinaryCounts | dict[str, BinaryCounts], str,
                                    np.ndarray | dict[str, np.ndarray] | None] | None:
    """Counts of record batches that pyarrow parsed, grouped by DuckDB as they come.

    Args:
        first: the first batch, whose schema the others share: ``id`` (integers or text),
            ``ok`` (int64, every value 0 or 1) and ``row`` (int64, the row's place in the
            input), as checked by the caller.
        batches: the other batches; the caller raises inside this iterator to stop on a
            doubt (any exception ends the query, and None is returned).
        source: the input's name (the id rule's messages; never shown here).
        column: the outcome column's name, returned with the counts.

    Returns:
        The counts with question ids in first-seen order, ``column`` and None (no costs on
        this route); None on an error.
    """
    import pyarrow as pa

    def chained() -> Iterator[Any]:
        yield first
        yield from batches

    texts = not pa.types.is_integer(first.schema.field("id").type)
    reader = pa.RecordBatchReader.from_batches(first.schema, chained())
    grouped = """
            SELECT id, count(*) AS n, count(*) FILTER (WHERE ok = 1) AS c, min("row") AS first,
                   count(*) FILTER (WHERE id IS NULL) AS bad
            FROM kpass_rows GROUP BY id"""
    return _counted(grouped, {}, texts, source, column, reader)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _counted(grouped: str, params: dict[str, Any], texts: bool, source: str, column: str,
             rows: Any, by: bool = False, cost: bool = False
             ) -> tuple[BinaryCounts | dict[str, BinaryCounts], str,
                        np.ndarray | dict[str, np.ndarray] | None] | None:
    """Run ``grouped``, build the counts (and the cost sums).

    Its columns: id, n, c, first, bad; ``model`` first with ``by``; ``x`` with ``cost``.
    """
    found = _grouped(grouped, params, texts, rows, by, cost)
    if found is None:
        return None
    ids, n, c, plain, models, x = found
    if models is not None:
        return _split(ids, n, c, plain, models, source, column, x)
    try:
        question_ids, id_map = canonical_codes(ids, plain, source, "question id")
    except (ReportError, UnicodeDecodeError):
        return None  # a blank id, ...: the line reader names its line
    size = len(question_ids)
    return (BinaryCounts(np.bincount(id_map, weights=n, minlength=size).astype(np.int64),
                         np.bincount(id_map, weights=c, minlength=size).astype(np.int64),
                         ids=question_ids), column,
            None if x is None else np.bincount(id_map, weights=x, minlength=size))


def _split(ids: list[Any], n: np.ndarray, c: np.ndarray, plain: bool, models: list[Any],
           source: str, column: str, x: np.ndarray | None = None
           ) -> tuple[dict[str, BinaryCounts], str, dict[str, np.ndarray] | None] | None:
    """The (model, id) groups, in first-seen order, as one count per model label (sorted)."""
    distinct = list(dict.fromkeys(ids))
    try:
        question_ids, id_map = canonical_codes(distinct, plain, source, "question id")
        label_of = [str(canonical_id(model, source, None, "model")) for model in models]
    except (ReportError, UnicodeDecodeError):
        return None  # a blank id or model, ...: the line reader names its line
    slot = {raw: index for index, raw in enumerate(distinct)}
    labels = sorted(set(label_of))
    number = {label: index for index, label in enumerate(labels)}
    split, _, costs = split_pairs(
        np.asarray([number[label] for label in label_of], dtype=np.int64),
        id_map[np.asarray([slot[raw] for raw in ids], dtype=np.int64)], n, c, labels,
        question_ids, x)
    return split, column, costs


def _grouped(grouped: str, params: dict[str, Any], texts: bool, rows: Any, by: bool = False,
             cost: bool = False
             ) -> tuple[list[Any], np.ndarray, np.ndarray, bool, list[Any] | None,
                        np.ndarray | None] | None:
    """The distinct ids in first-seen order, their rows and successes, and whether they are plain.

    Plain: every id is its own canonical id. None on a null id, an outcome other than 0 or 1,
    or a DuckDB error (an exception raised by the batches' iterator included).
    """
    import duckdb

    # The id rule's test runs on the distinct ids, after the group-by (not on every row).
    plain = ("regexp_full_match(id, $plain) AND NOT regexp_full_match(id, $number)" if texts
             else "true")
    if texts:
        params = {**params, "plain": PLAIN_ID, "number": INTEGER_TEXT}
    query = (f"WITH grouped AS ({grouped})\n"
             f"SELECT {'model, ' if by else ''}id, n, c, first, bad, {plain} AS plain"
             f"{', x' if cost else ''} "
             "FROM grouped ORDER BY first")
    try:
        # No progress bar of DuckDB's on the terminal (kpass draws its own on stderr), and any
        # spill to disk in the system's temporary folder, not ``.tmp`` in the user's folder.
        spill = os.path.join(tempfile.gettempdir(), "kpass-duckdb")
        with duckdb.connect(config={"temp_directory": spill}) as con:
            con.execute("SET enable_progress_bar = false")
            if rows is not None:
                con.register("kpass_rows", rows)
            result = con.execute(query, params).fetchnumpy()
    except Exception:  # noqa: BLE001 - an optional accelerator: any failure (text that is
        # not UTF-8, a doubt raised by the batches, a DuckDB error or API change) leaves the
        # input to pyarrow's route and the line reader, which give the same counts or say why
        return None
    ids = result["id"]
    if (np.ma.isMaskedArray(ids) and ids.mask.any()) or int(np.sum(result["bad"])):
        return None  # a null id, or an outcome that is not 0 or 1: the line reader says
    first = result["first"]
    if (np.ma.isMaskedArray(first) and first.mask.any()) or np.any(np.asarray(first) < 0):
        return None  # a file DuckDB names otherwise than it was given
    models = None
    if by:
        found = result["model"]
        if np.ma.isMaskedArray(found) and found.mask.any():
            return None  # a null model: the line reader names its row
        models = np.asarray(found).tolist()
    x = None
    if cost:
        x = np.asarray(result["x"], dtype=np.float64)
        if not np.all(np.isfinite(x)):
            return None  # a sum past the float range: the other routes say
    return (np.asarray(ids).tolist(), np.asarray(result["n"], dtype=np.int64),
            np.asarray(result["c"], dtype=np.int64), bool(np.all(result["plain"])), models, x)
