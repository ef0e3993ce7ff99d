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

import numpy as np

from .._core.counting.checks import InputError
from .._core.counting.counts import BinaryCounts
from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from ..io.harness.inspect_files import expand_inspect_logs
from ..io.harness.inspect_log import check_same_task
from ..stats.align import align_runs
from .compare_render import (
    RENDERERS,
    CompareRequest,
    _in_percent,
)
from .compare_rows import compare_lines
from .cost import cost_unit, difference_line, question_costs, wants_cost
from .inputs import load_models, load_outcomes
from .output import _check_answers_options, _write, cli_words
from .table import PRIOR_NOTE, default_ks, input_labels, named_sources, parse_metrics


def run_compare(args: argparse.Namespace) -> int:
    """Run ``kpass compare`` with parsed arguments.

    Args:
        args: the parsed command line.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used, 2 for a bad argument.
    """
    try:  # NAME=PATH names a run; a folder of Inspect logs is one input per log
        named, paths = named_sources(list(args.files))
    except ReportError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 2
    given: list[str | None] = []
    args.files = []
    sides = _task_sides(paths, args)
    if sides is not None:  # --group task on harness logs: each side is one model's tasks
        args.files = [side[0] for side in sides]
        given = list(named)
    for name, path in zip(named, paths if sides is None else [], strict=sides is None):
        expanded = ([path] if name is not None or getattr(args, "by", None) is not None
                    else expand_inspect_logs([path]))
        args.files.extend(expanded)
        given.extend([name] * len(expanded))
    by = getattr(args, "by", None)
    picked = [getattr(args, "a", None), getattr(args, "b", None)]
    if by is None and any(model is not None for model in picked):
        print("kpass compare: error: --a and --b name models of one input split by --by "
              "COLUMN; without --by give two files", file=sys.stderr)
        return 2
    if by is not None and (len(args.files) != 1 or None in picked or picked[0] == picked[1]):
        print(f"kpass compare: error: --by {by} compares two models of one input: give one "
              "file, folder or pattern and two different models with --a MODEL --b MODEL",
              file=sys.stderr)
        return 2
    if by is None and len(args.files) != 2:
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
    if getattr(args, "sequential", False) and (getattr(args, "primary", None) is not None
                                               or getattr(args, "adjust", None) is not None):
        # Refused, not ignored: each row's confidence sequence holds at --confidence on its
        # own; a primary row and a joint max-T or Holm adjustment are fixed-sample
        # procedures with no anytime-valid counterpart here.
        given_options = [option for option, value in (("--primary", args.primary),
                                                       ("--adjust", args.adjust))
                         if value is not None]
        print(f"kpass compare: error: {' and '.join(given_options)} cannot be combined with "
              "--sequential: each row's confidence sequence holds at --confidence on its own, "
              "with no joint adjustment; drop them, or compare without --sequential",
              file=sys.stderr)
        return 2
    if getattr(args, "equivalence", False) and getattr(args, "margin", None) is None:
        print("kpass compare: error: --equivalence needs --margin M (the largest |A - B| that "
              "counts as equivalent, e.g. --margin 0.02)", file=sys.stderr)
        return 2
    if getattr(args, "sequential_null", None) is not None and not getattr(args, "sequential",
                                                                          False):
        print("kpass compare: error: --sequential-null applies to --sequential only (the "
              "fixed-sample table's tests are sign-flip and t tests)", file=sys.stderr)
        return 2
    if getattr(args, "sequential", False) and wants_cost(args):
        print("kpass compare: error: --cost and --cost-per-1k-tokens are not available with "
              "--sequential (the cost difference is a fixed-sample interval); compare "
              "without --sequential", file=sys.stderr)
        return 2
    group = getattr(args, "group", None)
    if group is not None:
        clash = [option for option, value in (
            ("--clusters", args.clusters), ("--sequential", getattr(args, "sequential", False)),
            ("--margin", getattr(args, "margin", None))) if value]
        if clash:
            # the groups are strata of the aggregate's SE, not clusters; a breakdown's joint
            # max-T p-values are fixed-sample two-sided tests
            print(f"kpass compare: error: --group {group} cannot be combined with "
                  f"{' and '.join(clash)}: the groups are strata of the aggregate's SE and "
                  "their p-values are fixed-sample two-sided tests", file=sys.stderr)
            return 2
    answers_mode = bool(getattr(args, "answers", False))
    try:
        families = [fam for fam in parse_metrics(args.metrics, answers=answers_mode)
                    if answers_mode or not fam.answers]
        if answers_mode:
            _check_answers_options(args)
        elif getattr(args, "normalize", None) is not None:
            raise InputError("--normalize applies to sampled answers: add --answers")
    except ValueError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 2
    loaded: list[LoadedFile]
    notes: list[str] = []
    try:
        sample = getattr(args, "sample", None)
        shared = bool(getattr(args, "shared", False))
        if sample is not None and args.id is None:
            raise ReportError(args.files[0], "--sample needs --id (the question-id column)")
        coded: tuple[list[Any], list[Any]] | None = None
        if answers_mode and args.clusters is not None:
            raise ReportError(args.files[0], "--clusters is not available with --answers")
        # One loader for every command (kpass.io.inputs): long files grouped by --id (with
        # their --clusters labels), soft scores by --threshold, harness files per file.
        if by is not None:
            loaded, given = _by_models(args, by, picked), list(picked)
            answers: list[list[Any] | None] = [None, None]
        elif sides is not None:
            loaded = [_merged_side(side, args) for side in sides]
            args.files = [item.source for item in loaded]
            answers = [None, None]
        else:
            if not getattr(args, "any_task", False):
                check_same_task(list(args.files))
            loaded, answers = load_outcomes(list(args.files), args, "compare",
                                            clusters="first")
        first, second = (item.counts for item in loaded)
        from ..io.harness.metadata import run_info

        runs = tuple(run_info(item.source, item) for item in loaded)
        if shared and (first.ids is None or second.ids is None):  # a harness log has its own
            raise ReportError(args.files[0], "--shared needs --id (the question-id column)")
        if answers_mode:
            coded = (answers[0] or [], answers[1] or [])
            from ..io.answers_match import import_normalizer

            check_same_references(
                args, import_normalizer(args.normalize) if args.normalize else None)
        matched_by = args.id
        if args.id is None and first.ids is not None:
            matched_by = "question id"  # a harness file's own ids; the legend says so
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

            request = CompareRequest.from_args(args, matched_by=matched_by, notes=[
                cli_words(note) for note in notes], runs=runs)
            return _write(sequential_text(first, second, families, ks, args, clusters,
                                          input_labels(list(args.files), given), request, m))
        try:
            lines = compare_lines(first, second, families, ks, args.tau, args.confidence,
                                  args.short, clusters, notes=notes, shared=shared,
                                  answers=coded, ties=getattr(args, "ties", "fractional"),
                                  primary=getattr(args, "primary", None),
                                  adjust=getattr(args, "adjust", None) or "max-t",
                                  prior=getattr(args, "prior", "uniform"),
                                  margin=getattr(args, "margin", None),
                                  equivalence=bool(getattr(args, "equivalence", False)))
            if getattr(args, "prior", "uniform") == "empirical":
                notes.append(PRIOR_NOTE)
        except (TypeError, ValueError) as error:
            message = str(error).replace("pass shared=True", "pass --shared")
            raise ReportError(f"{args.files[0]} vs {args.files[1]}", message) from None
        notes[:] = [cli_words(note) for note in notes]
        if not lines:
            raise ReportError(f"{args.files[0]} vs {args.files[1]}",
                              "no row left to compare: " + "; ".join(notes))
        labels = input_labels(list(args.files), given)
        shown = lines
        if getattr(args, "percent", False) and args.format in ("table", "markdown"):
            shown = [replace(line, result=_in_percent(line.result)) for line in lines]
            notes.append("values in percent (x 100): A, B, differences, se, intervals and MDE; "
                         "p-values and P(A>B) are probabilities as before.")
        request = CompareRequest.from_args(args, matched_by=matched_by, notes=notes, runs=runs)
        if wants_cost(args):
            from ..stats.cost import cost_difference

            costs = [question_costs(item, args) for item in loaded]
            try:  # paired over the questions the comparison pairs (by id, --shared)
                found = cost_difference(loaded[0].counts, loaded[1].counts, *costs,
                                        confidence=args.confidence, shared=shared)
            except ValueError as error:
                raise ReportError(f"{args.files[0]} vs {args.files[1]}",
                                  f"cost: {error}") from None
            request = replace(request, cost_difference=found,
                              cost_line=difference_line(found, cost_unit(args)))
        if group is not None:
            request = replace(request, groups=_group_breakdown(lines, loaded[0], second,
                                                               shared, args))
        text = RENDERERS[args.format](shown, labels, m, request)
        if args.plot:
            from .plot import plot_differences

            plot_differences(args.plot, labels, lines, args.confidence)
            print(f"wrote {args.plot}", file=sys.stderr)
    except ReportError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 1
    return _write(text)


def _task_sides(paths: list[str], args: argparse.Namespace
                ) -> list[tuple[str, list[str], list[str]]] | None:
    """With ``--group task`` on harness logs: each side's (name, files, harnesses), else None.

    Each of the two inputs (a file, or a folder such as an ``inspect eval-set``'s of one
    model) holds one model's tasks, a file per task, as ``kpass report --group task``
    reads them.
    """
    if (getattr(args, "group", None) != "task" or args.id is not None
            or getattr(args, "by", None) is not None or len(paths) != 2):
        return None
    from ..io.harness.inspect_files import is_inspect_log
    from ..io.harness.load import detect_harness

    sides = []
    for path in paths:
        files = expand_inspect_logs([path])
        tools = [args.from_ or ("inspect" if is_inspect_log(source)
                                else detect_harness(source)) for source in files]
        if any(tool is None for tool in tools):
            return None
        sides.append((path, files, [str(tool) for tool in tools]))
    return sides


def _merged_side(side: tuple[str, list[str], list[str]], args: argparse.Namespace
                 ) -> LoadedFile:
    """One side's harness files (one model, a file per task) as one input grouped by task.

    A question's id becomes ``TASK/ID`` (tasks often number their samples 1..N alike), so
    the two sides pair by task and id.

    Raises:
        ReportError: a side holding several models, a task twice, or a file without ids.
    """
    from ..io.harness.harness_tasks import harness_task

    name, files, tools = side
    loaded, _ = load_outcomes(files, argparse.Namespace(**{**vars(args), "group": None}),
                              "compare")
    found = [harness_task(source, tool) for source, tool in zip(files, tools, strict=True)]
    models = sorted({str(about.model) for about in found})
    if len(models) > 1:
        raise ReportError(name, f"--group task: holds {len(models)} models "
                                f"({', '.join(models[:5])}); give one model's task logs "
                                "per side")
    ids: list[str] = []
    groups: list[str] = []
    seen: dict[str, str] = {}
    for item, about in zip(loaded, found, strict=True):
        if about.task in seen:
            raise ReportError(item.source, f"--group task: task {about.task!r} is also in "
                                           f"{seen[about.task]}; give one file per task")
        seen[about.task] = item.source
        if item.counts.ids is None:
            raise ReportError(item.source, "--group task: this file has no question ids to "
                                           "pair the two sides by")
        ids.extend(f"{about.task}/{question}" for question in item.counts.ids)
        groups.extend([about.task] * item.counts.n_questions)
    counts = BinaryCounts(np.concatenate([item.counts.n_samples for item in loaded]),
                          np.concatenate([item.counts.n_correct for item in loaded]), ids=ids)
    first = loaded[0]
    label = found[0].model if found[0].model is not None else name
    return LoadedFile(str(label), first.path, first.column, counts, first.shortest,
                      [row for item in loaded for row in item.bad_rows], groups=groups)


def _group_breakdown(lines: list[Any], item: LoadedFile, second: BinaryCounts, shared: bool,
                     args: argparse.Namespace) -> Any:
    """Every row (primary first) broken down by A's ``--group`` labels, through the pairing."""
    from ..stats.align import subset_labels
    from .compare_groups import group_comparison

    if item.groups is None:
        raise ReportError(args.files[0], f"--group {args.group}: no group labels were read")
    try:
        aligned = align_runs([item.counts, second], ["A", "B"], shared=shared, verb="compare")
        labels = list(subset_labels(item.groups, aligned, "--group"))
    except ValueError as error:
        raise ReportError(f"{args.files[0]} vs {args.files[1]}", str(error)) from None
    return group_comparison(lines, labels, str(args.group), args.weights, args.confidence)


def _by_models(args: argparse.Namespace, by: str, picked: list[str | None]
               ) -> list[LoadedFile]:
    """Models A and B (``--a``, ``--b``) of the one input split by ``--by``.

    ``args.files`` becomes the two models' names in messages (``runs.parquet (model = m1)``).

    Raises:
        ReportError: a model that is not among the input's, naming it and those present.
    """
    source = args.files[0]
    names, items = load_models([source], args, "compare")
    models = dict(zip(names, items, strict=True))
    for option, model in zip(("--a", "--b"), picked, strict=True):
        if model not in models:
            shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
            raise ReportError(source, f"{option} {model}: no such value of `{by}`; the "
                                      f"values are {shown}")
    args.files = [f"{source} ({by} = {model})" for model in picked]
    return [models[str(model)] for model in picked]


def _references(source: str, args: argparse.Namespace, normalize: Any
                ) -> tuple[list[tuple[Any, Any, Any, str]], bool]:
    """Each question's reference of one answers file: (id or row, key, as written, where).

    Read again record by record (the reader keeps only the coded answers); the key is the
    comparison key of answers (``--normalize``, then the canonical form), so ``170`` and
    ``"170.0"`` are one reference. Returns the list and whether it is keyed by id.
    """
    from pathlib import Path

    from .._core.counting.canonical import answer_key
    from ..io.answers import answer_records
    from ..io.answers_match import _question_id
    from ..io.rows import Unreadable

    path = Path(source)
    names = {"answers": args.column, "reference": args.reference, "id": args.id,
             "sample": getattr(args, "sample", None)}
    state: dict[str, str] = {}
    key = answer_key(normalize)
    seen: dict[Any, tuple[Any, Any, Any, str]] = {}
    row = 0
    records, by_id = answer_records(source, path, names, state, args.chunk_size)
    for where, answers, gold, qid, _ in records:
        if isinstance(answers, Unreadable) or isinstance(gold, Unreadable):
            continue
        if by_id is None:
            row += 1
            seen[row] = (row, key(gold), gold, where)
            continue
        qid = _question_id(qid, "question id", source, where)
        if qid not in seen:
            seen[qid] = (qid, key(gold), gold, where)
    return list(seen.values()), by_id is not None


def check_same_references(args: argparse.Namespace, normalize: Any) -> None:
    """Refuse two answers files whose references differ for the same question.

    Each run's answers are scored against its own file's references, so a question whose
    reference differs between the files would compare two different tasks. The first
    such question (in A's order) is named; references are compared by the rule answers
    are (canonical form after ``--normalize``), as the Space compares the gold answers
    of one question's lines.

    Raises:
        ReportError: a question with different references in the two files.
    """
    first, by_id = _references(args.files[0], args, normalize)
    second, _ = _references(args.files[1], args, normalize)
    other = {item[0]: item for item in second}
    for question, key, gold, where in first:
        match = other.get(question)
        if match is None or match[1] == key:
            continue
        what = f"question id {question!r}" if by_id else f"question {question} (row order)"
        raise ReportError(f"{args.files[0]} vs {args.files[1]}",
                          f"{what} has reference {gold!r} in {args.files[0]} ({where}) but "
                          f"{match[2]!r} in {args.files[1]} ({match[3]}); both runs must be "
                          "scored against the same references")


def _aligned_answers(first: BinaryCounts, second: BinaryCounts,
                     coded: tuple[list[Any], list[Any]], shared: bool, files: list[str]
                     ) -> tuple[BinaryCounts, BinaryCounts, tuple[list[Any], list[Any]]]:
    """Both runs' counts and coded answers on the same questions in A's order (by id)."""
    try:
        alignment = align_runs([first, second], ["A", "B"], shared=shared, verb="compare")
    except ValueError as error:
        message = str(error).replace("pass shared=True", "pass --shared")
        raise ReportError(f"{files[0]} vs {files[1]}", message) from None
    return (alignment.runs[0], alignment.runs[1],
            (alignment.take(0, coded[0]), alignment.take(1, coded[1])))


__all__ = ["run_compare"]
