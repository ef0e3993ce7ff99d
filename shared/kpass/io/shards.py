"""Sharded inputs: a folder of part files, or a glob pattern, read as one input.

Spark, Hive, Dask and many harness wrappers write one logical table as a folder of part
files (``part-00000-....parquet``, ``part-0.csv.gz``, ...) beside bookkeeping files
(``_SUCCESS``, ``_committed_...``, ``.part-00000.crc``). :func:`shard_paths` lists the
parts of such a folder, or the files a glob pattern (``runs/*.jsonl.gz``,
``logs/**/part-*.parquet``) matches, so that ``kpass report``, ``compare`` and
``leaderboard`` pool them into one input: the same counts as one file holding every row.
"""

from __future__ import annotations

import glob
from pathlib import Path

from .formats import detect_format
from .rows import ReportError

__all__ = ["is_pattern", "shard_paths"]

_PATTERN_CHARACTERS = frozenset("*?[")


def is_pattern(source: str) -> bool:
    """Whether ``source`` is a glob pattern (and not a file that exists by that name)."""
    return bool(_PATTERN_CHARACTERS & set(source)) and not Path(source).exists()


def _is_part(path: Path) -> bool:
    """A data file of a sharded table: not hidden (``.crc``), not bookkeeping (``_SUCCESS``)."""
    return path.is_file() and not path.name.startswith((".", "_"))


def _is_datasets_folder(path: Path) -> bool:
    return any((path / name).exists() for name in ("state.json", "dataset_dict.json"))


def shard_paths(source: str) -> list[str] | None:
    """The part files of a sharded ``source``, in sorted order; None for a single input.

    ``source`` is sharded when it is a glob pattern that names no existing file, or a
    directory that is not a saved ``datasets`` folder. Hidden files and files whose name
    starts with ``_`` are left out, so are directories a pattern matches.

    Raises:
        ReportError: a pattern matching no file, a folder without part files, or parts of
            different formats (naming two of them).

    Example:
        >>> shard_paths("README.md") is None
        True
    """
    if is_pattern(source):
        parts = sorted(Path(match) for match in glob.glob(source, recursive=True))
        parts = [path for path in parts if _is_part(path)]
        if not parts:
            raise ReportError(source, "the pattern matches no file (hidden files and names "
                                      "starting with '_' are left out)")
    else:
        path = Path(source)
        if not path.is_dir() or _is_datasets_folder(path):
            return None
        parts = sorted(child for child in path.iterdir() if _is_part(child))
        if not parts:
            raise ReportError(source, "a directory with no part files and not a saved datasets "
                                      "dataset (no state.json); kpass reads files, folders of "
                                      "part files, glob patterns or Dataset.save_to_disk "
                                      "directories")
    formats: dict[str, Path] = {}
    for part in parts:
        formats.setdefault(detect_format(part), part)
    if len(formats) > 1:
        (first, one), (second, other) = list(formats.items())[:2]
        raise ReportError(source, f"the parts are of different formats: {one.name} is {first},"
                                  f" {other.name} is {second}; give one format per input")
    return [str(part) for part in parts]
