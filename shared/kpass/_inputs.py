"""Validation at the edge: outcome lists/arrays -> validated per-question counts.

Every public function of kpass funnels its arguments through this module, so a
bad value is rejected once, with one message shape::

    `k` must be an int in [1, n]; got k=7 (n=5)

Bad types raise :class:`ArgumentTypeError`, which is both a ``TypeError`` (what it
is) and a ``ValueError`` (what the reference library raises for the same input),
so code written against either keeps working.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

SHORT_POLICIES = ("error", "skip")


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (also a ``ValueError``, as in the reference library)."""


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ----------------------------------------------------------------------------- scalars


def check_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, refusing bools, floats and strings.

    Args:
        value: the argument received.
        name: its name, for the message.

    Returns:
        The value as a Python int.

    Raises:
        ArgumentTypeError: ``value`` is not an integer.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(
            f"`{name}` must be an int; got {name}={_show(value)} ({type(value).__name__})"
        )
    return int(value)


def check_real(value: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False) -> float:
    """Return ``value`` as a finite float inside the given range.

    Args:
        value: the argument received.
        name: its name, for the message.
        low: smallest allowed value (None: unbounded).
        high: largest allowed value (None: unbounded).
        low_open: exclude ``low`` itself.
        high_open: exclude ``high`` itself.

    Returns:
        The value as a Python float.

    Raises:
        ArgumentTypeError: not a real number.
        ValueError: not finite, or outside the range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(
            f"`{name}` must be a real number; got {name}={_show(value)} ({type(value).__name__})"
        )
    result = float(value)
    left = "(" if low_open else "["
    right = ")" if high_open else "]"
    low_text = "-inf" if low is None else f"{low:g}"
    high_text = "inf" if high is None else f"{high:g}"
    span = f"{left}{low_text}, {high_text}{right}"
    bad = not math.isfinite(result)
    if low is not None and (result < low or (low_open and result == low)):
        bad = True
    if high is not None and (result > high or (high_open and result == high)):
        bad = True
    if bad:
        raise ValueError(f"`{name}` must be a finite number in {span}; got {name}={_show(value)}")
    return result


def check_flag(value: Any, name: str) -> bool:
    """Validate a True/False option."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"`{name}` must be True or False; got {name}={_show(value)}")
    return bool(value)


def check_confidence(confidence: Any) -> float:
    """Validate a credibility level in the open interval (0, 1)."""
    return check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)


def check_prior(alpha0: Any, beta0: Any) -> tuple[float, float]:
    """Validate Beta prior parameters, both finite and > 0."""
    return (
        check_real(alpha0, "alpha0", low=0.0, low_open=True),
        check_real(beta0, "beta0", low=0.0, low_open=True),
    )


def check_bounds(bounds: Any) -> tuple[float, float] | None:
    """Validate optional ``(lo, hi)`` clipping bounds with lo <= hi."""
    if bounds is None:
        return None
    if isinstance(bounds, (str, bytes)) or not isinstance(bounds, (Sequence, np.ndarray)):
        raise ArgumentTypeError(
            f"`bounds` must be None or a pair (lo, hi); got bounds={_show(bounds)}"
        )
    if len(bounds) != 2:
        raise ValueError(f"`bounds` must be a pair (lo, hi); got bounds={_show(bounds)}")
    lo = check_real(bounds[0], "bounds[0]")
    hi = check_real(bounds[1], "bounds[1]")
    if lo > hi:
        raise ValueError(f"`bounds` must satisfy lo <= hi; got bounds={_show(tuple(bounds))}")
    return lo, hi


def check_tau(tau: Any) -> float:
    """Validate a G-Pass threshold in [0, 1]."""
    return check_real(tau, "tau", low=0.0, high=1.0)


def check_short(short: Any) -> str:
    """Validate the short-question policy."""
    if short not in SHORT_POLICIES:
        raise ValueError(f"`short` must be one of {SHORT_POLICIES}; got short={_show(short)}")
    return short


def normalize_ks(k: Any) -> tuple[list[int], bool]:
    """Turn ``k`` (an int or a sequence of ints) into a list.

    Args:
        k: an int, or a non-empty sequence of ints.

    Returns:
        ``(ks, many)``: the list of k values and whether a sequence was given.

    Raises:
        ArgumentTypeError: an entry is not an int.
        ValueError: the sequence is empty, or an entry is < 1.
    """
    many = isinstance(k, (Sequence, np.ndarray)) and not isinstance(k, (str, bytes))
    values = list(k) if many else [k]
    if many and not values:
        raise ValueError("`k` must be an int or a non-empty sequence of ints; got k=[]")
    ks = []
    for value in values:
        integer = check_int(value, "k")
        if integer < 1:
            raise ValueError(f"`k` must be an int >= 1; got k={integer}")
        ks.append(integer)
    return ks, many


# ----------------------------------------------------------------------------- outcomes


@dataclass(frozen=True, eq=False)
class BinaryCounts:
    """Per-question sufficient statistics of binary outcomes: (n samples, c correct).

    Every binary metric depends on a question only through ``(n, c)``, so this is
    all a computation needs; it is also what a batch or a process contributes,
    and counts merge by concatenation (:meth:`concat`).

    Attributes:
        n_samples: int64 array (M,), samples per question (>= 1).
        n_correct: int64 array (M,), correct samples per question, 0 <= c <= n.

    Example:
        >>> counts = binary_counts([[1, 0, 1], [0, 0]])
        >>> counts.n_samples.tolist(), counts.n_correct.tolist()
        ([3, 2], [2, 0])
    """

    n_samples: npt.NDArray[np.int64]
    n_correct: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        n = np.asarray(self.n_samples)
        c = np.asarray(self.n_correct)
        if n.ndim != 1 or c.shape != n.shape:
            raise ValueError(
                "`n_samples` and `n_correct` must be 1-D arrays of one length; got shapes "
                f"{n.shape} and {c.shape}"
            )
        if n.size == 0:
            raise ValueError("`R` must contain at least one question; got 0 questions")
        for name, array in (("n_samples", n), ("n_correct", c)):
            if not np.issubdtype(array.dtype, np.integer):
                raise ArgumentTypeError(f"`{name}` must hold integers; got dtype {array.dtype}")
        if np.any(n < 1):
            bad = int(np.flatnonzero(n < 1)[0])
            raise ValueError(
                f"every question needs at least one sample; question {bad} has n={int(n[bad])}"
            )
        if np.any((c < 0) | (c > n)):
            bad = int(np.flatnonzero((c < 0) | (c > n))[0])
            raise ValueError(
                f"`n_correct` must be in [0, n]; got c={int(c[bad])} with n={int(n[bad])} "
                f"for question {bad}"
            )
        object.__setattr__(self, "n_samples", n.astype(np.int64, copy=False))
        object.__setattr__(self, "n_correct", c.astype(np.int64, copy=False))

    @classmethod
    def _trusted(cls, n_samples: npt.NDArray[np.int64], n_correct: npt.NDArray[np.int64]
                 ) -> BinaryCounts:
        """Counts this module computed itself (int64, valid by construction): no re-check."""
        counts = object.__new__(cls)
        object.__setattr__(counts, "n_samples", n_samples)
        object.__setattr__(counts, "n_correct", n_correct)
        return counts

    @property
    def n_questions(self) -> int:
        """Number of questions M."""
        return int(self.n_samples.size)

    @property
    def rectangular(self) -> bool:
        """Whether every question has the same number of samples."""
        return bool(np.all(self.n_samples == self.n_samples[0]))

    @classmethod
    def concat(cls, parts: Sequence[BinaryCounts]) -> BinaryCounts:
        """Concatenate the counts of several batches, in order."""
        if not parts:
            raise ValueError("`parts` must contain at least one BinaryCounts")
        return cls(
            np.concatenate([p.n_samples for p in parts]),
            np.concatenate([p.n_correct for p in parts]),
        )

    def select(self, mask: npt.NDArray[np.bool_]) -> BinaryCounts:
        """The counts of the questions where ``mask`` is true."""
        return BinaryCounts(self.n_samples[mask], self.n_correct[mask])


@dataclass(frozen=True, eq=False)
class CategoricalCounts:
    """Per-question category counts of categorical outcomes, with optional prior outcomes.

    Attributes:
        counts: int64 array (M, K): ``counts[q, j]`` samples of question q in category j.
        prior_counts: int64 array (M, K): prior outcomes (``R0``) per question and category.

    Example:
        >>> cc = categorical_counts([[0, 2, 2], [1]], R0=[[0], [2]])
        >>> cc.counts.tolist(), cc.prior_counts.tolist()
        ([[1, 0, 2], [0, 1, 0]], [[1, 0, 0], [0, 0, 1]])
    """

    counts: npt.NDArray[np.int64]
    prior_counts: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        prior = np.asarray(self.prior_counts)
        if counts.ndim != 2 or counts.shape[0] == 0:
            raise ValueError(f"`counts` must be a 2-D array (M, K) with M >= 1; got {counts.shape}")
        if prior.shape[0] != counts.shape[0] or prior.ndim != 2:
            raise ValueError(
                f"`R0` must have one row per question (M={counts.shape[0]}); "
                f"got {prior.shape[0] if prior.ndim else 0} rows"
            )
        width = max(counts.shape[1], prior.shape[1])
        counts = _pad_columns(counts.astype(np.int64, copy=False), width)
        prior = _pad_columns(prior.astype(np.int64, copy=False), width)
        if np.any(counts < 0) or np.any(prior < 0):
            raise ValueError("category counts must be non-negative")
        if np.any(counts.sum(axis=1) < 1):
            bad = int(np.flatnonzero(counts.sum(axis=1) < 1)[0])
            raise ValueError(f"every question needs at least one sample; question {bad} has none")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "prior_counts", prior)

    @property
    def n_questions(self) -> int:
        """Number of questions M."""
        return int(self.counts.shape[0])

    @property
    def n_samples(self) -> npt.NDArray[np.int64]:
        """Samples per question."""
        return self.counts.sum(axis=1)

    @property
    def n_prior(self) -> npt.NDArray[np.int64]:
        """Prior outcomes per question (D)."""
        return self.prior_counts.sum(axis=1)

    @property
    def n_categories(self) -> int:
        """Number of category columns stored (highest category seen + 1, at least)."""
        return int(self.counts.shape[1])

    @classmethod
    def concat(cls, parts: Sequence[CategoricalCounts]) -> CategoricalCounts:
        """Concatenate the counts of several batches, in order."""
        if not parts:
            raise ValueError("`parts` must contain at least one CategoricalCounts")
        width = max(p.n_categories for p in parts)
        return cls(
            np.concatenate([_pad_columns(p.counts, width) for p in parts]),
            np.concatenate([_pad_columns(p.prior_counts, width) for p in parts]),
        )

    def with_categories(self, n_categories: int) -> CategoricalCounts:
        """The same counts widened to ``n_categories`` columns.

        Raises:
            ValueError: a category >= ``n_categories`` was observed.
        """
        if self.n_categories > n_categories:
            extra = self.counts[:, n_categories:].sum() + self.prior_counts[:, n_categories:].sum()
            if extra:
                used = np.flatnonzero(
                    (self.counts.sum(axis=0) + self.prior_counts.sum(axis=0)) > 0
                )
                raise ValueError(
                    f"`w` must have one weight per category; got len(w)={n_categories} but "
                    f"category {int(used.max())} occurs (expected len(w) >= {int(used.max()) + 1})"
                )
            return CategoricalCounts(
                self.counts[:, :n_categories], self.prior_counts[:, :n_categories]
            )
        if self.n_categories == n_categories:
            return self
        return CategoricalCounts(
            _pad_columns(self.counts, n_categories), _pad_columns(self.prior_counts, n_categories)
        )

    def is_binary(self) -> bool:
        """Whether only categories 0 and 1 occur (prior outcomes included)."""
        if self.n_categories <= 2:
            return True
        return not (self.counts[:, 2:].any() or self.prior_counts[:, 2:].any())

    def to_binary(self) -> BinaryCounts:
        """Binary counts (n, c) of binary categorical counts (prior outcomes are ignored)."""
        counts = self.with_categories(max(2, self.n_categories)).counts
        return BinaryCounts(counts.sum(axis=1), counts[:, 1])


def _pad_columns(matrix: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.int64]:
    if matrix.shape[1] >= width:
        return matrix
    padded = np.zeros((matrix.shape[0], width), dtype=np.int64)
    padded[:, : matrix.shape[1]] = matrix
    return padded


_BYTE_ONES = np.uint64(0x0101010101010101)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_SHORT_ONES = np.uint64(0x0001000100010001)


def _binary_row_counts_bytes(matrix: np.ndarray) -> np.ndarray | None:
    """Row counts of a C-contiguous 1-byte matrix of 0/1, in about two fast passes.

    The matrix is binary iff its largest byte (read unsigned, so -1 is 255) is <= 1.
    Eight outcome bytes are then summed as one 64-bit word: the per-row sum of words
    holds eight byte counters, each < 256 while N <= 2040, and the eight counters
    add up to the row count. Returns None where the layout does not allow it or the
    data is not binary (the general path then names the bad value).
    """
    m, n = matrix.shape
    if not matrix.flags.c_contiguous:
        return None
    flat = matrix.reshape(-1).view(np.uint8)
    if flat.size and flat.max() > 1:
        return None
    if n % 8 == 0 and n <= 2040:
        lanes = matrix.view(np.uint64).sum(axis=1, dtype=np.uint64) if n > 8 else \
            matrix.view(np.uint64)[:, 0].copy()
        if n < 256:  # the eight counters add up below 256: one multiply sums them
            return ((lanes * _BYTE_ONES) >> np.uint64(56)).astype(np.int64)
        # Pair the byte counters into four 16-bit ones (each <= 510), then one multiply.
        pairs = (lanes & _EVEN_BYTES) + ((lanes >> np.uint64(8)) & _EVEN_BYTES)
        return ((pairs * _SHORT_ONES) >> np.uint64(48)).astype(np.int64)
    return np.count_nonzero(matrix.view(np.bool_), axis=1).astype(np.int64)


def _first_bad(matrix: np.ndarray, bad: np.ndarray) -> tuple[int, int]:
    index = np.argwhere(bad)[0]
    return int(index[0]), int(index[1])


def _binary_matrix_counts(matrix: np.ndarray, name: str) -> BinaryCounts:
    """Validate a 2-D numeric array of 0/1 outcomes and count each row."""
    m, n = matrix.shape
    dtype = matrix.dtype
    if dtype == np.bool_:
        return BinaryCounts(np.full(m, n, dtype=np.int64),
                            np.count_nonzero(matrix, axis=1).astype(np.int64))
    if dtype.kind in "iu" and dtype.itemsize == 1:
        fast = _binary_row_counts_bytes(matrix)
        if fast is not None:
            return BinaryCounts._trusted(np.full(m, n, dtype=np.int64), fast)
    if dtype.kind in "iuf":
        bad = (matrix != 0) & (matrix != 1)
        if bad.any():
            i, j = _first_bad(matrix, bad)
            raise ValueError(
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
                return ArgumentTypeError(
                    f"`{name}` must hold {expected}; got {name}[{i}][{j}]={_show(value)} "
                    f"({type(value).__name__})"
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
            raise ValueError(
                f"`{name}` must be a 2-D array (questions x samples) or a list of per-question "
                f"lists; got an array with {R.ndim} dimensions"
            )
        return R, None
    if not isinstance(R, (str, bytes)) and not _is_sequence(R) and hasattr(R, "__array__"):
        return _rows_of(np.asarray(R), name)  # DataFrames, tensors and other array-likes
    if isinstance(R, (str, bytes)) or not _is_sequence(R):
        raise ArgumentTypeError(
            f"`{name}` must be a 2-D array or a list of per-question outcome lists; "
            f"got {type(R).__name__}"
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
        raise ValueError(f"`{name}` must contain at least one question; got 0 questions")
    lengths = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        if not _is_sequence(row):
            raise ArgumentTypeError(
                f"`{name}` must be a list of per-question outcome lists; got {name}[{i}]="
                f"{_show(row)} ({type(row).__name__})"
            )
        lengths[i] = len(row)
        if lengths[i] == 0:
            raise ValueError(f"every question needs at least one sample; {name}[{i}] is empty")
    flat = list(chain.from_iterable(rows))
    try:
        values = np.asarray(flat)
    except (TypeError, ValueError):
        values = np.asarray(flat, dtype=object)
    if values.ndim != 1 or values.dtype.kind not in "biuf":
        nested = [np.asarray(row, dtype=object).ravel().tolist() for row in rows]
        raise _bad_element_type(nested, name, "numbers")
    return values, lengths


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
            raise ValueError(f"`{name}` must hold binary outcomes 0 or 1; got categorical counts")
        return R.to_binary()
    matrix, rows = _matrix_or_rows(R, name)
    if matrix is not None:
        if matrix.shape[0] == 0:
            raise ValueError(f"`{name}` must contain at least one question; got 0 questions")
        if matrix.shape[1] == 0:
            raise ValueError(f"every question needs at least one sample; {name}[0] is empty")
        if matrix.dtype.kind not in "biuf":
            raise _bad_element_type(matrix.tolist(), name, "binary outcomes 0 or 1")
        return _binary_matrix_counts(matrix, name)
    values, lengths = _ragged_flat(rows, name)
    if values.dtype != np.bool_:
        bad = (values != 0) & (values != 1)
        if bad.any():
            flat_index = int(np.flatnonzero(bad)[0])
            i, j = _locate(flat_index, lengths)
            raise ValueError(
                f"`{name}` must hold binary outcomes 0 or 1; got {name}[{i}][{j}]="
                f"{_show(values[flat_index].item())}"
            )
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


def _small_category_counts(matrix: np.ndarray, n_categories: int | None) -> np.ndarray | None:
    """Per-row category counts of an integer matrix with few categories, by one pass each.

    Returns None (the general path then validates and names any bad value) unless
    the matrix holds integers in [0, limit) with limit <= 16.
    """
    if matrix.dtype.kind not in "biu" or matrix.size == 0:
        return None
    if matrix.dtype.kind == "b" or (matrix.dtype.itemsize == 1 and matrix.flags.c_contiguous
                                    and matrix.reshape(-1).view(np.uint8).max() <= 1):
        binary = _binary_matrix_counts(matrix, "R")
        width = max(2, n_categories or 2)
        counts = np.zeros((matrix.shape[0], width), dtype=np.int64)
        counts[:, 0] = binary.n_samples - binary.n_correct
        counts[:, 1] = binary.n_correct
        return counts
    low, high = int(matrix.min()), int(matrix.max())
    limit = n_categories if n_categories is not None else high + 1
    if low < 0 or high >= limit or limit > _FAST_CATEGORY_LIMIT:
        return None
    counts = np.empty((matrix.shape[0], limit), dtype=np.int64)
    for category in range(limit):
        counts[:, category] = np.count_nonzero(matrix == category, axis=1)
    return counts


def _category_matrix_counts(R: Any, name: str, n_categories: int | None,
                            rows_expected: int | None = None,
                            allow_empty: bool = False) -> np.ndarray:
    flat_array = isinstance(R, np.ndarray) and R.ndim == 1 and R.dtype != object
    if rows_expected is not None and flat_array:
        if R.size % rows_expected:
            raise ValueError(
                f"`{name}` must have one row per question (M={rows_expected}); got a 1-D array "
                f"of {R.size} entries"
            )
        R = R.reshape(rows_expected, -1)
    matrix, rows = _matrix_or_rows(R, name)
    if matrix is not None:
        m = matrix.shape[0]
        if rows_expected is not None and m != rows_expected:
            raise ValueError(
                f"`{name}` must have one row per question (M={rows_expected}); got {m} rows"
            )
        if m == 0:
            raise ValueError(f"`{name}` must contain at least one question; got 0 questions")
        if matrix.shape[1] == 0 and not allow_empty:
            raise ValueError(f"every question needs at least one sample; {name}[0] is empty")
        if matrix.dtype.kind not in "biuf":
            raise _bad_element_type(matrix.tolist(), name, "integer categories")
        fast = _small_category_counts(matrix, n_categories)
        if fast is not None:
            return fast
        values = matrix.ravel()
        lengths = np.full(m, matrix.shape[1], dtype=np.int64)
    else:
        if rows_expected is not None and len(rows) != rows_expected:
            raise ValueError(
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
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (values != np.round(values))
    else:
        bad = np.zeros(values.shape, dtype=bool)
    limit = "C" if n_categories is None else str(n_categories - 1)
    bad |= values < 0
    if n_categories is not None:
        bad |= values >= n_categories
    if bad.any():
        flat_index = int(np.flatnonzero(bad)[0])
        i, j = _locate(flat_index, lengths)
        hint = "" if n_categories is None else " (one weight in `w` per category)"
        raise ValueError(
            f"`{name}` must hold integer categories in [0, {limit}]{hint}; got {name}[{i}][{j}]="
            f"{_show(values[flat_index].item())}"
        )
    ints = values.astype(np.int64)
    width = (int(ints.max()) + 1) if ints.size else 1
    if n_categories is not None:
        width = max(width, n_categories)
    rows_index = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    flat = np.bincount(rows_index * width + ints, minlength=lengths.size * width)
    return flat.reshape(lengths.size, width).astype(np.int64)
