"""``kpass compare A B --group COLUMN``: the primary row's difference broken down by group.

Per-group means are checked against exact Fraction arithmetic by hand (Pass@1 is the mean
of c_q / n), the aggregate against plain ``kpass compare`` on all questions (micro
weights) and the hand-computed mean of group means (macro), the p-values against
:func:`kpass.stats.strata.group_differences` called directly on hand-made differences.
"""

from __future__ import annotations

import csv
import json
import math
from fractions import Fraction

import pytest

from kpass.report.cli import main
from kpass.stats.strata import group_differences

A = {  # group -> per question, its 4 outcomes
    "algebra": [[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 0, 0], [1, 0, 1, 1], [1, 1, 1, 0],
                [1, 1, 1, 1]],
    "biology": [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [1, 1, 0, 1]],
    "chemistry": [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1]],
}
B = {
    "algebra": [[0, 1, 0, 0], [1, 0, 1, 1], [0, 0, 0, 0], [1, 0, 0, 1], [0, 1, 0, 0],
                [1, 1, 0, 1]],
    "biology": [[1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 1], [0, 0, 1, 0], [1, 1, 0, 1]],
    "chemistry": [[0, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 0], [1, 1, 0, 1]],
}


def _write(path, plan, reverse=False, drop=()):
    rows = [(f"{group[:3]}{index}", group, outcome) for group, questions in plan.items()
            for index, outcomes in enumerate(questions) for outcome in outcomes
            if f"{group[:3]}{index}" not in drop]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "subject", "correct"])
        writer.writerows(rows[::-1] if reverse else rows)
    return str(path)


def _pair(tmp_path, **options):
    return _write(tmp_path / "a.csv", A), _write(tmp_path / "b.csv", B, **options)


def _json(capsys, *argv):
    assert main(["compare", *argv, "--metrics", "pass@k", "--k", "1", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _differences(skip=()):
    """Per question d_q = (c_A - c_B) / 4 and its group, in A's order, by hand."""
    d, labels = [], []
    for group in A:
        for index, (a, b) in enumerate(zip(A[group], B[group], strict=True)):
            if f"{group[:3]}{index}" not in skip:
                d.append(Fraction(sum(a) - sum(b), 4))
                labels.append(group)
    return d, labels


@pytest.mark.parametrize("weights", ["questions", "groups"])
def test_group_rows_match_hand_and_group_differences(tmp_path, capsys, weights):
    a, b = _pair(tmp_path, reverse=True)  # B's rows in another order: paired by id
    doc = _json(capsys, a, b, "--id", "question", "--group", "subject", "--weights", weights)
    assert doc["group"] == "subject" and doc["weights"] == weights
    plain = [row for row in doc["results"] if row["role"] not in ("aggregate", "group")]
    assert all(row["group"] is None for row in plain)
    assert [row["label"] for row in plain] == ["Pass@1"]
    rows = [row for row in doc["results"] if row["role"] in ("aggregate", "group")]
    assert [row["group"] for row in rows] == [None, "algebra", "biology", "chemistry"]
    d, labels = _differences()
    for row in rows[1:]:
        g = row["group"]
        mean_a = Fraction(sum(map(sum, A[g])), 4 * len(A[g]))
        mean_b = Fraction(sum(map(sum, B[g])), 4 * len(B[g]))
        assert row["questions"] == len(A[g])
        assert math.isclose(row["a"], mean_a) and math.isclose(row["b"], mean_b)
        assert math.isclose(row["difference"], mean_a - mean_b, abs_tol=1e-12)
    means = [Fraction(sum(map(sum, A[g])) - sum(map(sum, B[g])), 4 * len(A[g])) for g in A]
    sizes = [len(A[g]) for g in A]
    aggregate = (sum(m * n for m, n in zip(means, sizes, strict=True)) / sum(sizes)
                 if weights == "questions" else sum(means) / len(means))
    assert math.isclose(rows[0]["difference"], aggregate, abs_tol=1e-12)
    if weights == "questions":  # micro: the aggregate is compare's difference on all questions
        assert math.isclose(rows[0]["difference"], plain[0]["difference"], abs_tol=1e-12)
        assert rows[0]["questions"] == plain[0]["questions"] == 15
    direct = group_differences([float(x) for x in d], labels, weights, 0.95)
    for row, expected in zip(rows, direct, strict=True):
        assert row["p_adjusted"] == pytest.approx(expected.p_value, abs=1e-12)
        assert row["se"] == pytest.approx(expected.se, rel=1e-12)
        assert row["lo"] == pytest.approx(expected.lo, rel=1e-12)
        alpha_ok = row["p_adjusted"] < 0.05
        assert row["verdict"] == ("no detectable difference" if not alpha_ok else
                                  "A better" if row["difference"] > 0 else "B better")


def test_shared_questions_carry_their_groups(tmp_path, capsys):
    a, b = _pair(tmp_path, drop=("alg0", "bio3"))
    doc = _json(capsys, a, b, "--id", "question", "--group", "subject", "--shared")
    rows = [row for row in doc["results"] if row["role"] == "group"]
    assert [row["questions"] for row in rows] == [5, 4, 4]
    d, labels = _differences(skip=("alg0", "bio3"))
    direct = group_differences([float(x) for x in d], labels)
    assert [row["difference"] for row in rows] == pytest.approx(
        [row.difference for row in direct[1:]], abs=1e-12)
    assert [row["p_adjusted"] for row in rows] == pytest.approx(
        [row.p_value for row in direct[1:]], abs=1e-12)


def test_table_shows_aggregate_first_then_groups_and_csv_has_group(tmp_path, capsys):
    a, b = _pair(tmp_path)
    assert main(["compare", a, b, "--id", "question", "--group", "subject"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("by subject, Pass@1"))
    assert lines[start + 2].split()[:2] == ["group", "questions"]
    assert [line.split()[0] for line in lines[start + 3:start + 7]] == [
        "(aggregate)", "algebra", "biology", "chemistry"]
    assert main(["compare", a, b, "--id", "question", "--group", "subject", "--format",
                 "csv"]) == 0
    records = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    broken = [r["group"] for r in records if r["role"] in ("aggregate", "group")]
    assert broken[:4] == ["", "algebra", "biology", "chemistry"]
    shown = sum(r["role"] in ("primary", "secondary") and not r["same_as"] for r in records)
    assert len(broken) == 4 * shown > 4  # every row the table shows, merged rows once
    assert all(r["weights"] == "questions" for r in records if r["role"] == "group")


@pytest.mark.parametrize("argv, words", [
    (["--group", "nope"], "no column `nope`"),
    (["--group", "subject", "--clusters", "subject"], "cannot be combined with --clusters"),
    (["--group", "one"], "a breakdown needs at least 2 groups"),
])
def test_bad_group_input_is_one_line(tmp_path, capsys, argv, words):
    a, b = _pair(tmp_path)
    for path in (a, b):  # a column with one group for every question
        with open(path) as handle:
            rows = list(csv.reader(handle))
        with open(path, "w", newline="") as handle:
            csv.writer(handle).writerows([rows[0] + ["one"]] + [row + ["x"] for row in rows[1:]])
    assert main(["compare", a, b, "--id", "question", *argv]) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert words in captured.err and len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


def test_percent_scales_the_breakdown_like_the_table(tmp_path, capsys):
    a, b = _pair(tmp_path)
    assert main(["compare", a, b, "--id", "question", "--group", "subject", "--metrics",
                 "pass@k", "--k", "1", "--percent", "--digits", "2"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines()
                if row.startswith("algebra"))
    mean_a = 100 * Fraction(sum(map(sum, A["algebra"])), 4 * len(A["algebra"]))
    mean_b = 100 * Fraction(sum(map(sum, B["algebra"])), 4 * len(B["algebra"]))
    assert line.split()[2:5] == [f"{float(mean_a):.2f}", f"{float(mean_b):.2f}",
                                 f"{float(mean_a - mean_b):.2f}"]


# ------------------------------------------------- harness logs: --group task

EVAL_SET = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "inspect" / (
    "eval-set-2x3")


def _per_model(tmp_path):
    """The eval-set's logs copied into one folder per model (a file per task)."""
    import shutil

    from kpass.io.harness.inspect_log import _header

    where = {}
    for log in sorted(EVAL_SET.glob("*.eval")):
        header = _header(str(log))
        folder = tmp_path / str(header.eval.model).split("/")[-1]
        folder.mkdir(exist_ok=True)
        shutil.copy(log, folder)
        where[(folder.name, str(header.eval.task))] = str(folder / log.name)
    return where


def test_group_task_pairs_each_tasks_logs(tmp_path, capsys):
    where = _per_model(tmp_path)
    doc = _json(capsys, str(tmp_path / "model-a"), str(tmp_path / "model-b"), "--group", "task")
    rows = [row for row in doc["results"] if row["role"] == "group"]
    assert [row["group"] for row in rows] == ["kp_easy", "kp_hard"]
    for row in rows:  # each task's logs compared alone, without any grouping
        alone = _json(capsys, where[("model-a", row["group"])],
                      where[("model-b", row["group"])], "--any-task")["results"][0]
        assert (row["questions"], row["a"], row["b"]) == (
            alone["questions"], pytest.approx(alone["a"]), pytest.approx(alone["b"]))
        assert row["difference"] == pytest.approx(alone["difference"], abs=1e-12)
    aggregate = [row for row in doc["results"] if row["role"] == "aggregate"][0]
    assert aggregate["questions"] == sum(row["questions"] for row in rows)


def test_group_task_refuses_a_side_with_two_models(tmp_path, capsys):
    _per_model(tmp_path)
    assert main(["compare", str(EVAL_SET), str(tmp_path / "model-b"), "--group", "task"]) == 1
    err = capsys.readouterr().err
    assert "holds 3 models" in err and len(err.strip().splitlines()) == 1


def test_by_model_gives_the_breakdown_of_the_two_files(tmp_path, capsys):
    a, b = _pair(tmp_path)
    long = tmp_path / "long.csv"
    with open(long, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "question", "subject", "correct"])
        for model, path in (("m1", a), ("m2", b)):
            with open(path) as source:
                writer.writerows([model, *row] for row in list(csv.reader(source))[1:])
    files = _json(capsys, a, b, "--id", "question", "--group", "subject")
    split = _json(capsys, str(long), "--by", "model", "--a", "m1", "--b", "m2", "--id",
                  "question", "--group", "subject")
    keys = ("group", "questions", "a", "b", "difference", "se", "p_adjusted", "verdict")
    assert ([[row[key] for key in keys] for row in split["results"]]
            == [[row[key] for key in keys] for row in files["results"]])


# ------------------------------------------------- every row broken down, jointly adjusted

def _pass_at_k(outcomes, k):
    """Pass@k of one question by hand: 1 - C(n - c, k) / C(n, k), exact Fractions."""
    from math import comb

    n, c = len(outcomes), sum(outcomes)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def test_every_row_is_broken_down_with_one_joint_max_t(tmp_path, capsys):
    import numpy as np

    from kpass.stats.multiplicity import minp_stepdown

    a, b = _pair(tmp_path)
    doc = json.loads(_run_json(capsys, a, b, "--id", "question", "--group", "subject",
                               "--metrics", "pass@k", "--k", "1,2,3"))
    table = [row for row in doc["results"] if row["role"] not in ("aggregate", "group")]
    rows = [row for row in doc["results"] if row["role"] in ("aggregate", "group")]
    labels = [row["label"] for row in table]  # primary first, as the table
    assert [row["label"] for row in rows] == [label for label in labels for _ in range(4)]
    groups = list(A)
    cells = []  # by hand: d_rq per (row, group), 0 outside the group (the min-P matrix)
    for row_label in labels:
        k = int(row_label.split("@")[1])
        mine = [row for row in rows if row["label"] == row_label]
        assert [row["group"] for row in mine] == [None, *groups]
        for row in mine[1:]:
            g = row["group"]
            d = [_pass_at_k(x, k) - _pass_at_k(y, k) for x, y in zip(A[g], B[g], strict=True)]
            assert row["difference"] == pytest.approx(float(sum(d) / len(d)), abs=1e-12)
        for g in groups:
            cell = [float(_pass_at_k(x, k) - _pass_at_k(y, k)) if h == g else 0.0
                    for h in groups for x, y in zip(A[h], B[h], strict=True)]
            cells.append(cell)
    expected = minp_stepdown(np.array(cells))
    got = [row["p_adjusted"] for row in rows if row["role"] == "group"]
    assert got == pytest.approx(list(expected), abs=1e-12)
    # micro: the other rows' aggregates are the table's rows, with the table's p adj
    for row in table[1:]:
        aggregate = next(r for r in rows if r["label"] == row["label"] and r["group"] is None)
        assert aggregate["difference"] == pytest.approx(row["difference"], abs=1e-12)
        assert aggregate["p_adjusted"] == pytest.approx(row["p_adjusted"], abs=1e-12)
        assert aggregate["adjust"] == "max-t"
    first = next(r for r in rows if r["label"] == labels[0] and r["group"] is None)
    assert first["adjust"] is None  # the primary's aggregate: tested alone


def test_the_other_rows_are_one_line_each(tmp_path, capsys):
    a, b = _pair(tmp_path)
    assert main(["compare", a, b, "--id", "question", "--group", "subject", "--metrics",
                 "pass@k", "--k", "1,2,3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("the other rows"))
    assert lines[start + 1].split() == ["row", "(aggregate)", *A]
    assert [line.split()[0] for line in lines[start + 2:start + 4]] == ["Pass@2", "Pass@3"]
    assert "over the 3 groups x 3 rows" in "\n".join(lines)


def _run_json(capsys, *argv):
    assert main(["compare", *argv, "--format", "json"]) == 0
    return capsys.readouterr().out
