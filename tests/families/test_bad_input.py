"""Bad input gives a clear ValueError/TypeError naming the argument and the value."""

import math

import numpy as np
import pytest

import kpass

R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])


@pytest.mark.parametrize(
    ("value", "error", "fragment"),
    [
        (2, ValueError, "R[0][1]=2"),
        (-1, ValueError, "R[0][1]=-1"),
        (0.5, ValueError, "R[0][1]=0.5"),
        (math.nan, ValueError, "R[0][1]=nan"),
        (None, TypeError, "R[0][1]=None"),
        ("1", TypeError, "R[0][1]='1'"),
    ],
)
@pytest.mark.parametrize("ragged", [False, True])
def test_non_binary_outcomes_are_named(value, error, fragment, ragged):
    rows = [[0, value, 1], [1, 1, 0]] + ([[1]] if ragged else [])
    for fn in (kpass.pass_at_k, kpass.pass_at_k_ci, kpass.mg_pass_at_k):
        with pytest.raises(error) as info:
            fn(rows, 1)
        assert fragment in str(info.value)


@pytest.mark.parametrize("R_bad", [[], np.zeros((0, 4)), [[1, 0], []], np.zeros((3, 0))])
def test_empty_input_or_empty_question(R_bad):
    with pytest.raises(ValueError, match="question"):
        kpass.pass_at_k(R_bad, 1)


@pytest.mark.parametrize(("k", "error", "fragment"), [
    (0, ValueError, "k=0"), (6, ValueError, "k=6"), (1.5, TypeError, "k=1.5"),
    ("3", TypeError, "k='3'"), (True, TypeError, "k=True"), ([], ValueError, "k=[]"),
    ([1, 0], ValueError, "k=0"),
])
def test_bad_k(k, error, fragment):
    for fn in (kpass.pass_at_k, kpass.pass_hat_k_ci, kpass.auc_at_k, kpass.max_at_k):
        with pytest.raises(error) as info:
            fn(R, k)
        assert fragment in str(info.value)


def test_short_questions_error_lists_count_and_smallest_n():
    with pytest.raises(ValueError) as info:
        kpass.pass_at_k([[1, 0, 1], [1], [0, 0]], 3)
    message = str(info.value)
    assert "2 of 3 questions" in message and "smallest n=1" in message and "short='skip'" in message
    assert kpass.pass_at_k([[1, 0, 1], [1], [0, 0]], 3, short="skip") == 1.0
    with pytest.raises(ValueError, match="short"):
        kpass.pass_at_k(R, 1, short="drop")


@pytest.mark.parametrize("tau", [-0.1, 1.5, math.nan])
def test_tau_outside_unit_interval(tau):
    with pytest.raises(ValueError, match="tau"):
        kpass.g_pass_at_k_tau(R, 2, tau)
    with pytest.raises(ValueError, match="tau"):
        kpass.g_pass_at_k_tau_ci(R, 2, tau)


@pytest.mark.parametrize(("weights", "fragment"), [
    ([0.5], "length 2"), ([0.5, -0.1], "non-negative"), ([0.5, math.inf], "finite"),
    ([0.7, 0.7], "sum to at most 1"),
])
def test_bad_spectrum_weights(weights, fragment):
    for fn in (kpass.threshold_spectrum_at_k, kpass.threshold_spectrum_at_k_ci,
               lambda R, k, w: kpass.geo_spectrum_at_k(R, k, weights=w)):
        with pytest.raises(ValueError, match=fragment):
            fn(R, 2, weights)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 2.0, math.nan])
def test_confidence_outside_open_unit_interval(confidence):
    for fn in (kpass.pass_at_k_ci, kpass.geom_at_k_ci):
        with pytest.raises(ValueError, match="confidence"):
            fn(R, 2, confidence=confidence)
    with pytest.raises(ValueError, match="confidence"):
        kpass.bayes_ci(R, confidence=confidence)


@pytest.mark.parametrize(("alpha0", "beta0", "name"), [
    (0.0, 1.0, "alpha0"), (-1.0, 1.0, "alpha0"), (1.0, 0.0, "beta0"), (1.0, math.inf, "beta0"),
])
def test_non_positive_prior(alpha0, beta0, name):
    with pytest.raises(ValueError, match=name):
        kpass.pass_at_k_ci(R, 2, alpha0=alpha0, beta0=beta0)


def test_w_of_the_wrong_length_for_categories_present():
    RC = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    with pytest.raises(ValueError, match=r"R\[0\]\[2\]=2"):
        kpass.bayes(RC, [0.0, 1.0])
    with pytest.raises(ValueError, match="`w` must be given"):
        kpass.max_at_k(RC, 2)


def test_R0_with_a_different_number_of_questions():
    RC = np.array([[0, 1, 2], [1, 1, 0]])
    with pytest.raises(ValueError, match="R0"):
        kpass.bayes(RC, [0.0, 0.5, 1.0], np.array([[0], [1], [2]]))
    with pytest.raises(ValueError, match="R0"):
        kpass.max_at_k_ci(RC, 2, [0.0, 0.5, 1.0], [[0]])


def test_bounds_must_be_ordered_pair():
    with pytest.raises(ValueError, match="bounds"):
        kpass.pass_at_k_ci(R, 1, bounds=(1.0, 0.0))
    with pytest.raises(TypeError, match="bounds"):
        kpass.pass_at_k_ci(R, 1, bounds="01")


def test_per_question_flag_must_be_boolean():
    with pytest.raises(TypeError, match="per_question"):
        kpass.pass_at_k(R, 1, per_question="yes")
