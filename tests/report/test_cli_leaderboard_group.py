"""``kpass leaderboard --group COLUMN``: the boards on all questions, then each group ranked.

Each model's per-group estimate is checked against exact Fraction arithmetic by hand
(Pass@1 is the mean of c_q / n), the rank sets against ``kpass leaderboard`` run on that
group's rows alone (files filtered by hand), the boards against a run without ``--group``.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction

import numpy as np
import pytest

from kpass.report.cli import main

PLANS = {  # model -> group -> per question, its 4 outcomes
    "a": {"alg": [[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]],
          "bio": [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]]},
    "b": {"alg": [[0, 1, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]],
          "bio": [[1, 1, 1, 0], [1, 1, 0, 1], [1, 1, 1, 1]]},
    "c": {"alg": [[0, 1, 1, 0], [1, 1, 0, 1], [0, 1, 0, 0], [1, 0, 1, 1]],
          "bio": [[0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 1, 0]]},
}


def _write(path, plan, only=None, column="subject"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", column, "correct"])
        for group, questions in plan.items():
            if only is None or group == only:
                writer.writerows([f"{group}{index}", group, outcome]
                                 for index, outcomes in enumerate(questions)
                                 for outcome in outcomes)
    return str(path)


def _files(tmp_path, only=None, column="subject"):
    suffix = only or "all"
    return [f"{model}=" + _write(tmp_path / f"{model}-{suffix}.csv", plan, only, column)
            for model, plan in PLANS.items()]


def _json(capsys, *argv):
    assert main(["leaderboard", *argv, "--metrics", "pass@k", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _stratified(model, weights):
    """The aggregate Pass@1 and its stratified SE by hand: Fraction means, numpy variances."""
    plan = PLANS[model]
    sizes = {group: len(plan[group]) for group in plan}
    total = sum(sizes.values())
    w = {group: (Fraction(n, total) if weights == "questions" else Fraction(1, len(plan)))
         for group, n in sizes.items()}
    values = {group: [Fraction(sum(q), 4) for q in plan[group]] for group in plan}
    estimate = sum(w[g] * sum(values[g]) / sizes[g] for g in plan)
    variance = sum(w[g] ** 2 * float(np.var([float(v) for v in values[g]], ddof=1)) / sizes[g]
                   for g in plan)
    return float(estimate), variance ** 0.5


@pytest.mark.parametrize("weights", ["questions", "groups"])
def test_the_boards_are_the_stratified_aggregate(tmp_path, capsys, weights):
    doc = _json(capsys, *_files(tmp_path), "--id", "question", "--group", "subject",
                "--weights", weights)
    plain = _json(capsys, *_files(tmp_path), "--id", "question")
    assert doc["weights"] == weights and doc["results"][0]["weights"] == weights
    for row in doc["results"][0]["rows"]:
        estimate, se = _stratified(row["name"], weights)
        assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
        assert row["se"] == pytest.approx(se, rel=1e-12)
        theirs = next(x for x in plain["results"][0]["rows"] if x["name"] == row["name"])
        if weights == "questions":  # micro: the estimate over all questions
            assert row["estimate"] == pytest.approx(theirs["estimate"], abs=1e-12)
        else:  # macro: 3 and 4 questions per group weigh the same
            assert row["estimate"] != pytest.approx(theirs["estimate"], abs=1e-6)
    if weights == "groups":
        assert main(["leaderboard", *_files(tmp_path), "--id", "question", "--group",
                     "subject", "--weights", "groups", "--metrics", "pass@k"]) == 0
        text = capsys.readouterr().out
        assert "(groups as strata, each group counts once)" in text
        assert "the aggregate above: each group counts once (macro)" in text


def test_group_lines_match_hand_and_each_group_alone(tmp_path, capsys):
    doc = _json(capsys, *_files(tmp_path), "--id", "question", "--group", "subject")
    assert doc["group"] == "subject"
    for group in ("alg", "bio"):
        rows = {row["name"]: row for row in doc["groups"] if row["group"] == group}
        assert set(rows) == set(PLANS)
        for model, plan in PLANS.items():
            by_hand = Fraction(sum(map(sum, plan[group])), 4 * len(plan[group]))
            assert rows[model]["estimate"] == pytest.approx(float(by_hand), abs=1e-12)
        alone = _json(capsys, *_files(tmp_path, only=group), "--id", "question")
        for row in alone["results"][0]["rows"]:
            mine = rows[row["name"]]
            assert mine["rank"] == row["rank"]
            # joint over both groups: as wide as the group's own sets, or wider
            assert mine["rank_lo"] <= row["rank_lo"] and mine["rank_hi"] >= row["rank_hi"]
            assert mine["se"] == pytest.approx(row["se"], rel=1e-12)


def test_table_has_one_line_per_group(tmp_path, capsys):
    assert main(["leaderboard", *_files(tmp_path), "--id", "question", "--group", "subject",
                 "--metrics", "pass@k"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("by subject:"))
    assert lines[start + 1].startswith("rank sets joint over the 2 groups (min-P")
    assert lines[start + 2].split() == ["Pass@1", "questions", "a", "b", "c"]
    alg = lines[start + 3].split()
    by_hand = Fraction(sum(map(sum, PLANS["a"]["alg"])), 16)  # 14 of 16 samples
    assert alg[:2] == ["alg", "4"] and alg[2] == f"{float(by_hand):.3f}"


@pytest.mark.parametrize("argv, words", [
    (["--group", "nope"], "no column `nope`"),
    (["--group", "subject", "--clusters", "subject"], "--group and --clusters"),
])
def test_bad_group_input_is_one_line(tmp_path, capsys, argv, words):
    assert main(["leaderboard", *_files(tmp_path), "--id", "question", *argv]) != 0
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_one_group_is_refused(tmp_path, capsys):
    assert main(["leaderboard", *_files(tmp_path, only="alg"), "--id", "question",
                 "--group", "subject"]) == 1
    err = capsys.readouterr().err
    assert "at least 2 groups" in err and len(err.strip().splitlines()) == 1


def test_a_group_some_model_lacks_is_named(tmp_path, capsys):
    files = _files(tmp_path)
    files[2] = "c=" + _write(tmp_path / "c-alg.csv", PLANS["c"], only="alg")
    assert main(["leaderboard", *files, "--id", "question", "--group", "subject",
                 "--shared"]) == 1
    err = capsys.readouterr().err
    assert "--group subject = bio: model c has no question in this group" in err
    assert len(err.strip().splitlines()) == 1


def test_every_board_is_broken_down_jointly(tmp_path, capsys):
    doc = _json(capsys, *_files(tmp_path), "--id", "question", "--group", "subject",
                "--k", "1,2")
    labels = [(row["group"], row["label"]) for row in doc["groups"]]
    assert sorted(set(labels)) == [("alg", "Pass@1"), ("alg", "Pass@2"), ("bio", "Pass@1"),
                                   ("bio", "Pass@2")]
    assert len(labels) == 4 * len(PLANS)
    assert main(["leaderboard", *_files(tmp_path), "--id", "question", "--group", "subject",
                 "--metrics", "pass@k", "--k", "1,2"]) == 0
    text = capsys.readouterr().out
    assert "rank sets joint over the 2 groups x 2 rows (min-P stepdown" in text


def test_cost_with_macro_weights_says_the_front_is_micro(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "question", "subject", "correct", "usd"])
        for model, plan in PLANS.items():
            for group, questions in plan.items():
                for index, outcomes in enumerate(questions):
                    writer.writerows([model, f"{group}{index}", group, outcome, 0.01]
                                     for outcome in outcomes)
    argv = ["leaderboard", str(path), "--id", "question", "--by", "model", "--group",
            "subject", "--cost", "usd", "--metrics", "pass@k"]
    assert main([*argv, "--weights", "groups"]) == 0
    out = capsys.readouterr().out
    assert "note: --cost: the cost column and front weigh each question once" in out
    assert main([*argv, "--weights", "questions"]) == 0
    assert "weigh each question once" not in capsys.readouterr().out


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard"])
def test_weights_groups_without_group_is_refused(tmp_path, capsys, command):
    files = _files(tmp_path)[:2] if command != "report" else _files(tmp_path)[:1]
    assert main([command, *files, "--id", "question", "--weights", "groups"]) == 2
    err = capsys.readouterr().err
    assert f"kpass {command}: error: --weights groups weighs the groups of --group" in err
    assert len(err.strip().splitlines()) == 1
