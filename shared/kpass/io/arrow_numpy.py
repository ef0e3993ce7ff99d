"""pyarrow arrays to and from numpy without importing pandas.

pyarrow imports pandas (about 0.25 s of CPU, more than reading a million-row Parquet file)
the first time it converts Python or numpy objects (``pa.array``, ``pa.scalar``, a Python
number given to a compute function) or calls ``Array.to_numpy``. The readers go through
these two functions instead: numpy views of Arrow buffers by DLPack, and Arrow arrays over
numpy buffers by :meth:`pyarrow.Array.from_buffers`.
``tests/structure/test_import_cost.py`` fails when a long file's report loads pandas.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["filled", "index_array", "to_numpy"]


def to_numpy(array: Any) -> np.ndarray:
    """A pyarrow array as numpy, by DLPack where it can (zero copy), else ``to_numpy``.

    Booleans (bit-packed, not in DLPack) go through uint8; arrays with nulls, and types
    DLPack does not carry, go to ``to_numpy`` (which may import pandas).

    Args:
        array: a ``pyarrow.Array``.

    Returns:
        The values; read-only when they share Arrow's memory.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if array.null_count:
        return array.to_numpy(zero_copy_only=False)
    try:
        if pa.types.is_boolean(array.type):
            return np.from_dlpack(pc.cast(array, pa.uint8())).view(np.bool_)
        return np.from_dlpack(array)
    except (BufferError, TypeError, ValueError, NotImplementedError, pa.ArrowException):
        return array.to_numpy(zero_copy_only=False)


def index_array(values: np.ndarray) -> Any:
    """An int64 pyarrow array over the buffer of ``values`` (for ``take``).

    No copy when ``values`` is already contiguous int64.

    Args:
        values: integers (any shape is flattened).

    Returns:
        A ``pyarrow.Int64Array`` of the same values.
    """
    import pyarrow as pa

    flat = np.ascontiguousarray(values, dtype=np.int64).ravel()
    return pa.Array.from_buffers(pa.int64(), flat.size, [None, pa.py_buffer(flat)])


def filled(array: Any, fill: int) -> np.ndarray:
    """An integer pyarrow array as int64 numpy with its nulls replaced by ``fill``.

    (``pc.fill_null(array, -1)`` converts the Python ``-1``, which imports pandas.)

    Args:
        array: a ``pyarrow`` integer array, nulls allowed.
        fill: the value written where ``array`` is null.

    Returns:
        A new writable int64 array.
    """
    import pyarrow.compute as pc

    if not array.null_count:
        return to_numpy(array).astype(np.int64)
    out = np.full(len(array), fill, dtype=np.int64)
    out[to_numpy(pc.is_valid(array))] = to_numpy(pc.drop_null(array))
    return out
