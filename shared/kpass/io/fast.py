"""The fast path of the text readers: pyarrow's streaming JSON and CSV parsers.

pyarrow parses JSON Lines and CSV in C++ on every core, several times faster than
Python's ``json``/``csv`` loop, but it cannot say on which line a bad row is. So
the text readers of :mod:`kpass.io.formats` first try this path and fall back to
their own line-by-line pass, which locates every problem, whenever this one meets
anything it does not fully understand: a parse error, a null, a value other than
0/1, an outcome list in another type, a CSV cell in an unusual spelling. The slow
pass defines what the file means; this one only ever agrees with it, faster.

Memory: pyarrow parses blocks of :data:`BLOCK_BYTES`, each counted ``chunk_size``
rows at a time, and only per-question counts are kept: bounded by the block and
chunk sizes, not the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .._core.inputs import BinaryCounts
from .progress import Progress
from .rows import BadRowError, check_arrow_type, count_rows, pick_column

BLOCK_BYTES = 1 << 20
"""Bytes pyarrow parses at a time (its default). Measured: as fast as 4 or 16 MB blocks, and
the peak memory stays flat as the file grows (~125 MB above the imports for 22 MB and 67 MB
JSONL files), where 4 MB and 16 MB blocks grew with the file (readahead queues)."""


WHOLE_CSV_BYTES = 32 << 20
"""A plain CSV/TSV file up to this size is parsed at once by ``pyarrow.csv.read_csv`` on all
cores; pyarrow's streaming reader parses on one thread (100000 x 64 outcomes, 20 MB: 38 ms
streamed against 21 ms at once, on 2 cores). Larger files (and .gz) are streamed in
``BLOCK_BYTES`` blocks, so memory stays bounded by this size, not by the file's."""


class FallbackError(Exception):
    """The fast path cannot read this file exactly; the line-by-line reader takes over."""


def _stream(path: Path) -> tuple[Any, Any]:
    """A pyarrow input stream (gunzipping ``.gz``) and the raw file, whose tell() is progress."""
    import pyarrow as pa

    raw = pa.OSFile(str(path), "rb")
    if path.suffix.lower() == ".gz":
        return pa.CompressedInputStream(raw, "gzip"), raw
    return raw, raw


def jsonl_counts(path: Path, requested: str | None, source: str, chunk_size: int,
                 progress: Progress | None) -> tuple[str, list[BinaryCounts]]:
    """Counts of a JSON Lines file of objects, read by ``pyarrow.json``.

    Returns:
        The outcome column and the counts of each block.

    Raises:
        FallbackError: anything the line-by-line reader must look at (bare lists, a parse
            error, a missing or null field, a value other than 0/1, ...).
    """
    import pyarrow as pa
    import pyarrow.json as pajson

    if not hasattr(pajson, "open_json"):  # pyarrow < 18 has no streaming JSON reader
        raise FallbackError
    stream, raw = _stream(path)
    with raw:
        try:
            reader = pajson.open_json(stream, read_options=pajson.ReadOptions(
                block_size=BLOCK_BYTES))
            column = _column(reader.schema, requested, source)
            parts = list(_count_batches(reader, column, chunk_size, raw, progress))
        except (pa.ArrowException, OSError, EOFError, BadRowError, ValueError) as error:
            raise FallbackError from error
    return column, parts


def csv_counts(path: Path, requested: str | None, source: str, delimiter: str, chunk_size: int,
               progress: Progress | None) -> tuple[str, list[BinaryCounts]]:
    """Counts of a CSV/TSV file whose outcome cells read like ``[1, 0, 1]`` or ``1 0 1``.

    The cells are parsed by :func:`cell_counts` (0/1 digits only; ``True``, ``1.0`` and
    other spellings fall back to the line-by-line reader's ``parse_cell``).

    Raises:
        FallbackError: as :func:`jsonl_counts`.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    parse = pacsv.ParseOptions(delimiter=delimiter)
    read = pacsv.ReadOptions(block_size=BLOCK_BYTES)
    try:
        stream, raw = _stream(path)
        with raw:
            names = pacsv.open_csv(stream, read_options=read, parse_options=parse).schema.names
        column = pick_column(names, requested, source)
        convert = pacsv.ConvertOptions(include_columns=[column],
                                       column_types={column: pa.string()})
        parts = []

        def count(batch: Any) -> None:
            for start in range(0, batch.num_rows, chunk_size):
                counts = cell_counts(batch.column(0).slice(start, chunk_size))
                if counts is None:
                    raise FallbackError
                parts.append(counts)

        size = path.stat().st_size
        if path.suffix.lower() != ".gz" and size <= WHOLE_CSV_BYTES:
            table = pacsv.read_csv(str(path), read_options=pacsv.ReadOptions(use_threads=True),
                                   parse_options=parse, convert_options=convert)
            for batch in table.to_batches():
                count(batch)
            if progress is not None:
                progress.update(size)
            return column, parts
        stream, raw = _stream(path)
        with raw:
            for batch in pacsv.open_csv(stream, read_options=read, parse_options=parse,
                                        convert_options=convert):
                count(batch)
                if progress is not None:
                    progress.update(raw.tell())
    except (pa.ArrowException, OSError, EOFError, ValueError) as error:
        raise FallbackError from error
    return column, parts


def _column(schema: Any, requested: str | None, source: str) -> str:
    column = pick_column(schema.names, requested, source)
    check_arrow_type(schema.field(column).type, source, column)
    return column


def _count_batches(reader: Any, column: str, chunk_size: int, raw: Any,
                   progress: Progress | None) -> Iterator[BinaryCounts]:
    for batch in reader:
        values = batch.column(column)
        for start in range(0, batch.num_rows, chunk_size):  # numpy temporaries per chunk
            yield count_rows(values.slice(start, chunk_size), column)
        if progress is not None:
            progress.update(raw.tell())


# Byte classes of a CSV outcome cell: separators, brackets, the digits 0 and 1, anything else.
_OTHER, _SEP, _OPEN, _CLOSE, _ZERO, _ONE = range(6)
_CLASS = np.full(256, _OTHER, dtype=np.uint8)
_CLASS[list(b" \t\r\n,;|")] = _SEP
_CLASS[list(b"[(")] = _OPEN
_CLASS[list(b"])")] = _CLOSE
_CLASS[ord("0")] = _ZERO
_CLASS[ord("1")] = _ONE


def cell_counts(cells: Any) -> BinaryCounts | None:
    """Count outcome cells spelt with single 0/1 digits, vectorised over the text bytes.

    Reads what :func:`kpass.io.formats.parse_cell` reads when every token is ``0``
    or ``1``: ``[1, 0, 1]``, ``(1,0)``, ``1 0 1``, ``1;0;1``, ``1|0|1``. Anything else
    (``True``, ``1.0``, ``10``, an empty cell, a lone bracket, spaces around the
    brackets) returns None so that ``parse_cell`` decides, with its messages.

    Args:
        cells: a pyarrow string array, one cell per question.

    Returns:
        The per-question counts, or None.

    Example:
        >>> import pyarrow as pa
        >>> counts = cell_counts(pa.array(["[1, 0, 1]", "0;0", "1"]))
        >>> counts.n_samples.tolist(), counts.n_correct.tolist()
        ([3, 2, 1], [2, 0, 1])
        >>> cell_counts(pa.array(["[True, 0]"])) is None
        True
    """
    import pyarrow as pa

    if not (pa.types.is_string(cells.type) or pa.types.is_large_string(cells.type)):
        return None
    if isinstance(cells, pa.ChunkedArray):
        cells = cells.combine_chunks()
    m = len(cells)
    if m == 0:
        return BinaryCounts(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    if cells.null_count:
        return None
    width = np.int64 if pa.types.is_large_string(cells.type) else np.int32
    _, offset_buffer, data_buffer = cells.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=width)[cells.offset:cells.offset + m + 1]
    offsets = offsets.astype(np.int64)
    starts, ends = offsets[:-1] - offsets[0], offsets[1:] - offsets[0]
    if (ends <= starts).any():
        return None
    text = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0]:offsets[-1]]
    lengths = ends - starts
    if m > 1 and (lengths == lengths[0]).all():
        same = _same_shape_counts(text.reshape(m, int(lengths[0])))
        if same is not None:
            return same
    return _general_counts(text, starts, ends)


def _same_shape_counts(cells: np.ndarray) -> BinaryCounts | None:
    """Counts of cells of one length whose separators sit at the same places, or None.

    Any writer of a rectangular run produces such cells. One cell is checked in full,
    the others against it: every byte must equal the template's, except the low bit of
    a digit (``0`` is 0x30, ``1`` is 0x31), which is the outcome. Blocks of rows that
    stay in cache, and a strided view of the digits where they are evenly spaced (no
    copy), keep it at about three passes over the text (measured 17 ms -> 6 ms for
    100000 cells of 64 outcomes).
    """
    from .._core.rowcount import binary_row_counts

    template = cells[0]
    if _general_counts(template, np.zeros(1, dtype=np.int64),
                       np.full(1, template.size, dtype=np.int64)) is None:
        return None
    digit_column = (template == ord("0")) | (template == ord("1"))
    mask = np.where(digit_column, 0xFE, 0xFF).astype(np.uint8)
    expected = template & mask
    positions = np.flatnonzero(digit_column)
    steps = np.diff(positions)
    if positions.size > 1 and (steps == steps[0]).all():
        stop = int(positions[-1]) + 1
        digits = cells[:, int(positions[0]):stop:int(steps[0])]
    else:
        digits = cells[:, digit_column]
    rows = max(1, (256 << 10) // max(1, cells.shape[1]))
    scratch = np.empty((min(rows, len(cells)), cells.shape[1]), dtype=np.uint8)
    for start in range(0, len(cells), rows):
        block = cells[start:start + rows]
        masked = np.bitwise_and(block, mask, out=scratch[: len(block)])
        if not np.array_equal(masked, np.broadcast_to(expected, masked.shape)):
            return None  # a separator, bracket or digit differs from the template's
    correct = binary_row_counts(np.bitwise_and(digits, 1))
    if correct is None:  # cannot happen after the check above; the general path decides
        return None
    return BinaryCounts(np.full(len(cells), digits.shape[1], dtype=np.int64), correct)


def _general_counts(text: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> BinaryCounts | None:
    """:func:`cell_counts` on any cells, byte class by byte class."""
    kind = _CLASS[text]
    if (kind == _OTHER).any():
        return None
    first, last = kind[starts], kind[ends - 1]
    bracketed = first == _OPEN
    if (bracketed != (last == _CLOSE)).any():
        return None
    if np.count_nonzero((kind == _OPEN) | (kind == _CLOSE)) != 2 * np.count_nonzero(bracketed):
        return None  # a bracket inside a cell, or one at each end of an unbracketed cell
    digit = (kind == _ZERO) | (kind == _ONE)
    cell_start = np.zeros(kind.size, dtype=bool)
    cell_start[starts] = True
    if (digit[1:] & digit[:-1] & ~cell_start[1:]).any():
        return None  # a token of several digits (10, 011): parse_cell says why it is not 0/1
    n = np.add.reduceat(digit.astype(np.int64), starts)
    if (n == 0).any():
        return None
    correct = np.add.reduceat((kind == _ONE).astype(np.int64), starts)
    return BinaryCounts(n, correct)
