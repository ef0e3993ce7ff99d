"""A new model's score from a subset of questions: coverage and RMSE by seeded simulation.

Simulated benchmarks with a known truth: N = 1,000 questions, 40 reference models run on all
of them, a new model run on the m chosen questions (m = 50, 100, 200) with 1, 4 or 16
samples per question; the metric is Pass@1 (and Pass@k at k = samples). Truths:

* ``2pl``: the 2PL model kpass fits is right;
* ``3pl``: a guessing floor c_q ~ U(0, 0.3) the 2PL does not have (misspecified);
* ``2dim``: two-dimensional abilities (each question loads on one of two skills; the new
  model is strong on one, weak on the other, unlike the references: misspecified);
* ``better``: 2PL, the new model 1 logit above the best reference.

Per replication the new model's full run is drawn (its value on all N is the estimand), then
the subsets; estimators compared on the same replication:

* ``kpass``: :func:`kpass.subset_estimate` on a stratified subset (the interval's coverage);
* ``kpass-srs``: the same estimator on a simple random subset;
* ``plain``: the plain mean of a simple random subset;
* ``oracle``: the difference estimator on the simple random subset with the true
  per-question expectations as predictions: the best any estimator can do on that design
  (what is left is each unrun question's own sampling noise);
* ``p-IRT`` and ``gp-IRT``: tinyBenchmarks' estimators (Polo et al., ICML 2024, section 3.2-3.3)
  on the simple random subset, with the same 2PL fit: p-IRT is
  ``(m/N) mean_s y + (1 - m/N) mean_{U \\ s} p_q(theta_hat)``; gp-IRT blends it with the plain
  mean, ``lam * plain + (1 - lam) * p-IRT``, ``lam = b^2 / (b^2 + s^2 / m)`` with ``b^2`` the
  p-IRT's mean squared error on the reference models on the same subset and ``s^2`` the
  subset's variance of y (their heuristic for the random-anchor case).

The table gives the coverage and its two tails: ``lo > truth`` (the interval lay above the
full run's value) and ``hi < truth`` (below it), each 0.025 for an interval with even tails.

Run: ``python benchmarks/bench_subset.py [--reps 200]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from kpass._core.counting.counts import BinaryCounts
from kpass.families.pass_at_k import pass_at_k
from kpass.stats.irt import fit_ability, fit_irt
from kpass.stats.subset import _estimate
from kpass.stats.subset_design import choose_questions

N, K = 1000, 40
TRUTHS = ("2pl", "3pl", "2dim", "better")


def world(truth: str, seed: int) -> dict[str, Any]:
    """Questions, reference abilities and the new model's per-question success probability."""
    rng = np.random.default_rng(seed)
    a = np.exp(rng.normal(0.0, 0.35, N))
    b = rng.normal(0.0, 1.3, N)
    guess = rng.uniform(0, 0.3, N) if truth == "3pl" else np.zeros(N)
    if truth == "2dim":
        skill = rng.integers(0, 2, N)
        ref = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], K)
        new = np.array([1.2, -0.6])
        eta_ref = a * (ref[:, skill] - b)
        eta_new = a * (new[skill] - b)
    else:
        ref = rng.normal(0, 1, K)
        new_theta = ref.max() + 1.0 if truth == "better" else 0.3
        eta_ref = a * (ref[:, None] - b)
        eta_new = a * (new_theta - b)
    p_ref = guess + (1 - guess) / (1 + np.exp(-eta_ref))
    p_new = guess + (1 - guess) / (1 + np.exp(-eta_new))
    return {"p_ref": p_ref, "p_new": p_new}


def run(truth: str, samples: int, ms: tuple[int, ...], reps: int, seed: int,
        k: int = 1) -> dict[int, dict[str, Any]]:
    w = world(truth, seed)
    rng = np.random.default_rng(seed + 1)
    c_ref = rng.binomial(samples, w["p_ref"])
    ids = list(range(N))
    reference = {f"r{j}": BinaryCounts(np.full(N, samples), c_ref[j], ids=ids) for j in range(K)}
    fit = fit_irt(samples, c_ref, model="2pl")
    out: dict[int, dict[str, Any]] = {}
    for m in ms:
        errors: dict[str, list[float]] = {key: [] for key in
                                          ("kpass", "kpass-srs", "plain", "p-IRT", "gp-IRT",
                                           "oracle")}
        covered, above, below, ses, srs_ses, explained = [], [], [], [], [], []
        for rep in range(reps):
            c_new = rng.binomial(samples, w["p_new"])
            full = BinaryCounts(np.full(N, samples), c_new, ids=ids)
            y_all = np.asarray(pass_at_k(full, k, per_question=True))
            truth_value = float(y_all.mean())
            for design, key in (("stratified", "kpass"), ("simple", "kpass-srs")):
                subset = choose_questions(reference, m, seed=seed * 100_000 + rep,
                                          design=design)
                chosen = np.array(subset.ids)
                counts = BinaryCounts(full.n_samples[chosen], full.n_correct[chosen])
                result = _estimate(pass_at_k, "pass_at_k", (k,), {}, fit, chosen, counts,
                                   y_all[chosen], subset, 0.95)
                errors[key].append(result.estimate - truth_value)
                if key == "kpass":
                    covered.append(result.lo <= truth_value <= result.hi)
                    above.append(result.lo > truth_value)
                    below.append(result.hi < truth_value)
                    ses.append(result.se)
                    srs_ses.append(result.srs_se)
                    explained.append(result.explained)
                else:
                    srs = chosen
            y = y_all[srs]
            errors["plain"].append(float(y.mean()) - truth_value)
            # the best any estimator can do on the simple random design: the difference
            # estimator with the true per-question expectations as its predictions
            best = _pass(w["p_new"], k)
            errors["oracle"].append(float(best.mean() + (y - best[srs]).mean()) - truth_value)
            pirt, gpirt = tiny(fit, srs, y, c_new[srs], samples, k, c_ref)
            errors["p-IRT"].append(pirt - truth_value)
            errors["gp-IRT"].append(gpirt - truth_value)
        out[m] = {"coverage": float(np.mean(covered)),
                  "missed_above": float(np.mean(above)), "missed_below": float(np.mean(below)),
                  "rmse": {key: float(np.sqrt(np.mean(np.square(v)))) for key, v in
                           errors.items()},
                  "bias": {key: float(np.mean(v)) for key, v in errors.items()},
                  "se": float(np.mean(ses)), "srs_se": float(np.mean(srs_ses)),
                  "explained": float(np.mean(explained))}
    return out


def _pass(p: np.ndarray, k: int) -> np.ndarray:
    return 1.0 - (1.0 - p) ** k


def tiny(fit: Any, chosen: np.ndarray, y: np.ndarray, c: np.ndarray, samples: int, k: int,
         c_ref: np.ndarray) -> tuple[float, float]:
    """tinyBenchmarks' p-IRT and gp-IRT on a random subset (module docstring)."""
    import dataclasses

    items = dataclasses.replace(fit, intercept=fit.intercept[chosen], slope=fit.slope[chosen])
    rest = np.setdiff1d(np.arange(N), chosen)
    m = len(chosen)

    def pirt(counts: np.ndarray, values: np.ndarray) -> float:
        theta = fit_ability(np.full(m, samples), counts, items)[0]
        p = 1 / (1 + np.exp(-(fit.slope[rest] * theta + fit.intercept[rest])))
        return float((m / N) * values.mean() + (1 - m / N) * _pass(p, k).mean())

    estimate = pirt(c, y)
    bias2 = []
    for j in range(min(10, c_ref.shape[0])):
        y_ref = _pass_unbiased(c_ref[j], samples, k)
        bias2.append((pirt(c_ref[j, chosen], y_ref[chosen]) - y_ref.mean()) ** 2)
    b2 = float(np.mean(bias2))
    s2 = float(np.var(y, ddof=1)) / m
    lam = b2 / (b2 + s2) if b2 + s2 > 0 else 0.0
    return estimate, lam * float(y.mean()) + (1 - lam) * estimate


def _pass_unbiased(c: np.ndarray, n: int, k: int) -> np.ndarray:
    counts = BinaryCounts(np.full(len(c), n), c)
    return np.asarray(pass_at_k(counts, k, per_question=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--m", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--truths", nargs="+", default=list(TRUTHS))
    options = parser.parse_args()
    print("| truth | samples | m | coverage | lo > truth | hi < truth | RMSE kpass | kpass-srs | "
          "plain SRS | p-IRT | gp-IRT | oracle | kpass / plain | oracle / plain | explained |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
          "| --- |")
    for truth in options.truths:
        for samples in options.samples:
            started = time.perf_counter()
            result = run(truth, samples, tuple(options.m), options.reps, options.seed)
            for m, r in result.items():
                e = r["rmse"]
                print(f"| {truth} | {samples} | {m} | {r['coverage']:.3f} | "
                      f"{r['missed_above']:.3f} | {r['missed_below']:.3f} | {e['kpass']:.4f} | "
                      f"{e['kpass-srs']:.4f} | {e['plain']:.4f} | {e['p-IRT']:.4f} | "
                      f"{e['gp-IRT']:.4f} | {e['oracle']:.4f} | {e['kpass'] / e['plain']:.2f} | "
                      f"{e['oracle'] / e['plain']:.2f} | "
                      f"{r['explained']:.2f} |", flush=True)
            print(f"<!-- {truth}, {samples} samples: {time.perf_counter() - started:.0f} s -->",
                  flush=True)


if __name__ == "__main__":
    main()
