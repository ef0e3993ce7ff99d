"""A failed ``compute(predictions=...)`` keeps nothing of that call (issue 18, item 1).

``evaluate``'s own ``compute`` stores inline predictions by ``add_batch`` and then computes
over everything stored. The kpass modules keep what was stored when the computation fails
(so a retry loses no batch), but the questions passed to the failing ``compute`` itself
must not be kept: the next ``compute(predictions=X)`` has to see X (and the batches added
before with ``add_batch``), never X mixed with the rejected call's questions -- in one
module, in every module of ``evaluate.combine``, and in every process of a distributed run.

References: exact Pass@k from ``fractions.Fraction`` and ``math.comb``, and a fresh module
(the same computation with no history), which is the property under test.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
evaluate = pytest.importorskip("evaluate")

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "metrics"
COMPARISON = ROOT / "comparisons" / "kpass_compare"
BINARY = ["pass_at_k_bayes", "g_pass_at_k_bayes", "maj_at_k_bayes", "auc_at_k_bayes",
          "geo_spectrum_bayes"]
CATEGORICAL = ["max_at_k_bayes", "bayes_at_n", "avg_at_n_bayes", "tailpass_bayes"]
MODULES = BINARY + CATEGORICAL + ["vote_at_k_bayes"]


def load(name: str, **kwargs):
    if name == "kpass_compare":
        return evaluate.load(str(COMPARISON), module_type="comparison", keep_in_memory=True,
                             **kwargs)
    return evaluate.load(str(METRICS / name), keep_in_memory=kwargs.pop("keep_in_memory", True),
                         **kwargs)


def exact_pass_at_k(rows: list[list[int]], k: int) -> Fraction:
    """Mean over questions of 1 - C(n - c, k) / C(n, k), exactly."""
    total = Fraction(0)
    for row in rows:
        n, c = len(row), sum(row)
        total += 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    return total / len(rows)


# Per module: (earlier batch, rejected inline batch and the options that reject it,
# the good inline batch, its options). Every rejected batch is refused by the computation
# itself (k above its samples, or a category its rewards do not cover), after it was counted.
def cases(name: str) -> tuple[dict, dict, dict, dict, dict]:
    if name in BINARY:
        return ({"predictions": [[1, 0, 1], [0, 0, 1]]},
                {"predictions": [[0, 0], [0, 1], [0, 0]]}, {"k": 3},
                {"predictions": [[1, 1, 1], [1, 0, 1], [1, 1, 0]]}, {"k": [1, 2]})
    if name in CATEGORICAL:
        return ({"predictions": [[0, 1, 1], [1, 0, 0]]},
                {"predictions": [[0, 0, 0], [0, 2, 0]]}, {},
                {"predictions": [[1, 1, 0], [0, 0, 1], [1, 1, 1]]}, {"k": [1, 2]})
    if name == "vote_at_k_bayes":
        return ({"predictions": [["a", "b", "a"]], "references": ["a"]},
                {"predictions": [["x"], ["y", "y"]], "references": ["x", "z"]}, {"k": 3},
                {"predictions": [["c", "c", "d"], ["e", "f", "f"]], "references": ["c", "e"]},
                {"k": [1, 2]})
    return ({"predictions1": [[1, 0, 1], [0, 1, 1]], "predictions2": [[0, 0, 1], [1, 1, 1]]},
            {"predictions1": [[0, 0], [0, 0]], "predictions2": [[1, 1], [1, 1]]}, {"k": 3},
            {"predictions1": [[1, 1, 0], [0, 1, 1], [1, 0, 0]],
             "predictions2": [[1, 1, 0], [0, 1, 1], [1, 0, 0]]}, {"k": 1})


def joined(first: dict, second: dict) -> dict:
    return {name: list(first[name]) + list(second[name]) for name in first}


def assert_same(results: dict, expected: dict) -> None:
    assert set(results) == set(expected)
    for key, value in expected.items():
        assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-14), key


@pytest.mark.parametrize("name", MODULES + ["kpass_compare"])
@pytest.mark.parametrize("earlier", [False, True], ids=["fresh", "after-add_batch"])
def test_a_failed_inline_compute_keeps_nothing_of_its_call(name, earlier):
    added, bad, bad_options, good, good_options = cases(name)
    module = load(name)
    if earlier:
        module.add_batch(**added)
    with pytest.raises(ValueError, match="kept"):
        module.compute(**bad, **bad_options)
    results = module.compute(**good, **good_options)
    expected = load(name).compute(**(joined(added, good) if earlier else good), **good_options)
    assert_same(results, expected)


def test_pass_at_1_after_a_failed_inline_compute_is_the_exact_value():
    # The numbers: 0.778 wanted, 0.467 was returned (X mixed with the rejected Y).
    X = [[1, 1, 1], [1, 0, 1], [1, 1, 0]]
    module = load("pass_at_k_bayes")
    with pytest.raises(ValueError, match="`k`"):
        module.compute(predictions=[[0, 0], [0, 1], [0, 0]], k=3)
    results = module.compute(predictions=X, k=[1, 2])
    assert results["pass@1"] == pytest.approx(float(exact_pass_at_k(X, 1)), rel=1e-15)
    assert exact_pass_at_k(X, 1) == Fraction(7, 9)
    assert results["pass@2"] == pytest.approx(float(exact_pass_at_k(X, 2)), rel=1e-15)


def test_the_comparison_of_a_run_with_itself_after_a_failed_call_is_zero():
    # The numbers: X against X gave difference 0.25 and p 0.32 after a failed call.
    X = [[1, 1, 0], [0, 1, 1], [1, 0, 0]]
    module = load("kpass_compare")
    with pytest.raises(ValueError, match="`k`"):
        module.compute(predictions1=[[0, 0]], predictions2=[[1, 1]], k=3)
    results = module.compute(predictions1=X, predictions2=X, k=1)
    assert results["pass@1_difference"] == 0.0 and results["pass@1_p_value"] == 1.0
    assert results["pass@1_a"] == pytest.approx(float(exact_pass_at_k(X, 1)), rel=1e-15)
    assert results["pass@1_questions"] == 3.0


def test_the_failure_message_says_what_is_kept_and_what_is_not():
    module = load("pass_at_k_bayes")
    module.add_batch(predictions=[[1, 0, 1], [0, 0, 1]])
    with pytest.raises(ValueError) as caught:
        module.compute(predictions=[[0, 0], [0, 1], [0, 0]], k=3)
    message = str(caught.value)
    assert "Nothing of this call is kept (its 3 questions)" in message, message
    assert "the 2 questions added before it are kept" in message, message


def test_an_arrow_cache_on_disk_keeps_the_added_batches_only():
    added, bad, bad_options, good, good_options = cases("pass_at_k_bayes")
    module = load("pass_at_k_bayes", keep_in_memory=False, cache_dir=tempfile.mkdtemp())
    module.add_batch(**added)
    with pytest.raises(ValueError, match="kept"):
        module.compute(**bad, **bad_options)
    with pytest.raises(ValueError, match="kept"):
        module.compute(**bad, **bad_options)  # twice: still only the added batch underneath
    rows = added["predictions"] + good["predictions"]
    results = module.compute(**good, k=1)
    assert results["pass@1"] == pytest.approx(float(exact_pass_at_k(rows, 1)), rel=1e-15)


@pytest.mark.parametrize("earlier", [False, True], ids=["fresh", "after-add_batch"])
def test_a_combination_failing_in_its_second_module_keeps_nothing_of_the_call(earlier):
    # pass_at_k_bayes computes, then max_at_k_bayes refuses w=[0]: the first module's
    # questions are handed back, but never those passed to the failed call.
    A, Y, X = [[1, 0, 1], [0, 0, 1]], [[0, 1, 0], [0, 0, 0]], [[1, 1, 1], [1, 0, 1]]
    names = ["pass_at_k_bayes", "max_at_k_bayes"]
    combined = evaluate.combine([load(name) for name in names])
    if earlier:
        combined.add_batch(predictions=A)
    with pytest.raises(ValueError, match="len\\(w\\)"):
        combined.compute(predictions=Y, k=1, w=[0])
    results = combined.compute(predictions=X, k=1)
    rows = A + X if earlier else X
    assert results["pass@1"] == pytest.approx(float(exact_pass_at_k(rows, 1)), rel=1e-15)
    assert results["max@1"] == pytest.approx(float(exact_pass_at_k(rows, 1)), rel=1e-15)


_WORKER = """
import json, sys, time
from pathlib import Path
import evaluate
rank, cache, out = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
added, bad, good = json.loads(sys.argv[4])
module = evaluate.load({path!r}, num_process=2, process_id=rank, cache_dir=cache,
                       experiment_id="kpass-inline")
module.add_batch(predictions=added[rank])
failed = ""
try:
    module.compute(predictions=bad[rank], k=3)
except ValueError as error:
    failed = str(error)
if rank == 0:
    (out / "round1").write_text(failed)
else:
    deadline = time.monotonic() + 300
    while not (out / "round1").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
results = module.compute(predictions=good[rank], k=1)
if rank == 0:
    (out / "results.json").write_text(json.dumps([failed, results]))
"""


@pytest.mark.slow
def test_two_processes_drop_every_process_inline_batch_of_a_failed_call(tmp_path):
    added = [[[1, 0, 1]], [[0, 0, 1], [1, 1, 0]]]
    bad = [[[0, 0]], [[0, 0], [0, 0]]]  # rank 1's rows too: only rank 0 computes and fails
    good = [[[1, 1, 1]], [[1, 0, 0]]]
    script = _WORKER.format(path=str(METRICS / "pass_at_k_bayes"))
    workers = [subprocess.Popen([sys.executable, "-c", script, str(rank), str(tmp_path / "cache"),
                                 str(tmp_path), json.dumps([added, bad, good])],
                                stderr=subprocess.PIPE, text=True) for rank in (0, 1)]
    for worker in workers:
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
    failed, results = json.loads((tmp_path / "results.json").read_text())
    rows = added[0] + added[1] + good[0] + good[1]
    assert results["pass@1"] == pytest.approx(float(exact_pass_at_k(rows, 1)), rel=1e-15)
    assert "Nothing of this call is kept (its 3 questions)" in failed, failed
    assert "the 3 questions added before it are kept" in failed, failed
