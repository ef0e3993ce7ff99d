r"""Exact second moment of the plurality-vote accuracy under a Dirichlet posterior.

For pi ~ Dirichlet(alpha) and g_k(pi) = P(a plurality vote of k i.i.d. draws from pi
elects the reference), E[g_k(pi)^2] is the probability that two groups of k draws
from the *same* pi both elect it (credits multiplied, for fractional ties).
Integrating pi out, the 2k draws are a Polya urn (Dirichlet-multinomial), and the
count table (x_j, y_j) of the two groups has weights

    P(x, y) = k!^2 Gamma(A) / Gamma(A + 2k) * prod_j Gamma(a_j + x_j + y_j)
              / (Gamma(a_j) x_j! y_j!),

with sum_j x_j = sum_j y_j = k. The weight factorises over categories, so for each
pair (s, t) of reference votes the constrained sum is the coefficient of
z^(k - s) w^(k - t) in a product of bivariate polynomials, one per wrong answer
(x_j <= s, y_j <= t; a tie x_j = s is marked by u, y_j = t by v, and the
fractional credit 1/(tau + 1) is the integral of u^tau over [0, 1], taken exactly by
Gauss-Legendre quadrature), times the free pooled category. Each category's weight
is scaled to a probability: with p = 2k / (A + 2k), m = x + y draws follow
NegativeBinomial(a_j, p) and split Binomial(m, 1/2) between the groups; every
number is then a probability below one (no overflow, no cancellation) and the
result is divided by the probability of the totals (k, k). The pairs (s, t) and
(t, s) have the same value, so only t <= s is computed. With groups of k and l
draws the same sum is E[g_k(pi) g_l(pi)].

Cost per state: about C * sum_{t <= s} s (k - s) (k - t)^2 operations for C wrong
answers (a batched Toeplitz product along the first group per draw count of the
second), of order C k^6 / 24 at most: cheap for small k, out of reach at k = 64, where
:func:`kpass.families.vote.vote_at_k_ci` samples, with the controls of
:mod:`kpass._core.vote.poisson`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.polynomial.legendre import leggauss

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Largest working table (rows x nodes x nodes x degree x degree) built at once.
_CHUNK_ENTRIES = 1 << 20


def _nodes(ties: str, most_ties: int) -> tuple[FloatArray, FloatArray]:
    """Gauss-Legendre nodes on [0, 1], exact for polynomials of degree ``most_ties``."""
    if ties == "wrong" or most_ties <= 0:
        return np.ones(1), np.ones(1)
    nodes, weights = leggauss(most_ties // 2 + 1)
    return 0.5 * (nodes + 1.0), 0.5 * weights


def second_moment(ref_nb: FloatArray, other_nb: FloatArray, pool_nb: FloatArray,
                  widths: IntArray, norm: FloatArray, k: int, ties: str,
                  other_k: int | None = None) -> FloatArray:
    """E[g_k(pi) g_l(pi)] per state, exactly (l = ``other_k``, default k: E[g_k(pi)^2]).

    Args:
        ref_nb: (S, k + l + 1) NegativeBinomial(a_ref, p) pmf of the reference's draws.
        other_nb: (S, C, k + l + 1) the same for each wrong answer (columns beyond
            ``widths`` are ignored).
        pool_nb: (S, k + l + 1) the same for the pooled category (never wins).
        widths: (S,) number of wrong answers of each state.
        norm: (S,) NegativeBinomial(A, p) pmf at k + l times Binomial(k + l, 1/2) pmf
            at k: the probability of the group totals (k, l).
        k: draws of the first group.
        ties: "fractional" or "wrong".
        other_k: draws of the second group (default k).

    Returns:
        (S,) moments.
    """
    from scipy.stats import binom

    second = k if other_k is None else other_k
    size = k + second
    # half[m, x] = C(m, x) / 2^m: the split of m draws between the two groups.
    half = binom.pmf(np.arange(size + 1)[None, :], np.arange(size + 1)[:, None], 0.5)
    first_grid, second_grid = np.arange(k + 1)[:, None], np.arange(second + 1)[None, :]
    # pool[r, a, b]: the pooled category takes a draws of the first group, b of the second.
    pool = pool_nb[:, first_grid + second_grid] * half[first_grid + second_grid, first_grid]
    order = np.argsort(widths, kind="stable")
    out = np.zeros(ref_nb.shape[0])
    for s in range(1, k + 1):
        # (s, t) and (t, s) have the same value when both groups have k draws.
        for t in range(1, (s if second == k else second) + 1):
            weight = ref_nb[:, s + t] * half[s + t, s]
            rows = order[weight[order] > 0.0]
            if rows.size == 0:
                continue
            value = _pairs(other_nb, pool, half, rows, widths[rows], (k, second), (s, t),
                           ties)
            twice = second == k and s != t
            out[rows] += (2.0 if twice else 1.0) * weight[rows] * value
    return out / norm


def _pairs(other_nb: FloatArray, pool: FloatArray, half: FloatArray, rows: IntArray,
           counts: IntArray, groups: tuple[int, int], votes: tuple[int, int],
           ties: str) -> FloatArray:
    """Sum over the wrong answers' (x, y) tables with reference votes (s, t), (R,)."""
    (k, l), (s, t) = groups, votes
    fractional = ties == "fractional"
    most = int(counts[-1])
    # At s = 1 every wrong answer with a draw ties, so the credit 1/(a + 1) is applied to
    # the coefficient of z^a directly; otherwise ties are marked by quadrature nodes.
    nodes_u, weights_u = _nodes(ties, min(most, (k - s) // s) if s > 1 else 0)
    nodes_v, weights_v = _nodes(ties, min(most, (l - t) // t) if t > 1 else 0)
    span_a, span_b = k - s + 1, l - t + 1
    top_x = s if fractional else s - 1  # largest x_j allowed
    top_y = t if fractional else t - 1
    # Toeplitz products along the first group's axis (the shorter: t <= s when k = l),
    # one per second-group count y: toeplitz[a', a] = weight of a - a' draws.
    shift = np.arange(span_a)[None, :] - np.arange(span_a)[:, None]  # a - a'
    inside = (shift >= 0) & (shift <= min(top_x, span_a - 1))
    at_tie = (shift == s) if (fractional and s > 1) else np.zeros_like(inside)
    plain = inside & ~at_tie
    clipped = np.clip(shift, 0, top_x)
    xs = np.arange(top_x + 1)
    per_row = nodes_u.size * span_a * max(nodes_v.size * span_b, span_a)  # poly, toeplitz
    step = max(1, _CHUNK_ENTRIES // per_row)
    values = np.empty(rows.size)
    for begin in range(0, rows.size, step):
        chunk, depth = rows[begin : begin + step], counts[begin : begin + step]
        starts = np.searchsorted(depth, np.arange(int(depth[-1])), side="right")
        poly = np.zeros((chunk.size, nodes_u.size, nodes_v.size, span_a, span_b))
        poly[:, :, :, 0, 0] = 1.0
        for j, start in enumerate(starts):
            block = poly[start:]
            nb = other_nb[chunk[start:], j]
            new = np.zeros_like(block)
            for y in range(min(top_y, span_b - 1) + 1):
                # kernel[r, x] = weight of x draws in the first group and y in the second
                kernel = nb[:, y + xs] * half[y + xs, xs]
                line = kernel[:, clipped.T]  # (R, a, a')
                toeplitz = np.where(plain.T, line, 0.0)[:, None, :, :] + np.where(
                    at_tie.T, line, 0.0)[:, None, :, :] * nodes_u[None, :, None, None]
                contribution = np.matmul(toeplitz[:, :, None], block[:, :, :, :, : span_b - y])
                if fractional and y == t and t > 1:
                    contribution *= nodes_v[None, None, :, None, None]
                new[:, :, :, :, y:] += contribution
            poly[start:] = new
        if fractional and s == 1:
            poly /= (1.0 + np.arange(span_a))[:, None]
        if fractional and t == 1:
            poly /= 1.0 + np.arange(span_b)
        closed = np.einsum("ruvab,u,v->rab", poly, weights_u, weights_v)
        tail = pool[chunk][:, span_a - 1 :: -1, span_b - 1 :: -1]
        values[begin : begin + step] = np.einsum("rab,rab->r", closed, tail)
    return values
