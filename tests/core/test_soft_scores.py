"""Soft scores (seed 002, part III): hard outcome = score > T, and the mean soft score beside."""

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import kpass
from kpass.report.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_binarize_seed_example_and_boundary():
    # Seed 002 part III: replicas 0.6, 0.4, 0.6 -> avg@3 = 2/3 and accuracy = 1.6/3.
    hard = kpass.binarize([[0.6, 0.4, 0.6]], 0.5)
    assert hard == [[1, 0, 1]]
    assert kpass.avg(hard)[0] == pytest.approx(float(Fraction(2, 3)), abs=1e-15)
    # exactly T is wrong (strict >), just above is right
    assert kpass.binarize([[0.5, np.nextafter(0.5, 1), 0.4999]], 0.5) == [[0, 1, 0]]
    matrix = kpass.binarize(np.array([[0.5, 0.7], [1.0, 0.0]]), 0.5)
    assert matrix.tolist() == [[0, 1], [1, 0]]


def test_binarize_refuses_nan_and_non_numbers():
    with pytest.raises(ValueError, match=r"R\[1\]\[0\]=nan"):
        kpass.binarize([[0.2], [float("nan"), 0.3]], 0.5)
    with pytest.raises(TypeError, match="numeric"):
        kpass.binarize([[0.2, "x"]], 0.5)
    with pytest.raises(ValueError, match="threshold"):
        kpass.binarize([[0.2]], float("nan"))


def test_pass_family_still_refuses_soft_scores_without_threshold():
    with pytest.raises(ValueError):
        kpass.pass_at_k([[0.6, 0.4]], 1)


def test_cli_seed_example(tmp_path, capsys):
    path = tmp_path / "textvqa.csv"
    path.write_text("qid,score\nq1,0.6\nq1,0.4\nq1,0.6\n")
    code, out, err = run(capsys, "report", path, "--id", "qid", "--column", "score",
                         "--threshold", "0.5", "--metrics", "avg@n", "--format", "json")
    assert code == 0, err
    rows = {row["metric"]: row for row in json.loads(out)["results"]}
    assert rows["avg@n"]["estimate"] == pytest.approx(2 / 3, abs=1e-12)
    assert rows["accuracy"]["estimate"] == pytest.approx(1.6 / 3, abs=1e-12)
    assert rows["accuracy"]["label"] == "accuracy (n runs average)"
    code, out, _ = run(capsys, "report", path, "--id", "qid", "--column", "score",
                       "--threshold", "0.5", "--metrics", "avg@n")
    assert "0.667" in out and "0.533" in out and "accuracy (n runs average)" in out


def test_cli_soft_se_is_over_questions(tmp_path, capsys):
    scores = {"a": [0.9, 0.1], "b": [0.3, 0.3, 0.6], "c": [1.0], "d": [0.5, 0.2]}
    path = tmp_path / "soft.jsonl"
    rows = [{"id": q, "scores": s} for q, values in scores.items() for s in values]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[::-1]))
    code, out, err = run(capsys, "report", path, "--id", "id", "--threshold", "0.5",
                         "--metrics", "avg@n", "--format", "json", "--short", "skip")
    assert code == 0, err
    means = np.array([np.mean(v) for v in scores.values()])
    row = next(r for r in json.loads(out)["results"] if r["metric"] == "accuracy")
    assert row["estimate"] == pytest.approx(means.mean(), abs=1e-12)
    assert row["sd"] == pytest.approx(means.std(ddof=1) / 2, abs=1e-12)
    # hard outcomes: > 0.5 -> a: 1/2, b: 1/3, c: 1, d: 0 (0.5 exactly is wrong)
    avg = next(r for r in json.loads(out)["results"] if r["metric"] == "avg@n")
    assert avg["estimate"] == pytest.approx((1 / 2 + 1 / 3 + 1 + 0) / 4, abs=1e-12)


def test_cli_refuses_soft_without_threshold_and_nan_with_its_line(tmp_path, capsys):
    path = tmp_path / "soft.csv"
    path.write_text("qid,correct\nq1,0.6\nq1,nan\n")
    code, _, err = run(capsys, "report", path, "--id", "qid")
    assert code == 1 and "line 2" in err and "--threshold" in err
    code, _, err = run(capsys, "report", path, "--id", "qid", "--threshold", "0.5")
    assert code == 1 and "line 3" in err and "nan" in err
    assert err.count("\n") == 1


def test_cli_threshold_on_wide_file_without_ids(tmp_path, capsys):
    path = tmp_path / "wide.jsonl"
    path.write_text('{"scores": [0.6, 0.4, 0.6]}\n{"scores": [0.9, 0.95]}\n')
    code, out, err = run(capsys, "report", path, "--threshold", "0.5", "--metrics", "avg@n",
                         "--format", "json")
    assert code == 0, err
    rows = {row["metric"]: row for row in json.loads(out)["results"]}
    assert rows["avg@n"]["estimate"] == pytest.approx((2 / 3 + 1) / 2, abs=1e-12)
    assert rows["accuracy"]["estimate"] == pytest.approx((1.6 / 3 + 0.925) / 2, abs=1e-12)


def test_module_threshold_keyword():
    evaluate = pytest.importorskip("evaluate")
    module = evaluate.load(str(ROOT / "metrics" / "pass_at_k_bayes"), keep_in_memory=True,
                           threshold=0.5)
    soft = module.compute(predictions=[[0.6, 0.4, 0.6], [0.5, 0.9, 0.1]], k=1)
    hard = evaluate.load(str(ROOT / "metrics" / "pass_at_k_bayes"), keep_in_memory=True
                         ).compute(predictions=[[1, 0, 1], [0, 1, 0]], k=1)
    assert soft == hard
    with pytest.raises(ValueError):
        evaluate.load(str(ROOT / "metrics" / "pass_at_k_bayes"), keep_in_memory=True
                      ).compute(predictions=[[0.6, 0.4]], k=1)
