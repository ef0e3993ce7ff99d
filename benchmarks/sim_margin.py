"""Non-inferiority and equivalence margins: type-I error at the margin and power.

A simulation (issue 40, item 4); it reproduces the tables of docs/explanation/statistics.md
("Margins"). B is the new model, A the reference; the claim is "B is not worse than A by
more than the margin" (H0: mean(A - B) >= margin), or with equivalence |A - B| < margin.

Design (seeded): logit difficulty theta_q ~ N(0, 1.5^2); A's logit theta_q, B's
theta_q - s, with s solved so that the true mean difference of Pass@1 is exactly the
value wanted (Gauss-Hermite over theta); n = 1, 4, 16 samples per question; M questions.

Rows:

- ``fixed``: :func:`kpass.stats.comparison.margin_p` (the primary row's test: one-sided
  t, or TOST) on Pass@1's per-question differences, at the margin (type-I; true
  difference = margin, for equivalence also = -margin) and at 0 (power), 2000
  replications per cell.
- ``table``: the whole ``kpass.compare_table(..., margin=)`` path at the margin
  (Pass@1 the primary row, Pass@2 and Pass^2 the secondary rows adjusted by the one-sided
  max-T stepdown; the smallest true difference, Pass^2's, at the margin): how often the
  primary's claim, any secondary's, and any row's is wrongly shown (each family at
  alpha, the table at most 2 alpha), 200 replications (``table`` on the command line:
  only this part).
- ``sequential``: the confidence sequence with ``margin=`` (exchangeable and bounded
  nulls), a look after every question up to 1000: how often it ever shows the claim when
  the true difference is the margin (capital at the margin crossing 1/alpha, which
  every false claim needs), and the mean questions to show it when the true difference is
  0 (undecided runs counted at 1000), 1000 replications.

    nice -n 10 python benchmarks/sim_margin.py          # about 2-3 minutes
    nice -n 10 python benchmarks/sim_margin.py quick    # fewer replications

Prints one JSON line per row.
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import optimize, stats
from scipy.special import expit

import kpass
from kpass.stats.comparison import margin_p
from kpass.stats.sequential import log_capital

ALPHA = 0.05
SPREAD = 1.5
MARGIN = 0.05
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(120)
WEIGHTS = WEIGHTS / WEIGHTS.sum()


def shift_for(difference, power=1):
    """s with E[p_A^power - p_B^power] = difference, p = expit(theta), expit(theta - s)."""
    if difference == 0.0:
        return 0.0

    def gap(s):
        return float(WEIGHTS @ (expit(SPREAD * NODES) ** power
                                - expit(SPREAD * NODES - s) ** power))

    return optimize.brentq(lambda s: gap(s) - difference, -5.0, 5.0)


def outcomes(rng, reps, m, n, s):
    theta = rng.normal(0, SPREAD, (reps, m))
    a = rng.binomial(1, expit(theta)[..., None], (reps, m, n))
    b = rng.binomial(1, expit(theta - s)[..., None], (reps, m, n))
    return a, b


def fixed_rate(rng, reps, m, n, difference, equivalence):
    a, b = outcomes(rng, reps, m, n, shift_for(difference))
    d = a.mean(axis=2) - b.mean(axis=2)
    mean, se = d.mean(axis=1), d.std(axis=1, ddof=1) / math.sqrt(m)
    # margin_p's formula vectorised (checked against margin_p itself on the first 50)
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = np.where(se > 0, stats.t.cdf((mean - MARGIN) / se, m - 1),
                         np.where(mean < MARGIN, 0.5 ** m, 1.0))
        lower = np.where(se > 0, stats.t.cdf(-(mean + MARGIN) / se, m - 1),
                         np.where(mean > -MARGIN, 0.5 ** m, 1.0))
    p = np.maximum(upper, lower) if equivalence else upper
    for i in range(min(50, reps)):
        assert math.isclose(p[i], margin_p(float(mean[i]), float(se[i]), m - 1, m, MARGIN,
                                           equivalence), rel_tol=1e-9, abs_tol=1e-15)
    return float((p < ALPHA).mean())


def table_rates(rng, reps, m, n, difference):
    """How often the primary row's claim, any secondary row's, and any row's is shown.

    Rows Pass@1 (primary), Pass@2, Pass^2; the shift puts the smallest true difference,
    Pass^2's, at the margin (Pass@1's is then 0.0515, Pass@2's 0.053): every row's null
    holds, so every claim shown is an error.
    """
    s = shift_for(difference, power=2)
    primary = secondary = either = 0
    for _ in range(reps):
        a, b = outcomes(rng, 1, m, n, s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = kpass.compare_table(a[0], b[0], metrics="pass@k,pass^k", k=[1, 2],
                                        margin=MARGIN)
        shown = [row["role"] for row in table.rows if row["verdict"] == "shown"]
        primary += "primary" in shown
        secondary += "secondary" in shown
        either += bool(shown)
    return primary / reps, secondary / reps, either / reps


def sequential(rng, reps, n, difference, null):
    theta = rng.normal(0, SPREAD, (reps, 1000))
    s = shift_for(difference)
    d = (rng.binomial(n, expit(theta)) - rng.binomial(n, expit(theta - s))) / n
    return log_capital((d + 1) / 2, (MARGIN + 1) / 2, null=null)


def main(argv):
    quick = "quick" in argv
    reps = 500 if quick else 2000
    only_table = "table" in argv
    for equivalence in (() if only_table else (False, True)):
        for n in (1, 4, 16):
            for m in (10, 20, 30, 100, 300):
                rng = np.random.default_rng(100 * n + m + (7 if equivalence else 0))
                row = {"row": "fixed", "equivalence": equivalence, "n": n, "questions": m,
                       "margin": MARGIN, "reps": reps,
                       "type1_at_margin": fixed_rate(rng, reps, m, n, MARGIN, equivalence)}
                if equivalence:
                    row["type1_at_minus_margin"] = fixed_rate(rng, reps, m, n, -MARGIN, True)
                row["power_at_0"] = fixed_rate(rng, reps, m, n, 0.0, equivalence)
                print(json.dumps(row), flush=True)
    table_reps = 100 if quick else 200
    for m, n in ((20, 4), (100, 4)):
        primary, secondary, either = table_rates(np.random.default_rng(9 + m), table_reps, m,
                                                 n, MARGIN)
        print(json.dumps({"row": "table", "n": n, "questions": m, "margin": MARGIN,
                          "primary_shown_at_margin": primary,
                          "any_secondary_shown_at_margin": secondary,
                          "any_row_shown_at_margin": either, "reps": table_reps}), flush=True)
    seq_reps = 300 if quick else 1000
    for n in (() if only_table else (1, 4, 16)):
        for null in ("exchangeable", "bounded"):
            at_margin = sequential(np.random.default_rng(40 + n), seq_reps, n, MARGIN, null)
            crossed = int((at_margin >= math.log(1 / ALPHA)).any(axis=1).sum())
            at_zero = sequential(np.random.default_rng(80 + n), seq_reps, n, 0.0, null)
            hit = at_zero >= math.log(1 / ALPHA)
            stop = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 1000)
            print(json.dumps({"row": "sequential", "null": null, "n": n, "margin": MARGIN,
                              "crossed_at_margin": round(crossed / seq_reps, 4),
                              "reps": seq_reps,
                              "mean_questions_to_show_at_0": round(float(stop.mean()), 1),
                              "undecided_at_0": int((~hit.any(axis=1)).sum())}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
