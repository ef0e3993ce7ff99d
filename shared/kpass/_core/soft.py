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

from .checks import ArgumentTypeError, check_real


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
    if isinstance(R, np.ndarray) and R.ndim == 2:
        scores = _finite_scores(R, "R")
        return (scores > threshold).astype(np.int8)
    if isinstance(R, (str, bytes)) or not hasattr(R, "__iter__"):
        raise ArgumentTypeError(f"`R` must be a list of per-question score lists or a 2-D "
                                f"array; got {type(R).__name__}")
    out = []
    for q, row in enumerate(R):
        scores = _finite_scores(row, f"R[{q}]")
        out.append([int(s > threshold) for s in scores.tolist()])
    return out


def _finite_scores(row: Any, name: str) -> npt.NDArray[np.float64]:
    values = np.asarray(row, dtype=object) if not isinstance(row, np.ndarray) else row
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
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = "".join(f"[{i}]" for i in index)
        value = scores[index] if index else float(scores)
        raise ValueError(f"`{name}` must hold finite scores; got {name}{where}="
                         f"{'nan' if math.isnan(value) else value}")
    return scores
