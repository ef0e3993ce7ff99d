"""The rows of harness files -> long records, one reader per harness layout.

:func:`lm_eval_records`, :func:`lighteval_records` and :func:`opencompass_records` read
the layout each harness writes into :class:`~kpass.io.formats.nested.LongRecord`
(question id, sample index, value, where). The rows come from
:func:`kpass.io.formats.nested.read_rows`; a nested ``--column`` path is followed by
:func:`kpass.io.formats.nested.get_path`. Which harness wrote a file, grouping records
into counts and loading a file are :mod:`kpass.io.harness.load`'s.

Example:
    >>> rows = [("line 1", {"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0}),
    ...         ("line 2", {"doc_id": 1, "filter": "none", "metrics": ["acc"], "acc": 0.0})]
    >>> [(r.question, r.sample, r.value) for r in lm_eval_records(rows, "x.jsonl")]
    [(0, 0, 1.0), (1, 0, 0.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ReportError, show
from ..formats.nested import LongRecord, field_names, get_path, is_path, sample_records
from ..rows import canonical_id


def lm_eval_records(rows: Iterable[tuple[str, Any]] | Iterable[dict[str, Any]], source: str,
                    column: str | None = None, filter: str | None = None, *,  # noqa: A002
                    id: str | None = None) -> Iterator[LongRecord]:  # noqa: A002
    """lm-evaluation-harness ``--log_samples`` rows -> long records (id ``doc_id``).

    Args:
        rows: ``(where, row)`` pairs or bare rows of a ``samples_*.jsonl`` file.
        source: the file, for messages.
        column: the metric field (a path); default the first ``metrics`` name of the
            first row counted, then that same metric in every row (a row listing
            ``acc_norm`` first still gives its ``acc``): one metric, never a mix.
        filter: the filter whose rows count; needed when the file has several.
        id: the question-id field (a path, e.g. ``doc.id``); default ``doc_id``.

    Raises:
        ReportError: several filters and no ``filter``, an unknown filter, a row that
            is not an lm-eval row, lacks the metric or the id, or holds an empty list.
    """
    pairs: list[tuple[str, Any]] = [(r if isinstance(r, tuple) else (f"line {i + 1}", r))
                                    for i, r in enumerate(rows)]
    # A row without `filter` (older lm-eval, hand-made rows) is under lm-eval's default
    # filter, "none": one name for it, never "None" beside "none".
    filters = list(dict.fromkeys(filter_of(row) for _, row in pairs if isinstance(row, dict)))
    if filter is None and len(filters) > 1:
        raise ReportError(source, f"the file scores each document under {len(filters)} filters "
                                  f"({', '.join(map(str, filters))}); choose one with --filter")
    if filter is not None and filter not in filters:
        raise ReportError(source, f"`--filter {filter}` is not in the file; its filters: "
                                  f"{', '.join(map(str, filters))}")
    name = column
    for where, row in pairs:
        if not isinstance(row, dict) or "doc_id" not in row:
            raise ReportError(source, f"not an lm-eval --log_samples row (no `doc_id`); its "
                                      f"fields: {field_names(row)}", where)
        if filter is not None and filter_of(row) != filter:
            continue
        if name is None:
            name = _first(row.get("metrics"), source, where, "metrics")
        elif column is None and name not in row:
            raise ReportError(source, f"the row has no `{name}`, the metric of the first row "
                                      f"(its metrics: {show(row.get('metrics'))}); one metric "
                                      "counts for every row: choose it with --column", where)
        question = row["doc_id"] if id is None else _id_at(row, id, source, where)
        for _, value in get_path(row, name, source=source, where=where):
            yield from sample_records(question, value, where, source, name)


def filter_of(row: dict[str, Any]) -> Any:
    """An lm-eval row's filter; ``none`` (lm-eval's default filter) when the row has none."""
    value = row.get("filter")
    return "none" if value is None else value


def lighteval_records(rows: Iterable[tuple[str, Any]], source: str,
                      column: str | None = None, *,
                      id: str | None = None) -> Iterator[LongRecord]:  # noqa: A002
    """Rows of lighteval details (struct ``metric``) -> long records (id: ``doc.id``).

    The default column is the first field of the first row's ``metric``, the same one
    for every row; ``id`` (a path) replaces ``doc.id`` as the question id.
    """
    name = column
    for index, (where, row) in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("metric"), dict):
            raise ReportError(source, f"not a lighteval details row (no struct `metric`); its "
                                      f"fields: {field_names(row)}", where)
        if name is None:
            name = "metric." + _first(list(row["metric"]), source, where, "metric")
        if not is_path(name) and name not in row:
            name = f"metric.{name}"
        if id is not None:
            question = _id_at(row, id, source, where)
        else:
            doc = row.get("doc")
            question = doc.get("id") if isinstance(doc, dict) and doc.get("id") not in (
                None, "") else index  # lighteval writes rows in its own order; the id says which
        for _, value in get_path(row, name, source=source, where=where):
            yield from sample_records(question, value, where, source, name)


def opencompass_records(rows: Iterable[tuple[str, Any]], source: str,
                        column: str | None = None, *,
                        id: str | None = None) -> Iterator[LongRecord]:  # noqa: A002
    """OpenCompass results ``details`` -> long records (id: ``example_abbr``, the key or position).

    ``id`` (a path within each ``details`` record) replaces ``example_abbr``.
    """
    name = column or "correct"
    for where, row in rows:
        if where != "the document" or not isinstance(row, dict) or \
                not isinstance(row.get("details"), (list, dict)):
            raise ReportError(source, "not an OpenCompass results file (one JSON object with a "
                                      f"`details` list); {where} has fields {field_names(row)}")
        details = row["details"]
        items = details.items() if isinstance(details, dict) else enumerate(details)
        for key, item in items:
            at = f"details[{key}]"
            if id is not None:
                question = _id_at(item, id, source, at)
            else:
                question = item.get("example_abbr", key) if isinstance(item, dict) else key
            for _, value in get_path(item, name, source=source, where=at):
                yield from sample_records(question, value, at, source, name)


def _id_at(row: Any, path: str, source: str, where: str) -> Any:
    """The question id at ``path`` (``--id``) in a harness row: one string or integer."""
    found = get_path(row, path, source=source, where=where)
    if len(found) != 1:
        raise ReportError(source, f"`--id {path}` names {len(found)} values in the row; "
                                  "expected one question id", where)
    return canonical_id(found[0][1], source, where)


def _first(names: Any, source: str, where: str, field: str) -> str:
    if not isinstance(names, list) or not names:
        raise ReportError(source, f"`{field}` names no metric; give --column", where)
    return str(names[0])
