r"""Anytime-valid confidence sequences for a metric or a paired difference, by betting.

:func:`confidence_sequence` turns per-question values (one model's metric, or the paired
difference of two models) into intervals after every question that hold *simultaneously*:
whatever rule decides when to look and when to stop, the chance that the true mean ever
leaves its interval is at most 1 - ``confidence`` (Ville's inequality). Repeated fixed-sample t
tests do not have this property: looking after every question and stopping at the first
p < 0.05 rejects a true null far more often than 5% of the time (see ``docs/how-to/adaptive.md``).

Two nulls, two constructions (``null=``):

- ``"exchangeable"`` (the default for a pair): the null of kpass's fixed-sample sign-flip
  tests. Under "A and B are exchangeable" each question's difference d_q is symmetric about
  0 given its size |d_q| and the past, so any bet on its *sign* is fair. Shifting the centre
  (d_q symmetric about delta) and keeping the deltas not rejected gives an interval. The
  bet is the Gaussian likelihood-ratio form 1 + c tanh(theta_t (d_t - delta)) with theta_t
  from past questions only (:func:`_symmetric_log_factors`): a test martingale whatever the
  distribution of |d_q| (bounded or not), with no truncation forced by the range of d.
- ``"bounded"``: the hedged capital process of Waudby-Smith & Ramdas (2024) for means of
  bounded random variables, with aGRAPA bets (their approximate growth-rate adaptive to the
  particular alternative), truncated at ``c = 3/4``. Valid for any distribution of the
  differences on [-1, 1] with the given mean (asymmetric ones too): the weaker assumption,
  paid for in questions (``docs/how-to/adaptive.md``, "Which null").

References:
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random variables
    by betting. Journal of the Royal Statistical Society, Series B, 86(1), 1-27
    (arXiv:2010.09686): the hedged capital process (section 4), aGRAPA bets (section
    5.1), the running intersection and Ville's inequality (Appendix).
    Ramdas, A., Grunwald, P., Vovk, V. and Shafer, G. (2023). Game-theoretic statistics and
    safe anytime-valid inference. Statistical Science 38(4), 576-601 (test martingales,
    Ville's inequality; section 5, testing symmetry by betting on signs).
    Shaer, S., Maman, G. and Romano, Y. (2023). Model-X sequential testing for conditional
    independence via testing by betting. AISTATS (betting on exchangeable pairs, whose
    signs are fair coins under the null).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_choice,
    check_confidence,
    check_real,
)
from ._common import _DATASET_LEVEL, MetricLike, _check_metric, _labels, _per_question
from .align import align_runs, question_ids
from .comparison import _budgets, check_margin, margin_claim

#: Bets are truncated at c / m (upward) and c / (1 - m) (downward) on the [0, 1] scale,
#: so every factor 1 + lambda (x - m) stays >= 1 - c > 0 (Waudby-Smith & Ramdas: c in
#: [1/2, 3/4] works well). A larger c decides sooner when the values are far less spread
#: than [0, 1] (16 samples per question) and later when they are not (1 sample); no
#: valid bet reaches a normal-theory test there (docs/how-to/adaptive.md, "What it costs";
#: benchmarks/sim_sequential_stopping.py).
TRUNCATION = 0.75

#: The exchangeable null's cap: each factor is 1 + c tanh(.), so c < 1 keeps it >= 1 - c.
#: 0.9 decides a 0.5-logit shift in the fewest questions at 1, 4 and 16 samples among
#: 1/2, 3/4, 0.9 and 1 (benchmarks/sim_sequential_null.py, docs/how-to/adaptive.md).
SYMMETRIC_TRUNCATION = 0.9

#: The exchangeable bet's variance prior on the [0, 1] scale (one pseudo-question with
#: squared distance 0.0625 from the centre, i.e. 0.25 on the [-1, 1] scale of differences).
SYMMETRIC_PRIOR = 0.0625

#: The two nulls a sequence can be valid under (``null=``, ``--sequential-null``).
NULLS = ("exchangeable", "bounded")

#: Candidate means on the [0, 1] scale: 1 / GRID_STEPS apart (a difference resolution of
#: 0.001 on the [-1, 1] scale of paired differences). Bounds are rounded outwards.
GRID_STEPS = 2000

#: Columns of the (time x grid) capital computed at once.
_CHUNK = 256


@dataclass(frozen=True, repr=False)
class ConfidenceSequence:
    r"""Running anytime-valid intervals for a mean, after each question (or cluster).

    Attributes:
        metric: the metric's name.
        k: its budget (None for metrics without k).
        paired: True for the difference A - B, False for one model's metric.
        confidence: the level over the whole sequence: P(the true mean ever leaves
            [lo_t, hi_t]) <= 1 - confidence.
        units: ``"questions"`` or ``"clusters"`` (what each step adds).
        ids: the question ids (or cluster labels) in the order they entered, or None.
        estimate: the running mean after each unit.
        lo: lower bound after each unit (running intersection, so never decreasing).
        hi: upper bound after each unit (never increasing).
        half_width: the half-width that ends the sequence (None: for a pair, only the
            sign or the margin).
        decided: whether the sequence reached a verdict by its last unit.
        stop_at: the number of units after which it first did (1-based), or None.
        verdict: ``"A better"`` / ``"B better"`` (the interval left 0), ``"known to
            +-half_width"`` (it became narrow enough), with a margin the sentence of what
            was shown (:func:`kpass.stats.comparison.margin_verdict`), or None.
        null: ``"exchangeable"`` or ``"bounded"``: what the guarantee assumes.
        margin: the non-inferiority or equivalence margin (None: none).
        equivalence: True when the margin is two-sided (|A - B| < margin).
        missed_at: the first unit (1-based) at which the newest set of plausible means
            did not meet the running interval (the interval is kept, and a warning
            says so), or None. Under the guarantee this has probability <= 1 - confidence; it
            signals a broken assumption (a fixed order such as easy questions first,
            a drifting mean), not a sharper result.
    """

    metric: str
    k: int | None
    paired: bool
    confidence: float
    units: str
    ids: list[Any] | None
    estimate: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    half_width: float | None
    decided: bool
    stop_at: int | None
    verdict: str | None
    missed_at: int | None = None
    null: str = "bounded"
    margin: float | None = None
    equivalence: bool = False

    def __str__(self) -> str:
        """The metric and :meth:`summary`: one line, as ``kpass compare --sequential`` ends."""
        at = "" if self.k is None else f" at k={self.k}"
        what = "A - B" if self.paired else "the mean"
        return f"{self.metric}{at}, {what}: {self.summary()}"

    __repr__ = __str__

    @property
    def steps(self) -> int:
        """How many units the sequence has seen."""
        return int(self.lo.size)

    def summary(self) -> str:
        """The running verdict in one line (``decided after 140 questions: A better ...``).

        Or ``not yet: -0.020 to 0.090 after 60 questions`` while undecided.
        """
        if self.steps == 0:
            return "not yet: no questions"
        if self.stop_at is not None:
            at = self.stop_at - 1
            return (f"decided after {self.stop_at} {self.units}: {self.verdict} "
                    f"({self.lo[at]:.3f} to {self.hi[at]:.3f}; now {self.lo[-1]:.3f} to "
                    f"{self.hi[-1]:.3f} after {self.steps})")
        return f"not yet: {self.lo[-1]:.3f} to {self.hi[-1]:.3f} after {self.steps} {self.units}"

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (arrays as lists; JSON-safe)."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = value.tolist() if isinstance(value, np.ndarray) else value
        return out


def _running_estimates(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The predictable mean and variance before each x_t along the last axis.

    mu_{t-1} = (1/2 + sum_{i<t} x_i) / t and s2_{t-1} = (1/4 + sum_{i<t} (x_i - mu_i)^2) / t
    with mu_i = (1/2 + sum_{j<=i} x_j) / (i + 1) (Waudby-Smith & Ramdas, eq. 26-27).
    """
    position = np.arange(1, x.shape[-1] + 1, dtype=float)
    sums = np.cumsum(x, axis=-1)
    before = sums - x
    mean_before = (0.5 + before) / position
    mean_after = (0.5 + sums) / (position + 1.0)
    squares = np.cumsum(np.square(x - mean_after), axis=-1)
    var_before = (0.25 + squares - np.square(x - mean_after)) / position
    return mean_before, var_before


def _log_factors(x: np.ndarray, m: Any, mean_before: np.ndarray, var_before: np.ndarray,
                 up_cap: Any, down_cap: Any) -> tuple[np.ndarray, np.ndarray]:
    """log(1 + lambda+ (x - m)) and log(1 - lambda- (x - m)) with the truncated aGRAPA bets."""
    gap = mean_before - m
    bet = gap / (var_before + gap * gap)
    step = x - m
    up = np.log1p(np.minimum(np.maximum(bet, 0.0), up_cap) * step)
    down = np.log1p(-np.minimum(np.maximum(-bet, 0.0), down_cap) * step)
    return up, down


def _symmetric_log_factors(x: np.ndarray, m: Any, position: np.ndarray,
                           sums_before: np.ndarray, squares_before: np.ndarray,
                           cap: float) -> np.ndarray:
    r"""log(1 + c tanh(theta_t (x_t - m))): the exchangeable null's bet on x_t's side of m.

    theta_t = mu_{t-1}(m) / v_{t-1}(m), with mu_{t-1}(m) = sum_{i<t} (x_i - m) / t (shrunk
    towards the null by one pseudo-question at m) and v_{t-1}(m) = (v0 + sum_{i<t}
    (x_i - m)^2) / t, v0 = :data:`SYMMETRIC_PRIOR`: the aGRAPA growth-rate bet mean /
    second moment, put through tanh, the form of the likelihood ratio of N(mu, s^2) against
    its reflection (2 phi(y - mu) / (phi(y - mu) + phi(y + mu)) = 1 + tanh(mu y / s^2)).
    """
    past = position - 1.0
    gap = (sums_before - past * m) / position
    second = (SYMMETRIC_PRIOR + squares_before - 2.0 * m * sums_before
              + past * m * m) / position
    return np.log1p(cap * np.tanh(gap / second * (x - m)))


def _moments_before(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position t (1-based), sum_{i<t} x_i and sum_{i<t} x_i^2 along the last axis."""
    position = np.arange(1, x.shape[-1] + 1, dtype=float)
    sums = np.cumsum(x, axis=-1) - x
    squares = np.cumsum(x * x, axis=-1) - x * x
    return position, sums, squares


def log_capital(x: np.ndarray, m: float, *, truncation: float | None = None,
                null: str = "bounded") -> np.ndarray:
    r"""Log K_t(m) of the capital process along the last axis of ``x``.

    The process :func:`betting_bounds` tests each candidate mean (``"bounded"``) or centre
    of symmetry (``"exchangeable"``) with, for one candidate ``m`` and any number of
    independent paths at once (rows of ``x``): the sequence rejects m at the first t with
    log K_t(m) >= log(1 / alpha). Useful to simulate the error rate of many sequences
    quickly.

    Formula:
        bounded: K_t(m) = 1/2 prod (1 + lambda+_i (x_i - m)) + 1/2 prod (1 - lambda-_i
        (x_i - m)), truncated aGRAPA bets (see :func:`_bounds`). exchangeable:
        K_t(m) = prod_{i<=t} (1 + c tanh(theta_i (x_i - m))) with theta_i predictable
        (:func:`_symmetric_log_factors`): a non-negative martingale whenever each x_t is
        symmetric about m given |x_t - m| and the past, because tanh is odd.

    Args:
        x: values in [0, 1], shape (..., T).
        m: the candidate mean (centre), in (0, 1).
        truncation: c in (0, 1); default :data:`TRUNCATION` (bounded) or
            :data:`SYMMETRIC_TRUNCATION` (exchangeable).
        null: ``"bounded"`` or ``"exchangeable"``.

    Returns:
        log K_t(m), the shape of ``x``.
    """
    x = np.asarray(x, dtype=float)
    if null == "exchangeable":
        cap = SYMMETRIC_TRUNCATION if truncation is None else truncation
        factors = _symmetric_log_factors(x, m, *_moments_before(x), cap)
        return np.cumsum(factors, axis=-1)
    cap = TRUNCATION if truncation is None else truncation
    mean_before, var_before = _running_estimates(x)
    up, down = _log_factors(x, m, mean_before, var_before, cap / m, cap / (1.0 - m))
    return np.logaddexp(np.cumsum(up, axis=-1), np.cumsum(down, axis=-1)) - math.log(2.0)


def betting_bounds(x: np.ndarray, alpha: float, *, truncation: float | None = None,
                   steps: int = GRID_STEPS, null: str = "bounded"
                   ) -> tuple[np.ndarray, np.ndarray]:
    r"""Running bounds of the betting confidence sequence (see :func:`_bounds`)."""
    lo, hi, _ = _bounds(x, alpha, truncation=truncation, steps=steps, null=null)
    return lo, hi


def _bounds(x: np.ndarray, alpha: float, *, truncation: float | None = None,
            steps: int = GRID_STEPS, null: str = "bounded"
            ) -> tuple[np.ndarray, np.ndarray, int | None]:
    r"""Running bounds of the hedged-capital confidence sequence for a mean in [0, 1].

    Formula:
        For a candidate mean m, with mu_{t-1} = (1/2 + sum_{i<t} x_i) / t and
        s2_{t-1} = (1/4 + sum_{i<t} (x_i - mu_i)^2) / t (mu_i including x_i), the aGRAPA
        bet lambda_t(m) = (mu_{t-1} - m) / (s2_{t-1} + (mu_{t-1} - m)^2) splits into
        lambda+ = min(max(lambda, 0), c / m) and lambda- = min(max(-lambda, 0), c / (1 - m)).
        K_t(m) = 1/2 prod_{i<=t} (1 + lambda+_i (x_i - m)) + 1/2 prod_{i<=t}
        (1 - lambda-_i (x_i - m)) is a non-negative martingale with K_0 = 1 when m is the
        true mean, so P(exists t: K_t(m) >= 1/alpha) <= alpha (Ville). The set
        {m : K_t(m) < 1/alpha} on the grid m = j / steps, widened to the neighbouring grid
        points, and intersected over time, gives [lo_t, hi_t].

        exchangeable: the same with K_t(m) = prod_{i<=t} (1 + c tanh(theta_i(m)
        (x_i - m))) (:func:`_symmetric_log_factors`), a test martingale when the x_i are
        symmetric about m given their distances |x_i - m| and the past; [lo_t, hi_t] then
        covers the centre of symmetry (for a pair: the shift delta such that A - B - delta
        is sign-symmetric, which is then the mean difference). The hull of the kept set
        is reported (a wider set: still valid).

    Args:
        x: the values in [0, 1], in the order they arrive.
        alpha: the error rate over the whole sequence, in (0, 1).
        truncation: c in (0, 1) (default by ``null``, as :func:`log_capital`).
        steps: grid resolution (candidate means j / steps).
        null: ``"bounded"`` or ``"exchangeable"``.

    Returns:
        ``(lo, hi, missed_at)``: arrays of ``x.size`` bounds, and the first step (1-based)
        at which the new set {m : K_t(m) < 1/alpha} did not meet the running interval
        (None if never). There the running interval is kept, but the event itself says
        an assumption failed (the values are not drawn with a common mean, e.g. sorted):
        under the guarantee it has probability at most alpha.
    """
    x = np.asarray(x, dtype=float)
    t_total = x.size
    grid = np.arange(1, steps) / steps  # interior candidates; 0 and 1 are never tested
    threshold = math.log(1.0 / alpha)
    symmetric = null == "exchangeable"
    if truncation is None:
        truncation = SYMMETRIC_TRUNCATION if symmetric else TRUNCATION
    mean_before, var_before = _running_estimates(x)
    position, sums_before, squares_before = _moments_before(x)
    up_cap, down_cap = truncation / grid, truncation / (1.0 - grid)
    log_up = np.zeros(grid.size)
    log_down = np.zeros(grid.size)
    lo = np.empty(t_total)
    hi = np.empty(t_total)
    low, high = 0.0, 1.0
    missed_at: int | None = None
    start, chunk = 0, 8
    while start < t_total:
        stop = min(start + chunk, t_total)
        chunk = min(2 * chunk, _CHUNK)
        # Only the candidates inside the current interval can still matter: the running
        # intersection never widens, so the capital of the others is not needed again.
        first = max(int(np.searchsorted(grid, low, side="left")) - 1, 0)
        last = min(int(np.searchsorted(grid, high, side="right")) + 1, grid.size)
        cols = slice(first, last)
        m = grid[cols]
        if symmetric:
            up = np.cumsum(_symmetric_log_factors(
                x[start:stop, None], m[None, :], position[start:stop, None],
                sums_before[start:stop, None], squares_before[start:stop, None],
                truncation), axis=0)
            up += log_up[cols]
            log_up[cols] = up[-1]
            kept: np.ndarray = up < threshold
        else:
            up, down = _log_factors(x[start:stop, None], m[None, :],
                                    mean_before[start:stop, None],
                                    var_before[start:stop, None], up_cap[cols], down_cap[cols])
            up = np.cumsum(up, axis=0)
            down = np.cumsum(down, axis=0)
            up += log_up[cols]
            down += log_down[cols]
            log_up[cols], log_down[cols] = up[-1], down[-1]
            kept = np.logaddexp(up, down) - math.log(2.0) < threshold
        alive = np.asarray(kept.any(axis=1))
        low_index = first + kept.argmax(axis=1)
        high_index = first + (last - first - 1) - kept[:, ::-1].argmax(axis=1)
        for row in range(stop - start):
            if alive[row]:  # widened to the next grid point outward (conservative)
                new_low = grid[low_index[row] - 1] if low_index[row] > 0 else 0.0
                new_high = (grid[high_index[row] + 1] if high_index[row] + 1 < grid.size
                            else 1.0)
                if max(low, new_low) <= min(high, new_high):
                    low, high = max(low, new_low), min(high, new_high)
                elif missed_at is None:
                    missed_at = start + row + 1
            elif missed_at is None:  # every candidate rejected: the set is empty
                missed_at = start + row + 1
            lo[start + row], hi[start + row] = low, high
        start = stop
    return lo, hi, missed_at


def confidence_sequence(metric: MetricLike, R_a: Any, R_b: Any = None, *args: Any,
                        confidence: float = 0.95, clusters: Any = None, order: Any = None,
                        half_width: float | None = None, null: str | None = None,
                        margin: float | None = None, equivalence: bool = False,
                        **kwargs: Any) -> ConfidenceSequence | list[ConfidenceSequence]:
    r"""Anytime-valid confidence sequence of a metric, or of a paired difference A - B.

    Questions are taken one at a time (in the order of ``R_a``, or ``order``) and after
    each one the interval of the mean per-question value (of s_q(A) - s_q(B) when
    ``R_b`` is given) is updated. The intervals hold simultaneously: you may look after
    every question and stop whenever you like (say, at ``stop_at``) and the interval you
    stop at still covers with probability >= ``confidence``.

    Formula:
        Paired: d_q = s_q(A) - s_q(B) in [-1, 1], rescaled x_q = (d_q + 1) / 2 in [0, 1];
        one model: x_q = s_q in [0, 1]. The bounds are :func:`betting_bounds` of the x_q
        mapped back, under ``null``. The sequence is *decided* at the first t where 0 is
        outside [lo_t, hi_t] (paired: the sign of A - B is known) or (hi_t - lo_t) / 2 <=
        ``half_width``. With a ``margin`` (B the new model, A the reference): at the first
        t with hi_t < margin ("B is not worse than A by more than margin") or lo_t >=
        margin ("B is worse than A by more than margin"); with ``equivalence``, at the
        first t with -margin < lo_t and hi_t < margin ("A and B are within +-margin")
        or [lo_t, hi_t] outside (-margin, margin) ("A and B differ by more than margin").
        Each is a statement about the same running interval, so it errs with
        probability at most 1 - confidence (for the one-sided claim: conservatively, the
        interval spends its error on both sides).

    What the guarantee covers:
        ``null="bounded"``: the questions are treated as drawn independently from a
        population of questions (the setting of Waudby-Smith & Ramdas: i.i.d. with a
        common mean, or more generally a constant conditional mean given the past); the
        interval is for that population mean. ``null="exchangeable"`` (a pair only, the
        default there): each difference is assumed symmetric about the interval's centre
        given its size and the past questions: the null of kpass's fixed-sample sign-flip
        tests (A and B exchangeable on each question), shifted. It holds for any
        distribution of |d_q|; where the differences are skewed it is a statement about
        the centre of symmetry, which then need not be the mean (equal means with skewed
        differences can be "decided", as the fixed-sample sign-flip and t tests do at
        10-20 questions). A finite benchmark sampled *without* replacement in a random
        order satisfies either for its super-population; in a fixed, non-random order
        (easy questions first, say) the guarantee does not hold for the benchmark's mean: shuffle
        (``order=``) before you start. The per-question values include their own
        sampling noise (n samples each), so no separate within-question term is needed.

    Args:
        metric: a point function of the family with per-question values in [0, 1]
            (``kpass.pass_at_k``, ``kpass.pass_hat_k``, ``kpass.avg``, ...).
        R_a: model A's outcomes (binary lists or ``BinaryCounts``; with ids, B is matched
            by id).
        R_b: model B's outcomes on the same questions, or None for A's metric alone.
        *args: the metric's other positional arguments (k first; several k give a list).
        confidence: the level over the whole sequence, in (0, 1) (its error rate
            alpha = 1 - confidence).
        clusters: a label per question of ``R_a``: each cluster becomes one unit (the mean
            of its questions' values), in order of its first question. The interval is
            then for the mean over *clusters* (each cluster weighs the same, whatever its
            size), and the guarantee assumes clusters drawn independently.
        order: the order the questions are taken in: a permutation of the ids when ``R_a``
            carries ids (int ids too), else of the row positions 0..M-1.
        half_width: stop once the half-width is at most this. Default None: for a pair,
            decide only the sign (or the margin); for one model, 0.02.
        null: ``"exchangeable"`` (the default for a pair: the sign-flip null of
            :func:`kpass.compare`, decided in fewer questions) or ``"bounded"`` (any
            distribution of the differences with the given mean; the only choice, and the
            default, for one model).
        margin: a pair's non-inferiority margin in (0, 1): decide whether B (the new
            model) is worse than A (the reference) by less than ``margin``, or by more
            (:func:`kpass.stats.comparison.check_margin`). None: decide the sign.
        equivalence: with ``margin``, decide |A - B| < margin (both sides).
        **kwargs: the metric's keyword arguments (``short="skip"``: skipped questions are
            left out of the sequence).

    Returns:
        A :class:`ConfidenceSequence` (a list of them when k is a sequence).

    Raises:
        TypeError: not a point function, or a dataset-level blend (no per-question values).
        ValueError: per-question values outside [0, 1], a bad ``confidence``,
            ``half_width``, ``null``, ``margin`` (or ``equivalence`` without one, or either
            for one model), ``order`` or ``clusters``, runs on different questions.

    References:
        Waudby-Smith & Ramdas (2024), JRSS-B 86(1), 1-27 (arXiv:2010.09686).

    Example:
        >>> import kpass
        >>> A = [[1, 1, 1, 1], [0, 1, 1, 1]] * 30
        >>> B = [[0, 0, 0, 1], [0, 0, 1, 0]] * 30
        >>> cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1)
        >>> cs.decided, cs.stop_at, cs.verdict, cs.null
        (True, 8, 'A better', 'exchangeable')
        >>> round(float(cs.lo[-1]), 3), round(float(cs.hi[-1]), 3)
        (0.573, 0.679)
        >>> bounded = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, null="bounded")
        >>> bounded.stop_at, round(float(bounded.lo[-1]), 3), round(float(bounded.hi[-1]), 3)
        (11, 0.481, 0.687)
    """
    name, metric = _check_metric(metric, "confidence_sequence", args, kwargs)
    if name in _DATASET_LEVEL:
        raise ArgumentTypeError(f"`metric` must have per-question values; kpass.{name} is a "
                                "dataset-level blend, which a confidence sequence cannot "
                                "update question by question")
    confidence = check_confidence(confidence)
    paired = R_b is not None
    if half_width is not None:
        half_width = check_real(half_width, "half_width", low=0.0, low_open=True)
    elif not paired:
        half_width = 0.02
    null = check_choice("exchangeable" if null is None and paired else
                        "bounded" if null is None else null, "null", NULLS)
    if not paired and (null != "bounded" or margin is not None or equivalence is not False):
        raise InputError("one model's sequence takes only null='bounded' (a mean of values in "
                         "[0, 1] has no centre of symmetry to assume) and no margin or "
                         f"equivalence (they compare two models); got null={null!r}, "
                         f"margin={_show(margin)}, equivalence={_show(equivalence)}")
    margin = check_margin(margin, equivalence)
    ids = question_ids(R_a)
    if paired:
        R_a, R_b = align_runs([R_a, R_b], ["`R_a`", "`R_b`"], verb="compare").runs
    per_a, many = _per_question(metric, name, R_a, args, kwargs)
    per_b = _per_question(metric, name, R_b, args, kwargs)[0] if paired else None
    m = per_a[0].size
    if per_b is not None and per_b[0].size != m:
        raise InputError(f"`R_a` and `R_b` must score the same questions; got {m} and "
                         f"{per_b[0].size} questions (give question ids to match by id)")
    positions = _order(order, m, ids)
    codes = _labels(clusters, m)
    budgets = _budgets(args, len(per_a), name)
    results = []
    for index, values_a in enumerate(per_a):
        values = values_a - per_b[index] if per_b is not None else values_a
        for label, column in (("R_a", values_a), ("R_b", None if per_b is None
                                                          else per_b[index])):
            if column is not None:
                finite = column[np.isfinite(column)]
                if finite.size and (finite.min() < 0.0 or finite.max() > 1.0):
                    raise InputError(f"{name}'s per-question values of `{label}` must lie in "
                                     f"[0, 1] for a betting confidence sequence; got "
                                     f"{finite.min():g} to {finite.max():g}")
        ordered = values[positions]
        used = np.isfinite(ordered)
        unit_ids = None if ids is None else [ids[i] for i in positions[used]]
        ordered = ordered[used]
        units = "questions"
        if codes is not None:
            ordered, unit_ids = _cluster_units(ordered, codes[positions][used],
                                               np.asarray(clusters, dtype=object)[positions][used])
            units = "clusters"
        x = (ordered + 1.0) / 2.0 if paired else ordered
        missed_at = None
        if x.size:
            lo, hi, missed_at = _bounds(x, 1.0 - confidence, null=null)
        else:
            lo, hi = np.empty(0), np.empty(0)
        if missed_at is not None:
            warnings.warn(
                f"kpass.confidence_sequence({name}): after {missed_at} {units} the values no "
                "longer fit the running interval (no mean it still held was plausible); the "
                "interval is kept, but this happens with probability <= 1 - confidence only "
                "when the values share one mean in a random order: shuffle the questions "
                "(order=) or check for drift", UserWarning, stacklevel=2)
        if paired:  # rounded: the grid's j / steps mapped back exactly, without 1e-16 noise
            lo, hi = np.round(2.0 * lo - 1.0, 12), np.round(2.0 * hi - 1.0, 12)
        estimate = np.cumsum(ordered) / np.arange(1, ordered.size + 1)
        stop_at, verdict = _decision(lo, hi, paired, half_width, margin, equivalence)
        results.append(ConfidenceSequence(
            metric=name, k=budgets[index], paired=paired, confidence=confidence,
            units=units,
            ids=unit_ids, estimate=estimate, lo=lo, hi=hi, half_width=half_width,
            decided=stop_at is not None, stop_at=stop_at, verdict=verdict,
            missed_at=missed_at, null=null, margin=margin, equivalence=equivalence))
    return results if many else results[0]


def _decision(lo: np.ndarray, hi: np.ndarray, paired: bool, half_width: float | None,
              margin: float | None = None, equivalence: bool = False
              ) -> tuple[int | None, str | None]:
    """The first unit (1-based) at which the sequence decided, and its verdict."""
    nothing = np.zeros(lo.size, dtype=bool)
    if margin is not None:  # the claim shown, or its opposite shown
        shown = (lo > -margin) & (hi < margin) if equivalence else hi < margin
        against = (lo > margin) | (hi < -margin) if equivalence else lo > margin
        signs = shown | against
    else:
        shown = against = nothing
        signs = (lo > 0.0) | (hi < 0.0) if paired else nothing
    narrow = (hi - lo) / 2.0 <= half_width if half_width is not None else nothing
    hits = np.flatnonzero(signs | narrow)
    if not hits.size:
        return None, None
    at = int(hits[0])
    if margin is not None and signs[at]:
        return at + 1, margin_claim(margin, equivalence, bool(shown[at]))
    if signs[at]:
        return at + 1, "A better" if lo[at] > 0.0 else "B better"
    return at + 1, f"known to +-{half_width:g}"


def _order(order: Any, m: int, ids: list[Any] | None) -> np.ndarray:
    """Row positions in the order the questions are taken (a permutation of 0..M-1)."""
    if order is None:
        return np.arange(m)
    if isinstance(order, (str, bytes)) or not isinstance(order, (Sequence, np.ndarray)):
        raise ArgumentTypeError(f"`order` must be a sequence of row positions or ids; got "
                                f"{_show(order)} ({type(order).__name__})")
    items = list(order)
    if len(items) != m:
        raise InputError(f"`order` must list each of the {m} questions once; got {len(items)} "
                         "entries")
    if ids is not None:  # with ids, `order` names ids (int ids included), never positions
        where = {question: i for i, question in enumerate(ids)}
        missing = [v for v in items if v not in where]
        if missing:
            raise InputError(f"`order` names ids that `R_a` does not have, e.g. {missing[:3]}")
        positions = np.array([where[v] for v in items], dtype=np.intp)
    else:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
            raise ArgumentTypeError("`order` must hold int row positions (or ids, when `R_a` "
                                    f"carries ids); got e.g. {_show(items[:3])}")
        positions = np.array(items, dtype=np.intp)
    if m and (np.unique(positions).size != m or positions.min() < 0 or positions.max() >= m):
        raise InputError(f"`order` must be a permutation of the {m} questions (each once); "
                         f"got repeated or out-of-range entries: order={_show(order)}")
    return positions


def _cluster_units(values: np.ndarray, codes: np.ndarray, labels: np.ndarray
                   ) -> tuple[np.ndarray, list[Any]]:
    """Per-cluster means, clusters in order of their first question."""
    present, first = np.unique(codes, return_index=True)
    sums = np.bincount(codes, weights=values)
    sizes = np.bincount(codes)
    means = sums[present] / sizes[present]
    order = np.argsort(first, kind="stable")
    return means[order], [labels[first[i]] for i in order]
