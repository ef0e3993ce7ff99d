"""Family-wise error and power of the leaderboard's pairs told apart: the studentised
sign-flip max-|T| stepdown (kpass's default) against Holm over the same pairs, in the same
seeded replications.

Each replication draws M questions with a difficulty b_q ~ N(0, 1.5^2) shared by every
model (paired questions; with clusters, questions of a cluster share 90% of their
difficulty) and n = 4 samples per question and model at rate expit(a_j + b_q); the
per-question values are Pass@1 (the share of correct samples). Under the null every a_j is
0 and any pair told apart is a family-wise error. Under the alternative a_j = 0.25 j
(abilities on a grid): power is the mean share of the truly different pairs told apart.

Beyond 15 questions (clusters) the max-|T| reference draws random sign patterns; the
benchmark draws 1000 (kpass: 20000) to run in minutes. Its p-values, (1 + hits) / (1 + B),
are valid at any B (Phipson and Smyth 2010); more draws only add a little power.

Usage: python benchmarks/bench_leaderboard_fwer.py [--quick]
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.special import expit

from kpass.stats import rank_sets
from kpass.stats.rank_sets import _covariance, _pair_verdicts, _unit_totals

UNEQUAL = [13, 5, 3, 2, 2, 1, 1, 1, 1, 1]  # 10 clusters, 30 questions
DESIGNS = [  # (label, models, questions or cluster sizes)
    ("5 models, 20 questions", 5, 20),
    ("8 models, 20 questions", 8, 20),
    ("8 models, 30 questions", 8, 30),
    ("5 models, 50 questions", 5, 50),
    ("12 models, 40 questions", 12, 40),
    ("8 models, 10 unequal clusters", 8, UNEQUAL),
    ("5 models, 10 unequal clusters", 5, UNEQUAL),
    ("4 models, 20 questions, equal means, different profiles", 4, 20),
]
#: The last design's null: models with a slope s_j on the difficulty (rate expit(a_j + s_j b)),
#: a_j set so that every model has the same population Pass@1: the per-question differences
#: are not symmetric, only centred (what a randomisation test does not assume away).
SLOPES = np.array([1.0, 0.4, 1.6, 0.7])


def equal_mean_offsets(slopes: np.ndarray, target: float = 0.5) -> np.ndarray:
    """a_j with E[expit(a_j + s_j b)] = target for b ~ N(0, 1.5^2), by quadrature."""
    from scipy import integrate, optimize, stats

    def mean(a: float, s: float) -> float:
        return integrate.quad(lambda b: expit(a + s * b) * stats.norm.pdf(b, scale=1.5),
                              -15, 15)[0]

    return np.array([optimize.brentq(lambda a, s=s: mean(a, s) - target, -10, 10)
                     for s in slopes])


def draw(rng: np.random.Generator, abilities: np.ndarray, design: int | list[int],
         samples: int = 4, slopes: np.ndarray | None = None
         ) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-question Pass@1 values (K, M) and cluster codes (None without clusters)."""
    if isinstance(design, int):
        difficulty, codes = rng.normal(0.0, 1.5, size=design), None
    else:
        codes = np.repeat(np.arange(len(design)), design)
        shared = rng.normal(0.0, 1.5 * 0.9, size=len(design))[codes]
        difficulty = shared + rng.normal(0.0, 1.5 * np.sqrt(1 - 0.81), size=codes.size)
    slope = np.ones_like(abilities) if slopes is None else slopes
    rate = expit(abilities[:, None] + slope[:, None] * difficulty[None, :])
    return rng.binomial(samples, rate) / samples, codes


def verdicts(values: np.ndarray, codes: np.ndarray | None, confidence: float = 0.95
             ) -> dict[str, np.ndarray]:
    """Pairs told apart (i < j, upper triangle order) by max-|T| and by Holm."""
    estimates = values.mean(axis=1)
    sigma, df = _covariance(values, codes)
    units = _unit_totals(values, codes)
    rows, cols = np.triu_indices(estimates.size, 1)
    difference = estimates[rows] - estimates[cols]
    out = {}
    for method, given in (("max-t", units), ("holm", None)):
        _, _, told, _ = _pair_verdicts(estimates, sigma, df, confidence, given, rows, cols,
                                       difference)
        out[method] = told & (np.sign(difference) != 0)
    out["wrong-sign"] = np.sign(difference)
    return out


def main() -> int:
    rank_sets.DRAWS = 1000
    replications = 400 if "--quick" in sys.argv[1:] else 2000
    print(f"replications per design: {replications} (null) and {replications // 4} "
          "(alternative); seed 29; 95% level\n")
    print("| design | FWER max-T | FWER Holm | power max-T | power Holm |")
    print("|---|---:|---:|---:|---:|")
    for label, models, design in DESIGNS:
        rng = np.random.default_rng(29)
        profiles = "profiles" in label
        null = equal_mean_offsets(SLOPES) if profiles else np.zeros(models)
        slopes = SLOPES if profiles else None
        errors = {"max-t": 0, "holm": 0}
        for _ in range(replications):
            values, codes = draw(rng, null, design, slopes=slopes)
            found = verdicts(values, codes)
            for method in errors:
                errors[method] += bool(found[method].any())
        alternative = 0.25 * np.arange(models) + (null if profiles else 0.0)
        told = {"max-t": 0.0, "holm": 0.0}
        for _ in range(replications // 4):
            values, codes = draw(rng, alternative, design, slopes=slopes)
            found = verdicts(values, codes)
            for method in told:
                # a pair told apart the wrong way round counts as not found
                right = found["wrong-sign"] < 0  # column model truly better
                told[method] += float(np.mean(found[method] & right))
        print(f"| {label} | {errors['max-t'] / replications:.3f} | "
              f"{errors['holm'] / replications:.3f} | "
              f"{told['max-t'] / (replications // 4):.3f} | "
              f"{told['holm'] / (replications // 4):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
