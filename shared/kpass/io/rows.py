"""Per-question outcome rows -> validated counts, with where each row came from.

The pieces every reader of ``kpass report`` shares: the :class:`Batch` of rows a reader
yields, and :func:`count_rows`, which validates a
batch (lists, a 2-D array or a pyarrow list array) and counts it. A bad row is
reported by its index in the batch, which the caller turns into ``line 12``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import OutcomeValueError
from .._core.counting.counts import BinaryCounts
from .._core.counting.inputs import (
    _is_number,
    _locate,
    binary_counts,
    binary_counts_from_flat,
    flat_numbers,
)
from .arrow_numpy import to_numpy
from .errors import BadRowError, ReportError, show

OUTCOME_COLUMNS = ("outcomes", "correct", "scores")
"""Columns searched, in this order, when ``--column`` is not given."""

INSTALL_HINT = "install kpass[report] (pip install 'kpass[report]')"

LONG_HINT = ("One outcome per row is the long format (one row per sample): pass --id COLUMN "
             "(and --sample COLUMN) to group the rows by question id")
"""Said wherever a scalar outcome cell is refused: never read as one-sample questions."""


@dataclass(frozen=True)
class Unreadable:
    """Stands in for a row the reader could not parse; counting reports it."""

    problem: str


@dataclass
class Batch:
    """A chunk of per-question outcome lists and where each one came from.

    Attributes:
        rows: a list of outcome lists (text formats), a 2-D array (``.npy``) or a
            pyarrow list array (Parquet, datasets).
        first: 0-based index in the file of the first row of the chunk.
        unit: how rows are located in messages: ``line``, ``row``, ``question``.
        lines: the line of each row, for the text formats.
    """

    rows: Any
    first: int
    unit: str = "row"
    lines: list[int] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def where(self, index: int) -> str:
        """Where row ``index`` of this batch is in the file, e.g. ``line 12``."""
        if self.lines is not None:
            return f"{self.unit} {self.lines[index]}"
        return f"{self.unit} {self.first + index + 1}"

    def part(self, start: int, stop: int) -> Batch:
        """The rows ``start:stop`` of this batch."""
        lines = None if self.lines is None else self.lines[start:stop]
        return Batch(self.rows[start:stop], self.first + start, self.unit, lines)


# ----------------------------------------------------------------------------- counting


def count_rows(rows: Any, label: str = "outcomes") -> BinaryCounts:
    """Validate one chunk of outcome lists and count them.

    Args:
        rows: a list of per-question outcome lists, a 2-D array or a pyarrow list array.
        label: the column name, for messages.

    Returns:
        The chunk's per-question counts.

    Raises:
        BadRowError: a row that is not a non-empty list of 0/1 values (index and problem).
    """
    if isinstance(rows, np.ndarray):
        m, n = rows.shape
        values, lengths = np.asarray(rows).reshape(-1), np.full(m, n, dtype=np.int64)
    else:
        flatten = _python_flat if isinstance(rows, list) else _arrow_flat
        try:
            values, lengths = flatten(rows, label)
        except BadRowError as bad:
            if bad.index:
                count_rows(rows[:bad.index], label)  # an earlier row may hold a bad value
            raise
    if lengths.size and (lengths == lengths[0]).all():
        try:  # equal lengths: the core's matrix count, 10x the flat one on int64
            return binary_counts(values.reshape(lengths.size, int(lengths[0])), name=label)
        except (TypeError, ValueError):
            pass  # a bad value: binary_counts_from_flat locates it by question and sample
    try:
        return binary_counts_from_flat(values, lengths, name=label)
    except OutcomeValueError as bad:
        raise BadRowError(bad.question, f"`{label}` must hold binary outcomes 0 or 1 for the pass "
                                        f"metrics; got {label}[{bad.sample}]={show(bad.value)}"
                          ) from None


def _python_flat(rows: list[Any], label: str) -> tuple[np.ndarray, np.ndarray]:
    if all(type(row) is list for row in rows):  # the common case, without a Python loop body
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        if lengths.size and lengths.min() > 0:
            return _flat_values(rows, lengths, label)
    lengths = np.empty(len(rows), dtype=np.int64)
    for index, row in enumerate(rows):
        if isinstance(row, Unreadable):
            raise BadRowError(index, row.problem)
        if not isinstance(row, (list, tuple, np.ndarray)):
            raise BadRowError(index, f"`{label}` must be a list of outcomes; got {show(row)} "
                                 f"({type(row).__name__}). {LONG_HINT}")
        if len(row) == 0:
            raise BadRowError(index, f"`{label}` is an empty list; a question needs at least one "
                                 "sample")
        lengths[index] = len(row)
    return _flat_values(rows, lengths, label)


def _flat_values(rows: list[Any], lengths: np.ndarray,
                 label: str) -> tuple[np.ndarray, np.ndarray]:
    flat, values = flat_numbers(rows)
    if values is None:
        for flat_index, value in enumerate(flat):
            if not _is_number(value):
                row, position = _locate(flat_index, lengths)
                raise BadRowError(row, f"`{label}` must hold outcomes 0 or 1; got "
                                   f"{label}[{position}]={show(value)} ({type(value).__name__})")
        values = np.asarray(flat, dtype=np.float64)  # huge integers: numbers, not 0/1
    return values, lengths


def _arrow_flat(array: Any, label: str) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        row = int(np.argmax(to_numpy(pc.is_null(array))))
        raise BadRowError(row, f"`{label}` is missing (null)")
    lengths = to_numpy(pc.list_value_length(array)).astype(np.int64)
    if lengths.size and lengths.min() == 0:
        raise BadRowError(int(np.argmin(lengths)), f"`{label}` is an empty list; a question needs "
                                               "at least one sample")
    flat = pc.list_flatten(array)
    if flat.null_count:
        flat_index = int(np.argmax(to_numpy(pc.is_null(flat))))
        row, position = _locate(flat_index, lengths)
        raise BadRowError(row, f"`{label}` must hold outcomes 0 or 1; got "
                                f"{label}[{position}]=null")
    return to_numpy(flat), lengths


def check_arrow_type(arrow_type: Any, source: str, column: str) -> None:
    """Raise a ``ReportError`` unless ``arrow_type`` is a list of bool, int or float items."""
    import pyarrow as pa

    is_list = (pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)
               or pa.types.is_fixed_size_list(arrow_type))
    if is_list:
        inner = arrow_type.value_type
        if pa.types.is_boolean(inner) or pa.types.is_integer(inner) or pa.types.is_floating(inner):
            return
        raise ReportError(source, f"column `{column}` holds lists of {inner}; expected lists of "
                                  "0/1 outcomes (bool, int or float)")
    raise ReportError(source, f"column `{column}` has type {arrow_type}; expected one list of "
                              f"0/1 outcomes per question. {LONG_HINT}")


def pick_column(names: list[str], requested: str | None, source: str,
                where: str | None = None) -> str:
    """Choose the outcome column among ``names``.

    Args:
        names: the columns (fields) the file has.
        requested: the ``--column`` value, or None to search ``OUTCOME_COLUMNS``.
        source: the file, for messages.
        where: where the names were found (e.g. ``line 1``), for messages.

    Returns:
        The column to read.

    Raises:
        ReportError: the requested column is missing, or none of the default ones exists.
    """
    found = ", ".join(f"`{name}`" for name in names) or "none"
    if requested is not None:
        if requested in names:
            return requested
        raise ReportError(source, f"no column `{requested}`; the columns are {found}", where)
    for name in OUTCOME_COLUMNS:
        if name in names:
            return name
    raise ReportError(source, f"no outcome column (looked for `outcomes`, `correct`, `scores`); "
                              f"the columns are {found}; choose one with --column NAME", where)


# ----------------------------------------------------------------------------- ids, JSON guards

_INT_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")


def canonical_id(value: Any, source: str, where: str | None, what: str = "question id") -> Any:
    """A question (or sample) id as ``str`` or ``int``, the one identity every reader uses.

    Strings are stripped of surrounding spaces, and a string spelling a decimal integer
    (``"7"``, ``" 7"``, ``"-3"``; not ``"07"`` or ``"7.0"``) becomes that integer: CSV cells
    are text, so ``7`` in a JSONL file and ``7`` in a CSV file name the same question.
    Booleans, floats, None, lists and objects are refused.

    Args:
        value: the id as read.
        source: the file, for messages.
        where: where the row is (``line 3``), for messages.
        what: ``question id`` or ``sample id``, for messages.

    Returns:
        The id as ``int`` or stripped ``str``.

    Raises:
        ReportError: an empty string, or a value that is not a string or an integer.

    Example:
        >>> canonical_id(" 7", "f.csv", "line 2"), canonical_id("q7 ", "f.csv", "line 2")
        (7, 'q7')
    """
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ReportError(source, f"the {what} is empty", where)
        if _INT_TEXT.fullmatch(text):
            try:
                return int(text)
            except ValueError:  # past Python's int-str limit (4300 digits): an opaque label
                return text
        return text
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise ReportError(source, f"{what} {show(value)} ({type(value).__name__}) must be a string "
                              "or an integer", where)


MAX_NESTING = 100
"""The deepest nesting of brackets and braces kpass parses in one JSON value.

Evaluation outputs nest a few levels; a line nested thousands deep crashes parsers
(pyarrow's JSON reader segfaults at 20000, Python's ``json`` raises RecursionError near
1000), so every JSON text is measured by :func:`too_deep` before it is parsed."""


_DEPTH_BLOCK = 1 << 20
"""Bytes measured at a time by :func:`too_deep`: its numpy temporaries stay a few MB
whatever the size of a JSON document."""


@dataclass
class _Scan:
    """Where :func:`too_deep` is between two blocks of a text."""

    depth: int = 0  # the nesting depth after the last byte measured
    inside: bool = False  # whether that byte is inside a string
    backslashes: int = 0  # the run of backslashes the text measured so far ends with
    deepest: int = 0
    at: int = -1  # the offset where the depth first passed the limit


_SPECIAL = np.zeros(256, dtype=bool)
_SPECIAL[[0x22, 0x5C, 0x5B, 0x5D, 0x7B, 0x7D]] = True  # " \ [ ] { }


def _scan_block(block: bytes, offset: int, scan: _Scan, limit: int) -> None:
    """Advance ``scan`` over ``block`` (at ``offset`` in the text): depth, strings, escapes.

    Only the bytes that matter (quotes, backslashes, brackets, braces) are looked at
    after one table look-up over the block: a fraction of a JSON text's bytes.
    """
    raw = np.frombuffer(block, dtype=np.uint8)
    at = np.flatnonzero(_SPECIAL[raw])
    if at.size == 0:
        scan.backslashes = 0 if raw.size else scan.backslashes
        return
    kind = raw[at]
    backslash = kind == 0x5C
    # the run of backslashes ending at each special byte (0 where it is not one)
    joined = backslash.copy()
    joined[1:] &= backslash[:-1] & (np.diff(at) == 1)  # continues the run before it
    index = np.arange(at.size)
    run_start = np.maximum.accumulate(np.where(joined, 0, index))
    run = np.where(backslash, index - run_start + 1, 0)
    from_start = backslash & (at[run_start] == 0)  # the run began in an earlier block
    run = np.where(from_start, run + scan.backslashes, run)
    # a quote after an odd run of backslashes (right before it) is escaped
    before = np.zeros(at.size, dtype=np.int64)
    before[1:] = np.where(at[1:] - at[:-1] == 1, run[:-1], 0)
    before[0] = scan.backslashes if at[0] == 0 else 0
    edge = (kind == 0x22) & (before % 2 == 0)
    # outside a string after each special byte (a closing quote itself counts as outside)
    outside = (np.cumsum(edge) + scan.inside) % 2 == 0
    folded = kind | 0x20  # [ 0x5B and { 0x7B both become 0x7B; ] and } become 0x7D
    step = (folded == 0x7B).astype(np.int64) - (folded == 0x7D).astype(np.int64)
    depth = np.cumsum(step * outside) + scan.depth
    scan.deepest = max(scan.deepest, int(depth.max()))
    if scan.at < 0 and scan.deepest > limit:
        scan.at = offset + int(at[np.argmax(depth > limit)])
    scan.depth = int(depth[-1])
    scan.inside = not bool(outside[-1])
    ends_with_run = bool(backslash[-1]) and int(at[-1]) == raw.size - 1
    scan.backslashes = int(run[-1]) if ends_with_run else 0


def too_deep(text: str | bytes, limit: int = MAX_NESTING) -> tuple[int, int] | None:
    """``(depth, line)`` when JSON ``text`` nests deeper than ``limit``, else None.

    Cheap for ordinary text: a text with at most ``limit`` opening brackets and braces
    cannot nest deeper and is not scanned; otherwise the depth is measured byte by byte
    with numpy, brackets inside strings ignored, in blocks of ``_DEPTH_BLOCK`` bytes
    (memory stays a few MB whatever the text's size). ``line`` (from 1) is where the
    depth first exceeds ``limit``; ``depth`` is the deepest level reached.

    Example:
        >>> too_deep('{"outcomes": [1, 0]}'), too_deep("[" * 101 + "]" * 101)
        (None, (101, 1))
        >>> too_deep('["' + "[" * 500 + '"]') is None
        True
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    scan = _Scan()
    for offset in range(0, len(data), _DEPTH_BLOCK):
        _scan_block(data[offset:offset + _DEPTH_BLOCK], offset, scan, limit)
    if scan.at < 0:
        return None
    return scan.deepest, data.count(b"\n", 0, scan.at) + 1


def nesting_problem(depth: int) -> str:
    """The message for a JSON value nested ``depth`` levels deep."""
    return (f"the JSON value is nested {depth} levels deep; kpass reads at most "
            f"{MAX_NESTING} levels of brackets and braces")


def check_nesting(text: str | bytes, source: str, where: str | None = None) -> None:
    """Raise a ``ReportError`` (naming the line) when JSON ``text`` nests too deeply.

    ``where`` names the line of a one-line text; otherwise the line is measured in ``text``.
    """
    deep = too_deep(text)
    if deep is not None:
        raise ReportError(source, nesting_problem(deep[0]), where or f"line {deep[1]}")


def json_problem(error: BaseException) -> str:
    """A one-line description of what ``json`` could not parse (a ValueError or RecursionError).

    Example:
        >>> import json
        >>> try:
        ...     json.loads("1" * 5000)
        ... except ValueError as error:
        ...     json_problem(error)
        'a number of more than 4300 digits (Python reads at most 4300)'
    """
    if isinstance(error, RecursionError):
        return f"not valid JSON (nested too deeply; kpass reads at most {MAX_NESTING} levels)"
    message = getattr(error, "msg", None) or str(error)
    if "integer string conversion" in message or "int_max_str_digits" in message:
        limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
        return f"a number of more than {limit} digits (Python reads at most {limit})"
    return f"not valid JSON ({message.splitlines()[0] if message else type(error).__name__})"
