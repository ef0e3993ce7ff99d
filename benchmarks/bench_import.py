"""Start-up cost: `import kpass` and the `kpass` command against `import numpy, scipy.special`.

Usage: python benchmarks/bench_import.py [--runs 15] [--before REV]

Each command runs as a whole fresh process, in turn (floor, then each kpass command, then
again), so that machine load hits all alike; the figures are the best (minimum) over the
runs of the wall time and of the CPU time (user + sys, from ``os.wait4``), and the ratio
to the floor ``python -c "import numpy, scipy.special"`` (issue 31's target: ``import
kpass`` within 1.3x). Bytecode is written once by a warm-up run into a temporary
``PYTHONPYCACHEPREFIX`` (a user's installed package has its ``.pyc``; this shell may set
``PYTHONDONTWRITEBYTECODE``, which would time the compiler instead).

``--before REV`` also times the same kpass commands on the package of commit REV
(``git archive`` of ``shared/kpass`` into a temporary folder, imported by ``PYTHONPATH``).
What each command loads, and from where, is ``python -X importtime -c "import kpass"``;
``tests/structure/test_import_cost.py`` fails when a heavy module comes back.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "shared" / "kpass" / "data" / "tau_bench_airline_gpt4o.jsonl"

FLOOR = "import numpy, scipy.special"
CLI = "import sys\nfrom kpass.report.cli import main\nsys.exit(main({}))"
COMMANDS = {
    "import kpass": "import kpass",
    "kpass --version": CLI.format(["--version"]),
    "kpass report (50 x 4 JSONL)": CLI.format(["report", str(SAMPLE)]),
}


def run_once(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one fresh ``python -c code`` process."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True)
        raise SystemExit(f"{code!r} failed ({process.returncode}): {again.stderr}")
    return wall, usage.ru_utime + usage.ru_stime


def unpack(rev: str, folder: Path) -> Path:
    """``shared/kpass`` of commit ``rev`` under ``folder``; the folder to put on PYTHONPATH."""
    archive = folder / "before.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(REPO), "archive", rev, "shared/kpass"], stdout=out,
                       check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "before", filter="data")
    return folder / "before" / "shared"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="REV", help="also time the package of commit REV")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kpass-bench-import-") as tmp:
        env = {key: value for key, value in os.environ.items()
               if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        # (label, code, env): the floor first, then this tree, then the REV tree
        jobs = [("floor: " + FLOOR, FLOOR, env)]
        jobs += [(label, code, env) for label, code in COMMANDS.items()]
        if args.before:
            before_env = dict(env, PYTHONPATH=str(unpack(args.before, Path(tmp))))
            jobs += [(f"{label} [{args.before}]", code, before_env)
                     for label, code in COMMANDS.items()]
        for _, code, job_env in jobs:  # warm-up: writes the bytecode
            run_once(code, job_env)
        walls: dict[str, list[float]] = {label: [] for label, _, _ in jobs}
        cpus: dict[str, list[float]] = {label: [] for label, _, _ in jobs}
        for _ in range(args.runs):
            for label, code, job_env in jobs:
                wall, cpu = run_once(code, job_env)
                walls[label].append(wall)
                cpus[label].append(cpu)
    floor = jobs[0][0]
    load = os.getloadavg()
    print(f"{args.runs} runs of each, in turn; Python {sys.version.split()[0]}; "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print()
    print(f"| {'command':<42} | best wall s | median wall s | best cpu s | ratio (wall) "
          f"| ratio (cpu) |")
    print(f"|{'-' * 44}|-------------|---------------|------------|--------------|"
          f"-------------|")
    for label, _, _ in jobs:
        print(f"| {label:<42} | {min(walls[label]):11.3f} | "
              f"{statistics.median(walls[label]):13.3f} | {min(cpus[label]):10.3f} | "
              f"{min(walls[label]) / min(walls[floor]):11.2f}x | "
              f"{min(cpus[label]) / min(cpus[floor]):10.2f}x |")


if __name__ == "__main__":
    main()
