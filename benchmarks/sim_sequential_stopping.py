"""Questions to a decision at a 0.5-logit shift: kpass's sequence, other bets, and floors.

A simulation, not a speed benchmark; it reproduces docs/how-to/adaptive.md's "What it costs:
questions to a decision" numbers. Design: Pass@1 of A against B, logit p of question q
~ N(0, 1) for B and 0.5 more for A, n samples per question and model (n = 1, 4, 16);
d_q = Pass@1(A) - Pass@1(B) in [-1, 1], x_q = (d_q + 1) / 2 in [0, 1]. Each strategy
is a capital process at the null mean m = 1/2 (no difference), the decision is the
first t with log K_t >= log(1 / alpha), alpha = 0.05.

It prints one JSON line per (n, row):

- ``exact``: the mean and sd of d_q from its exact distribution (Gauss-Hermite over the
  difficulty, binomial sums), the questions M of a two-sided one-sample t test of 80%
  power (noncentral t), and three floors on the mean questions to a decision of a
  level-alpha sequential test:
  ``bounded_floor`` = log(1/alpha) / g*, g* = max_{0 <= b <= 1} E log(1 + b d), for every
  test whose capital is a non-negative supermartingale under *every* distribution of the
  differences on [-1, 1] with mean 0 (what kpass promises); ``sprt_floor`` =
  log(1/alpha) / KL(alternative || null), for the oracle SPRT that knows both exact
  distributions of d (valid only at that one null distribution); ``gauss_floor`` =
  log(1/alpha) / (delta^2 / (2 sd^2)), the same for normal differences of known variance.
  Wald: E[log K_tau] <= g E[tau] and log K_tau >= log(1/alpha) at a decision, so each
  floor bounds E[tau] from below (before overshoot).
- ``power``: mean (median) questions to a decision of each strategy, 300 replications
  (seed 2024), undecided runs counted at the horizon (4000, 1500, 600).
- ``null`` (with ``null`` on the command line): the share of 1000 replications of 1000
  looks each (seed 20240, no shift) whose capital ever reached 1/alpha, with its 95%
  Clopper-Pearson interval.

    python benchmarks/sim_sequential_stopping.py          # exact + power, about 1 min
    python benchmarks/sim_sequential_stopping.py null     # + validity, about 3 min
"""
import json
import math
import sys

import numpy as np
from scipy import optimize, stats
from scipy.special import expit

from kpass.stats.sequential import log_capital

ALPHA = 0.05
THRESHOLD = math.log(1 / ALPHA)
SHIFT = 0.5
HORIZON = {1: 4000, 4: 1500, 16: 600}


def d_distribution(n, shift, nodes=120):
    """Exact pmf of d = (A - B) / n on j / n, j = -n..n (Gauss-Hermite over theta)."""
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    k = np.arange(n + 1)
    pmf = np.zeros(2 * n + 1)
    for theta, weight in zip(z, w, strict=True):
        a = stats.binom.pmf(k, n, expit(theta + shift))
        b = stats.binom.pmf(k, n, expit(theta))
        pmf += weight * np.convolve(a, b[::-1])  # index j + n holds P(A - B = j)
    return np.arange(-n, n + 1) / n, pmf / pmf.sum()


def t_test_questions(delta, sd, power=0.8):
    for m in range(3, 100000):
        crit = stats.t.ppf(1 - ALPHA / 2, m - 1)
        nc = delta / sd * math.sqrt(m)
        if stats.nct.sf(crit, m - 1, nc) + stats.nct.cdf(-crit, m - 1, nc) >= power:
            return m
    raise RuntimeError("no M")


def exact(n):
    d, p = d_distribution(n, SHIFT)
    _, p0 = d_distribution(n, 0.0)
    mean = float(p @ d)
    sd = float(np.sqrt(p @ (d - mean) ** 2))
    growth = optimize.minimize_scalar(lambda b: -(p @ np.log1p(b * d)), bounds=(0.0, 1.0),
                                      method="bounded")
    b_star, g_star = float(growth.x), float(-growth.fun)
    kl = float(np.sum(p * np.log(p / p0)))
    return {"n": n, "row": "exact", "mean_d": round(mean, 4), "sd_d": round(sd, 4),
            "t_test_M": t_test_questions(mean, sd), "kelly_bet": round(b_star, 3),
            "growth": round(g_star, 5), "bounded_floor": round(THRESHOLD / g_star, 1),
            "sprt_floor": round(THRESHOLD / kl, 1),
            "gauss_floor": round(THRESHOLD / (mean ** 2 / (2 * sd ** 2)), 1)}


def data(rng, reps, T, n, shift):
    theta = rng.normal(0, 1, (reps, T))
    a = rng.binomial(n, expit(theta + shift)) / n
    b = rng.binomial(n, expit(theta)) / n
    return (a - b + 1) / 2


def _running(x, v0=0.25):
    """Predictable mean and variance (Waudby-Smith & Ramdas eq. 26-27), variance prior v0."""
    pos = np.arange(1, x.shape[-1] + 1, dtype=float)
    s = np.cumsum(x, -1)
    mean_before = (0.5 + s - x) / pos
    mean_after = (0.5 + s) / (pos + 1)
    sq = np.cumsum((x - mean_after) ** 2, -1) - (x - mean_after) ** 2
    return mean_before, (v0 + sq) / pos


def agrapa(x, m=0.5, c=0.75, v0=0.25):
    """Hedged capital, aGRAPA bets truncated at c / m and c / (1 - m)."""
    mb, vb = _running(x, v0)
    gap = mb - m
    bet = gap / (vb + gap * gap)
    up = np.cumsum(np.log1p(np.clip(bet, 0, c / m) * (x - m)), -1)
    down = np.cumsum(np.log1p(-np.clip(-bet, 0, c / (1 - m)) * (x - m)), -1)
    return np.logaddexp(up, down) - math.log(2)


def ons(x, m=0.5, c=0.75):
    """Hedged capital, online-Newton-step bets on each side (Cutkosky & Orabona 2018)."""
    reps, T = x.shape
    sides = []
    for u in ((x - m) / m, -(x - m) / (1 - m)):
        b, A, acc = np.zeros(reps), np.ones(reps), np.zeros(reps)
        log_k = np.empty((reps, T))
        for t in range(T):
            f = 1 + b * u[:, t]
            acc += np.log(f)
            log_k[:, t] = acc
            z = -u[:, t] / f
            A += z * z
            b = np.clip(b - 2 / (2 - math.log(3)) * z / A, 0, c)
        sides.append(log_k)
    return np.logaddexp(*sides) - math.log(2)


def mixture(x, m=0.5, c=0.99, G=20, a=0.5, b=0.5):
    """Hedged mixture of constant bets b_j in (0, c) on each side, Beta(a, b) weights on a
    grid of G cells ("diversified Kelly"; a = b = 1/2 is the Krichevsky-Trofimov prior)."""
    edges = np.linspace(0, c, G + 1)
    weights = np.diff(stats.beta.cdf(edges / c, a, b))
    bets = (edges[:-1] + edges[1:]) / 2
    terms = []
    for u in ((x - m) / m, -(x - m) / (1 - m)):
        for bet, w in zip(bets, weights, strict=True):
            terms.append(np.cumsum(np.log1p(bet * u), -1) + math.log(w / 2))
    return np.logaddexp.reduce(np.stack(terms), axis=0)


def constant(x, m=0.5, b=0.999, hedged=False):
    """The oracle's constant bet b (on the scale where b = 1 is the largest allowed)."""
    up = np.cumsum(np.log1p(b * (x - m) / m), -1)
    if not hedged:
        return up
    down = np.cumsum(np.log1p(-b * (x - m) / (1 - m)), -1)
    return np.logaddexp(up, down) - math.log(2)


STRATEGIES = {
    "kpass (log_capital: aGRAPA, c = 0.75)": lambda x: log_capital(x, 0.5),
    "aGRAPA, c = 0.9": lambda x: agrapa(x, c=0.9),
    "aGRAPA, c = 0.99": lambda x: agrapa(x, c=0.99),
    "aGRAPA, c = 0.9, variance prior 0.05": lambda x: agrapa(x, c=0.9, v0=0.05),
    "ONS, c = 0.75": lambda x: ons(x, c=0.75),
    "ONS, c = 0.9": lambda x: ons(x, c=0.9),
    "mixture of constant bets, KT weights, c = 0.99, 20 cells": mixture,
    "mixture of constant bets, Beta(1/2, 1/4) weights, c = 0.99, 40 cells":
        lambda x: mixture(x, G=40, b=0.25),
    "mixture of constant bets, uniform over 10 bets 0.05-0.95":
        lambda x: mixture(x, c=1.0, G=10, a=1, b=1),
    "oracle: constant bet 0.999, one-sided (not a two-sided test)": constant,
    "oracle: constant bet 0.999, hedged": lambda x: constant(x, hedged=True),
}


def first_crossing(log_k):
    hit = log_k >= THRESHOLD
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, -1)


def main(argv):
    for n in (1, 4, 16):
        row = exact(n)
        print(json.dumps(row), flush=True)
        rng = np.random.default_rng(2024)
        x = data(rng, 300, HORIZON[n], n, SHIFT)
        for name, strategy in STRATEGIES.items():
            stop = first_crossing(strategy(x))
            undecided = int((stop < 0).sum())
            stop = np.where(stop < 0, HORIZON[n], stop)
            print(json.dumps({"n": n, "row": "power", "strategy": name,
                              "mean": round(float(stop.mean()), 1),
                              "median": float(np.median(stop)), "undecided": undecided,
                              "ratio_to_t": round(float(stop.mean()) / row["t_test_M"], 2),
                              "ratio_to_bounded_floor":
                                  round(float(stop.mean()) / row["bounded_floor"], 2)}),
                  flush=True)
    if "null" in argv:
        for n in (1, 4, 16):
            rng = np.random.default_rng(20240)
            x = data(rng, 1000, 1000, n, 0.0)
            for name, strategy in STRATEGIES.items():
                if name.startswith("oracle"):
                    continue
                crossed = int((strategy(x) >= THRESHOLD).any(axis=1).sum())
                ci = stats.binomtest(crossed, 1000).proportion_ci(method="exact")
                print(json.dumps({"n": n, "row": "null", "strategy": name,
                                  "crossed": crossed, "reps": 1000,
                                  "ci95": [round(ci.low, 4), round(ci.high, 4)]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
