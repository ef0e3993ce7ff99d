"""Reading speed of ``kpass report`` against pyarrow reading the same file.

For JSONL, CSV and Parquet files of M questions x N samples (default 100000 x 64),
times in one process: pyarrow reading the file (``pyarrow.json.read_json``,
``pyarrow.csv.read_csv``, ``pyarrow.parquet.read_table``: the floor for "read the
file"), ``kpass.io.formats.readers.load_counts`` (read, validate and count) and the whole
``kpass report`` command on it (default metrics and k, output discarded), and
prints each as a ratio to pyarrow. Also the peak memory of ``load_counts`` in a
fresh process, above what the imports took (tracemalloc cannot see pyarrow's
allocator, so it is the resident-set growth, read from /proc), against the
file's size: reading is streamed when it stays well below.

Usage: python benchmarks/bench_read.py [--quick] [--rows M] [--samples N] [--repeats R]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def _timed(functions: dict[str, Any], repeats: int) -> dict[str, tuple[float, float]]:
    """Best and median seconds of each function over ``repeats`` rounds, after a warm-up.

    The functions take turns within every round (pyarrow, load_counts, report, pyarrow,
    ...), so a load that comes and goes on a shared machine falls on all of them alike
    instead of on whichever ran its repeats at that moment. Ratios use the best run:
    pyarrow's readers are multi-threaded, so the median mostly measures how busy the
    other cores were.
    """
    for function in functions.values():
        function()  # warm-up: files in the page cache, imports done
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: (min(values), statistics.median(values)) for name, values in times.items()}


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


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def _memory_child(path: str) -> None:
    """In a fresh process: print the peak resident-set growth (MB) of load_counts(path)."""
    import pyarrow.csv  # noqa: F401 - imported before the baseline, as load_counts would
    import pyarrow.json  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from kpass.io.formats.readers import load_counts

    base = _status_mb("VmRSS")
    with open("/proc/self/clear_refs", "w") as clear:  # reset VmHWM to the current RSS
        clear.write("5")
    load_counts(path)
    print(f"{_status_mb('VmHWM') - base:.0f}")


def _memory_mb(path: Path) -> str:
    done = subprocess.run([sys.executable, __file__, "--memory-of", str(path)],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "?"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="20000 x 64, one repeat")
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=7, help="rounds of the three timings")
    parser.add_argument("--memory-of", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_of:
        _memory_child(args.memory_of)
        return 0
    m = 20000 if args.quick else args.rows
    repeats = 1 if args.quick else args.repeats

    from kpass.io.formats.readers import load_counts
    from kpass.report.cli import main as kpass_main

    print(f"Reading M={m} x N={args.samples} outcome files (best of {repeats} rounds after "
          "a warm-up; pyarrow, load_counts and report take turns in each round)\n")
    print("| format | file MB | pyarrow s | load_counts s | ratio | kpass report s | ratio | "
          "peak memory MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    medians: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(Path(folder), m, args.samples)
        for fmt, path in paths.items():
            def report() -> None:
                with contextlib.redirect_stdout(io.StringIO()):
                    kpass_main(["report", str(path)])  # noqa: B023

            timed = _timed({"pyarrow": _pyarrow_reader(fmt, path),
                            "load": lambda: load_counts(str(path)),  # noqa: B023
                            "report": report}, repeats)
            (floor, floor_median), (load, load_median) = timed["pyarrow"], timed["load"]
            whole = timed["report"][0]
            size = path.stat().st_size / 1e6
            print(f"| {fmt} | {size:.1f} | {floor:.3f} | {load:.3f} | {load / floor:.2f}x | "
                  f"{whole:.3f} | {whole / floor:.2f}x | {_memory_mb(path)} |", flush=True)
            medians.append(f"{fmt} {load_median / floor_median:.2f}x")
    print("\nTimes: best of the runs; ratio: against pyarrow reading the same file in the same "
          "run; kpass report adds the default metrics (computed by the core). Peak memory: "
          "load_counts in a fresh process, above its imports.")
    print(f"load_counts / pyarrow on medians instead: {', '.join(medians)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
