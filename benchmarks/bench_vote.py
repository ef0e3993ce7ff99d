"""Timing of kpass.vote_at_k: 10000 questions x 64 answers, k = 1, 2, 4, ..., 64.

Each question has between 1 and 64 distinct answers (uniform), drawn with
Dirichlet(0.5) frequencies, some of them None; the reference is one of the
possible answers, half the time the most likely one.
Run on demand: ``python benchmarks/bench_vote.py``.
"""

from __future__ import annotations

import time

import numpy as np

from kpass.vote import vote_at_k

QUESTIONS = 10_000
ANSWERS = 64
KS = [1, 2, 4, 8, 16, 32, 64]


def make_answers(seed: int = 0) -> tuple[list[list[str | None]], list[str]]:
    rng = np.random.default_rng(seed)
    answers, references = [], []
    for _ in range(QUESTIONS):
        distinct = int(rng.integers(1, ANSWERS + 1))
        freq = np.sort(rng.dirichlet(np.full(distinct, 0.5)))[::-1]
        labels = np.array([f"a{j}" for j in range(distinct)], dtype=object)
        if distinct > 1 and rng.random() < 0.2:
            labels[-1] = None
        answers.append(list(rng.choice(labels, size=ANSWERS, p=freq)))
        # Half the time the reference is the most likely answer, else any answer.
        pick = 0 if rng.random() < 0.5 else int(rng.integers(0, distinct))
        references.append(f"a{pick}")
    return answers, references


def main() -> None:
    answers, references = make_answers()
    for ties in ("fractional", "wrong"):
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            values = vote_at_k(answers, references, KS, ties=ties)
            best = min(best, time.perf_counter() - start)
        shown = ", ".join(f"{v:.4f}" for v in values)
        print(f"ties={ties:<10} {QUESTIONS} x {ANSWERS}, k={KS}: {best:.3f} s  [{shown}]")


if __name__ == "__main__":
    main()
