r"""Long tables (one row per sample) -> per-question counts keyed by question id.

Most evaluation logs hold one row per sample: ``question_id,sample,correct``.
:func:`load_long` reads such a file (CSV, TSV, JSONL, JSON, Parquet, a saved
``datasets`` directory; text formats also ``.gz``) row by row, in chunks, and
adds each row to its question's tally wherever the rows of a question lie in the
file. Only the tallies are kept -- ``n``, ``c`` and the sum of soft scores per id --
so memory is O(questions); with ``--sample`` the (id, sample) pairs seen are kept
too, to refuse a repeated pair with both of its lines. Each format's rows are read
in chunks by :mod:`kpass.io.long.long_rows`; this module groups and checks them.

A file whose outcome cells are lists (the wide format, one row per question) read
with ``--id`` gets its ids from that column; a repeated id is an error there.

Soft scores (seed 002, part III) need a threshold: a sample is correct when its
score is strictly greater than ``threshold`` (exactly ``threshold`` is wrong), and
the mean soft score is kept beside the counts.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "long.csv"
    >>> _ = path.write_text("id,correct\nq2,1\nq1,0\nq2,0\nq1,1\nq1,1\n")
    >>> loaded = load_long(str(path), id="id")
    >>> loaded.counts.ids, loaded.counts.n_samples.tolist()
    (('q2', 'q1'), [2, 3])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.counts import BinaryCounts
from ..errors import ReportError, describe_read_error, read_errors, show
from ..formats.base import detect_format
from ..formats.parsers import _open_bytes
from ..formats.readers import LoadedFile, SoftScores, line_reader_size
from ..harness.inspect_files import is_inspect_log
from ..rows import LONG_HINT, canonical_id
from ..shards import Parts, shard_parts
from .long_fast import fast_long_counts
from .long_rows import (
    _CHUNKS,
)


@dataclass
class LongFile(LoadedFile):
    """A :class:`LoadedFile` read by question id.

    ``soft`` is set when a threshold was given; ``costs`` with ``--cost COLUMN``: each
    question's mean of the column over its rows (its mean cost of one sample), in the order
    of the counts, read in the scan that counted them.
    """

    soft: SoftScores | None = None
    costs: np.ndarray | None = None


def load_long(source: str, *, id: str | None, sample: str | None = None,  # noqa: A002
              column: str | None = None, threshold: float | None = None,
              chunk_size: int = 65536, tool: str | None = None,
              filter: str | None = None, clusters: str | None = None,  # noqa: A002
              partial: bool = False, cost: str | None = None) -> LongFile:
    """Read a long (or id-keyed wide) outcome file into counts keyed by question id.

    Question and sample ids are compared by :func:`kpass.io.rows.canonical_id`:
    surrounding spaces do not count and integer text is the integer, so ``7``,
    ``"7"`` and ``" 7"`` are one question (or one sample).

    Args:
        source: a CSV, TSV, JSONL, JSON, Parquet file (text formats also ``.gz``) or
            a saved ``datasets`` directory.
        id: the question-id column; None for a wide file read only for its soft
            scores (then the questions have no ids and a long row is refused).
        sample: an optional sample-id column; a repeated (id, sample) pair is an error.
        column: the outcome column (default: the first of ``outcomes``, ``correct``,
            ``scores`` present).
        threshold: for soft scores: a sample is correct iff its score > threshold;
            scores must lie in [0, 1].
        chunk_size: rows read at a time.
        tool: the harness that wrote the file (``--from``, one of
            :data:`kpass.io.harness.load.HARNESSES`). A harness file (named, or recognised
            by :func:`kpass.io.harness.load.detect_harness`) is read as that harness reads
            it, so ``filter`` applies and ``id`` names its question-id field (a path,
            e.g. ``doc_id``); never one row per filter counted as a sample.
        filter: with lm-eval files scored under several filters, the filter that counts.
        clusters: a cluster-label column (``--clusters``): every row of a question must
            carry the same label; the labels are returned in ``clusters``, one per
            question in the order of the counts. Needs ``id``; not for harness files.
        partial: an Inspect log of a run that has not finished is read as far as it goes
            (``--partial``).
        cost: a cost column (``--cost``: a number >= 0 per row, the cost of that sample),
            averaged over each question's rows in the same scan as the counts. Needs ``id``;
            not for harness files or wide rows.

    Returns:
        The counts with ``ids`` in first-seen order, plus the mean soft score when
        ``threshold`` is given, the cluster labels when ``clusters`` is given and each
        question's mean cost (``costs``) when ``cost`` is given.

    Raises:
        ReportError: a missing column or file, a bad value (with its line), a soft
            score outside [0, 1], a repeated (id, sample) pair or wide id (with both
            lines), an id that is not a string or an integer, a question whose rows carry
            two cluster labels (with both lines), a cost that is not a finite number >= 0
            (with its line).
    """
    if id is None and sample is not None:
        raise ReportError(source, "--sample needs --id COLUMN (the question of each sample)")
    if clusters is not None and id is None:
        raise ReportError(source, "--clusters on a long file needs --id COLUMN (the labels "
                                  "are grouped by question id)")
    if cost is not None and id is None:
        raise ReportError(source, f"--cost {cost} needs --id COLUMN (the costs are averaged "
                                  "over each question's rows)")
    loaded = _load_long(source, id, sample, column, threshold, max(1, chunk_size), tool, filter,
                        clusters is not None, partial=partial, cost=cost)
    assert isinstance(loaded, LongFile)
    if clusters is not None:
        assert id is not None and loaded.counts.ids is not None
        from .long_labels import question_labels

        loaded.clusters = question_labels(source, id, clusters, loaded.counts.ids,
                                         max(1, chunk_size), loaded.column)
    return loaded


def load_long_by(source: str, *, by: str, id: str,  # noqa: A002
                 sample: str | None = None, column: str | None = None,
                 threshold: float | None = None, chunk_size: int = 65536,
                 cost: str | None = None) -> dict[str, LongFile]:
    r"""A long table holding several models, split by the column ``by``: one model per value.

    One scan, on every route :func:`load_long` reads a long table by (the row tally, pyarrow's
    grouping, a folder, a pattern or Hive partitions of parts, a saved ``datasets`` folder):
    each row is counted under the pair (its ``by`` value, its question id), so the cost per
    row is that of the single-model route plus the ``by`` cell. Values are labels under the
    id rule (:func:`kpass.io.rows.canonical_id`, as text: ``7``, ``"7"`` and ``" 7"`` are one
    model, ``"7"``); question ids are matched across models by the same rule.

    Args:
        source: a long CSV, TSV, JSONL, JSON or Parquet file, a saved ``datasets`` folder,
            or a folder or pattern of parts of one table.
        by: the column naming each row's model (or run).
        id: the question-id column.
        sample: an optional sample-id column; a repeated (model, id, sample) is an error.
        column: the outcome column (default: as :func:`load_long`).
        threshold: soft scores: correct iff score > threshold.
        chunk_size: rows read at a time.
        cost: a cost column (``--cost``): each model's mean cost of one sample of each
            question, from that model's rows only, summed in the same scan as the counts
            (each row's cost is added under its (model, question) pair).

    Returns:
        One :class:`LongFile` per model, keyed by label, labels in sorted order; each
        model's questions in first-seen order (and ``costs`` in that order with ``cost``).

    Raises:
        ReportError: a missing ``by`` column, a missing (null or empty) ``by`` cell (with its
            line), a harness file or an Inspect log (their models are one per file: use
            ``--by file``), and everything :func:`load_long` refuses.

    Example:
        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.csv"
        >>> _ = path.write_text("model,id,correct\nb,q1,1\na,q1,0\nb,q2,0\na,q1,1\n")
        >>> split = load_long_by(str(path), by="model", id="id")
        >>> {label: item.counts.n_samples.tolist() for label, item in split.items()}
        {'a': [2], 'b': [1, 1]}
    """
    if by in (id, sample, column, cost):
        raise ReportError(source, f"--by {by}: the column is already read as the question id, "
                                  "sample, outcome or cost; name the model column")
    loaded = _load_long(source, id, sample, column, threshold, max(1, chunk_size), None, None,
                        False, by, cost=cost)
    assert isinstance(loaded, dict)
    return loaded


def _load_long(source: str, id: str | None, sample: str | None,  # noqa: A002
               column: str | None, threshold: float | None, chunk_size: int,
               tool: str | None, filter: str | None, clustered: bool,  # noqa: A002
               by: str | None = None, partial: bool = False, cost: str | None = None
               ) -> LongFile | dict[str, LongFile]:
    if cost is not None and (is_inspect_log(source) or tool is not None):
        raise ReportError(source, f"--cost {cost} reads a column of a long table; this is a "
                                  "harness log: price its token usage with "
                                  "--cost-per-1k-tokens")
    if by is not None and (is_inspect_log(source) or tool is not None):
        raise ReportError(source, f"--by {by} reads a column of a long table; this is a "
                                  "harness log, one model per file: give a folder of logs "
                                  "with --by file")
    if tool is None and filter is None and is_inspect_log(source):
        from ..harness.inspect_log import load_inspect

        if id is not None or sample is not None:
            raise ReportError(source, "an Inspect log's questions are its sample ids and its "
                                      "samples its epochs: drop --id and --sample")
        loaded = load_inspect(source, column=column, threshold=threshold, partial=partial)
        return LongFile(loaded.source, loaded.path, loaded.column, loaded.counts, loaded.shortest,
                        loaded.bad_rows, loaded.soft, notes=loaded.notes)
    parts = shard_parts(source)
    if parts is not None:
        return _load_parts(source, parts, id, sample, column, threshold, chunk_size, tool,
                           filter, by, cost)
    path = Path(source)
    if not path.exists():
        raise ReportError(source, "no such file or directory")
    fmt = detect_format(path)
    if fmt == "npy":
        raise ReportError(source, "a .npy matrix has no id column; drop --id")
    if tool is None and _may_be_harness(path, fmt):
        from ..harness.load import detect_harness

        tool = detect_harness(source)
        if tool is not None and cost is not None:
            raise ReportError(source, f"--cost {cost} reads a column of a long table; this is "
                                      f"a {tool} file")
        if tool is not None and by is not None:
            raise ReportError(source, f"--by {by} reads a column of a long table; this is a "
                                      f"{tool} file, one model per file: give a folder of "
                                      "such files with --by file")
    if tool is not None or filter is not None:
        if clustered and tool is not None:
            raise ReportError(source, f"--clusters reads a column of a plain table; this is "
                                      f"a {tool} file: give the labels in a table of "
                                      "question id and cluster instead")
        return _load_harness(source, path, tool, filter, id, sample, column, threshold,
                             chunk_size)
    names = {"id": id, "sample": sample, "column": column, "by": by, "cost": cost}
    small = fmt in ("csv", "tsv", "jsonl") and line_reader_size(path)
    fast = None if small else fast_long_counts(path, fmt, names, threshold, chunk_size)
    if fast is not None:  # pyarrow grouped it; any doubt went to the line-by-line reader
        return _fast_result(source, path, *fast)
    tally = _Tally(source, sample is not None, threshold, by, cost)
    try:
        for where, ids, samples, values, costs in _CHUNKS[fmt](source, path, names,
                                                               chunk_size):
            tally.add(where, ids, samples, values, costs)
    except read_errors() as error:
        raise ReportError(source, describe_read_error(error)) from None
    return tally.result(path, names["column"]) if by is None else tally.result_by(
        path, names["column"])


def _load_parts(source: str, parts: Parts, id: str | None,  # noqa: A002
                sample: str | None, column: str | None, threshold: float | None,
                chunk_size: int, tool: str | None, filter: str | None,  # noqa: A002
                by: str | None = None, cost: str | None = None
                ) -> LongFile | dict[str, LongFile]:
    """The part files of a sharded input (:func:`kpass.io.shards.shard_paths`) as one table.

    Every part is tallied into one set of per-question counts, so a question's samples
    may lie in several parts, and a repeated (id, sample) pair is found across parts;
    messages name the part (by its path relative to the folder, or as the pattern matched
    it) and its line. With ``--by`` a Hive partition key (``model=m1/part-0.parquet``) of
    every part names the parts' model.
    """
    if tool is not None or filter is not None:
        raise ReportError(source, "harness files are read one file at a time; give each as "
                                  "its own input (--from and --filter do not apply to a "
                                  "folder or pattern of parts)")
    keys = [dict(component.split("=", 1) for component in Path(label).parts[:-1]
                 if "=" in component) for label in parts.labels]
    if by is not None and all(by in key for key in keys):
        # Hive partitions by the model (runs/model=m1/part-0.parquet): each part is one
        # model's rows, named by its folder; every part is still read once
        grouped: dict[str, tuple[list[str], list[str]]] = {}
        for path, label, key in zip(parts.paths, parts.labels, keys, strict=True):
            model = by_label(key[by], by, source, label)
            grouped.setdefault(model, ([], []))[0].append(path)
            grouped[model][1].append(label)
        loaded: LongFile | dict[str, LongFile] = {
            model: _one(_read_parts(source, Parts(*grouped[model]), id, sample, column,
                                    threshold, chunk_size, None, cost))
            for model in sorted(grouped)}
    else:
        loaded = _read_parts(source, parts, id, sample, column, threshold, chunk_size, by,
                             cost)
    for item in loaded.values() if isinstance(loaded, dict) else [loaded]:
        item.notes.extend(parts.notes)
    return loaded


def _one(loaded: LongFile | dict[str, LongFile]) -> LongFile:
    assert isinstance(loaded, LongFile)
    return loaded


def _read_parts(source: str, parts: Parts, id: str | None,  # noqa: A002
                sample: str | None, column: str | None, threshold: float | None,
                chunk_size: int, by: str | None, cost: str | None = None
                ) -> LongFile | dict[str, LongFile]:
    fmt = detect_format(Path(parts.paths[0]))
    if fmt in ("npy", "datasets"):
        raise ReportError(source, f"parts of format {fmt} are not read as one table; give "
                                  "JSONL, JSON, CSV, TSV or Parquet parts")
    names = {"id": id, "sample": sample, "column": column, "by": by, "cost": cost}
    fast = fast_long_counts([Path(part) for part in parts.paths], fmt, names, threshold,
                            chunk_size)
    if fast is not None:  # pooled by pyarrow; any doubt goes to the line-by-line reader
        return _fast_result(source, Path(parts.paths[0]), *fast)
    tally = _Tally(source, sample is not None, threshold, by, cost)
    for part, label in zip(parts.paths, parts.labels, strict=True):
        try:
            for where, ids, samples, values, costs in _CHUNKS[fmt](part, Path(part), names,
                                                                   chunk_size):
                tally.add([f"{label}, {w}" for w in where], ids, samples, values, costs)
        except read_errors() as error:
            raise ReportError(source, f"{label}: {describe_read_error(error)}") from None
    return tally.result(Path(parts.paths[0]), names["column"]) if by is None else (
        tally.result_by(Path(parts.paths[0]), names["column"]))


def _fast_result(source: str, path: Path, counts: BinaryCounts | dict[str, BinaryCounts],
                 column: str | None, costs: np.ndarray | dict[str, np.ndarray] | None = None
                 ) -> LongFile | dict[str, LongFile]:
    """A :class:`LongFile` of counts grouped on the fast path (questions named by id).

    With ``--by``, one per label; ``costs`` (``--cost``) are each question's cost sums.
    """
    if isinstance(counts, dict):
        assert costs is None or isinstance(costs, dict)
        return {label: LongFile(source, path, column, part, _shortest(part), [], soft=None,
                                costs=None if costs is None else costs[label] / part.n_samples)
                for label, part in counts.items()}
    assert costs is None or isinstance(costs, np.ndarray)
    return LongFile(source, path, column, counts, _shortest(counts), [], soft=None,
                    costs=None if costs is None else costs / counts.n_samples)


def _shortest(counts: BinaryCounts) -> str:
    """The question with the fewest samples, named by its id.

    Every route of a long file names it so: its rows may lie anywhere in the file.
    """
    assert counts.ids is not None
    return f"question {counts.ids[int(np.argmin(counts.n_samples))]!r}"


def _may_be_harness(path: Path, fmt: str) -> bool:
    """Whether ``path`` may be a harness file: worth :func:`detect_harness` reading its first row.

    CSV, TSV and ``.npy`` never are; a JSON document only when it is one object (an
    OpenCompass results file), so a long JSON list of records is not parsed twice; a Parquet
    file only when its columns include ``doc_id`` (lm-eval) or ``metric`` (lighteval), read
    from its schema (the probe decoded a whole batch: 0.1-0.17 s of a large file).
    """
    if fmt == "parquet" and path.is_file():
        try:
            import pyarrow.parquet as pq

            names = set(pq.read_schema(path).names)
        except (ImportError, OSError, ValueError):
            return True  # unreadable, or no pyarrow: the probe and the reader say why
        return bool(names & {"doc_id", "metric"})
    if fmt in ("jsonl", "parquet", "datasets"):
        return True
    if fmt != "json":
        return False
    try:
        with _open_bytes(path) as (stream, _raw):
            head = stream.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except read_errors():
        return True  # unreadable: the harness probe and the reader say why, in their words
    return head[:1] == b"{"


def _load_harness(source: str, path: Path, tool: str | None, filter: str | None,  # noqa: A002
                  id: str | None, sample: str | None, column: str | None,  # noqa: A002
                  threshold: float | None, chunk_size: int) -> LongFile:
    """A harness file through :func:`~kpass.io.harness.load.harness_records`, tallied."""
    from ..harness.load import HARNESSES, default_metric, harness_records

    if tool is None:
        raise ReportError(source, "--filter is for lm-eval files, and this is not a file of a "
                                  f"known harness; give --from {'|'.join(HARNESSES)}")
    if sample is not None:
        raise ReportError(source, f"--sample is for long tables; a harness file ({tool}) "
                                  "says which sample each outcome is: drop --sample")
    tally = _Tally(source, True, threshold)
    where: list[str] = []
    ids: list[Any] = []
    samples: list[Any] = []
    values: list[Any] = []
    try:
        for record in harness_records(source, tool, column, filter, id=id):
            where.append(record.where)
            ids.append(record.question)
            samples.append(record.sample)
            values.append(record.value)
            if len(where) >= chunk_size:
                tally.add(where, ids, samples, values)
                where, ids, samples, values = [], [], [], []
        if where:
            tally.add(where, ids, samples, values)
    except read_errors() as error:
        raise ReportError(source, describe_read_error(error)) from None
    label = column or default_metric(source, tool, filter)
    return tally.result(path, label if filter is None else f"{label} (filter {filter})")


class _Tally:
    """Per-id counts, accumulated chunk by chunk."""

    def __init__(self, source: str, keep_pairs: bool, threshold: float | None,
                 by: str | None = None, cost: str | None = None) -> None:
        self.source = source
        self.by = by  # ``--by COLUMN``: ids are (by value, question id) pairs, keys (label, id)
        self.cost = cost  # ``--cost COLUMN``: each slot's sum of the column in ``x``
        self.x: list[float] = []
        self.threshold = threshold
        self.slot: dict[Any, int] = {}
        self.n: list[int] = []
        self.c: list[int] = []
        self.soft: list[float] = []
        self.low, self.high = math.inf, -math.inf  # the range of the scores read
        self.first: list[str] = []
        self.pairs: dict[tuple[Any, Any], str] | None = {} if keep_pairs else None
        self.shape: str | None = None  # "long" or "wide", fixed by the first row
        self.keyed = True  # False when the file has no id column

    def add(self, where: list[str], ids: list[Any] | None, samples: list[Any] | None,
            values: list[Any], costs: list[Any] | None = None) -> None:
        self.keyed = ids is not None
        if ids is not None and self.shape != "wide" and self._add_fast(where, ids, samples,
                                                                       values, costs):
            return
        self._add_rows(where, ids, samples, values, costs)

    def _new_slot(self, key: Any, where: str) -> int:
        slot = self.slot[key] = len(self.n)
        self.n.append(0)
        self.c.append(0)
        self.soft.append(0.0)
        self.x.append(0.0)
        self.first.append(where)
        return slot

    def _add_fast(self, where: list[str], ids: list[Any], samples: list[Any] | None,
                  values: list[Any], costs: list[Any] | None = None) -> bool:
        """A chunk of plain numeric long rows, counted with numpy; False: use the row loop.

        The row loop is the reference (it locates every problem); this path only
        takes chunks it can count exactly and leaves anything unusual to it.
        """
        kinds = (set(map(type, ids)) if self.by is None else
                 {type(part) for pair in ids for part in pair})
        if not kinds <= {str, int}:  # exact types: bool is not an id
            return False  # lists, floats, booleans, None: the row loop refuses them by line
        try:
            scores = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            return False  # lists (wide rows), `true`/`false` text, bad cells
        if scores.ndim != 1 or not np.isfinite(scores).all():
            return False
        spent = np.zeros(len(values))
        if costs is not None:
            if not set(map(type, costs)) <= {str, int, float}:  # exact: bool is no cost
                return False
            try:
                spent = np.asarray(costs, dtype=np.float64)
            except (TypeError, ValueError, OverflowError):
                return False  # text that is not a number: the row loop names its line
            if spent.ndim != 1 or not np.isfinite(spent).all() or (spent < 0).any():
                return False
        if self.threshold is None:
            if not np.isin(scores, (0.0, 1.0)).all():
                return False
            hard = scores.astype(np.int64)
        else:
            if ((scores < 0.0) | (scores > 1.0)).any():
                return False  # the row loop refuses a score outside [0, 1] with its line
            hard = (scores > self.threshold).astype(np.int64)
            if scores.size:
                self.low = min(self.low, float(scores.min()))
                self.high = max(self.high, float(scores.max()))
        local: dict[Any, int] = {}
        codes = np.fromiter((local.setdefault(i, len(local)) for i in ids), dtype=np.intp,
                            count=len(ids))
        first_row = {code: row for row, code in
                     reversed(list(zip(range(len(ids)), codes.tolist(), strict=True)))}
        slots = np.empty(len(local), dtype=np.intp)
        for raw, code in local.items():
            qid = self._key(raw, where[first_row[code]])
            slot = self.slot.get(qid)
            if slot is None:
                slot = self._new_slot(qid, where[first_row[code]])
            slots[code] = slot
        rows = slots[codes]
        if self.pairs is not None and samples is not None:
            qids = list(self.slot)
            for row, (slot, raw_sample) in enumerate(zip(rows.tolist(), samples, strict=True)):
                sample = _sample_id(raw_sample, self.source, where[row])
                key = (qids[slot], sample)
                if key in self.pairs:
                    raise ReportError(self.source, f"(id, sample) = ({key[0]!r}, {sample!r}) "
                                                   f"is repeated: {self.pairs[key]} and "
                                                   f"{where[row]}")
                self.pairs[key] = where[row]
        size = len(self.n)
        n_add = np.bincount(rows, minlength=size)
        c_add = np.bincount(rows, weights=hard, minlength=size)
        soft_add = np.bincount(rows, weights=scores, minlength=size)
        x_add = np.bincount(rows, weights=spent, minlength=size)
        for slot in np.flatnonzero(n_add).tolist():
            self.n[slot] += int(n_add[slot])
            self.c[slot] += int(c_add[slot])
            self.soft[slot] += float(soft_add[slot])
            self.x[slot] += float(x_add[slot])
        self.shape = "long"
        return True

    def _add_rows(self, where: list[str], ids: list[Any] | None, samples: list[Any] | None,
                  values: list[Any], costs: list[Any] | None = None) -> None:
        for i, value in enumerate(values):
            shape = "wide" if isinstance(value, (list, tuple)) else "long"
            if ids is None:  # no id column: rows are questions, by position
                if shape == "long":
                    raise ReportError(self.source, f"the outcome {show(value)} is one value, not a "
                                                   f"list. {LONG_HINT}", where[i])
                qid: Any = len(self.n)
            else:
                qid = self._key(ids[i], where[i])
            if self.shape is None:
                self.shape = shape
            elif shape != self.shape:
                raise ReportError(self.source, f"a {shape} row (outcome {show(value)}) in a file "
                                               f"whose first row is {self.shape}", where[i])
            slot = self.slot.get(qid)
            if shape == "wide":
                if self.pairs is not None:
                    raise ReportError(self.source, "--sample applies to long files (one row per "
                                                   "sample); this row holds a list of outcomes",
                                      where[i])
                if slot is not None:
                    raise ReportError(self.source, f"question id {qid!r} is repeated: "
                                                   f"{self.first[slot]} and {where[i]}")
                if len(value) == 0:
                    raise ReportError(self.source, "the outcome list is empty", where[i])
                if costs is not None:
                    raise ReportError(self.source, f"--cost {self.cost} reads one row per "
                                                   "sample; this row holds a list of outcomes",
                                      where[i])
                scores = [self._score(v, where[i]) for v in value]
            else:
                if self.pairs is not None:
                    key = (qid, None if samples is None else
                           _sample_id(samples[i], self.source, where[i]))
                    if key in self.pairs:
                        raise ReportError(self.source, f"(id, sample) = ({qid!r}, {key[1]!r}) "
                                                       f"is repeated: {self.pairs[key]} and "
                                                       f"{where[i]}")
                    self.pairs[key] = where[i]
                scores = [self._score(value, where[i])]
            spent = 0.0 if costs is None else self._cost(costs[i], where[i])
            if slot is None:
                slot = self._new_slot(qid, where[i])
            self.x[slot] += spent
            self.n[slot] += len(scores)
            self.c[slot] += sum(self._hard(s) for s in scores)
            self.soft[slot] += math.fsum(scores)
            if scores and self.threshold is not None:
                self.low, self.high = min(self.low, *scores), max(self.high, *scores)

    def _key(self, raw: Any, where: str) -> Any:
        """A row's key: its canonical question id, or ``(label, id)`` with ``--by``."""
        if self.by is None:
            return _canonical_id(raw, self.source, where)
        label, qid = raw
        return by_label(label, self.by, self.source, where), _canonical_id(qid, self.source,
                                                                           where)

    def _score(self, value: Any, where: str) -> float:
        number = _number(value)
        if number is None or not math.isfinite(number):
            expected = "0 or 1" if self.threshold is None else "a finite score"
            raise ReportError(self.source, f"cannot read {show(value)} as an outcome "
                                           f"(expected {expected})", where)
        if self.threshold is None and number not in (0, 1):
            raise ReportError(self.source, f"outcome {show(value)} is not binary (0 or 1); for "
                                           "soft scores pass --threshold T (correct iff score > T)",
                              where)
        if not 0.0 <= number <= 1.0:  # an "accuracy" of 1.275 is no accuracy
            raise ReportError(self.source, f"soft score {show(value)} is outside [0, 1]; scores "
                                           "read with --threshold must lie in [0, 1] (rescale "
                                           "them, e.g. a percentage to a fraction)", where)
        return number

    def _cost(self, value: Any, where: str) -> float:
        """A ``--cost`` cell: a finite number >= 0 (text read as a number; not a boolean)."""
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        number = None if isinstance(value, (bool, np.bool_)) else _number(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            number = None
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ReportError(self.source, f"--cost {self.cost}: the cell is empty; every row "
                                           "needs its cost (a finite number >= 0)", where)
        if number is None or not math.isfinite(number) or number < 0:
            raise ReportError(self.source, f"--cost {self.cost}: {show(value)} is not a cost "
                                           "(a finite number >= 0)", where)
        return number

    def _hard(self, score: float) -> int:
        return int(score > self.threshold) if self.threshold is not None else int(score)

    def result_by(self, path: Path, column: str | None) -> dict[str, LongFile]:
        """One :class:`LongFile` per label of ``--by`` (labels sorted, ids first-seen)."""
        if not self.n:
            raise ReportError(self.source, "the file holds no questions")
        keys = list(self.slot)
        rows: dict[str, list[int]] = {}
        for slot, (label, _qid) in enumerate(keys):
            rows.setdefault(label, []).append(slot)
        split = {}
        for label in sorted(rows):
            part = _Tally(self.source, False, self.threshold)
            slots = rows[label]
            part.slot = {keys[slot][1]: index for index, slot in enumerate(slots)}
            part.n = [self.n[slot] for slot in slots]
            part.c = [self.c[slot] for slot in slots]
            part.soft = [self.soft[slot] for slot in slots]
            part.x = [self.x[slot] for slot in slots]
            part.cost = self.cost
            part.first = [self.first[slot] for slot in slots]
            part.low, part.high = self.low, self.high
            split[label] = part.result(path, column)
        return split

    def result(self, path: Path, column: str | None) -> LongFile:
        if not self.n:
            raise ReportError(self.source, "the file holds no questions")
        ids: np.ndarray | None = None
        if self.keyed:
            ids = np.empty(len(self.slot), dtype=object)
            ids[:] = list(self.slot)
        n = np.array(self.n, dtype=np.int64)
        counts = BinaryCounts(n, np.array(self.c, dtype=np.int64), ids=ids)
        shortest = _shortest(counts) if ids is not None else self.first[int(np.argmin(n))]
        soft = None
        if self.threshold is not None:
            means = np.array(self.soft) / n
            se = float(means.std(ddof=1) / math.sqrt(means.size)) if means.size > 1 else 0.0
            soft = SoftScores(float(means.mean()), se, float(self.threshold), self.low,
                              self.high)
        costs = None if self.cost is None else np.array(self.x) / n
        return LongFile(self.source, path, column, counts, shortest, [], soft=soft, costs=costs)


def by_label(value: Any, column: str, source: str, where: str | None) -> str:
    """The label of a ``--by`` value: the id rule (:func:`canonical_id`) applied, as text.

    ``7``, ``"7"`` and ``" 7"`` are one model, ``"7"``; a missing (null, empty) value is an
    error naming the column and the row.

    Raises:
        ReportError: a null or empty value, or one that is not a string or an integer.
    """
    if value is None:
        raise ReportError(source, f"the `{column}` cell (--by) is empty; every row needs "
                                  "the model it belongs to", where)
    return str(canonical_id(value, source, where, f"`{column}` value (--by)"))


def _number(value: Any) -> float | None:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "false"):
            return float(text == "true")
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _canonical_id(value: Any, source: str, where: str) -> Any:
    """A question id as str or int (:func:`kpass.io.rows.canonical_id`), so files match."""
    return canonical_id(value, source, where)


def _sample_id(value: Any, source: str, where: str) -> Any:
    """A ``--sample`` id by the question ids' rule: ``0``, ``"0"`` and ``" 0"`` are one sample."""
    return canonical_id(value, source, where, "sample id")
