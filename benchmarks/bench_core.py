"""Core benchmark: kpass against the reference library (scorio 0.2.3) in the same process.

Run on demand: ``python benchmarks/bench_core.py [--quick] [--section counting ...]
[--functions bayes_ci,...]``. Prints one row per
function with medians of repeated runs and the ratio scorio / kpass (int64 and
bool inputs), counting against ``R.sum(axis=1)`` for every dtype, ``import kpass``
against ``import numpy, scipy.special`` in fresh interpreters, and the very-large-k
posteriors.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import kpass

try:
    import scorio.eval as se
except ImportError:  # pragma: no cover - the oracle is a test extra
    sys.exit("install the test extra (scorio==0.2.3) to compare against the reference library")


def once(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def timed(fn, repeat, budget=0.3):
    """Median wall time of at least ``repeat`` runs, more while under ``budget`` seconds.

    The first run warms caches and is not counted, unless it alone exceeds the
    budget (a slow reference call), in which case it is the measurement.
    """
    first = once(fn)
    if first > budget:
        return first
    times = []
    while len(times) < repeat or (sum(times) < budget and len(times) < 200):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def paired(ours_fn, theirs_fn, repeat, budget=0.6):
    """Medians of ours and theirs timed alternately, and the median of their per-pair ratios.

    On a shared machine the load drifts within seconds; timing the two calls back to
    back, pair after pair, exposes both to the same load.
    """
    ours_fn()
    theirs_fn()
    ours, theirs = [], []
    while len(ours) < repeat or (sum(ours) + sum(theirs) < budget and len(ours) < 200):
        ours.append(once(ours_fn))
        theirs.append(once(theirs_fn))
    ratios = [b / a for a, b in zip(ours, theirs, strict=True)]
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios)


def row(label, ours, theirs, ratio=None):
    ratio = theirs / ours if ratio is None else ratio
    print(f"| {label:<34} | {ours * 1e3:10.2f} | {theirs * 1e3:10.1f} | {ratio:9.1f}x |")
    return ratio


def header(title):
    print(f"\n### {title}\n")
    print(f"| {'function':<34} | {'kpass ms':>10} | {'scorio ms':>10} | {'speed-up':>10} |")
    print(f"|{'-' * 36}|{'-' * 12}|{'-' * 12}|{'-' * 11}|")


CALLS = {
    "pass_at_k": lambda m, R, k: m.pass_at_k(R, k),
    "pass_hat_k": lambda m, R, k: m.pass_hat_k(R, k),
    "g_pass_at_k_tau(0.5)": lambda m, R, k: m.g_pass_at_k_tau(R, k, 0.5),
    "mg_pass_at_k": lambda m, R, k: m.mg_pass_at_k(R, k),
    "maj_at_k": lambda m, R, k: m.maj_at_k(R, k),
    "auc_at_k": lambda m, R, k: m.auc_at_k(R, k),
    "geom_at_k": lambda m, R, k: m.geom_at_k(R, k),
    "geom_ds_at_k": lambda m, R, k: m.geom_ds_at_k(R, k),
    "geo_spectrum_at_k": lambda m, R, k: m.geo_spectrum_at_k(R, k),
    "threshold_spectrum_at_k": lambda m, R, k: m.threshold_spectrum_at_k(R, k, np.full(k, 1 / k)),
    "max_at_k": lambda m, R, k: m.max_at_k(R, k),
    "pass_at_k_ci": lambda m, R, k: m.pass_at_k_ci(R, k),
    "pass_hat_k_ci": lambda m, R, k: m.pass_hat_k_ci(R, k),
    "g_pass_at_k_tau_ci(0.5)": lambda m, R, k: m.g_pass_at_k_tau_ci(R, k, 0.5),
    "mg_pass_at_k_ci": lambda m, R, k: m.mg_pass_at_k_ci(R, k),
    "maj_at_k_ci": lambda m, R, k: m.maj_at_k_ci(R, k),
    "auc_at_k_ci": lambda m, R, k: m.auc_at_k_ci(R, k),
    "geom_at_k_ci": lambda m, R, k: m.geom_at_k_ci(R, k),
    "geom_ds_at_k_ci": lambda m, R, k: m.geom_ds_at_k_ci(R, k),
    "geo_spectrum_at_k_ci": lambda m, R, k: m.geo_spectrum_at_k_ci(R, k),
    "threshold_spectrum_at_k_ci": lambda m, R, k: m.threshold_spectrum_at_k_ci(
        R, k, np.full(k, 1 / k)),
    "max_at_k_ci": lambda m, R, k: m.max_at_k_ci(R, k),
    "bayes_ci": lambda m, R, k: m.bayes_ci(R),
    "avg_ci": lambda m, R, k: m.avg_ci(R),
}


def math_bound(quick, dtype, only=None):
    rng = np.random.default_rng(0)
    M, N, k = (400, 64, 16) if quick else (2000, 256, 64)
    p = rng.beta(0.7, 0.7, size=(M, 1))
    R = (rng.random((M, N)) < p).astype(dtype)
    header(f"Math-bound: M={M}, N={N}, k={k}, {np.dtype(dtype).name} input")
    ci, point = [], []
    for name, call in CALLS.items():
        if only and name not in only:
            continue
        np.testing.assert_allclose(call(kpass, R, k), call(se, R, k), rtol=1e-9, atol=1e-12)
        if once(lambda call=call: call(se, R, k)) < 0.05:  # fast: timed in alternation
            ours, theirs, ratio = paired(lambda call=call: call(kpass, R, k),
                                         lambda call=call: call(se, R, k), 9)
        else:
            ours = timed(lambda call=call: call(kpass, R, k), 5)
            theirs, ratio = timed(lambda call=call: call(se, R, k), 1), None
        (ci if "_ci" in name else point).append(row(name, ours, theirs, ratio))
    if not ci or not point:
        return
    geo = math.exp(sum(map(math.log, ci)) / len(ci))
    print(f"\n_ci functions: geometric-mean speed-up {geo:.0f}x; slowest point ratio "
          f"{min(point):.1f}x, slowest _ci ratio {min(ci):.1f}x")


def large_n(quick):
    rng = np.random.default_rng(1)
    header("Large N")
    M, N, k = (50, 500, 250) if quick else (200, 2000, 1000)
    R = (rng.random((M, N)) < rng.beta(2, 2, size=(M, 1))).astype(np.int8)
    ours = timed(lambda: kpass.g_pass_at_k_tau_ci(R, k, 0.5), 3)
    theirs = timed(lambda: se.g_pass_at_k_tau_ci(R, k, 0.5), 1)
    row(f"g_pass_at_k_tau_ci M={M} N={N} k={k}", ours, theirs)
    M, N, k = (200, 5000, 64) if quick else (1000, 20000, 64)
    R = (rng.random((M, N)) < rng.beta(2, 2, size=(M, 1))).astype(np.int8)
    ours = timed(lambda: kpass.mg_pass_at_k(R, k), 5)
    theirs = timed(lambda: se.mg_pass_at_k(R, k), 1)
    row(f"mg_pass_at_k M={M} N={N} k={k}", ours, theirs)


def very_large_k(quick):
    """n = k = 100000: every threshold _ci in seconds (scorio is not timed: minutes)."""
    n = 20000 if quick else 100000
    print(f"\n### Very large k: M=20 questions, n = k = {n} (kpass only)\n")
    rng = np.random.default_rng(4)
    counts = kpass.BinaryCounts(np.full(20, n), rng.integers(0, n + 1, 20))
    for name, call in [
        ("pass_at_k_ci", lambda: kpass.pass_at_k_ci(counts, n)),
        ("g_pass_at_k_tau_ci(0.5)", lambda: kpass.g_pass_at_k_tau_ci(counts, n, 0.5)),
        ("maj_at_k_ci", lambda: kpass.maj_at_k_ci(counts, n)),
    ]:
        try:
            print(f"{name:<28} {once(call):8.2f} s")
        except ValueError as error:
            print(f"{name:<28} ValueError: {error}")


DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float32,
          np.float64]


def counting(quick):
    """binary_counts (validation included) against R.sum(axis=1) on the same array."""
    M, N = (50_000, 64) if quick else (200_000, 64)
    rng = np.random.default_rng(2)
    binary = rng.random((M, N)) < 0.4
    print(f"\n### Counting: M={M}, N={N}, kpass.binary_counts(R) / R.sum(axis=1)\n")
    print(f"| {'input':<22} | {'sum ms':>8} | {'kpass ms':>8} | {'ratio':>6} |")
    print(f"|{'-' * 24}|{'-' * 10}|{'-' * 10}|{'-' * 8}|")
    worst = 0.0
    for dtype in DTYPES:
        for layout in ("C", "F"):
            R = binary.astype(dtype, order=layout)
            ours, floor, ratio = paired(lambda R=R: kpass.binary_counts(R),
                                        lambda R=R: R.sum(axis=1), 21)
            worst = max(worst, 1 / ratio)
            print(f"| {np.dtype(dtype).name + ' ' + layout:<22} | {floor * 1e3:8.2f} | "
                  f"{ours * 1e3:8.2f} | {1 / ratio:5.2f}x |")
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None:
        frame = pd.DataFrame(binary.astype(np.int64))
        ours, floor, ratio = paired(lambda: kpass.binary_counts(frame),
                                    lambda: frame.to_numpy().sum(axis=1), 21)
        print(f"| {'DataFrame int64':<22} | {floor * 1e3:8.2f} | {ours * 1e3:8.2f} | "
              f"{1 / ratio:5.2f}x |")
    rows = binary[: M // 10].astype(int).tolist()
    ours, floor, ratio = paired(lambda: kpass.binary_counts(rows),
                                lambda: np.asarray(rows).sum(axis=1), 7)
    print(f"| {'lists (M/10), asarray':<22} | {floor * 1e3:8.2f} | {ours * 1e3:8.2f} | "
          f"{1 / ratio:5.2f}x |")
    print(f"\nslowest array ratio: {worst:.2f}x")


def import_time():
    """Fresh interpreters: import kpass against import numpy, scipy.special (best of 7)."""
    def best(code):
        times = []
        for _ in range(7):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())
            times.append(time.perf_counter() - start)
        return min(times)

    bare = best("pass")
    floor = best("import numpy, scipy.special")
    ours = best("import kpass")
    print(f"\n### Import (fresh interpreter, best of 7)\n\npython -c pass: {bare * 1e3:.0f} ms; "
          f"import numpy, scipy.special: {floor * 1e3:.0f} ms; import kpass: {ours * 1e3:.0f} ms "
          f"-> {ours / floor:.2f}x")


def input_bound(quick):
    rng = np.random.default_rng(2)
    M, N = (100_000, 64) if quick else (1_000_000, 64)
    R = (rng.random((M, N)) < 0.4).astype(np.int8)
    print(f"\n### Input-bound: M={M}, N={N} int8 (kpass pass_at_k_ci vs one numpy row reduction)\n")
    count = timed(lambda: np.count_nonzero(R, axis=1), 5)
    total = timed(lambda: R.sum(axis=1, dtype=np.int32), 5)
    ours = timed(lambda: kpass.pass_at_k_ci(R, 8), 5)
    fastest = min(count, total)
    print(f"np.count_nonzero(R, axis=1): {count * 1e3:.1f} ms; R.sum(axis=1, int32): "
          f"{total * 1e3:.1f} ms; kpass.pass_at_k_ci(R, 8): {ours * 1e3:.1f} ms "
          f"-> {ours / fastest:.2f}x the fastest reduction")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--section", action="append", choices=SECTIONS,
                        help="run only this section (repeatable); default: all")
    parser.add_argument("--functions", help="math-bound rows to run, comma-separated "
                        "(e.g. bayes_ci,avg_ci); default: all")
    args = parser.parse_args()
    only = set(args.functions.split(",")) if args.functions else None
    run = {
        "counting": lambda: counting(args.quick),
        "import": import_time,
        "math-int64": lambda: math_bound(args.quick, np.int64, only),
        "math-bool": lambda: math_bound(args.quick, np.bool_, only),
        "large-n": lambda: large_n(args.quick),
        "very-large-k": lambda: very_large_k(args.quick),
        "input-bound": lambda: input_bound(args.quick),
    }
    print(f"numpy {np.__version__}, kpass from {kpass.__file__}")
    for section in args.section or SECTIONS:
        run[section]()


SECTIONS = ["counting", "import", "math-int64", "math-bool", "large-n", "very-large-k",
            "input-bound"]


if __name__ == "__main__":
    main()
