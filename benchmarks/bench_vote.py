"""Timing of kpass.vote_at_k (10000 questions x 64 answers, k = 1, 2, 4, ..., 64) and of
vote_at_k_ci against vote_at_k on the same 200 x 64 answers (k = 1, 8, 64), medians of
3 runs, with the ratio; and vote_at_k_ci's per-question posterior sd against a long plain
Monte Carlo (Dirichlet draws, exact vote of each).

Each question has between 1 and 64 distinct answers (uniform), drawn with
Dirichlet(0.5) frequencies, some of them None; the reference is one of the
possible answers, half the time the most likely one.
Run on demand: ``python benchmarks/bench_vote.py``.
"""

from __future__ import annotations

import time

import numpy as np

from kpass.families.vote import vote_at_k, vote_at_k_ci

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
    sd_against_long_monte_carlo()


def _median_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def posterior_against_point(questions: int = 200, ks: tuple[int, ...] = (1, 8, 64),
                            repeats: int = 3) -> None:
    """vote_at_k_ci / vote_at_k on one input, per k and tie rule: medians, same run."""
    answers, references = make_answers(seed=1, questions=questions)
    vote_at_k(answers, references, list(ks))  # warm-up (imports scipy.stats)
    for ties in ("fractional", "wrong"):
        for k in ks:
            point = _median_time(lambda k=k, t=ties: vote_at_k(answers, references, k, ties=t),
                                 repeats)
            posterior = _median_time(
                lambda k=k, t=ties: vote_at_k_ci(answers, references, k, ties=t), repeats)
            print(f"ties={ties:<10} {questions} x {ANSWERS}, k={k:>2}: vote_at_k "
                  f"{point * 1e3:7.1f} ms, vote_at_k_ci {posterior * 1e3:8.1f} ms -> "
                  f"{posterior / point:6.1f}x (target 30x)")


def _plain_monte_carlo(states, index, k: int, ties: str, means, draws: int, seed: int):
    """Var[g_k(pi)] of the given states from plain Dirichlet draws (no controls)."""
    from kpass._core.vote.posterior import _draw_votes

    rng = np.random.default_rng(seed)
    out = []
    for i, state in enumerate(index):
        sizes = states.sizes[state][states.sizes[state] > 0]
        alpha = np.concatenate([[states.ref[state] + 1.0], sizes + 1.0,
                                [states.none[state] + 1.0]])
        pi = rng.dirichlet(alpha, size=draws)
        values = _draw_votes(pi[:, 0], pi[:, 1:-1], pi[:, -1], [k], ties)[:, 0]
        out.append(np.mean((values - means[i]) ** 2))
    return np.array(out)


def sd_against_long_monte_carlo(questions: int = 200, picked: int = 12, long: int = 2000,
                                ks: tuple[int, ...] = (8, 64)) -> None:
    """Per-question posterior sd against a long plain Monte Carlo (``long`` draws).

    The questions whose posterior mean is nearest 1/2 (the largest sd) are
    compared; the long run's own error on sigma is about sqrt(1 / (2 long)).
    The sampler of earlier versions (256 plain draws) is shown for comparison.
    """
    from kpass._core.vote.kernel import _Clusters
    from kpass._core.vote.posterior import _exact_variance, _posterior_mean, _posterior_variance
    from kpass.families.vote import _clusters

    answers, references = make_answers(seed=1, questions=questions)
    every = _clusters(answers, references)
    for k in ks:
        ties = "fractional"
        means = _posterior_mean(every, k, ties, 1.0)
        index = np.argsort(np.abs(means - 0.5))[:picked]
        states = _Clusters(every.n[index], every.ref[index], every.none[index],
                           every.sizes[index], np.arange(picked))
        reference = _plain_monte_carlo(every, index, k, ties, means[index], long, 99)
        if k <= 12:
            ours = {"exact": _exact_variance(states, k, ties, 1.0, means[index])}
        else:
            ours = {f"controls, {draws} draws, seed {seed}": _posterior_variance(
                states, k, ties, 1.0, means[index], draws, seed)
                for draws in (16, 32) for seed in range(3)}
        for seed in range(2):
            ours[f"plain, 256 draws, seed {seed}"] = _plain_monte_carlo(
                every, index, k, ties, means[index], 256, seed)
        for name, variance in ours.items():
            error = np.sqrt(variance / reference) - 1.0
            print(f"k={k:>2} {name:<28} sigma vs {long}-draw MC on {picked} questions: "
                  f"rms {np.sqrt(np.mean(error**2)):.3f}, worst {np.abs(error).max():.3f} "
                  f"(MC's own ~{np.sqrt(0.5 / long):.3f})")


if __name__ == "__main__":
    main()
