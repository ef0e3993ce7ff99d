"""Paired comparison of two models.

:func:`compare` and :class:`Comparison` (Miller 2024, section 4; Student's t and the
sign-flip test for few questions).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.special import ndtr

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_real
from .._core.moments.prior import fit_beta_prior
from ..families import function
from ..registry import of_function
from ._common import (
    _CREDIT_METRICS,
    _DATASET_LEVEL,
    Metric,
    MetricLike,
    _check_metric,
    _clt_se,
    _cluster_df,
    _counts_of,
    _dataset_statistic,
    _jackknife,
    _labels,
    _need_two,
    _per_question,
    _state_keys,
    check_options,
)
from .align import align_runs, subset_labels
from .intervals import interval
from .small_sample import (
    sign_flip_p,
    small_sample_problems,
    t_test,
    warn_small,
)

# ----------------------------------------------------------------------------- comparison


@dataclass(frozen=True, repr=False)
class Comparison:
    """Paired comparison of two models on the same questions, for one metric and k.

    Attributes:
        metric: the metric's name (e.g. ``"pass_at_k"``).
        k: the budget (None for metrics without k).
        a: metric of model A over the questions both were scored on.
        b: metric of model B over the same questions.
        difference: a - b (the mean of the per-question differences).
        se: paired standard error of the difference over questions (clustered when
            clusters were given; jackknife for dataset-level blends).
        lo: lower end of the ``confidence`` interval of the difference
            (:func:`kpass.stats.intervals.interval` on [-1, 1]: difference -/+ q se, q the
            quantile of Student's t with ``df`` degrees of freedom (of the normal when
            ``reference`` is ``"normal"``); near -1 or 1 (where that reaches past them) a
            score interval; an exact bound when se = 0; never of width 0).
        hi: upper end.
        p_value: two-sided p-value of "no difference" (t test on difference / se; when
            se = 0 and the difference is not 0, the exact sign-flip p-value).
        se_unpaired: sqrt(se_a^2 + se_b^2), what treating the runs as independent gives.
        correlation: Pearson correlation of the two models' per-question values (None
            when one of them is constant, or for dataset-level blends).
        prob_a_better: posterior probability that A's metric exceeds B's on these very
            questions (questions fixed; from the two ``_ci`` posteriors).
        mde: minimum detectable effect: (q_{1-alpha/2} + q_{0.8}) se with t (or normal)
            quantiles, the smallest true difference this comparison detects with 80% power
            at alpha = 1 - confidence. When se = 0 (every question, or cluster, agrees)
            the smallest difference the exact sign test detects with 80% power (A right
            and B wrong on that share of questions, ties elsewhere)
            (:func:`kpass.stats.small_sample.exact_mde`: 0.67 at 10 questions, 0.25 at 30;
            inf below 6 questions at 95%), never 0.
        questions: how many questions the comparison used.
        confidence: the interval's level.
        se_a: model A's standard error over the same questions (clustered like ``se``).
        se_b: model B's.
        df: degrees of freedom of the t reference: questions - 1, or the Bell-McCaffrey
            df of the CR2 standard error when clustered (G - 1 for G equal clusters; a float
            otherwise); None for the normal reference.
        p_exact: two-sided sign-flip permutation p-value of the per-question (per-cluster)
            differences, exact up to 20 units and Monte Carlo (20000 flips, fixed seed)
            beyond (:func:`kpass.stats.small_sample.sign_flip_p`); None for dataset-level
            blends, which have no per-question differences. It tests that the differences
            are symmetric about 0 (the runs exchangeable on each question), not only a zero
            mean: with equal means and skewed differences it rejects more often than alpha
            (8-14% at 20 questions in kpass's simulations; docs/explanation/statistics.md).
        reference: ``"t"`` or ``"normal"``, the reference distribution of lo, hi, p_value
            and mde.
        a_only: with one 0/1 sample per question (binary outcomes), the questions A got
            right and B wrong (the discordant pairs that favour A); None otherwise.
        b_only: the questions B got right and A wrong.
        method: which interval ``lo``, ``hi`` are: ``"t"``, ``"score"`` or ``"exact"``
            (:mod:`kpass.stats.intervals`).
        margin: the non-inferiority (or equivalence) margin tested, or None. B is the new
            model, A the reference.
        equivalence: True when the margin was tested on both sides (|A - B| < margin).
        p_margin: with a margin, the p-value of its claim (:func:`margin_p`): one-sided
            t test of H0: A - B >= margin (non-inferiority: B worse by at least the
            margin), or the larger of the two one-sided p-values (equivalence, TOST); the
            claim is shown when p_margin < 1 - confidence. None without a margin.
        p_margin_exact: the sign-flip counterpart of ``p_margin`` (as ``p_exact`` is of
            ``p_value``; :func:`margin_flip_p`): the one-sided sign-flip test of the shifted
            per-question (per-cluster) differences, H0 "they are symmetric about the
            margin"; for equivalence the larger of the two one-sided ones. None without a
            margin or for dataset-level blends.
    """

    metric: str
    k: int | None
    a: float
    b: float
    difference: float
    se: float
    lo: float
    hi: float
    p_value: float
    se_unpaired: float
    correlation: float | None
    prob_a_better: float
    mde: float
    questions: int
    confidence: float
    se_a: float | None = None
    se_b: float | None = None
    df: int | float | None = None
    p_exact: float | None = None
    reference: str = "t"
    method: str = "t"
    a_only: int | None = None
    b_only: int | None = None
    margin: float | None = None
    equivalence: bool = False
    p_margin: float | None = None
    p_margin_exact: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def __str__(self) -> str:
        """Two lines: the difference and its interval; its se, what pairing bought, p.

        Example:
            >>> import kpass, warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore", kpass.SmallSampleWarning)
            ...     print(kpass.compare(kpass.pass_at_k, [[1], [1], [0], [1]],
            ...                         [[0], [1], [1], [0]], 1))
            pass_at_k at k=1 on 4 questions: A 0.750, B 0.500, A - B 0.250, 95% [-0.764, 0.946]
            se 0.479 (0.382 unpaired, r -0.577), p = 0.638; A only right 2, B only right 1
        """
        at = "" if self.k is None else f" at k={self.k}"
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        r = "n/a" if self.correlation is None else f"{self.correlation:.3f}"
        second = f"se {self.se:.3f} ({self.se_unpaired:.3f} unpaired, r {r}), {p}"
        if self.a_only is not None:
            second += f"; A only right {self.a_only}, B only right {self.b_only}"
        third = "" if self.margin is None else "\n" + self.margin_verdict()
        return (f"{self.metric}{at} on {self.questions} questions: A {self.a:.3f}, B "
                f"{self.b:.3f}, A - B {self.difference:.3f}, {self.confidence * 100:g}% "
                f"[{self.lo:.3f}, {self.hi:.3f}]\n{second}{third}")

    def margin_verdict(self) -> str:
        """What the margin test showed, in words; "" without a margin.

        ``B is not worse than A by more than 0.02 (one-sided, 95%, p = 0.012)``, or ``not
        shown: ...`` when p_margin >= 1 - confidence.
        """
        return margin_words(self)

    __repr__ = __str__


def _posterior_pair(metric: Metric, name: str, R: Any, used: np.ndarray, args: tuple[Any, ...],
                    kwargs: dict[str, Any], prior: str = "uniform"
                    ) -> list[tuple[float, float]]:
    """(mu, sigma) per k from the metric's ``_ci`` companion, over the questions used.

    ``prior="empirical"`` gives the companion the Beta(alpha0, beta0) fitted to this run's
    questions used (:func:`kpass._core.moments.prior.fit_beta_prior`) in place of Beta(1, 1);
    ``prior=(a, b)`` gives it Beta(a, b).
    """
    companion = function(name + "_ci")
    accepted = inspect.signature(companion).parameters
    options = {key: value for key, value in kwargs.items() if key in accepted}
    if not used.all():
        R = _counts_of(R).select(used)
    if prior == "empirical":
        if "alpha0" not in accepted:
            raise InputError(f'`prior="empirical"` fits a Beta prior to binary outcomes; '
                             f"kpass.{name}_ci has no Beta prior (pass prior=\"uniform\")")
        options["alpha0"], options["beta0"] = fit_beta_prior(_counts_of(R))
    elif isinstance(prior, tuple):  # an (a, b) Beta pair, checked by check_options
        if "alpha0" not in accepted:
            raise InputError(f"`prior={prior}` is a Beta prior of binary outcomes; "
                             f"kpass.{name}_ci has no Beta prior (pass prior=\"uniform\")")
        options["alpha0"], options["beta0"] = prior
    result = companion(R, *args, **options)
    rows = result if isinstance(result, list) else [result]
    return [(float(row[0]), float(row[1])) for row in rows]


def _prob_greater(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    spread = math.hypot(sigma_a, sigma_b)
    if spread == 0.0:
        return 1.0 if mu_a > mu_b else 0.0 if mu_a < mu_b else 0.5
    return float(ndtr((mu_a - mu_b) / spread))


def check_margin(margin: Any, equivalence: Any = False) -> float | None:
    """A non-inferiority or equivalence margin: a finite float in (0, 1), or None.

    Args:
        margin: the margin on the metric's 0-1 scale (0.02: two points), or None.
        equivalence: True for an equivalence margin (needs ``margin``).

    Returns:
        The margin as a float, or None.

    Raises:
        ValueError: ``margin`` is not in (0, 1) or not finite, or ``equivalence`` without
            a margin.
        TypeError: ``margin`` is not a real number, ``equivalence`` not a bool.
    """
    if not isinstance(equivalence, (bool, np.bool_)):
        raise ArgumentTypeError(f"`equivalence` must be True or False; got "
                                f"equivalence={_show(equivalence)}")
    if margin is None:
        if equivalence:
            raise InputError("`equivalence` needs a `margin` (the largest |A - B| that counts "
                             "as equivalent, e.g. margin=0.02)")
        return None
    return check_real(margin, "margin", low=0.0, high=1.0, low_open=True, high_open=True)


def margin_claim(margin: float, equivalence: bool, shown: bool = True, unit: str = "") -> str:
    """The claim a margin tests, in words (B is the new model, A the reference).

    ``shown`` False gives the opposite claim a sequence can also reach: "B is worse than A
    by more than 0.02", "A and B differ by more than 0.02". ``unit`` follows the number
    (``" points"`` in percent tables).
    """
    size = f"{margin:g}{unit}"
    if equivalence:
        return (f"A and B are within +-{size} of each other" if shown
                else f"A and B differ by more than {size}")
    return (f"B is not worse than A by more than {size}" if shown
            else f"B is worse than A by more than {size}")


def margin_p(difference: float, se: float, df: int | float | None, units: int,
             margin: float, equivalence: bool = False) -> float:
    r"""The p-value of a margin's claim from the difference A - B and its se.

    Formula:
        Non-inferiority (B the new model is not worse than A by ``margin`` or more):
        H0: mean(A - B) >= margin, p = T_df((difference - margin) / se) (Phi for
        ``df`` None). Equivalence (two one-sided tests, Schuirmann 1987): the larger of
        that p and T_df(-(difference + margin) / se) (H0: mean(A - B) <= -margin). With
        se = 0 (every unit the same difference) the exact one-sided sign test: 2^-units
        when the difference lies strictly inside the claim, else 1.

    Args:
        difference: A - B.
        se: its standard error.
        df: the t reference's degrees of freedom, None for the normal.
        units: questions (or clusters): for the se = 0 case.
        margin: the margin, in (0, 1).
        equivalence: test both sides.

    Returns:
        The p-value in (0, 1].

    References:
        Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the
        power approach for assessing the equivalence of average bioavailability. Journal
        of Pharmacokinetics and Biopharmaceutics 15(6), 657-680.
    """
    from scipy.stats import t as student

    def below(z: float) -> float:  # P(T <= z)
        return float(ndtr(z)) if df is None else float(student.cdf(z, df))

    def one(shift: float) -> float:  # H0: mean >= shift, evidence: difference well below
        if se == 0.0:
            return 0.5 ** units if difference < shift else 1.0
        return below((difference - shift) / se)

    upper = one(margin)
    if not equivalence:
        return upper
    if se == 0.0:
        lower = 0.5 ** units if difference > -margin else 1.0
    else:
        lower = below(-(difference + margin) / se)
    return max(upper, lower)


def margin_flip_p(differences: np.ndarray, codes: np.ndarray | None, margin: float,
                  equivalence: bool = False) -> float:
    r"""The sign-flip counterpart of :func:`margin_p`, from the per-question differences.

    Formula:
        Non-inferiority (H0: A - B >= margin): the one-sided sign-flip p-value
        (:func:`kpass.stats.small_sample.sign_flip_p`, ``alternative="greater"``) of the
        shifted differences x_u = margin size_u - sum_{q in u} d_q (size_u the questions of
        unit u: 1, or a cluster's size), under H0 "each x_u is symmetric about 0" (the
        differences symmetric about the margin); exact enumeration up to
        :data:`~kpass.stats.small_sample.EXACT_UP_TO` units, else seeded Monte Carlo
        (floor 1 / (1 + :data:`~kpass.stats.small_sample.FLIPS`)). Equivalence: the
        larger of that p and the one of d + margin (H0: A - B <= -margin).

    Args:
        differences: per-question differences d_q = s_q(A) - s_q(B).
        codes: optional cluster code per question (0..G-1): a cluster flips as a whole.
        margin: the margin, in (0, 1).
        equivalence: test both sides.

    Returns:
        The p-value in (0, 1].

    Example:
        >>> round(margin_flip_p(np.array([0.0, 0.05, -0.1, 0.0, 0.02]), None, 0.1), 4)
        0.0312
    """
    d = np.asarray(differences, dtype=float)
    upper = sign_flip_p(margin - d, codes, alternative="greater")
    if not equivalence:
        return upper
    return max(upper, sign_flip_p(d + margin, codes, alternative="greater"))


def margin_words(result: Comparison, p: float | None = None, margin: float | None = None,
                 where: str = "", unit: str = "", p_name: str = "p") -> str:
    """The words of :meth:`Comparison.margin_verdict`, as a table says them.

    With a table's adjusted ``p`` (named ``p_name``), the margin as the table shows it
    (``unit``: ``" points"`` in percent) and ``where`` after the claim (``" on Pass@1"``).
    """
    if result.margin is None or result.p_margin is None:
        return ""
    p = result.p_margin if p is None else p
    shown = p < 1.0 - result.confidence
    how = "two one-sided tests" if result.equivalence else "one-sided"
    words = f"{p_name} < 0.001" if p < 0.001 else f"{p_name} = {p:.3f}"
    claim = margin_claim(result.margin if margin is None else margin, result.equivalence,
                         unit=unit)
    return (f"{'' if shown else 'not shown: '}{claim}{where} ({how}, "
            f"{result.confidence * 100:g}%, {words})")


def _with_margin(result: Comparison, margin: float | None, equivalence: bool,
                 differences: np.ndarray | None = None, codes: np.ndarray | None = None
                 ) -> Comparison:
    """The comparison with its margin tests (nothing changes without a margin).

    ``differences`` (the per-question d_q, clustered by ``codes``) give ``p_margin_exact``;
    dataset-level blends have none.
    """
    if margin is None:
        return result
    units = int(result.df) + 1 if result.df is not None else result.questions
    exact = (None if differences is None
             else margin_flip_p(differences, codes, margin, equivalence))
    return replace(result, margin=margin, equivalence=equivalence,
                   p_margin=margin_p(result.difference, result.se, result.df, units, margin,
                                     equivalence),
                   p_margin_exact=exact)


def _budgets(args: tuple[Any, ...], count: int, name: str) -> list[int | None]:
    """The k of each of ``count`` results: the registry says where k stands in ``args``."""
    position = of_function(name).k_position
    ks = args[position] if position is not None and len(args) > position else None
    if ks is None:
        return [None] * count
    values = list(ks) if isinstance(ks, (Sequence, np.ndarray)) else [ks]
    return [int(v) for v in values] if len(values) == count else [None] * count


def compare(metric: MetricLike, R_a: Any, R_b: Any, *args: Any, clusters: Any = None,
            confidence: float = 0.95, reference: str = "t", shared: bool = False,
            prior: str = "uniform", margin: float | None = None, equivalence: bool = False,
            **kwargs: Any) -> Comparison | list[Comparison]:
    r"""Is model A better than model B on the same questions? A paired comparison.

    Row q of ``R_a`` and of ``R_b`` is question q; when both are counts carrying
    question ids (``BinaryCounts(..., ids=...)``), questions are matched by id.

    Formula:
        d_q = s_q(A) - s_q(B) over the M questions both were scored on;
        difference = mean(d); se = sqrt(sum (d_q - mean d)^2 / (M (M-1))) (clustered with
        ``clusters`` as in :func:`standard_error`; for dataset-level blends, a paired
        jackknife); df = M - 1 (with G clusters: the Bell-McCaffrey df of the CR2 SE, G - 1
        for equal clusters; G - 1 for the jackknife); interval: difference -/+ q se with
        q = T_df^{-1}((1 + confidence)/2), a score interval near -1 or 1 and an
        exact bound when se = 0 (:func:`kpass.stats.intervals.interval` on [-1, 1]);
        p_value = 2 T_df(-|difference| / se);
        mde = (q + T_df^{-1}(0.8)) se (``reference="normal"``: Phi in place of T_df;
        se = 0: the exact sign test's, :func:`kpass.stats.small_sample.exact_mde`);
        p_exact = the sign-flip permutation p-value of the d_q (clusters flip together);
        with ``margin``, p_margin (:func:`margin_p`) and its sign-flip counterpart
        p_margin_exact (:func:`margin_flip_p`);
        se_unpaired = sqrt(se_A^2 + se_B^2); prob_a_better = Phi((mu_A - mu_B) /
        sqrt(sigma_A^2 + sigma_B^2)) from the two Bayesian posteriors (``<metric>_ci``),
        independent given the questions.

    Args:
        metric: the point function, e.g. ``kpass.pass_at_k``.
        R_a: model A's outcomes (as ``metric`` takes them).
        R_b: model B's outcomes on the same questions.
        *args: ``metric``'s other positional arguments (k, tau, ...).
        clusters: optional label per question for clustered standard errors.
        confidence: level of the interval in (0, 1) (alpha = 1 - confidence for the MDE).
        reference: ``"t"`` (Student's t with ``df`` degrees of freedom, the default: it
            holds its level with 10-30 questions) or ``"normal"`` (the large-sample
            reference of earlier releases).
        shared: with question ids on both runs, compare on the questions both have (B's
            extra questions and A's missing ones left out) instead of refusing; ``clusters``
            then labels A's questions before the selection.
        prior: the Beta prior of each question's success rate behind ``prob_a_better``:
            ``"uniform"`` (Beta(1, 1), the published definition, the default) or
            ``"empirical"`` (a Beta fitted to each run's questions by maximum likelihood,
            as :func:`kpass.plan` fits one). Either way P(A>B) is a statement about these
            questions with unlimited samples, not about the population of questions.
        margin: a non-inferiority margin in (0, 1) on the metric's scale: B is the new
            model, A the reference, and ``p_margin`` tests "B is not worse than A by more
            than ``margin``" (H0: A - B >= margin; :func:`margin_p`; ``p_margin_exact``
            the sign-flip one, :func:`margin_flip_p`). None: no margin.
        equivalence: with ``margin``, test |A - B| < margin instead (two one-sided tests).
        **kwargs: ``metric``'s keyword arguments (``short``, ...).

    Returns:
        A :class:`Comparison`, or a list of them when ``k`` is a sequence.

    Warns:
        SmallSampleWarning: fewer than 30 questions (or clusters), a standard error of 0,
            or an estimate within 5 questions' worth of 0 or 1 (one warning per call).

    Raises:
        ValueError: different numbers of questions without ids, different id sets, fewer
            than 2 questions, ``clusters`` of the wrong length, a bad ``confidence``, a
            ``margin`` outside (0, 1) or not finite, ``equivalence`` without a margin.
        TypeError: ``metric`` is not a point function of the family; ``shared`` is not a
            bool.

    References:
        Miller (2024), arXiv:2411.00640, section 4 (paired differences) and 5 (power);
        Student (1908); Fisher (1935) for the sign-flip test.

    Example:
        >>> import kpass, warnings
        >>> A = [[1, 1, 0, 1], [0, 1, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]]
        >>> B = [[1, 0, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]]
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", kpass.SmallSampleWarning)  # 4 questions
        ...     c = kpass.compare(kpass.pass_at_k, A, B, 1)  # d_q = .25, .25, 0, .25
        >>> round(c.difference, 4), round(c.se, 4), round(c.se_unpaired, 4)
        (0.1875, 0.0625, 0.2676)
        >>> c.questions, c.df, round(c.p_value, 4), c.p_exact, round(c.correlation, 3)
        (4, 3, 0.0577, 0.25, 0.983)
    """
    name, metric = _check_metric(metric, "compare", args, kwargs)
    options = check_options(confidence=confidence, reference=reference, shared=shared,
                            prior=prior, clusters=clusters)
    confidence, prior = options["confidence"], options["prior"]
    margin = check_margin(margin, equivalence)
    aligned = align_runs([R_a, R_b], ["A", "B"], shared=shared, verb="compare")
    R_a, R_b = aligned.runs
    clusters = subset_labels(clusters, aligned)
    if name in _DATASET_LEVEL:
        blended = _compare_dataset(metric, name, R_a, R_b, args, kwargs, clusters, confidence,
                                   reference, prior)
        if isinstance(blended, list):
            return [_with_margin(item, margin, bool(equivalence)) for item in blended]
        return _with_margin(blended, margin, bool(equivalence))
    per_a, many = _per_question(metric, name, R_a, args, kwargs)
    per_b, _ = _per_question(metric, name, R_b, args, kwargs)
    if per_a[0].size != per_b[0].size:
        raise InputError(
            f"`R_a` and `R_b` must score the same questions, row q of both being question q; "
            f"got {per_a[0].size} and {per_b[0].size} questions (give question ids to match "
            "by id: BinaryCounts(..., ids=...) or `kpass compare --id COLUMN`)")
    codes = _labels(clusters, per_a[0].size)
    budgets = _budgets(args, len(per_a), name)
    results = []
    problems: list[str] = []
    for index, (values_a, values_b) in enumerate(zip(per_a, per_b, strict=True)):
        used = np.isfinite(values_a) & np.isfinite(values_b)
        m = int(used.sum())
        _need_two(m, "`R_a`/`R_b` (questions scored in both)")
        sa, sb = values_a[used], values_b[used]
        used_codes = None if codes is None else np.unique(codes[used], return_inverse=True)[1]
        units = m if used_codes is None else int(used_codes.max()) + 1
        spread = float(sa.std() * sb.std())
        result = _comparison(
            name, budgets[index], float(sa.mean()) + 0.0, float(sb.mean()) + 0.0,
            se=_clt_se(sa - sb, used_codes), se_a=_clt_se(sa, used_codes),
            se_b=_clt_se(sb, used_codes), df=_df(used_codes, m) if reference == "t" else None,
            units=units, questions=m,
            confidence=confidence, reference=reference,
            correlation=(float(np.mean((sa - sa.mean()) * (sb - sb.mean())) / spread)
                         if spread > 0 else None),
            p_exact=sign_flip_p(sa - sb, used_codes),
            posteriors=_posteriors(metric, name, (R_a, R_b), used,
                                   _one_k(args, budgets[index], name), kwargs, prior))
        a_only, b_only = _discordant(R_a, R_b, used)
        result = _with_margin(replace(result, a_only=a_only, b_only=b_only), margin,
                              bool(equivalence), sa - sb, used_codes)
        problems += small_sample_problems(units, codes is not None, [result.se],
                                          [result.a, result.b] if name in _CREDIT_METRICS
                                          else [])
        results.append(result)
    warn_small(f"kpass.compare({name})", list(dict.fromkeys(problems)))
    return results if many else results[0]


def _discordant(R_a: Any, R_b: Any, used: np.ndarray) -> tuple[int | None, int | None]:
    """``a_only``, ``b_only``: with one 0/1 sample per question, the discordant questions.

    Counted over the questions ``used``: A right and B wrong, B right and A wrong (the pairs
    McNemar's test reads); None for both when some question has more than one sample or the
    outcomes are not binary counts.
    """
    try:
        first, second = _counts_of(R_a), _counts_of(R_b)
    except (TypeError, ValueError):  # categorical answers (Vote@k): no 0/1 sample
        return None, None
    if not (np.all(first.n_samples[used] == 1) and np.all(second.n_samples[used] == 1)):
        return None, None
    right_a, right_b = first.n_correct[used] == 1, second.n_correct[used] == 1
    return int(np.sum(right_a & ~right_b)), int(np.sum(right_b & ~right_a))


def _posteriors(metric: Metric, name: str, runs: Sequence[Any], used: np.ndarray,
                k_args: tuple[Any, ...], kwargs: dict[str, Any], prior: str
                ) -> list[tuple[float, float]]:
    """(mu, sigma) of each run's ``_ci`` posterior at one k, over the questions used."""
    return [_posterior_pair(metric, name, R, used, k_args, kwargs, prior)[0] for R in runs]


def _comparison(name: str, k: int | None, a: float, b: float, *, se: float, se_a: float,
                se_b: float, df: int | float | None, units: int, questions: int,
                confidence: float, reference: str, correlation: float | None,
                p_exact: float | None, posteriors: list[tuple[float, float]]) -> Comparison:
    """The one :class:`Comparison` of both paths (per-question values and dataset-level).

    From the estimates, the SEs, the t reference's df and units: the interval
    (:func:`kpass.stats.intervals.interval` on [-1, 1]), the t test's p-value and MDE
    (:func:`kpass.stats.small_sample.t_test`) and P(A>B) from the two posteriors. When
    se = 0 with a difference the t statistic does not exist: the p-value is the exact
    sign-flip one where there are per-question differences (``p_exact``), else the exact
    sign test of ``units`` equal differences, 2 / 2^units.
    """
    difference = a - b
    _, _, p_value, mde = t_test(difference, se, confidence, df, units)
    bounds = interval(difference, se, df, units, confidence, (-1.0, 1.0), cap=False)
    if math.isnan(p_value):
        # every unit shows the same difference: the exact sign test, 2 / 2^units (the
        # leaderboard's), or the sign-flip p of the per-question differences where known
        p_value = min(1.0, 2.0 * 0.5 ** units) if p_exact is None else p_exact
    (mu_a, sd_a), (mu_b, sd_b) = posteriors
    return Comparison(
        metric=name, k=k, a=a, b=b, difference=difference + 0.0, se=se, lo=bounds.lo,
        hi=bounds.hi, p_value=p_value, se_unpaired=math.hypot(se_a, se_b),
        correlation=correlation, prob_a_better=_prob_greater(mu_a, sd_a, mu_b, sd_b),
        mde=mde, questions=questions, confidence=confidence, se_a=se_a, se_b=se_b, df=df,
        p_exact=p_exact, reference=reference, method=bounds.method)


def _df(codes: np.ndarray | None, m: int) -> int | float:
    """M - 1 unclustered; the Bell-McCaffrey df of the CR2 SE with clusters (an int when whole).

    Equal clusters give G - 1 up to rounding, returned as the int G - 1.
    """
    if codes is None:
        return m - 1
    df = _cluster_df(codes, m)
    return int(round(df)) if abs(df - round(df)) < 1e-9 else df


def _one_k(args: tuple[Any, ...], budget: int | None, name: str) -> tuple[Any, ...]:
    """``args`` with the sequence of k replaced by one k (for the per-k posterior call)."""
    position = of_function(name).k_position
    if budget is None or position is None:
        return args
    return (*args[:position], budget, *args[position + 1:])


def _compare_dataset(metric: Metric, name: str, R_a: Any, R_b: Any, args: tuple[Any, ...],
                     kwargs: dict[str, Any], clusters: Any, confidence: float,
                     reference: str, prior: str = "uniform") -> Comparison | list[Comparison]:
    stat_a, m = _dataset_statistic(metric, R_a, args, kwargs)
    stat_b, m_b = _dataset_statistic(metric, R_b, args, kwargs)
    if m != m_b:
        raise InputError(f"`R_a` and `R_b` must score the same questions; got {m} and {m_b} "
                         "questions (give question ids to match by id)")
    _need_two(m, "`R_a`/`R_b`")
    codes = _labels(clusters, m)
    everything = np.ones(m, dtype=bool)
    values_a, values_b = stat_a(everything), stat_b(everything)
    keys = _state_keys(_counts_of(R_a), _counts_of(R_b))
    ses = _jackknife(lambda mask: [x - y for x, y in zip(stat_a(mask), stat_b(mask),
                                                         strict=True)], keys, codes)
    ses_a, ses_b = _jackknife(stat_a, keys, codes), _jackknife(stat_b, keys, codes)
    value = metric(_counts_of(R_a), *args, **kwargs)
    many = isinstance(value, list)
    budgets = _budgets(args, len(values_a), name)
    units = m if codes is None else int(np.unique(codes).size)
    df = units - 1 if reference == "t" else None  # the jackknife's G - 1
    results = []
    problems: list[str] = []
    for index, (a, b) in enumerate(zip(values_a, values_b, strict=True)):
        problems += small_sample_problems(units, codes is not None, [ses[index]], [])
        results.append(_comparison(
            name, budgets[index], a, b, se=ses[index], se_a=ses_a[index], se_b=ses_b[index],
            df=df, units=units, questions=m, confidence=confidence, reference=reference,
            correlation=None, p_exact=None,
            posteriors=_posteriors(metric, name, (R_a, R_b), everything,
                                   _one_k(args, budgets[index], name), kwargs, prior)))
    warn_small(f"kpass.compare({name})", list(dict.fromkeys(problems)))
    return results if many else results[0]


