"""Bayes@N on a plain 0/1 array: the row-count shortcut against the general Dirichlet path."""

from __future__ import annotations

import numpy as np
import pytest

import kpass
from kpass._core.dirichlet.rewards import binary_dirichlet_summary, dirichlet_summary, prepare

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float32, np.float64]


def _general(R):
    return dirichlet_summary(*prepare(R, None))


def _python_bayes(rows):
    """Bayes@N with w = (0, 1) in plain Python: Beta(c + 1, N - c + 1) per question."""
    m = len(rows)
    means, variances = [], []
    for row in rows:
        n, c = len(row), sum(1 for value in row if value == 1)
        p = (c + 1) / (n + 2)
        means.append(p)
        variances.append(p * (1 - p) / (n + 3))
    return sum(means) / m, sum(variances) ** 0.5 / m


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_the_shortcut_gives_the_same_floats_as_the_dirichlet_path(dtype):
    rng = np.random.default_rng(21)
    for m, n in [(1, 1), (3, 5), (2000, 256), (40, 1000), (7, 64)]:
        binary = rng.random((m, n)) < rng.random((m, 1))
        for order in "CF":
            R = binary.astype(dtype, order=order)
            fast = binary_dirichlet_summary(R)
            assert fast is not None
            general = _general(R)
            assert fast[0] == general[0]
            for ours, theirs in zip(fast[1:], general[1:], strict=True):
                np.testing.assert_array_equal(ours, theirs)
            mu, sigma = kpass.bayes(R)
            expected = _python_bayes(binary.tolist())
            assert mu == pytest.approx(expected[0], rel=1e-12)
            assert sigma == pytest.approx(expected[1], rel=1e-12)


def test_other_inputs_take_the_general_path():
    R = np.array([[0, 1, 1], [1, 0, 0]])
    assert binary_dirichlet_summary(R.tolist()) is None
    assert binary_dirichlet_summary(np.ma.masked_array(R, mask=R > 5)) is None
    assert binary_dirichlet_summary(np.array([[0, 2, 1]])) is None
    assert binary_dirichlet_summary(np.array([0, 1, 1])) is None
    assert binary_dirichlet_summary(np.zeros((2, 0))) is None
    assert binary_dirichlet_summary(np.array([[0.5, 1.0]])) is None
    assert binary_dirichlet_summary(R[:, ::2]) is None  # non-contiguous: counted elsewhere
    np.testing.assert_allclose(kpass.bayes_ci(R[:, ::2]), kpass.bayes_ci(R[:, ::2].copy()))


def test_results_and_messages_do_not_depend_on_the_path():
    rng = np.random.default_rng(22)
    R = (rng.random((50, 9)) < 0.5).astype(np.int64)
    for other in (R.tolist(), np.ma.masked_array(R), R.astype(np.float64)):
        np.testing.assert_allclose(kpass.bayes_ci(other), kpass.bayes_ci(R), rtol=1e-14)
    with_w = kpass.bayes_ci(R, w=[0.0, 1.0])
    np.testing.assert_allclose(with_w, kpass.bayes_ci(R), rtol=1e-14)
    bad = R.copy()
    bad[4, 7] = 2
    with pytest.raises(ValueError, match=r"`R` is not binary \(R\[4\]\[7\]=2\)"):
        kpass.bayes_ci(bad)
    nan = R.astype(np.float64)
    nan[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"R\[3\]\[1\]=nan"):
        kpass.bayes_ci(nan)
    negative_zero = np.where(R == 1, 1.0, -0.0)
    assert kpass.bayes_ci(negative_zero) == kpass.bayes_ci(R)


def test_per_question_means_come_from_the_same_counts():
    R = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=np.int64)
    assert kpass.bayes(R, per_question=True).tolist() == [4 / 6, 1 / 6, 5 / 6]


def _python_avg(rows):
    """avg@N with w = (0, 1) in plain Python, sigma of Eq. 20 per question (T = n + 2)."""
    m = len(rows)
    averages, parts = [], []
    for row in rows:
        n, c = len(row), sum(row)
        p = (c + 1) / (n + 2)
        averages.append(c / n)
        parts.append(((n + 2) / n) ** 2 * p * (1 - p) / (n + 3))
    return sum(averages) / m, sum(parts) ** 0.5 / m


def test_counts_take_the_shortcut_with_the_same_floats_for_bayes_and_avg():
    # What kpass report and the modules hold: counts, ragged here.
    rng = np.random.default_rng(5)
    rows = [(rng.random(int(n)) < rng.random()).astype(int).tolist()
            for n in rng.integers(1, 40, size=300)]
    counts = kpass.binary_counts(rows)
    fast = binary_dirichlet_summary(counts)
    general = _general(counts)
    for ours, theirs in zip(fast, general, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert kpass.bayes(counts) == pytest.approx(_python_bayes(rows), rel=1e-12)
    assert kpass.avg(counts) == pytest.approx(_python_avg(rows), rel=1e-12)
    # avg through the general path (lists) gives the very same floats.
    assert kpass.avg(counts) == kpass.avg(rows)
    np.testing.assert_array_equal(kpass.avg(counts, per_question=True),
                                  kpass.avg(rows, per_question=True))
    assert kpass.avg_ci(counts) == kpass.avg_ci(rows)


@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.float64])
def test_avg_of_a_binary_array_equals_the_general_path(dtype):
    rng = np.random.default_rng(8)
    R = (rng.random((500, 33)) < 0.4).astype(dtype)
    assert kpass.avg(R) == kpass.avg(R.tolist())
    assert kpass.avg(R) == pytest.approx(_python_avg(R.astype(int).tolist()), rel=1e-12)
    # A reward vector still takes the weighted path.
    assert kpass.avg(R, [0.0, 2.0])[0] == pytest.approx(2 * kpass.avg(R)[0], rel=1e-12)
