"""The blocked one-pass counting path against numpy's own row sums, for every dtype and layout."""

from __future__ import annotations

import numpy as np
import pytest

import kpass
from kpass._core.counting import rowcount
from kpass._core.counting.rowcount import binary_row_counts

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64]
# Widths around the word (8), byte-counter (255/256) and lane (2040) limits.
SHAPES = [(1, 1), (3, 5), (100, 8), (1000, 64), (7, 255), (9, 256), (5, 300), (3, 2040),
          (3, 2041), (2, 5000), (5000, 24), (5000, 300)]


def _layouts(matrix):
    yield "C", matrix
    yield "F", np.asfortranarray(matrix)


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks of a few KiB, so that every test matrix spans several blocks and a tail."""
    monkeypatch.setattr(rowcount, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(rowcount, "RUN_BYTES", 512)
    monkeypatch.setattr(rowcount, "_MIN_SPAN", 16)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_counts_equal_numpy_row_sums_for_every_dtype_shape_and_layout(dtype):
    rng = np.random.default_rng(np.dtype(dtype).num)
    for m, n in SHAPES:
        binary = rng.random((m, n)) < rng.random((m, 1))
        expected = binary.sum(axis=1)
        for layout, matrix in _layouts(binary.astype(dtype)):
            counts = binary_row_counts(matrix)
            assert counts is not None, (layout, m, n)
            assert counts.dtype == np.int64
            np.testing.assert_array_equal(counts, expected, err_msg=f"{layout} {m}x{n}")
            np.testing.assert_array_equal(kpass.binary_counts(matrix).n_correct, expected)


def _bad_values(dtype):
    kind = np.dtype(dtype).kind
    if kind == "f":
        return [2.0, -1.0, 0.5, np.nan, np.inf, 1.0 + 2.0 ** -10]
    if kind == "u":
        return [2, np.iinfo(dtype).max, 1 << (8 * np.dtype(dtype).itemsize - 1)]
    if np.dtype(dtype).itemsize == 1:
        return [2, -1, -128]
    # 256 and 257 have a 0 or 1 low byte: the check must see the whole value.
    return [2, -1, 256, 257, np.iinfo(dtype).min]


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_a_single_bad_value_anywhere_leaves_the_fast_path_and_is_named(dtype):
    rng = np.random.default_rng(7)
    for m, n in [(3, 5), (200, 64), (130, 300)]:
        base = (rng.random((m, n)) < 0.5).astype(dtype)
        for bad in _bad_values(dtype):
            i, j = int(rng.integers(m)), int(rng.integers(n))
            matrix = base.copy()
            matrix[i, j] = bad
            for _, laid_out in _layouts(matrix):
                assert binary_row_counts(laid_out) is None
                with pytest.raises(ValueError, match=rf"R\[{i}\]\[{j}\]"):
                    kpass.binary_counts(laid_out)


def test_negative_zero_counts_as_zero_like_the_general_path():
    matrix = np.array([[-0.0, 1.0, 0.0], [1.0, 1.0, -0.0]])
    assert kpass.binary_counts(matrix).n_correct.tolist() == [1, 2]


def _python_counts(matrix):
    """Plain Python: the ones of each row, read value by value."""
    return [sum(1 for value in row if value == 1) for row in matrix.tolist()]


# Widths around each packed word (8, 16, 32, 64 flags) and whole-word rows beyond.
WIDTHS = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_width_and_block_tail_counts_like_numpy_and_plain_python(dtype):
    rng = np.random.default_rng(11)
    for n in WIDTHS:
        # 4096-byte blocks: a few rows per block and a short last block.
        m = 3 + 4096 // (n * np.dtype(dtype).itemsize)
        binary = rng.random((m, n)) < rng.random((m, 1))
        expected = binary.sum(axis=1)
        for layout, matrix in _layouts(binary.astype(dtype)):
            counts = binary_row_counts(matrix)
            assert counts is not None, (layout, m, n)
            np.testing.assert_array_equal(counts, expected, err_msg=f"{layout} {m}x{n}")
            assert counts.tolist() == _python_counts(matrix), (layout, m, n)


@pytest.mark.parametrize("dtype", [">i2", ">i4", ">i8", ">u8", ">f4", ">f8", "<f8", "<i8"])
def test_either_byte_order_counts_the_same(dtype):
    rng = np.random.default_rng(12)
    binary = rng.random((300, 70)) < 0.5
    for layout, matrix in _layouts(binary.astype(dtype)):
        np.testing.assert_array_equal(binary_row_counts(matrix), binary.sum(axis=1),
                                      err_msg=layout)
        bad = matrix.copy(order="K")
        bad[17, 33] = 2
        assert binary_row_counts(bad) is None
        with pytest.raises(ValueError, match=r"R\[17\]\[33\]=2"):
            kpass.binary_counts(bad)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint64, np.float32,
                                   np.float64], ids=lambda d: np.dtype(d).name)
def test_a_bad_value_in_any_block_tile_or_tail_is_named_where_it_is(dtype):
    """Bad values at block starts, ends, the last short block and past 255 samples (F tiles)."""
    rng = np.random.default_rng(13)
    m, n = 1500, 300
    base = (rng.random((m, n)) < 0.5).astype(dtype)
    for i, j in [(0, 0), (m - 1, n - 1), (m - 1, 0), (0, n - 1), (7, 256), (1023, 255),
                 (1024, 254), (m // 2, 299)]:
        matrix = base.copy()
        matrix[i, j] = 2
        for layout, laid_out in _layouts(matrix):
            assert binary_row_counts(laid_out) is None, (layout, i, j)
            with pytest.raises(ValueError, match=rf"R\[{i}\]\[{j}\]=2"):
                kpass.binary_counts(laid_out)


def test_negative_zeros_in_whole_blocks_and_both_layouts_count_as_zeros():
    rng = np.random.default_rng(14)
    binary = rng.random((200, 40)) < 0.5
    matrix = np.where(binary, 1.0, -0.0)
    matrix[:50] = -0.0
    for layout, laid_out in _layouts(matrix):
        np.testing.assert_array_equal(binary_row_counts(laid_out),
                                      np.where(np.arange(200)[:, None] < 50, False, binary).sum(1),
                                      err_msg=layout)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_a_bad_value_among_negative_zeros_is_still_found(dtype):
    """-0.0 sends a block to the comparison with 0, which must still see the bad value."""
    rng = np.random.default_rng(17)
    base = np.where(rng.random((300, 40)) < 0.5, 1.0, -0.0).astype(dtype)
    for bad in (0.5, np.nan, np.inf, -1.0, 2.0):
        matrix = base.copy()
        matrix[123, 9] = bad
        for layout, laid_out in _layouts(matrix):
            assert binary_row_counts(laid_out) is None, (layout, bad)
            with pytest.raises(ValueError, match=r"R\[123\]\[9\]"):
                kpass.binary_counts(laid_out)


def test_bools_that_are_not_zero_or_one_bytes_leave_the_fast_path_and_still_count():
    raw = np.array([[0, 1, 2, 0], [3, 0, 0, 1]], dtype=np.uint8)
    for layout, matrix in _layouts(raw.view(np.bool_)):
        assert binary_row_counts(matrix) is None, layout
        assert kpass.binary_counts(matrix).n_correct.tolist() == [2, 2]


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.int64, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_counts_without_bitwise_count_as_on_numpy_1(monkeypatch, dtype):
    """numpy < 2 has no np.bitwise_count: the flag bytes are summed as 64-bit words."""
    monkeypatch.setattr(rowcount, "_bitwise_count", None)
    rng = np.random.default_rng(15)
    for n in [1, 9, 64, 100, 256, 2041]:
        binary = rng.random((40, n)) < 0.5
        for layout, matrix in _layouts(binary.astype(dtype)):
            np.testing.assert_array_equal(binary_row_counts(matrix), binary.sum(axis=1),
                                          err_msg=f"{layout} {n}")


def test_tiny_matrices_and_single_rows_or_columns():
    for rows in ([[1]], [[0]], [[1, 0, 1]], [[1], [0], [1]]):
        for dtype in (np.bool_, np.int64, np.float32):
            matrix = np.array(rows, dtype=dtype)
            for layout, laid_out in _layouts(matrix):
                assert binary_row_counts(laid_out).tolist() == _python_counts(laid_out), layout


def test_non_contiguous_slices_take_the_general_path_and_count_the_same():
    rng = np.random.default_rng(16)
    binary = rng.random((120, 90)) < 0.5
    for dtype in (np.int8, np.int64, np.float64):
        wide = binary.astype(dtype)
        for view in (wide[::2], wide[:, ::3], wide[5:100:7, 1:80:2], wide.T[::2]):
            assert binary_row_counts(view) is None
            np.testing.assert_array_equal(kpass.binary_counts(view).n_correct, view.sum(axis=1))
            assert kpass.binary_counts(view).n_correct.tolist() == _python_counts(view)


def test_strided_views_and_dataframes_count_the_same():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    binary = rng.random((300, 40)) < 0.3
    expected = binary.sum(axis=1)
    wide = binary.astype(np.int64)
    np.testing.assert_array_equal(kpass.binary_counts(wide[:, ::-1]).n_correct, expected)
    np.testing.assert_array_equal(kpass.binary_counts(pd.DataFrame(wide)).n_correct, expected)
    np.testing.assert_array_equal(kpass.binary_counts(wide.tolist()).n_correct, expected)
