"""``kpass report``: which metrics, which k, and the numbers for each outcome file.

Every metric row holds the point estimate (the family's unbiased estimator) and
the posterior mean, standard deviation and credible interval of the matching
``*_ci`` function, all computed from the per-question counts that
:mod:`kpass.io.readers` produced, so no outcome matrix is ever held in memory.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import registry
from ..io.readers import LoadedFile, ReportError
from ..stats import estimates_and_standard_errors, standard_errors_by_k

LEGEND_WIDTH = 96
FULL_LADDER_UP_TO = 8
"""Up to this n the default k ladder is every k = 1..n; above it, powers of two and n."""
DEFAULT_K_MAX = 512
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

    def label(self, k: int | None, tau: float | None, n: str) -> str:
        """The row label, e.g. ``Pass^3``, ``G-Pass@4_0.5``, ``Avg@4``."""
        return self.title.format(k=k, tau=f"{tau:g}" if tau is not None else "", n=n)


FAMILIES = tuple(Family(str(f.report), f.function, f.title, f.aliases, f.per_k, f.uses_tau,
                        f.default, f.answers, f.constant_at) for f in registry.REPORTED)
"""The families of ``--metrics``, in the order rows are shown, from :mod:`kpass.registry`."""

CONSTANT_AT = registry.constant_at()
"""Family key -> the k at which it is constant by definition."""

PLOTTED = tuple(str(f.report) for f in registry.REPORTED if f.plotted)
"""The families drawn by ``--plot``."""


def family(name: str) -> Family:
    """Look a family up by key or alias (case-insensitive).

    Args:
        name: e.g. ``pass^k``, ``pass_hat_k``, ``Maj@k``.

    Returns:
        The family.

    Raises:
        ValueError: no family has that name.
    """
    wanted = name.strip().lower()
    for candidate in FAMILIES:
        if wanted == candidate.key or wanted in candidate.aliases:
            return candidate
    names = ", ".join(f.key for f in FAMILIES)
    raise ValueError(f"unknown metric {name!r}; choose from {names}, or all")


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
        raise ValueError("`--metrics` must name at least one metric")
    if any(name.strip().lower() == "all" for name in names):
        return [f for f in FAMILIES if answers or not f.answers]
    chosen = [family(name) for name in names]
    for fam in chosen:
        if fam.answers and not answers:
            raise ValueError(f"{fam.key} votes over sampled answers; pass --answers and a file "
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


@dataclass
class Row:
    """One metric at one k (and tau) for one input.

    ``se`` is the standard error over questions (None with fewer than 2 questions) and
    ``se_lo``, ``se_hi`` the interval estimate -/+ t se clipped to [0, 1], t the quantile of
    Student's t with questions - 1 degrees of freedom; ``mean``,
    ``sd``, ``lo``, ``hi`` are the Bayesian posterior's (questions held fixed).
    """

    metric: str
    label: str
    k: int | None
    tau: float | None
    questions: int
    estimate: float
    mean: float
    sd: float
    lo: float
    hi: float
    se: float | None = None
    se_lo: float | None = None
    se_hi: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields."""
        return {
            "metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
            "questions": self.questions, "estimate": self.estimate, "se": self.se,
            "se_lo": self.se_lo, "se_hi": self.se_hi, "mean": self.mean,
            "sd": self.sd, "lo": self.lo, "hi": self.hi,
        }

    def in_percent(self) -> Row:
        """A copy with every value, SE and interval end x 100 (the percent tables)."""
        names = ("estimate", "mean", "sd", "lo", "hi", "se", "se_lo", "se_hi")
        scaled: dict[str, Any] = {name: None if getattr(self, name) is None
                                  else 100.0 * getattr(self, name) for name in names}
        return replace(self, **scaled)

    def with_se(self, se: float | None, confidence: float) -> Row:
        """Set the standard error over questions and the interval it gives; return the row."""
        if se is not None:
            from .._core.small_sample import t_test

            self.se = float(se)
            lo, hi, _, _ = t_test(self.estimate, self.se, confidence, max(self.questions - 1, 1))
            self.se_lo, self.se_hi = min(max(lo, 0.0), 1.0), min(max(hi, 0.0), 1.0)
        return self


@dataclass
class Report:
    """The numbers for every input, row-aligned across inputs.

    Attributes:
        inputs: the files read.
        labels: a short name for each input (column headers).
        rows: for each input, its rows, in the same metric/k/tau order for all.
        confidence: the credibility level of the intervals.
        short: the policy for questions with fewer than k samples.
        notes: lines printed under the table (data attribution and the like).
        warnings: problems worth a look that did not stop the run (also on stderr),
            e.g. no answer of a whole file matching its reference.
    """

    inputs: list[LoadedFile]
    labels: list[str]
    rows: list[list[Row]]
    confidence: float
    short: str
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


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
                 ties: str = "fractional") -> list[Row]:
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
    rows: list[Row] = []
    for fam in families:
        if fam.answers:
            rows.extend(_vote_rows(loaded, fam, ks, used, answers, ties, confidence, extra))
            continue
        point = functions().get(fam.function)
        posterior = functions().get(fam.function + "_ci")
        if point is None or posterior is None:
            raise ReportError(loaded.source, f"metric {fam.key} needs kpass.{fam.function} and "
                                             f"kpass.{fam.function}_ci, which this kpass lacks")
        try:
            if not fam.per_k:
                mean, sd, lo, hi = posterior(counts, confidence=confidence, bounds=(0.0, 1.0))
                both = (estimates_and_standard_errors(point, counts, None)
                        if fam.function == "avg" else None)
                se: float | None
                if both:  # avg_ci's mean is avg's own estimate (the same float)
                    estimate, se = mean, both[1][0]
                else:
                    estimate, _ = point(counts)
                    se, = standard_errors_by_k(point, counts, None)
                rows.append(Row(fam.key, fam.label(None, None, n_label), None, None,
                                counts.n_questions, *_floats(estimate, mean, sd, lo, hi)
                                ).with_se(se, confidence))
                continue
            for tau in taus if fam.uses_tau else [None]:
                head = () if tau is None else (tau,)
                # One evaluation per distinct state gives the estimates and their SEs.
                both = (estimates_and_standard_errors(point, counts, ks, *head)
                        if short == "error" else None)
                estimates = both[0] if both else _per_k(point, counts, ks, tau, short)
                posteriors = _per_k(posterior, counts, ks, tau, short, confidence=confidence)
                ses = both[1] if both else standard_errors_by_k(point, counts, ks, *head, **extra)
                for k, estimate, (mean, sd, lo, hi), se in zip(ks, estimates, posteriors, ses,
                                                              strict=True):
                    rows.append(Row(fam.key, fam.label(k, tau, n_label), k, tau, used[k],
                                    *_floats(estimate, mean, sd, lo, hi)).with_se(se, confidence))
        except (TypeError, ValueError) as error:
            raise ReportError(loaded.source, f"{fam.key}: {error}") from None
    return rows


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
               extra: dict[str, Any]) -> list[Row]:
    from .. import vote

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
                *_floats(estimate, mean, sd, lo, hi)).with_se(se, confidence)
            for k, estimate, (mean, sd, lo, hi), se in zip(ks, estimates, posteriors, ses,
                                                          strict=True)]


def soft_rows(loaded: LoadedFile, confidence: float) -> list[Row]:
    """The mean soft score row of an input read with a threshold (none otherwise).

    "accuracy (n runs average)" (seed 002, part III): each question's mean score
    over its samples, averaged over questions; sd is its standard error over
    questions and the interval is the normal one, mean +- z * se.
    """
    soft = getattr(loaded, "soft", None)
    if soft is None:
        return []
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    m = loaded.counts.n_questions
    row = Row("accuracy", "accuracy (n runs average)", None, None, m, soft.mean, soft.mean,
              soft.se, soft.mean - z * soft.se, soft.mean + z * soft.se)
    return [row.with_se(soft.se if m > 1 else None, confidence)]


def _floats(*values: Any) -> tuple[float, ...]:
    return tuple(float(value) for value in values)


def input_labels(sources: list[str]) -> list[str]:
    """Short, distinct column names for the inputs: file names, or paths where names clash."""
    from pathlib import Path

    names = [Path(source).name or source for source in sources]
    labels = [name if names.count(name) == 1 else source
              for name, source in zip(names, sources, strict=True)]
    return [label if labels.count(label) == 1 else f"{label} #{index + 1}"
            for index, label in enumerate(labels)]


# ----------------------------------------------------------------------------- rendering


def _describe(loaded: LoadedFile) -> str:
    m = loaded.counts.n_questions
    samples = (f"{loaded.n_min} samples each" if loaded.n_min == loaded.n_max
               else f"{loaded.n_min} to {loaded.n_max} samples each")
    column = f", column `{loaded.column}`" if loaded.column else ""
    left_out = f", {len(loaded.bad_rows)} unreadable rows left out" if loaded.bad_rows else ""
    return f"{m} question{'s' if m != 1 else ''}, {samples}{column}{left_out}"


def _interval_title(confidence: float) -> str:
    return f"{confidence * 100:g}% interval"


def _credible_title(confidence: float) -> str:
    return f"{confidence * 100:g}% credible"


def _columns(report: Report, with_questions: bool) -> list[str]:
    """The sub-columns of one input: estimate and SE over questions, then the posterior."""
    return (["questions"] if with_questions else []) + [
        "estimate", "se", _interval_title(report.confidence), "mean", "sd",
        _credible_title(report.confidence)]


def _show_questions(report: Report) -> bool:
    return any(row.questions < loaded.counts.n_questions
               for loaded, rows in zip(report.inputs, report.rows, strict=True) for row in rows)


def _row_labels(report: Report) -> list[str]:
    first = report.rows[0]
    labels = []
    for index, row in enumerate(first):
        if row.k is None and len({rows[index].label for rows in report.rows}) > 1:
            labels.append("Avg@n")
        else:
            labels.append(row.label)
    return labels


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, never ``-0.000`` (a zero has no sign here)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def _cells(row: Row, digits: int, with_questions: bool) -> list[str]:
    if row.se is None or row.se_lo is None or row.se_hi is None:
        over_questions = ["n/a", "n/a"]  # fewer than 2 questions: no SE over questions
    else:
        over_questions = [fixed(row.se, digits),
                          f"[{fixed(row.se_lo, digits)}, {fixed(row.se_hi, digits)}]"]
    cells = [fixed(row.estimate, digits), *over_questions, fixed(row.mean, digits),
             fixed(row.sd, digits), f"[{fixed(row.lo, digits)}, {fixed(row.hi, digits)}]"]
    return ([str(row.questions)] if with_questions else []) + cells


def render_table(report: Report, digits: int = 3) -> str:
    """A plain-text table for the terminal, inputs side by side.

    Args:
        report: the numbers.
        digits: decimals shown.

    Returns:
        The table with a header line per input and notes underneath.
    """
    with_questions = _show_questions(report)
    sub = _columns(report, with_questions)
    labels = _row_labels(report)
    body = [[label] + [cell for rows in report.rows
                       for cell in _cells(rows[index], digits, with_questions)]
            for index, label in enumerate(labels)]
    header = ["metric"] + sub * len(report.inputs)
    widths = [max(len(line[i]) for line in [header] + body) for i in range(len(header))]
    group = len(sub)
    gap = "   "

    left = [i == 0 or name.endswith(("interval", "credible")) for i, name in enumerate(header)]

    def line(cells: list[str]) -> str:
        parts = [cells[0].ljust(widths[0])]
        for index, cell in enumerate(cells[1:], 1):
            separator = gap if (index - 1) % group == 0 else "  "
            parts.append(separator + (cell.ljust(widths[index]) if left[index]
                                      else cell.rjust(widths[index])))
        return "".join(parts).rstrip()

    out = []
    for label, loaded in zip(report.labels, report.inputs, strict=True):
        out.append(f"{label}: {_describe(loaded)}")
    out.append("")
    if len(report.inputs) > 1:
        titles = [widths[0] * " "]
        for position, label in enumerate(report.labels):
            span = sum(widths[1 + position * group:1 + (position + 1) * group]) + 2 * (group - 1)
            titles.append(gap + label[:span].ljust(span))
        out.append("".join(titles).rstrip())
    out.append(line(header))
    out.extend(line(cells) for cells in body)
    out.append("")
    out.extend(_legend(report))
    return "\n".join(out) + "\n"


def _legend(report: Report) -> list[str]:
    paragraphs = [
        "estimate: the unbiased estimator from the samples. se and "
        f"{_interval_title(report.confidence)}: standard error over questions and estimate "
        "-/+ t se, t from Student's t with questions - 1 degrees of freedom, for questions "
        "like these (the questions a sample; Miller 2024). mean, sd "
        f"and {_credible_title(report.confidence)}: posterior under a uniform Beta(1,1) prior "
        "per question, for these very questions with unlimited samples (the questions held "
        "fixed), normal approximation. Intervals clipped to [0, 1].",
    ]
    if any(row.metric == "vote@k" for row in report.rows[0]):
        paragraphs.append("Vote@k: a plurality vote over k of the answers, exact over all "
                          "k-subsets; mean, sd under a Dirichlet(1, ...) posterior over each "
                          "question's answers.")
    if any(row.metric == "accuracy" for row in report.rows[0]):
        paragraphs.append("accuracy (n runs average): the mean soft score of each question's "
                          "samples, averaged over questions; it has no posterior: its mean, sd "
                          "and interval repeat the estimate, its standard error over questions "
                          "and the normal interval. The other metrics count a sample correct "
                          "iff its score > --threshold.")
    if _show_questions(report):
        paragraphs.append("questions: those with at least k samples (--short skip leaves the "
                          "others out at that k).")
    return [line for paragraph in paragraphs + report.notes + small_sample_notes(report)
            for line in _wrapped(paragraph)]


def small_sample_notes(report: Report) -> list[str]:
    """Notes on rows whose standard error cannot carry its confidence level.

    One note per input: fewer than 30 questions, a standard error of 0, or an estimate
    within 5 questions' worth of 0 or 1 (:mod:`kpass._core.small_sample`); the rows named.
    """
    from .._core.small_sample import FEW_EVENTS, FEW_QUESTIONS

    notes = []
    several = len(report.rows) > 1
    for label, rows in zip(report.labels, report.rows, strict=True):
        with_se = [row for row in rows if row.se is not None and row.metric != "accuracy"
                   and not (row.k is not None and row.metric in CONSTANT_AT
                            and row.k in CONSTANT_AT[row.metric])]  # 0 by definition
        if not with_se:
            continue
        where = f" ({label})" if several else ""
        m = min(row.questions for row in with_se)
        if m < FEW_QUESTIONS:
            notes.append(f"note{where}: only {m} questions (fewer than {FEW_QUESTIONS}): the "
                         "se intervals use Student's t and rest on few questions; read them as "
                         "rough, and compare models with `kpass compare` (exact sign-flip p).")
        zero = [row.label for row in with_se if row.se == 0.0]
        if zero:
            notes.append(f"note{where}: se = 0 for {', '.join(zero[:6])}"
                         f"{' ...' if len(zero) > 6 else ''}: every question agrees, so the "
                         "spread is not estimated and the se interval says nothing.")
        near = [row.label for row in with_se if row.se != 0.0 and row.questions >= FEW_QUESTIONS
                and min(row.estimate, 1.0 - row.estimate) * row.questions < FEW_EVENTS]
        if near:
            notes.append(f"note{where}: {', '.join(near[:6])}{' ...' if len(near) > 6 else ''}"
                         f" within {FEW_EVENTS} questions' worth of 0 or 1: the se is "
                         "unreliable for such rare events; prefer the credible interval.")
    return notes


@functools.lru_cache(maxsize=64)
def _wrapped(paragraph: str) -> tuple[str, ...]:
    """``textwrap.wrap`` of a legend paragraph (cached: the same few in every report)."""
    import textwrap

    return tuple(textwrap.wrap(paragraph, width=LEGEND_WIDTH))


def render_markdown(report: Report, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table, inputs side by side.

    Args:
        report: the numbers.
        digits: decimals shown.

    Returns:
        The table (no notes; a paper's caption should say what the columns are).
    """
    with_questions = _show_questions(report)
    sub = _columns(report, with_questions)
    many = len(report.inputs) > 1
    header = ["metric"] + [f"{label} {name}" if many else name
                           for label in report.labels for name in sub]
    align = [":---"] + [":---" if name.endswith(("interval", "credible")) else "---:"
                        for _ in report.labels for name in sub]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    for index, label in enumerate(_row_labels(report)):
        cells = [label] + [cell for rows in report.rows
                           for cell in _cells(rows[index], digits, with_questions)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


CSV_FIELDS = ("file", "metric", "label", "k", "tau", "questions", "estimate", "se", "se_lo",
              "se_hi", "mean", "sd", "lo", "hi", "confidence")


def render_csv(report: Report) -> str:
    """One CSV line per input, metric, k and tau, at full precision.

    Args:
        report: the numbers.

    Returns:
        The CSV text with a header line.
    """
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for label, rows in zip(report.labels, report.rows, strict=True):
        for row in rows:
            fields = row.as_dict()
            fields.update(file=label, confidence=report.confidence)
            writer.writerow({key: "" if value is None else value for key, value in fields.items()})
    return buffer.getvalue()


def render_json(report: Report) -> str:
    """The report as JSON: the inputs described, then one object per result row.

    Args:
        report: the numbers.

    Returns:
        Indented JSON text.
    """
    import json

    document = {
        "confidence": report.confidence,
        "prior": {"alpha0": 1.0, "beta0": 1.0},
        "short": report.short,
        "inputs": [
            {
                "file": label, "path": loaded.source, "column": loaded.column,
                "questions": loaded.counts.n_questions, "n_min": loaded.n_min,
                "n_max": loaded.n_max,
                "bad_rows": [{"where": where, "problem": problem}
                             for where, problem in loaded.bad_rows],
            }
            for label, loaded in zip(report.labels, report.inputs, strict=True)
        ],
        "results": [
            {"file": label, **row.as_dict()}
            for label, rows in zip(report.labels, report.rows, strict=True) for row in rows
        ],
        "notes": report.notes + small_sample_notes(report),
        "warnings": report.warnings,
    }
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}
