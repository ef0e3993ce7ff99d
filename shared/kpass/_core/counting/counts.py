"""Per-question sufficient statistics: the states every metric is computed from.

Binary metrics see a question only through (n, c); categorical ones through its
category counts. Both containers merge by concatenation, which is what makes
results mergeable across batches and processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from .checks import ArgumentTypeError, InputError, _show

#: The dataframe readers behind ``from_long``, registered by :mod:`kpass.io.frames` (which
#: ``import kpass`` registers, to import on first use): the numpy-only core names no reading
#: layer (issue 19), the reading layer plugs itself in.
_FRAME_READERS: dict[str, Callable[..., Any]] = {}


def register_frame_readers(**readers: Callable[..., Any]) -> None:
    """Plug in the ``from_long`` readers (``binary=``, ``categorical=``)."""
    _FRAME_READERS.update(readers)


def _frame_reader(kind: str) -> Callable[..., Any]:
    try:
        return _FRAME_READERS[kind]
    except KeyError:  # only when kpass._core is used without the kpass package's __init__
        raise RuntimeError("from_long needs kpass.io.frames; `import kpass` loads it") from None


@dataclass(frozen=True, eq=False)
class BinaryCounts:
    """Per-question sufficient statistics of binary outcomes: (n samples, c correct).

    Every binary metric depends on a question only through ``(n, c)``, so this is
    all a computation needs; it is also what a batch or a process contributes,
    and counts merge by concatenation (:meth:`concat`).

    The arrays are copied on construction and stored read-only, so changing the
    caller's arrays afterwards changes nothing. Counts may be given as any integer
    dtype, or as floats holding whole numbers (2.0 is 2; 2.5, NaN and inf are
    refused); every count must lie in [0, 2**53] (float64 arithmetic on counts is
    exact up to there), so uint64 values beyond int64 are refused, not wrapped.

    Questions may carry ids (``ids=``, one unique str or int per question): counts of
    two runs are then matched by id (:func:`kpass.compare`), and :meth:`concat` of
    shards that hold samples of the same question adds them up.

    Attributes:
        n_samples: int64 array (M,), samples per question (>= 1), read-only.
        n_correct: int64 array (M,), correct samples per question, 0 <= c <= n, read-only.
        ids: None, or a tuple of M unique question ids (str or int).

    Example:
        >>> from kpass import binary_counts
        >>> counts = binary_counts([[1, 0, 1], [0, 0]])
        >>> counts.n_samples.tolist(), counts.n_correct.tolist()
        ([3, 2], [2, 0])
        >>> shard_1 = BinaryCounts([3, 2], [2, 0], ids=["q1", "q2"])
        >>> shard_2 = BinaryCounts([1], [1], ids=["q1"])
        >>> merged = BinaryCounts.concat([shard_1, shard_2])
        >>> merged.ids, merged.n_samples.tolist(), merged.n_correct.tolist()
        (('q1', 'q2'), [4, 2], [3, 0])
    """

    n_samples: npt.NDArray[np.int64]
    n_correct: npt.NDArray[np.int64]
    ids: Any = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        n = _count_array(self.n_samples, "n_samples")
        c = _count_array(self.n_correct, "n_correct")
        if n.ndim != 1 or c.shape != n.shape:
            raise InputError(
                "`n_samples` and `n_correct` must be 1-D arrays of one length; got shapes "
                f"{n.shape} and {c.shape}"
            )
        if n.size == 0:
            raise InputError("`R` must contain at least one question; got 0 questions")
        if np.any(n < 1):
            bad = int(np.flatnonzero(n < 1)[0])
            raise InputError(
                f"every question needs at least one sample; question {bad} has n={int(n[bad])}"
            )
        if np.any((c < 0) | (c > n)):
            bad = int(np.flatnonzero((c < 0) | (c > n))[0])
            raise InputError(
                f"`n_correct` must be in [0, n]; got c={int(c[bad])} with n={int(n[bad])} "
                f"for question {bad}"
            )
        object.__setattr__(self, "n_samples", n)
        object.__setattr__(self, "n_correct", c)
        object.__setattr__(self, "ids", _question_ids(self.ids, n.size))

    @classmethod
    def _trusted(cls, n_samples: npt.NDArray[np.int64], n_correct: npt.NDArray[np.int64]
                 ) -> BinaryCounts:
        """Counts this module computed itself (int64, valid by construction): no re-check."""
        counts = object.__new__(cls)
        n_samples.setflags(write=False)
        n_correct.setflags(write=False)
        object.__setattr__(counts, "n_samples", n_samples)
        object.__setattr__(counts, "n_correct", n_correct)
        object.__setattr__(counts, "ids", None)
        return counts

    @property
    def n_questions(self) -> int:
        """Number of questions M."""
        return int(self.n_samples.size)

    @cached_property
    def rectangular(self) -> bool:
        """Whether every question has the same number of samples."""
        # Cached (the arrays are read-only): every metric at every k asks it.
        return bool(np.all(self.n_samples == self.n_samples[0]))

    @cached_property
    def smallest_n(self) -> int:
        """The fewest samples any question has."""
        return int(self.n_samples.min())

    @classmethod
    def concat(cls, parts: Sequence[BinaryCounts]) -> BinaryCounts:
        """Concatenate the counts of several batches, in order.

        With question ids, the samples of an id seen in several parts add up (shards of
        one run), in the order ids are first seen; parts must all have ids or none.
        """
        if not parts:
            raise InputError("`parts` must contain at least one BinaryCounts")
        n = np.concatenate([p.n_samples for p in parts])
        c = np.concatenate([p.n_correct for p in parts])
        with_ids = [p.ids is not None for p in parts]
        if not any(with_ids):
            if all(type(p) is BinaryCounts for p in parts):
                return cls._trusted(n, c)  # valid parts: n >= 1 and 0 <= c <= n hold for all
            return cls(n, c)
        if not all(with_ids):
            raise InputError("`parts` must all carry question ids or none; got "
                             f"{sum(with_ids)} of {len(parts)} with ids")
        every = [question for p in parts for question in p.ids]
        order: dict[Any, int] = {}
        index = np.array([order.setdefault(question, len(order)) for question in every])
        merged_n = np.bincount(index, weights=n, minlength=len(order)).astype(np.int64)
        merged_c = np.bincount(index, weights=c, minlength=len(order)).astype(np.int64)
        return cls(merged_n, merged_c, ids=tuple(order))

    @overload
    @classmethod
    def from_long(cls, frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                  sample: str | None = None, threshold: float | None = None,
                  by: None = None) -> BinaryCounts: ...

    @overload
    @classmethod
    def from_long(cls, frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                  sample: str | None = None, threshold: float | None = None,
                  by: str) -> dict[str, BinaryCounts]: ...

    @classmethod
    def from_long(cls, frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                  sample: str | None = None, threshold: float | None = None,
                  by: str | None = None) -> BinaryCounts | dict[str, BinaryCounts]:
        """Counts of a long dataframe (one row per sample), grouped by ``id`` in its engine.

        pandas, polars, pyarrow, DuckDB, Dask, PySpark frames and ``datasets.Dataset``
        (through narwhals, ``pip install 'kpass[frames]'``); only one row per question
        comes back from the engine. Questions are sorted by id. With ``by=COLUMN`` (a
        column naming each row's model), one group-by by (model, id) and a dict label ->
        BinaryCounts, labels sorted: the mapping :func:`kpass.leaderboard` and
        :func:`kpass.report_table` take. See :func:`kpass.io.frames.binary_from_long`.

        Example:
            >>> import pandas as pd
            >>> frame = pd.DataFrame({"q": ["b", "a", "b"], "ok": [1, 0, 0]})
            >>> counts = BinaryCounts.from_long(frame, id="q", outcome="ok")
            >>> counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()
            (('a', 'b'), [1, 2], [0, 1])
        """
        return _frame_reader("binary")(frame, id=id, outcome=outcome, sample=sample,
                                       threshold=threshold, by=by)

    def select(self, mask: npt.NDArray[np.bool_]) -> BinaryCounts:
        """The counts of the questions where ``mask`` is true (or at these indices)."""
        ids = None if self.ids is None else tuple(np.asarray(self.ids, dtype=object)[mask])
        return BinaryCounts(self.n_samples[mask], self.n_correct[mask], ids=ids)


@dataclass(frozen=True, eq=False)
class CategoricalCounts:
    """Per-question category counts of categorical outcomes, with optional prior outcomes.

    Attributes:
        counts: int64 array (M, K): ``counts[q, j]`` samples of question q in category j.
        prior_counts: int64 array (M, K): prior outcomes (``R0``) per question and category.
        ids: None, or a tuple of M unique question ids (str or int; keyword-only), as
            for :class:`BinaryCounts`.

    Example:
        >>> from kpass import categorical_counts
        >>> cc = categorical_counts([[0, 2, 2], [1]], R0=[[0], [2]])
        >>> cc.counts.tolist(), cc.prior_counts.tolist()
        ([[1, 0, 2], [0, 1, 0]], [[1, 0, 0], [0, 0, 1]])
    """

    counts: npt.NDArray[np.int64]
    prior_counts: npt.NDArray[np.int64]
    ids: Any = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        counts = _count_array(self.counts, "counts")
        prior = _count_array(self.prior_counts, "R0")
        if counts.ndim != 2 or counts.shape[0] == 0:
            raise InputError(f"`counts` must be a 2-D array (M, K) with M >= 1; got {counts.shape}")
        if prior.ndim != 2 or prior.shape[0] != counts.shape[0]:
            raise InputError(
                f"`R0` must have one row per question (M={counts.shape[0]}); "
                f"got {prior.shape[0] if prior.ndim else 0} rows"
            )
        width = max(counts.shape[1], prior.shape[1])
        counts = _pad_columns(counts, width)
        prior = _pad_columns(prior, width)
        if np.any(counts.sum(axis=1) < 1):
            bad = int(np.flatnonzero(counts.sum(axis=1) < 1)[0])
            raise InputError(f"every question needs at least one sample; question {bad} has none")
        counts.setflags(write=False)
        prior.setflags(write=False)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "prior_counts", prior)
        object.__setattr__(self, "ids", _question_ids(self.ids, counts.shape[0]))

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
        """Concatenate the counts of several batches, in order.

        With question ids, the category counts (and prior counts) of an id seen in
        several parts add up, in first-seen order, as :meth:`BinaryCounts.concat`.
        """
        if not parts:
            raise InputError("`parts` must contain at least one CategoricalCounts")
        width = max(p.n_categories for p in parts)
        counts = np.concatenate([_pad_columns(p.counts, width) for p in parts])
        prior = np.concatenate([_pad_columns(p.prior_counts, width) for p in parts])
        with_ids = [p.ids is not None for p in parts]
        if not any(with_ids):
            return cls(counts, prior)
        if not all(with_ids):
            raise InputError("`parts` must all carry question ids or none; got "
                             f"{sum(with_ids)} of {len(parts)} with ids")
        order: dict[Any, int] = {}
        index = np.array([order.setdefault(q, len(order)) for p in parts for q in p.ids])
        merged = np.zeros((len(order), width), dtype=np.int64)
        merged_prior = np.zeros((len(order), width), dtype=np.int64)
        np.add.at(merged, index, counts)
        np.add.at(merged_prior, index, prior)
        return cls(merged, merged_prior, ids=tuple(order))

    def select(self, mask: npt.NDArray[np.bool_] | npt.NDArray[np.intp]) -> CategoricalCounts:
        """The counts of the questions where ``mask`` is true (or at these indices)."""
        ids = None if self.ids is None else tuple(np.asarray(self.ids, dtype=object)[mask])
        return CategoricalCounts(self.counts[mask], self.prior_counts[mask], ids=ids)

    @overload
    @classmethod
    def from_long(cls, frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                  sample: str | None = None, by: None = None) -> CategoricalCounts: ...

    @overload
    @classmethod
    def from_long(cls, frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                  sample: str | None = None, by: str) -> dict[str, CategoricalCounts]: ...

    @classmethod
    def from_long(cls, frame: Any, *, id: str, outcome: str,  # noqa: A002 - the column role
                  sample: str | None = None, by: str | None = None
                  ) -> CategoricalCounts | dict[str, CategoricalCounts]:
        """Category counts of a long dataframe, grouped by (id, category) in its engine.

        As :meth:`BinaryCounts.from_long`, with integer categories 0, 1, ... in
        ``outcome`` (and ``by=COLUMN``: a dict label -> counts, one per model, every model
        with the same categories); see :func:`kpass.io.frames.categorical_from_long`.
        """
        return _frame_reader("categorical")(frame, id=id, outcome=outcome, sample=sample,
                                            by=by)

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
                raise InputError(
                    f"`w` must have one weight per category; got len(w)={n_categories} but "
                    f"category {int(used.max())} occurs (expected len(w) >= {int(used.max()) + 1})"
                )
            return CategoricalCounts(
                self.counts[:, :n_categories], self.prior_counts[:, :n_categories], ids=self.ids
            )
        if self.n_categories == n_categories:
            return self
        return CategoricalCounts(
            _pad_columns(self.counts, n_categories), _pad_columns(self.prior_counts, n_categories),
            ids=self.ids,
        )

    def is_binary(self) -> bool:
        """Whether only categories 0 and 1 occur (prior outcomes included)."""
        if self.n_categories <= 2:
            return True
        return not (self.counts[:, 2:].any() or self.prior_counts[:, 2:].any())

    def to_binary(self) -> BinaryCounts:
        """Binary counts (n, c) of binary categorical counts (prior outcomes are ignored)."""
        counts = self.with_categories(max(2, self.n_categories)).counts
        return BinaryCounts(counts.sum(axis=1), counts[:, 1], ids=self.ids)


def _question_ids(ids: Any, m: int) -> tuple[Any, ...] | None:
    """Question ids as a tuple of M unique str or int, or None; a clear error otherwise."""
    if ids is None:
        return None
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__len__"):
        raise ArgumentTypeError(f"`ids` must be a sequence of question ids; got {_show(ids)}")
    values = tuple(item.item() if isinstance(item, np.generic) else item for item in ids)
    if len(values) != m:
        raise InputError(f"`ids` must have one id per question (M={m}); got {len(values)}")
    for position, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ArgumentTypeError(f"question ids must be str or int; got ids[{position}]="
                                    f"{_show(value)} ({type(value).__name__})")
    if len(set(values)) != m:
        seen: set[Any] = set()
        repeated = None
        for value in values:
            if value in seen:
                repeated = value
                break
            seen.add(value)
        raise InputError(f"question ids must be unique; {repeated!r} appears more than once "
                         "(to add shards of the same question, concat their counts)")
    return values


def _pad_columns(matrix: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.int64]:
    if matrix.shape[1] >= width:
        return matrix
    padded = np.zeros((matrix.shape[0], width), dtype=np.int64)
    padded[:, : matrix.shape[1]] = matrix
    return padded


#: Largest count accepted: counts enter float64 arithmetic, exact up to 2**53.
MAX_COUNT = 1 << 53


def _count_array(value: object, name: str) -> npt.NDArray[np.int64]:
    """A validated read-only int64 copy of counts: whole numbers in [0, 2**53].

    Integer dtypes and floats holding whole numbers are accepted (2.0 is 2); bools,
    non-numbers, fractions, NaN, negative counts and counts beyond 2**53 (uint64
    values above the int64 range included) are refused before any cast could wrap.
    """
    try:
        array = np.array(value)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"`{name}` must be an array of counts; got {_show(value)}"
                                ) from None
    if array.dtype.kind not in "iuf":
        raise ArgumentTypeError(
            f"`{name}` must hold integer counts; got dtype {array.dtype} ({_show(value)})")
    bad = (array < 0) | (array > MAX_COUNT)
    if array.dtype.kind == "f":
        bad |= ~np.isfinite(array) | (array != np.round(array))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = "".join(f"[{i}]" for i in index)
        raise InputError(
            f"`{name}` must hold whole-number counts in [0, 2**53]; got {name}{where}="
            f"{_show(array[index].item())}"
        )
    out = array.astype(np.int64)
    out.setflags(write=False)
    return out
