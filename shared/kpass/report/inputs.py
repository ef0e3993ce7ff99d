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

__all__ = ["input_options", "left_out", "load_models", "load_outcomes"]


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
