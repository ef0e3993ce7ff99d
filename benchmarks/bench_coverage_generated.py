"""Coverage, tails and width of the intervals over questions on GENERATED held-out designs.

    nice -n 10 python benchmarks/bench_coverage_generated.py [--reps 500] [--seed 20261129]
        [--designs 24] [--mix general|never-solved] [--only 0,3,7] [--list] [--markdown]

The designs are drawn from a seed by :func:`generate`, which was written down and committed
before any of them was simulated, and they were not used to change any interval or rule
(``kpass.stats.beta_binomial``'s profile and ``RULE``, ``kpass.stats.intervals``' constants):
the fixes of issue 38 item 17 / issue 40 item 2 were tuned on the designs of
``bench_coverage_betabin.py`` (both of its sets count as tuning from then on).

The generator (design i uses ``numpy.random.default_rng([seed, i])``):

- samples per question n from {1, 4, 16}; k from {1, 2, 4, 8} with k <= n; metric Pass^k
  (k = 1: accuracy, Pass@1), the metrics the ``auto`` rule can give the beta-binomial
  interval; questions M from {10, 15, 20, 30, 50, 100, 200};
- a population of success rates: a mixture of 1-3 Beta components (weights Dirichlet(1);
  each with mean uniform in (0.02, 0.98) and precision a + b log-uniform in (0.3, 30)),
  plus with probability 0.35 a share uniform in (0.1, 0.7) of impossible questions (p = 0),
  plus with probability 0.15 a share uniform in (0.05, 0.3) of always-solved ones (p = 1),
  the shares renormalised; with probability 0.25 mirrored (p -> 1 - p) so some designs sit
  near 1;
- drawn again (same rng) until the population value is near a bound: the smaller of Pass^k
  and 1 - Pass^k in [0.003, 0.3] (the boundary region and a little past the rule's 0.2).

The ``never-solved`` mix (``--mix never-solved``; the third set, seed 20261203: written and
committed before any of its designs was simulated, to validate the ``auto`` rule's
never-solved conditions, ``kpass.stats.beta_binomial.NEVER_SOLVED_SHARE`` and
``ZERO_INFLATION_LR``, chosen on the first two sets) weights the draw toward the class
where the Beta model fails:

- samples per question n from {4, 8, 16}; k from {2, 4, 8} with k <= n (Pass^2-Pass^8, the
  metrics the rule can give the beta-binomial interval); questions M from
  {20, 30, 50, 100, 200} (the rule's range);
- 1-3 Beta components as above, plus with probability 0.65 a share uniform in (0.3, 0.7)
  of impossible questions (p = 0); no always-solved questions, no mirroring (the other
  0.35 are the controls: rare Pass^k without never-solved mass, where the beta-binomial
  interval was meant to help);
- drawn again until Pass^k is in [0.003, 0.3].

The population value is exact: E[p^k] of a Beta is prod_{j<k} (a + j) / (a + b + j).
Per design and method: ``cov`` (share of intervals holding the value), ``low`` (wholly
below it), ``high`` (wholly above), mean ``width``; methods as in
``bench_coverage_betabin.py`` (se-based, betabin wherever se > 0, auto by the rule);
``before`` (``--before``): ``auto`` by the rule without its never-solved conditions, on
the same replications (the second set's rule for Pass^k with k >= 2); ``oracle/se
width``: the width of the oracle interval (the central 95% of the unbiased estimate's own
sampling distribution, which only the simulation knows: the exact 95% shift interval
around that estimate) over the se-based width.
At 500 replications the Monte Carlo SE of a tail share of 0.025 is 0.007, of coverage
0.95 0.010. The default run takes a few minutes on one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import betaln

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_coverage import print_table  # noqa: E402
from bench_coverage_betabin import Design, simulate  # noqa: E402

SEED = 20261129
COUNT = 24
SAMPLES = (1, 4, 16)
KS = (1, 2, 4, 8)
QUESTIONS = (10, 15, 20, 30, 50, 100, 200)
MIXES = ("general", "never-solved")
HARD_SAMPLES = (4, 8, 16)
HARD_KS = (2, 4, 8)
HARD_QUESTIONS = (20, 30, 50, 100, 200)
NEVER_SOLVED_CHANCE = 0.65


@dataclass(frozen=True)
class Population:
    """A mixture of Beta components and point masses at 0 and 1 (weights sum to 1)."""

    betas: tuple[tuple[float, float, float], ...]  # (weight, a, b)
    zero: float  # share of impossible questions (p = 0)
    one: float  # share of always-solved questions (p = 1)

    def value(self, k: int) -> float:
        """E[p^k] exactly."""
        out = self.one
        for w, a, b in self.betas:
            out += w * float(np.exp(betaln(a + k, b) - betaln(a, b)))
        return out

    def draw(self) -> Callable[[np.random.Generator, tuple[int, int]], np.ndarray]:
        weights = np.array([self.zero, self.one] + [w for w, _, _ in self.betas])
        params = [(a, b) for _, a, b in self.betas]

        def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
            which = rng.choice(weights.size, size=shape, p=weights / weights.sum())
            p = np.where(which == 1, 1.0, 0.0)
            for index, (a, b) in enumerate(params):
                mask = which == index + 2
                p[mask] = rng.beta(a, b, size=int(mask.sum()))
            return p
        return draw

    def describe(self) -> str:
        parts = [f"{w:.2f} Beta({a:.2g},{b:.2g})" for w, a, b in self.betas]
        if self.zero:
            parts.append(f"{self.zero:.2f} at 0")
        if self.one:
            parts.append(f"{self.one:.2f} at 1")
        return " + ".join(parts)


def _beta_mix(rng: np.random.Generator) -> list[tuple[float, float, float]]:
    """1-3 Beta components (weight, a, b): uniform means, log-uniform precisions 0.3-30."""
    count = int(rng.integers(1, 4))
    weights = rng.dirichlet(np.ones(count))
    betas = []
    for w in weights:
        mean = rng.uniform(0.02, 0.98)
        precision = float(np.exp(rng.uniform(np.log(0.3), np.log(30.0))))
        betas.append((float(w), mean * precision, (1.0 - mean) * precision))
    return betas


def _population(rng: np.random.Generator) -> Population:
    betas = _beta_mix(rng)
    zero = float(rng.uniform(0.1, 0.7)) if rng.random() < 0.35 else 0.0
    one = float(rng.uniform(0.05, 0.3)) if rng.random() < 0.15 else 0.0
    rest = 1.0 - zero - one
    if rest <= 0.05:
        zero, one, rest = zero / (zero + one + 0.05), one / (zero + one + 0.05), 0.05
        rest = 1.0 - zero - one
    betas = [(w * rest, a, b) for w, a, b in betas]
    if rng.random() < 0.25:  # mirrored: p -> 1 - p
        betas = [(w, b, a) for w, a, b in betas]
        zero, one = one, zero
    return Population(tuple(betas), zero, one)


def _never_solved_population(rng: np.random.Generator) -> Population:
    """The ``never-solved`` mix's population (module docstring)."""
    betas = _beta_mix(rng)
    zero = float(rng.uniform(0.3, 0.7)) if rng.random() < NEVER_SOLVED_CHANCE else 0.0
    return Population(tuple((w * (1.0 - zero), a, b) for w, a, b in betas), zero, 0.0)


def generate(seed: int = SEED, count: int = COUNT, mix: str = "general") -> list[Design]:
    """The held-out designs (module docstring), design i from ``default_rng([seed, i])``.

    ``mix``: ``general`` (the first two sets' generator) or ``never-solved`` (the third
    set's: Pass^2-Pass^8, 20-200 questions, most designs with 30-70% impossible questions).
    """
    if mix not in MIXES:
        raise ValueError(f"`mix` must be one of {', '.join(MIXES)}; got {mix!r}")
    hard = mix == "never-solved"
    out: list[Design] = []
    for index in range(count):
        rng = np.random.default_rng([seed, index])
        samples = int(rng.choice(HARD_SAMPLES if hard else SAMPLES))
        k = int(rng.choice([k for k in (HARD_KS if hard else KS) if k <= samples]))
        questions = int(rng.choice(HARD_QUESTIONS if hard else QUESTIONS))
        while True:
            population = _never_solved_population(rng) if hard else _population(rng)
            truth = population.value(k)
            if 0.003 <= min(truth, 1.0 - truth) <= 0.3:
                break
        name = (f"G{index:02d} Pass^{k} = {truth:.3f}, {population.describe()}, "
                f"n={samples}")
        out.append(Design(name, questions, samples, "pass^k", k, population.draw(), truth,
                          True))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--designs", type=int, default=COUNT)
    parser.add_argument("--mix", choices=MIXES, default="general",
                        help="the design generator (module docstring)")
    parser.add_argument("--only", type=str, default=None,
                        help="comma-separated design indices to simulate (default: all)")
    parser.add_argument("--before", action="store_true",
                        help="add auto by the rule without its never-solved conditions")
    parser.add_argument("--list", action="store_true", help="list the designs, simulate none")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    designs = generate(args.seed, args.designs, args.mix)
    chosen = (set(range(len(designs))) if args.only is None
              else {int(i) for i in args.only.split(",")})
    if args.list:
        for design in designs:
            print(f"{design.name}, M={design.questions}")
        return
    start = time.perf_counter()
    header = ["design (generated, held-out)", "M", "se-based cov", "low", "high", "width",
              "betabin cov", "low", "high", "width", "auto cov", "low", "high", "width",
              "used", "auto/se width", "oracle/se width"]
    if args.before:
        header += ["before cov", "low", "high", "used", "before/se width"]
    rows = []
    for index, design in enumerate(designs):
        if index not in chosen:
            continue
        r = simulate(design, args.reps, args.seed * 100 + index)
        row = [design.name, str(design.questions)]
        for name in ("se-based", "betabin", "auto"):
            row += [f"{v:.3f}" for v in r[name]]
        row.append(f"{r['used'][0]:.2f}")
        row.append(f"{r['auto'][3] / r['se-based'][3]:.2f}")
        row.append(f"{r['oracle'][0] / r['se-based'][3]:.2f}")
        if args.before:
            row += [f"{v:.3f}" for v in r["before"][:3]]
            row += [f"{r['used before'][0]:.2f}", f"{r['before'][3] / r['se-based'][3]:.2f}"]
        rows.append(row)
        print(" | ".join(row), file=sys.stderr, flush=True)
    print_table(header, rows, args.markdown)
    print(f"\n{args.reps} replications per design, seed {args.seed}, mix {args.mix} (design i: "
          f"default_rng([seed, i]); replications: seed * 100 + i); "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
