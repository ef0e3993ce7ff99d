"""Inference on the leaderboard's winner: coverage of the corrected interval against the naive
one, median bias of the estimates, and the coverage and size of the set for the best model.

Each replication draws M questions; model j's success rate on question q is
expit(a_j + 1.5 (rho u_q + sqrt(1 - rho^2) v_jq)) with u_q shared by every model (the paired
correlation over questions) and v_jq the model's own; n samples per question and model; the
per-question values are Pass@1. The true value of model j is E[expit(a_j + 1.5 Z)]
(Gauss-Hermite). The winner is the model with the largest estimate; the naive interval is
its leaderboard interval (kpass.stats.intervals), the corrected one the hybrid interval of
Andrews, Kitagawa and McCloskey (:mod:`kpass.stats.winners`), both at 95%. The best set
covers when it holds every model tied for the true best.

The numbers are those of :func:`kpass.leaderboard` (its covariance, df, intervals, best set
and winner), called on the per-question values directly so that the sign-flip rank sets
(not measured here) do not dominate the run time.

Usage: python benchmarks/sim_winner.py [--quick]   (default: 1000 replications per design,
about 5 minutes of CPU; --quick: 200)
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.special import expit

from kpass.stats.intervals import intervals
from kpass.stats.rank_sets import _covariance, noise_free_se
from kpass.stats.winners import best_set, winner_inference

DESIGNS = [  # (label, true Pass@1 of each model, rho, questions, samples)
    ("3 models, top 2 tied, 100 q, rho 0.7, n 4", [0.6, 0.6, 0.5], 0.7, 100, 4),
    ("5 models all tied, 60 q, rho 0.8, n 2", [0.6] * 5, 0.8, 60, 2),
    ("10 models, top 3 tied, 200 q, rho 0.6, n 1", [0.55] * 3 + [0.5, 0.48, 0.46, 0.44, 0.42,
                                                             0.40, 0.38], 0.6, 200, 1),
    ("20 models on a grid, 500 q, rho 0.7, n 4", list(np.linspace(0.70, 0.51, 20)), 0.7,
     500, 4),
    ("10 models near 1, top 4 tied, 300 q, rho 0.8, n 4", [0.95] * 4 + [0.94, 0.93, 0.92,
                                                                      0.91, 0.9, 0.89],
     0.8, 300, 4),
    ("8 models near 0, top 2 tied, 150 q, rho 0.5, n 8", [0.06, 0.06, 0.05, 0.05, 0.04, 0.04,
                                                          0.03, 0.02], 0.5, 150, 8),
    ("3 models, clear winner, 30 q, rho 0.7, n 4", [0.7, 0.5, 0.45], 0.7, 30, 4),
]
SCALE = 1.5
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(120)
WEIGHTS = WEIGHTS / WEIGHTS.sum()


def _mean(shift: float) -> float:
    return float(WEIGHTS @ expit(shift + SCALE * NODES))


def _shift_for(value: float) -> float:
    """The a with E[expit(a + 1.5 Z)] = value (bisection on a monotone function)."""
    low, high = -20.0, 20.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if _mean(middle) < value else (low, middle)
    return (low + high) / 2


def run(design: tuple, replications: int, seed: int) -> dict[str, float]:
    label, truth, rho, questions, samples = design
    truth = np.array(truth, dtype=float)
    shifts = np.array([_shift_for(v) for v in truth])
    best = np.flatnonzero(truth >= truth.max() - 1e-12)
    rng = np.random.default_rng(seed)
    naive = corrected = covered = size = 0.0
    bias_naive, bias_corrected, widths = [], [], []
    for _ in range(replications):
        shared = rng.standard_normal(questions)
        own = rng.standard_normal((truth.size, questions))
        z = rho * shared[None, :] + np.sqrt(1 - rho * rho) * own
        rates = expit(shifts[:, None] + SCALE * z)
        values = rng.binomial(samples, rates) / samples  # Pass@1 per question, (K, M)
        estimates = values.mean(axis=1)
        sigma, df, count = _covariance(values, None)
        se = noise_free_se(np.diag(sigma), estimates)
        lo, hi = intervals(estimates, se, df, count, 0.95)[:2]
        j = int(np.argmax(estimates))
        middle, _, c_lo, c_hi = winner_inference(estimates, sigma, j, 0.95)
        naive += lo[j] <= truth[j] <= hi[j]
        corrected += c_lo <= truth[j] <= c_hi
        widths.append((c_hi - c_lo) / (hi[j] - lo[j]))
        bias_naive.append(estimates[j] - truth[j])
        bias_corrected.append(middle - truth[j])
        inside = best_set(estimates, sigma, float(df), 0.95, count)
        covered += bool(np.all(inside[best]))
        size += inside.sum()
    return {"naive": naive / replications, "corrected": corrected / replications,
            "width_ratio": float(np.median(widths)),
            "median_bias_naive": float(np.median(bias_naive)),
            "median_bias_corrected": float(np.median(bias_corrected)),
            "best_cover": covered / replications, "best_size": size / replications,
            "tied": int(best.size), "models": int(truth.size)}


def main() -> None:
    replications = 200 if "--quick" in sys.argv else 1000
    print(f"{replications} replications per design, 95% level")
    print("| design | naive cover | corrected cover | width ratio | median bias naive | "
          "median bias corrected | best set cover | best set size |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for index, design in enumerate(DESIGNS):
        found = run(design, replications, 4000 + index)
        print(f"| {design[0]} | {found['naive']:.3f} | {found['corrected']:.3f} | "
              f"{found['width_ratio']:.2f} | {found['median_bias_naive']:+.4f} | "
              f"{found['median_bias_corrected']:+.4f} | {found['best_cover']:.3f} | "
              f"{found['best_size']:.2f} of {found['models']} ({found['tied']} tied) |",
              flush=True)


if __name__ == "__main__":
    main()
