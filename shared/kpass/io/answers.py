"""``kpass report --answers``: sampled final answers and a reference per question.

Each question's answers are encoded as small integer codes (0 for answers equal to
the reference, 1, 2, ... for the distinct wrong ones, None for "no answer"), which
is all :func:`kpass.vote.vote_at_k` needs; the binary counts (answers equal to the
reference) come with them, so the pass metrics are reported from the same file.
Memory is one small integer per answer, not the answer strings.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .._core.canonical import answer_key, canonical_answer
from .._core.inputs import BinaryCounts
from .formats import (
    BOM,
    _element_lines,
    _need_pyarrow,
    _open_bytes,
    _skip_space,
    dataset_files,
    detect_format,
    read_text,
)
from .readers import LoadedFile
from .rows import ReportError, Unreadable, describe_read_error, read_errors, show

ANSWER_COLUMNS = ("answers",)
REFERENCE_COLUMNS = ("ground_truth", "reference", "gold", "target", "answer")


def _pick(names: list[str], requested: str | None, defaults: tuple[str, ...], what: str,
          source: str, where: str | None = None) -> str:
    found = ", ".join(f"`{name}`" for name in names) or "none"
    if requested is not None:
        if requested in names:
            return requested
        raise ReportError(source, f"no {what} column `{requested}`; the columns are {found}", where)
    for name in defaults:
        if name in names:
            return name
    looked = ", ".join(f"`{name}`" for name in defaults)
    option = "--column" if what == "answers" else "--reference"
    raise ReportError(source, f"no {what} column (looked for {looked}); the columns are {found}; "
                              f"choose one with {option} NAME", where)


def _encode(answers: Any, reference: Any, label: str,
            key: Callable[[Any], Any] = canonical_answer) -> list[int | None] | str:
    """Integer codes of one question's answers, or the reason they cannot be read.

    Answers are compared by ``key`` (canonical form: 170, "170" and 170.0 match).
    """
    if isinstance(answers, Unreadable):
        return answers.problem
    if not isinstance(answers, list):
        return f"`{label}` must be a list of answers; got {show(answers)}"
    if not answers:
        return f"`{label}` is an empty list; a question needs at least one answer"
    if reference is None or isinstance(reference, (list, dict)):
        return f"the reference must be one answer (not null or a list); got {show(reference)}"
    try:
        codes: dict[Any, int] = {key(reference): 0}
        encoded: list[int | None] = []
        for position, answer in enumerate(answers):
            if answer is None:
                encoded.append(None)
            elif isinstance(answer, (list, dict)):
                return f"`{label}` must hold final answers; got {label}[{position}]={show(answer)}"
            else:
                encoded.append(codes.setdefault(key(answer), len(codes)))
    except ValueError as error:  # the user's normaliser failed: say on which answer
        return str(error)
    except TypeError:
        return "the normaliser returned an unhashable value (e.g. a list); return text or a number"
    return encoded


def import_normalizer(spec: str) -> Callable[[Any], Any]:
    """The function named ``module:function`` (``--normalize``), imported.

    Args:
        spec: e.g. ``my_project.grading:extract_boxed``; the current directory is on
            the import path, so a local ``norm.py`` works as ``norm:function``.

    Returns:
        The callable.

    Raises:
        ReportError: a malformed spec, a module that cannot be imported, a missing or
            non-callable attribute.
    """
    import importlib
    import sys

    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise ReportError("--normalize", f"expected MODULE:FUNCTION; got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - importing user code may raise anything
        raise ReportError("--normalize", f"cannot import {module_name!r} "
                                         f"({type(error).__name__}: {error})") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ReportError("--normalize", f"{module_name!r} has no function {name!r}")
    return function


def load_answers(source: str, *, column: str | None = None, reference: str | None = None,
                 skip_bad: bool = False, chunk_size: int = 65536,
                 normalize: Callable[[Any], Any] | None = None
                 ) -> tuple[LoadedFile, list[list[int | None]]]:
    """Read sampled answers and references; return counts and integer-coded answers.

    Args:
        source: a JSONL, JSON, CSV/TSV or Parquet file, or a datasets directory.
        column: the answers column (default ``answers``).
        reference: the reference column (default: the first of ``ground_truth``,
            ``reference``, ``gold``, ``target``, ``answer``).
        skip_bad: leave unreadable rows out (listed in ``bad_rows``) instead of stopping.
        chunk_size: rows per pyarrow batch.
        normalize: a function answer -> answer applied before comparing (answers
            and references are compared by canonical form either way).

    Returns:
        The file's binary counts (answers equal to the reference) and, per question,
        its answers coded 0 (the reference), 1, 2, ... (other answers) or None.

    Raises:
        ReportError: as :func:`kpass.io.readers.load_counts`, for answers and references.

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
    state: dict[str, str] = {}
    records = _RECORDS[fmt](source, path, column, reference, state, chunk_size)
    questions: list[list[int | None]] = []
    bad_rows: list[tuple[str, str]] = []
    shortest = (0, "")
    key = answer_key(normalize)
    try:
        for where, answers, gold in records:
            encoded = _encode(answers, gold, state.get("answers", "answers"), key)
            if isinstance(encoded, str):
                if not skip_bad:
                    raise ReportError(source, encoded, where)
                bad_rows.append((where, encoded))
                continue
            if not questions or len(encoded) < shortest[0]:
                shortest = (len(encoded), where)
            questions.append(encoded)
    except read_errors() as error:
        at = state.get("at")
        where = f"after {at}" if at is not None and isinstance(error, EOFError) else at
        raise ReportError(source, describe_read_error(error), where) from None
    if not questions:
        raise ReportError(source, "no readable question" + (
            f"; all {len(bad_rows)} rows are bad" if bad_rows else ""))
    counts = BinaryCounts(np.array([len(q) for q in questions], dtype=np.int64),
                          np.array([q.count(0) for q in questions], dtype=np.int64))
    loaded = LoadedFile(source, path, state.get("answers"), counts, shortest[1], bad_rows)
    return loaded, questions


Record = tuple[str, Any, Any]


def _from_dict(record: Any, where: str, source: str, column: str | None, reference: str | None,
               state: dict[str, str]) -> Record:
    if not isinstance(record, dict):
        problem = f"expected an object with answers and a reference; got {show(record)}"
        return where, Unreadable(problem), None
    if "answers" not in state:
        state["answers"] = _pick(list(record), column, ANSWER_COLUMNS, "answers", source, where)
        state["reference"] = _pick(list(record), reference, REFERENCE_COLUMNS, "reference",
                                   source, where)
    for name in (state["answers"], state["reference"]):
        if name not in record:
            return where, Unreadable(f"the record has no `{name}` field"), None
    return where, record[state["answers"]], record[state["reference"]]


def _jsonl(source: str, path: Path, column: str | None, reference: str | None,
           state: dict[str, str], chunk_size: int) -> Iterator[Record]:
    with _open_bytes(path) as (stream, _):
        for number, line in _numbered(stream, state):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:
                problem = f"not valid JSON ({getattr(error, 'msg', error)})"
                yield f"line {number}", Unreadable(problem), None
                continue
            yield _from_dict(record, f"line {number}", source, column, reference, state)


def _numbered(stream: Any, state: dict[str, str]) -> Iterator[tuple[int, bytes]]:
    """Lines numbered from 1, BOM dropped; ``state["at"]`` says where reading stopped."""
    for number, line in enumerate(stream, 1):
        state["at"] = f"line {number}"
        yield number, line[len(BOM):] if number == 1 and line.startswith(BOM) else line


def _json(source: str, path: Path, column: str | None, reference: str | None,
          state: dict[str, str], chunk_size: int) -> Iterator[Record]:
    text = read_text(source, path)
    start = _skip_space(text, 0)
    try:
        document, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as error:
        raise ReportError(source, f"not valid JSON ({error.msg})", f"line {error.lineno}") from None
    if _skip_space(text, end) < len(text):
        yield from _jsonl(source, path, column, reference, state, chunk_size)
        return
    if isinstance(document, list):
        for record, line in zip(document, _element_lines(text, start), strict=True):
            yield _from_dict(record, f"line {line}", source, column, reference, state)
        return
    if not isinstance(document, dict):
        raise ReportError(source, "expected a list of records or an object of columns", "line 1")
    state["answers"] = _pick(list(document), column, ANSWER_COLUMNS, "answers", source)
    state["reference"] = _pick(list(document), reference, REFERENCE_COLUMNS, "reference", source)
    answers, golds = document[state["answers"]], document[state["reference"]]
    if isinstance(answers, list) and not any(isinstance(a, list) for a in answers):
        answers, golds = [answers], [golds]  # one question, as in the AIME sample
    if not isinstance(answers, list) or not isinstance(golds, list) or len(answers) != len(golds):
        raise ReportError(source, f"`{state['answers']}` and `{state['reference']}` must be "
                                  "lists of one entry per question, of the same length")
    for index, (question, gold) in enumerate(zip(answers, golds, strict=True)):
        yield f"question {index + 1}", question, gold


def _csv(source: str, path: Path, column: str | None, reference: str | None,
         state: dict[str, str], chunk_size: int) -> Iterator[Record]:
    delimiter = "\t" if detect_format(path) == "tsv" else ","
    with _open_bytes(path) as (stream, _):
        reader = csv.reader((line.decode("utf-8") for _, line in _numbered(stream, state)),
                            delimiter=delimiter)
        names = [name.strip() for name in next(reader, [])]
        state["answers"] = _pick(names, column, ANSWER_COLUMNS, "answers", source, "line 1")
        state["reference"] = _pick(names, reference, REFERENCE_COLUMNS, "reference", source,
                                   "line 1")
        first, second = names.index(state["answers"]), names.index(state["reference"])
        for record in reader:
            where = f"line {reader.line_num}"
            if not any(cell.strip() for cell in record):
                continue
            if max(first, second) >= len(record):
                yield where, Unreadable(f"the row has {len(record)} fields"), None
                continue
            try:
                answers = json.loads(record[first])
            except ValueError:
                answers = Unreadable(f"cannot read the answers cell {show(record[first])} as a "
                                     "JSON list")
            # CSV cells are text; the canonical form makes "170" and 170 one answer.
            yield where, answers, record[second]


def _arrow(source: str, path: Path, column: str | None, reference: str | None,
           state: dict[str, str], chunk_size: int) -> Iterator[Record]:
    pa = _need_pyarrow(source)
    import pyarrow.parquet as pq

    if detect_format(path) == "parquet":
        handle = pq.ParquetFile(path)
        names = handle.schema_arrow.names
        state["answers"] = _pick(names, column, ANSWER_COLUMNS, "answers", source)
        state["reference"] = _pick(names, reference, REFERENCE_COLUMNS, "reference", source)
        batches = handle.iter_batches(batch_size=chunk_size,
                                      columns=[state["answers"], state["reference"]])
    else:
        batches = _dataset_batches(pa, dataset_files(source, path), source, column, reference,
                                   state)
    row = 0
    for batch in batches:
        answers = batch.column(state["answers"]).to_pylist()
        golds = batch.column(state["reference"]).to_pylist()
        for question, gold in zip(answers, golds, strict=True):
            row += 1
            yield f"row {row}", question, gold


def _dataset_batches(pa: Any, files: list[Path], source: str, column: str | None,
                     reference: str | None, state: dict[str, str]) -> Iterator[Any]:
    for path in files:
        with pa.memory_map(str(path)) as handle:
            stream = pa.ipc.open_stream(handle)
            if "answers" not in state:
                names = stream.schema.names
                state["answers"] = _pick(names, column, ANSWER_COLUMNS, "answers", source)
                state["reference"] = _pick(names, reference, REFERENCE_COLUMNS, "reference",
                                           source)
            yield from stream


_RECORDS = {"jsonl": _jsonl, "json": _json, "csv": _csv, "tsv": _csv, "parquet": _arrow,
            "datasets": _arrow}
