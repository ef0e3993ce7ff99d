"""Long files (one row per sample) grouped by question id, in every format kpass reads."""

import csv
import gzip
import json
import random

import numpy as np
import pytest

import kpass
from kpass.io.errors import ReportError
from kpass.io.formats.readers import load_counts
from kpass.io.long.load import load_long
from kpass.report.cli import main

# question id -> outcomes (different numbers of samples)
GROUPED = {"q1": [1, 0, 1, 1], "q2": [0, 0], "q3": [1, 1, 1, 1, 1, 0], "7": [0, 1, 0]}


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def long_rows(seed=0):
    rows = [{"qid": q, "sample": j, "correct": v} for q, values in GROUPED.items()
            for j, v in enumerate(values)]
    random.Random(seed).shuffle(rows)
    return rows


def write(path, rows):
    """Write rows in the format of ``path``'s suffix (the writers of csv, json, pyarrow)."""
    name = path.name
    opener = gzip.open if name.endswith(".gz") else open
    if ".csv" in name or ".tsv" in name:
        with opener(path, "wt", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]),
                                    delimiter="\t" if ".tsv" in name else ",")
            writer.writeheader()
            writer.writerows(rows)
    elif ".jsonl" in name:
        with opener(path, "wt") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
    elif ".json" in name:
        with opener(path, "wt") as handle:
            json.dump(rows, handle, indent=1)
    elif name.endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=3)
    else:
        datasets = pytest.importorskip("datasets")
        datasets.Dataset.from_list(rows).save_to_disk(str(path))
    return path


FORMATS = ["l.csv", "l.tsv", "l.csv.gz", "l.jsonl", "l.jsonl.gz", "l.json", "l.parquet", "l_ds"]


def expected_for(order):
    """The core on the grouped lists, in the order the ids first appear."""
    counts = kpass.binary_counts([GROUPED[q] for q in order])
    return counts.n_samples.tolist(), counts.n_correct.tolist()


def first_seen(rows):
    return list(dict.fromkeys(str(r["qid"]) for r in rows))


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("chunk", [2, 65536])
def test_every_format_equals_the_core_on_grouped_lists(tmp_path, name, chunk):
    rows = long_rows(seed=len(name))
    path = write(tmp_path / name, rows)
    loaded = load_long(str(path), id="qid", sample="sample", chunk_size=chunk)
    order = first_seen(rows)
    assert [str(i) for i in loaded.counts.ids] == order
    n, c = expected_for(order)
    assert loaded.counts.n_samples.tolist() == n and loaded.counts.n_correct.tolist() == c
    # metrics equal the core on the grouped lists
    lists = [GROUPED[q] for q in order]
    assert kpass.pass_at_k(loaded.counts, 2) == pytest.approx(kpass.pass_at_k(lists, 2),
                                                                abs=1e-15)


def test_text_integer_ids_match_json_integers(tmp_path):
    rows = long_rows()
    from_csv = load_long(str(write(tmp_path / "a.csv", rows)), id="qid")
    from_jsonl = load_long(str(write(tmp_path / "a.jsonl", rows)), id="qid")
    assert from_csv.counts.ids == from_jsonl.counts.ids
    assert 7 in from_csv.counts.ids  # "7" in CSV is the integer id 7


def test_cli_long_report_equals_wide_report(tmp_path, capsys):
    long_path = write(tmp_path / "long.csv", long_rows())
    wide_path = tmp_path / "wide.jsonl"
    wide_path.write_text("".join(json.dumps({"outcomes": v}) + "\n" for v in GROUPED.values()))
    args = ["--k", "1,2", "--format", "json", "--short", "skip"]
    code, out_long, err = run(capsys, "report", long_path, "--id", "qid", "--sample", "sample",
                              *args)
    assert code == 0, err
    code, out_wide, err = run(capsys, "report", wide_path, *args)
    assert code == 0, err
    assert json.loads(out_long)["results"][0]["estimate"] == pytest.approx(
        json.loads(out_wide)["results"][0]["estimate"], abs=1e-15)
    assert ([r["estimate"] for r in json.loads(out_long)["results"]]
            == pytest.approx([r["estimate"] for r in json.loads(out_wide)["results"]], abs=1e-12))


@pytest.mark.parametrize("name,where", [("d.csv", ("line 3", "line 5")),
                                        ("d.jsonl", ("line 2", "line 4")),
                                        ("d.parquet", ("row 2", "row 4"))])
def test_repeated_id_sample_pair_names_both_lines(tmp_path, name, where):
    rows = [{"qid": "a", "sample": 0, "correct": 1}, {"qid": "a", "sample": 1, "correct": 0},
            {"qid": "b", "sample": 0, "correct": 1}, {"qid": "a", "sample": 1, "correct": 1}]
    path = write(tmp_path / name, rows)
    with pytest.raises(ReportError) as error:
        load_long(str(path), id="qid", sample="sample")
    message = str(error.value)
    assert where[0] in message and where[1] in message and "'a'" in message


@pytest.mark.parametrize("name", ["s.csv", "s.tsv", "s.jsonl", "s.json", "s.parquet", "s_ds"])
def test_scalar_cells_without_id_are_refused_naming_id(tmp_path, capsys, name):
    path = write(tmp_path / name, long_rows())
    capsys.readouterr()  # the datasets writer's progress bar
    code, out, err = run(capsys, "report", path, "--k", "1")
    assert code == 1 and out == ""
    assert "--id" in err and err.count("\n") == 1
    with pytest.raises(ReportError, match="--id"):
        load_counts(str(path))


def test_wide_file_with_id_column(tmp_path):
    path = tmp_path / "w.jsonl"
    path.write_text('{"task": "x", "outcomes": [1, 0]}\n{"task": 3, "outcomes": [1, 1, 1]}\n')
    loaded = load_long(str(path), id="task")
    assert loaded.counts.ids == ("x", 3)
    assert loaded.counts.n_samples.tolist() == [2, 3]
    path.write_text('{"task": "x", "outcomes": [1, 0]}\n{"task": "x", "outcomes": [1]}\n')
    with pytest.raises(ReportError, match="line 1 and line 2"):
        load_long(str(path), id="task")


def test_missing_columns_and_bad_values(tmp_path):
    path = write(tmp_path / "m.csv", long_rows())
    with pytest.raises(ReportError, match="no column `nope`"):
        load_long(str(path), id="nope")
    path.write_text("qid,correct\na,1\na,2\n")
    with pytest.raises(ReportError, match="line 3.*not binary"):
        load_long(str(path), id="qid")
    path.write_text("qid,correct\na,1\n,0\n")
    with pytest.raises(ReportError, match="line 3.*id is empty"):
        load_long(str(path), id="qid")


def test_shards_merge_by_id(tmp_path):
    rows = long_rows(seed=3)
    half = len(rows) // 2
    first = load_long(str(write(tmp_path / "a.jsonl", rows[:half])), id="qid")
    second = load_long(str(write(tmp_path / "b.parquet", rows[half:])), id="qid")
    merged = kpass.BinaryCounts.concat([first.counts, second.counts])
    whole = load_long(str(write(tmp_path / "all.jsonl", rows)), id="qid")
    assert merged.ids == whole.counts.ids
    assert np.array_equal(merged.n_samples, whole.counts.n_samples)
    assert np.array_equal(merged.n_correct, whole.counts.n_correct)


def test_compare_matches_a_long_file_and_a_wide_file_by_id(tmp_path, capsys):
    long_path = tmp_path / "a.csv"
    long_path.write_text("qid,correct\nb,1\na,0\nb,1\na,1\nc,0\nc,0\n")
    wide_path = tmp_path / "b.jsonl"
    wide_path.write_text('{"qid": "a", "correct": [1, 1]}\n{"qid": "c", "correct": [1, 0]}\n'
                         '{"qid": "b", "correct": [0, 0]}\n')
    code, out, err = run(capsys, "compare", long_path, wide_path, "--id", "qid", "--k", "1",
                         "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    line = document["results"][0] if "results" in document else document["lines"][0]
    # by id: a: 1/2 - 1, b: 1 - 0, c: 0 - 1/2 -> mean difference 0; by row order it would not be
    assert line["difference"] == pytest.approx(0.0, abs=1e-12)
    per_q = np.array([0.5 - 1.0, 1.0 - 0.0, 0.0 - 0.5])
    assert line["se"] == pytest.approx(per_q.std(ddof=1) / np.sqrt(3), abs=1e-12)


def test_skip_bad_is_refused_with_id(tmp_path, capsys):
    path = write(tmp_path / "l.csv", long_rows())
    code, _, err = run(capsys, "report", path, "--id", "qid", "--skip-bad")
    assert code == 1 and "--skip-bad" in err and err.count("\n") == 1


@pytest.mark.parametrize("chunk", [1, 3, 65536])
def test_numpy_chunks_and_the_row_loop_agree(tmp_path, chunk):
    rows = long_rows(seed=9)
    numeric = load_long(str(write(tmp_path / "n.csv", rows)), id="qid", chunk_size=chunk)
    # `true`/`false` cells are counted by the row loop, numbers by numpy
    spelled = [dict(r, correct="true" if r["correct"] else "false") for r in rows]
    text = load_long(str(write(tmp_path / "t.csv", spelled)), id="qid", chunk_size=chunk)
    mixed = [dict(r, correct="true") if i % 4 == 0 and r["correct"] else r
             for i, r in enumerate(rows)]
    both = load_long(str(write(tmp_path / "m.csv", mixed)), id="qid", chunk_size=chunk)
    for other in (text, both):
        assert other.counts.ids == numeric.counts.ids
        assert other.counts.n_samples.tolist() == numeric.counts.n_samples.tolist()
        assert other.counts.n_correct.tolist() == numeric.counts.n_correct.tolist()


@pytest.mark.parametrize("name", ["bad.csv.gz", "bad.jsonl.gz", "bad.parquet"])
def test_unreadable_files_are_one_line_with_id(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_bytes(b"qid,correct\na,1\n" if "gz" in name else b"PAR1 not parquet")
    code, out, err = run(capsys, "report", path, "--id", "qid")
    assert code == 1 and out == "" and err.count("\n") == 1 and name in err
