"""Fixtures shared by the report-layer tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest


@dataclass
class ReferenceRuns:
    """Past models' runs on a simulated 2PL benchmark, written as JSONL files."""

    folder: Path
    paths: list[str]
    #: a new model's (questions x 4) outcomes at ability theta, from the same benchmark
    outcomes: Callable[[float], np.ndarray]
    questions: int

    @staticmethod
    def write(path: Path | str, outcomes: np.ndarray, rows: Iterable[int]) -> None:
        """One JSONL run: ``{"id": "q<i>", "outcomes": [...]}`` for each question of ``rows``."""
        with open(path, "w", encoding="utf-8") as f:
            for q in rows:
                f.write(json.dumps({"id": f"q{q}", "outcomes": outcomes[q].tolist()}) + "\n")


@pytest.fixture
def reference_runs(tmp_path: Path) -> ReferenceRuns:
    """Eight reference models x 300 questions x 4 samples of a 2PL benchmark (seed 0)."""
    questions = 300
    rng = np.random.default_rng(0)
    a, b = np.exp(rng.normal(0, 0.3, questions)), rng.normal(0, 1.2, questions)

    def outcomes(theta: float) -> np.ndarray:
        return rng.binomial(1, 1 / (1 + np.exp(-a * (theta - b))), (4, questions)).T

    paths = []
    for j, theta in enumerate(rng.normal(0, 1, 8)):
        paths.append(str(tmp_path / f"ref{j}.jsonl"))
        ReferenceRuns.write(paths[-1], outcomes(theta), range(questions))
    return ReferenceRuns(tmp_path, paths, outcomes, questions)
