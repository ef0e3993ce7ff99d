"""Family-wise error and power of ``kpass compare``'s verdicts, seeded.

Design (issue 29): M = 30 questions x n = 8 samples, the DEFAULT table (Pass@k, Pass^k,
G-Pass@k, mG-Pass@k, Maj@k, AUC@k at k = 1..8, Avg@n: 48 rows, 37 distinct after merging
rows equal on every question, mG-Pass@1 left out). Question q has difficulty
b_q ~ N(0, 1.5^2) (the spread bench_ranks.py uses: per-question success rates spread
over the whole of [0, 1], about a fifth of the questions below 0.1 or above 0.9); model B
solves it at rate expit(b_q), model A at expit(b_q + shift), each with n Bernoulli samples.

Null (shift 0): A and B are exchangeable on every question. Reported: the chance of any
false verdict among the secondary rows (their family-wise error), of a false primary
verdict, and of any false verdict anywhere in the table. Shift 0.6 logits: how often
Pass@1 gets an "A better" verdict, (a) as the primary row (tested alone), (b) as a
secondary row (primary = Pass@8), (c) with ``--primary none`` (every row adjusted jointly);
and how often any row gets a wrong-direction verdict.

Per replication the rows' per-question values come from the metric functions themselves
(``per_question=True``, tabulated once over the 9 possible counts 0..8, since a row's value
on a question depends only on its count), and the verdicts from
:func:`kpass.report.compare_rows.merge_equal` and :func:`kpass.report.compare_rows.judge`: the code
``kpass compare`` runs, without the posteriors and intervals that do not enter a verdict.
The primary row's p is the paired t test (scipy). ``--full R`` also runs R replications
through :func:`kpass.compare_table` (the whole command path, ~1.5 s each) as a cross-check.

Usage: python benchmarks/bench_compare_power.py [--quick] [--full R]
"""

from __future__ import annotations

import sys
import time
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import expit

import kpass
from kpass.families import function
from kpass.report.compare_render import Line
from kpass.report.compare_rows import _Values, judge, merge_equal
from kpass.report.table import default_ks, parse_metrics

M, N, SPREAD, SHIFT = 30, 8, 1.5, 0.6


def value_table(n: int = N) -> list[tuple[str, str, int | None, np.ndarray]]:
    """Every default row's per-question value for each count 0..n of n samples."""
    states = kpass.BinaryCounts([n] * (n + 1), list(range(n + 1)))
    ks, rows = default_ks(n), []
    for fam in parse_metrics(None):
        point = function(fam.function)
        if not fam.per_k:
            rows.append((fam.key, fam.label(None, None, "n"), None,
                         np.asarray(point(states, per_question=True), dtype=float)))
            continue
        family_ks = [k for k in ks if k not in fam.constant_at]
        head = (0.5,) if fam.uses_tau else ()
        for k, values in zip(family_ks, point(states, family_ks, *head, per_question=True),
                             strict=True):
            rows.append((fam.key, fam.label(k, head[0] if head else None, "n"), k,
                         np.asarray(values, dtype=float)))
    return rows


def draw(rng: np.random.Generator, shift: float) -> tuple[np.ndarray, np.ndarray]:
    b = rng.normal(0.0, SPREAD, M)
    return rng.binomial(N, expit(b + shift)), rng.binomial(N, expit(b))


def verdicts(table: list[Any], ca: np.ndarray, cb: np.ndarray, primary: str | None,
             adjust: str, flips: int) -> list[Line]:
    values = np.array([row[3] for row in table])
    va, vb = values[:, ca], values[:, cb]
    d = va - vb
    mean, se = d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(M)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, 2 * stats.t.sf(np.abs(mean) / se, M - 1), mean == 0)
    lines = [Line(key, label, k, None, SimpleNamespace(p_value=float(p[r]),
                                                       difference=float(mean[r])),
                  values=_Values(va[r], vb[r], d[r]))
             for r, (key, label, k, _) in enumerate(table)]
    return judge(merge_equal(lines, []), 0.95, primary, adjust, flips=flips)


def rates(reps: int, shift: float, seed: int, primary: str | None, adjust: str,
          flips: int) -> dict[str, float]:
    rng, table = np.random.default_rng(seed), value_table()
    count = dict.fromkeys(("any", "primary", "secondary", "pass1", "wrong_way"), 0)
    for _ in range(reps):
        lines = verdicts(table, *draw(rng, shift), primary, adjust, flips)
        found = [line.verdict != "no detectable difference" for line in lines]
        count["any"] += any(found)
        count["primary"] += any(f for f, line in zip(found, lines, strict=True)
                                if line.role == "primary")
        count["secondary"] += any(f for f, line in zip(found, lines, strict=True)
                                  if line.role != "primary")
        count["pass1"] += any("Pass@1" in line.names and line.verdict == "A better"
                              for line in lines)
        count["wrong_way"] += any(line.verdict == "B better" for line in lines)
    return {key: value / reps for key, value in count.items()}


def full_path(reps: int, shift: float, seed: int) -> dict[str, float]:
    """The same design through kpass.compare_table (every number of the command)."""
    rng = np.random.default_rng(seed)
    found = pass1 = 0
    for _ in range(reps):
        ca, cb = draw(rng, shift)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = kpass.compare_table(kpass.BinaryCounts([N] * M, ca),
                                        kpass.BinaryCounts([N] * M, cb))
        rows = [row for row in table.rows if row["same_as"] is None]
        found += any(row["verdict"] != "no detectable difference" for row in rows)
        pass1 += any(row["label"] == "Pass@1" and row["verdict"] == "A better" for row in rows)
    return {"any": found / reps, "pass1": pass1 / reps}


def main() -> None:
    quick = "--quick" in sys.argv
    reps, flips = (300, 2000) if quick else (1000, 2000)
    full = int(sys.argv[sys.argv.index("--full") + 1]) if "--full" in sys.argv else 0
    print(f"kpass compare verdicts: M = {M} questions x n = {N} samples, default table, "
          f"difficulty N(0, {SPREAD}^2), shift {SHIFT} logits; {reps} replications per row, "
          f"{flips} sign flips; seeds 1 (null) and 2 (shift)")
    print(f"{'adjustment':<34}{'null: secondary':>16}{'primary':>9}{'whole table':>12}"
          f"{'shift: Pass@1 found':>21}{'wrong way':>10}")
    designs = [("max-t, primary Pass@1 (default)", None, "max-t"),
               ("max-t, primary Pass@8", "Pass@8", "max-t"),
               ("max-t, --primary none", "none", "max-t"),
               ("holm, primary Pass@1", None, "holm"),
               ("holm, primary Pass@8", "Pass@8", "holm"),
               ("holm, --primary none", "none", "holm")]
    for label, primary, adjust in designs:
        start = time.perf_counter()
        null = rates(reps, 0.0, 1, primary, adjust, flips)
        shift = rates(reps, SHIFT, 2, primary, adjust, flips)
        print(f"{label:<34}{null['secondary']:>16.3f}{null['primary']:>9.3f}{null['any']:>12.3f}"
              f"{shift['pass1']:>21.3f}{shift['wrong_way']:>10.3f}"
              f"   ({time.perf_counter() - start:.0f} s)", flush=True)
    if full:
        print(f"full path (kpass.compare_table, default options), {full} replications: "
              f"null {full_path(full, 0.0, 3)}, shift {full_path(full, SHIFT, 4)}")


if __name__ == "__main__":
    main()
