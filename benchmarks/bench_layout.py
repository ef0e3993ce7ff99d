"""A code move costs nothing: the same workloads on two commits, interleaved, as ratios.

Usage: python benchmarks/bench_layout.py [--before REV] [--after REV] [--rounds 7]
       [--only TEXT ...]   (the workloads whose name contains one of the texts)

Each commit is checked out into a temporary git worktree and imported from there
(``PYTHONPATH=<worktree>/shared``) in a fresh interpreter per workload and round; rounds
alternate before/after so that machine load hits both alike. Each workload times itself
inside its interpreter (the median CPU time of its repeats, warm-up excluded: CPU time, not
wall time, so that other work on the machine does not decide the ratio), except ``import
kpass``, which is the CPU time of a fresh interpreter. The ratio after / before is the
median over rounds; within +-5% is noise on this machine.

The workloads cross every module the issue-19 moves touched: the registry-derived tables,
``kpass report`` / ``compare`` / ``leaderboard`` (readers, rows, renderers), the
``evaluate`` vocabulary on every module, the standard errors, the leaderboard's rank sets,
and the threshold-tail kernels at large n.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SETUP = r"""
import json, os, sys, time, io, contextlib
import numpy as np
rng = np.random.default_rng(19)
def matrix(m, n, seed):
    r = np.random.default_rng(seed)
    p = r.beta(0.7, 0.7, m)
    return (r.random((m, n)) < p[:, None]).astype(np.int64)
def timed(function, repeats):
    function()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.process_time(); function(); times.append(time.process_time() - start)
    times.sort()
    return times[len(times) // 2]
def quiet(function):
    def run():
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = function()
        assert status == 0, err.getvalue()
    return run
folder = os.environ["BENCH_DATA"]
"""

WORKLOADS = {
    "report (CLI, 2000 x 32 JSONL)": (r"""
from kpass.report.cli import main
path = os.path.join(folder, "a.jsonl")
print(timed(quiet(lambda: main(["report", path, "--format", "json"])), 3))
""", 3),
    "compare (CLI, two 2000 x 32, --k 1,4,16)": (r"""
from kpass.report.cli import main
a, b = os.path.join(folder, "a.jsonl"), os.path.join(folder, "b.jsonl")
print(timed(quiet(lambda: main(["compare", a, b, "--k", "1,4,16", "--format", "json"])), 3))
""", 3),
    "leaderboard (CLI, four 2000 x 16)": (r"""
from kpass.report.cli import main
paths = [os.path.join(folder, f"m{i}.jsonl") for i in range(4)]
print(timed(quiet(lambda: main(["leaderboard", *paths, "--format", "json"])), 3))
""", 3),
    "evaluate vocabulary, every module (2000 x 16)": (r"""
import warnings
import kpass
from kpass.hf import keywords, vocabulary as v
R = matrix(2000, 16, 1); C = np.minimum(R + matrix(2000, 16, 2), 2)
answers = [[str(x) for x in row] for row in R[:300]]
states = {"binary": kpass.binary_counts(R), "categorical": kpass.categorical_counts(C),
          "answers": (answers, ["1"] * 300),
          "binary_pair": v.PairedCounts(kpass.binary_counts(R), kpass.binary_counts(1 - R))}
def run():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (kind, _) in v.FAMILIES.items():
            options = {"k": [1, 4, 16]} if name not in ("bayes_at_n", "avg_at_n_bayes") else {}
            if kind == "categorical":
                options["w"] = [0, 0.5, 1]
            v.compute_results(name, states[kind], keywords.check_options(name, options, when="x"))
print(timed(run, 3))
""", 3),
    "standard errors and compare (M = 2000)": (r"""
import warnings
import kpass
A, B = matrix(2000, 32, 3), matrix(2000, 32, 4)
ks = [1, 2, 4, 8, 16, 32]
def run():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in (kpass.pass_at_k, kpass.pass_hat_k, kpass.maj_at_k, kpass.mg_pass_at_k):
            kpass.standard_error(f, A, ks)
            kpass.compare(f, A, B, ks)
print(timed(run, 3))
""", 3),
    "leaderboard (Python, 8 models x 400)": (r"""
import kpass
runs = {f"m{i}": matrix(400, 8, 10 + i) for i in range(8)}
print(timed(lambda: kpass.leaderboard(kpass.pass_at_k, runs, [1, 4]), 3))
""", 3),
    "threshold tails: g_pass_at_k_tau_ci, n = 4096": (r"""
import kpass
R = matrix(200, 4096, 5)
print(timed(lambda: (kpass.g_pass_at_k_tau_ci(R, [64, 1024], 0.5),
                     kpass.mg_pass_at_k_ci(R, [64, 512])), 3))
""", 3),
}


def _env(tree: Path, **extra: str) -> dict[str, str]:
    """The workload's environment: kpass from ``tree``, bytecode written and kept (with
    PYTHONDONTWRITEBYTECODE set, every run would recompile kpass and time the compiler)."""
    env = {**os.environ, "PYTHONPATH": str(tree / "shared"), **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_workload(tree: Path, code: str, data: Path) -> float:
    env = _env(tree, BENCH_DATA=str(data))
    out = subprocess.run([sys.executable, "-c", SETUP + code], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def import_time(tree: Path) -> float:
    """CPU seconds of a fresh interpreter that imports kpass (itself and its children)."""
    env = _env(tree)
    before = os.times()
    subprocess.run([sys.executable, "-c", "import kpass"], env=env, check=True)
    after = os.times()
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


def write_data(folder: Path) -> None:
    import numpy as np

    def matrix(m: int, n: int, seed: int) -> np.ndarray:
        r = np.random.default_rng(seed)
        p = r.beta(0.7, 0.7, m)
        return (r.random((m, n)) < p[:, None]).astype(int)

    for name, R in (("a", matrix(2000, 32, 1)), ("b", matrix(2000, 32, 2)),
                    *((f"m{i}", matrix(2000, 16, 20 + i)) for i in range(4))):
        with open(folder / f"{name}.jsonl", "w") as out:
            for row in R:
                out.write(json.dumps({"outcomes": row.tolist()}) + "\n")


def worktree(rev: str, parent: Path) -> Path:
    path = parent / rev.replace("/", "_")
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), rev],
                   check=True, capture_output=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="20c7242")
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    workloads = {name: value for name, value in WORKLOADS.items()
                 if not args.only or any(text in name for text in args.only)}
    with tempfile.TemporaryDirectory() as scratch:
        parent = Path(scratch)
        data = parent / "data"
        data.mkdir()
        write_data(data)
        trees = {"before": worktree(args.before, parent), "after": worktree(args.after, parent)}
        try:
            times: dict[str, dict[str, list[float]]] = {}
            names = ["import kpass (fresh interpreter)", *workloads]
            for name in names:
                times[name] = {"before": [], "after": []}
            for round_ in range(args.rounds):
                order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
                for side in order:
                    times[names[0]][side].append(import_time(trees[side]))
                    for name, (code, _) in workloads.items():
                        times[name][side].append(run_workload(trees[side], code, data))
            print(f"before = {args.before}, after = {args.after}; {args.rounds} rounds, "
                  f"median CPU seconds; load average {os.getloadavg()[0]:.2f}")
            print("| workload | before (s) | after (s) | after / before |")
            print("|---|---|---|---|")
            for name in names:
                before = statistics.median(times[name]["before"])
                after = statistics.median(times[name]["after"])
                print(f"| {name} | {before:.4f} | {after:.4f} | {after / before:.3f} |")
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                                str(tree)], capture_output=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
