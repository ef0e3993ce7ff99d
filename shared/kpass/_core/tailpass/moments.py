r"""Posterior machinery of a TailPass profile: per-state moments, bank tails, endpoints.

:class:`kpass.families.tailpass.metric.TailPassProfile` inherits :class:`ProfileMoments`,
which holds
its computations on the Dirichlet posterior rows alpha_q (one per question over the
reward levels s_0 < ... < s_{L-1}, equal rewards merged by :func:`_group_levels`):

* the distinct posterior rows and their multiplicities: a per-question quantity is
  computed once per distinct row;
* the banks x of k attempts (count vectors over the L levels, G = C(k + L - 1, L - 1)
  of them), their average scores x . s / k, their predictive probabilities
  DirMult(x; k, alpha_q) (Beta-binomial for binary data) and the upper sums
  P(score >= t) at each threshold t;
* the posterior mean and variance of a bank payoff u(x), through f(p) = E[u(X) | p]:
  for binary data (k <= MAX_PRODUCT_K) as a credit of :mod:`kpass._core.moments.credits`
  (:func:`_credit`), refined by :mod:`kpass._core.moments.concentrated` where the variance
  lost digits; otherwise Var_q = Cov_q(f, f) by the two-bank identity of
  :mod:`kpass._core.dirichlet.posterior`, narrow posteriors redone in exact fractions
  (:mod:`kpass._core.tailpass.exact`);
* the endpoints P(B > 0) and P(B = 1): Pass@k and Pass^k under the Beta posterior of
  the levels that earn some (full) credit.

Questions are independent, so per-state means m_q and variances v_q aggregate as

    mu = (1/M) sum_q m_q,   sd = (1/M) sqrt(sum_q v_q);

:func:`_normal_summary` adds the normal interval mu -/+ z sd clipped into [0, 1].

References:
    Hariri, M., Hinczewski, M., Ayday, E., & Chaudhary, V. (2026). Success Has a Shape:
    TailPass@k for Repeated Sampling Evaluation (Sections 2-3, Appendix C).
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..dirichlet.posterior import (
    bank_scores,
    check_pairs,
    count_grid,
    payoff_covariance,
    predictive_pmf,
    upper_sums,
)
from ..moments.concentrated import MAX_DEGREE, covariance
from ..moments.credits import (
    MAX_PRODUCT_K,
    Credit,
    pass_credit,
    posterior_moments,
    threshold_credit,
    unanimous_credit,
)
from ..moments.driver import Posterior, credible, finish
from ..moments.kernels import beta_binomial_pmf
from .exact import MAX_EXACT_BANKS, NARROW_RATIO, _exact_payoff_moments

FloatArray = npt.NDArray[np.float64]
Number = TypeVar("Number", np.int64, np.float64)


# ----------------------------------------------------------------------------- helpers


def _group_levels(matrix: npt.NDArray[Number], weights: FloatArray
                  ) -> tuple[npt.NDArray[Number], FloatArray]:
    """Columns summed per distinct reward (ascending), and the distinct rewards."""
    levels, group = np.unique(weights, return_inverse=True)
    grouped = np.zeros((matrix.shape[0], levels.size), dtype=matrix.dtype)
    for category, level in enumerate(group.reshape(-1)):
        grouped[:, level] += matrix[:, category]
    return grouped, levels


def _frozen(values: Any) -> FloatArray:
    array = np.array(values, dtype=np.float64)
    array.setflags(write=False)
    return array


def _normal_summary(mean: float, sd: float, confidence: float) -> Posterior:
    return finish([credible(mean, sd, confidence, (0.0, 1.0))], False)


def _credit(k: int, payoff: FloatArray) -> Credit:
    """The payoff of j high-level attempts in k as a credit, with its closed form if any."""
    steps = np.flatnonzero(np.diff(payoff))
    if payoff[0] == 0.0 and steps.size == 1 and payoff[-1] == 1.0:
        return threshold_credit(k, int(steps[0]) + 1)
    return Credit(k, payoff)


# ----------------------------------------------------------------------------- the profile


class ProfileMoments:
    """Posterior computations of :class:`~kpass.families.tailpass.metric.TailPassProfile`.

    Its base class.

    Private methods and cached arrays only; the profile's public API is defined on the
    profile itself.
    """

    if TYPE_CHECKING:  # fields and property of kpass.families.tailpass.metric.TailPassProfile

        @property
        def k(self) -> int:
            """The reporting budget."""

        @property
        def thresholds(self) -> FloatArray:
            """Required average scores, one profile entry each."""

        @property
        def _parameters(self) -> FloatArray: ...

        @property
        def _levels(self) -> FloatArray: ...

        @property
        def question_count(self) -> int:
            """Number of questions M."""

    @cached_property
    def _states(self) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
        """Distinct posterior rows, their multiplicities and each question's row."""
        rows, inverse, multiplicity = np.unique(self._parameters, axis=0, return_inverse=True,
                                                return_counts=True)
        return rows, multiplicity.astype(np.float64), inverse.reshape(-1)

    @property
    def _binary(self) -> bool:
        return self._levels.size == 2

    @cached_property
    def _grid(self) -> tuple[npt.NDArray[np.int64], FloatArray]:
        counts = count_grid(self.k, self._levels.size)
        return counts, bank_scores(counts, self._levels, self.k)

    @cached_property
    def _tail_index(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        order = np.argsort(self._grid[1], kind="stable")
        return order, np.searchsorted(self._grid[1][order], self.thresholds)

    def _tails(self, pmf: FloatArray, *, exact_ends: bool = True) -> FloatArray:
        """P(score >= t) per threshold from bank probabilities (..., G).

        ``exact_ends=False`` (posterior draws, where speed matters): upper sums only.
        """
        order, cut = self._tail_index
        if exact_ends:
            return upper_sums(pmf[..., order], cut)
        upper = np.zeros((*pmf.shape[:-1], pmf.shape[-1] + 1))
        np.cumsum(pmf[..., order[::-1]], axis=-1, out=upper[..., -2::-1])
        return upper[..., cut]

    def _pmf(self, rows: FloatArray) -> FloatArray:
        if self._binary:
            return beta_binomial_pmf(self.k, rows[:, 1], rows[:, 0])
        return predictive_pmf(self._grid[0], rows)

    @cached_property
    def _state_means(self) -> FloatArray:
        return self._tails(self._pmf(self._states[0]))


    def _aggregate(self, means: FloatArray, variances: FloatArray) -> tuple[float, float]:
        weight = self._states[1]
        mean = float(weight @ means / self.question_count)
        variance = max(float(weight @ variances) / self.question_count**2, 0.0)
        return finish([(mean, math.sqrt(variance))], False)

    def _payoff_moments(self, payoff: FloatArray) -> tuple[float, float]:
        """Posterior mean and sd of the dataset average of a bank payoff u(x)."""
        rows = self._states[0]
        counts = self._grid[0]
        if self._binary and self.k <= MAX_PRODUCT_K:
            high, low = rows[:, 1], rows[:, 0]
            moments = posterior_moments(high, low, _credit(self.k, payoff))
            variance = moments.variance
            # The credits refine only the states that lost ~6 digits; 1e-10 needs more.
            lost = variance * NARROW_RATIO <= variance + moments.shifted**2
            if self.k <= MAX_DEGREE and lost.any():
                refined = covariance(high[lost], low[lost],
                                     beta_binomial_pmf(self.k, high[lost], low[lost]),
                                     payoff, payoff)
                variance = variance.copy()
                variance[lost] = np.where(np.isnan(refined), variance[lost],
                                          np.maximum(refined, 0.0))
            return self._aggregate(moments.mean, variance)
        if self._binary:
            # Beyond MAX_PRODUCT_K the two-bank sum would need more pairs than allowed.
            check_pairs(self.k + 1)
        means = self._pmf(rows) @ payoff
        variances = np.array([payoff_covariance(counts, alpha, payoff[:, None])[0, 0]
                              for alpha in rows])
        narrow = np.flatnonzero(variances * NARROW_RATIO <= variances + means**2)
        if narrow.size and len(counts) <= MAX_EXACT_BANKS:
            # The conditional form loses digits on narrow posteriors: exact fractions.
            means, variances = means.copy(), variances.copy()
            for state in narrow:
                means[state], variances[state] = _exact_payoff_moments(counts, payoff,
                                                                       rows[state])
        return self._aggregate(means, variances)

    def _endpoint(self, full_credit: bool) -> tuple[float, float]:
        hit = self._levels == 1.0 if full_credit else self._levels > 0.0
        if hit.all() or not hit.any():
            return finish([(float(hit.all()), 0.0)], False)
        rows = self._states[0]
        alpha, beta = rows[:, hit].sum(axis=1), rows[:, ~hit].sum(axis=1)
        credit = unanimous_credit(self.k) if full_credit else pass_credit(self.k)
        moments = posterior_moments(alpha, beta, credit)
        return self._aggregate(moments.mean, moments.variance)
