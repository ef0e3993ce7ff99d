"""The `evaluate` modules' keyword vocabulary, its checks, and the names of result keys.

Every module of the family accepts the same keywords (:data:`KEYWORDS`), so
``evaluate.combine([...]).compute(predictions=R, k=[1, 4])`` can send one set of
keywords to all of them; a module ignores the family keywords it has no use for
(``tau`` means nothing to Pass@k) and rejects any other name (a typo): :func:`check_options`.
:func:`safe_key` maps a result key to a name every logger takes.

The results themselves are computed by :mod:`kpass.hf.vocabulary`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import registry
from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_bounds,
    check_choice,
    check_confidence,
    check_flag,
    check_int,
    check_prior,
    check_real,
    check_short,
    check_tau,
    normalize_ks,
)

#: The family's keyword vocabulary: every metric module accepts all of these.
KEYWORDS: dict[str, str] = {
    "k": "int or list of ints: sample budgets (default 1)",
    "tau": "float or list of floats in [0, 1]: G-Pass@k thresholds (g_pass_at_k_bayes)",
    "lam": "float or list of floats in [0, 1]: GeoSpectrum coupling (geo_spectrum_bayes)",
    "weights": "length-k spectrum weights, or a dict {k: weights} (geo_spectrum_bayes)",
    "pass_power": "float: exponent of Pass@k in Geom@k (geo_spectrum_bayes; default 0.5)",
    "unanimous_power": "float: exponent of Pass^k in Geom@k (geo_spectrum_bayes; default 0.5)",
    "w": "list of floats: reward of each category 0..C (max_at_k_bayes, bayes_at_n, "
         "avg_at_n_bayes, tailpass_bayes (rubric scores in [0, 1]); default [0, 1])",
    "thresholds": "list of floats in [0, 1], increasing: required average scores reported "
                  "as tailpass@{k}_t{t} (tailpass_bayes; default [0.5])",
    "moment_power": "float or list of floats > 0: exponents p of the moment utility "
                    "E[B^p], reported as tailpass_moment@{k}_p{p} (tailpass_bayes; the core's "
                    "`lam`, renamed: `lam` is GeoSpectrum's coupling)",
    "eta": "float in [0, 1]: weight of the prior outcomes R0 in the TailPass posterior "
           "(tailpass_bayes; default 1)",
    "threshold": "float or None: predictions are soft scores; a sample is correct iff its "
                 "score > threshold (binary modules; default None: outcomes must be 0/1)",
    "confidence": "float in (0, 1): credibility level of the interval (default 0.95)",
    "alpha0": "float > 0: Beta prior alpha of the binary modules (default 1)",
    "beta0": "float > 0: Beta prior beta of the binary modules (default 1)",
    "concentration": "float > 0: Dirichlet prior concentration of vote_at_k_bayes and "
                     "tailpass_bayes (default 1; kpass.tailpass's `prior`)",
    "bounds": "(lo, hi) or None: clipping bounds of the interval (default: the core's)",
    "short": '"error" or "skip": questions with fewer than k samples (default "error")',
    "shared": "bool: kpass_compare with ids1/ids2: compare on the questions both runs have "
              "(default False: runs of different questions are refused)",
    "margin": "float in (0, 1): kpass_compare tests 'B (predictions2) is not worse than A by "
              "more than margin' (default None: no margin)",
    "equivalence": "bool: kpass_compare with margin: test abs(A - B) < margin instead "
                   "(two one-sided tests; default False)",
    "ties": 'tie rule of vote_at_k_bayes (default "fractional")',
    "per_question": "bool: also return per-question point estimates (default False)",
    "key_style": '"kpass" (default: pass@8, pass^4_sd) or "safe": names every logger '
                 "takes (MLflow, TensorBoard, W&B): pass_at_8/estimate, pass_hat_4/sd",
    "metric": "the metric kpass_compare compares: " + ", ".join(
        f'"{f.key}"' + (" (default)" if i == 0 else " (with tau)" if f.uses_tau else "")
        for i, f in enumerate(registry.compared())),
}

#: Inputs (Arrow columns), not options: they travel with their questions.
INPUTS = ("predictions", "references", "R0", "predictions1", "predictions2", "ids1", "ids2")

#: The posterior's keys after a metric's key: mean, sd and the credible interval (the
#: fields of :class:`kpass.Posterior`); ``_lo``/``_hi`` are the interval over questions.
SUFFIXES = ("_mean", "_sd", "_cred_lo", "_cred_hi")

#: ``key_style`` values: the family's own names, or names valid for every logger.
KEY_STYLES = ("kpass", "safe")


#: What kpass_compare can compare: metric name -> (key template, core point function name),
#: from :func:`kpass.registry.compared`.
COMPARED = {f.key: (f.template, f.function) for f in registry.compared()}

def _check_compared(value: Any) -> str:
    return check_choice(value, "metric", COMPARED)


def _check_margin(value: Any) -> float | None:
    from ..stats.comparison import check_margin

    return check_margin(value)


# ----------------------------------------------------------------------------- parameters


def _floats(value: Any, name: str, check: Callable[[Any, str], float]) -> tuple[list[float], bool]:
    """A float or a non-empty sequence of floats -> (list, whether a sequence was given)."""
    many = isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))
    values = list(value) if many else [value]
    if not values:
        raise InputError(f"`{name}` must be a number or a non-empty list of numbers; got []")
    return [check(item, name) for item in values], many


def _unit(value: Any, name: str) -> float:
    return check_real(value, name, low=0.0, high=1.0)


def _real_vector(value: Any, name: str) -> list[float]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ArgumentTypeError(f"`{name}` must be a list of numbers; got {name}={_show(value)}")
    items = np.ravel(value).tolist() if isinstance(value, np.ndarray) else list(value)
    values = [check_real(item, f"{name}[{i}]") for i, item in enumerate(items)]
    if not values:
        raise InputError(f"`{name}` must be a non-empty list of numbers; got {name}=[]")
    return values


def _check_weights(value: Any) -> list[float] | dict[int, list[float]]:
    if isinstance(value, Mapping):
        checked = {}
        for key, vector in value.items():
            budget = check_int(key, "weights key (k)")
            checked[budget] = _real_vector(vector, f"weights[{budget}]")
        return checked
    return _real_vector(value, "weights")


def _check_ties(value: Any) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"`ties` must be a string; got ties={_show(value)}")
    return value


def _check_key_style(value: Any) -> str:
    return check_choice(value, "key_style", KEY_STYLES)


def _check_positive(value: Any, name: str) -> float:
    return check_real(value, name, low=0.0, low_open=True)


def _check_thresholds(value: Any) -> list[float]:
    from .._core.tailpass.checks import check_thresholds

    return check_thresholds(1, _real_vector(value, "thresholds")).tolist()


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "k": lambda v: normalize_ks(v),
    "tau": lambda v: _floats(v, "tau", lambda x, n: check_tau(x)),
    "lam": lambda v: _floats(v, "lam", _unit),
    "weights": _check_weights,
    "pass_power": lambda v: check_real(v, "pass_power", low=0.0),
    "unanimous_power": lambda v: check_real(v, "unanimous_power", low=0.0),
    "w": lambda v: _real_vector(v, "w"),
    "threshold": lambda v: None if v is None else check_real(v, "threshold"),
    "confidence": check_confidence,
    "alpha0": lambda v: check_prior(v, 1.0)[0],
    "beta0": lambda v: check_prior(1.0, v)[1],
    "concentration": lambda v: _check_positive(v, "concentration"),
    "thresholds": lambda v: _check_thresholds(v),
    "moment_power": lambda v: _floats(v, "moment_power", _check_positive),
    "eta": lambda v: _unit(v, "eta"),
    "bounds": check_bounds,
    "short": check_short,
    "shared": lambda v: check_flag(v, "shared"),
    "margin": lambda v: _check_margin(v),
    "equivalence": lambda v: check_flag(v, "equivalence"),
    "ties": _check_ties,
    "per_question": lambda v: check_flag(v, "per_question"),
    "key_style": _check_key_style,
    "metric": lambda v: _check_compared(v),
}


def check_options(module: str, options: Mapping[str, Any], *, when: str) -> dict[str, Any]:
    """Validate keyword options of a metric module, before any data is touched.

    Args:
        module: the module's name, for messages.
        options: keyword -> value, as given by the user.
        when: ``"load"`` or ``"compute"``, for messages.

    Returns:
        The options unchanged (values are checked, not converted), so the core
        receives exactly what the user gave.

    Raises:
        ValueError: a keyword outside the family vocabulary (a typo), or a bad value.
        ArgumentTypeError: a value of the wrong type.
    """
    for name, value in options.items():
        if name not in KEYWORDS:
            raise InputError(unknown_keyword_message(module, name, when))
        _CHECKS[name](value)
    return dict(options)


def unknown_keyword_message(module: str, name: str, when: str) -> str:
    """The message for a keyword no module of the family knows."""
    close = difflib.get_close_matches(name, [*KEYWORDS, *INPUTS], n=1)
    hint = f" Did you mean `{close[0]}`?" if close else ""
    return (
        f"{module}: unknown keyword `{name}` at {when} time.{hint} The kpass metric modules "
        f"accept {', '.join(KEYWORDS)} (and the inputs {', '.join(INPUTS)})."
    )


# ----------------------------------------------------------------------------- result keys


# Trailing parts of a result key that name a statistic of the value before them.
_STATISTICS = re.compile(r"_(mean|sd|cred_lo|cred_hi|lo|hi|se|per_question|a|b|difference"
                         r"|p_value|se_unpaired"
                         r"|correlation|prob_a_better|mde|questions|se_a|se_b"
                         r"|df|p_exact|p_margin|p_margin_exact|margin_verdict)$")
_OPERATORS = {"@": "_at_", "^": "_hat_"}


def safe_key(key: str) -> str:
    """A result key as a name every logger takes: MLflow, TensorBoard and W&B.

    MLflow allows only letters, digits and ``_ - . / :`` and space in metric
    names, so ``pass@8`` and ``pass^4`` are rejected. Here ``@`` becomes
    ``_at_``, ``^`` becomes ``_hat_`` and ``-`` becomes ``_``; each statistic
    is a path part under its metric (``pass_at_8/estimate``, ``pass_at_8/mean``,
    ``/sd``, ``/cred_lo``, ``/cred_hi``), so TensorBoard and W&B group them, and no
    name is a path prefix of another (MLflow's file store keeps ``a/b`` as a
    file inside a folder ``a``, so ``a`` and ``a/b`` cannot both be logged).
    The mapping is one-to-one over the family's keys.

    Example:
        >>> [safe_key(k) for k in ("pass@8", "pass^4_sd", "g-pass@4_tau0.5_cred_lo", "bayes@n")]
        ['pass_at_8/estimate', 'pass_hat_4/sd', 'g_pass_at_4_tau0.5/cred_lo', 'bayes_at_n/estimate']
    """
    match = _STATISTICS.search(key)
    base, statistic = (key[:match.start()], match[1]) if match else (key, "estimate")
    for operator, word in _OPERATORS.items():
        base = base.replace(operator, word)
    return f"{base.replace('-', '_')}/{statistic}"


def refuse_batch_keywords(method: str, kwargs: dict[str, Any], names: dict[str, str]) -> None:
    """Refuse a batch keyword given to ``add`` (one question), naming the right one.

    Raises:
        TypeError: ``add(predictions=...)``: ``add`` takes ``prediction=`` (one question's
            outcomes); ``add_batch`` and ``compute`` take ``predictions=``.
    """
    for plural, singular in names.items():
        if plural in kwargs:
            raise ArgumentTypeError(f"{method}() adds one question: pass {singular}=[...] (that "
                            f"question's outcomes), not {plural}=; for many questions use "
                            f"add_batch({plural}=[[...], ...]) or compute({plural}=...)")


def refuse_one_keywords(kwargs: dict[str, Any], names: dict[str, str]) -> None:
    """Refuse a one-question keyword given to ``add_batch``/``compute``, naming the right one.

    Raises:
        TypeError: ``add_batch(prediction=...)``: a batch takes ``predictions=`` (one list
            of outcomes per question); ``add`` takes ``prediction=``.
    """
    for singular, plural in names.items():
        if singular in kwargs:
            raise ArgumentTypeError(f"a batch takes {plural}=[[...], ...] (one list of outcomes "
                                    f"per question), not {singular}=; add() takes "
                                    f"{singular}= for one question")
