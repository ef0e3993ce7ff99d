"""Planning from scratch, checked by seeded simulation: promised against realised power.

For each design, ``kpass.plan`` without a pilot gives the questions M a difference needs
(80% power, 95% confidence). The design is then simulated at M: question q's logit is
mu_A + spread Z_1 for model A and mu_B + spread (rho Z_1 + sqrt(1 - rho^2) Z_2) for model
B (mu_A, mu_B the locations the plan solved for, so the metric's population values are
baseline and baseline + difference), each model draws n Bernoulli samples per question,
and :func:`kpass.compare` (the paired t test ``kpass compare`` runs) rejects "no
difference" when its p-value is below 1 - confidence. Realised power is the share of
rejections; at difference 0 (B = A in distribution, the same M) the share is the test's
type-I error. The sign-flip p-value ``p_exact`` (80% of compare's time by Monte Carlo
flips at these sizes) is switched off: it enters ``p_value`` only when se = 0, and every
replication is checked to have se > 0, so the decisions are those of the unpatched
function. Each line: the design, M, the promised power (the plan's ``achieved``), the
realised power with its Monte Carlo standard error, the type-I error.

Usage: python benchmarks/bench_plan.py [--quick]
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from typing import Any
from unittest import mock

import numpy as np
from scipy.special import expit

import kpass
from kpass.stats import comparison
from kpass.stats.design import Design


def simulate(design: Design, difference: float, reps: int, seed: int,
             metric: Any = None, **kwargs: Any) -> float:
    """Share of ``reps`` simulated paired runs in which kpass.compare rejects at the level.

    The runs follow the design's model (see the module) with B - A = ``difference`` in the
    metric's population values, ``design.questions`` questions, ``design.samples``
    samples per question and model.
    """
    from kpass.stats.design import _Population

    point = metric if metric is not None else getattr(kpass, design.metric)
    population = _Population(point, design.k, design.samples, (), kwargs, design.spread,
                             design.correlation)
    mu_a = population.location(design.baseline, "baseline", design.label)
    mu_b = mu_a if difference == 0 else population.location(
        design.baseline + difference, "baseline + difference", design.label)
    rng = np.random.default_rng(seed)
    level = 1.0 - design.confidence
    rejected = 0
    with mock.patch.object(comparison, "sign_flip_p", lambda *args, **kwargs: None):
        for _ in range(reps):
            rejected += _rejects(rng, point, design, mu_a, mu_b, level, kwargs)
    return rejected / reps


def _rejects(rng: np.random.Generator, point: Any, design: Design, mu_a: float, mu_b: float,
             level: float, kwargs: dict[str, Any]) -> bool:
    """One simulated paired run: does kpass.compare reject at ``level``?"""
    m, n = design.questions, design.samples
    rest = math.sqrt(1.0 - design.correlation ** 2)
    z1, z2 = rng.standard_normal(m), rng.standard_normal(m)
    p_a = expit(mu_a + design.spread * z1)
    p_b = expit(mu_b + design.spread * (design.correlation * z1 + rest * z2))
    size = np.full(m, n)
    runs = [kpass.BinaryCounts(size, rng.binomial(n, p)) for p in (p_a, p_b)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        result = kpass.compare(point, runs[1], runs[0], design.k, **kwargs)
    if not result.se > 0:
        raise AssertionError("se = 0: p_value would have used p_exact")
    return bool(result.p_value < level)


#: (label, metric, k, baseline, difference, samples, spread, correlation, kwargs)
DESIGNS: list[tuple[str, Any, int, float, float, int, float | None, float | None,
                    dict[str, Any]]] = [
    ("Pass@1, defaults", kpass.pass_at_k, 1, 0.6, 0.05, 4, None, None, {}),
    ("Pass@1, 1 sample", kpass.pass_at_k, 1, 0.5, 0.10, 1, None, None, {}),
    ("Pass@1, small M", kpass.pass_at_k, 1, 0.6, 0.15, 4, None, 0.8, {}),
    ("Pass@4, 8 samples", kpass.pass_at_k, 4, 0.7, 0.06, 8, None, None, {}),
    ("Pass^4, 8 samples", kpass.pass_hat_k, 4, 0.3, 0.06, 8, None, None, {}),
    ("Pass^2, spread 1", kpass.pass_hat_k, 2, 0.4, 0.05, 4, 1.0, 0.8, {}),
    ("Maj@5, 5 samples", kpass.maj_at_k, 5, 0.6, 0.08, 5, None, None, {}),
    ("G-Pass@4_0.5", kpass.g_pass_at_k_tau, 4, 0.5, 0.08, 8, None, None, {"tau": 0.5}),
    ("AUC@4", kpass.auc_at_k, 4, 0.5, 0.06, 4, 3.0, 0.3, {}),
    ("Pass@1, corr 0.9", kpass.pass_at_k, 1, 0.8, 0.03, 4, None, 0.9, {}),
]


def plan_of(row: tuple[Any, ...]) -> Design:
    """The design of one DESIGNS row."""
    _, metric, k, baseline, difference, samples, spread, correlation, kwargs = row
    return kpass.plan(metric, k=k, baseline=baseline, difference=difference, samples=samples,
                      spread=spread, correlation=correlation, **kwargs)


def main(argv: list[str]) -> None:
    reps = 300 if "--quick" in argv else 1000
    print(f"{reps} replications per cell; seeds 1000 + row (power) and 2000 + row (null)")
    print(f"{'design':<20} {'M':>6} {'promised':>9} {'realised':>9} {'mc se':>6} "
          f"{'type I':>7}")
    for index, row in enumerate(DESIGNS):
        start = time.perf_counter()
        design = plan_of(row)
        metric, kwargs = row[1], row[8]
        realised = simulate(design, design.difference, reps, 1000 + index, metric, **kwargs)
        null = simulate(design, 0.0, reps, 2000 + index, metric, **kwargs)
        se = math.sqrt(realised * (1 - realised) / reps)
        print(f"{row[0]:<20} {design.questions:>6} {design.achieved:>9.3f} {realised:>9.3f} "
              f"{se:>6.3f} {null:>7.3f}   ({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
