"""The run a harness recorded, carried into report, compare and leaderboard (issue 39, item 3).

Every file read here was written by its tool (tests/fixtures/*/README.md). Expected values
are the fixtures' documented plans (token usage set by the tasks) or the results files read
with ``json``, never kpass's own reading.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from kpass.io.harness.inspect_log import load_inspect  # noqa: E402
from kpass.io.harness.metadata import RunInfo, run_info, runs_line, short_count  # noqa: E402
from kpass.report.cli import main  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures"
WATCH = FIXTURES / "inspect" / "watch"
STARTED = str(next((WATCH / "started").glob("*.eval")))
FINISHED_A, FINISHED_B = sorted(str(path) for path in (WATCH / "finished").glob("*.eval"))
EVAL_SET = FIXTURES / "inspect" / "eval-set-2x3"
GROUPED = FIXTURES / "lm-eval" / "grouped"
LIGHTEVAL = FIXTURES / "lighteval" / "kpass_recipe"


def test_inspect_log_records_model_harness_date_samples_and_tokens():
    run = run_info(FINISHED_A)
    assert run is not None
    assert (run.harness, run.harness_version, run.model, run.task) == (
        "inspect", "0.3.285", "mockllm/model-a", "kp_watch")
    assert run.date is not None and run.date.startswith("2026-11-28T01:29:11")
    assert (run.status, run.total_samples, run.epochs) == ("success", 24, 2)
    # kp_watch.py.txt: question q reads 10 + q and writes 5 q tokens, 2 epochs, q = 1..12
    inputs = 2 * sum(10 + q for q in range(1, 13))
    outputs = 2 * sum(5 * q for q in range(1, 13))
    assert (run.input_tokens, run.output_tokens, run.total_tokens) == (
        inputs, outputs, inputs + outputs)
    assert run.line() == ("model mockllm/model-a; inspect 0.3.285; 2026-11-28; 24 samples; "
                          "1.2k tokens")


def test_eval_set_logs_carry_each_models_tokens():
    # the fixture's README: 450 input tokens and 105 / 180 / 255 output tokens for a / b / c
    expected = {"mockllm/model-a": 555, "mockllm/model-b": 630, "mockllm/model-c": 705}
    for log in sorted(EVAL_SET.glob("*.eval")):
        run = run_info(str(log))
        assert run is not None and run.total_tokens == expected[str(run.model)]
        assert run.input_tokens == 450 and run.epochs == 3


def test_a_started_log_sums_the_per_sample_usage_of_what_was_read():
    loaded = load_inspect(STARTED, partial=True)
    run = run_info(STARTED, loaded)
    assert run is not None and run.status == "started"
    # samples 1..6, 2 epochs: 10 + q in, 5 q out
    assert run.total_tokens == 2 * sum(10 + 6 * q for q in range(1, 7))
    assert run.total_samples == 12 and "status started" in run.line()
    assert loaded.usage is not None
    assert loaded.usage.tolist() == [[2 * (10 + q), 10 * q, 2 * (10 + 6 * q)]
                                     for q in range(1, 7)]


def test_lm_eval_samples_file_finds_its_results_file():
    sample = next(GROUPED.glob("samples_kp_sub_b_*.jsonl"))
    results = json.loads(next(GROUPED.glob("results_*.json")).read_text())
    run = run_info(str(sample))
    assert run is not None
    assert (run.harness, run.harness_version, run.model, run.task) == (
        "lm-eval", results["lm_eval_version"], results["config"]["model"], "kp_sub_b")
    assert run.total_samples == results["n-samples"]["kp_sub_b"]["effective"]
    assert run.date is not None and run.date.startswith("2026-11-28")


def test_lm_eval_samples_file_without_results_has_no_record():
    alone = next((FIXTURES / "lm-eval").glob("samples_kp_gen_*.jsonl"))
    assert run_info(str(alone)) is None


def test_lighteval_details_find_their_results_file():
    details = next(LIGHTEVAL.glob("details_*.parquet"))
    results = json.loads(next(LIGHTEVAL.glob("results_*.json")).read_text())
    run = run_info(str(details))
    assert run is not None
    assert run.model == results["config_general"]["model_name"]
    assert run.task in results["config_tasks"]
    assert run.generate == {"temperature": 0}
    assert run.total_tokens is None


def test_plain_files_have_no_record(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"outcomes": [1, 0]}\n')
    assert run_info(str(path)) is None


@pytest.mark.parametrize(("number", "text"), [(0, "0"), (999, "999"), (1000, "1k"),
                                              (1176, "1.2k"), (12_345, "12k"),
                                              (3_400_000, "3.4M"), (2 * 10**9, "2G")])
def test_short_count(number, text):
    assert short_count(number) == text


def test_runs_line_says_what_the_runs_share():
    a = RunInfo("inspect", "0.3.285", date="2026-11-27T10:00", total_samples=24)
    b = RunInfo("lm-eval", "0.4.13", date="2026-11-28T10:00", total_samples=12)
    assert runs_line([None, None]) is None
    assert runs_line([a, None]) == ("runs: inspect 0.3.285; 2026-11-27; 24 samples each; "
                                    "1 of 2 files without a record")
    assert runs_line([a, b]) == "runs: inspect, lm-eval; 2026-11-27 to 2026-11-28"


def test_report_header_and_json_carry_the_run(capsys):
    assert main(["report", FINISHED_A, "--k", "1", "--metrics", "pass@k"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == ("  model mockllm/model-a; inspect 0.3.285; 2026-11-28; 24 samples; "
                        "1.2k tokens")
    assert main(["report", FINISHED_A, "--k", "1", "--metrics", "pass@k",
                 "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["inputs"][0]["run"]["total_tokens"] == 1176


def test_compare_prints_one_line_per_side(capsys):
    assert main(["compare", FINISHED_A, FINISHED_B, "--k", "1", "--metrics", "pass@k"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  A: model mockllm/model-a;") and "1.2k tokens" in lines[1]
    assert lines[2].startswith("  B: model mockllm/model-b;") and "2.7k tokens" in lines[2]
    assert main(["compare", FINISHED_A, FINISHED_B, "--k", "1", "--metrics", "pass@k",
                 "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["run"]["b"]["total_tokens"] == 2 * sum(10 + 16 * q for q in range(1, 13))


def test_leaderboard_has_a_tokens_column_and_runs_in_json(capsys):
    logs = [str(path) for path in sorted(EVAL_SET.glob("*_kp-easy_*.eval"))]
    assert main(["leaderboard", *logs]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "runs: inspect 0.3.285; 2026-11-28; 15 samples each"
    header = next(line for line in out if line.startswith("rank"))
    assert header.split()[-1] == "tokens"
    assert any(line.split()[1] == "mockllm/model-c" and line.split()[-1] == "705"
               for line in out if line[:4].strip().isdigit())
    assert main(["leaderboard", *logs, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["run"]["mockllm/model-b"]["total_tokens"] == 630


def test_files_without_records_change_nothing(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"outcomes": [1, 0]}\n{"outcomes": [1, 1]}\n')
    b.write_text('{"outcomes": [0, 0]}\n{"outcomes": [1, 0]}\n')
    assert main(["leaderboard", str(a), str(b), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"] is None
    assert main(["leaderboard", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "runs:" not in out and "tokens" not in out


def test_run_model_names_each_log_of_an_eval_set():
    from kpass.io.harness.metadata import run_model

    models = sorted(run_model(str(log)) for log in EVAL_SET.glob("*_kp-hard_*.eval"))
    assert models == ["mockllm/model-a", "mockllm/model-b", "mockllm/model-c"]
    assert run_model(str(next(GROUPED.glob("samples_kp_sub_a_*.jsonl")))) == "dummy"


# ---- --by model on a folder of harness logs: each log named by the model it records

def test_by_model_on_a_folder_of_logs_ranks_each_recorded_model(capsys):
    assert main(["leaderboard", str(WATCH / "finished"), "--by", "model",
                 "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    names = {row["name"] for row in document["results"][0]["rows"]}
    assert names == {"mockllm/model-a", "mockllm/model-b"}
    assert main(["compare", str(WATCH / "finished"), "--by", "model", "--a", "mockllm/model-b",
                 "--b", "mockllm/model-a", "--k", "1", "--metrics", "pass@k"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("A = mockllm/model-b, B = mockllm/model-a: 12 questions")


def test_by_model_on_an_eval_set_of_two_tasks_is_refused_naming_both(capsys):
    assert main(["leaderboard", str(EVAL_SET), "--by", "model"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "are both runs of 'mockllm/model-a'" in err[0]
    # one task's logs, by a pattern: the three models
    assert main(["leaderboard", str(EVAL_SET / "*_kp-hard_*.eval"), "--by", "model",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"][0]["rows"]
    assert sorted(row["name"] for row in rows) == [
        "mockllm/model-a", "mockllm/model-b", "mockllm/model-c"]
