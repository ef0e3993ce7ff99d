"""Outcome file readers of `kpass report`: every format, chunking, bad rows, memory."""

from __future__ import annotations

import csv
import gzip
import io
import json
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpass.data import sample_path
from kpass.io.errors import ReportError
from kpass.io.formats.parsers import parse_cell
from kpass.io.formats.readers import load_counts
from kpass.io.progress import Progress
from kpass.io.rows import OUTCOME_COLUMNS

RAGGED = [[1, 0, 1, 1], [0, 0], [1, 1, 1, 0, 1, 1], [0], [1, 1]]
RECTANGULAR = [[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]]


def counts_of(rows):
    return [len(row) for row in rows], [sum(row) for row in rows]


def loaded_counts(path, **kwargs):
    loaded = load_counts(str(path), **kwargs)
    return loaded.counts.n_samples.tolist(), loaded.counts.n_correct.tolist()


def write_jsonl(path, rows, column="outcomes"):
    path.write_text("".join(json.dumps({"id": i, column: row}) + "\n"
                            for i, row in enumerate(rows)))
    return path


def write_csv(path, rows, cell=lambda row: json.dumps(row), delimiter=","):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(["question", "correct"])
    for i, row in enumerate(rows):
        writer.writerow([f"q{i}", cell(row)])
    path.write_text(buffer.getvalue())
    return path


def write_parquet(path, rows, column="outcomes"):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": list(range(len(rows))), column: rows}), path,
                   row_group_size=2)
    return path


def write_dataset(path, rows, column="correct"):
    import datasets

    datasets.Dataset.from_dict({column: rows}).save_to_disk(str(path))
    return path


WRITERS = {
    "jsonl": lambda tmp, rows: write_jsonl(tmp / "r.jsonl", rows),
    "jsonl.gz": lambda tmp, rows: _gzip(write_jsonl(tmp / "r.jsonl", rows)),
    "json-records": lambda tmp, rows: _text(tmp / "r.json", json.dumps(
        [{"outcomes": row} for row in rows], indent=1)),
    "json-columns": lambda tmp, rows: _text(tmp / "r.json", json.dumps({"scores": rows})),
    "json-lists": lambda tmp, rows: _text(tmp / "r.json", json.dumps(rows)),
    "jsonl-named-json": lambda tmp, rows: write_jsonl(tmp / "r.json", rows),
    "csv-json-cells": lambda tmp, rows: write_csv(tmp / "r.csv", rows),
    "csv-python-bools": lambda tmp, rows: write_csv(
        tmp / "r.csv", rows, lambda row: str([bool(v) for v in row])),
    "csv-spaces": lambda tmp, rows: write_csv(tmp / "r.csv", rows,
                                              lambda row: " ".join(map(str, row))),
    "tsv-semicolons": lambda tmp, rows: write_csv(tmp / "r.tsv", rows,
                                                  lambda row: ";".join(map(str, row)), "\t"),
    "parquet": lambda tmp, rows: write_parquet(tmp / "r.parquet", rows),
    "parquet-bool": lambda tmp, rows: write_parquet(tmp / "r.parquet",
                                                    [[bool(v) for v in row] for row in rows]),
    "datasets": lambda tmp, rows: write_dataset(tmp / "ds", rows),
}


def _text(path, text):
    path.write_text(text)
    return path


def _bytes(path, data):
    path.write_bytes(data)
    return path


def _gzip(path):
    target = path.with_suffix(".jsonl.gz")
    target.write_bytes(gzip.compress(path.read_bytes()))
    return target


@pytest.mark.parametrize("kind", sorted(WRITERS))
@pytest.mark.parametrize("chunk_size", [1, 2, 65536])
def test_every_format_reads_ragged_outcomes_to_the_same_counts(tmp_path, kind, chunk_size):
    path = WRITERS[kind](tmp_path, RAGGED)
    assert loaded_counts(path, chunk_size=chunk_size) == counts_of(RAGGED)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.bool_])
def test_npy_matrix_is_read_in_chunks(tmp_path, dtype):
    path = tmp_path / "r.npy"
    np.save(path, np.array(RECTANGULAR, dtype=dtype))
    assert loaded_counts(path, chunk_size=3) == counts_of(RECTANGULAR)


def test_bundled_samples_are_found_with_their_columns():
    tau = load_counts(str(sample_path()))
    assert (tau.column, tau.counts.n_questions, tau.n_min, tau.n_max) == ("outcomes", 50, 4, 4)
    assert int(tau.counts.n_correct.sum()) == 84  # Pass^1 = 84 / 200 = 0.42
    aime = load_counts(str(sample_path("aime25_q06_gpt_oss_20b.json")))
    # `correct` comes before `scores`; the flat list is one question of 80 samples.
    assert (aime.column, aime.counts.n_samples.tolist(), aime.counts.n_correct.tolist()) == (
        "correct", [80], [32])


def test_default_columns_are_searched_in_order(tmp_path):
    assert OUTCOME_COLUMNS == ("outcomes", "correct", "scores")
    path = tmp_path / "r.jsonl"
    path.write_text('{"scores": [0, 0], "correct": [1, 1]}\n')
    assert load_counts(str(path)).column == "correct"
    assert load_counts(str(path), column="scores").counts.n_correct.tolist() == [0]


BAD_LINES = [
    ('{"outcomes": [1, 0.5]}', "got outcomes[1]=0.5"),
    ('{"outcomes": [1, 2]}', "got outcomes[1]=2"),
    ('{"outcomes": [1, "1"]}', "got outcomes[1]='1' (str)"),
    ('{"outcomes": [1, null]}', "got outcomes[1]=None"),
    ('{"outcomes": []}', "empty list"),
    ('{"outcomes": 1}', "must be a list of outcomes; got 1 (int)"),
    ('{"other": [1]}', "no `outcomes` field"),
    ('{"outcomes": [1, 0]', "not valid JSON"),
    ('"text"', "expected an object"),
]


@pytest.mark.parametrize("bad,problem", BAD_LINES)
@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_an_unreadable_row_names_file_line_and_problem(tmp_path, bad, problem, chunk_size):
    path = tmp_path / "bad.jsonl"
    good = '{"outcomes": [1, 0, 1]}'
    path.write_text("\n".join([good, good, "", good, bad, good]) + "\n")
    with pytest.raises(ReportError) as caught:
        load_counts(str(path), chunk_size=chunk_size)
    message = str(caught.value)
    assert message.startswith(f"{path}: line 5: ")
    assert problem in message
    assert "\n" not in message


def test_skip_bad_leaves_out_and_lists_every_unreadable_row(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = ['{"outcomes": [1, 1]}', '{"outcomes": [1, 7]}', "{oops", '{"outcomes": [0, 1, 1]}',
             '{"outcomes": []}', '{"outcomes": [0]}']
    path.write_text("\n".join(lines) + "\n")
    for chunk_size in (1, 2, 4, 100):
        loaded = load_counts(str(path), chunk_size=chunk_size, skip_bad=True)
        assert loaded.counts.n_samples.tolist() == [2, 3, 1]
        assert loaded.counts.n_correct.tolist() == [2, 2, 0]
        assert [where for where, _ in loaded.bad_rows] == ["line 2", "line 3", "line 5"]


def test_skip_bad_with_nothing_readable_is_an_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"outcomes": [3]}\n{"outcomes": [4]}\n')
    with pytest.raises(ReportError, match="no readable question; all 2 rows are bad"):
        load_counts(str(path), skip_bad=True)


def test_bad_rows_in_columnar_formats_name_the_row(tmp_path):
    parquet = write_parquet(tmp_path / "r.parquet", [[1, 0], [1, 1], [0, 1], [1, 5]])
    with pytest.raises(ReportError, match=r"r.parquet: row 4: .*got outcomes\[1\]=5"):
        load_counts(str(parquet), chunk_size=3)
    nulls = write_parquet(tmp_path / "n.parquet", [[1, 0], None, [1]])
    with pytest.raises(ReportError, match=r"row 2: `outcomes` is missing"):
        load_counts(str(nulls))
    empty = write_parquet(tmp_path / "e.parquet", [[1, 0], [1], []])
    with pytest.raises(ReportError, match=r"row 3: `outcomes` is an empty list"):
        load_counts(str(empty))
    matrix = tmp_path / "m.npy"
    np.save(matrix, np.array([[1, 0], [0, 0], [1, -1]]))
    with pytest.raises(ReportError, match=r"m.npy: row 3: .*got outcomes\[1\]=-1"):
        load_counts(str(matrix), chunk_size=2)


def test_csv_lines_count_the_header_and_quoted_newlines(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text('note,correct\n"two\nlines","[1, 1]"\nok,"[1, x]"\n')
    with pytest.raises(ReportError, match=r"r.csv: line 4: cannot read 'x'"):
        load_counts(str(path))


def test_json_records_report_the_line_where_the_record_starts(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('[\n  {"outcomes": [1, 0]},\n  {"outcomes":\n    [1, 0.25]}\n]\n')
    with pytest.raises(ReportError, match=r"r.json: line 3: .*got outcomes\[1\]=0.25"):
        load_counts(str(path))


@pytest.mark.parametrize("setup,problem", [
    (lambda tmp: tmp / "missing.jsonl", "no such file or directory"),
    (lambda tmp: _text(tmp / "empty.jsonl", ""), "the file is empty"),
    (lambda tmp: _text(tmp / "blank.jsonl", "\n\n"), "the file holds no questions"),
    (lambda tmp: _text(tmp / "r.txt", "[1]"), "unknown file type '.txt'"),
    (lambda tmp: _text(tmp / "r.json", "[1, 0"), "line 1: not valid JSON"),
    (lambda tmp: _text(tmp / "r.jsonl", '{"task": 1, "ok": [1]}\n'),
     "line 1: no outcome column (looked for `outcomes`, `correct`, `scores`); the columns are "
     "`task`, `ok`; choose one with --column NAME"),
    (lambda tmp: _text(tmp / "r.csv", "a,b\n1,2\n"), "line 1: no outcome column"),
    (lambda tmp: _text(tmp / "r.csv", "\n"), "no header"),
    (lambda tmp: (tmp / "plain").mkdir() or tmp / "plain", "not a saved datasets dataset"),
    (lambda tmp: _bytes(tmp / "latin.jsonl", b'{"outcomes": [1]}\n{"x\xff": [1]}\n'),
     "line 2: not UTF-8 text"),
])
def test_unusable_files_raise_one_line_errors_naming_the_file(tmp_path, setup, problem):
    path = setup(tmp_path)
    with pytest.raises(ReportError) as caught:
        load_counts(str(path))
    assert str(caught.value).startswith(str(path) + ": ")
    assert problem in str(caught.value)


def test_wrong_column_and_wrong_types_are_refused(tmp_path):
    jsonl = write_jsonl(tmp_path / "r.jsonl", RAGGED)
    with pytest.raises(ReportError, match=r"line 1: no column `correct`; the columns are `id`, "
                                          r"`outcomes`"):
        load_counts(str(jsonl), column="correct")
    parquet = write_parquet(tmp_path / "r.parquet", RAGGED)
    with pytest.raises(ReportError, match="no column `nope`"):
        load_counts(str(parquet), column="nope")
    with pytest.raises(ReportError, match="column `id` has type int64; expected one list"):
        load_counts(str(parquet), column="id")
    strings = write_parquet(tmp_path / "s.parquet", [["1", "0"]])
    with pytest.raises(ReportError, match="lists of string"):
        load_counts(str(strings))
    matrix = tmp_path / "m.npy"
    np.save(matrix, np.ones((2, 3)))
    with pytest.raises(ReportError, match="no columns; drop --column"):
        load_counts(str(matrix), column="outcomes")
    np.save(matrix, np.ones(3))
    with pytest.raises(ReportError, match=r"expected a 2-D array .* shape \(3,\)"):
        load_counts(str(matrix))
    np.save(matrix, np.array([[1, 0], [1]], dtype=object), allow_pickle=True)
    with pytest.raises(ReportError, match="holds Python objects"):
        load_counts(str(matrix))


def test_dataset_dict_with_one_split_is_read_and_with_several_asks_for_one(tmp_path):
    import datasets

    one = datasets.DatasetDict({"test": datasets.Dataset.from_dict({"outcomes": RAGGED})})
    one.save_to_disk(str(tmp_path / "one"))
    assert loaded_counts(tmp_path / "one") == counts_of(RAGGED)
    two = datasets.DatasetDict({"a": one["test"], "b": one["test"]})
    two.save_to_disk(str(tmp_path / "two"))
    with pytest.raises(ReportError, match="splits a, b; pass one split's directory"):
        load_counts(str(tmp_path / "two"))
    assert loaded_counts(tmp_path / "two" / "b") == counts_of(RAGGED)


def test_shortest_question_is_located_for_messages(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", RAGGED)
    for chunk_size in (1, 2, 100):
        loaded = load_counts(str(path), chunk_size=chunk_size)
        assert (loaded.n_min, loaded.shortest) == (1, "line 4")


def test_reading_streams_so_memory_does_not_grow_with_the_file(tmp_path):
    rows, samples = 20000, 64
    path = tmp_path / "big.jsonl"
    rng = np.random.default_rng(0)
    matrix = rng.integers(0, 2, size=(rows, samples))
    with path.open("w") as handle:
        for row in matrix.tolist():
            handle.write(json.dumps({"outcomes": row}) + "\n")
    tracemalloc.start()
    try:
        loaded = load_counts(str(path), chunk_size=500)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert loaded.counts.n_correct.tolist() == matrix.sum(axis=1).tolist()
    # Holding the rows as Python lists would take well over 10 MB; counts take 320 kB.
    assert peak < 3_000_000, peak


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.lists(st.booleans(), min_size=1, max_size=9), min_size=1, max_size=30),
       chunk_size=st.integers(1, 8))
def test_jsonl_counts_equal_row_sums_for_any_chunking(tmp_path_factory, rows, chunk_size):
    path = tmp_path_factory.mktemp("h") / "r.jsonl"
    write_jsonl(path, [[int(v) for v in row] for row in rows])
    assert loaded_counts(path, chunk_size=chunk_size) == counts_of(rows)


@pytest.mark.parametrize("cell,expected", [
    ("[1, 0, 1]", [1, 0, 1]),
    ("(True, False)", [True, False]),
    ("1 0;1|0,1", [1, 0, 1, 0, 1]),
    ("[1.0, 0.0]", [1.0, 0.0]),
    ("0.5", [0.5]),
])
def test_csv_cells_are_read_without_guessing(cell, expected):
    assert parse_cell(cell) == expected


@pytest.mark.parametrize("cell,problem", [
    ("", "empty"), ("[1, 0", "unbalanced"), ("[1, yes]", "cannot read 'yes'"),
    ("1 nan", "cannot read 'nan'"), ("[inf]", "cannot read 'inf'"),
])
def test_unreadable_csv_cells_say_why(cell, problem):
    result = parse_cell(cell)
    assert not isinstance(result, list)
    assert problem in result.problem


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_draws_only_on_a_terminal(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", RAGGED * 50)
    terminal, pipe = _Terminal(), io.StringIO()
    load_counts(str(path), chunk_size=10, progress=Progress("reading r", terminal))
    load_counts(str(path), chunk_size=10, progress=Progress("reading r", pipe))
    drawn = terminal.getvalue()
    assert "reading r [" in drawn and "100%" in drawn and drawn.endswith("\r\033[K")
    assert pipe.getvalue() == ""
