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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._core.counts import BinaryCounts
from ..io.harness import load_file
from ..io.labels import read_labels
from ..io.progress import Progress
from ..io.readers import LoadedFile, ReportError
from .output import _check_answers_options, _write, collect_notes, holm
from .table import DEFAULT_K_MAX, LEGEND_WIDTH, Family, default_ks, input_labels, parse_metrics

FIELDS = ("metric", "label", "k", "tau", "questions", "a", "b", "difference", "se", "lo", "hi",
          "p_value", "prob_a_better", "mde", "se_unpaired", "correlation", "confidence",
          "se_a", "se_b", "df", "p_exact", "p_holm", "reference")


VERDICTS_IN_FULL = 8
"""Up to this many rows every row gets a verdict line; above, only the rows with a detected
difference, and one line for the rest."""


@dataclass
class Line:
    """One metric at one k (and tau): the paired comparison of the two files."""

    metric: str
    label: str
    k: int | None
    tau: float | None
    result: Any  # kpass.Comparison
    p_holm: float | None = None  # Holm-adjusted over the rows of the table (several rows)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields."""
        fields = {name: value for name, value in self.result.as_dict().items()
                  if name not in ("metric", "k")}
        return {"metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
                **fields, "p_holm": self.p_holm}


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
                  clusters: list[Any] | None, *, notes: list[str] | None = None,
                  shared: bool = False, answers: tuple[list[Any], list[Any]] | None = None,
                  ties: str = "fractional") -> list[Line]:
    """Every selected metric at every k (and tau): ``kpass.compare`` of the two runs.

    Rows constant by definition (``Family.constant_at``) are left out with a note; warnings of
    ``kpass.compare`` (small samples) become notes; with several rows, each gets its
    Holm-adjusted p-value.

    Args:
        first: model A's counts (with ids to match by id).
        second: model B's counts.
        families: the metric families, in display order.
        ks: the k values.
        taus: G-Pass thresholds.
        confidence: level of the intervals.
        short: ``error`` or ``skip``.
        clusters: a label per question of A, or None.
        notes: where notes are appended (None: warnings are not caught).
        shared: compare on the questions both runs have (ids needed).
        answers: each run's answers coded per question (0 = its reference), in the
            questions' order of ``first`` and ``second`` (already aligned), for Vote@k.
        ties: Vote@k's tie rule.

    Returns:
        The lines, family by family, tau by tau, k by k.

    Raises:
        ValueError: kpass refused the inputs (different questions, too few, ...).
    """
    from ..families import function
    from ..stats import compare as paired

    n_label = "n"
    collected: list[str] = [] if notes is None else notes
    lines: list[Line] = []
    for fam in families:
        point = function(fam.function)
        options: dict[str, Any] = {"clusters": clusters, "confidence": confidence,
                                   "shared": shared}
        if fam.answers:
            if answers is None:
                raise ValueError(f"{fam.key} needs the sampled answers (--answers)")
            references = [0] * len(answers[0])  # coded: 0 is each question's reference
            vote_options = {key: value for key, value in options.items() if key != "shared"}
            with collect_notes(collected):
                results = paired(point, answers[0], answers[1], references, ks,
                                        ties=ties, **vote_options)
            lines.extend(Line(fam.key, fam.label(k, None, n_label), k, None, result)
                         for k, result in zip(ks, results if isinstance(results, list)
                                              else [results], strict=True))
            continue
        if not fam.per_k:
            with collect_notes(collected):
                result = paired(point, first, second, **options)
            lines.append(Line(fam.key, fam.label(None, None, n_label), None, None, result))
            continue
        if short != "error":
            options["short"] = short
        family_ks = [k for k in ks if k not in fam.constant_at]
        for k in ks:
            if k in fam.constant_at:
                note = (f"{fam.label(k, None, n_label)} left out: it is constant by definition "
                        "at this k (for mG-Pass@1: 0, its thresholds above 1/2 are empty), so "
                        "comparing it tests nothing")
                if note not in collected:
                    collected.append(note)
        if not family_ks:
            continue
        for tau in taus if fam.uses_tau else [None]:
            head = () if tau is None else (tau,)
            try:
                with collect_notes(collected):
                    results = paired(point, first, second, family_ks, *head, **options)
            except ValueError as error:
                raise ValueError(f"{fam.key}: {error}") from None
            if not isinstance(results, list):  # one k given as a list: a list comes back
                results = [results]
            lines.extend(Line(fam.key, fam.label(k, tau, n_label), k, tau, result)
                         for k, result in zip(family_ks, results, strict=True))
    if len(lines) > 1:
        for line, adjusted in zip(lines, holm([line.result.p_value for line in lines]),
                                  strict=True):
            line.p_holm = adjusted
    return lines


def _in_percent(result: Any) -> Any:
    """A Comparison with its values, differences and SEs x 100."""
    names = ("a", "b", "difference", "se", "lo", "hi", "mde", "se_unpaired", "se_a", "se_b")
    return replace(result, **{name: None if getattr(result, name) is None
                              else 100.0 * getattr(result, name) for name in names})


def verdicts(lines: list[Line], confidence: float, unit: str = "") -> list[str]:
    """Plain-words verdicts: which run is better on which row, or that no difference shows.

    A row shows a difference when its p-value (Holm-adjusted when the table tests several
    rows) is below alpha = 1 - confidence. The better run is named, with the difference as
    better - worse and its interval in the same direction.
    """
    alpha = 1.0 - confidence
    level = f"{confidence * 100:g}%"
    items: list[tuple[bool, str]] = []
    for line in lines:
        r = line.result
        p = line.p_holm if line.p_holm is not None else r.p_value
        which = "Holm p" if line.p_holm is not None else "p"
        if p < alpha and r.difference > 0:
            items.append((True, f"A is better than B on {line.label} by {r.difference:.3g}{unit} "
                                f"({level} CI {r.lo:.3g} to {r.hi:.3g}{unit}, {which} = "
                                f"{_p_words(p)})"))
        elif p < alpha and r.difference < 0:
            items.append((True, f"B is better than A on {line.label} by {-r.difference:.3g}"
                                f"{unit} ({level} CI {-r.hi:.3g} to {-r.lo:.3g}{unit}, {which} = "
                                f"{_p_words(p)})"))
        else:
            items.append((False, f"no detectable difference on {line.label}: difference "
                                 f"A - B {r.difference:.3g}{unit}, MDE {r.mde:.3g}{unit} "
                                 f"({which} = "
                                 f"{_p_words(p)})"))
    if len(items) <= VERDICTS_IN_FULL:
        return [text for _, text in items]
    found = [text for detected, text in items if detected]
    out = found[:VERDICTS_IN_FULL]
    if len(found) > VERDICTS_IN_FULL:
        out.append(f"... and {len(found) - VERDICTS_IN_FULL} more rows with a detected "
                   "difference (see the table)")
    rest = len(items) - len(found)
    if rest:
        out.append(f"no detectable difference on {'the other' if found else 'any of the'} "
                   f"{rest} rows (Holm p >= {alpha:.2g})")
    return out


def _p_words(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.2g}" if p < 0.01 else f"{p:.2f}"


def run_compare(args: argparse.Namespace) -> int:
    """Run ``kpass compare`` with parsed arguments.

    Args:
        args: the parsed command line.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used, 2 for a bad argument.
    """
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
    answers_mode = bool(getattr(args, "answers", False))
    try:
        families = [fam for fam in parse_metrics(args.metrics, answers=answers_mode)
                    if answers_mode or not fam.answers]
        if answers_mode:
            args.threshold = None
            _check_answers_options(args)
        elif getattr(args, "normalize", None) is not None:
            raise ValueError("--normalize applies to sampled answers: add --answers")
    except ValueError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 2
    loaded: list[LoadedFile]
    notes: list[str] = []
    try:
        sample = getattr(args, "sample", None)
        shared = bool(getattr(args, "shared", False))
        if (sample is not None or shared) and args.id is None:
            option = "--sample" if sample is not None else "--shared"
            raise ReportError(args.files[0], f"{option} needs --id (the question-id column)")
        coded: tuple[list[Any], list[Any]] | None = None
        if answers_mode:
            loaded, coded = _load_answers(args, sample)
            first, second = (item.counts for item in loaded)
        elif args.id is not None and args.clusters is None:
            # Long files (one row per sample) or wide ones, grouped and keyed by --id; a
            # harness file (--from, --filter or recognised) as its harness reads it.
            from ..io.long import load_long

            loaded = [load_long(source, id=args.id, sample=sample, column=args.column,
                                chunk_size=args.chunk_size, tool=args.from_, filter=args.filter)
                      for source in args.files]
            first, second = (item.counts for item in loaded)
        else:
            if sample is not None:
                raise ReportError(args.files[0], "--sample cannot be combined with --clusters "
                                                 "(clusters are read beside one row per "
                                                 "question)")
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
        if first.ids is None:
            notes.append("rows were paired by order (no --id): row q of A and row q of B must "
                         "be the same question; pass --id COLUMN to match them by id")
        m = first.n_questions
        if shared and first.ids is not None and second.ids is not None:
            both = set(first.ids) & set(second.ids)
            m = len(both)
            dropped_a, dropped_b = first.n_questions - m, second.n_questions - m
            if dropped_a or dropped_b:
                notes.append(f"--shared: compared on the {m} questions both runs have; "
                             f"{dropped_a} of A's {first.n_questions} and {dropped_b} of B's "
                             f"{second.n_questions} questions left out")
        clusters = _with_labels(loaded[0], args.clusters, "--clusters")
        n_min = min(int(first.n_samples.min()), int(second.n_samples.min()))
        ks = sorted({k for group in args.k for k in group}) if args.k else default_ks(n_min)
        if coded is not None:
            first, second, coded = _aligned_answers(first, second, coded, shared, args.files)
        try:
            lines = compare_lines(first, second, families, ks, args.tau, args.confidence,
                                  args.short, clusters, notes=notes, shared=shared,
                                  answers=coded, ties=getattr(args, "ties", "fractional"))
        except (TypeError, ValueError) as error:
            message = str(error).replace("pass shared=True", "pass --shared")
            raise ReportError(f"{args.files[0]} vs {args.files[1]}", message) from None
        if not lines:
            raise ReportError(f"{args.files[0]} vs {args.files[1]}",
                              "no row left to compare: " + "; ".join(notes))
        labels = input_labels(list(args.files))
        args.notes = notes
        shown = lines
        if getattr(args, "percent", False) and args.format in ("table", "markdown"):
            shown = [replace(line, result=_in_percent(line.result)) for line in lines]
            notes.append("values in percent (x 100): A, B, differences, se, intervals and MDE; "
                         "p-values and P(A>B) are probabilities as before.")
        text = RENDERERS[args.format](shown, labels, m, args)
        if args.plot:
            from .plot import plot_differences

            plot_differences(args.plot, labels, lines, args.confidence)
    except ReportError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 1
    return _write(text)


def _load_answers(args: argparse.Namespace, sample: str | None
                  ) -> tuple[list[LoadedFile], tuple[list[Any], list[Any]]]:
    """Both files read as sampled answers and references (``--answers``)."""
    from ..io.answers import import_normalizer, load_answers

    if args.clusters is not None:
        raise ReportError(args.files[0], "--clusters is not available with --answers")
    normalize = import_normalizer(args.normalize) if args.normalize else None
    loaded, coded = [], []
    for source in args.files:
        item, codes = load_answers(source, column=args.column, reference=args.reference,
                                   chunk_size=args.chunk_size, normalize=normalize, id=args.id,
                                   sample=sample)
        loaded.append(item)
        coded.append(codes)
    return loaded, (coded[0], coded[1])


def _aligned_answers(first: BinaryCounts, second: BinaryCounts,
                     coded: tuple[list[Any], list[Any]], shared: bool, files: list[str]
                     ) -> tuple[BinaryCounts, BinaryCounts, tuple[list[Any], list[Any]]]:
    """Both runs' counts and coded answers on the same questions in A's order (by id)."""
    if first.ids is None or second.ids is None:
        return first, second, coded  # by row order; equal counts were checked
    position = {question: i for i, question in enumerate(second.ids)}
    keep = [i for i, question in enumerate(first.ids) if question in position]
    if not shared and (len(keep) != first.n_questions or len(keep) != second.n_questions):
        only_a, only_b = first.n_questions - len(keep), second.n_questions - len(keep)
        raise ReportError(f"{files[0]} vs {files[1]}",
                          f"the two runs must score the same questions; {only_a} ids of A are "
                          f"not in B and {only_b} ids of B are not in A; pass --shared to "
                          "compare on the questions both have")
    order = [position[first.ids[i]] for i in keep]
    return (first.select(np.array(keep, dtype=np.intp)),
            second.select(np.array(order, dtype=np.intp)),
            ([coded[0][i] for i in keep], [coded[1][j] for j in order]))


def _legend(labels: list[str], confidence: float, clustered: bool,
            several: bool = False, exact: bool = False, width: int | None = LEGEND_WIDTH
            ) -> list[str]:
    """The legend's lines wrapped at ``width``, or its paragraphs whole (``width=None``)."""
    level = f"{confidence * 100:g}%"
    units = "clusters" if clustered else "questions"
    paragraphs = [
        f"A = {labels[0]}, B = {labels[1]}; difference = A - B over the questions both were "
        "scored on (positive favours A).",
        "se: paired standard error of the difference over questions"
        f"{' (clustered)' if clustered else ''}; "
        f"{level} interval: difference -/+ t se, t from Student's t with {units} - 1 degrees "
        "of freedom; p: two-sided t test of no difference; MDE: the smallest true difference "
        f"detected with 80% power at alpha = {1 - confidence:.2g}. These treat the questions "
        "as a sample of questions like these (Miller 2024)."
        + (" Holm p: p adjusted by Holm's step-down method over all rows of the table, so "
           "the chance of any false 'better' verdict stays at alpha; the verdicts use it."
           if several else "")
        + (" p exact: the sign-flip permutation test of the per-question differences (exact "
           "enumeration up to 20 units), valid without normality: trust it with few "
           "questions." if exact else ""),
        "P(A>B): posterior probability that A beats B on these very questions with unlimited "
        "samples (uniform Beta(1,1) prior per question); the questions themselves held fixed.",
    ]
    if width is None:
        return paragraphs
    return [line for paragraph in paragraphs
            for line in textwrap.wrap(paragraph, width, break_on_hyphens=False)]


def _number(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _p_value(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _columns(lines: list[Line]) -> tuple[bool, bool]:
    """(Holm column, exact-p column): several rows; few questions (or clusters)."""
    from .._core.small_sample import FEW_QUESTIONS

    several = len(lines) > 1
    exact = any(r.p_exact is not None and (r.df if r.df is not None else r.questions)
                < FEW_QUESTIONS for r in (line.result for line in lines))
    return several, exact


def _table_cells(line: Line, digits: int, several: bool, exact: bool) -> list[str]:
    r = line.result
    cells = [line.label, _number(r.a, digits), _number(r.b, digits),
             _number(r.difference, digits), _number(r.se, digits),
             f"[{_number(r.lo, digits)}, {_number(r.hi, digits)}]", _p_value(r.p_value)]
    if several:
        cells.append(_p_value(line.p_holm) if line.p_holm is not None else "")
    if exact:
        cells.append(_p_value(r.p_exact) if r.p_exact is not None else "-")
    return cells + [f"{r.prob_a_better:.3f}", _number(r.mde, digits), str(r.questions)]


def _header(confidence: float, several: bool, exact: bool) -> list[str]:
    return (["metric", "A", "B", "difference", "se", f"{confidence * 100:g}% interval", "p"]
            + (["Holm p"] if several else []) + (["p exact"] if exact else [])
            + ["P(A>B)", "MDE", "questions"])


def _head_lines(lines: list[Line], m: int, args: argparse.Namespace) -> list[str]:
    matched = "id (" + args.id + ")" if args.id else "row order"
    return [f"A: {args.files[0]}", f"B: {args.files[1]}",
            f"{m} questions matched by {matched}", "",
            *verdicts(lines, args.confidence, " points" if getattr(args, "percent", False)
                      else "")]


def _notes(args: argparse.Namespace) -> list[str]:
    notes = getattr(args, "notes", [])
    return [f"note: {note}" for note in notes]


def render_table(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """The verdicts, the paired table for the terminal, notes and a legend."""
    several, exact = _columns(lines)
    header = _header(args.confidence, several, exact)
    body = [_table_cells(line, args.digits, several, exact) for line in lines]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    left = {0, 5}

    def row(cells: list[str]) -> str:
        return "  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
                         for i, cell in enumerate(cells)).rstrip()

    out = [*_head_lines(lines, m, args), "", row(header)] + [row(cells) for cells in body]
    out += [""] + [wrapped for note in _notes(args)
                   for wrapped in textwrap.wrap(note, LEGEND_WIDTH, subsequent_indent="  ")]
    out += [""] if _notes(args) else []
    out.extend(_legend(labels, args.confidence, bool(args.clusters), several, exact))
    return "\n".join(out) + "\n"


def render_markdown(lines: list[Line], labels: list[str], m: int,
                    args: argparse.Namespace) -> str:
    """The verdicts, the paired table as GitHub-flavoured Markdown, notes and the legend."""
    several, exact = _columns(lines)
    header = _header(args.confidence, several, exact)
    align = [":---"] + ["---:"] * 4 + [":---"] + ["---:"] * (len(header) - 6)
    head = _head_lines(lines, m, args)
    text = [f"{item}  " for item in head[:3]] + [""] + [f"- {item}" for item in head[4:]] + [""]
    text += ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    text += ["| " + " | ".join(_table_cells(line, args.digits, several, exact)) + " |"
             for line in lines]
    text += [""] + [f"> {note}" for note in _notes(args)] + ([""] if _notes(args) else [])
    for paragraph in _legend(labels, args.confidence, bool(args.clusters), several, exact,
                             width=None):
        text += [paragraph, ""]
    return "\n".join(text[:-1]) + "\n"


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
                "shared": bool(getattr(args, "shared", False)),
                "verdicts": verdicts(lines, args.confidence),
                "notes": list(getattr(args, "notes", [])), "results": _records(lines, labels)}
    return json.dumps(document, indent=2, default=lambda value: float(np.asarray(value))) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}

__all__ = ["DEFAULT_K_MAX", "RENDERERS", "compare_lines", "run_compare", "verdicts"]
