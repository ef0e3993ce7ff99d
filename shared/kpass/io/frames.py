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
pyarrow, DuckDB and Dask (tests/io/test_frames.py). Alternatives were worse fits:
ibis needs a backend per engine and heavy extras; the dataframe interchange
protocol moves whole columns, i.e. collects the data. ``datasets.Dataset`` is
not a narwhals backend; it is read through its Arrow table (memory-mapped).

Validation also runs in the engine, before anything is cast or allocated, and in
the same pass as the counting: the column types are read from the schema (outcomes
must be numeric or boolean, ids strings or integers), then one group-by by question
computes, beside ``n`` and ``c``, each question's missing ids and outcomes (null, or
NaN in a float column), its values other than 0/1 (non-finite scores with a
threshold; categories outside 0..65535, the cap of :func:`kpass.categorical_counts`)
and, with ``sample=``, its number of distinct samples (fewer than its rows: a
repeated (id, sample) pair). A lazy source (a polars ``LazyFrame``, a DuckDB
relation, a Dask or Spark frame) is so scanned once; the checks read the small
per-question result. Only on an error does a second query fetch one offending row
for the message: the one with the smallest question id (then the smallest value,
or sample), so every engine, ordered or not, names the same row in the same words.
No cast that an engine could refuse (a float 1e300 or an integer beyond 2**53 to
another type) runs at all: 0/1 outcomes are counted by comparison, categories are
grouped as they are, and integer scores are compared with a literal of their own
type.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeVar, cast, overload

import numpy as np

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_real
from .._core.counting.counts import BinaryCounts, CategoricalCounts, register_frame_readers
from .._core.counting.inputs import MAX_CATEGORIES, MAX_CATEGORY_TABLE

FRAMES_HINT = "install kpass[frames] (pip install 'kpass[frames]') for dataframe inputs"

_F = TypeVar("_F", bound=Callable[..., Any])
_HARD = "__kpass_hard"
_KEY = "__kpass_category"
_ROWS = "__kpass_rows"
_NO_ID = "__kpass_no_id"
_NULL = "__kpass_null"
_BAD = "__kpass_bad"
_WRONG = "__kpass_wrong"
_SAMPLES = "__kpass_samples"
_COST = "__kpass_cost"
_COST_BAD = "__kpass_cost_bad"
# Repeated (id, sample) pairs are located among at most this many offending questions
# (a filter on their ids); with more, the pairs of the whole frame are grouped.
_LOCATE_AMONG = 1000


_TOO_OLD = re.compile(r"Minimum version of (?P<engine>\S+) supported by Narwhals is "
                      r"\((?P<least>[\d, ]+)\), found: \((?P<found>[\d, ]+)\)")


def _too_old(error: ValueError) -> ValueError | None:
    """Narwhals' refusal of an engine version, in kpass's words; None for any other error."""
    found = _TOO_OLD.search(str(error))
    if found is None:
        return None
    import narwhals

    engine = found["engine"]
    least, version = (".".join(part.strip() for part in found[name].split(","))
                      for name in ("least", "found"))
    return ValueError(
        f"`frame` is a {engine} {version} dataframe, but narwhals {narwhals.__version__} "
        f"(which from_long reads frames through) supports {engine} {least} or later; "
        f"upgrade {engine} to {least} or later, or group the frame in {engine} yourself "
        "and build the counts from its per-question rows (BinaryCounts(n, c, ids=...))")


def _engine_version_named(function: _F) -> _F:
    """Narwhals checks an engine's version lazily, at its first use: name it in any call."""

    @functools.wraps(function)
    def named(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except ValueError as error:
            too_old = _too_old(error)
            if too_old is None:
                raise
            raise too_old from None

    return cast(_F, named)


@overload
def binary_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                     sample: str | None = None, threshold: float | None = None,
                     by: None = None) -> BinaryCounts: ...


@overload
def binary_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                     sample: str | None = None, threshold: float | None = None,
                     by: str) -> dict[str, BinaryCounts]: ...


@_engine_version_named
def binary_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                     sample: str | None = None, threshold: float | None = None,
                     by: str | None = None) -> BinaryCounts | dict[str, BinaryCounts]:
    """Per-question ``(n, c)`` of a long frame (one row per sample), grouped in its engine.

    One group-by by ``id`` counts and validates at once, so a lazy source is scanned
    once (twice only to name the offending row of an error).

    Args:
        frame: a pandas, polars (eager or lazy), pyarrow, DuckDB, Dask or PySpark
            dataframe, or a ``datasets.Dataset``.
        id: the question-id column (str or int values).
        outcome: the outcome column: 0/1 (or bool); soft scores with ``threshold``.
        sample: optional sample-id column; a repeated (id, sample) pair is an error.
            Found in the same group-by (distinct samples per question against its rows).
        threshold: soft scores: a sample is correct iff its score > threshold.
        by: a column naming each row's model (or run): one group-by by (model, id), the
            frame still scanned once, and one BinaryCounts per model.

    Returns:
        BinaryCounts with ``ids``, questions sorted by id (engines do not keep an order);
        with ``by``, a dict label -> BinaryCounts, labels (the values as text) sorted,
        the mapping :func:`kpass.leaderboard` and :func:`kpass.report_table` take.

    Raises:
        ValueError: a missing outcome (null or NaN), a value other than 0/1 (or a
            non-finite score), a missing id, a repeated (id, sample) pair, an empty
            frame, an engine older than narwhals supports; the message shows the
            offending row with the smallest id; with ``by``: a missing model, one model
            only, two values with one label (``1`` and ``"1"``).
        TypeError: an outcome column that is not numeric or boolean, an id column
            (or an id) that is not str or int; a ``by`` column that is not str or int.
    """
    counts, _ = _binary(frame, id, outcome, sample, threshold, by, None)
    return counts


@overload
def from_long_with_costs(frame: Any, *, id: str, outcome: str,  # noqa: A002 - column role
                         cost: str, sample: str | None = None,
                         threshold: float | None = None, by: None = None
                         ) -> tuple[BinaryCounts, np.ndarray]: ...


@overload
def from_long_with_costs(frame: Any, *, id: str, outcome: str,  # noqa: A002 - column role
                         cost: str, sample: str | None = None,
                         threshold: float | None = None, by: str
                         ) -> tuple[dict[str, BinaryCounts], dict[str, np.ndarray]]: ...


@_engine_version_named
def from_long_with_costs(frame: Any, *, id: str, outcome: str,  # noqa: A002 - column role
                         cost: str, sample: str | None = None,
                         threshold: float | None = None, by: str | None = None
                         ) -> (tuple[BinaryCounts, np.ndarray]
                               | tuple[dict[str, BinaryCounts], dict[str, np.ndarray]]):
    r"""The counts of :meth:`kpass.BinaryCounts.from_long` and each question's mean cost.

    The same group-by in the frame's engine (one scan of a lazy source: Spark, DuckDB,
    Dask, polars) counts the samples and sums the ``cost`` column per question (and per
    model with ``by``); the mean cost of one sample of question i is

        x_i = (sum of ``cost`` over the n_i rows of question i) / n_i,

    what :func:`kpass.cost_summary`, :func:`kpass.cost_difference`, :func:`kpass.cost_front`,
    :func:`kpass.report_table` (``cost=``) and :func:`kpass.compare_table` (``cost_a=``,
    ``cost_b=``) take, in the counts' question order (sorted by id). ``kpass report --cost
    COLUMN`` computes the same numbers from a file.

    Args:
        frame: as :meth:`kpass.BinaryCounts.from_long`.
        id: the question-id column.
        outcome: the outcome column (0/1, bool; soft scores with ``threshold``).
        cost: the column of each sample's cost (money or tokens): numeric, finite, >= 0.
        sample: optional sample-id column; a repeated (id, sample) pair is an error.
        threshold: soft scores: a sample is correct iff its score > threshold.
        by: a column naming each row's model: one group-by by (model, id).

    Returns:
        ``(counts, costs)``: :class:`kpass.BinaryCounts` and a float array of its
        questions' mean costs; with ``by``, a dict label -> BinaryCounts and a dict label ->
        cost array (the same labels, sorted), ready for
        ``report_table(counts, cost=costs, by=...)``.

    Raises:
        ValueError: as :meth:`kpass.BinaryCounts.from_long`; a missing (null or NaN),
            negative or infinite cost, named with the offending row (smallest id first).
        TypeError: as :meth:`kpass.BinaryCounts.from_long`; a ``cost`` column that is not
            numeric, or ``cost`` naming the id, sample, outcome or model column.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"q": ["b", "a", "b"], "ok": [1, 0, 0],
        ...                       "usd": [0.5, 0.25, 1.5]})
        >>> counts, costs = from_long_with_costs(frame, id="q", outcome="ok", cost="usd")
        >>> counts.ids, counts.n_samples.tolist(), costs.tolist()
        (('a', 'b'), [1, 2], [0.25, 1.0])
    """
    if not isinstance(cost, str) or not cost:
        raise ArgumentTypeError(f"`cost` must name the frame's cost column (a str); got "
                                f"{_show(cost)}")
    if cost in (id, outcome, sample, by):
        raise InputError(f"`cost`={cost!r} is already read as the question id, outcome, sample "
                         "or model; name the column of each sample's cost")
    counts, costs = _binary(frame, id, outcome, sample, threshold, by, cost)
    assert costs is not None
    return counts, costs


def _binary(frame: Any, id: str, outcome: str, sample: str | None,  # noqa: A002
            threshold: float | None, by: str | None, cost: str | None
            ) -> tuple[Any, Any]:
    """The one group-by of :func:`binary_from_long` (and, with ``cost``, its cost sums).

    Returns:
        ``(counts, costs)``: BinaryCounts (a dict per label with ``by``) and None without
        ``cost``, else each question's mean cost (a dict of arrays with ``by``).
    """
    if threshold is not None:
        threshold = check_real(threshold, "threshold")
    nw, df = _frame(frame)
    _check_columns(df, [id, outcome] + ([sample] if sample else []) + ([by] if by else [])
                   + ([cost] if cost else []))
    if by is not None:
        _check_by(nw, df, by, [id, outcome, sample])
    kind, dtype = _outcome_kind(nw, df, outcome)
    value = nw.col(outcome)
    if threshold is None:
        bad = _outside(nw, value, kind, dtype, 0, 1)
        expected = "0 or 1 (soft scores need threshold=T)"
    else:
        bad = ~value.is_finite() if kind == "float" else None
        expected = "a finite score"
    check = _Checks(nw, df, id, outcome, kind, bad, expected, by)
    columns = {_HARD: _hard(nw, value, kind, dtype, threshold)}
    spent = None if cost is None else _Cost(nw, df, cost)
    if spent is not None:
        columns.update(spent.columns())
    table = check.grouped(check.keys, columns, sample)
    check.refuse(table)
    if sample:
        check.refuse_repeats(table, sample)
    if spent is not None:
        spent.refuse(table, id)
    if by is not None:
        return _split(table, id, by, cost is not None)
    ids = [_question_id(raw, id) for raw in table[id]]
    order = sorted(range(len(ids)), key=lambda i: _sort_key(ids[i]))
    n = np.array([_count(table[_ROWS][i]) for i in order], dtype=np.int64)
    c = np.array([_count(table[_HARD][i]) for i in order], dtype=np.int64)
    counts = BinaryCounts(n, c, ids=[ids[i] for i in order])
    if spent is None:
        return counts, None
    return counts, np.array([_mean_cost(table[_COST][i], n[j]) for j, i in enumerate(order)],
                            dtype=float)


def _mean_cost(total: Any, rows: int) -> float:
    """A question's cost sum over its rows as the mean cost of one sample."""
    return 0.0 if total is None else float(total) / int(rows)


class _Cost:
    """A ``cost`` column: its sum per question and its flag of invalid rows, in the group-by.

    An integer column is summed as integers (no cast an engine could refuse), a float or
    decimal one as Float64. A row is invalid when its cost is missing (null, or NaN), negative
    or infinite; the flag is summed with the counts, and only on an error does a second
    query fetch the offending row (the smallest id, then the smallest cost).
    """

    def __init__(self, nw: Any, df: Any, cost: str) -> None:
        dtype = df.collect_schema()[cost]
        if dtype.is_integer():
            kind = "int"
        elif dtype.is_float() or dtype == nw.Decimal:
            kind = "float"
        else:
            raise ArgumentTypeError(f"`cost` must name a numeric column (each sample's cost, "
                                    f"money or tokens); `{cost}` has dtype {dtype}")
        self.nw, self.df, self.cost, self.kind = nw, df, cost, kind
        value = nw.col(cost)
        self.missing = _missing(nw, value, kind)
        if kind == "int":
            low, _ = _int_range(dtype)
            self.value = value
            negative = value < nw.lit(0, dtype=dtype) if low < 0 else nw.lit(False)
            self.invalid = (~self.missing & negative).fill_null(False)
        else:
            self.value = value.cast(nw.Float64)
            self.invalid = (~self.missing & (~self.value.is_finite() | (self.value < 0))
                            ).fill_null(False)

    def columns(self) -> dict[str, Any]:
        """The cost's sum (invalid rows as 0) and the invalid rows' count, per group."""
        nw = self.nw
        flag = self.missing | self.invalid
        zero = nw.lit(0, dtype=self.df.collect_schema()[self.cost]) if self.kind == "int" \
            else nw.lit(0.0)
        return {_COST: nw.when(~flag).then(self.value).otherwise(zero),
                _COST_BAD: flag.cast(nw.Int64)}

    def refuse(self, table: dict[str, list[Any]], id: str) -> None:  # noqa: A002
        """Raise on a missing, negative or infinite cost, naming one offending row."""
        if not sum(_count(bad) for bad in table[_COST_BAD]):
            return
        nw, df, cost = self.nw, self.df, self.cost
        missing = _count(_table(df.select(self.missing.cast(nw.Int64).sum().alias(_NULL)))[
            _NULL][0])
        if missing:
            row = _first(nw, df.filter(self.missing), [id])
            raise InputError(f"`cost` column `{cost}` is missing (null or NaN) for question id "
                             f"{row[id]!r} ({missing} missing costs in all); every sample "
                             "needs its cost")
        invalid = _count(_table(df.select(self.invalid.cast(nw.Int64).sum().alias(_BAD)))[
            _BAD][0])
        row = _first(nw, df.filter(self.invalid), [id, cost])
        shown = _show(_displayed(row[cost]))
        raise InputError(f"`cost` column `{cost}` must hold finite numbers >= 0 (each sample's "
                         f"cost); got {cost}={shown} for question id {row[id]!r} ({invalid} "
                         "such rows)")


@overload
def categorical_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002
                          sample: str | None = None, by: None = None) -> CategoricalCounts: ...


@overload
def categorical_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002
                          sample: str | None = None, by: str
                          ) -> dict[str, CategoricalCounts]: ...


@_engine_version_named
def categorical_from_long(frame: Any, *, id: str, outcome: str,  # noqa: A002
                          sample: str | None = None, by: str | None = None
                          ) -> CategoricalCounts | dict[str, CategoricalCounts]:
    """Per-question category counts of a long frame, grouped by (id, category) in its engine.

    The group-by by (id, category) also validates (a missing or invalid category is
    grouped as null, with its count), so the frame is scanned once; ``sample=`` adds a
    second group-by by id (distinct samples per question against its rows).

    Args:
        frame: as :func:`binary_from_long`.
        id: the question-id column.
        outcome: the category column: integers 0, 1, ..., C with C < 65536 (integral
            floats and bools too), as :func:`kpass.categorical_counts` takes them.
        sample: optional sample-id column; a repeated (id, sample) pair is an error.
        by: a column naming each row's model: grouped by (model, id, category), one
            CategoricalCounts per model (as :func:`binary_from_long`'s ``by``), every model
            with the same number of categories.

    Returns:
        CategoricalCounts with ``ids`` (sorted) and no prior outcomes; with ``by``, a dict
        label -> CategoricalCounts, labels sorted.

    Raises:
        ValueError: a missing, negative, fractional or too large category, a missing
            id, a repeated pair, an empty frame, or more questions x categories than
            the table of :func:`kpass.categorical_counts` holds; checked in the engine
            before any table is allocated.
        TypeError: as :func:`binary_from_long`.
    """
    nw, df = _frame(frame)
    _check_columns(df, [id, outcome] + ([sample] if sample else []) + ([by] if by else []))
    if by is not None:
        _check_by(nw, df, by, [id, outcome, sample])
    kind, dtype = _outcome_kind(nw, df, outcome)
    value = nw.col(outcome)
    bad = _outside(nw, value, kind, dtype, 0, MAX_CATEGORIES - 1)
    expected = (f"an integer category in [0, {MAX_CATEGORIES - 1}] (at most "
                f"{MAX_CATEGORIES} categories)")
    check = _Checks(nw, df, id, outcome, kind, bad, expected, by)
    # A valid category is grouped as it is (no cast: 2.0, True, Decimal 2 are read as
    # ints below); a missing or invalid one as null, so that bad rows add one group
    # per question, not one per distinct bad value.
    category = nw.when(~check.missing & ~check.flagged).then(value)
    table = check.grouped([*check.keys, _KEY], {_KEY: category})
    check.refuse(table)
    if sample:
        check.refuse_repeats(check.samples(df.group_by(*check.keys), sample), sample)
    categories = [int(_plain(category)) for category in table[_KEY]]
    width = max(categories) + 1
    if by is not None:
        labels = _labels_of(table, by)
        return {label: _category_table(
            {key: [item for item, mine in zip(values, labels, strict=True) if mine == label]
             for key, values in table.items()}, id, outcome, width)
            for label in sorted(set(labels))}
    return _category_table(table, id, outcome, width)


def _category_table(table: dict[str, list[Any]], id: str, outcome: str,  # noqa: A002
                    width: int) -> CategoricalCounts:
    """The (id, category) groups of one model as its table of category counts."""
    raw_ids = [_question_id(raw, id) for raw in table[id]]
    categories = [int(_plain(category)) for category in table[_KEY]]
    ids = sorted(set(raw_ids), key=_sort_key)
    if len(ids) * width > MAX_CATEGORY_TABLE:
        raise InputError(
            f"`{outcome}` needs a table of {len(ids)} questions x {width} categories, more "
            f"than the {MAX_CATEGORY_TABLE} entries supported; use fewer categories (renumber "
            "them 0..C-1) or fewer questions per call")
    slot = {qid: q for q, qid in enumerate(ids)}
    counts = np.zeros((len(ids), width), dtype=np.int64)
    for qid, category, n in zip(raw_ids, categories, table[_ROWS], strict=True):
        counts[slot[qid], category] += _count(n)
    return CategoricalCounts(counts, np.zeros_like(counts), ids=ids)


# ----------------------------------------------------------------------------- helpers

def _check_by(nw: Any, df: Any, by: str, roles: list[str | None]) -> None:
    """A ``by`` column: not one of the other roles, of str or int values."""
    if by in roles:
        raise InputError(f"`by`={by!r} is already read as the question id, sample or outcome; "
                         "name the model column")
    kind = df.collect_schema()[by]
    if not _id_type_ok(nw, kind):
        raise ArgumentTypeError(f"`by` must name a column of str or int model names; `{by}` "
                                f"has dtype {kind}")


def _labels_of(table: dict[str, list[Any]], by: str) -> list[str]:
    """Each group's model label (its ``by`` value as text), checked.

    Raises:
        ValueError: a missing model, two values with one label, one model only.
    """
    missing = sum(_count(rows) for raw, rows in zip(table[by], table[_ROWS], strict=True)
                  if _is_null(raw))
    if missing:
        raise InputError(f"`{by}` is missing in {missing} rows; every sample needs its model "
                         "(by=)")
    labels = []
    raw_of: dict[str, Any] = {}
    for raw in table[by]:
        value = _question_id(raw, by)
        label = str(value)
        if raw_of.setdefault(label, value) != value:
            raise InputError(f"`{by}` holds {_show(raw_of[label])} and {_show(value)}, one "
                             f"label {label!r}; make the model names distinct")
        labels.append(label)
    if len(raw_of) < 2:
        raise InputError(f"`{by}` holds one value ({next(iter(raw_of))!r}), so one model; "
                         "drop by= to count it as one run")
    return labels


def _split(table: dict[str, list[Any]], id: str, by: str,  # noqa: A002
           with_costs: bool = False) -> tuple[dict[str, BinaryCounts], Any]:
    """The (model, id) group-by as one BinaryCounts per model (labels sorted, ids sorted).

    Returns:
        The dict label -> BinaryCounts, and with ``with_costs`` the dict label -> each
        question's mean cost (else None).
    """
    per: dict[str, dict[Any, tuple[int, int, Any]]] = {}
    totals = table[_COST] if with_costs else [None] * len(table[id])
    for label, qid, n, c, total in zip(_labels_of(table, by), table[id], table[_ROWS],
                                       table[_HARD], totals, strict=True):
        per.setdefault(label, {})[_question_id(qid, id)] = (_count(n), _count(c), total)
    split = {}
    costs = {}
    for label in sorted(per):
        ids = sorted(per[label], key=_sort_key)
        split[label] = BinaryCounts(np.array([per[label][q][0] for q in ids], dtype=np.int64),
                                    np.array([per[label][q][1] for q in ids], dtype=np.int64),
                                    ids=ids)
        costs[label] = np.array([_mean_cost(per[label][q][2], per[label][q][0]) for q in ids],
                                dtype=float)
    return split, costs if with_costs else None


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
        raise ArgumentTypeError(f"`frame` must be a dataframe (pandas, polars, pyarrow, DuckDB, "
                                f"Dask, PySpark) or a datasets.Dataset; got "
                                f"{type(frame).__name__}") from None


def _check_columns(df: Any, wanted: list[str]) -> None:
    names = list(df.collect_schema().names())
    for name in wanted:
        if name not in names:
            raise InputError(f"the frame has no column `{name}`; its columns are {names}")


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


def _table(df: Any) -> dict[str, list[Any]]:
    """A (small) query's result as lists by column name."""
    table: dict[str, list[Any]] = _collect(df).to_dict(as_series=False)
    return table


def _is_null(value: Any) -> bool:
    """None, NaN or pandas' NA (whose comparisons are neither true nor false)."""
    try:
        return value is None or bool(value != value)
    except TypeError:
        return True


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
        row = _table(ordered.select(*columns).head(1))
    except TypeError:
        row = _table(df.select(*columns).head(1))
    return {name: _plain(row[name][0]) for name in columns}


def _id_type_ok(nw: Any, id_type: Any) -> bool:
    return bool(id_type == nw.String or id_type.is_integer() or id_type == nw.Object
                or id_type == nw.Categorical or id_type == nw.Enum)


class _Checks:
    """The checks of one frame: flags computed per row, summed in the counting group-by.

    ``grouped`` runs the one group-by (after the checks that the schema alone decides);
    ``refuse`` reads its small result in the order the messages have always come in
    (no rows, missing ids, id type, missing outcomes, bad values) and, only on an
    error, queries the frame again for the offending row.
    """

    def __init__(self, nw: Any, df: Any, id: str, outcome: str,  # noqa: A002
                 kind: str, bad: Any, expected: str, by: str | None = None) -> None:
        self.nw, self.df, self.id, self.outcome = nw, df, id, outcome
        self.keys = [id] if by is None else [by, id]  # a question: its id (and model)
        self.bad, self.expected = bad, expected
        self.missing = _missing(nw, nw.col(outcome), kind)
        self.flagged = nw.lit(False) if bad is None else (~self.missing & bad).fill_null(False)

    def grouped(self, keys: list[str], columns: dict[str, Any],
                sample: str | None = None) -> dict[str, list[Any]]:
        """One group-by by ``keys``: rows, missing ids and outcomes, flagged values.

        Also the sums of ``columns`` (a key among them is grouped by, not summed) and,
        with ``sample`` (``keys`` the question's: ``self.keys``), the distinct samples of
        each question.
        """
        nw, df, id = self.nw, self.df, self.id  # noqa: A001
        id_type = df.collect_schema()[id]
        if not _id_type_ok(nw, id_type):
            # Checked before grouping by a column an engine may not group by (lists,
            # structs); an empty frame and missing ids are reported first, as always.
            totals = _table(df.select(nw.len().alias(_ROWS), nw.col(id).is_null().cast(
                nw.Int64).sum().alias(_NO_ID)))
            self._refuse_empty(_count(totals[_ROWS][0]), _count(totals[_NO_ID][0]))
            raise ArgumentTypeError(f"`{id}` must be a column of str or int question ids; got "
                                    f"dtype {id_type}")
        if id_type == nw.Object:  # a pandas object column: check its distinct values as they are
            distinct = _table(df.select(nw.col(id).unique()))[id]
            if not any(_is_null(raw) for raw in distinct):  # a missing id is reported below
                for raw in distinct:
                    _question_id(raw, id)  # before grouping, which may turn 1 into 1.0 beside 2.5
        # One flag, missing or invalid outcome, summed per group; a missing id is a
        # null group key. The breakdown is queried only when a flag is set.
        flags = {_WRONG: (self.missing | self.flagged).cast(nw.Int64)}
        sums = [nw.col(name).sum() for name in [*flags, *columns] if name not in keys]
        frame = df.with_columns(*(expression.alias(name) for name, expression
                                  in {**flags, **columns}.items()))
        if sample is None:
            return _table(frame.group_by(*keys).agg(nw.len().alias(_ROWS), *sums))
        return self.samples(frame.group_by(*self.keys), sample, sums)

    def samples(self, by_id: Any, sample: str, sums: list[Any] | None = None
                ) -> dict[str, list[Any]]:
        """Rows and distinct samples of each question (and ``sums``) from ``by_id``.

        ``by_id`` is a group-by by id of the frame: one pass, the distinct count is one
        more aggregate of it.

        Dask is the exception: narwhals (2.29) counts its distinct values per group in
        each partition and adds the counts up, which misses a pair repeated across
        partitions; there the distinct (id, sample) pairs are counted per id and joined
        in, in the same task graph (the source is still read once).
        """
        nw, df = self.nw, self.df
        if not df.implementation.is_dask():
            return _table(by_id.agg(nw.len().alias(_ROWS), *(sums or []),
                                    nw.col(sample).n_unique().alias(_SAMPLES)))
        keys = self.keys
        distinct = df.select(*keys, sample).unique().group_by(*keys).agg(
            nw.len().alias(_SAMPLES))
        return _table(by_id.agg(nw.len().alias(_ROWS), *(sums or [])).join(
            distinct, on=keys, how="left"))

    def _refuse_empty(self, rows: int, no_id: int) -> None:
        if not rows:
            raise InputError("the frame has no rows; a question needs at least one sample")
        if no_id:
            raise InputError(f"`{self.id}` is missing in {no_id} rows; every sample needs its "
                             "question id")

    def refuse(self, table: dict[str, list[Any]]) -> None:
        """Raise on the first problem the grouped ``table`` shows, with one offending row."""
        nw, df, id, outcome = self.nw, self.df, self.id, self.outcome  # noqa: A001
        self._refuse_empty(sum(_count(rows) for rows in table[_ROWS]),
                           sum(_count(rows) for raw, rows in zip(table[id], table[_ROWS],
                                                                 strict=True) if _is_null(raw)))
        if not sum(_count(wrong) for wrong in table[_WRONG]):
            return
        totals = _table(df.select(self.missing.cast(nw.Int64).sum().alias(_NULL), *(
            [] if self.bad is None else [self.flagged.cast(nw.Int64).sum().alias(_BAD)])))
        missing, flagged = _count(totals[_NULL][0]), _count(totals.get(_BAD, [0])[0])
        if missing:
            row = _first(nw, df.filter(self.missing), [id])
            raise InputError(f"`{outcome}` is missing (null or NaN) for question id {row[id]!r} "
                             f"({missing} missing outcomes in all)")
        if flagged:
            row = _first(nw, df.filter(self.flagged), [id, outcome])
            shown = _show(_displayed(row[outcome]))
            raise InputError(f"`{outcome}` must be {self.expected}; got {outcome}={shown} for "
                             f"question id {row[id]!r} ({flagged} such rows)")

    def refuse_repeats(self, table: dict[str, list[Any]], sample: str) -> None:
        """A question with fewer distinct samples than rows repeats a pair: name the smallest.

        The pair is located by a second group-by by (id, sample), only now that a
        repeat is known, and only among the offending questions (when they are few).
        """
        nw, df, id = self.nw, self.df, self.id  # noqa: A001
        offending = [_plain(raw) for raw, rows, distinct
                     in zip(table[id], table[_ROWS], table[_SAMPLES], strict=True)
                     if _count(distinct) < _count(rows)]
        if not offending:
            return
        if len(offending) <= _LOCATE_AMONG:
            df = df.filter(nw.col(id).is_in(offending))
        pairs = df.group_by(*self.keys, sample).agg(nw.len().alias(_ROWS))
        row = _first(nw, pairs.filter(nw.col(_ROWS) > 1), [*self.keys, sample, _ROWS])
        model = "" if len(self.keys) == 1 else f" of {self.keys[0]} {row[self.keys[0]]!r}"
        raise InputError(f"(id, sample) = ({row[id]!r}, {row[sample]!r}){model} is repeated "
                         f"({row[_ROWS]} rows); each sample of a question must appear once")


def _hard(nw: Any, value: Any, kind: str, dtype: Any, threshold: float | None) -> Any:
    """The 0/1 outcome of each row (correct iff score > threshold with a threshold).

    Computed by comparison, never by a cast of the values (which an engine refuses for
    1e300 or 2**62 to int64, before the group-by has shown them to be invalid).
    """
    if threshold is None:
        if kind == "bool":
            return value.fill_null(False).cast(nw.Int64)
        one = nw.lit(1, dtype=dtype) if kind == "int" else nw.lit(1.0)
        correct = (value if kind == "int" else value.cast(nw.Float64)) == one
        return correct.fill_null(False).cast(nw.Int64)  # a missing one is refused
    if kind != "int":
        return (value.cast(nw.Float64) > threshold).fill_null(False).cast(nw.Int64)
    # An integer score x > T iff x > floor(T); compared as integers, with floor(T) kept
    # inside the column type's range so that no engine meets a literal it cannot hold.
    cut = math.floor(threshold)
    low, high = _int_range(dtype)
    if cut < low:
        return (~value.is_null()).cast(nw.Int64)  # every (non-missing) score is above T
    if cut >= high:
        return value.is_null().cast(nw.Int64)  # none is (a missing one is refused)
    return (value > nw.lit(cut, dtype=dtype)).fill_null(False).cast(nw.Int64)


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


register_frame_readers(binary=binary_from_long, categorical=categorical_from_long)
