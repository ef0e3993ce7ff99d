"""Soft scores -> hard outcomes: the seed's rule ``correct = score > threshold``.

Some benchmarks score a sample in [0, 1] (textvqa's soft VQA accuracy, seed 002
part III). Avg@n and the pass family need hard outcomes; the seed defines them as
``score > T`` (T = 0.5 there), so a score of exactly T is wrong. The mean soft
score itself is "accuracy (n runs average)", reported beside them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .checks import ArgumentTypeError, InputError, check_real
from .inputs import _is_pandas


def binarize(R: Any, threshold: float) -> Any:
    """Hard outcomes of soft scores: 1 where the score is strictly above ``threshold``.

    Formula:
        r_qj = 1 if s_qj > T else 0 (seed 002, part III: ``score > 0.5``).

    Args:
        R: soft scores: an (M, N) array, or one list of scores per question
            (lengths may differ). Bools and ints are scores too.
        threshold: T, a finite real.

    Returns:
        The same shape of 0/1 outcomes: an int8 array for an array input, else a
        list of lists of ints, ready for every binary metric.

    Raises:
        ValueError: a NaN or infinite score (named by question and sample), or a
            non-finite threshold.
        ArgumentTypeError: a score that is not a number.

    Example:
        The seed's example: replicas 0.6, 0.4, 0.6 give avg@3 = 2/3, while the
        mean soft score ("accuracy (n runs average)") is 0.533.

        >>> import kpass
        >>> hard = binarize([[0.6, 0.4, 0.6]], 0.5)
        >>> hard, round(kpass.avg(hard)[0], 3)
        ([[1, 0, 1]], 0.667)
        >>> binarize([[0.5, 0.50001]], 0.5)
        [[0, 1]]
    """
    threshold = check_real(threshold, "threshold")
    masked = _as_masked(R)
    if masked is not None:
        if masked.ndim != 2:
            raise InputError(f"`R` must be a 2-D array (questions x samples); got an array "
                             f"with {masked.ndim} dimensions")
        missing = np.ma.getmaskarray(masked)
        scores = _finite_scores(np.ma.getdata(masked), "R", missing)
        hard = np.where(missing, 0, scores > threshold).astype(np.int8)
        return np.ma.MaskedArray(hard, mask=missing.copy())
    if isinstance(R, np.ndarray) and R.ndim == 2:
        scores = _finite_scores(R, "R")
        return (scores > threshold).astype(np.int8)
    if isinstance(R, (str, bytes)) or not hasattr(R, "__iter__"):
        raise ArgumentTypeError(f"`R` must be a list of per-question score lists or a 2-D "
                                f"array; got {type(R).__name__}")
    out = []
    for q, row in enumerate(R):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ArgumentTypeError(f"`R` must be a list of per-question score lists or a 2-D "
                                    f"array; got R[{q}]={row!r} ({type(row).__name__})")
        if isinstance(row, np.ma.MaskedArray):  # masked samples are left out of the row
            kept = ~np.ma.getmaskarray(row).reshape(-1)
            row = np.ma.getdata(row).reshape(-1)[kept]
        scores = _finite_scores(row, f"R[{q}]")
        if scores.ndim != 1:
            raise InputError(f"`R[{q}]` must be a flat list of scores; got an array with "
                             f"{scores.ndim} dimensions")
        out.append([int(s > threshold) for s in scores.tolist()])
    return out


def _as_masked(R: Any) -> np.ma.MaskedArray | None:
    """A masked array, or a pandas table as one (missing entries masked); else None."""
    if isinstance(R, np.ma.MaskedArray):
        return R
    if _is_pandas(R):
        data = R.to_numpy(dtype=object)
        missing = np.asarray(R.isna(), dtype=bool)
        if data.ndim == 1:  # a Series: one question, as binary_counts reads it
            data, missing = data.reshape(1, -1), missing.reshape(1, -1)
        return np.ma.MaskedArray(data, mask=missing)
    return None


def _finite_scores(row: Any, name: str,
                   missing: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.float64]:
    """The scores as floats, refusing non-numbers and NaN/inf outside ``missing``.

    A masked (``missing``) entry is not a score: it is neither checked nor converted
    (it reads as 0.0 in the result, for the caller to mask).
    """
    values = np.asarray(row, dtype=object) if not isinstance(row, np.ndarray) else row
    if missing is not None:
        values = np.where(missing, 0.0, values) if values.dtype.kind in "biuf" else \
            np.where(missing, np.array(0.0, dtype=object), values)
    if values.dtype.kind not in "biuf":
        flat = values.reshape(-1)
        for index, value in enumerate(flat):
            if isinstance(value, (bool, np.bool_)):
                continue
            if not isinstance(value, (int, float, np.integer, np.floating)):
                where = "".join(f"[{i}]" for i in np.unravel_index(index, values.shape))
                raise ArgumentTypeError(f"`{name}` must hold numeric scores; got "
                                        f"{name}{where}={value!r} ({type(value).__name__})")
    scores = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(scores)
    if bad.any():
        position = tuple(int(i) for i in np.argwhere(bad)[0])
        where = "".join(f"[{i}]" for i in position)
        value = float(scores[position]) if position else float(scores)
        raise InputError(f"`{name}` must hold finite scores; got {name}{where}="
                         f"{'nan' if math.isnan(value) else value}")
    return scores
