"""Reading speed of ``kpass report`` against pyarrow reading the same file.

For JSONL, CSV and Parquet files of M questions x N samples (default 100000 x 64),
times in one process: pyarrow reading the file (``pyarrow.json.read_json``,
``pyarrow.csv.read_csv``, ``pyarrow.parquet.read_table``: the floor for "read the
file"), ``kpass.io.readers.load_counts`` (read, validate and count) and the whole
``kpass report`` command on it (default metrics and k, output discarded), and
prints each as a ratio to pyarrow. Also the peak memory of ``load_counts`` above
what it started with (tracemalloc cannot see pyarrow's allocator, so it is the
process's resident-set growth, read from /proc).

Usage: python benchmarks/bench_read.py [--quick] [--rows M] [--samples N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _timed(function, repeats: int) -> float:
    """Median seconds of ``repeats`` calls after one warm-up (files stay in the page cache)."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def write_files(folder: Path, m: int, n: int, seed: int = 0) -> dict[str, Path]:
    """One outcome matrix written as JSONL, CSV and Parquet; rates drawn from Beta(0.7, 0.7)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    rates = rng.beta(0.7, 0.7, size=(m, 1))
    matrix = (rng.random((m, n)) < rates).astype(np.int8)
    cells = [", ".join(map(str, row)) for row in matrix.tolist()]
    paths = {"jsonl": folder / "runs.jsonl", "csv": folder / "runs.csv",
             "parquet": folder / "runs.parquet"}
    with open(paths["jsonl"], "w") as out:
        for index, cell in enumerate(cells):
            out.write(f'{{"id": "q{index}", "outcomes": [{cell}]}}\n')
    with open(paths["csv"], "w") as out:
        out.write("id,outcomes\n")
        for index, cell in enumerate(cells):
            out.write(f'q{index},"[{cell}]"\n')
    table = pa.table({"id": [f"q{i}" for i in range(m)],
                      "outcomes": pa.array(matrix.tolist(), type=pa.list_(pa.int8()))})
    pq.write_table(table, paths["parquet"])
    return paths


def _pyarrow_reader(fmt: str, path: Path):
    import pyarrow.csv as pcsv
    import pyarrow.json as pjson
    import pyarrow.parquet as pq

    return {"jsonl": lambda: pjson.read_json(path), "csv": lambda: pcsv.read_csv(path),
            "parquet": lambda: pq.read_table(path)}[fmt]


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="20000 x 64, one repeat")
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--samples", type=int, default=64)
    args = parser.parse_args()
    m = 20000 if args.quick else args.rows
    repeats = 1 if args.quick else 3

    from kpass.io.readers import load_counts
    from kpass.report.cli import main as kpass_main

    print(f"Reading M={m} x N={args.samples} outcome files (median of {repeats} after a "
          "warm-up)\n")
    print("| format | size MB | pyarrow s | load_counts s | ratio | kpass report s | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(Path(folder), m, args.samples)
        for fmt, path in paths.items():
            floor = _timed(_pyarrow_reader(fmt, path), repeats)
            load = _timed(lambda: load_counts(str(path)), repeats)  # noqa: B023

            def report() -> None:
                with contextlib.redirect_stdout(io.StringIO()):
                    kpass_main(["report", str(path)])  # noqa: B023

            whole = _timed(report, repeats)
            size = path.stat().st_size / 1e6
            print(f"| {fmt} | {size:.1f} | {floor:.3f} | {load:.3f} | {load / floor:.2f}x | "
                  f"{whole:.3f} | {whole / floor:.2f}x |", flush=True)
        print(f"\nPeak resident memory of this process: {_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
