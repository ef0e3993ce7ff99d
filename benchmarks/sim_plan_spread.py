"""Planning with no data when the assumed spread is wrong: the SE promised and the SE realised.

``kpass.Plan.assume(metric, 4, baseline=0.3)`` assumes the default spread 2.0 (sd of the
questions' success logits) and plans (a) the questions a 95% interval of +-0.02 needs at 8
samples per question, (b) the split of a budget of 4,000 with 5 per question (cost_question
5, cost_sample 1). Then the truth's spread is varied (0.5 to inf: every question always or
never solved), with the true population value still 0.3, and each plan is simulated under
the truth: 2,000 benchmarks of fresh questions (logit p = mu + spread Z, mu solved by
quadrature so that the population value is 0.3), binomial samples, the metric's unbiased
per-question estimates (closed forms), and the sd of the benchmark means is the SE
realised. Columns per true spread:

- (a) SE realised / promised at the planned questions, the half-width realised
  (t_{0.975, M-1} x SE realised), and the questions the truth needs for +-0.02;
- (b) the split planned under 2.0, its SE realised under the truth, the split the truth
  would choose and the ratio of the two splits' SEs under the truth (Plan.assume at the
  true spread, whose SE the simulation columns check).

Usage: nice -n 10 python benchmarks/sim_plan_spread.py [--quick]   (about 20 s of CPU)
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from scipy import integrate, optimize, stats
from scipy.special import expit

import kpass

SPREADS = (0.5, 1.0, 2.0, 3.0, 4.0, math.inf)
METRICS = {"Pass@4": (kpass.pass_at_k, lambda p: 1.0 - (1.0 - p) ** 4),
           "Pass^4": (kpass.pass_hat_k, lambda p: p ** 4)}


def table(name: str, n: int) -> np.ndarray:
    total = math.comb(n, 4)
    if name == "Pass@4":
        return np.array([1.0 - math.comb(n - c, 4) / total for c in range(n + 1)])
    return np.array([math.comb(c, 4) / total for c in range(n + 1)])


def location(g, baseline: float, spread: float) -> float:
    def mean(mu: float) -> float:
        return integrate.quad(lambda z: g(expit(mu + spread * z)) * stats.norm.pdf(z), -12, 12,
                              limit=200)[0]

    return optimize.brentq(lambda mu: mean(mu) - baseline, -30, 30, xtol=1e-12)


def realised(name: str, g, spread: float, m: int, n: int, reps: int,
             rng: np.random.Generator) -> float:
    values = table(name, n)
    if math.isinf(spread):  # p in {0, 1}: P(p = 1) = 0.3 (g(0) = 0, g(1) = 1)
        p = (rng.random((reps, m)) < 0.3).astype(float)
    else:
        p = expit(location(g, 0.3, spread) + spread * rng.standard_normal((reps, m)))
    return float(np.std(values[rng.binomial(n, p)].mean(axis=1), ddof=1))


def main() -> None:
    reps = 500 if "--quick" in sys.argv else 2000
    rng = np.random.default_rng(2026)
    start = time.process_time()
    for name, (metric, g) in METRICS.items():
        assumed = kpass.Plan.assume(metric, 4, baseline=0.3, samples=8)
        m = assumed.questions_for_half_width(0.02)
        promised = assumed.se(m)
        split = assumed.split(4000, cost_question=5.0)
        print(f"\n{name} 0.3, assumed spread 2: +-0.02 needs {m} questions x 8 samples "
              f"(SE {promised:.4f}); the budget 4,000 (5 a question) splits "
              f"{split.questions} x {split.samples} (SE {split.se:.4f})")
        print("| true spread | (a) SE realised / promised | half-width realised | questions "
              "the truth needs | (b) SE realised of the planned split | the truth's split "
              "| planned / truth's SE |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for spread in SPREADS:
            truth = kpass.Plan.assume(metric, 4, baseline=0.3, samples=8, spread=spread)
            se_a = realised(name, g, spread, m, 8, reps, rng)
            best = truth.split(4000, cost_question=5.0)
            se_b = realised(name, g, spread, split.questions, split.samples, reps, rng)
            ratio = truth.se(split.questions, split.samples) / best.se  # exact under truth
            print(f"| {spread:g} | {se_a / promised:.3f} | "
                  f"{stats.t.ppf(0.975, m - 1) * se_a:.4f} | "
                  f"{truth.questions_for_half_width(0.02)} | {se_b:.4f} | "
                  f"{best.questions} x {best.samples} | {ratio:.3f} |")
    print(f"\n{reps} benchmarks per cell, seed 2026; {time.process_time() - start:.0f} s of CPU")


if __name__ == "__main__":
    main()
