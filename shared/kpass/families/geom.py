"""Geometric blends of Pass@k with Pass^k or a threshold spectrum: Geom@k and GeoSpectrum.

Geom@k blends each question's Pass@k and Unanimous@k (Pass^k) geometrically before
averaging; the dataset-level Geom@k blends the two dataset averages. GeoSpectrum
blends dataset Pass@k with a threshold spectrum S_w (by default the upper-half
mG weights, giving GeoSpectrum* = sqrt(Pass@k mG-Pass@k)).

Posterior summaries use the exact posterior moments and covariance of the two
blended quantities, propagated through g(x, y) = x^a y^b by the first-order delta
method (an approximation, as in the reference library); the blend, the delta method and
the checks of powers, coupling and weights are in :mod:`kpass._core.moments.geom_blend`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._core.counting.checks import InputError, check_real, normalize_ks
from .._core.counting.states import BinaryStates, states_for
from .._core.moments import driver as _driver
from .._core.moments.credits import (
    pass_credit,
    spectrum_credit,
    state_values,
    unanimous_credit,
)
from .._core.moments.geom_blend import (
    _blend,
    _check_powers,
    _check_weights,
    _dataset_delta,
    _delta,
    _joint,
    _spectrum_for,
    _weights_per_k,
)
from .ci_doc import ci_doc

FloatArray = npt.NDArray[np.float64]
WeightsLike = npt.ArrayLike | None


# ----------------------------------------------------------------------------- point estimators


def threshold_spectrum_at_k(R: Any, k: Any, weights: Any, *, short: str = "error",
                            per_question: bool = False) -> Any:
    r"""Finite-bank threshold spectrum S_{w,k}(R) = sum_r w_r T_{r,k}(R).

    Formula:
        T_{r,k} is G-Pass@k at threshold r; equivalently the credit of j correct in k
        is A_j = sum_{r <= j} w_r, and S_q = E[A_X], X ~ Hypergeometric(n_q, c_q, k).

    Args:
        R: binary outcomes (matrix, ragged lists, or BinaryCounts).
        k: 1 <= k <= n, or a sequence of k.
        weights: length-k non-negative finite weights with sum <= 1 (a list of such
            vectors, one per k, when k is a sequence).
        short: ``"error"`` or ``"skip"``.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad outcomes, k or weights.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> round(threshold_spectrum_at_k(R, 3, [0.0, 0.0, 1.0]), 6)
        0.25
    """
    ks, many = normalize_ks(k)
    weight_list = _weights_per_k(weights, ks, many)
    if any(w is None for w in weight_list):
        raise InputError("`weights` is required: a length-k sequence of non-negative weights")

    def spectrum(states: BinaryStates, budget: int, index: int) -> FloatArray:
        return state_values(states, spectrum_credit(_check_weights(weight_list[index], budget)))

    return _driver.point_values(R, k, spectrum, short=short, per_question=per_question)


def geom_at_k(R: Any, k: Any, pass_power: float = 0.5, unanimous_power: float = 0.5, *,
              short: str = "error", per_question: bool = False) -> Any:
    r"""Questionwise Geom@k: (1/M) sum_q Pass@k_q^a Unanimous@k_q^b.

    Formula:
        P_q = 1 - C(n_q - c_q, k)/C(n_q, k), U_q = C(c_q, k)/C(n_q, k), G_q = P_q^a U_q^b.

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        pass_power: exponent a of Pass@k.
        unanimous_power: exponent b of Unanimous@k.
        short: ``"error"`` or ``"skip"``.
        per_question: return per-question values.

    Returns:
        float (or array); a list for several k.

    Raises:
        ValueError: bad outcomes, k or powers.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geom_at_k(R, 2), 6)
        0.647106
    """
    a, b = _check_powers(pass_power, unanimous_power)

    def blended(states: BinaryStates, budget: int, _: int) -> FloatArray:
        return _blend(state_values(states, pass_credit(budget)),
                      state_values(states, unanimous_credit(budget)), a, b)

    return _driver.point_values(R, k, blended, short=short, per_question=per_question)


def geom_ds_at_k(R: Any, k: Any, pass_power: float = 0.5, unanimous_power: float = 0.5, *,
                 short: str = "error") -> Any:
    r"""Dataset-level Geom@k: Pass@k(R)^a Unanimous@k(R)^b (blend after averaging).

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        pass_power: exponent a.
        unanimous_power: exponent b.
        short: ``"error"`` or ``"skip"``.

    Returns:
        float; a list for several k.

    Raises:
        ValueError: bad outcomes, k or powers.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geom_ds_at_k(R, 2), 6)
        0.653835
    """
    a, b = _check_powers(pass_power, unanimous_power)

    def blended(states: BinaryStates, budget: int, _: int) -> float:
        p = states.mean(state_values(states, pass_credit(budget)))
        u = states.mean(state_values(states, unanimous_credit(budget)))
        return float(_blend(p, u, a, b))

    return _driver.over_k(R, k, short, blended)


def geo_spectrum_at_k(R: Any, k: Any, lam: float = 0.5, weights: WeightsLike = None, *,
                      short: str = "error") -> Any:
    r"""GeoSpectrum_{lambda,w}@k = Pass@k(R)^lambda S_{w,k}(R)^(1-lambda).

    With ``weights=None`` the upper-half mG weights are used (GeoSpectrum*@k =
    sqrt(Pass@k mG-Pass@k) at lambda = 0.5).

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        lam: coupling lambda in [0, 1].
        weights: spectrum weights (length k, non-negative, sum <= 1) or None.
        short: ``"error"`` or ``"skip"``.

    Returns:
        float; a list for several k.

    Raises:
        ValueError: bad outcomes, k, lam or weights.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(geo_spectrum_at_k(R, 3), 6)
        0.408248
        >>> round(geo_spectrum_at_k(R, 3, lam=1.0), 6)
        1.0
    """
    lam = check_real(lam, "lam", low=0.0, high=1.0)
    ks, many = normalize_ks(k)
    weight_list = _weights_per_k(weights, ks, many)

    def blended(states: BinaryStates, budget: int, index: int) -> float:
        p = states.mean(state_values(states, pass_credit(budget)))
        if lam == 1.0:
            return p
        s = states.mean(state_values(states, _spectrum_for(weight_list[index], budget)))
        return s if lam == 0.0 else float(_blend(p, s, lam, 1.0 - lam))

    return _driver.over_k(R, k, short, blended)


def geo_spectrum_star_at_k(R: Any, k: Any, *, short: str = "error") -> Any:
    """GeoSpectrum*@k = sqrt(Pass@k mG-Pass@k): :func:`geo_spectrum_at_k` with defaults.

    Args:
        R: binary outcomes.
        k: 1 <= k <= n, or a sequence of k.
        short: ``"error"`` or ``"skip"``.

    Returns:
        float; a list for several k.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> round(geo_spectrum_star_at_k(R, 3), 6)
        0.408248
    """
    return geo_spectrum_at_k(R, k, short=short)


# ----------------------------------------------------------------------------- posteriors



@ci_doc
def threshold_spectrum_at_k_ci(R: Any, k: Any, weights: Any, confidence: float = 0.95,
                               bounds: tuple[float, float] | None = (0.0, 1.0),
                               alpha0: float = 1.0, beta0: float = 1.0, *,
                               prior: Any = "uniform") -> Any:
    r"""Posterior summary of the latent spectrum S_{w,k}(p); k may exceed n.

    Formula:
        A_j = sum_{r <= j} w_r; g(p) = sum_j A_j C(k, j) p^j (1-p)^(k-j);
        mu = (1/M) sum_q E[g(p_q)], sigma = (1/M) sqrt(sum_q Var[g(p_q)]).

    Args:
        R: binary outcomes.
        k: latent budget k >= 1, or a sequence of k.
        weights: length-k weights (a list of vectors for several k).
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s

    Returns:
        %(returns)s

    Note:
        %(latent)s

    Raises:
        ValueError: bad outcomes, k, weights, confidence, bounds or prior.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> [round(x, 6) for x in threshold_spectrum_at_k_ci(R, 2, [0.0, 1.0])]
        [0.446429, 0.146167, 0.159946, 0.732911]
    """
    ks, many = normalize_ks(k)
    weight_list = _weights_per_k(weights, ks, many)
    if any(w is None for w in weight_list):
        raise InputError("`weights` is required: a length-k sequence of non-negative weights")
    credits = [spectrum_credit(_check_weights(w, b)) for w, b in zip(weight_list, ks, strict=True)]
    # credit_list (one per requested k, in order) is what the driver uses; the factory
    # only satisfies its signature.
    return _driver.posterior(R, k, dict(zip(ks, credits, strict=True)).__getitem__,
                             confidence=confidence, bounds=bounds, alpha0=alpha0,
                             beta0=beta0, latent=True, credit_list=credits, prior=prior)


@ci_doc
def geom_at_k_ci(R: Any, k: Any, pass_power: float = 0.5, unanimous_power: float = 0.5,
                 confidence: float = 0.95, bounds: tuple[float, float] | None = (0.0, 1.0),
                 alpha0: float = 1.0, beta0: float = 1.0, *, prior: Any = "uniform") -> Any:
    r"""Approximate posterior summary of questionwise Geom@k; k may exceed n.

    Formula:
        per question, mu_q = mu_P^a mu_U^b and Var_q by first-order delta propagation of
        the exact posterior variances and covariance of P = 1 - (1-p)^k and U = p^k;
        mu = (1/M) sum_q mu_q, sigma = (1/M) sqrt(sum_q Var_q).

    Args:
        R: binary outcomes.
        k: latent budget k >= 1, or a sequence of k.
        pass_power: exponent a.
        unanimous_power: exponent b.
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s

    Returns:
        %(returns)s

    Note:
        %(latent)s

    Raises:
        ValueError: bad outcomes, k, powers, confidence, bounds or prior.

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mean, sd, cred_lo, cred_hi = geom_at_k_ci(R, 2)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.610666, 0.133107, 0.3498, 0.8716)
    """
    a, b = _check_powers(pass_power, unanimous_power)
    counts, confidence, bounds, alpha0, beta0 = _driver.prepare_posterior(
        R, confidence, bounds, alpha0, beta0, prior)
    ks, many = normalize_ks(k)
    states = states_for(counts, None, "error")
    results = []
    for budget in ks:
        left_m, right_m, cov = _joint(states, alpha0, beta0, pass_credit(budget),
                                      unanimous_credit(budget))
        means, variances = _delta(left_m.mean, left_m.variance, right_m.mean, right_m.variance,
                                  cov, a, b)
        results.append(_driver.summary(states.mean(means), states.sum_of_variances(variances),
                                 confidence, bounds))
    return _driver.finish(results, many)



@ci_doc
def geom_ds_at_k_ci(R: Any, k: Any, pass_power: float = 0.5, unanimous_power: float = 0.5,
                    confidence: float = 0.95, bounds: tuple[float, float] | None = (0.0, 1.0),
                    alpha0: float = 1.0, beta0: float = 1.0, *, prior: Any = "uniform") -> Any:
    r"""Approximate posterior summary of dataset-level Geom@k; k may exceed n.

    Formula:
        mu = mu_P^a mu_U^b with mu_P, mu_U the posterior means of dataset Pass@k and
        Unanimous@k; sigma by delta propagation of their exact variances and covariance.

    Args:
        R: binary outcomes.
        k: latent budget k >= 1, or a sequence of k.
        pass_power: exponent a.
        unanimous_power: exponent b.
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s

    Returns:
        %(returns)s

    Note:
        %(latent)s

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> mean, sd, cred_lo, cred_hi = geom_ds_at_k_ci(R, 2)
        >>> round(mean, 6), round(sd, 6), round(cred_lo, 4), round(cred_hi, 4)
        (0.612112, 0.132755, 0.3519, 0.8723)
    """
    a, b = _check_powers(pass_power, unanimous_power)
    counts, confidence, bounds, alpha0, beta0 = _driver.prepare_posterior(
        R, confidence, bounds, alpha0, beta0, prior)
    ks, many = normalize_ks(k)
    states = states_for(counts, None, "error")
    results = [
        _driver.summary(*_dataset_delta(states, alpha0, beta0, pass_credit(budget),
                                  unanimous_credit(budget), a, b), confidence, bounds)
        for budget in ks
    ]
    return _driver.finish(results, many)


@ci_doc
def geo_spectrum_at_k_ci(R: Any, k: Any, lam: float = 0.5, weights: WeightsLike = None, *,
                         confidence: float = 0.95,
                         bounds: tuple[float, float] | None = (0.0, 1.0), alpha0: float = 1.0,
                         beta0: float = 1.0, prior: Any = "uniform") -> Any:
    r"""Approximate posterior summary of latent GeoSpectrum_{lambda,w}@k; k may exceed n.

    Formula:
        mu = x^lambda y^(1-lambda) at the posterior means of latent Pass@k (x) and the
        spectrum S_{w,k} (y); sigma by delta propagation of their exact variances and
        covariance. lambda = 1 is Pass@k's posterior, lambda = 0 the spectrum's.

    Args:
        R: binary outcomes.
        k: latent budget k >= 1, or a sequence of k.
        lam: coupling lambda in [0, 1].
        weights: spectrum weights or None (upper-half mG weights).
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s

    Returns:
        %(returns)s

    Note:
        %(latent)s

    Example:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
        >>> round(geo_spectrum_at_k_ci(R, 3, lam=1.0)[0], 6)
        0.916667
    """
    lam = check_real(lam, "lam", low=0.0, high=1.0)
    ks, many = normalize_ks(k)
    weight_list = _weights_per_k(None if lam == 1.0 else weights, ks, many)
    if lam in (0.0, 1.0):  # one quantity: its exact posterior, no delta method
        credits = [pass_credit(budget) if lam == 1.0 else _spectrum_for(w, budget)
                   for budget, w in zip(ks, weight_list, strict=True)]
        return _driver.posterior(R, k, dict(zip(ks, credits, strict=True)).__getitem__,
                                 confidence=confidence, bounds=bounds, alpha0=alpha0,
                                 beta0=beta0, latent=True, credit_list=credits, prior=prior)
    counts, confidence, bounds, alpha0, beta0 = _driver.prepare_posterior(
        R, confidence, bounds, alpha0, beta0, prior)
    states = states_for(counts, None, "error")
    results = [
        _driver.summary(*_dataset_delta(states, alpha0, beta0, pass_credit(budget),
                                        _spectrum_for(w, budget), lam, 1.0 - lam),
                        confidence, bounds)
        for budget, w in zip(ks, weight_list, strict=True)
    ]
    return _driver.finish(results, many)


@ci_doc
def geo_spectrum_star_at_k_ci(R: Any, k: Any, confidence: float = 0.95,
                              bounds: tuple[float, float] | None = (0.0, 1.0),
                              alpha0: float = 1.0, beta0: float = 1.0, *,
                              prior: Any = "uniform") -> Any:
    """Posterior summary of GeoSpectrum*@k (:func:`geo_spectrum_at_k_ci` with defaults).

    Args:
        R: binary outcomes.
        k: latent budget k >= 1, or a sequence of k.
        confidence: %(confidence)s
        bounds: %(bounds)s
        alpha0: %(alpha0)s
        beta0: %(beta0)s
        prior: %(prior)s

    Returns:
        %(returns)s

    Note:
        %(latent)s
    """
    return geo_spectrum_at_k_ci(R, k, confidence=confidence, bounds=bounds, alpha0=alpha0,
                                beta0=beta0, prior=prior)


__all__ = ["geo_spectrum_at_k", "geo_spectrum_at_k_ci", "geo_spectrum_star_at_k",
           "geo_spectrum_star_at_k_ci", "geom_at_k", "geom_at_k_ci", "geom_ds_at_k",
           "geom_ds_at_k_ci", "threshold_spectrum_at_k", "threshold_spectrum_at_k_ci"]
