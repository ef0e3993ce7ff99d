"""The IRT fit's speed: Rasch and 2PL on 100 models x 10,000 questions (kpass.stats.irt).

Simulated 2PL counts (1 and 4 samples per question); prints the seconds of each fit, its
alternations' outcome and how well it recovers the simulated abilities and intercepts.
Run: ``python benchmarks/bench_irt.py [--models 100 --questions 10000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kpass.stats.irt import fit_irt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    rng = np.random.default_rng(options.seed)
    K, Q = options.models, options.questions
    theta = rng.normal(size=K)
    a = np.exp(rng.normal(0, 0.35, Q))
    d = rng.normal(0, 1.5, Q)
    p = 1 / (1 + np.exp(-(np.multiply.outer(theta, a) + d)))
    print("| model | samples | seconds | converged | corr(ability) | corr(intercept) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for samples in (1, 4):
        c = rng.binomial(samples, p)
        for model in ("rasch", "2pl"):
            started = time.perf_counter()
            fit = fit_irt(samples, c, model=model)
            seconds = time.perf_counter() - started
            print(f"| {model} | {samples} | {seconds:.1f} | {fit.converged} | "
                  f"{np.corrcoef(fit.ability, theta)[0, 1]:.4f} | "
                  f"{np.corrcoef(fit.intercept, d)[0, 1]:.4f} |", flush=True)


if __name__ == "__main__":
    main()
