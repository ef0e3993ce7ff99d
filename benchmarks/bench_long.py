"""Reading long files (one row per sample) by question id, against pyarrow + a group-by.

A long table of M questions x N samples, rows shuffled, written as CSV and
Parquet. Times, in one process: the floor, pyarrow reading the file and grouping
by id (``pyarrow.Table.group_by``); ``kpass.io.long.load.load_long`` (read, validate,
group, count) without and with ``--sample`` (which also checks every (id, sample)
pair); and ``BinaryCounts.from_long`` on the pandas frame (narwhals). Prints
each as a ratio to the floor.

Usage: python benchmarks/bench_long.py [--rows M] [--samples N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np


def _time(function, *args, **kwargs) -> float:
    start = time.perf_counter()
    function(*args, **kwargs)
    return time.perf_counter() - start


def _arrow_floor(read, path: Path) -> None:
    read(path).group_by("qid").aggregate([("correct", "sum"), ("correct", "count")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000, help="questions M")
    parser.add_argument("--samples", type=int, default=50, help="samples per question N")
    args = parser.parse_args()
    import pandas as pd
    import pyarrow.csv as pv
    import pyarrow.parquet as pq

    import kpass
    from kpass.io.long.load import load_long

    m, n = args.rows, args.samples
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"qid": np.repeat(np.arange(m), n), "sample": np.tile(np.arange(n), m),
                          "correct": rng.integers(0, 2, m * n)}).sample(frac=1, random_state=0)
    with tempfile.TemporaryDirectory() as folder:
        paths = {"csv": Path(folder) / "long.csv", "parquet": Path(folder) / "long.parquet"}
        frame.to_csv(paths["csv"], index=False)
        frame.to_parquet(paths["parquet"])
        print(f"{m} questions x {n} samples = {m * n} rows, shuffled")
        for fmt, path in paths.items():
            read = pv.read_csv if fmt == "csv" else pq.read_table
            floor = _time(_arrow_floor, read, path)
            plain = _time(load_long, str(path), id="qid")
            paired = _time(load_long, str(path), id="qid", sample="sample")
            print(f"{fmt:8s} pyarrow read+group_by {floor:6.2f} s | load_long {plain:6.2f} s "
                  f"({plain / floor:5.1f}x) | with --sample {paired:6.2f} s "
                  f"({paired / floor:5.1f}x)")
        engine = _time(lambda: kpass.BinaryCounts.from_long(frame, id="qid", outcome="correct"))
        floor = _time(lambda: frame.groupby("qid")["correct"].agg(["sum", "size"]))
        print(f"from_long(pandas) {engine:6.2f} s against pandas group-by {floor:6.2f} s "
              f"({engine / floor:5.1f}x; validation in the engine included)")


if __name__ == "__main__":
    main()
