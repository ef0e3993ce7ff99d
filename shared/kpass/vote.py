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
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.polynomial.legendre import leggauss

from ._core.canonical import answer_key
from ._core.driver import finish, normal_interval
from ._core.inputs import (
    ArgumentTypeError,
    _show,
    check_bounds,
    check_confidence,
    check_flag,
    check_int,
    check_real,
    check_short,
    normalize_ks,
)
from ._core.states import keep_at_least
from ._core.vote_pairs import second_moment
from ._core.vote_poisson import control_means, control_products, control_values

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Interval = tuple[float, float, float, float]

TIE_RULES = ("fractional", "wrong")
#: Largest Dirichlet concentration ``prior`` accepted by :func:`vote_at_k_ci`.
MAX_PRIOR = 1e12
#: Smallest (subnormal floats lose the precision the weights need).
MIN_PRIOR = 1e-300

#: Largest working table (rows x nodes x degree) built at once.
_CHUNK_ENTRIES = 1 << 21
#: Largest k whose posterior variance is exact: its cost grows like k^6, and at k = 12 it
#: is about the time of the sampled estimate (~1 s for 200 questions of 64 answers).
_EXACT_LARGEST_K = 12
#: Smallest normaliser (log) a scaling may reach before k values are split apart.
_LOG_FLOOR = -230.0
#: Vote of one posterior sample: answers and reference counts whose weight is below this
#: fraction of the normaliser are left out (see :func:`_draw_votes`).
_DRAW_TOLERANCE = 1e-12


# ----------------------------------------------------------------------------- inputs


def _floats(values: npt.ArrayLike) -> FloatArray:
    """``values`` as a float64 array (no copy when it is one: e.g. int counts + a float prior)."""
    return np.asarray(values, dtype=np.float64)


def _ints(values: npt.ArrayLike) -> IntArray:
    """``values`` as an int64 array (no copy when it is one: e.g. a count of True per row)."""
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True)
class _Clusters:
    """Distinct per-question answer states, sorted cluster sizes, with multiplicities.

    Attributes:
        n: (S,) answers per state.
        ref: (S,) size of the reference's cluster (0 if never given).
        none: (S,) answers that are None.
        sizes: (S, C) sizes of the other clusters, descending, zero-padded.
        inverse: (M,) state of each question.
    """

    n: IntArray
    ref: IntArray
    none: IntArray
    sizes: IntArray
    inverse: IntArray


def _is_rows(value: Any) -> bool:
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def _clusters(answers: Any, references: Any,
              normalize: Callable[[Any], Any] | None = None) -> _Clusters:
    """Validate answers and references and reduce questions to distinct cluster states.

    Answers and references are compared by their canonical form (``normalize``
    first, if given): see :func:`kpass._core.canonical.canonical_answer`.
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
        raise ValueError("`answers` must contain at least one question; got 0 questions")
    if len(answers) != len(references):
        raise ValueError(
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
            raise ValueError(f"every question needs at least one answer; answers[{i}] is empty")
        if reference is None:
            raise ValueError(f"`references[{i}]` must be an answer; got None")
        try:
            counts = Counter(map(key_of, row))
            gold = key_of(reference)
            if gold is None:
                raise ValueError(
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
    if not isinstance(ties, str) or ties not in TIE_RULES:
        raise ValueError(f"`ties` must be one of {TIE_RULES}; got ties={_show(ties)}")
    return ties


def _kept(n: IntArray, k: int, short: str) -> npt.NDArray[np.bool_]:
    """Questions with at least k answers; refuse short ones unless ``short='skip'``."""
    kept = keep_at_least(n, k, short, unit="answers")
    return np.ones(n.size, dtype=bool) if kept is None else kept


# ----------------------------------------------------------------------------- kernel


def _tie_nodes(ties: str, most_ties: int) -> tuple[FloatArray, FloatArray]:
    """Quadrature in the tie marker u: exact for polynomials of degree ``most_ties``."""
    if ties == "wrong" or most_ties == 0:
        return np.zeros(1), np.ones(1)
    nodes, weights = leggauss(most_ties // 2 + 1)
    return 0.5 * (nodes + 1.0), 0.5 * weights


def _truncated_product(column: Callable[[IntArray, int], FloatArray], rows: IntArray,
                       counts: IntArray, x: int, degree: int, ties: str) -> FloatArray:
    """Integrated product over clusters of (sum_{y<x} w(y) z^y + u w(x) z^x), to z^degree.

    Args:
        column: (rows, j) -> (R, K + 1) weights w(y) of cluster j.
        rows: the states, sorted by ``counts``.
        counts: (R,) ascending; state r multiplies clusters 0..counts[r] - 1. Each
            cluster therefore updates a suffix of the rows, a view: no state pays
            for another state's clusters.
        x: the reference's votes.
        degree: highest power of z kept.
        ties: tie rule (u = 0 for "wrong"; integral over u in [0, 1] for "fractional").

    Returns:
        (R, degree + 1) coefficients.
    """
    depth = int(counts[-1]) if rows.size else 0
    starts = np.searchsorted(counts, np.arange(depth), side="right")
    if x == 1:
        # One vote each: the degree in z is the number of tied clusters, so the
        # 1/(t + 1) credit is applied to the coefficients directly.
        top = min(degree, depth) if ties == "fractional" else 0
        poly = np.zeros((rows.size, top + 1))
        poly[:, 0] = 1.0
        for j, start in enumerate(starts):
            weights = column(rows[start:], j)
            block = poly[start:]
            new = block * weights[:, :1]
            if top:
                new[:, 1:] += block[:, :-1] * weights[:, 1:2]
            poly[start:] = new
        result = np.zeros((rows.size, degree + 1))
        result[:, : top + 1] = poly / np.arange(1, top + 2)
        return result
    most_ties = min(depth, degree // x) if ties == "fractional" else 0
    nodes, node_weights = _tie_nodes(ties, most_ties)
    poly = np.zeros((rows.size, nodes.size, degree + 1))
    poly[:, :, 0] = 1.0
    for j, start in enumerate(starts):
        weights = column(rows[start:], j)
        block = poly[start:]
        new = block * weights[:, 0, None, None]
        for y in range(1, min(x, degree + 1)):
            new[:, :, y:] += weights[:, y, None, None] * block[:, :, : degree + 1 - y]
        if most_ties:
            tie = weights[:, x, None] * nodes[None, :]
            new[:, :, x:] += tie[:, :, None] * block[:, :, : degree + 1 - x]
        poly[start:] = new
    return np.einsum("rnd,n->rd", poly, node_weights)


def _vote_sums(ref_weights: FloatArray, active: Callable[[int], IntArray],
               column: Callable[[IntArray, int], FloatArray],
               free: Callable[[IntArray, IntArray], FloatArray], ks: list[int],
               ties: str, floor: float = 0.0) -> FloatArray:
    """Sum over the reference's votes x of its weight times the constrained product.

    Args:
        ref_weights: (S, K + 1) weight of the reference's cluster holding y draws.
        active: x -> (S,) number of leading clusters that can reach x draws; the
            rest are folded into ``free``.
        column: (rows, j) -> (R, K + 1) weights of cluster j.
        free: (rows, d) -> (R, K + 1) weights of all draws outside the reference and
            the first d[r] clusters (None answers, small clusters): never winning.
        ks: the k values (K = max(ks)).
        ties: tie rule.
        floor: reference weights at or below it are skipped (0: exact).

    Returns:
        (S, len(ks)) unnormalised sums; divide by the weight of k draws in total.
    """
    top = max(ks)
    out = np.zeros((ref_weights.shape[0], len(ks)))
    for x in range(1, top + 1):
        rows = np.flatnonzero(ref_weights[:, x] > floor)
        if rows.size == 0:
            continue
        degree = top - x
        counts = active(x)[rows]
        order = np.argsort(counts, kind="stable")
        rows, counts = rows[order], counts[order]
        nodes = min(int(counts[-1]), degree // x) // 2 + 1
        step = max(1, _CHUNK_ENTRIES // ((degree + 1) * nodes))
        for start in range(0, rows.size, step):
            chunk, depth = rows[start : start + step], counts[start : start + step]
            poly = _truncated_product(column, chunk, depth, x, degree, ties)
            rest = free(chunk, depth)
            for index, k in enumerate(ks):
                if k < x:
                    continue
                span = k - x
                value = np.einsum("rd,rd->r", poly[:, : span + 1], rest[:, span::-1])
                out[chunk, index] += ref_weights[chunk, x] * value
    return out


def _binomial_table(size: int, top: int, p: float) -> FloatArray:
    """T[m, y] = C(m, y) p^y (1 - p)^(m - y) for m <= size, y <= top (0 where y > m)."""
    from scipy.stats import binom  # scipy.stats costs 0.3 s to import: only when voting

    return binom.pmf(np.arange(top + 1)[None, :], np.arange(size + 1)[:, None], p)


def _log_binomial_pmf(k: int, n: int, p: float) -> float:
    from scipy.stats import binom

    return float(binom.logpmf(k, n, p))


def _scalings(n: int, ks: list[int]) -> list[tuple[float, list[int]]]:
    """Group the k values so one scaling p keeps every normaliser C(n,k)p^k(1-p)^(n-k) large."""
    groups: list[tuple[float, list[int]]] = []
    pending = sorted(set(ks))
    while pending:
        low, size = pending[0], 1
        for size in range(len(pending), 0, -1):
            high = pending[size - 1]
            p = min(max((low + high) / (2.0 * n), 0.5 / n), 1.0 - 0.5 / n)
            if min(_log_binomial_pmf(low, n, p), _log_binomial_pmf(high, n, p)) >= _LOG_FLOOR:
                break
        high = pending[size - 1]
        p = min(max((low + high) / (2.0 * n), 0.5 / n), 1.0 - 0.5 / n)
        groups.append((p, pending[:size]))
        pending = pending[size:]
    return groups


def _subset_vote(states: _Clusters, ks: list[int], ties: str) -> FloatArray:
    """Exact vote accuracy over uniform k-subsets, (S, len(ks)); NaN where k > n."""
    out = np.full((states.n.size, len(ks)), np.nan)
    for n in np.unique(states.n):
        in_group = np.flatnonzero(states.n == n)
        ref = states.ref[in_group]
        sizes = states.sizes[in_group]
        if n in ks:
            # k = n: the subset is every answer, so the vote is fixed.
            tied = (sizes == ref[:, None]).sum(axis=1)
            wins = (ref > 0) & (ref >= sizes[:, 0])
            credit = 1.0 / (1.0 + tied) if ties == "fractional" else (tied == 0) * 1.0
            for index in (i for i, k in enumerate(ks) if k == n):
                out[in_group, index] = np.where(wins, credit, 0.0)
        wanted = [k for k in ks if k < n]
        if not wanted:
            continue
        cumulative = np.concatenate([np.zeros((sizes.shape[0], 1), np.int64),
                                     np.cumsum(sizes, axis=1)], axis=1)
        for p, group in _scalings(int(n), wanted):
            table = _binomial_table(int(n), max(group), p)

            def active(x: int, s: IntArray = sizes) -> IntArray:
                return _ints((s >= x).sum(axis=1))

            def column(rows: IntArray, j: int, s: IntArray = sizes,
                       t: FloatArray = table) -> FloatArray:
                return t[s[rows, j]]

            def free(rows: IntArray, d: IntArray, r: IntArray = ref, c: IntArray = cumulative,
                     t: FloatArray = table, n: int = int(n)) -> FloatArray:
                return t[n - r[rows] - c[rows, d]]

            sums = _vote_sums(table[ref], active, column, free, group, ties)
            for index, k in enumerate(group):
                for slot in (i for i, wanted_k in enumerate(ks) if wanted_k == k):
                    out[in_group, slot] = sums[:, index] / table[n, k]
    # A probability: rounding of the scaled sums can leave it a few ulps outside [0, 1]
    # (1.0000000000000007 for 5 of 8 answers right at k = 7), never more.
    return np.clip(out, 0.0, 1.0, out=out)


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
        ``normalize`` maps them together (:mod:`kpass._core.canonical`).
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


# ----------------------------------------------------------------------------- posterior


def _negative_binomial_table(alpha: FloatArray, top: int, q: FloatArray) -> FloatArray:
    """NB(y; alpha, q) = Gamma(alpha + y) / (Gamma(alpha) y!) q^y (1 - q)^alpha, y <= top.

    Entries with alpha = 0 (padding) are the point mass at y = 0.
    """
    from scipy.stats import nbinom

    y = np.arange(top + 1)
    success = 1.0 - q.reshape(q.shape + (1,) * (alpha.ndim - q.ndim + 1))
    safe = np.where(alpha > 0, alpha, 1.0)[..., None]
    table = nbinom.pmf(y, safe, success)
    return np.where((alpha > 0)[..., None], table, (y == 0).astype(float))


def _posterior_mean(states: _Clusters, k: int, ties: str, prior: float) -> FloatArray:
    """Exact E[g(pi)] under Dir(counts + prior): the vote of k Polya-urn draws, (S,)."""
    return _posterior_means(states, [k], ties, prior)[:, 0]


def _k_groups(ks: list[int]) -> list[list[int]]:
    """The distinct k, largest first, in groups within a factor 2 of their largest."""
    groups: list[list[int]] = []
    for k in sorted(set(ks), reverse=True):
        if groups and 2 * k >= groups[-1][0]:
            groups[-1].append(k)
        else:
            groups.append([k])
    return [sorted(group) for group in groups]


def _posterior_means(states: _Clusters, ks: list[int], ties: str, prior: float
                     ) -> FloatArray:
    """Exact E[g_k(pi)] for every k in ``ks``, (S, len(ks)).

    The draws of each answer are NegativeBinomial(alpha_i, q) conditioned on their
    total; any q gives the same Polya urn, so k within a factor 2 share one DP with
    q = m / (A + m), m their largest (the smaller k read lower coefficients), each
    divided by the probability of its own total.
    """
    alpha_ref = _floats(states.ref + prior)
    alpha_other = np.where(states.sizes > 0, states.sizes + prior, 0.0)
    alpha_pool = _floats(states.none + prior)
    total = alpha_ref + alpha_other.sum(axis=1) + alpha_pool
    width = (states.sizes > 0).sum(axis=1)
    out = np.empty((states.n.size, len(ks)))
    for group in _k_groups(ks):
        top = group[-1]
        q = top / (total + top)
        ref_table = _negative_binomial_table(alpha_ref, top, q)
        other_table = _negative_binomial_table(alpha_other, top, q)
        pool_table = _negative_binomial_table(alpha_pool, top, q)

        def active(x: int) -> IntArray:
            return width

        def column(rows: IntArray, j: int, o: FloatArray = other_table) -> FloatArray:
            return o[rows, j]

        def free(rows: IntArray, d: IntArray, p: FloatArray = pool_table) -> FloatArray:
            return p[rows]

        sums = _vote_sums(ref_table, active, column, free, group, ties)
        norms = _negative_binomial_table(total, top, q)[:, group]
        for index, k in enumerate(ks):
            if k in group:
                out[:, index] = sums[:, group.index(k)] / norms[:, group.index(k)]
    # A probability: rounding can leave it a few ulps outside [0, 1] (as in _subset_vote).
    return np.clip(out, 0.0, 1.0, out=out)


def _poisson_table(mean: FloatArray, top: int) -> FloatArray:
    """Poisson(mean) pmf at 0..top per row, by the ratio recurrence p(y) = p(y-1) mean / y.

    Every partial product is a pmf value (no overflow); scipy takes over where e^-mean
    would underflow. The vote of each posterior sample needs this table for every
    reference count x, and the recurrence is several times cheaper than scipy's
    log-gamma evaluation.
    """
    if mean.size and float(mean.max()) > 700.0:
        from scipy.stats import poisson

        return poisson.pmf(np.arange(top + 1), mean[:, None])
    steps = np.empty((mean.size, top + 1))
    steps[:, 0] = np.exp(-mean)
    steps[:, 1:] = mean[:, None] / np.arange(1, top + 1)
    return _floats(np.cumprod(steps, axis=1))


def _draw_votes(pi_ref: FloatArray, pi_other: FloatArray, pi_pool: FloatArray, ks: list[int],
                ties: str) -> FloatArray:
    """g_k(pi): the vote of k i.i.d. draws from pi, per row of probabilities and k, (R, K).

    Multinomial weights are Poisson(m pi_i) pmfs conditioned on k draws in total; k
    values within a factor 2 share one DP with m their largest (the products of the
    smaller k are its lower coefficients), normalised by Poisson(m) at each k.
    To keep posterior sampling fast, an answer whose chance of reaching x draws is
    below 1e-12 times the normaliser is not constrained at x (it joins the
    never-winning pool, whose Poisson mean it adds to), and reference counts x of
    weight below 1e-12 times the normaliser are skipped: each answer or x changes g
    by at most ~1e-11 (measured against a 1e-16 cut on 784 posterior samples at
    k = 64: 5e-14 at most, in half the time with fractional ties).
    """
    from scipy.stats import poisson

    order = np.argsort(-pi_other, axis=1, kind="stable")
    pi_other = np.take_along_axis(pi_other, order, axis=1)
    # beyond[r, d] = pool + sum of the columns from d on
    beyond = pi_pool[:, None] + np.concatenate(
        [np.cumsum(pi_other[:, ::-1], axis=1)[:, ::-1], np.zeros((pi_ref.size, 1))], axis=1)
    out = np.empty((pi_ref.size, len(ks)))
    for group in _k_groups(ks):
        top = group[-1]
        norms = poisson.pmf(group, top)
        cut = _DRAW_TOLERANCE * float(norms.min()) / float(norms[-1])
        ref_table = _poisson_table(top * pi_ref, top)
        other_table = _poisson_table((top * pi_other).ravel(), top).reshape(
            pi_other.shape + (top + 1,))
        # tails[r, j, x] = P(Poisson(m pi_j) >= x); leading columns reach x most easily.
        tails = np.cumsum(other_table[..., ::-1], axis=-1)[..., ::-1] + poisson.sf(
            top, top * pi_other)[..., None]

        def active(x: int, t: FloatArray = tails, c: float = cut) -> IntArray:
            return _ints((t[:, :, x] > c).sum(axis=1))

        def column(rows: IntArray, j: int, o: FloatArray = other_table) -> FloatArray:
            return o[rows, j]

        def free(rows: IntArray, d: IntArray, m: int = top) -> FloatArray:
            return _poisson_table(m * beyond[rows, d], m)

        sums = _vote_sums(ref_table, active, column, free, group, ties,
                          floor=_DRAW_TOLERANCE * float(norms.min())) / norms
        for index, k in enumerate(ks):
            if k in group:
                out[:, index] = sums[:, group.index(k)]
    return out


def vote_at_k_ci(answers: Sequence[Sequence[Hashable]], references: Sequence[Hashable],
                 k: Any, *, ties: str = "fractional", confidence: float = 0.95,
                 bounds: tuple[float, float] | None = (0.0, 1.0), prior: float = 1.0,
                 short: str = "error", draws: int = 16, seed: int = 0,
                 normalize: Callable[[Any], Any] | None = None) -> Any:
    r"""Posterior mean, sd and credible interval of the plurality-vote accuracy at k.

    Model: each question q has an unknown answer distribution pi_q over categories:
    the reference, each distinct wrong answer observed, and one pooled category for
    None answers and every answer not observed. The posterior is
    pi_q ~ Dirichlet(counts + prior), with ``prior`` added to every category (the
    reference's included, observed or not; the pooled category gets one ``prior``,
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
        whose count table factorises over answers (:mod:`kpass._core.vote_pairs`);
        ``draws`` and ``seed`` are then unused. For k > 12 (the exact cost grows like
        k^6) it is estimated deterministically from ``draws`` posterior samples of
        pi_q = G / sum(G) (G_i ~ Gamma(alpha_i)) drawn with ``seed``, g_k evaluated
        exactly on each (to ~1e-11), with control variates whose moments are exact:
        G_ref and the Poissonised votes c(G) = P(the reference wins when the answers
        get independent Poisson(tau G_i) votes), strict and taking ties, at
        tau A = the power of two nearest k in log scale (A the total concentration;
        :mod:`kpass._core.vote_poisson`; without a fixed number of draws the answers
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
        confidence: credibility of the interval, in (0, 1).
        bounds: clipping bounds (lo, hi) of the interval, or None.
        prior: Dirichlet concentration added to every category, in [1e-300, 1e12].
        short: ``"error"`` (default) refuses questions with fewer than k answers,
            ``"skip"`` leaves them out (the same questions as :func:`vote_at_k`).
        draws: posterior samples per question for the variance when k > 12, >= 2
            (accepted and unused for k <= 12, where the variance is exact). The
            default 16 is as accurate with the Poissonised controls as 32 were with
            the votes of 8 and 16 draws as controls.
        seed: seed of those samples (results are deterministic for a given seed).
        normalize: as in :func:`vote_at_k`.

    Returns:
        (mu, sigma, lo, hi) as Python floats, or a list of them for several k.

    Raises:
        ValueError: as :func:`vote_at_k`, or confidence outside (0, 1), prior <= 0,
            draws < 2, bad bounds.
        TypeError: as :func:`vote_at_k`.

    Example:
        One question, answers A, A, B, reference A; with a flat prior the posterior
        is Dirichlet(3, 2, 1) over (A, B, pooled), so at k = 1 the mean is 3/6.

        >>> mu, sigma, lo, hi = vote_at_k_ci([["A", "A", "B"]], ["A"], 1)
        >>> round(mu, 12)
        0.5
    """
    ties = _check_ties(ties)
    short = check_short(short)
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    # Above ~1e15 the negative-binomial weights of the exact mean lose all accuracy (scipy
    # returns NaN from 1e16); 1e12 leaves a margin, and such a prior means "ignore the data".
    prior = check_real(prior, "prior", low=MIN_PRIOR, high=MAX_PRIOR)
    if check_int(draws, "draws") < 2:
        raise ValueError(f"`draws` must be an int >= 2; got draws={draws}")
    if check_int(seed, "seed") < 0:
        raise ValueError(f"`seed` must be an int >= 0; got seed={seed}")
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
            table = _posterior_means(sub, wanted, ties, prior)
            mean_tables[key] = {k: table[:, i] for i, k in enumerate(wanted)}
        means = mean_tables[key][budget]
        if budget == 1:
            variances = _single_draw_variance(sub, prior)
        elif budget <= _EXACT_LARGEST_K:
            variances = _exact_variance(sub, budget, ties, prior, means)
        else:
            if key not in samples:  # one pass over the samples for every sampled k
                samples[key] = _samples(sub, sampled[key], ties, prior, int(draws), int(seed))
            variances = _posterior_variance(sub, budget, ties, prior, means, int(draws),
                                            int(seed), samples[key])
        weight = used[live].astype(float)
        total = weight.sum()
        mu = float(np.dot(weight, means) / total)
        sigma = float(math.sqrt(max(np.dot(weight, variances), 0.0)) / total)
        results.append((mu, sigma, *normal_interval(mu, sigma, confidence, bounds)))
    return finish(results, many)


def _single_draw_variance(states: _Clusters, prior: float) -> FloatArray:
    """Exact Var[g_1(pi)]: one draw votes for itself, so g_1(pi) = pi_ref ~ Beta(a, A - a).

    Var = a (A - a) / (A^2 (A + 1)), a = ref + prior, A = the sum of all concentrations.
    """
    a = states.ref + prior
    total = a + np.where(states.sizes > 0, states.sizes + prior, 0.0).sum(axis=1) + (
        states.none + prior)
    return a * (total - a) / (total * total * (total + 1.0))


def _cross_moment(states: _Clusters, k: int, other_k: int, ties: str,
                  prior: float) -> FloatArray:
    """Exact E[g_k(pi) g_l(pi)], l = ``other_k`` (see :mod:`kpass._core.vote_pairs`)."""
    from scipy.stats import binom

    alpha_ref = _floats(states.ref + prior)
    alpha_other = np.where(states.sizes > 0, states.sizes + prior, 0.0)
    alpha_pool = _floats(states.none + prior)
    total = alpha_ref + alpha_other.sum(axis=1) + alpha_pool
    size = k + other_k
    q = size / (total + size)
    norm = _negative_binomial_table(total, size, q)[:, size] * binom.pmf(k, size, 0.5)
    return second_moment(
        _negative_binomial_table(alpha_ref, size, q),
        _negative_binomial_table(alpha_other, size, q),
        _negative_binomial_table(alpha_pool, size, q),
        (states.sizes > 0).sum(axis=1), norm, k, ties, other_k)


def _exact_variance(states: _Clusters, k: int, ties: str, prior: float,
                    means: FloatArray) -> FloatArray:
    """Exact Var[g_k(pi)] = E[g_k(pi)^2] - E[g_k(pi)]^2."""
    return np.maximum(_cross_moment(states, k, k, ties, prior) - means * means, 0.0)


def _control_rate(k: int) -> int:
    """Draws per vote of the Poissonised controls for k: the nearest power of two (log scale).

    Several k of one call share a few rates (and their exact moments); at k = 64 the rate
    is k itself.
    """
    return 1 << max(0, round(math.log2(k)))


def _control_moments(states: _Clusters, rate: int, prior: float
                     ) -> tuple[FloatArray, FloatArray]:
    """Exact means (S, 3) and covariances (S, 3, 3) of the controls (G_ref, c_strict, c_weak).

    The controls are functions of the Gamma variates G (pi = G / sum G) with the
    Poisson rate tau = rate / A per unit of G, A the total concentration
    (:mod:`kpass._core.vote_poisson`): E[G_ref] = Var[G_ref] = a, and
    E[G_ref c] = a E[c | a + 1] (size bias of a Gamma variate).
    """
    alpha_ref = _floats(states.ref + prior)
    alpha_other = np.where(states.sizes > 0, states.sizes + prior, 0.0)
    total = alpha_ref + alpha_other.sum(axis=1) + states.none + prior
    tau = rate / total
    means = control_means(alpha_ref, alpha_other, tau)
    biased = control_means(alpha_ref + 1.0, alpha_other, tau)
    products = control_products(alpha_ref, alpha_other, tau)
    covariance = np.empty((alpha_ref.size, 3, 3))
    covariance[:, 0, 0] = alpha_ref
    covariance[:, 0, 1:] = covariance[:, 1:, 0] = alpha_ref[:, None] * (biased - means)
    covariance[:, 1:, 1:] = products - means[:, :, None] * means[:, None, :]
    return np.concatenate([alpha_ref[:, None], means], axis=1), covariance


@dataclass(frozen=True)
class _Samples:
    """Seeded posterior samples of a set of states: votes, controls and their moments.

    Attributes:
        votes: k -> (S, draws) g_k on each sample, for the sampled k.
        controls: rate -> (S, draws, 3) the controls (G_ref, c_strict, c_weak) on each
            sample minus their exact means, scaled by their exact sd.
        covariance: rate -> (S, 3, 3) their exact correlation matrix (same scaling).
    """

    votes: dict[int, FloatArray]
    controls: dict[int, FloatArray]
    covariance: dict[int, FloatArray]


def _samples(states: _Clusters, ks: list[int], ties: str, prior: float, draws: int,
             seed: int) -> _Samples:
    """Seeded Dirichlet samples per state with g_k on them for every k in ``ks``.

    Also the controls of :func:`_posterior_variance` on the same samples, all in one
    pass (:func:`_draw_votes` shares a DP among k within a factor 2; k of the same
    :func:`_control_rate` share the controls).
    """
    rng = np.random.default_rng(seed)
    width = states.sizes.shape[1]
    alpha = np.concatenate([
        (states.ref + prior)[:, None],
        np.where(states.sizes > 0, states.sizes + prior, 0.0),
        (states.none + prior)[:, None],
    ], axis=1)
    # Gamma variates normalised per row are Dirichlet samples; padding columns stay 0.
    shape = np.repeat(alpha, draws, axis=0)
    gammas = np.where(shape > 0, rng.standard_gamma(np.where(shape > 0, shape, 1.0)), 0.0)
    pi = gammas / gammas.sum(axis=1, keepdims=True)
    wanted = sorted(set(ks))
    values = _draw_votes(pi[:, 0], pi[:, 1 : 1 + width], pi[:, -1], wanted, ties)
    votes = {k: values[:, i].reshape(-1, draws) for i, k in enumerate(wanted)}
    controls, correlations = {}, {}
    for rate in sorted({_control_rate(k) for k in wanted}):
        means, covariance = _control_moments(states, rate, prior)
        tau = np.repeat(rate / alpha.sum(axis=1), draws)
        columns = np.concatenate([
            gammas[:, :1],
            control_values(tau * gammas[:, 0], tau[:, None] * gammas[:, 1 : 1 + width]),
        ], axis=1).reshape(-1, draws, 3) - means[:, None, :]
        # Scaled by the exact sd (1 where a control is constant): the least squares of
        # :func:`_posterior_variance` then see numbers of one size at any prior.
        sd = np.sqrt(np.maximum(np.diagonal(covariance, axis1=1, axis2=2), 0.0))
        sd = np.where(sd > 0, sd, 1.0)
        controls[rate] = columns / sd[:, None, :]
        correlations[rate] = covariance / (sd[:, :, None] * sd[:, None, :])
    return _Samples(votes, controls, correlations)


def _posterior_variance(states: _Clusters, k: int, ties: str, prior: float, means: FloatArray,
                        draws: int, seed: int, samples: _Samples | None = None) -> FloatArray:
    """Var[g_k(pi)] per state from ``draws`` seeded Dirichlet samples, with control variates.

    Each sample pi_i = G_i / sum(G_i) gives y_i = g_k(pi_i) - E[g_k] (exact g_k, exact
    mean) and the controls h_i = (G_ref, c_strict(G_i), c_weak(G_i)), the Poissonised
    votes of :mod:`kpass._core.vote_poisson` at the rate :func:`_control_rate` (k),
    minus their exact means; their covariance Sigma is exact too. With b the
    least-squares fit of y on h over the D samples of a state,
    Var = b' Sigma b + sum((y - h b)^2) / (D - 3): only the part of g_k that the
    controls leave unexplained (about 0.4% of its variance at k = 64 on typical data)
    is left to sampling, with the residual's degrees of freedom.
    ``samples``: the result of :func:`_samples` for the same states, draws and seed,
    with k among its votes (shared by every sampled k of one call).
    """
    samples = samples or _samples(states, [k], ties, prior, draws, seed)
    rate = _control_rate(k)
    controls, covariance = samples.controls[rate], samples.covariance[rate]
    deviations = samples.votes[k] - means[:, None]
    # Least squares per state; pinv keeps a degenerate state (a constant control) finite.
    gram = np.einsum("sdi,sdj->sij", controls, controls)
    slope = np.einsum("sij,sj->si", np.linalg.pinv(gram),
                      np.einsum("sdi,sd->si", controls, deviations))
    residual = deviations - np.einsum("sdi,si->sd", controls, slope)
    explained = np.einsum("si,sij,sj->s", slope, covariance, slope)
    freedom = max(draws - controls.shape[2], 1)
    return explained + np.sum(residual**2, axis=1) / freedom

__all__ = ["vote_at_k", "vote_at_k_ci"]
