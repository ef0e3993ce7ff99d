"""One id-matching rule (kpass.stats.align): compare, leaderboard, plan and the CLI share it.

References are independent of the rule: a dict from id to row built here, brute-force
permutations, and the same runs given in matching order.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kpass
from kpass._core.counting.counts import BinaryCounts
from kpass.stats.align import align_runs, subset_labels

RNG = np.random.default_rng(28)


def counts(n_correct, ids, n=4):
    return BinaryCounts(np.full(len(ids), n), np.asarray(n_correct), ids=list(ids))


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        return call(*args, **kwargs)


def by_dict(run, ids):
    """The rows of ``run`` for ``ids``, looked up through a plain dict (the reference)."""
    table = dict(zip(run.ids, run.n_correct.tolist(), strict=True))
    return [table[q] for q in ids]


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_every_order_of_three_runs_gives_the_first_runs_order(order):
    ids = [f"q{i}" for i in range(6)]
    runs = [counts(RNG.integers(0, 5, 6), ids) for _ in range(3)]
    shuffled = [runs[0]] + [run.select(RNG.permutation(6)) for run in runs[1:]]
    given = [shuffled[i] for i in order]
    aligned = align_runs(given, ["a", "b", "c"])
    first_ids = list(given[0].ids)
    assert aligned.by_id and aligned.questions == 6
    for original, result in zip(given, aligned.runs, strict=True):
        assert list(result.ids) == first_ids
        assert result.n_correct.tolist() == by_dict(original, first_ids)
    for original, rows in zip(given, aligned.rows, strict=True):
        taken = original.n_correct.tolist() if rows is None else original.n_correct[rows].tolist()
        assert taken == by_dict(original, first_ids)


def test_shared_keeps_the_intersection_in_the_first_runs_order():
    a = counts([1, 2, 3, 4, 0, 2], "abcdef")
    b = counts([0, 2, 3, 1, 4], "fedcx")
    c = counts([1, 1, 1, 1], "cfey")
    aligned = align_runs([a, b, c], ["A", "B", "C"], shared=True)
    assert [list(run.ids) for run in aligned.runs] == [["c", "e", "f"]] * 3
    assert aligned.keep.tolist() == [2, 4, 5] and aligned.first_questions == 6
    assert aligned.runs[1].n_correct.tolist() == by_dict(b, ["c", "e", "f"])
    assert subset_labels(list("uvwxyz"), aligned) == ["w", "y", "z"]
    with pytest.raises(ValueError, match=r"one label per question of the first run.*M=6.*got 3"):
        subset_labels(["w", "y", "z"], aligned)  # labels of the shared questions only
    with pytest.raises(ValueError, match="share no question id"):
        align_runs([a, counts([1], ["zz"])], ["A", "B"], shared=True)


def test_different_id_sets_name_the_first_ids_and_the_runs():
    a = counts(range(5), [f"q{i}" for i in range(5)])
    b = counts(range(5), ["q4", "x2", "q0", "x1", "q1"])
    with pytest.raises(ValueError) as error:
        align_runs([a, b], ["A", "B"])
    message = str(error.value)
    # q2, q3 are A's ids B lacks (A's order); x2, x1 are B's ids A lacks (B's order)
    assert "2 ids of A are not in B (e.g. ['q2', 'q3'])" in message
    assert "2 ids of B are not in A (e.g. ['x2', 'x1'])" in message
    assert message.endswith("pass shared=True to compare on the 3 questions both runs have")
    with pytest.raises(ValueError, match=r"only some runs carry question ids \(B does not\)"):
        align_runs([a, [[1, 0]] * 5], ["A", "B"])
    with pytest.raises(TypeError, match="`shared` must be True or False; got shared='no'"):
        align_runs([a, a], ["A", "B"], shared="no")


def test_without_ids_rows_match_when_lengths_agree_and_the_caller_is_told():
    A, B = [[1, 0]] * 3, [[0, 1]] * 3
    aligned = align_runs([A, B], ["A", "B"])
    assert not aligned.by_id and aligned.runs[0] is A and aligned.runs[1] is B
    assert aligned.questions == 3 and aligned.keep is None
    with pytest.raises(ValueError, match=r"matched by row.*got 3 and 2 questions \(A and B\)"):
        align_runs([A, B[:2]], ["A", "B"])
    with pytest.raises(ValueError, match="shared=True needs question ids on every run"):
        align_runs([A, B], ["A", "B"], shared=True)


def test_compare_leaderboard_and_plan_give_by_id_what_matching_order_gives():
    m = 40
    ids = [f"q{i:02d}" for i in range(m)]
    rates = RNG.beta(2, 2, m)
    A = (RNG.random((m, 8)) < rates[:, None]).astype(int)
    B = (RNG.random((m, 8)) < rates[:, None] * 0.8).astype(int)
    a, b = (BinaryCounts(np.full(m, 8), X.sum(axis=1), ids=ids) for X in (A, B))
    order = RNG.permutation(m)
    b_shuffled = b.select(order)
    assert kpass.compare(kpass.pass_at_k, a, b_shuffled, 2) == kpass.compare(
        kpass.pass_at_k, A, B, 2)
    board = kpass.leaderboard(kpass.pass_at_k, {"a": a, "b": b_shuffled}, 2)
    by_row = kpass.leaderboard(kpass.pass_at_k, {"a": A, "b": B}, 2)
    assert [r.as_dict() for r in board.rows] == [r.as_dict() for r in by_row.rows]
    planned = kpass.plan(kpass.pass_at_k, a, 1, R_b=b_shuffled)
    in_order = kpass.plan(kpass.pass_at_k, A, 1, R_b=B)
    assert planned.questions_for(0.05) == in_order.questions_for(0.05)
    assert planned.between == pytest.approx(in_order.between)
    with pytest.raises(ValueError, match=r"ids of `R` are not in `R_b`"):
        kpass.plan(kpass.pass_at_k, a, 1, R_b=BinaryCounts(np.full(m, 8), B.sum(axis=1),
                                                           ids=[f"x{i}" for i in range(m)]))


def test_compare_shared_refuses_labels_of_the_shared_length():
    a = counts([1, 2, 3, 4, 0, 2], "abcdef")
    b = counts([0, 2, 3, 1, 4], "fedcx")
    labels = ["g1", "g1", "g2", "g2", "g3", "g3"]
    c = quiet(kpass.compare, kpass.pass_at_k, a, b, 1, shared=True, clusters=labels)
    # kept questions c, d, e, f carry g2, g2, g3, g3: two clusters, df = 1
    assert c.questions == 4 and c.df == 1
    with pytest.raises(ValueError, match="one label per question of the first run"):
        quiet(kpass.compare, kpass.pass_at_k, a, b, 1, shared=True, clusters=labels[2:])
    with pytest.raises(TypeError, match="`shared` must be True or False"):
        kpass.compare(kpass.pass_at_k, a, b, 1, shared="no")
