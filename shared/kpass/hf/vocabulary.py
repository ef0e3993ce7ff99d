"""What the `evaluate` metric modules report: the results of each module, and its vocabulary.

Pure numpy: this is the part of the metric modules that does not need
`evaluate`, so it can be tested (and reused by the Space app) without it.
``kpass.hf.evaluate_module`` wraps it in an ``evaluate.Metric``.

Every module of the family accepts the same keywords (:data:`KEYWORDS`), so
``evaluate.combine([...]).compute(predictions=R, k=[1, 4])`` can send one set of
keywords to all of them; a module ignores the family keywords it has no use for
(``tau`` means nothing to Pass@k) and rejects any other name (a typo). That vocabulary,
its checks and the result-key names live in :mod:`kpass.hf.keywords`.

Each module turns per-question state (``BinaryCounts``, ``CategoricalCounts``, or
answer lists for the vote module) into a flat dict of Python floats: for every
metric and k, ``<metric>@{k}`` (the finite-sample point estimate) plus
``_se`` (its standard error over questions) and ``_mean``, ``_sd``, ``_cred_lo``,
``_cred_hi`` (the Bayesian posterior mean, standard deviation and credible interval,
the fields of :class:`kpass.Posterior`). The numbers come straight from the core
functions; nothing here re-implements a formula.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import registry
from .._core.counting.checks import InputError, check_tau, normalize_ks
from .._core.moments.credits import mg_spectrum_weights
from ..registry import number_label
from ..stats.comparison import compare
from ..stats.errors import standard_errors_by_k
from .keywords import (
    COMPARED,
    SUFFIXES,
    _check_positive,
    _floats,
    _unit,
    safe_key,
)


def _kpass() -> Any:
    """The family functions by attribute (``_kpass().pass_at_k``), from the registry."""
    from ..families import namespace

    return namespace


# ----------------------------------------------------------------------------- results


def _put(results: dict[str, Any], key: str, point: Any, interval: Sequence[Any],
         se: float | None = None) -> None:
    results[key] = float(point)
    if se is not None:
        results[key + "_se"] = float(se)
    for suffix, value in zip(SUFFIXES, interval, strict=True):
        results[key + suffix] = float(value)


def _per_question(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=float).ravel()]


@dataclass(frozen=True)
class _Series:
    """One reported metric over every requested k: its key and its two core functions."""

    key: str  # a format string with {k}
    point: Callable[..., Any]
    interval: Callable[..., Any]
    args: tuple[Any, ...] = ()
    point_kw: Mapping[str, Any] | None = None
    interval_kw: Mapping[str, Any] | None = None


def _pick(options: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {name: options[name] for name in names if name in options}


def _accepts(function: Callable[..., Any], name: str) -> bool:
    return name in inspect.signature(function).parameters


def _keep_accepted(function: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    # Dataset-level estimators take no per_question, and posteriors whose latent target
    # is defined for every k take no short-question policy: pass what each one takes.
    return {name: value for name, value in options.items() if _accepts(function, name)}


def _run_series(results: dict[str, Any], state: Any, ks: list[int], series: _Series,
                options: Mapping[str, Any], interval_names: tuple[str, ...]) -> None:
    short = _pick(options, "short")
    point_kw = {**_keep_accepted(series.point, short), **(series.point_kw or {})}
    interval_kw = {**_pick(options, *interval_names), **_keep_accepted(series.interval, short),
                   **(series.interval_kw or {})}
    points = series.point(state, ks, *series.args, **point_kw)
    intervals = series.interval(state, ks, *series.args, **interval_kw)
    ses = standard_errors_by_k(series.point, state, ks, *series.args, **point_kw)
    per_question = options.get("per_question", False) and _accepts(series.point, "per_question")
    per_k = (series.point(state, ks, *series.args, per_question=True, **point_kw)
             if per_question else [None] * len(ks))
    for budget, value, interval, se, each in zip(ks, points, intervals, ses, per_k, strict=True):
        key = series.key.format(k=budget)
        _put(results, key, value, interval, se)
        if each is not None:
            results[key + "_per_question"] = _per_question(each)


def _run_per_k(results: dict[str, Any], state: Any, ks: list[int], series_for_k: Callable[
        [int], list[_Series]], options: Mapping[str, Any], interval_names: tuple[str, ...]) -> None:
    """Like :func:`_run_series`, for series whose arguments depend on k (spectrum weights)."""
    for budget in ks:
        for series in series_for_k(budget):
            _run_series(results, state, [budget], series, options, interval_names)


_BINARY_INTERVAL = ("confidence", "bounds", "alpha0", "beta0")
_CATEGORICAL_INTERVAL = ("confidence", "bounds")


def _ks(options: Mapping[str, Any]) -> list[int]:
    return normalize_ks(options.get("k", 1))[0]


def pass_at_k_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Pass@k and Pass^k: keys ``pass@{k}`` and ``pass^{k}`` with the four suffixes."""
    kp = _kpass()
    results: dict[str, Any] = {}
    ks = _ks(options)
    for series in (_Series("pass@{k}", kp.pass_at_k, kp.pass_at_k_ci),
                   _Series("pass^{k}", kp.pass_hat_k, kp.pass_hat_k_ci)):
        _run_series(results, state, ks, series, options, _BINARY_INTERVAL)
    return results


def g_pass_at_k_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """G-Pass@k, G-Pass@k_tau for each tau, mG-Pass@k."""
    kp = _kpass()
    results: dict[str, Any] = {}
    ks = _ks(options)
    series = [_Series("g-pass@{k}", kp.g_pass_at_k, kp.g_pass_at_k_ci)]
    if "tau" in options:
        for tau in _floats(options["tau"], "tau", lambda x, n: check_tau(x))[0]:
            series.append(_Series("g-pass@{k}_tau" + number_label(tau), kp.g_pass_at_k_tau,
                                  kp.g_pass_at_k_tau_ci, args=(tau,)))
    series.append(_Series("mg-pass@{k}", kp.mg_pass_at_k, kp.mg_pass_at_k_ci))
    for item in series:
        _run_series(results, state, ks, item, options, _BINARY_INTERVAL)
    return results


def maj_at_k_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Maj@k, a strict majority of k samples correct (the seeds' cons@k): key ``maj@{k}``.

    Not lighteval's maj@k, a plurality vote over answers: that is ``vote@{k}``
    (:func:`vote_at_k_bayes`).
    """
    kp = _kpass()
    results: dict[str, Any] = {}
    _run_series(results, state, _ks(options), _Series("maj@{k}", kp.maj_at_k, kp.maj_at_k_ci),
                options, _BINARY_INTERVAL)
    return results


def auc_at_k_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """AUC@K (area under Pass@1..Pass@K): key ``auc@{k}``."""
    kp = _kpass()
    results: dict[str, Any] = {}
    _run_series(results, state, _ks(options), _Series("auc@{k}", kp.auc_at_k, kp.auc_at_k_ci),
                options, _BINARY_INTERVAL)
    return results


def _weights_for(options: Mapping[str, Any], budget: int) -> Any:
    weights = options.get("weights")
    if isinstance(weights, Mapping):
        return weights.get(budget)
    return weights


def geo_spectrum_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Geom@k, dataset-level Geom@k, GeoSpectrum, GeoSpectrum* and the threshold spectrum."""
    kp = _kpass()
    results: dict[str, Any] = {}
    ks = _ks(options)
    powers = _pick(options, "pass_power", "unanimous_power")
    for key, point, interval in (("geom@{k}", kp.geom_at_k, kp.geom_at_k_ci),
                                 ("geom_ds@{k}", kp.geom_ds_at_k, kp.geom_ds_at_k_ci)):
        _run_series(results, state, ks, _Series(key, point, interval, point_kw=powers,
                                                interval_kw=powers), options, _BINARY_INTERVAL)
    lams, _ = _floats(options["lam"], "lam", _unit) if "lam" in options else ([None], False)

    def spectrum(budget: int) -> list[_Series]:
        weights = {"weights": _weights_for(options, budget)}
        found = []
        for lam in lams:
            key = "geo_spectrum@{k}" if lam is None else "geo_spectrum@{k}_lam" + number_label(lam)
            kw = weights if lam is None else {**weights, "lam": lam}
            found.append(_Series(key, kp.geo_spectrum_at_k, kp.geo_spectrum_at_k_ci,
                                 point_kw=kw, interval_kw=kw))
        found.append(_Series("geo_spectrum_star@{k}", kp.geo_spectrum_star_at_k,
                             kp.geo_spectrum_star_at_k_ci))
        # Same weights as GeoSpectrum; by default the upper-half mG weights (= mG-Pass@k).
        chosen = weights["weights"]
        if chosen is None:
            chosen = mg_spectrum_weights(budget).tolist()
        found.append(_Series("threshold_spectrum@{k}", kp.threshold_spectrum_at_k,
                             kp.threshold_spectrum_at_k_ci, args=(chosen,)))
        return found

    _run_per_k(results, state, ks, spectrum, options, _BINARY_INTERVAL)
    return results


def max_at_k_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Max@k with categorical rewards ``w``: key ``max@{k}``."""
    kp = _kpass()
    results: dict[str, Any] = {}
    w = _pick(options, "w")
    _run_series(results, state, _ks(options),
                _Series("max@{k}", kp.max_at_k, kp.max_at_k_ci, point_kw=w, interval_kw=w),
                options, _CATEGORICAL_INTERVAL)
    return results


def _clt_ses(per_question: Any) -> list[float | None]:
    """SE over questions of each column of per-question values (None below 2 questions)."""
    from ..stats._common import _clt_se

    values = np.asarray(per_question, dtype=float)
    used = values[~np.isnan(values).any(axis=1)]
    if used.shape[0] < 2:
        return [None] * values.shape[1]
    return [_clt_se(column, None) for column in used.T]


def tailpass_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """TailPass: the profile's two ends and the thresholds asked for, and moment utilities.

    Keys per k: ``tailpass_discovery@{k}`` (some attempt earns credit; Pass@k for binary
    data) and ``tailpass_stability@{k}`` (all k earn full credit; Pass^k), whose point
    estimates are Pass@k / Pass^k of the positive- and full-credit counts;
    ``tailpass@{k}_t{t}`` for each threshold (default 0.5), point estimate
    :func:`kpass.tailpass_empirical`; ``tailpass_moment@{k}_p{p}`` for each
    ``moment_power``, whose point is its posterior mean. Posterior: :func:`kpass.tailpass`
    (Dirichlet(concentration + counts + eta R0 counts)), exact moments, interval mu -/+ z sigma
    clipped into [0, 1]; with ``short="skip"`` it covers, at each k, the questions with
    n >= k that the estimate uses.
    """
    from .._core.counting.counts import BinaryCounts, CategoricalCounts
    from .._core.dirichlet.rewards import prepare
    from .._core.moments.driver import Posterior, credible

    kp = _kpass()
    ks = _ks(options)
    w = options.get("w")
    thresholds = options.get("thresholds", [0.5])
    confidence = options.get("confidence", 0.95)
    short = options.get("short", "error")
    per_question = options.get("per_question", False)
    powers = _floats(options["moment_power"], "moment_power", _check_positive)[0] \
        if "moment_power" in options else []
    counts, weights = prepare(state, w)
    n = counts.counts.sum(axis=1)

    def posterior(budget: int) -> Any:
        # With short="skip" the posterior covers the questions the estimate uses (n >= k),
        # as every other family's does, so estimate and interval describe one set.
        kept = n >= budget
        source = state if short != "skip" or kept.all() else CategoricalCounts(
            counts.counts[kept], counts.prior_counts[kept])
        return kp.tailpass(source, budget, w, eta=options.get("eta", 1.0),
                           prior=options.get("concentration", 1.0), thresholds=thresholds)

    profiles = [posterior(budget) for budget in ks]
    ends = {"tailpass_discovery@{k}": (kp.pass_at_k, "discovery", weights > 0.0),
            "tailpass_stability@{k}": (kp.pass_hat_k, "stability", weights == 1.0)}
    empirical = kp.tailpass_empirical(state, ks, w, thresholds=thresholds, short=short,
                                      per_question=True)
    labels = [number_label(t) for t in thresholds]
    results: dict[str, Any] = {}

    def interval(mu: float, sigma: float) -> Posterior:
        return credible(mu, sigma, confidence, (0.0, 1.0))

    for index, (budget, profile) in enumerate(zip(ks, profiles, strict=True)):
        for template, (point, utility, hit) in ends.items():
            binary = BinaryCounts(n, counts.counts[:, hit].sum(axis=1))
            key = template.format(k=budget)
            _put(results, key, point(binary, budget, short=short),
                 interval(*getattr(profile, utility)()),
                 standard_errors_by_k(point, binary, [budget], short=short)[0])
            if per_question:
                results[key + "_per_question"] = _per_question(
                    point(binary, budget, short=short, per_question=True))
        each = empirical[index]
        points = np.nanmean(each, axis=0)
        for column, (label, se) in enumerate(zip(labels, _clt_ses(each), strict=True)):
            key = f"tailpass@{budget}_t{label}"
            _put(results, key, points[column],
                 interval(float(profile.mean[column]), float(profile.std[column])), se)
            if per_question:
                results[key + "_per_question"] = _per_question(each[:, column])
        for power in powers:
            mu, sigma = profile.moment(power)
            _put(results, f"tailpass_moment@{budget}_p{number_label(power)}", mu,
                 interval(mu, sigma))
    return results


def bayes_at_n(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Bayes@N with weights ``w`` and prior outcomes: key ``bayes@n``.

    The point estimate is the posterior mean (``bayes@n`` equals ``bayes@n_mean``).
    Per-question values are each question's own posterior mean.
    """
    kp = _kpass()
    kw = {**_pick(options, "w"), **_pick(options, *_CATEGORICAL_INTERVAL)}
    mu, sigma, lo, hi = kp.bayes_ci(state, **kw)
    w = _pick(options, "w")
    results: dict[str, Any] = {}
    _put(results, "bayes@n", mu, (mu, sigma, lo, hi),
         standard_errors_by_k(kp.bayes, state, None, **w)[0])
    if options.get("per_question", False):
        results["bayes@n_per_question"] = _per_question(kp.bayes(state, **w, per_question=True))
    return results


def avg_at_n_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """avg@N with its Bayesian sigma and interval: key ``avg@n``.

    The point estimate is the plain (weighted) average; ``avg@n_mean`` is the same
    number, the centre of the interval, as returned by ``kpass.avg_ci``.
    """
    kp = _kpass()
    kw = {**_pick(options, "w"), **_pick(options, *_CATEGORICAL_INTERVAL)}
    a, sigma, lo, hi = kp.avg_ci(state, **kw)
    results: dict[str, Any] = {}
    _put(results, "avg@n", a, (a, sigma, lo, hi),
         standard_errors_by_k(kp.avg, state, None, **_pick(options, "w"))[0])
    if options.get("per_question", False):
        results["avg@n_per_question"] = _per_question(
            kp.avg(state, **_pick(options, "w"), per_question=True))
    return results


def vote_at_k_bayes(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Vote@k over answer strings against one gold answer per question: key ``vote@{k}``."""
    from ..families import vote

    answers, references = state
    ks = _ks(options)
    common = _pick(options, "ties", "short")
    points = vote.vote_at_k(answers, references, ks, **common)
    intervals = vote.vote_at_k_ci(answers, references, ks, **common,
                                  **_pick(options, "confidence", "bounds", "concentration"))
    ses = standard_errors_by_k(vote.vote_at_k, answers, ks, before_k=(references,), **common)
    per_question = options.get("per_question", False)
    results: dict[str, Any] = {}
    for budget, value, interval, se in zip(ks, points, intervals, ses, strict=True):
        key = f"vote@{budget}"
        _put(results, key, value, interval, se)
        if per_question:
            results[key + "_per_question"] = _per_question(
                vote.vote_at_k(answers, references, budget, per_question=True, **common))
    return results


@dataclass(frozen=True)
class PairedCounts:
    """Two models' counts on the same questions (row q of both is question q)."""

    a: Any
    b: Any

    @property
    def n_questions(self) -> int:
        """Number of questions (the same in both runs)."""
        return int(self.a.n_questions)


#: The fields of a paired comparison reported per k (``correlation`` only when defined).
COMPARISON_KEYS = ("a", "b", "difference", "se", "se_a", "se_b", "lo", "hi", "df", "p_value",
                   "p_exact", "se_unpaired", "correlation", "prob_a_better", "mde", "questions",
                   "p_margin", "p_margin_exact")
"""Result key suffixes: each is the :class:`kpass.stats.comparison.Comparison` field of that
name (and the CLI's JSON/CSV field), so ``<key>_se`` is the SE of the difference, as
``Comparison.se`` is, and ``<key>_se_a`` / ``<key>_se_b`` each model's own SE. The margin's
(``p_margin``, ``p_margin_exact``) only with ``margin=``, beside the words
``<key>_margin_verdict`` (:meth:`kpass.stats.comparison.Comparison.margin_verdict`)."""


def kpass_compare(state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Paired comparison of two models (``predictions1`` = A, ``predictions2`` = B).

    Keys ``<metric key>_<suffix>`` for every k (and tau), e.g. ``pass@8_difference``,
    ``pass@8_se``, ``pass@8_se_a``, ``pass@8_lo``, ``pass@8_hi``,
    ``pass@8_p_value``, ``pass@8_p_exact``, ``pass@8_prob_a_better`` (suffixes:
    :data:`COMPARISON_KEYS`), and ``matched_by_id``: 1.0 when the questions were matched by
    the ids given (``ids1``/``ids2``), 0.0 when by position. With ``margin=`` (and
    ``equivalence=``) also ``pass@8_p_margin``, ``pass@8_p_margin_exact`` and the one
    string, ``pass@8_margin_verdict``: what was shown, in words ("B is not worse than A by
    more than 0.02 (one-sided, 95%, p = 0.012)", or "not shown: ..."), each k tested alone.
    """
    kp = _kpass()
    name = options.get("metric", "pass@k")
    template, function = COMPARED[name]
    point = getattr(kp, function)
    taus: Sequence[float | None] = [None]
    if "{tau}" in template:
        if "tau" not in options:
            raise InputError('`tau` is required with metric="g-pass@k_tau"')
        taus = list(_floats(options["tau"], "tau", lambda x, n: check_tau(x))[0])
    ks = _ks(options)
    kw = {**_pick(options, "short", "confidence", "shared", "margin", "equivalence")}
    results: dict[str, Any] = {}
    for tau in taus:
        args = () if tau is None else (tau,)
        compared = compare(point, state.a, state.b, ks, *args, **kw)
        found = compared if isinstance(compared, list) else [compared]
        for budget, comparison in zip(ks, found, strict=True):
            key = template.format(k=budget, tau=None if tau is None else number_label(tau))
            for suffix in COMPARISON_KEYS:
                value = getattr(comparison, suffix)
                if value is not None:
                    results[f"{key}_{suffix}"] = float(value)
            if comparison.margin is not None:  # what was shown, in words (one string)
                results[f"{key}_margin_verdict"] = comparison.margin_verdict()
    # How the questions were paired, said in the result itself: by id (``ids1``/``ids2``)
    # or by position (row q of both runs).
    results["matched_by_id"] = float(state.a.ids is not None)
    return results


#: Module name -> (kind of per-question state, function computing its results): each
#: module of :data:`kpass.registry.MODULES` is computed by the function of its name here.
FAMILIES: dict[str, tuple[str, Callable[[Any, Mapping[str, Any]], dict[str, Any]]]] = {
    m.name: (m.kind, globals()[m.name]) for m in registry.MODULES}

#: Families that are `evaluate` comparisons (folder ``comparisons/<name>/``), not metrics.
COMPARISONS = tuple(m.name for m in registry.MODULES if m.comparison)


def module_inputs(module: str) -> tuple[str, ...]:
    """The inputs a module takes: ``predictions``, plus ``R0`` or ``references``."""
    return registry.module(module).inputs


def compute_results(module: str, state: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The flat result dict of one module on per-question state.

    Args:
        module: a key of :data:`FAMILIES`.
        state: BinaryCounts, CategoricalCounts, or (answers, references).
        options: checked keyword options (see :func:`check_options`).

    Returns:
        Key -> Python float (lists of floats for ``*_per_question``).
    """
    _, run = FAMILIES[module]
    results = run(state, options)
    if options.get("key_style", "kpass") == "safe":
        return {safe_key(key): value for key, value in results.items()}
    return results

