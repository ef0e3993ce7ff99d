"""``report_table(counts, cost=...)``: the cost lines and fields ``kpass report --cost`` prints,
from counts made anywhere (issue 39, item 3).

Expected numbers are exact Fractions worked here (means, variances, Pass@k, the ratio) and
Fieller's quadratic solved by hand from them; then the same data through the command line.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import kpass
from kpass.report.cli import main

N = [3, 3, 3, 3, 3]
C = [3, 1, 0, 2, 1]
X = [Fraction(1, 2), Fraction(3, 4), Fraction(2), Fraction(1), Fraction(5, 4)]


def by_hand(k: int, confidence: float = 0.95) -> dict:
    """Cost per question and per solved question at k, in Fractions (intervals in floats)."""
    m = len(N)
    big_x = [k * x for x in X]
    solved = [1 - Fraction(math.comb(n - c, k), math.comb(n, k)) for n, c in zip(N, C,
                                                                                 strict=True)]
    mean_x, mean_s = sum(big_x) / m, sum(solved) / m

    def cov(a, b):
        ma, mb = sum(a) / m, sum(b) / m
        return sum((p - ma) * (q - mb) for p, q in zip(a, b, strict=True)) / (m - 1)

    t = float(stats.t.ppf(0.5 + confidence / 2, m - 1))
    se = math.sqrt(cov(big_x, big_x) / m)
    ratio = mean_x / mean_s
    resid = [p - ratio * q for p, q in zip(big_x, solved, strict=True)]
    ratio_se = math.sqrt(cov(resid, resid) / m) / float(mean_s)
    # Fieller: (S^2 - t^2 v_ss) R^2 - 2 (X S - t^2 v_xs) R + (X^2 - t^2 v_xx) <= 0
    v_xx, v_ss, v_xs = (float(cov(big_x, big_x) / m), float(cov(solved, solved) / m),
                        float(cov(big_x, solved) / m))
    a = float(mean_s) ** 2 - t * t * v_ss
    b = float(mean_x * mean_s) - t * t * v_xs
    cc = float(mean_x) ** 2 - t * t * v_xx
    if a <= 0:  # the solved rate is not told apart from 0: Fieller's set is unbounded
        lo, hi = 0.0, math.inf
    else:
        root = math.sqrt(b * b - a * cc)
        lo, hi = (b - root) / a, (b + root) / a
    return {"k": k, "questions": m, "cost": float(mean_x), "cost_se": se,
            "cost_lo": float(mean_x) - t * se, "cost_hi": float(mean_x) + t * se,
            "solved_rate": float(mean_s), "per_solved": float(ratio),
            "per_solved_se": ratio_se, "per_solved_lo": lo, "per_solved_hi": hi,
            "confidence": confidence}


def test_cost_rows_equal_the_fraction_worked_numbers():
    table = kpass.report_table(kpass.BinaryCounts(N, C), metrics="pass@k", k=[1, 2, 3],
                               cost=[float(x) for x in X])
    rows = table.cost_rows
    assert [row["k"] for row in rows] == [1, 3]  # k = 1 and the largest k every question has
    # k = 1: the solved rate (7/15 over 5 questions) is not told apart from 0, Fieller's
    # interval is [0, inf) (None in the plain fields); k = 3: a bounded interval
    assert (rows[0]["per_solved_lo"], rows[0]["per_solved_hi"]) == (0.0, None)
    assert 0 < rows[1]["per_solved_lo"] < rows[1]["per_solved"] < rows[1]["per_solved_hi"]
    for row in rows:
        expected = {key: None if value == math.inf else value
                    for key, value in by_hand(row["k"]).items()}
        assert row.pop("input") == "counts"
        assert row.keys() == expected.keys()
        for key, value in expected.items():
            assert row[key] == (value if value is None else pytest.approx(
                value, rel=1e-12, abs=1e-15)), (row["k"], key)
    # and kpass.cost_summary's own fields, one for one
    assert rows[1] == kpass.cost_summary(N, C, [float(x) for x in X], 3).as_dict()


def test_the_table_shows_the_cost_lines_and_json_carries_the_fields():
    table = kpass.report_table(kpass.BinaryCounts(N, C), metrics="pass@k", k=1,
                               cost=np.array([float(x) for x in X]))
    expected = by_hand(1)
    text = str(table)
    line = [part for part in text.splitlines() if "per question (1 sample)" in part]
    assert line == [f"  counts: per question (1 sample) {expected['cost']:.4g} "
                    f"[{expected['cost_lo']:.4g}, {expected['cost_hi']:.4g}]; per solved "
                    f"question (Pass@1) {expected['per_solved']:.4g} "
                    f"[{expected['per_solved_lo']:.4g}, {expected['per_solved_hi']:.4g}]"]
    assert "cost (95% intervals over questions):" in text
    document = json.loads(table.render("json"))
    assert document["inputs"][0]["cost"] == [
        {key: value for key, value in row.items() if key != "input"}
        for row in table.cost_rows]
    assert "cost (95% intervals" in table.render("markdown")
    assert kpass.report_table(kpass.BinaryCounts(N, C), k=1).cost_rows == []


def _runs(tmp_path):
    rng = np.random.default_rng(39)
    lines = ["model,question,sample,correct,usd"]
    for model, p in (("m1", 0.35), ("m2", 0.7)):
        for q in range(15):
            for s in range(4):
                lines.append(f"{model},q{q:02d},{s},{int(rng.random() < p)},"
                             f"{rng.gamma(2.0, 0.004 * (1 + q % 3)):.6f}")
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _report_argv(path):
    """``kpass report`` of the runs' file by model, with its usd cost, Pass@1 and Pass@4."""
    return ["report", str(path), "--id", "question", "--column", "correct", "--by", "model",
            "--cost", "usd", "--metrics", "pass@k", "--k", "1,4"]


def test_report_table_equals_the_cli_on_the_same_rows(tmp_path, capsys):
    """The dataframe route (from_long_with_costs, report_table) and ``kpass report --cost``
    give the same numbers and the same lines (bar the CLI's column name)."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("narwhals")
    path = _runs(tmp_path)
    argv = _report_argv(path)
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    cli = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    cli_text = capsys.readouterr().out
    counts, costs = kpass.from_long_with_costs(pd.read_csv(path), id="question",
                                               outcome="correct", cost="usd", by="model")
    table = kpass.report_table(counts, cost=costs, by="model", metrics="pass@k", k=[1, 4])
    python = json.loads(table.render("json"))
    ours = [row for entry in python["inputs"] for row in entry["cost"]]
    theirs = [row for entry in cli["inputs"] for row in entry["cost"]]
    assert [row.keys() for row in ours] == [row.keys() for row in theirs]
    assert len(ours) == 4  # k = 1 and 4 for each model
    for mine, cli_row in zip(ours, theirs, strict=True):
        assert mine == {key: value if value is None else pytest.approx(value, rel=1e-12)
                        for key, value in cli_row.items()}
    assert [row["per_solved"] for row in table.cost_rows] == pytest.approx(
        [row["per_solved"] for entry in cli["inputs"] for row in entry["cost"]], rel=1e-12)

    def cost_lines(text):
        return [line.replace("`usd`; ", "") for line in text.splitlines()
                if line.startswith(("cost (", "  m1: per", "  m2: per"))]

    assert cost_lines(str(table)) == cost_lines(cli_text)
    assert len(cost_lines(cli_text)) == 6  # per model: a heading, k = 1 and k = 4


def test_report_csv_carries_the_cost_lines(tmp_path, capsys):
    """``kpass report --cost --format csv`` and ``ReportTable.render("csv")``: after the
    metric lines, per model and k a ``cost`` and a ``per_solved`` line (estimate, se, lo,
    hi), the numbers of the JSON's ``cost``; without costs no ``quantity`` column."""
    import csv
    import io

    pd = pytest.importorskip("pandas")
    pytest.importorskip("narwhals")
    path = _runs(tmp_path)
    argv = _report_argv(path)
    assert main([*argv, "--format", "csv"]) == 0, capsys.readouterr().err
    cli = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert main([*argv, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["quantity"] for row in cli] == [""] * 4 + ["cost", "per_solved"] * 4
    costs = [row for row in cli if row["quantity"]]
    fields = {"cost": ("cost", "cost_se", "cost_lo", "cost_hi"),
              "per_solved": ("per_solved", "per_solved_se", "per_solved_lo", "per_solved_hi")}
    summaries = [(entry["model"], summary) for entry in document["inputs"]
                 for summary in entry["cost"] for _ in (0, 1)]
    for row, (model, summary) in zip(costs, summaries, strict=True):
        assert (row["model"], int(row["k"]), int(row["questions"])) == (
            model, summary["k"], summary["questions"])
        assert row["metric"] == "" and row["label"].startswith("cost per ")
        for column, name in zip(("estimate", "se", "lo", "hi"), fields[row["quantity"]],
                                strict=True):
            expected = summary[name]
            assert float(row[column]) == (math.inf if expected is None
                                          else pytest.approx(expected, rel=1e-15)), name
    counts, found = kpass.from_long_with_costs(pd.read_csv(path), id="question",
                                               outcome="correct", cost="usd", by="model")
    table = kpass.report_table(counts, cost=found, by="model", metrics="pass@k", k=[1, 4])
    python = list(csv.DictReader(io.StringIO(table.render("csv"))))
    assert [(row["model"], row["label"], row["quantity"]) for row in python] == [
        (row["model"], row["label"], row["quantity"]) for row in cli]
    for mine, theirs in zip(python, cli, strict=True):
        assert float(mine["estimate"]) == pytest.approx(float(theirs["estimate"]), rel=1e-12)
    plain = kpass.report_table(counts, by="model", metrics="pass@k", k=1).render("csv")
    assert "quantity" not in plain.splitlines()[0]


@pytest.mark.parametrize(("counts", "cost", "error", "message"), [
    ("one", [1.0, 2.0], ValueError, "`cost` needs one cost per question (5); got 2 values"),
    ("one", [1.0, -2.0, 0.0, 1.0, 1.0], ValueError, "`cost[1]` = -2.0: a cost must be a "
                                                    "finite number >= 0"),
    ("one", [1.0, float("nan"), 0.0, 1.0, 1.0], ValueError, "`cost[1]` = nan"),
    ("one", "12345", TypeError, "`cost` must be a sequence of numbers"),
    ("one", ["a"] * 5, TypeError, "`cost` must hold numbers"),
    ("one", {"counts": [1.0] * 5}, TypeError, "`cost` must be a mapping name -> costs with a "
                                              "mapping of inputs"),
    ("two", [1.0] * 5, TypeError, "`cost` must be a mapping name -> costs"),
    ("two", {"a": [1.0] * 5}, ValueError, "`cost` must give costs for exactly the inputs "
                                          "(a, b); got 'a'"),
    ("two", {"a": [1.0] * 5, "b": [1.0] * 4}, ValueError,
     "`cost['b']` needs one cost per question (5); got 4"),
    ("two", {"a": [1.0] * 5, "b": [1.0, 1.0, -1.0, 1.0, 1.0]}, ValueError,
     "`cost['b'][2]` = -1.0: a cost must be a finite number >= 0"),
])
def test_bad_costs_name_the_argument_the_value_and_what_was_expected(counts, cost, error,
                                                                     message):
    run = kpass.BinaryCounts(N, C)
    given = run if counts == "one" else {"a": run, "b": run}
    with pytest.raises(error) as raised:
        kpass.report_table(given, metrics="pass@k", k=1, cost=cost)
    assert message in str(raised.value)
