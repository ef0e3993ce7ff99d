r"""Plurality-vote accuracy (maj@k / cons@k) over k sampled answers, exact and Bayesian.

Reasoning papers report maj@k (also cons@k) as the accuracy of a plurality vote
over the final answers of k samples (self-consistency, Wang et al. 2023). This
differs from the binary Maj@k, which only asks whether more than half of the k
samples are correct: a vote can be right with a third of the samples correct, and
wrong with 40% correct (the AIME sample: "271" has 34 of 80 votes, the correct
"821" has 32). Computing it on the first k samples is noisy and order-dependent;
here it is the exact expectation over all k-subsets.

How it is computed. For a question with n answers in clusters of sizes m_i (the
reference's cluster has size a; ``None`` answers form a group that never wins),
the number of k-subsets whose vote is won by the reference with x votes is the
coefficient of z^(k - x) in

    C(a, x) * prod_{i: m_i >= x} (sum_{y < x} C(m_i, y) z^y + u C(m_i, x) z^x)
            * (1 + z)^(n - a - sum_{i: m_i >= x} m_i),

where u marks a cluster tied with the reference. ``ties="wrong"`` sets u = 0;
``ties="fractional"`` credits 1/(t + 1) for t tied clusters, which is the integral
over u in [0, 1] of u^t (a random tie-break: the reference wins when its random
priority u beats the t tied clusters). The integral is taken exactly by
Gauss-Legendre quadrature in u (the integrand is a polynomial of known degree).
Clusters too small to reach x votes are merged into the binomial factor, so the
work per x shrinks with x. Every coefficient is scaled by p^y (1 - p)^(m - y)
(binomial pmfs, never a floating binomial coefficient), so all terms are
non-negative numbers below one: no overflow, no cancellation, and relative
accuracy near machine precision at any n. Questions with the same cluster-size
multiset are computed once.

References:
    Wang, X., Wei, J., Schuurmans, D., Le, Q., Chi, E., Narang, S., Chowdhery, A.,
    & Zhou, D. (2023). Self-Consistency Improves Chain of Thought Reasoning in
    Language Models. ICLR 2023. arXiv:2203.11171.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._core.counting.canonical import answer_key
from .._core.counting.checks import (
    ArgumentTypeError,
    InputError,
    _show,
    check_bounds,
    check_choice,
    check_confidence,
    check_flag,
    check_int,
    check_real,
    check_short,
    normalize_ks,
)
from .._core.counting.states import keep_at_least
from .._core.moments.driver import credible, finish
from .._core.vote.kernel import (
    _Clusters,
    _subset_vote,
)
from .._core.vote.posterior import (
    _exact_variance,
    _posterior_means,
    _posterior_variance,
    _Samples,
    _samples,
    _single_draw_variance,
)
from .ci_doc import ci_doc

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Interval = tuple[float, float, float, float]

TIE_RULES = ("fractional", "wrong")
#: Largest Dirichlet ``concentration`` accepted by :func:`vote_at_k_ci`.
MAX_CONCENTRATION = 1e12
#: Smallest (subnormal floats lose the precision the weights need).
MIN_CONCENTRATION = 1e-300

#: Largest k whose posterior variance is exact: its cost grows like k^6, and at k = 12 it
#: is about the time of the sampled estimate (~1 s for 200 questions of 64 answers).
_EXACT_LARGEST_K = 12


# ----------------------------------------------------------------------------- inputs


def _is_rows(value: Any) -> bool:
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def _clusters(answers: Any, references: Any,
              normalize: Callable[[Any], Any] | None = None) -> _Clusters:
    """Validate answers and references and reduce questions to distinct cluster states.

    Answers and references are compared by their canonical form (``normalize``
    first, if given): see :func:`kpass._core.counting.canonical.canonical_answer`.
    """
    key_of = answer_key(normalize)
    if not _is_rows(answers):
        raise ArgumentTypeError(
            f"`answers` must be a list of per-question answer lists; got {_show(answers)} "
            f"({type(answers).__name__})"
        )
    if not _is_rows(references):
        raise ArgumentTypeError(
            f"`references` must be a list with one reference answer per question; got "
            f"{_show(references)} ({type(references).__name__})"
        )
    if len(answers) == 0:
        raise InputError("`answers` must contain at least one question; got 0 questions")
    if len(answers) != len(references):
        raise InputError(
            f"`answers` and `references` must have one entry per question; got "
            f"len(answers)={len(answers)} and len(references)={len(references)}"
        )
    keys: dict[tuple[int, ...], int] = {}
    inverse = np.empty(len(answers), dtype=np.int64)
    for i, (row, reference) in enumerate(zip(answers, references, strict=True)):
        if not _is_rows(row):
            raise ArgumentTypeError(
                f"`answers[{i}]` must be a list of answers; got {_show(row)} "
                f"({type(row).__name__})"
            )
        if len(row) == 0:
            raise InputError(f"every question needs at least one answer; answers[{i}] is empty")
        if reference is None:
            raise InputError(f"`references[{i}]` must be an answer; got None")
        try:
            counts = Counter(map(key_of, row))
            gold = key_of(reference)
            if gold is None:
                raise InputError(
                    f"`references[{i}]` must be an answer; got {_show(reference)}, which is "
                    + ("no answer" if normalize is None else "no answer after `normalize`")
                    + " (None, NaN or blank text): it would match nothing")
            ref = counts.pop(gold, 0)
        except TypeError:
            bad = next((j for j, v in enumerate(row) if not isinstance(v, Hashable)), None)
            where = f"answers[{i}][{bad}]={_show(row[bad])}" if bad is not None else (
                f"references[{i}]={_show(reference)}")
            raise ArgumentTypeError(
                f"answers and references must be hashable (str, int, tuple, ...); got {where}"
            ) from None
        none = counts.pop(None, 0)
        key = (len(row), ref, none, *sorted(counts.values(), reverse=True))
        inverse[i] = keys.setdefault(key, len(keys))
    width = max(len(key) for key in keys) - 3
    table = np.zeros((len(keys), 3 + max(width, 1)), dtype=np.int64)
    for key, index in keys.items():
        table[index, : len(key)] = key
    return _Clusters(table[:, 0], table[:, 1], table[:, 2], table[:, 3:], inverse)


def _check_ties(ties: Any) -> str:
    return check_choice(ties, "ties", TIE_RULES)


def _kept(n: IntArray, k: int, short: str) -> npt.NDArray[np.bool_]:
    """Questions with at least k answers; refuse short ones unless ``short='skip'``."""
    kept = keep_at_least(n, k, short, unit="answers")
    return np.ones(n.size, dtype=bool) if kept is None else kept


# ----------------------------------------------------------------------------- public


def vote_at_k(answers: Sequence[Sequence[Hashable]], references: Sequence[Hashable], k: Any, *,
              ties: str = "fractional", per_question: bool = False,
              short: str = "error", normalize: Callable[[Any], Any] | None = None) -> Any:
    r"""Exact expected accuracy of a plurality vote over k of each question's sampled answers.

    For each question, k of its n answers are drawn uniformly without replacement
    (every k-subset equally likely), the most frequent answer among them is the
    vote, and the vote scores 1 if it equals the reference. The result is the
    expectation of that score, averaged over questions: the order-free version of
    "maj@k / cons@k on the first k samples".

    Formula:
        vote@k_q = sum_{x>=1} sum_{t>=0} c(t) N_q(x, t) / C(n_q, k), where N_q(x, t)
        counts the k-subsets holding x copies of the reference, exactly t other
        answers with x copies and none with more; c(t) = 1/(t + 1) for
        ``ties="fractional"`` (a uniformly random tie-break) and c(t) = [t = 0] for
        ``ties="wrong"``. vote@k = (1/M) sum_q vote@k_q. N_q is a coefficient of a
        product of truncated binomial polynomials over answer clusters (see the
        module docstring); it is never enumerated.

    Conventions:
        Answers are compared by canonical form: numbers by exact decimal value
        (170, "170", 170.0 and "170.0" are one answer; "1e-400" is not 0; past
        1000 digits or an exponent of 1000 the normalised text is compared, so
        the cost stays linear), text stripped of surrounding space, booleans as
        the text "True"/"False"; "0.5" and "1/2" stay different unless
        ``normalize`` maps them together (:mod:`kpass._core.counting.canonical`).
        "No answer" -- None, NaN or blank text, given or returned by
        ``normalize`` -- occupies a draw but never wins, even when it is the most
        frequent, and never matches (not even another no answer). A reference
        that is no answer is an error. A question whose reference never occurs
        scores 0.
        At k = 1 the value is the fraction of answers equal to the reference.

    Args:
        answers: one list of hashable final answers per question (lengths may differ).
        references: the gold answer of each question (not None, NaN or blank, also
            after ``normalize``).
        k: answers per vote, 1 <= k <= n; or a sequence of k (returns a list, in order).
        ties: ``"fractional"`` (default; a tie among t + 1 answers that includes the
            reference scores 1/(t + 1)) or ``"wrong"`` (any tie scores 0).
        per_question: return the per-question values (numpy array, input order, NaN
            where skipped) instead of their mean.
        short: ``"error"`` (default) refuses questions with fewer than k answers;
            ``"skip"`` leaves them out for that k.
        normalize: a function answer -> answer applied to every answer and
            reference before the canonical form (e.g. a math answer extractor);
            what it maps to None, NaN or blank text is no answer.

    Returns:
        float in [0, 1] (or numpy array with ``per_question``); a list of them for
        several k.

    Raises:
        ValueError: k < 1 or k > n (with ``short="error"``), an unknown tie rule or
            short policy, an empty question, a reference that is no answer (None,
            NaN, blank, or so after ``normalize``), ``normalize`` raising or calling
            ``sys.exit`` (the message names it and the answer), or ``answers`` and
            ``references`` of different lengths.
        TypeError: k not an int, unhashable answers, or ``answers`` not a list of lists.

    Example:
        Three answers A, A, B with reference A: of the three 2-subsets, {A, A} votes
        A and the two {A, B} are ties, each scoring 1/2 (or 0 with ``ties="wrong"``).

        >>> [round(value, 12) for value in vote_at_k([["A", "A", "B"]], ["A"], [1, 2, 3])]
        [0.666666666667, 0.666666666667, 1.0]
        >>> round(vote_at_k([["A", "A", "B"]], ["A"], 2, ties="wrong"), 12)
        0.333333333333
    """
    ties = _check_ties(ties)
    short = check_short(short)
    per_question = check_flag(per_question, "per_question")
    ks, many = normalize_ks(k)
    states = _clusters(answers, references, normalize)
    n_questions = states.n[states.inverse]
    for budget in ks:
        _kept(n_questions, budget, short)
    values = _subset_vote(states, ks, ties)
    results: list[Any] = []
    for index in range(len(ks)):
        per = values[states.inverse, index]
        results.append(per if per_question else float(np.nanmean(per)))
    return finish(results, many)


@ci_doc
def vote_at_k_ci(answers: Sequence[Sequence[Hashable]], references: Sequence[Hashable],
                 k: Any, *, ties: str = "fractional", confidence: float = 0.95,
                 bounds: tuple[float, float] | None = (0.0, 1.0), concentration: float = 1.0,
                 short: str = "error", draws: int = 16, seed: int = 0,
                 normalize: Callable[[Any], Any] | None = None) -> Any:
    r"""Posterior mean, sd and credible interval of the plurality-vote accuracy at k.

    Model: each question q has an unknown answer distribution pi_q over categories:
    the reference, each distinct wrong answer observed, and one pooled category for
    None answers and every answer not observed. The posterior is
    pi_q ~ Dirichlet(counts + concentration), with ``concentration`` added to every
    category (the reference's included, observed or not; the pooled category gets one,
    not one per unseen answer). The latent target is
    g_k(pi_q) = P(a plurality vote of k i.i.d. draws from pi_q is correct), with the
    tie rule ``ties``. The pooled category never wins a vote (like None): it stands
    for many distinct unseen answers whose mass is spread thin, not for one answer.

    Formula:
        mu = (1/M) sum_q E[g_k(pi_q)], sigma = (1/M) sqrt(sum_q Var[g_k(pi_q)]),
        (lo, hi) = mu -/+ z sigma clipped into ``bounds``, z = Phi^{-1}(1/2 + confidence/2).
        E[g_k(pi_q)] is exact: k draws from a Dirichlet-distributed pi are a Polya urn
        (Dirichlet-multinomial), whose vote is computed like :func:`vote_at_k` with
        negative-binomial weights. Var[g_k(pi_q)] = E[g_k(pi_q)^2] - E[g_k(pi_q)]^2:
        at k = 1, g_1(pi) = pi_ref ~ Beta(a, A - a). For 2 <= k <= 12 it is exact too
        (to rounding, ~1e-15 absolute): E[g_k^2] is the chance that two groups of k
        draws from the same pi both elect the reference, a Polya urn of 2k draws
        whose count table factorises over answers (:mod:`kpass._core.vote.pairs`);
        ``draws`` and ``seed`` are then unused. For k > 12 (the exact cost grows like
        k^6) it is estimated deterministically from ``draws`` posterior samples of
        pi_q = G / sum(G) (G_i ~ Gamma(alpha_i)) drawn with ``seed``, g_k evaluated
        exactly on each (to ~1e-11), with control variates whose moments are exact:
        G_ref and the Poissonised votes c(G) = P(the reference wins when the answers
        get independent Poisson(tau G_i) votes), strict and taking ties, at
        tau A = the power of two nearest k in log scale (A the total concentration;
        :mod:`kpass._core.vote.poisson`; without a fixed number of draws the answers
        are independent, so their moments are sums of about C T^2 terms). With b the
        least-squares fit of g_k on the controls over a question's D samples,
        Var = b' Sigma b + sum of squared residuals / (D - 3), Sigma the controls'
        exact covariance: only the part of g_k the controls leave unexplained
        (1 - R^2, about 0.4% of Var at k = 64 on typical data, against 0.8% for
        the votes of 8 and 16 draws used before) is sampled. Error: the relative sd
        of sigma per question is about sqrt(R^2 (1 - R^2) / D) + (1 - R^2) / sqrt(2 D);
        measured against a 2000-draw Monte Carlo on the questions with the largest
        sd (k = 64, the default 16 draws): rms 1.4-1.9%, worst 2.5-3.6% (3 seeds),
        where the 32 draws with the old controls gave 2.1-2.3%, worst 3.8-5.3%, and
        the reference itself errs by ~1.6% (``benchmarks/bench_vote.py``). Errors of
        different questions average out in sigma.

    Args:
        answers: one list of hashable final answers per question (lengths may differ).
        references: the gold answer of each question (not None, NaN or blank).
        k: votes of k draws, k >= 1; or a sequence of k (returns a list).
        ties: ``"fractional"`` (default) or ``"wrong"``, as in :func:`vote_at_k`.
        confidence: %(confidence)s
        bounds: %(bounds)s
        concentration: the Dirichlet prior's concentration added to every category, in
            [1e-300, 1e12] (1 is the flat prior). Not ``prior=``, which names a Beta
            prior everywhere else in kpass.
        short: ``"error"`` (default) refuses questions with fewer than k answers,
            ``"skip"`` leaves them out (the same questions as :func:`vote_at_k`).
        draws: posterior samples per question for the variance when k > 12, >= 2
            (accepted and unused for k <= 12, where the variance is exact). The
            default 16 is as accurate with the Poissonised controls as 32 were with
            the votes of 8 and 16 draws as controls.
        seed: seed of those samples (results are deterministic for a given seed).
        normalize: as in :func:`vote_at_k`.

    Returns:
        %(returns)s

    Raises:
        ValueError: as :func:`vote_at_k`, or confidence outside (0, 1), concentration <= 0,
            draws < 2, bad bounds.
        TypeError: as :func:`vote_at_k`.

    Example:
        One question, answers A, A, B, reference A; with a flat prior the posterior
        is Dirichlet(3, 2, 1) over (A, B, pooled), so at k = 1 the mean is 3/6.

        >>> mean, sd, cred_lo, cred_hi = vote_at_k_ci([["A", "A", "B"]], ["A"], 1)
        >>> round(mean, 12)
        0.5
    """
    ties = _check_ties(ties)
    short = check_short(short)
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    # Above ~1e15 the negative-binomial weights of the exact mean lose all accuracy (scipy
    # returns NaN from 1e16); 1e12 leaves a margin, and such a concentration means "ignore the
    # data".
    concentration = check_real(concentration, "concentration", low=MIN_CONCENTRATION,
                               high=MAX_CONCENTRATION)
    if check_int(draws, "draws") < 2:
        raise InputError(f"`draws` must be an int >= 2; got draws={draws}")
    if check_int(seed, "seed") < 0:
        raise InputError(f"`seed` must be an int >= 0; got seed={seed}")
    ks, many = normalize_ks(k)
    states = _clusters(answers, references, normalize)
    n_questions = states.n[states.inverse]
    kept_by_k = [_kept(n_questions, budget, short) for budget in ks]
    lives = [np.flatnonzero(np.bincount(states.inverse[kept], minlength=states.n.size))
             for kept in kept_by_k]
    every: dict[bytes, list[int]] = {}  # the k of each set of questions
    sampled: dict[bytes, list[int]] = {}  # the sampled ones
    for budget, live in zip(ks, lives, strict=True):
        every.setdefault(live.tobytes(), []).append(budget)
        if budget > _EXACT_LARGEST_K:
            sampled.setdefault(live.tobytes(), []).append(budget)
    results = []
    samples: dict[bytes, _Samples] = {}
    mean_tables: dict[bytes, dict[int, FloatArray]] = {}
    for budget, kept, live in zip(ks, kept_by_k, lives, strict=True):
        used = np.bincount(states.inverse[kept], minlength=states.n.size)
        sub = _Clusters(states.n[live], states.ref[live], states.none[live],
                        states.sizes[live], np.arange(live.size))
        key = live.tobytes()
        if key not in mean_tables:  # one DP for every k within a factor 2
            wanted = sorted(set(every[key]))
            table = _posterior_means(sub, wanted, ties, concentration)
            mean_tables[key] = {k: table[:, i] for i, k in enumerate(wanted)}
        means = mean_tables[key][budget]
        if budget == 1:
            variances = _single_draw_variance(sub, concentration)
        elif budget <= _EXACT_LARGEST_K:
            variances = _exact_variance(sub, budget, ties, concentration, means)
        else:
            if key not in samples:  # one pass over the samples for every sampled k
                samples[key] = _samples(sub, sampled[key], ties, concentration, int(draws),
                                        int(seed))
            variances = _posterior_variance(sub, budget, ties, concentration, means, int(draws),
                                            int(seed), samples[key])
        weight = used[live].astype(float)
        total = weight.sum()
        mu = float(np.dot(weight, means) / total)
        sigma = float(math.sqrt(max(np.dot(weight, variances), 0.0)) / total)
        results.append(credible(mu, sigma, confidence, bounds))
    return finish(results, many)


__all__ = ["vote_at_k", "vote_at_k_ci"]
