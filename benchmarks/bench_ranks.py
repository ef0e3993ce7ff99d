"""Rank intervals side by side: kpass.leaderboard's joint rank sets against marginal bootstrap
rank intervals (resample questions, rank the models in each resample, take each model's
2.5% and 97.5% rank percentiles: what public arenas show), in the same seeded replications.

Each replication draws M questions with a difficulty b_q ~ N(0, 1.5^2) shared by every model
(paired questions) and n samples per question and model at rate expit(a_j + b_q). The true
Pass@1 of model j is E[expit(a_j + b)], by quadrature; its true rank counts the models
above it. Reported per design: the joint coverage (every model's interval holds its true
rank) and the mean width (rank_hi - rank_lo) of each method, plus the time per leaderboard.

Usage: python benchmarks/bench_ranks.py [--quick]
       python benchmarks/bench_ranks.py --models K [--questions M]

With ``--models K`` it builds one board of K models (M = 100 questions, 4 samples, seeded)
and prints its time: run it under ``/usr/bin/time -v`` to read the whole process's peak
memory ("Maximum resident set size"); the figures are in benchmarks/README.md.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import integrate, stats
from scipy.special import expit

import kpass

DESIGNS = [  # (label, abilities, questions, samples)
    ("5 models, ties and near-ties", [0.0, 0.0, 0.15, 0.15, 0.4], 50, 4),
    ("6 close models", [0.0, 0.08, 0.16, 0.24, 0.32, 0.40], 200, 4),
    ("10 models, spread", list(np.linspace(-1.0, 1.0, 10)), 100, 8),
    ("4 equal models (global null)", [0.2] * 4, 30, 4),
]


def truth(abilities: list[float], spread: float = 1.5) -> np.ndarray:
    return np.array([integrate.quad(lambda b, a=a: expit(a + b) * stats.norm.pdf(b, scale=spread),
                                    -20, 20, epsabs=1e-13)[0] for a in abilities])


def bootstrap_ranks(values: np.ndarray, rng: np.random.Generator, draws: int = 500
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Marginal percentile intervals of each model's rank over question resamples."""
    m = values.shape[1]
    picks = rng.integers(0, m, size=(draws, m))
    means = values[:, picks].mean(axis=2).T  # (draws, K)
    ranks = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)
    return np.percentile(ranks, 2.5, axis=0), np.percentile(ranks, 97.5, axis=0)


def one_board(models: int, questions: int) -> int:
    """One leaderboard of ``models`` models: its time (peak memory: /usr/bin/time -v)."""
    rng = np.random.default_rng(7)
    difficulty = rng.normal(0, 1.5, size=(questions, 1))
    runs = {f"model-{j:03d}": rng.binomial(1, expit(a + difficulty), size=(questions, 4))
            for j, a in enumerate(np.linspace(-1.0, 1.0, models))}
    start = time.perf_counter()
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    seconds = time.perf_counter() - start
    told = sum(pair.better for pair in board.pairs)
    print(f"{models} models x {questions} questions: {len(board.pairs)} pairs, {told} told "
          f"apart, {seconds:.1f} s")
    return 0


def main() -> int:
    if "--models" in sys.argv:
        models = int(sys.argv[sys.argv.index("--models") + 1])
        questions = (int(sys.argv[sys.argv.index("--questions") + 1])
                     if "--questions" in sys.argv else 100)
        return one_board(models, questions)
    replications = 60 if "--quick" in sys.argv[1:] else 300
    print(f"replications per design: {replications}; 95% level\n")
    print("| design | M | joint coverage (kpass) | joint coverage (bootstrap) | mean width "
          "(kpass) | mean width (bootstrap) | ms per leaderboard |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, abilities, m, n in DESIGNS:
        true = truth(abilities)
        true_rank = np.array([1 + np.sum(true > t + 1e-12) for t in true])
        rng = np.random.default_rng(2024)
        covered = {"kpass": 0, "bootstrap": 0}
        width = {"kpass": 0.0, "bootstrap": 0.0}
        seconds = 0.0
        for _ in range(replications):
            difficulty = rng.normal(0, 1.5, size=(m, 1))
            runs = {f"m{j}": rng.binomial(1, expit(a + difficulty), size=(m, n))
                    for j, a in enumerate(abilities)}
            start = time.perf_counter()
            board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
            seconds += time.perf_counter() - start
            rows = {row.name: row for row in board.rows}
            lo = np.array([rows[f"m{j}"].rank_lo for j in range(len(abilities))])
            hi = np.array([rows[f"m{j}"].rank_hi for j in range(len(abilities))])
            covered["kpass"] += bool(np.all((lo <= true_rank) & (true_rank <= hi)))
            width["kpass"] += float(np.mean(hi - lo))
            values = np.array([R.mean(axis=1) for R in runs.values()])
            blo, bhi = bootstrap_ranks(values, rng)
            covered["bootstrap"] += bool(np.all((blo <= true_rank) & (true_rank <= bhi)))
            width["bootstrap"] += float(np.mean(bhi - blo))
        print(f"| {label} | {m} | {covered['kpass'] / replications:.3f} | "
              f"{covered['bootstrap'] / replications:.3f} | {width['kpass'] / replications:.2f} | "
              f"{width['bootstrap'] / replications:.2f} | {1000 * seconds / replications:.0f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
