"""Reading what a Space visitor pastes or uploads into questions.

JSON Lines, one list per line, CSV (wide or long, by an id column) and uploaded files become
:class:`Question` records that remember their line and column, so every message points at
the place to fix; sizes are capped (``MAX_*``). Shipped beside ``app.py`` (``spaces/build.py``
copies it) and loaded by it as one of its modules.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Field names accepted in JSONL objects and CSV headers, per input.
ALIASES = {"predictions": ("outcomes", "outcome", "correct", "is_correct", "answers",
                           "samples", "scores", "score", "rewards", "reward", "prediction"),
           "references": ("reference", "ground_truth", "gold", "answer", "target"),
           "R0": ("prior_outcomes",)}
# A column naming the question: rows sharing it are one question's samples (long format).
ID_FIELDS = ("id", "question_id", "task_id", "problem_id", "qid", "example_id", "instance_id",
             "question", "task", "problem")

# Limits of one request (each runs under one lock in the Space).
MAX_CHARS = 1_000_000
#: An uploaded log or table read by kpass's readers (an Inspect ``.eval`` holds the
#: transcripts too, so it is far larger than its outcomes).
MAX_LOG_BYTES = 50_000_000
MAX_QUESTIONS = 20_000
MAX_OUTCOMES = 200_000
MAX_KS = 20
MAX_K = 1_000
MAX_CATEGORY = 100


# ----------------------------------------------------------------------------- input


@dataclass
class Question:
    """One question's values and where each came from (1-based line and column)."""

    values: list[Any]
    line: int
    columns: list[int] | None = None  # column of each value on ``line``, if known
    lines: list[int] | None = None  # line of each value (long format)
    extras: dict[str, Any] = field(default_factory=dict)  # references, R0
    qid: Any = None  # the question's id, when the input names one (set by group_questions)

    def where(self, value: int | None = None) -> str:
        """``line 3, column 5`` for a value (``line 3`` for the question)."""
        if value is not None and self.lines is not None and value < len(self.lines):
            return f"line {self.lines[value]}"
        if value is not None and self.columns is not None and value < len(self.columns):
            return f"line {self.line}, column {self.columns[value]}"
        return f"line {self.line}"


# A value on a line: a quoted string, or a run without separators or brackets.
TOKEN = re.compile(r'"[^"]*"|\'[^\']*\'|[^\s,;\[\]|]+')


def parse_token(token: str, kind: str) -> Any:
    """An outcome as typed: a string for answers, else an int or a float (the module checks it)."""
    text = token.strip()
    if kind == "answers":
        return text.strip("\"'")
    try:
        return int(text)
    except ValueError:  # not an integer, or past Python's 4300-digit limit: a float or text
        pass
    try:
        value = float(text)
    except ValueError:
        return text.strip("\"'")
    # A finite number too long for a float (5000 digits) stays as typed: never "inf".
    return text if value in (float("inf"), float("-inf")) and "inf" not in text.lower() \
        else value


def _load_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{what}: not valid JSON ({error.msg} at column {error.colno})") \
            from None
    except RecursionError:
        raise ValueError(f"{what}: nested too deeply (one flat list of outcomes per "
                         "question)") from None


def _flat(values: Any, where: str) -> list[Any]:
    if not isinstance(values, list):
        values = [values]
    for index, value in enumerate(values, start=1):
        if isinstance(value, (list, dict)):
            raise ValueError(f"{where}: value {index} is a {type(value).__name__}; each "
                             "question is one flat list of outcomes")
    return values


def _part(part: str, offset: int, kind: str, line: int) -> tuple[list[Any], list[int]]:
    """Values of one ``|``-separated part of a line, with their 1-based columns."""
    tokens = list(TOKEN.finditer(part))
    if part.lstrip().startswith("["):
        values = _flat(_load_json(part, f"line {line}"), f"line {line}")
        columns = [offset + t.start() + 1 for t in tokens] if len(tokens) == len(values) else []
    else:
        values = [parse_token(t[0], kind) for t in tokens]
        columns = [offset + t.start() + 1 for t in tokens]
    if not values:
        raise ValueError(f"line {line}: no outcomes")
    return values, columns


def _from_record(record: dict[str, Any], line: int, names: list[str]) -> dict[str, Any]:
    row = {}
    for name in names:
        for key in (name, *ALIASES.get(name, ())):
            if key in record:
                row[name] = record[key]
                break
    if "predictions" not in row:
        raise ValueError(f"line {line}: no outcomes field (predictions, outcomes, correct, ...) "
                         f"among {sorted(record)}")
    return row


def _id_of(record: dict[str, Any]) -> Any:
    return next((record[key] for key in ID_FIELDS if key in record), None)


def parse_line(text: str, line: int, names: list[str], kind: str) -> Question:
    """One question: values split by commas/spaces or a JSON list, ``|`` before each extra."""
    stripped = text.strip()
    if stripped.startswith("{"):
        record = _load_json(stripped, f"line {line}")
        if not isinstance(record, dict):
            raise ValueError(f"line {line}: expected a JSON object")
        row = _from_record(record, line, names)
        outcomes = row.pop("predictions")
        question = Question(_flat(outcomes, f"line {line}"), line, extras=row)
        question.extras["_id"] = _id_of(record)
        question.extras["_long"] = not isinstance(outcomes, list)  # one sample, not a list
        return question
    parts, offset, spans = text.split("|"), 0, []
    for part in parts:
        spans.append((part, offset))
        offset += len(part) + 1
    if len(parts) > len(names):
        raise ValueError(f"line {line}: expected at most {len(names)} part(s) separated by "
                         f"'|' ({' | '.join(names)}); got {len(parts)}")
    values, columns = _part(parts[0], 0, kind, line)
    question = Question(values, line, columns or None)
    for name, (part, start) in zip(names[1:], spans[1:], strict=False):
        if name == "references":
            question.extras[name] = part.strip().strip("\"'")
        else:
            question.extras[name] = _part(part, start, kind, line)[0]
    return question


# An integer id written as text ("7" in a CSV) is the integer, as in `kpass report`.
_INT_ID = re.compile(r"-?(0|[1-9][0-9]{0,17})")
# A CSV cell holding one value, not a list (no brackets, none of the list separators).
_SCALAR_CELL = re.compile(r"[^\[(\s,;|][^\s,;|]*")
LONG_HINT = ("one outcome per line is the long format (one line per sample): give every line "
             "a question id (" + ", ".join(ID_FIELDS[:3]) + ", ...) to group the lines by "
             "question")


def _question_id(raw: Any, line: int) -> Any:
    """A question id as ``kpass report`` reads it: a string or an integer (None: no id).

    The rule is the CLI's own (``kpass.io.rows.canonical_id``): text spelling a decimal
    integer of any length is that integer, so ``1234567890123456789`` in a JSON box and the
    same digits in a CSV cell name one question.
    """
    if raw is None:
        return None
    if isinstance(raw, (str, int)) and not isinstance(raw, bool):
        from kpass.io.rows import canonical_id

        try:
            return canonical_id(raw, "", f"line {line}")
        except ValueError:
            raise ValueError(f"line {line}: the question id is empty") from None
    raise ValueError(f"line {line}: question id {json.dumps(raw)[:40]} must be a string or an "
                     "integer")


def group_questions(questions: list[Question], names: list[str]) -> list[Question]:
    """Rows -> questions, refusing what ``kpass report --id`` refuses; never merges silently.

    A row is *wide* (a list of outcomes: one question) or *long* (one outcome, not a
    list: one sample of the question its id names). As in ``kpass report``: every row
    has the first row's shape; a long row needs an id (rows sharing it are grouped, in
    first-seen order, and must agree on the gold answer); a wide row's id, if it has
    one, is not repeated. The ``_id`` and ``_long`` marks are removed.

    Raises:
        ValueError: ``line N: ...`` naming the row (and the first row of a repeated id).
    """
    shape: str | None = None
    first: dict[Any, int] = {}
    grouped: dict[Any, Question] = {}
    out: list[Question] = []
    for question in questions:
        long = bool(question.extras.pop("_long", False))
        qid = _question_id(question.extras.pop("_id", None), question.line)
        this = "long" if long else "wide"
        if shape is None:
            shape = this
        elif this != shape:
            example = (f"outcome {json.dumps(question.values[0])[:40]}"
                       if long and question.values else "a list of outcomes")
            raise ValueError(f"line {question.line}: a {this} row ({example}) "
                             f"after {shape} rows (line {questions[0].line} is {shape}); give "
                             "one question a line with a list of outcomes, or one sample a "
                             "line, each with its question id")
        if not long:
            if qid is not None:
                if qid in first:
                    raise ValueError(f"question id {qid!r} is repeated: line {first[qid]} and "
                                     f"line {question.line}")
                first[qid] = question.line
            question.qid = qid
            out.append(question)
            continue
        if qid is None:
            value = json.dumps(question.values[0])[:40] if question.values else "none"
            raise ValueError(f"line {question.line}: one outcome ({value}) and no question "
                             f"id; {LONG_HINT}")
        if qid not in grouped:
            extras = {name: question.extras[name] for name in names[1:]
                      if name in question.extras}
            grouped[qid] = Question([], question.line, lines=[], extras=extras, qid=qid)
            out.append(grouped[qid])
        target = grouped[qid]
        target.values.extend(question.values)
        assert target.lines is not None  # set when the group was made
        target.lines.extend([question.line] * len(question.values))
        if "references" in names and not same_gold(question.extras.get("references"),
                                                   target.extras.get("references")):
            raise ValueError(f"line {question.line}: question id {qid!r} has gold answer "
                             f"{question.extras.get('references')!r} but "
                             f"{target.extras.get('references')!r} on line {target.line}")
    return out


def same_gold(one: Any, other: Any) -> bool:
    """Whether two gold answers are one answer by kpass's canonical rule (``170`` is
    ``"170.0"``; see ``kpass._core.counting.canonical.canonical_answer``)."""
    from kpass._core.counting.canonical import canonical_answer

    return bool(canonical_answer(one) == canonical_answer(other))


def parse_questions(text: str, names: list[str], kind: str) -> list[Question]:
    """Pasted or uploaded text -> one :class:`Question` per question.

    Accepted: one question a line (``1 0 1 1``, ``1,0,1``, ``[1, 0, 1]``, a JSON
    object such as ``{"outcomes": [1, 0]}``; extra columns after ``|``), a whole
    JSON list of lists, or JSON objects with an id field and one outcome each
    (long format: grouped by id). Blank lines and lines starting with ``#`` are skipped.
    """
    text = text or ""
    if len(text) > MAX_CHARS:
        raise ValueError(f"the input has {len(text):,} characters; this page takes at most "
                         f"{MAX_CHARS:,} (use kpass locally for more)")
    if not text.strip():
        raise ValueError("no input: paste one question per line, or upload a CSV/JSONL file")
    if re.match(r"\s*\[\s*\[", text):
        whole = _load_json(text, "the input (a JSON list of lists)")
        if not isinstance(whole, list):
            raise ValueError("the input: expected a JSON list of lists")
        questions = [Question(_flat(row, f"question {i}"), 1) for i, row in
                     enumerate(whole, start=1)]
    else:
        questions = [parse_line(line, number, names, kind)
                     for number, line in enumerate(text.splitlines(), start=1)
                     if line.strip() and not line.lstrip().startswith("#")]
    questions = group_questions(questions, names)
    check_size(questions, kind)
    return questions


def check_size(questions: list[Question], kind: str) -> None:
    """The page's limits (the lock serialises requests, so one must stay short)."""
    if not questions:
        raise ValueError("no questions found in the input")
    if len(questions) > MAX_QUESTIONS:
        raise ValueError(f"{len(questions):,} questions; this page takes at most "
                         f"{MAX_QUESTIONS:,}")
    total = sum(len(q.values) for q in questions)
    if total > MAX_OUTCOMES:
        raise ValueError(f"{total:,} outcomes; this page takes at most {MAX_OUTCOMES:,}")
    if kind == "categorical":
        for question in questions:
            for index, value in enumerate(question.values):
                if isinstance(value, (int, float)) and value > MAX_CATEGORY:
                    raise ValueError(f"{question.where(index)}: category {value} is above "
                                     f"{MAX_CATEGORY}, the largest this page takes")


def columns_of(questions: list[Question], names: list[str]) -> dict[str, list[Any]]:
    """Questions -> one list per input column, as the module takes them."""
    columns = {"predictions": [q.values for q in questions]}
    for name in names[1:]:
        present = [name in q.extras for q in questions]
        if all(present):
            columns[name] = [q.extras[name] for q in questions]
        elif any(present):
            missing = questions[present.index(False)]
            raise ValueError(f"`{name}` is given for some questions but not on line "
                             f"{missing.line}: give it for every question or for none")
    return columns


def _is_number(cell: str) -> bool:
    return re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*", cell) is not None


def csv_questions(content: str, names: list[str], kind: str) -> list[Question]:
    """A CSV file -> questions: named columns (wide or long with an id), or rows of outcomes."""
    rows = [(number, row) for number, row in enumerate(csv.reader(io.StringIO(content)), 1)
            if any(cell.strip() for cell in row)]
    if not rows:
        raise ValueError("the CSV file is empty")
    header = [cell.strip() for cell in rows[0][1]]
    found = {}
    for name in names:
        key = next((k for k in (name, *ALIASES.get(name, ())) if k in header), None)
        if key is not None:
            found[name] = header.index(key)
    id_column = next((header.index(k) for k in ID_FIELDS if k in header), None)
    questions = []
    if "predictions" in found:
        for number, row in rows[1:]:
            cell = row[found["predictions"]] if found["predictions"] < len(row) else ""
            values, _ = _part(cell, 0, kind, number)
            question = Question(values, number)
            for name in names[1:]:
                if name in found and found[name] < len(row):
                    cell = row[found[name]].strip()
                    question.extras[name] = (cell if name == "references"
                                             else _part(cell, 0, kind, number)[0])
            if id_column is not None and id_column < len(row):
                question.extras["_id"] = row[id_column]
            question.extras["_long"] = _SCALAR_CELL.fullmatch(cell.strip()) is not None
            questions.append(question)
        return questions
    # A header names the samples: a word past the first column (which may hold ids), or an id name.
    has_header = kind != "answers" and (header[0] in ID_FIELDS or not all(
        _is_number(c) for c in header[1:] if c.strip()))
    body = rows[1:] if has_header else rows
    # An id column in wide rows: named in the header, or a first column that is never a number.
    if id_column is None and kind != "answers" and all(
            row and not _is_number(row[0]) for _, row in body):
        id_column = 0
    for number, row in body:
        cells = [(i, c) for i, c in enumerate(row) if i != id_column and c.strip()]
        if not cells:
            raise ValueError(f"line {number}: no outcomes")
        question = Question([parse_token(c, kind) for _, c in cells], number,
                            [i + 1 for i, _ in cells])
        if id_column is not None and id_column < len(row):
            question.extras["_id"] = row[id_column]
        questions.append(question)
    return questions


def read_upload(path: str | None, names: list[str], kind: str, *,
                filter: str | None = None) -> list[Question] | None:  # noqa: A002 - lm-eval's word
    """The questions of an uploaded file (None: nothing uploaded).

    Logs and tables kpass reads with the command line's own readers
    (:func:`kpass_read`: Inspect logs, harness files, Parquet, long tables naming a model)
    are read by them (:func:`logged_questions`); other CSV / JSONL / text files by the
    page's parser, as the text box is. ``filter`` is the lm-eval filter that counts (for
    lm-eval files only).
    """
    if not path:
        return None
    if kpass_read(path):
        return logged_questions(path, kind, filter=filter)
    raw = Path(path).read_bytes()
    if len(raw) > MAX_CHARS:
        raise ValueError(f"the file has {len(raw):,} bytes; this page takes at most "
                         f"{MAX_CHARS:,} (use kpass locally for more)")
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"the file is not UTF-8 text (byte {error.start + 1})") from None
    if path.lower().endswith(".csv"):
        questions = group_questions(csv_questions(content, names, kind), names)
        check_size(questions, kind)
        return questions
    return parse_questions(content, names, kind)


def first_keys(path: str) -> list[str]:
    """The column names of a CSV file's header, a Parquet file's schema or a JSONL file's
    first record (``[]`` when there are none or the file cannot say)."""
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
        with open(path, encoding="utf-8-sig", errors="replace") as stream:
            if suffix == ".csv":
                return [cell.strip() for cell in next(csv.reader(stream), [])]
            if suffix == ".jsonl":
                first = next((line for line in stream if line.strip()), "")
                record = json.loads(first) if first.lstrip().startswith("{") else None
                return list(record) if isinstance(record, dict) else []
    except Exception:  # noqa: BLE001 - unreadable here: the reader that follows says why
        return []
    return []


def kpass_read(path: str) -> bool:
    """Whether an upload is read by kpass's own readers (those of ``kpass report``).

    An Inspect AI log (``.eval``, or a ``.json`` Inspect wrote), a file an evaluation
    harness wrote (lm-eval ``samples_*.jsonl``, lighteval details, OpenCompass results:
    :func:`kpass.io.harness.load.detect_harness`), a Parquet table, or a long CSV / JSONL
    table (an id column) whose rows name their model or run
    (:data:`kpass.io.inputs.RUN_COLUMNS`), which the command line refuses to pool.
    """
    from kpass.io.harness.inspect_files import is_inspect_log
    from kpass.io.harness.load import detect_harness
    from kpass.io.inputs import RUN_COLUMNS

    if is_inspect_log(path) or path.lower().endswith(".parquet"):
        return True
    if path.lower().endswith((".jsonl", ".json")) and detect_harness(path) is not None:
        return True
    keys = first_keys(path)
    return any(key in keys for key in ID_FIELDS) and any(key in keys for key in RUN_COLUMNS)


def _kpass_problem(error: Any, path: str, by: str | None = None) -> ValueError:
    """A kpass reader's :class:`~kpass.io.errors.ReportError` in the page's words: without
    the upload's temporary path, the command line's advice (``--pool``, ``--by``) as the
    page gives it."""
    problem = error.problem.replace(path, Path(path).name)
    problem = re.sub(r": read with --id, their rows would be pooled as one run; .*",
                     ": read as one model, their rows would be pooled; give the column in "
                     "the box split by column (or upload one file per model)", problem)
    if by is not None:
        problem = problem.replace(f"--by {by}", "split by column").replace(
            "--by", "split by column")
    return ValueError(f"{error.where}: {problem}" if error.where else problem)


def _check_log(path: str, kind: str) -> None:
    if kind == "answers":
        raise ValueError("a log or table read by kpass holds scored outcomes, not answers; "
                         "use a metric that reads 0/1 outcomes")
    size = Path(path).stat().st_size
    if size > MAX_LOG_BYTES:
        raise ValueError(f"the file has {size:,} bytes; this page reads logs of at most "
                         f"{MAX_LOG_BYTES:,} (use kpass locally for more)")


def counted_questions(counts: Any) -> list[Question]:
    """Per-question counts (``kpass.BinaryCounts``) as the page's questions: c correct
    outcomes then n - c wrong ones (every metric of the page depends on (n, c) only).

    Raises:
        ValueError: more questions or outcomes than the page takes.
    """
    if counts.n_questions > MAX_QUESTIONS or int(counts.n_samples.sum()) > MAX_OUTCOMES:
        raise ValueError(f"{counts.n_questions:,} questions and {int(counts.n_samples.sum()):,} "
                         f"outcomes; this page takes at most {MAX_QUESTIONS:,} questions and "
                         f"{MAX_OUTCOMES:,} outcomes (use kpass locally for more)")
    ids = counts.ids if counts.ids is not None else [None] * counts.n_questions
    return [Question([1] * int(c) + [0] * int(n - c), line=index + 1, qid=qid)
            for index, (qid, n, c) in enumerate(zip(ids, counts.n_samples, counts.n_correct,
                                                    strict=True))]


def logged_questions(path: str, kind: str, *,
                     filter: str | None = None) -> list[Question]:  # noqa: A002 - lm-eval's word
    """An upload read as ``kpass report`` reads it: each question's 0/1 outcomes.

    Read by :func:`kpass.io.inputs.load_input` (Inspect logs need inspect-ai); a table with
    an id column (:data:`ID_FIELDS`, the first present) is read as a long table grouped by
    it (:func:`counted_questions`). ``filter`` (``--filter``) applies to lm-eval files and
    is ignored for others, as with several inputs on the command line.

    Raises:
        ValueError: an answer-string metric, a file over :data:`MAX_LOG_BYTES`, too many
            questions or outcomes, or the reader's own one-line message (without the
            upload's temporary path).
    """
    from kpass.io.errors import ReportError
    from kpass.io.harness.load import detect_harness
    from kpass.io.inputs import InputOptions, load_input

    _check_log(path, kind)
    keys = first_keys(path)
    if filter and (not path.lower().endswith((".jsonl", ".json")) or
                   detect_harness(path) != "lm-eval"):
        filter = None  # noqa: A001
    options = InputOptions(id=next((key for key in ID_FIELDS if key in keys), None),
                           filter=filter or None)
    try:
        counts = load_input(path, options)[0].counts
    except ReportError as error:
        raise _kpass_problem(error, path) from None
    return counted_questions(counts)


def split_questions(path: str, kind: str, by: str) -> dict[str, list[Question]]:
    """A long table holding several models, one model per value of its column ``by``.

    Read by :func:`kpass.io.inputs.load_split` (``kpass leaderboard --by COLUMN``: one scan,
    labels in sorted order), grouped by the table's question id column (:data:`ID_FIELDS`,
    the first present).

    Raises:
        ValueError: no id column, an answer-string metric, a file over
            :data:`MAX_LOG_BYTES`, more questions or outcomes than the page takes in all,
            or the reader's own one-line message.
    """
    from kpass.io.errors import ReportError
    from kpass.io.inputs import InputOptions, load_split

    _check_log(path, kind)
    keys = first_keys(path)
    found = next((key for key in ID_FIELDS if key in keys), None)
    if found is None:
        raise ValueError(f"split by `{by}` reads a long table, one row per sample, with a "
                         f"question id column ({', '.join(ID_FIELDS[:4])}, ...); the file "
                         f"has {', '.join(keys[:8]) or 'no columns'}")
    try:
        split = load_split(path, InputOptions(id=found, by=by))
    except ReportError as error:
        # one value throughout: one model (the command line asks to drop --by; beside other
        # files the page reads it as the model that value names)
        one = re.search(r"one value of `[^`]*` \((.+?)\), so one model", error.problem)
        if one is None:
            raise _kpass_problem(error, path, by) from None
        from ast import literal_eval

        try:
            label = str(literal_eval(one[1]))
        except (ValueError, SyntaxError):
            label = one[1]
        return {label: logged_questions(path, kind)}
    total = sum(int(item.counts.n_samples.sum()) for item in split.values())
    if total > MAX_OUTCOMES:
        raise ValueError(f"{len(split)} models and {total:,} outcomes; this page takes at "
                         f"most {MAX_OUTCOMES:,} outcomes (use kpass leaderboard --by "
                         f"{by} locally for more)")
    return {str(label): counted_questions(item.counts) for label, item in split.items()}


# ----------------------------------------------------------------------------- errors


_INDEXED = re.compile(r"\b(predictions|R0|references|R|answers)\[(\d+)\](?:\[(\d+)\])?(=?)")
# The core's argument names, as the page calls them.
_SHOWN_AS = {"R": "predictions", "answers": "predictions"}


def locate(message: str, questions: list[Question], source: str) -> str:
    """Turn ``predictions[1][2]=2.0`` (0-based, within the batch) into ``line 2, column 5``."""
    message = message.split(" (indices count questions within this batch)")[0]
    message = re.sub(r"^\w+: ", "", message)  # the module's name
    if re.match(r"line \d+\b", message):  # the parser's own messages: name the box or file
        return f"{source}, {message}"
    if message.startswith("question id "):
        return f"{source}: {message}"
    match = _INDEXED.search(message)
    if not match or int(match[2]) >= len(questions):
        return message
    question = questions[int(match[2])]
    value = int(match[3]) if match[3] is not None else None
    where = question.where(value)
    name = _SHOWN_AS.get(match[1], match[1])
    message = message.replace(f"`{match[1]}`", f"`{name}`")
    match = _INDEXED.search(message)
    if name == "R0" and value is not None:
        where = question.where()  # R0 values sit after the '|': point at the line
    if match is None:  # the index was inside the renamed argument: keep the message whole
        return f"{source}, {where}: {message}"
    text = message[:match.start()] + (f"`{name}` " if not match[4] else "") + \
        message[match.end():]
    return f"{source}, {where}: {text}"


