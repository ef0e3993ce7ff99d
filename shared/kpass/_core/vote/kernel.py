"""The exact plurality-vote kernel of :func:`kpass.families.vote.vote_at_k`.

Answer states grouped by cluster sizes (:class:`_Clusters`) and the sum over all k-subsets
of the vote's outcome, by truncated generating-function products (see :mod:`kpass.families.vote`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.polynomial.legendre import leggauss

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Interval = tuple[float, float, float, float]

#: Largest working table (rows x nodes x degree) built at once.
_CHUNK_ENTRIES = 1 << 21
#: Smallest normaliser (log) a scaling may reach before k values are split apart.
_LOG_FLOOR = -230.0


def _floats(values: npt.ArrayLike) -> FloatArray:
    """``values`` as a float64 array (no copy when it is one: e.g. int counts + a float prior)."""
    return np.asarray(values, dtype=np.float64)


def _ints(values: npt.ArrayLike) -> IntArray:
    """``values`` as an int64 array (no copy when it is one: e.g. a count of True per row)."""
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True)
class _Clusters:
    """Distinct per-question answer states, sorted cluster sizes, with multiplicities.

    Attributes:
        n: (S,) answers per state.
        ref: (S,) size of the reference's cluster (0 if never given).
        none: (S,) answers that are None.
        sizes: (S, C) sizes of the other clusters, descending, zero-padded.
        inverse: (M,) state of each question.
    """

    n: IntArray
    ref: IntArray
    none: IntArray
    sizes: IntArray
    inverse: IntArray


# ----------------------------------------------------------------------------- kernel


def _tie_nodes(ties: str, most_ties: int) -> tuple[FloatArray, FloatArray]:
    """Quadrature in the tie marker u: exact for polynomials of degree ``most_ties``."""
    if ties == "wrong" or most_ties == 0:
        return np.zeros(1), np.ones(1)
    nodes, weights = leggauss(most_ties // 2 + 1)
    return 0.5 * (nodes + 1.0), 0.5 * weights


def _truncated_product(column: Callable[[IntArray, int], FloatArray], rows: IntArray,
                       counts: IntArray, x: int, degree: int, ties: str) -> FloatArray:
    """Integrated product over clusters of (sum_{y<x} w(y) z^y + u w(x) z^x), to z^degree.

    Args:
        column: (rows, j) -> (R, K + 1) weights w(y) of cluster j.
        rows: the states, sorted by ``counts``.
        counts: (R,) ascending; state r multiplies clusters 0..counts[r] - 1. Each
            cluster therefore updates a suffix of the rows, a view: no state pays
            for another state's clusters.
        x: the reference's votes.
        degree: highest power of z kept.
        ties: tie rule (u = 0 for "wrong"; integral over u in [0, 1] for "fractional").

    Returns:
        (R, degree + 1) coefficients.
    """
    depth = int(counts[-1]) if rows.size else 0
    starts = np.searchsorted(counts, np.arange(depth), side="right")
    if x == 1:
        # One vote each: the degree in z is the number of tied clusters, so the
        # 1/(t + 1) credit is applied to the coefficients directly.
        top = min(degree, depth) if ties == "fractional" else 0
        poly = np.zeros((rows.size, top + 1))
        poly[:, 0] = 1.0
        for j, start in enumerate(starts):
            weights = column(rows[start:], j)
            block = poly[start:]
            new = block * weights[:, :1]
            if top:
                new[:, 1:] += block[:, :-1] * weights[:, 1:2]
            poly[start:] = new
        result = np.zeros((rows.size, degree + 1))
        result[:, : top + 1] = poly / np.arange(1, top + 2)
        return result
    most_ties = min(depth, degree // x) if ties == "fractional" else 0
    nodes, node_weights = _tie_nodes(ties, most_ties)
    poly = np.zeros((rows.size, nodes.size, degree + 1))
    poly[:, :, 0] = 1.0
    for j, start in enumerate(starts):
        weights = column(rows[start:], j)
        block = poly[start:]
        new = block * weights[:, 0, None, None]
        for y in range(1, min(x, degree + 1)):
            new[:, :, y:] += weights[:, y, None, None] * block[:, :, : degree + 1 - y]
        if most_ties:
            tie = weights[:, x, None] * nodes[None, :]
            new[:, :, x:] += tie[:, :, None] * block[:, :, : degree + 1 - x]
        poly[start:] = new
    return np.einsum("rnd,n->rd", poly, node_weights)


def _vote_sums(ref_weights: FloatArray, active: Callable[[int], IntArray],
               column: Callable[[IntArray, int], FloatArray],
               free: Callable[[IntArray, IntArray], FloatArray], ks: list[int],
               ties: str, floor: float = 0.0) -> FloatArray:
    """Sum over the reference's votes x of its weight times the constrained product.

    Args:
        ref_weights: (S, K + 1) weight of the reference's cluster holding y draws.
        active: x -> (S,) number of leading clusters that can reach x draws; the
            rest are folded into ``free``.
        column: (rows, j) -> (R, K + 1) weights of cluster j.
        free: (rows, d) -> (R, K + 1) weights of all draws outside the reference and
            the first d[r] clusters (None answers, small clusters): never winning.
        ks: the k values (K = max(ks)).
        ties: tie rule.
        floor: reference weights at or below it are skipped (0: exact).

    Returns:
        (S, len(ks)) unnormalised sums; divide by the weight of k draws in total.
    """
    top = max(ks)
    out = np.zeros((ref_weights.shape[0], len(ks)))
    for x in range(1, top + 1):
        rows = np.flatnonzero(ref_weights[:, x] > floor)
        if rows.size == 0:
            continue
        degree = top - x
        counts = active(x)[rows]
        order = np.argsort(counts, kind="stable")
        rows, counts = rows[order], counts[order]
        nodes = min(int(counts[-1]), degree // x) // 2 + 1
        step = max(1, _CHUNK_ENTRIES // ((degree + 1) * nodes))
        for start in range(0, rows.size, step):
            chunk, depth = rows[start : start + step], counts[start : start + step]
            poly = _truncated_product(column, chunk, depth, x, degree, ties)
            rest = free(chunk, depth)
            for index, k in enumerate(ks):
                if k < x:
                    continue
                span = k - x
                value = np.einsum("rd,rd->r", poly[:, : span + 1], rest[:, span::-1])
                out[chunk, index] += ref_weights[chunk, x] * value
    return out


def _binomial_table(size: int, top: int, p: float) -> FloatArray:
    """T[m, y] = C(m, y) p^y (1 - p)^(m - y) for m <= size, y <= top (0 where y > m)."""
    from scipy.stats import binom  # scipy.stats costs 0.3 s to import: only when voting

    return binom.pmf(np.arange(top + 1)[None, :], np.arange(size + 1)[:, None], p)


def _log_binomial_pmf(k: int, n: int, p: float) -> float:
    from scipy.stats import binom

    return float(binom.logpmf(k, n, p))


def _scalings(n: int, ks: list[int]) -> list[tuple[float, list[int]]]:
    """Group the k values so one scaling p keeps every normaliser C(n,k)p^k(1-p)^(n-k) large."""
    groups: list[tuple[float, list[int]]] = []
    pending = sorted(set(ks))
    while pending:
        low, size = pending[0], 1
        for size in range(len(pending), 0, -1):
            high = pending[size - 1]
            p = min(max((low + high) / (2.0 * n), 0.5 / n), 1.0 - 0.5 / n)
            if min(_log_binomial_pmf(low, n, p), _log_binomial_pmf(high, n, p)) >= _LOG_FLOOR:
                break
        high = pending[size - 1]
        p = min(max((low + high) / (2.0 * n), 0.5 / n), 1.0 - 0.5 / n)
        groups.append((p, pending[:size]))
        pending = pending[size:]
    return groups


def _subset_vote(states: _Clusters, ks: list[int], ties: str) -> FloatArray:
    """Exact vote accuracy over uniform k-subsets, (S, len(ks)); NaN where k > n."""
    out = np.full((states.n.size, len(ks)), np.nan)
    for n in np.unique(states.n):
        in_group = np.flatnonzero(states.n == n)
        ref = states.ref[in_group]
        sizes = states.sizes[in_group]
        if n in ks:
            # k = n: the subset is every answer, so the vote is fixed.
            tied = (sizes == ref[:, None]).sum(axis=1)
            wins = (ref > 0) & (ref >= sizes[:, 0])
            credit = 1.0 / (1.0 + tied) if ties == "fractional" else (tied == 0) * 1.0
            for index in (i for i, k in enumerate(ks) if k == n):
                out[in_group, index] = np.where(wins, credit, 0.0)
        wanted = [k for k in ks if k < n]
        if not wanted:
            continue
        cumulative = np.concatenate([np.zeros((sizes.shape[0], 1), np.int64),
                                     np.cumsum(sizes, axis=1)], axis=1)
        for p, group in _scalings(int(n), wanted):
            table = _binomial_table(int(n), max(group), p)

            def active(x: int, s: IntArray = sizes) -> IntArray:
                return _ints((s >= x).sum(axis=1))

            def column(rows: IntArray, j: int, s: IntArray = sizes,
                       t: FloatArray = table) -> FloatArray:
                return t[s[rows, j]]

            def free(rows: IntArray, d: IntArray, r: IntArray = ref, c: IntArray = cumulative,
                     t: FloatArray = table, n: int = int(n)) -> FloatArray:
                return t[n - r[rows] - c[rows, d]]

            sums = _vote_sums(table[ref], active, column, free, group, ties)
            for index, k in enumerate(group):
                for slot in (i for i, wanted_k in enumerate(ks) if wanted_k == k):
                    out[in_group, slot] = sums[:, index] / table[n, k]
    # A probability: rounding of the scaled sums can leave it a few ulps outside [0, 1]
    # (1.0000000000000007 for 5 of 8 answers right at k = 7), never more.
    return np.clip(out, 0.0, 1.0, out=out)


