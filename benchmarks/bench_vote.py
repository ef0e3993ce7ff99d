"""Timing of kpass.vote_at_k (10000 questions x 64 answers, k = 1, 2, 4, ..., 64) and of
vote_at_k_ci against vote_at_k on the same 200 x 64 answers (k = 1, 8, 64).

Each question has between 1 and 64 distinct answers (uniform), drawn with
Dirichlet(0.5) frequencies, some of them None; the reference is one of the
possible answers, half the time the most likely one.
Run on demand: ``python benchmarks/bench_vote.py``.
"""

from __future__ import annotations

import time

import numpy as np

from kpass.vote import vote_at_k, vote_at_k_ci

QUESTIONS = 10_000
ANSWERS = 64
KS = [1, 2, 4, 8, 16, 32, 64]


def make_answers(seed: int = 0, questions: int = QUESTIONS
                 ) -> tuple[list[list[str | None]], list[str]]:
    rng = np.random.default_rng(seed)
    answers, references = [], []
    for _ in range(questions):
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
    posterior_against_point()


def posterior_against_point(questions: int = 200, ks: tuple[int, ...] = (1, 8, 64)) -> None:
    """vote_at_k_ci / vote_at_k on one input, per k (the posterior is timed once: it is slow)."""
    answers, references = make_answers(seed=1, questions=questions)
    vote_at_k(answers, references, list(ks))  # warm-up (imports scipy.stats)
    for k in ks:
        start = time.perf_counter()
        vote_at_k(answers, references, k)
        point = time.perf_counter() - start
        start = time.perf_counter()
        vote_at_k_ci(answers, references, k)
        posterior = time.perf_counter() - start
        print(f"{questions} x {ANSWERS}, k={k:>2}: vote_at_k {point * 1e3:8.1f} ms, "
              f"vote_at_k_ci {posterior:8.2f} s -> {posterior / point:8.0f}x")


if __name__ == "__main__":
    main()
