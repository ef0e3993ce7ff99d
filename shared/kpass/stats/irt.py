r"""Item response theory on pass counts: Rasch and 2PL fits by penalised maximum likelihood.

Model ``j`` answers question ``q`` correctly with probability

.. math::

    p_{jq} = \sigma(a_q \theta_j + d_q), \qquad \sigma(x) = 1 / (1 + e^{-x}),

(the slope-intercept form of the two-parameter logistic model; the difficulty is
:math:`b_q = -d_q / a_q`), and its ``n_{jq}`` samples of the question are ``c_{jq}``
correct out of ``n_{jq}``: a binomial count, so several samples per question enter as one
term :math:`c \log p + (n - c) \log(1 - p)`; ``n = 0`` (a question a model did not run)
contributes nothing. The Rasch model fixes :math:`a_q = 1`.

The fit maximises the log-likelihood plus weak Gaussian priors (a ridge), which keep
every parameter finite (a question every model solves, a model that solves everything)
and fix the scale and location the likelihood leaves free:
:math:`\theta_j \sim N(0, s_\theta^2)` (:data:`ABILITY_SD`, 1 in 2PL where it fixes
the scale; :data:`RASCH_ABILITY_SD` in Rasch), :math:`d_q \sim N(0, s_d^2)` and
:math:`a_q \sim N(1, s_a^2)`. The maximiser is found by alternating Newton steps (all
abilities, then every question's (d, a) pair by its 2 x 2 Newton step), vectorised numpy
over the K x Q table, from a start at the logits of smoothed rates.

References:
    Rasch (1960); Birnbaum (1968) in Lord and Novick, Statistical Theories of Mental Test
    Scores, ch. 17-20; Mislevy (1986), Bayesian modal estimation in item response models,
    Psychometrika 51(2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit, log_expit

from .._core.counting.checks import InputError

#: Prior sd of the abilities in 2PL (fixes the scale of theta).
ABILITY_SD = 1.0
#: Prior sd of the abilities in Rasch (weak: the slopes are 1, the scale is the logit's).
RASCH_ABILITY_SD = 3.0
#: Prior sd of the intercepts d_q.
INTERCEPT_SD = 3.0
#: Prior sd of the slopes a_q (prior mean 1).
SLOPE_SD = 1.0
#: Alternations between two evaluations of the log-posterior (the stopping rule).
CHECK_EVERY = 5
#: The models :func:`fit_irt` fits.
MODELS = ("rasch", "2pl")


@dataclass(frozen=True)
class IRTFit:
    """A fitted IRT model: one ability per model, an intercept and slope per question.

    Attributes:
        model: ``"rasch"`` or ``"2pl"``.
        ability: float array (K,), theta_j.
        intercept: float array (Q,), d_q.
        slope: float array (Q,), a_q (all 1 in Rasch).
        log_posterior: the penalised log-likelihood at the maximum.
        converged: whether the last alternation raised the log-posterior by less than the
            tolerance (relative).
    """

    model: str
    ability: np.ndarray
    intercept: np.ndarray
    slope: np.ndarray
    log_posterior: float
    converged: bool

    @property
    def difficulty(self) -> np.ndarray:
        """b_q = -d_q / a_q, the ability at which p = 1/2."""
        return -self.intercept / self.slope

    def probabilities(self, ability: Any = None) -> np.ndarray:
        """sigma(a_q theta + d_q), (K, Q), at the fitted abilities or at ``ability``."""
        theta = self.ability if ability is None else np.asarray(ability, dtype=float)
        return np.asarray(expit(np.multiply.outer(theta, self.slope) + self.intercept))


def _table(n_samples: Any, n_correct: Any) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(n_samples, dtype=float)
    c = np.asarray(n_correct, dtype=float)
    if n.ndim == 0:
        n = np.full(c.shape, float(n))
    if c.ndim != 2 or n.shape != c.shape:
        raise InputError(f"`n_samples` and `n_correct` must be (models, questions) tables of one "
                         f"shape; got shapes {n.shape} and {c.shape}")
    if not (np.all(np.isfinite(n)) and np.all(np.isfinite(c))):
        raise InputError("`n_samples` and `n_correct` must be finite counts")
    if np.any(n < 0) or np.any(c < 0) or np.any(c > n):
        raise InputError("the counts must satisfy 0 <= n_correct <= n_samples")
    if np.any(n.sum(axis=1) == 0):
        bad = int(np.flatnonzero(n.sum(axis=1) == 0)[0])
        raise InputError(f"every model needs at least one answered question; model {bad} has none")
    return n, c


def _negative(n: np.ndarray, c: np.ndarray, theta: np.ndarray, d: np.ndarray, a: np.ndarray,
              sd_theta: float) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Minus the log-posterior and its gradients in theta, d, a."""
    eta = np.multiply.outer(theta, a) + d
    value = float(np.sum(c * log_expit(eta) + (n - c) * log_expit(-eta)))
    residual = c - n * expit(eta)  # d loglik / d eta
    value -= 0.5 * (np.sum(theta ** 2) / sd_theta ** 2 + np.sum(d ** 2) / INTERCEPT_SD ** 2
                    + np.sum((a - 1.0) ** 2) / SLOPE_SD ** 2)
    g_theta = residual @ a - theta / sd_theta ** 2
    g_d = residual.sum(axis=0) - d / INTERCEPT_SD ** 2
    g_a = theta @ residual - (a - 1.0) / SLOPE_SD ** 2
    return -value, -g_theta, -g_d, -g_a


def fit_irt(n_samples: Any, n_correct: Any, *, model: str = "2pl", tolerance: float = 1e-7,
            max_iterations: int = 1000) -> IRTFit:
    """Fit a Rasch or 2PL model to K models' counts on Q questions (module docstring).

    Args:
        n_samples: (K, Q) samples per model and question (0: not run), or one number for all.
        n_correct: (K, Q) correct samples, 0 <= c <= n.
        model: ``"2pl"`` (the default) or ``"rasch"``.
        tolerance: stop when :data:`CHECK_EVERY` alternations raise the log-posterior by
            less than ``CHECK_EVERY * tolerance * (1 + |log-posterior|)``.
        max_iterations: the limit of alternations (abilities, then items).

    Returns:
        The :class:`IRTFit` at the penalised maximum.

    Raises:
        ValueError: tables of different shapes, counts outside 0 <= c <= n, a model with no
            answered question, an unknown ``model``.

    Example:
        >>> import numpy as np
        >>> c = np.array([[4, 3, 1, 0], [4, 4, 2, 1], [3, 1, 0, 0]])
        >>> fit = fit_irt(4, c, model="rasch")
        >>> [round(float(x), 2) for x in fit.ability]  # the middle model is the strongest
        [0.13, 1.59, -1.93]
        >>> bool(np.all(np.diff(fit.intercept) < 0))  # questions in order of difficulty
        True
    """
    if model not in MODELS:
        raise InputError(f"`model` must be one of {', '.join(map(repr, MODELS))}; got {model!r}")
    n, c = _table(n_samples, n_correct)
    K, Q = n.shape
    sd_theta = ABILITY_SD if model == "2pl" else RASCH_ABILITY_SD
    # Start: the logit of each model's smoothed rate, scaled; each question's smoothed rate.
    rate_model = (c.sum(axis=1) + 0.5) / (n.sum(axis=1) + 1.0)
    theta0 = np.log(rate_model / (1.0 - rate_model))
    theta0 = (theta0 - theta0.mean()) / (theta0.std() + 1e-9) * (1.0 if model == "2pl" else 1.5)
    rate_question = (c.sum(axis=0) + 0.5) / (n.sum(axis=0) + 1.0)
    d0 = np.log(rate_question / (1.0 - rate_question))
    a = np.ones(Q)
    theta, d = theta0, d0
    two = model == "2pl"
    converged = False
    eta = np.multiply.outer(theta, a) + d
    value = -_negative(n, c, theta, d, a, sd_theta)[0]
    for iteration in range(1, max_iterations + 1):
        # One Newton step per block; each block's problem is concave and separable.
        p = expit(eta)
        w = n * p * (1.0 - p)
        residual = c - n * p
        step_theta = np.clip(((residual @ a) - theta / sd_theta ** 2)
                             / ((w @ (a * a)) + 1.0 / sd_theta ** 2), -1.0, 1.0)
        theta = theta + step_theta
        p = expit(np.multiply.outer(theta, a) + d)
        w = n * p * (1.0 - p)
        residual = c - n * p
        g_d = residual.sum(axis=0) - d / INTERCEPT_SD ** 2
        h_dd = w.sum(axis=0) + 1.0 / INTERCEPT_SD ** 2
        if two:
            g_a = theta @ residual - (a - 1.0) / SLOPE_SD ** 2
            h_aa = (theta * theta) @ w + 1.0 / SLOPE_SD ** 2
            h_ad = theta @ w
            det = h_dd * h_aa - h_ad * h_ad
            step_d = np.clip((h_aa * g_d - h_ad * g_a) / det, -1.0, 1.0)
            step_a = np.clip((h_dd * g_a - h_ad * g_d) / det, -1.0, 1.0)
            a = a + step_a
        else:
            step_d = np.clip(g_d / h_dd, -1.0, 1.0)
            step_a = np.zeros(1)
        d = d + step_d
        eta = np.multiply.outer(theta, a) + d
        if iteration % CHECK_EVERY and iteration < max_iterations:
            continue  # the log-posterior costs two passes: checked every CHECK_EVERY steps
        before, value = value, -_negative(n, c, theta, d, a, sd_theta)[0]
        if value - before < CHECK_EVERY * tolerance * (1.0 + abs(value)):
            converged = True
            break
    return IRTFit(model=model, ability=theta, intercept=d, slope=a, log_posterior=value,
                  converged=converged)


def fit_ability(n_samples: Any, n_correct: Any, fit: IRTFit, *, mask: Any = None,
                iterations: int = 50) -> np.ndarray:
    """One new model's ability from its counts on some questions, the items held fixed.

    The posterior mode of theta under the fit's ability prior, by Newton's method (the
    log-posterior is concave in theta); vectorised over rows of ``mask``, so each row is a
    separate fit on the questions it marks (cross-fitting: row i leaves question i out).

    Args:
        n_samples: (Q,) samples of the new model on the fit's questions (0: not run).
        n_correct: (Q,) its correct samples.
        fit: the reference fit whose intercepts and slopes are used.
        mask: optional (F, Q) weights in {0, 1}; row f fits on the questions it marks.
        iterations: Newton steps (converges in a handful; the cap is a safety net).

    Returns:
        (F,) abilities (F = 1 without ``mask``).

    Example:
        >>> import numpy as np
        >>> fit = fit_irt(4, np.array([[4, 3, 1, 0], [4, 4, 2, 1], [3, 1, 0, 0]]), model="rasch")
        >>> theta = fit_ability(np.full(4, 4), np.array([4, 4, 2, 1]), fit)
        >>> bool(abs(theta[0] - fit.ability[1]) < 0.5)
        True
    """
    n = np.asarray(n_samples, dtype=float)
    c = np.asarray(n_correct, dtype=float)
    weights = np.ones((1, n.size)) if mask is None else np.asarray(mask, dtype=float)
    sd = ABILITY_SD if fit.model == "2pl" else RASCH_ABILITY_SD
    a, d = fit.slope, fit.intercept
    theta = np.zeros(weights.shape[0])
    wn, wc = weights * n, weights * c
    for _ in range(iterations):
        p = expit(np.multiply.outer(theta, a) + d)
        gradient = (wc - wn * p) @ a - theta / sd ** 2
        curvature = (wn * p * (1.0 - p)) @ (a * a) + 1.0 / sd ** 2
        step = np.clip(gradient / curvature, -2.0, 2.0)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return np.asarray(theta)
