"""The inputs of ``kpass report``, ``compare`` and ``leaderboard``, read by one loader.

:func:`load_outcomes` turns a parsed command line into :class:`kpass.io.inputs.InputOptions`
and reads every input with :func:`kpass.io.inputs.load_inputs`, printing what the reader
noted on stderr; the three commands call it, so they accept the same input options
(``--id``, ``--sample``, ``--threshold``, ``--clusters``, ``--answers``, ``--from``,
``--filter``) with the same meaning.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..io.formats.readers import LoadedFile
from ..io.inputs import InputOptions, load_inputs
from ..io.progress import Progress

__all__ = ["input_options", "load_outcomes"]


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
                        clusters=getattr(args, "clusters", None), tool=args.from_,
                        filter=args.filter, chunk_size=args.chunk_size,
                        skip_bad=bool(getattr(args, "skip_bad", False)), answers=answers,
                        reference=getattr(args, "reference", None), normalize=normalize)


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
    return loaded, answers
