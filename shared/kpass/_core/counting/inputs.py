"""Validation at the edge: outcome lists/arrays -> validated per-question counts.

Every public function of kpass funnels its outcomes through :func:`binary_counts`
or :func:`categorical_counts`, so a bad value is rejected once, with a message
that names the question and the sample (``R[3][7]=2``). Scalar arguments are
checked by :mod:`kpass._core.counting.checks`; :class:`BinaryCounts` and
:class:`CategoricalCounts` are defined in :mod:`kpass._core.counting.counts`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from .checks import (
    ArgumentTypeError,
    CategoryValueError,
    InputError,
    OutcomeValueError,
    _show,
    check_count,
)
from .counts import BinaryCounts, CategoricalCounts, _pad_columns
from .rowcount import binary_row_counts

__all__ = ["binary_counts", "categorical_counts"]


def _first_bad(matrix: np.ndarray, bad: np.ndarray) -> tuple[int, int]:
    index = np.argwhere(bad)[0]
    return int(index[0]), int(index[1])


def _binary_matrix_counts(matrix: np.ndarray, name: str) -> BinaryCounts:
    """Validate a 2-D numeric array of 0/1 outcomes and count each row."""
    m, n = matrix.shape
    dtype = matrix.dtype
    fast = binary_row_counts(matrix)
    if fast is not None:
        return BinaryCounts._trusted(np.full(m, n, dtype=np.int64), fast)
    if dtype == np.bool_:
        return BinaryCounts(np.full(m, n, dtype=np.int64),
                            np.count_nonzero(matrix, axis=1).astype(np.int64))
    if dtype.kind in "iuf":
        bad = (matrix != 0) & (matrix != 1)
        if bad.any():
            i, j = _first_bad(matrix, bad)
            raise InputError(
                f"`{name}` must hold binary outcomes 0 or 1; got {name}[{i}][{j}]="
                f"{_show(matrix[i, j].item())}"
            )
        if dtype.kind == "f":
            counts = np.count_nonzero(matrix, axis=1)
        else:
            counts = matrix.sum(axis=1, dtype=np.int64)
        return BinaryCounts(np.full(m, n, dtype=np.int64), counts.astype(np.int64))
    raise _bad_element_type(matrix.tolist(), name, "binary outcomes 0 or 1")


def _bad_element_type(rows: Any, name: str, expected: str) -> ArgumentTypeError:
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            if not _is_number(value):
                missing = value is None or type(value).__name__ == "NAType"
                hint = ("; to leave samples out, pass a numpy masked array, a pandas table "
                        "or per-question lists of different lengths") if missing else ""
                return ArgumentTypeError(
                    f"`{name}` must hold {expected}; got {name}[{i}][{j}]={_show(value)} "
                    f"({type(value).__name__}){hint}"
                )
    return ArgumentTypeError(f"`{name}` must hold {expected}; got an array of non-numbers")


def _is_number(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, (str, bytes))


def _rows_of(R: Any, name: str) -> tuple[np.ndarray | None, list[Any] | None]:
    """Return a 2-D array (rectangular input) or a list of rows (ragged input)."""
    if isinstance(R, np.ndarray):
        if R.dtype == object:
            return None, [list(row) if _is_sequence(row) else row for row in R]
        if R.ndim == 1:
            R = R.reshape(1, -1)
        if R.ndim != 2:
            raise InputError(
                f"`{name}` must be a 2-D array (questions x samples) or a list of per-question "
                f"lists; got an array with {R.ndim} dimensions"
            )
        return R, None
    if not isinstance(R, (str, bytes)) and not _is_sequence(R) and hasattr(R, "__array__"):
        return _rows_of(np.asarray(R), name)  # DataFrames, tensors and other array-likes
    if isinstance(R, (str, bytes)) or not _is_sequence(R):
        raise ArgumentTypeError(
            f"`{name}` must be a 2-D array or a list of per-question outcome lists; "
            f"got {name}={_show(R)} ({type(R).__name__})"
        )
    rows = list(R)
    if rows and all(_is_number(value) for value in rows):
        rows = [rows]  # one question given as a flat list, as the reference library allows
    return None, rows


def _matrix_or_rows(R: Any, name: str) -> tuple[np.ndarray | None, list[Any] | None]:
    """Like :func:`_rows_of`, but rectangular numeric lists come back as one array."""
    matrix, rows = _rows_of(R, name)
    if matrix is None:
        try:
            candidate = np.asarray(rows)
        except (TypeError, ValueError):
            candidate = None
        if candidate is not None and candidate.ndim == 2 and candidate.dtype.kind in "biuf":
            return candidate, None
    return matrix, rows


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def _ragged_flat(rows: list[Any], name: str) -> tuple[np.ndarray, np.ndarray]:
    """Flatten ragged rows into (values, lengths), refusing empty rows and non-numbers."""
    if not rows:
        raise InputError(f"`{name}` must contain at least one question; got 0 questions")
    lengths = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        if not _is_sequence(row):
            raise ArgumentTypeError(
                f"`{name}` must be a list of per-question outcome lists; got {name}[{i}]="
                f"{_show(row)} ({type(row).__name__})"
            )
        lengths[i] = len(row)
        if lengths[i] == 0:
            raise InputError(f"every question needs at least one sample; {name}[{i}] is empty")
    values = flat_numbers(rows)[1]
    if values is None:
        nested = [np.asarray(row, dtype=object).ravel().tolist() for row in rows]
        raise _bad_element_type(nested, name, "numbers")
    return values, lengths


def flat_numbers(rows: list[Any]) -> tuple[list[Any], np.ndarray | None]:
    """The rows' values end to end, and as one 1-D array of numbers (bool, int or float).

    The array is None when some value is not a plain number (a string, a nested list, an
    integer too large for int64, ...): the caller then names the first bad value its own way
    (an argument's element here, a file's line and position in :mod:`kpass.io.rows`).
    """
    flat = list(chain.from_iterable(rows))
    try:
        values = np.asarray(flat)
    except (TypeError, ValueError):
        return flat, None
    if values.ndim != 1 or values.dtype.kind not in "biuf":
        return flat, None
    return flat, values


def _is_pandas(R: Any) -> bool:
    """A pandas DataFrame or Series (duck-typed: the core does not import pandas)."""
    return type(R).__module__.startswith("pandas") and hasattr(R, "isna") and \
        hasattr(R, "to_numpy")


def _plain_numeric(R: Any) -> bool:
    """A pandas table of plain numpy int/uint/bool columns, or float columns without NaN.

    Such a table has no missing entry, so it needs no object conversion (which costs
    about a second per 10^7 entries).
    """
    dtypes = list(R.dtypes) if hasattr(R, "columns") else [R.dtype]
    if not dtypes or not all(isinstance(dtype, np.dtype) and dtype.kind in "biuf"
                             for dtype in dtypes):
        return False
    if all(dtype.kind in "biu" for dtype in dtypes):
        return True
    return not bool(np.isnan(R.to_numpy(dtype=np.float64)).any())


def _without_missing(R: Any, name: str, *, allow_empty: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(values, lengths, columns)`` of a masked array or a pandas table, missing left out.

    A masked entry (numpy masked array) or a missing one (pandas ``isna``: NA, None,
    NaN in nullable and plain columns) is not a sample: each question keeps its own
    n, its unmasked entries, as if the rows had been given as ragged lists.
    ``columns`` holds the original column of each value, for messages. Returns None
    for any other input (and for a pandas Series of per-question lists).
    """
    if isinstance(R, np.ma.MaskedArray):
        data, missing = np.ma.getdata(R), np.ma.getmaskarray(R)
    elif _is_pandas(R):
        if _plain_numeric(R):
            return None  # nothing can be missing: the array path counts it in one pass
        data = R.to_numpy(dtype=object)
        if data.ndim == 1 and any(_is_sequence(value) for value in data):
            return None
        missing = np.asarray(R.isna(), dtype=bool)
    else:
        return None
    if data.ndim == 1:
        data, missing = data.reshape(1, -1), missing.reshape(1, -1)
    if data.ndim != 2:
        raise InputError(f"`{name}` must be a 2-D array (questions x samples); got an array "
                         f"with {data.ndim} dimensions")
    if data.shape[0] == 0:
        raise InputError(f"`{name}` must contain at least one question; got 0 questions")
    present = ~missing
    lengths = present.sum(axis=1).astype(np.int64)
    if np.any(lengths == 0) and not allow_empty:
        i = int(np.flatnonzero(lengths == 0)[0])
        raise InputError(
            f"every question needs at least one sample; {name}[{i}] has none (every entry is "
            "masked or missing)")
    values = data[present]
    columns = np.nonzero(present)[1]
    if values.dtype == object:
        try:
            converted = np.asarray(values.tolist())
        except (TypeError, ValueError):
            converted = values
        if converted.dtype.kind not in "biuf" and values.size:
            bad = next(t for t, value in enumerate(values.tolist()) if not _is_number(value))
            i, j = _locate(bad, lengths)
            raise ArgumentTypeError(
                f"`{name}` must hold numbers; got {name}[{i}][{int(columns[bad])}]="
                f"{_show(values[bad])} ({type(values[bad]).__name__})")
        values = converted
    return values, lengths, columns


def _at_column(error: OutcomeValueError | CategoryValueError, columns: np.ndarray,
               lengths: np.ndarray, name: str) -> Exception:
    """The same error, naming the sample by its original column (masked entries counted)."""
    i, j = error.question, error.sample
    column = int(columns[int(lengths[:i].sum()) + j])
    error.args = (str(error).replace(f"{name}[{i}][{j}]=", f"{name}[{i}][{column}]="),)
    error.sample = column
    return error


def _locate(flat_index: int, lengths: np.ndarray) -> tuple[int, int]:
    ends = np.cumsum(lengths)
    row = int(np.searchsorted(ends, flat_index, side="right"))
    start = int(ends[row - 1]) if row else 0
    return row, flat_index - start


def binary_counts(R: Any, *, name: str = "R") -> BinaryCounts:
    """Validate binary outcomes and count them per question.

    Args:
        R: an (M, N) array of 0/1 (bool, int or integral float), or a list of
            per-question lists of possibly different lengths, or BinaryCounts.
        name: the argument's name, for messages.

    Returns:
        The per-question counts ``(n_samples, n_correct)``.

    Raises:
        ValueError: no question, an empty question, or a value other than 0/1
            (the message names the question and sample).
        ArgumentTypeError: a value that is not a number (None, a string, ...).

    Example:
        >>> binary_counts([[True, False], [1, 1, 0]]).n_correct.tolist()
        [1, 2]
    """
    if isinstance(R, BinaryCounts):
        return R
    if isinstance(R, CategoricalCounts):
        if not R.is_binary():
            raise InputError(f"`{name}` must hold binary outcomes 0 or 1; got categorical counts")
        return R.to_binary()
    masked = _without_missing(R, name)
    if masked is not None:
        values, lengths, columns = masked
        try:
            return binary_counts_from_flat(values, lengths, name=name)
        except OutcomeValueError as error:
            raise _at_column(error, columns, lengths, name) from None
    matrix, rows = _matrix_or_rows(R, name)
    if matrix is not None:
        if matrix.shape[0] == 0:
            raise InputError(f"`{name}` must contain at least one question; got 0 questions")
        if matrix.shape[1] == 0:
            raise InputError(f"every question needs at least one sample; {name}[0] is empty")
        if matrix.dtype.kind not in "biuf":
            raise _bad_element_type(matrix.tolist(), name, "binary outcomes 0 or 1")
        return _binary_matrix_counts(matrix, name)
    assert rows is not None  # one of matrix and rows is given
    values, lengths = _ragged_flat(rows, name)
    return binary_counts_from_flat(values, lengths, name=name)


def binary_counts_from_flat(values: np.ndarray, lengths: np.ndarray, *,
                            name: str = "R") -> BinaryCounts:
    """Counts of questions stored back to back: ``values`` (numbers), ``lengths`` (>= 1 each).

    Raises:
        OutcomeValueError: the first value other than 0/1, located by question and sample.
    """
    if values.dtype != np.bool_:
        bad = (values != 0) & (values != 1)
        if bad.any():
            flat_index = int(np.flatnonzero(bad)[0])
            i, j = _locate(flat_index, lengths)
            value = values[flat_index].item()
            raise OutcomeValueError(
                f"`{name}` must hold binary outcomes 0 or 1; got {name}[{i}][{j}]={_show(value)}",
                i, j, value)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    correct = np.add.reduceat(values.astype(np.int64), starts)
    return BinaryCounts(lengths, correct.astype(np.int64))


def categorical_counts(R: Any, R0: Any = None, *, n_categories: int | None = None,
                       name: str = "R") -> CategoricalCounts:
    """Validate categorical outcomes (ints 0..C) and count categories per question.

    Args:
        R: an (M, N) integer array or a list of per-question lists (ragged allowed),
            or CategoricalCounts / BinaryCounts.
        R0: optional prior outcomes, (M, D) or a list of M lists (one per question,
            possibly empty); a 1-D array of M*D entries is reshaped to M rows as in
            the reference library.
        n_categories: if given, categories must lie in [0, n_categories - 1].
        name: the argument's name, for messages.

    Returns:
        The category counts and prior counts.

    Raises:
        ValueError: a negative, non-integral or out-of-range category, or R0 with a
            different number of questions.
        ArgumentTypeError: a value that is not a number.
    """
    n_categories = check_count(n_categories, "n_categories")  # None: any number
    if isinstance(R, BinaryCounts):
        counts = np.stack([R.n_samples - R.n_correct, R.n_correct], axis=1)
        base = CategoricalCounts(counts, np.zeros_like(counts))
    elif isinstance(R, CategoricalCounts):
        base = R
    else:
        base = None
    if base is not None:
        if R0 is not None:
            prior = _category_matrix_counts(R0, "R0", n_categories, rows_expected=base.n_questions,
                                            allow_empty=True)
            base = CategoricalCounts(base.counts, _add_padded(base.prior_counts, prior))
        return base if n_categories is None else base.with_categories(n_categories)
    counts = _category_matrix_counts(R, name, n_categories)
    if R0 is None:
        prior = np.zeros_like(counts)
    else:
        prior = _category_matrix_counts(R0, "R0", n_categories, rows_expected=counts.shape[0],
                                        allow_empty=True)
    result = CategoricalCounts(counts, prior)
    return result if n_categories is None else result.with_categories(n_categories)


def _add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    width = max(a.shape[1], b.shape[1])
    return _pad_columns(a, width) + _pad_columns(b, width)


_FAST_CATEGORY_LIMIT = 16
#: Most categories (reward levels) an outcome may take: categories are 0..65535.
MAX_CATEGORIES = 1 << 16
#: Largest per-question category table (questions x categories) built, 2**27 entries (1 GiB).
MAX_CATEGORY_TABLE = 1 << 27


def _small_category_counts(matrix: np.ndarray, n_categories: int | None) -> np.ndarray | None:
    """Per-row category counts of an integer matrix with few categories, by one pass each.

    Returns None (the general path then validates and names any bad value) unless
    the matrix holds integers in [0, limit) with limit <= 16.
    """
    if matrix.dtype.kind not in "biu" or matrix.size == 0:
        return None
    ones = binary_row_counts(matrix)  # 0/1 data (the common case): one blocked pass
    if ones is not None:
        width = max(2, n_categories or 2)
        counts = np.zeros((matrix.shape[0], width), dtype=np.int64)
        counts[:, 0] = matrix.shape[1] - ones
        counts[:, 1] = ones
        return counts
    low, high = int(matrix.min()), int(matrix.max())
    limit = n_categories if n_categories is not None else high + 1
    if low < 0 or high >= limit or limit > _FAST_CATEGORY_LIMIT:
        return None
    counts = np.empty((matrix.shape[0], limit), dtype=np.int64)
    for category in range(limit):
        hits = np.equal(matrix, category)
        in_rows = binary_row_counts(hits)
        counts[:, category] = np.count_nonzero(hits, axis=1) if in_rows is None else in_rows
    return counts


def _category_matrix_counts(R: Any, name: str, n_categories: int | None,
                            rows_expected: int | None = None,
                            allow_empty: bool = False) -> np.ndarray:
    flat_array = isinstance(R, np.ndarray) and R.ndim == 1 and R.dtype != object
    if rows_expected is not None and flat_array:
        if R.size % rows_expected:
            raise InputError(
                f"`{name}` must have one row per question (M={rows_expected}); got a 1-D array "
                f"of {R.size} entries"
            )
        R = R.reshape(rows_expected, -1)
    masked = _without_missing(R, name, allow_empty=allow_empty)
    if masked is not None:
        values, lengths, columns = masked
        if rows_expected is not None and lengths.size != rows_expected:
            raise InputError(
                f"`{name}` must have one row per question (M={rows_expected}); got "
                f"{lengths.size} rows"
            )
        try:
            return _tabulate_categories(values, lengths, name, n_categories)
        except CategoryValueError as error:
            raise _at_column(error, columns, lengths, name) from None
    matrix, rows = _matrix_or_rows(R, name)
    if matrix is not None:
        m = matrix.shape[0]
        if rows_expected is not None and m != rows_expected:
            raise InputError(
                f"`{name}` must have one row per question (M={rows_expected}); got {m} rows"
            )
        if m == 0:
            raise InputError(f"`{name}` must contain at least one question; got 0 questions")
        if matrix.shape[1] == 0 and not allow_empty:
            raise InputError(f"every question needs at least one sample; {name}[0] is empty")
        if matrix.dtype.kind not in "biuf":
            raise _bad_element_type(matrix.tolist(), name, "integer categories")
        fast = _small_category_counts(matrix, n_categories)
        if fast is not None:
            return fast
        values = matrix.ravel()
        lengths = np.full(m, matrix.shape[1], dtype=np.int64)
    else:
        assert rows is not None  # one of matrix and rows is given
        if rows_expected is not None and len(rows) != rows_expected:
            raise InputError(
                f"`{name}` must have one row per question (M={rows_expected}); got {len(rows)} rows"
            )
        if allow_empty:
            nonempty = [row for row in rows if _is_sequence(row) and len(row)]
            lengths = np.array([len(row) if _is_sequence(row) else -1 for row in rows],
                               dtype=np.int64)
            if np.any(lengths < 0):
                i = int(np.flatnonzero(lengths < 0)[0])
                raise ArgumentTypeError(
                    f"`{name}` must be a list of per-question lists; got {name}[{i}]="
                    f"{_show(rows[i])}"
                )
            values = (_ragged_flat(nonempty, name)[0] if nonempty
                      else np.zeros(0, dtype=np.int64))
        else:
            values, lengths = _ragged_flat(rows, name)
    return _tabulate_categories(values, lengths, name, n_categories)


def _tabulate_categories(values: np.ndarray, lengths: np.ndarray, name: str,
                         n_categories: int | None) -> np.ndarray:
    """Validate categories stored back to back and count them per question, (M, C)."""
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (values != np.round(values))
    else:
        bad = np.zeros(values.shape, dtype=bool)
    limit = MAX_CATEGORIES if n_categories is None else n_categories
    with np.errstate(over="ignore"):  # float16 values against 65536: inf, still correct
        bad |= (values < 0) | (values >= limit)
    if bad.any():
        flat_index = int(np.flatnonzero(bad)[0])
        i, j = _locate(flat_index, lengths)
        hint = (f" (at most {MAX_CATEGORIES} categories)" if n_categories is None
                else " (one weight in `w` per category)")
        raise CategoryValueError(
            f"`{name}` must hold integer categories in [0, {limit - 1}]{hint}; got "
            f"{name}[{i}][{j}]={_show(values[flat_index].item())}",
            name, i, j, values[flat_index].item())
    ints = values.astype(np.int64)
    width = (int(ints.max()) + 1) if ints.size else 1
    if n_categories is not None:
        width = max(width, n_categories)
    if lengths.size * width > MAX_CATEGORY_TABLE:
        raise InputError(
            f"`{name}` needs a table of {lengths.size} questions x {width} categories, more than "
            f"the {MAX_CATEGORY_TABLE} entries supported; use fewer categories (renumber them "
            "0..C-1) or fewer questions per call"
        )
    rows_index = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    flat = np.bincount(rows_index * width + ints, minlength=lengths.size * width)
    return flat.reshape(lengths.size, width).astype(np.int64)
