"""``key_style="safe"``: result keys every logger takes, logged into a real MLflow store."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
if "evaluate" not in sys.modules:
    os.environ["HF_MODULES_CACHE"] = tempfile.mkdtemp(prefix="kpass-hf-modules-")

evaluate = pytest.importorskip("evaluate")
from kpass.data import tau_bench_outcomes  # noqa: E402
from kpass.hf.keywords import safe_key  # noqa: E402
from kpass.hf.vocabulary import COMPARISONS, FAMILIES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "metrics"
MODULES = sorted(name for name in FAMILIES if name not in COMPARISONS)
# TensorBoard keeps tag characters matching this (others become "_"); W&B takes them as-is
# and groups on "/". MLflow's own rule is checked with its validator below.
PORTABLE = re.compile(r"[A-Za-z0-9_./-]+")
OPTIONS = {"k": [1, 2, 4], "tau": [0.5], "lam": [0.5], "per_question": True}


def load(name, **kwargs):
    folder = METRICS.parent / "comparisons" if FAMILIES[name][0] == "binary_pair" else METRICS
    return evaluate.load(str(folder / name), keep_in_memory=True, **kwargs)


def inputs(name):
    R = tau_bench_outcomes()
    if FAMILIES[name][0] == "binary_pair":
        return {"predictions1": R, "predictions2": [row[::-1] for row in R[::-1]]}
    if FAMILIES[name][0] == "answers":
        return {"predictions": [[str(x) for x in row] for row in R], "references": ["1"] * len(R)}
    return {"predictions": R}


@pytest.mark.parametrize("name", MODULES)
def test_safe_keys_are_valid_everywhere_and_carry_the_same_values(name):
    from mlflow.utils.validation import _validate_metric_name

    plain = load(name)._compute(**inputs(name), **OPTIONS)
    safe = load(name, key_style="safe")._compute(**inputs(name), **OPTIONS)
    assert safe == {safe_key(key): value for key, value in plain.items()}
    assert len(safe) == len(plain)  # one-to-one
    # No name is a path prefix of another (MLflow's file store cannot hold both).
    assert not [a for a in safe for b in safe if b.startswith(a + "/")]
    for key in safe:
        assert PORTABLE.fullmatch(key), key
        _validate_metric_name(key)
    # Compute-time overrides load-time, both ways.
    assert load(name, key_style="safe")._compute(**inputs(name), **OPTIONS,
                                                 key_style="kpass") == plain


def assert_portable(keys):
    from mlflow.utils.validation import _validate_metric_name

    assert not [a for a in keys for b in keys if b.startswith(a + "/")]
    for key in keys:
        assert PORTABLE.fullmatch(key), key
        _validate_metric_name(key)


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_keys_are_safe_too(name):
    module = evaluate.load(str(ROOT / "comparisons" / name), module_type="comparison",
                           keep_in_memory=True)
    R = tau_bench_outcomes()
    A, B = [row[:2] for row in R], [row[2:] for row in R]
    plain = module.compute(predictions1=A, predictions2=B, k=[1, 2])
    safe = module.compute(predictions1=A, predictions2=B, k=[1, 2], key_style="safe")
    assert safe == {safe_key(key): value for key, value in plain.items()}
    assert len(safe) == len(plain) and "pass_at_1/difference" in safe
    assert_portable(safe)


def test_examples_of_the_mapping():
    assert [safe_key(k) for k in ("pass@8", "pass@8_mean", "pass^4_sd", "pass^4_cred_lo",
                                  "mg-pass@4_cred_hi", "g-pass@2_tau0.5", "bayes@n_per_question",
                                  "geo_spectrum@4_lam0.5_se")] == [
        "pass_at_8/estimate", "pass_at_8/mean", "pass_hat_4/sd", "pass_hat_4/cred_lo",
        "mg_pass_at_4/cred_hi", "g_pass_at_2_tau0.5/estimate", "bayes_at_n/per_question",
        "geo_spectrum_at_4_lam0.5/se"]


def test_default_keys_are_unchanged():
    assert "pass@1" in load("pass_at_k_bayes").compute(predictions=[[0, 1, 1]])


@pytest.mark.parametrize("bad", ["Safe", "mlflow", 1, None])
def test_bad_key_style_is_named(bad):
    with pytest.raises(ValueError, match=r"`key_style` must be one of 'kpass', 'safe'"):
        load("pass_at_k_bayes", key_style=bad)


@pytest.mark.parametrize("store", ["file", "sqlite"])
@pytest.mark.slow
def test_combined_result_logs_into_a_real_mlflow_store(tmp_path, monkeypatch, store):
    mlflow = pytest.importorskip("mlflow")
    if store == "sqlite":  # what MLflow 3 recommends; needs SQLAlchemy (full mlflow, not skinny)
        pytest.importorskip("sqlalchemy")
        uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    else:  # MLflow 3 refuses the file store unless it is opted into
        monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
        uri = (tmp_path / "mlruns").as_uri()
    combined = evaluate.combine([load("pass_at_k_bayes"), load("maj_at_k_bayes"),
                                 load("g_pass_at_k_bayes")])
    results = combined.compute(predictions=tau_bench_outcomes(), k=[1, 2, 4],
                               key_style="safe")
    mlflow.set_tracking_uri(uri)
    mlflow.set_experiment("kpass")
    with mlflow.start_run() as run:
        mlflow.log_metrics(results, step=3)
    logged = mlflow.MlflowClient().get_run(run.info.run_id).data.metrics
    assert logged == pytest.approx(results, rel=1e-12)
    assert logged["pass_hat_4/estimate"] == pytest.approx(0.2)  # tau-bench GPT-4o airline Pass^4
    history = mlflow.MlflowClient().get_metric_history(run.info.run_id, "pass_at_4/mean")
    assert [m.step for m in history] == [3]
