"""Nested fields and evaluation-harness files -> long records -> per-question counts.

Two things evaluation outputs do that flat tables do not:

* **Nested fields.** A column path reaches into objects and structs with dots
  (``metrics.correct``) and into lists of records with ``[]`` (``details[].correct``):
  every element of a ``[]`` list becomes a row of its own, so an OpenCompass results
  file (one object whose ``details`` list holds a record per question) reads as one
  row per question.
* **Harness files** (``--from``), read as those tools write them:

  ``lm-eval``
      lm-evaluation-harness ``--log_samples`` JSONL (``samples_<task>_<date>.jsonl``):
      one row per document *and per filter* (``doc_id``, ``filter``, ``metrics`` naming
      the metric fields, e.g. ``exact_match`` or ``acc``). The question id is
      ``doc_id``; the default column is the row's first metric; a file with several
      filters needs ``filter`` (there is one score per filter, never a guess).
  ``lighteval``
      lighteval details Parquet (``details_<task>_<date>.parquet``): one row per
      document with struct columns ``doc``, ``model_response`` and ``metric``; the
      question id is ``doc.id`` (else the row number) and the default column is the first field of
      ``metric`` (``--column metric.<name>``, or just ``<name>``).
  ``opencompass``
      OpenCompass results JSON (``results/<model>/<dataset>.json``): one object whose
      ``details`` holds one record per question (a list, or an object keyed by index);
      the question id is ``example_abbr`` (else the key or position), the default
      column ``correct`` (a list of per-sample booleans when the dataset has ``n``
      replicas, a single boolean otherwise).

Every reader yields :class:`LongRecord` (question id, sample index, value, where);
:func:`group_counts` turns them into :class:`~kpass.BinaryCounts`, refusing a repeated
(question, sample) pair with both places named.

This module says which harness wrote a file (:func:`detect_harness`) and what it is
scored by (:func:`default_metric`), dispatches to the harness's reader
(:func:`harness_records`), groups and loads (:func:`load_harness`); a file of any kind is
loaded by :func:`kpass.io.inputs.load_file`, which sends harness files here.
The nested paths and the row reading are in :mod:`kpass.io.formats.nested`, each
harness's record reader in :mod:`kpass.io.harness.harness_rows`.

Example:
    >>> rows = [{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0},
    ...         {"doc_id": 1, "filter": "none", "metrics": ["acc"], "acc": 0.0}]
    >>> [(r.question, r.sample, r.value) for r in lm_eval_records(rows, "x.jsonl")]
    [(0, 0, 1.0), (1, 0, 0.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..._core.counting.counts import BinaryCounts
from ..._core.counting.inputs import binary_counts
from ..errors import ReportError, describe_read_error, read_errors, show
from ..formats.nested import LongRecord, is_path, path_records, read_rows
from ..rows import canonical_id
from .harness_rows import filter_of, lighteval_records, lm_eval_records, opencompass_records

__all__ = [
    "HARNESSES",
    "detect_harness",
    "group_counts",
    "harness_records",
    "load_harness",
]

HARNESSES = ("lm-eval", "lighteval", "opencompass")


def detect_harness(source: str) -> str | None:
    """The harness that wrote ``source``, from its name and first row, or None."""
    name = Path(source).name
    unreadable: tuple[type[BaseException], ...] = (ReportError, *read_errors())
    try:
        where, first = next(read_rows(source), (None, None))
    except unreadable:  # not readable as rows: not a harness file
        return None
    if not isinstance(first, dict):
        return None
    if {"doc_id", "filter", "metrics"} <= set(first) or name.startswith("samples_") and \
            "doc_id" in first:
        return "lm-eval"
    if isinstance(first.get("metric"), dict) and "doc" in first:
        return "lighteval"
    if where == "the document" and isinstance(first.get("details"), (list, dict)):
        return "opencompass"
    return None


def default_metric(source: str, tool: str | None, filter: str | None = None  # noqa: A002
                   ) -> str:
    """The metric a harness file is scored by when no ``--column`` is given.

    As its harness names it: lm-eval's first ``metrics`` name (``acc``, ``exact_match``),
    lighteval's first ``metric`` field, OpenCompass's ``correct``; the report's label.
    Reads rows only up to the first one counted (under ``filter``); "first metric" where no
    row says.
    """
    if tool == "opencompass":
        return "correct"
    if tool not in ("lm-eval", "lighteval"):
        return ""
    unreadable: tuple[type[BaseException], ...] = (ReportError, *read_errors())
    try:
        for _, row in read_rows(source):
            if not isinstance(row, dict):
                break
            if tool == "lm-eval":
                if filter is not None and filter_of(row) != filter:
                    continue
                names = row.get("metrics")
                if isinstance(names, list) and names and isinstance(names[0], str):
                    return names[0]
            elif isinstance(row.get("metric"), dict) and row["metric"]:
                return str(next(iter(row["metric"])))
            break
    except unreadable:
        pass
    return "first metric"


def harness_records(source: str, tool: str, column: str | None = None,
                    filter: str | None = None, *,  # noqa: A002
                    id: str | None = None) -> Iterator[LongRecord]:  # noqa: A002
    """The long records of a harness file written by ``tool`` (one of :data:`HARNESSES`).

    ``id`` (a path) names the question-id field instead of the harness's own.
    """
    if tool not in HARNESSES:
        raise ReportError(source, f"`--from {tool}` is not a harness kpass reads; expected one "
                                  f"of {', '.join(HARNESSES)}")
    rows = read_rows(source)
    if tool == "lm-eval":
        return lm_eval_records(rows, source, column, filter, id=id)
    if filter is not None:
        raise ReportError(source, f"--filter is for lm-eval files; got --from {tool}")
    if tool == "lighteval":
        return lighteval_records(rows, source, column, id=id)
    return opencompass_records(rows, source, column, id=id)


def group_counts(records: Iterable[LongRecord], source: str) -> tuple[BinaryCounts, list[Any]]:
    """Group long records by question (first-seen order) into counts and question ids.

    Question ids are compared by :func:`~kpass.io.rows.canonical_id` (``7`` and ``"7"``
    are one question); an id that is not a string or an integer is refused.

    Raises:
        ReportError: a (question, sample) pair twice (both places named), an id that is
            not a string or an integer, or a value other than 0/1 (``True``/``False`` and
            ``1.0``/``0.0`` are fine).
    """
    seen: dict[Any, dict[int, LongRecord]] = {}
    for record in records:
        question = canonical_id(record.question, source, record.where)
        samples = seen.setdefault(question, {})
        if record.sample in samples:
            raise ReportError(source, f"question {question!r} sample {record.sample} "
                                      f"appears twice: at {samples[record.sample].where} and "
                                      f"at {record.where}")
        samples[record.sample] = record
    if not seen:
        raise ReportError(source, "the file holds no questions")
    lists = []
    for samples in seen.values():
        values = []
        for sample in sorted(samples):
            record = samples[sample]
            value = record.value
            if isinstance(value, bool) or value in (0, 1) and not isinstance(value, str):
                values.append(int(value))
            else:
                raise ReportError(source, f"expected a 0/1 outcome; got {show(value)}",
                                  record.where)
        lists.append(values)
    counts = binary_counts(lists)
    return BinaryCounts(counts.n_samples, counts.n_correct, ids=tuple(seen)), list(seen)


def load_harness(source: str, tool: str | None, column: str | None = None,
                 filter: str | None = None) -> tuple[BinaryCounts, list[Any], str]:
    """Counts, question ids and the column label of a harness or nested-path file.

    ``tool`` None: detected from the file when it is recognisable, else ``column``
    must be a nested path (:func:`path_records`).
    """
    if not Path(source).exists():
        raise ReportError(source, "no such file or directory")
    if tool is None and not is_path(column):
        tool = detect_harness(source)
    if tool is None:
        if column is None:
            raise ReportError(source, "not a file of a known harness; give --from "
                                      f"{'|'.join(HARNESSES)} or a --column path")
        records: Iterable[LongRecord] = path_records(read_rows(source), column, source)
    else:
        records = harness_records(source, tool, column, filter)
    try:
        counts, ids = group_counts(records, source)
    except read_errors() as error:
        raise ReportError(source, describe_read_error(error)) from None
    label = column or default_metric(source, tool, filter)
    if filter is not None:
        label = f"{label} (filter {filter})"
    return counts, ids, label
