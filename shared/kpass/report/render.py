"""``kpass report``'s outputs: the terminal table, markdown, CSV and JSON of a :class:`Report`.

The numbers are computed by :mod:`kpass.report.table`; this only lays them out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import registry
from ..io.formats.readers import LoadedFile
from .cost import summary_records
from .output import brief
from .rows import LEGEND_WIDTH, Report, Row, markdown_cell

CONSTANT_AT = registry.constant_at()
_BY_REPORT = {f.report: f for f in registry.REPORTED}


def _shows(report: Report, test: Callable[[registry.Family], bool]) -> bool:
    """Whether the first input's rows hold a family (by ``--metrics`` name) passing ``test``."""
    families = [_BY_REPORT.get(row.metric) for row in report.rows[0]]
    return any(fam is not None and test(fam) for fam in families)
"""Family key -> the k at which it is constant by definition."""


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
    posterior = (["mean", "sd", _credible_title(report.confidence)]
                 if report.shows_posterior else [])
    return (["questions"] if with_questions else []) + [
        "estimate", "se", _interval_title(report.confidence), *posterior]


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


def _cells(row: Row, digits: int, with_questions: bool, posterior: bool = True) -> list[str]:
    if row.se_method == "constant":  # mG-Pass@1: 0 by definition, nothing to estimate
        over_questions = ["-", "constant"]
    elif row.se is None or row.lo is None or row.hi is None:
        over_questions = ["n/a", "n/a"]  # fewer than 2 questions: no SE over questions
    else:
        over_questions = [fixed(row.se, digits),
                          f"[{fixed(row.lo, digits)}, {fixed(row.hi, digits)}]"]
    cells = [fixed(row.estimate, digits), *over_questions]
    if posterior:
        cells += [fixed(row.mean, digits), fixed(row.sd, digits),
                  f"[{fixed(row.cred_lo, digits)}, {fixed(row.cred_hi, digits)}]"]
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
                       for cell in _cells(rows[index], digits, with_questions,
                                          report.shows_posterior)]
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
    for index, (label, loaded) in enumerate(zip(report.labels, report.inputs, strict=True)):
        out.append(f"{label}: {_describe(loaded)}")
        run = report.runs[index] if report.runs else None
        if run is not None:
            out.append(f"  {run.line()}")
    if report.breakdowns:
        out.append(_aggregate_title(report))
    out.append("")
    if len(report.inputs) > 1:
        titles = [widths[0] * " "]
        for position, label in enumerate(report.labels):
            span = sum(widths[1 + position * group:1 + (position + 1) * group]) + 2 * (group - 1)
            titles.append(gap + label[:span].ljust(span))
        out.append("".join(titles).rstrip())
    out.append(line(header))
    out.extend(line(cells) for cells in body)
    if report.cost_lines:
        out.append("")
        out.extend(report.cost_lines)
    if report.breakdowns:
        out.append("")
        out.extend(breakdown_lines(report, digits))
    below = _legend(report) if report.explain else _attention(report)
    if below:
        out.append("")
        out.extend(below)
    return "\n".join(out) + "\n"


def _aggregate_title(report: Report) -> str:
    """The line naming the aggregate's groups and weighting (``--group``)."""
    from .groups import weights_phrase

    assert report.breakdowns
    first = report.breakdowns[0]
    counts = sorted({len(breakdown.groups) for breakdown in report.breakdowns})
    groups = " to ".join(map(str, counts))
    return (f"aggregate of {groups} groups by `{first.column}`, stratified: "
            f"{weights_phrase(first.weights)}")


def breakdown_lines(report: Report, digits: int, markdown: bool = False) -> list[str]:
    """One line per group of the first metric row: questions, estimate, se and interval.

    Inputs sit side by side as in the main table; a group an input lacks shows ``-``.
    Every row of every group is in ``--format json`` and ``csv``.
    """
    assert report.breakdowns
    first_row = report.rows[0][0]
    names = list(dict.fromkeys(name for breakdown in report.breakdowns
                               for name in breakdown.groups))
    several = len(report.inputs) > 1
    if several:  # a matrix: one cell per input, estimate [interval]
        sub = ["questions"]
        header = ["group", "questions"] + list(report.labels)
    else:
        sub = ["questions", "estimate", "se", _interval_title(report.confidence)]
        header = ["group"] + sub
    body = []
    for name in names:
        cells = [str(name)]
        found = [breakdown.rows[breakdown.groups.index(name)][0]
                 if name in breakdown.groups else None for breakdown in report.breakdowns]
        if several:
            sizes = {row.questions for row in found if row is not None}
            cells.append(str(sizes.pop()) if len(sizes) == 1 else "varies")
            for row in found:
                if row is None:
                    cells.append("-")
                    continue
                estimate, *interval = _cells(row, digits, False, posterior=False)
                cells.append(f"{estimate} {interval[1]}" if interval[0] not in ("n/a", "-")
                             else estimate)
        else:
            cells += _cells(found[0], digits, True, posterior=False) if found[0] else ["-"] * 4
        body.append(cells)
    shown = (f", estimate [{_interval_title(report.confidence)}]" if several else "")
    title = (f"by {report.breakdowns[0].column}, {first_row.label}{shown} (every metric per "
             "group: --format json or csv):")
    if markdown:
        align = [":---" if index == 0 or name.endswith("interval") or several and index > 1
                 else "---:" for index, name in enumerate(header)]
        return [title, "", "| " + " | ".join(map(markdown_cell, header)) + " |",
                "| " + " | ".join(align) + " |",
                *("| " + " | ".join(map(markdown_cell, cells)) + " |" for cells in body)]
    widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
    left = [i == 0 or name.endswith("interval") for i, name in enumerate(header)]
    lines = [title]
    for cells in [header] + body:
        lines.append("  ".join(cell.ljust(widths[i]) if left[i] else cell.rjust(widths[i])
                               for i, cell in enumerate(cells)).rstrip())
    return lines


def _attention(report: Report, wrap: bool = True) -> list[str]:
    """Under the default table: the notes (each on one short line) and what needs attention.

    The data's attribution (the bundled samples') is printed whole (wrapped unless
    ``wrap`` is False); every other note and condition gets one short line, ending in
    ``(--explain)`` where ``--explain`` prints more.
    """
    whole = _wrapped if wrap else (lambda note: (note,))
    lines = [line for note in report.notes
             for line in (whole(note) if note.startswith("Sample data:") else [brief(note)])]
    lines += [short for short, _ in _small_sample(report)]
    if not report.shows_posterior:
        lines.append("one sample per question: the posterior columns are hidden (--posterior "
                     "shows them; --explain)")
    single = max((sum(size == 1 for size in breakdown.sizes)
                  for breakdown in report.breakdowns or []), default=0)
    if single:
        lines.append(f"{single} group{'s' if single > 1 else ''} of one question: the aggregate "
                     f"gives {'them' if single > 1 else 'it'} the pooled within-group variance "
                     "(--explain)")
    return lines


def _legend(report: Report) -> list[str]:
    interval = _interval_title(report.confidence)
    over = ("standard error over questions" if report.clusters is None else
            "standard error over clusters (CR2, Bell and McCaffrey 2002)")
    df = ("questions - 1 degrees of freedom" if report.clusters is None else
          "the Bell-McCaffrey degrees of freedom")
    paragraphs = [
        f"estimate: the unbiased estimator from the samples. se and {interval}: {over} and a "
        "confidence interval for questions like these (the questions a sample; Miller 2024): "
        f"estimate -/+ t se with t from Student's t with {df} (method t); near 0 or 1 widened "
        "to a Wilson score interval on the effective number of questions (score); for "
        "Pass@k and Pass^k near 0 or 1 a profile-likelihood interval of a beta-binomial fitted "
        "to the per-question counts (beta-binomial; --interval-method); when se = "
        "0, an exact bound for that many questions all alike (exact). Never of width 0; the "
        "rows not of method t are named below. mean, sd "
        f"and {_credible_title(report.confidence)}: posterior under "
        + ("the Beta prior fitted to each run (--prior empirical, below)"
           if any(note.startswith("--prior empirical") for note in report.notes)
           else "a uniform Beta(1,1) prior") + " "
        "per question, a statement about these very questions with unlimited samples (the "
        "questions held fixed), not about questions like them, normal approximation; it can "
        "disagree with the estimate because the prior pulls every question's rate towards "
        "1/2. Intervals clipped to [0, 1].",
    ]
    if not report.shows_posterior:
        paragraphs.append("With one sample per question the posterior columns are hidden: "
                          "one 0/1 outcome leaves each question's posterior mostly the prior, "
                          "so they describe another quantity than the estimate; --posterior "
                          "shows them (the CSV and JSON outputs always hold them).")
    if _shows(report, lambda fam: fam.answers):  # Vote@k
        paragraphs.append("Vote@k: a plurality vote over k of the answers, exact over all "
                          "k-subsets; mean, sd under a Dirichlet(1, ...) posterior over each "
                          "question's answers.")
    if _shows(report, lambda fam: not fam.per_k and fam.values == "state"):  # Avg@n
        paragraphs.append("Avg@n: its mean is the plain average (not shrunk toward 1/2 as "
                          "Pass@1's) and its sd the Bayes@N posterior sd on the average's scale "
                          "(Hariri et al. 2026, Eq. 20: wider with few samples), so its mean, sd "
                          "and credible interval differ from Pass@1's for the same quantity.")
    if any(row.metric == "accuracy" for row in report.rows[0]):
        paragraphs.append("accuracy (n runs average): the mean soft score of each question's "
                          "samples, averaged over questions; it has no posterior: its mean, sd "
                          "and credible interval repeat the estimate, its standard error over "
                          "questions and the normal interval, clipped to [0, 1]. The other "
                          "metrics count a sample correct iff its score > --threshold.")
    if _show_questions(report):
        paragraphs.append("questions: those with at least k samples (--short skip leaves the "
                          "others out at that k).")
    if report.breakdowns:
        paragraphs.append("aggregate (--group): each metric is computed on each group's "
                          "questions alone, and the aggregate is sum_g w_g x_g with w_g = n_g / "
                          "N (--weights questions: the metric over all questions) or 1 / G "
                          "(--weights groups). The groups are strata, not clusters: its se is "
                          "sqrt(sum_g w_g^2 se_g^2) from each group's own se, with "
                          "Satterthwaite's degrees of freedom; a group of one question takes "
                          "the pooled within-group variance. Its mean, sd and credible "
                          "interval are the weighted sum of the groups' posteriors (normal "
                          "approximation).")
    return [line for paragraph in paragraphs + report.notes + small_sample_notes(report)
            + method_notes(report) for line in _wrapped(paragraph)]


def method_notes(report: Report) -> list[str]:
    """Which rows' intervals are not estimate -/+ t se: one line per input and method."""
    notes = []
    several = len(report.rows) > 1
    for label, rows in zip(report.labels, report.rows, strict=True):
        where = f" ({label})" if several else ""
        for method, words in (("beta-binomial", "beta-binomial profile likelihood (near 0 or 1)"),
                              ("score", "score interval (near 0 or 1)"),
                              ("exact", "exact bound (se = 0)")):
            named = [row.label for row in rows if row.se_method == method
                     and not (row.k is not None and row.k in CONSTANT_AT.get(row.metric, ()))]
            if named:
                notes.append(f"interval{where}: {words} for {', '.join(named[:8])}"
                             f"{' ...' if len(named) > 8 else ''}.")
    constant = sorted({row.label for rows in report.rows for row in rows
                       if row.se_method == "constant"})
    if constant:
        notes.append(f"constant: {', '.join(constant)} is 0 by definition (no interval; "
                     "kpass compare leaves it out).")
    return notes


def small_sample_notes(report: Report) -> list[str]:
    """Notes on rows whose standard error cannot carry its confidence level.

    One note per input: fewer than 30 questions, a standard error of 0, or an estimate
    within 5 questions' worth of 0 or 1 (:mod:`kpass.stats.small_sample`); the rows named.
    """
    return [full for _, full in _small_sample(report)]


def _small_sample(report: Report) -> list[tuple[str, str]]:
    """:func:`small_sample_notes` as (one short line for the default output, the note)."""
    from ..stats.small_sample import (
        DISCRETE_COVERAGE,
        DISCRETE_QUESTIONS,
        FEW_EVENTS,
        FEW_QUESTIONS,
    )

    notes: list[tuple[str, str]] = []
    several = len(report.rows) > 1
    for label, rows in zip(report.labels, report.rows, strict=True):
        with_se = [row for row in rows if row.se is not None and row.metric != "accuracy"
                   and not (row.k is not None and row.metric in CONSTANT_AT
                            and row.k in CONSTANT_AT[row.metric])]  # 0 by definition
        if not with_se:
            continue
        where = f" ({label})" if several else ""
        m = min(row.questions for row in with_se)
        discrete = _discrete(report, with_se, m)
        if discrete:
            low, high = DISCRETE_COVERAGE
            notes.append((f"note{where}: only {m} questions: near 0 or 1 the 95% intervals "
                          f"covered {low:.2f}-{high:.2f} in simulation (--explain)",
                          f"note{where}: only {m} questions, {discrete} near 0 or 1: with "
                          f"{DISCRETE_QUESTIONS[0]}-{DISCRETE_QUESTIONS[1]} questions the "
                          "counts are too few and too discrete for any interval to hold "
                          f"95%: kpass's 95% intervals covered {low:.2f}-{high:.2f} in seeded "
                          "simulations (most over-cover; docs/explanation/statistics.md); "
                          "read them as rough, and compare models with `kpass compare` "
                          "(exact sign-flip p)."))
        elif m < FEW_QUESTIONS:
            notes.append((f"note{where}: only {m} questions: the intervals are rough; compare "
                          "models with `kpass compare` (--explain)",
                          f"note{where}: only {m} questions (fewer than {FEW_QUESTIONS}): the "
                         "intervals over questions (Student's t, or a score interval near 0 or 1) "
                         "rest on few questions; read them as rough, and compare models with "
                         "`kpass compare` (exact sign-flip p)."))
        zero = [row.label for row in with_se if row.se == 0.0]
        if zero:
            named = f"{', '.join(zero[:6])}{' ...' if len(zero) > 6 else ''}"
            notes.append((f"note{where}: se = 0 for {named}: exact bound shown (--explain)",
                          f"note{where}: se = 0 for {named}: every question agrees, so the "
                          "spread is not estimated; the interval is the exact bound for that "
                          "many questions all alike."))
        near = [row.label for row in with_se if row.se != 0.0 and row.questions >= FEW_QUESTIONS
                and min(row.estimate, 1.0 - row.estimate) * row.questions < FEW_EVENTS]
        if near:
            named = f"{', '.join(near[:6])}{' ...' if len(near) > 6 else ''}"
            notes.append((f"note{where}: {named} near 0 or 1: score interval shown (--explain)",
                          f"note{where}: {named} within {FEW_EVENTS} questions' worth of 0 or "
                          "1: the se is unreliable for such rare events, so the interval is the "
                          "wider score interval; more questions narrow it."))
    for label, summary in zip(report.labels, report.clusters or [], strict=False):
        effective = summary["df"] + 1.0
        if effective < CLUSTERS_FEW:
            where = f" ({label})" if several else ""
            notes.append((f"note{where}: {summary['clusters']:g} clusters, effectively "
                          f"{effective:.1f}: the clustered intervals are rough (--explain)",
                          f"note{where}: {summary['clusters']:g} clusters, effectively "
                          f"{effective:.1f} (Bell-McCaffrey df + 1, lower for unequal sizes), "
                          f"fewer than {CLUSTERS_FEW:g}: the clustered intervals rest on few "
                          "independent units; read them as rough."))
    return notes


def _discrete(report: Report, rows: list[Row], m: int) -> str:
    """The Pass^k and Pass@1 rows near 0 or 1 at 10-15 questions, named; "" for none.

    Only where it was measured (:data:`kpass.stats.small_sample.DISCRETE_QUESTIONS`): the
    95% level, no clusters, Pass^k (any k) or Pass@1 within 0.2 of 0 or 1.
    """
    from ..stats.beta_binomial import complement_moment
    from ..stats.small_sample import DISCRETE_QUESTIONS

    low, high = DISCRETE_QUESTIONS
    if not low <= m <= high or abs(report.confidence - 0.95) > 1e-9 or report.clusters:
        return ""
    named = [row.label for row in rows if row.k is not None and row.se is not None
             and low <= row.questions <= high and min(row.estimate, 1.0 - row.estimate) <= 0.2
             and _pass_hat_or_pass_at_1(complement_moment(row.metric), row.k)]
    return f"{', '.join(named[:6])}{' ...' if len(named) > 6 else ''}"



def _pass_hat_or_pass_at_1(complement: bool | None, k: int | None) -> bool:
    """Pass^k (the moment E[p^k]: complement False) at any k, or Pass@k at k = 1."""
    return complement is False or (complement is True and k == 1)

CLUSTERS_FEW = 10.0
"""Below this effective number of clusters (Bell-McCaffrey df + 1) a note says so."""


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
        The table, then the notes the terminal table prints under it (one short line each;
        in full with ``report.explain``; the column legend is left out: a paper's caption
        should say what the columns are).
    """
    with_questions = _show_questions(report)
    sub = _columns(report, with_questions)
    many = len(report.inputs) > 1
    header = ["metric"] + [f"{label} {name}" if many else name
                           for label in report.labels for name in sub]
    align = [":---"] + [":---" if name.endswith(("interval", "credible")) else "---:"
                        for _ in report.labels for name in sub]
    lines = ["| " + " | ".join(map(markdown_cell, header)) + " |",
             "| " + " | ".join(align) + " |"]
    for index, label in enumerate(_row_labels(report)):
        cells = [label] + [cell for rows in report.rows
                           for cell in _cells(rows[index], digits, with_questions,
                                              report.shows_posterior)]
        lines.append("| " + " | ".join(map(markdown_cell, cells)) + " |")
    if report.breakdowns:
        lines[:0] = [_aggregate_title(report), ""]
        lines += [""] + breakdown_lines(report, digits, markdown=True)
    notes = (report.notes + small_sample_notes(report) + method_notes(report)
             if report.explain else _attention(report, wrap=False))
    runs = [f"{label}: {run.line()}" for label, run in zip(
        report.labels, report.runs or [None] * len(report.labels), strict=True) if run]
    head = "".join(f"{line}\n\n" for line in runs)
    costs = "".join(f"\n{line.strip()}\n" for line in report.cost_lines)
    return (head + "\n".join(lines) + "\n" + costs
            + "".join(f"\n{note}\n" for note in notes))


def render_sections(report: Report, format: str, digits: int) -> str:  # noqa: A002
    """``--by``'s table or Markdown: one section per model, the notes once, under the last.

    Args:
        report: the numbers, ``report.by`` naming the column the models are values of.
        format: ``table`` or ``markdown``.
        digits: decimals shown.
    """
    from dataclasses import replace

    render = render_table if format == "table" else render_markdown
    last = len(report.inputs) - 1
    sections = []
    for index, (label, item, rows) in enumerate(zip(report.labels, report.inputs, report.rows,
                                                    strict=True)):
        cost_lines = []
        if report.costs is not None and report.cost_lines:  # the heading, then this model's
            start = 1 + sum(len(rows_of) for rows_of in report.costs[:index])
            cost_lines = [report.cost_lines[0],
                          *report.cost_lines[start:start + len(report.costs[index])]]
        one = replace(report, inputs=[item], labels=[label], rows=[rows],
                      costs=None if report.costs is None else [report.costs[index]],
                      cost_lines=cost_lines,
                      notes=report.notes if index == last else [],
                      warnings=report.warnings if index == last else [],
                      clusters=None if report.clusters is None else [report.clusters[index]],
                      breakdowns=None if report.breakdowns is None
                      else [report.breakdowns[index]])
        heading = f"{report.by} = {label}"
        heading = heading if format == "table" else f"### {heading}"
        sections.append(f"{heading}\n\n{render(one, digits)}")
    return "\n".join(sections)


CSV_FIELDS = ("file", "metric", "label", "k", "tau", "questions", "estimate", "se", "lo",
              "hi", "se_method", "mean", "sd", "cred_lo", "cred_hi", "confidence")


def render_csv(report: Report) -> str:
    """One CSV line per input, metric, k and tau, at full precision.

    The first column names the file, or with ``--by`` the model (``model``). With
    ``--cost``, each input's cost lines follow the metrics' (a ``quantity`` column, ``cost``
    or ``per_solved``: :func:`kpass.report.cost.summary_records`).

    Args:
        report: the numbers.

    Returns:
        The CSV text with a header line.
    """
    import csv
    import io

    key = "file" if report.by is None else "model"  # --by: each line names its model
    buffer = io.StringIO()
    grouped = ("group", "weights") if report.breakdowns else ()
    costs = summary_records(report.labels, report.costs, key)
    writer = csv.DictWriter(buffer, fieldnames=(key, *CSV_FIELDS[1:], *grouped,
                                                *(("quantity",) if costs else ())),
                            lineterminator="\n")
    writer.writeheader()
    for fields in result_dicts(report, key) + costs:
        fields.update(confidence=report.confidence)
        writer.writerow({key: "" if value is None else value for key, value in fields.items()})
    return buffer.getvalue()


def result_dicts(report: Report, key: str = "file") -> list[dict[str, Any]]:
    """The result rows as dicts, input by input.

    With ``--group``, an input's aggregate rows (``group`` None, ``weights`` named) come
    first, then each group's (``group`` its label).
    """
    out = []
    for index, (label, rows) in enumerate(zip(report.labels, report.rows, strict=True)):
        breakdown = report.breakdowns[index] if report.breakdowns else None
        extra = {} if breakdown is None else {"group": None, "weights": breakdown.weights}
        out += [{key: label, **row.as_dict(), **extra} for row in rows]
        if breakdown is not None:
            out += [{key: label, **row.as_dict(), "group": name,
                     "weights": breakdown.weights}
                    for name, group in zip(breakdown.groups, breakdown.rows, strict=True)
                    for row in group]
    return out


def render_json(report: Report) -> str:
    """The report as JSON: the inputs described, then one object per result row.

    Each input and row names its file (``"file"``), or with ``--by`` its model (``"model"``,
    and ``"by"`` names the column).

    Args:
        report: the numbers.

    Returns:
        Indented JSON text.
    """
    import json

    key = "file" if report.by is None else "model"  # --by: keyed by the model's label
    document = {
        **({} if report.by is None else {"by": report.by}),
        "confidence": report.confidence,
        "prior": {"alpha0": 1.0, "beta0": 1.0},
        "short": report.short,
        "inputs": [
            {
                key: label, "path": loaded.source, "column": loaded.column,
                "questions": loaded.counts.n_questions, "n_min": loaded.n_min,
                "n_max": loaded.n_max,
                "bad_rows": [{"where": where, "problem": problem}
                             for where, problem in loaded.bad_rows],
                "run": None if run is None else run.as_dict(),
                **({} if report.costs is None else {"cost": [
                    row.as_dict() for row in report.costs[index]]}),
            }
            for index, (label, loaded, run) in enumerate(zip(
                report.labels, report.inputs, report.runs or [None] * len(report.inputs),
                strict=True))
        ],
        "results": result_dicts(report, key),
        "clusters": report.clusters,
        **({} if not report.breakdowns else {"groups": [
            {"file": label, "column": breakdown.column, "weights": breakdown.weights,
             "groups": [{"group": name, "questions": size} for name, size in
                        zip(breakdown.groups, breakdown.sizes, strict=True)]}
            for label, breakdown in zip(report.labels, report.breakdowns, strict=True)]}),
        "notes": report.notes + small_sample_notes(report) + method_notes(report),
        "warnings": report.warnings,
    }
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}
