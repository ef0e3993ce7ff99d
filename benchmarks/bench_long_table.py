"""The long-file table of issue 22: the CLI, ``from_long`` on each engine and the polars route.

A long table of Q questions x 64 samples (rows shuffled, string ids ``q<i>``, columns
``q, sample, correct``) is written once per size as CSV (and JSON Lines up to 5M rows). Each
route then runs in a fresh Python subprocess, one after another, so its peak resident
memory (``VmHWM`` of that process, Linux) is its own; times are wall clock of the whole
subprocess, imports included (about 0.3-1 s of each figure; Spark's JVM start about 5 s).
Spark's and Dask's worker memory outside the Python driver process is not counted.

Routes:
    cli: ``kpass report FILE --id q --column correct --k 1,8 --metrics pass@k --format json``.
    cli --sample: the same with ``--sample sample`` (every (id, sample) pair checked).
    polars route: ``pl.scan_csv -> group_by -> agg``, then ``kpass.pass_at_k_ci`` on the counts
        (the reference of issue 22: what a user writing the group-by themselves pays).
    from_long <engine>: ``BinaryCounts.from_long(frame, id=, outcome=)`` then
        ``kpass.pass_at_k_ci``, the frame read lazily where the engine can (polars
        ``scan_csv``, DuckDB ``read_csv``, Dask ``read_csv``, Spark ``spark.read.csv``) and
        eagerly otherwise (pyarrow, pandas).

Every route is printed as a ratio to the polars route of the same file.

Usage: python benchmarks/bench_long_table.py [--sizes 1000000,5000000,20000000]
       [--spark-up-to 5000000] [--jsonl-up-to 5000000]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

N_SAMPLES = 64

# VmHWM (the peak resident set of this process image), not ru_maxrss: Linux carries
# ru_maxrss over fork and exec, so a child would report its parent's peak.
_TAIL = """
import sys
with open("/proc/self/status") as status:
    peak = next(line for line in status if line.startswith("VmHWM:")).split()[1]
print(peak, file=sys.stderr)
"""

_COUNTS_THEN_CI = """
import kpass
kpass.pass_at_k_ci(counts, [1, 8])
"""

ROUTES: dict[str, str] = {
    "polars route": """
import numpy as np, polars as pl
from kpass import BinaryCounts
reader = pl.scan_ndjson if PATH.endswith(".jsonl") else pl.scan_csv
g = reader(PATH).group_by("q").agg(pl.len().alias("n"), pl.col("correct").sum().alias("c"))
g = g.collect()
counts = BinaryCounts(g["n"].to_numpy(), g["c"].to_numpy())
""" + _COUNTS_THEN_CI,
    "from_long polars (lazy)": """
import polars as pl
from kpass import BinaryCounts
reader = pl.scan_ndjson if PATH.endswith(".jsonl") else pl.scan_csv
counts = BinaryCounts.from_long(reader(PATH), id="q", outcome="correct")
""" + _COUNTS_THEN_CI,
    "from_long duckdb": """
import duckdb
from kpass import BinaryCounts
frame = duckdb.read_json(PATH) if PATH.endswith(".jsonl") else duckdb.read_csv(PATH)
counts = BinaryCounts.from_long(frame, id="q", outcome="correct")
""" + _COUNTS_THEN_CI,
    "from_long pyarrow (eager)": """
import pyarrow.csv, pyarrow.json
from kpass import BinaryCounts
read = pyarrow.json.read_json if PATH.endswith(".jsonl") else pyarrow.csv.read_csv
counts = BinaryCounts.from_long(read(PATH), id="q", outcome="correct")
""" + _COUNTS_THEN_CI,
    "from_long pandas (eager)": """
import pandas as pd
from kpass import BinaryCounts
frame = pd.read_json(PATH, lines=True) if PATH.endswith(".jsonl") else pd.read_csv(PATH)
counts = BinaryCounts.from_long(frame, id="q", outcome="correct")
""" + _COUNTS_THEN_CI,
    "from_long dask (threads)": """
import dask.dataframe as dd
from kpass import BinaryCounts
frame = dd.read_json(PATH, lines=True, blocksize=2**26) if PATH.endswith(".jsonl") \\
    else dd.read_csv(PATH)
counts = BinaryCounts.from_long(frame, id="q", outcome="correct")
""" + _COUNTS_THEN_CI,
    "from_long spark local[2]": """
from pyspark.sql import SparkSession
from kpass import BinaryCounts
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "2g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
reader = spark.read.json if PATH.endswith(".jsonl") else \\
    (lambda p: spark.read.csv(p, header=True, inferSchema=True))
counts = BinaryCounts.from_long(reader(PATH), id="q", outcome="correct")
spark.stop()
""" + _COUNTS_THEN_CI,
}

NEEDS = {"polars route": "polars", "from_long polars (lazy)": "polars",
         "from_long duckdb": "duckdb", "from_long pyarrow (eager)": "pyarrow",
         "from_long pandas (eager)": "pandas", "from_long dask (threads)": "dask",
         "from_long spark local[2]": "pyspark"}


def _write(folder: Path, rows: int, jsonl: bool) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    questions = rows // N_SAMPLES
    rng = np.random.default_rng(rows)
    order = rng.permutation(questions * N_SAMPLES)
    q = np.repeat(np.arange(questions), N_SAMPLES)[order]
    sample = np.tile(np.arange(N_SAMPLES), questions)[order]
    p = rng.beta(0.6, 0.9, questions)
    correct = (rng.random(questions * N_SAMPLES) < p[q]).astype(np.int8)
    table = pa.table({"q": pa.array(np.char.add("q", q.astype(str))),
                      "sample": sample, "correct": correct})
    paths = {"csv": folder / f"long{rows}.csv"}
    pacsv.write_csv(table, paths["csv"], pacsv.WriteOptions(quoting_style="none"))
    if jsonl:
        import polars as pl

        paths["jsonl"] = folder / f"long{rows}.jsonl"
        pl.from_arrow(table).write_ndjson(paths["jsonl"])
    return paths


def _run(path: Path, code: str | None, argv: list[str] | None = None) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one subprocess running ``code`` or the kpass CLI."""
    if argv is not None:
        code = ("import sys\nfrom kpass.report.cli import main\nsys.argv = ['kpass', *ARGV]\n"
                "try:\n    main()\nexcept SystemExit as stop:\n    assert not stop.code, stop\n")
        code = code.replace("ARGV", repr(argv))
    assert code is not None
    code = f"PATH = {str(path)!r}\n" + code
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code + _TAIL], capture_output=True, text=True,
                          env={**os.environ, "PYSPARK_PYTHON": sys.executable}, check=False)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    rss_kb = int(done.stderr.strip().splitlines()[-1])
    return seconds, rss_kb / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000,20000000")
    parser.add_argument("--spark-up-to", type=int, default=5_000_000)
    parser.add_argument("--jsonl-up-to", type=int, default=5_000_000)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("| rows | file | route | time | vs polars route | peak RSS |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for rows in (int(size) for size in args.sizes.split(",")):
            paths = _write(Path(folder), rows, rows <= args.jsonl_up_to)
            for kind, path in paths.items():
                cli = [str(path), "--id", "q", "--column", "correct", "--k", "1,8",
                       "--metrics", "pass@k", "--format", "json"]
                runs: list[tuple[str, str | None, list[str] | None]] = [
                    ("polars route", ROUTES["polars route"], None),
                    ("kpass report", None, ["report", *cli]),
                    ("kpass report --sample", None, ["report", *cli, "--sample", "sample"])]
                runs += [(name, code, None) for name, code in ROUTES.items()
                         if name != "polars route"
                         and importlib.util.find_spec(NEEDS[name]) is not None
                         and not (name.endswith("local[2]") and rows > args.spark_up_to)]
                floor = None
                for name, code, argv in runs:
                    try:
                        seconds, rss = _run(path, code, argv)
                    except RuntimeError as error:
                        print(f"| {rows:,} | {kind} | {name} | failed: {error} | | |")
                        continue
                    floor = floor or seconds
                    print(f"| {rows:,} | {kind} | {name} | {seconds:.2f} s | "
                          f"{seconds / floor:.2f}x | {rss:.0f} MB |", flush=True)
            for path in paths.values():
                path.unlink()


if __name__ == "__main__":
    main()
