"""Ingestion speed of the metric modules against the core (not a timed test).

Measures, in one run, add_batch(predictions=R) + compute() of pass_at_k_bayes on a
100000 x 64 int8 matrix (numpy and Python lists) against the core computing the same
results from R directly, and evaluate's default Arrow ingestion of a 20000 x 200 matrix.

Run: python benchmarks/bench_modules.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_MODULES_CACHE", tempfile.mkdtemp(prefix="kpass-bench-modules-"))

import datasets  # noqa: E402
import evaluate  # noqa: E402
import numpy as np  # noqa: E402

import kpass  # noqa: E402

METRIC = str(Path(__file__).resolve().parents[1] / "metrics" / "pass_at_k_bayes")
KS = [1, 8]


def best(function, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def core(R):
    counts = kpass.binary_counts(R)  # count once, as the module does
    return (kpass.pass_at_k(counts, KS), kpass.pass_at_k_ci(counts, KS),
            kpass.pass_hat_k(counts, KS), kpass.pass_hat_k_ci(counts, KS))


def core_naive(R):
    return (kpass.pass_at_k(R, KS), kpass.pass_at_k_ci(R, KS),
            kpass.pass_hat_k(R, KS), kpass.pass_hat_k_ci(R, KS))


def module_run(R, cache):
    module = evaluate.load(METRIC, k=KS, cache_dir=cache)
    module.add_batch(predictions=R)
    return module.compute()


class _Default(evaluate.Metric):
    """evaluate's default ingestion: a list feature written through Arrow."""

    def _info(self):
        return evaluate.MetricInfo(description="", citation="", inputs_description="",
                                   features=datasets.Features(
                                       {"predictions": datasets.List(datasets.Value("int8"))}))

    def _compute(self, predictions):
        return {"n": len(predictions)}


def main():
    rng = np.random.default_rng(0)
    R = (rng.random((100_000, 64)) < 0.4).astype(np.int8)
    lists = R.tolist()
    cache = tempfile.mkdtemp(prefix="kpass-bench-")
    module_run(R, cache)  # warm up (script copy, imports)
    results = {}
    for label, data in (("numpy", R), ("lists", lists)):
        t_core = best(lambda d=data: core(d))
        t_naive = best(lambda d=data: core_naive(d))
        t_module = best(lambda d=data: module_run(d, cache))
        results[label] = (t_module, t_core, t_naive)
        print(f"{label:6s} module {t_module * 1e3:8.1f} ms | core (count once) "
              f"{t_core * 1e3:8.1f} ms"
              f" -> ratio {t_module / t_core:5.2f} | core (count per call) {t_naive * 1e3:8.1f} ms"
              f" -> ratio {t_module / t_naive:5.2f}")
    small = (rng.random((20_000, 200)) < 0.4).astype(np.int8)

    def default():
        metric = _Default(cache_dir=cache)
        metric.add_batch(predictions=small)
        metric.compute()

    t_default = best(default, repeat=2)
    t_count = best(lambda: kpass.binary_counts(small))
    print(f"evaluate default ingestion of 20000 x 200: {t_default * 1e3:.0f} ms; "
          f"kpass counting: {t_count * 1e3:.2f} ms")
    m = evaluate.load(METRIC, k=KS, cache_dir=cache)
    t_fast = best(lambda: (m.add_batch(predictions=small), m.compute()))
    print(f"kpass module add_batch + compute of 20000 x 200: {t_fast * 1e3:.1f} ms")
    assert module_run(R, cache)["pass@8"] == kpass.pass_at_k(R, 8)


if __name__ == "__main__":
    main()
