"""Nested column paths and harness files (lm-eval, lighteval, OpenCompass).

The harness fixtures under tests/fixtures/<tool>/ were written by the tools themselves
(see each README there). Expected values are computed here from the raw files with the
standard library only, independently of kpass' reader.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kpass import pass_at_k
from kpass.cli import main
from kpass.io.harness import (
    ReportError,
    detect_harness,
    get_path,
    group_counts,
    harness_records,
    load_harness,
    path_records,
    read_rows,
)

FIXTURES = Path(__file__).parent / "fixtures"
LM_EVAL = FIXTURES / "lm-eval"

ROWS = [
    {"qid": "a", "metrics": {"correct": [1, 0, 1]}, "details": [{"correct": [1, 1]},
                                                               {"correct": [0, 0]}]},
    {"qid": "b", "metrics": {"correct": [0, 0, 1]}, "details": [{"correct": [1, 0]}]},
]


def _lists(counts) -> list[tuple[int, int]]:
    return list(zip(counts.n_samples.tolist(), counts.n_correct.tolist(), strict=True))


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture(params=["jsonl", "parquet"])
def nested_file(request, tmp_path) -> Path:
    if request.param == "jsonl":
        return _write_jsonl(tmp_path / "nested.jsonl", ROWS)
    path = tmp_path / "nested.parquet"
    table = pa.Table.from_pylist(ROWS)
    assert pa.types.is_struct(table.schema.field("metrics").type)  # a real struct column
    pq.write_table(table, path)
    return path


def test_dotted_path_into_structs(nested_file):
    counts, ids, _ = load_harness(str(nested_file), None, "metrics.correct")
    assert _lists(counts) == [(3, 2), (3, 1)]
    assert len(ids) == 2


def test_records_list_path(nested_file):
    counts, ids, _ = load_harness(str(nested_file), None, "details[].correct")
    assert _lists(counts) == [(2, 2), (2, 0), (2, 1)]
    assert [i.split()[-1] for i in ids] == ["details[0]", "details[1]", "details[0]"]


def test_dotted_path_in_datasets_folder(tmp_path):
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_list(ROWS).save_to_disk(str(tmp_path / "ds"))
    counts, _, _ = load_harness(str(tmp_path / "ds"), None, "metrics.correct")
    assert _lists(counts) == [(3, 2), (3, 1)]


def test_missing_path_names_path_and_keys(nested_file):
    with pytest.raises(ReportError) as error:
        load_harness(str(nested_file), None, "metrics.score")
    message = str(error.value)
    assert "metrics.score" in message and "`correct`" in message
    assert "line 1" in message or "row 0" in message


def test_records_path_on_a_scalar_is_refused():
    with pytest.raises(ReportError, match=r"`qid\[\]` .* must be a list of records"):
        get_path(ROWS[0], "qid[].x")


@pytest.mark.parametrize("bad", ["metrics..correct", "details[0].correct", ".x"])
def test_malformed_path(bad):
    with pytest.raises(ReportError, match="is not a column path"):
        get_path(ROWS[0], bad)


def test_duplicate_question_sample_names_both_places(tmp_path):
    path = _write_jsonl(tmp_path / "samples_t.jsonl", [
        {"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0},
        {"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 0.0}])
    with pytest.raises(ReportError, match="appears twice: at line 1 and at line 2"):
        load_harness(str(path), "lm-eval")


def test_non_binary_value_is_located(tmp_path):
    path = _write_jsonl(tmp_path / "x.jsonl", [{"m": {"c": [1, 0.5]}}])
    with pytest.raises(ReportError, match="line 1.*got 0.5"):
        load_harness(str(path), None, "m.c")


def test_wrong_from(tmp_path, capsys):
    path = _write_jsonl(tmp_path / "x.jsonl", ROWS)
    with pytest.raises(ReportError, match="`--from helm` is not a harness"):
        harness_records(str(path), "helm")
    assert main(["report", str(path), "--from", "helm"]) != 0
    assert "helm" in capsys.readouterr().err
    # a real harness name on another tool's file: told what is missing, no traceback
    assert main(["report", str(path), "--from", "opencompass"]) != 0
    err = capsys.readouterr().err
    assert "not an OpenCompass results file" in err and "Traceback" not in err


def test_cli_nested_column(nested_file, capsys):
    assert main(["report", str(nested_file), "--column", "metrics.correct", "--k", "1",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    expected = pass_at_k([[1, 0, 1], [0, 0, 1]], 1)
    assert f"{expected:.6f}"[:5] in text or round(expected, 3) == 0.5


def test_path_records_keep_sample_order():
    rows = [("line 1", {"m": [True, False, True]})]
    counts, _ = group_counts(path_records(rows, "m", "x"), "x")
    assert _lists(counts) == [(3, 2)]


def test_read_rows_json_object_is_one_row(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"details": {"0": {"correct": [True]}}}))
    assert list(read_rows(str(path))) == [("the document", {"details": {"0": {"correct": [True]}}})]
    assert detect_harness(str(path)) == "opencompass"
