"""Sharded inputs: a folder of part files, or a glob pattern, read as one input.

Spark, Hive, Dask and many harness wrappers write one logical table as a folder of part
files (``part-00000-....parquet``, ``part-0.csv.gz``, ...) beside bookkeeping files
(``_SUCCESS``, ``_committed_...``, ``.part-00000.crc``), partitioned tables in Hive-style
``key=value`` sub-folders (``table/lang=en/part-0.csv``). :func:`shard_parts` lists the
parts of such a folder, or the files a glob pattern (``runs/*.jsonl.gz``,
``logs/**/part-*.parquet``) matches, so that ``kpass report``, ``compare`` and
``leaderboard`` pool them into one input: the same counts as one file holding every row.

One walker serves folders and patterns. It follows symbolic links (a ``latest -> run-42``
alias, a link to data elsewhere) but resolves every path to its real path first: each real
folder is walked once and each real file is read once, so a link to a folder already walked
(``self -> .``, ``up -> ..``) never loops and an alias never doubles a count. Real paths are
preferred to links when both reach a file, and every file reached twice is named in a note.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ReportError
from .formats.base import detect_format

__all__ = ["Parts", "is_pattern", "shard_parts", "shard_paths"]

_PATTERN_CHARACTERS = frozenset("*?[")

#: Names listed in a note before "and N more".
SHOWN = 3

Step = Callable[[Any, str, bool], Any]
"""What a walk makes of an entry: ``step(state, name, is_dir)`` -> a state, or None."""


def is_pattern(source: str) -> bool:
    """Whether ``source`` is a glob pattern (and not a file that exists by that name)."""
    return bool(_PATTERN_CHARACTERS & set(source)) and not Path(source).exists()


@dataclass
class Parts:
    """The part files of a sharded input.

    Attributes:
        paths: the part files to read, in sorted order, each real file once.
        labels: each part's name in messages: its path relative to the folder given, or
            the path a pattern matched (``lang=en/part-0.csv``, ``runs/a/part-0.csv``).
        notes: what the walk left out or read once (links, folders that are not parts).
    """

    paths: list[str]
    labels: list[str]
    notes: list[str] = field(default_factory=list)


def _is_bookkeeping(name: str) -> bool:
    """Hidden (``.crc``, ``.spark-staging``) or bookkeeping (``_SUCCESS``, ``_temporary``)."""
    return name.startswith((".", "_"))


def _is_datasets_folder(path: Path) -> bool:
    return any((path / name).exists() for name in ("state.json", "dataset_dict.json"))


def _is_partition(name: str) -> bool:
    """A Hive-style partition folder name: ``key=value`` with a non-empty key."""
    key, equals, _ = name.partition("=")
    return bool(equals and key)


class _Walk:
    """One walk over folders: each real folder entered once, each real file taken once.

    ``step(state, name, is_dir)`` says what an entry is worth: for a file, whether it is a
    part (a non-None state); for a folder, the state to walk it with (None: not walked).
    Folders reached through a link are walked after every folder reached by its real
    path, so the real path names a file whenever it can.
    """

    def __init__(self) -> None:
        self.folders: dict[str, Path] = {}  # real path -> the path it was walked by
        self.files: dict[str, tuple[bool, Path]] = {}  # real path -> (via a link, path)
        self.twice: list[str] = []
        self.loops: list[str] = []
        self.broken: list[str] = []

    def run(self, root: Path, state: Any, step: Step) -> None:
        pending: list[tuple[Path, Any, bool]] = [(root, state, False)]
        deferred: list[tuple[Path, Any, bool]] = []
        while pending or deferred:
            folder, state, linked = pending.pop() if pending else deferred.pop(0)
            real = os.path.realpath(folder)
            if real in self.folders:
                (self.loops if _inside(real, folder) else self.twice).append(
                    f"{folder} is {self.folders[real]}")
                continue
            self.folders[real] = folder
            try:
                entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
            except OSError as error:
                raise ReportError(str(folder), f"cannot list the folder "
                                               f"({error.strerror or error})") from None
            below: list[tuple[Path, Any, bool]] = []
            for entry in entries:
                path = Path(folder) / entry.name
                link = entry.is_symlink()
                try:
                    is_dir = entry.is_dir()  # follows links
                    is_file = not is_dir and entry.is_file()
                except OSError:
                    is_dir = is_file = False
                if not is_dir and not is_file:
                    if link:
                        self.broken.append(str(path))
                    continue
                child = step(state, entry.name, is_dir)
                if child is None:
                    continue
                if is_file:
                    self._take(path, linked or link)
                else:
                    (deferred if linked or link else below).append((path, child, linked or link))
            pending.extend(reversed(below))  # depth first, in name order

    def _take(self, path: Path, linked: bool) -> None:
        real = os.path.realpath(path)
        known = self.files.get(real)
        if known is None:
            self.files[real] = (linked, path)
        elif known[0] and not linked:  # the real path names the file, the link is noted
            self.twice.append(f"{known[1]} is {path}")
            self.files[real] = (linked, path)
        else:
            self.twice.append(f"{path} is {known[1]}")

    def notes(self, source: str) -> list[str]:
        notes = []
        for items, what in ((self.twice + self.loops, "reached twice through links and read "
                                                      "once"),
                            (self.broken, "links to nothing, left out")):
            if items:
                shown = "; ".join(items[:SHOWN])
                more = f"; and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
                notes.append(f"{source}: {len(items)} {_plural(len(items), 'path')} {what} "
                             f"({shown}{more})")
        return notes


def _inside(real: str, folder: Path) -> bool:
    """Whether ``folder`` lies inside ``real`` (a link back to an ancestor: a loop)."""
    return os.path.realpath(folder.parent).startswith(real.rstrip(os.sep) + os.sep) or (
        os.path.realpath(folder.parent) == real)


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def _split_pattern(source: str) -> tuple[Path, list[str]]:
    """The folder a pattern starts in (its components without wildcards) and the rest."""
    parts = Path(source).parts
    fixed = 0
    while fixed < len(parts) - 1 and not _PATTERN_CHARACTERS & set(parts[fixed]):
        fixed += 1
    root = Path(*parts[:fixed]) if fixed else Path(".")
    return root, list(parts[fixed:])


def _pattern_step(pattern: list[str]) -> Step:
    """The walk's ``step`` for a glob pattern: states are the components still to match.

    As :func:`glob.glob` with ``recursive=True``: ``**`` matches zero or more folders, a
    wildcard does not match a name starting with ``.`` unless the component does.
    """
    end = len(pattern)

    def closure(states: frozenset[int]) -> frozenset[int]:
        out = set(states)
        for index in sorted(states):
            while index < end and pattern[index] == "**":
                index += 1
                out.add(index)
        return frozenset(out)

    def step(states: frozenset[int], name: str, is_dir: bool) -> frozenset[int] | None:
        if not is_dir and _is_bookkeeping(name):
            return None  # _SUCCESS, .crc: never a part, whatever the pattern
        moved = set()
        for index in closure(states):
            if index == end:
                continue
            component = pattern[index]
            if name.startswith(".") and not component.startswith("."):
                continue
            if component == "**":
                moved.add(index)  # any name, folder or file (`runs/**` matches every file)
            elif fnmatch.fnmatchcase(name, component):
                moved.add(index + 1)
        reached = closure(frozenset(moved))
        if not is_dir:
            return reached if end in reached else None
        inner = frozenset(i for i in reached if i < end)
        return inner or None

    return step


def _folder_step(skipped: list[str]) -> Step:
    """The walk's ``step`` for a folder: part files, and ``key=value`` partition folders."""

    def step(state: Path, name: str, is_dir: bool) -> Path | None:
        if _is_bookkeeping(name):
            return None
        if not is_dir:
            return state
        if _is_partition(name):
            return state / name
        skipped.append(str(state / name))
        return None

    return step


def shard_parts(source: str, *, formats: bool = True) -> Parts | None:
    """The part files of a sharded ``source``, in sorted order; None for a single input.

    ``source`` is sharded when it is a glob pattern that names no existing file, or a
    directory that is not a saved ``datasets`` folder. A folder's parts are its files and
    the files of its Hive-style partition folders (``key=value``, at any depth); other
    sub-folders are not read and are named in a note. Hidden files and names starting
    with ``_`` are left out, so are directories a pattern matches. A 0-byte part is an
    empty partition (Spark and Dask write them): it holds no rows and is left out, as a
    header-only CSV part or an empty Parquet part adds none. Links are followed,
    each real file is read once (:class:`_Walk`).

    Args:
        source: a file, folder or glob pattern.
        formats: refuse parts of different formats (False: any files, e.g. Inspect logs,
            whose format the tabular readers do not know).

    Raises:
        ReportError: an empty name, a pattern matching no file, a folder without part
            files, or parts of different formats (naming two of them).

    Example:
        >>> shard_parts("README.md") is None
        True
    """
    if not source:
        raise ReportError("''", "an empty file name")
    walk = _Walk()
    skipped: list[str] = []
    if is_pattern(source):
        root, pattern = _split_pattern(source)
        if root.is_dir():
            walk.run(root, frozenset({0}), _pattern_step(pattern))
        found = sorted(walk.files.values(), key=lambda item: str(item[1]))
        paths = [path for _, path in found]
        labels = [str(path) for path in paths]
        if not paths:
            raise ReportError(source, "the pattern matches no file (hidden files and names "
                                      "starting with '_' are left out)")
    else:
        folder = Path(source)
        if not folder.is_dir() or _is_datasets_folder(folder):
            return None
        walk.run(folder, Path(), _folder_step(skipped))
        found = sorted(walk.files.values(), key=lambda item: item[1].parts)
        paths = [path for _, path in found]
        labels = [str(path.relative_to(folder)) for path in paths]
        if not paths:
            where = (f"; its sub-folders ({_listed(skipped)}) are not key=value partitions: "
                     f"give a pattern such as {str(folder / '**' / '*.csv')!r} to read them"
                     if skipped else "")
            raise ReportError(source, "a directory with no part files and not a saved datasets "
                                      "dataset (no state.json); kpass reads files, folders of "
                                      "part files, glob patterns or Dataset.save_to_disk "
                                      f"directories{where}")
    empty = {index for index, path in enumerate(paths) if _size(path) == 0}
    if empty and len(empty) == len(paths):
        raise ReportError(source, f"every part is empty (0 bytes: {_listed(labels)}): no "
                                  "rows to read")
    if empty:  # Spark and Dask write an empty partition as a 0-byte part: no rows
        paths = [path for index, path in enumerate(paths) if index not in empty]
        labels = [label for index, label in enumerate(labels) if index not in empty]
    notes = walk.notes(source)
    if skipped:
        notes.append(f"{source}: {len(skipped)} {_plural(len(skipped), 'sub-folder')} not "
                     f"read ({_listed(skipped)}): only key=value partition folders are parts "
                     "of a table; give a pattern to read others")
    seen: dict[str, str] = {}
    for path, label in zip(paths, labels, strict=True) if formats else ():
        seen.setdefault(detect_format(path), label)
    if len(seen) > 1:
        (first, one), (second, other) = list(seen.items())[:2]
        raise ReportError(source, f"the parts are of different formats: {one} is {first},"
                                  f" {other} is {second}; give one format per input")
    return Parts([str(path) for path in paths], labels, notes)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _listed(items: list[str]) -> str:
    more = f", and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more


def shard_paths(source: str) -> list[str] | None:
    """The part files of a sharded ``source`` (:func:`shard_parts`), or None.

    Example:
        >>> shard_paths("README.md") is None
        True
    """
    parts = shard_parts(source)
    return None if parts is None else parts.paths
