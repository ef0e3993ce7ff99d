"""``kpass report``: which metrics, which k, and the numbers for each outcome file.

Every metric row holds the point estimate (the family's unbiased estimator) and
the posterior mean, standard deviation and credible interval of the matching
``*_ci`` function, all computed from the per-question counts that
:mod:`kpass.io.formats.readers` produced, so no outcome matrix is ever held in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import registry
from .._core.counting.checks import InputError
from .._core.moments.prior import posterior_options
from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from ..stats.errors import estimates_and_standard_errors, standard_errors_by_k
from .rows import Row

FULL_LADDER_UP_TO = 8
"""Up to this n the default k ladder is every k = 1..n; above it, powers of two and n."""
DEFAULT_K_MAX = 512

#: The note every command prints with ``--prior empirical``.
PRIOR_NOTE = ("--prior empirical: the posterior columns use, per run, the Beta prior fitted "
              "to its questions (maximum likelihood) instead of the uniform Beta(1,1); they "
              "stay statements about these questions with unlimited samples (rows without a "
              "Beta posterior, such as vote@k, keep their own prior)")
"""The largest default k. The Maj@k, mG-Pass@k, G-Pass@k and AUC@k intervals cost O(k^2):
about 0.3 s for all of them at k = 512, 3 s at k = 1024, 20 s at k = 4096 (2 cores), so a
default ladder ending at n made the report grow as N^2 (64 s measured at N = 8000, M = 50;
1.4 s with this cap). Larger k are reported when asked for with ``--k``."""


@dataclass(frozen=True)
class Family:
    """A metric family as ``kpass report`` shows it: a view of a :class:`kpass.registry.Family`.

    Attributes:
        key: the name used by ``--metrics`` and in JSON/CSV output, e.g. ``pass^k``
            (the registry's ``report`` name).
        function: the kpass point function; its ``_ci`` companion gives the posterior.
        title: the row label, with ``{k}``, ``{tau}`` or ``{n}`` filled in.
        aliases: other names accepted by ``--metrics``.
        per_k: whether the metric has a k (avg@n does not).
        uses_tau: whether the metric takes the G-Pass threshold tau.
        default: shown when ``--metrics`` is not given.
        answers: computed from sampled answers and references (``--answers``).
        constant_at: the k at which the metric is constant by definition (mG-Pass@1 is 0:
            its thresholds above 1/2 are empty at k = 1); comparing it there tests nothing.
        registry_key: the registry's key (:attr:`kpass.registry.Family.key`), also accepted
            by ``--metrics`` where it differs from ``key`` (``g-pass@k_tau``,
            ``geo_spectrum_star@k``).
    """

    key: str
    function: str
    title: str
    aliases: tuple[str, ...] = ()
    per_k: bool = True
    uses_tau: bool = False
    default: bool = True
    answers: bool = False
    constant_at: tuple[int, ...] = ()
    registry_key: str = ""

    def label(self, k: int | None, tau: float | None, n: str) -> str:
        """The row label, e.g. ``Pass^3``, ``G-Pass@4_0.5``, ``Avg@4``."""
        return self.title.format(k=k, tau=f"{tau:g}" if tau is not None else "", n=n)


FAMILIES = tuple(Family(str(f.report), f.function, f.title, f.aliases, f.per_k, f.uses_tau,
                        f.default, f.answers, f.constant_at, f.key) for f in registry.REPORTED)
"""The families of ``--metrics``, in the order rows are shown, from :mod:`kpass.registry`."""

PLOTTED = tuple(str(f.report) for f in registry.REPORTED if f.plotted)
"""The families drawn by ``--plot``."""


def family(name: str) -> Family:
    """Look a family up by its ``--metrics`` name, an alias or its registry key (case-insensitive).

    The one resolver of every metric name the CLI takes (``--metrics`` of ``report``,
    ``compare``, ``leaderboard``, ``next``; ``plan --metric``).

    Args:
        name: e.g. ``pass^k``, ``pass_hat_k``, ``Maj@k``, ``g-pass@k_tau``.

    Returns:
        The family.

    Raises:
        ValueError: no family has that name.
    """
    wanted = name.strip().lower()
    for candidate in FAMILIES:
        if wanted in (candidate.key, candidate.registry_key) or wanted in candidate.aliases:
            return candidate
    names = ", ".join(f.key for f in FAMILIES)
    raise InputError(f"unknown metric {name!r}; choose from {names}, or all")


def parse_metrics(text: str | None, answers: bool = False) -> list[Family]:
    """The families named in a comma-separated ``--metrics`` value, in the canonical order.

    Args:
        text: e.g. ``"pass@k,pass^k"``, ``"all"``, or None for the defaults.
        answers: whether sampled answers are read (``--answers``): vote@k is then
            available and shown by default.

    Returns:
        The selected families, without duplicates.

    Raises:
        ValueError: an unknown name, an empty list, or vote@k without answers.
    """
    if text is None:
        return [f for f in FAMILIES if f.default or (answers and f.answers)]
    names = [name for name in text.split(",") if name.strip()]
    if not names:
        raise InputError("`--metrics` must name at least one metric")
    if any(name.strip().lower() == "all" for name in names):
        return [f for f in FAMILIES if answers or not f.answers]
    chosen = [family(name) for name in names]
    for fam in chosen:
        if fam.answers and not answers:
            raise InputError(f"{fam.key} votes over sampled answers; pass --answers and a file "
                             "with an answers and a reference column")
    keys = {fam.key for fam in chosen}
    return [f for f in FAMILIES if f.key in keys]


def default_ks(n: int) -> list[int]:
    """The default k ladder for questions with at least ``n`` samples.

    Every k up to 8 samples (so Pass^1..Pass^4 for four trials); beyond that the
    powers of two below n, then n itself, up to :data:`DEFAULT_K_MAX` (512).

    Args:
        n: the smallest number of samples of any question.

    Returns:
        The increasing list of k.

    Example:
        >>> default_ks(4), default_ks(80), default_ks(8000)[-3:]
        ([1, 2, 3, 4], [1, 2, 4, 8, 16, 32, 64, 80], [128, 256, 512])
    """
    if n <= FULL_LADDER_UP_TO:
        return list(range(1, n + 1))
    top = min(n, DEFAULT_K_MAX)
    ladder = []
    k = 1
    while k < top:
        ladder.append(k)
        k *= 2
    return ladder + [top]


def check_ks(loaded: LoadedFile, ks: list[int], short: str) -> None:
    """Refuse a k that some question cannot supply, naming where that question is.

    Args:
        loaded: the input.
        ks: the requested k.
        short: ``error`` (every question needs n >= k) or ``skip``.

    Raises:
        ReportError: a question has fewer than k samples and short is ``error``,
            or no question has k samples.
    """
    for k in ks:
        if k > loaded.n_max:
            raise ReportError(loaded.source, f"k={k} is larger than every question's number "
                                             f"of samples (at most n={loaded.n_max})")
        if k > loaded.n_min and short == "error":
            raise ReportError(loaded.source, f"the question has n={loaded.n_min} samples, fewer "
                                             f"than k={k}; choose --k up to {loaded.n_min}, or "
                                             "pass --short skip to leave such questions out at "
                                             "that k", loaded.shortest)


def compute_rows(loaded: LoadedFile, families: list[Family], ks: list[int], taus: list[float],
                 confidence: float, short: str = "error", answers: list[Any] | None = None,
                 ties: str = "fractional", clusters: np.ndarray | None = None,
                 prior: str = "uniform", interval_method: str = "auto") -> list[Row]:
    """Every selected metric at every k (and tau) for one input.

    Args:
        loaded: the input's counts.
        families: the metric families, in display order.
        ks: the k values (already checked with :func:`check_ks`).
        taus: G-Pass thresholds.
        confidence: credibility level of the intervals.
        short: ``error`` or ``skip`` for questions with fewer than k samples.
        answers: per question, its answers coded 0 for the reference (vote@k only).
        ties: how vote@k scores a tie that includes the reference.
        clusters: cluster codes 0..G-1, one per question (``kpass.stats._common._labels``),
            for CR2 standard errors with Bell-McCaffrey degrees of freedom; None for the
            plain standard error over questions.
        prior: the posterior's Beta prior, ``"uniform"`` or ``"empirical"`` (``--prior``).
        interval_method: which interval over questions Pass@k and Pass^k get
            (``--interval-method``): ``"auto"`` (the beta-binomial interval near 0 or 1 by
            :data:`kpass.stats.beta_binomial.RULE`, else the se-based one), ``"se-based"``
            or ``"beta-binomial"`` (wherever it applies).

    Returns:
        The rows, family by family, tau by tau, k by k.

    Raises:
        ReportError: kpass refused the input (the message names the metric).
    """
    from ..families import functions

    counts = loaded.counts
    n_label = str(loaded.n_min) if loaded.n_min == loaded.n_max else "n"
    used = {k: int(np.count_nonzero(counts.n_samples >= k)) for k in ks}
    extra: dict[str, Any] = {"short": short} if short != "error" else {}  # vote@k: `short`
    design = _design(counts, ks, clusters)
    clustered: dict[str, Any] = {} if clusters is None else {"clusters": clusters}
    rows: list[Row] = []
    for fam in families:
        if fam.answers:
            rows.extend(_vote_rows(loaded, fam, ks, used, answers, ties, confidence, extra,
                                   design))
            continue
        point = functions().get(fam.function)
        posterior = functions().get(fam.function + "_ci")
        if point is None or posterior is None:
            raise ReportError(loaded.source, f"metric {fam.key} needs kpass.{fam.function} and "
                                             f"kpass.{fam.function}_ci, which this kpass lacks")
        try:
            if not fam.per_k:
                mean, sd, lo, hi = posterior(counts, confidence=confidence, bounds=(0.0, 1.0),
                                             **posterior_options(posterior, counts, prior))
                both = (estimates_and_standard_errors(point, counts, None)
                        if registry.of_function(fam.function).values == "state"
                        and clusters is None else None)
                se: float | None
                if both:  # avg_ci's mean is avg's own estimate (the same float)
                    estimate, se = mean, both[1][0]
                else:
                    estimate, _ = point(counts)
                    se, = standard_errors_by_k(point, counts, None, **clustered)
                rows.append(Row(fam.key, fam.label(None, None, n_label), None, None,
                                counts.n_questions, *_floats(estimate, mean, sd, lo, hi)
                                ).with_se(se, confidence, *design[None]))
                continue
            for tau in taus if fam.uses_tau else [None]:
                head = () if tau is None else (tau,)
                # One evaluation per distinct state gives the estimates and their SEs.
                both = (estimates_and_standard_errors(point, counts, ks, *head)
                        if short == "error" else None)
                estimates = both[0] if both else _per_k(point, counts, ks, tau, short)
                posteriors = _per_k(posterior, counts, ks, tau, short, confidence=confidence,
                                    **posterior_options(posterior, counts, prior))
                ses = (both[1] if both and clusters is None else
                       standard_errors_by_k(point, counts, ks, *head, **extra, **clustered))
                for k, estimate, (mean, sd, lo, hi), se in zip(ks, estimates, posteriors, ses,
                                                              strict=True):
                    row = Row(fam.key, fam.label(k, tau, n_label), k, tau, used[k],
                              *_floats(estimate, mean, sd, lo, hi))
                    if k in fam.constant_at:  # 0 by definition: no interval (as compare)
                        row.se_method = "constant"
                    else:
                        row.with_se(se, confidence, *design[k])
                        _beta_binomial(row, fam.key, counts, interval_method,
                                       clusters is not None, confidence)
                    rows.append(row)
        except (TypeError, ValueError) as error:
            raise ReportError(loaded.source, f"{fam.key}: {error}") from None
    return rows


def _beta_binomial(row: Row, metric: str, counts: Any, choice: str, clustered: bool,
                   confidence: float) -> None:
    """Give a Pass@k or Pass^k row the beta-binomial interval where ``choice`` says so.

    :func:`kpass.stats.beta_binomial.uses_beta_binomial` decides (the ``auto`` rule: near
    0 or 1, no clusters, se > 0, not zero-inflated); the fit and the rule use the questions
    with at least k samples.
    """
    from ..stats.beta_binomial import beta_binomial_interval, uses_beta_binomial

    if row.k is None:
        return
    keep = counts.n_samples >= row.k
    if not uses_beta_binomial(choice, metric, row.k, row.estimate, row.se, row.questions,
                              clustered, n_samples=counts.n_samples[keep],
                              n_correct=counts.n_correct[keep]):
        return
    row.lo, row.hi = beta_binomial_interval(counts.n_samples[keep], counts.n_correct[keep],
                                            row.k, metric, row.estimate, confidence)
    row.se_method = "beta-binomial"


def _design(counts: Any, ks: list[int], clusters: np.ndarray | None
            ) -> dict[int | None, tuple[int, float]]:
    """(units, df) of the interval at each k (None: the metrics without k).

    Without clusters: (questions used, questions used - 1). With clusters: the clusters
    among the questions used at that k and the Bell-McCaffrey df of their CR2 SE.
    """
    from ..stats._common import _cluster_df

    out: dict[int | None, tuple[int, float]] = {}
    for k in [None, *ks]:
        keep = (np.ones(counts.n_questions, dtype=bool) if k is None
                else counts.n_samples >= k)
        m = int(np.count_nonzero(keep))
        if clusters is None:
            out[k] = (m, float(max(m - 1, 1)))
            continue
        codes = np.unique(clusters[keep], return_inverse=True)[1].ravel()
        groups = int(codes.max()) + 1 if codes.size else 0
        out[k] = (groups, _cluster_df(codes, m) if groups >= 2 else 1.0)
    return out


def clusters_summary(counts: Any, clusters: np.ndarray) -> dict[str, float]:
    """{"clusters": G, "df": Bell-McCaffrey df} of the CR2 SE over all questions."""
    from ..stats._common import _cluster_df

    return {"clusters": int(np.unique(clusters).size),
            "df": _cluster_df(clusters, counts.n_questions)}


def _per_k(function: Any, counts: Any, ks: list[int], tau: float | None, short: str,
           **options: Any) -> list[Any]:
    """``function(counts, ks[, tau], **options)`` with the short-question policy applied.

    A function that takes ``short`` gets it; for one that does not, ``skip`` is done
    here: at each k, the questions with at least k samples (what ``short="skip"``
    means everywhere else), so ``--metrics all --short skip`` works for every family.
    """
    import inspect

    head = () if tau is None else (tau,)
    if short == "error":
        return list(function(counts, ks, *head, **options))
    if "short" in inspect.signature(function).parameters:
        return list(function(counts, ks, *head, short=short, **options))
    values = []
    for k in ks:
        keep = counts.n_samples >= k
        part = counts if keep.all() else counts.select(keep)
        values.append(function(part, [k], *head, **options)[0])
    return values


def _vote_rows(loaded: LoadedFile, fam: Family, ks: list[int], used: dict[int, int],
               answers: list[Any] | None, ties: str, confidence: float,
               extra: dict[str, Any], design: dict[int | None, tuple[int, float]]
               ) -> list[Row]:
    from ..families import vote

    if answers is None:
        raise ReportError(loaded.source, f"{fam.key} needs the sampled answers (--answers)")
    references = [0] * len(answers)  # answers are coded 0 where they equal the reference
    try:
        estimates = vote.vote_at_k(answers, references, ks, ties=ties, **extra)
        posteriors = vote.vote_at_k_ci(answers, references, ks, ties=ties,
                                       confidence=confidence, **extra)
        ses = standard_errors_by_k(vote.vote_at_k, answers, ks, before_k=(references,),
                                   ties=ties, **extra)
    except (TypeError, ValueError) as error:
        raise ReportError(loaded.source, f"{fam.key}: {error}") from None
    return [Row(fam.key, fam.label(k, None, ""), k, None, used[k],
                *_floats(estimate, mean, sd, lo, hi)).with_se(se, confidence, *design[k])
            for k, estimate, (mean, sd, lo, hi), se in zip(ks, estimates, posteriors, ses,
                                                          strict=True)]


def soft_rows(loaded: LoadedFile, confidence: float) -> list[Row]:
    """The mean soft score row of an input read with a threshold (none otherwise).

    "accuracy (n runs average)" (seed 002, part III): each question's mean score
    over its samples, averaged over questions; sd is its standard error over
    questions and the "credible" interval is the normal one, mean +- z * se, clipped to
    [0, 1] as every interval of the report (issue 28: it printed [-0.160, 0.493]).
    """
    soft = getattr(loaded, "soft", None)
    if soft is None:
        return []
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    m = loaded.counts.n_questions
    row = Row("accuracy", "accuracy (n runs average)", None, None, m, soft.mean, soft.mean,
              soft.se, min(max(soft.mean - z * soft.se, 0.0), 1.0),
              min(max(soft.mean + z * soft.se, 0.0), 1.0))
    return [row.with_se(soft.se if m > 1 else None, confidence)]


def _floats(estimate: Any, mean: Any, sd: Any, lo: Any, hi: Any
            ) -> tuple[float, float, float, float, float]:
    return float(estimate), float(mean), float(sd), float(lo), float(hi)


def named_sources(items: list[str]) -> tuple[list[str | None], list[str]]:
    """The names and paths of ``NAME=PATH`` or ``PATH`` arguments (None: not named).

    An argument that exists as a file is always a path, even when it contains ``=``.
    ``kpass report``, ``compare`` and ``leaderboard`` read their inputs' names so.

    Raises:
        ReportError: an empty name before ``=``, or two inputs given one name.

    Example:
        >>> named_sources(["gpt=runs/a.jsonl", "runs/b.jsonl"])
        (['gpt', None], ['runs/a.jsonl', 'runs/b.jsonl'])
    """
    from pathlib import Path

    names: list[str | None] = []
    paths: list[str] = []
    for item in items:
        name, separator, path = item.partition("=")
        if separator and not Path(item).exists():
            if not name.strip():
                raise ReportError(item, "an empty model name before '='; write NAME=PATH")
            if name.strip() in names:
                raise ReportError(item, f"two models are named {name.strip()!r}; give each "
                                        "its own NAME=")
            names.append(name.strip())
            paths.append(path)
        else:
            names.append(None)
            paths.append(item)
    return names, paths


def input_labels(sources: list[str], names: list[str | None] | None = None) -> list[str]:
    """Short, distinct column names for the inputs: file names, or paths where names clash.

    ``names`` (from ``NAME=PATH``) are used as given where not None.
    """
    from pathlib import Path

    from ..io.harness.inspect_log import inspect_labels

    models = inspect_labels(sources)  # an Inspect log is named by its model
    given = names or [None] * len(sources)
    found = [model or Path(source).name or source
             for model, source in zip(models, sources, strict=True)]
    labels = [mine or (name if found.count(name) == 1 else source)
              for mine, name, source in zip(given, found, sources, strict=True)]
    return [label if labels.count(label) == 1 else f"{label} #{index + 1}"
            for index, label in enumerate(labels)]
