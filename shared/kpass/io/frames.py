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

Validation also runs in the engine: missing outcomes, values other than 0/1
(or non-finite scores with a threshold), negative or fractional categories and
repeated (id, sample) pairs are counted there, and one offending row is fetched
for the message.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.checks import check_real
from .._core.counts import BinaryCounts, CategoricalCounts

FRAMES_HINT = "install kpass[frames] (pip install 'kpass[frames]') for dataframe inputs"

_HARD, _BAD, _NULL = "__kpass_hard", "__kpass_bad", "__kpass_null"


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
        ValueError: a missing outcome, a value other than 0/1 (or a non-finite
            score), a repeated (id, sample) pair, an empty frame; the message shows
            one offending row.
    """
    nw, df = _frame(frame)
    value = nw.col(outcome)
    if threshold is not None:
        threshold = check_real(threshold, "threshold")
        numeric = value.cast(nw.Float64)
        hard = (numeric > threshold).cast(nw.Int64)
        bad = ~value.is_null() & ~numeric.is_finite()
    else:
        hard = value.cast(nw.Int64)
        bad = ~value.is_null() & ~value.cast(nw.Float64).is_in([0.0, 1.0])
    _check_columns(df, [id, outcome] + ([sample] if sample else []))
    df = df.with_columns(hard.alias(_HARD), bad.alias(_BAD), value.is_null().alias(_NULL))
    _refuse(nw, df, id, outcome, sample, threshold)
    grouped = _collect(df.group_by(id).agg(nw.col(_HARD).sum().alias("c"),
                                           nw.len().alias("n")))
    table = grouped.to_dict(as_series=False)
    order = _order(table[id])
    n = np.array(table["n"], dtype=np.int64)[order]
    c = np.array(table["c"], dtype=np.int64)[order]
    return BinaryCounts(n, c, ids=[_plain(table[id][i]) for i in order])


def categorical_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002
                          sample: str | None = None) -> CategoricalCounts:
    """Per-question category counts of a long frame, grouped by (id, category) in its engine.

    Args:
        frame: as :func:`binary_from_long`.
        id: the question-id column.
        outcome: the category column: integers 0, 1, ..., C.
        sample: optional sample-id column; a repeated (id, sample) pair is an error.

    Returns:
        CategoricalCounts with ``ids`` (sorted) and no prior outcomes.

    Raises:
        ValueError: a missing, negative or fractional category, a repeated pair.
    """
    nw, df = _frame(frame)
    value = nw.col(outcome)
    numeric = value.cast(nw.Float64)
    bad = ~value.is_null() & ~(numeric.is_finite() & (numeric >= 0)
                               & (numeric == numeric.round(0)))
    _check_columns(df, [id, outcome] + ([sample] if sample else []))
    df = df.with_columns(value.alias(_HARD), bad.alias(_BAD), value.is_null().alias(_NULL))
    _refuse(nw, df, id, outcome, sample, None, categorical=True)
    grouped = _collect(df.with_columns(nw.col(_HARD).cast(nw.Int64))
                       .group_by(id, _HARD).agg(nw.len().alias("n")))
    table = grouped.to_dict(as_series=False)
    ids = sorted({_plain(i) for i in table[id]}, key=_sort_key)
    slot = {qid: q for q, qid in enumerate(ids)}
    width = int(max(table[_HARD])) + 1
    counts = np.zeros((len(ids), width), dtype=np.int64)
    for qid, category, n in zip(table[id], table[_HARD], table["n"], strict=True):
        counts[slot[_plain(qid)], int(category)] += int(n)
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


def _collect(df: Any) -> Any:
    return df.collect() if hasattr(df, "collect") else df


def _first(df: Any, columns: list[str]) -> dict[str, Any]:
    row = _collect(df.select(*columns).head(1)).to_dict(as_series=False)
    return {name: row[name][0] for name in columns}


def _refuse(nw: Any, df: Any, id: str, outcome: str,  # noqa: A002
            sample: str | None, threshold: float | None, categorical: bool = False) -> None:
    """Check in the engine; raise with one offending row."""
    totals = _collect(df.select(nw.col(_BAD).cast(nw.Int64).sum().alias("bad"),
                                nw.col(_NULL).cast(nw.Int64).sum().alias("null"),
                                nw.col(id).is_null().cast(nw.Int64).sum().alias("no_id"),
                                nw.len().alias("rows"))).to_dict(as_series=False)
    if not totals["rows"][0]:
        raise ValueError("the frame has no rows; a question needs at least one sample")
    if totals["no_id"][0]:
        raise ValueError(f"`{id}` is missing in {totals['no_id'][0]} rows; every sample needs "
                         "its question id")
    if totals["null"][0]:
        row = _first(df.filter(nw.col(_NULL)), [id])
        raise ValueError(f"`{outcome}` is missing for question id {row[id]!r} "
                         f"({totals['null'][0]} missing outcomes in all)")
    if totals["bad"][0]:
        row = _first(df.filter(nw.col(_BAD)), [id, outcome])
        expected = ("a category 0, 1, 2, ..." if categorical else
                    "0 or 1 (soft scores need threshold=T)" if threshold is None
                    else "a finite score")
        raise ValueError(f"`{outcome}` must be {expected}; got {outcome}={row[outcome]!r} for "
                         f"question id {row[id]!r} ({totals['bad'][0]} such rows)")
    if sample is not None:
        pairs = df.group_by(id, sample).agg(nw.len().alias("__kpass_rows"))
        repeated = pairs.filter(nw.col("__kpass_rows") > 1)
        found = _collect(repeated.select(nw.len().alias("m"))).to_dict(as_series=False)
        if found["m"][0]:
            row = _first(repeated, [id, sample, "__kpass_rows"])
            raise ValueError(f"(id, sample) = ({row[id]!r}, {row[sample]!r}) is repeated "
                             f"({row['__kpass_rows']} rows); each sample of a question must "
                             "appear once")


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int) else (1, str(value))


def _order(ids: list[Any]) -> list[int]:
    return sorted(range(len(ids)), key=lambda i: _sort_key(_plain(ids[i])))
