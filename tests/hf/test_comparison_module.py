"""The `kpass_compare` evaluate comparison module: values against kpass.compare (itself tested
against written-out formulas and simulation in test_stats*), ingestion paths, two processes,
bad input."""

import doctest
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import evaluate
import numpy as np
import pytest

import kpass
from kpass.hf.evaluate_module import KPassComparison

COMPARISONS = Path(__file__).resolve().parents[2] / "comparisons"
NAME = "kpass_compare"
# result key suffixes, written out here (not imported from the module): each is the Comparison
# field of the same name
FIELDS = ("a", "b", "difference", "se", "se_a", "se_b", "lo", "hi", "df", "p_value", "p_exact",
          "se_unpaired", "correlation", "prob_a_better", "mde", "questions")
RNG = np.random.default_rng(99)
A = [RNG.integers(0, 2, size=int(n)).tolist() for n in RNG.integers(4, 9, size=30)]
B = [RNG.integers(0, 2, size=len(row)).tolist() for row in A]


def load(**kwargs):
    return evaluate.load(str(COMPARISONS / NAME), keep_in_memory=kwargs.pop("keep_in_memory", True),
                         **kwargs)


def expected(point, ks, *args, key="pass@{k}", by_id=False, **kwargs):
    out = {}
    for k, c in zip(ks, kpass.compare(point, A, B, ks, *args, **kwargs), strict=True):
        for field in FIELDS:
            if getattr(c, field) is not None:
                out[f"{key.format(k=k)}_{field}"] = float(getattr(c, field))
    out["matched_by_id"] = float(by_id)  # how the questions were paired, said in the result
    return out


def assert_same(results, reference):
    assert list(results) == list(reference)
    for name, value in reference.items():
        assert type(results[name]) is float
        assert results[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


def test_loads_by_path_as_a_comparison():
    module = load()
    assert isinstance(module, KPassComparison) and type(module) is not KPassComparison
    assert module.module_type == "comparison" and module.name == NAME
    assert set(module.features) == {"predictions1", "predictions2"}  # ids1/ids2: keywords


def test_compute_in_one_call_and_in_batches_equals_kpass_compare():
    reference = expected(kpass.pass_at_k, [1, 4])
    assert_same(load().compute(predictions1=A, predictions2=B, k=[1, 4]), reference)
    module = load(k=[1, 4])
    module.add_batch(predictions1=A[:10], predictions2=B[:10])
    for a, b in zip(A[10:20], B[10:20], strict=True):
        module.add(prediction1=a, prediction2=b)
    assert_same(module.compute(predictions1=A[20:], predictions2=B[20:]), reference)


@pytest.mark.parametrize("metric, point, key, extra", [
    ("pass^k", kpass.pass_hat_k, "pass^{k}", {}),
    ("maj@k", kpass.maj_at_k, "maj@{k}", {}),
    ("auc@k", kpass.auc_at_k, "auc@{k}", {}),
    ("mg-pass@k", kpass.mg_pass_at_k, "mg-pass@{k}", {}),
])
def test_every_compared_metric(metric, point, key, extra):
    results = load().compute(predictions1=A, predictions2=B, k=[2, 3], metric=metric,
                             confidence=0.9)
    assert_same(results, expected(point, [2, 3], key=key, confidence=0.9))


def test_g_pass_tau_and_short_skip_and_safe_keys():
    results = load().compute(predictions1=A, predictions2=B, k=[4, 6], metric="g-pass@k_tau",
                             tau=0.5, short="skip")
    assert_same(results, expected(kpass.g_pass_at_k_tau, [4, 6], 0.5, key="g-pass@{k}_tau0.5",
                                  short="skip"))
    safe = load().compute(predictions1=A, predictions2=B, k=2, key_style="safe")
    comparison = kpass.compare(kpass.pass_at_k, A, B, 2)
    assert safe["pass_at_2/difference"] == pytest.approx(comparison.difference)
    assert [safe["pass_at_2/se"], safe["pass_at_2/se_a"], safe["pass_at_2/se_b"]] == (
        pytest.approx([comparison.se, comparison.se_a, comparison.se_b]))
    assert not [key for key in safe if key.endswith(("difference_se", "a_se", "b_se"))]


def test_margin_and_equivalence_are_kpass_compares_and_say_what_was_shown():
    """margin= and equivalence= give each k p_margin, p_margin_exact and the words of
    Comparison.margin_verdict (B, predictions2, the new model); nothing without a margin."""
    for equivalence in (False, True):
        results = load().compute(predictions1=A, predictions2=B, k=[1, 4], margin=0.15,
                                 equivalence=equivalence)
        reference = expected(kpass.pass_at_k, [1, 4])
        for k, c in zip([1, 4], kpass.compare(kpass.pass_at_k, A, B, [1, 4], margin=0.15,
                                             equivalence=equivalence), strict=True):
            reference[f"pass@{k}_p_margin"] = c.p_margin
            reference[f"pass@{k}_p_margin_exact"] = c.p_margin_exact
            words = results.pop(f"pass@{k}_margin_verdict")
            assert words == c.margin_verdict()
            claim = ("A and B are within +-0.15 of each other (two one-sided tests" if equivalence
                     else "B is not worse than A by more than 0.15 (one-sided")
            assert words == ("" if c.p_margin < 0.05 else "not shown: ") + claim + (
                ", 95%, p < 0.001)" if c.p_margin < 0.001 else f", 95%, p = {c.p_margin:.3f})")
        assert sorted(results) == sorted(reference)
        for key, value in reference.items():
            assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    shown = load().compute(predictions1=A, predictions2=A, k=1, margin=0.2)
    assert shown["pass@1_margin_verdict"].startswith("B is not worse than A by more than 0.2")
    assert not [key for key in load().compute(predictions1=A, predictions2=B, k=1)
                if "margin" in key]
    for bad, message in ((0.0, "`margin` must be"), (1.5, "`margin` must be"),
                         ("0.1", "`margin` must be"), (float("nan"), "`margin` must be")):
        with pytest.raises((ValueError, TypeError), match=message):
            load().compute(predictions1=A, predictions2=B, margin=bad)
    with pytest.raises(ValueError, match="`equivalence` needs a `margin`"):
        load().compute(predictions1=A, predictions2=B, equivalence=True)
    with pytest.raises(TypeError, match="`equivalence` must be"):
        load(margin=0.1, equivalence="yes")


# Question ids for A's rows; B's rows are listed in another order, under the same ids (ints and
# strings mixed: 7 and "7" are different ids, as in kpass.BinaryCounts).
IDS = [f"q{i}" if i % 3 else i for i in range(len(A))]
ORDER = RNG.permutation(len(A))


def test_ids_match_questions_in_any_order_and_across_batches():
    reference = expected(kpass.pass_at_k, [1, 4], by_id=True)
    b_rows, b_ids = [B[i] for i in ORDER], [IDS[i] for i in ORDER]
    results = load().compute(predictions1=A, predictions2=b_rows, ids1=IDS, ids2=b_ids,
                             k=[1, 4])
    assert_same(results, reference)
    # batches that split A and B differently (uneven lengths within a batch), and add()
    module = load(k=[1, 4])
    module.add_batch(predictions1=A[:20], predictions2=b_rows[:7], ids1=IDS[:20],
                     ids2=b_ids[:7])
    module.add_batch(predictions1=A[20:29], predictions2=b_rows[7:29], ids1=IDS[20:29],
                     ids2=b_ids[7:29])
    module.add(prediction1=A[29], prediction2=b_rows[29], id1=IDS[29], id2=b_ids[29])
    assert_same(module.compute(), reference)
    # by position, the reordered B is another comparison: the result says which was done
    shuffled = load().compute(predictions1=A, predictions2=b_rows, k=1)
    assert shuffled["matched_by_id"] == 0.0
    assert shuffled["pass@1_difference"] == pytest.approx(
        kpass.compare(kpass.pass_at_k, A, b_rows, 1).difference)


def test_ids_refuse_what_cannot_be_matched_and_keep_what_was_added():
    module = load()
    module.add_batch(predictions1=A[:5], predictions2=B[:5], ids1=IDS[:5], ids2=IDS[:5])
    with pytest.raises(ValueError, match="`ids2` is missing"):
        module.add_batch(predictions1=A[5:6], predictions2=B[5:6], ids1=IDS[5:6])
    with pytest.raises(ValueError, match="`ids1`: question ids must be unique; 'q1'"):
        module.add_batch(predictions1=A[:2], predictions2=B[:2], ids1=["q1", "q1"],
                         ids2=["a", "b"])
    with pytest.raises(ValueError, match=r"`ids2`: question ids must be str or int; got ids\[0\]"):
        module.add_batch(predictions1=A[:1], predictions2=B[:1], ids1=["x"], ids2=[1.5])
    with pytest.raises(ValueError, match="`ids1`: `ids` must have one id per question"):
        module.add_batch(predictions1=A[:2], predictions2=B[:2], ids1=["x"], ids2=["x", "y"])
    with pytest.raises(ValueError, match="lacks `ids1`/`ids2`.*5 questions added before are kept"):
        module.add_batch(predictions1=A[5:6], predictions2=B[5:6])
    with pytest.raises(ValueError, match="pass them with their predictions"):
        module.compute(ids1=IDS[:5])
    # B has a question A lacks: refused by the one id rule, unless shared=True
    module.add_batch(predictions1=A[5:7], predictions2=B[5:8], ids1=IDS[5:7], ids2=IDS[5:8])
    with pytest.raises(ValueError, match=r"ids of B are not in A \(e\.g\. \['q7'\]\)"):
        module.compute(k=1)
    results = module.compute(k=1, shared=True)  # the questions survived the failure
    assert results["pass@1_questions"] == 7.0 and results["matched_by_id"] == 1.0
    assert results["pass@1_difference"] == pytest.approx(
        kpass.compare(kpass.pass_at_k, A[:7], B[:7], 1).difference)
    # once computed, the next batch may choose position again
    assert module.compute(predictions1=A[:3], predictions2=B[:3])["matched_by_id"] == 0.0


_WORKER = """
import json, sys
import evaluate
rank, cache, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
A, B = json.loads(sys.argv[4]), json.loads(sys.argv[5])
half = slice(0, len(A) // 2) if rank == 0 else slice(len(A) // 2, len(A))
module = evaluate.load({path!r}, num_process=2, process_id=rank, cache_dir=cache,
                       experiment_id="kpass-compare", k=[1, 4])
module.add_batch(predictions1=A[half], predictions2=B[half])
results = module.compute()
if rank == 0:
    json.dump(results, open(out, "w"))
"""


@pytest.mark.slow
def test_distributed_add_batch_in_two_processes(tmp_path):
    script = _WORKER.format(path=str(COMPARISONS / NAME))
    workers = [subprocess.Popen([sys.executable, "-c", script, str(rank), str(tmp_path / "cache"),
                                 str(tmp_path / "out.json"), json.dumps(A), json.dumps(B)],
                                stderr=subprocess.PIPE, text=True) for rank in (0, 1)]
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    assert_same(json.loads((tmp_path / "out.json").read_text()),
                expected(kpass.pass_at_k, [1, 4]))


def test_bad_input_is_refused_and_keeps_what_was_added():
    module = load()
    module.add_batch(predictions1=A[:5], predictions2=B[:5])
    with pytest.raises(ValueError, match="same questions.*3 and 2"):
        module.add_batch(predictions1=A[5:8], predictions2=B[5:7])
    with pytest.raises(ValueError, match=r"predictions2\[0\]\[1\]"):
        module.add_batch(predictions1=[[1, 0]], predictions2=[[1, 2]])
    with pytest.raises(ValueError, match="both `predictions1`"):
        module.add_batch(predictions1=A[:2])
    with pytest.raises(ValueError, match="`metric` must be one of"):
        module.compute(metric="pass@K")
    with pytest.raises(ValueError, match="`tau` is required"):
        module.compute(metric="g-pass@k_tau")
    results = module.compute(k=1)  # the five questions added first survived every failure
    assert results["pass@1_questions"] == 5.0
    assert results["pass@1_difference"] == pytest.approx(
        kpass.compare(kpass.pass_at_k, A[:5], B[:5], 1).difference)
    with pytest.raises(ValueError, match="at least 2 questions"):
        load().compute(predictions1=A[:1], predictions2=B[:1])


def test_script_examples_run(monkeypatch):
    spec = importlib.util.spec_from_file_location("_kpass_compare",
                                                  COMPARISONS / NAME / f"{NAME}.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.chdir(COMPARISONS)
    card = (COMPARISONS / NAME / "README.md").read_text(encoding="utf-8")
    examples = card.split("### Examples", 1)[1].split("\n## ", 1)[0]
    for text in (script._KWARGS_DESCRIPTION,
                 "\n".join(re.findall(r"```python\n(.*?)```", examples, re.S))):
        test = doctest.DocTestParser().get_doctest(text, {}, NAME, None, 0)
        assert test.examples
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0


@pytest.mark.slow
def test_bare_name_loads_offline_after_install(tmp_path):
    env = {**__import__("os").environ, "HF_MODULES_CACHE": str(tmp_path / "modules"),
           "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "kpass.hf.install"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, check=True)
    assert f"evaluate-comparison--{NAME}" in done.stdout
    script = ("import evaluate\n"
              f"m = evaluate.load({NAME!r}, module_type='comparison')\n"
              "print(type(m).__name__, m.compute(predictions1=[[1, 1], [0, 1]],"
              " predictions2=[[0, 1], [0, 0]])['pass@1_difference'])\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["KpassCompare", "0.5"]
