"""Row counts of 0/1 outcome matrices in one pass, validation included.

The matrix is read from memory once, in blocks of :data:`BLOCK_BYTES`; each block
is then checked and counted while it is still in cache:

* 1-byte matrices (bool, int8, uint8) are their own 0/1 flags: the block is
  binary iff its largest byte (read unsigned, so -1 is 255) is <= 1.
* 2- and 4-byte ints are compared with 1 into a reused flag buffer (the one
  read from memory, 1 byte written per entry), and the block is binary iff the
  bitwise or of all its values, read unsigned, is <= 1 (an or is as cheap as a
  max and, unlike a 64-bit unsigned max, needs no emulation on AVX2).
* 8-byte ints are summed along rows by ``np.einsum`` (vectorised, unlike
  ``sum(axis=1)``, a scalar loop per row: 2-4x faster on short rows) into the
  counts, then or-checked the same way while the block is in cache.
* Floats are compared with 1; the block is binary iff every other entry is 0:
  iff its count of nonzero bit patterns (read unsigned, in cache) equals its count
  of ones, or else (a -0.0, which equals 0 as in the general path, or a bad value:
  NaN, 0.5, 2, inf, -1) iff its entries equal to 0 make up the rest.

The flags are then counted at 1/8 of a byte each: ``np.packbits`` packs a row
into whole words and ``np.bitwise_count`` counts each word's bits (both are
vectorised in numpy >= 2; older numpy sums the flag bytes as 64-bit words,
:func:`_byte_row_sums`). An F-ordered matrix (what ``np.asarray`` gives for a
DataFrame) is read as its C-ordered transpose, one sample's run of questions at
a time, compared, checked and added into uint8 counters while the run is in L2;
8-byte ints are summed by einsum down the samples of a tile, then or-checked.

Measured on 200000 x 64 matrices (``benchmarks/bench_core.py``, counting
table, ``benchmarks/README.md``): C order within 1.5x of ``R.sum(axis=1)`` on
the same array for every dtype (1- to 4-byte ones and float32 below it); F order
8-byte and float inputs 1.7-2.5x, because numpy's sum of an F-ordered matrix is
one vectorised stream from memory while an exact 0/1 check must read every value
a second time (from cache) and costs numpy calls per run. Anything this path does not take
(non-binary data, non-contiguous layouts) returns None, and the general path then
validates and names the bad value.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Bytes of input per block. The data comes from memory once; the check (and for
#: floats the second comparison) reads it again from cache. Measured on the 2-core
#: development machine (512 KiB L2 per core, 32 MiB shared L3): 2-4 MiB blocks beat
#: 256 KiB to 1 MiB ones (1.1-1.2x the floor against 1.2-1.8x on int64), because
#: each block costs several numpy calls (1-2 us each) and the second read from L3
#: is still 3-4x faster than the first from memory; 4 MiB also takes a 2000 x 256
#: int64 matrix (Bayes@N's benchmark) in one block.
BLOCK_BYTES = 1 << 22
#: Bytes of one sample's run of an F-ordered matrix: with its flags and counters it
#: stays in the 512 KiB L2 for the check that follows the compare.
RUN_BYTES = 1 << 18
#: Fewest questions per run of an F-ordered matrix: shorter runs make each numpy
#: call do too little work for its overhead.
_MIN_SPAN = 1024
#: Most samples added into the uint8 counters of an F-ordered matrix before they are
#: emptied into the counts.
_MOST_TILE_SAMPLES = 255
#: Sums of bit counts in float32 are exact below 2**24.
_FLOAT32_EXACT = 1 << 24

_bitwise_count = getattr(np, "bitwise_count", None)  # numpy >= 2.0
_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

_BYTE_ONES = np.uint64(0x0101010101010101)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_SHORT_ONES = np.uint64(0x0001000100010001)
#: Byte counters of a 64-bit word sum stay below 256 up to 255 words (2040 entries).
_MOST_LANE_ENTRIES = 2040
#: Up to this many words per row, sum word columns; beyond, reduce along rows.
_COLUMN_SUM_WORDS = 32


def binary_row_counts(matrix: np.ndarray) -> npt.NDArray[np.int64] | None:
    """Number of ones in each row of a 2-D bool/int/uint/float matrix of 0/1 values.

    Args:
        matrix: (M, N) array with M, N >= 1.

    Returns:
        int64 (M,) counts, or None where the matrix is not binary or its layout is
        not one this path reads (C- or F-contiguous); the caller then takes the
        general path, which names the first bad value.

    Example:
        >>> binary_row_counts(np.array([[1, 0, 1], [0, 0, 0]], dtype=np.int64)).tolist()
        [2, 0]
        >>> binary_row_counts(np.array([[1.0, 0.5]])) is None
        True
    """
    if matrix.dtype.kind not in "biuf":
        return None
    if not matrix.dtype.isnative:  # e.g. big-endian data read from a file: one native copy
        matrix = matrix.astype(matrix.dtype.newbyteorder("="), order="K")
    if matrix.flags.c_contiguous:
        return _counts_by_row_blocks(matrix)
    if matrix.flags.f_contiguous:  # e.g. np.asarray of a DataFrame: columns are contiguous
        return _counts_by_column_tiles(matrix.T)
    return None


def _unsigned(matrix: np.ndarray) -> np.ndarray:
    """The same bits read as unsigned, so that -1 is the largest value of its width."""
    if matrix.dtype.kind != "i":
        return matrix
    return matrix.view(_UNSIGNED[matrix.dtype.itemsize])


def _packed_width(n: int) -> int:
    """Flags per row, padded so that a packed row is one 1-2-4-8-byte word or whole words."""
    if n <= 64:
        return max(8, 1 << (n - 1).bit_length())
    return -(-n // 64) * 64


def _counts_by_row_blocks(matrix: np.ndarray) -> npt.NDArray[np.int64] | None:
    m, n = matrix.shape
    itemsize = matrix.dtype.itemsize
    integral = matrix.dtype.kind in "biu"
    width = _packed_width(n)
    rows = min(m, max(1, BLOCK_BYTES // (n * itemsize)))
    # 8-byte ints: einsum's row sum is vectorised (unlike ``sum(axis=1)``, a scalar
    # loop per row) and as fast as comparing with 1, so it counts them directly.
    add_directly = integral and itemsize == 8
    # Zero-padded to whole words: the padding never counts.
    flags = None if add_directly else np.zeros((rows, width), dtype=np.bool_)
    # Floats are checked on their bits, read as unsigned ints of the same width.
    unsigned = matrix.view(_UNSIGNED[itemsize]) if matrix.dtype.kind == "f" else _unsigned(matrix)
    counts = np.empty(m, dtype=np.int64)
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        r = stop - start
        block = matrix[start:stop]
        if itemsize == 1:
            as_bytes = block.view(np.uint8)
            if as_bytes.max() > 1:
                return None
            if width == n:
                block_flags = as_bytes.view(np.bool_)
            else:
                assert flags is not None  # only 8-byte integers go without flags
                block_flags = flags[:r]
                block_flags[:, :n] = as_bytes.view(np.bool_)
        elif add_directly:
            # Summed as they are (exact once checked), then checked in cache.
            np.einsum("ij->i", unsigned[start:stop], out=counts[start:stop].view(np.uint64))
            if np.bitwise_or.reduce(unsigned[start:stop], axis=None) > 1:
                return None
            continue
        else:
            assert flags is not None
            block_flags = flags[:r]
            np.equal(block, 1, out=block_flags[:, :n])
            if integral and np.bitwise_or.reduce(unsigned[start:stop], axis=None) > 1:
                return None
        block_counts = _flag_row_counts(block_flags)
        if not integral and not _only_zeros_besides(block, int(block_counts.sum()),
                                                    int(np.count_nonzero(unsigned[start:stop]))):
            return None
        counts[start:stop] = block_counts
    return counts


def _only_zeros_besides(values: np.ndarray, ones: int, nonzero_bits: int) -> bool:
    """Whether a float block with ``ones`` entries equal to 1 holds only zeros besides.

    ``nonzero_bits`` counts its entries whose bit pattern is not all zeros (an
    integer count on the unsigned view, vectorised, where a float count_nonzero is
    not; 7% faster on float64 than a second comparison). When it equals ``ones``,
    every other entry is +0.0; otherwise (a -0.0, whose sign bit is set, or a bad
    value) the block is compared with 0.
    """
    if nonzero_bits == ones:
        return True
    return ones + int(np.count_nonzero(np.equal(values, 0))) == values.size


def _flag_row_counts(flags: np.ndarray) -> np.ndarray:
    """Row sums of a C-contiguous (R, W) bool matrix, W from :func:`_packed_width`."""
    r, width = flags.shape
    if _bitwise_count is None:
        return _byte_row_sums(flags.view(np.uint8))
    packed = np.packbits(flags.reshape(-1))  # W/8 bytes per row: rows stay word-aligned
    if width <= 64:
        return _bitwise_count(packed.view(_WORDS[width // 8]))
    per_word = _bitwise_count(packed.view(np.uint64)).reshape(r, width // 64)
    if width < _FLOAT32_EXACT:
        # A short-row reduction is a scalar loop per row; a float32 matrix-vector
        # product adds the word counts (integers, exact below 2**24) in one BLAS call.
        return per_word.astype(np.float32) @ np.ones(width // 64, dtype=np.float32)
    return np.add.reduce(per_word, axis=1, dtype=np.int64)


def _byte_row_sums(bits: np.ndarray) -> npt.NDArray[np.int64]:
    """Row sums of a C-contiguous (R, W) uint8 matrix of 0/1 values (numpy < 2).

    The row's 64-bit words are summed down the columns of the transposed block
    (elementwise adds, which numpy vectorises, unlike a reduction along each short
    row); the sum holds eight byte counters that cannot carry while the row has at
    most 2040 entries, and one multiply adds the counters up.
    """
    r, width = bits.shape
    if width % 8 or width > _MOST_LANE_ENTRIES:
        return np.count_nonzero(bits.view(np.bool_), axis=1)
    words = bits.view(np.uint64)
    if words.shape[1] <= _COLUMN_SUM_WORDS:
        lanes = np.add.reduce(np.ascontiguousarray(words.T), axis=0)
    else:
        lanes = np.add.reduce(words, axis=1)
    if width < 256:  # the eight counters add up below 256: one multiply sums them
        return ((lanes * _BYTE_ONES) >> np.uint64(56)).view(np.int64)
    # Pair the byte counters into four 16-bit ones (each <= 510), then one multiply.
    pairs = (lanes & _EVEN_BYTES) + ((lanes >> np.uint64(8)) & _EVEN_BYTES)
    return ((pairs * _SHORT_ONES) >> np.uint64(48)).view(np.int64)


def _counts_by_column_tiles(columns: np.ndarray) -> npt.NDArray[np.int64] | None:
    """Counts per column of a C-contiguous (N, M) matrix: the transpose of the outcomes.

    Each sample's outcomes are a contiguous run of M values, taken in spans of
    :data:`RUN_BYTES`: each sample's run is compared with 1 (read from memory),
    checked at once while it is in cache, and its flags added into one uint8
    counter per question (elementwise adds, which numpy vectorises), emptied into
    the int64 counts every 255 samples. The run, its flags and the counters stay
    in L2 together.
    """
    n, m = columns.shape
    itemsize = columns.dtype.itemsize
    integral = columns.dtype.kind in "biu"
    if integral and itemsize == 8:
        return _counts_by_column_sums(columns)
    span = min(m, max(_MIN_SPAN, RUN_BYTES // itemsize))
    flags = np.empty(span, dtype=np.bool_)
    unsigned = columns.view(_UNSIGNED[itemsize]) if not integral else _unsigned(columns)
    total = np.empty(span, dtype=np.uint8)
    counts = np.zeros(m, dtype=np.int64)
    for start in range(0, m, span):
        stop = min(m, start + span)
        c = stop - start
        for top in range(0, n, _MOST_TILE_SAMPLES):
            bottom = min(n, top + _MOST_TILE_SAMPLES)
            tile_total = total[:c]
            tile_total.fill(0)
            nonzero_bits = 0
            for sample in range(top, bottom):
                if itemsize == 1:
                    run_flags = unsigned[sample, start:stop].view(np.uint8)
                    if np.bitwise_or.reduce(run_flags) > 1:
                        return None
                else:
                    run = columns[sample, start:stop]
                    np.equal(run, 1, out=flags[:c])
                    if integral:
                        if np.bitwise_or.reduce(unsigned[sample, start:stop]) > 1:
                            return None
                    else:
                        nonzero_bits += int(np.count_nonzero(unsigned[sample, start:stop]))
                    run_flags = flags[:c].view(np.uint8)
                np.add(tile_total, run_flags, out=tile_total)
            if not integral and not _only_zeros_besides(
                    columns[top:bottom, start:stop], int(tile_total.sum()), nonzero_bits):
                return None
            counts[start:stop] += tile_total
    return counts


def _counts_by_column_sums(columns: np.ndarray) -> npt.NDArray[np.int64] | None:
    """Counts per column of a C-contiguous (N, M) matrix of 8-byte ints, by tiles.

    A tile is every sample across a span of questions (:data:`BLOCK_BYTES` of
    input): ``np.einsum`` adds its rows elementwise into the counts (the one read
    from memory, as numpy's own sum of the F-ordered matrix), then each sample's
    run is or-checked in cache, one 2-D call for the tile. Measured against the
    per-run compare and check of the other dtypes: 1.5-1.6x the floor instead of
    1.8-1.9x, with two numpy calls per tile instead of two per sample.
    """
    n, m = columns.shape
    unsigned = _unsigned(columns)
    span = min(m, max(_MIN_SPAN, BLOCK_BYTES // (n * columns.dtype.itemsize)))
    counts = np.empty(m, dtype=np.int64)
    as_unsigned = counts.view(np.uint64)
    for start in range(0, m, span):
        tile = unsigned[:, start : start + span]
        np.einsum("ij->j", tile, out=as_unsigned[start : start + span])
        if np.bitwise_or.reduce(tile, axis=1).max() > 1:
            return None
    return counts
