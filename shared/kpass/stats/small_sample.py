r"""Inference that holds with few questions: Student's t, the exact sign-flip test, warnings.

The standard errors of :mod:`kpass.stats` are means over questions, so their reference
distribution is normal only asymptotically. With M questions (or G clusters) the studentised
mean has, for normal per-question values, Student's t with M - 1 (G - 1) degrees of freedom;
the t reference is what ``scipy.stats.ttest_rel`` uses and what keeps a "95%" interval near
95% at 10-30 questions. The sign-flip (permutation) test needs no distributional assumption
beyond symmetry of the per-question differences under the null, and is exact at any M.

References:
    Student (1908), "The probable error of a mean", Biometrika 6(1).
    Fisher (1935), The Design of Experiments, section 21 (the randomisation test).
    Cameron, Gelbach and Miller (2008), "Bootstrap-based improvements for inference with
    clustered errors", Rev. Econ. Stat. 90(3) (G - 1 degrees of freedom with few clusters).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy.special import stdtr, stdtrit

from .._core.counting.checks import InputError

__all__ = ["SmallSampleWarning", "t_test", "exact_mde",
           "sign_flip_p", "small_sample_problems", "warn_small",
           "FEW_QUESTIONS", "FEW_EVENTS", "EXACT_UP_TO", "FLIPS", "FLIP_SEED",
           "DISCRETE_QUESTIONS", "DISCRETE_COVERAGE"]

FEW_QUESTIONS = 30
"""Below this many questions (or clusters) a SmallSampleWarning says the interval rests on
the t reference and a few questions."""

FEW_EVENTS = 5
"""An estimate x over M questions with M x < 5 or M (1 - x) < 5 is 'a few events from 0 or
1': its standard error is itself poorly estimated (Pass^k on hard sets), as the rule of
thumb n p >= 5 of the normal approximation to the binomial says."""

DISCRETE_QUESTIONS = (10, 15)
"""At 10-15 questions, Pass^k (any k) and Pass@1 near 0 or 1 (within 0.2 of the bound) get a
95% interval whose coverage is not 95%, whatever interval it is: the per-question counts are
too few and too discrete (``kpass report`` says so in one line, with
:data:`DISCRETE_COVERAGE`). Measured, not assumed: the designs of this size in
``benchmarks/bench_coverage.py``, ``benchmarks/bench_coverage_betabin.py`` and both
generated sets of ``benchmarks/bench_coverage_generated.py``
(docs/explanation/statistics.md)."""

DISCRETE_COVERAGE = (0.87, 1.0)
"""The range of the 95% interval's coverage measured at :data:`DISCRETE_QUESTIONS` (the
se-based interval, ``auto``'s choice below 20 questions; seeded simulation, 500-4000
replications per design): on 28 designs of 10-15 questions with Pass^k or Pass@1 near 0
or 1, 27 covered 0.972-1.000 (over-covering, an empty tail) and one 0.870 (Pass^8 = 0.028
at 10 questions of 16 samples, a generated held-out design: 12.2% of intervals below the
value)."""

EXACT_UP_TO = 20
"""Up to this many units (questions or clusters) the sign-flip test enumerates all 2^M
sign patterns (counted from two tables of 2^(M/2) sums, meet in the middle); beyond,
:data:`FLIPS` random patterns."""

FLIPS = 20000
"""Random sign patterns of the Monte Carlo sign-flip test (its p-value has Monte Carlo
standard error at most 0.5 / sqrt(20000) = 0.0035)."""

FLIP_SEED = 20261124
"""Seed of the Monte Carlo sign flips, so a comparison's p_exact is reproducible."""

FLIP_BLOCK_ENTRIES = 1 << 21
"""Random bytes drawn at once by the Monte Carlo sign-flip test (16 MB of looked-up float64
sums per block). At 5000 questions a test takes about 0.1 s (0.9 s with one random
integer per sign)."""


class SmallSampleWarning(UserWarning):
    """A number whose stated confidence may not hold.

    Raised for few questions or clusters, a standard error of 0, or an estimate within a
    few events of 0 or 1. Silence it with
    ``warnings.filterwarnings("ignore", category=kpass.SmallSampleWarning)``.
    """


def exact_mde(units: int, confidence: float, power: float = 0.8) -> float:
    r"""The smallest difference the exact sign test could detect, for se = 0.

    When every question (cluster) agrees, no spread is observed and (q + q_{0.8}) se is 0,
    which would claim that any difference is detectable. The test that remains is the
    sign-flip test of :func:`sign_flip_p`: with N non-zero differences all of one sign its
    two-sided p-value is 2^{1-N}, so it rejects at alpha = 1 - confidence only when
    N >= N_min = min{N : 2^{1-N} <= alpha} (6 at alpha = 0.05). The alternative is the
    one next to "every question agrees": A right and B wrong (d_q = 1) on a share delta of
    the questions, ties (d_q = 0) on the rest; then N ~ Binomial(units, delta), and the
    smallest delta detected with probability ``power`` solves
    P(Binomial(units, delta) >= N_min) = power, i.e.

        delta = I^{-1}_{power}(N_min, units - N_min + 1)

    (the regularised incomplete beta function; Binomial tail = I_delta(N_min, units -
    N_min + 1)). 0.67 at 10 questions, 0.25 at 30, 0.19 at 40 (95%); it exceeds the
    exact interval's half-width 1 - (alpha/2)^(1/units) (0.31 at 10 questions) as
    (q + q_{0.8}) se exceeds q se.
    ``inf`` when units < N_min: the exact test cannot reach alpha at all.

    Args:
        units: questions (clusters) the difference is over.
        confidence: the level; alpha = 1 - confidence.
        power: the detection probability (0.8).

    Returns:
        delta, in the units of the difference (a share of [0, 1]).
    """
    from scipy.special import betaincinv

    alpha = 1.0 - confidence
    needed = 1
    while 2.0 ** (1 - needed) > alpha * (1.0 + 1e-12):
        needed += 1
    if units < needed:
        return math.inf
    return float(betaincinv(needed, units - needed + 1, power))


def t_test(difference: float, se: float, confidence: float,
           df: float | None, units: int | None = None) -> tuple[float, float, float, float]:
    r"""(lo, hi, p_value, mde) of ``difference`` with standard error ``se``.

    Formula:
        q = t_{df}^{-1}((1 + confidence) / 2); interval difference -/+ q se;
        p_value = 2 F_{df}(-|difference| / se); mde = (q + t_{df}^{-1}(0.8)) se, the
        smallest true difference detected with 80% power at alpha = 1 - confidence (the
        usual t-quantile approximation to the noncentral-t power; it tends to the normal
        (z_{1-alpha/2} + z_{0.8}) se as df grows). ``df=None``: the normal reference.
        se = 0: the interval is [difference, difference], p_value 1 when the difference
        is 0 and None otherwise (no t statistic exists; the caller uses the exact test),
        and mde is :func:`exact_mde` of ``units`` (0 when ``units`` is None).
    """
    if df is None:
        from scipy.special import ndtr, ndtri

        q, q80 = float(ndtri(0.5 + 0.5 * confidence)), float(ndtri(0.8))
        tail = None if se == 0.0 else float(2.0 * ndtr(-abs(difference) / se))
    else:
        q, q80 = float(stdtrit(df, 0.5 + 0.5 * confidence)), float(stdtrit(df, 0.8))
        tail = None if se == 0.0 else float(2.0 * stdtr(df, -abs(difference) / se))
    mde = (q + q80) * se
    if se == 0.0 and units is not None:
        mde = exact_mde(units, confidence)
    if se == 0.0:
        return difference, difference, 1.0 if difference == 0.0 else math.nan, mde
    assert tail is not None
    return difference - q * se, difference + q * se, min(tail, 1.0), mde


def sign_flip_p(differences: np.ndarray, codes: np.ndarray | None = None,
                alternative: str = "two-sided") -> float:
    r"""Sign-flip permutation p-value of "the differences are centred on 0".

    Formula:
        Units u = 1..U are the questions (or the clusters, whose differences are summed:
        a cluster flips as a whole); S = |sum_u x_u|; under the null each x_u is as likely
        to be -x_u, so p = #{signs e : |sum_u e_u x_u| >= S} / 2^U, enumerated exactly for
        U <= :data:`EXACT_UP_TO`, else (1 + #{b : S_b >= S}) / (1 + B) over B =
        :data:`FLIPS` random sign patterns (seed :data:`FLIP_SEED`), a valid p-value too
        (Phipson and Smyth 2010); where every |x_u| is the same (se = 0, or one-sample
        0/1 outcomes), exactly at any U from the binomial count of + signs. Each random
        byte signs eight units at once, through a table of the 256 signed sums of each
        group of eight: a pattern costs U / 8 look-ups.
        Never 0: the identity pattern always counts (two questions both +0.25: 0.5).
        ``alternative="greater"``: S = sum_u x_u without the absolute value, and
        p = #{e : sum_u e_u x_u >= S} / 2^U (or its Monte Carlo counterpart); with equal
        |x_u|, P(K >= P) exactly. It is the one-sided test of the margin claims of
        :func:`kpass.compare` (x_u the shifted differences, margin - d_u).

    Args:
        differences: per-question differences d_q.
        codes: optional cluster code per question (0..G-1).
        alternative: ``"two-sided"`` (|sum|, the default) or ``"greater"`` (large positive
            sums only).

    Returns:
        The p-value in (0, 1].
    """
    if alternative not in ("two-sided", "greater"):
        raise InputError(f"`alternative` must be 'two-sided' or 'greater'; got {alternative!r}")
    one_sided = alternative == "greater"
    values = np.asarray(differences, dtype=float)
    if codes is not None:
        values = np.bincount(codes, weights=values)
    values = values[values != 0.0]  # a zero flips to itself
    if values.size == 0:
        return 1.0

    def statistic(sums: np.ndarray) -> np.ndarray:
        return sums if one_sided else np.abs(sums)

    observed = float(statistic(np.array(values.sum())))
    tolerance = 1e-9 * float(np.abs(values).sum())  # sums equal up to rounding tie
    size = np.abs(values)
    if float(size.max() - size.min()) <= 1e-9 * float(size.max()):
        # Every unit differs by the same amount v: a pattern's sum is v (2K - U) with K ~
        # Binomial(U, 1/2) units signed +, so p = P(|2K - U| >= |2P - U|) exactly at any U
        # (P units observed +): 2 P(K <= min(P, U - P)), capped at 1; all one sign: 2 / 2^U.
        from scipy.special import bdtr, bdtrc

        plus = int(np.count_nonzero(values > 0))
        if one_sided:  # P(K >= plus)
            return 1.0 if plus == 0 else float(bdtrc(plus - 1, values.size, 0.5))
        fewer = min(plus, values.size - plus)
        if 2 * fewer == values.size:
            return 1.0
        return min(1.0, 2.0 * float(bdtr(fewer, values.size, 0.5)))
    if values.size <= EXACT_UP_TO:
        return _enumerated(values, observed - tolerance, one_sided) / 2.0 ** values.size
    # Eight units per random byte: table[b, j] is the sum of the j-th eight units under the
    # signs of the bits of b (bit set: +), so a pattern's sum is sum_j table[byte_j, j].
    eights = np.concatenate([values, np.zeros(-values.size % 8)]).reshape(-1, 8)
    signs = 2.0 * ((np.arange(256)[:, None] >> np.arange(8)) & 1) - 1.0
    table = signs @ eights.T  # (256, groups of eight)
    columns = np.arange(eights.shape[0])
    block = max(1, FLIP_BLOCK_ENTRIES // columns.size)
    rng = np.random.default_rng(FLIP_SEED)
    hits = 0
    for start in range(0, FLIPS, block):
        rows = min(block, FLIPS - start)
        sums = table[rng.integers(0, 256, size=(rows, columns.size), dtype=np.uint8),
                     columns].sum(axis=1)
        hits += int(np.count_nonzero(statistic(sums) >= observed - tolerance))
    return (1 + hits) / (1 + FLIPS)


def _enumerated(values: np.ndarray, threshold: float, one_sided: bool) -> int:
    """How many of the 2^U sign patterns e give sum_u e_u x_u >= threshold (|.| two-sided).

    Meet in the middle: the 2^(U/2) sums of each half, one half sorted, and for each sum
    of the other half the count of partners reaching the threshold (a binary search), so
    20 units cost two tables of 1024 sums, not one of 2^20.
    """
    if not one_sided and threshold <= 0.0:
        return 1 << values.size  # |sum| >= a non-positive threshold: every pattern

    def sums(part: np.ndarray) -> np.ndarray:
        found = np.zeros(1)
        for value in part:
            found = np.concatenate([found + value, found - value])
        return found

    half = values.size // 2
    left, right = sums(values[:half]), np.sort(sums(values[half:]))
    count = right.size - np.searchsorted(right, threshold - left, side="left")
    if not one_sided:  # sum <= -threshold too (disjoint from sum >= threshold > 0)
        count += np.searchsorted(right, -threshold - left, side="right")
    return int(count.sum())


def small_sample_problems(units: int, clustered: bool, ses: Sequence[float],
                          estimates: Sequence[float]) -> list[str]:
    """What makes these numbers doubtful (empty when nothing does).

    Args:
        units: questions used (or clusters when ``clustered``).
        clustered: whether ``units`` counts clusters.
        ses: the standard errors (one per k).
        estimates: the estimates in [0, 1] the SEs belong to (one per k), over ``units``
            questions; empty to skip the near-0/1 rule (differences).
    """
    problems = []
    if units < FEW_QUESTIONS:
        df = (f"the Bell-McCaffrey degrees of freedom (at most {units - 1})" if clustered
              else f"{units - 1} degrees of freedom")
        problems.append(f"only {units} {'clusters' if clustered else 'questions'} (fewer than "
                        f"{FEW_QUESTIONS}): intervals use Student's t with {df}; check the "
                        "exact test (p_exact) before acting")
    if any(se == 0.0 for se in ses):
        problems.append("a standard error of 0: every question agrees, so the spread is not "
                        "estimated; the interval is the exact bound for that many "
                        "questions all alike (kpass.stats.intervals), not estimate -/+ t se")
    near = [x for x in estimates if min(x, 1.0 - x) * units < FEW_EVENTS]
    if near and units >= FEW_QUESTIONS:  # below, the first note already says it
        problems.append(f"an estimate ({near[0]:.3g}) within {FEW_EVENTS} questions' worth of "
                        "0 or 1: its standard error is unreliable (rare events), so the "
                        "interval is the wider score interval (kpass.stats.intervals); more "
                        "questions narrow it")
    return problems


def warn_small(what: str, problems: list[str], stacklevel: int = 3) -> None:
    """Issue one :class:`SmallSampleWarning` for ``what`` listing ``problems`` (if any)."""
    if problems:
        warnings.warn(f"{what}: " + "; ".join(problems), SmallSampleWarning,
                      stacklevel=stacklevel)
