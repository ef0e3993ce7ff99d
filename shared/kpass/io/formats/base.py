r"""What every format reader of :mod:`kpass.io.formats.parsers` shares, none of it opening a file.

The suffix -> format table (:data:`FORMATS`) and :func:`detect_format`; the
:class:`_Reader` base (its state, progress bar and numbered lines) and the
:class:`_RecordReader` of JSON and JSONL records; the line each element of a JSON
array starts on (:func:`_element_lines`); and :func:`_need_pyarrow`, which imports
pyarrow or says how to install it. The readers themselves, which open the files, are
in :mod:`kpass.io.formats.parsers`.

Example:
    >>> from pathlib import Path
    >>> detect_format(Path("runs.jsonl.gz")), detect_format(Path("runs.pq"))
    ('jsonl', 'parquet')
    >>> _element_lines('[\n  {"x": 1},\n  {"x": 2}\n]', 0)
    [2, 3]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import ReportError, show
from ..progress import Progress
from ..rows import INSTALL_HINT, Batch, Unreadable, pick_column

FORMATS = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv",
    ".parquet": "parquet", ".pq": "parquet", ".npy": "npy",
}
"""File suffix -> format; ``.gz`` may follow the text formats; directories are datasets."""

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some editors (Excel, Notepad) put first; every text reader drops it."""


def detect_format(path: Path) -> str:
    """The format of ``path`` from its suffix (``datasets`` for a directory).

    Args:
        path: an existing file or directory.

    Returns:
        One of ``jsonl``, ``json``, ``csv``, ``tsv``, ``parquet``, ``npy``, ``datasets``.

    Raises:
        ReportError: the suffix is not one kpass reads.
    """
    if path.is_dir():
        return "datasets"
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
        if suffixes and FORMATS.get(suffixes[-1]) in ("jsonl", "json", "csv", "tsv"):
            return FORMATS[suffixes[-1]]
    elif suffixes and suffixes[-1] in FORMATS:
        return FORMATS[suffixes[-1]]
    known = ", ".join(sorted(FORMATS)) + " (text formats also .gz), or a datasets directory"
    suffix = "".join(path.suffixes) or "(no suffix)"
    raise ReportError(str(path), f"unknown file type {suffix!r}; kpass reads {known}")


class _Reader:
    """Common state of a reader: the file, the column, the chunk size, the progress bar."""

    def __init__(self, source: str, path: Path, column: str | None, chunk_size: int,
                 progress: Progress | None) -> None:
        self.source = source
        self.path = path
        self.requested = column
        self.column: str | None = column
        self.chunk_size = chunk_size
        self.progress = progress
        self.picked = False
        self.at: str | None = None
        """Where the reader is (``line 12``), so an error while reading can say where."""

    @property
    def label(self) -> str:
        return self.column or "outcomes"

    def _start(self, total: float, unit: str) -> None:
        if self.progress is not None:
            self.progress.start(total, unit)

    def _update(self, done: float) -> None:
        if self.progress is not None:
            self.progress.update(done)

    def batches(self) -> Iterator[Batch]:  # pragma: no cover - every reader overrides it
        raise NotImplementedError

    def _lines(self, stream: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
        """The file's lines as bytes, numbered from 1, the BOM dropped; tracks :attr:`at`."""
        for number, line in enumerate(stream, 1):
            self.at = f"line {number}"
            if number == 1 and line.startswith(BOM):
                line = line[len(BOM):]
            yield number, line
        self.at = None


class _RecordReader(_Reader):
    """Shared by JSON and JSONL: a record is an object with the column, or a bare list."""

    def _value(self, record: Any, where: str) -> Any:
        if isinstance(record, dict):
            if not self.picked:
                self.picked = True
                self.column = pick_column(list(record), self.requested, self.source, where)
            if self.column not in record:
                return Unreadable(f"the record has no `{self.column}` field")
            return record[self.column]
        if isinstance(record, list):
            if self.requested is not None:
                return Unreadable(f"the record is a bare list, not an object with "
                                   f"`{self.requested}`")
            return record
        return Unreadable(f"expected an object with the outcome list; got {show(record)}")


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _element_lines(text: str, start: int) -> list[int]:
    """The line on which each element of the top-level JSON array starting at ``start`` begins."""
    decoder = json.JSONDecoder()
    lines = []
    line, counted = 1 + text.count("\n", 0, start), start
    index = _skip_space(text, start + 1)
    while index < len(text) and text[index] != "]":
        line += text.count("\n", counted, index)
        counted = index
        lines.append(line)
        _, end = decoder.raw_decode(text, index)
        index = _skip_space(text, end)
        if index < len(text) and text[index] == ",":
            index = _skip_space(text, index + 1)
    return lines


def _need_pyarrow(what: str) -> Any:
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is installed in the test environment
        raise ReportError(what, f"reading this format needs pyarrow; {INSTALL_HINT}") from None
    return pa
