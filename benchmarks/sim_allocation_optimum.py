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
3. ``adaptive``: a lower bound on what ANY adaptive policy can reach on the issue's design
   (any number of rounds, one sample at a time included), in Bayes expectation over the
   population p ~ Beta(0.5, 1.5): the Lagrangian relaxation of the budget (sum_q m_q =
   2400 relaxed to E[m_q] = 12) splits the problem into one optimal-stopping problem per
   question, solved exactly by backward induction on the posterior state (n, c):
   J(n, c) = min(L(n, c), mu + E J(n + 1, c + Y)), L(n, c) = E_post V(n; p) (stop) with
   Y ~ Bernoulli(posterior mean). For every mu, E_c0 J(4, c0) - 12 mu is below the Bayes
   risk E sum_q V(N_q; p_q) / 200 of every policy that spends 12 per question on
   average; the best mu gives the bound, reported over the even spread's E V(16; p). The
   chain is cut at N = 400 with J = min(L, mu) there (still a lower bound). The policy at
   that mu (sample a question until its state says stop) is reported too, and simulated
   on 200 designs (seeds 0-199; the chain cut at 200 samples there).
4. ``sharper``: the same ratio (greedy over even, posterior-expected) when the pilot is
   larger (n = 4, 8, 16, 32 now, 12 more per question on average), seeds 1000-1019: how
   much the posteriors must know before the one-shot allocation reaches 0.85.

    python benchmarks/sim_allocation_optimum.py            # about 5 min
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
            tab = tables(kind, k, n, c, 20 * per_q)
            even = tab[:, per_q].sum()
            optimum = dp_optimum(tab, budget)
            greedy = kpass.allocate(KPASS[kind], kpass.BinaryCounts(n, c), k, budget)
            assert greedy.max() <= 20 * per_q
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


def posterior_loss(kind, k, a0, b0, n0, n_max):
    """L(n, c) = E_post V(n; p) under Beta(a0 + c, b0 + n - c), n = n0..n_max."""
    table = {}
    for n in range(n0, n_max + 1):
        squares = s_values(kind, k, n) ** 2
        table[n] = np.array([stats.betabinom.pmf(np.arange(n + 1), n, a0 + c, b0 + n - c)
                             @ squares - beta_moment_g2(kind, k, a0 + c, b0 + n - c)
                             for c in range(n + 1)])
    return table


def optimal_stopping(loss, mu, a0, b0, n0, n_max):
    """Backward induction: J(n0, c0), and the expected extra samples and loss from each c0
    when a question is sampled until L(n, c) <= mu + E J(n + 1, .)."""
    J = {n_max: np.minimum(loss[n_max], mu)}  # a lower bound on the cost-to-go at the cut
    stop = {n_max: np.ones(n_max + 1, bool)}
    for n in range(n_max - 1, n0 - 1, -1):
        c = np.arange(n + 1)
        up = (a0 + c) / (a0 + b0 + n)
        cont = mu + up * J[n + 1][c + 1] + (1 - up) * J[n + 1][c]
        J[n], stop[n] = np.minimum(loss[n], cont), loss[n] <= cont
    extra, risk = np.zeros(n0 + 1), np.zeros(n0 + 1)
    for c0 in range(n0 + 1):
        dist = np.zeros(n0 + 1)
        dist[c0] = 1.0
        for n in range(n0, n_max + 1):
            risk[c0] += dist[stop[n]] @ loss[n][stop[n]]
            going = np.where(stop[n], 0.0, dist)
            if n == n_max or going.sum() < 1e-15:
                break
            extra[c0] += going.sum()
            up = (a0 + np.arange(n + 1)) / (a0 + b0 + n)
            dist = np.zeros(n + 2)
            dist[1:] += going * up
            dist[:-1] += going * (1 - up)
    return J[n0], extra, risk


def simulate_policy(kind, k, loss, mu, a0, b0, n0, n_max, per_q, seeds=range(200), Q=200):
    """The stopping policy at mu run on simulated designs: each question is sampled until
    its state (n, c) is in the stopping set; realised sum_q V(N_q; p_q) over the even
    spread's (exact binomial sums from the true p's)."""
    J = {n_max: np.minimum(loss[n_max], mu)}
    stop = {n_max: np.ones(n_max + 1, bool)}
    for n in range(n_max - 1, n0 - 1, -1):
        c = np.arange(n + 1)
        up = (a0 + c) / (a0 + b0 + n)
        cont = mu + up * J[n + 1][c + 1] + (1 - up) * J[n + 1][c]
        J[n], stop[n] = np.minimum(loss[n], cont), loss[n] <= cont

    def variance(N, p):
        values = s_values(kind, k, N)
        w = stats.binom.pmf(np.arange(N + 1), N, p)
        return w @ (values * values) - (w @ values) ** 2

    ratios, total, total_even, extras = [], 0.0, 0.0, []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        p = rng.beta(a0, b0, Q)
        stream = rng.random((Q, n_max)) < p[:, None]
        N = np.empty(Q, dtype=int)
        for q in range(Q):
            n, c = n0, int(stream[q, :n0].sum())
            while not stop[n][c]:
                c += int(stream[q, n])
                n += 1
            N[q] = n
        got = sum(variance(int(N[q]), p[q]) for q in range(Q))
        even = sum(variance(n0 + per_q, p[q]) for q in range(Q))
        ratios.append(got / even)
        total, total_even = total + got, total_even + even
        extras.append(N.mean() - n0)
    return {"seeds": [seeds[0], seeds[-1]], "mean_extra": round(float(np.mean(extras)), 3),
            "ratio_of_means": round(total / total_even, 4),
            "mean_of_ratios": round(float(np.mean(ratios)), 4),
            "se": round(float(np.std(ratios) / math.sqrt(len(ratios))), 4)}


def adaptive(a0=0.5, b0=1.5, n0=4, per_q=12, n_max=400):
    pilot = stats.betabinom.pmf(np.arange(n0 + 1), n0, a0, b0)
    for label, (kind, k) in METRICS.items():
        loss = posterior_loss(kind, k, a0, b0, n0, n_max)
        even = pilot @ np.array([stats.betabinom.pmf(np.arange(n0 + per_q + 1), n0 + per_q,
                                                     a0 + c, b0 + n0 - c)
                                 @ s_values(kind, k, n0 + per_q) ** 2
                                 - beta_moment_g2(kind, k, a0 + c, b0 + n0 - c)
                                 for c in range(n0 + 1)])
        low, high = 1e-12, 1.0  # mu with E[extra] = per_q, by bisection in log mu
        for _ in range(60):
            mu = math.sqrt(low * high)
            if pilot @ optimal_stopping(loss, mu, a0, b0, n0, n_max)[1] > per_q:
                low = mu
            else:
                high = mu
        bound = max(pilot @ optimal_stopping(loss, mu, a0, b0, n0, n_max)[0] - mu * per_q
                    for mu in np.geomspace(low / 2, low * 2, 21))
        _, extra, risk = optimal_stopping(loss, low, a0, b0, n0, n_max)
        cut = {n: loss[n] for n in range(n0, 201)}
        simulated = simulate_policy(kind, k, cut, low, a0, b0, n0, 200, per_q)
        print(json.dumps({"row": "adaptive", "metric": label, "simulated_policy": simulated,
                          "lower_bound_over_even": round(float(bound / even), 4),
                          "stopping_policy": {"mean_extra": round(float(pilot @ extra), 3),
                                              "risk_over_even":
                                                  round(float(pilot @ risk / even), 4),
                                              "extra_by_pilot_successes":
                                                  extra.round(2).tolist()}}), flush=True)


if __name__ == "__main__":
    parts = sys.argv[1:] or ["small", "design", "adaptive", "sharper"]
    if "small" in parts:
        small()
    if "design" in parts:
        design()
    if "adaptive" in parts:
        adaptive()
    if "sharper" in parts:
        for n0 in (8, 16, 32):  # 12 more per question on average each time
            design(n0=n0)
