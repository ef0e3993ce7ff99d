"""The fast path of the text readers: pyarrow's streaming JSON and CSV parsers.

pyarrow parses JSON Lines and CSV in C++ on every core, several times faster than
Python's ``json``/``csv`` loop, but it cannot say on which line a bad row is. So
the text readers of :mod:`kpass.io.formats.parsers` first try this path and fall back to
their own line-by-line pass, which locates every problem, whenever this one meets
anything it does not fully understand: a parse error, a null, a value other than
0/1, an outcome list in another type, a CSV cell in an unusual spelling. The slow
pass defines what the file means; this one only ever agrees with it, faster.

Memory: pyarrow parses blocks of :data:`BLOCK_BYTES`, each counted ``chunk_size``
rows at a time, and only per-question counts are kept: bounded by the block and
chunk sizes, not the file.
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.counts import BinaryCounts
from ..errors import BadRowError
from ..progress import Progress
from ..rows import MAX_NESTING, check_arrow_type, count_rows, pick_column

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
    try:
        if _may_nest_deeper(path, MAX_NESTING):
            raise FallbackError  # pyarrow's parser would recurse on it (a segfault at 20000)
    except (OSError, EOFError, zlib.error) as error:  # the line-by-line reader says where
        raise FallbackError from error
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


_SCAN_BYTES = 256 << 10
"""Bytes scanned at a time by :func:`_may_nest_deeper`: its numpy temporaries (about three
times the block) stay well below pyarrow's own blocks."""


def _may_nest_deeper(path: Path, limit: int) -> bool:
    """Whether a line of JSON Lines file ``path`` has more than ``limit`` opening brackets.

    A line nests no deeper than its number of ``[`` and ``{``, strings or not, so a file
    where no line has more is safe to hand to pyarrow; one that has is read by the
    line-by-line reader, which measures each line exactly (:func:`kpass.io.rows.too_deep`)
    and refuses a too deep one with its line. Read in :data:`_SCAN_BYTES` blocks through
    :class:`NestingScan`.
    """
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    scan = NestingScan(limit)
    with opener(path, "rb") as stream:
        while block := stream.read(_SCAN_BYTES):
            if scan.too_deep(block):
                return True
    return False


class NestingScan:
    """Counts the opening brackets of each line of a byte stream fed block by block.

    :meth:`too_deep` says whether a line seen so far (the unfinished last one included)
    has more than ``limit`` of ``[`` and ``{``. Each block is reduced by one
    ``bytes.translate`` to its openers (both written ``{``) and newlines, in which a too deep
    line is a run of more than ``limit`` openers: one substring search. The openers after
    the last newline are carried into the next block. (The numpy scan it replaces made five
    passes over each block: about 1.9 s of CPU on a 790 MB file, a third of pyarrow's parse.)
    Used before a file reaches pyarrow's JSON parser (:func:`_may_nest_deeper`), or on the
    bytes as pyarrow reads them (:mod:`kpass.io.long.long_fast`), so the file is read once.
    """

    _MARKS = bytes.maketrans(b"[", b"{")
    _OTHERS = bytes(byte for byte in range(256) if byte not in b"[{\n")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.run = b"{" * (limit + 1)
        self.carry = b""  # openers of the line that the previous block ended in

    def too_deep(self, data: bytes) -> bool:
        """Feed the next bytes; True once some line has more than ``limit`` openers."""
        marks = self.carry + bytes(data).translate(self._MARKS, self._OTHERS)
        if self.run in marks:
            return True
        self.carry = marks[marks.rfind(b"\n") + 1:]
        return False


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
        column = pick_column(_csv_names(path, parse), requested, source)
        # Not UTF-8-checked: cell_counts accepts ASCII brackets, separators and digits only,
        # so any other byte (a bad one included) sends the file to the line-by-line reader.
        convert = pacsv.ConvertOptions(include_columns=[column],
                                       column_types={column: pa.string()}, check_utf8=False)
        parts: list[BinaryCounts] = []

        def count(batches: Any) -> None:
            cells = [batch.column(0).slice(start, chunk_size) for batch in batches
                     for start in range(0, batch.num_rows, chunk_size)]
            for counts in map(cell_counts, cells):
                if counts is None:
                    raise FallbackError
                parts.append(counts)

        size = path.stat().st_size
        if path.suffix.lower() != ".gz" and size <= WHOLE_CSV_BYTES:
            table = pacsv.read_csv(str(path), read_options=pacsv.ReadOptions(use_threads=True),
                                   parse_options=parse, convert_options=convert)
            count(table.to_batches())
            if progress is not None:
                progress.update(size)
            return column, parts
        stream, raw = _stream(path)
        with raw:
            for batch in pacsv.open_csv(stream, read_options=read, parse_options=parse,
                                        convert_options=convert):
                count([batch])
                if progress is not None:
                    progress.update(raw.tell())
    except (pa.ArrowException, OSError, EOFError, ValueError) as error:
        raise FallbackError from error
    return column, parts


HEADER_BYTES = 64 << 10
"""Bytes parsed first to read a CSV header: 0.4 ms against 2.6 ms for a first block of
``BLOCK_BYTES`` (100000 x 64 outcomes). A header and first row that do not fit are read
again with ``BLOCK_BYTES``."""


def _csv_names(path: Path, parse: Any) -> list[str]:
    """The column names of a CSV/TSV file, from pyarrow's reader on its first bytes."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    def names(size: int) -> list[str]:
        stream, raw = _stream(path)
        with raw:
            read = pacsv.ReadOptions(block_size=size, use_threads=False)
            return list(pacsv.open_csv(stream, read_options=read, parse_options=parse
                                       ).schema.names)

    try:
        return names(HEADER_BYTES)
    except pa.ArrowInvalid:  # e.g. a first row longer than HEADER_BYTES
        return names(BLOCK_BYTES)


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

    Reads what :func:`kpass.io.formats.parsers.parse_cell` reads when every token is ``0``
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
    first, stop = int(offsets[0]), int(offsets[-1])
    text = np.frombuffer(data_buffer, dtype=np.uint8)[first:stop]
    length = int(offsets[1]) - first
    if length > 0 and stop - first == m * length and (np.diff(offsets) == length).all():
        same = _same_shape_counts(text, m, length)
        if same is not None:
            return same
    starts = offsets[:-1].astype(np.int64) - first
    ends = offsets[1:].astype(np.int64) - first
    if (ends <= starts).any():
        return None
    return _general_counts(text, starts, ends)


def _same_shape_counts(text: np.ndarray, m: int, length: int) -> BinaryCounts | None:
    """Counts of ``m`` cells of ``length`` bytes whose separators sit at the same places, or None.

    Any writer of a rectangular run produces such cells. The first cell is checked in
    full (:func:`_general_counts`), the others against it: every byte must equal the
    template's, except the low bit of a digit (``0`` is 0x30, ``1`` is 0x31), which is
    the outcome. With ``np.bitwise_count`` (numpy >= 2) this runs on 64-bit words
    (:func:`_word_counts`) where a group of cells that fills whole words fits in
    :data:`_CACHE_BYTES`; otherwise byte by byte (:func:`_byte_counts`).

    Args:
        text: the cells' bytes, one after the other (``m * length`` bytes, contiguous).
        m: number of cells (>= 1).
        length: bytes per cell (>= 1).
    """
    layout = _layout(text[:length].tobytes().replace(b"1", b"0"))  # one per shape
    if layout is None:
        return None
    if _bitwise_count is not None and layout.by_words:
        correct = _word_counts(text, m, layout)
    else:  # numpy < 2, or cells so long that a group of them outgrows the cache
        correct = _byte_counts(text.reshape(m, length), layout.digits, layout.template)
    if correct is None:
        return None  # a separator, bracket or digit differs from the template's
    # Valid by construction: n >= 1 digits, 0 <= ones <= n.
    return BinaryCounts._trusted(np.full(m, layout.n_digits, dtype=np.int64), correct)


_bitwise_count = getattr(np, "bitwise_count", None)  # numpy >= 2.0

#: Bytes of text checked and counted at a time: they stay in the CPU's cache between passes.
_CACHE_BYTES = 256 << 10


def _word_counts(text: np.ndarray, m: int, layout: _Layout) -> np.ndarray | None:
    """Ones per cell of same-shape cells, checked and counted on 64-bit words, or None.

    The cells are read as groups of ``reps`` cells whose bytes fill whole words (``reps
    * length`` is a multiple of 8, so every group has the same layout). A word XOR the
    template's leaves only the outcome bits (bit 0 of each digit byte) when the cells
    match it; any other bit set means a byte the template does not have, and None.
    Then each word's set bits are outcomes: a cell's count is the sum of its words'
    bit counts (one float32 matrix product per block), where a word holding the end
    of one cell and the start of the next is split by masking. Blocks stay in cache
    (:data:`_CACHE_BYTES`); measured 13.3 ms -> 5 ms for 100000 cells of 64 outcomes
    (``[1, 0, ...]``, 192 bytes, 20 blocks of pyarrow's).
    """
    assert _bitwise_count is not None
    reps, period, length = layout.reps, layout.period, layout.template.size
    groups = m // reps
    correct = np.empty(m, dtype=np.int64)
    words = text[:groups * period].view(np.uint64).reshape(groups, period // 8)
    scratch = np.empty((2, *layout.expected.shape), dtype=np.uint64)  # per call: thread-safe
    for start in range(0, groups, layout.block):
        chunk = words[start:start + layout.block]
        g = len(chunk)
        flips = np.bitwise_xor(chunk, layout.expected[:g], out=scratch[0, :g])
        # count_nonzero rather than any(): 7% faster over the whole count, measured
        if np.count_nonzero(np.bitwise_and(flips, layout.stray[:g], out=scratch[1, :g])):
            return None  # a separator, bracket or digit differs from the template's
        bits = _bitwise_count(flips).astype(np.float32)
        per_cell = bits @ layout.whole  # (g, reps): the words wholly inside each cell
        for word, last, owners in layout.shared:  # a word shared by several cells
            rest = bits[:, word].copy()
            for cell, own in owners:
                part = _bitwise_count(np.bitwise_and(flips[:, word], own))
                per_cell[:, cell] += part
                rest -= part
            per_cell[:, last] += rest
        correct[start * reps:(start + g) * reps] = per_cell.ravel()  # whole numbers: exact
    rest = m - groups * reps  # fewer than reps cells after the last whole group
    if rest:
        tail = _byte_counts(text[groups * period:].reshape(rest, length), layout.digits,
                            layout.template)
        if tail is None:
            return None
        correct[groups * reps:] = tail
    return correct


class _Layout:
    """A cell template that :func:`_general_counts` accepts, and its word patterns.

    Attributes:
        template: the template cell's bytes, outcome bits cleared (``0`` for each digit).
        digits: bool (length,), where the template has a digit.
        n_digits: outcomes per cell.
        by_words: whether a group of these cells fits in :data:`_CACHE_BYTES`, so that
            :func:`_word_counts` can read them; the word patterns below exist only then.
        reps: cells per group (a group of cells fills whole 64-bit words).
        period: bytes per group.
        block: groups per block.
        expected: (block, period // 8) uint64, the template's words (outcome bits 0).
        stray: the same shape, every bit but the outcome bits.
        whole: (period // 8, reps) float32, 1 where a word lies wholly inside a cell.
        shared: ``(word, last, owners)`` for each word shared by several cells: the
            last of them, and ``(cell, own)`` for the others, ``own`` the word's outcome
            bits that are ``cell``'s (the last cell's are the rest).
    """

    def __init__(self, template: np.ndarray) -> None:
        length = template.size
        self.digits = (template == ord("0")) | (template == ord("1"))
        self.template = np.where(self.digits, template & 0xFE, template).astype(np.uint8)
        self.n_digits = int(np.count_nonzero(self.digits))
        self.period = length * 8 // math.gcd(length, 8)
        self.reps = self.period // length
        self.by_words = self.period <= _CACHE_BYTES
        for array in (self.template, self.digits):
            array.setflags(write=False)  # shared by every call through the cache
        if not self.by_words:
            return
        width = self.period // 8
        self.block = max(1, _CACHE_BYTES // self.period)
        outcome_bits = np.tile(self.digits.astype(np.uint8), self.reps)  # 0x01 at digits
        self.expected = np.tile(np.tile(self.template, self.reps).view(np.uint64),
                                (self.block, 1))
        self.stray = np.tile(~outcome_bits.view(np.uint64), (self.block, 1))
        self.whole = np.zeros((width, self.reps), dtype=np.float32)
        self.shared: list[tuple[int, int, list[tuple[int, np.uint64]]]] = []
        owner = np.repeat(np.arange(self.reps), length)  # the cell of each byte of a group
        for word in range(width):
            cells = owner[word * 8:(word + 1) * 8]
            bits = outcome_bits[word * 8:(word + 1) * 8]
            if cells[0] == cells[-1]:
                self.whole[word, cells[0]] = 1.0
                continue
            owners = [(int(cell), np.where(cells == cell, bits, 0).astype(np.uint8)
                       .view(np.uint64)[0]) for cell in np.unique(cells)[:-1]]
            self.shared.append((word, int(cells[-1]), owners))
        for array in (self.expected, self.stray, self.whole):
            array.setflags(write=False)


@functools.lru_cache(maxsize=8)
def _layout(template: bytes) -> _Layout | None:
    """The :class:`_Layout` of a template cell, or None where :func:`_general_counts` refuses it.

    The template is given with every ``1`` spelt ``0`` (which changes nothing that is
    checked), so every block of a file shares one cached layout (read-only).
    """
    cell = np.frombuffer(template, dtype=np.uint8)
    if _general_counts(cell, np.zeros(1, dtype=np.int64),
                       np.full(1, cell.size, dtype=np.int64)) is None:
        return None
    return _Layout(cell)


def _byte_counts(cells: np.ndarray, digit_column: np.ndarray, expected: np.ndarray
                 ) -> np.ndarray | None:
    """Ones per row of an (M, L) byte matrix of same-shape cells, byte by byte, or None."""
    mask = np.where(digit_column, 0xFE, 0xFF).astype(np.uint8)
    rows = max(1, _CACHE_BYTES // max(1, cells.shape[1]))
    scratch = np.empty((min(rows, len(cells)), cells.shape[1]), dtype=np.uint8)
    for start in range(0, len(cells), rows):
        block = cells[start:start + rows]
        masked = np.bitwise_and(block, mask, out=scratch[: len(block)])
        if not np.array_equal(masked, np.broadcast_to(expected, masked.shape)):
            return None
    return np.count_nonzero(np.bitwise_and(cells[:, digit_column], 1), axis=1).astype(np.int64)


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
