"""Run every benchmark in one process tree: core vs scorio, module ingestion, vote@k, reading.

Usage: python benchmarks/run.py [--quick]   (or: make bench)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    quick = ["--quick"] if "--quick" in sys.argv[1:] else []
    status = 0
    for script, extra in (("bench_core.py", quick), ("bench_modules.py", []),
                          ("bench_vote.py", []), ("bench_read.py", quick)):
        print(f"\n## {script}\n", flush=True)
        status |= subprocess.call([sys.executable, str(HERE / script), *extra])
    return status


if __name__ == "__main__":
    raise SystemExit(main())
