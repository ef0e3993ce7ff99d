"""Counts from long dataframes in the user's engine: pandas, polars, pyarrow, DuckDB, Dask, Spark.

:meth:`kpass.BinaryCounts.from_long` and :meth:`kpass.CategoricalCounts.from_long`
land here. The group-by runs where the data lives -- a Dask or Spark cluster, a
DuckDB database -- and only one small row per question (or per question and
category) comes back to this process, so an evaluation log bigger than one
machine is counted without collecting it.

Why narwhals: one dataframe-agnostic expression API, kept by a team that tracks
each backend, with no dependency of its own; the same ``group_by().agg()`` is
translated to pandas, polars and pyarrow (eager) and to DuckDB, Dask and PySpark
(lazy), in their native operations. Checked on narwhals 2.29 with pandas, polars,
pyarrow, DuckDB and Dask (tests/test_frames.py). Alternatives were worse fits:
ibis needs a backend per engine and heavy extras; the dataframe interchange
protocol moves whole columns, i.e. collects the data. ``datasets.Dataset`` is
not a narwhals backend; it is read through its Arrow table (memory-mapped).

Validation also runs in the engine, before anything is cast or allocated: the
column types are read from the schema (outcomes must be numeric or boolean, ids
strings or integers), then one aggregate counts missing ids and outcomes (null,
or NaN in a float column), values other than 0/1 (non-finite scores with a
threshold; categories outside 0..65535, the cap of :func:`kpass.categorical_counts`)
and repeated (id, sample) pairs. Only on an error is one offending row fetched for
the message: the one with the smallest question id (then the smallest value), so
every engine, ordered or not, names the same row in the same words. No cast that
an engine could refuse (a float 1e300 or an integer beyond 2**53 to another type)
runs before the values are known to fit.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np

from .._core.checks import ArgumentTypeError, _show, check_real
from .._core.counts import BinaryCounts, CategoricalCounts
from .._core.inputs import MAX_CATEGORIES, MAX_CATEGORY_TABLE

FRAMES_HINT = "install kpass[frames] (pip install 'kpass[frames]') for dataframe inputs"

_HARD = "__kpass_hard"


def binary_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                     sample: str | None = None, threshold: float | None = None) -> BinaryCounts:
    """Per-question ``(n, c)`` of a long frame (one row per sample), grouped in its engine.

    Args:
        frame: a pandas, polars (eager or lazy), pyarrow, DuckDB, Dask or PySpark
            dataframe, or a ``datasets.Dataset``.
        id: the question-id column (str or int values).
        outcome: the outcome column: 0/1 (or bool); soft scores with ``threshold``.
        sample: optional sample-id column; a repeated (id, sample) pair is an error.
        threshold: soft scores: a sample is correct iff its score > threshold.

    Returns:
        BinaryCounts with ``ids``, questions sorted by id (engines do not keep an order).

    Raises:
        ValueError: a missing outcome (null or NaN), a value other than 0/1 (or a
            non-finite score), a missing id, a repeated (id, sample) pair, an empty
            frame; the message shows the offending row with the smallest id.
        TypeError: an outcome column that is not numeric or boolean, an id column
            (or an id) that is not str or int.
    """
    if threshold is not None:
        threshold = check_real(threshold, "threshold")
    nw, df = _frame(frame)
    _check_columns(df, [id, outcome] + ([sample] if sample else []))
    kind, dtype = _outcome_kind(nw, df, outcome)
    value = nw.col(outcome)
    if threshold is None:
        bad = _outside(nw, value, kind, dtype, 0, 1)
        expected = "0 or 1 (soft scores need threshold=T)"
    else:
        bad = ~value.is_finite() if kind == "float" else None
        expected = "a finite score"
    totals = _refuse(nw, df, id, outcome, kind, bad, expected)
    hard = _hard(nw, value, kind, dtype, threshold, totals)
    _refuse_repeats(nw, df, id, sample)
    grouped = _collect(df.with_columns(hard.alias(_HARD)).group_by(id)
                       .agg(nw.col(_HARD).sum().alias("c"), nw.len().alias("n")))
    table = grouped.to_dict(as_series=False)
    ids = [_question_id(raw, id) for raw in table[id]]
    order = sorted(range(len(ids)), key=lambda i: _sort_key(ids[i]))
    n = np.array([int(table["n"][i]) for i in order], dtype=np.int64)
    c = np.array([int(table["c"][i]) for i in order], dtype=np.int64)
    return BinaryCounts(n, c, ids=[ids[i] for i in order])


def categorical_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002
                          sample: str | None = None) -> CategoricalCounts:
    """Per-question category counts of a long frame, grouped by (id, category) in its engine.

    Args:
        frame: as :func:`binary_from_long`.
        id: the question-id column.
        outcome: the category column: integers 0, 1, ..., C with C < 65536 (integral
            floats and bools too), as :func:`kpass.categorical_counts` takes them.
        sample: optional sample-id column; a repeated (id, sample) pair is an error.

    Returns:
        CategoricalCounts with ``ids`` (sorted) and no prior outcomes.

    Raises:
        ValueError: a missing, negative, fractional or too large category, a missing
            id, a repeated pair, an empty frame, or more questions x categories than
            the table of :func:`kpass.categorical_counts` holds; checked in the engine
            before any table is allocated.
        TypeError: as :func:`binary_from_long`.
    """
    nw, df = _frame(frame)
    _check_columns(df, [id, outcome] + ([sample] if sample else []))
    kind, dtype = _outcome_kind(nw, df, outcome)
    value = nw.col(outcome)
    bad = _outside(nw, value, kind, dtype, 0, MAX_CATEGORIES - 1)
    expected = (f"an integer category in [0, {MAX_CATEGORIES - 1}] (at most "
                f"{MAX_CATEGORIES} categories)")
    _refuse(nw, df, id, outcome, kind, bad, expected)
    _refuse_repeats(nw, df, id, sample)
    # Every category is now a whole number in [0, 65535]: the cast cannot fail.
    grouped = _collect(df.with_columns(value.cast(nw.Int64).alias(_HARD))
                       .group_by(id, _HARD).agg(nw.len().alias("n")))
    table = grouped.to_dict(as_series=False)
    raw_ids = [_question_id(raw, id) for raw in table[id]]
    ids = sorted(set(raw_ids), key=_sort_key)
    width = max(int(category) for category in table[_HARD]) + 1
    if len(ids) * width > MAX_CATEGORY_TABLE:
        raise ValueError(
            f"`{outcome}` needs a table of {len(ids)} questions x {width} categories, more "
            f"than the {MAX_CATEGORY_TABLE} entries supported; use fewer categories (renumber "
            "them 0..C-1) or fewer questions per call")
    slot = {qid: q for q, qid in enumerate(ids)}
    counts = np.zeros((len(ids), width), dtype=np.int64)
    for qid, category, n in zip(raw_ids, table[_HARD], table["n"], strict=True):
        counts[slot[qid], int(category)] += int(n)
    return CategoricalCounts(counts, np.zeros_like(counts), ids=ids)


# ----------------------------------------------------------------------------- helpers


def _frame(frame: Any) -> tuple[Any, Any]:
    try:
        import narwhals.stable.v2 as nw
    except ImportError:  # pragma: no cover - narwhals is in the test extra
        raise ImportError(f"from_long needs narwhals; {FRAMES_HINT}") from None
    if type(frame).__module__.startswith("datasets.") and hasattr(frame, "with_format"):
        frame = frame.with_format("arrow")[:]  # its Arrow table (memory-mapped, no copy)
    try:
        return nw, nw.from_native(frame)
    except TypeError:
        raise TypeError(f"`frame` must be a dataframe (pandas, polars, pyarrow, DuckDB, Dask, "
                        f"PySpark) or a datasets.Dataset; got {type(frame).__name__}") from None


def _check_columns(df: Any, wanted: list[str]) -> None:
    names = list(df.collect_schema().names())
    for name in wanted:
        if name not in names:
            raise ValueError(f"the frame has no column `{name}`; its columns are {names}")


def _outcome_kind(nw: Any, df: Any, outcome: str) -> tuple[str, Any]:
    """``"bool"``, ``"int"`` or ``"float"`` and the dtype, from the schema; else a TypeError.

    Strings are refused, not parsed: engines parse "1", " 1" and "1.0" differently, and
    a text column of outcomes is a reading mistake to fix where the frame is built.
    """
    dtype = df.collect_schema()[outcome]
    if dtype == nw.Boolean:
        return "bool", dtype
    if dtype.is_integer():
        return "int", dtype
    if dtype.is_float() or dtype == nw.Decimal:
        return "float", dtype
    raise ArgumentTypeError(f"`{outcome}` must be a numeric or boolean column of outcomes; got "
                            f"dtype {dtype} (convert the column to numbers first)")


def _outside(nw: Any, value: Any, kind: str, dtype: Any, low: int, high: int) -> Any:
    """Rows whose (non-missing) value is not a whole number in [low, high]; None: none can be.

    Integers are compared as integers, with literals of the column's own type: a cast
    to float (or of uint64 to int64) is what pyarrow refuses beyond 2**53 (or 2**63).
    """
    if kind == "bool":
        return None
    if kind == "int":
        smallest, largest = _int_range(dtype)
        checks = ([value < nw.lit(low, dtype=dtype)] if low > smallest else []) + \
                 ([value > nw.lit(high, dtype=dtype)] if high < largest else [])
        if not checks:
            return None
        return checks[0] if len(checks) == 1 else checks[0] | checks[1]
    numeric = value.cast(nw.Float64)
    return (~numeric.is_finite() | (numeric < low) | (numeric > high)
            | (numeric != numeric.round(0)))


def _int_range(dtype: Any) -> tuple[int, int]:
    """The values an integer column type holds (Int8 ... UInt64; wider ones as 128 bits)."""
    try:
        info = np.iinfo(str(dtype).lower())
    except (TypeError, ValueError):  # Int128, UInt128: numpy has no such type
        unsigned = dtype.is_unsigned_integer()
        return (0, 2**128 - 1) if unsigned else (-(2**127), 2**127 - 1)
    return int(info.min), int(info.max)


def _missing(nw: Any, value: Any, kind: str) -> Any:
    """Null, or NaN in a float column: pandas cannot tell them apart, so no engine does."""
    if kind != "float":
        return value.is_null()
    return value.is_null() | value.cast(nw.Float64).is_nan().fill_null(False)


def _collect(df: Any) -> Any:
    return df.collect() if hasattr(df, "collect") else df


def _count(value: Any) -> int:
    """An aggregate's count as an int (DuckDB returns a Decimal, an empty sum may be None)."""
    return 0 if value is None else int(value)


def _first(nw: Any, df: Any, columns: list[str]) -> dict[str, Any]:
    """The row with the smallest ``columns`` (in order): the same row on every engine.

    A pandas ``object`` column of mixed str and int ids cannot be sorted; pandas keeps
    the row order, so its first row is taken there.
    """
    try:
        ordered = df.sort(*columns)
        row = _collect(ordered.select(*columns).head(1)).to_dict(as_series=False)
    except TypeError:
        row = _collect(df.select(*columns).head(1)).to_dict(as_series=False)
    return {name: _plain(row[name][0]) for name in columns}


def _refuse(nw: Any, df: Any, id: str, outcome: str, kind: str,  # noqa: A002
            bad: Any, expected: str) -> dict[str, Any]:
    """Check in the engine (one aggregate); raise with one offending row; return the totals."""
    value = nw.col(outcome)
    missing = _missing(nw, value, kind)
    aggregates = [missing.cast(nw.Int64).sum().alias("null"),
                  nw.col(id).is_null().cast(nw.Int64).sum().alias("no_id"),
                  nw.len().alias("rows")]
    if bad is not None:
        flagged = (~missing & bad).fill_null(False)
        aggregates.append(flagged.cast(nw.Int64).sum().alias("bad"))
    if kind == "int":
        aggregates += [value.min().alias("low"), value.max().alias("high")]
    table = _collect(df.select(*aggregates)).to_dict(as_series=False)
    totals = {name: column[0] for name, column in table.items()}
    if not _count(totals["rows"]):
        raise ValueError("the frame has no rows; a question needs at least one sample")
    if _count(totals["no_id"]):
        raise ValueError(f"`{id}` is missing in {_count(totals['no_id'])} rows; every sample "
                         "needs its question id")
    id_type = df.collect_schema()[id]
    if not (id_type == nw.String or id_type.is_integer() or id_type == nw.Object
            or id_type == nw.Categorical or id_type == nw.Enum):
        raise ArgumentTypeError(f"`{id}` must be a column of str or int question ids; got "
                                f"dtype {id_type}")
    if id_type == nw.Object:  # a pandas object column: check its distinct values as they are
        for raw in _collect(df.select(nw.col(id).unique())).to_dict(as_series=False)[id]:
            _question_id(raw, id)  # before grouping, which may turn 1 into 1.0 beside 2.5
    if _count(totals["null"]):
        row = _first(nw, df.filter(missing), [id])
        raise ValueError(f"`{outcome}` is missing (null or NaN) for question id {row[id]!r} "
                         f"({_count(totals['null'])} missing outcomes in all)")
    if bad is not None and _count(totals["bad"]):
        row = _first(nw, df.filter(flagged), [id, outcome])
        shown = _show(_displayed(row[outcome]))
        raise ValueError(f"`{outcome}` must be {expected}; got {outcome}={shown} for question "
                         f"id {row[id]!r} ({_count(totals['bad'])} such rows)")
    return totals


def _hard(nw: Any, value: Any, kind: str, dtype: Any, threshold: float | None,
          totals: dict[str, Any]) -> Any:
    """The 0/1 outcome of each row (correct iff score > threshold with a threshold)."""
    if threshold is None:
        return value.cast(nw.Int64)  # validated 0/1 (or bool): the cast cannot fail
    if kind != "int":
        return (value.cast(nw.Float64) > threshold).cast(nw.Int64)
    # An integer score x > T iff x > floor(T); compared as integers, with floor(T) kept
    # inside the column's range so that no engine meets a literal it cannot hold.
    cut = math.floor(threshold)
    low, high = int(totals["low"]), int(totals["high"])
    if cut < low:
        return (~value.is_null()).cast(nw.Int64)  # every (non-missing) score is above T
    if cut >= high:
        return value.is_null().cast(nw.Int64)  # none is
    return (value > nw.lit(cut, dtype=dtype)).cast(nw.Int64)


def _refuse_repeats(nw: Any, df: Any, id: str, sample: str | None) -> None:  # noqa: A002
    if sample is None:
        return
    pairs = df.group_by(id, sample).agg(nw.len().alias("__kpass_rows"))
    repeated = pairs.filter(nw.col("__kpass_rows") > 1)
    found = _collect(repeated.select(nw.len().alias("m"))).to_dict(as_series=False)
    if _count(found["m"][0]):
        row = _first(nw, repeated, [id, sample, "__kpass_rows"])
        raise ValueError(f"(id, sample) = ({row[id]!r}, {row[sample]!r}) is repeated "
                         f"({row['__kpass_rows']} rows); each sample of a question must "
                         "appear once")


def _question_id(value: Any, column: str) -> Any:
    """A grouped id as a plain str or int; a TypeError for any other (pandas object columns)."""
    value = _plain(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ArgumentTypeError(f"`{column}` must hold str or int question ids; got "
                                f"{column}={_show(value)} ({type(value).__name__})")
    return value


def _displayed(value: Any) -> Any:
    """An outcome as the message shows it: a DuckDB/Spark decimal as its float."""
    return float(value) if isinstance(value, Decimal) else value


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int) else (1, str(value))
