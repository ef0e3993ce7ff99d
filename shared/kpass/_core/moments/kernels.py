"""Stable hypergeometric and Beta-moment kernels, vectorised over per-question states.

No binomial coefficient is ever formed in floating point (C(N, k) overflows a
double near N = 1030). Probability vectors are built from their term ratios in
log space, anchored at their largest term and normalised to sum to one, so
every term is accurate relative to the distribution's mode at any N; products
of ratios are summed as ``log1p`` terms so that ``1 - x`` stays accurate when
``x`` is near 1.

All functions take arrays of states (one row per distinct state) and work on
tables of at most :data:`CHUNK_ENTRIES` entries at a time.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

from .hypergeom import (  # noqa: E402 - after the array aliases
    hypergeom_pmf,
    hypergeom_support,
    normalized_from_log_ratios,
)

#: Largest table (rows x columns) built at once; bigger jobs are split by rows.
CHUNK_ENTRIES = 1 << 22
#: Entries of a per-state table built at once (512 KiB per temporary), in near-equal
#: row blocks. Measured on 257 and 1025 states: 2^16 is within 10% of the best block
#: size; 2^14 pays numpy's per-call overhead per block (+20-40%), and 2^17 made the
#: degree-128 table 2.2x slower (temporaries on fresh pages: page faults cost more than
#: the arithmetic on this machine).
PMF_BLOCK_ENTRIES = 1 << 16


def _blocks(rows: int, width: int, entries: int | None = None) -> list[tuple[int, int]]:
    """(start, stop) of near-equal row blocks of at most about ``entries`` entries each.

    ``entries`` defaults to :data:`PMF_BLOCK_ENTRIES` (the per-state tables kept small);
    :data:`CHUNK_ENTRIES` bounds the other tables.
    """
    entries = PMF_BLOCK_ENTRIES if entries is None else entries
    count = max(1, -(-rows * max(1, width) // entries))
    step = max(1, -(-rows // count))
    return [(start, min(rows, start + step)) for start in range(0, rows, step)]


@lru_cache(maxsize=64)
def _beta_binomial_steps(degree: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """j, C(d, j + 1) / C(d, j) and d - 1 - j for j < d, read-only (shared by every call)."""
    j = np.arange(degree, dtype=np.float64)
    binomial = (degree - j) / (j + 1.0)
    back = degree - 1.0 - j
    for array in (j, binomial, back):
        array.setflags(write=False)
    return j, binomial, back


def beta_binomial_pmf(degree: int, alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """Beta-binomial probabilities P(J = j), j = 0..degree, one row per (alpha, beta).

    J | p ~ Binomial(degree, p), p ~ Beta(alpha, beta); so for a Bernstein
    polynomial g(p) = sum_j A_j C(d, j) p^j (1-p)^(d-j), E[g(p)] = sum_j A_j P(J = j).

    Each row is a running product of the term ratios
    P(j + 1) / P(j) = (d - j)(alpha + j) / ((j + 1)(beta + d - 1 - j)), started at the end
    nearer the bulk (J = 0 when alpha <= beta; otherwise the row of (beta, alpha) is
    built and reversed), then normalised. Every term carries at most about 2 d rounding
    errors relative to itself (a running product of ratios, each rounded a few times),
    and no logarithm or exponential is taken. Rows whose products would overflow (the
    far end more than 1e308 times below the mode, e.g. d > 1000 with alpha, beta > 1e4)
    or whose parameters are extreme are built from log ratios summed outwards from the
    mode (:func:`normalized_from_log_ratios`).

    Args:
        degree: d >= 0.
        alpha: (S,) positive.
        beta: (S,) positive.

    Returns:
        (S, degree + 1) table.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    if degree == 0:
        return np.ones((alpha.size, 1))
    out = np.empty((alpha.size, degree + 1))
    j, binomial, back = _beta_binomial_steps(degree)
    for start, stop in _blocks(alpha.size, degree + 1):
        a, b = alpha[start:stop], beta[start:stop]
        flip = a > b
        low = np.where(flip, b, a)
        high = np.where(flip, a, b)
        if degree > _PRODUCTS_SURELY_FIT and np.all(_log_climb(degree, low, high) > _MOST_CLIMB):
            out[start:stop] = _beta_binomial_pmf_logs(degree, a, b)
            continue
        ratio = np.add.outer(low, j)
        np.divide(ratio, np.add.outer(high, back), out=ratio)
        ratio *= binomial
        block = out[start:stop]
        block[:, 0] = 1.0
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            np.cumprod(ratio, axis=1, out=block[:, 1:])
            total = block.sum(axis=1)
        # Overflow (inf or nan in the row), or parameters where ratios leave the normal range.
        redo = ~(total < np.inf) | (low < 1e-250) | (high > 1e250)
        if flip.any():
            block[flip] = block[flip, ::-1]
        with np.errstate(invalid="ignore"):
            block /= total[:, None]
        if redo.any():
            block[redo] = _beta_binomial_pmf_logs(degree, a[redo], b[redo])
    return out


#: Up to this degree no row's running product can overflow (2^1000 < 1e308 / d).
_PRODUCTS_SURELY_FIT = 1000
#: Log of the largest climb from the anchor to the bulk taken by products (e^600 ~ 1e260).
_MOST_CLIMB = 600.0


def _log_climb(degree: int, low: FloatArray, high: FloatArray) -> FloatArray:
    """The products' climb: log P(J = j*) - log P(J = 0), j* = floor(d low / (low + high)).

    A lower bound on the climb to the mode (P(j*) <= P(mode)), from log-gamma values:
    a cheap forecast of overflow, so that large tables that would overflow go to the
    log route without first building their products (an overflow missed here is
    still caught after the products).
    """
    from scipy.special import betaln, gammaln

    top = np.floor(degree * (low / (low + high)))
    return (gammaln(degree + 1.0) - gammaln(top + 1.0) - gammaln(degree - top + 1.0)
            + betaln(low + top, high + (degree - top)) - betaln(low, high + degree))


def _beta_binomial_pmf_logs(degree: int, alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """:func:`beta_binomial_pmf` from log ratios anchored at the mode (any alpha, beta > 0)."""
    j = np.arange(degree, dtype=np.float64)[None, :]
    # Integer parts first (beta + (d - 1 - j), not beta + d - j - 1, which loses a tiny beta),
    # and the Beta part as its own ratio, by logs where it would overflow (alpha / beta > 1e308).
    with np.errstate(over="ignore", divide="ignore"):
        beta_part = np.log((alpha[:, None] + j) / (beta[:, None] + (degree - 1.0 - j)))
    extreme = ~np.isfinite(beta_part)
    if extreme.any():
        rows = np.nonzero(extreme)[0]
        beta_part[extreme] = (np.log(alpha[rows] + j[0, np.nonzero(extreme)[1]])
                              - np.log(beta[rows] + (degree - 1.0 - j[0, np.nonzero(extreme)[1]])))
    log_ratios = np.log((degree - j) / (j + 1.0)) + beta_part
    length = np.full(alpha.size, degree + 1, dtype=np.int64)
    concave = bool(np.all(alpha >= 1.0) and np.all(beta >= 1.0))
    return normalized_from_log_ratios(log_ratios, length, log_concave=concave)


def bernstein_product(left: FloatArray, right: FloatArray) -> FloatArray:
    """Bernstein coefficients of the product of two Bernstein polynomials.

    With g(p) = sum_i a_i C(k, i) p^i (1-p)^(k-i) and h of degree l with
    coefficients b, the product has degree k + l and coefficients
    c_m = sum_i a_i b_(m-i) P(I = i), I ~ Hypergeometric(k + l, k, m):
    an average of products, so no binomial is ever formed.

    Args:
        left: (k + 1,) coefficients.
        right: (l + 1,) coefficients.

    Returns:
        (k + l + 1,) coefficients of the product.
    """
    k = left.size - 1
    l = right.size - 1
    degree = k + l
    width = min(k, l) + 1
    if (degree + 1) * width <= _CACHED_PRODUCT_ENTRIES:
        rows, pmf, i, partner = _product_weights(k, l)
        return np.sum(pmf * left[i] * right[partner], axis=1)
    out = np.empty(degree + 1)
    for start, stop in _blocks(degree + 1, width, CHUNK_ENTRIES):
        rows, pmf, i, partner = _product_weights(k, l, start, stop)
        out[rows] = np.sum(pmf * left[i] * right[partner], axis=1)
    return out


_CACHED_PRODUCT_ENTRIES = 1 << 20


@lru_cache(maxsize=16)
def _product_weights_cached(k: int, l: int) -> tuple[IntArray, FloatArray, IntArray, IntArray]:
    return _product_weights_rows(k, l, 0, k + l + 1)


def _product_weights(k: int, l: int, start: int = 0, stop: int | None = None
                     ) -> tuple[IntArray, FloatArray, IntArray, IntArray]:
    """Weights P(I = i), I ~ Hypergeometric(k + l, k, m), with the index pairs (i, m - i).

    They depend only on the degrees, so the full table is cached for small degrees
    and shared by every product of those degrees (every credit at that k).
    """
    if stop is None:
        return _product_weights_cached(k, l)
    return _product_weights_rows(k, l, start, stop)


def _product_weights_rows(k: int, l: int, start: int, stop: int
                          ) -> tuple[IntArray, FloatArray, IntArray, IntArray]:
    degree = k + l
    rows = np.arange(start, stop)
    low, pmf = hypergeom_pmf(np.full(rows.size, degree), np.full(rows.size, k), rows)
    offsets = np.arange(pmf.shape[1])[None, :]
    inside = offsets < (np.minimum(k, rows) - low + 1)[:, None]
    i = np.where(inside, low[:, None] + offsets, 0)
    partner = np.where(inside, rows[:, None] - i, 0)
    for array in (rows, pmf, i, partner):
        array.setflags(write=False)
    return rows, pmf, i, partner


def expect_over(pmf_low: IntArray, pmf: FloatArray, credit: FloatArray) -> FloatArray:
    """E[credit[X]] for each row of a probability table whose column t means X = low + t."""
    index = pmf_low[:, None] + np.arange(pmf.shape[1])[None, :]
    np.minimum(index, credit.size - 1, out=index)
    weighted = credit[index]
    weighted *= pmf
    return weighted.sum(axis=1)


def hypergeom_expectation(n: IntArray, c: IntArray, k: int, credit: FloatArray) -> FloatArray:
    """E[credit[X]], X ~ Hypergeometric(n, c, k): the finite-sample estimator of a state.

    Args:
        n: (S,) samples per state.
        c: (S,) correct samples per state.
        k: draws, k <= min(n).
        credit: (k + 1,) credit of j correct draws.

    Returns:
        (S,) values.
    """
    out = np.empty(n.size)
    if n.size == 0:
        return out
    _, length = hypergeom_support(n, c, k)
    # Widest rows first: each table is as wide as its first row, so narrow states
    # are not padded to the width of one wide state.
    order = np.argsort(-length, kind="stable")
    position = 0
    while position < n.size:
        take = max(1, CHUNK_ENTRIES // int(length[order[position]]))
        rows = order[position : position + take]
        low, pmf = hypergeom_pmf(n[rows], c[rows], k)
        out[rows] = expect_over(low, pmf, credit)
        position += take
    return out


def log_draw_all_from(n: IntArray, m: IntArray, k: int) -> FloatArray:
    """log(C(m, k) / C(n, k)): all k draws from n land among m marked items (m <= n).

    C(m, k) / C(n, k) = prod_{i<k} (1 - (n - m) / (n - i)), summed as log1p terms;
    -inf where m < k.
    """
    out = np.full(n.size, -np.inf)
    possible = m >= k
    if not possible.any() or k == 0:
        out[possible] = 0.0
        return out
    nn = n[possible].astype(np.float64)
    mm = m[possible].astype(np.float64)
    result = np.empty(nn.size)
    i = np.arange(k, dtype=np.float64)[None, :]
    for start, stop in _blocks(nn.size, k, CHUNK_ENTRIES):
        top = mm[start:stop, None] - i
        bottom = nn[start:stop, None] - i
        # log1p(-x) is exact for small x; near x = 1 the plain log of the ratio is.
        miss = (bottom - top) / bottom
        terms = np.where(miss < 0.5, np.log1p(-miss), np.log(top / bottom))
        result[start:stop] = np.sum(terms, axis=1)
    out[possible] = result
    return out


#: Terms multiplied together before one log1p in :func:`sum_log1p`.
LOG1P_GROUP = 8


def sum_log1p(terms: FloatArray) -> FloatArray:
    """sum_i log1p(y_i) down each column of a table of y >= 0, with one log1p per group.

    The terms are taken in groups of :data:`LOG1P_GROUP` and each group's
    prod(1 + y_i) - 1 is accumulated as e <- e + y + e y: sums and products of
    non-negative numbers, so e keeps a relative error of about 3 rounding errors
    per term however small it is (no 1 + y is ever formed), and log1p(e) loses no
    more. The sum is then within about (3 G + k / G) rounding errors of the exact
    one, as accurate as k separate log1p calls, at about a third of the time
    (log1p is the costliest step here). Columns whose group products overflow are
    summed term by term. The table is (k, R), terms down the columns, so every
    step works on contiguous rows.

    Args:
        terms: (k, R) array, entries >= 0 (+inf allowed).

    Returns:
        (R,) sums.
    """
    width = terms.shape[0]
    group = LOG1P_GROUP
    if width < 2 * group or terms.size < 4096:  # small tables: numpy's call overhead wins
        return np.log1p(terms).sum(axis=0)
    whole = width - width % group
    blocks = terms[:whole].reshape(group, whole // group, terms.shape[1])
    grown = blocks[0].copy()
    scratch = np.empty_like(grown)
    with np.errstate(over="ignore", invalid="ignore"):
        for member in range(1, group):
            step = blocks[member]
            np.multiply(grown, step, out=scratch)
            scratch += step
            grown += scratch
        out = np.log1p(grown).sum(axis=0)
    if whole < width:
        out += np.log1p(terms[whole:]).sum(axis=0)
    overflow = ~(out < np.inf)
    if overflow.any():
        out[overflow] = np.log1p(terms[:, overflow]).sum(axis=0)
    return out


def log_beta_power_moments(alpha: FloatArray, beta: FloatArray, k: int) -> FloatArray:
    """Log E[p^k] for p ~ Beta(alpha, beta), as a sum of log1p terms.

    E[p^k] = prod_{i<k} (alpha + i) / (alpha + beta + i), and
    log E[p^k] = -sum_{i<k} log1p(beta / (alpha + i)) (:func:`sum_log1p`).
    """
    out = np.zeros(np.asarray(alpha).size)
    if k == 0:
        return out
    i = np.arange(k, dtype=np.float64)
    for start, stop in _blocks(out.size, k):
        terms = np.add.outer(i, alpha[start:stop])
        with np.errstate(over="ignore", divide="ignore"):  # b / a beyond 1e308: E[p^k] is 0
            np.divide(beta[start:stop], terms, out=terms)
        out[start:stop] = -sum_log1p(terms)
    return out


def log_power_variance_ratio(alpha: FloatArray, beta: FloatArray, k: int) -> FloatArray:
    """log(E[p^{2k}] / E[p^k]^2) for p ~ Beta(alpha, beta), free of cancellation.

    The ratio is prod_{i<k} (alpha+k+i)(alpha+beta+i) / ((alpha+beta+k+i)(alpha+i)),
    and each factor is 1 + k beta / ((alpha+beta+k+i)(alpha+i)); so
    Var[p^k] = E[p^k]^2 expm1(sum_i log1p(k beta / ((alpha+beta+k+i)(alpha+i)))).
    """
    out = np.zeros(np.asarray(alpha).size)
    if k == 0:
        return out
    i = np.arange(k, dtype=np.float64)
    for start, stop in _blocks(out.size, k):
        a = alpha[start:stop]
        b = beta[start:stop]
        terms = np.add.outer(i, a + b + k)
        with np.errstate(over="ignore"):  # as above: the variance it scales is 0
            np.divide(k * b, terms, out=terms)
            terms /= np.add.outer(i, a)
        out[start:stop] = sum_log1p(terms)
    return out


def power_moment_ladder(bottom: float, span: int, k: int) -> tuple[FloatArray, FloatArray]:
    """Changes of log E[x^k] and of log(E[x^{2k}] / E[x^k]^2) down a ladder of Beta laws.

    For x ~ Beta(a, T - a) with T fixed (the posteriors of one question size n, as c
    moves), lowering a by one multiplies E[x^k] = prod_{i<k} (a + i) / (T + i) by
    (a - 1) / (a - 1 + k) and E[x^{2k}] by (a - 1) / (a - 1 + 2k), so from the top
    a_0 = bottom + span down to a_t = bottom + (span - t) the two logs change by
    the running sums of

        -log1p(k / a_t)   and   log1p(k^2 / (a_t (a_t + 2k))).

    Each is a running sum of terms of one sign, so it carries a relative error of
    at most about (t + 1) rounding errors: O(n + k) for all n + 1 posteriors of one
    n, where summing each posterior's k factors costs O(n k). The a_t are built up
    from ``bottom`` (a prior plus an integer), never down from the top, so a tiny
    prior keeps its digits.

    Args:
        bottom: the smallest parameter of the ladder (> 0).
        span: number of unit steps from the top down to ``bottom``.
        k: the power.

    Returns:
        ``(log_moment, log_ratio)``: (span + 1,) changes from t = 0 (zero at t = 0).
    """
    own = bottom + np.arange(span - 1, -1, -1, dtype=np.float64)
    log_moment = np.zeros(span + 1)
    log_ratio = np.zeros(span + 1)
    np.cumsum(np.log1p(k / own), out=log_moment[1:])
    np.negative(log_moment, out=log_moment)
    np.cumsum(np.log1p((k * k) / (own * (own + 2.0 * k))), out=log_ratio[1:])
    return log_moment, log_ratio


def log_cross_ratio(alpha: FloatArray, beta: FloatArray, k: int) -> FloatArray:
    """log(E[p^k q^k] / (E[p^k] E[q^k])) = -sum_{i<k} log1p(k / (alpha + beta + i)), q = 1 - p."""
    out = np.zeros(np.asarray(alpha).size)
    if k == 0:
        return out
    i = np.arange(k, dtype=np.float64)
    for start, stop in _blocks(out.size, k):
        terms = np.add.outer(i, alpha[start:stop] + beta[start:stop])
        np.divide(float(k), terms, out=terms)
        out[start:stop] = -sum_log1p(terms)
    return out


def beta_expectation(alpha: FloatArray, beta: FloatArray, credit: FloatArray) -> FloatArray:
    """E[g(p)] for p ~ Beta(alpha, beta), g the Bernstein polynomial with coefficients credit."""
    degree = credit.size - 1
    out = np.empty(alpha.size)
    for start, stop in _blocks(alpha.size, degree + 1, CHUNK_ENTRIES):
        out[start:stop] = beta_binomial_pmf(degree, alpha[start:stop], beta[start:stop]) @ credit
    return out
