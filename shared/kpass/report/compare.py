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
from dataclasses import replace
from typing import Any

from .._core.counts import BinaryCounts
from .._core.prior import has_beta_prior
from ..io.labels import read_labels
from ..io.readers import LoadedFile, ReportError
from ..stats.align import align_runs
from .compare_render import (  # noqa: F401 - the outputs, as this module always offered them
    FIELDS,
    RENDERERS,
    VERDICTS_IN_FULL,
    Line,
    _columns,
    _head_lines,
    _header,
    _in_percent,
    _legend,
    _notes,
    _number,
    _p_value,
    _p_words,
    _records,
    _table_cells,
    render_csv,
    render_json,
    render_markdown,
    render_table,
    verdicts,
)
from .inputs import load_outcomes
from .output import _check_answers_options, _write, collect_notes, holm
from .table import DEFAULT_K_MAX, PRIOR_NOTE, Family, default_ks, input_labels, parse_metrics


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
                  ties: str = "fractional", prior: str = "uniform") -> list[Line]:
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
        prior: ``"uniform"`` or ``"empirical"`` (``--prior``): the Beta prior behind
            P(A>B), for the metrics whose posterior has one.

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
        if prior != "uniform" and has_beta_prior(function(fam.function + "_ci")):
            options["prior"] = prior
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
        if answers_mode and args.clusters is not None:
            raise ReportError(args.files[0], "--clusters is not available with --answers")
        # One loader for every command (kpass.io.inputs): long files grouped by --id (with
        # their --clusters labels), soft scores by --threshold, harness files per file.
        loaded, answers = load_outcomes(list(args.files), args, "compare", clusters="first")
        first, second = (item.counts for item in loaded)
        if answers_mode:
            coded = (answers[0] or [], answers[1] or [])
        elif args.id is None and first.ids is not None:
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
        clusters = loaded[0].clusters
        n_min = min(int(first.n_samples.min()), int(second.n_samples.min()))
        ks = sorted({k for group in args.k for k in group}) if args.k else default_ks(n_min)
        if coded is not None:
            first, second, coded = _aligned_answers(first, second, coded, shared, args.files)
        if getattr(args, "sequential", False):
            from .sequential import sequential_text

            return _write(sequential_text(first, second, families, ks, args, clusters,
                                          input_labels(list(args.files))))
        try:
            lines = compare_lines(first, second, families, ks, args.tau, args.confidence,
                                  args.short, clusters, notes=notes, shared=shared,
                                  answers=coded, ties=getattr(args, "ties", "fractional"),
                                  prior=getattr(args, "prior", "uniform"))
            if getattr(args, "prior", "uniform") == "empirical":
                notes.append(PRIOR_NOTE)
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


def _aligned_answers(first: BinaryCounts, second: BinaryCounts,
                     coded: tuple[list[Any], list[Any]], shared: bool, files: list[str]
                     ) -> tuple[BinaryCounts, BinaryCounts, tuple[list[Any], list[Any]]]:
    """Both runs' counts and coded answers on the same questions in A's order (by id)."""
    try:
        alignment = align_runs([first, second], ["A", "B"], shared=shared, verb="compare")
    except ValueError as error:
        message = str(error).replace("pass shared=True", "pass --shared")
        raise ReportError(f"{files[0]} vs {files[1]}", message) from None
    picked = [codes if rows is None else [codes[i] for i in rows]
              for codes, rows in zip(coded, alignment.rows, strict=True)]
    return alignment.runs[0], alignment.runs[1], (picked[0], picked[1])


__all__ = ["DEFAULT_K_MAX", "RENDERERS", "compare_lines", "run_compare", "verdicts"]
