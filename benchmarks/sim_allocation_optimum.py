"""Is kpass.allocate's greedy split the optimum of the issue's criterion, and how far is 0.85?

The criterion (issue 32): the within-question variance of the metric's estimate after the
allocation, expected under each question's posterior Beta(1 + c_q, 1 + n_q - c_q):
sum_q W_q(n_q + m_q), W_q(N) = E_post[Var(s(N, X) | p)] = E_{X ~ BetaBinom(N, a, b)}
[s(N, X)^2] - E_post[g(p)^2]. Written here from closed forms (s: 1 - C(N-x, k)/C(N, k)
for Pass@k, C(x, k)/C(N, k) for Pass^k; Beta moments for E g^2), not from kpass.

1. ``small``: 300 random small cases (5 questions, p ~ Beta(0.5, 1.5), 4 samples each,
   a budget of 6 per question = 30), every split of the budget enumerated (46,376
   splits): the best split's criterion against the greedy's (kpass.allocate).
2. ``design``: the issue's design (200 questions, p ~ Beta(0.5, 1.5), n = 4, 2400 more),
   seeds 1000-1019: the exact optimum over all splits by dynamic programming (min-plus
   over questions; no convexity assumed) against kpass.allocate and the even spread.
3. ``sharper``: the same ratio (greedy over even, posterior-expected) when the pilot is
   larger (n = 4, 8, 16, 32 now, 12 more per question on average), seeds 1000-1019: how
   much the posteriors must know before the one-shot allocation reaches 0.85.

    python benchmarks/sim_allocation_optimum.py            # about 1 min
"""
import itertools
import json
import math
import sys

import numpy as np
from scipy import special, stats

import kpass

METRICS = {"Pass@1": ("at", 1), "Pass@4": ("at", 4), "Pass^4": ("hat", 4)}
KPASS = {"at": kpass.pass_at_k, "hat": kpass.pass_hat_k}


def s_values(kind, k, N):
    x = np.arange(N + 1)
    if kind == "at":
        return 1.0 - special.comb(N - x, k) / special.comb(N, k)
    return special.comb(x, k) / special.comb(N, k)


def beta_moment_g2(kind, k, a, b):
    """E[g(p)^2] under Beta(a, b), from Beta-function ratios."""
    def mom(da, db):
        return math.exp(special.betaln(a + da, b + db) - special.betaln(a, b))
    if kind == "at":
        return 1.0 - 2.0 * mom(0, k) + mom(0, 2 * k)
    return mom(2 * k, 0)


def W(kind, k, a, b, N):
    pmf = stats.betabinom.pmf(np.arange(N + 1), N, a, b)
    return float(pmf @ s_values(kind, k, N) ** 2) - beta_moment_g2(kind, k, a, b)


def tables(kind, k, n, c, max_extra):
    """W_q(n_q + m) for m = 0..max_extra, per distinct (n, c) state."""
    cache = {}
    out = np.empty((n.size, max_extra + 1))
    for q in range(n.size):
        key = (int(n[q]), int(c[q]))
        if key not in cache:
            a, b = 1 + key[1], 1 + key[0] - key[1]
            cache[key] = np.array([W(kind, k, a, b, key[0] + m) for m in range(max_extra + 1)])
        out[q] = cache[key]
    return out


def dp_optimum(table, budget):
    """min sum_q table[q, m_q] subject to sum m_q = budget (exact, min-plus convolution)."""
    best = np.full(budget + 1, np.inf)
    best[0] = 0.0
    width = table.shape[1]
    for row in table:
        new = np.full(budget + 1, np.inf)
        for m in range(min(width, budget + 1)):
            np.minimum(new[m:], best[:budget + 1 - m] + row[m], out=new[m:])
        best = new
    return float(best[budget])


def small(cases=300, Q=5, n0=4, per_q=6):
    rng = np.random.default_rng(7)
    budget = Q * per_q
    splits = np.array([s for s in itertools.product(range(budget + 1), repeat=Q - 1)
                       if sum(s) <= budget])
    splits = np.column_stack([splits, budget - splits.sum(1)])
    worst = {label: 0.0 for label in METRICS}
    for _ in range(cases):
        p = rng.beta(0.5, 1.5, Q)
        c = rng.binomial(n0, p)
        n = np.full(Q, n0)
        for label, (kind, k) in METRICS.items():
            tab = tables(kind, k, n, c, budget)
            values = tab[np.arange(Q), splits].sum(1)
            greedy = kpass.allocate(KPASS[kind], kpass.BinaryCounts(n, c), k, budget)
            gap = tab[np.arange(Q), greedy].sum() / values.min() - 1.0
            worst[label] = max(worst[label], gap)
    print(json.dumps({"row": "small", "cases": cases, "splits": len(splits),
                      "worst_relative_gap_greedy_vs_best": worst}), flush=True)


def design(seeds=range(1000, 1020), Q=200, n0=4, per_q=12, report=True):
    out = {label: [] for label in METRICS}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        p = rng.beta(0.5, 1.5, Q)
        c = rng.binomial(n0, p)
        n = np.full(Q, n0)
        budget = Q * per_q
        for label, (kind, k) in METRICS.items():
            tab = tables(kind, k, n, c, 8 * per_q)
            even = tab[:, per_q].sum()
            optimum = dp_optimum(tab, budget)
            greedy = kpass.allocate(KPASS[kind], kpass.BinaryCounts(n, c), k, budget)
            assert greedy.max() <= 8 * per_q
            out[label].append((tab[np.arange(Q), greedy].sum() / even, optimum / even))
    summary = {label: {"greedy_over_even": round(float(np.mean([g for g, _ in v])), 4),
                       "optimum_over_even": round(float(np.mean([o for _, o in v])), 4),
                       "max_greedy_over_optimum":
                           round(float(max(g / o for g, o in v)), 8),
                       "range": [round(float(min(g for g, _ in v)), 3),
                                 round(float(max(g for g, _ in v)), 3)]}
               for label, v in out.items()}
    if report:
        print(json.dumps({"row": "design", "n0": n0, "seeds": [seeds[0], seeds[-1]],
                          "ratios": summary}), flush=True)
    return summary


if __name__ == "__main__":
    parts = sys.argv[1:] or ["small", "design", "sharper"]
    if "small" in parts:
        small()
    if "design" in parts:
        design()
    if "sharper" in parts:
        for n0 in (8, 16, 32):
            design(n0=n0)
