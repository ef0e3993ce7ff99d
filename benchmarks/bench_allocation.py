"""Time and peak memory of ``kpass.allocate`` as the budget grows (issue 38, item 5).

    python benchmarks/bench_allocation.py

The split is found without stepping one sample at a time (a threshold on the gains,
bisected; the variance at any N a closed form), so time grows with log(budget) and memory
does not grow at all. Before, one sample at a time with a beta-binomial pmf per step: a
budget of 10,000 on one question took 35-40 s and 670 MB, 10^12 never ended.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

import kpass


def measure(label: str, counts: kpass.BinaryCounts, k: int, budget: int) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    split = kpass.allocate(kpass.pass_at_k, counts, k, budget)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert int(split.sum()) == budget
    print(f"| {label} | {budget:.0e} | {seconds:.2f} | {peak / 1e6:.2f} |")


def main() -> None:
    print("| questions | budget | seconds | peak MB (tracemalloc) |")
    print("|---|--:|--:|--:|")
    one = kpass.BinaryCounts(np.array([4]), np.array([3]))
    for budget in (10**4, 10**6, 10**9, 10**12):
        measure("1 (n = 4, c = 3), Pass@4", one, 4, budget)
    rng = np.random.default_rng(1)
    c = rng.binomial(8, rng.beta(0.5, 1.5, 1000))
    many = kpass.BinaryCounts(np.full(1000, 8), c)
    for budget in (12_000, 10**6, 10**9):
        measure("1000 (n = 8), Pass@4", many, 4, budget)


if __name__ == "__main__":
    main()
