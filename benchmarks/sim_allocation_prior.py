"""Which prior should `kpass.allocate` / `kpass next` use by default? (issue 38, item 16)

A simulation, not a speed benchmark. Each design draws 200 questions' true success rates
p_q from a population, a pilot of 4 samples each (Binomial(4, p_q)), then spreads 2400
more samples (12 per question on average) by ``kpass.allocate`` under the uniform prior,
under ``prior="empirical"`` (the Beta population fitted to the pilot) and evenly (12 more
each). The figure is the realised within-question variance of the benchmark mean at the
final N, exact from the true p's (``sim_allocation_rounds.realised``), allocation over
even: below 1 allocation helped, above 1 it hurt; beside it the ratio the split promised
(``allocation_outlook``, under its own prior), so promised and realised can be compared.
It also prints the share of the
estimate's whole variance (within + between questions, the between part var(g(p))/M)
that allocation can move at all: the within part at the even spread.

    python benchmarks/sim_allocation_prior.py            # 20 seeds per design, ~2-4 min
    python benchmarks/sim_allocation_prior.py 40         # more seeds
"""
import json
import sys
import warnings
from pathlib import Path

import numpy as np

import kpass
from kpass.stats.allocation import allocation_outlook

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim_allocation_rounds import METRICS, realised  # noqa: E402

M, PILOT, BUDGET = 200, 4, 2400

#: name -> draw of the true rates (rng, M) -> p. "rare" is the audit's design.
DESIGNS = {
    "rare Beta(0.05, 1)": lambda rng, m: rng.beta(0.05, 1.0, m),
    "hard Beta(0.5, 1.5)": lambda rng, m: rng.beta(0.5, 1.5, m),
    "uniform Beta(1, 1)": lambda rng, m: rng.beta(1.0, 1.0, m),
    "easy Beta(2, 0.3)": lambda rng, m: rng.beta(2.0, 0.3, m),
    "30% impossible + Beta(2, 2)": lambda rng, m: np.where(rng.random(m) < 0.3, 0.0,
                                                           rng.beta(2.0, 2.0, m)),
}


def one(design, label, seed):
    rng = np.random.default_rng(seed)
    p = DESIGNS[design](rng, M)
    c = rng.binomial(PILOT, p)
    counts = kpass.BinaryCounts(np.full(M, PILOT), c)
    metric, k = METRICS[label]
    even = realised(label, np.full(M, PILOT + BUDGET // M), p)
    out = {}
    for prior in ("uniform", "empirical"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            extra = kpass.allocate(metric, counts, k, BUDGET, prior=prior)
        out[prior] = realised(label, PILOT + extra, p) / even
        out[prior + "_promised"] = allocation_outlook(metric, counts, k, extra, prior=prior)[0]
    # the share allocation can move: the within-question part of the benchmark mean's
    # variance at the even spread, sum_q V_q / M^2, against the between part var(g(p)) / M
    g = p**k if label.startswith("Pass^") else 1.0 - (1.0 - p) ** k
    within, between = even / M**2, float(np.var(g)) / M
    return out, within / (within + between)


def main(seeds=20):
    rows = []
    for design in DESIGNS:
        for label in METRICS:
            ratios = {"uniform": [], "empirical": [], "uniform_promised": [],
                      "empirical_promised": []}
            shares = []
            for seed in range(seeds):
                out, share = one(design, label, 1000 + seed)
                shares.append(share)
                for prior, ratio in out.items():
                    ratios[prior].append(ratio)
            row = {"design": design, "metric": label,
                   "within_share": round(float(np.mean(shares)), 3)}
            for prior, values in ratios.items():
                values = np.array(values)
                row[prior] = round(float(values.mean()), 3)
                if not prior.endswith("_promised"):
                    row[prior + "_worse_than_even"] = int(np.sum(values > 1.0))
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
