"""Nested column paths and harness files (lm-eval, lighteval, OpenCompass).

The harness fixtures under tests/fixtures/<tool>/ were written by the tools themselves
(see each README there). Expected values are computed here from the raw files with the
standard library only, independently of kpass' reader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kpass.families.pass_at_k import pass_at_k
from kpass.io.errors import ReportError
from kpass.io.formats.nested import get_path, path_records, read_rows
from kpass.io.harness.load import detect_harness, group_counts, harness_records, load_harness
from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures"
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
    report = json.loads(capsys.readouterr().out)
    assert pass_at_k([[1, 0, 1], [0, 0, 1]], 1) in _numbers(report)


def test_path_records_keep_sample_order():
    rows = [("line 1", {"m": [True, False, True]})]
    counts, _ = group_counts(path_records(rows, "m", "x"), "x")
    assert _lists(counts) == [(3, 2)]


def test_read_rows_json_object_is_one_row(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"details": {"0": {"correct": [True]}}}))
    assert list(read_rows(str(path))) == [("the document", {"details": {"0": {"correct": [True]}}})]
    assert detect_harness(str(path)) == "opencompass"


# ----------------------------------------------------------------------------- real fixtures


def _lm_eval_file(task: str) -> Path:
    (path,) = LM_EVAL.glob(f"samples_{task}_*.jsonl")
    return path


def _hand_lm_eval(path: Path, metric: str, filter_name: str) -> dict[int, list[int]]:
    """Per-document outcomes straight from the raw JSONL (stdlib only)."""
    expected: dict[int, list[int]] = {}
    with path.open() as stream:
        for line in stream:
            row = json.loads(line)
            if row["filter"] == filter_name:
                expected.setdefault(row["doc_id"], []).append(int(row[metric]))
    return expected


@pytest.mark.parametrize(("task", "metric", "filter_name"), [
    ("kp_gen", "exact_match", "maj@4"), ("kp_gen", "exact_match", "first"),
    ("kp_mc", "acc", "none")])
def test_lm_eval_fixture_matches_hand_count(task, metric, filter_name):
    path = _lm_eval_file(task)
    expected = _hand_lm_eval(path, metric, filter_name)
    several = task == "kp_gen"
    counts, ids, _ = load_harness(str(path), "lm-eval", None,
                                  filter_name if several else None)
    assert ids == list(expected)
    assert _lists(counts) == [(len(v), sum(v)) for v in expected.values()]
    # the same with the metric named and the tool detected from the file
    detected, _, _ = load_harness(str(path), None, metric, filter_name)
    assert _lists(detected) == _lists(counts)
    assert detect_harness(str(path)) == "lm-eval"


def test_lm_eval_several_filters_need_a_choice():
    path = _lm_eval_file("kp_gen")
    with pytest.raises(ReportError, match=r"2 filters \(maj@4, first\).*--filter"):
        load_harness(str(path), "lm-eval")
    with pytest.raises(ReportError, match="`--filter vote` is not in the file"):
        load_harness(str(path), "lm-eval", None, "vote")


def test_lm_eval_missing_metric_names_fields():
    with pytest.raises(ReportError, match=r"no field `f1`.*`doc_id`.*`acc`"):
        load_harness(str(_lm_eval_file("kp_mc")), "lm-eval", "f1")


def test_cli_reads_lm_eval_file(capsys):
    path = _lm_eval_file("kp_mc")
    expected = _hand_lm_eval(path, "acc", "none")
    # detected without --from: the plain reader finds no outcome column, the harness does
    assert main(["report", str(path), "--k", "1", "--metrics", "pass", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    want = pass_at_k(list(expected.values()), 1)
    assert want in _numbers(report)
    assert main(["report", str(_lm_eval_file("kp_gen")), "--from", "lm-eval", "--filter",
                 "maj@4", "--k", "1", "--format", "json"]) == 0
    gen = _hand_lm_eval(_lm_eval_file("kp_gen"), "exact_match", "maj@4")
    assert pass_at_k(list(gen.values()), 1) in _numbers(json.loads(capsys.readouterr().out))


def _numbers(node) -> list[float]:
    """Every number in a JSON report, to look a value up wherever the layout puts it."""
    if isinstance(node, dict):
        return [x for value in node.values() for x in _numbers(value)]
    if isinstance(node, list):
        return [x for value in node for x in _numbers(value)]
    return [node] if isinstance(node, (int, float)) and not isinstance(node, bool) else []


def test_compare_matches_harness_files_by_question_id(tmp_path, capsys):
    path = _lm_eval_file("kp_mc")
    lines = path.read_text().splitlines()
    shuffled = tmp_path / "samples_kp_mc_shuffled.jsonl"
    shuffled.write_text("\n".join(reversed(lines)) + "\n")
    assert main(["compare", str(path), str(shuffled), "--from", "lm-eval", "--k", "1",
                 "--metrics", "pass", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched_by"] == "question id"
    records = report["results"]
    expected = pass_at_k(list(_hand_lm_eval(path, "acc", "none").values()), 1)
    (line,) = [r for r in records if r["metric"].lower().startswith("pass@")]
    assert line["a"] == pytest.approx(expected) and line["b"] == pytest.approx(expected)
    assert line["difference"] == 0


LIGHTEVAL = FIXTURES / "lighteval"


def _hand_lighteval(path: Path, metric: str) -> dict[str, list[int]]:
    """Per-document outcomes from the raw Parquet rows (pyarrow only, no kpass)."""
    expected: dict[str, list[int]] = {}
    for row in pq.read_table(path).to_pylist():
        # ids by the documented rule: integer text is the integer ("7" and 7 are one question)
        doc_id = row["doc"]["id"]
        doc_id = int(doc_id) if re.fullmatch(r"-?(0|[1-9][0-9]*)", doc_id.strip()) else doc_id
        expected.setdefault(doc_id, []).append(int(row["metric"][metric]))
    return expected


@pytest.mark.parametrize(("task", "metric"), [("kp_mc", "acc"), ("kp_gen", "em")])
def test_lighteval_fixture_matches_hand_count(task, metric):
    (path,) = LIGHTEVAL.glob(f"details_{task}_*.parquet")
    expected = _hand_lighteval(path, metric)
    assert detect_harness(str(path)) == "lighteval"
    for tool, column in [("lighteval", None), ("lighteval", metric), (None, f"metric.{metric}")]:
        counts, ids, _ = load_harness(str(path), tool, column)
        by_id = dict(zip(ids, _lists(counts), strict=True))
        if tool is None:  # a bare path: rows are the questions, in file order
            assert sorted(_lists(counts)) == sorted((len(v), sum(v)) for v in expected.values())
        else:
            assert by_id == {q: (len(v), sum(v)) for q, v in expected.items()}


OPENCOMPASS = FIXTURES / "opencompass" / "kp_tiny.json"


def test_opencompass_fixture_matches_hand_count():
    document = json.loads(OPENCOMPASS.read_text())
    expected = {d["example_abbr"]: [int(c) for c in d["correct"]] for d in document["details"]}
    assert detect_harness(str(OPENCOMPASS)) == "opencompass"
    for tool, column in [("opencompass", None), ("opencompass", "correct")]:
        counts, ids, _ = load_harness(str(OPENCOMPASS), tool, column)
        assert ids == list(expected)
        assert _lists(counts) == [(len(v), sum(v)) for v in expected.values()]
    counts, _, _ = load_harness(str(OPENCOMPASS), None, "details[].correct")
    assert _lists(counts) == [(len(v), sum(v)) for v in expected.values()]
    # OpenCompass's own G-Pass@k_0.0 is Pass@k (in percent): an independent oracle
    for k in (1, 2):
        assert pass_at_k(list(expected.values()), k) == pytest.approx(
            document[f"G-Pass@{k}_0.0"] / 100)


def test_cli_reads_opencompass_file(capsys):
    assert main(["report", str(OPENCOMPASS), "--k", "2", "--metrics", "pass", "--format",
                 "json"]) == 0
    document = json.loads(OPENCOMPASS.read_text())
    want = pytest.approx(document["G-Pass@2_0.0"] / 100)  # OpenCompass's Pass@2
    assert any(x == want for x in _numbers(json.loads(capsys.readouterr().out)))


@pytest.mark.parametrize(("name", "data"), [("bad.jsonl", b"\xff\xfe{not json"),
                                            ("bad.parquet", b"PAR1 not really"),
                                            ("bad.json.gz", b"not gzip")])
def test_broken_files_give_one_line_errors(tmp_path, capsys, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    for extra in ([], ["--from", "lm-eval"], ["--column", "a.b"]):
        assert main(["report", str(path), *extra]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err


def test_parquet_harness_probe_reads_only_the_schema(tmp_path, monkeypatch):
    # A long Parquet file is probed for a harness only when its columns include lm-eval's
    # `doc_id` or lighteval's `metric`: the real lighteval details still are (and load as
    # lighteval), a plain long table is not (the probe used to decode a whole batch).
    from kpass.io.long import load as long_module

    (details,) = LIGHTEVAL.glob("details_kp_mc_*.parquet")
    assert long_module._may_be_harness(details, "parquet")
    probed = []
    import kpass.io.harness.load as harness_module  # _load_long imports it from its home

    original = harness_module.detect_harness

    def spy(source):
        probed.append(source)
        return original(source)

    monkeypatch.setattr(harness_module, "detect_harness", spy)
    plain = tmp_path / "long.parquet"
    pq.write_table(pa.table({"q": ["a", "b", "a"], "ok": [1, 0, 1]}), plain)
    assert not long_module._may_be_harness(plain, "parquet")
    loaded = long_module.load_long(str(plain), id="q", column="ok")
    assert loaded.counts.n_samples.tolist() == [2, 1] and probed == []
    with_doc_id = tmp_path / "samples.parquet"
    pq.write_table(pa.table({"doc_id": [0, 1], "ok": [1, 0]}), with_doc_id)
    assert long_module._may_be_harness(with_doc_id, "parquet")
    long_module.load_long(str(with_doc_id), id="doc_id", column="ok")
    assert probed == [str(with_doc_id)]
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    assert long_module._may_be_harness(bad, "parquet")  # the probe and reader say why
