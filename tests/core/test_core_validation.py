"""Issue 18 (core): clusters, plan on a pilot without variance, spectrum weights, masked scores.

Every expected value comes from an independent reference: the clustered standard error
written out in exact fractions, the reference library scorio for the spectrum weights,
the seed's rule ``score > T`` applied by hand for binarize.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import kpass

R = [[1, 0], [0, 0], [1, 1], [0, 1]]


def clustered_se(values: list[Fraction], labels: list[object]) -> float:
    """The CR2 clustered SE of the mean (Bell and McCaffrey 2002; issue 29), exactly:
    (1/M^2) sum_g S_g^2 / (1 - n_g/M), which is Miller (2024) eq. 4 with G/(G-1) for equal
    cluster sizes; clusters keyed by (type, value)."""
    m = len(values)
    mean = sum(values, Fraction(0)) / m
    sums: dict[tuple[str, object], Fraction] = {}
    sizes: dict[tuple[str, object], int] = {}
    for value, label in zip(values, labels, strict=True):
        key = (type(label).__name__, label)
        sums[key] = sums.get(key, Fraction(0)) + value - mean
        sizes[key] = sizes.get(key, 0) + 1
    variance = sum(s * s / (1 - Fraction(sizes[key], m)) for key, s in sums.items()) / (m * m)
    return math.sqrt(variance)


PASS_AT_1 = [Fraction(sum(row), len(row)) for row in R]


# ----------------------------------------------------------------------------- clusters


@pytest.mark.parametrize("clusters, position, shown", [
    ([None, None, "a", "a"], 0, "None"),
    (["a", "a", float("nan"), "b"], 2, "nan"),
    ([1.0, 1.0, 2.0, 2.0], 0, "1.0"),
    ([1, 1, 2.5, 2], 2, "2.5"),
    ([True, False, True, False], 0, "True"),
    (np.array([1.0, 1.0, 2.0, 2.0]), 0, "1.0"),
])
def test_clusters_refuse_labels_the_cli_refuses(clusters, position, shown):
    for call in (lambda: kpass.standard_error(kpass.pass_at_k, R, 1, clusters=clusters),
                 lambda: kpass.compare(kpass.pass_at_k, R, R[::-1], 1, clusters=clusters)):
        with pytest.raises(TypeError, match=rf"`clusters` must hold a str or int label.*"
                                            rf"clusters\[{position}\]={shown}"):
            call()


@pytest.mark.parametrize("clusters", [{1, 2, 3, 4}, frozenset("abcd"), {"a": 1, "b": 2},
                                      (x for x in "aabb")])
def test_clusters_refuse_unordered_containers(clusters):
    with pytest.raises(TypeError, match=r"`clusters` must be a sequence of labels.*question "
                                        r"order"):
        kpass.standard_error(kpass.pass_at_k, R, 1, clusters=clusters)


def test_clusters_keep_1_and_the_string_1_apart():
    labels = [1, "1", 2, 2]
    expected = clustered_se(PASS_AT_1, labels)
    assert kpass.standard_error(kpass.pass_at_k, R, 1, clusters=labels) == \
        pytest.approx(expected, rel=1e-12)
    merged = clustered_se(PASS_AT_1, ["1", "1", 2, 2])
    assert not math.isclose(expected, merged, rel_tol=1e-6)  # the case tells them apart
    # Two clusters "1"-as-int and "1"-as-str: the clustered SE exists (it needs G >= 2).
    two = [1, 1, "1", "1"]
    assert kpass.standard_error(kpass.pass_at_k, R, 1, clusters=two) == \
        pytest.approx(clustered_se(PASS_AT_1, two), rel=1e-12)


@pytest.mark.parametrize("clusters", [["a", "a", "b", "b"], ("x", "y", "x", "y"),
                                      np.array([3, 3, 7, 7], dtype=np.uint8),
                                      np.array(["p", "q", "q", "p"]), range(4)])
def test_clusters_accept_str_and_int_labels(clusters):
    labels = [x.item() if isinstance(x, np.generic) else x for x in clusters]
    assert kpass.standard_error(kpass.pass_at_k, R, 1, clusters=clusters) == \
        pytest.approx(clustered_se(PASS_AT_1, labels), rel=1e-12)


def test_clusters_accept_a_pandas_series_and_refuse_its_missing_label():
    pd = pytest.importorskip("pandas")
    labels = ["a", "a", "b", "b"]
    assert kpass.standard_error(kpass.pass_at_k, R, 1, clusters=pd.Series(labels)) == \
        pytest.approx(clustered_se(PASS_AT_1, labels), rel=1e-12)
    with pytest.raises(TypeError, match=r"clusters\[2\]=nan"):
        kpass.standard_error(kpass.pass_at_k, R, 1, clusters=pd.Series(["a", "a", None, "b"]))


# ----------------------------------------------------------------------------- plan


@pytest.mark.parametrize("outcome", [0, 1])
def test_plan_refuses_a_pilot_without_variance(outcome):
    constant = [[outcome] * 4] * 50
    mixed = [[1, 1, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]] * 25
    with pytest.raises(ValueError, match=rf"pilot `R` has no variance: all 200 of its "
                                         rf"outcomes are {outcome}"):
        kpass.plan(kpass.pass_at_k, constant, 1)
    with pytest.raises(ValueError, match="pilot `R` has no variance"):
        kpass.plan(kpass.pass_at_k, constant, 1, alpha0=1.0, beta0=1.0)
    with pytest.raises(ValueError, match=rf"pilot `R_b` has no variance: all 200 of its "
                                         rf"outcomes are {outcome}"):
        kpass.plan(kpass.pass_at_k, mixed[:50], 2, R_b=constant)


def test_plan_still_plans_a_pilot_with_one_discordant_outcome():
    pilot = [[0] * 4] * 49 + [[1, 0, 0, 0]]
    plan = kpass.plan(kpass.pass_at_k, pilot, 1)
    # Not refused, and not the degenerate answer: the pilot's own SE is
    # sqrt(var / M) = 0.005 exactly (one question at 1/4, 49 at 0), so detecting 0.05
    # with power 0.8 needs far more than 2 questions.
    values = [Fraction(0)] * 49 + [Fraction(1, 4)]
    mean = sum(values, Fraction(0)) / 50
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (50 * 49))
    assert se == 0.005 and plan.se() >= se
    assert plan.questions_for(0.05) > 2


# ----------------------------------------------------------------------------- spectrum weights

SPECTRUM_R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 0, 1, 0]])
SPECTRUM_CALLS = [("threshold_spectrum_at_k", {}), ("threshold_spectrum_at_k_ci", {}),
                  ("geo_spectrum_at_k", {"lam": 0.5}), ("geo_spectrum_at_k", {"lam": 0.0}),
                  ("geo_spectrum_at_k_ci", {"lam": 0.5}), ("geo_spectrum_at_k_ci", {"lam": 0.0})]
BAD_WEIGHTS = [[0.5 + 1j, 0.5], np.array([0.25, 0.5], dtype=complex), [0.5 + 0j, 0.25],
               ["0.5", "0.5"], np.array(["0.25", "0.25"]), [b"a", b"b"], "05", [None, 0.5],
               [0.5, 0.6], [0.2], [-0.1, 0.5], [float("nan"), 0.1]]
GOOD_WEIGHTS = [[0.5, 0.5], [True, False], np.array([0, 1], dtype=np.int8), [0.0, 0.25]]


@pytest.mark.parametrize("name, options", SPECTRUM_CALLS)
@pytest.mark.parametrize("weights", BAD_WEIGHTS, ids=repr)
def test_spectrum_weights_refused_where_the_reference_refuses(name, options, weights):
    scorio = pytest.importorskip("scorio.eval")
    with pytest.raises(ValueError):
        getattr(scorio, name)(SPECTRUM_R, 2, weights=weights, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: refused, not converted
        with pytest.raises(ValueError, match="`weights`"):
            getattr(kpass, name)(SPECTRUM_R, 2, weights=weights, **options)


@pytest.mark.parametrize("name, options", SPECTRUM_CALLS)
@pytest.mark.parametrize("weights", GOOD_WEIGHTS, ids=repr)
def test_spectrum_weights_accepted_where_the_reference_accepts(name, options, weights):
    scorio = pytest.importorskip("scorio.eval")
    expected = np.atleast_1d(getattr(scorio, name)(SPECTRUM_R, 2, weights=weights, **options))
    got = np.atleast_1d(getattr(kpass, name)(SPECTRUM_R, 2, weights=weights, **options))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------------- binarize


def test_binarize_accepts_a_masked_nan_and_keeps_the_mask():
    scores = np.ma.masked_invalid(np.array([[0.6, np.nan, 0.4], [0.2, 0.9, np.inf]]))
    hard = kpass.binarize(scores, 0.5)
    assert isinstance(hard, np.ma.MaskedArray)
    assert np.ma.getmaskarray(hard).tolist() == [[False, True, False], [False, False, True]]
    assert hard.compressed().tolist() == [1, 0, 0, 1]
    # The masked samples are not samples: avg@n is that of the ragged rows [1, 0], [0, 1].
    assert kpass.avg(hard)[0] == pytest.approx(float(Fraction(1, 2)), rel=1e-15)
    assert kpass.avg(hard)[0] == kpass.avg([[1, 0], [0, 1]])[0]


def test_binarize_masked_value_is_neither_checked_nor_counted():
    hidden = np.ma.array([[0.7, 0.3]], mask=[[False, True]])
    hard = kpass.binarize(hidden, 0.5)
    assert hard.compressed().tolist() == [1]  # the masked 0.3 is not a wrong sample
    objects = np.ma.array(np.array([["x", 0.9]], dtype=object), mask=[[True, False]])
    assert kpass.binarize(objects, 0.5).compressed().tolist() == [1]
    with pytest.raises(ValueError, match=r"R\[0\]\[1\]=inf"):
        kpass.binarize(np.ma.array([[0.7, np.inf]], mask=[[False, False]]), 0.5)


def test_binarize_masked_rows_and_pandas_missing():
    rows = [np.ma.masked_invalid([0.6, np.nan, 0.1]), [0.2, 0.9]]
    assert kpass.binarize(rows, 0.5) == [[1, 0], [0, 1]]
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"s1": [0.6, 0.2], "s2": [None, 0.9]})
    hard = kpass.binarize(table, 0.5)
    assert np.ma.getmaskarray(hard).tolist() == [[False, True], [False, False]]
    assert hard.compressed().tolist() == [1, 0, 1]


def test_binarize_refuses_a_flat_row_with_its_position():
    with pytest.raises(TypeError, match=r"R\[0\]=0.6"):
        kpass.binarize([0.6, 0.4], 0.5)
