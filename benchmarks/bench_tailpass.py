"""TailPass benchmark: kpass.tailpass against the reference library (scorio 0.2.3).

Run on demand: ``python benchmarks/bench_tailpass.py [--quick]``. M=2000 questions,
N=256 samples, k=64, binary int64 outcomes and 3-level rubric outcomes (w = 0, 0.5, 1).
Every call builds a fresh profile (its arrays are cached on first use), so each row
includes validation, counting and the states. Prints medians, the ratio scorio / kpass
and the counting floor ``R.sum(axis=1)`` of the same matrix.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import kpass

try:
    import scorio.eval as se
except ImportError:  # pragma: no cover - the oracle is a test extra
    sys.exit("install the test extra (scorio==0.2.3) to compare against the reference library")


def timed(fn, repeat, budget=0.3):
    """Median of at least ``repeat`` runs after a warm-up; one cold run if that is > budget."""
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    if first > budget:
        return first
    times = []
    while len(times) < repeat or (sum(times) < budget and len(times) < 100):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def outcomes(m, n, levels, seed=0):
    """Per-question category probabilities from a Dirichlet(0.7), so difficulty spans [0, 1]."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(levels, 0.7), size=m)
    cumulative = np.cumsum(p, axis=1)
    u = rng.random((m, n, 1))
    return (u > cumulative[:, None, :-1]).sum(axis=2).astype(np.int64)


def table(title, R, w, k, calls, repeat):
    floor = timed(lambda: R.sum(axis=1), repeat)
    print(f"\n### {title}\n")
    print(f"counting floor R.sum(axis=1): {floor * 1e3:.2f} ms\n")
    print("| call                               |   kpass ms |  scorio ms |   speed-up |")
    print("|------------------------------------|------------|------------|------------|")
    ratios = []
    for label, call in calls:
        ours = timed(lambda call=call: call(kpass, R, w, k), repeat)
        theirs = timed(lambda call=call: call(se, R, w, k), repeat)
        ratios.append(theirs / ours)
        print(f"| {label:<34} | {ours * 1e3:10.2f} | {theirs * 1e3:10.1f} | "
              f"{theirs / ours:9.1f}x |")
    print(f"\nslowest speed-up: {min(ratios):.1f}x; median {statistics.median(ratios):.1f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="M=200 and fewer repeats")
    args = parser.parse_args(argv)
    m, n, k, repeat = (200, 256, 64, 3) if args.quick else (2000, 256, 64, 5)
    uniform = np.full(k, 1.0 / k)
    binary_calls = [
        ("profile mean", lambda f, R, w, k: f.tailpass(R, k, w).mean),
        ("profile mean + covariance", lambda f, R, w, k: f.tailpass(R, k, w).covariance),
        ("linear(uniform)", lambda f, R, w, k: f.tailpass(R, k, w).linear(uniform)),
        ("moment(1)", lambda f, R, w, k: f.tailpass(R, k, w).moment(1.0)),
        ("moment(2)", lambda f, R, w, k: f.tailpass(R, k, w).moment(2.0)),
        ("moment(0.5)", lambda f, R, w, k: f.tailpass(R, k, w).moment(0.5)),
        ("discovery + stability", lambda f, R, w, k: (f.tailpass(R, k, w).discovery(),
                                                       f.tailpass(R, k, w).stability())),
        ("ci(method='normal')", lambda f, R, w, k: f.tailpass(R, k, w).ci(method="normal")),
        ("sample(200).profile", lambda f, R, w, k: f.tailpass(R, k, w).sample(200, rng=0)
         .profile),
        ("tailpass_empirical", lambda f, R, w, k: f.tailpass_empirical(R, k, w)),
    ]
    R = outcomes(m, n, 2)
    table(f"Binary: M={m}, N={n}, k={k}, int64", R, None, k, binary_calls, repeat)
    # Three levels at k=64: 2145 banks; the exact covariance would need 2145^2 > 4e6 pairs,
    # refused by both libraries (posterior draws instead), and so are the variances of
    # linear and moment(0.5) and the normal interval.
    refused = ("profile mean + covariance", "moment(0.5)", "linear(uniform)",
               "ci(method='normal')")
    rubric_calls = [call for call in binary_calls if call[0] not in refused + (
        "sample(200).profile",)]
    # 2145 banks per (draw, question): fewer draws keep this row under a minute.
    rubric_calls.insert(-1, ("sample(20).profile", lambda f, R, w, k: f.tailpass(R, k, w)
                             .sample(20, rng=0).profile))
    R = outcomes(m, n, 3, seed=1)
    table(f"Rubric w = (0, 0.5, 1): M={m}, N={n}, k={k}, int64", R, [0.0, 0.5, 1.0], k,
          rubric_calls, repeat)


if __name__ == "__main__":
    main()
