"""``kpass report --group COLUMN``: one row per group and the stratified aggregate.

The group rows are checked against kpass run on each group's rows alone, the aggregate
against exact Fraction arithmetic by hand (Pass@1 is the mean of c_q / n per question).
"""

from __future__ import annotations

import csv
import json
import math
from fractions import Fraction

import pytest
import scipy.stats as sps

from kpass.report.cli import main

PLAN = {  # group -> per question, its 4 outcomes
    "algebra": [[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 0, 0], [1, 0, 1, 1], [1, 1, 1, 0]],
    "biology": [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]],
    "chemistry": [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 0]],
}


def _write(path, plan, rename=None):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "subject", "correct"])
        for group, questions in plan.items():
            for index, outcomes in enumerate(questions):
                for outcome in outcomes:
                    writer.writerow([f"{group[:3]}{index}", (rename or {}).get(
                        (group, index), group), outcome])
    return str(path)


def _json(capsys, *argv):
    assert main(["report", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _by_hand(weights):
    values = {g: [Fraction(sum(o), len(o)) for o in qs] for g, qs in PLAN.items()}
    total = sum(len(v) for v in values.values())
    w = {g: Fraction(len(v), total) if weights == "questions" else Fraction(1, len(values))
         for g, v in values.items()}
    means = {g: sum(v) / len(v) for g, v in values.items()}
    var = {g: sum((x - means[g]) ** 2 for x in v) / (len(v) - 1) / len(v)
           for g, v in values.items()}
    terms = {g: w[g] ** 2 * var[g] for g in values}
    variance = sum(terms.values())
    df = variance ** 2 / sum(terms[g] ** 2 / (len(values[g]) - 1) for g in values)
    return sum(w[g] * means[g] for g in values), variance, df, means, var


@pytest.mark.parametrize("weights", ["questions", "groups"])
def test_aggregate_matches_fractions_by_hand(tmp_path, capsys, weights):
    path = _write(tmp_path / "long.csv", PLAN)
    doc = _json(capsys, path, "--id", "question", "--group", "subject", "--weights", weights,
                "--metrics", "pass_at_k", "--k", "1")
    estimate, variance, df, means, var = _by_hand(weights)
    aggregate = [r for r in doc["results"] if r["group"] is None and r["label"] == "Pass@1"]
    assert len(aggregate) == 1 and aggregate[0]["weights"] == weights
    assert aggregate[0]["estimate"] == pytest.approx(float(estimate), abs=1e-12)
    assert aggregate[0]["se"] == pytest.approx(math.sqrt(float(variance)), rel=1e-9)
    assert aggregate[0]["questions"] == 12
    if aggregate[0]["se_method"] == "t":
        half = sps.t.ppf(0.975, float(df)) * math.sqrt(float(variance))
        assert aggregate[0]["lo"] == pytest.approx(float(estimate) - half, rel=1e-9)
    groups = {r["group"]: r for r in doc["results"] if r["group"] is not None}
    assert sorted(groups) == ["algebra", "biology", "chemistry"]
    for name, row in groups.items():
        assert row["estimate"] == pytest.approx(float(means[name]), abs=1e-12)
        assert row["se"] == pytest.approx(math.sqrt(float(var[name])), rel=1e-9)
    assert doc["groups"][0]["column"] == "subject"
    assert [g["questions"] for g in doc["groups"][0]["groups"]] == [5, 4, 3]


def test_micro_aggregate_is_the_ungrouped_estimate_and_groups_match_separate_runs(
        tmp_path, capsys):
    path = _write(tmp_path / "long.csv", PLAN)
    grouped = _json(capsys, path, "--id", "question", "--group", "subject", "--k", "1,2")
    whole = _json(capsys, path, "--id", "question", "--k", "1,2")
    aggregate = [r for r in grouped["results"] if r["group"] is None]
    assert [r["label"] for r in aggregate] == [r["label"] for r in whole["results"]]
    for mine, theirs in zip(aggregate, whole["results"], strict=True):
        assert mine["estimate"] == pytest.approx(theirs["estimate"], abs=1e-12), mine["label"]
    for name in PLAN:
        alone = _json(capsys, _write(tmp_path / f"{name}.csv", {name: PLAN[name]}),
                      "--id", "question", "--k", "1,2")
        rows = [r for r in grouped["results"] if r["group"] == name]
        for mine, theirs in zip(rows, alone["results"], strict=True):
            for key in ("estimate", "se", "lo", "hi", "mean", "sd", "cred_lo", "cred_hi"):
                assert mine[key] == pytest.approx(theirs[key], abs=1e-12), (name, key)


def test_table_lists_the_aggregate_first_then_one_line_per_group(tmp_path, capsys):
    path = _write(tmp_path / "long.csv", PLAN)
    assert main(["report", path, "--id", "question", "--group", "subject", "--metrics",
                 "pass_at_k", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "aggregate of 3 groups by `subject`, stratified: each question counts once (micro)" \
        in out
    lines = out.splitlines()
    at = lines.index("by subject, Pass@1 (every metric per group: --format json or csv):")
    assert lines[at + 1].split()[:3] == ["group", "questions", "estimate"]
    assert [line.split()[:2] for line in lines[at + 2:at + 5]] == [
        ["algebra", "5"], ["biology", "4"], ["chemistry", "3"]]
    assert out.index("Pass@1 ") < out.index("by subject")


def test_csv_carries_group_and_weights(tmp_path, capsys):
    path = _write(tmp_path / "long.csv", PLAN)
    assert main(["report", path, "--id", "question", "--group", "subject", "--metrics",
                 "pass_at_k", "--k", "1", "--format", "csv", "--weights", "groups"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert [r["group"] for r in rows] == ["", "algebra", "biology", "chemistry"]
    assert {r["weights"] for r in rows} == {"groups"}


def test_a_question_with_two_group_labels_is_named(tmp_path, capsys):
    path = _write(tmp_path / "long.csv", PLAN, rename={("biology", 2): "chemistry"})
    # bio2's rows all say chemistry: a consistent relabel is fine
    assert main(["report", path, "--id", "question", "--group", "subject", "--k", "1"]) == 0
    capsys.readouterr()
    lines = open(path).read().splitlines()
    lines[2] = lines[2].replace("algebra", "biology")  # one row of alg0 says biology
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    assert main(["report", str(tmp_path / "bad.csv"), "--id", "question", "--group",
                 "subject"]) == 1
    err = capsys.readouterr().err
    assert "question 'alg0' has two --group labels" in err
    assert "'algebra' at line 2" in err and "'biology' at line 3" in err
    assert err.count("\n") == 1


def test_one_group_and_clusters_are_refused(tmp_path, capsys):
    path = _write(tmp_path / "one.csv", {"algebra": PLAN["algebra"]})
    assert main(["report", path, "--id", "question", "--group", "subject"]) == 1
    assert "a breakdown needs at least 2 groups" in capsys.readouterr().err
    path = _write(tmp_path / "long.csv", PLAN)
    assert main(["report", path, "--id", "question", "--group", "subject", "--clusters",
                 "subject"]) == 1
    assert "--group and --clusters do not go together" in capsys.readouterr().err
    assert main(["report", path, "--id", "question", "--group", "nope"]) == 1
    assert "nope" in capsys.readouterr().err


def test_wide_file_with_a_group_column(tmp_path, capsys):
    path = tmp_path / "wide.jsonl"
    with open(path, "w") as handle:
        for group, questions in PLAN.items():
            for outcomes in questions:
                handle.write(json.dumps({"outcomes": outcomes, "subject": group}) + "\n")
    doc = _json(capsys, str(path), "--group", "subject", "--metrics", "pass_at_k", "--k", "1")
    estimate, variance, *_ = _by_hand("questions")
    aggregate = doc["results"][0]
    assert aggregate["group"] is None
    assert aggregate["estimate"] == pytest.approx(float(estimate))
    assert aggregate["se"] == pytest.approx(math.sqrt(float(variance)))


# ------------------------------------------------- the harness's own grouping: --group task

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures"
EVAL_SET = FIXTURES / "inspect" / "eval-set-2x3"
GROUPED = FIXTURES / "lm-eval" / "grouped"


def test_lm_eval_subtasks_match_lm_evals_own_numbers(capsys):
    """The samples files of a group's subtasks: per subtask and the group aggregate as
    lm-eval 0.4.13 printed them (results_*.json, an independent computation)."""
    results = json.loads(next(GROUPED.glob("results_*.json")).read_text())["results"]
    files = sorted(str(path) for path in GROUPED.glob("samples_*.jsonl"))
    doc = _json(capsys, *files, "--group", "task", "--metrics", "pass_at_k")
    assert [item["file"] for item in doc["inputs"]] == ["kp_group"]
    aggregate, *groups = doc["results"]
    assert aggregate["group"] is None and aggregate["questions"] == 13
    assert aggregate["estimate"] == pytest.approx(results["kp_group"]["exact_match,none"])
    assert [row["group"] for row in groups] == ["kp_sub_a", "kp_sub_b", "kp_sub_c"]
    for row in groups:
        theirs = results[row["group"]]
        assert row["estimate"] == pytest.approx(theirs["exact_match,none"])
        assert row["se"] == pytest.approx(theirs["exact_match_stderr,none"])
        assert row["questions"] == theirs["sample_len"]
    macro = _json(capsys, *files, "--group", "task", "--weights", "groups",
                  "--metrics", "pass_at_k")["results"][0]
    assert macro["estimate"] == pytest.approx((0.75 + 1 / 3 + 2 / 3) / 3)


@pytest.mark.slow
def test_inspect_eval_set_gives_one_aggregate_per_model_and_a_row_per_task(capsys):
    doc = _json(capsys, str(EVAL_SET), "--group", "task", "--metrics", "pass_at_k", "--k", "1")
    # the scorer's plan (tests/fixtures/inspect/README.md): correct out of 15 per task
    plan = {"mockllm/model-a": (5, 3), "mockllm/model-b": (8, 6), "mockllm/model-c": (9, 7)}
    assert [item["file"] for item in doc["inputs"]] == list(plan)
    for model, (easy, hard) in plan.items():
        rows = {row["group"]: row for row in doc["results"] if row["file"] == model}
        assert rows[None]["estimate"] == pytest.approx((easy + hard) / 30)
        assert rows["kp_easy"]["estimate"] == pytest.approx(easy / 15)
        assert rows["kp_hard"]["estimate"] == pytest.approx(hard / 15)
        assert rows[None]["questions"] == 10
    # each group's row equals kpass on that log alone (one input per log, named
    # "model (task)")
    logs = sorted(str(log) for log in EVAL_SET.glob("*.eval"))
    alone = _json(capsys, *logs, "--metrics", "pass_at_k", "--k", "1")
    assert len(alone["results"]) == 6
    for theirs in alone["results"]:
        model, task = theirs["file"].rstrip(")").split(" (")
        mine = next(row for row in doc["results"] if row["file"] == model
                    and row["group"] == task)
        for key in ("estimate", "se", "lo", "hi", "mean", "sd"):
            assert mine[key] == pytest.approx(theirs[key], abs=1e-12)


@pytest.mark.slow
def test_eval_set_table_is_a_matrix_of_tasks_by_model(capsys):
    assert main(["report", str(EVAL_SET), "--group", "task", "--metrics", "pass_at_k",
                 "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "by task, Pass@1, estimate [95% interval]" in out
    assert "kp_easy          5  0.333 [" in out


def test_harness_files_group_by_task_only(capsys):
    assert main(["report", str(EVAL_SET), "--group", "subject"]) == 1
    err = capsys.readouterr().err
    assert "harness files are grouped by their task (--group task)" in err


# ------------------------------------------------------- Python: report_table(group=, weights=)

def test_report_table_group_matches_the_command_line(tmp_path, capsys):
    import kpass
    from kpass.report.from_counts import report_table

    questions = [(g, o) for g, qs in PLAN.items() for o in qs]
    counts = kpass.BinaryCounts([len(o) for _, o in questions], [sum(o) for _, o in questions])
    labels = [g for g, _ in questions]
    for weights in ("questions", "groups"):
        table = report_table(counts, metrics="pass@k", k=[1, 2], group=labels, weights=weights)
        path = _write(tmp_path / "long.csv", PLAN)
        doc = _json(capsys, path, "--id", "question", "--group", "subject", "--metrics",
                    "pass_at_k", "--k", "1,2", "--weights", weights)
        assert len(table.rows) == len(doc["results"]) == 8
        for mine, theirs in zip(table.rows, doc["results"], strict=True):
            assert mine["group"] == theirs["group"] and mine["weights"] == weights
            for key in ("estimate", "se", "lo", "hi", "mean", "sd", "questions"):
                assert mine[key] == pytest.approx(theirs[key], abs=1e-12)
    assert "aggregate of 3 groups by `group`" in str(table)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"group": ["a", "b"]}, ValueError, "`group` has 2 labels for 3 questions"),
    ({"group": ["a", "b", 1.5]}, TypeError, r"`group\[2\]` must be a str or int label"),
    ({"group": "abc"}, TypeError, "`group` must be a sequence of labels"),
    ({"group": ["a", "a", "a"]}, ValueError, "a breakdown needs at least 2 groups"),
    ({"group": ["a", "b", "b"], "weights": "micro"}, ValueError, "weights"),
    ({"group": ["a", "b", "b"], "clusters": [0, 1, 1]}, ValueError, "do not go together"),
])
def test_report_table_group_bad_input(kwargs, error, match):
    import kpass
    from kpass.report.from_counts import report_table

    with pytest.raises(error, match=match):
        report_table(kpass.BinaryCounts([4, 4, 4], [1, 2, 3]), metrics="pass@k", k=1, **kwargs)


# ------------------------------------------------------------- --by model --group task together

def test_by_model_and_group_task_equal_each_model_and_task_alone(tmp_path, capsys):
    import random

    rng = random.Random(5)
    rows = [(m, t, f"{t}-q{q}", s, int(rng.random() < skill + bonus))
            for m, skill in [("m1", 0.3), ("m2", 0.5), ("m3", 0.7)]
            for t, bonus in [("t1", 0.1), ("t2", -0.1), ("t3", 0.0)]
            for q in range(4 + len(t)) for s in range(3)]
    path = tmp_path / "runs.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "task", "question", "sample", "correct"])
        writer.writerows(rows)
    doc = _json(capsys, str(path), "--id", "question", "--by", "model", "--group", "task",
                "--metrics", "pass_at_k,pass^k", "--k", "1,2")
    for model in ("m1", "m2", "m3"):
        whole = tmp_path / f"{model}.csv"
        with open(whole, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["task", "question", "sample", "correct"])
            writer.writerows(row[1:] for row in rows if row[0] == model)
        alone = _json(capsys, str(whole), "--id", "question", "--group", "task",
                      "--metrics", "pass_at_k,pass^k", "--k", "1,2")["results"]
        mine = [row for row in doc["results"] if row["model"] == model]
        assert len(mine) == len(alone) == 16  # 4 rows x (aggregate + 3 tasks)
        for a, b in zip(mine, alone, strict=True):
            assert a["group"] == b["group"]
            for key in ("estimate", "se", "lo", "hi", "questions"):
                assert a[key] == pytest.approx(b[key], abs=1e-12), (model, a["group"], key)
    assert main(["report", str(path), "--id", "question", "--by", "model", "--group",
                 "task", "--metrics", "pass_at_k", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("aggregate of 3 groups by `task`") == 3


def test_a_group_of_one_question_is_said_and_pooled(tmp_path, capsys):
    plan = {**PLAN, "law": [[1, 0, 0, 1]]}
    path = _write(tmp_path / "long.csv", plan)
    assert main(["report", path, "--id", "question", "--group", "subject", "--metrics",
                 "pass_at_k", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 group of one question: the aggregate gives it the pooled within-group " \
           "variance (--explain)" in out
    law = next(line for line in out.splitlines() if line.startswith("law"))
    assert law.split()[1:] == ["1", "0.500", "n/a", "n/a"]
    doc = _json(capsys, path, "--id", "question", "--group", "subject", "--metrics",
                "pass_at_k", "--k", "1")
    values = {g: [Fraction(sum(o), len(o)) for o in qs] for g, qs in PLAN.items()}
    s2 = {g: sum((x - sum(v) / len(v)) ** 2 for x in v) / (len(v) - 1)
          for g, v in values.items()}
    pooled = sum((len(values[g]) - 1) * s2[g] for g in PLAN) / sum(
        len(v) - 1 for v in values.values())
    w = {g: Fraction(len(v), 13) for g, v in values.items()}
    variance = sum(w[g] ** 2 * s2[g] / len(values[g]) for g in PLAN) + Fraction(1, 13) ** 2 \
        * pooled
    assert doc["results"][0]["se"] == pytest.approx(math.sqrt(float(variance)), rel=1e-9)
