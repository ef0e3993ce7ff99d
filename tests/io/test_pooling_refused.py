"""Several models are never pooled without a word (issue 38, item 3): a folder of per-model
files and a long file whose `model`/`run` column holds several values are refused, naming
what to do; ``--pool`` reads them as one run on purpose, with the pooled counts."""

from __future__ import annotations

import json

import pytest

from kpass.report.cli import main

A = [[1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1]]
B = [[0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 0, 0]]


def _estimate(out: str, label: str) -> float:
    (row,) = [r for r in json.loads(out)["results"] if r["label"] == label]
    return row["estimate"]


def test_a_folder_of_per_model_files_is_refused(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "gpt-4o.jsonl").write_text("".join(json.dumps({"outcomes": r}) + "\n" for r in A))
    (folder / "llama.jsonl").write_text("".join(json.dumps({"outcomes": r}) + "\n" for r in B))
    for command in (["report", str(folder)], ["leaderboard", str(folder), str(folder)]):
        assert main(command) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "named like separate runs (gpt-4o.jsonl, llama.jsonl)" in err[0]
        assert "--pool" in err[0]
    assert main(["report", str(folder), "--pool", "--k", "1", "--metrics", "pass",
                 "--format", "json"]) == 0
    pooled = sum(sum(r) for r in A + B) / (4 * 6)  # six questions of 4 samples, pooled
    assert _estimate(capsys.readouterr().out, "Pass@1") == pytest.approx(pooled)


def test_parts_named_alike_are_one_table(tmp_path, capsys):
    folder = tmp_path / "parts"
    folder.mkdir()
    for index, rows in enumerate((A, B)):
        (folder / f"part-{index:05d}.jsonl").write_text(
            "".join(json.dumps({"outcomes": r}) + "\n" for r in rows))
    assert main(["report", str(folder), "--k", "1", "--metrics", "pass", "--format",
                 "json"]) == 0
    assert _estimate(capsys.readouterr().out, "Pass@1") == pytest.approx(12 / 24)


@pytest.mark.parametrize("column", ["model", "run"])
@pytest.mark.parametrize("layout", ["interleaved", "blocks"])
def test_a_long_file_with_several_models_is_refused(tmp_path, capsys, column, layout):
    rows = [(f"q{i}", name, x) for name, run in (("a", A), ("b", B))
            for i, outcomes in enumerate(run) for x in outcomes]
    if layout == "blocks":  # model a answered q0-q2, model b answered q3-q5
        rows = [(f"q{i + 3 * (name == 'b')}", name, x) for (i, name, x) in
                [(int(q[1:]), name, x) for q, name, x in rows]]
    path = tmp_path / "long.csv"
    path.write_text(f"id,{column},correct\n" + "".join(f"{q},{m},{x}\n" for q, m, x in rows))
    assert main(["report", str(path), "--id", "id"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"column `{column}` holds several values ('a', 'b')" in err[0]
    assert "--pool" in err[0]
    assert main(["report", str(path), "--id", "id", "--pool", "--k", "1", "--metrics", "pass",
                 "--format", "json"]) == 0
    assert _estimate(capsys.readouterr().out, "Pass@1") == pytest.approx(
        sum(x for _, _, x in rows) / len(rows))


def test_one_model_named_in_a_column_is_one_run(tmp_path, capsys):
    path = tmp_path / "long.csv"
    path.write_text("id,model,correct\n" + "".join(
        f"q{i},gpt,{x}\n" for i, outcomes in enumerate(A) for x in outcomes))
    assert main(["report", str(path), "--id", "id", "--k", "1", "--metrics", "pass",
                 "--format", "json"]) == 0
    assert _estimate(capsys.readouterr().out, "Pass@1") == pytest.approx(sum(map(sum, A)) / 12)


def test_spark_parts_of_two_jobs_are_still_parts(tmp_path, capsys):
    folder = tmp_path / "spark"
    folder.mkdir()
    for index, (job, rows) in enumerate((("1f3a", A), ("9b7c", B))):
        (folder / f"part-{index:05d}-{job}-c000.jsonl").write_text(
            "".join(json.dumps({"outcomes": r}) + "\n" for r in rows))
    assert main(["report", str(folder), "--k", "1", "--metrics", "pass", "--format",
                 "json"]) == 0
    assert _estimate(capsys.readouterr().out, "Pass@1") == pytest.approx(12 / 24)
