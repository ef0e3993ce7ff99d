"""Every public function refuses every bad value of every constrained argument in one shape.

As scikit-learn's ``test_public_functions`` does for its parameter constraints: for each
callable in ``kpass.__all__`` one small valid call (:data:`CALLS`), and for each of its
arguments that has a constraint (found by name in its signature, :data:`BAD`) a set of bad
values: the wrong type, out of range, NaN, inf, negative, a bool where a number is
expected, empty. Each must give a ValueError or TypeError whose message names the argument
and the value received (``k=0``, ``confidence=nan``), never another exception, a NaN or
inf result, or a hang (an alarm stops a call after :data:`SECONDS`).
"""

from __future__ import annotations

import inspect
import math
import signal
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kpass

SECONDS = 20

R = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]]
R_B = [[1, 0, 0, 1], [0, 0, 1, 0], [1, 1, 0, 1], [0, 0, 0, 0]]
C = [[0, 1, 2, 2], [2, 2, 1, 0], [0, 0, 1, 1], [1, 2, 2, 2]]
W = [0.0, 0.5, 1.0]
ANSWERS = [["a", "b", "a"], ["c", "c", "b"], ["a", "a", "a"], ["b", "c", "a"]]
REFERENCES = ["a", "c", "a", "b"]
SOFT = [[0.2, 0.9], [0.5, 0.7]]
NAN, INF = math.nan, math.inf

#: One valid call per public function: (positional arguments, keyword arguments). A
#: keyword given here is swept too (as a keyword); positional ones by their name.
def _frame() -> Any:
    """A long pandas frame of 2 questions x 2 samples with a cost column."""
    import pandas as pd

    return pd.DataFrame({"question": ["a", "a", "b", "b"], "correct": [1, 0, 1, 1],
                         "usd": [0.1, 0.2, 0.1, 0.3]})


CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "allocate": ((kpass.pass_at_k, kpass.BinaryCounts([4] * 4, [1, 2, 3, 0]), 2, 4),
                 {"prior": "uniform"}),
    "avg": ((C, W), {}),
    "avg_ci": ((C, W), {"confidence": 0.95}),
    "bayes": ((C, W), {}),
    "bayes_ci": ((C, W), {"confidence": 0.95}),
    "beta_weights": ((4, 0.5, 2.0), {}),
    "binarize": ((SOFT, 0.5), {}),
    "binary_counts": ((R,), {}),
    "categorical_counts": ((C,), {"n_categories": 3}),
    "compare": ((kpass.pass_at_k, R, R_B, 1),
                {"confidence": 0.95, "reference": "t", "shared": False,
                 "prior": "uniform", "clusters": ["x", "x", "y", "y"]}),
    "compare_table": ((kpass.BinaryCounts([4] * 4, [3, 1, 4, 1]),
                       kpass.BinaryCounts([4] * 4, [2, 1, 3, 0])),
                      {"metrics": "pass@k", "k": 1, "tau": 0.5, "confidence": 0.95,
                       "shared": False, "short": "error", "adjust": "max-t",
                       "clusters": ["x", "x", "y", "y"]}),
    "confidence_sequence": ((kpass.pass_at_k, R, R_B, 1),
                            {"confidence": 0.95, "clusters": ["x", "x", "y", "y"]}),
    "discovery_weights": ((4,), {}),
    "leaderboard": ((kpass.pass_at_k, {"a": R, "b": R_B}, 1),
                    {"confidence": 0.95, "shared": False, "prior": "uniform",
                     "clusters": ["x", "x", "y", "y"]}),
    "max_at_k": ((C, 2, W), {}),
    "max_at_k_ci": ((C, 2, W), {"confidence": 0.95}),
    "maxent_weights": ((4, 0.5), {}),
    "moment_weights": ((4, 1.0), {}),
    "payoff_weights": (([0.0, 0.5, 1.0, 1.0],), {}),
    "plan": ((kpass.pass_at_k, R * 3, 2), {"alpha0": 1.0, "beta0": 1.0}),
    "report_table": ((kpass.BinaryCounts([4] * 4, [3, 1, 4, 1]),),
                     {"metrics": "pass@k", "k": 1, "tau": 0.5, "confidence": 0.95,
                      "short": "error", "clusters": ["x", "x", "y", "y"]}),
    "stability_weights": ((4,), {}),
    "standard_error": ((kpass.pass_at_k, R, 1), {"clusters": ["x", "x", "y", "y"]}),
    "tailpass": ((C, 2, W), {"eta": 1.0, "prior": 1.0}),
    "tailpass_empirical": ((C, 2, W), {"short": "error"}),
    "threshold_spectrum_at_k": ((R, 2, [0.5, 0.5]), {"short": "error"}),
    "threshold_spectrum_at_k_ci": ((R, 2, [0.5, 0.5]), {"confidence": 0.95}),
    "threshold_weights": ((4, 2), {}),
    "uniform_weights": ((4,), {}),
    "vote_at_k": ((ANSWERS, REFERENCES, 2), {"ties": "fractional", "short": "error"}),
    "vote_at_k_ci": ((ANSWERS, REFERENCES, 2),
                     {"ties": "fractional", "confidence": 0.95, "concentration": 1.0, "draws": 16,
                      "seed": 0, "short": "error"}),
}
for _name in ("pass_at_k", "pass_hat_k", "unanimous_at_k", "g_pass_at_k", "mg_pass_at_k",
              "maj_at_k", "cons_at_k", "auc_at_k"):
    CALLS[_name] = ((R, 2), {"short": "error"})
    CALLS[_name + "_ci"] = ((R, 2), {"confidence": 0.95, "short": "error",
                                     "alpha0": 1.0, "beta0": 1.0})
# subset estimation: 5 reference models on 40 questions, 12 chosen, a new model's outcomes on them
_RNG = np.random.default_rng(0)
SUBSET_REFERENCE = {f"m{j}": (_RNG.random((40, 4)) < _RNG.random(40)[:, None]).astype(int).tolist()
                    for j in range(5)}
SUBSET = kpass.choose_questions(SUBSET_REFERENCE, 12, seed=0)
SUBSET_NEW = (_RNG.random((12, 4)) < 0.5).astype(int).tolist()
CALLS["choose_questions"] = ((SUBSET_REFERENCE, 12), {"seed": 0, "design": "stratified"})
CALLS["subset_estimate"] = ((kpass.pass_at_k, SUBSET_NEW, 1),
                            {"subset": SUBSET, "reference": SUBSET_REFERENCE,
                             "confidence": 0.95})
CALLS["subset_compare"] = ((kpass.pass_at_k, SUBSET_NEW, SUBSET_NEW[::-1], 1),
                           {"subset_a": SUBSET, "subset_b": SUBSET,
                            "reference": SUBSET_REFERENCE, "confidence": 0.95})
CALLS["subset_leaderboard"] = ((kpass.pass_at_k, {"m0": SUBSET_REFERENCE["m0"], "new": SUBSET_NEW},
                                1), {"subsets": {"new": SUBSET}, "reference": SUBSET_REFERENCE,
                                     "confidence": 0.95})
CALLS["cost_summary"] = (([4] * 4, [3, 1, 4, 1], [0.1, 0.2, 0.1, 0.3]),
                         {"k": 2, "confidence": 0.95})
CALLS["cost_front"] = (({"a": [0.75, 0.25, 1.0, 0.25], "b": [0.5, 0.25, 0.75, 0.0]},
                        {"a": [0.1, 0.2, 0.1, 0.3], "b": [0.05, 0.1, 0.05, 0.1]}),
                       {"confidence": 0.95})
CALLS["cost_difference"] = ((kpass.BinaryCounts([4] * 4, [3, 1, 4, 1]),
                             kpass.BinaryCounts([4] * 4, [2, 2, 4, 0]),
                             [0.1, 0.2, 0.1, 0.3], [0.2, 0.2, 0.3, 0.1]),
                            {"k": 2, "confidence": 0.95, "shared": False})
CALLS["from_long_with_costs"] = ((_frame(),), {"id": "question", "outcome": "correct",
                                               "cost": "usd", "threshold": None})
CALLS["g_pass_at_k_tau"] = ((R, 2, 0.5), {"short": "error"})
CALLS["g_pass_at_k_tau_ci"] = ((R, 2, 0.5), {"confidence": 0.95, "short": "error"})
for _name in ("geom_at_k", "geom_ds_at_k"):
    CALLS[_name] = ((R, 2, 0.5, 0.5), {"short": "error"})
    CALLS[_name + "_ci"] = ((R, 2, 0.5, 0.5), {"confidence": 0.95})
CALLS["geo_spectrum_at_k"] = ((R, 2, 0.5), {"short": "error"})
CALLS["geo_spectrum_at_k_ci"] = ((R, 2, 0.5), {"confidence": 0.95})
CALLS["geo_spectrum_star_at_k"] = ((R, 2), {"short": "error"})
CALLS["geo_spectrum_star_at_k_ci"] = ((R, 2), {"confidence": 0.95})

COUNT = ["2", 2.5, True, 0, -1, NAN, INF, None]
UNIT_OPEN = [0.0, 1.0, 1.5, -0.1, NAN, INF, "0.95", True, None]
UNIT = [-0.1, 1.5, NAN, INF, "0.5", True]
POSITIVE = [0.0, -1.0, NAN, INF, "1", True]
FLAG = ["no", 1, None, NAN]
LABELS = ["xxyy", {"x", "y"}, 5, True]
SHORT = ["drop", 1, None, True]

#: The constrained arguments, by name: the bad values every function taking one refuses.
BAD: dict[str, list[Any]] = {
    "k": [*COUNT, []],
    "confidence": UNIT_OPEN,
    "tau": [*UNIT, []],
    "shared": FLAG,
    "clusters": LABELS,
    "short": SHORT,
    "ties": ["random", 1, None],
    "reference": ["z", 1, None],
    "adjust": ["bonferroni", 1, None],
    "metrics": ["", 5, ["pass@k", 5]],
    "budget": [-1, 2.5, True, "3", NAN, None],
    "draws": [0, -1, 2.5, True, "16", NAN, None],
    "seed": [-1, 2.5, True, "0", NAN],
    "n_categories": [0, -1, 2.5, True, "3", NAN],
    "alpha0": POSITIVE,
    "beta0": POSITIVE,
    "eta": UNIT,
    "kappa": POSITIVE,
    "theta": UNIT,
    "mean_threshold": UNIT,
    "threshold": [NAN, INF, "0.5", True, None],
    "lam": [NAN, INF, "0.5", True],
    # negative powers are the reference library's (x^-a with its rules for zeros)
    "pass_power": [NAN, INF, "0.5", True],
    "unanimous_power": [NAN, INF, "0.5", True],
    "weights": [[], "abc", [NAN, 0.5], [-1.0, 2.0]],
    "payoff": [[], "abc", [NAN, 0.5]],
    "w": [[], "abc", [NAN, 0.5, 1.0]],
    "bounds": ["ab", (1.0, 0.0), (NAN, 1.0), (0.0,), 5],
    "half_width": [-0.1, NAN, INF, "0.1", True],
    "margin": [-0.1, 0.0, 1.0, NAN, INF, "0.1", True],
    "equivalence": ["no", 1, None, NAN],
    "null": ["symmetric", 1, True],
    "thresholds": [[], [NAN], [1.5], "abc"],
    "primary": [5, True],
    "order": [[0, 0, 1, 2], "abc", 5],
}

#: Per function, values of the list above that have a meaning there (and why).
ALLOWED: dict[tuple[str, str], list[Any]] = {
    ("compare_table", "k"): [None],  # the default ladder of k, as `kpass compare` shows
    ("report_table", "k"): [None],
    ("plan", "confidence"): [None],  # unset: 0.95 when planning without a pilot
    ("from_long_with_costs", "threshold"): [None],  # None: the outcome column is 0/1
}

#: Where a function's argument takes values of another kind than the name's usual one.
OWN: dict[tuple[str, str], list[Any]] = {
    # the Beta prior option of the comparisons and posteriors: "uniform" or "empirical"
    **{(name, "prior"): ["bogus", 1, None, True] for name in
       ("compare", "leaderboard", *[n for n in CALLS if n.endswith("_ci")
                                    and "prior" in inspect.signature(getattr(kpass, n))
                                    .parameters])},
    ("allocate", "prior"): ["bogus", (0.0, 1.0), (NAN, 1.0), True],
    ("vote_at_k_ci", "concentration"): [0.0, -1.0, NAN, INF, "1", True],
    ("tailpass", "prior"): [0.0, -1.0, NAN, INF, "1", True],
    ("threshold_weights", "threshold"): [-1, 5, 2.5, True, "2", NAN],
    ("binarize", "threshold"): [NAN, INF, "0.5", True, None],
    ("binary_counts", "R"): [[[2, 0]], [[NAN, 1]], "abc", 5, [[True, 0.5]]],
    ("plan", "k"): ["2", 2.5, True, 0, -1, NAN, INF, None, [1, 2]],
}

PUBLIC = sorted(name for name in kpass.__all__ if callable(getattr(kpass, name))
                and not inspect.isclass(getattr(kpass, name)))


def constrained(name: str) -> list[str]:
    """The arguments of ``name`` the sweep feeds bad values (by signature)."""
    parameters = inspect.signature(getattr(kpass, name)).parameters
    return [p for p in parameters if p in BAD or (name, p) in OWN]


def cases() -> list[Any]:
    out = []
    for name in PUBLIC:
        for argument in constrained(name):
            for value in OWN.get((name, argument), BAD.get(argument, [])):
                if any(value is ok for ok in ALLOWED.get((name, argument), [])):
                    continue
                out.append(pytest.param(name, argument, value,
                                        id=f"{name}-{argument}-{stable_repr(value)}"[:80]))
    return out


def stable_repr(value: Any) -> str:
    """``repr(value)``, a set's items sorted: a set of str prints in the order of its hashes,
    which differ between processes, and pytest-xdist's workers must collect the same ids."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    return repr(value)


def shown(value: Any) -> list[str]:
    """How a message may show the bad value: its repr (as ``_show`` cuts it), an entry's
    (``R[0][0]=2``), or the shape of an empty one."""
    texts = [repr(value)[:57]]
    if isinstance(value, (list, tuple, set)):
        texts += [text for item in value for text in shown(item)]
        if not value:
            texts += ["shape (0,)", "[]"]
    if isinstance(value, str) and not value:
        texts.append("''")
    return texts


def call_with(function: Callable[..., Any], name: str, argument: str, value: Any) -> Any:
    """``function`` called as :data:`CALLS` says for ``name``, with ``argument=value``."""
    args, kwargs = CALLS[name]
    args, kwargs = list(args), dict(kwargs)
    positional = [p.name for p in inspect.signature(function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    position = positional.index(argument) if argument in positional else None
    if position is not None and position < len(args):
        args[position] = value
    else:
        kwargs[argument] = value
    return function(*args, **kwargs)


class HangError(Exception):
    """A call that did not return within SECONDS."""


@pytest.fixture
def alarm():
    def ring(signum: int, frame: Any) -> None:
        raise HangError(f"no answer within {SECONDS} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def finite(result: Any) -> bool:
    """Whether every number in a result is finite (a NaN answer to bad input is a defect)."""
    if isinstance(result, (bool, np.bool_, str)) or result is None:
        return True
    if isinstance(result, (int, float, np.number)):
        return math.isfinite(float(result))
    if isinstance(result, np.ndarray):
        return result.dtype.kind not in "fc" or bool(np.isfinite(result).all())
    if isinstance(result, (list, tuple)):
        return all(finite(item) for item in result)
    return True


def test_every_public_function_has_a_call_and_is_swept():
    assert sorted(CALLS) == PUBLIC
    unswept = [name for name in PUBLIC if not constrained(name)]
    assert unswept == []


@pytest.mark.parametrize("name", PUBLIC)
def test_the_valid_call_answers(name, alarm):
    args, kwargs = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(kpass, name)(*args, **kwargs)
    assert result is not None


def check_refusal(function: Callable[..., Any], name: str, argument: str, value: Any) -> None:
    """``function`` (kpass.<name>) with ``argument=value`` must refuse it in the one shape."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = call_with(function, name, argument, value)
        except (ValueError, TypeError) as error:
            message = str(error)
        else:
            pytest.fail(f"kpass.{name}({argument}={value!r}) answered {result!r:.200} "
                        f"({'finite' if finite(result) else 'NOT finite'})")
    assert f"`{argument}" in message or f"{argument}=" in message, message
    assert any(text in message for text in shown(value)), message


@pytest.mark.parametrize(("name", "argument", "value"), cases())
def test_a_bad_value_is_refused_naming_the_argument_and_the_value(name, argument, value,
                                                                    alarm):
    check_refusal(getattr(kpass, name), name, argument, value)


def test_the_sweep_fails_a_function_that_takes_anything():
    """The check itself: a function that answers a bad k (with NaN) fails it."""
    def lax(R: Any, k: Any) -> float:
        return float("nan")

    CALLS["lax"] = ((R, 2), {})
    try:
        with pytest.raises(pytest.fail.Exception, match=r"answered nan \(NOT finite\)"):
            check_refusal(lax, "lax", "k", 0)
    finally:
        del CALLS["lax"]

    def vague(R: Any, k: Any) -> float:
        raise ValueError("bad input")

    CALLS["vague"] = ((R, 2), {})
    try:
        with pytest.raises(AssertionError, match="bad input"):
            check_refusal(vague, "vague", "k", 0)
    finally:
        del CALLS["vague"]
