r"""The rank sets of :func:`kpass.leaderboard`: pair covariances and the stepdown max-|T| test.

Also Holm's adjustment (the fallback with few questions or clusters) and the Bayesian rank
probabilities.

Formula:
    Units u = 1..U are the questions (U = M) or the clusters (U = G, n_u questions each);
    x_u is a pair's (j, k) total of per-question differences s_jq - s_kq over unit u, and
    c_u = x_u - n_u (theta_j - theta_k) its residual total. With the CR2 weights
    a_u = 1 / (1 - n_u / M) (Bell and McCaffrey 2002, the SE of report and compare),

        se_jk^2 = (1 / M^2) sum_u a_u c_u^2                      (questions: 1 / (M (M - 1)))
        T_jk = (theta_j - theta_k) / se_jk,

    with the Bell-McCaffrey df for the intervals and the pairwise t.

    Reference (a studentised randomisation test, sign patterns shared by all pairs): a sign
    pattern e flips whole units, x_u -> e_u x_u; the flipped data have mean
    delta = e.x / M and residual totals e_u x_u - n_u delta, so each pair's statistic,
    studentised by its *own* SE of the flipped data, is

        T*_jk(e) = delta / sqrt((1 / M^2) (sum_u a_u x_u^2 - 2 delta sum_u a_u e_u n_u x_u
                                           + delta^2 sum_u a_u n_u^2)),

    linear in e apart from the square root: two K-column products per pattern serve every
    pair. The identity pattern gives T_jk itself. The patterns are all 2^(U-1) up to a
    global sign when U <= :data:`EXACT_UNITS`, else :data:`DRAWS` random patterns from
    :data:`SEED`. When the models of the untold pairs are exchangeable within units (the
    null of the stepdown's last step) the level is exact at any U and any cluster sizes
    for one pair; over several pairs the stepdown holds the family-wise level up to the
    Monte Carlo error of the patterns (exchangeability of every pair at once is stronger
    than each pair's null). For equal means with asymmetric differences it is valid only
    as U grows (Janssen 1997; Chung and Romano 2013): at 20 units it over-rejects, as the
    t test does.

    Stepdown over the unordered pairs (Westfall and Young 1993; Romano and Wolf 2005):
    sort the pairs by |T| descending; pair i has p_i = share of patterns with
    max_{l >= i} |T*_l| >= |T_i| and adjusted p-value max_{l <= i} p_l. A pair is told
    apart ("the model with the larger estimate is better") when its adjusted p-value is at
    most alpha = 1 - confidence; rank_lo_j = 1 + #{models better than j} and rank_hi_j =
    K - #{models j is better than} (Mogstad, Romano, Shaikh and Wilhelm 2024). The
    rejections and the rank sets are the same statement.

    Pairs with se = 0 and a difference (every unit shows the same difference) have no t
    statistic: they are tested exactly by the sign test over the U units, p = 2 / 2^U,
    with a Bonferroni share alpha / N of the N testable pairs; those it rejects leave the
    family at once, any it does not keep their share, and the max-|T| stepdown runs on the
    rest at level alpha N_+ / N' (N_+ pairs with se > 0, N' = N_+ + the unrejected se = 0
    pairs): a closed test whose every intersection has level <= alpha (union bound).
    Pairs equal on every question are never told apart (p = 1) and are not counted.

    When the 2^(U-1) patterns cannot reach alpha / 2 (2^(U-1) alpha < 2: fewer than 7
    units at 95%), or for dataset-level metrics (jackknife covariance, no per-question
    values), the reference is each pair's own t (df = U - 1) and the adjustment Holm's
    stepdown over the same unordered pairs.

References:
    Westfall, P. H. and Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley.
    Romano, J. P. and Wolf, M. (2005). Exact and Approximate Stepdown Methods for Multiple
    Hypothesis Testing. Journal of the American Statistical Association 100, 94-108.
    Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024). Inference for Ranks.
    Review of Economic Studies 91(1), 476-518.
    Janssen, A. (1997). Studentized permutation tests for non-i.i.d. hypotheses and the
    generalized Behrens-Fisher problem. Statistics & Probability Letters 36, 9-21.
    Chung, E. and Romano, J. P. (2013). Exact and asymptotically robust permutation tests.
    Annals of Statistics 41, 484-507.
    Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero.
    Statistical Applications in Genetics and Molecular Biology 9(1), article 39.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, stdtr

from .._core.counting.checks import InputError
from ._common import _CREDIT_METRICS, ROUNDING, _cluster_df, _jackknife_units
from .small_sample import small_sample_problems
from .strata import residual_factors

#: Random sign patterns behind the max-|T| reference when there are too many units to
#: enumerate, from a fixed seed so that a leaderboard is reproducible. The Monte Carlo
#: error of a 5% adjusted p-value is about 0.0015 (sqrt(0.05 * 0.95 / 20000)).
DRAWS = 20000
SEED = 20240601
#: Up to this many units (questions or clusters) all 2^(U - 1) sign patterns are used.
#: Below 7 units (at 95%) the patterns are too few and the leaderboard uses Holm.
EXACT_UNITS = 15
#: Pairs handled at a time by the stepdown (memory: about 4 x DRAWS x CHUNK floats).
CHUNK = 256
#: Points of the quadrature for P(best) / P(top j) (uniform in z over +-8.5 sd).
GRID = 2001
#: P(top j) is computed for j up to this many ranks (P(best) = P(top 1) always).
TOP_RANKS = 10
#: The most models one leaderboard ranks (the pairs grow as K^2; at this size a board
#: needs about 0.3 GB and a minute; see benchmarks/README.md).
MAX_MODELS = 300


def _covariance(values: np.ndarray, codes: np.ndarray | None
                ) -> tuple[np.ndarray, int | float, int]:
    """Covariance matrix of the K model means, its df and its units (questions or clusters).

    The CR2 sandwich of :func:`kpass.stats._common._clt_se`, one covariance for every model:
    Cov = (1/M^2) sum_g S_g S_g^T / (1 - n_g/M), S_g the residual sums of unit g, with the
    Bell-McCaffrey df (:func:`kpass.stats._common._cluster_df`), as ``kpass report`` and
    :func:`kpass.compare` use; one question per unit is the plain covariance over M - 1.
    """
    sums, sizes = _unit_sums(values, codes)
    m, units = values.shape[1], sums.shape[1]
    scaled = sums / np.sqrt(1.0 - sizes / m)
    if codes is None:
        return (scaled @ scaled.T) / (m * m), units - 1, units
    _, dense = np.unique(codes, return_inverse=True)
    df = _cluster_df(dense.ravel(), m)
    return (scaled @ scaled.T) / (m * m), (int(round(df)) if abs(df - round(df)) < 1e-9
                                           else df), units


def _unit_sums(values: np.ndarray, codes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Residual sums per unit, (K, U), and the questions per unit, (U,).

    Units are the questions (``codes`` None) or the clusters.
    """
    residuals = values - values.mean(axis=1, keepdims=True)
    if codes is None:
        return residuals, np.ones(values.shape[1])
    _, dense = np.unique(codes, return_inverse=True)
    dense = dense.ravel()
    groups = int(dense.max()) + 1
    if groups < 2:
        raise InputError(f"`clusters`: the clustered standard errors need at least 2 "
                         f"clusters among the questions used; got {groups}")
    sums = np.zeros((values.shape[0], groups))
    for j in range(values.shape[0]):
        sums[j] = np.bincount(dense, weights=residuals[j], minlength=groups)
    return sums, np.bincount(dense, minlength=groups).astype(float)


def _unit_totals(values: np.ndarray, codes: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Each model's sum of values per unit, (K, U), and the questions per unit, (U,)."""
    if codes is None:
        return values.astype(float), np.ones(values.shape[1])
    _, dense = np.unique(codes, return_inverse=True)
    dense = dense.ravel()
    groups = int(dense.max()) + 1
    totals = np.array([np.bincount(dense, weights=row, minlength=groups) for row in values])
    return totals.reshape(values.shape[0], groups), np.bincount(dense, minlength=groups
                                                                ).astype(float)


def _jackknife_covariance(statistics: list[Any], keys: np.ndarray,
                          codes: np.ndarray | None) -> tuple[list[np.ndarray], int]:
    """Delete-one-group jackknife covariance of K dataset-level statistics, per k.

    Cov = (G-1)/G sum_g w_g (theta_(-g) - theta_bar)(theta_(-g) - theta_bar)^T, with the
    weights w_g counting the questions that share a row of ``keys`` (the same
    leave-one-out value) when there are no clusters; the diagonal is the jackknife SE^2 of
    :func:`kpass.standard_error`.
    """
    try:
        masks, w, groups = _jackknife_units(keys, codes)
    except ValueError as error:
        raise InputError(f"`runs`: {error}") from None
    # leave_out[u, j, k]: statistic of model j at the k-th budget without unit u.
    leave_out = np.array([[statistic(mask) for statistic in statistics] for mask in masks])
    spread = leave_out - np.einsum("u,ujk->jk", w, leave_out) / w.sum()
    return [(groups - 1) / groups * np.einsum("u,uj,ui->ji", w, spread[:, :, index],
                                               spread[:, :, index])
            for index in range(leave_out.shape[2])], groups - 1


def _p_values(difference: np.ndarray, se: np.ndarray, df: int | float, units: int
              ) -> np.ndarray:
    """Two-sided t p-values; where se = 0 the exact sign test of ``units`` equal differences."""
    p = np.ones_like(difference)
    positive = se > 0
    p[positive] = 2.0 * stdtr(df, -np.abs(difference[positive] / se[positive]))
    # Every question (cluster) shows the same non-zero difference: all the signs agree.
    constant = ~positive & (difference != 0)
    p[constant] = min(1.0, 2.0 * 0.5 ** units)
    return np.minimum(p, 1.0)


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: max_{j<=i} min(1, (P - j + 1) p_(j))."""
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def _sign_patterns(units: int) -> tuple[np.ndarray | None, int]:
    """All 2^(U-1) patterns with the first sign +1 (None: random draws), and their number."""
    if units > EXACT_UNITS:
        return None, DRAWS
    count = 1 << (units - 1)
    bits = (np.arange(count)[:, None] >> np.arange(units - 1)[None, :]) & 1
    return np.hstack([np.ones((count, 1)), 1.0 - 2.0 * bits]), count


def _flip_products(totals: np.ndarray, weighted: np.ndarray, ones: bool
                   ) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """e.x and e.(n x) for every sign pattern e and model, (K, B) each; whether exact.

    With one question per unit (``ones``) e.(n x) = e.x and the second is None.
    """
    units = totals.shape[1]
    patterns, count = _sign_patterns(units)
    if patterns is not None:
        return (totals @ patterns.T, None if ones else weighted @ patterns.T, True)
    rng = np.random.default_rng(SEED)
    first = np.empty((totals.shape[0], count))
    second = None if ones else np.empty_like(first)
    step = max(1, min(count, (1 << 22) // max(units, 1)))  # at most 32 MB of signs at once
    for start in range(0, count, step):
        stop = min(count, start + step)
        # e = 1 - 2 b for random bits b: e.x = sum(x) - 2 b.x (one float pass over the bits)
        bits = np.unpackbits(rng.integers(0, 256, size=(stop - start, (units + 7) // 8),
                                          dtype=np.uint8), axis=1, count=units
                             ).astype(float).T
        first[:, start:stop] = totals.sum(axis=1, keepdims=True) - 2.0 * (totals @ bits)
        if second is not None:
            second[:, start:stop] = (weighted.sum(axis=1, keepdims=True)
                                     - 2.0 * (weighted @ bits))
    return first, second, False


def _max_t_adjusted(statistic: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                    totals: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Westfall-Young stepdown adjusted p-values of |T| for the pairs (rows, cols).

    ``statistic``: the observed T of each pair (se > 0 for all); ``totals``: each model's
    sum of values per unit, (K, U). The sign patterns flip the pairs' unit totals of
    differences; the identity pattern gives the observed statistics, so the p-values are
    those of a randomisation test (exact enumeration: count / 2^(U-1); random patterns:
    (1 + count) / (1 + B), Phipson and Smyth 2010). Memory: the (B, K) flip products and
    a few (:data:`CHUNK`, B) blocks.
    """
    # The units in a canonical order (sorted by their values), so that random patterns
    # give the same p-values whatever order the questions came in.
    canonical = np.lexsort(np.vstack([totals, sizes[None, :]]))
    totals, sizes = totals[:, canonical], sizes[canonical]
    m = float(sizes.sum())
    scale = 1.0 / (m * m)
    weight = 1.0 / (1.0 - sizes / m)  # CR2: a_u = 1 / (1 - n_u / M)
    square_sizes = float(np.sum(weight * sizes * sizes))
    weighted_totals = totals * sizes * weight
    ones = bool(np.all(sizes == 1.0))
    flip, flip_n, exact = _flip_products(totals, weighted_totals, ones)
    draws = flip.shape[1]
    order = np.argsort(-np.abs(statistic), kind="stable")
    observed = np.abs(statistic[order])
    r, c = rows[order], cols[order]
    gram = (totals * weight) @ totals.T
    squares = gram[r, r] + gram[c, c] - 2.0 * gram[r, c]
    raw = np.empty(order.size)
    running = np.zeros(draws)
    for stop in range(order.size, 0, -CHUNK):
        start = max(0, stop - CHUNK)
        block = slice(start, stop)
        delta = flip[r[block]]
        delta -= flip[c[block]]
        delta /= m  # (pairs, draws)
        if flip_n is None:  # questions as units: sum_u a e_u n_u x_u = a e.x = a M delta
            variance = squares[block, None] - float(weight[0]) * m * delta * delta
        else:
            weighted = flip_n[r[block]] - flip_n[c[block]]
            variance = (squares[block, None] - 2.0 * delta * weighted
                        + delta * delta * square_sizes)
        # Rounding can leave a tiny negative variance where every flipped value is equal.
        np.maximum(variance, 1e-15 * squares[block, None], out=variance)
        variance *= scale
        np.sqrt(variance, out=variance)
        np.abs(delta, out=delta)
        delta /= variance  # |T*|, (pairs, draws)
        suffix = np.maximum.accumulate(delta[::-1], axis=0)[::-1]
        np.maximum(suffix, running[None, :], out=suffix)
        hits = np.count_nonzero(suffix >= observed[block, None] * (1.0 - 1e-9), axis=1)
        raw[block] = hits / draws if exact else (1.0 + hits) / (1.0 + draws)
        running = suffix[0].copy()
    adjusted = np.empty(order.size)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(raw))
    return adjusted


@dataclass(frozen=True)
class StrataUnits:
    """What the stratified max-|T| reference flips: per-question values in their groups.

    Attributes:
        values: (K, M) per-question values of the K models.
        codes: (M,) group codes 0..G-1.
        weights: (G,) the aggregate's w_g.
        sizes: (G,) n_g.
    """

    values: np.ndarray
    codes: np.ndarray
    weights: np.ndarray
    sizes: np.ndarray


def _max_t_strata(statistic: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                  strata: StrataUnits) -> np.ndarray:
    r"""Westfall-Young stepdown adjusted p-values of |T| with groups as strata.

    As :func:`_max_t_adjusted` with questions as units, but each pair's flipped statistic is
    studentised by the *stratified* SE of the flipped data (:func:`kpass.stats.strata.
    stratified_covariance`): with D_q the pair's difference on question q, a_q = w_g / n_g,
    F_g(e) = sum_{q in g} e_q D_q and SS_g = sum_{q in g} D_q^2 (which no flip changes),

        delta(e) = sum_g (w_g / n_g) F_g(e),
        Var(e) = sum_{g: n_g >= 2} b_g (SS_g - F_g(e)^2 / n_g),
        b_g = w_g^2 / (n_g (n_g - 1)) + (sum_{h: n_h = 1} w_h^2) / sum_h (n_h - 1),

    and T*(e) = delta(e) / sqrt(Var(e)); the identity pattern gives the observed T. The
    draws are processed in blocks (every pair for a block of patterns), so memory stays
    bounded by about 2^22 floats whatever the number of models, groups and draws.
    """
    values, codes = strata.values, strata.codes
    weights, sizes = strata.weights, strata.sizes.astype(float)
    # Questions in a canonical order (by group, then values): random patterns give the same
    # p-values whatever order the questions came in.
    canonical = np.lexsort(np.vstack([values, codes[None, :]]))
    values, codes = values[:, canonical], codes[canonical]
    m, groups = values.shape[1], sizes.size
    b = residual_factors(weights, sizes)
    order = np.argsort(-np.abs(statistic), kind="stable")
    observed = np.abs(statistic[order]) * (1.0 - 1e-9)
    r, c = rows[order], cols[order]
    difference = values[r] - values[c]  # (P, M)
    invariant = np.array([np.bincount(codes, weights=row * row, minlength=groups)
                          for row in difference]) @ b  # sum_g b_g SS_g per pair
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=groups))])
    patterns, draws = _sign_patterns(m)
    exact = patterns is not None
    rng = np.random.default_rng(SEED)
    pairs = order.size
    step = max(1, min(draws, (1 << 22) // max((pairs + values.shape[0]) * groups, m, 1)))
    hits = np.zeros(pairs)
    for start in range(0, draws, step):
        stop = min(draws, start + step)
        if patterns is not None:
            signs = patterns[start:stop]  # (B, M)
        else:
            bits = np.unpackbits(rng.integers(0, 256, size=(stop - start, (m + 7) // 8),
                                              dtype=np.uint8), axis=1, count=m)
            signs = 1.0 - 2.0 * bits
        per_model = np.empty((values.shape[0], groups, stop - start))
        for g in range(groups):  # the questions are sorted by group: one block each
            part = slice(bounds[g], bounds[g + 1])
            per_model[:, g, :] = values[:, part] @ signs[:, part].T
        sums = per_model[r] - per_model[c]  # F[p, g, b]: the pair's flipped sum over group g
        delta = np.einsum("g,pgb->pb", weights / sizes, sums)
        variance = invariant[:, None] - np.einsum("g,pgb->pb", b / sizes, sums * sums)
        np.maximum(variance, 1e-15 * invariant[:, None], out=variance)
        t = np.abs(delta) / np.sqrt(variance)  # (P, B)
        suffix = np.maximum.accumulate(t[::-1], axis=0)[::-1]
        hits += np.count_nonzero(suffix >= observed[:, None], axis=1)
    raw = hits / draws if exact else (1.0 + hits) / (1.0 + draws)
    adjusted = np.empty(pairs)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(raw))
    return adjusted


def _pair_verdicts(estimates: np.ndarray, sigma: np.ndarray, df: int | float,
                   confidence: float,
                   units: tuple[np.ndarray, np.ndarray] | StrataUnits | None,
                   rows: np.ndarray, cols: np.ndarray, difference: np.ndarray,
                   count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """(p_value, p_adjusted, told_apart, method) of the unordered pairs (rows, cols).

    ``difference`` is estimates[rows] - estimates[cols] with ties set to 0; ``units`` each
    model's value totals per unit and the units' sizes (:func:`_unit_totals`; None: no
    per-question values, Holm). ``method`` is
    ``"max-t"`` or ``"holm"``.
    """
    alpha = 1.0 - confidence
    se = pair_se(sigma, rows, cols, estimates)
    p = _p_values(difference, se, df, count)
    adjusted = np.ones_like(p)
    positive = se > 0
    constant = ~positive & (difference != 0)
    testable = positive | constant
    flips = (None if units is None else units.values.shape[1]
             if isinstance(units, StrataUnits) else units[0].shape[1])
    if flips is None or (1 << min(flips - 1, 60)) * alpha < 2.0:
        if testable.any():
            adjusted[testable] = _holm(p[testable])
        return p, adjusted, adjusted <= alpha, "holm"
    total = int(testable.sum())
    # se = 0 pairs: the sign test with a Bonferroni share; those rejected leave the family.
    adjusted[constant] = np.minimum(1.0, total * p[constant])
    kept = int(np.sum(constant & (adjusted > alpha)))
    if positive.any():
        statistic = difference[positive] / se[positive]
        if isinstance(units, StrataUnits):
            found = _max_t_strata(statistic, rows[positive], cols[positive], units)
        else:
            assert units is not None  # flips is None only without units: Holm above
            totals, sizes = units
            found = _max_t_adjusted(statistic, rows[positive], cols[positive], totals, sizes)
        share = (int(positive.sum()) + kept) / int(positive.sum())
        adjusted[positive] = np.minimum(1.0, found * share)
    return p, adjusted, adjusted <= alpha, "max-t"


def noise_free_se(variance: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """sqrt(variance), 0 where it is within floating-point noise of 0.

    Noise: at most :data:`kpass.stats._common.ROUNDING` of the largest |``scale``| (the
    estimates): identical per-question values give se = 0 and the exact sign test, never
    se = 1e-17 with p = 0.
    """
    se = np.sqrt(np.maximum(variance, 0.0))
    limit = ROUNDING * float(np.max(np.abs(scale), initial=0.0))
    return np.where(se <= limit, 0.0, se)


def pair_se(sigma: np.ndarray, rows: np.ndarray, cols: np.ndarray, scale: np.ndarray
            ) -> np.ndarray:
    """SE of estimate[rows] - estimate[cols] from their covariance (:func:`noise_free_se`)."""
    return noise_free_se(sigma[rows, rows] + sigma[cols, cols] - 2.0 * sigma[rows, cols],
                         scale)


def _rank_probabilities(mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``top[i, j]`` = P(rank of model i <= j + 1) for independent normal posteriors.

    P(rank_i <= j+1) = integral of f_i(x) P(#{l != i: X_l > x} <= j) dx, the count being
    Poisson-binomial with P(X_l > x) = Phi((mu_l - x) / sd_l) (a point mass where sd_l = 0,
    a tie counting one half). The integral is a trapezoid rule on GRID points over
    mu_i -/+ 8.5 sd_i (a point where sd_i = 0). Columns j < min(K, :data:`TOP_RANKS`) are
    computed; models certainly above (below) every point, P(X_l > x) within 1e-15 of 1
    (0), shift (leave) the count without entering the recursion, so the cost is
    K x GRID x (uncertain models) x columns and the memory GRID x columns.
    """
    size = mu.size
    columns = min(size, TOP_RANKS)
    top = np.zeros((size, columns))
    z = np.linspace(-8.5, 8.5, GRID)
    density = np.exp(-0.5 * z * z)
    density[[0, -1]] *= 0.5
    density /= density.sum()
    for i in range(size):
        x, weight = ((mu[i] + sd[i] * z, density) if sd[i] > 0
                     else (np.array([mu[i]]), np.ones(1)))
        others = np.delete(np.arange(size), i)
        spread = sd[others] > 0
        above = np.empty((x.size, others.size))
        with np.errstate(divide="ignore", invalid="ignore"):
            above[:, spread] = ndtr((mu[others][spread][None, :] - x[:, None])
                                    / sd[others][spread][None, :])
        point = mu[others][~spread][None, :]
        above[:, ~spread] = np.where(point > x[:, None], 1.0,
                                     np.where(point == x[:, None], 0.5, 0.0))
        certain_above = above.min(axis=0) >= 1.0 - 1e-15
        uncertain = (above.max(axis=0) > 1e-15) & ~certain_above
        shift = int(certain_above.sum())
        if shift >= columns:
            continue  # never within the first `columns` ranks
        # counts[:, c] = P(exactly c of the uncertain models lie above x), c < columns.
        counts = np.zeros((x.size, columns - shift))
        counts[:, 0] = 1.0
        for p_above in above[:, uncertain].T:
            moved = counts[:, :-1] * p_above[:, None]
            counts *= (1.0 - p_above)[:, None]
            counts[:, 1:] += moved
        top[i, shift:] = np.clip(weight @ np.cumsum(counts, axis=1), 0.0, 1.0)
    return top


def _tie_groups(estimates: np.ndarray) -> np.ndarray:
    """Estimates equal up to rounding share a value: each becomes its group's first (largest).

    Two estimates are equal when they differ by at most 1e-12 of the largest |estimate|
    (sums of the same per-question values in another order differ by ~1e-16).
    """
    scale = float(np.max(np.abs(estimates))) if estimates.size else 0.0
    tolerance = 1e-12 * scale
    order = np.argsort(-estimates, kind="stable")
    snapped = estimates.astype(float).copy()
    for before, after in zip(order[:-1], order[1:], strict=True):
        if snapped[before] - estimates[after] <= tolerance:
            snapped[after] = snapped[before]
    return snapped


def _problems(name: str, boards: list[Any], clustered: bool) -> list[str]:
    """The SmallSampleWarning's reasons for these boards (as :func:`kpass.compare` gives)."""
    problems: list[str] = []
    for board in boards:
        found = small_sample_problems(
            board.units, clustered, [row.se for row in board.rows],
            [row.estimate for row in board.rows] if name in _CREDIT_METRICS else [])
        # The leaderboard has no exact-test column: say what its verdicts rest on.
        how = ("the rank sets use sign flips (a randomisation test)"
               if board.adjustment == "max-t" else
               "too few for sign flips, the rank sets use Holm over t tests")
        problems += [problem.replace("check the exact test (p_exact) before acting", how)
                     for problem in found]
    return list(dict.fromkeys(problems))


class PairFamily:
    """One board's unordered pairs, for :func:`joint_pair_verdicts` (rank sets across groups).

    Attributes:
        estimates: the K estimates (ties snapped, :func:`_tie_groups`).
        sigma: their (K, K) covariance; ``df`` its degrees of freedom; ``count`` its units.
        rows, cols, difference: the pairs and estimates[rows] - estimates[cols].
        values: the (K, M) per-question values over the stratum's M questions (NaN where
            this board leaves a question out), or None (a dataset-level metric: Holm).
        stratum: the group; boards of one group share its questions and sign patterns.
    """

    __slots__ = ("estimates", "sigma", "df", "count", "rows", "cols", "difference", "values",
                 "stratum")

    def __init__(self, estimates: np.ndarray, sigma: np.ndarray, df: int | float, count: int,
                 rows: np.ndarray, cols: np.ndarray, difference: np.ndarray,
                 values: np.ndarray | None, stratum: int) -> None:
        self.estimates, self.sigma, self.df, self.count = estimates, sigma, df, count
        self.rows, self.cols, self.difference = rows, cols, difference
        self.values, self.stratum = values, stratum


def _zero_left_out(values: np.ndarray) -> np.ndarray:
    """The values with every question some model leaves out (NaN) set to 0 for all."""
    return np.where(np.isfinite(values).all(axis=0)[None, :], values, 0.0)


def _joint_flips(families: list[PairFamily]) -> list[np.ndarray]:
    """e.x for :data:`DRAWS` random sign patterns e, (K, DRAWS) per family.

    Every stratum (group) draws its own patterns over its questions, from one generator
    seeded :data:`SEED`, strata in order; the boards of a stratum share them (a board's
    left-out questions carry 0). Column b across all strata is one pattern over every
    question, so the maximum over all pairs is taken under one joint sign flip.
    """
    rng = np.random.default_rng(SEED)
    flips: list[np.ndarray] = [np.empty(0)] * len(families)
    for stratum in sorted({family.stratum for family in families}):
        members = [i for i, family in enumerate(families) if family.stratum == stratum]
        totals = {i: _zero_left_out(np.asarray(families[i].values, dtype=float))
                  for i in members}
        size = totals[members[0]].shape[1]
        for i in members:
            flips[i] = np.empty((totals[i].shape[0], DRAWS))
        step = max(1, min(DRAWS, (1 << 22) // max(size, 1)))
        for start in range(0, DRAWS, step):
            stop = min(DRAWS, start + step)
            bits = np.unpackbits(rng.integers(0, 256, size=(stop - start, (size + 7) // 8),
                                              dtype=np.uint8), axis=1, count=size
                                 ).astype(float).T
            for i in members:  # e = 1 - 2 b: e.x = sum(x) - 2 b.x
                flips[i][:, start:stop] = (totals[i].sum(axis=1, keepdims=True)
                                           - 2.0 * (totals[i] @ bits))
    return flips


def _joint_min_p(families: list[PairFamily], masks: list[np.ndarray],
                 statistics: list[np.ndarray]) -> list[np.ndarray]:
    """Westfall-Young min-P stepdown adjusted p over the pairs of every family at once.

    ``masks[f]`` picks family f's pairs with se > 0, ``statistics[f]`` their observed T.
    Each pair's flipped |T*| is studentised by its own flipped SE over its board's
    questions (as :func:`_max_t_adjusted` with questions as units). Each pair's statistic
    is put on the p-value scale by its own randomisation distribution, p_i = (1 + #{b:
    |T*_ib| >= |T_i|}) / (1 + B) and p*_ib = #{b': |T*_ib'| >= |T*_ib|} / B, and the
    stepdown runs on min p* (Westfall and Young 1993, algorithm 2.8): the studentised
    statistic of a group of 5 questions has far heavier tails than one of 30, and on the T
    scale its maximum would set the critical value of every group. Ordered by p_i
    ascending, raw_j = (1 + #{b: min_{l >= j} p*_lb <= p_j}) / (1 + B), adjusted by a
    running maximum.
    """
    flips = _joint_flips(families)
    owner = np.concatenate([np.full(int(mask.sum()), f) for f, mask in enumerate(masks)])
    where = np.concatenate([np.flatnonzero(mask) for mask in masks])
    observed = np.abs(np.concatenate(statistics))
    parts = []
    for family, mask in zip(families, masks, strict=True):
        used = np.isfinite(np.asarray(family.values, dtype=float)).all(axis=0)
        x = np.asarray(family.values, dtype=float)[:, used]
        m = float(x.shape[1])
        weight = 1.0 / (1.0 - 1.0 / m)
        gram = (x * weight) @ x.T
        r, c = family.rows[mask], family.cols[mask]
        parts.append((r, c, gram[r, r] + gram[c, c] - 2.0 * gram[r, c], m, weight))

    def flipped(block: np.ndarray) -> np.ndarray:
        """|T*| of the pairs ``block`` under every pattern, (len(block), DRAWS)."""
        statistic = np.empty((block.size, DRAWS))
        for f in np.unique(owner[block]):
            rows_here = np.flatnonzero(owner[block] == f)
            r, c, squares, m, weight = parts[f]
            local = np.searchsorted(np.flatnonzero(masks[f]), where[block[rows_here]])
            delta = (flips[f][r[local]] - flips[f][c[local]]) / m
            variance = squares[local, None] - weight * m * delta * delta
            np.maximum(variance, 1e-15 * squares[local, None], out=variance)
            statistic[rows_here] = np.abs(delta) / np.sqrt(variance / (m * m))
        return statistic

    total = observed.size
    marginal = np.empty(total)
    for start in range(0, total, CHUNK):
        block = np.arange(start, min(total, start + CHUNK))
        hits = np.count_nonzero(flipped(block) >= observed[block, None] * (1.0 - 1e-9),
                                axis=1)
        marginal[block] = (1.0 + hits) / (1.0 + DRAWS)
    order = np.lexsort((-observed, marginal))  # smallest p first, ties by the larger |T|
    raw = np.empty(total)
    running = np.full(DRAWS, np.inf)
    for stop in range(total, 0, -CHUNK):
        start = max(0, stop - CHUNK)
        block = order[start:stop]
        statistic = flipped(block)
        ranked = np.sort(statistic, axis=1)
        share = np.empty_like(statistic)  # p*: each pattern's own marginal p
        for i in range(block.size):
            below = np.searchsorted(ranked[i], statistic[i] * (1.0 - 1e-9), side="left")
            share[i] = (DRAWS - below) / DRAWS
        suffix = np.minimum.accumulate(share[::-1], axis=0)[::-1]
        np.minimum(suffix, running[None, :], out=suffix)
        hits = np.count_nonzero(suffix <= marginal[block, None], axis=1)
        raw[start:stop] = (1.0 + hits) / (1.0 + DRAWS)
        running = suffix[0].copy()
    stepped = np.minimum(1.0, np.maximum.accumulate(raw))
    flat = np.empty(total)
    flat[order] = stepped
    out, offset = [], 0
    for mask in masks:
        count = int(mask.sum())
        out.append(flat[offset:offset + count])
        offset += count
    return out


def joint_pair_verdicts(families: list[PairFamily], confidence: float
                        ) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]], str]:
    r"""The pairs of several boards (groups x metric rows) told apart jointly.

    One family-wise error for every pair of every board: the studentised statistics of
    :func:`_pair_verdicts`, each stratum (group) with its own random sign patterns of its
    questions (the groups hold different questions, so one joint pattern is a pattern per
    group), the boards of a group sharing theirs (they are the same questions), and one
    Westfall-Young min-P stepdown over all the boards' pairs at once (:func:`_joint_min_p`:
    each pair's |T| on the p-value scale of its own randomisation distribution, so a small
    group's heavy-tailed statistics do not set every group's critical value).
    se = 0 pairs: the exact sign test with a Bonferroni share
    alpha / N of all N testable pairs, those not rejected keeping their share (as
    :func:`_pair_verdicts`). A board without per-question values (dataset-level metric):
    Holm over every board's t-test p-values.

    Under the complete null (the models exchangeable within every question of every group)
    the probability that any pair of any board is told apart is <= alpha up to the Monte
    Carlo error of the :data:`DRAWS` patterns, so every group's rank sets hold their true
    ranks together with probability >= ``confidence`` (Mogstad, Romano, Shaikh and Wilhelm
    2024). Measured in ``tests/stats/test_rank_sets_joint.py``.

    Returns:
        Per family (p_value, p_adjusted, told_apart), and the method (``"min-p"`` or
        ``"holm"``).
    """
    alpha = 1.0 - confidence
    ses = [pair_se(f.sigma, f.rows, f.cols, f.estimates) for f in families]
    ps = [_p_values(f.difference, se, f.df, f.count) for f, se in zip(families, ses,
                                                                     strict=True)]
    positive = [se > 0 for se in ses]
    constant = [~pos & (f.difference != 0) for pos, f in zip(positive, families, strict=True)]
    testable = [pos | con for pos, con in zip(positive, constant, strict=True)]
    adjusted = [np.ones_like(p) for p in ps]
    if any(f.values is None for f in families):
        flat = np.concatenate([p[t] for p, t in zip(ps, testable, strict=True)])
        if flat.size:
            held = _holm(flat)
            offset = 0
            for adj, t in zip(adjusted, testable, strict=True):
                adj[t] = held[offset:offset + int(t.sum())]
                offset += int(t.sum())
        return [(p, adj, adj <= alpha) for p, adj in zip(ps, adjusted, strict=True)], "holm"
    total = sum(int(t.sum()) for t in testable)
    kept = 0
    for p, adj, con in zip(ps, adjusted, constant, strict=True):
        adj[con] = np.minimum(1.0, total * p[con])
        kept += int(np.sum(con & (adj > alpha)))
    live = sum(int(pos.sum()) for pos in positive)
    if live:
        statistics = [f.difference[pos] / se[pos] for f, pos, se in zip(families, positive, ses,
                                                                         strict=True)]
        found = _joint_min_p(families, positive, statistics)
        share = (live + kept) / live
        for adj, pos, got in zip(adjusted, positive, found, strict=True):
            adj[pos] = np.minimum(1.0, got * share)
    return [(p, adj, adj <= alpha) for p, adj in zip(ps, adjusted, strict=True)], "min-p"
