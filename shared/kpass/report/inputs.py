"""The inputs of ``kpass report``, ``compare`` and ``leaderboard``, read by one loader.

:func:`load_outcomes` turns a parsed command line into :class:`kpass.io.inputs.InputOptions`
and reads every input with :func:`kpass.io.inputs.load_inputs`, printing what the reader
noted on stderr; the three commands call it, so they accept the same input options
(``--id``, ``--sample``, ``--threshold``, ``--clusters``, ``--answers``, ``--from``,
``--filter``, ``--partial``) with the same meaning.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from ..io.inputs import InputOptions, load_inputs, load_split
from ..io.progress import Progress

__all__ = ["harness_tools", "input_options", "left_out", "load_models", "load_outcomes",
           "load_task_models"]


def input_options(args: argparse.Namespace) -> InputOptions:
    """The input options of a parsed command line (report, compare or leaderboard).

    ``--normalize`` is imported here, once for every file (a bad name is a ReportError).
    """
    answers = bool(getattr(args, "answers", False))
    normalize = None
    if answers and getattr(args, "normalize", None):
        from ..io.answers_match import import_normalizer

        normalize = import_normalizer(args.normalize)
    return InputOptions(id=args.id, sample=getattr(args, "sample", None), column=args.column,
                        threshold=getattr(args, "threshold", None),
                        clusters=getattr(args, "clusters", None),
                        group=getattr(args, "group", None), tool=args.from_,
                        filter=args.filter, chunk_size=args.chunk_size,
                        skip_bad=bool(getattr(args, "skip_bad", False)), answers=answers,
                        reference=getattr(args, "reference", None), normalize=normalize,
                        pool=bool(getattr(args, "pool", False)),
                        by=getattr(args, "by", None),
                        partial=bool(getattr(args, "partial", False)),
                        cost=getattr(args, "cost", None))


def load_outcomes(sources: list[str], args: argparse.Namespace, command: str, *,
                  clusters: str = "all") -> tuple[list[LoadedFile], list[list[Any] | None]]:
    """Every input of ``kpass COMMAND``, read by :func:`kpass.io.inputs.load_inputs`.

    What the reader noted (a file reached twice through links and read once, sub-folders
    not read, a --filter that does not apply to a file) is printed on stderr as
    ``kpass COMMAND: note: ...``.

    Args:
        sources: the input files, folders or patterns.
        args: the parsed command line.
        command: ``report``, ``compare`` or ``leaderboard``, for messages.
        clusters: ``"all"`` or ``"first"``: whose ``--clusters`` labels are read.

    Returns:
        The loaded inputs and their coded answers (with ``--answers``).
    """
    options = input_options(args)
    loaded, answers = load_inputs(sources, options, clusters=clusters,
                                  progress=lambda source: Progress(f"reading {source}"))
    for item in loaded:
        for note in item.notes:
            print(f"kpass {command}: note: {note}", file=sys.stderr)
        if command != "report" and item.bad_rows:  # report lists them one by one
            print(f"kpass {command}: warning: {left_out(item)}", file=sys.stderr)
    return loaded, answers


def load_models(sources: list[str], args: argparse.Namespace, command: str
                ) -> tuple[list[str], list[LoadedFile]]:
    """The models of one input split by ``--by`` (:func:`kpass.io.inputs.load_split`).

    Args:
        sources: the inputs given; ``--by`` takes exactly one.
        args: the parsed command line (``args.by`` set).
        command: the command, for messages.

    Returns:
        The model labels and each model's loaded counts, in the same order.

    Raises:
        ReportError: not one input, and everything :func:`load_split` refuses.
    """
    if len(sources) != 1:
        raise ReportError(" ".join(sources) or "(no input)",
                          f"--by {args.by} splits one input into its models; give one "
                          f"file, folder or pattern (got {len(sources)})")
    split = load_split(sources[0], input_options(args))
    # the notes of one walk (a folder's links, sub-folders) are every model's: said once
    for note in dict.fromkeys(note for item in split.values() for note in item.notes):
        print(f"kpass {command}: note: {note}", file=sys.stderr)
    for item in split.values():
        if item.bad_rows:
            print(f"kpass {command}: warning: {left_out(item)}", file=sys.stderr)
    return list(split), list(split.values())


def left_out(item: LoadedFile) -> str:
    """One line on the rows (an Inspect log's epochs) an input's reader left out.

    Example:
        >>> from pathlib import Path
        >>> from kpass import BinaryCounts
        >>> item = LoadedFile("a.jsonl", Path("a.jsonl"), "outcomes",
        ...                   BinaryCounts([2], [1]), "line 1", [("line 2", "not a list")])
        >>> left_out(item)
        'a.jsonl: 1 unreadable row left out (first: line 2: not a list)'
    """
    from ..io.harness.inspect_log import InspectFile

    count = len(item.bad_rows)
    plural = "s" * (count != 1)
    what = (f"errored or unscored epoch{plural} left out (fewer samples for "
            f"{'their questions' if plural else 'its question'})"
            if isinstance(item, InspectFile) else f"unreadable row{plural} left out")
    where, problem = item.bad_rows[0]
    return f"{item.source}: {count} {what} (first: {where}: {problem})"


def harness_tools(sources: list[str], args: argparse.Namespace) -> list[str] | None:
    """Each source's harness (``"inspect"``, ``"lm-eval"``, ...), or None unless all are one's."""
    from ..io.harness.inspect_files import is_inspect_log
    from ..io.harness.load import detect_harness

    tools = [args.from_ or ("inspect" if is_inspect_log(source) else detect_harness(source))
             for source in sources]
    return None if any(tool is None for tool in tools) else [str(tool) for tool in tools]


def load_task_models(sources: list[str], tools: list[str], args: argparse.Namespace,
                     command: str) -> tuple[list[str], list[LoadedFile]]:
    """Harness files of several models, a file per task and model, as one input per model.

    ``--group task`` on harness logs (an ``inspect eval-set`` folder; lm-eval's
    ``samples_<task>_<date>.jsonl`` of several runs): the files are sorted into models (an
    Inspect log's ``eval.model``, lm-eval's ``model_name`` from the run's
    ``results_<date>.json``; without one, the file's folder) and each model's files become
    one input whose questions are every task's, with the id ``TASK/ID`` (tasks often number
    their samples 1..N alike, so the models pair by task and id) and the task as group.

    Returns:
        The model names (sorted) and their inputs.

    Raises:
        ReportError: fewer than 2 models, a model with a task twice, a file without
            question ids, or a task some models lack (naming it and them).
    """
    from pathlib import Path

    import numpy as np

    from .._core.counting.counts import BinaryCounts
    from ..io.harness.harness_tasks import harness_task

    loaded, _ = load_outcomes(sources, argparse.Namespace(**{**vars(args), "group": None}),
                              command)
    found = [harness_task(source, tool) for source, tool in zip(sources, tools, strict=True)]
    buckets: dict[str, list[int]] = {}
    for index, about in enumerate(found):
        model = about.model or str(Path(sources[index]).parent)
        buckets.setdefault(model, []).append(index)
    if len(buckets) < 2:
        raise ReportError(sources[0], f"--group task: every file is of one model "
                                      f"({next(iter(buckets))}); give the task logs of at "
                                      "least 2 models")
    names, merged = [], []
    tasks: dict[str, set[str]] = {}
    for model, members in sorted(buckets.items()):
        seen: dict[str, str] = {}
        ids: list[str] = []
        groups: list[str] = []
        for index in members:
            item, task = loaded[index], found[index].task
            if task in seen:
                raise ReportError(item.source, f"--group task: task {task!r} of model "
                                               f"{model} is also in {seen[task]}; give one "
                                               "file per task and model")
            seen[task] = item.source
            if item.counts.ids is None:
                raise ReportError(item.source, "--group task: this file has no question ids "
                                               "to pair the models by")
            ids.extend(f"{task}/{question}" for question in item.counts.ids)
            groups.extend([task] * item.counts.n_questions)
        tasks[model] = set(seen)
        parts = [loaded[index] for index in members]
        counts = BinaryCounts(np.concatenate([part.counts.n_samples for part in parts]),
                              np.concatenate([part.counts.n_correct for part in parts]),
                              ids=ids)
        first = parts[0]
        names.append(model)
        merged.append(LoadedFile(model, first.path, first.column, counts, first.shortest,
                                 [row for part in parts for row in part.bad_rows],
                                 groups=groups))
    every = set.union(*tasks.values())
    for model, have in tasks.items():
        if have != every and not getattr(args, "shared", False):
            missing = ", ".join(sorted(every - have))
            raise ReportError(model, f"--group task: has no log of task {missing}, which "
                                     "other models have; give every model every task, or "
                                     "pass --shared to rank on the tasks all have")
    return names, merged
