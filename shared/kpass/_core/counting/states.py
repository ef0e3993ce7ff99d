"""Distinct per-question states with multiplicities.

Every binary metric depends on a question only through its state (n, c), so M
questions reduce to their distinct states (at most N + 1 for rectangular data,
whatever M is), the metric is evaluated once per state, and the dataset value is
the multiplicity-weighted average.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .checks import InputError
from .counts import BinaryCounts

SHORT_HINT = "pass short='skip' to leave them out for that k"


@dataclass(frozen=True)
class BinaryStates:
    """Distinct (n, c) states of the questions kept for one k.

    Attributes:
        n: (S,) samples of each state.
        c: (S,) correct samples of each state.
        weight: (S,) number of questions in each state (float, for dot products).
        kept: (M,) mask of the questions kept, or None when every question is kept.
        total: number of questions kept.
        question_c: c of every kept question (to map states back to questions).
        question_n: n of every kept question.
    """

    n: npt.NDArray[np.int64]
    c: npt.NDArray[np.int64]
    weight: npt.NDArray[np.float64]
    kept: npt.NDArray[np.bool_] | None
    total: int
    question_n: npt.NDArray[np.int64]
    question_c: npt.NDArray[np.int64]

    def mean(self, values: npt.NDArray[np.float64]) -> float:
        """Question-average of per-state values.

        For the array :meth:`sample_means` returned (the k = 1 value of every metric whose
        single-draw credit is the draw itself) this is the sample mean to the last bit:
        the exact mean of the per-question values c_q / n_q (each rounded once), rounded
        once, as ``statistics.mean`` gives (:func:`exact_weighted_mean`). Other values
        are averaged by one dot product (a few ulps at most, and cheaper).
        """
        if values is self.__dict__.get("_sample_means"):
            return exact_weighted_mean(self.weight, values, self.total)
        return float(np.dot(self.weight, values) / self.total)

    def sample_means(self) -> npt.NDArray[np.float64]:
        """The sample mean c / n of every state, rounded once (read-only, cached).

        :meth:`mean` recognises this array and averages it exactly (see there).
        """
        cached = self.__dict__.get("_sample_means")
        if cached is None:
            cached = self.c / self.n
            cached.setflags(write=False)
            self.__dict__["_sample_means"] = cached  # frozen dataclass, as in inverse()
        return cached

    def sum_of_variances(self, values: npt.NDArray[np.float64]) -> float:
        """Sum over questions of per-state variances, divided by M^2."""
        return float(np.dot(self.weight, values) / (self.total * self.total))

    def inverse(self) -> npt.NDArray[np.int64]:
        """State index of every kept question, in input order (computed once, read-only).

        Cached on the states (which the counts cache in turn): ``kpass report`` maps
        per-state values back to questions for every metric and k.
        """
        cached = self.__dict__.get("_inverse")
        if cached is None:
            cached = self._inverse()
            cached.setflags(write=False)
            self.__dict__["_inverse"] = cached  # frozen dataclass: set as cached_property does
        return cached

    def _inverse(self) -> npt.NDArray[np.int64]:
        state_keys = _pair_keys(self.n, self.c)
        # The questions share the states' n and c ranges, so both keys fit or neither does.
        question_keys = (None if state_keys is None
                         else _pair_keys(self.question_n, self.question_c, int(self.c.max())))
        if state_keys is None or question_keys is None:
            # counts too large for one int64 key: match the pairs
            pairs = np.concatenate([np.stack([self.n, self.c], axis=1),
                                    np.stack([self.question_n, self.question_c], axis=1)])
            _, key = np.unique(pairs, axis=0, return_inverse=True)
            key = key.reshape(-1)
            state_of_key = np.empty(int(key.max()) + 1, dtype=np.int64)
            state_of_key[key[: self.n.size]] = np.arange(self.n.size)
            return state_of_key[key[self.n.size :]]
        top = int(state_keys.max())
        if top <= 4 * question_keys.size + 1024:
            # A direct table where the keys are dense (rectangular data: the key is c), one
            # gather per question instead of a binary search of each (5x faster at M=1e5).
            table = np.empty(top + 1, dtype=np.int64)
            table[state_keys] = np.arange(state_keys.size)
            return table[question_keys]
        order = np.argsort(state_keys, kind="stable")
        return order[np.searchsorted(state_keys[order], question_keys)]

    def per_question(self, values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Per-question vector in input order (NaN for questions left out)."""
        per_kept = values[self.inverse()]
        if self.kept is None:
            return per_kept
        out = np.full(self.kept.size, np.nan)
        out[self.kept] = per_kept
        return out


#: Veltkamp's splitter for float64: x * (2^27 + 1) splits x into two halves of 26 bits.
_SPLITTER = 134217729.0
#: Largest multiplicity for which w * (half of x) is exact (26 + 26 bits < 53).
_EXACT_WEIGHT = 2.0**26


def exact_weighted_mean(weight: npt.NDArray[np.float64], values: npt.NDArray[np.float64],
                        total: int) -> float:
    """(sum_s weight_s values_s) / total, computed exactly and rounded once.

    This is ``statistics.mean`` of the values repeated by their multiplicities: the
    mean of the per-question floats, rounded once (``statistics.fmean`` rounds twice,
    the sum and then the quotient, so the mean of three copies of 0.9995 is not 0.9995
    there). Each value is split into two halves of at most 26 significant bits
    (Veltkamp's split, exact), so a multiplicity below 2^26 times a half is exact;
    ``math.fsum`` then peels the exact sum of those 2S products into a few
    non-overlapping floats, which are added and divided as fractions (one rounding).
    Multiplicities from 2^26 up, or values whose split could overflow, are summed as
    fractions directly.

    Args:
        weight: (S,) integer multiplicities, as floats.
        values: (S,) finite values.
        total: the number of questions, sum of ``weight``.

    Returns:
        The correctly rounded mean.
    """
    if weight.size and (float(weight.max()) >= _EXACT_WEIGHT
                        or not float(np.abs(values).max()) < 1e290):
        exact = sum((Fraction(int(w)) * Fraction(float(v))
                     for w, v in zip(weight, values, strict=True)), Fraction(0))
        return float(exact / total)
    scaled = values * _SPLITTER
    high = scaled - (scaled - values)
    parts = np.concatenate((weight * high, weight * (values - high))).tolist()
    pieces: list[float] = []
    while (piece := math.fsum(parts)) != 0.0:  # each pass takes ~53 more bits of the sum
        pieces.append(piece)
        parts.append(-piece)
    return float(sum(map(Fraction, pieces), Fraction(0)) / total)


def keep_at_least(n: npt.NDArray[np.int64], k: int, short: str, *, unit: str = "samples"
                  ) -> npt.NDArray[np.bool_] | None:
    """Mask of the questions with at least k samples (None when that is all of them).

    Raises:
        ValueError: some question has fewer than k and short='error', or every question
            does; the message says how many are short and the smallest n.
    """
    short_mask = n < k
    if not short_mask.any():
        return None
    count = int(short_mask.sum())
    if short == "error" or count == n.size:
        what = "every question has" if count == n.size else f"{count} of {n.size} questions have"
        hint = "" if count == n.size else f"; {SHORT_HINT}"
        raise InputError(
            f"`k` must be an int in [1, n]; got k={k} but {what} fewer than k {unit} "
            f"(smallest n={int(n.min())}){hint}"
        )
    return ~short_mask


def states_for(counts: BinaryCounts, k: int | None, short: str) -> BinaryStates:
    """Distinct states of the questions that have at least k samples.

    Args:
        counts: validated per-question counts.
        k: the budget the finite-sample estimator needs (None: no requirement).
        short: 'error' to refuse questions with n < k, 'skip' to leave them out.

    Returns:
        The states.

    Raises:
        ValueError: some questions have fewer than k samples and short='error',
            or every question does.
    """
    n = counts.n_samples
    kept = None if k is None or k <= counts.smallest_n else keep_at_least(n, k, short)
    if kept is None and "_all_states" in counts.__dict__:
        # Every question kept: the states depend on the counts alone (read-only arrays), and
        # a report asks for them at every metric and k.
        return counts.__dict__["_all_states"]
    states = _distinct(counts, kept)
    if kept is None:
        for array in (states.n, states.c, states.weight):
            array.setflags(write=False)
        counts.__dict__["_all_states"] = states
    return states


def _distinct(counts: BinaryCounts, kept: npt.NDArray[np.bool_] | None) -> BinaryStates:
    """The distinct states of the kept questions (all of them when ``kept`` is None)."""
    n = counts.n_samples
    n_kept = n if kept is None else n[kept]
    c_kept = counts.n_correct if kept is None else counts.n_correct[kept]
    if counts.rectangular and int(n_kept[0]) <= 4 * n_kept.size + 1024:
        # A histogram over c = 0..n only where its length is bounded by the data's size.
        histogram = np.bincount(c_kept, minlength=int(n_kept[0]) + 1)
        values = np.flatnonzero(histogram)
        return BinaryStates(
            n=np.full(values.size, n_kept[0], dtype=np.int64),
            c=values.astype(np.int64),
            weight=histogram[values].astype(np.float64),
            kept=kept,
            total=int(n_kept.size),
            question_n=n_kept,
            question_c=c_kept,
        )
    keys = _pair_keys(n_kept, c_kept)
    if keys is None:
        keys = np.stack([n_kept, c_kept], axis=1)
        _, first, multiplicity = np.unique(keys, axis=0, return_index=True, return_counts=True)
    else:
        _, first, multiplicity = np.unique(keys, return_index=True, return_counts=True)
    return BinaryStates(
        n=n_kept[first],
        c=c_kept[first],
        weight=multiplicity.astype(np.float64),
        kept=kept,
        total=int(n_kept.size),
        question_n=n_kept,
        question_c=c_kept,
    )


def _pair_keys(n: npt.NDArray[np.int64], c: npt.NDArray[np.int64], c_max: int | None = None
               ) -> npt.NDArray[np.int64] | None:
    """One int64 key n * (c_max + 1) + c per pair, or None where that could overflow."""
    c_max = int(c.max()) if c_max is None else c_max
    if int(n.max()) * (c_max + 1) + c_max >= 1 << 62:
        return None
    return n * (c_max + 1) + c
