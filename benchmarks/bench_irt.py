"""The IRT fit's speed: Rasch and 2PL on 100 models x 10,000 questions (kpass.stats.irt).

Simulated 2PL counts (1 and 16 samples per question by default). For each model and number of
samples, prints the CPU and wall seconds of :func:`kpass.stats.irt.fit_irt` (the best and the
median of ``--repeats`` runs; CPU time is ``time.process_time``, every thread of the process,
which a loaded machine does not inflate as it does wall time), its Newton steps, and:

* ``old``: the previous maximiser (alternating one Newton step on all abilities, then one
  2 x 2 step per question, log-posterior checked every 5 alternations; kept below as
  :func:`old_fit_irt`, the baseline, nowhere else) and the ratio old / new in CPU time;
* ``floor``: the Newton steps times the CPU time of one vectorised evaluation of the
  log-posterior and its gradient (:func:`log_posterior_and_gradient`, the least any method
  that looks at the data once per step must spend), and the ratio new / floor;
* ``new - old``: the log-posterior at the new fit minus the old one's (positive: the old
  stopped short of the maximum), the largest gap in a parameter, and the largest gradient
  component at the new fit relative to ``1 + |log-posterior|`` (a stationary point: ~0).

BLAS threads: on a machine whose cores are busy, OpenBLAS's threads spin and cost CPU time
(set ``OPENBLAS_NUM_THREADS=1`` to compare); the setting in effect is printed.
Run: ``python benchmarks/bench_irt.py [--models 100 --questions 10000 --samples 1 16
--repeats 3] [--no-old]`` (one to three minutes on a loaded 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import time
from statistics import median
from typing import Any

import numpy as np
from scipy.special import expit, log_expit

from kpass.stats.irt import (
    ABILITY_SD,
    INTERCEPT_SD,
    RASCH_ABILITY_SD,
    SLOPE_SD,
    IRTFit,
    fit_irt,
)


def log_posterior_and_gradient(n: np.ndarray, c: np.ndarray, theta: np.ndarray, d: np.ndarray,
                               a: np.ndarray, sd_theta: float
                               ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The log-posterior and its gradients in theta, d, a, written plainly and vectorised:
    sum c eta - n log(1 + e^eta) (one ``logaddexp``), r = c - n sigma(eta) (one ``expit``),
    the gradients r a, sum_j r, theta r (one-thread ``einsum`` reductions)."""
    eta = np.multiply.outer(theta, a) + d
    value = float(np.einsum("kq,kq->", c, eta) - np.einsum("kq,kq->", n, np.logaddexp(0.0, eta)))
    residual = c - n * expit(eta)
    value -= 0.5 * (np.sum(theta ** 2) / sd_theta ** 2 + np.sum(d ** 2) / INTERCEPT_SD ** 2
                    + np.sum((a - 1.0) ** 2) / SLOPE_SD ** 2)
    g_theta = np.einsum("kq,q->k", residual, a) - theta / sd_theta ** 2
    g_d = residual.sum(axis=0) - d / INTERCEPT_SD ** 2
    g_a = np.einsum("k,kq->q", theta, residual) - (a - 1.0) / SLOPE_SD ** 2
    return value, g_theta, g_d, g_a


def old_log_posterior(n: np.ndarray, c: np.ndarray, theta: np.ndarray, d: np.ndarray,
                      a: np.ndarray, sd_theta: float) -> float:
    """The old fit's evaluation of the log-posterior (part of the baseline)."""
    eta = np.multiply.outer(theta, a) + d
    value = float(np.sum(c * log_expit(eta) + (n - c) * log_expit(-eta)))
    return value - 0.5 * (np.sum(theta ** 2) / sd_theta ** 2 + np.sum(d ** 2) / INTERCEPT_SD ** 2
                          + np.sum((a - 1.0) ** 2) / SLOPE_SD ** 2)


def old_fit_irt(n: np.ndarray, c: np.ndarray, model: str = "2pl", tolerance: float = 1e-7,
                max_iterations: int = 1000, check_every: int = 5) -> IRTFit:
    """The previous kpass.stats.irt.fit_irt (the baseline): alternating block Newton steps."""
    K, Q = n.shape
    sd_theta = ABILITY_SD if model == "2pl" else RASCH_ABILITY_SD
    rate_model = (c.sum(axis=1) + 0.5) / (n.sum(axis=1) + 1.0)
    theta0 = np.log(rate_model / (1.0 - rate_model))
    theta0 = (theta0 - theta0.mean()) / (theta0.std() + 1e-9) * (1.0 if model == "2pl" else 1.5)
    rate_question = (c.sum(axis=0) + 0.5) / (n.sum(axis=0) + 1.0)
    d0 = np.log(rate_question / (1.0 - rate_question))
    a = np.ones(Q)
    theta, d = theta0, d0
    two = model == "2pl"
    converged = False
    eta = np.multiply.outer(theta, a) + d
    value = old_log_posterior(n, c, theta, d, a, sd_theta)
    iteration = 0
    for iteration in range(1, max_iterations + 1):
        p = expit(eta)
        w = n * p * (1.0 - p)
        residual = c - n * p
        step_theta = np.clip(((residual @ a) - theta / sd_theta ** 2)
                             / ((w @ (a * a)) + 1.0 / sd_theta ** 2), -1.0, 1.0)
        theta = theta + step_theta
        p = expit(np.multiply.outer(theta, a) + d)
        w = n * p * (1.0 - p)
        residual = c - n * p
        g_d = residual.sum(axis=0) - d / INTERCEPT_SD ** 2
        h_dd = w.sum(axis=0) + 1.0 / INTERCEPT_SD ** 2
        if two:
            g_a = theta @ residual - (a - 1.0) / SLOPE_SD ** 2
            h_aa = (theta * theta) @ w + 1.0 / SLOPE_SD ** 2
            h_ad = theta @ w
            det = h_dd * h_aa - h_ad * h_ad
            step_d = np.clip((h_aa * g_d - h_ad * g_a) / det, -1.0, 1.0)
            step_a = np.clip((h_dd * g_a - h_ad * g_d) / det, -1.0, 1.0)
            a = a + step_a
        else:
            step_d = np.clip(g_d / h_dd, -1.0, 1.0)
        d = d + step_d
        eta = np.multiply.outer(theta, a) + d
        if iteration % check_every and iteration < max_iterations:
            continue
        before, value = value, old_log_posterior(n, c, theta, d, a, sd_theta)
        if value - before < check_every * tolerance * (1.0 + abs(value)):
            converged = True
            break
    return IRTFit(model=model, ability=theta, intercept=d, slope=a, log_posterior=value,
                  converged=converged, iterations=iteration)


def timed(function: Any, *args: Any, **kwargs: Any) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--samples", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--repeats", type=int, default=3, help="runs of the new fit (best, median)")
    parser.add_argument("--no-old", action="store_true", help="skip the old fit (the baseline)")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    rng = np.random.default_rng(options.seed)
    K, Q = options.models, options.questions
    theta = rng.normal(size=K)
    a = np.exp(rng.normal(0, 0.35, Q))
    d = rng.normal(0, 1.5, Q)
    p = 1 / (1 + np.exp(-(np.multiply.outer(theta, a) + d)))
    threads = {key: os.environ[key] for key in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
               if key in os.environ}
    print(f"{K} models x {Q} questions, {os.cpu_count()} cores, BLAS threads: "
          f"{threads or 'default'}; seconds: best (median) of {options.repeats} runs")
    print("| model | samples | new CPU s | new wall s | steps | old CPU s | old wall s | "
          "old / new (CPU) | floor CPU s | new / floor | new - old (log-post) | "
          "max param gap | max grad | corr(ability) |")
    print("| --- " * 14 + "|")
    for samples in options.samples:
        c = rng.binomial(samples, p).astype(float)
        n = np.full(c.shape, float(samples))
        for model in ("rasch", "2pl"):
            runs = [timed(fit_irt, n, c, model=model) for _ in range(options.repeats)]
            fit = runs[0][0]
            cpu = [run[1] for run in runs]
            wall = [run[2] for run in runs]
            sd = ABILITY_SD if model == "2pl" else RASCH_ABILITY_SD
            evaluations = [timed(log_posterior_and_gradient, n, c, fit.ability, fit.intercept,
                                 fit.slope, sd)[1] for _ in range(3)]
            floor = fit.iterations * min(evaluations)
            value, *gradient = log_posterior_and_gradient(n, c, fit.ability, fit.intercept,
                                                          fit.slope, sd)
            if model == "rasch":
                gradient = gradient[:2]  # the slopes are fixed at 1
            grad = max(float(np.max(np.abs(g))) for g in gradient) / (1 + abs(value))
            old_cells = ["-"] * 5
            if not options.no_old:
                old, old_cpu, old_wall = timed(old_fit_irt, n, c, model=model)
                gap = max(float(np.max(np.abs(x - y))) for x, y in
                          ((fit.ability, old.ability), (fit.intercept, old.intercept),
                           (fit.slope, old.slope)))
                old_cells = [f"{old_cpu:.2f}", f"{old_wall:.2f}", f"{old_cpu / min(cpu):.1f}",
                             f"{fit.log_posterior - old.log_posterior:.3g}", f"{gap:.2g}"]
            cells = [model, str(samples), f"{min(cpu):.2f} ({median(cpu):.2f})",
                     f"{min(wall):.2f} ({median(wall):.2f})", str(fit.iterations),
                     *old_cells[:3], f"{floor:.2f}", f"{min(cpu) / floor:.1f}", *old_cells[3:],
                     f"{grad:.1e}", f"{np.corrcoef(fit.ability, theta)[0, 1]:.4f}"]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
