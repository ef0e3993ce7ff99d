"""kpass.lighteval: kpass's pass family as a lighteval custom metric.

Three parts:

- **Always (CI)**: the recipe's kpass side, without lighteval: per-document values against
  brute-force enumeration of k-subsets in exact Fraction arithmetic; the corpus numbers
  against kpass's own point functions and ``kpass.standard_error`` on the counts, and the
  interval against scipy's Student t; bad input.
- **Always (CI)**: the files a real lighteval 0.13.0 run wrote with the recipe
  (``tests/fixtures/lighteval/kpass_recipe/``, README there): every ``kpass_*`` number
  against brute force over the run's plan, and against lighteval's own ``pass@k`` and
  ``g-pass@k`` in the same run.
- **Only with lighteval installed** (skipped in CI, whose test venv has no lighteval: it
  is a 6 GB install): ``pass_metrics`` runs through lighteval's own ``apply_metric``,
  ``MetricsLogger.aggregate`` and a whole offline pipeline, compared with lighteval's
  ``PassAtK`` / ``GPassAtK`` on the same documents.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from math import ceil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import kpass
from kpass._core.counting.counts import BinaryCounts
from kpass.families import function as family_function
from kpass.lighteval import USABLE, corpus_summary, measures, pass_metrics, question_values

FIXTURE = Path(__file__).parents[1] / "fixtures" / "lighteval" / "kpass_recipe"
RESULTS = FIXTURE / "results_2026-11-26T06-11-57.073340.json"
DETAILS = FIXTURE / "details_kp_pass_0_2026-11-26T06-11-57.073340.parquet"


# ------------------------------------------------------------------ brute-force references

def _subsets(outcomes, k):
    """Every k-subset of the generations, as its number of correct ones."""
    return [sum(chosen) for chosen in combinations(outcomes, k)]


def _share(outcomes, k, accept):
    hits = _subsets(outcomes, k)
    return Fraction(sum(1 for h in hits if accept(h)), len(hits))


def brute(key, outcomes, k, tau=0.5):
    """The family's per-question value: the share of k-subsets of the n generations."""
    if key == "pass@k":
        return _share(outcomes, k, lambda h: h >= 1)
    if key == "pass^k":
        return _share(outcomes, k, lambda h: h == k)
    if key == "g-pass@k_tau":
        return _share(outcomes, k, lambda h: h >= ceil(tau * k))
    if key == "mg-pass@k":  # Liu et al. (2024): 2/k sum_{j = ceil(k/2)+1}^{k} P(X >= j)
        return Fraction(2, k) * sum((_share(outcomes, k, lambda h, j=j: h >= j)
                                     for j in range(ceil(k / 2) + 1, k + 1)), Fraction(0))
    raise KeyError(key)


BRUTE_KEYS = ("pass@k", "pass^k", "g-pass@k_tau", "mg-pass@k")
PLANS = [[1, 0, 1, 1, 0, 0, 1, 0], [0] * 8, [1] * 8, [0, 0, 0, 0, 0, 0, 0, 1],
         [1, 1, 1, 1, 1, 1, 0, 1], [1, 0, 0, 1, 0, 1]]


# -------------------------------------------------------------------- the kpass side (CI)

@pytest.mark.parametrize("plan", PLANS, ids=lambda p: "".join(map(str, p)))
def test_question_values_are_the_shares_of_k_subsets(plan):
    for tau in (0.25, 0.5, 1.0):
        chosen = measures([1, 2, 3, 4, 5], BRUTE_KEYS, tau=tau)
        got = question_values(plan, chosen)
        for m in chosen:
            key = {"pass_at_k": "pass@k", "pass_hat_k": "pass^k",
                   "g_pass_at_k_tau": "g-pass@k_tau", "mg_pass_at_k": "mg-pass@k"}[m.function]
            assert got[m.name] == pytest.approx(float(brute(key, plan, m.k, tau)), abs=1e-12), (
                m.name, plan, tau)


def test_names_follow_the_registry_keys():
    names = [m.name for m in measures(4, ("pass@k", "pass^k", "g-pass@k_tau", "mg-pass@k"),
                                      tau=0.75)]
    assert names == ["kpass_pass@4", "kpass_pass^4", "kpass_g-pass@4_tau0.75",
                     "kpass_mg-pass@4"]
    assert [m.name for m in measures(2, "pass@k", prefix="")] == ["pass@2"]
    # each k and family once: lighteval keys its results by name
    assert [m.name for m in measures([2, 2, 1], ("pass@k", "pass@k"))] == [
        "kpass_pass@2", "kpass_pass@1"]


def _random_plans(seed, questions, n):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, size=questions)
    return [list((rng.random(n) < pq).astype(int)) for pq in p]


@pytest.mark.parametrize("key", USABLE)
def test_corpus_numbers_are_kpass_on_the_counts(key):
    """Mean of the documents' values = kpass's point function on all counts; the stderr =
    kpass.standard_error (computed by kpass from the counts by its own route)."""
    plans = _random_plans(7, 25, 8)
    counts = BinaryCounts(np.array([len(p) for p in plans]), np.array([sum(p) for p in plans]))
    for m in measures([1, 3, 8], (key,), tau=0.5):
        values = [question_values(p, (m,))[m.name] for p in plans]
        result = corpus_summary(m.name)(values)
        point = family_function(m.function)
        assert result[m.name] == pytest.approx(float(point(counts, m.k, *m.args)), abs=1e-12)
        if np.ptp(values) == 0:
            assert result[m.name + "_stderr"] == 0.0
            continue
        with pytest.warns(kpass.SmallSampleWarning):  # 25 questions
            se = kpass.standard_error(point, counts, m.k, *m.args)
        assert result[m.name + "_stderr"] == pytest.approx(se, rel=1e-10, abs=1e-14), m.name


def test_corpus_interval_is_students_t_mid_range_and_stays_in_bounds():
    values = [0.2, 0.9, 0.5, 0.4, 0.7, 0.3, 0.6, 0.55, 0.45, 0.35]
    result = corpus_summary("x")(values)
    m = len(values)
    mean = float(np.mean(values))
    se = float(np.std(values, ddof=1) / math.sqrt(m))
    q = stats.t.ppf(0.975, m - 1)
    assert result["x"] == pytest.approx(mean)
    assert result["x_stderr"] == pytest.approx(se)
    assert (result["x_lo"], result["x_hi"]) == pytest.approx((mean - q * se, mean + q * se))
    # 90%: a narrower t interval
    narrow = corpus_summary("x", 0.9)(values)
    q90 = stats.t.ppf(0.95, m - 1)
    assert (narrow["x_lo"], narrow["x_hi"]) == pytest.approx((mean - q90 * se, mean + q90 * se))
    # near 1 and all equal: inside [0, 1], positive width, the exact bound at se = 0
    near = corpus_summary("x")([1.0] * 11 + [0.0])
    assert 0.0 <= near["x_lo"] < near["x"] < near["x_hi"] <= 1.0
    ones = corpus_summary("x")([1.0] * 10)
    assert ones["x_stderr"] == 0.0 and ones["x_hi"] == 1.0
    assert ones["x_lo"] == pytest.approx(0.025 ** (1 / 10))  # Clopper-Pearson of 10 in 10


def test_documents_without_a_value_are_left_out():
    result = corpus_summary("x")([0.5, math.nan, 1.0, 0.0])
    assert result["x"] == pytest.approx(0.5)
    assert result["x_stderr"] == pytest.approx(float(np.std([0.5, 1, 0], ddof=1)) / math.sqrt(3))
    one = corpus_summary("x")([0.25])
    assert one["x"] == 0.25 and math.isnan(one["x_stderr"]) and math.isnan(one["x_lo"])


def test_short_documents_error_or_skip():
    chosen = measures([1, 4])
    with pytest.raises(ValueError, match=r"doc 'q7' has 3 generations; kpass_pass@4 needs"):
        question_values([1, 0, 1], chosen, doc="doc 'q7'")
    skipped = question_values([1, 0, 1], chosen, short="skip")
    assert skipped["kpass_pass@1"] == pytest.approx(2 / 3)
    assert math.isnan(skipped["kpass_pass@4"]) and math.isnan(skipped["kpass_pass^4"])


@pytest.mark.parametrize("call, match", [
    (lambda: measures(0), r"k must be an integer >= 1; got 0"),
    (lambda: measures([]), r"at least one budget"),
    (lambda: measures(2, ("pass@k", "vote@k")), r"family 'vote@k' cannot be a lighteval metric"),
    (lambda: measures(2, ("nope",)), r"family 'nope'.*expected one of pass@k, pass\^k"),
    (lambda: measures(2, ("g-pass@k_tau",), tau=1.5), r"tau must be a number in \[0, 1\]"),
    (lambda: question_values([1, 0.5], measures(1)), r"generation 1: .* gave 0.5; expected 0 or 1"),
    (lambda: question_values(["yes"], measures(1)), r"gave 'yes'; expected 0 or 1"),
    (lambda: question_values([1], measures(1), short="drop"),
     r"`short` must be one of 'error', 'skip'; got short='drop'"),
    (lambda: corpus_summary("x", 1.0), r"confidence must be in \(0, 1\); got 1.0"),
    (lambda: pass_metrics(k=[1, 16], n=8), r"k = 16 is more than the n = 8 generations"),
    (lambda: pass_metrics(k=1, n=0), r"n must be an integer >= 1; got 0"),
    (lambda: pass_metrics(k=1, n=4, temperature=1),
     r"unknown scoring option\(s\) \['temperature'\]"),
])
def test_bad_input_is_a_value_error_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_importing_the_recipe_does_not_import_lighteval():
    code = ("import sys, kpass.lighteval as r; r.measures(4); r.question_values([1, 0], "
            "r.measures(1)); print('lighteval' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_without_lighteval_pass_metrics_says_what_to_install():
    try:
        import lighteval  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("lighteval is installed here")
    with pytest.raises(ImportError, match=r"needs lighteval: pip install lighteval"):
        pass_metrics(k=[1, 4], n=8)


# ------------------------------------------------- the files a real lighteval run wrote (CI)

def _plans():
    rows = [json.loads(line) for line in (FIXTURE / "data_test.jsonl").read_text().splitlines()]
    return [[int(ch) for ch in row["plan"]] for row in rows]


def test_the_lighteval_run_reports_kpass_numbers_that_match_brute_force_and_kpass():
    results = json.loads(RESULTS.read_text())["results"]["kp_pass|0"]
    plans = _plans()
    assert len(plans) == 12
    counts = BinaryCounts(np.array([8] * len(plans)), np.array([sum(p) for p in plans]))
    for key in BRUTE_KEYS:
        for k in (1, 4):
            name = measures(k, (key,), tau=0.5)[0].name
            exact = [brute(key, p, k) for p in plans]
            estimate = sum(exact, Fraction(0)) / len(exact)
            assert results[name] == pytest.approx(float(estimate), abs=1e-12), name
            # the textbook SE of the per-question values, in exact arithmetic
            var = sum(((e - estimate) ** 2 for e in exact), Fraction(0))
            se = math.sqrt(var / (len(exact) * (len(exact) - 1)))
            assert results[name + "_stderr"] == pytest.approx(se, rel=1e-10, abs=1e-14), name
            assert 0.0 <= results[name + "_lo"] <= results[name] <= results[name + "_hi"] <= 1.0
    assert results["kpass_pass@4"] == pytest.approx(kpass.pass_at_k(counts, 4), abs=1e-12)
    assert results["kpass_pass^4"] == pytest.approx(kpass.pass_hat_k(counts, 4), abs=1e-12)
    # the t interval, mid-range (Pass@1 = 0.53): estimate -/+ t_{11} se
    q = stats.t.ppf(0.975, 11)
    assert (results["kpass_pass@1_lo"], results["kpass_pass@1_hi"]) == pytest.approx(
        (results["kpass_pass@1"] - q * results["kpass_pass@1_stderr"],
         results["kpass_pass@1"] + q * results["kpass_pass@1_stderr"]))


def test_the_lighteval_run_agrees_with_lightevals_own_pass_at_k_and_g_pass():
    results = json.loads(RESULTS.read_text())["results"]["kp_pass|0"]
    pairs = {"kpass_pass@4": "pass@k:k=4&n=8", "kpass_g-pass@4_tau0.5": "g-pass@4_0.5",
             "kpass_mg-pass@4": "mg-pass@4", "kpass_pass^4": "g-pass@4_1.0"}
    for ours, theirs in pairs.items():
        assert results[ours] == pytest.approx(results[theirs], abs=1e-12), (ours, theirs)
        # lighteval's stderr of a mean (sample SD / sqrt(M)) is kpass's SE over questions
        assert results[ours + "_stderr"] == pytest.approx(results[theirs + "_stderr"],
                                                          rel=1e-10), (ours, theirs)


def test_the_lighteval_details_hold_kpass_values_per_document():
    pq = pytest.importorskip("pyarrow.parquet")
    rows = pq.read_table(DETAILS).to_pylist()
    assert len(rows) == 12
    for row in rows:
        plan = [int(ch) for ch in row["doc"]["specific"]["plan"]]
        gold = row["doc"]["choices"][0]
        # the 8 generations lighteval asked the model for, answering by the plan
        assert [int(t == gold) for t in row["model_response"]["text"]] == plan
        for key in BRUTE_KEYS:
            for k in (1, 4):
                name = measures(k, (key,), tau=0.5)[0].name
                assert row["metric"][name] == pytest.approx(float(brute(key, plan, k)),
                                                             abs=1e-12), (name, plan)
        assert row["metric"]["kpass_pass@4"] == pytest.approx(row["metric"]["pass@k:k=4&n=8"])


# ------------------------------------------------------- inside lighteval (needs lighteval)

def _lighteval():
    return pytest.importorskip("lighteval", reason="lighteval is not installed (a 6 GB "
                                                    "install; CI's test venv has none)")


def _docs_and_responses(plans):
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.requests import Doc

    docs = [Doc(query=f"q{i}: 2+{i}?", choices=[f"{2 + i}"], gold_index=0, task_name="t|0",
                id=f"q{i}") for i in range(len(plans))]
    # padded golds and other answers: lighteval's strip_strings scoring decides
    responses = [ModelResponse(text=[f" {2 + i} " if o else "no" for o in plan])
                 for i, plan in enumerate(plans)]
    return docs, responses


def test_inside_lighteval_per_document_values_match_its_own_pass_at_k():
    _lighteval()
    from lighteval.metrics import apply_metric
    from lighteval.metrics.metrics import Metrics
    from lighteval.metrics.metrics_sample import SamplingMetric
    from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping

    plans = _random_plans(11, 20, 8)
    docs, responses = _docs_and_responses(plans)
    ours = pass_metrics(k=[1, 4], n=8, families=("pass@k", "pass^k", "g-pass@k_tau",
                                                 "mg-pass@k"), tau=0.5)
    assert isinstance(ours, SampleLevelMetricGrouping)
    assert isinstance(ours.sample_level_fn, SamplingMetric)  # lighteval asks it for n
    assert ours.sample_level_fn.num_samples() == 8
    theirs = [Metrics.pass_at_k(sample_params={"k": 4, "n": 8}),
              Metrics.g_pass_at_k(sample_params={"k": 4, "n": 8})]
    outputs = apply_metric(responses, docs, [ours, *theirs])
    for plan, out in zip(plans, outputs, strict=True):
        assert out["kpass_pass@4"] == pytest.approx(out["pass@k:k=4&n=8"], abs=1e-12)
        assert out["kpass_g-pass@4_tau0.5"] == pytest.approx(out["g-pass@4_0.5"], abs=1e-12)
        assert out["kpass_mg-pass@4"] == pytest.approx(out["mg-pass@4"], abs=1e-12)
        assert out["kpass_pass^4"] == pytest.approx(out["g-pass@4_1.0"], abs=1e-12)
        for key in BRUTE_KEYS:
            for k in (1, 4):
                name = measures(k, (key,), tau=0.5)[0].name
                assert out[name] == pytest.approx(float(brute(key, plan, k)), abs=1e-12)


def test_inside_lighteval_aggregation_gives_kpass_numbers_beside_its_stderr():
    _lighteval()
    from lighteval.logging.info_loggers import MetricsLogger
    from lighteval.metrics import apply_metric
    from lighteval.metrics.metrics import Metrics

    plans = _random_plans(13, 30, 8)
    docs, responses = _docs_and_responses(plans)
    ours = pass_metrics(k=4, n=8, families=("pass@k", "pass^k"))
    theirs = Metrics.pass_at_k(sample_params={"k": 4, "n": 8})

    class Task:  # what MetricsLogger.aggregate asks of a task
        def aggregation(self):
            return {**ours.get_corpus_aggregations(), **theirs.get_corpus_aggregations()}

    logger = MetricsLogger()
    for out in apply_metric(responses, docs, [ours, theirs]):
        logger.log("t|0", out)
    logger.aggregate({"t|0": Task()}, bootstrap_iters=0)
    got = logger.metric_aggregated["t|0"]
    counts = BinaryCounts(np.array([8] * 30), np.array([sum(p) for p in plans]))
    assert got["kpass_pass@4"] == pytest.approx(kpass.pass_at_k(counts, 4), abs=1e-12)
    assert got["kpass_pass^4"] == pytest.approx(kpass.pass_hat_k(counts, 4), abs=1e-12)
    assert got["kpass_pass^4_stderr"] == pytest.approx(
        kpass.standard_error(kpass.pass_hat_k, counts, 4), rel=1e-10)
    assert got["kpass_pass@4"] == pytest.approx(got["pass@k:k=4&n=8"], abs=1e-12)
    # with bootstrap_iters=0 lighteval gives its own pass@k no stderr; with the default
    # it uses mean_stderr for np.mean: the same number as kpass's
    from lighteval.metrics.utils.stderr import mean_stderr

    values = [out["pass@k:k=4&n=8"] for out in apply_metric(responses, docs, [theirs])]
    assert got["kpass_pass@4_stderr"] == pytest.approx(mean_stderr(values), rel=1e-10)
    assert got["kpass_pass@4_lo"] < got["kpass_pass@4"] < got["kpass_pass@4_hi"]


def test_inside_lighteval_the_metric_survives_copy_and_pickle():
    _lighteval()
    import copy
    import pickle

    metric = pass_metrics(k=[1, 2], n=4)
    for clone in (copy.deepcopy(metric), pickle.loads(pickle.dumps(metric))):
        assert clone.metric_name == metric.metric_name
        assert clone.sample_level_fn.num_samples() == 4
        agg = clone.get_corpus_aggregations()["kpass_pass@2"]([0.5, 1.0])
        assert agg["kpass_pass@2"] == 0.75


@pytest.mark.slow
def test_inside_lighteval_a_whole_offline_run(tmp_path, monkeypatch):
    """The fixture's run again: lighteval's `custom` command body, the planned model."""
    _lighteval()
    from lighteval.main_custom import custom
    from lighteval.tasks.registry import Registry

    data = tmp_path / "data"
    data.mkdir()
    (data / "test.jsonl").write_text((FIXTURE / "data_test.jsonl").read_text())
    tasks = (FIXTURE / "kpass_tasks.py.txt").read_text().replace("/tmp/lt-run/data", str(data))
    (tmp_path / "kpass_tasks.py").write_text(tasks)
    (tmp_path / "planned_model.py").write_text((FIXTURE / "planned_model.py.txt").read_text())

    def custom_only(custom_tasks=None, load_multilingual=False):  # the offline catalogue
        return Registry._extract_configs(Registry.create_custom_tasks_module(custom_tasks))

    monkeypatch.setattr(Registry, "load_all_task_configs", staticmethod(custom_only))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    results = custom(model_name="planned",
                     model_definition_file_path=str(tmp_path / "planned_model.py"),
                     tasks="kp_pass|0", custom_tasks=str(tmp_path / "kpass_tasks.py"),
                     output_dir=str(tmp_path / "out"), save_details=False)
    got = results["results"]["kp_pass:0"]  # the file says kp_pass|0, the returned dict ':'
    expected = json.loads(RESULTS.read_text())["results"]["kp_pass|0"]
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-14), key
