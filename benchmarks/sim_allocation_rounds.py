"""Reproduce docs/how-to/adaptive.md's "Where allocation pays and where it does not" table.

A simulation, not a speed benchmark: 200 questions, p ~ Beta(0.5, 1.5), 4 samples each,
2400 more. For each seed it prints one JSON line of ratios (realised within-question
variance at the final N, exact from the true p's, over that of 12 more each) for
Pass@1, Pass@4 and Pass^4 under: the oracle (knows p), one shot with the true prior,
R rounds (1, 2, 3, 4, 6, 12) with the uniform or a fitted Beta prior, and one sample at
a time (uniform or true prior). About 20 s of CPU per seed.

    python benchmarks/sim_allocation_rounds.py 1000 1020 > ratios.jsonl
    python benchmarks/sim_allocation_rounds.py check   # variance vs 2^N enumeration
"""
import heapq
import itertools
import json
import math
import sys
from fractions import Fraction

import numpy as np
from scipy import optimize, stats

import kpass
from kpass.stats.allocation import _gain, _Kernel

METRICS = {"Pass@1": (kpass.pass_at_k, 1), "Pass@4": (kpass.pass_at_k, 4),
           "Pass^4": (kpass.pass_hat_k, 4)}
_TABLES = {}

def table(label, N):
    key = (label, N)
    if key not in _TABLES:
        metric, k = METRICS[label]
        counts = kpass.BinaryCounts(np.full(N + 1, N), np.arange(N + 1))
        _TABLES[key] = np.asarray(metric(counts, k, per_question=True), float)
    return _TABLES[key]

def var_given_p(label, N, p):
    s = table(label, N)
    w = stats.binom.pmf(np.arange(N + 1), N, p)
    m = w @ s
    return max(w @ (s * s) - m * m, 0.0)

def realised(label, N, p):
    return sum(var_given_p(label, int(n), q) for n, q in zip(N, p, strict=True))

def fraction_check():
    """Brute force over all 2^N sequences, exact Fractions, vs var_given_p (floats)."""
    worst = 0.0
    for label, (_, k) in METRICS.items():
        for N in range(max(k, 1), 9):
            for p in (Fraction(1, 7), Fraction(1, 3), Fraction(4, 5)):
                mean = second = Fraction(0)
                for seq in itertools.product((0, 1), repeat=N):
                    x = sum(seq)
                    prob = p ** x * (1 - p) ** (N - x)
                    if label.startswith("Pass@"):
                        s = 1 - Fraction(math.comb(N - x, k), math.comb(N, k))
                    else:
                        s = Fraction(math.comb(x, k), math.comb(N, k))
                    mean += prob * s
                    second += prob * s * s
                g = 1 - (1 - p) ** k if label.startswith("Pass@") else p ** k
                assert mean == g, (label, N, p)  # unbiased
                exact = second - mean * mean
                worst = max(worst, abs(float(exact) - var_given_p(label, N, float(p))))
    return worst

def oracle(label, p, n0, budget):
    """Greedy on the true V(N; p_q): optimal for known p (V convex decreasing in N)."""
    N = np.full(p.size, n0)
    cur = [var_given_p(label, n0, q) for q in p]
    heap = [(-(cur[i] - var_given_p(label, n0 + 1, p[i])), i)
            for i in range(p.size)]
    heapq.heapify(heap)
    for _ in range(budget):
        _, i = heapq.heappop(heap)
        N[i] += 1
        cur[i] = var_given_p(label, int(N[i]), p[i])
        heapq.heappush(heap, (-(cur[i] - var_given_p(label, int(N[i]) + 1, p[i])), i))
    return N

def fit_beta(n, c):
    def nll(t):
        return -stats.betabinom.logpmf(c, n, math.exp(t[0]), math.exp(t[1])).sum()
    best = optimize.minimize(nll, [0.0, 0.0], method="L-BFGS-B", bounds=[(-6, 6), (-6, 6)])
    return float(math.exp(best.x[0])), float(math.exp(best.x[1]))

def run_rounds(label, stream, n0, budget, R, prior_kind, true_prior=(0.5, 1.5)):
    metric, k = METRICS[label]
    n = np.full(stream.shape[0], n0)
    per = budget // R
    assert per * R == budget
    for _ in range(R):
        c = np.array([stream[i, :n[i]].sum() for i in range(n.size)])
        if prior_kind == "uniform":
            prior = "uniform"
        elif prior_kind == "fitted":
            prior = fit_beta(n, c)
        else:
            prior = true_prior
        extra = kpass.allocate(metric, kpass.BinaryCounts(n, c), k, per, prior=prior)
        n = n + extra
    assert n.sum() == n0 * n.size + budget
    return n

def replicate(seed, Rs=(1, 2, 3, 4, 6, 12), Q=200, n0=4, per_q=12):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 1.5, Q)
    budget = per_q * Q
    stream = (rng.random((Q, n0 + budget)) < p[:, None]).astype(np.int64)
    out = {}
    for label in METRICS:
        even = realised(label, np.full(Q, n0 + per_q), p)
        out[(label, "oracle", 0)] = realised(label, oracle(label, p, n0, budget), p) / even
        N = run_rounds(label, stream, n0, budget, 1, "true")
        out[(label, "true", 1)] = realised(label, N, p) / even
        for kind in ("uniform", "fitted"):
            for R in Rs:
                N = run_rounds(label, stream, n0, budget, R, kind)
                out[(label, kind, R)] = realised(label, N, p) / even
    return out

def sequential(label, stream, n0, budget, prior_kind, refit=100):
    metric, k = METRICS[label]
    kernel = _Kernel(metric, (k,), {}, k)
    Q = stream.shape[0]
    n = np.full(Q, n0)
    c = stream[:, :n0].sum(1)
    a0, b0 = (1.0, 1.0) if prior_kind == "uniform" else (0.5, 1.5)
    def gain(q):
        a, b = a0 + c[q], b0 + n[q] - c[q]
        zetas = kernel.zetas(np.array([float(a)]), np.array([float(b)]))
        return float(_gain(k, zetas, np.array([int(n[q])]))[0])  # W(N) - W(N + 1)
    for step in range(budget):
        if prior_kind == "fitted" and step % refit == 0:
            a0, b0 = fit_beta(n, c)
        if step == 0 or (prior_kind == "fitted" and step % refit == 0):
            heap = [(-gain(q), q) for q in range(Q)]
            heapq.heapify(heap)
        _, q = heapq.heappop(heap)
        c[q] += stream[q, n[q]]
        n[q] += 1
        heapq.heappush(heap, (-gain(q), q))
    return n


def replicate_all(seed):
    """replicate() plus one sample at a time, for one seed."""
    out = {f"{a}|{b}|{c}": v for (a, b, c), v in replicate(seed).items()}
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 1.5, 200)
    stream = (rng.random((200, 2404)) < p[:, None]).astype(np.int64)
    for label in METRICS:
        even = realised(label, np.full(200, 16), p)
        for kind in ("uniform", "true"):
            out[f"{label}|{kind}|seq"] = realised(label, sequential(label, stream, 4, 2400,
                                                                    kind), p) / even
    return out


if __name__ == "__main__":
    if sys.argv[1] == "check":
        print("max |exact Fraction - float| =", fraction_check())
    else:
        for seed in range(int(sys.argv[1]), int(sys.argv[2])):
            print(json.dumps({"seed": seed, "r": replicate_all(seed)}), flush=True)
