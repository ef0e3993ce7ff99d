"""``kpass leaderboard --group task`` on harness logs: one input per model, a group per task.

Each model's per-task estimate is checked against numpy on the raw outcomes read from the
files by hand (json for lm-eval's samples, Inspect's scorer plan for the eval-set), the SEs
against ``kpass leaderboard`` run on that task's files alone, and the joint rank sets
against the task alone: joint over every task, they can only be as wide or wider.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from kpass.report.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EVAL_SET = FIXTURES / "inspect" / "eval-set-2x3"
GROUPED = FIXTURES / "lm-eval" / "grouped"


def _json(capsys, *argv):
    assert main(["leaderboard", *argv, "--metrics", "pass_at_k", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _two_lm_eval_runs(tmp_path):
    """The grouped fixture as run 1, and run 2: model `other`, every 2nd answer flipped."""
    runs = {}
    for model, flip in (("obkbsd7z", False), ("other", True)):
        folder = tmp_path / model
        shutil.copytree(GROUPED, folder)
        results = next(folder.glob("results_*.json"))
        document = json.loads(results.read_text())
        document["model_name"] = model
        results.write_text(json.dumps(document))
        outcomes = {}
        for samples in sorted(folder.glob("samples_*.jsonl")):
            rows = [json.loads(line) for line in samples.read_text().splitlines()]
            for index, row in enumerate(rows):
                if flip and index % 2 == 0:
                    row["exact_match"] = 1.0 - row["exact_match"]
            samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
            task = samples.name.split("_2026")[0].removeprefix("samples_")
            outcomes[task] = np.array([row["exact_match"] for row in rows])
        runs[model] = (folder, outcomes)
    return runs


def test_lm_eval_runs_give_per_task_rows_per_model(tmp_path, capsys):
    runs = _two_lm_eval_runs(tmp_path)
    files = [str(path) for folder, _ in runs.values()
             for path in sorted(folder.glob("samples_*.jsonl"))]
    doc = _json(capsys, *files, "--group", "task")
    assert list(doc["models"]) == ["obkbsd7z", "other"]
    assert doc["group"] == "task" and doc["weights"] == "questions"
    # the aggregate: every question of every task once (micro), numpy on the raw outcomes
    board = doc["results"][0]
    for row in board["rows"]:
        pooled = np.concatenate(list(runs[row["name"]][1].values()))
        assert row["estimate"] == pytest.approx(pooled.mean(), abs=1e-12)
    assert board["questions"] == 13
    tasks = sorted(runs["other"][1])
    assert sorted({row["group"] for row in doc["groups"]}) == tasks
    for task in tasks:
        rows = {row["name"]: row for row in doc["groups"] if row["group"] == task}
        for model, (_, outcomes) in runs.items():
            x = outcomes[task]
            assert rows[model]["estimate"] == pytest.approx(x.mean(), abs=1e-12)
            assert rows[model]["questions"] == x.size
        alone = _json(capsys, *(f"{model}=" + str(next(folder.glob(f"samples_{task}_*.jsonl")))
                                for model, (folder, _) in runs.items()), "--any-task")
        for theirs in alone["results"][0]["rows"]:
            mine = rows[theirs["name"]]
            assert mine["se"] == pytest.approx(theirs["se"], rel=1e-12)
            assert mine["rank_lo"] <= theirs["rank_lo"] and mine["rank_hi"] >= theirs["rank_hi"]


def test_lm_eval_runs_of_one_model_are_refused(capsys):
    files = [str(path) for path in sorted(GROUPED.glob("samples_*.jsonl"))]
    assert main(["leaderboard", *files, "--group", "task"]) == 1
    err = capsys.readouterr().err
    assert "every file is of one model (obkbsd7z)" in err and len(err.strip().splitlines()) == 1


def test_a_task_one_model_lacks_is_named(tmp_path, capsys):
    runs = _two_lm_eval_runs(tmp_path)
    files = [str(path) for folder, _ in runs.values()
             for path in sorted(folder.glob("samples_*.jsonl"))
             if not (folder.name == "other" and "kp_sub_c" in path.name)]
    assert main(["leaderboard", *files, "--group", "task"]) == 1
    err = capsys.readouterr().err
    assert "other: --group task: has no log of task kp_sub_c" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_inspect_eval_set_gives_per_task_rows_per_model(capsys):
    doc = _json(capsys, str(EVAL_SET), "--group", "task", "--k", "1")
    # the scorer's plan (tests/fixtures/inspect/README.md): correct out of 15 per task
    plan = {"mockllm/model-a": (5, 3), "mockllm/model-b": (8, 6), "mockllm/model-c": (9, 7)}
    assert list(doc["models"]) == list(plan)
    aggregate = {row["name"]: row for row in doc["results"][0]["rows"]}
    for model, (easy, hard) in plan.items():
        assert aggregate[model]["estimate"] == pytest.approx((easy + hard) / 30)
        rows = {row["group"]: row for row in doc["groups"] if row["name"] == model}
        assert rows["kp_easy"]["estimate"] == pytest.approx(easy / 15)
        assert rows["kp_hard"]["estimate"] == pytest.approx(hard / 15)
    logs = sorted(str(log) for log in EVAL_SET.glob("*.eval"))
    for task in ("kp_easy", "kp_hard"):
        alone = _json(capsys, *(log for log in logs if f"_{task.replace('_', '-')}_" in log),
                      "--k", "1")
        rows = {row["name"]: row for row in doc["groups"] if row["group"] == task}
        for theirs in alone["results"][0]["rows"]:
            mine = rows[theirs["name"].split(" (")[0]]
            assert mine["se"] == pytest.approx(theirs["se"], rel=1e-12)
            assert mine["estimate"] == pytest.approx(theirs["estimate"], abs=1e-12)
