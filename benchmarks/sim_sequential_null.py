"""The two nulls of kpass's confidence sequence: crossing under the null, questions to decide.

A simulation, not a speed benchmark (issue 40, item 1); it reproduces the tables of
docs/how-to/adaptive.md ("Which null") and docs/explanation/statistics.md. Each strategy is
kpass's own capital process (:func:`kpass.stats.sequential.log_capital`) at the null
centre, on x_q = (d_q + 1) / 2 with d_q = Pass@1(A) - Pass@1(B) of question q; a sequence
decides at the first t with log K_t >= log(1 / alpha), alpha = 0.05, a look after every
question.

Designs (seeded):

- ``shift``: logit difficulty theta_q ~ N(0, 1.5^2), A's logit theta_q + 0.5, B's theta_q,
  n = 1, 4, 16 samples per question and model (the audit's design).
- ``null``: the same with no shift (A and B exchangeable): the share of 2000 replications
  of 1000 looks each whose capital ever reached 1/alpha, with its 95% Clopper-Pearson
  interval.
- ``noisy-null``: exchangeable but not identical per question: A's and B's logits are
  theta_q + u_q and theta_q + v_q, u, v ~ N(0, 1) independent (each model has its own
  question-level quirks), n = 4.
- ``skewed-null``: equal means, *not* exchangeable: d_q = +0.05 with probability 0.9 and
  -0.45 with 0.1 (mean 0). The bounded null holds there and the exchangeable one does not:
  what assuming exchangeability costs when it is false.
- ``cover``: under ``shift``, the share of 2000 replications of 1000 looks whose sequence
  ever excluded the true mean difference (exact, Gauss-Hermite): the exchangeable
  sequence's interval is for the centre of symmetry, which need not be the mean when d_q
  is skewed (its verdict on 0 is exact under exchangeability either way).

Each configuration is run with the bet capped at c = 1/2, 3/4 and 0.9 (the cap table).
Undecided runs count at the horizon (4000, 1500, 600 questions for n = 1, 4, 16).

    nice -n 10 python benchmarks/sim_sequential_null.py          # about 2-3 minutes
    nice -n 10 python benchmarks/sim_sequential_null.py quick    # 300 null replications

Prints one JSON line per row.
"""
import json
import math
import sys

import numpy as np
from scipy import stats
from scipy.special import expit

from kpass.stats.sequential import SYMMETRIC_TRUNCATION, TRUNCATION, log_capital

ALPHA = 0.05
THRESHOLD = math.log(1 / ALPHA)
SHIFT = 0.5
SPREAD = 1.5
HORIZON = {1: 4000, 4: 1500, 16: 600}
CAPS = (0.5, 0.75, 0.9)
DEFAULT = {"exchangeable": SYMMETRIC_TRUNCATION, "bounded": TRUNCATION}


def true_mean(n, shift, nodes=120):
    """E d_q exactly: E[expit(theta + shift) - expit(theta)] (Gauss-Hermite over theta)."""
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    return float(w @ (expit(SPREAD * z + shift) - expit(SPREAD * z)))


def pass1(rng, reps, T, n, shift, quirk=0.0):
    """d_q = Pass@1(A) - Pass@1(B) with n samples each, shape (reps, T)."""
    theta = rng.normal(0, SPREAD, (reps, T))
    a = theta + shift + (quirk * rng.normal(size=theta.shape) if quirk else 0.0)
    b = theta + (quirk * rng.normal(size=theta.shape) if quirk else 0.0)
    return rng.binomial(n, expit(a)) / n - rng.binomial(n, expit(b)) / n


def skewed(rng, reps, T):
    return np.where(rng.random((reps, T)) < 0.9, 0.05, -0.45)


def capital(d, null, cap, centre=0.0):
    return log_capital((d + 1) / 2, (centre + 1) / 2, truncation=cap, null=null)


def first_crossing(log_k):
    hit = log_k >= THRESHOLD
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, -1)


def crossing_row(design, n, null, cap, log_k, reps):
    crossed = int((log_k >= THRESHOLD).any(axis=1).sum())
    ci = stats.binomtest(crossed, reps).proportion_ci(method="exact")
    return {"design": design, "n": n, "null": null, "cap": cap, "default": cap == DEFAULT[null],
            "crossed": crossed, "reps": reps, "rate": round(crossed / reps, 4),
            "ci95": [round(ci.low, 4), round(ci.high, 4)]}


def main(argv):
    null_reps = 300 if "quick" in argv else 2000
    for n in (1, 4, 16):
        d = pass1(np.random.default_rng(2024 + n), 300, HORIZON[n], n, SHIFT)
        for null in ("exchangeable", "bounded"):
            for cap in CAPS:
                stop = first_crossing(capital(d, null, cap))
                undecided = int((stop < 0).sum())
                stop = np.where(stop < 0, HORIZON[n], stop)
                print(json.dumps({"design": "shift", "n": n, "null": null, "cap": cap,
                                  "default": cap == DEFAULT[null],
                                  "mean": round(float(stop.mean()), 1),
                                  "median": float(np.median(stop)),
                                  "undecided": undecided, "reps": 300}), flush=True)
        centre = true_mean(n, SHIFT)
        d = pass1(np.random.default_rng(4048 + n), null_reps, 1000, n, SHIFT)
        for null in ("exchangeable", "bounded"):
            cap = DEFAULT[null]
            row = crossing_row("cover", n, null, cap, capital(d, null, cap, centre), null_reps)
            row["true_mean"] = round(centre, 4)
            print(json.dumps(row), flush=True)
    for n in (1, 4, 16):
        d = pass1(np.random.default_rng(20240 + n), null_reps, 1000, n, 0.0)
        for null in ("exchangeable", "bounded"):
            for cap in CAPS:
                print(json.dumps(crossing_row("null", n, null, cap, capital(d, null, cap),
                                              null_reps)), flush=True)
    d = pass1(np.random.default_rng(7), null_reps, 1000, 4, 0.0, quirk=1.0)
    for null in ("exchangeable", "bounded"):
        print(json.dumps(crossing_row("noisy-null", 4, null, DEFAULT[null],
                                      capital(d, null, DEFAULT[null]), null_reps)), flush=True)
    d = skewed(np.random.default_rng(8), null_reps, 1000)
    for null in ("exchangeable", "bounded"):
        print(json.dumps(crossing_row("skewed-null", None, null, DEFAULT[null],
                                      capital(d, null, DEFAULT[null]), null_reps)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
