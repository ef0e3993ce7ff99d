"""TailPass threshold weights (kpass.families.tailpass.weights) against the reference library.

scorio 0.2.3's ``scorio.eval.tailpass_weights`` is the test-only oracle: same names,
signatures and numbers across a grid of k and parameters; bad arguments raise kpass's
errors naming the argument.
"""

import importlib
import inspect
import math
from fractions import Fraction

import numpy as np
import pytest

import kpass

reference = pytest.importorskip("scorio.eval.tailpass_weights")

NAMES = ["uniform_weights", "threshold_weights", "discovery_weights", "stability_weights",
         "moment_weights", "beta_weights", "maxent_weights", "payoff_weights"]
KS = [1, 2, 3, 5, 8, 16, 64, 257, 1000]


def _same(ours, theirs):
    assert isinstance(ours, np.ndarray) and ours.dtype == np.float64
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-300)
    assert math.isclose(float(ours.sum()), 1.0, abs_tol=1e-12)
    assert np.all(ours >= 0.0)


@pytest.mark.parametrize("name", NAMES)
def test_exported_with_the_reference_signature(name):
    ours = getattr(kpass, name)
    assert ours is getattr(importlib.import_module("kpass.families.tailpass.weights"), name)
    assert name in kpass.__all__
    assert inspect.signature(ours).parameters.keys() == \
        inspect.signature(getattr(reference, name)).parameters.keys()
    assert ours.__doc__ and "Formula" in ours.__doc__ or name in ("discovery_weights",
                                                                  "stability_weights")


@pytest.mark.parametrize("k", KS)
def test_simple_weights_match_reference(k):
    _same(kpass.uniform_weights(k), reference.uniform_weights(k))
    _same(kpass.discovery_weights(k), reference.discovery_weights(k))
    _same(kpass.stability_weights(k), reference.stability_weights(k))
    for threshold in sorted({1, (k + 1) // 2, k}):
        _same(kpass.threshold_weights(k, threshold), reference.threshold_weights(k, threshold))
    _same(kpass.threshold_weights(np.int64(k), np.int32(k)), reference.threshold_weights(k, k))


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("lam", [1e-300, 1e-6, 0.1, 0.5, 1.0, 2.0, 3.7, 50.0, 1e6, 1e300])
def test_moment_weights_match_reference(k, lam):
    _same(kpass.moment_weights(k, lam), reference.moment_weights(k, lam))


@pytest.mark.parametrize("k", [1, 2, 3, 6])
@pytest.mark.parametrize("lam", [1, 2, 3])
def test_moment_weights_are_exact_power_differences(k, lam):
    exact = [Fraction(t, k) ** lam - Fraction(t - 1, k) ** lam for t in range(1, k + 1)]
    np.testing.assert_allclose(kpass.moment_weights(k, lam), [float(x) for x in exact],
                               rtol=1e-14)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("theta", [1e-6, 0.1, 0.5, 0.73, 0.999999])
@pytest.mark.parametrize("kappa", [1e-3, 0.5, 2.0, 40.0, 1e6])
def test_beta_weights_match_reference(k, theta, kappa):
    _same(kpass.beta_weights(k, theta, kappa), reference.beta_weights(k, theta, kappa))


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("mean", [1e-300, 1e-9, 0.01, 0.2, 0.4999, 0.5, 0.5001, 0.8, 0.99,
                                  1 - 1e-12])
def test_maxent_weights_match_reference(k, mean):
    _same(kpass.maxent_weights(k, mean), reference.maxent_weights(k, mean))


@pytest.mark.parametrize("payoff", [[0, 1], [0.0, 0.5, 1.0], [0, 0, 0, 1], [0, 1, 1, 1],
                                    [0.0, 0.1, 0.3, 0.3, 0.9, 1.0], [False, True]])
def test_payoff_weights_match_reference(payoff):
    _same(kpass.payoff_weights(payoff), reference.payoff_weights(payoff))


def test_weights_feed_the_profile():
    """linear(moment_weights(k, 2)) is the exact E[(J/k)^2] of moment(2)."""
    profile = kpass.tailpass([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=4)
    assert profile.linear(kpass.moment_weights(4, 2.0))[0] == pytest.approx(
        profile.moment(2.0)[0], rel=1e-13)
    assert profile.linear(kpass.discovery_weights(4))[0] == pytest.approx(
        profile.discovery()[0], rel=1e-13)


BAD = [
    (kpass.uniform_weights, (0,), ValueError, "`k` must be an int in [1,"),
    (kpass.uniform_weights, (2.0,), TypeError, "`k` must be an int; got k=2.0"),
    (kpass.uniform_weights, (True,), TypeError, "`k` must be an int"),
    (kpass.uniform_weights, (10**12,), ValueError, "got k=1000000000000"),
    (kpass.threshold_weights, (4, 0), ValueError, "`threshold` must be an int in [1, k]"),
    (kpass.threshold_weights, (4, 5), ValueError, "got threshold=5"),
    (kpass.threshold_weights, (4, "2"), TypeError, "`threshold` must be an int"),
    (kpass.discovery_weights, (-1,), ValueError, "got k=-1"),
    (kpass.stability_weights, (None,), TypeError, "`k` must be an int"),
    (kpass.moment_weights, (4, 0.0), ValueError, "`lam`"),
    (kpass.moment_weights, (4, -1.0), ValueError, "`lam`"),
    (kpass.moment_weights, (4, float("nan")), ValueError, "`lam`"),
    (kpass.moment_weights, (4, float("inf")), ValueError, "`lam`"),
    (kpass.moment_weights, (4, "2"), TypeError, "`lam` must be a real number"),
    (kpass.beta_weights, (4, 0.0, 1.0), ValueError, "`theta`"),
    (kpass.beta_weights, (4, 1.0, 1.0), ValueError, "`theta` must be a real number in (0, 1)"),
    (kpass.beta_weights, (4, 0.5, 0.0), ValueError, "`kappa`"),
    (kpass.beta_weights, (4, 0.5, float("inf")), ValueError, "`kappa`"),
    (kpass.beta_weights, (4, 1e-300, 1e-300), ValueError, "positive, finite Beta parameters"),
    (kpass.beta_weights, (4, 0.5, 1e308 * 10), ValueError, "`kappa`"),
    (kpass.maxent_weights, (4, 0.0), ValueError, "`mean_threshold`"),
    (kpass.maxent_weights, (4, 1.0), ValueError, "`mean_threshold`"),
    (kpass.maxent_weights, (4, [0.5]), TypeError, "`mean_threshold` must be a real number"),
    (kpass.payoff_weights, ([1.0],), ValueError, "`payoff` must be a 1-D sequence"),
    (kpass.payoff_weights, ([[0.0, 1.0]],), ValueError, "`payoff` must be a 1-D sequence"),
    (kpass.payoff_weights, ([0.0, 0.7, 0.5, 1.0],), ValueError, "non-decreasing"),
    (kpass.payoff_weights, ([0.1, 1.0],), ValueError, "u(0) = 0"),
    (kpass.payoff_weights, ([0.0, 0.9],), ValueError, "u(k) = 1"),
    (kpass.payoff_weights, ([0.0, float("nan"), 1.0],), ValueError, "`payoff` must be finite"),
    (kpass.payoff_weights, (["a", "b"],), TypeError, "`payoff` must be real numbers"),
]


@pytest.mark.parametrize(("fn", "args", "error", "message"), BAD,
                         ids=[f"{fn.__name__}{args!r}" for fn, args, _, _ in BAD])
def test_bad_arguments_name_the_argument(fn, args, error, message):
    with pytest.raises(error) as info:
        fn(*args)
    assert message in str(info.value)


def test_kpass_does_not_import_the_reference():
    import subprocess
    import sys

    code = "import sys, kpass; kpass.beta_weights(3, 0.5, 2.0); print('scorio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
