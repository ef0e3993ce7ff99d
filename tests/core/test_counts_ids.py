"""Question ids on counts: validation, merging of shards by id, and every metric unchanged."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

import kpass
from kpass import BinaryCounts, CategoricalCounts


def _pass_at_k_exact(n, c, k):
    # Unbiased Pass@k of one question, exactly: 1 - C(n-c, k) / C(n, k).
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def test_ids_are_kept_and_validated():
    counts = BinaryCounts([3, 2], [1, 2], ids=("a", 7))
    assert counts.ids == ("a", 7)
    assert BinaryCounts([3], [1]).ids is None
    with pytest.raises(ValueError, match="unique"):
        BinaryCounts([3, 2], [1, 2], ids=["a", "a"])
    with pytest.raises(ValueError, match="one id per question"):
        BinaryCounts([3, 2], [1, 2], ids=["a"])
    with pytest.raises(TypeError, match="str or int"):
        BinaryCounts([3, 2], [1, 2], ids=["a", 1.5])
    with pytest.raises(TypeError, match="str or int"):
        BinaryCounts([3], [1], ids=[True])
    with pytest.raises(TypeError, match="sequence of question ids"):
        BinaryCounts([3], [1], ids="a")
    # numpy integer ids become plain ints, so they match python ints of another file
    assert BinaryCounts([1, 1], [0, 1], ids=np.array([4, 5])).ids == (4, 5)
    with pytest.raises(ValueError, match="unique"):
        CategoricalCounts([[1, 2], [0, 1]], [[0, 0], [0, 0]], ids=[1, 1])


def test_concat_merges_the_same_id_in_first_seen_order():
    a = BinaryCounts([2, 3], [1, 0], ids=["q1", "q2"])
    b = BinaryCounts([4, 1], [4, 1], ids=["q2", "q3"])
    merged = BinaryCounts.concat([a, b])
    assert merged.ids == ("q1", "q2", "q3")
    assert merged.n_samples.tolist() == [2, 7, 1]
    assert merged.n_correct.tolist() == [1, 4, 1]
    # merged counts equal counting the pooled outcome lists directly
    pooled = kpass.binary_counts([[1, 0], [0, 0, 0, 1, 1, 1, 1], [1]])
    assert merged.n_samples.tolist() == pooled.n_samples.tolist()
    assert merged.n_correct.tolist() == pooled.n_correct.tolist()


def test_concat_without_ids_stacks_and_mixing_is_an_error():
    a = BinaryCounts([2], [1])
    b = BinaryCounts([2], [1])
    assert BinaryCounts.concat([a, b]).n_samples.tolist() == [2, 2]
    with pytest.raises(ValueError, match="ids"):
        BinaryCounts.concat([a, BinaryCounts([2], [1], ids=["x"])])
    with pytest.raises(ValueError, match="ids"):
        CategoricalCounts.concat([
            CategoricalCounts([[1, 1]], [[0, 0]]),
            CategoricalCounts([[1, 1]], [[0, 0]], ids=["x"]),
        ])


def test_categorical_concat_adds_counts_and_priors_of_one_id():
    a = CategoricalCounts([[1, 0, 2]], [[1, 0, 0]], ids=["q"])
    b = CategoricalCounts([[0, 1], [3, 0]], [[0, 1], [0, 0]], ids=["r", "q"])
    merged = CategoricalCounts.concat([a, b])
    assert merged.ids == ("q", "r")
    assert merged.counts.tolist() == [[4, 0, 2], [0, 1, 0]]
    assert merged.prior_counts.tolist() == [[1, 0, 0], [0, 1, 0]]
    binary = CategoricalCounts([[1, 2]], [[0, 0]], ids=[9]).to_binary()
    assert binary.ids == (9,)


def test_metrics_work_on_counts_with_ids():
    counts = BinaryCounts([5, 4, 6], [2, 0, 6], ids=["a", "b", "c"])
    plain = BinaryCounts([5, 4, 6], [2, 0, 6])
    expected = float(sum(_pass_at_k_exact(n, c, 2) for n, c in [(5, 2), (4, 0), (6, 6)]) / 3)
    assert kpass.pass_at_k(counts, 2) == pytest.approx(expected, rel=1e-12)
    assert kpass.pass_at_k(counts, 2) == kpass.pass_at_k(plain, 2)
    assert kpass.pass_hat_k(counts, 2) == kpass.pass_hat_k(plain, 2)
    assert kpass.g_pass_at_k_tau(counts, 3, 0.5) == kpass.g_pass_at_k_tau(plain, 3, 0.5)
    assert kpass.pass_at_k_ci(counts, 2) == kpass.pass_at_k_ci(plain, 2)
    assert counts.select(np.array([True, False, True])).ids == ("a", "c")


def test_concat_of_valid_parts_is_the_stacked_counts_read_only():
    # Parts are valid by construction, so their concatenation is taken without a re-check;
    # it must still be the plain stack, int64 and read-only like every BinaryCounts.
    rng = np.random.default_rng(8)
    parts = []
    for size in (1, 7, 300):
        n = rng.integers(1, 20, size=size)
        parts.append(BinaryCounts(n, rng.integers(0, n + 1)))
    merged = BinaryCounts.concat(parts)
    assert merged.n_samples.tolist() == np.concatenate([p.n_samples for p in parts]).tolist()
    assert merged.n_correct.tolist() == np.concatenate([p.n_correct for p in parts]).tolist()
    assert merged.n_samples.dtype == merged.n_correct.dtype == np.int64
    assert merged.ids is None and merged.smallest_n == int(merged.n_samples.min())
    with pytest.raises(ValueError):
        merged.n_correct[0] = 99
