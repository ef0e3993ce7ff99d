r"""A profile-likelihood interval for Pass@k and Pass^k near 0 or 1, from a beta-binomial fit.

Near 0 or 1 the interval of :mod:`kpass.stats.intervals` sees only the estimate and its SE;
a rare Pass^k is the mean of a few large per-question values, and a 20-200 question
sample mostly misses them, so its SE is too small when the estimate is low (the lower
tail of the audit: 5.4% below the value at 200 questions) and too large where the
Wilson end and the pull towards M widen it (over-coverage 0.97-0.999 at 20-60
questions). Here every question's count is used, not only the mean and SE.

Model (the population of questions, as the interval over questions assumes):
question q's success probability p_q ~ Beta(a, b), its correct count
c_q | p_q ~ Binomial(n_q, p_q). The estimand is the population mean of the metric,

    Pass^k:  theta = E[p^k]           = prod_{j<k} (a + j) / (a + b + j),
    Pass@k:  theta = 1 - E[(1 - p)^k] = 1 - prod_{j<k} (b + j) / (a + b + j),

the value the unbiased per-question estimator's mean estimates (the same estimand as the
interval over questions of :mod:`kpass.stats.intervals`; the estimate printed stays the
unbiased mean over questions). Accuracy is Pass@1 (theta = a / (a + b)).

Interval: the profile likelihood ratio (Wilks; Venzon and Moolgavkar 1988),

    { theta : 2 (l_max - max_{(a, b): theta(a, b) = theta} l(a, b)) <= q^2 },

with l(a, b) = sum_q log BetaBinom(c_q; n_q, a, b) and q the t quantile with M - 1
degrees of freedom (the reference every interval over questions in kpass uses; q^2 is
chi2_1's quantile as M grows). The profile is over the precision S = a + b: on a grid of
log S in [-6, 12] (step 1/2, then step 1/8 around the best point, and a parabola through
the best three) the mean a / S with theta(a, b) = theta is solved by Newton's method in
log a (the product is convex and increasing in log a: Newton from the right of the root
converges monotonically). As S -> 0 the Beta tends to a two-point population (p in
{0, 1}), as S -> inf to one p for all questions, so the profile covers both a benchmark
of easy and impossible questions and one of equal questions. The maximum and the two
crossings of l_max - q^2 / 2 are found on grids of logit theta refined three times
(:func:`profile_ends`); the interval then is widened to hold the unbiased estimate
(under a misspecified population the model's theta-hat can differ from it).

With one sample per question (n = 1) a and b are not separately identified; the
likelihood depends on a / (a + b) only and the interval is the binomial likelihood-ratio
interval of accuracy.

When kpass uses it (:data:`RULE`; ``kpass report``): the ``auto`` choice
takes this interval for Pass^k with k >= 2 (Pass@k with k >= 2 was taken out after the
held-out designs, where its coverage near 1 fell to 0.81-0.86 when the questions' rates are
not Beta, and Pass@1 after the generated held-out designs, where a share of never-solved
questions brought it to 0.862) with no clusters and se > 0 where the estimate x over the
M >= :data:`MIN_QUESTIONS` questions used is near a bound, min(x, 1 - x) <=
:data:`NEAR_SHARE` and M min(x, 1 - x) <= :data:`NEAR_EVENTS` (at most 25 questions'
worth of the estimate from the nearer bound), unless the questions look zero-inflated: more
than :data:`NEVER_SOLVED_SHARE` of them never solved, or the likelihood ratio of a
zero-inflated against a plain beta-binomial (:func:`zero_inflation_lr`) above
:data:`ZERO_INFLATION_LR` (a point mass at p = 0 is outside the model; both conditions were
added after the generated designs). Elsewhere, and for every other metric,
paired differences and clustered SEs, the interval of :mod:`kpass.stats.intervals` (t,
score, exact). Coverage, per tail, and width on designs
split into tuning and held-out sets: ``benchmarks/bench_coverage_betabin.py`` and
docs/explanation/statistics.md.

References:
    Skellam (1948), "A probability distribution derived from the binomial distribution
    by regarding the probability of success as variable between the sets of trials",
    JRSS B 10(2) (the beta-binomial).
    Venzon and Moolgavkar (1988), "A method for computing profile-likelihood-based
    confidence intervals", Applied Statistics 37(1).
    Wilks (1938), Annals of Mathematical Statistics 9(1) (the likelihood-ratio chi2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit, stdtrit

from .._core.counting.checks import InputError

__all__ = ["beta_binomial_interval", "profile_ends", "uses_beta_binomial", "zero_inflation_lr",
           "INTERVAL_CHOICES", "NEAR_SHARE", "NEAR_EVENTS", "MIN_QUESTIONS",
           "NEVER_SOLVED_SHARE", "ZERO_INFLATION_LR", "RULE"]

NEAR_SHARE = 0.2
"""The rule's first condition: min(x, 1 - x) <= 0.2."""

NEAR_EVENTS = 25.0
"""The rule's second condition: M min(x, 1 - x) <= 25 questions' worth."""

MIN_QUESTIONS = 20
"""The rule's third condition: at least 20 questions. First 10, added after the first two,
before the held-out designs were run, on seeing the docs' 3-question example: with a
handful of questions the two-point populations (a + b -> 0) fit as well as any, and the
profile interval of Pass@4 = 0.978 at 3 questions was [0.04, 1] where the score interval
gives [0.31, 1]. Raised to 20 after the first generated held-out set
(``benchmarks/bench_coverage_generated.py``, seed 20261129; a tuning set from then on):
at 15 questions the profile interval missed below 5.8% and 7.6% of the time on two
mixtures with impossible questions, where the se-based interval covered 0.972 and 1.000,
and on all 9 designs of 10-15 questions the se-based interval covered 0.972-1.000 (the
counts are too discrete there for any interval to sit at 0.95; kpass says so: see
:data:`kpass.stats.small_sample.DISCRETE_QUESTIONS`)."""

NEVER_SOLVED_SHARE = 0.7
"""The rule's fourth condition: at most 70% of the questions used have no correct sample.
Added after the two generated sets (``benchmarks/bench_coverage_generated.py``, seeds
20261129 and 20261130, tuning sets from then on): a share of never-solved questions (p = 0)
is a point mass the Beta cannot hold, and where most questions are never solved the
remaining few decide the fit. On the first set's G16 (Pass^4 = 0.007, 62% of questions
impossible, 4 samples, 100 questions; 82% of questions with no correct sample on average)
the profile interval lay wholly above the value 5.0-5.2% of the time; the Beta populations
where the interval helps had at most 59% (Pass^4 = 0.017, Beta(0.3, 2), 8 samples).
Validated once on a third generated set (``--mix never-solved --seed 20261203``): a design
with 57% impossible questions went from 0.734 to 0.946; it also moves a Beta piled up at 0
(Beta(0.049, 0.38), 77% never solved) to the se-based interval, which covered it 0.906
where the beta-binomial one covered 0.960 (docs/explanation/statistics.md)."""

ZERO_INFLATION_LR = 6.635
"""The rule's fifth condition: the likelihood-ratio statistic of a zero-inflated against a
plain beta-binomial (:func:`zero_inflation_lr`) is at most 6.635, the 0.99 quantile of
chi2_1. Under a plain beta-binomial the share w of impossible questions is 0, on the
boundary, so the statistic is asymptotically 0 with probability 1/2 and chi2_1 otherwise
(Self and Liang 1987): a test at the 0.5% level, strict so that it rarely moves a Beta
population (whose se-based interval under-covers) off the profile interval. Added with
:data:`NEVER_SOLVED_SHARE`, on the same tuning sets: it moves the mixture of 60% impossible
questions and Beta(6, 3) (16 samples; statistic median 17 at 30 questions, 107 at 200),
where the profile interval over-covered (0.985-1.000) at 17-20% more width, back to the
se-based interval, and moved at most 1-3% of replications on the Beta designs."""

RULE = ("beta-binomial for Pass^k with k >= 2 without clusters, se > 0, M >= 20 "
        "questions, min(x, 1 - x) <= 0.2, M min(x, 1 - x) <= 25, at most 70% of questions "
        "never solved and no zero inflation (likelihood ratio <= 6.635)")
"""The ``auto`` rule in words. Fixed before the held-out designs were run for Pass@k and
Pass^k alike; Pass@k with k >= 2 was taken out after them, where the held-out designs near
1 with questions that are not Beta (logit-normal, a share of impossible questions) were
covered 0.81-0.86 at 200 questions (the fitted Beta's lower tail sets 1 - E[(1 - p)^k]).
Pass@1 (= Pass^1) was taken out after the generated held-out set
(``benchmarks/bench_coverage_generated.py``, seed 20261130), where Pass@1 = 0.179 with 44%
never-solved questions (16 samples, 100 questions) was covered 0.862 (12.4% of intervals
below the value) against the se-based interval's 0.952: a share of impossible questions is
outside the Beta model, and Pass@1, unlike rare Pass^k, gains little width from it. Both
removals were decided on held-out designs, which are therefore no longer independent checks
of those rows: see docs/explanation/statistics.md. The never-solved conditions
(:data:`NEVER_SOLVED_SHARE`, :data:`ZERO_INFLATION_LR`) were added on the two generated
sets and checked once on a third, held out."""

INTERVAL_CHOICES = ("auto", "se-based", "beta-binomial")
"""``interval=``: ``auto`` (:data:`RULE`), ``se-based`` (always :mod:`kpass.stats.intervals`'
interval from the estimate and se), ``beta-binomial`` (this interval wherever it applies:
Pass@k and Pass^k without clusters, se > 0)."""

MOMENTS = ("p^k", "1-(1-p)^k")
"""The registry's ``moment`` values this interval applies to (Pass^k, Pass@k)."""


def complement_moment(metric: str) -> bool | None:
    """Which moment ``metric`` (a registry key or point function name) is.

    True: 1 - E[(1 - p)^k] (Pass@k); False: E[p^k] (Pass^k); None: neither.
    """
    from ..registry import family, of_function

    for lookup in (family, of_function):
        try:
            moment = lookup(metric).moment
        except LookupError:
            continue
        return None if moment not in MOMENTS else moment == MOMENTS[1]
    return None

_LOG_S = np.arange(-6.0, 12.0 + 1e-9, 0.5)
_FINE = np.linspace(-0.5, 0.5, 9)  # the second grid of log S, around the first's best
_EDGE = 1e-12  # theta is searched in [_EDGE, 1 - _EDGE]


def uses_beta_binomial(choice: str, metric: str, k: int, estimate: float, se: float | None,
                       questions: int, clustered: bool, *, n_samples: Any,
                       n_correct: Any) -> bool:
    """Whether ``choice`` (:data:`INTERVAL_CHOICES`) gives this row the beta-binomial interval.

    Args:
        choice: ``"auto"``, ``"se-based"`` or ``"beta-binomial"``.
        metric: the registry key or point function (Pass@k and Pass^k, the families
            with a ``moment``; others never).
        k: the metric's k (``auto`` leaves Pass@k with k >= 2 out: :data:`RULE`).
        estimate: the unbiased estimate x.
        se: its standard error over questions (None or 0: never).
        questions: M, the questions used.
        clustered: clustered SE (never: the model has independent questions).
        n_samples: samples per question of the questions used (each >= k).
        n_correct: their correct counts (``auto``: more than :data:`NEVER_SOLVED_SHARE`
            of them 0, or a zero-inflation statistic above :data:`ZERO_INFLATION_LR`:
            never).
    """
    complement = complement_moment(metric)
    if choice == "se-based" or complement is None or clustered or not se or questions < 2:
        return False
    if choice == "beta-binomial":
        return True
    near = min(estimate, 1.0 - estimate)
    if not (not complement and k >= 2 and questions >= MIN_QUESTIONS and near <= NEAR_SHARE
            and questions * near <= NEAR_EVENTS):
        return False
    n = np.asarray(n_samples, dtype=int).ravel()
    c = np.asarray(n_correct, dtype=int).ravel()
    if np.mean(c == 0) > NEVER_SOLVED_SHARE:
        return False
    keys, weight = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    return bool(zero_inflation_lr(keys[:, 0], keys[:, 1], weight)[0] <= ZERO_INFLATION_LR)


_ZI_MEAN = np.arange(-12.0, 12.0 + 1e-9, 0.25)  # logit a / (a + b), the first grid
_ZI_LOG_S = np.arange(-6.0, 12.0 + 1e-9, 0.25)  # log (a + b)
_ZI_ZOOM = np.linspace(-1.0, 1.0, 17)


class _ZeroInflated:
    """The plain and zero-inflated beta-binomial log-likelihoods of R data sets on common cells.

    Both up to the binomial coefficients. With f(c; n) the beta-binomial probability,
    sum_q log f(c_q; n_q) = sum_j T_a[j] log(a + j) + T_b[j] log(b + j) - T_n[j] log(a + b + j)
    (the tails of :func:`_tails`), so the cost is one log per j < max n, not per cell; the
    questions with c = 0 enter through f(0; n) = prod_{j<n} (b + j) / (a + b + j), one
    value per distinct n among them.
    """

    def __init__(self, cells_n: np.ndarray, cells_c: np.ndarray, weights: np.ndarray):
        zero = cells_c == 0
        self.ta, self.tb, self.tn, top = _tails(cells_n, cells_c, weights * ~zero)
        self.j = np.arange(top, dtype=float)
        self.zero_n = cells_n[zero].astype(int) - 1  # f(0; n) is the cumulative sum at n - 1
        self.zero_m = weights[:, zero]  # (R, Z)
        self.rest = (weights * ~zero).sum(axis=1)  # questions with c > 0

    def parts(self, mean: np.ndarray, log_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(sum over c > 0 of log f, log f(0; n) per zero cell) at (R or 1, G) points."""
        s = np.exp(log_s)[..., None]
        a, b = s * expit(mean[..., None]), s * expit(-mean[..., None])
        la, lb, ls = np.log(a + self.j), np.log(b + self.j), np.log(s + self.j)
        log_f0 = np.cumsum(lb - ls, axis=-1)[..., self.zero_n]  # (R or 1, G, Z)
        rule = "gj,rj->rg" if la.shape[0] == 1 else "rgj,rj->rg"
        if la.shape[0] == 1:
            la, lb, ls = la[0], lb[0], ls[0]
        positive = (np.einsum(rule, la, self.ta) + np.einsum(rule, lb, self.tb)
                    - np.einsum(rule, ls, self.tn))
        return positive, np.broadcast_to(log_f0, (*positive.shape, self.zero_n.size))

    def plain(self, mean: np.ndarray, log_s: np.ndarray) -> np.ndarray:
        positive, log_f0 = self.parts(mean, log_s)
        return positive + np.einsum("rgz,rz->rg", log_f0, self.zero_m)

    def inflated(self, mean: np.ndarray, log_s: np.ndarray) -> np.ndarray:
        """Maximised over the share w of impossible questions.

        sum_{c = 0} m log(w + (1 - w) f(0; n)) + sum_{c > 0} m (log(1 - w) + log f) is
        concave in w: with one n among the questions never solved its maximum is
        w = max(0, (z - f_0) / (1 - f_0)), z their share; otherwise the root of its slope,
        by bisection.
        """
        positive, log_f0 = self.parts(mean, log_s)
        f0 = np.exp(log_f0)
        m = self.zero_m[:, None, :]
        rest = self.rest[:, None]
        if self.zero_n.size == 1:
            z = m[..., 0] / (m[..., 0] + rest)
            w = np.clip((z - f0[..., 0]) / np.maximum(1.0 - f0[..., 0], 1e-300), 0.0,
                        1.0 - 1e-12)
        else:
            def slope(x: np.ndarray) -> np.ndarray:
                return ((m * (1.0 - f0) / (x[..., None] + (1.0 - x[..., None]) * f0))
                        .sum(axis=-1) - rest / (1.0 - x))
            low, high = np.zeros(positive.shape), np.full(positive.shape, 1.0 - 1e-12)
            grows = slope(low) > 0
            for _ in range(45):
                mid = 0.5 * (low + high)
                up = slope(mid) > 0
                low, high = np.where(up, mid, low), np.where(up, high, mid)
            w = np.where(grows, 0.5 * (low + high), 0.0)
        with np.errstate(divide="ignore"):
            zeros = np.log(w[..., None] + (1.0 - w[..., None]) * f0)
        return positive + rest * np.log1p(-w) + np.einsum("rgz,rz->rg", zeros, self.zero_m)


def _maximum(model: _ZeroInflated, inflate: bool) -> np.ndarray:
    """The maximum log-likelihood per data set, (R,).

    A grid of logit mean and log S of step 1/4, then three rounds of 17 x 17 points over
    the best point's neighbourhood (steps 1/32, 1/256, 1/2048).
    """
    r = model.zero_m.shape[0]
    rows = np.arange(r)
    mean, log_s = (g.ravel()[None, :] for g in np.meshgrid(_ZI_MEAN, _ZI_LOG_S, indexing="ij"))
    values = model.inflated if inflate else model.plain
    found = values(mean, log_s)
    pick = np.argmax(found, axis=1)
    best, m0, s0 = found[rows, pick], mean[0, pick], log_s[0, pick]
    step = 0.125
    for _ in range(3):
        gm = (m0[:, None, None] + 2 * step * _ZI_ZOOM[None, :, None]).repeat(17, axis=2)
        gs = (s0[:, None, None] + 2 * step * _ZI_ZOOM[None, None, :]).repeat(17, axis=1)
        gm, gs = gm.reshape(r, -1), gs.reshape(r, -1)
        found = values(gm, gs)
        pick = np.argmax(found, axis=1)
        better = found[rows, pick] > best
        best = np.where(better, found[rows, pick], best)
        m0 = np.where(better, gm[rows, pick], m0)
        s0 = np.where(better, gs[rows, pick], s0)
        step /= 8.0
    return best


def zero_inflation_lr(cells_n: Any, cells_c: Any, weights: Any) -> np.ndarray:
    r"""The likelihood-ratio statistic of a zero-inflated beta-binomial against a plain one.

    Zero-inflated: a share w of the questions is impossible (p = 0), the others have
    p ~ Beta(a, b); plain: w = 0. The statistic is

        2 (max_{w, a, b} l_ZI(w, a, b) - max_{a, b} l(a, b)) >= 0,

    l_ZI = sum_{c_q = 0} log(w + (1 - w) f(0; n_q)) + sum_{c_q > 0} log((1 - w) f(c_q; n_q)),
    f the beta-binomial probability. Under a plain beta-binomial w = 0 lies on the boundary
    and the statistic is asymptotically 0 with probability 1/2 and chi2_1 otherwise (Self
    and Liang 1987, JASA 82(398)). Both maxima are found on a grid of logit a / (a + b) in
    [-12, 12] and log (a + b) in [-6, 12] of step 1/4 refined three times (w at each point
    in closed form, or by bisection when the never-solved questions have several n), for R
    data sets on common cells at once: 10-70 ms of CPU for one data
    set with 1-3 distinct sample counts. Without a question with 0 correct (or with only
    such questions) it is 0.

    Args:
        cells_n: samples n of each cell (n, c), shape (C,).
        cells_c: correct count c of each cell, shape (C,).
        weights: questions per cell, shape (R, C) (or (C,) for one data set).

    Returns:
        The statistic per data set, shape (R,).
    """
    n = np.asarray(cells_n, dtype=float)
    c = np.asarray(cells_c, dtype=float)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    keep = n > 0  # a question without samples tells nothing
    n, c, w = n[keep], c[keep], w[:, keep]
    zero = c == 0
    some = (w[:, zero].sum(axis=1) > 0) & (w[:, ~zero].sum(axis=1) > 0)
    out = np.zeros(w.shape[0])
    if some.any():
        model = _ZeroInflated(n, c, w[some])
        gap = _maximum(model, True) - _maximum(model, False)
        out[some] = np.maximum(2.0 * gap, 0.0)
    return out


def _tails(cells_n: np.ndarray, cells_c: np.ndarray, weights: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """T_a[r, j] = sum of weights with c > j; T_b with n - c > j; T_n with n > j."""
    top = int(cells_n.max())
    j = np.arange(top)
    above_c = (cells_c[:, None] > j[None, :]).astype(float)
    above_f = ((cells_n - cells_c)[:, None] > j[None, :]).astype(float)
    above_n = (cells_n[:, None] > j[None, :]).astype(float)
    return weights @ above_c, weights @ above_f, weights @ above_n, top


class _Profile:
    """The profile log-likelihood of theta = E[p^k] for R data sets on common cells."""

    def __init__(self, cells_n: np.ndarray, cells_c: np.ndarray, weights: np.ndarray, k: int):
        self.ta, self.tb, self.tn, top = _tails(cells_n, cells_c, weights)
        self.j = np.arange(top, dtype=float)
        self.jk = np.arange(k, dtype=float)

    def loglik(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """l(a, b) up to a constant, for a, b of shape (R, T, G)."""
        j = self.j
        la = np.log(np.maximum(a, 1e-300)[..., None] + j)
        lb = np.log(np.maximum(b, 1e-300)[..., None] + j)
        ln = np.log((a + b)[..., None] + j)
        return (np.einsum("rtgj,rj->rtg", la, self.ta) + np.einsum("rtgj,rj->rtg", lb, self.tb)
                - np.einsum("rtgj,rj->rtg", ln, self.tn))

    def at(self, theta: np.ndarray, log_s: np.ndarray) -> np.ndarray:
        """The log-likelihood at theta (R, T) and log S (R, T, G).

        a is solved from prod_{j<k} (a + j) / (S + j) = theta by Newton's method in log a.
        The left side is convex and increasing in
        log a, so Newton from the right of the root converges monotonically; the start
        a = theta^(1/k) S is right of it (E[p^k] >= E[p]^k, Jensen).
        """
        s = np.exp(log_s)
        log_theta = np.log(theta)[..., None]
        target = log_theta + np.log(s[..., None] + self.jk).sum(axis=-1)
        u = log_s + log_theta / self.jk.size
        for _ in range(200):
            ea = np.exp(u)[..., None]
            terms = ea + self.jk
            step = (np.log(terms).sum(axis=-1) - target) / (ea / terms).sum(axis=-1)
            u = np.minimum(u - step, log_s)
            if np.all(np.abs(step) < 1e-9):
                break
        a = np.exp(u)
        return self.loglik(a, s - a)

    def __call__(self, theta: np.ndarray) -> np.ndarray:
        """The profile: the maximum over S of the log-likelihood at theta (R, T).

        A grid of log S of step 1/2, then one of step 1/8 over the best point's
        neighbours, and a parabola through its best three.
        """
        grid = np.broadcast_to(_LOG_S, (*theta.shape, _LOG_S.size))
        values = self.at(theta, grid)
        best = np.clip(np.argmax(values, axis=-1), 1, _LOG_S.size - 2)
        fine = _LOG_S[best][..., None] + _FINE
        values = self.at(theta, fine)
        top = np.clip(np.argmax(values, axis=-1), 1, _FINE.size - 2)[..., None]
        left, mid, right = (np.take_along_axis(values, top + shift, axis=-1)[..., 0]
                            for shift in (-1, 0, 1))
        curve = left - 2.0 * mid + right
        with np.errstate(divide="ignore", invalid="ignore"):
            peak = mid - 0.125 * (right - left) ** 2 / curve
        peak = np.where((curve < 0) & np.isfinite(peak), np.minimum(peak, mid + 0.5 *
                                                                    np.abs(right - left)), mid)
        return np.maximum(peak, values.max(axis=-1))


def _logit(x: np.ndarray) -> np.ndarray:
    return np.log(x) - np.log1p(-x)


def _expit(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def profile_ends(cells_n: Any, cells_c: Any, weights: Any, k: int, complement: bool = False,
                 confidence: float = 0.95, df: Any = None) -> tuple[np.ndarray, np.ndarray]:
    r"""The profile-likelihood interval (module docstring) for R data sets at once.

    The data sets share their cells (n, c) and differ in how many questions fall in each.
    The search is on z = logit theta in [-27.6, 27.6]: the profile on a grid of step 1,
    then three rounds of 17 points over the bracket of the maximum (steps 1/8, 1/64,
    1/512), then three over the bracket of each crossing of l_max - q^2 / 2 (steps 1/16,
    1/256, 1/4096), the ends interpolated linearly in the last bracket.

    Args:
        cells_n: samples n of each cell, shape (C,), every n >= k.
        cells_c: correct count c of each cell (0 <= c <= n), shape (C,).
        weights: questions per cell, shape (R, C) (or (C,) for one data set).
        k: the metric's k (>= 1).
        complement: False for Pass^k = E[p^k], True for Pass@k = 1 - E[(1 - p)^k]
            (Pass@k of p is 1 - Pass^k of 1 - p).
        confidence: the level.
        df: degrees of freedom of the t quantile, per data set or one; None: questions - 1.

    Returns:
        (lo, hi), arrays of shape (R,), of the model's theta (not yet widened to the
        estimate).
    """
    n = np.asarray(cells_n, dtype=int)
    c = np.asarray(cells_c, dtype=int)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    if complement:
        c = n - c
    questions = w.sum(axis=1)
    df = np.maximum(questions - 1.0, 1.0) if df is None else np.broadcast_to(
        np.asarray(df, dtype=float), questions.shape)
    q = stdtrit(df, 0.5 + 0.5 * confidence)
    drop = 0.5 * q * q
    profile = _Profile(n, c, w, int(k))
    r = w.shape[0]
    rows = np.arange(r)
    edge = float(_logit(np.array(_EDGE)))
    z = np.broadcast_to(np.linspace(edge, -edge, 56), (r, 56))
    values = profile(_expit(z))
    zoom = np.linspace(0.0, 1.0, 17)[None, :]
    # the maximum: three rounds of 17 points over the best point's neighbours
    top = np.argmax(values, axis=1)
    best, z_hat = values[rows, top], z[rows, top]
    middle = np.clip(top, 1, 54)
    start, span = z[rows, middle - 1], z[rows, middle + 1] - z[rows, middle - 1]
    for _ in range(3):
        grid = start[:, None] + span[:, None] * zoom
        found = profile(_expit(grid))
        peak = np.argmax(found, axis=1)
        better = found[rows, peak] > best
        best = np.where(better, found[rows, peak], best)
        z_hat = np.where(better, grid[rows, peak], z_hat)
        middle = np.clip(peak, 1, 15)
        start, span = grid[rows, middle - 1], grid[rows, middle + 1] - grid[rows, middle - 1]
    level = best - drop
    # the crossings: on each side of the maximum z_hat, the first-grid point nearest to it
    # with a profile below the level and the next point towards z_hat (or z_hat itself)
    # bracket the end; then three rounds of 17 points
    outside = values < level[:, None]
    left_side, right_side = z < z_hat[:, None], z > z_hat[:, None]
    below = np.where(outside & left_side, np.arange(56)[None, :], -1).max(axis=1)
    above = np.where(outside & right_side, np.arange(56)[None, :], 56).min(axis=1)
    open_low, open_high = below < 0, above > 55
    ends = []
    for far, step in ((np.clip(below, 0, 55), 1), (np.clip(above, 0, 55), -1)):
        near = np.clip(far + step, 0, 55)
        past = (z[rows, near] - z_hat) * step > 0  # the next point lies beyond z_hat
        a_z, a_v = z[rows, far], values[rows, far]
        b_z = np.where(past, z_hat, z[rows, near])
        b_v = np.where(past, best, values[rows, near])
        for _ in range(3):
            grid = a_z[:, None] + (b_z - a_z)[:, None] * zoom
            found = profile(_expit(grid))
            found[:, 0], found[:, -1] = a_v, b_v
            cross = np.clip(np.argmax(found >= level[:, None], axis=1), 1, 16)
            a_z, b_z = grid[rows, cross - 1], grid[rows, cross]
            a_v, b_v = found[rows, cross - 1], found[rows, cross]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.clip((level - a_v) / (b_v - a_v), 0.0, 1.0)
        ends.append(_expit(a_z + np.where(np.isfinite(share), share, 0.5) * (b_z - a_z)))
    lo = np.where(open_low, 0.0, ends[0])
    hi = np.where(open_high, 1.0, ends[1])
    if complement:
        lo, hi = 1.0 - hi, 1.0 - lo
    return lo, hi


def beta_binomial_interval(n_samples: Any, n_correct: Any, k: int, metric: str,
                           estimate: float | None = None, confidence: float = 0.95
                           ) -> tuple[float, float]:
    r"""The beta-binomial profile-likelihood interval of Pass^k or Pass@k over questions.

    See the module docstring for the model, the estimand (the population mean of the
    metric) and the construction.

    Args:
        n_samples: samples per question (each >= k).
        n_correct: correct samples per question.
        k: the metric's k.
        metric: Pass^k or Pass@k, by registry key or point function (``"pass^k"``,
            ``"pass_at_k"``; accuracy: Pass@k with k = 1).
        estimate: the unbiased estimate; the interval is widened to hold it (None: not).
        confidence: the level in (0, 1).

    Returns:
        (lo, hi) in [0, 1].

    Raises:
        ValueError: a question with fewer than k samples, fewer than 2 questions, a
            count outside [0, n], a metric other than the two, or a bad level.

    Example:
        >>> lo, hi = beta_binomial_interval([8] * 30, [0] * 26 + [3, 5, 8, 2], 4, "pass^k")
        >>> round(lo, 3), round(hi, 3)
        (0.014, 0.126)
    """
    n = np.asarray(n_samples, dtype=int).ravel()
    c = np.asarray(n_correct, dtype=int).ravel()
    complement = complement_moment(metric) if isinstance(metric, str) else None
    if complement is None:
        raise InputError(f"`metric` must be Pass@k or Pass^k (a registry key or point "
                         f"function); got {metric!r}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"`confidence` must be in (0, 1); got {confidence!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"`k` must be an integer >= 1; got {k!r}")
    if n.shape != c.shape or n.size < 2:
        raise InputError(f"`n_samples` and `n_correct` need one entry per question, at least "
                         f"2; got {n.size} and {c.size}")
    if np.any(n < k) or np.any(c < 0) or np.any(c > n):
        raise InputError(f"every question needs k <= n and 0 <= c <= n; got k={k}, "
                         f"n in [{n.min()}, {n.max()}], c in [{c.min()}, {c.max()}]")
    keys, weight = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    lo, hi = profile_ends(keys[:, 0], keys[:, 1], weight[None, :].astype(float), int(k),
                          complement, confidence)
    low, high = float(lo[0]), float(hi[0])
    if estimate is not None:
        low, high = min(low, float(estimate)), max(high, float(estimate))
    return low + 0.0, high + 0.0
