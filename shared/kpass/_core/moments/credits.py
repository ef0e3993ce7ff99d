"""Credit vectors of the binary metrics and their evaluation on per-question states.

A binary metric at budget k is a credit vector A_0..A_k: the credit of a k-subset
with j correct samples. Its finite-sample estimator for a question (n, c) is
E[A_X] with X ~ Hypergeometric(n, c, k); its Bayesian target is the Bernstein
polynomial g(p) = sum_j A_j C(k, j) p^j (1-p)^(k-j), whose posterior mean and
variance under Beta(alpha0 + c, beta0 + n - c) are Beta-binomial sums.

====================  ==========================================
metric                credit A_j
====================  ==========================================
Pass@k                [j >= 1]
Pass^k (G-Pass@k)     [j = k]
G-Pass@k_tau          [j >= j0], j0 = max(1, ceil(tau k))
Maj@k (cons@k)        [j >= floor(k/2) + 1]
mG-Pass@k             (2/k) max(0, j - ceil(k/2))
AUC@K                 sum_i c_i Pass@i of a (k, j) bank (trapezoid c)
threshold spectrum    sum_{r <= j} w_r
====================  ==========================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ..counting.checks import InputError
from ..counting.states import BinaryStates
from .concentrated import refine_covariance, refine_variance
from .kernels import (
    CHUNK_ENTRIES,
    bernstein_product,
    beta_binomial_pmf,
    beta_expectation,
    hypergeom_expectation,
    log_beta_power_moments,
    log_cross_ratio,
    log_draw_all_from,
    log_power_variance_ratio,
    power_moment_ladder,
)
from .tails import TAIL_RECURRENCE_MAX_N, hypergeom_upper_tails, threshold_square_coefficients

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Credit:
    """A credit vector with, where one exists, the closed form it stands for.

    Attributes:
        k: the budget.
        values: (k + 1,) credits A_0..A_k.
        kind: 'pass' or 'unanimous' for the two endpoints (closed-form moments),
            'threshold' for [j >= j0] in between (tails summed along c), else None
            (AUC@K's point estimate is :func:`pass_curve`, not its credit).
    """

    k: int
    values: FloatArray
    kind: str | None = None
    _squares: dict = field(default_factory=dict, repr=False)

    def sides(self) -> tuple[FloatArray, FloatArray]:
        """The credit shifted to be >= 0 from below (A - min A) and from above (max A - A)."""
        return self.values - self.values.min(), self.values.max() - self.values

    def squared(self, side: float) -> FloatArray:
        """Bernstein coefficients (degree 2k) of the squared side ``+1`` (up) or ``-1`` (down)."""
        if side not in self._squares:
            if self.kind == "threshold":
                up, down = threshold_square_coefficients(self.k, int(np.argmax(self.values)))
                self._squares[1.0], self._squares[-1.0] = up, down
            else:
                check_product_degree(self.k)
                h = self.sides()[0 if side > 0 else 1]
                self._squares[side] = bernstein_product(h, h)
        return self._squares[side]

    def elevated(self, side: float) -> FloatArray | None:
        """The side ``+1`` (up) or ``-1`` (down) as a Bernstein polynomial of degree 2k.

        Degree elevation: h(p) = sum_i h_i C(k, i) p^i (1-p)^(k-i) times
        1 = (p + 1 - p)^k has coefficients h'_m = E[h_I], I ~ Hypergeometric(2k, k, m)
        (:func:`bernstein_product` with a row of ones): averages with positive
        weights, so a side >= 0 keeps its relative accuracy. Its mean under a Beta
        posterior is then read from the same degree-2k Beta-binomial table as the
        second moment. None when the weight table would exceed the cached size
        (k above about 720): the caller builds the degree-k table instead.
        """
        key = ("elevated", side)
        if key not in self._squares:
            if (2 * self.k + 1) * (self.k + 1) > ELEVATION_ENTRIES:
                self._squares[key] = None
            else:
                h = self.sides()[0 if side > 0 else 1]
                self._squares[key] = bernstein_product(h, np.ones(self.k + 1))
        return self._squares[key]

    def product(self, other: Credit, side: float, other_side: float) -> FloatArray:
        """Bernstein coefficients of this credit's ``side`` times ``other``'s ``other_side``.

        Kept per (other's values, sides): a covariance asks for the same products at
        every call.
        """
        key = ("product", other.values.tobytes(), side, other_side)
        if key not in self._squares:
            self._squares[key] = bernstein_product(self.sides()[0 if side > 0 else 1],
                                                   other.sides()[0 if other_side > 0 else 1])
        return self._squares[key]


#: Largest weight table ((2k + 1) x (k + 1)) for :meth:`Credit.elevated`.
ELEVATION_ENTRIES = 1 << 20

#: Largest k whose general squared credit (a (2k + 1) x (k + 1) weight table, about
#: 10 s of work at this size) is computed; threshold credits have an O(k) route.
MAX_PRODUCT_K = 4000


def check_product_degree(k: int) -> None:
    """Refuse a credit whose posterior variance would need an O(k^2) table beyond the limit.

    Raises:
        ValueError: k > :data:`MAX_PRODUCT_K`, naming the limit.
    """
    if k > MAX_PRODUCT_K:
        raise InputError(
            f"`k` must be an int in [1, {MAX_PRODUCT_K}] for this metric's posterior (its "
            f"variance needs a ({2 * k + 1} x {k + 1}) table); got k={k}. Pass@k, Pass^k, "
            f"G-Pass@k_tau and Maj@k have no such limit"
        )


@lru_cache(maxsize=256)
def pass_credit(k: int) -> Credit:
    """Pass@k: at least one of the k draws is correct."""
    values = np.ones(k + 1)
    values[0] = 0.0
    return Credit(k, values, "pass")


@lru_cache(maxsize=256)
def unanimous_credit(k: int) -> Credit:
    """Pass^k: all k draws are correct."""
    values = np.zeros(k + 1)
    values[k] = 1.0
    return Credit(k, values, "unanimous")


@lru_cache(maxsize=256)
def threshold_credit(k: int, threshold: int) -> Credit:
    """At least ``threshold`` of the k draws are correct (1 <= threshold <= k)."""
    if threshold <= 1:
        return pass_credit(k)
    if threshold >= k:
        return unanimous_credit(k)
    values = np.zeros(k + 1)
    values[threshold:] = 1.0
    return Credit(k, values, "threshold")


def tau_threshold(tau: float, k: int) -> int:
    """Smallest number of correct draws G-Pass@k_tau asks for: max(1, ceil(tau k)).

    ``tau * k`` is rounded up only when ``tau`` exceeds ``floor(tau k) / k``, so a
    product such as 0.7 * 10 = 7.000000000000001 still gives 7.
    """
    threshold = math.floor(tau * k)
    if tau > threshold / k:
        threshold += 1
    return max(1, threshold)


def majority_threshold(k: int) -> int:
    """Strict majority of k: floor(k/2) + 1."""
    return k // 2 + 1


@lru_cache(maxsize=256)
def mg_credit(k: int) -> Credit:
    """mG-Pass@k: (2/k) max(0, j - ceil(k/2)), the integral of G-Pass@k_tau over tau in [0.5, 1]."""
    majority = (k + 1) // 2
    values = (2.0 / k) * np.maximum(np.arange(k + 1, dtype=np.float64) - majority, 0.0)
    return Credit(k, values)


def auc_coefficients(k: int) -> FloatArray:
    """Trapezoid weights c_1..c_k of AUC@K over Pass@1..Pass@k (c = [1] for k = 1)."""
    if k == 1:
        return np.ones(1)
    coefficients = np.full(k, 1.0 / (k - 1))
    coefficients[[0, -1]] = 0.5 / (k - 1)
    return coefficients


def pass_curve(n: npt.NDArray[np.int64], c: npt.NDArray[np.int64], k: int,
               coefficients: FloatArray) -> FloatArray:
    """sum_i coefficients[i-1] Pass@i(n, c) for i = 1..k, per state.

    Pass@i = 1 - prod_{t<i} (n - c - t) / (n - t); the log of the product is a
    running sum of log1p terms, so all i come out of one cumulative sum.
    """
    out = np.empty(n.size)
    step = max(1, CHUNK_ENTRIES // k)
    t = np.arange(k, dtype=np.float64)[None, :]
    for start in range(0, n.size, step):
        nn = n[start : start + step, None].astype(np.float64)
        cc = c[start : start + step, None].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            hit = cc / (nn - t)
            # log1p(-x) for small x; the log of the ratio itself near x = 1.
            steps = np.where(hit < 0.5, np.log1p(-hit), np.log((nn - cc - t) / (nn - t)))
            steps = np.where(t < nn - cc, steps, -np.inf)
        log_miss = np.cumsum(steps, axis=1)
        out[start : start + step] = -np.expm1(log_miss) @ coefficients
    return out


@lru_cache(maxsize=256)
def auc_credit(k: int) -> Credit:
    """AUC@K: trapezoidal area under Pass@1..Pass@K, as a credit of j correct in k.

    With m = k - j wrong in the bank, Pass@i = 1 - r_i, r_i = C(m, i) / C(k, i), and
    sum_{i=0}^{k} r_i = (k + 1) / (k + 1 - m); the trapezoid halves r_1 = m / k and
    r_k = [m = k]. So, for k >= 2, O(1) per j instead of a sum over i:

        A_j = 1 - (m / (k + 1 - m) - m / (2k) - [m = k] / 2) / (k - 1).

    A_0 = 0 exactly; every other A_j is at least about 1/2, so the subtraction
    loses nothing.
    """
    if k == 1:
        return Credit(1, np.array([0.0, 1.0]))
    m = k - np.arange(k + 1, dtype=np.float64)
    values = 1.0 - (m / (k + 1.0 - m) - m / (2.0 * k)) / (k - 1.0)
    values[0] = 0.0
    return Credit(k, values)


def spectrum_credit(weights: FloatArray) -> Credit:
    """Threshold spectrum S_w: credit sum_{r <= j} w_r."""
    values = np.concatenate(([0.0], np.cumsum(weights)))
    return Credit(int(weights.size), values)


def mg_spectrum_weights(k: int) -> FloatArray:
    """Upper-half weights w_r = 2/k for r > ceil(k/2): the spectrum equal to mG-Pass@k."""
    weights = np.zeros(k)
    weights[(k + 1) // 2 :] = 2.0 / k
    return weights


# ----------------------------------------------------------------------------- estimators


def state_values(states: BinaryStates, credit: Credit) -> FloatArray:
    """Finite-sample estimator E[A_X], X ~ Hypergeometric(n, c, k), per state."""
    if credit.k == 1 and credit.values[0] == 0.0 and credit.values[1] == 1.0:
        return states.sample_means()  # one draw: c / n, rounded once, averaged exactly
    if credit.kind in ("pass", "unanimous", "threshold") and _one_moderate_n(states):
        threshold = int(np.argmax(credit.values))  # the first j with credit 1
        return hypergeom_upper_tails(int(states.n[0]), credit.k, threshold)[states.c]
    if credit.kind == "pass":
        return -np.expm1(log_draw_all_from(states.n, states.n - states.c, credit.k))
    if credit.kind == "unanimous":
        return np.exp(log_draw_all_from(states.n, states.c, credit.k))
    values = credit.values
    if np.all(values == values[0]):
        return np.full(states.n.size, values[0])
    return hypergeom_expectation(states.n, states.c, credit.k, values)


def _one_moderate_n(states: BinaryStates) -> bool:
    """All states share one n small enough for the tail recurrence (rectangular data)."""
    n = states.n
    return bool(n[0] <= TAIL_RECURRENCE_MAX_N and np.all(n == n[0]))


def posterior_parameters(states: BinaryStates, alpha0: float, beta0: float
                         ) -> tuple[FloatArray, FloatArray]:
    """Beta posterior (alpha0 + c, beta0 + n - c) of each state."""
    alpha = alpha0 + states.c.astype(np.float64)
    beta = beta0 + (states.n - states.c).astype(np.float64)
    return alpha, beta


@dataclass(frozen=True, eq=False)
class StateMoments:
    """Posterior mean and variance of g(p) per state, and the side used for each.

    ``side`` is +1 where the moments were taken of g - min(A), -1 where of
    max(A) - g (whichever has the smaller mean, to keep the subtraction
    E[h^2] - E[h]^2 away from cancellation); ``shifted`` is that h's mean.
    ``squares`` is the degree-2k Beta-binomial table the moments were read from,
    when one was built (a covariance with another credit of the same k reuses it).
    """

    mean: FloatArray
    variance: FloatArray
    side: FloatArray
    shifted: FloatArray
    squares: FloatArray | None = None


def power_variance(log_mean: FloatArray, log_ratio: FloatArray) -> FloatArray:
    """Var[x^k] = E[x^k]^2 expm1(log_ratio), combined in log space (no 0 * inf)."""
    if log_ratio.size and float(log_ratio.max()) <= 30.0 and float(log_mean.min()) > -300.0:
        # Both factors are normal floats: the product directly, as accurate and cheaper.
        return np.exp(2.0 * log_mean) * np.expm1(log_ratio)
    with np.errstate(divide="ignore"):
        log_expm1 = np.where(log_ratio > 30.0, log_ratio + np.log1p(-np.exp(-log_ratio)),
                             np.log(np.expm1(np.minimum(log_ratio, 30.0))))
    return np.exp(2.0 * log_mean + log_expm1)


#: Fewest states for which :func:`_power_moments` walks the ladder of one n.
LADDER_MIN_STATES = 8


def _power_moments(own: FloatArray, other: FloatArray, k: int, steps: npt.NDArray[np.int64] | None
                   ) -> tuple[FloatArray, FloatArray]:
    """Log E[x^k] and log(E[x^{2k}] / E[x^k]^2) for x ~ Beta(own, other), per state.

    ``steps`` (when every state shares one n) is each state's distance below the
    state with the largest ``own`` parameter, in unit steps of it: then only that
    state's k factors are summed and the others follow by
    :func:`power_moment_ladder`.
    """
    if steps is None:
        return log_beta_power_moments(own, other, k), log_power_variance_ratio(own, other, k)
    top = int(np.argmin(steps))
    head_moment = log_beta_power_moments(own[top : top + 1], other[top : top + 1], k)[0]
    head_ratio = log_power_variance_ratio(own[top : top + 1], other[top : top + 1], k)[0]
    last = int(np.argmax(steps))
    log_moment, log_ratio = power_moment_ladder(float(own[last]), int(steps[last]), k)
    return head_moment + log_moment[steps], head_ratio + log_ratio[steps]


def _ladder_steps(states: BinaryStates | None, moves_up: bool) -> npt.NDArray[np.int64] | None:
    """Unit steps of each state below the top of its ladder, when one ladder holds them all.

    One ladder: all states share n (so alpha + beta is one value), at most
    :data:`TAIL_RECURRENCE_MAX_N` steps long (the running sums' error grows with
    length) and shorter than the per-state sums it replaces.
    """
    if states is None or states.c.size < LADDER_MIN_STATES or not _one_moderate_n(states):
        return None
    c = states.c
    steps = (c - c.min()) if moves_up else (c.max() - c)
    span = int(steps.max())
    if span > TAIL_RECURRENCE_MAX_N or span >= states.c.size * 4:
        return None
    return steps


def posterior_moments(alpha: FloatArray, beta: FloatArray, credit: Credit, *,
                      states: BinaryStates | None = None) -> StateMoments:
    """Posterior mean and variance of the Bernstein target of ``credit`` for each state.

    Args:
        alpha: (S,) Beta posterior parameters.
        beta: (S,) Beta posterior parameters.
        credit: the metric's credit vector.
        states: the states these parameters belong to (alpha0 + c, beta0 + n - c);
            when given, Pass@k and Pass^k moments of states sharing one n are
            walked along c (:func:`power_moment_ladder`) instead of summed per state.

    Returns:
        Per-state moments.
    """
    k = credit.k
    values = credit.values
    ones = np.ones(alpha.size)
    if credit.kind == "pass":
        # x = 1 - p ~ Beta(beta, alpha); beta falls by one as c rises by one.
        log_miss, log_ratio = _power_moments(beta, alpha, k, _ladder_steps(states, True))
        variance = power_variance(log_miss, log_ratio)
        return StateMoments(-np.expm1(log_miss), variance, -ones, np.exp(log_miss))
    if credit.kind == "unanimous":
        # x = p ~ Beta(alpha, beta); alpha falls by one as c falls by one.
        log_all, log_ratio = _power_moments(alpha, beta, k, _ladder_steps(states, False))
        variance = power_variance(log_all, log_ratio)
        mean = np.exp(log_all)
        return StateMoments(mean, variance, ones, mean)
    low, high = float(values.min()), float(values.max())
    if low == high:
        zeros = np.zeros(alpha.size)
        return StateMoments(np.full(alpha.size, low), zeros, ones, zeros)
    if credit.kind != "threshold":
        check_product_degree(k)  # before any work: the variance would need an O(k^2) table
    up, down = credit.sides()
    fits = alpha.size * (2 * k + 1) <= CHUNK_ENTRIES
    squares = beta_binomial_pmf(2 * k, alpha, beta) if fits else None
    # The degree-2k table gives the means too, through degree-elevated coefficients;
    # where those are not cached (k above ~720) the degree-k table is built for them.
    elevated = fits and credit.elevated(1.0) is not None
    table = beta_binomial_pmf(k, alpha, beta) if fits and not elevated else None

    def side_mean(rows: slice | npt.NDArray[np.bool_], sign: float) -> FloatArray:
        if elevated:
            assert squares is not None
            coefficients = credit.elevated(sign)
            assert coefficients is not None
            return squares[rows] @ coefficients
        shifted_credit = up if sign > 0 else down
        if fits:
            assert table is not None
            return table[rows] @ shifted_credit
        return beta_expectation(alpha[rows], beta[rows], shifted_credit)

    up_mean = side_mean(slice(None), 1.0)
    use_down = up_mean > 0.5 * (high - low)
    side = np.where(use_down, -1.0, 1.0)
    # The smaller side's mean is computed directly, not as a difference from the larger.
    shifted = up_mean.copy()
    if use_down.any():
        shifted[use_down] = side_mean(use_down, -1.0)
    if squares is not None:  # fits
        second = np.where(use_down, squares @ credit.squared(-1.0), squares @ credit.squared(1.0))
    else:
        second = np.empty(alpha.size)
        for mask, sign in ((~use_down, 1.0), (use_down, -1.0)):
            if mask.any():
                second[mask] = beta_expectation(alpha[mask], beta[mask], credit.squared(sign))
    variance = refine_variance(alpha, beta, table, up,
                               np.maximum(second - shifted * shifted, 0.0), second)
    mean = np.where(use_down, high - shifted, low + shifted)
    return StateMoments(mean, variance, side, shifted, squares)


def posterior_covariance(alpha: FloatArray, beta: FloatArray, left: Credit, right: Credit,
                         left_moments: StateMoments, right_moments: StateMoments) -> FloatArray:
    """Posterior covariance of the Bernstein targets of two credits, per state."""
    if left.kind == "pass" and right.kind == "unanimous" and left.k == right.k:
        # Cov[1 - q^k, p^k] = E[p^k] E[q^k] (1 - E[p^k q^k] / (E[p^k] E[q^k])).
        return (left_moments.shifted * right_moments.shifted
                * -np.expm1(log_cross_ratio(alpha, beta, left.k)))
    out = np.zeros(alpha.size)
    if np.all(left.values == left.values[0]) or np.all(right.values == right.values[0]):
        return out
    degree = left.k + right.k
    table = None
    if alpha.size * (degree + 1) <= CHUNK_ENTRIES:
        table = next((m.squares for m in (left_moments, right_moments)
                      if m.squares is not None and m.squares.shape[1] == degree + 1), None)
        if table is None:
            table = beta_binomial_pmf(degree, alpha, beta)
    second = np.zeros(alpha.size)
    for left_side in (1.0, -1.0):
        for right_side in (1.0, -1.0):
            mask = (left_moments.side == left_side) & (right_moments.side == right_side)
            if not mask.any():
                continue
            product = left.product(right, left_side, right_side)
            cross = (table[mask] @ product if table is not None
                     else beta_expectation(alpha[mask], beta[mask], product))
            second[mask] = cross
            out[mask] = left_side * right_side * (
                cross - left_moments.shifted[mask] * right_moments.shifted[mask]
            )
    return refine_covariance(alpha, beta, left.values, right.values, out, second)
