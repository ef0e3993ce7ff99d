r"""Joint tests of several paired comparisons: the studentised max-T stepdown and Holm.

``kpass compare`` tests many rows (Pass@k, Pass^k, G-Pass@k ... at every k) on the same
questions. The rows are strongly correlated (Pass@1 and Pass@2 move together), so Holm's
method, which assumes nothing about their dependence, adjusts for far more tests than the
table really holds. The max-T stepdown of Westfall and Young (1993, algorithm 4.1; Romano
and Wolf 2005) uses the dependence: every row is resampled with the *same* random sign
flips of the per-question (per-cluster) differences, so the distribution of the largest
studentised statistic over the rows is the one the data have.

Formula:
    Unit u = 1..U (a question, or a cluster whose differences are summed) carries the
    difference x_ru of row r. For signs e in {-1, +1}^U,
    T_r(e) = |sum_u e_u x_ru| / sqrt(sum_u x_ru^2); T_r = T_r(1) is the observed value.
    The denominator does not change under sign flips, and T_r is an increasing function of
    the one-sample t statistic of the x_ru (t^2 = (U-1) T^2 / (U - T^2)), so T is
    studentised. Order the rows so that T_(1) >= T_(2) >= ... >= T_(R); then
    p_(j) = max_{i <= j} P_e( max_{l >= i} T_(l)(e) >= T_(i) ),
    the probability over uniformly random sign patterns e (all 2^U of them, by symmetry
    the 2^(U-1) with e_1 = +1, for U <= :data:`~kpass.stats.small_sample.EXACT_UP_TO`
    while 2^(U-1) R <= :data:`EXACT_ENTRIES`; otherwise
    B = :data:`~kpass.stats.small_sample.FLIPS` seeded random patterns and
    (1 + hits) / (1 + B), Phipson and Smyth 2010). Rows whose differences are all 0
    get p = 1 and take no part. Rows whose units all differ by the same amount (se = 0)
    reach T = sqrt(U), the largest value any row can take; their p is exact at any U,
    2 D / 2^U with D the distinct sign patterns (up to a global flip) of the rows whose
    units differ by equal amounts, never the Monte Carlo floor 1 / (1 + B).

    Under the null hypothesis that every row's differences are symmetric about 0 (which
    holds when the two models are exchangeable on each question), the adjusted p-values
    control the family-wise error: P(any true null row has p <= alpha) <= alpha, exactly
    for the enumeration and up to Monte Carlo error otherwise (subset pivotality holds:
    flipping the signs of a unit flips every row together). Like every sign-flip test it
    tests symmetry, not only a zero mean: equal means with skewed differences are rejected
    more often than alpha at 10-20 questions (9-14% at 20 questions, as the t test; for
    one row the studentised max-T p is exactly the sign-flip p, so studentisation does
    not help there); studentisation only makes it valid for a zero mean as the units
    grow (Janssen 1997).

    Each row's adjusted p is never below its own single-row sign-flip p (the same as
    :func:`kpass.stats.small_sample.sign_flip_p` when enumerated), since the maximum over
    rows is at least the row itself.

    One-sided (``alternative="greater"``, the margin tests of ``kpass compare --margin``):
    T_r(e) = sum_u e_u x_ru / sqrt(sum_u x_ru^2) without the absolute value, every pattern
    e and -e counted, so large positive sums are evidence; rows whose units all differ by
    the same positive amount reach sqrt(U) with p = D / 2^U (D their distinct sign
    patterns). The rows are then shifted differences (x_ru = margin - d_ru for
    non-inferiority) and the null is "symmetric about the margin".

References:
    Westfall and Young (1993), Resampling-Based Multiple Testing, Wiley, section 2.6 and
    algorithm 4.1 (max-T stepdown).
    Romano and Wolf (2005), "Exact and approximate stepdown methods for multiple
    hypothesis testing", JASA 100(469).
    Holm (1979), "A simple sequentially rejective multiple test procedure", Scand. J.
    Statist. 6(2).
    Janssen (1997), "Studentized permutation tests for non-i.i.d. hypotheses and the
    generalized Behrens-Fisher problem", Stat. Probab. Lett. 36.
    Phipson and Smyth (2010), "Permutation p-values should never be zero", SAGMB 9(1).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from .._core.counting.checks import InputError
from .small_sample import EXACT_UP_TO, FLIP_SEED, FLIPS

__all__ = ["maxt_stepdown", "minp_stepdown", "ADJUSTMENTS", "EXACT_ENTRIES", "MINP_ENTRIES"]

ADJUSTMENTS = ("max-t", "holm")
"""The joint adjustments of the secondary rows of ``kpass compare``."""

_BLOCK = 1 << 14
"""Sign patterns evaluated at once (a block of 16384 x U signs and 16384 x R sums)."""

_ENTRIES = 1 << 22
"""The most signs drawn at once: a block has min(16384, 2^22 / U) patterns."""

EXACT_ENTRIES = 1 << 23
"""The enumeration is used when 2^(U-1) patterns x R rows stay within this many sums (about
a second); beyond, :data:`~kpass.stats.small_sample.FLIPS` random patterns (at U = 20 units
that is up to 16 rows exact; a 40-row table at 20 questions is Monte Carlo)."""


MINP_ENTRIES = 1 << 25
"""The most statistics :func:`minp_stepdown` keeps (patterns x rows, 256 MB as floats);
beyond, it gives :func:`maxt_stepdown`'s p-values (valid, more conservative)."""


def _checked(values: np.ndarray | Sequence[Sequence[float]], flips: int) -> np.ndarray:
    """``values`` as a finite (rows, units) float array; ``flips`` a positive int."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[1] < 1 or not np.isfinite(x).all():
        raise InputError(f"`values` must be a finite (rows, units) array; got shape {x.shape}")
    if isinstance(flips, bool) or not isinstance(flips, (int, np.integer)) or flips < 1:
        raise InputError(f"`flips` must be a positive int; got {flips!r}")
    return x


def _patterns(units: int, flips: int, seed: int, exact_up_to: int) -> Iterator[np.ndarray]:
    """Blocks of sign patterns (rows of +-1), and whether they are the exact enumeration."""
    if units <= exact_up_to:
        # Every pattern with e_1 = +1: |sum e x| is the same for e and -e.
        total = 1 << (units - 1)
        bits = np.arange(units - 1)
        for start in range(0, total, _BLOCK):
            index = np.arange(start, min(total, start + _BLOCK))
            signs = np.ones((index.size, units))
            signs[:, 1:] = 2.0 * ((index[:, None] >> bits) & 1) - 1.0
            yield signs
        return
    rng = np.random.default_rng(seed)
    # At most _ENTRIES signs at once (32 MB as floats), whatever the units: 16,384 rows of
    # 14,000 questions were 1.8 GB. Drawing fewer rows per call gives the same signs (the
    # generator's stream does not depend on how it is cut into calls).
    step = max(1, min(_BLOCK, _ENTRIES // units))
    for start in range(0, flips, step):
        rows = min(step, flips - start)
        yield 2.0 * rng.integers(0, 2, size=(rows, units)).astype(float) - 1.0


def _equal_sizes(x: np.ndarray) -> np.ndarray:
    """Rows whose every unit differs by the same non-zero amount (up to sign)."""
    size = np.abs(x)
    top = size.max(axis=1)
    return (size.min(axis=1) > 0.0) & (top - size.min(axis=1) <= 1e-9 * top)


def _constant_rows(x: np.ndarray) -> int:
    """How many leading rows (in observed order) have every unit's difference the same.

    Those rows have se = 0 and T = sqrt(U), the largest value any row's statistic can take.
    """
    same = _equal_sizes(x) & (np.all(x > 0.0, axis=1) | np.all(x < 0.0, axis=1))
    return int(np.argmin(same)) if not same.all() else int(same.size)


def _top_p_greater(x: np.ndarray) -> float:
    """P_e(max_r T_r(e) >= sqrt(U)) of the one-sided statistic exactly: D / 2^U."""
    signs = np.sign(x[_equal_sizes(x)])
    classes = np.unique(signs, axis=0).shape[0]
    return min(1.0, classes * 0.5 ** x.shape[1])


def _top_p(x: np.ndarray) -> float:
    """P_e(max_r T_r(e) >= sqrt(U)) exactly: 2 D / 2^U.

    T_r(e) = |sum_u e_u x_ru| / sqrt(sum_u x_ru^2) <= sqrt(U) (Cauchy-Schwarz), with
    equality only for a row whose units all differ by the same amount and e = +-sign(x_r);
    D is the number of distinct sign patterns (up to a global flip) of such rows.
    """
    signs = np.sign(x[_equal_sizes(x)])
    signs *= signs[:, :1]  # e and -e are one class
    classes = np.unique(signs, axis=0).shape[0]
    return min(1.0, 2.0 * classes * 0.5 ** x.shape[1])


def maxt_stepdown(values: np.ndarray | Sequence[Sequence[float]], *, flips: int = FLIPS,
                  seed: int = FLIP_SEED, exact_up_to: int = EXACT_UP_TO,
                  alternative: str = "two-sided") -> np.ndarray:
    r"""Max-T stepdown adjusted p-values of R rows of paired differences over U units.

    See the module docstring for the formula.

    Args:
        values: an (R, U) array: row r's difference on unit u (per question, or summed
            over a cluster), the same units in every row.
        flips: random sign patterns when U > ``exact_up_to``.
        seed: seed of the random patterns (reproducible p-values).
        exact_up_to: enumerate all patterns up to this many units (and
            :data:`EXACT_ENTRIES` sums).
        alternative: ``"two-sided"`` (|sum|) or ``"greater"`` (large positive sums only).

    Returns:
        The R adjusted p-values in (0, 1], in the order of the rows.

    Raises:
        ValueError: ``values`` is not a finite 2-d array with at least one unit, or
            ``flips`` < 1.

    Example:
        >>> import numpy as np
        >>> d = np.array([[0.5, 0.25, 0.25, 0.5], [0.5, 0.25, 0.0, 0.5]])
        >>> [round(float(p), 4) for p in maxt_stepdown(d)]
        [0.125, 0.25]
    """
    x = _checked(values, flips)
    if alternative not in ("two-sided", "greater"):
        raise InputError(f"`alternative` must be 'two-sided' or 'greater'; got {alternative!r}")
    one_sided = alternative == "greater"
    rows, units = x.shape
    adjusted = np.ones(rows)
    scale = np.sqrt(np.square(x).sum(axis=1))
    live = np.flatnonzero(scale > 0.0)  # rows with every difference 0: p = 1
    if live.size == 0:
        return adjusted
    x, scale = x[live], scale[live]
    observed = x.sum(axis=1) if one_sided else np.abs(x.sum(axis=1))
    tolerance = 1e-9 * np.abs(x).sum(axis=1)  # sums equal up to rounding count as ties
    threshold = (observed - tolerance) / scale
    order = np.argsort(-observed / scale, kind="stable")
    x, scale, threshold = x[order], scale[order], threshold[order]
    hits = np.zeros(live.size)
    seen = 0
    exact = units <= exact_up_to and (1 << (units - 1)) * live.size <= EXACT_ENTRIES
    for block in _patterns(units, flips, seed, exact_up_to if exact else 0):
        # one-sided and enumerated: e and -e are different patterns, both counted
        for signs in ((block, -block) if one_sided and exact else (block,)):
            sums = signs @ x.T
            statistic = (sums if one_sided else np.abs(sums)) / scale  # (patterns, rows)
            tail_max = np.maximum.accumulate(statistic[:, ::-1], axis=1)[:, ::-1]
            hits += np.count_nonzero(tail_max >= threshold, axis=0)
            seen += signs.shape[0]
    raw = hits / seen if exact else (1.0 + hits) / (1.0 + seen)
    if not exact:  # se = 0 rows: exact, not the Monte Carlo floor
        if one_sided:
            top = (_equal_sizes(x) & np.all(x > 0.0, axis=1))
            leading = int(np.argmin(top)) if not top.all() else int(top.size)
            raw[:leading] = _top_p_greater(x)
        else:
            raw[:_constant_rows(x)] = _top_p(x)
    stepped = np.minimum(np.maximum.accumulate(raw), 1.0)
    result = np.empty(live.size)
    result[order] = stepped
    adjusted[live] = result
    return adjusted


def minp_stepdown(values: np.ndarray | Sequence[Sequence[float]], *, flips: int = FLIPS,
                  seed: int = FLIP_SEED, exact_up_to: int = EXACT_UP_TO) -> np.ndarray:
    r"""Min-P stepdown adjusted p-values of R rows of paired differences over U units.

    The same rows, statistics and sign patterns as :func:`maxt_stepdown` (two-sided),
    but each row's statistic is first put on the p-value scale by its *own* sign-flip
    distribution, and the stepdown runs on the smallest of those p-values (Westfall and
    Young 1993, algorithm 2.8). With rows of very different reach (a breakdown's cells:
    row r's differences on one group's n_g questions and 0 elsewhere, whose statistic
    |sum e x| / sqrt(sum x^2) cannot exceed sqrt(n_g)), the largest T is set by the big
    groups and the small ones seldom reach it: max-T then spends less than its level
    (2.3% at 5% for 3 rows x 4 groups of 6-15 questions); on the p-value scale every row
    spends its share.

    Formula: T_r(e) = |sum_u e_u x_ru| / sqrt(sum_u x_ru^2) over the B patterns (all
    2^(U-1) with e_1 = +1 when enumerated, else B seeded random ones); the marginal
    p_r = #{b: T_r(b) >= T_r} / B (random: (1 + #) / (1 + B)); each pattern's own
    p*_rb = #{b': T_r(b') >= T_r(b)} / B. With the rows ordered by p ascending (ties by the
    larger T), raw_j = #{b: min_{l >= j} p*_lb <= p_j} / B (random: (1 + #) / (1 + B)),
    adjusted by a running maximum. Rows whose differences are all 0 get p = 1. It keeps
    the (B, R) statistics: beyond :data:`MINP_ENTRIES` it returns :func:`maxt_stepdown`'s.

    Args:
        values: an (R, U) array: row r's difference on unit u, the same units in every row.
        flips: random sign patterns when U > ``exact_up_to``.
        seed: seed of the random patterns.
        exact_up_to: enumerate all patterns up to this many units (and
            :data:`EXACT_ENTRIES` sums).

    Returns:
        The R adjusted p-values in (0, 1], in the order of the rows.

    Raises:
        ValueError: ``values`` is not a finite 2-d array with at least one unit, or
            ``flips`` < 1.

    Example:
        >>> import numpy as np
        >>> d = np.array([[0.5, 0.25, 0.25, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.5, 0.5]])
        >>> [round(float(p), 4) for p in minp_stepdown(d)]
        [0.125, 0.5]
    """
    x = _checked(values, flips)
    rows, units = x.shape
    adjusted = np.ones(rows)
    scale = np.sqrt(np.square(x).sum(axis=1))
    live = np.flatnonzero(scale > 0.0)
    if live.size == 0:
        return adjusted
    exact = units <= exact_up_to and (1 << (units - 1)) * live.size <= EXACT_ENTRIES
    count = (1 << (units - 1)) if exact else flips
    if count * live.size > MINP_ENTRIES:
        return maxt_stepdown(x, flips=flips, seed=seed, exact_up_to=exact_up_to)
    x, scale = x[live], scale[live]
    observed = np.abs(x.sum(axis=1))
    threshold = (observed - 1e-9 * np.abs(x).sum(axis=1)) / scale
    statistic = np.concatenate([np.abs(block @ x.T) / scale for block in
                                _patterns(units, flips, seed, exact_up_to if exact else 0)])
    seen = statistic.shape[0]

    def share(hits: np.ndarray) -> np.ndarray:
        return hits / seen if exact else (1.0 + hits) / (1.0 + seen)

    marginal = share(np.count_nonzero(statistic >= threshold, axis=0).astype(float))
    ranked = np.sort(statistic, axis=0)
    own = np.empty_like(statistic)  # p*: each pattern's own p on its row's distribution
    for r in range(live.size):
        below = np.searchsorted(ranked[:, r], statistic[:, r] * (1.0 - 1e-9), side="left")
        own[:, r] = (seen - below) / seen
    del ranked
    order = np.lexsort((-observed / scale, marginal))
    suffix = np.minimum.accumulate(own[:, order[::-1]], axis=1)[:, ::-1]  # (B, R) ordered
    raw = share(np.count_nonzero(suffix <= marginal[order] * (1.0 + 1e-12), axis=0)
                .astype(float))
    stepped = np.minimum(np.maximum.accumulate(raw), 1.0)
    result = np.empty(live.size)
    result[order] = stepped
    adjusted[live] = result
    return adjusted
