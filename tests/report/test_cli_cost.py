"""``--cost COLUMN`` and ``--cost-per-1k-tokens X`` on report and leaderboard (issue 39, item 3).

Expected numbers come from the fixtures' plans (tokens set by the task, see
tests/fixtures/inspect/README.md) or from a long file written here, computed with exact
fractions; never from kpass.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures" / "inspect"
WATCH = FIXTURES / "watch" / "finished"


def _json(capsys, *argv: str) -> dict:
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_report_prices_inspect_token_usage(capsys):
    pytest.importorskip("inspect_ai")
    document = _json(capsys, "report", str(WATCH), "--k", "1,2", "--metrics", "pass@k",
                     "--cost-per-1k-tokens", "0.5")
    # model-a: question q costs 10 + 6 q tokens a sample; model-b (scale 3): 10 + 16 q
    for entry, per_token in zip(document["inputs"], (6, 16), strict=True):
        per_sample = [Fraction(10 + per_token * q) * Fraction(1, 2000) for q in range(1, 13)]
        cost = sum(per_sample) / 12
        one, two = entry["cost"]
        assert (one["k"], two["k"]) == (1, 2)
        assert one["cost"] == pytest.approx(float(cost), rel=1e-12)
        assert two["cost"] == pytest.approx(float(2 * cost), rel=1e-12)
        # Pass@1 of the plan: 16 of 24 epochs correct; Pass@2: every question once at least
        assert one["solved_rate"] == pytest.approx(2 / 3)
        assert one["per_solved"] == pytest.approx(float(cost / Fraction(2, 3)), rel=1e-12)
        assert two["per_solved"] == pytest.approx(float(2 * cost), rel=1e-12)
        assert one["cost_lo"] < one["cost"] < one["cost_hi"]
        assert one["per_solved_lo"] < one["per_solved"] < one["per_solved_hi"]


def test_input_and_output_prices_apart(capsys):
    pytest.importorskip("inspect_ai")
    document = _json(capsys, "report", str(WATCH), "--k", "1", "--metrics", "pass@k",
                     "--cost-per-1k-tokens", "3,15")
    # model-a: 10 + q input and 5 q output tokens a sample; model-b: 15 q output
    for entry, out in zip(document["inputs"], (5, 15), strict=True):
        per_sample = [Fraction(3 * (10 + q) + 15 * out * q, 1000) for q in range(1, 13)]
        assert entry["cost"][0]["cost"] == pytest.approx(float(sum(per_sample) / 12),
                                                         rel=1e-12)


def test_report_cost_lines_under_the_table(capsys):
    pytest.importorskip("inspect_ai")
    assert main(["report", str(WATCH), "--k", "1", "--metrics", "pass@k",
                 "--cost-per-1k-tokens", "1"]) == 0
    out = capsys.readouterr().out
    assert "cost (at 1 per 1k tokens; 95% intervals over questions):" in out
    assert "  mockllm/model-a: per question (1 sample) 0.049 [" in out


def _long_file(tmp_path: Path) -> Path:
    rows = ["question,correct,usd"]
    # q1: 2 of 2 at 0.1 and 0.3; q2: 1 of 2 at 0.2, 0.2; q3: 0 of 2 at 0.5, 0.3
    for question, correct, cost in (("q1", 1, 0.1), ("q1", 1, 0.3), ("q2", 1, 0.2),
                                    ("q2", 0, 0.2), ("q3", 0, 0.5), ("q3", 0, 0.3)):
        rows.append(f"{question},{correct},{cost}")
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cost_column_of_a_long_file(tmp_path, capsys):
    path = _long_file(tmp_path)
    document = _json(capsys, "report", str(path), "--id", "question", "--column", "correct",
                     "--k", "1", "--metrics", "pass@k", "--cost", "usd")
    means = [Fraction(2, 10), Fraction(2, 10), Fraction(4, 10)]  # per question, one sample
    solved = [Fraction(1), Fraction(1, 2), Fraction(0)]
    (row,) = document["inputs"][0]["cost"]
    assert row["cost"] == pytest.approx(float(sum(means) / 3), rel=1e-12)
    assert row["per_solved"] == pytest.approx(float(sum(means) / sum(solved)), rel=1e-12)


def test_cost_column_times_a_price_counts_tokens(tmp_path, capsys):
    path = _long_file(tmp_path)
    document = _json(capsys, "report", str(path), "--id", "question", "--column", "correct",
                     "--k", "1", "--metrics", "pass@k", "--cost", "usd",
                     "--cost-per-1k-tokens", "2")
    assert document["inputs"][0]["cost"][0]["cost"] == pytest.approx(
        float(Fraction(8, 30) * Fraction(2, 1000)), rel=1e-12)


def test_errors_are_one_line(tmp_path, capsys):
    path = _long_file(tmp_path)
    wide = tmp_path / "wide.jsonl"
    wide.write_text('{"outcomes": [1, 0], "usd": 0.1}\n{"outcomes": [1, 1], "usd": 0.2}\n')
    assert main(["report", str(wide), "--cost", "usd"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--cost usd needs --id COLUMN" in err[0]
    assert main(["report", str(path), "--id", "question", "--column", "correct",
                 "--cost", "nope"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0]
    plain = tmp_path / "a.jsonl"
    plain.write_text('{"outcomes": [1, 0]}\n{"outcomes": [1, 1]}\n')
    assert main(["report", str(plain), "--cost-per-1k-tokens", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no token usage recorded" in err[0]
    assert main(["report", str(plain), "--cost-per-1k-tokens", "-1"]) == 2
    assert "X or IN,OUT (finite numbers > 0)" in capsys.readouterr().err
    assert main(["report", str(path), "--id", "question", "--column", "correct",
                 "--cost", "usd", "--cost-per-1k-tokens", "1,2"]) == 1
    assert "give one price" in capsys.readouterr().err


def test_a_negative_cost_names_its_line(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text("question,correct,usd\nq1,1,0.1\nq2,0,-0.2\n")
    assert main(["report", str(path), "--id", "question", "--column", "correct",
                 "--cost", "usd"]) == 1
    err = capsys.readouterr().err
    assert "line 3" in err and "-0.2" in err


def test_leaderboard_cost_front(capsys):
    pytest.importorskip("inspect_ai")
    logs = [str(path) for path in sorted((FIXTURES / "eval-set-2x3").glob("*_kp-easy_*"))]
    document = _json(capsys, "leaderboard", *logs, "--cost-per-1k-tokens", "1")
    (board,) = document["results"]
    # the README: 450 input tokens for 15 samples of every model; output 105, 180, 255
    for name, total in (("mockllm/model-a", 555), ("mockllm/model-b", 630),
                        ("mockllm/model-c", 705)):
        assert board["cost"][name]["cost"] == pytest.approx(total / 15 / 1000, rel=1e-12)
    # 5 questions: no model is told apart as both better and cheaper than another
    assert sorted(board["front"]) == sorted(board["cost"]) and board["dominated_by"] == {}
    assert main(["leaderboard", *logs, "--cost-per-1k-tokens", "1"]) == 0
    out = capsys.readouterr().out
    assert "cost front: mockllm/model-c, mockllm/model-b, mockllm/model-a; no model off it" \
        in out


def test_leaderboard_puts_a_dominated_model_off_the_front(tmp_path, capsys):
    rows = ["model,question,correct,usd"]
    for q in range(40):
        for s in range(2):
            rows.append(f"good,q{q},{int((q + s) % 5 != 0)},{1 + (q % 3) / 10}")
            rows.append(f"bad,q{q},{int((q + s) % 3 == 0)},{5 + (q % 4) / 10}")
    for name in ("good", "bad"):
        (tmp_path / f"{name}.csv").write_text(
            "\n".join(["question,correct,usd"] + [",".join(r.split(",")[1:]) for r in rows[1:]
                                                  if r.startswith(name + ",")]) + "\n")
    document = _json(capsys, "leaderboard", str(tmp_path / "good.csv"),
                     str(tmp_path / "bad.csv"), "--id", "question", "--column", "correct",
                     "--cost", "usd")
    (board,) = document["results"]
    assert board["front"] == ["good"] and board["dominated_by"] == {"bad": ["good"]}
