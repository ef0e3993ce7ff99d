"""``kpass compare A B``: is model A better than model B on the same questions?

Both files are read like ``kpass report`` reads them; questions are matched by id
(``--id COLUMN``) or, without ids, by row order (then both files must hold the same
number of questions). For every metric and k the paired comparison of
:func:`kpass.compare` is printed: both estimates, the difference, its standard error over
questions (clustered with ``--clusters COLUMN``), interval, p-value, the posterior
probability that A is better on these very questions, and the minimum detectable effect.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counts import BinaryCounts
from ..io.harness import load_file
from ..io.labels import read_labels
from ..io.progress import Progress
from ..io.readers import LoadedFile, ReportError
from .table import DEFAULT_K_MAX, LEGEND_WIDTH, Family, default_ks, input_labels, parse_metrics

FIELDS = ("metric", "label", "k", "tau", "questions", "a", "b", "difference", "se", "lo", "hi",
          "p_value", "prob_a_better", "mde", "se_unpaired", "correlation", "confidence")


@dataclass
class Line:
    """One metric at one k (and tau): the paired comparison of the two files."""

    metric: str
    label: str
    k: int | None
    tau: float | None
    result: Any  # kpass.Comparison

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields."""
        fields = {name: value for name, value in self.result.as_dict().items()
                  if name not in ("metric", "k")}
        return {"metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
                **fields}


def _with_labels(loaded: LoadedFile, column: str | None, what: str) -> list[Any] | None:
    if column is None:
        return None
    labels = read_labels(loaded.source, column)
    if len(labels) != loaded.counts.n_questions:
        raise ReportError(loaded.source, f"`{column}` has {len(labels)} values for "
                                         f"{loaded.counts.n_questions} questions ({what})")
    return labels


def _counts(loaded: LoadedFile, ids: list[Any] | None) -> BinaryCounts:
    if ids is None:
        return loaded.counts
    try:
        return BinaryCounts(loaded.counts.n_samples, loaded.counts.n_correct, ids=ids)
    except (TypeError, ValueError) as error:
        raise ReportError(loaded.source, f"--id: {error}") from None


def compare_lines(first: BinaryCounts, second: BinaryCounts, families: list[Family],
                  ks: list[int], taus: list[float], confidence: float, short: str,
                  clusters: list[Any] | None) -> list[Line]:
    """Every selected metric at every k (and tau): ``kpass.compare`` of the two runs.

    Args:
        first: model A's counts (with ids to match by id).
        second: model B's counts.
        families: the metric families, in display order.
        ks: the k values.
        taus: G-Pass thresholds.
        confidence: level of the intervals.
        short: ``error`` or ``skip``.
        clusters: a label per question of A, or None.

    Returns:
        The lines, family by family, tau by tau, k by k.

    Raises:
        ValueError: kpass refused the inputs (different questions, too few, ...).
    """
    import kpass

    n_label = "n"
    lines = []
    for fam in families:
        point = getattr(kpass, fam.function)
        options: dict[str, Any] = {"clusters": clusters, "confidence": confidence}
        if not fam.per_k:
            result = kpass.compare(point, first, second, **options)
            lines.append(Line(fam.key, fam.label(None, None, n_label), None, None, result))
            continue
        if short != "error":
            options["short"] = short
        for tau in taus if fam.uses_tau else [None]:
            head = () if tau is None else (tau,)
            try:
                results = kpass.compare(point, first, second, ks, *head, **options)
            except ValueError as error:
                raise ValueError(f"{fam.key}: {error}") from None
            if not isinstance(results, list):  # one k given as a list: a list comes back
                results = [results]
            lines.extend(Line(fam.key, fam.label(k, tau, n_label), k, tau, result)
                         for k, result in zip(ks, results, strict=True))
    return lines


def run_compare(args: argparse.Namespace) -> int:
    """Run ``kpass compare`` with parsed arguments.

    Args:
        args: the parsed command line.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used, 2 for a bad argument.
    """
    from .cli import _write

    if len(args.files) != 2:
        print("kpass compare: error: give exactly two files, model A and model B (see kpass "
              "compare --help)", file=sys.stderr)
        return 2
    if args.skip_bad:
        # Refused rather than guessed: a bad row may have held one question or several (a
        # line broken in two, a merged CSV quote), so dropping "the same position" from the
        # other file cannot be made right, and a row left out of one file alone shifts every
        # later pair (row order) or label (--id, --clusters read beside the counts).
        print("kpass compare: error: --skip-bad cannot be combined with pairing by row order "
              "(no --id): a row left out of one file would pair every later question with "
              "another one; nor with --id or --clusters, whose labels it would shift; fix the "
              "rows that `kpass report FILE --skip-bad` lists, then compare (see kpass "
              "compare --help)", file=sys.stderr)
        return 2
    try:
        families = [fam for fam in parse_metrics(args.metrics) if not fam.answers]
    except ValueError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 2
    loaded: list[LoadedFile]
    try:
        if args.id is not None and args.clusters is None:
            # Long files (one row per sample) or wide ones, grouped and keyed by --id; a
            # harness file (--from, --filter or recognised) as its harness reads it.
            from ..io.long import load_long

            loaded = [load_long(source, id=args.id, column=args.column,
                                chunk_size=args.chunk_size, tool=args.from_, filter=args.filter)
                      for source in args.files]
            first, second = (item.counts for item in loaded)
        else:
            loaded = [load_file(source, tool=args.from_, filter=args.filter, column=args.column,
                                chunk_size=args.chunk_size, skip_bad=args.skip_bad,
                                progress=Progress(f"reading {source}"))
                      for source in args.files]
            first, second = (_counts(item, _with_labels(item, args.id, "--id"))
                             for item in loaded)
            if args.id is None and first.ids is not None:
                args.id = "question id"  # a harness file's own ids; the legend says so
        if first.ids is None and first.n_questions != second.n_questions:
            raise ReportError(args.files[1], f"{second.n_questions} questions against "
                                             f"{first.n_questions} in {args.files[0]}; without "
                                             "--id rows are matched by order, so both files "
                                             "must hold the same questions: pass --id COLUMN "
                                             "to match them by question id")
        clusters = _with_labels(loaded[0], args.clusters, "--clusters")
        n_min = min(int(first.n_samples.min()), int(second.n_samples.min()))
        ks = sorted({k for group in args.k for k in group}) if args.k else default_ks(n_min)
        try:
            lines = compare_lines(first, second, families, ks, args.tau, args.confidence,
                                  args.short, clusters)
        except (TypeError, ValueError) as error:
            raise ReportError(f"{args.files[0]} vs {args.files[1]}", str(error)) from None
        labels = input_labels(list(args.files))
        text = RENDERERS[args.format](lines, labels, first.n_questions, args)
        if args.plot:
            from .plot import plot_differences

            plot_differences(args.plot, labels, lines, args.confidence)
    except ReportError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 1
    return _write(text)


def _legend(labels: list[str], confidence: float, clustered: bool) -> list[str]:
    level = f"{confidence * 100:g}%"
    paragraphs = [
        f"A = {labels[0]}, B = {labels[1]}; difference = A - B over the questions both were "
        "scored on (positive favours A).",
        "se: paired standard error of the difference over questions"
        f"{' (clustered)' if clustered else ''}; "
        f"{level} interval: difference -/+ z se; p: two-sided test of no difference; MDE: the "
        f"smallest true difference detected with 80% power at alpha = {1 - confidence:.2g}. "
        "These treat the questions as a sample of questions like these (Miller 2024).",
        "P(A>B): posterior probability that A beats B on these very questions with unlimited "
        "samples (uniform Beta(1,1) prior per question); the questions themselves held fixed.",
    ]
    return [line for paragraph in paragraphs for line in textwrap.wrap(paragraph, LEGEND_WIDTH)]


def _number(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _p_value(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _table_cells(line: Line, digits: int) -> list[str]:
    r = line.result
    return [line.label, _number(r.a, digits), _number(r.b, digits), _number(r.difference, digits),
            _number(r.se, digits), f"[{_number(r.lo, digits)}, {_number(r.hi, digits)}]",
            _p_value(r.p_value), f"{r.prob_a_better:.3f}", _number(r.mde, digits),
            str(r.questions)]


def _header(confidence: float) -> list[str]:
    return ["metric", "A", "B", "difference", "se", f"{confidence * 100:g}% interval", "p",
            "P(A>B)", "MDE", "questions"]


def render_table(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """The paired table for the terminal, with a legend."""
    header = _header(args.confidence)
    body = [_table_cells(line, args.digits) for line in lines]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    left = {0, 5}

    def row(cells: list[str]) -> str:
        return "  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
                         for i, cell in enumerate(cells)).rstrip()

    out = [f"A: {args.files[0]}", f"B: {args.files[1]}",
           f"{m} questions matched by {'id (' + args.id + ')' if args.id else 'row order'}", "",
           row(header)] + [row(cells) for cells in body] + [""]
    out.extend(_legend(labels, args.confidence, bool(args.clusters)))
    return "\n".join(out) + "\n"


def render_markdown(lines: list[Line], labels: list[str], m: int,
                    args: argparse.Namespace) -> str:
    """The paired table as GitHub-flavoured Markdown."""
    header = _header(args.confidence)
    align = [":---"] + ["---:"] * 4 + [":---"] + ["---:"] * 4
    text = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    text += ["| " + " | ".join(_table_cells(line, args.digits)) + " |" for line in lines]
    return "\n".join(text) + "\n"


def _records(lines: list[Line], labels: list[str]) -> list[dict[str, Any]]:
    return [{"a_file": labels[0], "b_file": labels[1], **line.as_dict()} for line in lines]


def render_csv(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """One CSV line per metric, k and tau, at full precision."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=("a_file", "b_file") + FIELDS,
                            lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for record in _records(lines, labels):
        writer.writerow({key: "" if value is None else value for key, value in record.items()})
    return buffer.getvalue()


def render_json(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """The comparison as JSON: the inputs, how they were matched, one object per line."""
    import json

    document = {"a": args.files[0], "b": args.files[1], "questions": m,
                "matched_by": args.id or "row order", "clusters": args.clusters,
                "confidence": args.confidence, "short": args.short,
                "results": _records(lines, labels)}
    return json.dumps(document, indent=2, default=lambda value: float(np.asarray(value))) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}

__all__ = ["DEFAULT_K_MAX", "RENDERERS", "compare_lines", "run_compare"]
