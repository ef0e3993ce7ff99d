"""``--by model`` against the single-model route, time per row (issue 39).

A Parquet long table of 20 models x 5 tasks x 200 questions x 8 samples (columns model,
task, question, sample, correct; 3.2M rows, shuffled), and each model's rows in a file of
its own (160,000 rows). Timed in one process, best of ``--repeat`` runs, interleaved:

* read: ``load_long_by(table, by="model")`` against ``load_long(one model's file)``;
* report: ``kpass report table --id question --by model`` against ``kpass report
  model.parquet --id question``;
* leaderboard: ``kpass leaderboard table --id question --by model`` against ``kpass
  leaderboard m00.parquet ... m19.parquet --id question`` (the same rows, 20 files).

Each line prints seconds and nanoseconds per row of both routes and their ratio (the
``--by`` route's time per row over the single-model route's); the target is 1.5x or less.

Usage: python benchmarks/bench_long_by.py [--models 20] [--tasks 5] [--questions 200]
       [--samples 8] [--repeat 3] [--sample-column]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def _best(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def _cli(argv: list[str]) -> Callable[[], None]:
    from kpass.report.cli import main

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(
                io.StringIO()):
            status = main(argv)
        if status != 0:
            raise SystemExit(f"kpass {' '.join(argv)} exited {status}")

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--questions", type=int, default=200, help="questions per task")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample-column", action="store_true",
                        help="read with --sample sample (the repeat check too)")
    args = parser.parse_args()
    import pandas as pd

    from kpass.io.long.load import load_long, load_long_by

    models, tasks, questions, samples = args.models, args.tasks, args.questions, args.samples
    per_model = tasks * questions * samples
    rng = np.random.default_rng(0)
    model = np.repeat([f"m{i:02d}" for i in range(models)], per_model)
    task = np.tile(np.repeat([f"t{t}" for t in range(tasks)], questions * samples), models)
    question = np.tile(np.repeat(np.arange(tasks * questions), samples), models)
    frame = pd.DataFrame({"model": model, "task": task,
                          "question": [f"q{q}" for q in question],
                          "sample": np.tile(np.arange(samples), models * tasks * questions),
                          "correct": rng.integers(0, 2, model.size)})
    frame = frame.sample(frac=1, random_state=0).reset_index(drop=True)
    extra = ["--sample", "sample"] if args.sample_column else []
    sample = "sample" if args.sample_column else None
    with tempfile.TemporaryDirectory() as folder:
        table = Path(folder) / "runs.parquet"
        frame.to_parquet(table, index=False)
        files = []
        for name, rows in frame.groupby("model", sort=True):
            path = Path(folder) / f"{name}.parquet"
            rows.to_parquet(path, index=False)
            files.append(str(path))
        one = files[0]
        rows_all, rows_one = len(frame), per_model
        cases = [
            ("read", lambda: load_long_by(str(table), by="model", id="question", sample=sample),
             lambda: load_long(one, id="question", sample=sample), rows_one),
            ("report", _cli(["report", str(table), "--id", "question", "--by", "model",
                             "--k", "1,8", *extra]),
             _cli(["report", one, "--id", "question", "--k", "1,8", *extra]), rows_one),
            ("leaderboard", _cli(["leaderboard", str(table), "--id", "question", "--by",
                                  "model", *extra]),
             _cli(["leaderboard", *files, "--id", "question", *extra]), rows_all),
        ]
        print(f"{models} models x {tasks} tasks x {questions} questions x {samples} samples: "
              f"{rows_all:,} rows ({rows_one:,} per model); best of {args.repeat}"
              f"{', with --sample' if sample else ''}")
        print(f"{'route':<12} {'--by s':>8} {'ns/row':>7} {'single s':>9} {'ns/row':>7} "
              f"{'ratio':>6}")
        for name, by_route, single, single_rows in cases:
            by_route()  # warm: imports, file cache
            single()
            by_time = single_time = float("inf")
            for _ in range(args.repeat):  # interleaved, so drift hits both alike
                by_time = min(by_time, _best(by_route, 1))
                single_time = min(single_time, _best(single, 1))
            by_ns, single_ns = by_time / rows_all * 1e9, single_time / single_rows * 1e9
            print(f"{name:<12} {by_time:8.3f} {by_ns:7.0f} {single_time:9.3f} "
                  f"{single_ns:7.0f} {by_ns / single_ns:6.2f}")


if __name__ == "__main__":
    main()
