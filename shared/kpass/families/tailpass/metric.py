r"""TailPass: the posterior profile of how often k fresh attempts reach each required score.

For a question whose attempts earn rewards s_0 < ... < s_{L-1} (a rubric ``w`` in
[0, 1]; binary (0, 1) by default) with latent probabilities p, a bank of k fresh,
independent attempts has average reward B = (1/k) sum_i s_{X_i}. TailPass@k at a
threshold t is P(B >= t | p); the dataset profile averages it over questions,

    T(t) = (1/M) sum_q P(B_q >= t | p_q),   t in thresholds (default 1/k, ..., 1).

Binary data at t = 1/k gives Pass@k, at t = 1 Pass^k; in between the G-Pass@k
thresholds. The posterior is Dirichlet per question, p_q ~ Dir(prior + counts(R_q)
+ eta counts(R0_q)) over the distinct reward levels, independent across questions;
:func:`tailpass` returns the profile's exact posterior mean and covariance, scalar
utilities (linear combinations of thresholds, moments E[B^lam], discovery P(B > 0),
stability P(B = 1)) with exact posterior mean and sd, and shared posterior draws
(:class:`TailPassDraws`) for the nonlinear ones. :func:`tailpass_empirical` is the
finite-bank counterpart: k of the n observed attempts drawn without replacement.

Same names, signatures, defaults and return types as the reference library
(scorio 0.2.3, ``scorio.eval.tailpass``); with the same ``rng`` the posterior draws
are the same numbers. Extensions: ragged per-question lists and pre-counted
:class:`kpass.CategoricalCounts` inputs; several k in one call (a list in, a list of
profiles or arrays out); ``short=`` in :func:`tailpass_empirical`.

References:
    Hariri, M., Hinczewski, M., Ayday, E., & Chaudhary, V. (2026). Success Has a Shape:
    TailPass@k for Repeated Sampling Evaluation (Sections 2-3, Appendix C).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..._core.counting.checks import (
    InputError,
    _show,
    check_confidence,
    check_flag,
    check_int,
    check_real,
    check_short,
    normalize_ks,
)
from ..._core.counting.states import exact_weighted_mean, keep_at_least
from ..._core.dirichlet.posterior import (
    bank_scores,
    binary_event_covariance,
    count_grid,
    hypergeometric_pmf,
    payoff_covariance,
    polynomial_moments,
    power_mean_polynomial,
    upper_sums,
)
from ..._core.dirichlet.rewards import distinct_rows, prepare
from ..._core.moments.driver import finish, normal_interval
from ..._core.moments.hypergeom import hypergeom_pmf
from ..._core.tailpass.checks import (
    check_convex_weights,
    check_method,
    check_n_draws,
    check_prior_concentrations,
    check_rewards,
    check_thresholds,
)
from ..._core.tailpass.exact import (
    MAX_EXACT_TERMS,
    NARROW_RATIO,
    _exact_polynomial_moments,
    _exact_power_polynomial,
    _power_polynomial_variance,
)
from ..._core.tailpass.moments import (
    ProfileMoments,
    _frozen,
    _group_levels,
    _normal_summary,
)
from .draws import RNG, Summary, TailPassDraws, draw_probabilities

FloatArray = npt.NDArray[np.float64]


# ----------------------------------------------------------------------------- public


def tailpass(R: Any, k: Any, w: Any = None, R0: Any = None, *, eta: float = 1.0,
             prior: Any = 1.0, thresholds: Any = None) -> Any:
    r"""Posterior TailPass profile: exact moments, utilities and shared posterior draws.

    Formula:
        p_q ~ Dirichlet(prior_q + counts(R_q) + eta counts(R0_q)), categories with
        equal reward merged (concentrations added). A bank x of k attempts (x_c at
        level c) has probability DirMult(x; k, alpha_q) and score x . s / k;
        mean(t) = (1/M) sum_q sum_{x: score >= t} DirMult(x; k, alpha_q);
        Cov = (1/M^2) sum_q Cov_q, exact by the two-bank identity (see
        :mod:`kpass._core.dirichlet.posterior`).

    Args:
        R: (M, N) categories 0..C, ragged per-question lists, or CategoricalCounts; a
            flat list is one question.
        k: reporting budget >= 1 (any k: the posterior is latent), or a list of them.
        w: rubric score of each category, in [0, 1]; None means binary R and (0, 1).
        R0: optional auxiliary outcomes for the same questions, as in :func:`kpass.bayes`.
        eta: weight of the auxiliary counts, in [0, 1].
        prior: positive Dirichlet concentrations: a scalar, one per category (C + 1),
            or an (M, C + 1) matrix. The default 1.0 is Beta(1, 1) for binary data.
        thresholds: required average scores, strictly increasing in [0, 1];
            default 1/k, ..., 1.

    Returns:
        A :class:`TailPassProfile`, or a list of them for a list of k.

    Raises:
        ValueError: bad outcomes, w outside [0, 1], eta outside [0, 1], a non-positive
            prior or one of the wrong shape, bad thresholds, k < 1.

    References:
        Hariri, Hinczewski, Ayday & Chaudhary (2026), Success Has a Shape: TailPass@k.

    Example:
        >>> import kpass
        >>> profile = kpass.tailpass([[0, 1, 1], [1, 1, 1]], k=4)
        >>> profile.mean.shape
        (4,)
        >>> [round(float(x), 4) for x in profile.mean]
        [0.9571, 0.8429, 0.6429, 0.3571]
        >>> mu, sigma = profile.moment(lam=1)
        >>> round(mu, 3), round(sigma, 4)
        (0.7, 0.1291)
        >>> [round(x, 4) for x in profile.discovery()]
        [0.9571, 0.061]
    """
    counts, weights = prepare(R, w, R0)
    ks, many = normalize_ks(k)
    grids = [check_thresholds(budget, thresholds) for budget in ks]
    check_rewards(weights)
    eta = check_real(eta, "eta", low=0.0, high=1.0)
    base = check_prior_concentrations(prior, counts.counts.shape)
    with np.errstate(over="ignore"):
        parameters = base + counts.counts + eta * counts.prior_counts
    if not np.all(np.isfinite(parameters.sum(axis=1))):
        raise InputError(f"`prior` is too large: the posterior concentrations overflow; got "
                         f"prior={_show(prior)}")
    grouped, levels = _group_levels(parameters, weights)
    grouped, levels = _frozen(grouped), _frozen(levels)
    return finish([TailPassProfile(budget, grid, grouped, levels)
                   for budget, grid in zip(ks, grids, strict=True)], many)


@dataclass(frozen=True, eq=False)
class TailPassProfile(ProfileMoments):
    """Posterior TailPass profile made by :func:`tailpass`; arrays are computed on first use.

    Attributes:
        k: the reporting budget.
        thresholds: required average scores, one profile entry each.

    Example:
        >>> import kpass
        >>> profile = kpass.tailpass([[0, 1, 1, 1], [0, 0, 0, 1]], k=2)
        >>> [round(float(x), 4) for x in profile.mean], [round(float(x), 4) for x in profile.std]
        ([0.6905, 0.3095], [0.1326, 0.1326])
        >>> [round(x, 4) for x in profile.linear([0.5, 0.5])]
        [0.5, 0.126]
        >>> profile.at_k(4).mean.shape
        (4,)
    """

    k: int
    thresholds: FloatArray
    _parameters: FloatArray = field(repr=False)
    _levels: FloatArray = field(repr=False)

    @property
    def question_count(self) -> int:
        """Number of questions M."""
        return int(self._parameters.shape[0])

    @cached_property
    def question_mean(self) -> FloatArray:
        """Exact per-question posterior mean profiles, (M, thresholds)."""
        return _frozen(self._state_means[self._states[2]])

    @cached_property
    def mean(self) -> FloatArray:
        """Exact posterior mean of the dataset profile, one entry per threshold."""
        return _frozen(self._states[1] @ self._state_means / self.question_count)

    @cached_property
    def covariance(self) -> FloatArray:
        """Exact posterior covariance of the dataset profile, (thresholds, thresholds).

        Questions are independent: Cov = (1/M^2) sum_q Cov_q. Each Cov_q needs G^2 pairs
        of banks (G = C(k + L - 1, L - 1)); beyond 4e6 pairs use :meth:`sample`.
        """
        counts, scores = self._grid
        events = (scores[:, None] >= self.thresholds[None, :]).astype(np.float64)
        rows, multiplicity, _ = self._states
        if self._binary:  # banks are ordered by successes: the cuts index them directly
            total = binary_event_covariance(self.k, rows[:, 1], rows[:, 0], multiplicity,
                                            self._tail_index[1])
        else:
            total = np.zeros((self.thresholds.size, self.thresholds.size))
            for alpha, weight in zip(rows, multiplicity, strict=True):
                total += weight * payoff_covariance(counts, alpha, events)
        total /= self.question_count**2
        diagonal = np.arange(total.shape[0])
        total[diagonal, diagonal] = np.maximum(total[diagonal, diagonal], 0.0)
        return _frozen(total)

    @cached_property
    def std(self) -> FloatArray:
        """Exact marginal posterior sd of the dataset profile."""
        return _frozen(np.sqrt(np.diag(self.covariance)))

    # ------------------------------------------------------------------ scalar utilities

    def linear(self, weights: Any) -> tuple[float, float]:
        r"""Exact posterior (mean, sd) of a convex combination of the profile's thresholds.

        Formula:
            U = sum_t weights_t T(t): each bank pays the weight of the thresholds it
            reaches, u(x) = sum_{t <= score(x)} weights_t; the variance includes every
            cross-threshold covariance.

        Args:
            weights: one non-negative weight per threshold, summing to 1.

        Returns:
            (mean, sd).
        """
        weights = check_convex_weights(weights, self.thresholds.size)
        cumulative = np.concatenate(([0.0], np.cumsum(weights)))
        reached = np.searchsorted(self.thresholds, self._grid[1], side="right")
        return self._payoff_moments(cumulative[reached])

    def moment(self, lam: float) -> tuple[float, float]:
        r"""Exact posterior (mean, sd) of E[B^lam], B the average score of k fresh attempts.

        lam = 1 is the posterior mean rubric credit (Bayes@N with matching priors);
        larger lam weighs high bank scores more. Independent of ``thresholds``.
        Mean and sd are exact to about 1e-13 relative, near p = 1 and p = 0 included: a
        state whose Var is below E[f^2] / 1e3 (where E[f^2] - E[f]^2 would cancel) is
        recomputed without that subtraction (a sum of positive covariance terms, or
        exact fractions; see the module's helpers).

        Formula:
            lam = 1: E[B | p] = p . s; Var = sum_c p_c (s_c - p . s)^2 / (A + 1), p = alpha/A.
            lam = 2, 4: a polynomial in p of degree lam, moments by Dirichlet monomials.
            Otherwise the bank payoff score(x)^lam.

        Args:
            lam: finite exponent > 0.

        Returns:
            (mean, sd).
        """
        lam = check_real(lam, "lam", low=0.0, low_open=True)
        rows = self._states[0]
        if lam == 1.0:
            totals = rows.sum(axis=1)
            probabilities = rows / totals[:, None]
            means = probabilities @ self._levels
            spread = probabilities * (self._levels[None, :] - means[:, None]) ** 2
            return self._aggregate(means, spread.sum(axis=1) / (totals + 1.0))
        if lam in (2.0, 4.0):
            # A polynomial of degree lam in p whatever k: O(1) in k, where the bank payoff
            # (the reference library's route for binary data) is a degree-k Bernstein sum.
            exponents, coefficients = power_mean_polynomial(self._levels, self.k, int(lam))
            means, variances = polynomial_moments(exponents, coefficients, rows)
            # Var = E[f^2] - E[f]^2 loses digits where the posterior is narrow (near
            # p = 1 above all); those states are redone without the subtraction.
            narrow = np.flatnonzero(variances * NARROW_RATIO <= variances + means**2)
            if narrow.size and self._binary and self._levels[0] == 0.0:
                # Monomials of the one positive level only: a sum of positive covariances.
                variances = variances.copy()
                variances[narrow] = _power_polynomial_variance(
                    exponents[:, 1], coefficients, rows[narrow, 1], rows[narrow, 0])
            elif narrow.size and exponents.shape[0] <= MAX_EXACT_TERMS:
                means, variances = means.copy(), variances.copy()
                polynomial = _exact_power_polynomial(self._levels, self.k, int(lam))
                for state in narrow:
                    means[state], variances[state] = _exact_polynomial_moments(
                        polynomial, rows[state])
            return self._aggregate(means, variances)
        return self._payoff_moments(self._grid[1] ** lam)

    def discovery(self) -> tuple[float, float]:
        """Exact posterior (mean, sd) of P(B > 0): some attempt earns positive credit.

        The limit of :meth:`moment` as lam -> 0+; for a rubric, credit below 1/k counts.
        Binary data: Pass@k's posterior.
        """
        return self._endpoint(False)

    def stability(self) -> tuple[float, float]:
        """Exact posterior (mean, sd) of P(B = 1): every attempt earns full credit 1.

        Binary data: Pass^k's posterior.
        """
        return self._endpoint(True)

    def at_k(self, k: int, *, thresholds: Any = None) -> TailPassProfile:
        """The same posterior at another reporting budget (default thresholds 1/k, ..., 1)."""
        k = check_int(k, "k")
        if k < 1:
            raise InputError(f"`k` must be an int >= 1; got k={k}")
        return TailPassProfile(k, check_thresholds(k, thresholds), self._parameters,
                               self._levels)

    # ------------------------------------------------------------------ draws and intervals

    def sample(self, n_draws: int = 4000, *, rng: RNG = None) -> TailPassDraws:
        """Posterior draws of every question's latent probabilities, shared by all utilities.

        Args:
            n_draws: number of draws, >= 2.
            rng: numpy Generator, integer seed or None. The same seed draws the same
                numbers as the reference library.

        Returns:
            A :class:`TailPassDraws`.
        """
        n_draws = check_n_draws(n_draws)
        return TailPassDraws(self, draw_probabilities(self._parameters, n_draws, rng))

    def ci(self, confidence: float = 0.95, *, method: Literal["mc", "normal"] = "mc",
           n_draws: int = 4000, rng: RNG = None) -> Summary:
        """Profile (mean, sd, lo, hi), each an array over thresholds.

        ``"mc"``: all four from shared draws, equal-tailed pointwise intervals;
        ``"normal"``: the exact moments and mean -/+ z sd clipped into [0, 1]. Neither is
        a simultaneous band.
        """
        confidence = check_confidence(confidence)
        if check_method(method) == "mc":
            return self.sample(n_draws, rng=rng).summary(confidence=confidence)
        lo, hi = np.transpose([normal_interval(float(m), float(s), confidence, (0.0, 1.0))
                               for m, s in zip(self.mean, self.std, strict=True)])
        return self.mean, self.std, _frozen(lo), _frozen(hi)

    def linear_ci(self, weights: Any, confidence: float = 0.95, *,
                  method: Literal["mc", "normal"] = "mc", n_draws: int = 4000,
                  rng: RNG = None) -> Summary:
        """(mean, sd, lo, hi) of :meth:`linear`; ``method`` as in :meth:`ci`."""
        weights = check_convex_weights(weights, self.thresholds.size)
        confidence = check_confidence(confidence)
        if check_method(method) == "normal":
            return _normal_summary(*self.linear(weights), confidence)
        draws = self.sample(n_draws, rng=rng)
        return draws.summary(draws.linear(weights), confidence=confidence)

    def moment_ci(self, lam: float, confidence: float = 0.95, *,
                  method: Literal["mc", "normal"] = "mc", n_draws: int = 4000,
                  rng: RNG = None) -> Summary:
        """(mean, sd, lo, hi) of :meth:`moment`; ``method`` as in :meth:`ci`."""
        lam = check_real(lam, "lam", low=0.0, low_open=True)
        confidence = check_confidence(confidence)
        if check_method(method) == "normal":
            return _normal_summary(*self.moment(lam), confidence)
        draws = self.sample(n_draws, rng=rng)
        return draws.summary(draws.moment(lam), confidence=confidence)


def tailpass_empirical(R: Any, k: Any, w: Any = None, *, thresholds: Any = None,
                       short: str = "error", per_question: bool = False) -> Any:
    r"""Finite-bank TailPass profile: k of the n observed attempts, without replacement.

    Formula:
        T(t) = (1/M) sum_q P(score(X_q) >= t), X_q multivariate hypergeometric
        (k draws from the question's n attempts grouped by reward level).
        Binary data at t = 1/k is Pass@k, at t = 1 Pass^k (the unbiased estimators).

    Args:
        R: (M, N) categories, ragged lists or CategoricalCounts.
        k: 1 <= k <= n, or a list of them.
        w: rubric scores in [0, 1]; None means binary R and (0, 1).
        thresholds: required average scores, strictly increasing in [0, 1];
            default 1/k, ..., 1.
        short: ``"error"`` or ``"skip"`` for questions with fewer than k attempts.
        per_question: return each question's profile instead, (M, thresholds), NaN rows
            for questions left out by ``short="skip"`` (their average is the profile).

    Returns:
        Read-only array over thresholds (or (M, thresholds)); a list of them for a list
        of k.

    Raises:
        ValueError: bad outcomes, w outside [0, 1], bad thresholds, k outside [1, n].

    Example:
        >>> import kpass
        >>> kpass.tailpass_empirical([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], 2).round(6).tolist()
        [0.95, 0.45]
        >>> [a.size for a in kpass.tailpass_empirical([[0, 1], [1, 1, 0]], [1, 2])]
        [1, 2]
    """
    counts, weights = prepare(R, w)
    ks, many = normalize_ks(k)
    short = check_short(short)
    per_question = check_flag(per_question, "per_question")
    grids = [check_thresholds(budget, thresholds) for budget in ks]
    check_rewards(weights)
    observed, levels = _group_levels(counts.counts, weights)
    n = observed.sum(axis=1)
    results = []
    for budget, grid in zip(ks, grids, strict=True):
        kept = keep_at_least(n, budget, short)
        rows = observed if kept is None else observed[kept]
        bank = count_grid(budget, levels.size)
        scores = bank_scores(bank, levels, budget)
        order = np.argsort(scores, kind="stable")
        cut = np.searchsorted(scores[order], grid)
        states, multiplicity, inverse = distinct_rows(rows)
        if budget == 1:
            # One attempt scores its own reward: the share of attempts reaching t, rounded
            # once, and the dataset value is their exact mean (the sample mean).
            reached = (levels[None, :] >= grid[:, None]).astype(np.int64)  # (T, L)
            values = (states @ reached.T) / states.sum(axis=1, keepdims=True)
        elif levels.size == 2:
            # Binary: one hypergeometric table for every state (banks ordered by successes).
            population = states.sum(axis=1)
            low, table = hypergeom_pmf(population, states[:, 1], budget)
            pmf = np.zeros((len(states), budget + 1))
            columns = low[:, None] + np.arange(table.shape[1])
            inside = columns <= budget
            pmf[np.nonzero(inside)[0], columns[inside]] = table[inside]
            values = upper_sums(pmf[:, order], cut)
        else:
            values = upper_sums(hypergeometric_pmf(bank, states)[:, order], cut)
        if per_question:
            each = np.full((n.size, grid.size), np.nan)
            each[slice(None) if kept is None else kept] = values[inverse]
            results.append(each)
        elif budget == 1:
            results.append(_frozen([exact_weighted_mean(multiplicity, column, len(rows))
                                    for column in values.T]))
        else:
            results.append(_frozen(multiplicity @ values / len(rows)))
    return finish(results, many)


__all__ = ["TailPassProfile", "tailpass", "tailpass_empirical"]
