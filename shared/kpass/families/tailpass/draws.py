r"""Shared posterior draws of a TailPass profile and the utilities evaluated on them.

One set of draws of every question's latent probabilities p_q serves every utility,
so differences between utilities (and their intervals) are computed on the same
draws. A utility maps the per-question profile P(B_q >= t | p_q) (or the dataset
profile) to one number per draw; :meth:`TailPassDraws.summary` turns draws into
(mean, sd, lo, hi). Draws describe the latent expected performance, not simulated
future banks.

References:
    Hariri, Hinczewski, Ayday & Chaudhary (2026), Success Has a Shape: TailPass@k
    (Section 3 and Appendix C: power means, rollouts, harmonic balance, shortfall).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt
from scipy.special import logsumexp

from ..._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_confidence,
    check_int,
    check_real,
)
from ..._core.dirichlet.posterior import multinomial_pmf, raw_power_mean
from ..._core.moments.driver import Posterior
from ..._core.tailpass.checks import (
    check_aggregation,
    check_convex_weights,
    real_array,
)

FloatArray = npt.NDArray[np.float64]
RNG = int | np.random.Generator | None
Summary = Posterior | tuple[FloatArray, FloatArray, FloatArray, FloatArray]

class ProfileSource(Protocol):
    """What the draws read of the :class:`~kpass.families.tailpass.metric.TailPassProfile`.

    The profile that made them.

    A protocol, so this module names the profile's shape without importing its module
    (which imports this one).
    """

    @property
    def k(self) -> int: ...

    @property
    def thresholds(self) -> FloatArray: ...

    @property
    def _levels(self) -> FloatArray: ...

    @property
    def question_count(self) -> int: ...

    @property
    def _grid(self) -> tuple[npt.NDArray[np.int64], FloatArray]: ...

    def _tails(self, pmf: FloatArray, *, exact_ends: bool = ...) -> FloatArray: ...

    def at_k(self, k: int, *, thresholds: Any = ...) -> ProfileSource: ...


#: Entries of one (draws x questions) x banks table evaluated at once.
CHUNK_ENTRIES = 1 << 20


# ----------------------------------------------------------------------------- validation


def draw_probabilities(parameters: FloatArray, n_draws: int, rng: Any) -> FloatArray:
    """Dirichlet draws of every question's level probabilities, (draws, M, L), read-only.

    One ``Generator.dirichlet`` call per question in order (none for a single level),
    so a seed gives the reference library's draws.
    """
    try:
        generator = np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"`rng` must be None, an int seed or a numpy Generator; got rng={_show(rng)}"
        ) from None
    values = np.empty((n_draws, *parameters.shape))
    for question, alpha in enumerate(parameters):
        values[:, question] = 1.0 if alpha.size == 1 else generator.dirichlet(alpha, n_draws)
    values.setflags(write=False)
    return values


def _default_weights(weights: Any, size: int) -> FloatArray:
    return np.full(size, 1.0 / size) if weights is None else check_convex_weights(weights, size)


# ----------------------------------------------------------------------------- draws


@dataclass(frozen=True, eq=False)
class TailPassDraws:
    """Shared posterior draws made by :meth:`TailPassProfile.sample`.

    Utilities return one value per draw; :meth:`summary` gives their Monte Carlo mean,
    sd and equal-tailed interval.

    Example:
        >>> import kpass
        >>> draws = kpass.tailpass([[0, 1, 1, 1], [0, 0, 0, 1]], k=2).sample(2000, rng=0)
        >>> draws.profile.shape
        (2000, 2)
        >>> mean, sd, lo, hi = draws.summary(draws.discovery() - draws.stability())
        >>> round(mean, 1), lo < mean < hi
        (0.4, True)
    """

    _source: ProfileSource = field(repr=False)
    _probabilities: FloatArray = field(repr=False)

    @property
    def _n_draws(self) -> int:
        return int(self._probabilities.shape[0])

    def _blocks(self) -> Iterator[tuple[int, int, FloatArray]]:
        """(first question, last question + 1, per-(draw, question) profiles) in blocks.

        The profiles are (draws * questions in the block, thresholds), draw-major.
        """
        source = self._source
        counts = source._grid[0]
        m = source.question_count
        step = max(1, CHUNK_ENTRIES // (self._n_draws * max(len(counts),
                                                             source.thresholds.size)))
        for start in range(0, m, step):
            stop = min(m, start + step)
            latent = self._probabilities[:, start:stop].reshape(-1, counts.shape[1])
            yield start, stop, source._tails(multinomial_pmf(counts, latent), exact_ends=False)

    def _per_question(self, transform: Callable[[FloatArray], FloatArray]) -> FloatArray:
        """(1/M) sum_q transform(profile of question q), per draw."""
        out = np.zeros(self._n_draws)
        for start, stop, tails in self._blocks():
            out += transform(tails).reshape(self._n_draws, stop - start).sum(axis=1)
        return out / self._source.question_count

    @cached_property
    def profile(self) -> FloatArray:
        """Draws of the dataset profile, (draws, thresholds), read-only."""
        out = np.zeros((self._n_draws, self._source.thresholds.size))
        for start, stop, tails in self._blocks():
            out += tails.reshape(self._n_draws, stop - start, -1).sum(axis=1)
        out /= self._source.question_count
        out.setflags(write=False)
        return out

    def _apply(self, transform: Callable[[FloatArray], FloatArray],
               aggregation: str = "question") -> FloatArray:
        if check_aggregation(aggregation) == "profile":
            return transform(self.profile)
        return self._per_question(transform)

    def linear(self, weights: Any) -> FloatArray:
        """Draws of sum_t weights_t T(t) (convex weights, one per threshold)."""
        return self.profile @ check_convex_weights(weights, self._source.thresholds.size)

    def moment(self, lam: float) -> FloatArray:
        """Draws of E[B^lam | p] averaged over questions (independent of the thresholds)."""
        lam = check_real(lam, "lam", low=0.0, low_open=True)
        source = self._source
        if lam in (1.0, 2.0, 4.0):
            flat = self._probabilities.reshape(-1, source._levels.size)
            values = raw_power_mean(flat, source._levels, source.k, int(lam))
            return values.reshape(self._n_draws, -1).sum(axis=1) / source.question_count
        counts, scores = source._grid
        payoff = scores**lam
        out = np.zeros(self._n_draws)
        m = source.question_count
        step = max(1, CHUNK_ENTRIES // (self._n_draws * len(counts)))
        for start in range(0, m, step):
            stop = min(m, start + step)
            latent = self._probabilities[:, start:stop].reshape(-1, counts.shape[1])
            values = multinomial_pmf(counts, latent) @ payoff
            out += values.reshape(self._n_draws, stop - start).sum(axis=1)
        return out / m

    def power_mean(self, q: float, weights: Any = None, *,
                   aggregation: Literal["question", "profile"] = "question") -> FloatArray:
        r"""Draws of the weighted power mean (sum_t weights_t T(t)^q)^(1/q).

        Args:
            q: exponent > 0 (not the moment exponent lam); q = 1 is :meth:`linear`.
            weights: convex weights over the thresholds; default uniform.
            aggregation: ``"question"`` (each question's profile, then averaged) or
                ``"profile"`` (of the dataset profile); they differ for q != 1.
        """
        q = check_real(q, "q", low=0.0, low_open=True)
        weights = _default_weights(weights, self._source.thresholds.size)
        return self._apply(lambda values: _power_mean(values, weights, q), aggregation)

    def qrs(self, weights: Any = None, *,
            aggregation: Literal["question", "profile"] = "question") -> FloatArray:
        """Quadratic (root mean square) spectrum: :meth:`power_mean` with q = 2."""
        return self.power_mean(2.0, weights, aggregation=aggregation)

    def rollout(self, m: int, weights: Any = None) -> FloatArray:
        """Draws of sum_t weights_t P(all m independent k-attempt rollouts reach t), per question.

        Args:
            m: number of rollouts, an int >= 2.
            weights: convex weights over the thresholds; default uniform.
        """
        m = check_int(m, "m")
        if m < 2:
            raise InputError(f"`m` must be an int >= 2; got m={m}")
        weights = _default_weights(weights, self._source.thresholds.size)
        return self._apply(lambda values: values**m @ weights)

    def harmonic(self, alpha: float = 0.5) -> FloatArray:
        r"""Draws of the per-question weighted harmonic mean of discovery and stability.

        Formula:
            H_q = 1 / (alpha / D_q + (1 - alpha) / S_q), D_q = 1 - P(reward 0)^k (discovery),
            S_q = P(reward 1)^k (stability); 0 where either is 0; averaged over questions.
            alpha = 1 is discovery, alpha = 0 stability. Independent of the thresholds.

        Args:
            alpha: weight of discovery, in [0, 1].
        """
        alpha = check_real(alpha, "alpha", low=0.0, high=1.0)
        source = self._source
        zero = np.clip(self._probabilities[..., source._levels == 0.0].sum(axis=-1), 0.0, 1.0)
        one = np.clip(self._probabilities[..., source._levels == 1.0].sum(axis=-1), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            discovery = -np.expm1(source.k * np.log(zero))
        stability = one**source.k
        if alpha == 1.0:
            values = discovery
        elif alpha == 0.0:
            values = stability
        else:
            values = np.zeros_like(discovery)
            both = (discovery > 0.0) & (stability > 0.0)
            with np.errstate(over="ignore"):
                values[both] = 1.0 / (alpha / discovery[both] + (1.0 - alpha) / stability[both])
        return values.sum(axis=1) / source.question_count

    def discovery(self) -> FloatArray:
        """Draws of the probability of positive bank credit (Pass@k for binary data)."""
        return self.harmonic(1.0)

    def stability(self) -> FloatArray:
        """Draws of the probability of full bank credit (Pass^k for binary data)."""
        return self.harmonic(0.0)

    def shortfall(self, target: Any, weights: Any = None, *, epsilon: float = 0.01
                  ) -> FloatArray:
        r"""Draws of the shortfall from a target profile (lower is better).

        Formula:
            per question, g_t = weights_t max(target_t - T_q(t), 0);
            value = max_t g_t + epsilon sum_t g_t; averaged over questions.

        Args:
            target: non-increasing target profile in [0, 1], one entry per threshold.
            weights: positive weights per threshold (need not sum to 1); default ones.
            epsilon: multiplier of the total shortfall, > 0.
        """
        size = self._source.thresholds.size
        goal = real_array(target, "target")
        if goal.shape != (size,) or np.any((goal < 0.0) | (goal > 1.0)) or np.any(
                np.diff(goal) > 0.0):
            raise InputError(f"`target` must be a non-increasing profile in [0, 1] with one "
                             f"entry per threshold ({size}); got target={_show(target)}")
        scale = np.ones(size) if weights is None else real_array(weights, "weights")
        if scale.shape != (size,) or np.any(scale <= 0.0):
            raise InputError(f"`weights` must be {size} positive numbers (one per threshold); "
                             f"got weights={_show(weights)}")
        epsilon = check_real(epsilon, "epsilon", low=0.0, low_open=True)

        def transform(values: FloatArray) -> FloatArray:
            gaps = np.maximum(goal - values, 0.0) * scale
            return gaps.max(axis=1) + epsilon * gaps.sum(axis=1)

        return self._apply(transform)

    def at_k(self, k: int, *, thresholds: Any = None) -> TailPassDraws:
        """The same latent draws at another reporting budget."""
        return TailPassDraws(self._source.at_k(k, thresholds=thresholds), self._probabilities)

    def summary(self, values: Any = None, *, confidence: float = 0.95) -> Summary:
        """Monte Carlo (mean, sd, cred_lo, cred_hi) along the draw axis, equal-tailed.

        Args:
            values: draws of a utility (or a difference of utilities from these draws),
                (draws,) or (draws, P); None: the profile draws.
            confidence: posterior mass of the interval, in (0, 1).

        Returns:
            A :class:`kpass.Posterior` for 1-D values, four arrays otherwise. Not clipped.
        """
        confidence = check_confidence(confidence)
        samples = self.profile if values is None else real_array(values, "values")
        if samples.ndim not in (1, 2) or samples.shape[0] != self._n_draws:
            raise InputError(f"`values` must have the {self._n_draws} draws on its first axis; "
                             f"got shape {samples.shape}")
        lo, hi = np.quantile(samples, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0],
                             axis=0)
        result = (samples.mean(axis=0), samples.std(axis=0, ddof=1), lo, hi)
        if samples.ndim == 1:
            return Posterior(*(float(value) for value in result))
        return result


def _power_mean(values: FloatArray, weights: FloatArray, q: float) -> FloatArray:
    """Row-wise (sum_t w_t v_t^q)^(1/q), scaled by the row maximum to stay finite.

    With v scaled to u = v / max(v) <= 1, log(sum_t w_t u_t^q) is taken through
    log1p(sum_t w_t expm1(q log u_t)) when that sum is small, which keeps the
    geometric-mean limit as q -> 0.
    """
    if q == 1.0:
        return values @ weights
    active = weights > 0.0
    chosen = values[:, active]
    scale = chosen.max(axis=1)
    scaled = np.divide(chosen, scale[:, None], out=np.zeros_like(chosen),
                       where=scale[:, None] > 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        logs = q * np.log(scaled)
        small_sum = np.expm1(logs) @ weights[active]
        log_mean = logsumexp(logs + np.log(weights[active]), axis=1)
        near = np.abs(small_sum) < 0.25
        log_mean[near] = np.log1p(small_sum[near])
        result = scale * np.exp(log_mean / q)
    return np.where(scale == 0.0, 0.0, result)


__all__ = ["TailPassDraws"]
