"""``kpass report --answers``: sampled final answers and a reference per question.

Each question's answers are encoded as small integer codes (0 for answers equal to
the reference, 1, 2, ... for the distinct wrong ones, None for "no answer"), which
is all :func:`kpass.families.vote.vote_at_k` needs; the binary counts (answers equal to the
reference) come with them, so the pass metrics are reported from the same file.
Memory is one small integer per answer, not the answer strings.

"No answer" -- None, NaN, blank text, or what ``--normalize`` turns into one of them
-- is coded None: it never matches the reference, nor another "no answer". A
reference that is no answer (an empty CSV cell, a null, a normaliser that finds
nothing in it) is an error naming its line: such a question could never be right.

With ``--id`` (and optionally ``--sample``) the file is long: one row per sample,
holding one answer and the question's reference, grouped by question id wherever
the rows lie; every row of a question must carry the same reference, and a
repeated (id, sample) pair is an error naming both lines. A row whose answers
cell is a list holds a whole question (its id then may not repeat).

Matching answers to references (the integer codes, ``--normalize``, grouping rows by
question id) is in :mod:`kpass.io.answers_match`.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .._core.counting.canonical import (
    answer_key,
    function_name,
)
from .._core.counting.counts import BinaryCounts
from .answers_match import (
    _ById,
    _ByRow,
    _Questions,
)
from .errors import ReportError, describe_read_error, read_errors, show
from .formats.base import BOM, _element_lines, _need_pyarrow, _skip_space, detect_format
from .formats.parsers import _open_bytes, dataset_files, read_text
from .formats.readers import LoadedFile
from .harness.answers_lm_eval import is_lm_eval_samples, lm_eval_records
from .long.long_rows import _has_bad_bytes, _loads, not_utf8
from .rows import Unreadable, check_nesting, json_problem, too_deep

ANSWER_COLUMNS = ("answers",)
REFERENCE_COLUMNS = ("ground_truth", "reference", "gold", "target", "answer")


def _pick(names: list[str], requested: str | None, defaults: tuple[str, ...], what: str,
          source: str, where: str | None = None, exclude: tuple[str, ...] = ()) -> str:
    found = ", ".join(f"`{name}`" for name in names) or "none"
    if requested is not None:
        if requested in names:
            return requested
        raise ReportError(source, f"no {what} column `{requested}`; the columns are {found}", where)
    for name in defaults:
        if name in names and name not in exclude:
            return name
    looked = ", ".join(f"`{name}`" for name in defaults)
    option = "--column" if what == "answers" else "--reference"
    raise ReportError(source, f"no {what} column (looked for {looked}); the columns are {found}; "
                              f"choose one with {option} NAME", where)


def answer_records(source: str, path: Path, names: dict[str, str | None],
                   state: dict[str, str], chunk_size: int
                   ) -> tuple[Iterator[Record], str | None]:
    """The records of an answers file, and the id column that groups them.

    An lm-eval ``--log_samples`` file (read with no column named) gives its repeats in
    ``resps``, grouped by ``doc_id`` (one row per filter); any other file its rows, grouped
    by ``names["id"]`` (None: one row per question). ``load_answers`` and compare's check
    of the references read through this one choice.
    """
    fmt = detect_format(path)
    if (fmt == "jsonl" and names["answers"] is None and names["reference"] is None
            and names["id"] is None and is_lm_eval_samples(path)):
        return lm_eval_records(source, path, state), "doc_id"
    return _RECORDS[fmt](source, path, names, state, chunk_size), names["id"]


def load_answers(source: str, *, column: str | None = None, reference: str | None = None,
                 skip_bad: bool = False, chunk_size: int = 65536,
                 normalize: Callable[[Any], Any] | None = None, id: str | None = None,  # noqa: A002
                 sample: str | None = None) -> tuple[LoadedFile, list[list[int | None]]]:
    """Read sampled answers and references; return counts and integer-coded answers.

    Args:
        source: a JSONL, JSON, CSV/TSV or Parquet file, or a datasets directory.
        column: the answers column (default ``answers``).
        reference: the reference column (default: the first of ``ground_truth``,
            ``reference``, ``gold``, ``target``, ``answer`` that is not the answers
            column).
        skip_bad: leave unreadable rows out (listed in ``bad_rows``) instead of stopping
            (not with ``id``: every row of a question counts).
        chunk_size: rows per pyarrow batch.
        normalize: a function answer -> answer applied before comparing (answers
            and references are compared by canonical form either way).
        id: the question-id column: the file is long, one answer per row, and rows
            are grouped by id wherever they lie (a row whose answers cell is a list
            holds a whole question instead).
        sample: with ``id``, the sample-id column; a repeated (id, sample) pair is an
            error naming both lines.

    Returns:
        The file's binary counts (answers equal to the reference; with ``id``, keyed
        by question id in first-seen order) and, per question, its answers coded 0
        (the reference), 1, 2, ... (other answers) or None (no answer).

    Raises:
        ReportError: as :func:`kpass.io.formats.readers.load_counts`, for answers and
            references; a reference that is no answer (empty cell, null, NaN, or
            nothing left after ``normalize``); with ``id``, a question whose rows
            disagree on the reference, a repeated (id, sample) pair or wide id.

    Example:
        >>> from kpass.data import sample_path
        >>> loaded, codes = load_answers(str(sample_path("aime25_q06_gpt_oss_20b.json")))
        >>> loaded.counts.n_samples.tolist(), loaded.counts.n_correct.tolist(), codes[0][:4]
        ([80], [32], [1, 0, 1, 0])
    """
    path = Path(source)
    if not path.exists():
        raise ReportError(source, "no such file or directory")
    fmt = detect_format(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ReportError(source, "the file is empty; it holds no questions")
    if fmt == "npy":
        raise ReportError(source, "a .npy file holds 0/1 outcomes, not answers; drop --answers")
    if id is None and sample is not None:
        raise ReportError(source, "--sample needs --id COLUMN (the question of each sample)")
    if id is not None and skip_bad:
        raise ReportError(source, "--skip-bad is not available with --id or --sample: every row "
                                  "of a question counts, so a bad row stops the run with its line")
    names = {"answers": column, "reference": reference, "id": id, "sample": sample}
    state: dict[str, str] = {}
    records, id = answer_records(source, path, names, state, chunk_size)  # noqa: A001
    key = answer_key(normalize)
    normalizer = function_name(normalize) if normalize is not None else None
    questions: _Questions = (_ById(source, key, normalizer, state) if id is not None
                             else _ByRow(source, key, normalizer, state, skip_bad))
    try:
        for record in records:
            questions.add(*record)
    except read_errors() as error:
        at = state.get("at")
        where = f"after {at}" if at is not None and isinstance(error, EOFError) else at
        raise ReportError(source, describe_read_error(error), where) from None
    coded, firsts, ids = questions.coded, questions.first, questions.ids
    if not coded:
        raise ReportError(source, "no readable question" + (
            f"; all {len(questions.bad_rows)} rows are bad" if questions.bad_rows else ""))
    n = np.array([len(q) for q in coded], dtype=np.int64)
    counts = BinaryCounts(n, np.array([q.count(0) for q in coded], dtype=np.int64),
                          ids=tuple(ids) if ids is not None else None)
    loaded = LoadedFile(source, path, state.get("answers"), counts, firsts[int(np.argmin(n))],
                        questions.bad_rows)
    return loaded, coded


Record = tuple[str, Any, Any, Any, Any]
"""(where, answers, reference, question id, sample id); the ids are None unless asked for."""


def _columns(names: dict[str, str | None], present: list[str], source: str,
             where: str | None, state: dict[str, str]) -> None:
    """Resolve the answers, reference, id and sample columns among ``present`` into ``state``."""
    state["answers"] = _pick(present, names["answers"], ANSWER_COLUMNS, "answers", source, where)
    state["reference"] = _pick(present, names["reference"], REFERENCE_COLUMNS, "reference",
                               source, where, exclude=(state["answers"],))
    found = ", ".join(f"`{name}`" for name in present) or "none"
    for option in ("id", "sample"):
        wanted = names[option]
        if wanted is not None:
            if wanted not in present:
                raise ReportError(source, f"no column `{wanted}` (--{option}); the columns are "
                                          f"{found}", where)
            state[option] = wanted


def _from_dict(record: Any, where: str, source: str, names: dict[str, str | None],
               state: dict[str, str]) -> Record:
    if not isinstance(record, dict):
        problem = f"expected an object with answers and a reference; got {show(record)}"
        return where, Unreadable(problem), None, None, None
    if "answers" not in state:
        _columns(names, list(record), source, where, state)
    fields = [state.get(option) for option in ("answers", "reference", "id", "sample")]
    for name in fields:
        if name is not None and name not in record:
            return where, Unreadable(f"the record has no `{name}` field"), None, None, None
    for name in fields:
        if name is not None and _has_bad_bytes(record[name]):
            return where, Unreadable(not_utf8(name)), None, None, None
    answers, gold, qid, sample = (record[name] if name is not None else None for name in fields)
    return where, answers, gold, qid, sample


def _jsonl(source: str, path: Path, names: dict[str, str | None], state: dict[str, str],
           chunk_size: int) -> Iterator[Record]:
    with _open_bytes(path) as (stream, _):
        for number, line in _numbered(stream, state):
            if not line.strip():
                continue
            deep = too_deep(line)  # measured before a parser that can crash sees it
            try:
                if deep is not None:
                    raise RecursionError
                record = _loads(line)  # a bad byte is judged only in the fields read
            except (ValueError, RecursionError) as error:
                yield f"line {number}", Unreadable(json_problem(error)), None, None, None
                continue
            yield _from_dict(record, f"line {number}", source, names, state)


def _numbered(stream: Any, state: dict[str, str]) -> Iterator[tuple[int, bytes]]:
    """Lines numbered from 1, BOM dropped; ``state["at"]`` says where reading stopped."""
    for number, line in enumerate(stream, 1):
        state["at"] = f"line {number}"
        yield number, line[len(BOM):] if number == 1 and line.startswith(BOM) else line


def _json(source: str, path: Path, names: dict[str, str | None], state: dict[str, str],
          chunk_size: int) -> Iterator[Record]:
    text = read_text(source, path)
    check_nesting(text, source)
    start = _skip_space(text, 0)
    try:
        document, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as error:
        raise ReportError(source, f"not valid JSON ({error.msg})", f"line {error.lineno}") from None
    if _skip_space(text, end) < len(text):
        yield from _jsonl(source, path, names, state, chunk_size)
        return
    if isinstance(document, list):
        for record, line in zip(document, _element_lines(text, start), strict=True):
            yield _from_dict(record, f"line {line}", source, names, state)
        return
    if not isinstance(document, dict):
        raise ReportError(source, "expected a list of records or an object of columns", "line 1")
    _columns(names, list(document), source, None, state)
    fields = [state[option] for option in ("answers", "reference", "id", "sample")
              if option in state]
    columns = [document[name] for name in fields]
    if "id" not in state and isinstance(columns[0], list) and not any(
            isinstance(a, list) for a in columns[0]):
        columns = [[column] for column in columns]  # one question, as in the AIME sample
    if not all(isinstance(column, list) for column in columns) or len(
            {len(column) for column in columns}) != 1:
        listed = " and ".join(f"`{name}`" for name in fields)
        raise ReportError(source, f"{listed} must be lists of one entry per "
                                  f"{'row' if 'id' in state else 'question'}, of the same length")
    for index, row in enumerate(zip(*columns, strict=True)):
        values = list(row) + [None] * (4 - len(row))
        yield f"{'row' if 'id' in state else 'question'} {index + 1}", *values


def _csv(source: str, path: Path, names: dict[str, str | None], state: dict[str, str],
         chunk_size: int) -> Iterator[Record]:
    delimiter = "\t" if detect_format(path) == "tsv" else ","
    with _open_bytes(path) as (stream, _):
        # bad bytes kept as surrogates: an error only in the cells read, with their line
        reader = csv.reader((line.decode("utf-8", "surrogateescape")
                             for _, line in _numbered(stream, state)), delimiter=delimiter)
        header = [name.strip() for name in next(reader, [])]
        _columns(names, header, source, "line 1", state)
        index = {option: header.index(state[option]) for option in
                 ("answers", "reference", "id", "sample") if option in state}
        width = max(index.values())
        long = "id" in state
        lists: bool | None = None if long else True  # with --id, the first row tells
        for record in reader:
            where = f"line {reader.line_num}"
            if not any(cell.strip() for cell in record):
                continue
            if width >= len(record):
                yield where, Unreadable(f"the row has {len(record)} fields"), None, None, None
                continue
            bad = next((option for option, at in index.items()
                        if _has_bad_bytes(record[at])), None)
            if bad is not None:
                yield where, Unreadable(not_utf8(state[bad])), None, None, None
                continue
            cell = record[index["answers"]]
            if lists is None:
                lists = isinstance(_answers_cell(cell), list)
            answers = _answers_cell(cell) if lists else cell
            gold: Any = record[index["reference"]]
            if not gold.strip():
                gold = Unreadable(f"the reference cell (column `{state['reference']}`) is empty; "
                                  "every question needs its reference")
            # CSV cells are text; the canonical form makes "170" and 170 one answer.
            yield (where, answers, gold, record[index["id"]] if long else None,
                   record[index["sample"]] if "sample" in index else None)


def _answers_cell(cell: str) -> Any:
    """A CSV answers cell of a wide file: a JSON list of answers.

    With --id, a file whose first answers cell is not a JSON list is long: its cells
    are answers as they are (``[1, 2]`` too), never parsed.
    """
    try:
        if too_deep(cell) is not None:
            raise RecursionError
        return json.loads(cell)
    except (ValueError, RecursionError):
        return Unreadable(f"cannot read the answers cell {show(cell)} as a JSON list (not "
                          "valid JSON, or nested too deeply)")


def _arrow(source: str, path: Path, names: dict[str, str | None], state: dict[str, str],
           chunk_size: int) -> Iterator[Record]:
    pa = _need_pyarrow(source)
    import pyarrow.parquet as pq

    options = ("answers", "reference", "id", "sample")
    if detect_format(path) == "parquet":
        handle = pq.ParquetFile(path)
        _columns(names, handle.schema_arrow.names, source, None, state)
        batches = handle.iter_batches(batch_size=chunk_size,
                                      columns=[state[o] for o in options if o in state])
    else:
        batches = _dataset_batches(pa, dataset_files(source, path), source, names, state)
    row = 0
    for batch in batches:
        columns = [batch.column(state[o]).to_pylist() if o in state else None for o in options]
        answers, golds = columns[0] or [], columns[1] or []
        qids, samples = columns[2], columns[3]
        for i in range(len(answers)):
            row += 1
            yield (f"row {row}", answers[i], golds[i], qids[i] if qids is not None else None,
                   samples[i] if samples is not None else None)


def _dataset_batches(pa: Any, files: list[Path], source: str, names: dict[str, str | None],
                     state: dict[str, str]) -> Iterator[Any]:
    for path in files:
        with pa.memory_map(str(path)) as handle:
            stream = pa.ipc.open_stream(handle)
            if "answers" not in state:
                _columns(names, stream.schema.names, source, None, state)
            yield from stream


_RECORDS = {"jsonl": _jsonl, "json": _json, "csv": _csv, "tsv": _csv, "parquet": _arrow,
            "datasets": _arrow}
