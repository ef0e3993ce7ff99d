"""Outcome files -> validated per-question counts, read in chunks.

``kpass report`` reads JSONL, JSON, CSV/TSV (optionally gzipped), Parquet, NumPy
``.npy`` and saved Hugging Face ``datasets`` directories (:mod:`kpass.io.formats.parsers`).
Every reader yields batches of per-question outcome lists together with where each
one came from (``line 12``, ``row 7``); :func:`load_counts` validates and counts each
batch (:mod:`kpass.io.rows`) and keeps only the counts, so memory stays O(questions)
whatever the file size.

A row whose outcome list cannot be read (bad JSON, a missing field, a value other
than 0/1, an empty list) is never dropped or guessed: it stops the run with a
:class:`ReportError` naming the file, the line and the problem, or, when the
caller asks to skip bad rows, it is left out and listed in ``LoadedFile.bad_rows``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.counts import BinaryCounts
from ..errors import BadRowError, ReportError, describe_read_error, read_errors
from ..progress import Progress
from ..rows import Batch, count_rows
from .base import detect_format
from .parsers import READERS

# A text file smaller than this is read line by line even when pyarrow is installed: as
# fast as pyarrow's reader once imported (0.3-0.7 ms at 2-8 KB), and it spares the import of
# pyarrow (~0.15 s of a `kpass report` on the bundled sample; benchmarks/README.md).
LINE_READER_BYTES = 8 << 10


def line_reader_size(path: Path) -> bool:
    """Whether ``path`` is an uncompressed text file under :data:`LINE_READER_BYTES`.

    Such a file is read line by line even with pyarrow installed, wide (one row per question)
    or long (``--id``): as fast at that size, and the report skips pyarrow's import.
    """
    return path.suffix.lower() != ".gz" and path.stat().st_size < LINE_READER_BYTES


__all__ = ["LINE_READER_BYTES", "LoadedFile", "SoftScores", "line_reader_size", "load_counts"]


@dataclass
class SoftScores:
    """The mean soft score of a file read with a threshold ("accuracy (n runs average)").

    Attributes:
        mean: mean over questions of each question's mean score.
        se: standard error of that mean over questions (sample SD / sqrt(M); 0 for M=1).
        threshold: the threshold T the hard outcomes use (correct iff score > T).
        low: the smallest score read.
        high: the largest score read.
    """

    mean: float
    se: float
    threshold: float
    low: float = 0.0
    high: float = 1.0


@dataclass
class LoadedFile:
    """The counts of one outcome file and what was learnt reading it.

    Attributes:
        source: the path as given (or a label for the bundled sample).
        path: the file's path.
        column: the outcome column used (``None`` for a bare ``.npy`` matrix).
        counts: per-question ``(n_samples, n_correct)``.
        shortest: where the question with the fewest samples is, for messages.
        bad_rows: ``(where, problem)`` of each row left out (only with skip_bad).
        notes: what the reader wants the user to know (a file reached twice through links
            and read once, sub-folders not read): printed as notes by the commands.
        clusters: a cluster label per question, in the order of ``counts`` (when asked
            for with ``--clusters``), else None.
        groups: a group (subtask) label per question, in the order of ``counts`` (when
            asked for with ``--group``), else None.
    """

    source: str
    path: Path
    column: str | None
    counts: BinaryCounts
    shortest: str
    bad_rows: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list, kw_only=True)
    clusters: list[Any] | None = field(default=None, kw_only=True)
    groups: list[Any] | None = field(default=None, kw_only=True)

    @property
    def n_min(self) -> int:
        """The smallest number of samples of a question."""
        return int(self.counts.n_samples.min())

    @property
    def n_max(self) -> int:
        """The largest number of samples of a question."""
        return int(self.counts.n_samples.max())



def load_counts(source: str, *, column: str | None = None, chunk_size: int = 65536,
                skip_bad: bool = False, progress: Progress | None = None) -> LoadedFile:
    """Read an outcome file chunk by chunk and count each question's outcomes.

    Args:
        source: path of a JSONL, JSON, CSV/TSV, Parquet or ``.npy`` file, or of a
            saved ``datasets`` directory.
        column: the outcome column; by default the first of ``outcomes``,
            ``correct``, ``scores`` that the file has.
        chunk_size: rows validated and counted at a time.
        skip_bad: leave unreadable rows out (listed in ``bad_rows``) instead of
            stopping at the first one.
        progress: a progress bar to drive, or None.

    Returns:
        The file's counts, its outcome column and any rows left out.

    Raises:
        ReportError: the file is missing, empty or unreadable, has no outcome
            column, or a row is unreadable and ``skip_bad`` is false.

    Example:
        >>> from kpass.data import sample_path
        >>> loaded = load_counts(str(sample_path()))
        >>> loaded.column, loaded.counts.n_questions, loaded.n_min
        ('outcomes', 50, 4)
    """
    path = Path(source)
    if not path.exists():
        raise ReportError(source, "no such file or directory")
    fmt = detect_format(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ReportError(source, "the file is empty; it holds no questions")
    if fmt in ("csv", "tsv") and path.is_file():  # a pipe can be read only once
        from .scalar_cells import refuse_scalar_cells

        try:
            refuse_scalar_cells(source, path, column, "\t" if fmt == "tsv" else ",")
        except read_errors():
            pass  # a broken file: the reader below reports it, with its line
    reader = READERS[fmt](source, path, column, max(1, chunk_size), progress)
    parts: list[BinaryCounts] = []
    bad_rows: list[tuple[str, str]] = []
    shortest: tuple[int, str] | None = None
    try:
        # The fast path may read the file twice (a fallback, locating the shortest question):
        # regular files only, not a named pipe whose content is gone once read.
        fast = (_fast(reader) if not skip_bad and path.is_file() and hasattr(reader, "fast_counts")
                else None)
        if fast is not None:
            return fast
        for batch in reader.batches():
            for counts, part in _count_batch(batch, reader.label, source, skip_bad, bad_rows):
                parts.append(counts)
                index = int(np.argmin(counts.n_samples))
                if shortest is None or counts.n_samples[index] < shortest[0]:
                    shortest = (int(counts.n_samples[index]), part.where(index))
    except read_errors() as error:
        where = None if reader.at is None else f"after {reader.at}" if isinstance(
            error, EOFError) else reader.at
        raise ReportError(source, describe_read_error(error), where) from None
    finally:
        if progress is not None:
            progress.close()
    if not parts:
        if bad_rows:
            raise ReportError(source, f"no readable question; all {len(bad_rows)} rows are bad "
                                      f"(first: {bad_rows[0][0]}: {bad_rows[0][1]})")
        raise ReportError(source, "the file holds no questions")
    assert shortest is not None
    return LoadedFile(source, path, reader.column, BinaryCounts.concat(parts), shortest[1],
                      bad_rows)


def _fast(reader: Any) -> LoadedFile | None:
    """The file read by pyarrow (:mod:`~kpass.io.formats.fast`), or None: the line reader decides.

    Any problem (a bad row, an unusual spelling, a parse error) sends the file to the
    line-by-line reader, which reads it again from the start and locates the problem.
    Without pyarrow (the core install, numpy and scipy only) the line-by-line reader is
    the only path: it gives the same counts, more slowly (see ``benchmarks/README.md``);
    it also reads an uncompressed file under ``LINE_READER_BYTES``, where it is as fast.
    """
    if importlib.util.find_spec("pyarrow") is None:
        return None
    if line_reader_size(reader.path):
        return None
    from .fast import FallbackError

    try:
        parts = [part for part in reader.fast_counts() if part.n_questions]
    except FallbackError:
        return None
    finally:
        if reader.progress is not None:
            reader.progress.close()
    if not parts:
        return None  # no question: the line-by-line reader says why, in its words
    counts = BinaryCounts.concat(parts)
    # The first question with the fewest samples, located by a partial second pass (for
    # messages only; question 0 when all have the same n, which costs one line).
    shortest = reader.locate(int(np.argmin(counts.n_samples)))
    return LoadedFile(reader.source, reader.path, reader.column, counts, shortest)


def _count_batch(batch: Batch, label: str, source: str, skip_bad: bool,
                 bad_rows: list[tuple[str, str]]) -> Iterator[tuple[BinaryCounts, Batch]]:
    """Count a batch; at a bad row raise, or (skip_bad) record it and count the rest."""
    start = 0
    while start < len(batch):
        part = batch.part(start, len(batch)) if start else batch
        try:
            yield count_rows(part.rows, label), part
            return
        except BadRowError as bad:
            where = part.where(bad.index)
            if not skip_bad:
                raise ReportError(source, bad.problem, where) from None
            bad_rows.append((where, bad.problem))
            if bad.index:
                good = part.part(0, bad.index)
                yield count_rows(good.rows, label), good
            start += bad.index + 1
