"""benchmarks/bench_subset.py at modest replications: coverage, RMSE against the plain random
subset, tinyBenchmarks' p-IRT and the best any estimator can do (the oracle), on 1,000
questions, 40 reference models, m = 100, 4 samples per question."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_subset",
                                                  ROOT / "benchmarks" / "bench_subset.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("truth", ["2pl", "2dim", "better"])
def test_subset_targets(truth):
    result = _bench().run(truth, 4, (100,), reps=150, seed=7)[100]
    rmse = result["rmse"]
    # 150 replications: the coverage's Monte Carlo SE is 0.018
    assert 0.91 <= result["coverage"] <= 0.985
    assert abs(result["bias"]["kpass"]) < 3 * rmse["kpass"] / 150 ** 0.5
    assert rmse["kpass"] < 0.9 * rmse["plain"]
    if truth == "2pl":  # the IRT model is right: near the oracle, no worse than p-IRT
        assert rmse["kpass"] < 1.15 * rmse["oracle"]
        assert rmse["kpass"] <= 1.06 * rmse["p-IRT"]
    else:  # it is not: better
        assert rmse["kpass"] < rmse["p-IRT"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 21])
def test_better_model_one_sample_few_questions_covers(seed):
    """The case the t interval missed (a new model better than every reference, one sample,
    m = 50: 0.925 and 0.877 here, nearly all misses above the truth): the model-noise variance
    floor and Hall's skewness correction bring it into 93-97% with neither tail over 5%."""
    result = _bench().run("better", 1, (50,), reps=400, seed=seed)[50]
    assert 0.93 <= result["coverage"] <= 0.97
    assert result["missed_above"] <= 0.05 and result["missed_below"] <= 0.05
