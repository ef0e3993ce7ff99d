"""Long files at every size (issue 31, item 5): ``kpass report`` against DuckDB and polars.

Writes a long table (Q questions x 64 samples, rows shuffled, string ids ``q<i>``, columns
``q, sample, correct``) at each size as CSV, JSON Lines, one Parquet file and Parquet in 8
parts, then times whole processes, one at a time, under ``/usr/bin/time -v`` (wall clock and
the peak resident memory of the process, "Maximum resident set size"), best of ``--repeat``:

* ``kpass``: ``kpass report FILE --id q --column correct --k 1,8 --metrics pass@k --format json``;
* ``kpass --sample``: the same with ``--sample sample`` (every (id, sample) pair checked);
* ``duckdb``: ``SELECT q, count(*), sum(correct) ... GROUP BY q`` on the file, fetched;
* ``duckdb dup``: the same plus ``GROUP BY q, sample HAVING count(*) > 1`` (its duplicate check);
* ``polars`` and ``polars dup``: the same group-bys on ``pl.scan_*``.

kpass's modules are compiled to bytecode first (as an installed package's are; this machine
sets PYTHONDONTWRITEBYTECODE, which would make every kpass process compile its modules anew).

``--before DIR`` adds ``kpass`` and ``kpass --sample`` run with ``PYTHONPATH=DIR`` (a checkout's
``shared/`` folder, e.g. ``git archive a8d2d1a shared | tar -x -C /tmp/before``), so the table
shows the code before and after a change, same machine, same run.

Usage: nice python benchmarks/bench_long_sizes.py [--sizes 1000000,5000000,20000000]
       [--formats csv,jsonl,parquet,parts] [--dir /tmp/longsizes] [--before /tmp/before/shared]
       [--repeat 2] [--routes "kpass,kpass --sample,duckdb dup"]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

N_SAMPLES = 64
PARTS = 8

ENGINE = {
    "duckdb": """
import duckdb, sys
path, fmt, dup = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
src = {"csv": "read_csv('%s')", "jsonl": "read_json('%s', format='newline_delimited')",
       "parquet": "read_parquet('%s')", "parts": "read_parquet('%s/*.parquet')"}[fmt] % path
con = duckdb.connect()
con.execute("PRAGMA threads=2")
rows = con.execute(f"SELECT q, count(*), sum(correct) FROM {src} GROUP BY q").fetchall()
if dup:
    bad = con.execute(f"SELECT count(*) FROM (SELECT q, sample FROM {src} GROUP BY q, sample "
                      "HAVING count(*) > 1)").fetchone()[0]
    assert bad == 0
print(len(rows))
""",
    "polars": """
import polars as pl, sys
path, fmt, dup = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
scan = {"csv": pl.scan_csv, "jsonl": pl.scan_ndjson, "parquet": pl.scan_parquet,
        "parts": lambda p: pl.scan_parquet(p + "/*.parquet")}[fmt]
frame = scan(path)
g = frame.group_by("q").agg(pl.len().alias("n"), pl.col("correct").sum().alias("c")).collect()
if dup:
    bad = (frame.group_by(["q", "sample"]).agg(pl.len().alias("m"))
           .filter(pl.col("m") > 1).select(pl.len()).collect().item())
    assert bad == 0
print(g.height)
""",
}


def write_files(rows: int, folder: Path, formats: list[str]) -> dict[str, Path]:
    """The long table of ``rows`` rows in each format (written once, kept for reruns)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    questions = rows // N_SAMPLES
    rng = np.random.default_rng(rows)
    order = rng.permutation(questions * N_SAMPLES)
    q = order // N_SAMPLES
    table = pa.table({"q": pa.array(np.char.add("q", q.astype(str))),
                      "sample": order % N_SAMPLES,
                      "correct": (rng.random(order.size) < 0.3).astype(np.int64)})
    stem = folder / f"long{rows}"
    paths = {"csv": stem.with_suffix(".csv"), "jsonl": stem.with_suffix(".jsonl"),
             "parquet": stem.with_suffix(".parquet"), "parts": folder / f"long{rows}_parts"}
    if "csv" in formats and not paths["csv"].exists():
        pacsv.write_csv(table, paths["csv"], pacsv.WriteOptions(quoting_style="none"))
    if "jsonl" in formats and not paths["jsonl"].exists():
        import polars as pl

        pl.from_arrow(table).write_ndjson(paths["jsonl"])
    if "parquet" in formats and not paths["parquet"].exists():
        pq.write_table(table, paths["parquet"])
    if "parts" in formats and not paths["parts"].exists():
        paths["parts"].mkdir()
        step = -(-table.num_rows // PARTS)
        for part in range(PARTS):
            pq.write_table(table.slice(part * step, step),
                           paths["parts"] / f"part-{part}.parquet")
    return paths


def timed(command: list[str], env: dict[str, str] | None = None
          ) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak resident MB of one process, by
    ``/usr/bin/time -v``."""
    result = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True,
                            env=env, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{command} failed:\n{result.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", result.stderr)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    user = re.search(r"User time \(seconds\): (\S+)", result.stderr)
    system = re.search(r"System time \(seconds\): (\S+)", result.stderr)
    assert wall is not None and peak is not None and user is not None and system is not None
    seconds = 0.0
    for field in wall.group(1).split(":"):
        seconds = seconds * 60 + float(field)
    return seconds, float(user.group(1)) + float(system.group(1)), int(peak.group(1)) / 1024


def compiled(env: dict[str, str] | None) -> None:
    """Compile the kpass package a route imports to bytecode, as an installed package is.

    (A source checkout run with PYTHONDONTWRITEBYTECODE set, as on this machine, would
    otherwise compile its ~80 modules in every process: about 0.15 s of each figure.)
    """
    where = subprocess.run([sys.executable, "-c", "import kpass, os; "
                            "print(os.path.dirname(kpass.__file__))"],
                           capture_output=True, text=True, env=env, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], env=env, check=True)


def best(command: list[str], repeat: int, env: dict[str, str] | None = None
         ) -> tuple[float, float, float]:
    """The least wall and CPU time over ``repeat`` runs, and the largest peak memory."""
    runs = [timed(command, env) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000,20000000")
    parser.add_argument("--formats", default="csv,jsonl,parquet,parts")
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "longsizes"))
    parser.add_argument("--before", default=None, help="a shared/ folder of the old code")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--routes", default=None,
                        help="comma-separated route names to run (default: all)")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    formats = args.formats.split(",")
    kpass = [sys.executable, "-c", "import sys; from kpass.report.cli import main; "
             "sys.exit(main())", "report"]
    flags = ["--id", "q", "--column", "correct", "--k", "1,8", "--metrics", "pass@k",
             "--format", "json"]
    compiled(None)
    if args.before:
        compiled(dict(os.environ, PYTHONPATH=args.before))
    print("| rows | format | route | best wall | best CPU (user+sys) | peak RSS | load (1 min) |")
    print("|---|---|---|---|---|---|---|")
    for rows in map(int, args.sizes.split(",")):
        paths = write_files(rows, folder, formats)
        for fmt in formats:
            path = str(paths[fmt])
            routes: list[tuple[str, list[str], dict[str, str] | None]] = []
            if args.before:
                old = dict(os.environ, PYTHONPATH=args.before)
                routes += [("kpass before", [*kpass, path, *flags], old),
                           ("kpass before --sample",
                            [*kpass, path, *flags, "--sample", "sample"], old)]
            routes += [("kpass", [*kpass, path, *flags], None),
                       ("kpass --sample", [*kpass, path, *flags, "--sample", "sample"], None)]
            for engine, code in ENGINE.items():
                for dup in ("0", "1"):
                    routes.append((engine + (" dup" if dup == "1" else ""),
                                   [sys.executable, "-c", code, path, fmt, dup], None))
            for name, command, env in routes:
                if args.routes and name not in args.routes.split(","):
                    continue
                wall, cpu, peak = best(command, args.repeat, env)
                load = os.getloadavg()[0]
                print(f"| {rows:,} | {fmt} | {name} | {wall:.2f} s | {cpu:.2f} s | "
                      f"{peak:.0f} MB | {load:.1f} |", flush=True)


if __name__ == "__main__":
    main()
