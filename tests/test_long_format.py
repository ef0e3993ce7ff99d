"""Long outcome files (one row per sample, question ids): every format, shuffled rows, grouped by
id, equal to the core on the grouped lists; repeated (id, sample) pairs and files of bare scalars
without --id refused."""

import csv
import gzip
import json

import numpy as np
import pytest

import kpass
from kpass.cli import main

RNG = np.random.default_rng(10)
QUESTIONS = {f"q{i}": RNG.integers(0, 2, size=int(RNG.integers(2, 7))).tolist()
             for i in range(12)}  # ids with different sample counts
ROWS = [(q, s, v) for q, values in QUESTIONS.items() for s, v in enumerate(values)]
ORDER = RNG.permutation(len(ROWS))
SHUFFLED = [ROWS[i] for i in ORDER]


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def grouped_in_first_seen_order():
    seen = []
    for q, _, _ in SHUFFLED:
        if q not in seen:
            seen.append(q)
    return seen, [QUESTIONS[q] for q in seen]


def write(path, fmt):
    records = [{"question_id": q, "sample": s, "correct": v} for q, s, v in SHUFFLED]
    if fmt in ("csv", "tsv", "csv.gz"):
        delimiter = "\t" if fmt == "tsv" else ","
        opener = gzip.open if fmt.endswith(".gz") else open
        with opener(path, "wt", newline="") as handle:
            writer = csv.DictWriter(handle, ["question_id", "sample", "correct"],
                                    delimiter=delimiter)
            writer.writeheader()
            writer.writerows(records)
    elif fmt in ("jsonl", "jsonl.gz"):
        opener = gzip.open if fmt.endswith(".gz") else open
        with opener(path, "wt") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in records)
    elif fmt == "json":
        path.write_text(json.dumps(records))
    elif fmt == "json-columns":
        path.write_text(json.dumps({k: [r[k] for r in records] for k in records[0]}))
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(records), path)
    elif fmt == "datasets":
        import datasets

        datasets.Dataset.from_list(records).save_to_disk(str(path))
    return path


FORMATS = {"csv": "runs.csv", "tsv": "runs.tsv", "csv.gz": "runs.csv.gz", "jsonl": "runs.jsonl",
           "jsonl.gz": "runs.jsonl.gz", "json": "runs.json", "json-columns": "cols.json",
           "parquet": "runs.parquet", "datasets": "runs_dataset"}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_in_long_form_equals_the_core_on_grouped_lists(tmp_path, capsys, fmt):
    path = write(tmp_path / FORMATS[fmt], fmt)
    code, out, err = run(capsys, "report", path, "--id", "question_id", "--sample", "sample",
                         "--k", "1,2", "--metrics", "pass@k,pass^k", "--format", "json")
    assert code == 0, err
    _, lists = grouped_in_first_seen_order()
    results = {(r["metric"], r["k"]): r for r in json.loads(out)["results"]}
    for (metric, point) in (("pass@k", kpass.pass_at_k), ("pass^k", kpass.pass_hat_k)):
        for k in (1, 2):
            assert results[(metric, k)]["estimate"] == pytest.approx(point(lists, k), rel=1e-12)
            assert results[(metric, k)]["se"] == pytest.approx(
                kpass.standard_error(point, lists, k), rel=1e-12)
    assert json.loads(out)["inputs"][0]["questions"] == len(QUESTIONS)


def test_load_long_keeps_ids_and_rows_may_hold_several_samples(tmp_path):
    from kpass.io.long import load_long

    path = tmp_path / "mixed.jsonl"
    path.write_text('{"id": "a", "correct": [1, 0]}\n{"id": "b", "correct": true}\n'
                    '{"id": "a", "correct": 1}\n')
    loaded = load_long(str(path), "id")
    assert loaded.counts.ids == ("a", "b")
    assert loaded.counts.n_samples.tolist() == [3, 1]
    assert loaded.counts.n_correct.tolist() == [2, 1]


def test_a_repeated_id_and_sample_names_both_lines(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("question_id,sample,correct\nq1,0,1\nq2,0,0\nq1,0,0\n")
    code, out, err = run(capsys, "report", path, "--id", "question_id", "--sample", "sample")
    assert code == 1 and out == ""
    assert err.strip() == ("kpass report: error: " + str(path) + ": question 'q1', sample '0' "
                           "appears twice: line 2 and line 4")


@pytest.mark.parametrize("name, text", [
    ("long.csv", "question_id,correct\nq1,1\nq1,0\nq2,1\n"),
    ("long.jsonl", '{"question_id": "q1", "correct": 1}\n{"question_id": "q1", "correct": 0}\n'),
])
def test_bare_scalar_outcomes_without_id_are_refused_naming_id(tmp_path, capsys, name, text):
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run(capsys, "report", path)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "--id COLUMN" in err


def test_bad_long_rows_are_located(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("question_id,correct\nq1,1\nq1,0.5\n")
    code, _, err = run(capsys, "report", path, "--id", "question_id")
    assert code == 1 and "line 3" in err and "binary outcomes 0 or 1" in err
    code, _, err = run(capsys, "report", path, "--sample", "s")
    assert code == 2 and "--sample goes with --id" in err
