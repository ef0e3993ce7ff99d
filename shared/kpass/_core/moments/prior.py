"""The Beta prior of each question's success rate: uniform (the default) or empirical Bayes.

Every binary posterior in kpass gives question q the posterior
Beta(alpha0 + c_q, beta0 + n_q - c_q). The published definition (Hariri et al. 2026) takes
the uniform prior alpha0 = beta0 = 1. ``prior="empirical"`` instead fits Beta(alpha0, beta0)
to the run's own questions by maximum likelihood (the beta-binomial marginal of the counts;
Robbins 1956, Efron and Morris 1975): questions then borrow strength from each other, which
matters when a few samples per question leave each posterior wide.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..counting.checks import ArgumentTypeError, InputError, _show, check_choice, check_prior
from ..counting.counts import BinaryCounts

#: The prior options.
PRIORS = ("uniform", "empirical")

#: Bounds of the fitted parameters, on the log scale: an all-correct or all-wrong run drives
#: one of them to a bound, which stays a proper prior.
LOG_BOUNDS = (-7.0, 9.0)


def fit_beta_prior(counts: BinaryCounts) -> tuple[float, float]:
    """Maximum-likelihood Beta(a, b) population of success rates (beta-binomial fit).

    Maximises sum_q log BetaBinom(c_q; n_q, a, b) over (log a, log b) in [-7, 9]^2 by
    L-BFGS-B, from the method-of-moments-like start (2 mean, 2 (1 - mean)). A degenerate
    fit (:func:`beta_prior_fit`'s reason) warns.

    Args:
        counts: the run's per-question (n, c).

    Returns:
        (a, b).
    """
    a, b, reason = beta_prior_fit(counts)
    if reason:
        import warnings

        warnings.warn(f'prior="empirical": the fitted Beta({a:.3g}, {b:.3g}) is degenerate '
                      f"({reason}); its credible intervals are near 0 wide and say little: "
                      "prefer the uniform prior here", UserWarning, stacklevel=3)
    return a, b


def beta_prior_fit(counts: BinaryCounts) -> tuple[float, float, str]:
    """The beta-binomial fit of :func:`fit_beta_prior`, silent, with why it is degenerate.

    Returns:
        (a, b, reason): ``reason`` is "" for a fit to trust, else why not (one question,
        every question with the same share correct, a parameter at the fit's bound).
    """
    from scipy.optimize import minimize
    from scipy.stats import betabinom

    keys, weight = np.unique(np.stack([counts.n_samples, counts.n_correct], axis=1), axis=0,
                             return_counts=True)
    n, c = keys[:, 0], keys[:, 1]

    def loss(theta: np.ndarray) -> float:
        a, b = np.exp(theta)
        return -float(weight @ betabinom.logpmf(c, n, a, b))

    mean = float(np.clip(counts.n_correct.sum() / counts.n_samples.sum(), 0.01, 0.99))
    fit = minimize(loss, np.log([2 * mean, 2 * (1 - mean)]), method="L-BFGS-B",
                   bounds=[LOG_BOUNDS] * 2)
    a, b = np.exp(fit.x)
    return float(a), float(b), _degenerate(counts, fit.x)


def _degenerate(counts: BinaryCounts, log_ab: np.ndarray) -> str:
    """Why a beta-binomial fit cannot be trusted, or "" (one question, no spread, a bound)."""
    if counts.n_questions < 2:
        return "one question"
    share = counts.n_correct / counts.n_samples
    if np.ptp(share) == 0.0:
        return "every question has the same share correct"
    if np.any(np.abs(np.asarray(log_ab)[:, None] - np.array(LOG_BOUNDS)[None, :]) < 1e-6):
        low, high = LOG_BOUNDS
        return f"a parameter reached the fit's bound exp({low:g}) or exp({high:g})"
    return ""


def check_prior_option(prior: Any) -> str | tuple[float, float]:
    """Validate ``prior``: ``"uniform"``, ``"empirical"`` or an ``(a, b)`` Beta pair.

    The one meaning of ``prior=`` wherever kpass takes it: the Beta prior of each question's
    success rate, uniform Beta(alpha0, beta0) (Beta(1, 1) by default), fitted to the
    questions, or Beta(a, b) given.
    """
    expected = '"uniform", "empirical" or an (a, b) pair of Beta parameters in [1e-300, 1e300]'
    if isinstance(prior, (tuple, list)) and len(prior) == 2:
        try:
            a, b = check_prior(*prior)
        except ValueError:
            raise InputError(f"`prior` must be {expected}; got prior={_show(prior)}") from None
        return a, b
    if not isinstance(prior, str):
        raise ArgumentTypeError(f"`prior` must be {expected}; got prior={_show(prior)}")
    if prior not in PRIORS:
        raise InputError(f"`prior` must be {expected}; got prior={_show(prior)}")
    return check_choice(prior, "prior", PRIORS)


def resolve_prior(prior: Any, counts: BinaryCounts, alpha0: Any = 1.0,
                  beta0: Any = 1.0) -> tuple[float, float]:
    """The (alpha0, beta0) a posterior uses: as given, or fitted with ``prior="empirical"``.

    Raises:
        ValueError: ``prior="empirical"`` together with an ``alpha0``/``beta0`` other than
            the default 1 (two priors at once), or a bad ``prior``.
    """
    option = check_prior_option(prior)
    if option == "uniform":
        return check_prior(alpha0, beta0)
    if (alpha0, beta0) != (1.0, 1.0):
        raise InputError(f"`prior={_show(prior)}` sets alpha0 and beta0; got "
                         f"alpha0={_show(alpha0)}, beta0={_show(beta0)} as well (give one)")
    return option if isinstance(option, tuple) else fit_beta_prior(counts)




def has_beta_prior(companion: Any) -> bool:
    """Whether a ``_ci`` function's posterior has a Beta prior (takes ``alpha0``)."""
    import inspect

    return "alpha0" in inspect.signature(companion).parameters


def posterior_options(companion: Any, counts: BinaryCounts, prior: str) -> dict[str, Any]:
    """Keyword arguments that give a ``_ci`` function ``prior`` (the CLI's ``--prior``).

    ``{}`` for the uniform prior and for a posterior without a Beta prior (vote@k's
    Dirichlet, TailPass); ``prior=`` where the function takes it; else the fitted
    ``alpha0``/``beta0`` (the dataset-level blends).
    """
    import inspect

    option = check_prior_option(prior)
    if option == "uniform":
        return {}
    accepted = inspect.signature(companion).parameters
    if "prior" in accepted and "alpha0" in accepted:
        return {"prior": option}
    if "alpha0" in accepted:
        alpha0, beta0 = option if isinstance(option, tuple) else fit_beta_prior(counts)
        return {"alpha0": alpha0, "beta0": beta0}
    return {}


def fit_check(counts: BinaryCounts, a: float, b: float) -> float | None:
    """Chi-square goodness-of-fit p-value of the counts against BetaBinomial(n, a, b).

    Per sample size n, cells c = 0..n with expected count E_c = M_n pmf(c); cells are
    pooled left to right until each expects at least 5; X^2 = sum (O - E)^2 / E over the
    pooled cells of every n, with (cells - groups - 2) degrees of freedom (two fitted
    parameters). None when fewer than one degree of freedom remains.
    """
    from scipy.special import chdtrc
    from scipy.stats import betabinom

    statistic, cells, groups = 0.0, 0, 0
    for n in np.unique(counts.n_samples):
        rows = counts.n_samples == n
        observed = np.bincount(counts.n_correct[rows], minlength=int(n) + 1).astype(float)
        expected = rows.sum() * betabinom.pmf(np.arange(int(n) + 1), int(n), a, b)
        pooled_o, pooled_e, run_o, run_e = [], [], 0.0, 0.0
        for o, e in zip(observed, expected, strict=True):
            run_o, run_e = run_o + o, run_e + e
            if run_e >= 5.0:
                pooled_o.append(run_o)
                pooled_e.append(run_e)
                run_o, run_e = 0.0, 0.0
        if pooled_e:
            pooled_o[-1] += run_o
            pooled_e[-1] += run_e
        else:
            continue
        statistic += sum((o - e) ** 2 / e for o, e in zip(pooled_o, pooled_e, strict=True))
        cells += len(pooled_e)
        groups += 1
    df = cells - groups - 2
    if df < 1:
        return None
    return float(chdtrc(df, statistic))


__all__ = ["PRIORS", "check_prior_option", "fit_beta_prior", "fit_check", "has_beta_prior",
           "posterior_options", "resolve_prior"]
