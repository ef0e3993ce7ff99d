"""Inputs as users give them (issue 38, items 3 and 9): NAME=PATH in every command,
``compare --answers`` on lm-eval ``samples_*.jsonl``, lm-eval's aggregated results file,
and Inspect logs of different tasks refused rather than paired by sample id.

Expected numbers come from the files' contents by hand (Fractions), never from kpass.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures"
REPEATS = next((FIXTURES / "lm-eval").glob("samples_kp_repeats_*.jsonl"))
RESULTS = FIXTURES / "lm-eval" / "results_kp_repeats.json"
TAU = Path(__file__).parents[2] / "shared" / "kpass" / "data" / "tau_bench_airline_gpt4o.jsonl"


def _numbers(node) -> list[float]:
    if isinstance(node, dict):
        return [x for value in node.values() for x in _numbers(value)]
    if isinstance(node, list):
        return [x for value in node for x in _numbers(value)]
    return [node] if isinstance(node, (int, float)) and not isinstance(node, bool) else []


def _changed_repeats(tmp_path: Path) -> Path:
    """The lm-eval samples file with docs 1 and 4 answered otherwise, rows in reverse order."""
    rows = [json.loads(line) for line in REPEATS.read_text().splitlines()]
    new = {1: ["no", "no", "lol", "lol"], 4: ["maybe", "lol", "lol", "lol"]}
    for row in rows:
        if row["doc_id"] in new:
            row["resps"] = [new[row["doc_id"]]]
    path = tmp_path / REPEATS.name.replace("samples_", "samples_b_")
    path.write_text("".join(json.dumps(row) + "\n" for row in reversed(rows)))
    return path


def test_compare_answers_reads_lm_eval_samples_matched_by_doc_id(tmp_path, capsys):
    b = _changed_repeats(tmp_path)
    assert main(["compare", str(REPEATS), str(b), "--answers", "--k", "1",
                 "--metrics", "pass", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matched_by"] == "question id"
    # A: docs 0 and 3 answer "lol" = target, every repeat (targets LOL/Lol differ by case)
    a = [1, 0, 0, 1, 0, 0]
    bb = [1, Fraction(2, 4), 0, 1, Fraction(1, 4), 0]
    diff = float(sum(Fraction(x) - Fraction(y) for x, y in zip(a, bb, strict=True)) / 6)
    assert diff == pytest.approx(-0.125)
    assert any(abs(x - diff) < 1e-12 for x in _numbers(out))


def test_lm_eval_results_file_is_told_apart(capsys):
    for command in (["report", str(RESULTS)], ["compare", str(RESULTS), str(REPEATS)],
                    ["leaderboard", str(RESULTS), str(REPEATS)]):
        assert main(command) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert "an lm-eval aggregated results file" in err[0]
        assert REPEATS.name in err[0]


def test_lm_eval_results_without_samples_points_to_log_samples(tmp_path, capsys):
    shutil.copy(RESULTS, tmp_path / RESULTS.name)
    assert main(["report", str(tmp_path / RESULTS.name)]) == 1
    assert "re-run lm_eval with --log_samples" in capsys.readouterr().err


def test_name_equals_path_labels_report_and_compare(capsys):
    assert main(["report", f"mine={TAU}", "--k", "1", "--metrics", "pass",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("mine,")
    assert main(["compare", f"left={TAU}", f"right={TAU}", "--k", "1", "--metrics", "pass"]) == 0
    assert "A = left, B = right" in capsys.readouterr().out
    assert main(["compare", f"x={TAU}", f"x={TAU}"]) == 2
    assert "two models are named 'x'" in capsys.readouterr().err
    assert main(["report", f"={TAU}"]) == 1
    assert "empty model name" in capsys.readouterr().err


def test_inspect_logs_of_different_tasks_are_refused(tmp_path, capsys):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log, write_eval_log

    a, b = sorted((FIXTURES / "inspect" / "eval-set").glob("*.eval"))
    log = read_eval_log(str(b))
    log.eval.task = "another_task"
    other = tmp_path / b.name
    write_eval_log(log, str(other))
    for command in ("compare", "leaderboard"):
        assert main([command, str(a), str(other), "--k", "1", "--metrics", "pass"]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "task 'another_task'" in err[0] and "--any-task" in err[0]
        assert main([command, str(a), str(other), "--k", "1", "--metrics", "pass",
                     "--any-task"]) == 0
        capsys.readouterr()
    assert main(["compare", str(a), str(b), "--k", "1", "--metrics", "pass"]) == 0
