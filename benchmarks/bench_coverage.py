"""Coverage and width of the intervals over questions, by seeded simulation.

    python benchmarks/bench_coverage.py [--reps 4000] [--seed 20261126] [--markdown]

Each design draws ``reps`` benchmarks of M questions (per-question success rates from a
Beta or logit-normal population, n samples per question), computes each question's
unbiased value of the metric (Pass@k: 1 - C(n-c,k)/C(n,k); Pass^k: C(c,k)/C(n,k)), the
mean, its standard error over questions (CR2 with clusters) and the intervals of each
method, and counts how often the interval holds the population value (closed form for
Beta populations, a 2-million-question Monte Carlo for logit-normal ones).

Methods:
    t       estimate -/+ t se, clipped (kpass before issue 29; width 0 when se = 0).
    t+exact t, with the exact se = 0 bound of kpass.stats.intervals.
    score   Wilson score interval on n_eff = x(1-x)/se^2 with the t quantile, exact bound
            at se = 0 (the alternative the issue measured).
    hull    the first version of kpass.stats.intervals (issue 29): the hull of t and the
            score interval with n_eff pulled towards M, where the score end reaches 30% of
            t se beyond the t end; exact bound at se = 0. Over-covered (0.97-1.00) near 0/1.
    kpass   kpass.stats.intervals now: the Wilson interval on n_eff (pulled towards M near
            the bound, Garwood end for few events of 0/1 values) wherever t reaches past
            0 or 1 or the score end reaches 30% of t se beyond it; t otherwise; exact bound
            at se = 0.
With clusters, ``t`` is the G/(G-1) (CR1) SE with G - 1 df, as before; the other methods
use CR2 with Bell-McCaffrey df.

Binomial Monte Carlo error of a coverage c over R replications: sqrt(c (1 - c) / R),
0.0034 at c = 0.95, R = 4000. A few seconds on one core at the default 4000.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import betaln, comb, expit

from kpass.stats._common import _cluster_df
from kpass.stats.intervals import intervals, t_interval

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Design:
    """One simulated benchmark design."""

    name: str
    questions: int
    samples: int
    metric: str  # "pass@k" or "pass^k"
    k: int
    draw_p: Callable[[np.random.Generator, int], np.ndarray]  # (reps, M) success rates
    truth: float
    clusters: tuple[int, ...] = ()
    paired: bool = False


def per_question(c: np.ndarray, n: int, metric: str, k: int) -> np.ndarray:
    """Unbiased per-question values from correct counts c of n samples."""
    if metric == "pass@k":
        return 1.0 - comb(n - c, k) / comb(n, k)
    return comb(c, k) / comb(n, k)


def beta_truth(a: float, b: float, metric: str, k: int) -> float:
    """Population Pass@k = 1 - E(1-p)^k, Pass^k = E p^k, p ~ Beta(a, b)."""
    if metric == "pass@k":
        return float(1.0 - np.exp(betaln(a, b + k) - betaln(a, b)))
    return float(np.exp(betaln(a + k, b) - betaln(a, b)))


def beta_draw(a: float, b: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:  # type: ignore[misc]
        return rng.beta(a, b, size=shape)
    return draw  # type: ignore[return-value]


def clustered_draw(mu: float, tau_cluster: float, tau_question: float,
                   sizes: tuple[int, ...]) -> Callable[..., np.ndarray]:
    codes = np.repeat(np.arange(len(sizes)), sizes)

    def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        reps, _ = shape
        u = rng.normal(0.0, tau_cluster, size=(reps, len(sizes)))[:, codes]
        e = rng.normal(0.0, tau_question, size=shape)
        return expit(mu + u + e)
    return draw


def logit_truth(mu: float, sd: float, metric: str, k: int, seed: int) -> float:
    p = expit(mu + sd * np.random.default_rng(seed).standard_normal(2_000_000))
    return float(np.mean(1.0 - (1.0 - p) ** k if metric == "pass@k" else p ** k))


def clustered_se(values: np.ndarray, codes: np.ndarray, cr2: bool) -> np.ndarray:
    """Row-wise clustered SE of the mean (CR1: G/(G-1); CR2: 1/(1 - n_g/M))."""
    m = values.shape[1]
    groups = int(codes.max()) + 1
    indicator = np.zeros((m, groups))
    indicator[np.arange(m), codes] = 1.0
    sums = (values - values.mean(axis=1, keepdims=True)) @ indicator
    sizes = indicator.sum(axis=0)
    if cr2:
        return np.sqrt((np.square(sums) / (1.0 - sizes / m)).sum(axis=1) / m ** 2)
    return np.sqrt(groups / (groups - 1) * np.square(sums).sum(axis=1) / m ** 2)


def simulate(design: Design, reps: int, seed: int) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    m, n = design.questions, design.samples
    p = design.draw_p(rng, (reps, m))
    values = per_question(rng.binomial(n, p), n, design.metric, design.k)
    bounds = (0.0, 1.0)
    if design.paired:  # B: the same questions 0.8 logits harder
        from scipy.special import logit
        p_b = expit(logit(np.clip(p, 1e-12, 1 - 1e-12)) - 0.8)
        values = values - per_question(rng.binomial(n, p_b), n, design.metric, design.k)
        bounds = (-1.0, 1.0)
    x = values.mean(axis=1)
    if design.clusters:
        codes = np.repeat(np.arange(len(design.clusters)), design.clusters)
        se_old = clustered_se(values, codes, cr2=False)
        se = clustered_se(values, codes, cr2=True)
        df_old: float = len(design.clusters) - 1
        df = _cluster_df(codes, m)
        units = len(design.clusters)
    else:
        se = se_old = values.std(axis=1, ddof=1) / np.sqrt(m)
        df = df_old = m - 1
        units = m
    truth = design.truth
    out = {}
    lo, hi = t_interval(x, se_old, df_old, CONFIDENCE, bounds)
    out["t"] = (lo, hi)
    zero = se == 0
    # as kpass uses it: a difference without the pull towards M (kpass.compare)
    lo_k, hi_k, _ = intervals(x, se, df, units, CONFIDENCE, bounds, cap=not design.paired)
    lo_e, hi_e = t_interval(x, se, df, CONFIDENCE, bounds)
    out["t+exact"] = (np.where(zero, lo_k, lo_e), np.where(zero, hi_k, hi_e))
    out["score"] = _score_only(x, se, df, units, bounds)
    out["hull"] = _hull(x, se, df, units, bounds, cap=not design.paired)
    out["kpass"] = (lo_k, hi_k)
    return {name: (float(np.mean((lo <= truth) & (truth <= hi))), float(np.mean(hi - lo)))
            for name, (lo, hi) in out.items()} | {"se=0": (float(zero.mean()), 0.0)}


def _score_only(x: np.ndarray, se: np.ndarray, df: float, units: int,
                bounds: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval on n_eff alone (no hull with t), exact at se = 0."""
    from scipy.special import stdtrit

    low, high = bounds
    room = high - low
    q = float(stdtrit(df, 0.5 + 0.5 * CONFIDENCE))
    y, s = (x - low) / room, se / room
    with np.errstate(divide="ignore", invalid="ignore"):
        n = y * (1 - y) / (s * s)
        r = q * q / n
        centre = (y + r / 2) / (1 + r)
        half = q / (1 + r) * np.sqrt(s * s + r / (4 * n))
    lo_k, hi_k, _ = intervals(x, se, df, units, CONFIDENCE, bounds, cap=False)
    lo = np.where(se > 0, low + room * (centre - half), lo_k)
    hi = np.where(se > 0, low + room * (centre + half), hi_k)
    return np.clip(lo, low, high), np.clip(hi, low, high)


def _hull(x: np.ndarray, se: np.ndarray, df: float, units: int,
          bounds: tuple[float, float], cap: bool) -> tuple[np.ndarray, np.ndarray]:
    """The first interval of issue 29 (commit 3b68c71): t hulled with the score interval."""
    from scipy.special import stdtrit

    low, high = bounds
    room = high - low
    q = float(stdtrit(df, 0.5 + 0.5 * CONFIDENCE))
    y, s = (x - low) / room, se / room
    with np.errstate(divide="ignore", invalid="ignore"):
        n = y * (1 - y) / (s * s)
        if cap:
            events = units * np.minimum(y, 1 - y)
            limit = units * np.maximum(1.0, np.square(events / 1.5))
            n = np.where(n > limit, n ** 0.4 * limit ** 0.6, n)
        r = q * q / n
        centre = (y + r / 2) / (1 + r)
        half = q / (1 + r) * np.sqrt(s * s + r / (4 * n))
    w_lo, w_hi = low + room * (centre - half), low + room * (centre + half)
    t_lo, t_hi = x - q * se, x + q * se
    score = np.maximum(t_lo - w_lo, w_hi - t_hi) > 0.3 * q * se
    lo = np.where(score, np.minimum(t_lo, w_lo), t_lo)
    hi = np.where(score, np.maximum(t_hi, w_hi), t_hi)
    lo_k, hi_k, _ = intervals(x, se, df, units, CONFIDENCE, bounds, cap=cap)
    zero = se == 0
    return (np.clip(np.where(zero, lo_k, lo), low, high),
            np.clip(np.where(zero, hi_k, hi), low, high))


UNEQUAL = (13, 5, 3, 2, 2, 1, 1, 1, 1, 1)
EQUAL = (3,) * 10


def designs(seed: int) -> list[Design]:
    out = []
    # Pass@8 near 0.8-0.85 (16 samples) and 0.85 (8 samples: Pass@8 = any correct)
    for a, b, n in ((0.84, 1.0, 16), (0.47, 0.3, 16), (0.84, 1.0, 8)):
        truth = beta_truth(a, b, "pass@k", 8)
        for m in (10, 12):
            out.append(Design(f"Pass@8 = {truth:.2f}, Beta({a:g},{b:g}), n={n}", m, n,
                              "pass@k", 8, beta_draw(a, b), truth))
    # plain accuracy, one sample
    for acc in (0.95, 0.98):
        for m in (10, 30):
            out.append(Design(f"accuracy {acc:g}, one sample", m, 1, "pass@k", 1,
                              lambda rng, shape, acc=acc: np.full(shape, acc), acc))
    # rare Pass^4 ~ 0.02, 8 samples
    for a, b in ((1.0, 3.49), (0.5, 2.4)):
        truth = beta_truth(a, b, "pass^k", 4)
        for m in (10, 30, 40, 100):
            out.append(Design(f"Pass^4 = {truth:.3f}, Beta({a:g},{b:g}), n=8", m, 8,
                              "pass^k", 4, beta_draw(a, b), truth))
    # mid-range Pass@1
    for m in (10, 30, 100):
        out.append(Design("Pass@1 = 0.5, Beta(1,1), n=8", m, 8, "pass@k", 1,
                          beta_draw(1.0, 1.0), 0.5))
    out.append(Design("Pass@1 = 0.5, Beta(1,1), n=1", 10, 1, "pass@k", 1,
                      beta_draw(1.0, 1.0), 0.5))
    # clusters: logit p = 0.3 + u_g + e_q, u ~ N(0, 1), e ~ N(0, 0.5)
    truth = logit_truth(0.3, float(np.hypot(1.0, 0.5)), "pass@k", 1, seed)
    for sizes, word in ((UNEQUAL, "10 unequal clusters"), (EQUAL, "10 equal clusters")):
        out.append(Design(f"Pass@1 = {truth:.2f}, {word}, n=4", sum(sizes), 4, "pass@k", 1,
                          clustered_draw(0.3, 1.0, 0.5, sizes), truth, clusters=sizes))
    # paired difference near the boundary: Pass@8 of A (logit N(1, 1.5)) minus B
    # (0.8 logits harder), 8 samples
    big = 1.0 + 1.5 * np.random.default_rng(seed).standard_normal(2_000_000)
    pa, pb = expit(big), expit(big - 0.8)
    diff = float(np.mean((1 - pb) ** 8 - (1 - pa) ** 8))
    for m in (10, 30):
        out.append(Design(f"Pass@8 A - B = {diff:.3f} (A near 0.85), n=8", m, 8, "pass@k",
                          8, lambda rng, shape: expit(1.0 + 1.5 * rng.standard_normal(shape)),
                          diff, paired=True))
    return out


def print_table(header: list[str], rows: list[list[str]], markdown: bool,
                text_columns: int = 1) -> None:
    """Print a result table (the coverage benchmarks share it): Markdown, or plain columns
    padded to their widths; the first ``text_columns`` columns left-aligned, the rest
    (numbers) right-aligned."""
    if markdown:
        print("| " + " | ".join(header) + " |")
        align = ["---"] * text_columns + ["--:"] * (len(header) - text_columns)
        print("|" + "|".join(align) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(cell.ljust(w) if i < text_columns else cell.rjust(w)
                            for i, (cell, w) in enumerate(zip(row, widths, strict=True))))


METHOD_NAMES = ("t", "t+exact", "score", "hull", "kpass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = parser.parse_args()
    start = time.perf_counter()
    header = ["design", "M", *[f"{name} cov" for name in METHOD_NAMES],
              *[f"{name} width" for name in METHOD_NAMES], "se=0"]
    rows = []
    for index, design in enumerate(designs(args.seed)):
        result = simulate(design, args.reps, args.seed + index)
        rows.append([design.name, str(design.questions),
                     *[f"{result[name][0]:.3f}" for name in METHOD_NAMES],
                     *[f"{result[name][1]:.3f}" for name in METHOD_NAMES],
                     f"{result['se=0'][0]:.2f}"])
    print_table(header, rows, args.markdown)
    print(f"\n{args.reps} replications per design, seed {args.seed} (+ design index); "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
