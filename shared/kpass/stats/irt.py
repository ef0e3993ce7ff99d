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
:math:`a_q \sim N(1, s_a^2)`. The maximiser is found by Newton's method on all the
parameters jointly (the K x K Schur complement of the abilities; every question's (d, a)
step in closed form; :func:`fit_irt`), vectorised numpy over the K x Q table, from a start
at the logits of smoothed rates: 5-10 steps on 100 models x 10,000 questions.

References:
    Rasch (1960); Birnbaum (1968) in Lord and Novick, Statistical Theories of Mental Test
    Scores, ch. 17-20; Mislevy (1986), Bayesian modal estimation in item response models,
    Psychometrika 51(2); Nocedal and Wright (2006), Numerical Optimization, 2nd ed., ch. 3
    (Newton's method with a backtracking line search).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from .._core.counting.checks import InputError

#: Prior sd of the abilities in 2PL (fixes the scale of theta).
ABILITY_SD = 1.0
#: Prior sd of the abilities in Rasch (weak: the slopes are 1, the scale is the logit's).
RASCH_ABILITY_SD = 3.0
#: Prior sd of the intercepts d_q.
INTERCEPT_SD = 3.0
#: Prior sd of the slopes a_q (prior mean 1).
SLOPE_SD = 1.0
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
        converged: whether the last Newton step's predicted rise of the log-posterior was
            below the tolerance (relative).
        iterations: the Newton steps taken.
    """

    model: str
    ability: np.ndarray
    intercept: np.ndarray
    slope: np.ndarray
    log_posterior: float
    converged: bool
    iterations: int

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


def _log_likelihood(n: np.ndarray, c: np.ndarray, theta: np.ndarray, d: np.ndarray,
                    a: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    r"""The binomial log-likelihood at (theta, d, a) and the tables the Newton step reuses.

    With :math:`\eta = a \theta + d`, :math:`e = e^{-|\eta|}` and :math:`s = 1 + e`:
    :math:`\log(1 + e^{\eta}) = \max(\eta, 0) + \log s`, so the log-likelihood is
    :math:`\sum c \eta - n \log(1 + e^{\eta})` from one ``exp`` and one ``log``
    (no overflow at any eta). Returns (log-likelihood, eta, e, s), each table (K, Q).
    """
    eta = np.multiply.outer(theta, a)
    eta += d
    e = np.abs(eta)
    np.negative(e, out=e)
    np.exp(e, out=e)
    s = e + 1.0
    softplus = np.log(s)
    softplus += np.maximum(eta, 0.0)
    return float(np.einsum("kq,kq->", c, eta) - np.einsum("kq,kq->", n, softplus)), eta, e, s


def _gram(Z: np.ndarray) -> np.ndarray:
    """Z Z^T (K x K) of a (K, m) table, summed over blocks of columns.

    Each block's product has at most ~2^18 multiply-adds, under the size at which OpenBLAS
    starts its threads: on a busy machine their spinning costs many times the CPU time of
    the product (measured 150-300 ms against 15 ms for K = 100, m = 20,000 on 2 loaded
    cores); one thread does it in O(K^2 m).
    """
    K, m = Z.shape
    width = max(16, 2 ** 18 // max(K * K, 1))
    S = np.zeros((K, K))
    for start in range(0, m, width):
        block = Z[:, start:start + width]
        S += block @ block.T
    return S


def _log_prior(theta: np.ndarray, d: np.ndarray, a: np.ndarray, sd_theta: float) -> float:
    """The Gaussian priors' log-density (without constants)."""
    slack = a - 1.0
    return -0.5 * float(theta @ theta / sd_theta ** 2 + d @ d / INTERCEPT_SD ** 2
                        + slack @ slack / SLOPE_SD ** 2)


def fit_irt(n_samples: Any, n_correct: Any, *, model: str = "2pl", tolerance: float = 1e-10,
            max_iterations: int = 200) -> IRTFit:
    r"""Fit a Rasch or 2PL model to K models' counts on Q questions (module docstring).

    The maximiser is Newton's method on all K + 2Q parameters at once with a backtracking
    line search. The negative Hessian :math:`H` has a diagonal ability block :math:`A`,
    a 2 x 2 block :math:`D_q` per question (1 x 1 in Rasch) and a dense K x 2Q coupling
    :math:`B` (:math:`B_{j,d_q} = w_{jq} a_q`, :math:`B_{j,a_q} = w_{jq} a_q \theta_j -
    r_{jq}` with :math:`w = n p (1 - p)`, :math:`r = c - n p`), so the step solves the
    K x K Schur complement :math:`S = A - B D^{-1} B^\top` (formed from the Cholesky
    factors of the :math:`D_q`, O(K^2 Q)) and recovers every question's step in closed
    form. The 2PL's log-posterior is not concave everywhere; where :math:`S` is not
    positive definite the step is Fisher scoring's (the expected Hessian, the :math:`r`
    term dropped), an ascent direction. Rasch's is concave: plain Newton. The 2PL's
    penalised likelihood can have several local maxima on small tables (a handful of
    models); the fit climbs to the one above its start (the logits of smoothed rates).

    Args:
        n_samples: (K, Q) samples per model and question (0: not run), or one number for all.
        n_correct: (K, Q) correct samples, 0 <= c <= n.
        model: ``"2pl"`` (the default) or ``"rasch"``.
        tolerance: stop when a Newton step's predicted rise of the log-posterior
            (:math:`g^\top \delta / 2`) is below ``tolerance * (1 + |log-posterior|)``
            (that last step is taken: near the maximum Newton's error squares each step).
        max_iterations: the limit of Newton steps (a handful are needed: 5-10 on
            100 models x 10,000 questions).

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
    from scipy.linalg import LinAlgError, cho_factor, cho_solve  # not at `import kpass`

    if model not in MODELS:
        raise InputError(f"`model` must be one of {', '.join(map(repr, MODELS))}; got {model!r}")
    n, c = _table(n_samples, n_correct)
    n, c = np.ascontiguousarray(n), np.ascontiguousarray(c)
    K, Q = n.shape
    two = model == "2pl"
    sd_theta = ABILITY_SD if two else RASCH_ABILITY_SD
    p_theta, p_d, p_a = 1.0 / sd_theta ** 2, 1.0 / INTERCEPT_SD ** 2, 1.0 / SLOPE_SD ** 2
    # Start: the logit of each model's smoothed rate, scaled; each question's smoothed rate.
    rate_model = (c.sum(axis=1) + 0.5) / (n.sum(axis=1) + 1.0)
    theta = np.log(rate_model / (1.0 - rate_model))
    theta = (theta - theta.mean()) / (theta.std() + 1e-9) * (1.0 if two else 1.5)
    rate_question = (c.sum(axis=0) + 0.5) / (n.sum(axis=0) + 1.0)
    d = np.log(rate_question / (1.0 - rate_question))
    a = np.ones(Q)
    log_likelihood, eta, e, s = _log_likelihood(n, c, theta, d, a)
    value = log_likelihood + _log_prior(theta, d, a, sd_theta)
    converged = False
    iteration = 0
    diagonal = np.diag_indices(K)
    while iteration < max_iterations and not converged:
        iteration += 1
        # p = sigma(eta) and w = n p (1 - p) = n e / s^2 from the tables of the evaluation.
        # Products with a vector are einsum's (one pass, one thread): a threaded BLAS
        # matrix-vector product costs several times the CPU on a busy machine.
        w = np.reciprocal(s)
        p = np.where(eta >= 0.0, w, e * w)
        w *= w
        w *= e
        w *= n
        residual = n * p
        np.subtract(c, residual, out=residual)
        del p
        g_theta = np.einsum("kq,q->k", residual, a) - p_theta * theta
        g_d = residual.sum(axis=0) - p_d * d
        L00 = np.sqrt(w.sum(axis=0) + p_d)  # D_q = L L^T, L = [[L00, 0], [L10, L11]]
        u0 = g_d / L00
        h_theta = np.einsum("kq,q->k", w, a * a) + p_theta
        # Z = B L^{-T} (K x 2Q, or K x Q in Rasch): B D^{-1} B^T = Z Z^T.
        Z = np.empty((K, 2 * Q if two else Q))
        Z0 = Z[:, :Q]
        np.multiply(w, a / L00, out=Z0)
        if two:
            Z1 = Z[:, Q:]
            g_a = np.einsum("k,kq->q", theta, residual) - p_a * (a - 1.0)
            L10 = np.einsum("k,kq->q", theta, w) / L00
            L11 = np.sqrt(np.einsum("k,kq->q", theta * theta, w) + p_a - L10 * L10)
            u1 = (g_a - L10 * u0) / L11
            for exact in (True, False):
                np.multiply(w, a, out=Z1)
                Z1 *= theta[:, None]
                if exact:
                    Z1 -= residual
                Z1 -= Z0 * L10
                Z1 /= L11
                S = _gram(Z)
                np.negative(S, out=S)
                S[diagonal] += h_theta
                try:
                    factor = cho_factor(S)
                    break
                except LinAlgError:  # not positive definite here: Fisher scoring's step
                    continue
            step_theta = cho_solve(factor, g_theta - np.einsum("kq,q->k", Z0, u0)
                                   - np.einsum("kq,q->k", Z1, u1))
            step_a = (u1 - np.einsum("k,kq->q", step_theta, Z1)) / L11
            step_d = (u0 - np.einsum("k,kq->q", step_theta, Z0) - L10 * step_a) / L00
            slope_rise = float(g_a @ step_a)
        else:
            S = _gram(Z)
            np.negative(S, out=S)
            S[diagonal] += h_theta
            step_theta = cho_solve(cho_factor(S), g_theta - np.einsum("kq,q->k", Z0, u0))
            step_a = np.zeros(Q)
            step_d = (u0 - np.einsum("k,kq->q", step_theta, Z0)) / L00
            slope_rise = 0.0
        del w, residual, Z, Z0
        rise = float(g_theta @ step_theta + g_d @ step_d) + slope_rise  # > 0: ascent
        converged = 0.5 * rise < tolerance * (1.0 + abs(value))
        length = 1.0
        while True:  # backtracking (Armijo) line search
            trial = (theta + length * step_theta, d + length * step_d, a + length * step_a)
            log_likelihood, eta_t, e_t, s_t = _log_likelihood(n, c, *trial)
            trial_value = log_likelihood + _log_prior(*trial, sd_theta)
            # Converged: the step's predicted rise is below what the log-posterior's
            # rounding can show, and the full Newton step is taken as it is.
            if converged or trial_value >= value + 1e-4 * length * rise:
                theta, d, a = trial
                eta, e, s, value = eta_t, e_t, s_t, trial_value
                break
            length *= 0.5
            if length < 1e-10:  # no rise left in floating point: the maximum
                converged = converged or 0.5 * rise < 1e-8 * (1.0 + abs(value))
                break
        if length < 1e-10:
            break
    return IRTFit(model=model, ability=theta, intercept=d, slope=a, log_posterior=value,
                  converged=converged, iterations=iteration)


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
