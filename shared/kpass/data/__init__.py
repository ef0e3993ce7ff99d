"""Sample outcome data shipped with kpass (see README.md in this folder for licences).

Example:
    >>> from kpass.data import tau_bench_outcomes
    >>> outcomes = tau_bench_outcomes()
    >>> len(outcomes), len(outcomes[0])
    (50, 4)
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

TAU_BENCH_FILE = "tau_bench_airline_gpt4o.jsonl"
AIME_FILE = "aime25_q06_gpt_oss_20b.json"


def sample_path(name: str = TAU_BENCH_FILE) -> Path:
    """Path of a bundled sample file.

    Args:
        name: file name inside ``kpass/data``.

    Returns:
        The file's path on disk.
    """
    return Path(str(resources.files(__name__).joinpath(name)))


def tau_bench_outcomes() -> list[list[int]]:
    """The tau-bench airline sample: 50 tasks x 4 trials of GPT-4o, outcomes 0/1.

    Returns:
        One list of four 0/1 outcomes per task, in task order.
    """
    with sample_path(TAU_BENCH_FILE).open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [list(row["outcomes"]) for row in rows]


def aime_sample() -> dict[str, Any]:
    """The AIME 2025 q06 sample: 80 answers of gpt-oss-20b with the ground truth.

    Returns:
        A dict with ``answers``, ``scores``, ``correct`` and ``ground_truth``.
    """
    with sample_path(AIME_FILE).open(encoding="utf-8") as handle:
        return json.load(handle)
