"""`kpass leaderboard FILE...`: the ranked tables against kpass.leaderboard on the same
questions (matched by id whatever the row order, long files, shared questions, clusters), every
output format, the forest plot, model names, and one-line errors."""

import csv
import io
import json

import numpy as np
import pytest

import kpass
from kpass.report.cli import main

RNG = np.random.default_rng(2027)
M = 30
DIFFICULTY = RNG.normal(0.0, 1.5, M)
SHIFTS = {"small": -0.6, "medium": 0.0, "large": 0.8}
RUNS = {name: (RNG.random((M, 4)) < 1 / (1 + np.exp(-(DIFFICULTY[:, None] + shift))))
        .astype(int) for name, shift in SHIFTS.items()}
IDS = [f"q{i:02d}" for i in range(M)]


def write_wide(path, rows, order=None, topics=False):
    order = range(len(rows)) if order is None else order
    with open(path, "w") as handle:
        for i in order:
            record = {"id": IDS[i], "outcomes": rows[i].tolist()}
            if topics:
                record["topic"] = f"t{i // 5}"
            handle.write(json.dumps(record) + "\n")
    return str(path)


def write_long(path, rows, order):
    with open(path, "w") as handle:
        for i in order:
            for s, x in enumerate(rows[i]):
                handle.write(json.dumps({"question_id": IDS[i], "sample": s,
                                         "correct": int(x)}) + "\n")
    return str(path)


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def check_against_core(document, runs, ks, **options):
    expected = kpass.leaderboard(kpass.pass_at_k, runs, ks, **options)
    results = [r for r in document["results"] if r["metric"] == "pass@k"]
    assert [r["k"] for r in results] == ks
    for found, board in zip(results, expected, strict=True):
        assert found["questions"] == board.questions
        for got, row in zip(found["rows"], board.rows, strict=True):
            assert got["name"] == row.name
            for field in ("estimate", "se", "lo", "hi", "mean", "sd", "prob_best"):
                assert got[field] == pytest.approx(getattr(row, field), rel=1e-12), field
            assert (got["rank"], got["rank_lo"], got["rank_hi"]) == (row.rank, row.rank_lo,
                                                                    row.rank_hi)
        for got, pair in zip(found["pairs"], board.pairs, strict=True):
            assert (got["a"], got["b"], got["better"]) == (pair.a, pair.b, pair.better)
            assert got["p_adjusted"] == pytest.approx(pair.p_adjusted, rel=1e-12)


def test_long_files_in_any_order_equal_the_core(tmp_path, capsys):
    paths = [write_long(tmp_path / f"{name}.jsonl", rows, RNG.permutation(M))
             for name, rows in RUNS.items()]
    code, out, err = run(capsys, "leaderboard", *paths, "--id", "question_id", "--column",
                         "correct", "--k", "1,4", "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert list(document["models"]) == list(RUNS)  # named by the file stems
    check_against_core(document, RUNS, [1, 4])


def test_wide_files_by_row_and_named_models(tmp_path, capsys):
    paths = [f"{name.upper()}={write_wide(tmp_path / f'{name}.jsonl', rows)}"
             for name, rows in RUNS.items()]
    code, out, err = run(capsys, "leaderboard", *paths, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["matched_by"] == "row order"
    check_against_core(document, {name.upper(): rows for name, rows in RUNS.items()}, [1])


def test_table_lists_models_best_first_with_rank_sets_and_legend(tmp_path, capsys):
    paths = [write_wide(tmp_path / f"{name}.jsonl", rows) for name, rows in RUNS.items()]
    code, out, err = run(capsys, "leaderboard", *paths)
    assert code == 0, err
    board = kpass.leaderboard(kpass.pass_at_k, RUNS, 1)
    lines = out.splitlines()
    assert lines[0] == f"Pass@1 on {M} questions"
    # the confidence set for the best model and the winner come first, in the core's words
    assert lines[1] == kpass.stats.ranking.best_line(board.best, 0.95)
    assert lines[2] == kpass.stats.ranking.winner_line(board.winner, 0.95)
    for line, row in zip(lines[4:7], board.rows, strict=True):
        cells = line.split()
        assert cells[1] == row.name and float(cells[2]) == pytest.approx(row.estimate, abs=5e-4)
        expected_set = (str(row.rank_lo) if row.rank_lo == row.rank_hi
                        else f"{row.rank_lo}-{row.rank_hi}")
        assert expected_set in cells
    assert "hold the true ranks together with probability >= 95%" not in out  # --explain's
    code, out, err = run(capsys, "leaderboard", *paths, "--explain")
    assert "hold the true ranks together with probability >= 95%" in " ".join(out.split())


def test_shared_questions_and_clusters(tmp_path, capsys):
    paths = [write_wide(tmp_path / f"{name}.jsonl", rows, topics=True)
             for name, rows in RUNS.items()]
    fewer = write_wide(tmp_path / "large.jsonl", RUNS["large"], order=range(M - 4))
    paths[-1] = fewer
    code, _, err = run(capsys, "leaderboard", *paths, "--id", "id")
    assert code == 1 and "4 ids of 'small' are not in 'large'" in err
    assert "pass --shared to rank on the 26 questions" in err, err
    code, out, err = run(capsys, "leaderboard", *paths, "--id", "id", "--shared", "--format",
                         "json")
    assert code == 0, err
    counts = {name: kpass.BinaryCounts(np.full(M, 4), rows.sum(axis=1), ids=IDS)
              for name, rows in RUNS.items()}
    counts["large"] = counts["large"].select(np.arange(M - 4))
    check_against_core(json.loads(out), counts, [1], shared=True)
    code, out, err = run(capsys, "leaderboard", *paths[:2], "--clusters", "topic", "--format",
                         "json")
    assert code == 0, err
    runs = {name: RUNS[name] for name in ("small", "medium")}
    check_against_core(json.loads(out), runs, [1], clusters=[f"t{i // 5}" for i in range(M)])


def test_csv_has_one_line_per_model(tmp_path, capsys):
    paths = [write_wide(tmp_path / f"{name}.jsonl", rows) for name, rows in RUNS.items()]
    code, out, err = run(capsys, "leaderboard", *paths, "--k", "1,2", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 6 and {r["k"] for r in rows} == {"1", "2"}
    board = kpass.leaderboard(kpass.pass_at_k, RUNS, 2)
    at_two = [r for r in rows if r["k"] == "2"]
    assert [r["name"] for r in at_two] == [row.name for row in board.rows]
    assert [float(r["se"]) for r in at_two] == pytest.approx([row.se for row in board.rows],
                                                              rel=1e-12)


def test_forest_plot_is_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    paths = [write_wide(tmp_path / f"{name}.jsonl", rows) for name, rows in RUNS.items()]
    target = tmp_path / "board.png"
    code, _, err = run(capsys, "leaderboard", *paths, "--k", "1,4", "--plot", target)
    assert code == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("extra, needle, status", [
    (["one.jsonl"], "give at least two files", 2),
    (["a.jsonl", "missing.jsonl"], "missing.jsonl: no such file", 1),
    (["a.jsonl", "short.jsonl"], "different numbers of questions", 1),
    (["=a.jsonl", "b.jsonl"], "empty model name", 1),
    (["x=a.jsonl", "x=b.jsonl"], "two models are named 'x'", 1),
])
def test_errors_are_one_line(tmp_path, capsys, monkeypatch, extra, needle, status):
    monkeypatch.chdir(tmp_path)
    write_wide(tmp_path / "a.jsonl", RUNS["small"])
    write_wide(tmp_path / "b.jsonl", RUNS["large"])
    write_wide(tmp_path / "one.jsonl", RUNS["small"])
    write_wide(tmp_path / "short.jsonl", RUNS["large"], order=range(10))
    args = extra if extra[0] != "one.jsonl" else ["one.jsonl"]
    code, out, err = run(capsys, "leaderboard", *args)
    assert code == status and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1, err


def test_sample_ids_refuse_duplicated_samples(tmp_path, capsys):
    paths = [write_long(tmp_path / f"{name}.jsonl", rows, range(M)) for name, rows in
             RUNS.items()]
    code, out, err = run(capsys, "leaderboard", *paths, "--id", "question_id", "--sample",
                         "sample", "--column", "correct", "--format", "json")
    assert code == 0, err
    check_against_core(json.loads(out), RUNS, [1])
    with open(paths[1], "a") as handle:  # one sample logged twice
        handle.write(json.dumps({"question_id": IDS[3], "sample": 2, "correct": 1}) + "\n")
    code, _, err = run(capsys, "leaderboard", *paths, "--id", "question_id", "--sample",
                       "sample", "--column", "correct")
    assert code == 1 and "medium.jsonl" in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run(capsys, "leaderboard", *paths, "--sample", "sample")
    assert code == 1 and "--sample needs --id" in err
