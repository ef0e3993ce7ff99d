"""Cost in ``kpass compare`` and ``kpass.compare_table``: A - B, paired (issue 39, item 3).

Expected numbers are worked in exact fractions from the rows written here (or from the
Inspect fixtures' token plan, tests/fixtures/inspect/README.md), never from kpass.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import norm, t

import kpass
from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures" / "inspect"

# model, question, correct, usd: 4 questions x 2 samples per model
ROWS = {
    "a": [("q1", 1, "0.10"), ("q1", 1, "0.12"), ("q2", 0, "0.30"), ("q2", 1, "0.28"),
          ("q3", 0, "0.50"), ("q3", 0, "0.40"), ("q4", 1, "0.20"), ("q4", 1, "0.22")],
    "b": [("q1", 1, "0.20"), ("q1", 1, "0.18"), ("q2", 1, "0.35"), ("q2", 1, "0.33"),
          ("q3", 0, "0.60"), ("q3", 1, "0.70"), ("q4", 1, "0.25"), ("q4", 0, "0.27")],
}


def _var(values):
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def _by_hand(order=("q1", "q2", "q3", "q4")):
    """Per-question mean cost and Pass@1 of each model; both differences and se^2."""
    x, s = {}, {}
    for model, rows in ROWS.items():
        for question in order:
            mine = [r for r in rows if r[0] == question]
            x.setdefault(model, []).append(sum(Fraction(r[2]) for r in mine) / len(mine))
            s.setdefault(model, []).append(Fraction(sum(r[1] for r in mine), len(mine)))
    m = len(order)
    d = [a - b for a, b in zip(x["a"], x["b"], strict=True)]
    mean = {model: (sum(x[model]) / m, sum(s[model]) / m) for model in x}
    ratio = {model: mean[model][0] / mean[model][1] for model in x}
    psi = [(x["a"][i] - ratio["a"] * s["a"][i]) / mean["a"][1]
           - (x["b"][i] - ratio["b"] * s["b"][i]) / mean["b"][1] for i in range(m)]
    return {"cost": (sum(d) / m, _var(d) / m), "per_solved": (ratio["a"] - ratio["b"],
                                                              _var(psi) / m),
            "x": x, "s": s}


def _write(tmp_path: Path) -> tuple[Path, Path, Path]:
    both = tmp_path / "runs.csv"
    both.write_text("model,question,correct,usd\n" + "".join(
        f"{model},{q},{c},{usd}\n" for model, rows in ROWS.items() for q, c, usd in rows))
    single = []
    for model, rows in ROWS.items():
        path = tmp_path / f"{model}.csv"
        path.write_text("question,correct,usd\n" + "".join(
            f"{q},{c},{usd}\n" for q, c, usd in reversed(rows)))  # another row order
        single.append(path)
    return both, single[0], single[1]


def _json(capsys, *argv):
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _check(cost, expected):
    d, var_d = expected["cost"]
    r, var_r = expected["per_solved"]
    first, second = cost
    assert first["quantity"] == "cost" and second["quantity"] == "per_solved"
    assert first["difference"] == pytest.approx(float(d), rel=1e-12)
    assert first["se"] ** 2 == pytest.approx(float(var_d), rel=1e-12)
    half = t.ppf(0.975, 3) * math.sqrt(var_d)
    assert (first["lo"], first["hi"]) == pytest.approx((float(d) - half, float(d) + half),
                                                       rel=1e-12)
    assert second["difference"] == pytest.approx(float(r), rel=1e-12)
    assert second["se"] ** 2 == pytest.approx(float(var_r), rel=1e-12)
    return second


def test_compare_two_files_and_by_model_give_the_hand_worked_differences(tmp_path, capsys):
    both, a, b = _write(tmp_path)
    expected = _by_hand()
    files = _json(capsys, "compare", str(a), str(b), "--id", "question", "--column", "correct",
                  "--k", "1", "--metrics", "pass@k", "--cost", "usd")
    split = _json(capsys, "compare", str(both), "--by", "model", "--a", "a", "--b", "b",
                  "--id", "question", "--column", "correct", "--k", "1", "--metrics",
                  "pass@k", "--cost", "usd")
    for document in (files, split):
        solved = _check(document["cost_difference"], expected)
        # 4 questions: A's solved rate (5/8) told apart from 0 at t_3? Fieller's guard decides
        s_a = expected["s"]["a"]
        told = (sum(s_a) / 4) ** 2 > t.ppf(0.975, 3) ** 2 * _var(s_a) / 4
        s_b = expected["s"]["b"]
        told = told and (sum(s_b) / 4) ** 2 > t.ppf(0.975, 3) ** 2 * _var(s_b) / 4
        if told:
            half = norm.ppf(0.975) * solved["se"]
            assert solved["hi"] - solved["lo"] == pytest.approx(2 * half, rel=1e-12)
        else:
            assert solved["lo"] is None and solved["hi"] is None  # (-inf, inf) in JSON
    assert main(["compare", str(a), str(b), "--id", "question", "--column", "correct",
                 "--k", "1", "--metrics", "pass@k", "--cost", "usd"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("cost A - B")]
    d = float(expected["cost"][0])
    assert len(lines) == 1 and lines[0].startswith(
        f"cost A - B (`usd`; 95% intervals): per question (1 sample) {d:+.4g} [")


def test_a_price_times_a_token_column_and_markdown(tmp_path, capsys):
    _, a, b = _write(tmp_path)
    document = _json(capsys, "compare", str(a), str(b), "--id", "question", "--column",
                     "correct", "--metrics", "pass@k", "--k", "1", "--cost", "usd",
                     "--cost-per-1k-tokens", "2")
    d = _by_hand()["cost"][0] * Fraction(2, 1000)
    assert document["cost_difference"][0]["difference"] == pytest.approx(float(d), rel=1e-12)
    assert main(["compare", str(a), str(b), "--id", "question", "--column", "correct",
                 "--metrics", "pass@k", "--k", "1", "--cost", "usd", "--format",
                 "markdown"]) == 0
    assert "cost A - B (`usd`; 95% intervals)" in capsys.readouterr().out


def test_compare_inspect_logs_prices_their_token_usage(capsys):
    pytest.importorskip("inspect_ai")
    paths = sorted(str(path) for path in (FIXTURES / "eval-set-2x3").glob("*_kp-easy_*"))
    found = {}
    for path in paths:
        found[path] = _json(capsys, "report", path, "--k", "1", "--metrics", "pass@k",
                            "--cost-per-1k-tokens", "1")["inputs"][0]["run"]["model"]
    a = next(path for path, model in found.items() if model == "mockllm/model-a")
    b = next(path for path, model in found.items() if model == "mockllm/model-b")
    document = _json(capsys, "compare", a, b, "--k", "1", "--metrics", "pass@k",
                     "--cost-per-1k-tokens", "1")
    # the fixtures' README: 450 input tokens over 15 samples for every model, output 105
    # (model-a) and 180 (model-b): per question A - B = (555 - 630) / 15 / 1000
    assert document["cost_difference"][0]["difference"] == pytest.approx(-75 / 15 / 1000, rel=1e-12)
    assert document["cost_difference"][0]["a"] == pytest.approx(555 / 15 / 1000, rel=1e-12)


def test_compare_table_takes_each_models_costs(tmp_path):
    expected = _by_hand()
    x, s = expected["x"], expected["s"]
    a = kpass.BinaryCounts([2] * 4, [int(v * 2) for v in s["a"]], ids=["q1", "q2", "q3", "q4"])
    # B in another order: matched by id
    order = [3, 1, 0, 2]
    b = kpass.BinaryCounts([2] * 4, [int(s["b"][i] * 2) for i in order],
                           ids=[f"q{i + 1}" for i in order])
    table = kpass.compare_table(a, b, metrics="pass@k", k=1,
                                cost_a=[float(v) for v in x["a"]],
                                cost_b=[float(x["b"][i]) for i in order])
    _check([row.as_dict() for row in table.cost_difference], expected)
    assert "cost A - B (95% intervals): per question (1 sample)" in str(table)
    assert json.loads(table.render("json"))["cost_difference"][0]["quantity"] == "cost"


@pytest.mark.parametrize("change, error, needle", [
    ({"cost_a": [0.1, 0.2, 0.3, -0.1]}, ValueError, "`cost_a[3]` = -0.1"),
    ({"cost_b": [0.1, 0.2, "x", 0.1]}, TypeError,
     "`cost_b` must hold numbers (a cost per question); got 'x'"),
    ({"cost_b": [0.1, 0.2, 0.3]}, ValueError, "`cost_b` needs one cost per question of `b`"),
    ({"cost_b": None}, ValueError, "give both `cost_a` and `cost_b`"),
])
def test_compare_table_bad_costs_name_the_argument(change, error, needle):
    a = kpass.BinaryCounts([2] * 4, [2, 1, 0, 2])
    b = kpass.BinaryCounts([2] * 4, [2, 2, 1, 1])
    arguments = {"cost_a": [0.1, 0.2, 0.3, 0.1], "cost_b": [0.2, 0.2, 0.3, 0.2], **change}
    with pytest.raises(error) as raised:
        kpass.compare_table(a, b, metrics="pass@k", k=1, **arguments)
    assert needle in str(raised.value)


def test_bad_cost_input_is_one_line(tmp_path, capsys):
    both, a, b = _write(tmp_path)
    missing = tmp_path / "runs.jsonl"  # the cost of one model's row is missing
    missing.write_text("".join(
        json.dumps({"model": model, "question": q, "correct": c,
                    "usd": None if (model, q) == ("b", "q3") else float(usd)}) + "\n"
        for model, rows in ROWS.items() for q, c, usd in rows))
    text = tmp_path / "text.csv"
    text.write_text(a.read_text().replace("0.30", "cheap"))
    bare = tmp_path / "bare.csv"  # B's file has no cost column
    bare.write_text("question,correct\n" + "".join(f"{q},{c}\n" for q, c, _ in ROWS["b"]))
    for argv, code, needles in (
            ([str(missing), "--by", "model", "--a", "a", "--b", "b", "--id", "question",
              "--cost", "usd"], 1, ["--cost usd: the cell is empty", "line 13"]),
            ([str(text), str(b), "--id", "question", "--column", "correct", "--cost", "usd"],
             1, ["--cost usd: 'cheap' is not a cost", str(text)]),
            ([str(a), str(bare), "--id", "question", "--column", "correct", "--cost", "usd"],
             1, [str(bare), "no column `usd` (--cost)"]),
            ([str(a), str(b), "--id", "question", "--cost", "usd", "--sequential"], 2,
             ["not available with --sequential"]),
            ([str(a), str(b), "--cost", "usd"], 1, ["--cost usd needs --id COLUMN"])):
        assert main(["compare", *argv]) == code
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and all(needle in err[0] for needle in needles), err


def _csv_costs(text):
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(text)))
    return [row for row in rows if row["quantity"]], rows


def test_compare_csv_carries_the_cost_differences(tmp_path, capsys):
    """``--format csv``: the metric lines, then one line per cost difference (``quantity``
    cost, per_solved) with the hand-worked A - B, its se and interval; the same two
    lines from compare_table's CSV."""
    both, a, b = _write(tmp_path)
    expected = _by_hand()
    argv = ["compare", str(both), "--by", "model", "--a", "a", "--b", "b", "--id", "question",
            "--column", "correct", "--k", "1,2", "--metrics", "pass@k", "--cost", "usd"]
    assert main([*argv, "--format", "csv"]) == 0, capsys.readouterr().err
    costs, rows = _csv_costs(capsys.readouterr().out)
    assert [row["quantity"] for row in rows] == ["", "", "cost", "per_solved"]
    assert [row["label"] for row in costs] == ["cost per question (1 sample)",
                                               "cost per solved question (Pass@1)"]
    for row in costs:
        assert (row["a_file"], row["b_file"], row["metric"], row["k"], row["questions"],
                row["confidence"]) == ("a", "b", "", "1", "4", "0.95")
    as_json = [{key: float(row[key]) if row[key] not in ("", "inf", "-inf") else
                (None if row[key] == "" else float(row[key]))
                for key in ("difference", "se", "lo", "hi")} for row in costs]
    for entry, row in zip(as_json, costs, strict=True):
        entry["quantity"] = row["quantity"]
    _check(as_json, expected)
    x = expected["x"]
    assert float(costs[0]["a"]) == pytest.approx(float(sum(x["a"]) / 4), rel=1e-12)
    assert float(costs[0]["b"]) == pytest.approx(float(sum(x["b"]) / 4), rel=1e-12)
    # JSON carries the same numbers
    document = _json(capsys, *argv)
    for row, entry in zip(costs, document["cost_difference"], strict=True):
        assert float(row["difference"]) == entry["difference"]
        assert row["lo"] == ("-inf" if entry["lo"] is None else repr(entry["lo"]))
    # compare_table: the same lines in its CSV and .rows
    ids = ["q1", "q2", "q3", "q4"]
    s = expected["s"]
    table = kpass.compare_table(
        kpass.BinaryCounts([2] * 4, [int(v * 2) for v in s["a"]], ids=ids),
        kpass.BinaryCounts([2] * 4, [int(v * 2) for v in s["b"]], ids=ids),
        metrics="pass@k", k=1, cost_a=[float(v) for v in x["a"]],
        cost_b=[float(v) for v in x["b"]])
    python, _ = _csv_costs(table.render("csv"))
    assert [(row["label"], row["quantity"]) for row in python] == [
        (row["label"], row["quantity"]) for row in costs]
    for mine, cli_row in zip(python, costs, strict=True):
        for key in ("a", "b", "difference", "se", "lo", "hi"):
            assert float(mine[key]) == pytest.approx(float(cli_row[key]), rel=1e-12), key
    assert [row.get("quantity") for row in table.rows] == [None]  # .rows: the metric's
    assert [row.quantity for row in table.cost_difference] == ["cost", "per_solved"]


def test_compare_csv_without_cost_has_no_quantity_column(tmp_path, capsys):
    _, a, b = _write(tmp_path)
    assert main(["compare", str(a), str(b), "--id", "question", "--column", "correct",
                 "--k", "1", "--metrics", "pass@k", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert "quantity" not in header and header[-1] == "reference"
