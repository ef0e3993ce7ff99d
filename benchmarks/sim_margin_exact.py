"""The sign-flip margin p (``p_margin_exact``) beside the t one (``p_margin``): type-I and power.

A simulation (issue 40, item 4); it reproduces the table "The sign-flip margin p" of
docs/explanation/statistics.md. B is the new model, A the reference; the claim is "B is
not worse than A by more than the margin" (H0: mean(A - B) >= margin), or with
equivalence |A - B| < margin. Margin 0.1, alpha 0.05, M = 10, 20, 30 questions (exact
enumeration at 10 and 20, 20000 seeded Monte Carlo flips at 30).

Designs of the per-question differences d_q = A_q - B_q (seeded):

- ``logit n=4`` / ``logit n=16``: logit difficulty theta_q ~ N(0, 1.5^2), A's logit
  theta_q, B's theta_q - s (s solved by Gauss-Hermite so that E[d] is the value wanted),
  Pass@1 from n samples per question.
- ``logit n=1``: the same with one 0/1 sample: d_q in {-1, 0, 1} (discordant pairs).
- ``skewed +``: d_q = mu + 0.1 (E_q - 1), E_q ~ Exp(1): most questions a little below mu,
  a few far above it (A much better on a few questions); clipped to [-1, 1] (at mu = 0.1,
  P(clip) = e^-10).
- ``skewed -``: d_q = mu - 0.1 (E_q - 1): the mirror image (B much better on a few).
- ``mild +``: d_q = mu + 0.1 (G_q - 4) / 2, G_q ~ Gamma(4): the same sd, skewness 1 (the
  exponential's is 2).

Rows: the rate of p < 0.05 for ``p_margin`` (:func:`kpass.stats.comparison.margin_p`,
one-sided t) and ``p_margin_exact`` (:func:`kpass.stats.comparison.margin_flip_p`, the
code ``kpass.compare`` calls, checked against ``kpass.compare`` on the first cases of every
cell) at E[d] = margin (type-I) and at E[d] = 0 (power); for equivalence
(``equivalence`` rows, the logit n=16 and skewed designs) at +margin and -margin and at 0.

    nice -n 10 python benchmarks/sim_margin_exact.py          # about 3-8 minutes
    nice -n 10 python benchmarks/sim_margin_exact.py quick    # fewer replications

Prints one JSON line per row.
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import optimize
from scipy.special import expit

import kpass
from kpass.stats.comparison import margin_flip_p, margin_p

ALPHA = 0.05
MARGIN = 0.1
SPREAD = 1.5
SCALE = 0.1  # of the skewed designs
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(120)
WEIGHTS = WEIGHTS / WEIGHTS.sum()


def shift_for(difference):
    """s with E[expit(theta) - expit(theta - s)] = difference, theta ~ N(0, SPREAD^2)."""
    if difference == 0.0:
        return 0.0
    return optimize.brentq(lambda s: float(WEIGHTS @ (expit(SPREAD * NODES)
                                                      - expit(SPREAD * NODES - s)))
                           - difference, -5.0, 5.0)


def runs(design, rng, m, mean):
    """(A, B) outcome matrices of the logit designs, or None with d for the skewed ones."""
    if design.startswith("logit"):
        n = int(design.split("=")[1])
        theta = rng.normal(0, SPREAD, m)
        s = shift_for(mean)
        a = rng.binomial(1, expit(theta)[:, None], (m, n))
        b = rng.binomial(1, expit(theta - s)[:, None], (m, n))
        return (a, b), a.mean(axis=1) - b.mean(axis=1)
    if design == "mild +":
        return None, np.clip(mean + SCALE * (rng.gamma(4.0, 1.0, m) - 4.0) / 2.0, -1.0, 1.0)
    sign = 1.0 if design == "skewed +" else -1.0
    d = np.clip(mean + sign * SCALE * (rng.exponential(1.0, m) - 1.0), -1.0, 1.0)
    return None, d


def p_values(d, equivalence):
    m = d.size
    se = float(d.std(ddof=1) / math.sqrt(m))
    t = margin_p(float(d.mean()), se, m - 1, m, MARGIN, equivalence)
    return t, margin_flip_p(d, None, MARGIN, equivalence)


def check(pair, d, equivalence, t, flip):
    """The simulated p's are kpass.compare's (the logit designs, whose outcomes exist)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        c = kpass.compare(kpass.pass_at_k, pair[0], pair[1], 1, margin=MARGIN,
                          equivalence=equivalence)
    assert math.isclose(c.p_margin, t, rel_tol=1e-9, abs_tol=1e-15), (c.p_margin, t)
    assert math.isclose(c.p_margin_exact, flip, rel_tol=1e-12), (c.p_margin_exact, flip)


def rates(design, m, mean, equivalence, reps, seed):
    rng = np.random.default_rng(seed)
    shown_t = shown_flip = 0
    for i in range(reps):
        pair, d = runs(design, rng, m, mean)
        t, flip = p_values(d, equivalence)
        if pair is not None and i < 5:
            check(pair, d, equivalence, t, flip)
        shown_t += t < ALPHA
        shown_flip += flip < ALPHA
    return round(shown_t / reps, 4), round(shown_flip / reps, 4)


DESIGNS = ("logit n=1", "logit n=4", "logit n=16", "skewed +", "skewed -", "mild +")


def main(argv):
    reps = 500 if "quick" in argv else 2000
    for equivalence in (False, True):
        for index, design in enumerate(DESIGNS):
            if equivalence and design in ("logit n=1", "logit n=4"):
                continue  # equivalence at 0.1 needs more than 30 questions there
            for m in (10, 20, 30):
                seed = 1000 * index + m + (500 if equivalence else 0)
                row = {"design": design, "equivalence": equivalence, "questions": m,
                       "margin": MARGIN, "reps": reps}
                row["type1_t"], row["type1_signflip"] = rates(design, m, MARGIN,
                                                              equivalence, reps, seed)
                if equivalence:
                    row["type1_minus_t"], row["type1_minus_signflip"] = rates(
                        design, m, -MARGIN, True, reps, seed + 1)
                row["power_t"], row["power_signflip"] = rates(design, m, 0.0, equivalence,
                                                              reps, seed + 2)
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
