"""The blocked one-pass counting path against numpy's own row sums, for every dtype and layout."""

from __future__ import annotations

import numpy as np
import pytest

import kpass
from kpass._core import rowcount
from kpass._core.rowcount import binary_row_counts

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


def test_strided_views_and_dataframes_count_the_same():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    binary = rng.random((300, 40)) < 0.3
    expected = binary.sum(axis=1)
    wide = binary.astype(np.int64)
    np.testing.assert_array_equal(kpass.binary_counts(wide[:, ::-1]).n_correct, expected)
    np.testing.assert_array_equal(kpass.binary_counts(pd.DataFrame(wide)).n_correct, expected)
    np.testing.assert_array_equal(kpass.binary_counts(wide.tolist()).n_correct, expected)
